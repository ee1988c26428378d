/* SPDX-License-Identifier: MIT */
/*
 * surw.c - Selectively Uniform Random Walk (Zhao, Wolff, Mathur,
 * Roychoudhury, "Selectively Uniform Concurrency Testing", ASPLOS 2025).
 *
 * A random walk picks the next step uniformly among the enabled contexts,
 * which makes interleavings where one context runs far ahead of the
 * others exponentially unlikely.  A uniform random walk (URW) instead
 * picks context c with probability proportional to the number of events c
 * has left; given exact counts, every interleaving is equally likely.
 * SURW applies that to the events that matter only: the interesting
 * events (here: accesses to objects that more than one context touches,
 * one of them writing) are interleaved by URW over their counts, and the
 * other steps run in between (a plain random walk in the paper; weighted
 * here, below).  An interesting step
 * waits until it is the "intended" one: a context drawn with weight equal
 * to its remaining interesting events; the others go on with their
 * uninteresting steps meanwhile.
 *
 * What is interesting and how many such events each context makes are
 * learnt, as in the paper and in Fray, from trial runs: SURW_TRIALS random
 * walks, then one serial run per context with that context last, with
 * run indexes reserved for this (counted down from the top, never
 * explored), so the result is a function of the program and the
 * seed alone, like PCT's k (pr_surw_learn; explore calls it before the
 * first run).  A racing object gives a group: the sites (yield points)
 * that accessed it and each context's count.  Objects are told apart
 * within a trial only; across runs a site stands for its accesses.
 *
 * Selective: each run interleaves a random subset of the groups, small
 * ones likeliest (surw_subset), so the events of one race are not
 * diluted by those of every other: the paper's point that uniform over a
 * chosen subset beats uniform over everything.
 *
 * Interrupts arrive at a random step of the path of the context they
 * interrupt (surw_event).  Every decision is a draw (budget one step).
 * The randomness is a function of (seed, run) and of the trials,
 * themselves a function of the seed; the decisions are recorded like any
 * other strategy's and replay alone.
 */
#include "runtime/tsan.h"
#include "runtime/rng.h"
#include "runtime/run.h"
#include "strategy/strategy.h"

#include <stdlib.h>
#include <string.h>

#define SURW_TRIALS	4
#define SURW_MAX_SITES	256		/* distinct racing sites */
#define SURW_MAX_GROUPS	32		/* racing objects (site sets) */
#define SURW_LOG	4096		/* accesses recorded per trial */
#define SURW_HASH	1024		/* site lookup table, a power of 2 */
#define SURW_WORDS	(SURW_MAX_SITES / 64)

struct surw_access {
	const struct pr_site *site;
	const void *obj;
	uint8_t ctx;
	uint8_t writes;
};

struct surw_group {
	uint64_t sites[SURW_WORDS];	/* bit per site index */
	uint32_t count[PR_MAX_CTX];	/* accesses per context (trial max) */
};

struct surw_strategy {
	struct pr_strategy base;
	struct pr_rng rng;
	/* What the trials learnt. */
	const struct pr_site *site[SURW_MAX_SITES];
	int nsite;
	int16_t hash[SURW_HASH];	/* site index + 1; 0: empty */
	struct surw_group group[SURW_MAX_GROUPS];
	int ngroup;
	uint32_t steps[PR_MAX_CTX];	/* steps per context (trial max) */
	uint32_t tsteps[PR_MAX_CTX];	/* this trial's */
	/* Learning: the trial's accesses. */
	int learning;			/* 1: random trial; 2: serial */
	int first;			/* serial: the context that goes first */
	uint32_t seen;			/* contexts seen in the trials */
	struct surw_access *log;
	int nlog;
	/* This run. */
	uint64_t on[SURW_WORDS];	/* interesting sites */
	uint32_t left[PR_MAX_CTX];	/* interesting events left, estimated */
	uint32_t rem[PR_MAX_CTX];	/* steps left, estimated */
	uint32_t done[PR_MAX_CTX];	/* steps taken */
	uint32_t due[PR_MAX_INJECT];	/* arrival, in the target's steps;
					 * 0: not drawn yet */
	int intended;			/* context whose interesting event is
					 * next, or -1 */
};

PR_NO_TSAN static unsigned surw_hash(const struct pr_site *site)
{
	uint64_t x = (uint64_t)(uintptr_t)site;

	return (unsigned)((x * 0x9e3779b97f4a7c15ULL) >> 54) & (SURW_HASH - 1);
}

/* Index of @site in the table, or -1; @add: insert it if absent. */
PR_NO_TSAN static int surw_site(struct surw_strategy *w,
				const struct pr_site *site, int add)
{
	unsigned h = surw_hash(site);

	for (;; h = (h + 1) & (SURW_HASH - 1)) {
		int i = w->hash[h] - 1;

		if (i < 0)
			break;
		if (w->site[i] == site)
			return i;
	}
	if (!add || w->nsite >= SURW_MAX_SITES)
		return -1;
	w->site[w->nsite] = site;
	w->hash[h] = (int16_t)(w->nsite + 1);
	return w->nsite++;
}

/*
 * The run's groups: a size k with probability 2^-k (k < G; G, all of
 * them, takes what is left, 2^-(G-1)), then k groups drawn uniformly.
 * Small selections first, whatever G: one group (one racing object) in
 * half the runs, so each particular one in 1/(2G) of them.  Keeping each
 * group with probability 1/2 instead (the first version) made the size
 * binomial around G/2, and a particular single group 1/2^G likely: on
 * radix-rcu-free (G = 4) the run that finds the bug wants the leaf
 * pointer's group alone (71% of such runs failed, 0% of runs with three
 * groups or more), and its p95 went 22 -> 12 over seeds 1..20; across
 * the failing scenarios every one stayed 20/20 (bench/RESULTS.md).
 */
PR_NO_TSAN static uint32_t surw_subset(struct surw_strategy *w)
{
	uint32_t chosen = 0;
	int k = 1;

	while (k < w->ngroup && (pr_rng_next(&w->rng) >> 63))
		k++;
	for (int j = 0; j < k; j++) {
		int g;

		do
			g = (int)pr_rng_below(&w->rng, (uint64_t)w->ngroup);
		while (chosen & (1u << g));
		chosen |= 1u << g;
	}
	return chosen;
}

PR_NO_TSAN static void surw_begin(struct pr_strategy *s, uint64_t seed, uint64_t run)
{
	struct surw_strategy *w = (struct surw_strategy *)s;
	uint32_t chosen = 0;

	pr_rng_seed(&w->rng, seed, run, 5);
	w->nlog = 0;
	w->intended = -1;
	memset(w->on, 0, sizeof(w->on));
	memset(w->left, 0, sizeof(w->left));
	memset(w->tsteps, 0, sizeof(w->tsteps));
	memcpy(w->rem, w->steps, sizeof(w->rem));
	memset(w->done, 0, sizeof(w->done));
	memset(w->due, 0, sizeof(w->due));
	if (w->learning || w->ngroup == 0)
		return;
	chosen = surw_subset(w);
	for (int g = 0; g < w->ngroup; g++) {
		if (!(chosen & (1u << g)))
			continue;
		for (int i = 0; i < SURW_WORDS; i++)
			w->on[i] |= w->group[g].sites[i];
		for (int c = 0; c < PR_MAX_CTX; c++)
			w->left[c] += w->group[g].count[c];
	}
}

PR_NO_TSAN static int surw_interesting(struct surw_strategy *w, int ctx)
{
	struct pr_pending p;
	int i;

	if (pr_sched_pending(ctx, &p) || !p.site)
		return 0;
	i = surw_site(w, p.site, 0);
	return i >= 0 && (w->on[i / 64] >> (i % 64) & 1);
}

/*
 * One of the choices @cand[0..n-1] (contexts), drawn with weight @wt of
 * its context, at least @floor: a context whose estimate ran out still
 * has the step in front of it.
 */
PR_NO_TSAN static int surw_weighted(struct surw_strategy *w,
				    const struct pr_choices *cs, const int *cand,
				    int n, const uint32_t *wt, uint32_t floor)
{
	uint64_t total = 0, r;

	for (int i = 0; i < n; i++) {
		uint32_t x = wt[cs->c[cand[i]].ctx];

		total += x > floor ? x : floor;
	}
	r = pr_rng_below(&w->rng, total);
	for (int i = 0; i < n; i++) {
		uint32_t x = wt[cs->c[cand[i]].ctx];

		x = x > floor ? x : floor;
		if (r < x)
			return cand[i];
		r -= x;
	}
	return cand[n - 1];
}

/*
 * Interrupts: an arrival uniform over the path of the context they
 * target, counted in that context's own steps (its length as the trials
 * measured it), rather than over the whole run as pos does (arrival.h):
 * a window of one step of that context is hit with probability 1/L for
 * a path of L steps, not 1/k for a run of k.  Drawn when the event is
 * first enabled, again after each delivery of a repeatable one.  A due
 * event goes first; when only events are enabled, the one due first.
 */
PR_NO_TSAN static int surw_event(struct surw_strategy *w,
				 const struct pr_choices *cs, int nctx)
{
	int best = -1;
	uint32_t bleft = 0;

	for (int i = 0; i < cs->n; i++) {
		int e = cs->c[i].inject, c = cs->c[i].ctx;
		uint32_t len = w->steps[c] ? w->steps[c] : 1, left;

		if (e < 0)
			continue;
		if (!w->due[e])
			w->due[e] = w->done[c] + 1 +
				    (uint32_t)pr_rng_below(&w->rng, len);
		left = w->due[e] > w->done[c] ? w->due[e] - w->done[c] : 0;
		if ((!nctx || !left) && (best < 0 || left < bleft)) {
			best = i;
			bleft = left;
		}
	}
	if (best >= 0)
		w->due[cs->c[best].inject] = 0;
	return best;
}

/* Learning: a random walk that logs the chosen context's access. */
PR_NO_TSAN static int surw_learn_pick(struct surw_strategy *w,
				      const struct pr_choices *cs,
				      int64_t *budget)
{
	int idx = (int)pr_rng_below(&w->rng, (uint64_t)cs->n);
	const struct pr_choice *c;
	struct pr_pending p;

	if (w->learning == 2) {		/* contexts in turn from w->first */
		for (int i = 0; i < cs->n; i++)
			if (cs->c[i].inject < 0 &&
			    (cs->c[idx].inject >= 0 ||
			     ((cs->c[i].ctx - w->first) & (PR_MAX_CTX - 1)) <
			     ((cs->c[idx].ctx - w->first) & (PR_MAX_CTX - 1))))
				idx = i;
	}
	c = &cs->c[idx];
	*budget = 1;
	if (c->inject < 0) {
		w->tsteps[c->ctx]++;
		w->seen |= 1u << c->ctx;
	}
	if (c->inject >= 0 || w->nlog >= SURW_LOG ||
	    pr_sched_pending(c->ctx, &p) || !p.site || !p.obj)
		return idx;
	switch (p.site->kind) {
	case PR_K_LOAD: case PR_K_ACQUIRE: case PR_K_STORE: case PR_K_RMW:
	case PR_K_LOCK: case PR_K_UNLOCK: case PR_K_RELEASE:
		break;
	default:
		return idx;
	}
	w->log[w->nlog].site = p.site;
	w->log[w->nlog].obj = p.obj;
	w->log[w->nlog].ctx = c->ctx;
	w->log[w->nlog].writes = PR_KIND_WRITES(p.site->kind);
	w->nlog++;
	return idx;
}

PR_NO_TSAN static int surw_pick(struct pr_strategy *s, const struct pr_choices *cs,
				int64_t *budget)
{
	struct surw_strategy *w = (struct surw_strategy *)s;
	int interesting[PR_MAX_CHOICES], cand[PR_MAX_CHOICES];
	int nctx = 0, ncand = 0, ev, idx, in_enabled = 0;

	if (w->learning)
		return surw_learn_pick(w, cs, budget);
	*budget = 1;
	for (int i = 0; i < cs->n; i++)
		nctx += cs->c[i].inject < 0;
	ev = surw_event(w, cs, nctx);
	if (ev >= 0)
		return ev;
	for (int i = 0; i < cs->n; i++) {
		const struct pr_choice *c = &cs->c[i];

		interesting[i] = c->inject < 0 && surw_interesting(w, c->ctx);
		if (c->inject < 0 && c->ctx == w->intended)
			in_enabled = 1;
	}
	/* Draw the next intended context, weighted by events left. */
	if (!in_enabled) {
		for (int i = 0; i < cs->n; i++)
			if (cs->c[i].inject < 0 &&
			    (w->left[cs->c[i].ctx] || interesting[i]))
				cand[ncand++] = i;
		w->intended = ncand ? cs->c[surw_weighted(w, cs, cand, ncand,
							  w->left, 1)].ctx
				    : -1;
		ncand = 0;
	}
	/*
	 * Uninteresting steps go on, an interesting one waits its turn; among
	 * those allowed, a context is drawn with weight its steps left (URW).
	 */
	for (int i = 0; i < cs->n; i++) {
		if (cs->c[i].inject >= 0)
			continue;
		if (!interesting[i] || w->intended < 0 ||
		    cs->c[i].ctx == w->intended)
			cand[ncand++] = i;
	}
	idx = surw_weighted(w, cs, cand, ncand, w->rem, 1);
	w->done[cs->c[idx].ctx]++;
	if (w->rem[cs->c[idx].ctx])
		w->rem[cs->c[idx].ctx]--;
	if (interesting[idx] && cs->c[idx].ctx == w->intended) {
		if (w->left[w->intended])
			w->left[w->intended]--;
		w->intended = -1;
	}
	return idx;
}

/* A trial is over: its racing objects become groups. */
PR_NO_TSAN static void surw_learn_end(struct surw_strategy *w)
{
	for (int i = 0; i < w->nlog; i++) {
		struct surw_group g;
		uint32_t ctxs = 0;
		int writes = 0, seen = 0, full = 0;

		/* Each object once, at its first access. */
		for (int j = 0; j < i && !seen; j++)
			seen = w->log[j].obj == w->log[i].obj;
		if (seen)
			continue;
		memset(&g, 0, sizeof(g));
		for (int j = i; j < w->nlog; j++) {
			const struct surw_access *a = &w->log[j];
			int si;

			if (a->obj != w->log[i].obj)
				continue;
			ctxs |= 1u << a->ctx;
			writes |= a->writes;
			g.count[a->ctx]++;
			si = surw_site(w, a->site, 1);
			if (si < 0)
				full = 1;
			else
				g.sites[si / 64] |= 1ULL << (si % 64);
		}
		if (full || !writes || !(ctxs & (ctxs - 1)))
			continue;	/* one context, or no writer: no race */
		for (int k = 0; k < w->ngroup; k++)
			if (!memcmp(w->group[k].sites, g.sites, sizeof(g.sites))) {
				for (int c = 0; c < PR_MAX_CTX; c++)
					if (g.count[c] > w->group[k].count[c])
						w->group[k].count[c] = g.count[c];
				seen = 1;
				break;
			}
		if (!seen && w->ngroup < SURW_MAX_GROUPS)
			w->group[w->ngroup++] = g;
	}
}

PR_NO_TSAN static void surw_end(struct pr_strategy *s, uint64_t steps)
{
	struct surw_strategy *w = (struct surw_strategy *)s;

	(void)steps;
	if (w->learning) {
		surw_learn_end(w);
		for (int c = 0; c < PR_MAX_CTX; c++)
			if (w->tsteps[c] > w->steps[c])
				w->steps[c] = w->tsteps[c];
	}
}

PR_NO_TSAN static void surw_destroy(struct pr_strategy *s)
{
	struct surw_strategy *w = (struct surw_strategy *)s;

	free(w->log);
	free(w);
}

static const struct pr_strategy_ops surw_ops = {
	.name = "surw",
	.begin_run = surw_begin,
	.pick = surw_pick,
	.end_run = surw_end,
	.destroy = surw_destroy,
};

PR_NO_TSAN struct pr_strategy *pr_surw_create(const struct pr_strategy_params *params)
{
	struct surw_strategy *w;

	if (params->pct_steps < 1)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->base.ops = &surw_ops;
	return &w->base;
}

PR_NO_TSAN int pr_surw_learn(struct pr_strategy *s, const struct pr_program *prog,
			     const struct pr_run_options *opts, uint64_t seed)
{
	struct surw_strategy *w = (struct surw_strategy *)s;
	struct pr_run_options o = *opts;
	struct pr_run_result res;

	w->log = calloc(SURW_LOG, sizeof(*w->log));
	if (!w->log)
		return -1;
	o.tsan_blind = 1;
	w->learning = 1;
	for (uint64_t i = 0; i < SURW_TRIALS; i++)
		pr_run_once(prog, s, &o, seed, UINT64_MAX - 8 - i, NULL, &res);
	/*
	 * Random trials let short contexts finish first: a reader never
	 * finds what a writer publishes late, so neither the race on it nor
	 * the reader's longer path shows.  Serial trials fill that in: the
	 * contexts one after another, each of them once the last.
	 */
	w->learning = 2;
	for (int c = 0; c < PR_MAX_CTX; c++) {
		if (!(w->seen & (1u << c)))
			continue;
		w->first = (c + 1) & (PR_MAX_CTX - 1);
		pr_run_once(prog, s, &o, seed, UINT64_MAX - 8 - SURW_TRIALS - (uint64_t)c,
			    NULL, &res);
	}
	w->learning = 0;
	free(w->log);
	w->log = NULL;
	return 0;
}
