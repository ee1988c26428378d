/* SPDX-License-Identifier: MIT */
/*
 * radix_tree.c - model of Linux 2.6.13-rc6 lib/radix-tree.c with "lockless
 * pagecache 2" patches 4/7 (seed 005) and 5/7 (seed 006) applied: the
 * run's fan-out and height table, the node cache, the lockless-reader
 * check, init and reset.  The writers (under tree_lock) are in
 * radix_tree_write.c, the lockless read side in radix_tree_read.c; what
 * the three share is radix_tree_2613.h.
 *
 * Conventions of the three files (see radix_tree.h for the contract):
 *  - Code that the seeds do not touch cites "2.6.13 lib/radix-tree.c";
 *    changed code cites its seed hunk.
 *  - Writers run under the caller's tree_lock: their shared accesses are
 *    plain LOAD/STORE, and publication stores follow smp_wmb() exactly
 *    where seed 006 put it.
 *  - Lockless readers (lookup, lookup_slot, gang_lookup(_slot); tagged is
 *    written the same way though its caller holds tree_lock) load every
 *    pointer they follow with rcu_dereference() and every other shared
 *    word with READ_ONCE().  2.6.13 had no rcu_dereference in the
 *    radix tree (seed 006 relies on data dependency ordering); these are
 *    acquire loads, and under --memory tso|weak loads are performed in
 *    program order, so the dependency's ordering always holds.
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

/* The run's fan-out and its height table (radix_tree_2613.h). */
unsigned int rt_shift = RADIX_TREE_MAX_SHIFT;
unsigned long rt_height_to_maxindex[RADIX_TREE_MAX_PATH];
unsigned int rt_nr_heights;
unsigned int rt_max_height;

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

