/* SPDX-License-Identifier: MIT */
/*
 * pos.c - Partial Order Sampling (Yuan, Yang, Gu, "Partial Order Aware
 * Concurrency Sampling", CAV 2018).
 *
 * Random walk samples partial orders very unevenly: two racing accesses
 * far apart in their threads are almost never reordered, because every
 * step in between is an independent chance to run the first one.  POS
 * instead gives every pending event a random priority and always runs the
 * highest; after an event runs, the event that replaces it and every
 * pending event that races with it (pr_dependent on their announced
 * accesses) draw fresh priorities.  Events that do not race keep theirs,
 * so the outcome of a race depends only on the racing events' draws and
 * each order of a race comes out with probability close to 1/2 however
 * long the paths around it are -- the paper's bound is per partial order,
 * not per interleaving.
 *
 * A process here is a context or an injectable event, numbered as in
 * dependence.h.  A context's pending event is the access announced by the
 * yield point where it stopped (pr_sched_pending).
 *
 * Injected events (interrupts) are not prioritised.  Their delivery races
 * with every step of the context they interrupt, so under POS's rule each
 * of those steps would redraw the interrupt's priority and it would
 * arrive within the first few steps nearly always.  They arrive instead
 * at a random step over the estimated run length k (arrival.h).  The
 * handler's own steps are steps of its context and take part in POS like
 * any other.
 *
 * Every decision among two or more contexts is a draw, so the budget is
 * one step; with one context it runs until the next arrival (the runtime
 * asks again as soon as the enabled set changes).  The randomness is a
 * function of (seed, run) alone and the decisions are recorded like any
 * other strategy's, so a failing run replays from its trace.
 */
#include "runtime/tsan.h"
#include "runtime/rng.h"
#include "strategy/arrival.h"
#include "strategy/dependence.h"
#include "strategy/strategy.h"

#include <stdlib.h>

struct pos_strategy {
	struct pr_strategy base;
	struct pr_rng rng;
	uint64_t prio[PR_MAX_CTX];
	struct pr_arrivals arr;
	struct pr_event ev[PR_MAX_CHOICES];
};

PR_NO_TSAN static void pos_begin(struct pr_strategy *s, uint64_t seed, uint64_t run)
{
	struct pos_strategy *p = (struct pos_strategy *)s;

	pr_rng_seed(&p->rng, seed, run, 4);
	for (int i = 0; i < PR_MAX_CTX; i++)
		p->prio[i] = pr_rng_next(&p->rng);
	pr_arrivals_draw(&p->arr, &p->rng);
}

PR_NO_TSAN static int pos_pick(struct pr_strategy *s, const struct pr_choices *cs,
			       int64_t *budget)
{
	struct pos_strategy *p = (struct pos_strategy *)s;
	int best = -1, nctx = 0, ev;

	for (int i = 0; i < cs->n; i++)
		if (cs->c[i].inject < 0) {
			nctx++;
			if (best < 0 || p->prio[cs->c[i].ctx] >
					p->prio[cs->c[best].ctx])
				best = i;
		}
	ev = pr_arrivals_pick(&p->arr, &p->rng, cs, nctx);
	if (ev >= 0) {
		*budget = 1;
		return ev;
	}
	if (nctx == 1) {
		*budget = pr_arrivals_budget(&p->arr, cs);
		return best;
	}
	/*
	 * The chosen event runs now: the events that race with it draw
	 * again (in choice order, so the draws are reproducible), and so
	 * does the event its process announces next.
	 */
	pr_event_begin(&p->ev[best], pr_choice_code(&cs->c[best]));
	for (int i = 0; i < cs->n; i++) {
		if (i == best || cs->c[i].inject >= 0)
			continue;
		pr_event_begin(&p->ev[i], pr_choice_code(&cs->c[i]));
		if (pr_dependent(&p->ev[best], &p->ev[i]))
			p->prio[cs->c[i].ctx] = pr_rng_next(&p->rng);
	}
	p->prio[cs->c[best].ctx] = pr_rng_next(&p->rng);
	*budget = 1;
	return best;
}

PR_NO_TSAN static void pos_end(struct pr_strategy *s, uint64_t steps)
{
	(void)s;
	(void)steps;
}

PR_NO_TSAN static void pos_destroy(struct pr_strategy *s)
{
	free(s);
}

static const struct pr_strategy_ops pos_ops = {
	.name = "pos",
	.begin_run = pos_begin,
	.pick = pos_pick,
	.end_run = pos_end,
	.destroy = pos_destroy,
};

PR_NO_TSAN struct pr_strategy *pr_pos_create(const struct pr_strategy_params *params)
{
	struct pos_strategy *p;

	if (params->pct_steps < 1)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->base.ops = &pos_ops;
	p->arr.k = params->pct_steps;
	return &p->base;
}
