/* SPDX-License-Identifier: MIT */
/*
 * random.c - uniform random scheduling.
 *
 * Semantically, at every yield point the next step is taken by a choice
 * drawn uniformly from the n enabled ones.  Consulting the generator at
 * every step would put it on the hot path, so the strategy draws instead
 * how long the chosen context keeps running: each step stays with
 * probability 1/n, so the budget b satisfies P(b > k) = n^-k exactly
 * (geometric), and when it runs out the switch goes uniformly to one of
 * the other n - 1.  The runtime consults early whenever the enabled set
 * changes; the geometric law is memoryless, so the distribution of
 * schedules is exactly that of per-step uniform choice.
 *
 * One 64-bit draw serves a decision (draws were ~20% of a run when each
 * step took one), from splitmix64 (rng.h; Java's SplittableRandom): one counter,
 * one add and three mixing rounds a draw, seeded by hashing (seed, run),
 * where xoshiro256** keeps and seeds four words.  Its low 32 bits give the choice by Lemire's multiply-and-reject
 * (exactly uniform over the c candidates); its high 32 bits give a number
 * z exactly uniform over [0, n^K), n^K <= 2^16, the same way.  Read as K
 * base-n digits, z's digits are independent and uniform, and a step
 * "stays" when its digit is 0: the budget is 1 + the number of leading
 * zero digits, counted by comparing z with n^(K-1), n^(K-2), ...  (integer
 * thresholds: no floating point, no libm).  All K digits zero (probability
 * n^-K) continues on a fresh draw.  A draw either half rejects (probability
 * below 2^-16) is thrown away whole, so both halves stay exact and
 * independent.
 *
 * The calibration walker (pr_random_calibration_create) draws once for
 * the choice and once for each step of the budget (~2.5 draws a
 * decision), the same law: PCT's k, hence every pct, pos, surw and
 * portfolio schedule, is measured with it, and stays independent of how
 * random draws.
 */
#include "runtime/tsan.h"
#include "runtime/rng.h"
#include "strategy/strategy.h"

#include <stdlib.h>

/* Powers of n for the budget's digits: n^K <= 2^GEO_BITS. */
#define GEO_BITS	16
#define GEO_TABLE	65	/* n up to 64 precomputed; more: on demand */

struct geo {
	uint32_t n_k;		/* n^K */
	uint32_t reject;	/* 2^32 mod n^K: Lemire's rejection bound */
	int k;			/* K, the digits a draw gives */
	uint32_t top;		/* n^(K-1): z below it has a leading 0 digit */
	uint32_t pw2;		/* n^(K-2) (0 if K < 2): and below it, two */
	uint32_t pw[GEO_BITS];	/* pw[j] = n^j, j < K */
};

struct random_strategy {
	struct pr_strategy base;
	uint64_t x;		/* splitmix64's counter (random_pick) */
	struct pr_rng rng;	/* xoshiro256** (the calibration walk) */
	int switch_due;		/* the last budget ended in a switch */
	struct geo geo[GEO_TABLE];
	struct geo spare;	/* n >= GEO_TABLE, the last such n */
	uint64_t spare_n;
};

PR_NO_TSAN __attribute__((noinline)) static void geo_init(struct geo *g, uint64_t n)
{
	uint64_t p = 1;

	g->k = 0;
	while (p * n <= ((uint64_t)1 << GEO_BITS)) {
		g->pw[g->k++] = (uint32_t)p;
		p *= n;
	}
	if (g->k == 0) {	/* n > 2^16: one digit per draw */
		g->pw[g->k++] = 1;
		p = n;
	}
	g->n_k = (uint32_t)p;
	g->top = g->pw[g->k - 1];
	g->pw2 = g->k >= 2 ? g->pw[g->k - 2] : 0;
	g->reject = (uint32_t)(((uint64_t)1 << 32) % p);
}

PR_NO_TSAN static const struct geo *geo_for(struct random_strategy *r,
					    uint64_t n)
{
	if (n < GEO_TABLE)
		return &r->geo[n];
	if (r->spare_n != n) {
		geo_init(&r->spare, n);
		r->spare_n = n;
	}
	return &r->spare;
}

/* Exactly uniform over [0, g->n_k), from the high half of draws. */
PR_NO_TSAN static uint32_t geo_digits(struct random_strategy *r,
				      const struct geo *g)
{
	for (;;) {
		uint64_t m = (pr_splitmix64(&r->x) >> 32) * g->n_k;

		if ((uint32_t)m >= g->reject)
			return (uint32_t)(m >> 32);
	}
}

/*
 * Lemire's tests on both halves of draw @u, drawing again while either
 * fails.  Returns the choice (below @c) in the low 32 bits, z (below
 * n^K) in the high.
 */
PR_NO_TSAN static uint64_t
redraw(struct random_strategy *r, uint32_t c, const struct geo *g, uint64_t u)
{
	for (;;) {
		uint64_t m1 = (uint64_t)(uint32_t)u * c;
		uint64_t m2 = (u >> 32) * g->n_k;

		if (((uint32_t)m1 >= c || (uint32_t)m1 >= (uint32_t)-c % c) &&
		    (uint32_t)m2 >= g->reject)
			return (m1 >> 32) | (m2 >> 32 << 32);
		u = pr_splitmix64(&r->x);
	}
}

/*
 * The budget when z's top digit is 0: 1 + its leading zero digits.  The
 * caller may know the top digits already: @b is 1 + the zero digits it
 * counted, @j the next digit to test (1, K - 1: none known).
 */
PR_NO_TSAN __attribute__((noinline)) static int64_t
long_budget(struct random_strategy *r, const struct geo *g, uint32_t z,
	    int64_t b, int j)
{
	for (;;) {
		for (; j >= 0 && z < g->pw[j]; j--)
			b++;
		if (j >= 0 || b >= PR_BUDGET_UNBOUNDED)
			return b < PR_BUDGET_UNBOUNDED ? b : PR_BUDGET_UNBOUNDED;
		z = geo_digits(r, g);	/* all K digits 0: on */
		j = g->k - 1;
	}
}

PR_NO_TSAN static void random_begin(struct pr_strategy *s, uint64_t seed, uint64_t run)
{
	struct random_strategy *r = (struct random_strategy *)s;

	/* pr_rng_seed's first step: a counter that is a hash of (seed, run). */
	r->x = seed ^ pr_splitmix64(&run) ^ 0xd1b54a32d192ed03ULL;
	r->switch_due = 0;
}

PR_NO_TSAN static void random_begin_v1(struct pr_strategy *s, uint64_t seed,
				       uint64_t run)
{
	struct random_strategy *r = (struct random_strategy *)s;

	pr_rng_seed(&r->rng, seed, run, 1);
	r->switch_due = 0;
}

/*
 * The whole law for any n >= 2, from first draw @u: what random_pick
 * does when its straight path does not apply (n past the table, a
 * rejected half, a budget of 3 steps or more).
 */
PR_NO_TSAN __attribute__((noinline)) static int
pick_general(struct random_strategy *r, const struct pr_choices *cs,
	     int64_t *budget, uint64_t u)
{
	uint32_t n = (uint32_t)cs->n, c, idx;
	const struct geo *g = geo_for(r, n);
	int other;

	/* The step after a budget: one of the other n - 1. */
	other = r->switch_due && cs->reason == PR_R_BUDGET && cs->current >= 0;
	c = n - (uint32_t)other;
	u = redraw(r, c, g, u);
	idx = (uint32_t)u;
	if (other && idx >= (uint32_t)cs->current)
		idx++;
	*budget = long_budget(r, g, (uint32_t)(u >> 32), 1, g->k - 1);
	r->switch_due = 1;
	return (int)idx;
}

/*
 * random_pick's ending for a budget of 3 steps or more: z's first two
 * digits are 0.  Out of line and reached by a tail call, so that the
 * straight path needs no stack frame.
 */
PR_NO_TSAN __attribute__((noinline)) static int
pick_long(struct random_strategy *r, const struct geo *g, uint32_t z,
	  uint32_t idx, int64_t *budget)
{
	*budget = long_budget(r, g, z, 3, g->k - 3);
	r->switch_due = 1;
	return (int)idx;
}

PR_NO_TSAN static int random_pick(struct pr_strategy *s, const struct pr_choices *cs,
		       int64_t *budget)
{
	struct random_strategy *r = (struct random_strategy *)s;
	uint32_t n = (uint32_t)cs->n, c, idx, z;
	const struct geo *g;
	uint64_t u, m1, m2;
	int other;

	if (n == 1) {
		*budget = PR_BUDGET_UNBOUNDED;
		r->switch_due = 0;
		return 0;
	}
	u = pr_splitmix64(&r->x);
	if (__builtin_expect(n >= GEO_TABLE, 0))
		return pick_general(r, cs, budget, u);
	other = r->switch_due && cs->reason == PR_R_BUDGET && cs->current >= 0;
	c = n - (uint32_t)other;
	g = &r->geo[n];
	m1 = (uint64_t)(uint32_t)u * c;
	m2 = (u >> 32) * g->n_k;
	z = (uint32_t)(m2 >> 32);
	/*
	 * Lemire's bound 2^32 mod c is below c, so a low product >= c needs
	 * no division; a budget of 1 or 2 steps is read off z's first two
	 * digits (n <= 64 gives K >= 2), a longer one counted on from the
	 * third digit, as pick_general would from the same draw (one
	 * decision in eight, on the spec-get micro test).  A rejected
	 * half: pick_general, from the same draw.
	 */
	if (__builtin_expect((uint32_t)m1 < c || (uint32_t)m2 < g->reject, 0))
		return pick_general(r, cs, budget, u);
	idx = (uint32_t)(m1 >> 32);
	if (other && idx >= (uint32_t)cs->current)
		idx++;
	if (__builtin_expect(z < g->pw2, 0))
		return pick_long(r, g, z, idx, budget);
	*budget = z >= g->top ? 1 : 2;
	r->switch_due = 1;
	return (int)idx;
}

/*
 * The walk as it was before one draw a decision: PCT's calibration
 * (pct.c) measures k with it, so calibrated strategies keep their
 * schedules.  Same law as random_pick, more draws.
 */
PR_NO_TSAN static int random_pick_v1(struct pr_strategy *s,
				     const struct pr_choices *cs,
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

static const struct pr_strategy_ops random_v1_ops = {
	.name = "random-calibration",
	.begin_run = random_begin_v1,
	.pick = random_pick_v1,
	.end_run = random_end,
	.destroy = random_destroy,
};

PR_NO_TSAN struct pr_strategy *pr_random_create(void)
{
	struct random_strategy *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->base.ops = &random_ops;
	for (uint64_t n = 2; n < GEO_TABLE; n++)	/* n 1 draws nothing */
		geo_init(&r->geo[n], n);
	return &r->base;
}

PR_NO_TSAN struct pr_strategy *pr_random_calibration_create(void)
{
	struct random_strategy *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->base.ops = &random_v1_ops;
	return &r->base;
}
