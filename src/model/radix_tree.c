/* SPDX-License-Identifier: MIT */
/*
 * radix_tree.c - model of Linux 2.6.13-rc6 lib/radix-tree.c with "lockless
 * pagecache 2" patches 4/7 (seed 005) and 5/7 (seed 006) applied.
 * Sections: setup and node allocation; writers (under tree_lock); the
 * lockless read side (seeds 005/006).
 *
 * Conventions (see radix_tree.h for the contract):
 *  - Code that the seeds do not touch cites "2.6.13 lib/radix-tree.c";
 *    changed code cites its seed hunk.
 *  - Writers run under the caller's tree_lock: their shared accesses are
 *    plain LOAD/STORE, and publication stores follow smp_wmb() exactly
 *    where seed 006 put it.
 *  - Lockless readers (lookup, lookup_slot, gang_lookup(_slot); tagged is
 *    written the same way though its caller holds tree_lock) load every pointer they follow with rcu_dereference() and every other
 *    shared word with READ_ONCE().  2.6.13 had no rcu_dereference in the
 *    radix tree (seed 006 relies on data dependency ordering); these are
 *    modelled as acquire loads so that a weak-memory mode can be added
 *    later without touching this file.
 *  - One source-level load is one yield point: where the kernel source
 *    reads the same location twice (root->rnode in __lookup_slot,
 *    slot->slots[i] in __lookup), the model reads it twice too, so the
 *    schedules the seeds allow are all reachable.
 *  - Accessor arguments are never nested (accessor macros may evaluate
 *    their argument more than once): values go through locals.
 *  - A read-modify-write under the lock is a LOAD into a local and then a
 *    STORE, i.e. two yield points, as the compiled code would be.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/radix_tree.h"
#include "model/radix_tree_2627.h"
#include "model/radix_tree_internal.h"
#include "model/variant.h"
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

/*
 * The run's fan-out.  2.6.13 has RADIX_TREE_MAP_SHIFT 6 in the kernel and 3
 * "for more stressful testing" in userspace; here it is variant.
 * radix_map_shift, adopted by radix_tree_reset() and constant during a run.
 */
static unsigned int rt_shift = RADIX_TREE_MAX_SHIFT;
#define RADIX_TREE_MAP_SHIFT	rt_shift
#define RADIX_TREE_MAP_SIZE	(1UL << RADIX_TREE_MAP_SHIFT)
#define RADIX_TREE_MAP_MASK	(RADIX_TREE_MAP_SIZE - 1)
#define RADIX_TREE_INDEX_BITS	(8 /* CHAR_BIT */ * sizeof(unsigned long))

/* 2.6.13 lib/radix-tree.c: height_to_maxindex, computed for rt_shift */
static unsigned long rt_height_to_maxindex[RADIX_TREE_MAX_PATH];
/* Entries of height_to_maxindex valid for rt_shift: INDEX_BITS/shift + 2 */
static unsigned int rt_nr_heights;
/* Tallest tree extend() can build: the first height with maxindex ~0UL. */
static unsigned int rt_max_height;

/*
 * Slots are "void *" but the code walks them, and root->rnode, through one
 * pointer type as the kernel does ((struct radix_tree_node **) casts).
 * may_alias keeps that well defined in C.
 */
typedef void *rt_slot_t __attribute__((__may_alias__));
typedef void **rt_slotp_t __attribute__((__may_alias__));

/* 2.6.13 lib/radix-tree.c */
struct radix_tree_path {
	struct radix_tree_node *node;
	rt_slot_t *slot;
	int offset;
};

/*
 * Where the kernel would dereference a NULL node pointer (an oops), fail
 * the run with a message naming the function and the pointer.
 */
static inline struct radix_tree_node *rt_deref(void *p, const char *fn,
					       const char *what)
{
	if (__builtin_expect(p == NULL, 0))
		pr_fail("null-deref", NULL,
			"%s: NULL pointer dereference of %s", fn, what);
	return p;
}
#define RT_DEREF(p)	rt_deref((p), __func__, #p)

#define RT_BUG_ON(cond, obj) do {					\
		if (__builtin_expect(!!(cond), 0))			\
			pr_fail("BUG", (obj), "%s: BUG_ON(%s)",	\
				__func__, #cond);			\
	} while (0)

/*
 * 2.6.13 lib/radix-tree.c: radix_tree_maxindex - the largest index a tree
 * of @height can hold.  A height no tree can have (only read from a
 * recycled node) would index past the table: fail the run instead.
 */
static inline unsigned long radix_tree_maxindex(unsigned int height)
{
	if (__builtin_expect(height >= rt_nr_heights, 0))
		pr_fail("corrupt", NULL, "radix_tree_maxindex: height %u "
			"out of range (max %u)", height, rt_nr_heights - 1);
	return rt_height_to_maxindex[height];
}

/* A lockless reader's height must allow the shifts it computes. */
static inline unsigned int rt_reader_height(unsigned int height,
					    const void *node, const char *fn)
{
	if (__builtin_expect(height == 0 || height > rt_max_height, 0))
		pr_fail("corrupt", node, "%s: node height %u out of range "
			"1..%u (recycled node?)", fn, height, rt_max_height);
	return height;
}

/* Shared with the 2.6.27 tree (radix_tree_internal.h). */
struct kmem_cache *radix_tree_node_cachep;

/* 2.6.13 lib/radix-tree.c: __maxindex, without the shift overflow */
static unsigned long __maxindex(unsigned int height)
{
	unsigned int tmp = height * RADIX_TREE_MAP_SHIFT;

	if (tmp >= RADIX_TREE_INDEX_BITS)
		return ~0UL;
	return (~0UL >> (RADIX_TREE_INDEX_BITS - tmp - 1)) >> 1;
}

/* 2.6.13 lib/radix-tree.c: radix_tree_init_maxindex */
static void radix_tree_init_maxindex(void)
{
	unsigned int i;

	rt_nr_heights = RADIX_TREE_INDEX_BITS / RADIX_TREE_MAP_SHIFT + 2;
	for (i = 0; i < RADIX_TREE_MAX_PATH; i++)
		rt_height_to_maxindex[i] = i < rt_nr_heights ? __maxindex(i) : ~0UL;
	rt_max_height = 1;
	while (rt_height_to_maxindex[rt_max_height] != ~0UL)
		rt_max_height++;
}

/**
 * radix_tree_map_shift - the fan-out shift of the current run
 */
unsigned int radix_tree_map_shift(void)
{
	return rt_shift;
}

/**
 * radix_tree_maxindex_of - radix_tree_maxindex() for callers and tests
 * @height: tree height
 */
unsigned long radix_tree_maxindex_of(unsigned int height)
{
	return height < rt_nr_heights ? rt_height_to_maxindex[height] : ~0UL;
}

unsigned int radix_tree_max_height(void)
{
	return rt_max_height;
}

/*
 * 2.6.13 lib/radix-tree.c: radix_tree_node_alloc.  The per-CPU preload
 * fallback is not modelled (radix_tree_preload is a no-op): a full cache
 * is -ENOMEM.  root->gfp_mask is immutable after INIT_RADIX_TREE, so its
 * read is not a yield point.
 */
static struct radix_tree_node *
radix_tree_node_alloc(struct radix_tree_root *root)
{
	return kmem_cache_alloc(radix_tree_node_cachep, root->gfp_mask);
}

/* seed 006 (patch 5/7), radix_tree_node_rcu_free: the RCU callback */
static void radix_tree_node_rcu_free(struct rcu_head *head)
{
	struct radix_tree_node *node =
			container_of(head, struct radix_tree_node, rcu_head);

	kmem_cache_free(radix_tree_node_cachep, node);
}

/*
 * seed 006 (patch 5/7), radix_tree_node_free: freed through call_rcu, so a
 * lockless reader still inside rcu_read_lock() never sees the node reused.
 * KNOB_RADIX_RCU_FREE reverts to 2.6.13 / lockless pagecache v1: freed at
 * once.
 */
static inline void radix_tree_node_free(struct radix_tree_node *node)
{
	if (knob(KNOB_RADIX_RCU_FREE))
		kmem_cache_free(radix_tree_node_cachep, node);
	else
		call_rcu(&node->rcu_head, radix_tree_node_rcu_free);
}

/**
 * radix_tree_preload - load up per-cpu node pools (modelled as a no-op)
 * @gfp_mask: allocation mask (ignored)
 *
 * 2.6.13 fills a per-CPU pool so that radix_tree_insert under the
 * tree_lock cannot fail.  The model's node cache is sized up front by
 * radix_tree_init(), so this returns 0; radix_tree_insert still returns
 * -ENOMEM from a full cache, as the kernel's would without a preload.
 */
int radix_tree_preload(unsigned int gfp_mask)
{
	(void)gfp_mask;
	return 0;
}

/*
 * 2.6.13 lib/radix-tree.c: tag_set / tag_clear / tag_get over
 * test_bit / __set_bit / __clear_bit (non-atomic: under tree_lock).
 */
static inline int tag_get(struct radix_tree_node *node, int tag, int offset)
{
	unsigned long w = LOAD(node->tags[tag][0]);

	return (w >> offset) & 1;
}

static inline void tag_set(struct radix_tree_node *node, int tag, int offset)
{
	if (!tag_get(node, tag, offset)) {
		unsigned long w = LOAD(node->tags[tag][0]);

		STORE(node->tags[tag][0], w | (1UL << offset));
	}
}

static inline void tag_clear(struct radix_tree_node *node, int tag, int offset)
{
	unsigned long w = LOAD(node->tags[tag][0]);

	STORE(node->tags[tag][0], w & ~(1UL << offset));
}

/* 2.6.13 lib/radix-tree.c: "if (node->tags[tag][idx])" over all longs */
static inline int tag_any(struct radix_tree_node *node, int tag)
{
	int idx;

	for (idx = 0; idx < RADIX_TREE_TAG_LONGS; idx++) {
		unsigned long w = LOAD(node->tags[tag][idx]);

		if (w)
			return 1;
	}
	return 0;
}

/**
 * radix_tree_extend - extend a radix tree so it can store key @index
 * @root:	radix tree root (tree_lock held)
 * @index:	index key
 *
 * Pushes new top-level nodes until maxindex(height) >= @index.  seed 006
 * (patch 5/7), radix_tree_extend: node->height is set and smp_wmb() issued
 * before the node is published in root->rnode; root->height follows.
 */
static int radix_tree_extend(struct radix_tree_root *root, unsigned long index)
{
	struct radix_tree_node *node, *rnode;
	unsigned int height;
	char tags[RADIX_TREE_TAGS];
	int tag;

	/* Figure out what the height should be.  */
	height = LOAD(root->height) + 1;
	while (index > radix_tree_maxindex(height))
		height++;

	rnode = LOAD(root->rnode);
	if (rnode == NULL) {
		STORE(root->height, height);
		goto out;
	}

	/*
	 * Prepare the tag status of the top-level node for propagation
	 * into the newly-pushed top-level node(s)
	 */
	for (tag = 0; tag < RADIX_TREE_TAGS; tag++) {
		int idx;

		tags[tag] = 0;
		for (idx = 0; idx < RADIX_TREE_TAG_LONGS; idx++) {
			unsigned long w;

			rnode = LOAD(root->rnode);
			w = LOAD(rnode->tags[tag][idx]);
			if (w) {
				tags[tag] = 1;
				break;
			}
		}
	}

	do {
		unsigned int newheight;

		if (!(node = radix_tree_node_alloc(root)))
			return -ENOMEM;

		/* Increase the height.  */
		rnode = LOAD(root->rnode);
		STORE(node->slots[0], rnode);

		/* Propagate the aggregated tag info into the new root */
		for (tag = 0; tag < RADIX_TREE_TAGS; tag++) {
			if (tags[tag])
				tag_set(node, tag, 0);
		}

		/* seed 006 (patch 5/7), radix_tree_extend: height first */
		newheight = LOAD(root->height) + 1;
		STORE(node->height, newheight);
		STORE(node->count, 1);
		/* Make ->height visible before node visible via ->rnode */
		smp_wmb();
		STORE_RELEASE(root->rnode, node);	/* smp_wmb + store: publication */
		STORE(root->height, newheight);
	} while (height > LOAD(root->height));
out:
	return 0;
}

/**
 * radix_tree_insert - insert into a radix tree
 * @root:	radix tree root (tree_lock held)
 * @index:	index key
 * @item:	item to insert
 *
 * Insert an item into the radix tree at position @index.  Returns 0,
 * -EEXIST if the slot is taken, -ENOMEM if the node cache is full.
 * seed 006 (patch 5/7), radix_tree_insert: a new child's height is set and
 * the parent's count raised before smp_wmb() and "*slot = tmp".
 */
int radix_tree_insert(struct radix_tree_root *root, unsigned long index,
		      void *item)
{
	if (rt_is_2627())	/* PROTO_MERGED: the 2.6.27 tree */
		return rt27_insert(root, index, item);
	struct radix_tree_node *node = NULL, *tmp;
	rt_slot_t *slot;
	unsigned int height, shift;
	int offset;
	int error;

	/* Make sure the tree is high enough.  (2.6.13 lib/radix-tree.c) */
	{
		struct radix_tree_node *rnode = LOAD(root->rnode);
		int need = !index && !rnode;

		if (!need) {
			unsigned int h = LOAD(root->height);

			need = index > radix_tree_maxindex(h);
		}
		if (need) {
			error = radix_tree_extend(root, index);
			if (error)
				return error;
		}
	}

	slot = (rt_slot_t *)&root->rnode;
	height = LOAD(root->height);
	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;

	offset = 0;			/* uninitialised var warning */
	while (height > 0) {
		void *child = LOAD(*slot);

		if (child == NULL) {
			/* Have to add a child node.  */
			if (!(tmp = radix_tree_node_alloc(root)))
				return -ENOMEM;
			/* seed 006 (patch 5/7): height before publication */
			STORE(tmp->height, height);
			if (node) {
				unsigned int c = LOAD(node->count);

				STORE(node->count, c + 1);
			}
			/* Make ->height visible before node visible via slot */
			smp_wmb();
			STORE_RELEASE(*slot, tmp);	/* smp_wmb + store: publication */
		}

		/* Go a level down */
		offset = (index >> shift) & RADIX_TREE_MAP_MASK;
		node = RT_DEREF(LOAD(*slot));
		slot = (rt_slot_t *)(node->slots + offset);
		shift -= RADIX_TREE_MAP_SHIFT;
		height--;
	}

	{
		void *old = LOAD(*slot);

		if (old != NULL)
			return -EEXIST;
	}
	if (node) {
		unsigned int c = LOAD(node->count);

		STORE(node->count, c + 1);
		RT_BUG_ON(tag_get(node, 0, offset), node);
		RT_BUG_ON(tag_get(node, 1, offset), node);
	}

	/*
	 * 2.6.13 and the seeds publish the item with a plain "*slot = item"
	 * and no barrier: the caller's setup of the item (seed 007 sets the
	 * page up before inserting it) is ordered before it only by x86's
	 * store order -- finding F5.  A word store lockless readers load
	 * concurrently, so single-copy atomic (WRITE_ONCE).  The insert-release
	 * knob (and merged) publishes it with rcu_assign_pointer as 2.6.27
	 * does; the yield point is the same either way.
	 */
	if (knob(KNOB_INSERT_RELEASE))
		STORE_RELEASE(*slot, item);
	else
		WRITE_ONCE(*slot, item);
	return 0;
}


/**
 * radix_tree_tag_set - set a tag on a radix tree node
 * @root:	radix tree root (tree_lock held)
 * @index:	index key
 * @tag:	tag index
 *
 * Set the search tag corresponding to @index in the radix tree, from the
 * root all the way down to the leaf node.  Returns the item.  The item
 * must exist (BUG otherwise).  2.6.13 lib/radix-tree.c.
 */
void *radix_tree_tag_set(struct radix_tree_root *root, unsigned long index,
			 int tag)
{
	if (rt_is_2627())	/* PROTO_MERGED: the 2.6.27 tree */
		return rt27_tag_set(root, index, tag);
	unsigned int height, shift;
	rt_slot_t *slot;

	height = LOAD(root->height);
	if (index > radix_tree_maxindex(height))
		return NULL;

	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;
	slot = (rt_slot_t *)&root->rnode;

	while (height > 0) {
		int offset;
		struct radix_tree_node *n;
		void *p;

		offset = (index >> shift) & RADIX_TREE_MAP_MASK;
		n = RT_DEREF(LOAD(*slot));
		tag_set(n, tag, offset);
		n = RT_DEREF(LOAD(*slot));
		slot = (rt_slot_t *)(n->slots + offset);
		p = LOAD(*slot);
		RT_BUG_ON(p == NULL, n);
		shift -= RADIX_TREE_MAP_SHIFT;
		height--;
	}

	return LOAD(*slot);
}

/**
 * radix_tree_tag_clear - clear a tag on a radix tree node
 * @root:	radix tree root (tree_lock held)
 * @index:	index key
 * @tag:	tag index
 *
 * Clear the search tag corresponding to @index, then walk back up clearing
 * it in each parent whose node has no item left with that tag.  Returns
 * the item, or NULL if there is none.  2.6.13 lib/radix-tree.c.
 */
void *radix_tree_tag_clear(struct radix_tree_root *root, unsigned long index,
			   int tag)
{
	if (rt_is_2627())	/* PROTO_MERGED: the 2.6.27 tree */
		return rt27_tag_clear(root, index, tag);
	struct radix_tree_path path[RADIX_TREE_MAX_PATH], *pathp = path;
	unsigned int height, shift;
	void *ret = NULL;

	height = LOAD(root->height);
	if (index > radix_tree_maxindex(height))
		goto out;

	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;
	pathp->node = NULL;
	pathp->slot = (rt_slot_t *)&root->rnode;

	while (height > 0) {
		int offset;
		void *p = LOAD(*pathp->slot);

		if (p == NULL)
			goto out;

		offset = (index >> shift) & RADIX_TREE_MAP_MASK;
		pathp[1].offset = offset;
		pathp[1].node = RT_DEREF(LOAD(*pathp[0].slot));
		pathp[1].slot = (rt_slot_t *)(pathp[1].node->slots + offset);
		pathp++;
		shift -= RADIX_TREE_MAP_SHIFT;
		height--;
	}

	ret = LOAD(*pathp[0].slot);
	if (ret == NULL)
		goto out;

	do {
		tag_clear(pathp[0].node, tag, pathp[0].offset);
		if (tag_any(pathp[0].node, tag))
			goto out;
		pathp--;
	} while (pathp[0].node);
out:
	return ret;
}

/**
 * radix_tree_tag_get - get a tag on a radix tree node
 * @root:	radix tree root (tree_lock held)
 * @index:	index key
 * @tag:	tag index
 *
 * Return 1 if the item at @index carries @tag, 0 otherwise (also when
 * there is no item).  2.6.13 lib/radix-tree.c (there only built for the
 * userspace test harness).
 */
int radix_tree_tag_get(struct radix_tree_root *root, unsigned long index,
		       int tag)
{
	if (rt_is_2627())	/* PROTO_MERGED: the 2.6.27 tree */
		return rt27_tag_get(root, index, tag);
	unsigned int height, shift;
	rt_slot_t *slot;

	height = LOAD(root->height);
	if (index > radix_tree_maxindex(height))
		return 0;

	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;
	slot = (rt_slot_t *)&root->rnode;

	for ( ; ; ) {
		int offset;
		struct radix_tree_node *n = LOAD(*slot);

		if (n == NULL)
			return 0;

		offset = (index >> shift) & RADIX_TREE_MAP_MASK;
		if (height == 1)
			return tag_get(n, tag, offset);
		n = RT_DEREF(LOAD(*slot));
		slot = (rt_slot_t *)(n->slots + offset);
		shift -= RADIX_TREE_MAP_SHIFT;
		height--;
	}
}


/*
 * 2.6.13 lib/radix-tree.c: __lookup_tag (untouched by the seeds; callers
 * hold tree_lock).  The height comes from root->height.
 */
static unsigned int
__lookup_tag(struct radix_tree_root *root, void **results, unsigned long index,
	     unsigned int max_items, unsigned long *next_index, int tag)
{
	unsigned int nr_found = 0;
	unsigned int shift;
	unsigned int height = LOAD(root->height);
	struct radix_tree_node *slot;

	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;
	slot = LOAD(root->rnode);

	while (height > 0) {
		unsigned long i = (index >> shift) & RADIX_TREE_MAP_MASK;

		slot = RT_DEREF(slot);
		for ( ; i < RADIX_TREE_MAP_SIZE; i++) {
			if (tag_get(slot, tag, i)) {
				void *p = LOAD(slot->slots[i]);

				RT_BUG_ON(p == NULL, slot);
				break;
			}
			index &= ~((1UL << shift) - 1);
			index += 1UL << shift;
			if (index == 0)
				goto out;	/* 32-bit wraparound */
		}
		if (i == RADIX_TREE_MAP_SIZE)
			goto out;
		height--;
		if (height == 0) {	/* Bottom level: grab some items */
			unsigned long j = index & RADIX_TREE_MAP_MASK;

			for ( ; j < RADIX_TREE_MAP_SIZE; j++) {
				index++;
				if (tag_get(slot, tag, j)) {
					void *p = LOAD(slot->slots[j]);

					RT_BUG_ON(p == NULL, slot);
					results[nr_found++] = p;
					if (nr_found == max_items)
						goto out;
				}
			}
		}
		shift -= RADIX_TREE_MAP_SHIFT;
		slot = LOAD(slot->slots[i]);
	}
out:
	*next_index = index;
	return nr_found;
}

/**
 * radix_tree_gang_lookup_tag - perform multiple lookup on a radix tree
 *                              based on a tag
 * @root:		radix tree root (tree_lock held)
 * @results:		where the results of the lookup are placed
 * @first_index:	start the lookup from this key
 * @max_items:		place up to this many items at *results
 * @tag:		the tag index
 *
 * Performs an index-ascending scan of the tree for present items which
 * have the tag indexed by @tag set.  2.6.13 lib/radix-tree.c.
 */
unsigned int radix_tree_gang_lookup_tag(struct radix_tree_root *root,
					void **results,
					unsigned long first_index,
					unsigned int max_items, int tag)
{
	if (rt_is_2627())	/* PROTO_MERGED: the 2.6.27 tree */
		return rt27_gang_lookup_tag(root, results, first_index,
					    max_items, tag);
	unsigned int root_height = LOAD(root->height);
	const unsigned long max_index = radix_tree_maxindex(root_height);
	unsigned long cur_index = first_index;
	unsigned int ret = 0;

	while (ret < max_items) {
		unsigned int nr_found;
		unsigned long next_index;	/* Index of next search */

		if (cur_index > max_index)
			break;
		nr_found = __lookup_tag(root, results + ret, cur_index,
					max_items - ret, &next_index, tag);
		ret += nr_found;
		if (next_index == 0)
			break;
		cur_index = next_index;
	}
	return ret;
}

/**
 * radix_tree_delete - delete an item from a radix tree
 * @root:	radix tree root (tree_lock held)
 * @index:	index key
 *
 * Remove the item at @index from the radix tree rooted at @root.  Clears
 * the item's tags (and parents' tags left without a tagged child), frees
 * nodes left empty bottom-up (through RCU, seed 006) and, when the tree
 * empties, sets root->height to 0.  2.6.13 has no radix_tree_shrink: a
 * tree that still holds an item keeps its height.  Returns the address of
 * the deleted item, or NULL if it was not present.
 * 2.6.13 lib/radix-tree.c; node freeing via seed 006 radix_tree_node_free.
 */
void *radix_tree_delete(struct radix_tree_root *root, unsigned long index)
{
	if (rt_is_2627())	/* PROTO_MERGED: the 2.6.27 tree */
		return rt27_delete(root, index);
	struct radix_tree_path path[RADIX_TREE_MAX_PATH], *pathp = path;
	struct radix_tree_path *orig_pathp;
	unsigned int height, shift;
	void *ret = NULL;
	char tags[RADIX_TREE_TAGS];
	int nr_cleared_tags;

	height = LOAD(root->height);
	if (index > radix_tree_maxindex(height))
		goto out;

	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;
	pathp->node = NULL;
	pathp->slot = (rt_slot_t *)&root->rnode;

	while (height > 0) {
		int offset;
		void *p = LOAD(*pathp->slot);

		if (p == NULL)
			goto out;

		offset = (index >> shift) & RADIX_TREE_MAP_MASK;
		pathp[1].offset = offset;
		pathp[1].node = RT_DEREF(LOAD(*pathp[0].slot));
		pathp[1].slot = (rt_slot_t *)(pathp[1].node->slots + offset);
		pathp++;
		shift -= RADIX_TREE_MAP_SHIFT;
		height--;
	}

	ret = LOAD(*pathp[0].slot);
	if (ret == NULL)
		goto out;

	orig_pathp = pathp;

	/*
	 * Clear all tags associated with the just-deleted item
	 */
	memset(tags, 0, sizeof(tags));
	do {
		int tag;

		nr_cleared_tags = RADIX_TREE_TAGS;
		for (tag = 0; tag < RADIX_TREE_TAGS; tag++) {
			if (tags[tag])
				continue;

			tag_clear(pathp[0].node, tag, pathp[0].offset);

			if (tag_any(pathp[0].node, tag)) {
				tags[tag] = 1;
				nr_cleared_tags--;
			}
		}
		pathp--;
	} while (pathp[0].node && nr_cleared_tags);

	pathp = orig_pathp;
	/* Lockless readers load slots concurrently: racy by design, as in the
	 * kernel (a reader sees the item or NULL), so a marked store. */
	WRITE_ONCE(*pathp[0].slot, NULL);
	while (pathp[0].node) {
		unsigned int c = LOAD(pathp[0].node->count) - 1;
		void *p;

		STORE(pathp[0].node->count, c);
		if (c != 0)
			break;
		pathp--;
		p = LOAD(*pathp[0].slot);
		RT_BUG_ON(p == NULL, pathp[1].node);
		WRITE_ONCE(*pathp[0].slot, NULL);	/* racy by design, as above */
		radix_tree_node_free(pathp[1].node);
	}
	{
		struct radix_tree_node *rnode = LOAD(root->rnode);

		if (rnode == NULL)
			STORE(root->height, 0);
	}
out:
	return ret;
}


/*
 * ---- The lockless read side: seed 005 (patch 4/7) and seed 006 (patch
 * 5/7), plus 2.6.13's radix_tree_tagged (called under tree_lock by
 * mapping_tagged).  Callers hold rcu_read_lock() (or tree_lock).  Every
 * pointer followed is an rcu_dereference(), every other shared word a
 * READ_ONCE(); where the seed's source reads a location twice, so does
 * the model. ----
 */

/*
 * A lockless reader must be inside rcu_read_lock, or hold the tree's lock
 * (PROTO_LOCKED's readers, writers looking up).  The tree does not know
 * its lock: the model tells it through radix_tree_set_lock_check.
 */
static int (*rt_lock_held)(const struct radix_tree_root *root);

unsigned int radix_tree_nodes_active(void)
{
	return radix_tree_node_cachep ?
	       kmem_cache_nr_active(radix_tree_node_cachep) : 0;
}

void radix_tree_set_lock_check(int (*held)(const struct radix_tree_root *))
{
	rt_lock_held = held;
}

void rt_check_reader(const struct radix_tree_root *root, const char *func)
{
	if (pr_self() < 0 || rcu_read_lock_held() ||
	    (rt_lock_held && rt_lock_held(root)))
		return;
	pr_fail("rcu-unprotected", root,
		"%s walks the tree outside rcu_read_lock and without its lock",
		func);
}

/*
 * The radix-single-read knob's __lookup_slot: the read side as the RCU
 * lockless radix tree was merged upstream ("radix-tree: RCU lockless
 * readside", commit 7cf9c2c76c1a, 2.6.20; 2.6.17's tree still ran under
 * tree_lock and read root->height).  The root node is loaded once, its
 * height taken from that node, and the walk starts from that same load:
 * every pointer followed is the one that was tested.  That commit: "a
 * lookup can take the pointer to what is *now* the root node, and traverse
 * down it even if the tree is concurrently extended".  A tree grown or shrunk meanwhile is seen as it
 * was at the one load, never half old and half new.  The seed's contract
 * is kept otherwise: the leaf slot is returned without loading the item
 * (seed 005: the caller loads *slot, and may find it NULL).
 */
static inline rt_slot_t *__lookup_slot_single(struct radix_tree_root *root,
					      unsigned long index)
{
	unsigned int height, shift;
	rt_slot_t *slot;
	struct radix_tree_node *n;

	n = rcu_dereference(root->rnode);
	if (n == NULL)
		return NULL;
	height = READ_ONCE(n->height);
	height = rt_reader_height(height, n, __func__);
	if (index > radix_tree_maxindex(height))
		return NULL;

	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;
	for (;;) {
		void *p;

		slot = (rt_slot_t *)(n->slots +
				     ((index >> shift) & RADIX_TREE_MAP_MASK));
		if (--height == 0)
			return slot;
		shift -= RADIX_TREE_MAP_SHIFT;
		p = rcu_dereference(*slot);
		if (p == NULL)
			return NULL;
		n = p;
	}
}

/*
 * seed 005 (patch 4/7), __lookup_slot; seed 006 (patch 5/7): the height
 * comes from the top node, not root->height.  Lockless.  As the seed's
 * source reads them, root->rnode is tested, loaded again for the height,
 * and (as *slot with slot = &root->rnode) loaded a third time to test and
 * a fourth to descend in the first loop iteration; each interior *slot is
 * tested and then loaded again to descend.  A delete in between two loads
 * is a NULL dereference there, and here ("null-deref": finding F1); a
 * radix_tree_extend between the height load and the walk's loads makes the
 * walk descend one level short in the new, taller tree and return a slot
 * that holds a node (finding F8).  KNOB_RADIX_SINGLE_READ loads each
 * location once (__lookup_slot_single).
 */
static inline rt_slot_t *__lookup_slot(struct radix_tree_root *root,
				       unsigned long index)
{
	unsigned int height, shift;
	rt_slot_t *slot;
	struct radix_tree_node *n;

	if (knob(KNOB_RADIX_SINGLE_READ))
		return __lookup_slot_single(root, index);

	n = rcu_dereference(root->rnode);
	if (n == NULL)
		return NULL;
	slot = (rt_slot_t *)&root->rnode;
	n = RT_DEREF(rcu_dereference(*slot));
	height = READ_ONCE(n->height);
	height = rt_reader_height(height, n, __func__);
	if (index > radix_tree_maxindex(height))
		return NULL;

	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;

	while (height > 0) {
		void *p = rcu_dereference(*slot);

		if (p == NULL)
			return NULL;
		n = RT_DEREF(rcu_dereference(*slot));
		slot = (rt_slot_t *)(n->slots +
				     ((index >> shift) & RADIX_TREE_MAP_MASK));
		shift -= RADIX_TREE_MAP_SHIFT;
		height--;
	}

	return slot;
}

/**
 * radix_tree_lookup_slot - lookup a slot in a radix tree
 * @root:	radix tree root
 * @index:	index key
 *
 * Lookup the slot corresponding to the position @index in the radix tree
 * @root.  This is useful for update-if-exists operations.  Lockless under
 * rcu_read_lock() (seed 006); seed 005 (patch 4/7), radix_tree_lookup_slot.
 */
void **radix_tree_lookup_slot(struct radix_tree_root *root, unsigned long index)
{
	if (rt_is_2627())	/* PROTO_MERGED: the 2.6.27 tree */
		return rt27_lookup_slot(root, index);
	rt_check_reader(root, __func__);
	return (void **)__lookup_slot(root, index);
}

/**
 * radix_tree_lookup - perform lookup operation on a radix tree
 * @root:	radix tree root
 * @index:	index key
 *
 * Lookup the item at the position @index in the radix tree @root.
 * seed 005 (patch 4/7), radix_tree_lookup: through __lookup_slot.
 */
void *radix_tree_lookup(struct radix_tree_root *root, unsigned long index)
{
	if (rt_is_2627())	/* PROTO_MERGED: the 2.6.27 tree */
		return rt27_lookup(root, index);
	rt_slot_t *slot;

	rt_check_reader(root, __func__);
	slot = __lookup_slot(root, index);
	return slot != NULL ? rcu_dereference(*slot) : NULL;
}

/*
 * seed 006 (patch 5/7), __lookup: lockless; returns pointers to the slots
 * holding items.  The height comes from the top node.  Each slot is tested
 * and then (for interior nodes) loaded again to descend, as the seed reads
 * it: a delete in between is a NULL dereference ("null-deref").
 */
static unsigned int
__lookup(struct radix_tree_root *root, rt_slotp_t *results, unsigned long index,
	 unsigned int max_items, unsigned long *next_index)
{
	unsigned long i;
	unsigned int nr_found = 0;
	unsigned int shift;
	unsigned int height;
	struct radix_tree_node *slot;

	slot = rcu_dereference(root->rnode);
	if (!slot) {
		/*
		 * The tree emptied since the caller computed max_index
		 * from root->height: seed 006 returns next_index == index
		 * and its gang lookup loops for ever (doc/findings.md,
		 * F4).  KNOB_GANG_EMPTY_EXIT ends the walk, as 2.6.17's
		 * gang lookup does by reading the root node once.
		 */
		if (knob(KNOB_GANG_EMPTY_EXIT)) {
			*next_index = 0;
			return 0;
		}
		goto out;
	}
	height = READ_ONCE(slot->height);
	height = rt_reader_height(height, slot, __func__);
	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;

	for (;;) {
		void *child = NULL;

		for (i = (index >> shift) & RADIX_TREE_MAP_MASK;
						i < RADIX_TREE_MAP_SIZE; i++) {
			void *p = READ_ONCE(slot->slots[i]);

			if (p != NULL) {
				child = p;
				break;
			}
			index &= ~((1UL << shift) - 1);
			index += 1UL << shift;
			if (index == 0)
				goto out;	/* 32-bit wraparound */
		}
		if (i == RADIX_TREE_MAP_SIZE)
			goto out;
		height--;
		if (height == 0) {
			/* Bottom level: grab some items */
			break;
		}
		shift -= RADIX_TREE_MAP_SHIFT;
		if (knob(KNOB_RADIX_SINGLE_READ))
			slot = child;	/* the child tested above */
		else
			slot = RT_DEREF(rcu_dereference(slot->slots[i]));
	}

	for (i = index & RADIX_TREE_MAP_MASK; i < RADIX_TREE_MAP_SIZE; i++) {
		void *p;

		index++;
		p = READ_ONCE(slot->slots[i]);
		if (p) {
			results[nr_found++] = &(slot->slots[i]);
			if (nr_found == max_items)
				goto out;
		}
	}

out:
	*next_index = index;
	return nr_found;
}

/**
 * radix_tree_gang_lookup - perform multiple lookup on a radix tree
 * @root:		radix tree root
 * @results:		where the results of the lookup are placed
 * @first_index:	start the lookup from this key
 * @max_items:		place up to this many items at *results
 *
 * Performs an index-ascending scan of the tree for present items.  Places
 * them at *@results and returns the number of items which were placed.
 * Lockless under rcu_read_lock(): seed 006 (patch 5/7),
 * radix_tree_gang_lookup, over the slot-returning __lookup; each item is
 * loaded from its slot after the walk, so under a concurrent delete an
 * entry may be NULL (the seed does not filter them).  root->height is read
 * once, before the walk, for max_index.
 */
unsigned int radix_tree_gang_lookup(struct radix_tree_root *root,
				    void **results, unsigned long first_index,
				    unsigned int max_items)
{
	if (rt_is_2627())	/* PROTO_MERGED: the 2.6.27 tree */
		return rt27_gang_lookup(root, results, first_index, max_items);
	unsigned int root_height = READ_ONCE(root->height);
	const unsigned long max_index = radix_tree_maxindex(root_height);
	unsigned long cur_index = first_index;
	unsigned int ret = 0;
	rt_slotp_t *sresults = (rt_slotp_t *)results;

	rt_check_reader(root, __func__);
	while (ret < max_items) {
		unsigned int nr_found, i;
		unsigned long next_index;	/* Index of next search */

		if (cur_index > max_index)
			break;
		nr_found = __lookup(root, sresults + ret, cur_index,
				    max_items - ret, &next_index);
		for (i = 0; i < nr_found; i++) {
			rt_slot_t *sp = sresults[ret + i];
			void *item = rcu_dereference(*sp);

			results[ret + i] = item;
		}
		ret += nr_found;
		if (next_index == 0)
			break;
		cur_index = next_index;
	}
	return ret;
}

/**
 * radix_tree_gang_lookup_slot - perform multiple lookup on a radix tree
 * @root:		radix tree root
 * @results:		where the results of the lookup are placed
 * @first_index:	start the lookup from this key
 * @max_items:		place up to this many items at *results
 *
 * Same as radix_tree_gang_lookup, but returns an array of pointers
 * (slots) to the stored items instead of the items themselves.  Lockless.
 * seed 006 (patch 5/7), radix_tree_gang_lookup_slot (new).
 */
unsigned int radix_tree_gang_lookup_slot(struct radix_tree_root *root,
					 void ***results,
					 unsigned long first_index,
					 unsigned int max_items)
{
	if (rt_is_2627())	/* PROTO_MERGED: the 2.6.27 tree */
		return rt27_gang_lookup_slot(root, results, first_index,
					     max_items);
	unsigned int root_height = READ_ONCE(root->height);
	const unsigned long max_index = radix_tree_maxindex(root_height);
	unsigned long cur_index = first_index;
	unsigned int ret = 0;

	rt_check_reader(root, __func__);
	while (ret < max_items) {
		unsigned int nr_found;
		unsigned long next_index;	/* Index of next search */

		if (cur_index > max_index)
			break;
		nr_found = __lookup(root, (rt_slotp_t *)results + ret,
				    cur_index, max_items - ret, &next_index);
		ret += nr_found;
		if (next_index == 0)
			break;
		cur_index = next_index;
	}
	return ret;
}

/**
 * radix_tree_tagged - test whether any items in the tree are tagged
 * @root:	radix tree root
 * @tag:	tag to test
 *
 * 2.6.13 lib/radix-tree.c.  Its one caller, mapping_tagged, holds
 * tree_lock in the seeds too (seed 007 only asks "safe to run without the
 * lock?", seed 008 keeps spin_lock_irqsave), so writers are excluded and
 * re-reading root->rnode for each tag word, as 2.6.13's source does, is
 * harmless there.  The reader check still accepts RCU, for callers that
 * might not take the lock.
 */
int radix_tree_tagged(struct radix_tree_root *root, int tag)
{
	if (rt_is_2627())	/* PROTO_MERGED: the 2.6.27 tree */
		return rt27_tagged(root, tag);
	int idx;
	struct radix_tree_node *n;

	rt_check_reader(root, __func__);
	n = rcu_dereference(root->rnode);
	if (!n)
		return 0;
	for (idx = 0; idx < RADIX_TREE_TAG_LONGS; idx++) {
		unsigned long w;

		if (!knob(KNOB_RADIX_SINGLE_READ))
			n = RT_DEREF(rcu_dereference(root->rnode));
		w = READ_ONCE(n->tags[tag][idx]);
		if (w)
			return 1;
	}
	return 0;
}

/*
 * 2.6.13 lib/radix-tree.c: radix_tree_node_ctor.  2.6.13 never clears a
 * node on allocation: the slab constructor zeroes it once, and the tree
 * only frees nodes whose slots and tags are all clear again.
 */
static void radix_tree_node_ctor(void *node)
{
	memset(node, 0, sizeof(struct radix_tree_node));
}

/**
 * radix_tree_init - create the node cache
 * @capacity:	number of nodes the cache can hold (fixed)
 *
 * Once per process (calling it again returns the same cache, reset).
 * Objects are named "node#N" by the slab in allocation order.  Returns 0
 * or -ENOMEM.  2.6.13 lib/radix-tree.c: radix_tree_init.
 */
int radix_tree_init(int capacity)
{
	if (capacity <= 0)
		return -ENOMEM;
	radix_tree_node_cachep = kmem_cache_create_capacity("node",
			sizeof(struct radix_tree_node), (unsigned int)capacity,
			radix_tree_node_ctor);
	if (!radix_tree_node_cachep)
		return -ENOMEM;
	radix_tree_init_maxindex();
	return 0;
}

/**
 * radix_tree_reset - start-of-run reset
 *
 * Outside any context, before every run (after the variant is set): adopts
 * variant.radix_map_shift (0 means RADIX_TREE_MAX_SHIFT), recomputes
 * height_to_maxindex and empties the node cache with kmem_cache_reset(),
 * which also re-runs the constructor, so every run starts from identical
 * state.  Call it after kernel_reset() (which resets every cache and the
 * RCU queue too, so the cache reset here is only belt and braces).  Returns 0 or -EINVAL (shift out of 1..3).
 */
int radix_tree_reset(void)
{
	unsigned int shift = variant.radix_map_shift;

	if (shift == 0)
		shift = RADIX_TREE_MAX_SHIFT;
	if (shift < RADIX_TREE_MIN_SHIFT || shift > RADIX_TREE_MAX_SHIFT)
		return -EINVAL;
	rt_shift = shift;
	radix_tree_init_maxindex();
	if (radix_tree_node_cachep)
		kmem_cache_reset(radix_tree_node_cachep);
	return 0;
}

