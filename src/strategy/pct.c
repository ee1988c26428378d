/* SPDX-License-Identifier: MIT */
/*
 * pct.c - Probabilistic Concurrency Testing (Burckhardt, Kothari,
 * Musuvathi, Nagarakatte, ASPLOS 2010).
 *
 * Every context (and every injectable event) gets a distinct random
 * priority >= d; d-1 change points are drawn uniformly over the estimated
 * run length k.  The highest-priority enabled choice always runs; when the
 * run reaches the i-th change point, the running context's priority drops
 * to d-i, below every initial priority.  A bug of depth d is then found
 * with probability at least 1/(n k^(d-1)) per run.
 *
 * Spin-waiters are deprioritised below everything when they spin, so a
 * spinner never starves the context it waits for.  An event, once
 * delivered, draws a fresh random priority from the initial range, so a
 * repeatable interrupt neither fires back to back every time nor never
 * again.
 */
#include "runtime/context.h"
#include "runtime/rng.h"
#include "strategy/strategy.h"

#include <stdlib.h>

#define PCT_MAX_DEPTH	16
#define PCT_SLOTS	(PR_MAX_CTX + PR_MAX_INJECT)

struct pct_strategy {
	struct pr_strategy base;
	struct pr_rng rng;
	int depth;
	uint64_t k;
	int64_t prio[PCT_SLOTS];
	uint64_t change[PCT_MAX_DEPTH];
	int nchange, next_change;
	int64_t lowest;		/* next priority for a deprioritised choice */
};

static int slot_of(const struct pr_choice *c)
{
	return c->inject < 0 ? c->ctx : PR_MAX_CTX + c->inject;
}

static void pct_begin(struct pr_strategy *s, uint64_t seed, uint64_t run)
{
	struct pct_strategy *p = (struct pct_strategy *)s;
	int perm[PCT_SLOTS];

	pr_rng_seed(&p->rng, seed, run, 2);
	/* A uniform random permutation (Fisher-Yates) of d .. d+SLOTS-1. */
	for (int i = 0; i < PCT_SLOTS; i++)
		perm[i] = i;
	for (int i = PCT_SLOTS - 1; i > 0; i--) {
		int j = (int)pr_rng_below(&p->rng, (uint64_t)i + 1);
		int t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (int i = 0; i < PCT_SLOTS; i++)
		p->prio[i] = p->depth + perm[i];
	p->nchange = p->depth - 1;
	for (int i = 0; i < p->nchange; i++)
		p->change[i] = 1 + pr_rng_below(&p->rng, p->k);
	/* Sorted, so the run meets them in order (insertion sort: d is tiny). */
	for (int i = 1; i < p->nchange; i++)
		for (int j = i; j > 0 && p->change[j - 1] > p->change[j]; j--) {
			uint64_t t = p->change[j];

			p->change[j] = p->change[j - 1];
			p->change[j - 1] = t;
		}
	p->next_change = 0;
	p->lowest = 0;
}

static int pct_pick(struct pr_strategy *s, const struct pr_choices *cs,
		    int64_t *budget)
{
	struct pct_strategy *p = (struct pct_strategy *)s;
	int best = 0;

	if (cs->prev_ctx >= 0 && cs->reason == PR_R_SPIN)
		p->prio[cs->prev_ctx] = p->lowest--;
	while (p->next_change < p->nchange &&
	       cs->step >= p->change[p->next_change]) {
		if (cs->prev_ctx >= 0)
			p->prio[cs->prev_ctx] = p->depth - 1 - p->next_change;
		p->next_change++;
	}
	for (int i = 1; i < cs->n; i++)
		if (p->prio[slot_of(&cs->c[i])] > p->prio[slot_of(&cs->c[best])])
			best = i;
	if (cs->c[best].inject >= 0)
		p->prio[slot_of(&cs->c[best])] =
			p->depth + (int64_t)pr_rng_below(&p->rng, PCT_SLOTS);
	if (p->next_change < p->nchange)
		*budget = (int64_t)(p->change[p->next_change] - cs->step);
	else
		*budget = PR_BUDGET_UNBOUNDED;
	return best;
}

static void pct_end(struct pr_strategy *s, uint64_t steps)
{
	(void)s;
	(void)steps;
}

static void pct_destroy(struct pr_strategy *s)
{
	free(s);
}

static const struct pr_strategy_ops pct_ops = {
	.name = "pct",
	.begin_run = pct_begin,
	.pick = pct_pick,
	.end_run = pct_end,
	.destroy = pct_destroy,
};

struct pr_strategy *pr_pct_create(const struct pr_strategy_params *params)
{
	struct pct_strategy *p;

	if (params->pct_depth < 1 || params->pct_depth > PCT_MAX_DEPTH ||
	    params->pct_steps < 1)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->base.ops = &pct_ops;
	p->depth = params->pct_depth;
	p->k = params->pct_steps;
	return &p->base;
}
