/* SPDX-License-Identifier: MIT */
/*
 * radix_tree.h - the page cache's radix tree: Linux 2.6.13-rc6
 * lib/radix-tree.c as "lockless pagecache 2" patches 4/7 (seed 005,
 * radix_tree_lookup_slot) and 5/7 (seed 006, lockless read side) leave it.
 * Under PROTO_MERGED every function below runs 2.6.27's tree instead
 * (radix_tree_2627.h: a direct item at height 0, the indirect bit on
 * root->rnode, radix_tree_deref_slot and RADIX_TREE_RETRY).
 *
 * Concurrency contract (as in the seeds):
 *  - writers (insert, delete, tag_set, tag_clear, gang_lookup_tag,
 *    tag_get) run under the caller's mapping->tree_lock;
 *  - readers (lookup, lookup_slot, gang_lookup, gang_lookup_slot,
 *    tagged) may run locklessly inside rcu_read_lock(); nodes they can
 *    still see are freed through call_rcu (unless KNOB_RADIX_RCU_FREE).
 *
 * Fan-out: RADIX_TREE_MAP_SHIFT is a run parameter (variant.radix_map_shift,
 * 1..3; the kernel used 6, its userspace test harness 3).  Node arrays are
 * sized for the largest shift (8 slots) and the code uses the run's
 * map size 1 << shift, fixed by radix_tree_reset() before every run.
 *
 * Differences from the kernel, all deliberate:
 *  - every shared access is a yield point (kernel/access.h), so several
 *    loads the kernel source writes as one expression appear as separate,
 *    individually preemptible loads in the order C evaluates them;
 *  - radix_tree_preload() is a no-op returning 0: the node cache is sized
 *    up front (radix_tree_init), and a full cache gives -ENOMEM from
 *    insert exactly where the kernel's allocation would fail;
 *  - a NULL node pointer that the kernel would dereference (an oops) fails
 *    the run with kind "null-deref" instead of crashing the process.
 */
#ifndef PAGERACE_MODEL_RADIX_TREE_H
#define PAGERACE_MODEL_RADIX_TREE_H

#include <stddef.h>
#include "kernel/rcu.h"

#define RADIX_TREE_MIN_SHIFT	1
#define RADIX_TREE_MAX_SHIFT	3	/* arrays are sized for this */
#define RADIX_TREE_MAX_MAP_SIZE	(1UL << RADIX_TREE_MAX_SHIFT)
#define RADIX_TREE_TAGS		2	/* as 2.6.13: dirty, writeback */
#define RADIX_TREE_TAG_LONGS	1	/* map size <= BITS_PER_LONG */
/* Longest root-to-leaf path plus the root sentinel, for the smallest shift. */
#define RADIX_TREE_MAX_PATH	(64 / RADIX_TREE_MIN_SHIFT + 2)

/* seed 006 (patch 5/7), struct radix_tree_node: height and rcu_head added */
struct radix_tree_node {
	unsigned int	height;		/* Height from the bottom */
	unsigned int	count;
	struct rcu_head	rcu_head;
	void		*slots[RADIX_TREE_MAX_MAP_SIZE];
	unsigned long	tags[RADIX_TREE_TAGS][RADIX_TREE_TAG_LONGS];
};

/* 2.6.13 include/linux/radix-tree.h */
struct radix_tree_root {
	unsigned int		height;
	unsigned int		gfp_mask;
	struct radix_tree_node	*rnode;
};

#define RADIX_TREE_INIT(mask)	{ .height = 0, .gfp_mask = (mask), .rnode = NULL }
#define RADIX_TREE(name, mask) \
	struct radix_tree_root name = RADIX_TREE_INIT(mask)
/* Plain stores: for setup code, before any context runs. */
#define INIT_RADIX_TREE(root, mask)					\
	do {								\
		(root)->height = 0;					\
		(root)->gfp_mask = (mask);				\
		(root)->rnode = NULL;					\
	} while (0)

/*
 * Once per process: create the "node" kmem_cache with room for @capacity
 * nodes (objects are named "node#0", "node#1", ... in allocation order by
 * the slab).  Returns 0 or -ENOMEM.
 */
int radix_tree_init(int capacity);

/*
 * Before every run, outside any context: adopt variant.radix_map_shift
 * (1..3; 0 means 3), recompute height_to_maxindex, and empty the node cache
 * (kmem_cache_reset), so every run starts from the same state.  Any tree
 * root must be re-initialised (INIT_RADIX_TREE) by the caller's setup.
 * Returns 0, or -EINVAL for an unsupported shift (nothing changed).
 */
int radix_tree_reset(void);

unsigned int radix_tree_map_shift(void);	/* the run's shift */
unsigned long radix_tree_maxindex_of(unsigned int height);
/* The tallest tree the run's shift allows (maxindex of it is ~0UL). */
unsigned int radix_tree_max_height(void);

int radix_tree_insert(struct radix_tree_root *root, unsigned long index,
		      void *item);
void *radix_tree_lookup(struct radix_tree_root *root, unsigned long index);
void **radix_tree_lookup_slot(struct radix_tree_root *root,
			      unsigned long index);
void *radix_tree_delete(struct radix_tree_root *root, unsigned long index);
unsigned int radix_tree_gang_lookup(struct radix_tree_root *root,
				    void **results, unsigned long first_index,
				    unsigned int max_items);
unsigned int radix_tree_gang_lookup_slot(struct radix_tree_root *root,
					 void ***results,
					 unsigned long first_index,
					 unsigned int max_items);
unsigned int radix_tree_gang_lookup_tag(struct radix_tree_root *root,
					void **results,
					unsigned long first_index,
					unsigned int max_items, int tag);
int radix_tree_preload(unsigned int gfp_mask);
static inline void radix_tree_preload_end(void) { }
void *radix_tree_tag_set(struct radix_tree_root *root, unsigned long index,
			 int tag);
void *radix_tree_tag_clear(struct radix_tree_root *root, unsigned long index,
			   int tag);
int radix_tree_tag_get(struct radix_tree_root *root, unsigned long index,
		       int tag);
int radix_tree_tagged(struct radix_tree_root *root, int tag);

/*
 * Lockless readers fail the run ("rcu-unprotected") unless the caller is
 * inside rcu_read_lock or @held says it holds the tree's lock.
 */
void radix_tree_set_lock_check(int (*held)(const struct radix_tree_root *));

/* Nodes allocated and not freed (RCU-pending ones included). */
unsigned int radix_tree_nodes_active(void);

/* radix_tree_check() flags */
enum {
	/*
	 * Also reject what 2.6.13 leaves behind only after -ENOMEM: a node
	 * with count 0, or root->height != 0 with an empty root.
	 */
	RADIX_CHECK_STRICT = 1 << 0,
};

/*
 * End-of-run invariants, callable outside any context (no yield points):
 * counts match non-NULL slots, heights decrease by one per level from
 * root->height, every entry is reachable at its index and within
 * maxindex(root->height), every reachable node is an allocated slab
 * object (not freed or queued by call_rcu), tags are set only on present
 * slots and an
 * interior tag bit is set iff the child below carries that tag.  Stores
 * the number of entries in *@nr_entries (if not NULL) and returns 0; on a
 * violation calls pr_fail("invariant", node, ...) and does not return.
 */
int radix_tree_check(const struct radix_tree_root *root,
		     unsigned long *nr_entries, unsigned int flags);

/*
 * As radix_tree_check, but reports a violation by returning -1 with the
 * message in @msg (and the offending node in *@bad, may be NULL) instead
 * of failing the run.  For unit tests.
 */
int radix_tree_check_msg(const struct radix_tree_root *root,
			 unsigned long *nr_entries, unsigned int flags,
			 char *msg, size_t len, const void **bad);

/*
 * End-of-run reads without yield points, for either representation (the
 * 2.6.13 tree, or 2.6.27's under PROTO_MERGED): the entry at @index, and
 * every entry in index order (returns the number of nodes).  The tree must
 * not be changing; check it first if it may be broken.
 */
void *radix_tree_peek(const struct radix_tree_root *root, unsigned long index);
unsigned long radix_tree_peek_each(const struct radix_tree_root *root,
				   void (*fn)(void *arg, unsigned long index,
					      void *item), void *arg);

#endif /* PAGERACE_MODEL_RADIX_TREE_H */
