/* SPDX-License-Identifier: MIT */
/*
 * radix_tree_check.c - end-of-run invariants of the radix tree model.
 *
 * Runs outside any context (a program's finish hook, a unit test): it reads
 * the tree with plain C loads, passes no yield point and allocates nothing.
 */
#include <stdarg.h>
#include <stdio.h>

#include "model/radix_tree.h"
#include "model/radix_tree_2627.h"
#include "model/radix_tree_internal.h"
#include "runtime/context.h"
#include "kernel/kasan.h"

struct rt_check {
	const struct radix_tree_root *root;
	unsigned int shift;
	unsigned int flags;
	int is_2627;		/* the 2.6.27 representation (PROTO_MERGED) */
	unsigned long nr;
	char *msg;
	size_t len;
	const void *bad;
};

__attribute__((format(printf, 3, 4)))
static int rt_violation(struct rt_check *c, const void *obj,
			const char *fmt, ...)
{
	va_list ap;

	c->bad = obj;
	if (c->msg && c->len) {
		va_start(ap, fmt);
		vsnprintf(c->msg, c->len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* An independent walk by index, as __lookup_slot would do it. */
static void *const *rt_find_slot(const struct rt_check *c, unsigned long index)
{
	const struct radix_tree_root *root = c->root;
	unsigned int height = root->height;
	unsigned int shift = (height - 1) * c->shift;
	void *const *slot = (void *const *)&root->rnode;
	const struct radix_tree_node *n;

	if (height == 0 || index > radix_tree_maxindex_of(height))
		return NULL;
	while (height > 0) {
		n = *slot;
		if (c->is_2627 && slot == (void *const *)&root->rnode)
			n = radix_tree_indirect_to_ptr((void *)n);
		if (n == NULL)
			return NULL;
		slot = &n->slots[(index >> shift) & ((1UL << c->shift) - 1)];
		shift -= c->shift;
		height--;
	}
	return slot;
}

static int rt_check_node(struct rt_check *c, const struct radix_tree_node *n,
			 unsigned int height, unsigned long base)
{
	unsigned long size = 1UL << c->shift;
	unsigned long mask_valid = size >= 64 ? ~0UL : (1UL << size) - 1;
	unsigned int shift = (height - 1) * c->shift;
	unsigned int count = 0;
	unsigned long i;
	int tag;

	{
		int pool;
		unsigned int idx;
		size_t off;

		if (kasan_find(n, &pool, &idx, &off) &&
		    (off != 0 || kasan_get(pool, idx) != KASAN_ALLOCATED))
			return rt_violation(c, n, "reachable node is %s%s "
					    "(height %u, index base %lu)",
					    kasan_state_name(kasan_get(pool,
								       idx)),
					    off ? " and misaligned" : "",
					    height, base);
	}
	if (n->height != height)
		return rt_violation(c, n, "node height %u at tree level %u "
				    "(index base %lu)", n->height, height, base);
	for (i = size; i < RADIX_TREE_MAX_MAP_SIZE; i++)
		if (n->slots[i])
			return rt_violation(c, n, "slot %lu set beyond map "
					    "size %lu", i, size);
	for (tag = 0; tag < RADIX_TREE_TAGS; tag++) {
		unsigned long w = n->tags[tag][0];

		if (w & ~mask_valid)
			return rt_violation(c, n, "tag %d bits %#lx beyond map "
					    "size %lu", tag, w & ~mask_valid,
					    size);
		for (i = 0; i < size; i++)
			if ((w >> i) & 1 && !n->slots[i])
				return rt_violation(c, n, "tag %d set on empty "
						    "slot %lu", tag, i);
	}
	for (i = 0; i < size; i++) {
		const void *p = n->slots[i];
		unsigned long index = base | (i << shift);

		if (!p)
			continue;
		count++;
		if (c->is_2627 && radix_tree_is_indirect_ptr(p))
			return rt_violation(c, n, "slot %lu holds %p with the "
					    "indirect bit below the root "
					    "(height %u)", i, p, height);
		if (height == 1) {
			void *const *s = rt_find_slot(c, index);

			if (s != &n->slots[i])
				return rt_violation(c, n, "entry in slot %lu "
						    "not reachable at index %lu",
						    i, index);
			c->nr++;
			continue;
		}
		for (tag = 0; tag < RADIX_TREE_TAGS; tag++) {
			const struct radix_tree_node *child = p;
			int below = child->tags[tag][0] != 0;
			int here = (n->tags[tag][0] >> i) & 1;

			if (below != here)
				return rt_violation(c, n, "tag %d bit of slot "
						    "%lu is %d but the child "
						    "%s that tag", tag, i, here,
						    below ? "carries" :
						    "does not carry");
		}
		if (rt_check_node(c, p, height - 1, index))
			return -1;
	}
	if (n->count != count)
		return rt_violation(c, n, "count %u but %u non-NULL slots "
				    "(height %u, index base %lu)", n->count,
				    count, height, base);
	if (count == 0 && (c->flags & RADIX_CHECK_STRICT))
		return rt_violation(c, n, "empty node left in the tree "
				    "(height %u, index base %lu)", height, base);
	return 0;
}

/* 2.6.27 root tag bit @tag (in gfp_mask above RT27_GFP_BITS_SHIFT). */
static int rt27_root_tag(const struct radix_tree_root *root, int tag)
{
	return (root->gfp_mask >> (tag + RT27_GFP_BITS_SHIFT)) & 1;
}

/*
 * The 2.6.27 representation: an empty tree has no root tags (and height
 * 0 unless -ENOMEM interrupted an insert after extend); at height 0
 * root->rnode is the item at index 0 itself, without the indirect bit;
 * above, it is the top node with the indirect bit, whose height is the
 * root's, and each root tag bit is set iff the top node carries that tag.
 * Below the root no pointer has the indirect bit (rt_check_node).
 */
static int rt27_check_root(struct rt_check *c, unsigned int max_height)
{
	const struct radix_tree_root *root = c->root;
	const struct radix_tree_node *top;
	int tag;

	if (!root->rnode) {
		for (tag = 0; tag < RADIX_TREE_TAGS; tag++)
			if (rt27_root_tag(root, tag))
				return rt_violation(c, root, "empty tree with "
						    "root tag %d set", tag);
		if (root->height && (c->flags & RADIX_CHECK_STRICT))
			return rt_violation(c, root, "empty tree with root "
					    "height %u", root->height);
		return 0;
	}
	if (root->height == 0) {
		if (radix_tree_is_indirect_ptr(root->rnode))
			return rt_violation(c, root, "height 0 but root->rnode "
					    "has the indirect bit");
		c->nr = 1;
		return 0;
	}
	if (root->height > max_height)
		return rt_violation(c, root, "root height %u out of range "
				    "1..%u", root->height, max_height);
	if (!radix_tree_is_indirect_ptr(root->rnode))
		return rt_violation(c, root, "root height %u but root->rnode "
				    "lacks the indirect bit", root->height);
	top = radix_tree_indirect_to_ptr(root->rnode);
	for (tag = 0; tag < RADIX_TREE_TAGS; tag++)
		if (rt27_root_tag(root, tag) != (top->tags[tag][0] != 0))
			return rt_violation(c, top, "root tag %d is %d but the "
					    "top node %s that tag", tag,
					    rt27_root_tag(root, tag),
					    top->tags[tag][0] ? "carries" :
					    "does not carry");
	return rt_check_node(c, top, root->height, 0);
}

/**
 * radix_tree_check_msg - check the tree's invariants, report by value
 * @root:	the tree (not being modified)
 * @nr_entries:	where to store the number of entries (may be NULL)
 * @flags:	RADIX_CHECK_*
 * @msg:	where a violation is described (may be NULL)
 * @len:	size of @msg
 * @bad:	where the offending node is stored (may be NULL)
 *
 * Returns 0 if the tree is consistent, -1 otherwise.
 */
int radix_tree_check_msg(const struct radix_tree_root *root,
			 unsigned long *nr_entries, unsigned int flags,
			 char *msg, size_t len, const void **bad)
{
	struct rt_check c = {
		.root = root, .shift = radix_tree_map_shift(), .flags = flags,
		.msg = msg, .len = len,
	};
	int ret = 0;
	unsigned int max_height = radix_tree_max_height();

	if (max_height == 0)	/* before radix_tree_init: the 2.6.13 shift */
		max_height = 1;
	if (msg && len)
		msg[0] = '\0';
	c.is_2627 = rt_is_2627();
	if (c.is_2627) {
		ret = rt27_check_root(&c, max_height);
	} else if (!root->rnode) {
		if (root->height && (flags & RADIX_CHECK_STRICT))
			ret = rt_violation(&c, root, "empty tree with root "
					   "height %u", root->height);
	} else if (root->height == 0 || root->height > max_height) {
		ret = rt_violation(&c, root->rnode, "root height %u out of "
				   "range 1..%u with a node at the top",
				   root->height, max_height);
	} else {
		ret = rt_check_node(&c, root->rnode, root->height, 0);
	}
	if (bad)
		*bad = c.bad;
	if (nr_entries)
		*nr_entries = c.nr;
	return ret;
}

/**
 * radix_tree_check - check the tree's invariants at the end of a run
 * @root:	the tree
 * @nr_entries:	where to store the number of entries (may be NULL)
 * @flags:	RADIX_CHECK_*
 *
 * Returns 0; a violation fails the run with kind "invariant".
 */
int radix_tree_check(const struct radix_tree_root *root,
		     unsigned long *nr_entries, unsigned int flags)
{
	char msg[200];
	const void *bad = NULL;

	if (radix_tree_check_msg(root, nr_entries, flags, msg, sizeof(msg),
				 &bad))
		pr_fail("invariant", bad, "radix tree: %s", msg);
	return 0;
}

/*
 * The top of either representation: the node and height to walk, or
 * (*@direct) the item at index 0 of a height-0 2.6.27 tree.
 */
static const struct radix_tree_node *
rt_peek_top(const struct radix_tree_root *root, unsigned int *height,
	    void **direct)
{
	void *top = root->rnode;

	*direct = NULL;
	*height = root->height;
	if (!top)
		return NULL;
	if (rt_is_2627()) {
		if (!radix_tree_is_indirect_ptr(top)) {
			*direct = top;
			return NULL;
		}
		return radix_tree_indirect_to_ptr(top);
	}
	return *height ? top : NULL;
}

/**
 * radix_tree_peek - the entry at @index, read without yield points
 * @root: the tree, not being modified (end of run, a unit test)
 * @index: index key
 *
 * For either representation (the run's protocol chooses).  Does not check
 * the tree: call radix_tree_check_msg first if it may be broken.
 */
void *radix_tree_peek(const struct radix_tree_root *root, unsigned long index)
{
	unsigned int shift = radix_tree_map_shift();
	unsigned int height;
	void *direct;
	const struct radix_tree_node *node = rt_peek_top(root, &height,
							 &direct);

	if (direct)
		return index == 0 ? direct : NULL;
	if (!node || height == 0 || index > radix_tree_maxindex_of(height))
		return NULL;
	while (height > 1) {
		node = node->slots[(index >> (shift * (height - 1))) &
				   ((1UL << shift) - 1)];
		if (!node)
			return NULL;
		height--;
	}
	return node->slots[index & ((1UL << shift) - 1)];
}

static unsigned long rt_peek_node(const struct radix_tree_node *node,
				  unsigned int height, unsigned long base,
				  void (*fn)(void *arg, unsigned long index,
					     void *item), void *arg)
{
	unsigned int shift = radix_tree_map_shift();
	unsigned long nodes = 1;

	for (unsigned int i = 0; i < (1u << shift); i++) {
		void *p = node->slots[i];
		unsigned long index = base |
			((unsigned long)i << (shift * (height - 1)));

		if (!p)
			continue;
		if (height == 1)
			fn(arg, index, p);
		else
			nodes += rt_peek_node(p, height - 1, index, fn, arg);
	}
	return nodes;
}

/**
 * radix_tree_peek_each - call @fn for every entry, without yield points
 * @root: the tree, not being modified; already checked
 * @fn: called with (@arg, index, item) in index order
 * @arg: passed to @fn
 *
 * Returns the number of nodes in the tree.
 */
unsigned long radix_tree_peek_each(const struct radix_tree_root *root,
				   void (*fn)(void *arg, unsigned long index,
					      void *item), void *arg)
{
	unsigned int height;
	void *direct;
	const struct radix_tree_node *node = rt_peek_top(root, &height,
							 &direct);

	if (direct) {
		fn(arg, 0, direct);
		return 0;
	}
	if (!node)
		return 0;
	return rt_peek_node(node, height, 0, fn, arg);
}
