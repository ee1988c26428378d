/* SPDX-License-Identifier: MIT */
/*
 * tree_end.c - the end of an execution in the exploration tree (tree.h):
 * count it, let the strategy analyse it (dpor's races), and choose the
 * branch the next execution replays down to -- the deepest node with a
 * choice left within the preemption bound, whose old choice then sleeps
 * there.  tree.c's invariants hold here too.
 */
#include "strategy/tree.h"
#include "strategy/tree_internal.h"
#include "runtime/tsan.h"

#include <stdint.h>
#include <string.h>

/* Put step @e in the pool (next_branch); -1 if out of memory. */
PR_NO_TSAN static int pool_add(struct pr_tree *t, const struct pr_event *e)
{
	if (t->npool >= UINT32_MAX ||
	    pr_tree_grow((void **)&t->pool, &t->cappool, t->npool + 1,
			 sizeof(*t->pool)))
		return -1;
	t->pool[t->npool++] = *e;
	return 0;
}

/*
 * The deepest node with a choice left within the preemption bound: take
 * it (the subtree under its old choice is complete, so that choice now
 * sleeps there), and replay down to it next time.
 */
PR_NO_TSAN static void next_branch(struct pr_tree *t)
{
	for (size_t d = t->n; d-- > 0;) {
		struct pr_tnode *nd = &t->node[d];
		pr_procset left = nd->backtrack & ~nd->done & ~nd->sleep;
		uint32_t *slot;
		int old, cost, stale;

		/* The chosen context's load reads the next older value. */
		while (nd->ver + 1 < nd->nver) {
			nd->ver++;
			if (t->policy->stale_redundant &&
			    t->policy->stale_redundant(t, d, nd->ver))
				continue;
			t->nsleepers = nd->sleep_off + nd->sleep_n;
			t->npool = nd->pool_end;
			t->n = t->prefix = d + 1;
			t->fresh = d;
			return;
		}
		if (left && t->bound >= 0)
			left &= pr_tree_allowed(t, nd);
		if (!left)
			continue;
		t->nsleepers = nd->sleep_off + nd->sleep_n;
		t->npool = nd->pool_end;
		/*
		 * A step with several values to read (weak) may touch
		 * different things after its load for each: it sleeps only
		 * if each version touched the same (pr_tree_note_version).  While it
		 * sleeps, no step dependent with it runs: nothing writes the
		 * location it loads or changes its CPU's view, so it could
		 * read the same values later.
		 */
		stale = nd->nver > 1 && (nd->vdiff || pr_tree_stale_wake);
		old = nd->chosen;
		nd->chosen = (uint8_t)pr_proc_lowest(left);
		nd->ver = 0;
		nd->done |= PR_PROC_BIT(nd->chosen);
		nd->cont = 0;
		if (nd->psleep & PR_PROC_BIT(nd->chosen))
			pr_tree_take_psleeper(t, nd, d, nd->chosen);
		cost = t->policy->sleep_cost ?
		       t->policy->sleep_cost(t, nd, old) : -1;
		slot = nd->top || stale || cost == INT8_MAX ? NULL :
		       pr_tree_sleepers_reserve(t, 1);
		if (slot && pool_add(t, &nd->ev) < 0)
			slot = NULL;
		if (slot) {
			*slot = (uint32_t)(t->npool - 1);
			nd->pool_end = (uint32_t)t->npool;
			t->sleepcost[t->nsleepers] = (int8_t)cost;
			t->sleeporig[t->nsleepers] = (uint32_t)d;
			t->sleeptw[t->nsleepers] = 0;
			t->nsleepers++;
			nd->sleep_n++;
			nd->sleep |= PR_PROC_BIT(old);
		}
		t->n = t->prefix = d + 1;
		t->fresh = d;
		return;
	}
	t->exhausted = 1;
}

PR_NO_TSAN void pr_tree_end_run(struct pr_tree *t)
{
	/* An abandoned run's last step was finished by the pick that ended it. */
	if (t->pos > 0 && t->pos >= t->prefix && !t->abandoned && !t->foreign) {
		pr_event_finish(&t->node[t->pos - 1].ev);
		pr_tree_note_version(&t->node[t->pos - 1]);
		pr_event_stopped(&t->node[t->pos - 1].ev);
	}
	t->n = t->pos;		/* an abandoned node had no step */
	/* A run that ended above the last top level is a leaf of its own. */
	if (t->shards && !t->foreign && !t->abandoned &&
	    !(t->n && t->node[t->n - 1].ntop + t->node[t->n - 1].top >= (int)t->split) &&
	    pr_tree_leaf_is_foreign(t))
		t->foreign = 1;
	if (t->foreign)
		t->foreign_runs++;
	else if (t->abandoned)
		t->blocked++;
	else
		t->executions++;
	if (t->n > t->max_depth)
		t->max_depth = t->n;
	/* A foreign run's steps are all in the top, which explores all. */
	if (t->policy->analyse && !t->foreign)
		t->policy->analyse(t);
	next_branch(t);
}

PR_NO_TSAN void pr_tree_coverage(const struct pr_tree *t, struct pr_coverage *c)
{
	memset(c, 0, sizeof(*c));
	c->complete = t->exhausted;
	c->bound = t->bound;
	c->bound_cut = t->bound_cut;
	c->executions = t->executions;
	c->blocked = t->blocked;
	c->max_depth = t->max_depth;
	c->shard = t->shard;
	c->shards = t->shards;
	c->foreign = t->foreign_runs;
}
