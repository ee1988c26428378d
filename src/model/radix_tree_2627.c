/* SPDX-License-Identifier: MIT */
/*
 * radix_tree_2627.c - model of Linux 2.6.27 lib/radix-tree.c, the tree
 * PROTO_MERGED runs on (radix_tree_2627.h describes the representation).
 * Sections: nodes and tags; writers (under tree_lock); shrink and delete.
 * The lockless read side is in radix_tree_2627_read.c.
 *
 * Conventions, as radix_tree.c's:
 *  - every function cites "2.6.27 lib/radix-tree.c"; where a later kernel
 *    fixed a lockless-path bug, the fix is the default and a knob plants
 *    the 2.6.27 text back (doc/variants.md, "The 2.6.27 tree");
 *  - writers run under the caller's tree_lock: plain LOAD/STORE, except
 *    stores lockless readers race with: rcu_assign_pointer where 2.6.27
 *    has it, WRITE_ONCE where its plain store is racy by design (the
 *    reader sees the old or the new value, and is written for both);
 *  - one source-level access is one yield point, in source order; a
 *    read-modify-write under the lock is a LOAD and a STORE; a location
 *    the source reads again under the lock, where nothing can have
 *    changed it, is read once (what the compiled code does).
 *
 * Not modelled: the per-CPU preload pool (radix_tree_node_alloc falls
 * back to kmem_cache_alloc, which the model's cache sizes up front),
 * mem_cgroup, radix_tree_next_hole and the _tag_slot gang lookup (no
 * caller in the model).
 */
#include <errno.h>
#include <string.h>

#include "model/radix_tree_2627.h"
#include "model/radix_tree_internal.h"
#include "runtime/context.h"
#include "kernel/kernel.h"
#include "kernel/access.h"
#include "kernel/barrier.h"
#include "kernel/rcu.h"
#include "kernel/slab.h"

#ifndef container_of
#define container_of(ptr, type, member)				\
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#define RADIX_TREE_MAP_SHIFT	radix_tree_map_shift()
#define RADIX_TREE_MAP_SIZE	(1UL << RADIX_TREE_MAP_SHIFT)
#define RADIX_TREE_MAP_MASK	(RADIX_TREE_MAP_SIZE - 1)
#define RADIX_TREE_MAX_TAGS	RADIX_TREE_TAGS
#define __GFP_BITS_MASK		((1u << RT27_GFP_BITS_SHIFT) - 1)

#define RT_BUG_ON(cond, obj) do {					\
		if (__builtin_expect(!!(cond), 0))			\
			pr_fail("BUG", (obj), "%s: BUG_ON(%s)",	\
				__func__, #cond);			\
	} while (0)

/* 2.6.27 lib/radix-tree.c: radix_tree_path (offset, no slot pointer) */
struct rt27_path {
	struct radix_tree_node *node;
	int offset;
};

static inline unsigned long radix_tree_maxindex(unsigned int height)
{
	return radix_tree_maxindex_of(height);
}

/* ---- nodes and tags ---------------------------------------------------- */

/* 2.6.27 lib/radix-tree.c: root_gfp_mask (under tree_lock) */
static inline unsigned int root_gfp_mask(struct radix_tree_root *root)
{
	return LOAD(root->gfp_mask) & __GFP_BITS_MASK;
}

/* 2.6.27 lib/radix-tree.c: tag_set / tag_clear / tag_get (__set_bit & co.) */
static inline void tag_set(struct radix_tree_node *node, int tag, int offset)
{
	unsigned long w = LOAD(node->tags[tag][0]);

	STORE(node->tags[tag][0], w | (1UL << offset));
}

static inline void tag_clear(struct radix_tree_node *node, int tag, int offset)
{
	unsigned long w = LOAD(node->tags[tag][0]);

	STORE(node->tags[tag][0], w & ~(1UL << offset));
}

static inline int tag_get(struct radix_tree_node *node, int tag, int offset)
{
	unsigned long w = LOAD(node->tags[tag][0]);

	return (w >> offset) & 1;
}

/* 2.6.27 lib/radix-tree.c: root_tag_set / _clear / _clear_all / _get */
static inline void root_tag_set(struct radix_tree_root *root, int tag)
{
	unsigned int m = LOAD(root->gfp_mask);

	WRITE_ONCE(root->gfp_mask, m | (1u << (tag + RT27_GFP_BITS_SHIFT)));
}

static inline void root_tag_clear(struct radix_tree_root *root, int tag)
{
	unsigned int m = LOAD(root->gfp_mask);

	WRITE_ONCE(root->gfp_mask, m & ~(1u << (tag + RT27_GFP_BITS_SHIFT)));
}

static inline void root_tag_clear_all(struct radix_tree_root *root)
{
	unsigned int m = LOAD(root->gfp_mask);

	WRITE_ONCE(root->gfp_mask, m & __GFP_BITS_MASK);
}

static inline int root_tag_get(struct radix_tree_root *root, int tag)
{
	unsigned int m = LOAD(root->gfp_mask);

	return (m >> (tag + RT27_GFP_BITS_SHIFT)) & 1;
}

/* 2.6.27 lib/radix-tree.c: any_tag_set */
static inline int any_tag_set(struct radix_tree_node *node, int tag)
{
	unsigned long w = LOAD(node->tags[tag][0]);

	return w != 0;
}

/*
 * 2.6.27 lib/radix-tree.c: radix_tree_node_alloc.  The preload pool is not
 * modelled (see top of file): kmem_cache_alloc, -ENOMEM when full.
 */
static struct radix_tree_node *
radix_tree_node_alloc(struct radix_tree_root *root)
{
	struct radix_tree_node *ret;
	unsigned int gfp_mask = root_gfp_mask(root);

	ret = kmem_cache_alloc(radix_tree_node_cachep, gfp_mask);
	RT_BUG_ON(radix_tree_is_indirect_ptr(ret), ret);
	return ret;
}

/*
 * 2.6.27 lib/radix-tree.c: radix_tree_node_rcu_free.  "must only free
 * zeroed nodes into the slab. radix_tree_shrink can leave us with a
 * non-NULL entry in the first slot, so clear that here to make sure."
 * Runs after the grace period: no reader can see the node any more.
 */
static void radix_tree_node_rcu_free(struct rcu_head *head)
{
	struct radix_tree_node *node =
			container_of(head, struct radix_tree_node, rcu_head);

	tag_clear(node, 0, 0);
	tag_clear(node, 1, 0);
	STORE(node->slots[0], NULL);
	STORE(node->count, 0);
	kmem_cache_free(radix_tree_node_cachep, node);
}

/*
 * 2.6.27 lib/radix-tree.c: radix_tree_node_free, through call_rcu.
 * KNOB_RADIX_RCU_FREE plants the v1 bug here too: the node is cleared and
 * freed at once, under readers that may still walk it.
 */
static inline void radix_tree_node_free(struct radix_tree_node *node)
{
	if (knob(KNOB_RADIX_RCU_FREE))
		radix_tree_node_rcu_free(&node->rcu_head);
	else
		call_rcu(&node->rcu_head, radix_tree_node_rcu_free);
}

/* ---- writers: extend, insert, tags (tree_lock held) --------------------- */

/*
 * 2.6.27 lib/radix-tree.c: radix_tree_extend.  The old top (a node, or at
 * height 0 the item itself) goes into slot 0 of a new node published with
 * rcu_assign_pointer as an indirect pointer; root tags propagate into it.
 * A reader holding &root->rnode of a height-0 tree now finds an indirect
 * pointer there: radix_tree_deref_slot's RADIX_TREE_RETRY.
 */
static int radix_tree_extend(struct radix_tree_root *root, unsigned long index)
{
	struct radix_tree_node *node;
	unsigned int height;
	int tag;

	/* Figure out what the height should be.  */
	height = LOAD(root->height) + 1;
	while (index > radix_tree_maxindex(height))
		height++;

	{
		void *rnode = LOAD(root->rnode);

		if (rnode == NULL) {
			STORE(root->height, height);
			goto out;
		}
	}

	do {
		unsigned int newheight;
		void *rnode;

		if (!(node = radix_tree_node_alloc(root)))
			return -ENOMEM;

		/* Increase the height.  */
		rnode = LOAD(root->rnode);
		STORE(node->slots[0], radix_tree_indirect_to_ptr(rnode));

		/* Propagate the aggregated tag info into the new root */
		for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++) {
			if (root_tag_get(root, tag))
				tag_set(node, tag, 0);
		}

		newheight = LOAD(root->height) + 1;
		STORE(node->height, newheight);
		STORE(node->count, 1);
		rcu_assign_pointer(root->rnode,
				   radix_tree_ptr_to_indirect(node));
		STORE(root->height, newheight);
	} while (height > LOAD(root->height));
out:
	return 0;
}

/**
 * rt27_insert - radix_tree_insert of 2.6.27
 * @root: radix tree root (tree_lock held)
 * @index: index key
 * @item: item to insert (bit 0 clear)
 *
 * 2.6.27 lib/radix-tree.c: radix_tree_insert.  Index 0 of an empty tree
 * goes straight into root->rnode (height 0).  New nodes get their height
 * before rcu_assign_pointer publishes them; the item is published with
 * rcu_assign_pointer after the parent's count is raised.
 */
int rt27_insert(struct radix_tree_root *root, unsigned long index, void *item)
{
	struct radix_tree_node *node = NULL, *slot;
	unsigned int height, shift;
	int offset;
	int error;

	RT_BUG_ON(radix_tree_is_indirect_ptr(item), item);

	/* Make sure the tree is high enough.  */
	{
		unsigned int h = LOAD(root->height);

		if (index > radix_tree_maxindex(h)) {
			error = radix_tree_extend(root, index);
			if (error)
				return error;
		}
	}

	slot = radix_tree_indirect_to_ptr(LOAD(root->rnode));

	height = LOAD(root->height);
	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;

	offset = 0;			/* uninitialised var warning */
	while (height > 0) {
		if (slot == NULL) {
			/* Have to add a child node.  */
			if (!(slot = radix_tree_node_alloc(root)))
				return -ENOMEM;
			STORE(slot->height, height);
			if (node) {
				unsigned int c;

				rcu_assign_pointer(node->slots[offset], slot);
				c = LOAD(node->count);
				STORE(node->count, c + 1);
			} else {
				rcu_assign_pointer(root->rnode,
					radix_tree_ptr_to_indirect(slot));
			}
		}

		/* Go a level down */
		offset = (index >> shift) & RADIX_TREE_MAP_MASK;
		node = slot;
		slot = LOAD(node->slots[offset]);
		shift -= RADIX_TREE_MAP_SHIFT;
		height--;
	}

	if (slot != NULL)
		return -EEXIST;

	if (node) {
		unsigned int c = LOAD(node->count);

		STORE(node->count, c + 1);
		rcu_assign_pointer(node->slots[offset], item);
		RT_BUG_ON(tag_get(node, 0, offset), node);
		RT_BUG_ON(tag_get(node, 1, offset), node);
	} else {
		rcu_assign_pointer(root->rnode, item);
		RT_BUG_ON(root_tag_get(root, 0), root);
		RT_BUG_ON(root_tag_get(root, 1), root);
	}

	return 0;
}

/**
 * rt27_tag_set - radix_tree_tag_set of 2.6.27 (tree_lock held)
 *
 * 2.6.27 lib/radix-tree.c: sets the tag from the top node down to the
 * item, then the root's tag bit.  A tag on an index the tree cannot hold,
 * or on an absent item, is a BUG.
 */
void *rt27_tag_set(struct radix_tree_root *root, unsigned long index, int tag)
{
	unsigned int height, shift;
	struct radix_tree_node *slot;

	height = LOAD(root->height);
	RT_BUG_ON(index > radix_tree_maxindex(height), root);

	slot = radix_tree_indirect_to_ptr(LOAD(root->rnode));
	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;

	while (height > 0) {
		int offset;
		struct radix_tree_node *n = slot;

		offset = (index >> shift) & RADIX_TREE_MAP_MASK;
		if (!tag_get(n, tag, offset))
			tag_set(n, tag, offset);
		slot = LOAD(n->slots[offset]);
		RT_BUG_ON(slot == NULL, n);
		shift -= RADIX_TREE_MAP_SHIFT;
		height--;
	}

	/* set the root's tag bit */
	if (slot && !root_tag_get(root, tag))
		root_tag_set(root, tag);

	return slot;
}

/**
 * rt27_tag_clear - radix_tree_tag_clear of 2.6.27 (tree_lock held)
 *
 * 2.6.27 lib/radix-tree.c: clears the item's tag, then each parent's bit
 * while the node below has no tag left, and finally the root's tag bit.
 * Returns the item, or NULL if there is none.
 */
void *rt27_tag_clear(struct radix_tree_root *root, unsigned long index,
		     int tag)
{
	struct rt27_path path[RADIX_TREE_MAX_PATH + 1], *pathp = path;
	struct radix_tree_node *slot = NULL;
	unsigned int height, shift;

	height = LOAD(root->height);
	if (index > radix_tree_maxindex(height))
		goto out;

	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;
	pathp->node = NULL;
	slot = radix_tree_indirect_to_ptr(LOAD(root->rnode));

	while (height > 0) {
		int offset;

		if (slot == NULL)
			goto out;

		offset = (index >> shift) & RADIX_TREE_MAP_MASK;
		pathp[1].offset = offset;
		pathp[1].node = slot;
		slot = LOAD(slot->slots[offset]);
		pathp++;
		shift -= RADIX_TREE_MAP_SHIFT;
		height--;
	}

	if (slot == NULL)
		goto out;

	while (pathp->node) {
		if (!tag_get(pathp->node, tag, pathp->offset))
			goto out;
		tag_clear(pathp->node, tag, pathp->offset);
		if (any_tag_set(pathp->node, tag))
			goto out;
		pathp--;
	}

	/* clear the root's tag bit */
	if (root_tag_get(root, tag))
		root_tag_clear(root, tag);

out:
	return slot;
}

/* ---- shrink and delete (tree_lock held) ---------------------------------- */

/*
 * 2.6.27 lib/radix-tree.c: radix_tree_shrink - while the top node has one
 * child, in slot 0, make that child the top.  The store to root->rnode is
 * plain ("we are simply moving the node from one part of the tree to
 * another"), and the freed node keeps its slot 0 until the RCU callback
 * clears it: a lockless reader that walked into the node before the
 * shrink still finds the child there.
 *
 * If the child is an item (the tree drops to height 0), that slot 0 is a
 * stale copy: once the item is deleted from root->rnode, a reader holding
 * &node->slots[0] still finds the item there, and find_get_page's "has the
 * page moved?" recheck passes on it.  2.6.37 (27d20fdd, "radix-tree: fix
 * RCU bug") sets the indirect bit in that slot so that the reader's
 * radix_tree_deref_slot answers RADIX_TREE_RETRY and it starts again from
 * the root; KNOB_SHRINK_STALE_SLOT plants the 2.6.27 text back.
 */
static inline void radix_tree_shrink(struct radix_tree_root *root)
{
	unsigned int height;

	/* try to shrink tree height */
	while ((height = LOAD(root->height)) > 0) {
		struct radix_tree_node *to_free = LOAD(root->rnode);
		void *newptr;
		unsigned int c;

		RT_BUG_ON(!radix_tree_is_indirect_ptr(to_free), root);
		to_free = radix_tree_indirect_to_ptr(to_free);

		/*
		 * The candidate node has more than one child, or its child
		 * is not at the leftmost slot, we cannot shrink.
		 */
		c = LOAD(to_free->count);
		if (c != 1)
			break;
		newptr = LOAD(to_free->slots[0]);
		if (!newptr)
			break;

		if (height > 1)
			newptr = radix_tree_ptr_to_indirect(newptr);
		WRITE_ONCE(root->rnode, newptr);	/* plain, racy by design */
		STORE(root->height, height - 1);

		/* 2.6.37: force readers of the stale slot 0 to retry */
		if (height - 1 == 0 && !knob(KNOB_SHRINK_STALE_SLOT)) {
			void *s = LOAD(to_free->slots[0]);

			WRITE_ONCE(to_free->slots[0],
				   radix_tree_ptr_to_indirect(s));
		}

		radix_tree_node_free(to_free);
	}
}

/**
 * rt27_delete - radix_tree_delete of 2.6.27 (tree_lock held)
 *
 * 2.6.27 lib/radix-tree.c: at height 0 the item leaves root->rnode;
 * otherwise the item's tags are cleared, its slot NULLed, and emptied
 * nodes freed bottom-up (each freed after its parent's slot is NULLed);
 * if the walk up stops at the top node, the tree is shrunk.  Returns the
 * deleted item, or NULL if it was not present.
 */
void *rt27_delete(struct radix_tree_root *root, unsigned long index)
{
	struct rt27_path path[RADIX_TREE_MAX_PATH + 1], *pathp = path;
	struct radix_tree_node *slot = NULL;
	struct radix_tree_node *to_free;
	unsigned int height, shift;
	int tag;
	int offset;

	height = LOAD(root->height);
	if (index > radix_tree_maxindex(height))
		goto out;

	slot = LOAD(root->rnode);
	if (height == 0) {
		root_tag_clear_all(root);
		WRITE_ONCE(root->rnode, NULL);	/* racy by design */
		goto out;
	}
	slot = radix_tree_indirect_to_ptr(slot);

	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;
	pathp->node = NULL;

	do {
		if (slot == NULL)
			goto out;

		pathp++;
		offset = (index >> shift) & RADIX_TREE_MAP_MASK;
		pathp->offset = offset;
		pathp->node = slot;
		slot = LOAD(slot->slots[offset]);
		shift -= RADIX_TREE_MAP_SHIFT;
		height--;
	} while (height > 0);

	if (slot == NULL)
		goto out;

	/*
	 * Clear all tags associated with the just-deleted item
	 */
	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++) {
		if (tag_get(pathp->node, tag, pathp->offset))
			rt27_tag_clear(root, index, tag);
	}

	to_free = NULL;
	/* Now free the nodes we do not need anymore */
	while (pathp->node) {
		unsigned int c;

		/* lockless readers load the slot: racy by design */
		WRITE_ONCE(pathp->node->slots[pathp->offset], NULL);
		c = LOAD(pathp->node->count) - 1;
		STORE(pathp->node->count, c);
		/*
		 * Queue the node for deferred freeing after the
		 * last reference to it disappears (set NULL, above).
		 */
		if (to_free)
			radix_tree_node_free(to_free);

		if (c) {
			void *rnode = LOAD(root->rnode);

			if (pathp->node == radix_tree_indirect_to_ptr(rnode))
				radix_tree_shrink(root);
			goto out;
		}

		/* Node with zero slots in use so free it */
		to_free = pathp->node;
		pathp--;
	}
	root_tag_clear_all(root);
	STORE(root->height, 0);
	WRITE_ONCE(root->rnode, NULL);		/* racy by design */
	if (to_free)
		radix_tree_node_free(to_free);

out:
	return slot;
}
