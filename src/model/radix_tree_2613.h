/* SPDX-License-Identifier: MIT */
/*
 * radix_tree_2613.h - what the three files of the 2.6.13 tree with the
 * seeds share (radix_tree.c: setup and the node cache; radix_tree_write.c:
 * the writers under tree_lock; radix_tree_read.c: the lockless read side
 * and the tagged lookups): the run's fan-out, the slot types, and the
 * helpers every walk uses.  Not for users of the tree.
 */
#ifndef PAGERACE_MODEL_RADIX_TREE_2613_H
#define PAGERACE_MODEL_RADIX_TREE_2613_H

#include <stddef.h>

#include "model/radix_tree.h"
#include "runtime/context.h"
#include "runtime/tsan.h"
#include "kernel/access.h"

/*
 * RT_PUBLISH(x, v): the store of seed 006's "smp_wmb(); *slot = node".
 * The smp_wmb() before it is what orders it, for the memory models
 * (--memory tso|weak), so the store itself is plain: delete the smp_wmb
 * (a mutant, or the knobs extend-no-wmb and insert-node-no-wmb) and the
 * node's set-up is no longer ordered before it.  ThreadSanitizer models
 * no fences, so pagerace-tsan makes it a release store (what the fence
 * and the store give together).  The same yield point either way.
 */
#if PR_TSAN_ENABLED
#define RT_PUBLISH(x, v)	STORE_RELEASE(x, v)
#else
#define RT_PUBLISH(x, v)	STORE(x, v)
#endif

/*
 * The run's fan-out.  2.6.13 has RADIX_TREE_MAP_SHIFT 6 in the kernel and 3
 * "for more stressful testing" in userspace; here it is variant.
 * radix_map_shift, adopted by radix_tree_reset() and constant during a run
 * (defined in radix_tree.c).
 */
extern unsigned int rt_shift;
#define RADIX_TREE_MAP_SHIFT	rt_shift
#define RADIX_TREE_MAP_SIZE	(1UL << RADIX_TREE_MAP_SHIFT)
#define RADIX_TREE_MAP_MASK	(RADIX_TREE_MAP_SIZE - 1)
#define RADIX_TREE_INDEX_BITS	(8 /* CHAR_BIT */ * sizeof(unsigned long))

/* 2.6.13 lib/radix-tree.c: height_to_maxindex, computed for rt_shift */
extern unsigned long rt_height_to_maxindex[RADIX_TREE_MAX_PATH];
/* Entries of height_to_maxindex valid for rt_shift: INDEX_BITS/shift + 2 */
extern unsigned int rt_nr_heights;
/* Tallest tree extend() can build: the first height with maxindex ~0UL. */
extern unsigned int rt_max_height;

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
			"1..%u (a recycled node, or under weak memory its height not visible yet)",
			fn, height, rt_max_height);
	return height;
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

#endif /* PAGERACE_MODEL_RADIX_TREE_2613_H */
