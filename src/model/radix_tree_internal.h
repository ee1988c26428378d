/* SPDX-License-Identifier: MIT */
/*
 * radix_tree_internal.h - what the two radix trees (radix_tree.c, 2.6.13
 * with the seeds; radix_tree_2627.c, 2.6.27) share: the node cache, the
 * lockless-reader check, the run's fan-out.  Not for users of the tree.
 */
#ifndef PAGERACE_MODEL_RADIX_TREE_INTERNAL_H
#define PAGERACE_MODEL_RADIX_TREE_INTERNAL_H

#include "kernel/slab.h"
#include "model/radix_tree.h"
#include "model/variant.h"

/* The "node" cache (radix_tree_init). */
extern struct kmem_cache *radix_tree_node_cachep;

/* Fail the run ("rcu-unprotected") if a lockless reader is unprotected. */
void rt_check_reader(const struct radix_tree_root *root, const char *func);

/* Does this run use the 2.6.27 tree? */
static inline int rt_is_2627(void)
{
	return variant.protocol == PROTO_MERGED;
}

#endif /* PAGERACE_MODEL_RADIX_TREE_INTERNAL_H */
