/* SPDX-License-Identifier: MIT */
/*
 * spec_micro_pagerace.c - the cover letter's first race as a micro test,
 * with pagerace's C API (its twin for Relacy: spec_micro_relacy.cpp).
 *
 * One page: a reference count, a free flag, a cache slot.  Two speculative
 * getters (page_cache_get_speculative of seed 004, then the slot recheck)
 * and a remover (clear the slot, drop the cache's reference), 3 CPUs, every
 * shared access a yield point, sequentially consistent.
 *
 *   getter:  p = slot; if (!p) return;
 *            old = count++;                      get_page_testone
 *            if (old == 0 || (!v1 && free))      v1 lacks the PageFree test
 *                    { count--; return; }        __put_page: no free
 *            if (slot != p) { put_page(); return; }
 *            assert(!free); put_page();
 *   remover: slot = 0; put_page();
 *   put_page: old = state; do { new = old - 1; if (count(new) == 0)
 *             { assert(!free(new)); new |= FREE; } } while (!CAS(state, old, new))
 *
 * put_page is a load and a compare-and-swap loop, as in the Relacy twin
 * (Relacy has no atomic step that decrements and sets a flag on reaching
 * zero): both sides make the same accesses, so they search the same
 * interleavings (it was one RMW here, two scheduling points
 * fewer per put than Relacy's, and ~60x fewer interleavings).
 *
 * v1: G0 takes count 0->1 on the freed page, G1 1->2 and believes the page
 * live; G0 undoes (2->1); G1's recheck fails and its put_page frees the
 * page a second time.
 *
 * Prints: runs/s on the fixed protocol (random, pct; recorded, as explore
 * records), and runs to the first detection of v1 for seeds 1..20 (median,
 * min, max) under random and pct.  PCT needs depth 5 at least: the race
 * takes four preemptions at precise steps (d=3 finds nothing in 10^6 runs).
 * Usage: spec_micro_pagerace [SCALE]
 *        spec_micro_pagerace --rate RUNS   (runs/s of fixed/random only,
 *                                           for bench/peer_ratio.sh)
 */
#include "runtime/effects.h"
#include "runtime/run.h"
#include "strategy/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSEEDS	20
#define LIMIT	1000000ULL	/* runs per seed before giving up */

/* The count and PG_free share one word, so that the final put_page frees
 * the page in the same atomic step (the seeds' F3 window, between the
 * count reaching 0 and PG_free being set, is left out of this micro). */
#define FREE	0x10000
#define CNT(s)	((s) & 0xffff)

static int state, slot;
static int v1;
/*
 * put_page as one RMW (decrement, and mark the page free on reaching
 * zero, in one atomic step): the micro test's first form, which the
 * Relacy twin does not share.  Searched beside the load+CAS
 * form by systematic(); the runs/s figures use the load+CAS form only.
 */
static int put_rmw;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put_page(void)
{
	int old, nw;

	if (put_rmw) {
		PR_RMW(&state, "state");	/* atomic_dec_and_test + free */
		nw = state - 1;
		if (CNT(nw) == 0) {
			if (nw & FREE)
				pr_fail("double-free", &state, "the page is freed twice");
			nw |= FREE;
		}
		state = nw;
		return;
	}
	PR_LOAD(&state, "state");
	old = state;
	for (;;) {
		nw = old - 1;
		if (CNT(nw) == 0) {
			if (nw & FREE)
				pr_fail("double-free", &state, "the page is freed twice");
			nw |= FREE;
		}
		PR_RMW(&state, "state");	/* compare_exchange_strong */
		if (state == old) {
			state = nw;
			return;
		}
		pr_rmw_unwritten(&state);	/* failed: it only read */
		old = state;
	}
}

static void getter(void *arg)
{
	int p, old;

	(void)arg;
	PR_LOAD(&slot, "slot");
	p = slot;
	if (!p)
		return;
	PR_RMW(&state, "state");		/* get_page_testone */
	old = state++;
	if (CNT(old) == 0) {
		PR_RMW(&state, "state");	/* __put_page */
		state--;
		return;
	}
	if (!v1) {
		PR_LOAD(&state, "state");	/* PageFree */
		if (state & FREE) {
			PR_RMW(&state, "state");
			state--;
			return;
		}
	}
	PR_LOAD(&slot, "slot");
	if (slot != p) {
		put_page();
		return;
	}
	PR_LOAD(&state, "state");
	if (state & FREE)
		pr_fail("bad-lookup", &state, "the getter holds a free page");
	put_page();
}

static void remover(void *arg)
{
	(void)arg;
	PR_STORE(&slot, "slot");
	slot = 0;
	put_page();
}

static void setup(void *arg)
{
	(void)arg;
	state = 1;
	slot = 1;
	pr_spawn("cpu0", getter, NULL, 0);
	pr_spawn("cpu1", getter, NULL, 0);
	pr_spawn("cpu2", remover, NULL, 0);
}

static const struct pr_program prog = {
	.name = "spec-micro", .summary = "speculative get race",
	.setup = setup,
};

static struct pr_strategy *make(const char *name, int depth, uint64_t seed,
				const struct pr_run_options *ro)
{
	struct pr_strategy_params p = { .pct_depth = depth, .pct_steps = 1 };
	struct pr_run_result res;

	if (!strcmp(name, "pct")) {	/* explore's calibration */
		struct pr_strategy *r = pr_random_calibration_create();

		for (uint64_t i = 0; i < 4; i++) {
			pr_run_once(&prog, r, ro, seed, UINT64_MAX - i, NULL, &res);
			if (res.steps > p.pct_steps)
				p.pct_steps = res.steps;
		}
		r->ops->destroy(r);
	}
	return pr_strategy_create(name, &p);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Systematic search (the targets): dpor proves the fixed protocol
 * clean and finds v1 deterministically; full dfs beside it for scale.
 * Both forms of put_page: one RMW (put_rmw, the micro test the targets
 * were set on) and the Relacy twin's load + CAS loop.
 */
static void search(const char *name, int bug, const struct pr_run_options *ro,
		   struct pr_schedule *rec)
{
	struct pr_strategy *st = pr_strategy_create(name, NULL);
	struct pr_run_result res;
	struct pr_coverage c;
	uint64_t runs = 0, first = 0;
	double t0 = now(), dt;

	v1 = bug;
	while (!st->ops->exhausted(st)) {
		if (pr_run_once(&prog, st, ro, 1, runs, rec, &res) && !first)
			first = runs + 1;
		runs++;
		if (bug && first)
			break;
	}
	dt = now() - t0;
	st->ops->coverage(st, &c);
	if (bug)
		printf("pagerace v1    %-6s    : found after %llu executions (%llu complete, %llu blocked), %.1f ms\n",
		       name, (unsigned long long)first,
		       (unsigned long long)c.executions,
		       (unsigned long long)c.blocked, dt * 1e3);
	else
		printf("pagerace fixed %-6s    : %s: %llu executions (%llu blocked), %.1f ms, %llu failures\n",
		       name, c.complete ? "exhaustive" : "incomplete",
		       (unsigned long long)c.executions,
		       (unsigned long long)c.blocked, dt * 1e3,
		       (unsigned long long)!!first);
	st->ops->destroy(st);
}

static void systematic(const struct pr_run_options *ro, struct pr_schedule *rec)
{
	static const char *const names[] = { "dpor", "dfs" };

	for (put_rmw = 1; put_rmw >= 0; put_rmw--) {
		printf("put_page as %s:\n", put_rmw ? "one RMW"
		       : "a load and a CAS loop (the Relacy twin's)");
		for (int bug = 0; bug <= 1; bug++)
			for (size_t s = 0; s < 2; s++)
				search(names[s], bug, ro, rec);
	}
	put_rmw = 0;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; int depth; } strats[] = {
		{ "random", 0 }, { "pct", 5 }, { "pct", 7 },
	};
	struct pr_run_options ro;
	struct pr_schedule rec;
	struct pr_run_result res;
	uint64_t n = 2000000;

	pr_run_options_default(&ro);
	pr_schedule_init(&rec);
	if (argc == 3 && !strcmp(argv[1], "--rate")) {
		struct pr_strategy *st = make("random", 0, 1, &ro);
		uint64_t fails = 0;
		double t0, dt;

		n = strtoull(argv[2], NULL, 10);
		t0 = now();
		for (uint64_t i = 0; i < n; i++)
			fails += (uint64_t)pr_run_once(&prog, st, &ro, 1, i,
						       &rec, &res);
		dt = now() - t0;
		printf("runs/s %.0f failures %llu\n", n / dt,
		       (unsigned long long)fails);
		st->ops->destroy(st);
		pr_schedule_free(&rec);
		return fails != 0;
	}
	if (argc > 1)
		n = (uint64_t)(atof(argv[1]) * (double)n);

	v1 = 0;
	for (size_t s = 0; s < sizeof(strats) / sizeof(strats[0]); s++) {
		struct pr_strategy *st = make(strats[s].name, strats[s].depth,
					      1, &ro);
		uint64_t fails = 0;
		double t0 = now(), dt;

		for (uint64_t i = 0; i < n; i++)
			fails += (uint64_t)pr_run_once(&prog, st, &ro, 1, i,
						       &rec, &res);
		dt = now() - t0;
		printf("pagerace fixed %-6s d=%d: %llu runs in %.3f s, %.0f runs/s, %llu failures\n",
		       strats[s].name, strats[s].depth, (unsigned long long)n,
		       dt, n / dt, (unsigned long long)fails);
		st->ops->destroy(st);
	}

	v1 = 1;
	for (size_t s = 0; s < sizeof(strats) / sizeof(strats[0]); s++) {
		uint64_t found[NSEEDS];
		int missed = 0;

		for (int seed = 1; seed <= NSEEDS; seed++) {
			struct pr_strategy *st = make(strats[s].name,
						      strats[s].depth,
						      (uint64_t)seed, &ro);
			uint64_t i;

			for (i = 0; i < LIMIT; i++)
				if (pr_run_once(&prog, st, &ro, (uint64_t)seed,
						i, &rec, &res))
					break;
			if (i == LIMIT)
				missed++;
			found[seed - 1] = i + 1;
			st->ops->destroy(st);
		}
		qsort(found, NSEEDS, sizeof(found[0]), cmp_u64);
		printf("pagerace v1    %-6s d=%d: runs to detection over %d seeds: median %llu, min %llu, max %llu%s\n",
		       strats[s].name, strats[s].depth, NSEEDS,
		       (unsigned long long)found[NSEEDS / 2 - 1],
		       (unsigned long long)found[0],
		       (unsigned long long)found[NSEEDS - 1],
		       missed ? " (some seeds never found it)" : "");
	}
	systematic(&ro, &rec);
	pr_schedule_free(&rec);
	return 0;
}
