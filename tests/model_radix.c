/* SPDX-License-Identifier: MIT */
/*
 * model_radix.c - sequential test of the radix tree model (model/radix_tree)
 * against a reference array.
 *
 * Outside a run the runtime's yield points are no-ops (pr_self() == -1), so
 * the model's functions are called directly.  For each fan-out shift
 * (1, 2, 3) a fixed-seed random sequence of insert / delete / lookup /
 * lookup_slot / gang_lookup / gang_lookup_slot / gang_lookup_tag / tag
 * operations runs over a pool of indices, from dense small ones (several
 * levels) to ~0UL (the tallest tree), alternating fill and drain phases so
 * the tree is extended and emptied (2.6.13's only shrink) many times.
 * Every result is compared with the reference, radix_tree_check_msg() runs
 * after every operation, and every node the tree drops must go through RCU
 * (a pending callback), or be freed at once under KNOB_RADIX_RCU_FREE.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "model/radix_tree.h"
#include "model/variant.h"
#include "runtime/context.h"
#include "runtime/rng.h"
#include "kernel/kernel.h"
#include "kernel/rcu.h"
#include "kernel/slab.h"

#ifndef GFP_ATOMIC
#define GFP_ATOMIC	0x20u	/* 2.6.13 __GFP_HIGH; no kernel/gfp.h yet */
#endif

/* ---- glue to the kernel layer: the only names this test assumes ---- */

static void t_kernel_reset(void)
{
	kernel_reset(1);
}

static unsigned long t_rcu_pending(void)
{
	return rcu_callbacks_pending();
}

/* Run every queued RCU callback now (outside a run). */
static void t_rcu_flush(void)
{
	rcu_barrier_final();
}

static void noop_rcu(struct rcu_head *head)
{
	(void)head;
}

/* ---- the reference ---- */

#define NPOOL		72
#define NOPS		6000
#define PHASE		300
#define NODE_CAP	4096

static unsigned long pool[NPOOL];
static int npool;
static char itembuf[NPOOL];
static void *ref[NPOOL];
static unsigned char reftag[NPOOL][RADIX_TREE_TAGS];
static struct radix_tree_root root;

struct stats {
	unsigned long ops, fails, checks;
	unsigned long inserts, deletes, enomem;
	unsigned long max_height, emptied, extends;
	unsigned long nodes_dropped, rcu_queued, freed_now;
	unsigned long gang, gang_items, tag_ops;
};

static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static void build_pool(void)
{
	unsigned int shift = radix_tree_map_shift();
	unsigned long size = 1UL << shift;
	unsigned long far[] = {
		size * size * size - 1, size * size * size,
		size * size * size * size + 5, 1000, 4095, 65536,
		1UL << 20, (1UL << 33) + 7, (1UL << 47) - 1, 1UL << 62,
		~0UL - size, ~0UL - 1, ~0UL,
	};
	int i, j;

	npool = 0;
	for (i = 0; i < 48; i++)
		pool[npool++] = (unsigned long)i;
	for (i = 0; i < (int)(sizeof(far) / sizeof(far[0])); i++)
		pool[npool++] = far[i];
	qsort(pool, npool, sizeof(pool[0]), cmp_ul);
	for (i = 1, j = 1; i < npool; i++)
		if (pool[i] != pool[j - 1])
			pool[j++] = pool[i];
	npool = j;
}

/* Nodes reachable from the root (a direct walk, no yield points). */
static unsigned long count_nodes(const struct radix_tree_node *n,
				 unsigned int height)
{
	unsigned long size = 1UL << radix_tree_map_shift(), i, nr = 1;

	if (!n)
		return 0;
	if (height > 1)
		for (i = 0; i < size; i++)
			nr += count_nodes(n->slots[i], height - 1);
	return nr;
}

static unsigned long ref_count(void)
{
	unsigned long nr = 0;

	for (int k = 0; k < npool; k++)
		nr += ref[k] != NULL;
	return nr;
}

static int first_fail_reported;

#define EXPECT(st, cond, ...) do {					\
		if (!(cond)) {						\
			(st)->fails++;					\
			if (first_fail_reported++ < 10)			\
				diag(__VA_ARGS__);			\
		}							\
	} while (0)

/* Reference answer to a gang lookup from @start for @max (tag < 0: any). */
static unsigned int ref_gang(unsigned long start, unsigned int max, int tag,
			     void **out)
{
	unsigned int n = 0;

	for (int k = 0; k < npool && n < max; k++) {
		if (pool[k] < start || !ref[k])
			continue;
		if (tag >= 0 && !reftag[k][tag])
			continue;
		out[n++] = ref[k];
	}
	return n;
}

static void one_op(struct stats *st, struct pr_rng *rng, int fill)
{
	int k = (int)pr_rng_below(rng, npool);
	unsigned long index;
	unsigned int op = (unsigned int)pr_rng_below(rng, 100);
	int ins_pct = fill ? 45 : 0, del_pct = fill ? 15 : 45;
	unsigned long nodes_before = count_nodes(root.rnode, root.height);
	unsigned long pend_before = t_rcu_pending();
	unsigned int h_before = root.height;

	/* Draining deletes present entries, so the tree really empties. */
	if (!fill && op >= (unsigned int)ins_pct &&
	    op < (unsigned int)(ins_pct + del_pct))
		for (int j = 0; j < npool && !ref[k]; j++)
			k = (k + 1) % npool;
	index = pool[k];
	st->ops++;
	if (op < (unsigned int)ins_pct) {
		int ret = radix_tree_insert(&root, index, &itembuf[k]);

		st->inserts++;
		if (ret == -ENOMEM) {
			st->enomem++;
		} else if (ref[k]) {
			EXPECT(st, ret == -EEXIST, "insert %lu present: %d",
			       index, ret);
		} else {
			EXPECT(st, ret == 0, "insert %lu: %d", index, ret);
			if (ret == 0)
				ref[k] = &itembuf[k];
		}
	} else if (op < (unsigned int)(ins_pct + del_pct)) {
		void *ret = radix_tree_delete(&root, index);

		st->deletes++;
		EXPECT(st, ret == ref[k], "delete %lu: %p want %p", index,
		       ret, ref[k]);
		ref[k] = NULL;
		memset(reftag[k], 0, sizeof(reftag[k]));
	} else if (op < 70) {
		void *ret = radix_tree_lookup(&root, index);

		EXPECT(st, ret == ref[k], "lookup %lu: %p want %p", index,
		       ret, ref[k]);
	} else if (op < 75) {
		void **slot = radix_tree_lookup_slot(&root, index);

		if (ref[k])
			EXPECT(st, slot && *slot == ref[k],
			       "lookup_slot %lu: slot %p", index, (void *)slot);
		else	/* seed 005: an existing leaf's empty slot is returned */
			EXPECT(st, !slot || !*slot,
			       "lookup_slot %lu absent: *slot %p", index,
			       slot ? *slot : NULL);
	} else if (op < 87) {
		void *got[16], *want[16];
		void **slots[16];
		unsigned int max = 1 + (unsigned int)pr_rng_below(rng, 16);
		unsigned long start = pr_rng_below(rng, 4) ? index :
				      index + pr_rng_below(rng, 3);
		unsigned int nw, ng, kind = (unsigned int)pr_rng_below(rng, 3);
		int tag = (int)pr_rng_below(rng, RADIX_TREE_TAGS);

		if (start < index)	/* wrapped */
			start = index;
		st->gang++;
		nw = ref_gang(start, max, kind == 2 ? tag : -1, want);
		if (kind == 0) {
			ng = radix_tree_gang_lookup(&root, got, start, max);
		} else if (kind == 1) {
			ng = radix_tree_gang_lookup_slot(&root, slots, start,
							 max);
			for (unsigned int i = 0; i < ng; i++)
				got[i] = *slots[i];
		} else {
			ng = radix_tree_gang_lookup_tag(&root, got, start, max,
							tag);
		}
		st->gang_items += ng;
		EXPECT(st, ng == nw && !memcmp(got, want, ng * sizeof(got[0])),
		       "gang_lookup%s from %lu max %u: %u items, want %u",
		       kind == 0 ? "" : kind == 1 ? "_slot" : "_tag", start,
		       max, ng, nw);
	} else {
		int tag = (int)pr_rng_below(rng, RADIX_TREE_TAGS);
		unsigned int t = (unsigned int)pr_rng_below(rng, 4);

		st->tag_ops++;
		if (t == 0 && ref[k]) {	/* tag_set BUGs on an absent item */
			void *ret = radix_tree_tag_set(&root, index, tag);

			EXPECT(st, ret == ref[k], "tag_set %lu", index);
			reftag[k][tag] = 1;
		} else if (t <= 1) {
			void *ret = radix_tree_tag_clear(&root, index, tag);

			EXPECT(st, ret == ref[k], "tag_clear %lu: %p want %p",
			       index, ret, ref[k]);
			reftag[k][tag] = 0;
		} else if (t == 2) {
			int ret = radix_tree_tag_get(&root, index, tag);

			EXPECT(st, ret == (ref[k] && reftag[k][tag]),
			       "tag_get %lu tag %d: %d", index, tag, ret);
		} else {
			int want = 0, ret = radix_tree_tagged(&root, tag);

			for (int j = 0; j < npool; j++)
				want |= ref[j] && reftag[j][tag];
			EXPECT(st, ret == want, "tagged %d: %d want %d", tag,
			       ret, want);
		}
	}

	/* Invariants after every operation. */
	{
		char msg[200];
		unsigned long nr = ~0UL, nodes_after;
		unsigned long pend_after = t_rcu_pending();
		int bad = radix_tree_check_msg(&root, &nr, RADIX_CHECK_STRICT,
					       msg, sizeof(msg), NULL);

		st->checks++;
		EXPECT(st, !bad, "radix_tree_check after op %lu: %s", st->ops,
		       msg);
		EXPECT(st, nr == ref_count(), "check counts %lu entries, "
		       "reference %lu", nr, ref_count());
		if (root.height > st->max_height)
			st->max_height = root.height;
		if (root.height > h_before)
			st->extends++;
		if (h_before && !root.rnode && root.height == 0)
			st->emptied++;
		EXPECT(st, root.rnode || root.height == 0,
		       "empty tree keeps height %u", root.height);
		nodes_after = count_nodes(root.rnode, root.height);
		if (nodes_after < nodes_before) {
			unsigned long dropped = nodes_before - nodes_after;

			st->nodes_dropped += dropped;
			if (knob(KNOB_RADIX_RCU_FREE)) {
				EXPECT(st, pend_after == pend_before,
				       "knob: %lu callbacks queued",
				       pend_after - pend_before);
				st->freed_now += dropped;
			} else {
				EXPECT(st, pend_after - pend_before == dropped,
				       "%lu nodes dropped, %lu RCU callbacks",
				       dropped, pend_after - pend_before);
				st->rcu_queued += pend_after - pend_before;
			}
		}
	}
	/* Let grace periods end now and then, as a run's RCU daemon would. */
	if (pr_rng_below(rng, 8) == 0)
		t_rcu_flush();
}

static void run_sequence(unsigned int shift, unsigned int knobs,
			 unsigned long nops, struct stats *st)
{
	struct pr_rng rng;

	memset(st, 0, sizeof(*st));
	variant.radix_map_shift = shift;
	variant.knobs = knobs;
	t_kernel_reset();
	if (radix_tree_reset() != 0)
		bail_out("radix_tree_reset failed");
	INIT_RADIX_TREE(&root, GFP_ATOMIC);
	memset(ref, 0, sizeof(ref));
	memset(reftag, 0, sizeof(reftag));
	build_pool();
	pr_rng_seed(&rng, 0x5eed0000 + shift, knobs, 1);
	for (unsigned long i = 0; i < nops; i++)
		one_op(st, &rng, (i / PHASE) % 2 == 0);
	t_rcu_flush();
}

int main(void)
{
	struct stats st;
	unsigned int shifts[] = { 2, 3, 1 };

	if (radix_tree_init(NODE_CAP) != 0)
		bail_out("radix_tree_init failed");

	for (unsigned int s = 0; s < 3; s++) {
		unsigned int shift = shifts[s];
		unsigned int tall;

		run_sequence(shift, 0, NOPS, &st);
		tall = 64 / shift + (64 % shift != 0);
		diag("shift %u: %lu ops (%lu inserts, %lu deletes, %lu gang "
		     "lookups returning %lu items, %lu tag ops), max height "
		     "%lu, %lu extends, emptied %lu times, %lu nodes freed "
		     "via RCU, -ENOMEM %lu", shift, st.ops, st.inserts,
		     st.deletes, st.gang, st.gang_items, st.tag_ops,
		     st.max_height, st.extends, st.emptied, st.rcu_queued,
		     st.enomem);
		ok(st.fails == 0, "shift %u: %lu operations match the "
		   "reference, %lu checks pass (%lu mismatches)", shift,
		   st.ops, st.checks, st.fails);
		ok(st.max_height == tall && st.extends > 10 && st.emptied > 5,
		   "shift %u: tree extended to height %lu (want %u) and "
		   "emptied %lu times", shift, st.max_height, tall, st.emptied);
		ok(st.nodes_dropped > 0 && st.rcu_queued == st.nodes_dropped,
		   "shift %u: all %lu dropped nodes freed through call_rcu",
		   shift, st.nodes_dropped);
		ok(st.enomem == 0, "shift %u: node cache of %d never full",
		   shift, NODE_CAP);
	}

	run_sequence(2, KNOB_RADIX_RCU_FREE, 2000, &st);
	ok(st.fails == 0 && st.nodes_dropped > 0 &&
	   st.freed_now == st.nodes_dropped && st.rcu_queued == 0,
	   "KNOB_RADIX_RCU_FREE: %lu dropped nodes freed at once, none "
	   "queued (%lu mismatches)", st.nodes_dropped, st.fails);

	/* A cache too small for a tall tree: -ENOMEM, as without preload. */
	{
		int ret;

		variant.radix_map_shift = 2;
		variant.knobs = 0;
		t_kernel_reset();
		radix_tree_reset();
		INIT_RADIX_TREE(&root, GFP_ATOMIC);
		ret = 0;
		for (unsigned long i = 0; i < NODE_CAP + 1 && ret == 0; i++)
			ret = radix_tree_insert(&root, i << 2, &itembuf[0]);
		ok(ret == -ENOMEM, "full node cache: insert returns -ENOMEM "
		   "(%d)", ret);
	}

	/* The checker catches a corrupted count. */
	{
		char msg[200];
		const void *bad = NULL;
		int ret;

		variant.radix_map_shift = 3;
		t_kernel_reset();
		radix_tree_reset();
		INIT_RADIX_TREE(&root, GFP_ATOMIC);
		radix_tree_insert(&root, 5, &itembuf[1]);
		radix_tree_insert(&root, 70, &itembuf[2]);
		root.rnode->count++;
		ret = radix_tree_check_msg(&root, NULL, 0, msg, sizeof(msg),
					   &bad);
		ok(ret == -1 && bad == root.rnode && strstr(msg, "count 3"),
		   "radix_tree_check reports a bad count: \"%s\"", msg);
		root.rnode->count--;
		root.rnode->tags[1][0] |= 1;
		ret = radix_tree_check_msg(&root, NULL, 0, msg, sizeof(msg),
					   &bad);
		ok(ret == -1 && strstr(msg, "tag 1"),
		   "radix_tree_check reports an inconsistent tag: \"%s\"", msg);
		root.rnode->tags[1][0] &= ~1UL;
		/* A node queued for freeing while still linked. */
		call_rcu(&root.rnode->rcu_head, noop_rcu);
		ret = radix_tree_check_msg(&root, NULL, 0, msg, sizeof(msg),
					   &bad);
		ok(ret == -1 && bad == root.rnode && strstr(msg, "RCU"),
		   "radix_tree_check reports a linked node queued by "
		   "call_rcu: \"%s\"", msg);
		t_kernel_reset();
	}
	return done_testing();
}
