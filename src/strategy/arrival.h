/* SPDX-License-Identifier: MIT */
/*
 * arrival.h - when an injected event (interrupt) arrives, for samplers
 * that order contexts by other means (pos.c; surw.c counts the arrival
 * in the interrupted context's own steps instead).
 *
 * An interrupt is enabled at nearly every decision of the context it
 * targets.  A sampler that treats it as one more choice per step (a
 * random walk, or POS, whose rule redraws it at every step of that
 * context) delivers it within the first few steps nearly always, and a
 * window deep in the path is almost never hit.  These samplers instead
 * give it PCT's treatment (pct.c): an arrival step uniform over the
 * estimated run length k, delivery at the first decision at or after it
 * where its CPU accepts it, and a fresh arrival after each delivery of a
 * repeatable event.  A window of one step is then hit with probability
 * 1/k per run.
 */
#ifndef PAGERACE_STRATEGY_ARRIVAL_H
#define PAGERACE_STRATEGY_ARRIVAL_H

#include "runtime/context.h"
#include "runtime/rng.h"
#include "runtime/tsan.h"
#include "strategy/strategy.h"

struct pr_arrivals {
	uint64_t k;
	uint64_t at[PR_MAX_INJECT];	/* next arrival step per event */
};

PR_NO_TSAN static inline void pr_arrivals_draw(struct pr_arrivals *a,
					       struct pr_rng *rng)
{
	for (int i = 0; i < PR_MAX_INJECT; i++)
		a->at[i] = 1 + pr_rng_below(rng, a->k);
}

/*
 * The choice to take now: a due event, the earliest due first; failing
 * that, when no context is enabled (@nctx 0), the event arriving first.
 * Draws the chosen event's next arrival.  -1: none.
 */
PR_NO_TSAN static inline int pr_arrivals_pick(struct pr_arrivals *a,
					      struct pr_rng *rng,
					      const struct pr_choices *cs,
					      int nctx)
{
	int best = -1;

	for (int i = 0; i < cs->n; i++) {
		int e = cs->c[i].inject;

		if (e < 0 || (nctx && a->at[e] > cs->step))
			continue;
		if (best < 0 || a->at[e] < a->at[cs->c[best].inject])
			best = i;
	}
	if (best >= 0)
		a->at[cs->c[best].inject] = cs->step + 1 + pr_rng_below(rng, a->k);
	return best;
}

/* Steps until the next arrival among the enabled events: a budget. */
PR_NO_TSAN static inline int64_t pr_arrivals_budget(const struct pr_arrivals *a,
						    const struct pr_choices *cs)
{
	uint64_t next = UINT64_MAX;

	for (int i = 0; i < cs->n; i++) {
		int e = cs->c[i].inject;

		if (e >= 0 && a->at[e] > cs->step && a->at[e] < next)
			next = a->at[e];
	}
	return next == UINT64_MAX ? PR_BUDGET_UNBOUNDED
				  : (int64_t)(next - cs->step);
}

#endif /* PAGERACE_STRATEGY_ARRIVAL_H */
