/* SPDX-License-Identifier: MIT */
/*
 * witness.c - a sampler steered towards an outcome: random scheduling
 * whose coins are weighted by a scorer the caller supplies (the litmus
 * command's, src/litmus/witness.c, which knows the values the test's
 * exists clause wants each load to return).
 *
 * At every step (budget 1) each enabled choice -- a context, a delivery,
 * a store-buffer flush, a load reading an older value: the strategy sees
 * memory -- gets a score: PR_WITNESS_AVOID (weight 0: it would spoil
 * the outcome, e.g. a load returning a value the condition does not
 * want), PR_WITNESS_SLOW (1: better later), PR_WITNESS_NEUTRAL (4) or
 * PR_WITNESS_PREFER (16).  The choice is drawn with those weights.
 * When every choice is avoided the run is abandoned (PR_PICK_ABANDON):
 * an avoided choice spoils the outcome, so the run is hopeless, and
 * finishing it (as when such a state drew uniformly among all choices)
 * only spent time the next run can use.  So an avoided load waits
 * for the value it wants, which is the "await" program the goal wants
 * (every run of it is a run of the test); nothing here claims any
 * coverage: only a finished search says an outcome is unreachable.
 * In every other run each context also gets a priority for the whole
 * run (below).  So a run is an ordinary run of the model -- every
 * choice is one the scheduler offered -- recorded as a schedule that
 * `pagerace replay` re-executes like any other; only the odds differ.
 * The coins derive from (seed, run) alone (splitmix64, runtime/rng.h).
 */
#include "runtime/rng.h"
#include "runtime/tsan.h"
#include "strategy/strategy.h"

#include <stdlib.h>
#include <string.h>

#define PR_WITNESS_CTX	256	/* a choice's ctx is a uint8_t */

/* The weight of each score. */
static const uint8_t weight[] = { 0, 1, 4, 16 };

struct witness_strategy {
	struct pr_strategy base;
	pr_choice_score score;
	void *arg;
	uint64_t x;		/* splitmix64's counter */
	uint8_t shift[PR_WITNESS_CTX];	/* this run's weight shifts */
};

PR_NO_TSAN static void witness_begin(struct pr_strategy *s, uint64_t seed,
				     uint64_t run)
{
	struct witness_strategy *w = (struct witness_strategy *)s;

	w->x = seed ^ pr_splitmix64(&run) ^ 0x5851f42d4c957f2dULL;
	/*
	 * Every other run, priorities: each context's weights scaled by
	 * 4^k, k uniform in 0..7 for the run.  A ring's witness often
	 * needs one process held back for most of the run (a reader's
	 * section that must begin after some grace period began), which
	 * per-step coins almost never do; a low priority does it, and a
	 * context whose every choice is avoided still waits whatever its
	 * priority (0 scales to 0).
	 */
	if (pr_splitmix64(&w->x) & 1)
		for (int i = 0; i < PR_WITNESS_CTX; i++)
			w->shift[i] = (uint8_t)(2 * (pr_splitmix64(&w->x) & 7));
	else
		memset(w->shift, 0, sizeof(w->shift));
}

/* Uniform below @n (n >= 1), Lemire's multiply-and-reject. */
PR_NO_TSAN static uint32_t below(struct witness_strategy *w, uint32_t n)
{
	for (;;) {
		uint64_t m = (uint64_t)(uint32_t)pr_splitmix64(&w->x) * n;

		if ((uint32_t)m >= (uint32_t)-n % n)
			return (uint32_t)(m >> 32);
	}
}

PR_NO_TSAN static int witness_pick(struct pr_strategy *s,
				   const struct pr_choices *cs, int64_t *budget)
{
	struct witness_strategy *w = (struct witness_strategy *)s;
	uint32_t wt[PR_MAX_CHOICES];
	uint32_t total = 0, r;

	*budget = 1;
	if (cs->n <= 1)
		return 0;
	for (int i = 0; i < cs->n; i++) {
		int sc = w->score ? w->score(w->arg, cs, i) : PR_WITNESS_NEUTRAL;

		wt[i] = (uint32_t)weight[sc <= PR_WITNESS_AVOID ? PR_WITNESS_AVOID :
					 sc >= PR_WITNESS_PREFER ?
					 PR_WITNESS_PREFER : sc]
			<< w->shift[cs->c[i].ctx];
		total += wt[i];
	}
	if (!total)
		return PR_PICK_ABANDON;
	r = below(w, total);
	for (int i = 0; i < cs->n; i++) {
		if (r < wt[i])
			return i;
		r -= wt[i];
	}
	return cs->n - 1;	/* not reached */
}

PR_NO_TSAN static void witness_end(struct pr_strategy *s, uint64_t steps)
{
	(void)s;
	(void)steps;
}

PR_NO_TSAN static void witness_destroy(struct pr_strategy *s)
{
	free(s);
}

static const struct pr_strategy_ops witness_ops = {
	.name = "witness",
	.begin_run = witness_begin,
	.pick = witness_pick,
	.end_run = witness_end,
	.destroy = witness_destroy,
	.sees_memory = 1,
};

PR_NO_TSAN struct pr_strategy *pr_witness_create(pr_choice_score score,
						 void *arg)
{
	struct witness_strategy *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->base.ops = &witness_ops;
	w->score = score;
	w->arg = arg;
	return &w->base;
}
