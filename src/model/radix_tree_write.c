/* SPDX-License-Identifier: MIT */
/*
 * radix_tree_write.c - the writers of the 2.6.13 tree with the seeds
 * (radix_tree.c has the conventions): node allocation and RCU freeing,
 * extend, insert, the tag writers and delete.  They run under the caller's
 * tree_lock; the stores lockless readers race with are the publications
 * seed 006 orders with smp_wmb() and the "racy by design" clears.
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

#ifndef container_of
#define container_of(ptr, type, member)				\
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

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
 * radix_tree_extend - extend a radix tree so it can store key @index
 * @root:	radix tree root (tree_lock held)
 * @index:	index key
 *
 * Pushes new top-level nodes until maxindex(height) >= @index.  seed 006
 * (patch 5/7), radix_tree_extend: node->height is set and smp_wmb() issued
 * before the node is published in root->rnode; root->height follows.
 * KNOB_EXTEND_NO_WMB drops the smp_wmb (the publication becomes a plain
 * store): under a weak memory model a lockless reader can then find the
 * new root before its height and slot 0 (doc/variants.md, "Barriers").
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
		if (knob(KNOB_EXTEND_NO_WMB)) {
			/* 2.6.13's "root->rnode = node", no barrier */
			STORE(root->rnode, node);
		} else {
			/* Make ->height visible before node visible via ->rnode */
			smp_wmb();
			RT_PUBLISH(root->rnode, node);
		}
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
 * KNOB_INSERT_NODE_NO_WMB drops that smp_wmb (a plain "*slot = tmp").
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
			if (knob(KNOB_INSERT_NODE_NO_WMB)) {
				/* 2.6.13's "*slot = tmp", no barrier */
				STORE(*slot, tmp);
			} else {
				/* Make ->height visible before node visible via slot */
				smp_wmb();
				RT_PUBLISH(*slot, tmp);
			}
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

/*
 * radix_tree_walk_path - record the path from @root down to @index's slot
 * @path:	RADIX_TREE_MAX_PATH entries; path[0] is the root's slot
 *
 * The walk radix_tree_tag_clear and radix_tree_delete share in 2.6.13
 * lib/radix-tree.c (there written out twice), with its accesses in the
 * same order: root->height, then at each level the slot twice (the NULL
 * test, then the node taken from it).  Returns the last entry (its slot
 * holds the item, which the caller loads), or NULL when @index is past the
 * tree's height or a node on the way is missing.  tree_lock held.
 */
static struct radix_tree_path *
radix_tree_walk_path(struct radix_tree_root *root, unsigned long index,
		     struct radix_tree_path *path)
{
	struct radix_tree_path *pathp = path;
	unsigned int height, shift;

	height = LOAD(root->height);
	if (index > radix_tree_maxindex(height))
		return NULL;

	shift = (height - 1) * RADIX_TREE_MAP_SHIFT;
	pathp->node = NULL;
	pathp->slot = (rt_slot_t *)&root->rnode;

	while (height > 0) {
		int offset;
		void *p = LOAD(*pathp->slot);

		if (p == NULL)
			return NULL;

		offset = (index >> shift) & RADIX_TREE_MAP_MASK;
		pathp[1].offset = offset;
		pathp[1].node = RT_DEREF(LOAD(*pathp[0].slot));
		pathp[1].slot = (rt_slot_t *)(pathp[1].node->slots + offset);
		pathp++;
		shift -= RADIX_TREE_MAP_SHIFT;
		height--;
	}
	return pathp;
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
	struct radix_tree_path path[RADIX_TREE_MAX_PATH], *pathp;
	void *ret = NULL;

	pathp = radix_tree_walk_path(root, index, path);
	if (pathp == NULL)
		goto out;

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
	struct radix_tree_path path[RADIX_TREE_MAX_PATH], *pathp;
	struct radix_tree_path *orig_pathp;
	void *ret = NULL;
	char tags[RADIX_TREE_TAGS];
	int nr_cleared_tags;

	pathp = radix_tree_walk_path(root, index, path);
	if (pathp == NULL)
		goto out;

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
