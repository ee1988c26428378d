/* SPDX-License-Identifier: MIT */
/*
 * radix_tree_2627_read.c - the lockless read side of the 2.6.27 radix tree
 * (lib/radix-tree.c): lookup, lookup_slot, gang_lookup(_slot), and the
 * tag readers.  Callers hold rcu_read_lock() (or tree_lock).
 *
 * Every reader loads root->rnode once with rcu_dereference and decides
 * from its indirect bit, not from root->height, whether it holds an item
 * (height 0) or a node; heights come from the nodes.  Each pointer it
 * follows is an rcu_dereference, each slot it only tests a READ_ONCE:
 * one yield point per load, in the order of the 2.6.27 source.
 */
#include "model/radix_tree_2627.h"
#include "model/radix_tree_internal.h"
#include "runtime/context.h"
#include "kernel/kernel.h"
#include "kernel/access.h"
#include "kernel/barrier.h"
#include "kernel/rcu.h"

#define RADIX_TREE_MAP_SHIFT	radix_tree_map_shift()
#define RADIX_TREE_MAP_SIZE	(1UL << RADIX_TREE_MAP_SHIFT)
#define RADIX_TREE_MAP_MASK	(RADIX_TREE_MAP_SIZE - 1)

/*
 * A node's height as a lockless reader loads it.  A node a reader can
 * reach is live or RCU-pending, so its height is 1..max; anything else
 * means the node was recycled under the reader (KNOB_RADIX_RCU_FREE
 * without the shadow noticing first): fail rather than shift by garbage.
 */
static inline unsigned int rt27_node_height(struct radix_tree_node *node,
					    const char *fn)
{
	unsigned int height = READ_ONCE(node->height);

	if (__builtin_expect(height == 0 ||
			     height > radix_tree_max_height(), 0))
		pr_fail("corrupt", node, "%s: node height %u out of range "
			"1..%u (recycled node?)", fn, height,
			radix_tree_max_height());
	return height;
}

/*
 * 2.6.27 lib/radix-tree.c: the walk radix_tree_lookup_slot and
 * radix_tree_lookup share.  Returns the slot holding the item at @index,
 * or NULL; *@item is the item loaded from it.
 */
static void **rt27_walk(struct radix_tree_root *root, unsigned long index,
			void **item, const char *fn)
{
	unsigned int height, shift;
	struct radix_tree_node *node, **slot;

	*item = NULL;
	node = rcu_dereference(root->rnode);
	if (node == NULL)
		return NULL;

	if (!radix_tree_is_indirect_ptr(node)) {
		if (index > 0)
			return NULL;
		*item = node;
		return (void **)&root->rnode;
	}
	node = radix_tree_indirect_to_ptr(node);

	height = rt27_node_height(node, fn);
	if (index > radix_tree_maxindex_of(height))
		return NULL;

	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;

	do {
		slot = (struct radix_tree_node **)
			(node->slots + ((index >> shift) & RADIX_TREE_MAP_MASK));
		node = rcu_dereference(*slot);
		if (node == NULL)
			return NULL;

		shift -= RADIX_TREE_MAP_SHIFT;
		height--;
	} while (height > 0);

	*item = node;
	return (void **)slot;
}

/**
 * rt27_lookup_slot - radix_tree_lookup_slot of 2.6.27 (lockless)
 *
 * 2.6.27 lib/radix-tree.c: the slot of the item at @index, or NULL; at
 * height 0, &root->rnode itself.  The item is loaded on the way (a NULL
 * item is "not present"), so the caller's radix_tree_deref_slot is a
 * second load of the same slot, as in 2.6.27.
 */
void **rt27_lookup_slot(struct radix_tree_root *root, unsigned long index)
{
	void *item;

	rt_check_reader(root, "radix_tree_lookup_slot");
	return rt27_walk(root, index, &item, "radix_tree_lookup_slot");
}

/**
 * rt27_lookup - radix_tree_lookup of 2.6.27 (lockless)
 *
 * 2.6.27 lib/radix-tree.c: the item at @index or NULL, from the same walk
 * (the item is the last pointer the walk loads, not loaded again).  A
 * reader inside a node a shrink freed may find the item there: the same
 * answer a lookup just before the shrink would have given.
 */
void *rt27_lookup(struct radix_tree_root *root, unsigned long index)
{
	void *item;

	rt_check_reader(root, "radix_tree_lookup");
	rt27_walk(root, index, &item, "radix_tree_lookup");
	/*
	 * 2.6.37's RCU fix strips the indirect bit a shrink leaves on a
	 * stale slot 0; a no-op on 2.6.27's text (KNOB_SHRINK_STALE_SLOT),
	 * where no slot below the root has the bit.
	 */
	return radix_tree_indirect_to_ptr(item);
}

/*
 * 2.6.27 lib/radix-tree.c: __lookup - from @slot (a node, its height from
 * the node), the slots of up to @max_items present items at or after
 * @index.  A child NULLed between the test and the dereference ends the
 * walk (2.6.27's "if (slot == NULL) goto out").
 */
static unsigned int __lookup(struct radix_tree_node *slot, void ***results,
			     unsigned long index, unsigned int max_items,
			     unsigned long *next_index)
{
	unsigned int nr_found = 0;
	unsigned int shift, height;
	unsigned long i;

	height = rt27_node_height(slot, "__lookup");
	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;

	for ( ; height > 1; height--) {
		i = (index >> shift) & RADIX_TREE_MAP_MASK;
		for (;;) {
			void *p = READ_ONCE(slot->slots[i]);

			if (p != NULL)
				break;
			index &= ~((1UL << shift) - 1);
			index += 1UL << shift;
			if (index == 0)
				goto out;	/* 32-bit wraparound */
			i++;
			if (i == RADIX_TREE_MAP_SIZE)
				goto out;
		}

		shift -= RADIX_TREE_MAP_SHIFT;
		slot = rcu_dereference(slot->slots[i]);
		if (slot == NULL)
			goto out;
	}

	/* Bottom level: grab some items */
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
 * rt27_gang_lookup_slot - radix_tree_gang_lookup_slot of 2.6.27 (lockless)
 *
 * 2.6.27 lib/radix-tree.c: root->rnode is loaded once; an item at height 0
 * is returned as &root->rnode; otherwise max_index comes from the top
 * node's height and every __lookup starts from that node, so the walk
 * never sees a tree that grew or emptied meanwhile (the seeds' F4 cannot
 * happen).  Slots must be loaded with radix_tree_deref_slot: a slot may
 * be NULL by then, or RADIX_TREE_RETRY.
 */
unsigned int rt27_gang_lookup_slot(struct radix_tree_root *root,
				   void ***results, unsigned long first_index,
				   unsigned int max_items)
{
	unsigned long max_index;
	struct radix_tree_node *node;
	unsigned long cur_index = first_index;
	unsigned int ret;

	rt_check_reader(root, "radix_tree_gang_lookup_slot");
	node = rcu_dereference(root->rnode);
	if (!node)
		return 0;

	if (!radix_tree_is_indirect_ptr(node)) {
		if (first_index > 0)
			return 0;
		results[0] = (void **)&root->rnode;
		return 1;
	}
	node = radix_tree_indirect_to_ptr(node);

	max_index = radix_tree_maxindex_of(rt27_node_height(node,
					"radix_tree_gang_lookup_slot"));

	ret = 0;
	while (ret < max_items) {
		unsigned int slots_found;
		unsigned long next_index;	/* Index of next search */

		if (cur_index > max_index)
			break;
		slots_found = __lookup(node, results + ret, cur_index,
				       max_items - ret, &next_index);
		ret += slots_found;
		if (next_index == 0)
			break;
		cur_index = next_index;
	}

	return ret;
}

/**
 * rt27_gang_lookup - radix_tree_gang_lookup of 2.6.27 (lockless)
 *
 * 2.6.27 lib/radix-tree.c: as gang_lookup_slot, then each slot is loaded
 * once and NULL ones are dropped.  2.6.37's RCU fix strips the indirect
 * bit a shrink leaves on a stale slot 0 (a no-op on 2.6.27's text).
 */
unsigned int rt27_gang_lookup(struct radix_tree_root *root, void **results,
			      unsigned long first_index, unsigned int max_items)
{
	unsigned long max_index;
	struct radix_tree_node *node;
	unsigned long cur_index = first_index;
	unsigned int ret;

	rt_check_reader(root, "radix_tree_gang_lookup");
	node = rcu_dereference(root->rnode);
	if (!node)
		return 0;

	if (!radix_tree_is_indirect_ptr(node)) {
		if (first_index > 0)
			return 0;
		results[0] = node;
		return 1;
	}
	node = radix_tree_indirect_to_ptr(node);

	max_index = radix_tree_maxindex_of(rt27_node_height(node,
					"radix_tree_gang_lookup"));

	ret = 0;
	while (ret < max_items) {
		unsigned int nr_found, slots_found, i;
		unsigned long next_index;	/* Index of next search */

		if (cur_index > max_index)
			break;
		slots_found = __lookup(node, (void ***)results + ret,
				       cur_index, max_items - ret, &next_index);
		nr_found = 0;
		for (i = 0; i < slots_found; i++) {
			void **sp = ((void ***)results)[ret + i];
			void *item = LOAD_DEP(*sp);

			if (!item)
				continue;
			/* 2.6.37, as in rt27_lookup */
			results[ret + nr_found] = radix_tree_indirect_to_ptr(item);
			nr_found++;
		}
		ret += nr_found;
		if (next_index == 0)
			break;
		cur_index = next_index;
	}

	return ret;
}

/*
 * 2.6.27 lib/radix-tree.c: __lookup_tag - as __lookup, following @tag's
 * bits; an item whose tag is set is rechecked non-NULL ("if this lookup is
 * lockless, it may have been subsequently deleted").
 */
static unsigned int __lookup_tag(struct radix_tree_node *slot,
				 void ***results, unsigned long index,
				 unsigned int max_items,
				 unsigned long *next_index, int tag)
{
	unsigned int nr_found = 0;
	unsigned int shift, height;

	height = rt27_node_height(slot, "__lookup_tag");
	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;

	while (height > 0) {
		unsigned long i = (index >> shift) & RADIX_TREE_MAP_MASK;

		for (;;) {
			unsigned long w = READ_ONCE(slot->tags[tag][0]);

			if ((w >> i) & 1)
				break;
			index &= ~((1UL << shift) - 1);
			index += 1UL << shift;
			if (index == 0)
				goto out;	/* 32-bit wraparound */
			i++;
			if (i == RADIX_TREE_MAP_SIZE)
				goto out;
		}
		height--;
		if (height == 0) {	/* Bottom level: grab some items */
			unsigned long j = index & RADIX_TREE_MAP_MASK;

			for ( ; j < RADIX_TREE_MAP_SIZE; j++) {
				unsigned long w;
				void *p;

				index++;
				w = READ_ONCE(slot->tags[tag][0]);
				if (!((w >> j) & 1))
					continue;
				p = READ_ONCE(slot->slots[j]);
				if (p) {
					results[nr_found++] = &(slot->slots[j]);
					if (nr_found == max_items)
						goto out;
				}
			}
		}
		shift -= RADIX_TREE_MAP_SHIFT;
		slot = rcu_dereference(slot->slots[i]);
		if (slot == NULL)
			break;
	}
out:
	*next_index = index;
	return nr_found;
}

/**
 * rt27_gang_lookup_tag - radix_tree_gang_lookup_tag of 2.6.27
 *
 * 2.6.27 lib/radix-tree.c: nothing unless the root's tag bit is set; an
 * item at height 0 is returned directly; else as rt27_gang_lookup over
 * __lookup_tag.
 */
unsigned int rt27_gang_lookup_tag(struct radix_tree_root *root,
				  void **results, unsigned long first_index,
				  unsigned int max_items, int tag)
{
	struct radix_tree_node *node;
	unsigned long max_index;
	unsigned long cur_index = first_index;
	unsigned int ret;

	/* check the root's tag bit */
	if (!rt27_tagged(root, tag))
		return 0;

	node = rcu_dereference(root->rnode);
	if (!node)
		return 0;

	if (!radix_tree_is_indirect_ptr(node)) {
		if (first_index > 0)
			return 0;
		results[0] = node;
		return 1;
	}
	node = radix_tree_indirect_to_ptr(node);

	max_index = radix_tree_maxindex_of(rt27_node_height(node,
					"radix_tree_gang_lookup_tag"));

	ret = 0;
	while (ret < max_items) {
		unsigned int nr_found, slots_found, i;
		unsigned long next_index;	/* Index of next search */

		if (cur_index > max_index)
			break;
		slots_found = __lookup_tag(node, (void ***)results + ret,
				cur_index, max_items - ret, &next_index, tag);
		nr_found = 0;
		for (i = 0; i < slots_found; i++) {
			void **sp = ((void ***)results)[ret + i];
			void *item = LOAD_DEP(*sp);

			if (!item)
				continue;
			results[ret + nr_found] = item;
			nr_found++;
		}
		ret += nr_found;
		if (next_index == 0)
			break;
		cur_index = next_index;
	}

	return ret;
}

/**
 * rt27_tag_get - radix_tree_tag_get of 2.6.27
 *
 * 2.6.27 lib/radix-tree.c (built only for the userspace test harness in
 * 2.6.27): the root's bit, then the node bits down to @index; a tag set
 * below an unset one is a BUG.
 */
int rt27_tag_get(struct radix_tree_root *root, unsigned long index, int tag)
{
	unsigned int height, shift;
	struct radix_tree_node *node;
	int saw_unset_tag = 0;

	/* check the root's tag bit */
	if (!rt27_tagged(root, tag))
		return 0;

	node = rcu_dereference(root->rnode);
	if (node == NULL)
		return 0;

	if (!radix_tree_is_indirect_ptr(node))
		return (index == 0);
	node = radix_tree_indirect_to_ptr(node);

	height = rt27_node_height(node, "radix_tree_tag_get");
	if (index > radix_tree_maxindex_of(height))
		return 0;

	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;

	for ( ; ; ) {
		int offset;
		unsigned long w;

		if (node == NULL)
			return 0;

		offset = (index >> shift) & RADIX_TREE_MAP_MASK;

		/*
		 * This is just a debug check.  Later, we can bale as soon as
		 * we see an unset tag.
		 */
		w = READ_ONCE(node->tags[tag][0]);
		if (!((w >> offset) & 1))
			saw_unset_tag = 1;
		if (height == 1) {
			int ret;

			w = READ_ONCE(node->tags[tag][0]);
			ret = (w >> offset) & 1;
			if (ret && saw_unset_tag)
				pr_fail("BUG", node, "radix_tree_tag_get: "
					"BUG_ON(ret && saw_unset_tag)");
			return ret;
		}
		node = rcu_dereference(node->slots[offset]);
		shift -= RADIX_TREE_MAP_SHIFT;
		height--;
	}
}

/**
 * rt27_tagged - radix_tree_tagged of 2.6.27
 *
 * 2.6.27 lib/radix-tree.c: the root's tag bit in gfp_mask, "able to be
 * called without locking or RCU": one load.
 */
int rt27_tagged(struct radix_tree_root *root, int tag)
{
	unsigned int m = READ_ONCE(root->gfp_mask);

	return (m >> (tag + RT27_GFP_BITS_SHIFT)) & 1;
}
