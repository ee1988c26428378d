/* SPDX-License-Identifier: MIT */
/*
 * memory_common.h - what the memory-model tests share: the variables
 * their programs touch, final-state sets, and a search to the end of a
 * systematic strategy's tree.  Included by tests/memory_models.c and
 * tests/memory_dpor.c only (static: one copy each).
 */
#ifndef PAGERACE_TESTS_MEMORY_COMMON_H
#define PAGERACE_TESTS_MEMORY_COMMON_H

#include "kernel/access.h"
#include "kernel/atomic.h"
#include "kernel/barrier.h"
#include "kernel/bitops.h"
#include "kernel/kernel.h"
#include "kernel/rcu.h"
#include "kernel/slab.h"
#include "kernel/spinlock.h"
#include "memory/memory.h"
#include "runtime/run.h"
#include "strategy/dependence.h"
#include "strategy/strategy.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>


static struct pr_run_options ropts;

/* Shared variables and each CPU's registers; reset by setup. */
static int x, y;
static unsigned long z;
static atomic_t a;
static int r[4][4];

/* ---- final states ------------------------------------------------------- */

static struct stateset { uint64_t h[8192]; int n; } seen;
static int hit;			/* the shape's outcome was reached */

static void set_add(struct stateset *s, uint64_t h)
{
	for (int i = 0; i < s->n; i++)
		if (s->h[i] == h)
			return;
	if (s->n < 8192)
		s->h[s->n++] = h;
}

/* Every state of @p is in @q. */
static int set_sub(const struct stateset *p, const struct stateset *q)
{
	for (int i = 0; i < p->n; i++) {
		int found = 0;

		for (int j = 0; j < q->n && !found; j++)
			found = p->h[i] == q->h[j];
		if (!found)
			return 0;
	}
	return 1;
}

static int set_same(const struct stateset *p, const struct stateset *q)
{
	return p->n == q->n && set_sub(p, q);
}

static uint64_t state_hash(void)
{
	uint64_t h = 1469598103934665603ull;
	int v[4] = { x, y, z, atomic_read(&a) };

	for (int i = 0; i < 4; i++)
		h = (h ^ (uint64_t)(uint32_t)v[i]) * 1099511628211ull;
	for (int t = 0; t < 4; t++)
		for (int i = 0; i < 4; i++)
			h = (h ^ (uint64_t)(uint32_t)r[t][i]) * 1099511628211ull;
	return h;
}


struct result {
	uint64_t runs, executions;
	int complete, failed;
};

static int search_bound = -1;	/* preemption bound of search(), -1: none */

/* @strat to the end of its tree (at most @budget runs). */
static struct result search(const struct pr_program *prog, const char *strat,
			    uint64_t budget)
{
	struct pr_strategy_params p = { .pct_depth = 3,
					.has_bound = search_bound >= 0,
					.preemption_bound = search_bound };
	struct pr_strategy *s = pr_strategy_create(strat, &p);
	struct pr_run_result res;
	struct pr_coverage c;
	struct result out;

	memset(&out, 0, sizeof(out));
	seen.n = 0;
	hit = 0;
	while (!s->ops->exhausted(s) && out.runs < budget) {
		pr_run_once(prog, s, &ropts, 1, out.runs, NULL, &res);
		out.runs++;
		if ((res.failed || res.diverged) && !out.failed)
			diag("%s run %llu: %s: %s", strat,
			     (unsigned long long)out.runs, res.verdict.kind,
			     res.verdict.msg);
		out.failed |= res.failed || res.diverged;
	}
	s->ops->coverage(s, &c);
	out.executions = c.executions;
	out.complete = c.complete;
	s->ops->destroy(s);
	return out;
}

#endif /* PAGERACE_TESTS_MEMORY_COMMON_H */
