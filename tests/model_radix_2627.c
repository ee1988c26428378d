/* SPDX-License-Identifier: MIT */
/*
 * model_radix_2627.c - sequential test of the 2.6.27 radix tree
 * (model/radix_tree_2627.c, the tree of PROTO_MERGED).
 *
 * Outside a run yield points are no-ops, so the model's functions are
 * called directly.  First the representation, step by step: index 0 of an
 * empty tree stored directly in root->rnode at height 0 (no node),
 * extending it (the old &root->rnode slot now derefs to RADIX_TREE_RETRY),
 * shrinking back (the freed node's stale slot 0 carries the indirect bit,
 * or, with KNOB_SHRINK_STALE_SLOT, still the item), deleting at height 0,
 * root tags in gfp_mask, gang lookups of a height-0 tree.  Then the
 * end-of-run checker rejects each broken representation.  Finally, for
 * each fan-out shift, a fixed-seed random sequence of insert, delete,
 * lookups, gang lookups and tag operations compared with a reference
 * array, radix_tree_check_msg after every operation, every node the tree
 * drops freed through call_rcu, and the tree shrunk to its minimal height
 * whenever only index 0 is left.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "model/radix_tree.h"
#include "model/radix_tree_2627.h"
#include "model/variant.h"
#include "runtime/rng.h"
#include "kernel/kernel.h"
#include "kernel/rcu.h"

#define NPOOL		72
#define NOPS		6000
#define PHASE		300
#define NODE_CAP	4096

static struct radix_tree_root root;
/* Items: aligned, so bit 0 (RADIX_TREE_INDIRECT_PTR) is clear. */
static long items[NPOOL];
static unsigned long pool[NPOOL];
static int npool;
static void *ref[NPOOL];
static unsigned char reftag[NPOOL][RADIX_TREE_TAGS];

static void reset(unsigned int shift, unsigned int knobs)
{
	variant.protocol = PROTO_MERGED;
	variant.radix_map_shift = shift;
	variant.knobs = knobs;
	kernel_reset(1);
	if (radix_tree_reset() != 0)
		bail_out("radix_tree_reset failed");
	INIT_RADIX_TREE(&root, 0);
}

static int check(char *msg, size_t len, unsigned long *nr)
{
	return radix_tree_check_msg(&root, nr, RADIX_CHECK_STRICT, msg, len,
				    NULL);
}

/* Nodes reachable from the root of a 2.6.27 tree. */
static unsigned long count_below(const struct radix_tree_node *n,
				 unsigned int height)
{
	unsigned long size = 1UL << radix_tree_map_shift(), nr = 1;

	if (!n)
		return 0;
	if (height > 1)
		for (unsigned long i = 0; i < size; i++)
			nr += count_below(n->slots[i], height - 1);
	return nr;
}

static unsigned long count_nodes(void)
{
	if (!radix_tree_is_indirect_ptr(root.rnode))
		return 0;
	return count_below(radix_tree_indirect_to_ptr(root.rnode),
			   root.height);
}

/* ---- the representation, step by step ---- */

static void test_representation(unsigned int knobs)
{
	const char *k = knobs ? " (shrink-stale-slot)" : "";
	char msg[200];
	unsigned long nr = 0;
	void **slot0, **slot;
	void *stale;
	struct radix_tree_node *node;
	void *got[4];
	void **slots[4];

	reset(2, knobs);
	ok(radix_tree_insert(&root, 0, &items[0]) == 0 && root.height == 0 &&
	   root.rnode == (void *)&items[0] && radix_tree_nodes_active() == 0,
	   "index 0 of an empty tree: the item itself in root->rnode, "
	   "height 0, no node%s", k);
	slot0 = radix_tree_lookup_slot(&root, 0);
	ok(slot0 == (void **)&root.rnode && radix_tree_lookup(&root, 0) ==
	   &items[0] && !radix_tree_lookup(&root, 1) &&
	   !radix_tree_lookup_slot(&root, 1),
	   "height 0: lookup_slot(0) is &root->rnode, index 1 absent");
	ok(radix_tree_gang_lookup_slot(&root, slots, 0, 4) == 1 &&
	   slots[0] == (void **)&root.rnode &&
	   radix_tree_gang_lookup(&root, got, 0, 4) == 1 &&
	   got[0] == &items[0] && radix_tree_gang_lookup(&root, got, 1, 4) == 0,
	   "height 0: gang lookups return the root item, nothing from 1");
	ok(check(msg, sizeof(msg), &nr) == 0 && nr == 1,
	   "height 0: the checker accepts it (%lu entry) %s", nr, msg);
	ok(radix_tree_peek(&root, 0) == &items[0] && !radix_tree_peek(&root, 1),
	   "height 0: radix_tree_peek reads the root item");

	/* Extend: the item moves into slot 0 of a node. */
	ok(radix_tree_insert(&root, 1, &items[1]) == 0 && root.height == 1 &&
	   radix_tree_is_indirect_ptr(root.rnode) &&
	   radix_tree_nodes_active() == 1,
	   "inserting index 1 extends to height 1 under an indirect pointer");
	node = radix_tree_indirect_to_ptr(root.rnode);
	ok(node->slots[0] == &items[0] && node->slots[1] == &items[1] &&
	   node->count == 2 && node->height == 1,
	   "the old root item is in slot 0 of the new node");
	ok(radix_tree_deref_slot(slot0) == RADIX_TREE_RETRY,
	   "a reader still holding &root->rnode derefs RADIX_TREE_RETRY");
	slot = radix_tree_lookup_slot(&root, 0);
	ok(slot == &node->slots[0] && radix_tree_deref_slot(slot) == &items[0],
	   "lookup_slot(0) again: the node's slot 0");
	ok(check(msg, sizeof(msg), &nr) == 0 && nr == 2,
	   "height 1: the checker accepts it (%lu entries) %s", nr, msg);

	/* Tags: root tag bits in gfp_mask follow the top node. */
	ok(radix_tree_tag_set(&root, 1, 0) == &items[1] &&
	   radix_tree_tagged(&root, 0) && !radix_tree_tagged(&root, 1) &&
	   radix_tree_tag_get(&root, 1, 0) && !radix_tree_tag_get(&root, 0, 0) &&
	   (root.gfp_mask >> RT27_GFP_BITS_SHIFT) == 1,
	   "tag 0 on index 1: node bit and root bit (gfp_mask bit %d)",
	   RT27_GFP_BITS_SHIFT);
	ok(radix_tree_gang_lookup_tag(&root, got, 0, 4, 0) == 1 &&
	   got[0] == &items[1], "gang_lookup_tag finds the tagged item");
	ok(radix_tree_tag_clear(&root, 1, 0) == &items[1] &&
	   !radix_tree_tagged(&root, 0) && root.gfp_mask == 0,
	   "tag_clear clears the node bit and the root bit");
	radix_tree_tag_set(&root, 0, 1);

	/* Shrink: delete index 1, the tree drops back to height 0. */
	ok(radix_tree_delete(&root, 1) == &items[1] && root.height == 0 &&
	   root.rnode == (void *)&items[0] && rcu_callbacks_pending() == 1,
	   "deleting index 1 shrinks to height 0; the node waits for RCU");
	ok(radix_tree_tagged(&root, 1) && radix_tree_tag_get(&root, 0, 1),
	   "the shrink keeps index 0's tag as the root's");
	/*
	 * The node is RCU-pending: only a reader that was inside
	 * rcu_read_lock before the free may load it, so deref a copy.
	 */
	stale = node->slots[0];
	if (knobs)
		ok(stale == &items[0] &&
		   radix_tree_deref_slot(&stale) == &items[0],
		   "2.6.27: the freed node's slot 0 still holds the item, and "
		   "a reader holding it derefs the item");
	else
		ok(stale == radix_tree_ptr_to_indirect(&items[0]) &&
		   radix_tree_deref_slot(&stale) == RADIX_TREE_RETRY,
		   "2.6.37 fix: the freed node's slot 0 has the indirect bit, "
		   "a reader holding it derefs RADIX_TREE_RETRY");
	ok(check(msg, sizeof(msg), &nr) == 0 && nr == 1,
	   "after the shrink the checker accepts it %s", msg);
	rcu_barrier_final();
	ok(radix_tree_nodes_active() == 0,
	   "after the grace period the node is freed (cleared by the "
	   "callback)");

	/* Delete at height 0. */
	ok(radix_tree_delete(&root, 1) == NULL &&
	   radix_tree_delete(&root, 0) == &items[0] && root.rnode == NULL &&
	   root.height == 0 && root.gfp_mask == 0 &&
	   !radix_tree_lookup(&root, 0),
	   "deleting index 0 at height 0 empties the root and its tags");
	ok(check(msg, sizeof(msg), &nr) == 0 && nr == 0,
	   "the empty tree checks %s", msg);

	/* A far index: extend from empty, then shrink only to the index 0 path. */
	ok(radix_tree_insert(&root, 17, &items[2]) == 0 && root.height == 3 &&
	   radix_tree_insert(&root, 0, &items[3]) == 0 &&
	   radix_tree_delete(&root, 17) == &items[2] && root.height == 0 &&
	   root.rnode == (void *)&items[3],
	   "index 17 then 0 (height 3); deleting 17 shrinks three levels");
	rcu_barrier_final();
	ok(radix_tree_nodes_active() == 0 && check(msg, sizeof(msg), &nr) == 0,
	   "every shrunk node freed %s", msg);
}

/* ---- the checker rejects broken 2.6.27 trees ---- */

static void test_checker(void)
{
	char msg[200];
	unsigned long nr;
	struct radix_tree_node *node;
	void *saved;

	reset(2, 0);
	radix_tree_insert(&root, 0, &items[0]);
	root.rnode = radix_tree_ptr_to_indirect(&items[0]);
	ok(check(msg, sizeof(msg), &nr) != 0 && strstr(msg, "indirect"),
	   "height 0 with the indirect bit: rejected (%s)", msg);
	root.rnode = (void *)&items[0];
	root.gfp_mask = 0;
	radix_tree_delete(&root, 0);
	root.gfp_mask = 1u << RT27_GFP_BITS_SHIFT;
	ok(check(msg, sizeof(msg), &nr) != 0 && strstr(msg, "root tag"),
	   "empty tree with a root tag: rejected (%s)", msg);
	root.gfp_mask = 0;

	radix_tree_insert(&root, 0, &items[0]);
	radix_tree_insert(&root, 5, &items[1]);
	saved = root.rnode;
	root.rnode = radix_tree_indirect_to_ptr(saved);
	ok(check(msg, sizeof(msg), &nr) != 0 && strstr(msg, "lacks"),
	   "a node in root->rnode without the indirect bit: rejected (%s)",
	   msg);
	root.rnode = saved;
	node = radix_tree_indirect_to_ptr(saved);
	node->slots[1] = radix_tree_ptr_to_indirect(node->slots[1]);
	ok(check(msg, sizeof(msg), &nr) != 0 && strstr(msg, "indirect bit"),
	   "an interior slot with the indirect bit: rejected (%s)", msg);
	node->slots[1] = radix_tree_indirect_to_ptr(node->slots[1]);
	root.gfp_mask = 1u << RT27_GFP_BITS_SHIFT;
	ok(check(msg, sizeof(msg), &nr) != 0 && strstr(msg, "root tag"),
	   "a root tag the top node does not carry: rejected (%s)", msg);
	root.gfp_mask = 0;
	ok(check(msg, sizeof(msg), &nr) == 0 && nr == 2,
	   "restored, the tree checks again %s", msg);
}

/* ---- random operations against a reference ---- */

struct stats {
	unsigned long ops, fails, checks, inserts, deletes, gang, tag_ops;
	unsigned long max_height, height0, shrinks, dropped, rcu_queued;
};

static int nfail_diag;

#define EXPECT(st, cond, ...) do {					\
		if (!(cond)) {						\
			(st)->fails++;					\
			if (nfail_diag++ < 10)				\
				diag(__VA_ARGS__);			\
		}							\
	} while (0)

static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static void build_pool(void)
{
	unsigned long size = 1UL << radix_tree_map_shift();
	unsigned long far[] = {
		size * size - 1, size * size * size, 1000, 65536,
		(1UL << 33) + 7, 1UL << 62, ~0UL - 1, ~0UL,
	};
	int i, j;

	npool = 0;
	for (i = 0; i < 40; i++)
		pool[npool++] = (unsigned long)i;
	for (i = 0; i < (int)(sizeof(far) / sizeof(far[0])); i++)
		pool[npool++] = far[i];
	qsort(pool, npool, sizeof(pool[0]), cmp_ul);
	for (i = 1, j = 1; i < npool; i++)
		if (pool[i] != pool[j - 1])
			pool[j++] = pool[i];
	npool = j;
}

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
	unsigned int op = (unsigned int)pr_rng_below(rng, 100);
	unsigned int ins = fill ? 45 : 0, del = fill ? 15 : 45;
	unsigned long nodes_before = count_nodes();
	unsigned long pend_before = rcu_callbacks_pending();
	unsigned int h_before = root.height;
	unsigned long index;

	/*
	 * Draining deletes present entries, index 0 last, so the tree
	 * shrinks to a direct root item before it empties.
	 */
	if (!fill && op >= ins && op < ins + del)
		for (int j = 0; j < npool && (!ref[k] || k == 0); j++)
			k = (k + 1) % npool;
	index = pool[k];
	st->ops++;
	if (op < ins) {
		int ret = radix_tree_insert(&root, index, &items[k]);

		st->inserts++;
		EXPECT(st, ret == (ref[k] ? -EEXIST : 0), "insert %lu: %d",
		       index, ret);
		if (ret == 0)
			ref[k] = &items[k];
	} else if (op < ins + del) {
		void *ret = radix_tree_delete(&root, index);

		st->deletes++;
		EXPECT(st, ret == ref[k], "delete %lu: %p want %p", index, ret,
		       ref[k]);
		ref[k] = NULL;
		memset(reftag[k], 0, sizeof(reftag[k]));
	} else if (op < 70) {
		void *ret = radix_tree_lookup(&root, index);

		EXPECT(st, ret == ref[k], "lookup %lu: %p want %p", index, ret,
		       ref[k]);
	} else if (op < 75) {
		void **slot = radix_tree_lookup_slot(&root, index);

		/* 2.6.27: NULL unless the item is present */
		EXPECT(st, ref[k] ? slot && radix_tree_deref_slot(slot) ==
		       ref[k] : !slot, "lookup_slot %lu: %p", index,
		       (void *)slot);
	} else if (op < 87) {
		void *got[16], *want[16];
		void **slots[16];
		unsigned int max = 1 + (unsigned int)pr_rng_below(rng, 16);
		unsigned int kind = (unsigned int)pr_rng_below(rng, 3), nw, ng;
		int tag = (int)pr_rng_below(rng, RADIX_TREE_TAGS);

		st->gang++;
		nw = ref_gang(index, max, kind == 2 ? tag : -1, want);
		if (kind == 0) {
			ng = radix_tree_gang_lookup(&root, got, index, max);
		} else if (kind == 1) {
			ng = radix_tree_gang_lookup_slot(&root, slots, index,
							 max);
			for (unsigned int i = 0; i < ng; i++)
				got[i] = radix_tree_deref_slot(slots[i]);
		} else {
			ng = radix_tree_gang_lookup_tag(&root, got, index, max,
							tag);
		}
		EXPECT(st, ng == nw && !memcmp(got, want, ng * sizeof(got[0])),
		       "gang lookup %u from %lu max %u: %u items, want %u",
		       kind, index, max, ng, nw);
	} else {
		int tag = (int)pr_rng_below(rng, RADIX_TREE_TAGS);
		unsigned int t = (unsigned int)pr_rng_below(rng, 4);

		st->tag_ops++;
		if (t == 0 && ref[k]) {	/* tag_set BUGs on an absent item */
			EXPECT(st, radix_tree_tag_set(&root, index, tag) ==
			       ref[k], "tag_set %lu", index);
			reftag[k][tag] = 1;
		} else if (t <= 1) {
			void *ret = index <= radix_tree_maxindex_of(root.height) ?
				    radix_tree_tag_clear(&root, index, tag) :
				    NULL;

			EXPECT(st, ret == ref[k], "tag_clear %lu", index);
			reftag[k][tag] = 0;
		} else if (t == 2) {
			EXPECT(st, radix_tree_tag_get(&root, index, tag) ==
			       (ref[k] && reftag[k][tag]), "tag_get %lu", index);
		} else {
			int want = 0;

			for (int j = 0; j < npool; j++)
				want |= ref[j] && reftag[j][tag];
			EXPECT(st, radix_tree_tagged(&root, tag) == want,
			       "tagged %d", tag);
		}
	}

	{
		char msg[200];
		unsigned long nr = ~0UL, nodes_after, present = 0;
		int only0;

		for (int j = 0; j < npool; j++)
			present += ref[j] != NULL;
		only0 = present == 1 && ref[0] != NULL;	/* pool[0] == 0 */
		st->checks++;
		EXPECT(st, check(msg, sizeof(msg), &nr) == 0,
		       "check after op %lu: %s", st->ops, msg);
		EXPECT(st, nr == present, "check counts %lu, reference %lu",
		       nr, present);
		/* A delete that leaves only index 0 shrinks to height 0. */
		if (op >= ins && op < ins + del && only0)
			EXPECT(st, root.height == 0, "only index 0 left at "
			       "height %u after a delete", root.height);
		if (root.height == 0 && root.rnode)
			st->height0++;
		if (root.height > st->max_height)
			st->max_height = root.height;
		if (root.rnode && root.height < h_before)
			st->shrinks++;
		nodes_after = count_nodes();
		if (nodes_after < nodes_before) {
			st->dropped += nodes_before - nodes_after;
			st->rcu_queued += rcu_callbacks_pending() - pend_before;
		}
	}
	if (pr_rng_below(rng, 8) == 0)
		rcu_barrier_final();
}

static void run_sequence(unsigned int shift, struct stats *st)
{
	struct pr_rng rng;

	memset(st, 0, sizeof(*st));
	reset(shift, 0);
	memset(ref, 0, sizeof(ref));
	memset(reftag, 0, sizeof(reftag));
	build_pool();
	pr_rng_seed(&rng, 0x27270000 + shift, 0, 1);
	for (unsigned long i = 0; i < NOPS; i++)
		one_op(st, &rng, (i / PHASE) % 2 == 0);
	for (int k = 0; k < npool; k++)
		if (ref[k])
			radix_tree_delete(&root, pool[k]);
	rcu_barrier_final();
}

int main(void)
{
	struct stats st;
	unsigned int shifts[] = { 2, 3, 1 };

	if (radix_tree_init(NODE_CAP) != 0)
		bail_out("radix_tree_init failed");

	test_representation(0);
	test_representation(KNOB_SHRINK_STALE_SLOT);
	test_checker();

	for (unsigned int s = 0; s < 3; s++) {
		unsigned int shift = shifts[s];

		run_sequence(shift, &st);
		diag("shift %u: %lu ops (%lu inserts, %lu deletes, %lu gang "
		     "lookups, %lu tag ops), max height %lu, %lu shrinks, "
		     "height 0 with an item after %lu ops, %lu nodes dropped",
		     shift, st.ops, st.inserts, st.deletes, st.gang,
		     st.tag_ops, st.max_height, st.shrinks, st.height0,
		     st.dropped);
		ok(st.fails == 0, "shift %u: %lu operations match the "
		   "reference, %lu checks pass (%lu mismatches)", shift,
		   st.ops, st.checks, st.fails);
		ok(st.shrinks > 10 && st.height0 > 10 && st.max_height >= 4,
		   "shift %u: the tree grew to height %lu, shrank %lu times, "
		   "held a direct root item %lu times", shift, st.max_height,
		   st.shrinks, st.height0);
		ok(st.dropped > 0 && st.rcu_queued == st.dropped &&
		   radix_tree_nodes_active() == 0,
		   "shift %u: all %lu dropped nodes freed through call_rcu, "
		   "none left", shift, st.dropped);
	}
	variant.protocol = PROTO_V2;
	return done_testing();
}
