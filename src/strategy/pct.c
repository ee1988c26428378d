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
 * spinner never starves the context it waits for.
 *
 * Injected events (interrupts) are not prioritised like contexts: each
 * gets a random arrival step in [1, k], like a change point, and is
 * delivered at the first decision at or after it where its CPU accepts
 * it (a pending interrupt waits for interrupts to be enabled).  A
 * repeatable event draws its next arrival after each delivery.  So an
 * interrupt lands inside a one-step window with probability 1/k, which is
 * what PCT's analysis charges for a change point.
 */
#include "runtime/tsan.h"
#include "runtime/context.h"
#include "runtime/run.h"
#include "runtime/rng.h"
#include "strategy/strategy.h"

#include <stdlib.h>

#define PCT_MAX_DEPTH	16
/*
 * The draws of a run are a function of these two, so they stay at the
 * 16 contexts and 16 events PCT was first written for: every stored PCT
 * trace (named -seedN-runM) keeps its schedule.  A run with more contexts
 * or events ranks the extra ones on a stream of their own (pct_widen).
 */
#define PCT_BASE_CTX	16
#define PCT_BASE_INJ	16
#define PCT_BASE_SLOTS	(PCT_BASE_CTX + PCT_BASE_INJ)
#define PCT_SLOTS	(PR_MAX_CTX + PR_MAX_INJECT)

struct pct_strategy {
	struct pr_strategy base;
	struct pr_rng rng;
	int depth;
	uint64_t k;
	int64_t prio[PCT_SLOTS];
	uint64_t arrival[PR_MAX_INJECT];	/* next arrival step per event */
	uint64_t change[PCT_MAX_DEPTH];
	int nchange, next_change;
	int64_t lowest;		/* next priority for a deprioritised choice */
	uint64_t seed, run;
	int wide;		/* the extra slots are ranked (pct_widen) */
};

/* Slots 0..31 as PCT always numbered them; wider runs' extras after. */
PR_NO_TSAN static int slot_of(const struct pr_choice *c)
{
	if (c->inject < 0)
		return c->ctx < PCT_BASE_CTX ? c->ctx
			: PCT_BASE_SLOTS + c->ctx - PCT_BASE_CTX;
	return c->inject < PCT_BASE_INJ ? PCT_BASE_CTX + c->inject
		: PCT_BASE_SLOTS + PR_MAX_CTX - PCT_BASE_CTX + c->inject -
		  PCT_BASE_INJ;
}

/*
 * A run with more than 16 contexts or events: rank the extra slots too.
 * Inserting each at a uniform position among the ranks so far extends
 * the first 32 slots' uniform permutation to a uniform permutation of
 * all, keeping their relative order, so the base slots compare exactly
 * as before; the draws come from a stream of their own and leave the
 * run's main stream (change points, arrivals) untouched.
 */
PR_NO_TSAN static void pct_widen(struct pct_strategy *p)
{
	struct pr_rng r;
	int n = PCT_BASE_SLOTS;

	pr_rng_seed(&r, p->seed, p->run, 3);
	for (int x = PCT_BASE_SLOTS; x < PCT_SLOTS; x++, n++) {
		int64_t pos = p->depth + (int64_t)pr_rng_below(&r, (uint64_t)n + 1);

		for (int i = 0; i < x; i++)
			if (p->prio[i] >= pos)
				p->prio[i]++;
		p->prio[x] = pos;
	}
	for (int i = PCT_BASE_INJ; i < PR_MAX_INJECT; i++)
		p->arrival[i] = 1 + pr_rng_below(&r, p->k);
	p->wide = 1;
}

PR_NO_TSAN static void pct_begin(struct pr_strategy *s, uint64_t seed, uint64_t run)
{
	struct pct_strategy *p = (struct pct_strategy *)s;
	int perm[PCT_BASE_SLOTS];

	pr_rng_seed(&p->rng, seed, run, 2);
	p->seed = seed;
	p->run = run;
	p->wide = 0;
	/* A uniform random permutation (Fisher-Yates) of d .. d+SLOTS-1. */
	for (int i = 0; i < PCT_BASE_SLOTS; i++)
		perm[i] = i;
	for (int i = PCT_BASE_SLOTS - 1; i > 0; i--) {
		int j = (int)pr_rng_below(&p->rng, (uint64_t)i + 1);
		int t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (int i = 0; i < PCT_BASE_SLOTS; i++)
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
	for (int i = 0; i < PCT_BASE_INJ; i++)
		p->arrival[i] = 1 + pr_rng_below(&p->rng, p->k);
}

PR_NO_TSAN static int pct_pick(struct pr_strategy *s, const struct pr_choices *cs,
		    int64_t *budget)
{
	struct pct_strategy *p = (struct pct_strategy *)s;
	uint64_t next = UINT64_MAX;
	int best = -1;

	if (!p->wide && cs->reason == PR_R_START &&
	    (pr_nr_ctx() > PCT_BASE_CTX || pr_nr_inject() > PCT_BASE_INJ))
		pct_widen(p);
	if (cs->prev_ctx >= 0 && cs->reason == PR_R_SPIN)
		p->prio[slot_of(&(struct pr_choice){ .ctx = (uint8_t)cs->prev_ctx,
						     .inject = -1, .mem = -1 })] = p->lowest--;
	while (p->next_change < p->nchange &&
	       cs->step >= p->change[p->next_change]) {
		if (cs->prev_ctx >= 0)
			p->prio[slot_of(&(struct pr_choice){
				.ctx = (uint8_t)cs->prev_ctx, .inject = -1, .mem = -1 })] =
				p->depth - 1 - p->next_change;
		p->next_change++;
	}
	/* A due event goes first, the earliest due first. */
	for (int i = 0; i < cs->n; i++) {
		int e = cs->c[i].inject;

		if (e >= 0 && p->arrival[e] <= cs->step &&
		    (best < 0 || p->arrival[e] < p->arrival[cs->c[best].inject]))
			best = i;
	}
	if (best >= 0) {
		int e = cs->c[best].inject;

		p->arrival[e] = cs->step + 1 + pr_rng_below(&p->rng, p->k);
	} else {
		for (int i = 0; i < cs->n; i++) {
			if (cs->c[i].inject >= 0)
				continue;
			if (best < 0 || p->prio[slot_of(&cs->c[i])] >
					p->prio[slot_of(&cs->c[best])])
				best = i;
		}
		if (best < 0)	/* only events enabled, none due yet */
			for (int i = 0; i < cs->n; i++)
				if (best < 0 || p->arrival[cs->c[i].inject] <
						p->arrival[cs->c[best].inject])
					best = i;
	}
	/* Consult again at the next change point or event arrival. */
	if (p->next_change < p->nchange)
		next = p->change[p->next_change];
	for (int i = 0; i < cs->n; i++) {
		int e = cs->c[i].inject;

		if (e >= 0 && p->arrival[e] > cs->step && p->arrival[e] < next)
			next = p->arrival[e];
	}
	*budget = next == UINT64_MAX ? PR_BUDGET_UNBOUNDED
				     : (int64_t)(next - cs->step);
	return best;
}

PR_NO_TSAN static void pct_end(struct pr_strategy *s, uint64_t steps)
{
	(void)s;
	(void)steps;
}

PR_NO_TSAN static void pct_destroy(struct pr_strategy *s)
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

PR_NO_TSAN struct pr_strategy *pr_pct_create(const struct pr_strategy_params *params)
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

/*
 * PCT needs the run length k.  Measure it the same way everywhere: the
 * longest of a few random runs reserved for calibration (run indexes
 * counted down from the top, never explored), so k depends on the program
 * and the seed alone, not on which runs a process explores, nor on the
 * flavour: under pagerace-tsan the calibration runs are blind to
 * ThreadSanitizer (tsan_blind), so a data race does not cut one short and
 * k, hence every PCT schedule, is the plain build's.
 */
PR_NO_TSAN uint64_t pr_pct_calibrate(const struct pr_program *prog,
			  const struct pr_run_options *opts, uint64_t seed)
{
	struct pr_strategy *r = pr_random_calibration_create();
	struct pr_run_result res;
	struct pr_run_options o = *opts;
	uint64_t k = 1;

	if (!r)
		return 100;
	o.tsan_blind = 1;
	for (uint64_t i = 0; i < 4; i++) {
		pr_run_once(prog, r, &o, seed, UINT64_MAX - i, NULL, &res);
		if (res.steps > k)
			k = res.steps;
	}
	r->ops->destroy(r);
	return k;
}
