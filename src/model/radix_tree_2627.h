/* SPDX-License-Identifier: MIT */
/*
 * radix_tree_2627.h - the radix tree of Linux 2.6.27 (lib/radix-tree.c,
 * include/linux/radix-tree.h), which PROTO_MERGED runs on.  The public
 * radix_tree_*() functions of radix_tree.h dispatch here when the run's
 * protocol is "merged"; PROTO_LOCKED and PROTO_V2 keep the 2.6.13 tree.
 *
 * The representation differs from 2.6.13 in three ways lockless readers
 * must handle:
 *  - a tree holding only index 0 has height 0 and the item itself in
 *    root->rnode (no node at all);
 *  - a node pointer in root->rnode carries RADIX_TREE_INDIRECT_PTR (bit 0),
 *    which tells a reader that walked in before the tree grew or shrank
 *    whether root->rnode is a node or an item (root->height is unreliable
 *    under RCU); interior slots hold plain node pointers;
 *  - a reader that holds a slot must load it with radix_tree_deref_slot(),
 *    which answers RADIX_TREE_RETRY for a pointer with the indirect bit: the
 *    slot was &root->rnode and the tree has grown since (or, with the
 *    fix of 2.6.37, a node radix_tree_shrink freed), and the lookup must
 *    start again from the root.
 * Root tags live in root->gfp_mask above RT27_GFP_BITS_SHIFT, as in
 * 2.6.27.  Nodes come from the same "node" cache as the 2.6.13 tree's.
 */
#ifndef PAGERACE_MODEL_RADIX_TREE_2627_H
#define PAGERACE_MODEL_RADIX_TREE_2627_H

#include "kernel/access.h"
#include "model/radix_tree.h"

/* 2.6.27 include/linux/radix-tree.h */
#define RADIX_TREE_INDIRECT_PTR	1UL
#define RADIX_TREE_RETRY	((void *)-1UL)
/* 2.6.27 include/linux/gfp.h: root tags are stored above the gfp bits */
#define RT27_GFP_BITS_SHIFT	21

static inline void *radix_tree_ptr_to_indirect(void *ptr)
{
	return (void *)((unsigned long)ptr | RADIX_TREE_INDIRECT_PTR);
}

static inline void *radix_tree_indirect_to_ptr(void *ptr)
{
	return (void *)((unsigned long)ptr & ~RADIX_TREE_INDIRECT_PTR);
}

static inline int radix_tree_is_indirect_ptr(const void *ptr)
{
	return (int)((unsigned long)ptr & RADIX_TREE_INDIRECT_PTR);
}

/**
 * radix_tree_deref_slot - dereference a slot a lockless lookup returned
 * @pslot: the slot
 *
 * 2.6.27 include/linux/radix-tree.h: one load of *@pslot; a pointer with
 * the indirect bit is RADIX_TREE_RETRY.  2.6.27 loads it plainly; 2.6.28
 * (e8c82c2e, "mm lockless pagecache barrier fix", also 2.6.27.11) with
 * rcu_dereference.  One yield point either way: the difference, a load
 * the compiler hoisted out of find_get_pages' retry loop, is modelled by
 * the caller (KNOB_DEREF_SLOT_PLAIN, filemap_2627.c).
 */
#define radix_tree_deref_slot(pslot) ({					\
		void *__ds = LOAD_DEP(*(pslot));			\
		radix_tree_is_indirect_ptr(__ds) ? RADIX_TREE_RETRY : __ds; })

/* The 2.6.27 implementations behind radix_tree.h's API (PROTO_MERGED). */
int rt27_insert(struct radix_tree_root *root, unsigned long index, void *item);
void *rt27_lookup(struct radix_tree_root *root, unsigned long index);
void **rt27_lookup_slot(struct radix_tree_root *root, unsigned long index);
void *rt27_delete(struct radix_tree_root *root, unsigned long index);
unsigned int rt27_gang_lookup(struct radix_tree_root *root, void **results,
			      unsigned long first_index, unsigned int max_items);
unsigned int rt27_gang_lookup_slot(struct radix_tree_root *root,
				   void ***results, unsigned long first_index,
				   unsigned int max_items);
unsigned int rt27_gang_lookup_tag(struct radix_tree_root *root,
				  void **results, unsigned long first_index,
				  unsigned int max_items, int tag);
void *rt27_tag_set(struct radix_tree_root *root, unsigned long index, int tag);
void *rt27_tag_clear(struct radix_tree_root *root, unsigned long index,
		     int tag);
int rt27_tag_get(struct radix_tree_root *root, unsigned long index, int tag);
int rt27_tagged(struct radix_tree_root *root, int tag);

#endif /* PAGERACE_MODEL_RADIX_TREE_2627_H */
