/* SPDX-License-Identifier: MIT */
/*
 * dfs.c - depth-first enumeration of every schedule, optionally with a
 * preemption bound (Musuvathi & Qadeer, "Iterative context bounding for
 * systematic testing of multithreaded programs", PLDI 2007).
 *
 * Every node explores every enabled choice: each context that can run and
 * each interrupt that can be delivered.  A preemption is a decision that
 * takes another choice while the context that ran last could go on;
 * delivering an interrupt to that same context counts as one too.  With a
 * bound K, a node whose path already holds K preemptions explores only the
 * running context (every choice when it cannot go on: blocking, spinning,
 * finishing and handler returns switch for free).  Without a bound the
 * search is exhaustive, and finite because every run is: spin-waiters
 * sleep until a store, and a run past --max-steps is a livelock verdict.
 *
 * The first choice at a node is the running context, so the first
 * execution is the one without preemptions, and the order is fixed: the
 * same program gives the same sequence of executions.
 */
#include "strategy/tree.h"
#include "runtime/tsan.h"

#include <stdlib.h>

struct dfs_strategy {
	struct pr_strategy base;
	struct pr_tree tree;
};

PR_NO_TSAN static int dfs_first(struct pr_tree *t, size_t d)
{
	struct pr_tnode *nd = &t->node[d];
	pr_procset allowed = pr_tree_allowed(t, nd);

	nd->backtrack = allowed;
	if (nd->cur != PR_NO_PROC && (allowed & (PR_PROC_BIT(nd->cur))))
		return nd->cur;
	return pr_proc_lowest(allowed);
}

static const struct pr_tree_policy dfs_policy = {
	.first = dfs_first,
	.analyse = NULL,
};

PR_NO_TSAN static void dfs_begin(struct pr_strategy *s, uint64_t seed, uint64_t run)
{
	(void)seed;
	(void)run;
	pr_tree_begin_run(&((struct dfs_strategy *)s)->tree);
}

PR_NO_TSAN static int dfs_pick(struct pr_strategy *s, const struct pr_choices *cs,
			       int64_t *budget)
{
	return pr_tree_pick(&((struct dfs_strategy *)s)->tree, cs, budget);
}

PR_NO_TSAN static void dfs_end(struct pr_strategy *s, uint64_t steps)
{
	struct pr_tree *t = &((struct dfs_strategy *)s)->tree;

	(void)steps;
	pr_tree_end_run(t);
	s->foreign = t->foreign;
}

PR_NO_TSAN static int dfs_exhausted(struct pr_strategy *s)
{
	return ((struct dfs_strategy *)s)->tree.exhausted;
}

PR_NO_TSAN static void dfs_coverage(struct pr_strategy *s, struct pr_coverage *c)
{
	pr_tree_coverage(&((struct dfs_strategy *)s)->tree, c);
}

PR_NO_TSAN static void dfs_destroy(struct pr_strategy *s)
{
	pr_effects_track(0);
	pr_tree_free(&((struct dfs_strategy *)s)->tree);
	free(s);
}

static const struct pr_strategy_ops dfs_ops = {
	.name = "dfs",
	.begin_run = dfs_begin,
	.pick = dfs_pick,
	.end_run = dfs_end,
	.destroy = dfs_destroy,
	.sees_memory = 1,
	.exhausted = dfs_exhausted,
	.coverage = dfs_coverage,
};

PR_NO_TSAN struct pr_strategy *pr_dfs_create(const struct pr_strategy_params *p)
{
	struct dfs_strategy *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->base.ops = &dfs_ops;
	pr_tree_init(&d->tree, &dfs_policy, p && p->has_bound ? p->preemption_bound : -1,
		     d->base.error, sizeof(d->base.error));
	if (p && p->shards)
		pr_tree_split(&d->tree, p->shard, p->shards);
	return &d->base;
}
