/* SPDX-License-Identifier: MIT */
/*
 * radix_tree_read.c - the readers of the 2.6.13 tree with the seeds
 * (radix_tree.c has the conventions): the tagged gang lookup (2.6.13,
 * under tree_lock) and the lockless read side of seeds 005 and 006.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/radix_tree.h"
#include "model/radix_tree_2613.h"
#include "model/radix_tree_2627.h"
#include "model/radix_tree_internal.h"
#include "model/variant.h"
#include "runtime/context.h"
#include "kernel/kernel.h"
#include "kernel/access.h"
#include "kernel/barrier.h"
#include "kernel/rcu.h"
#include "kernel/slab.h"

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

/*
 * ---- The lockless read side: seed 005 (patch 4/7) and seed 006 (patch
 * 5/7), plus 2.6.13's radix_tree_tagged (called under tree_lock by
 * mapping_tagged).  Callers hold rcu_read_lock() (or tree_lock).  Every
 * pointer followed is an rcu_dereference(), every other shared word a
 * READ_ONCE(); where the seed's source reads a location twice, so does
 * the model. ----
 */

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
