/* SPDX-License-Identifier: MIT */
/*
 * random.c - uniform random scheduling.
 *
 * Semantically, at every yield point the next step is taken by a choice
 * drawn uniformly from the enabled ones.  Consulting the generator at
 * every step would put it on the hot path, so the strategy draws instead
 * how long the chosen context keeps running: with n choices each step
 * stays with probability 1/n, so the number of steps before a switch is
 * geometric, and the switch then goes uniformly to one of the other n-1.
 * The runtime consults early whenever the enabled set changes, so the
 * distribution of schedules is exactly that of per-step uniform choice.
 */
#include "runtime/tsan.h"
#include "runtime/rng.h"
#include "strategy/strategy.h"

#include <stdlib.h>

struct random_strategy {
	struct pr_strategy base;
	struct pr_rng rng;
	int switch_due;		/* the last budget ended in a switch */
};

PR_NO_TSAN static void random_begin(struct pr_strategy *s, uint64_t seed, uint64_t run)
{
	struct random_strategy *r = (struct random_strategy *)s;

	pr_rng_seed(&r->rng, seed, run, 1);
	r->switch_due = 0;
}

PR_NO_TSAN static int random_pick(struct pr_strategy *s, const struct pr_choices *cs,
		       int64_t *budget)
{
	struct random_strategy *r = (struct random_strategy *)s;
	uint64_t n = (uint64_t)cs->n;
	int64_t b = 1;
	int idx;

	if (r->switch_due && cs->reason == PR_R_BUDGET && cs->current >= 0 &&
	    n > 1) {
		uint64_t k = pr_rng_below(&r->rng, n - 1);

		idx = (int)k < cs->current ? (int)k : (int)k + 1;
	} else {
		idx = (int)pr_rng_below(&r->rng, n);
	}
	if (n == 1) {
		*budget = PR_BUDGET_UNBOUNDED;
		r->switch_due = 0;
		return idx;
	}
	while (pr_rng_below(&r->rng, n) == 0 && b < PR_BUDGET_UNBOUNDED)
		b++;
	*budget = b;
	r->switch_due = 1;
	return idx;
}

PR_NO_TSAN static void random_end(struct pr_strategy *s, uint64_t steps)
{
	(void)s;
	(void)steps;
}

PR_NO_TSAN static void random_destroy(struct pr_strategy *s)
{
	free(s);
}

static const struct pr_strategy_ops random_ops = {
	.name = "random",
	.begin_run = random_begin,
	.pick = random_pick,
	.end_run = random_end,
	.destroy = random_destroy,
};

PR_NO_TSAN struct pr_strategy *pr_random_create(void)
{
	struct random_strategy *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->base.ops = &random_ops;
	return &r->base;
}
