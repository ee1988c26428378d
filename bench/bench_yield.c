/* SPDX-License-Identifier: MIT */
/*
 * bench_yield.c - what a yield point and a context switch cost, side by
 * side with what they are measured against, in one process:
 *
 *   call      a plain (noinline) function call
 *   yield     a yield point that does not switch (PR_LOAD in the only
 *             context, whose budget is unbounded under random)
 *   raw       pr_fiber_switch between two fibers (half a ping-pong)
 *   sched     a scheduler switch: two contexts alternating at every yield
 *             point under a strategy that always picks the other one
 *   runs/s    whole runs of message-passing under random and pct, recorded
 *             as explore records them
 *
 * Targets: yield <= 2 x call, sched <= 2 x raw.  Every figure is the
 * median of REPS repetitions.  Usage: bench_yield [SCALE] (default 1;
 * larger runs longer).
 */
#include "programs/programs.h"
#include "runtime/fiber.h"
#include "runtime/run.h"
#include "strategy/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS	5

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* ---- a plain call ------------------------------------------------------- */

static int shared;

static __attribute__((noinline)) void plain_call(const void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

static double bench_call(uint64_t n)
{
	double t0 = now();

	for (uint64_t i = 0; i < n; i++)
		plain_call(&shared);
	return (now() - t0) * 1e9 / (double)n;
}

/* ---- a non-switching yield point ------------------------------------------ */

static uint64_t loop_n;

static void yield_loop(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < loop_n; i++) {
		PR_LOAD(&shared, "shared");
		__asm__ volatile("" : : : "memory");
	}
}

static void yield_setup(void *arg)
{
	(void)arg;
	pr_spawn("cpu0", yield_loop, NULL, 0);
}

static const struct pr_program yield_prog = {
	.name = "yield-loop", .setup = yield_setup,
};

static double bench_yield(uint64_t n)
{
	struct pr_strategy *s = pr_random_create();
	struct pr_run_options o;
	struct pr_run_result res;
	double t0, t;

	pr_run_options_default(&o);
	o.max_steps = n + 16;
	loop_n = n;
	t0 = now();
	pr_run_once(&yield_prog, s, &o, 1, 0, NULL, &res);
	t = now() - t0;
	s->ops->destroy(s);
	if (res.failed || res.steps != n + 1) {
		fprintf(stderr, "bench_yield: unexpected run: %s, %llu steps\n",
			res.verdict.kind, (unsigned long long)res.steps);
		exit(1);
	}
	return t * 1e9 / (double)n;
}

/* ---- a raw fiber switch --------------------------------------------------- */

static struct pr_fiber main_fiber, ping_fiber;

static void ping_entry(void)
{
	for (;;)
		pr_fiber_switch(&ping_fiber, &main_fiber);
}

static double bench_raw(uint64_t n)
{
	double t0;

	pr_fiber_prepare(&ping_fiber, ping_entry);
	t0 = now();
	for (uint64_t i = 0; i < n; i++)
		pr_fiber_switch(&main_fiber, &ping_fiber);
	return (now() - t0) * 1e9 / (double)(2 * n);
}

/* ---- a scheduler switch ------------------------------------------------------ */

static void alt_begin(struct pr_strategy *s, uint64_t seed, uint64_t run)
{
	(void)s;
	(void)seed;
	(void)run;
}

/* Always another context than the one that ran last, for one step. */
static int alt_pick(struct pr_strategy *s, const struct pr_choices *cs,
		    int64_t *budget)
{
	(void)s;
	*budget = 1;
	for (int i = 0; i < cs->n; i++)
		if (cs->c[i].ctx != cs->prev_ctx)
			return i;
	return 0;
}

static void alt_end(struct pr_strategy *s, uint64_t steps)
{
	(void)s;
	(void)steps;
}

static void alt_destroy(struct pr_strategy *s)
{
	(void)s;
}

static const struct pr_strategy_ops alternate_ops = {
	.name = "alternate",
	.begin_run = alt_begin,
	.pick = alt_pick,
	.end_run = alt_end,
	.destroy = alt_destroy,
};

static void pingpong(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < loop_n; i++)
		PR_YIELD("pingpong");
}

static void pingpong_setup(void *arg)
{
	(void)arg;
	pr_spawn("cpu0", pingpong, NULL, 0);
	pr_spawn("cpu1", pingpong, NULL, 0);
}

static const struct pr_program pingpong_prog = {
	.name = "pingpong", .setup = pingpong_setup,
};

/*
 * Kept across repetitions, as explore keeps its schedule across runs: the
 * recorded figure is the steady state (one segment per step, the worst
 * case for recording), not the first growth of a fresh array.
 */
static struct pr_schedule sched_rec;

static double bench_sched(uint64_t n, int record, uint64_t *preempt)
{
	struct pr_strategy s = { .ops = &alternate_ops };
	struct pr_run_options o;
	struct pr_run_result res;
	double t0, t;

	pr_run_options_default(&o);
	o.max_steps = 2 * n + 16;
	loop_n = n;
	t0 = now();
	pr_run_once(&pingpong_prog, &s, &o, 1, 0, record ? &sched_rec : NULL,
		    &res);
	t = now() - t0;
	if (res.failed || res.steps != 2 * n + 2) {
		fprintf(stderr, "bench_sched: unexpected run: %s, %llu steps\n",
			res.verdict.kind, (unsigned long long)res.steps);
		exit(1);
	}
	*preempt = res.preemptions;
	return t * 1e9 / (double)res.steps;
}

/* ---- whole runs ---------------------------------------------------------- */

static double bench_runs(const char *strat, uint64_t n, uint64_t *found)
{
	struct pr_strategy_params p = { .pct_depth = 3, .pct_steps = 8 };
	struct pr_strategy *s = pr_strategy_create(strat, &p);
	struct pr_run_options o;
	struct pr_run_result res;
	struct pr_schedule rec;
	double t0, t;

	pr_run_options_default(&o);
	pr_schedule_init(&rec);
	*found = 0;
	t0 = now();
	for (uint64_t i = 0; i < n; i++)
		*found += (uint64_t)pr_run_once(&pr_prog_message_passing, s,
						&o, 1, i, &rec, &res);
	t = now() - t0;
	pr_schedule_free(&rec);
	s->ops->destroy(s);
	return (double)n / t;
}

int main(int argc, char **argv)
{
	uint64_t scale = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
	uint64_t n = 50000000 * scale, nsw = 10000000 * scale;
	uint64_t nruns = 500000 * scale, pre = 0, found[2] = { 0, 0 };
	double call[REPS], yield[REPS], raw[REPS], sched[REPS], schedrec[REPS];
	double rr[REPS], rp[REPS];
	double mcall, myield, mraw, msched, mschedrec;

	if (scale == 0)
		scale = 1;
	if (pr_fiber_alloc(&ping_fiber, 64 * 1024) != 0) {
		perror("pr_fiber_alloc");
		return 1;
	}
	/* Warm up: stacks mapped, caches and branch predictors primed. */
	bench_call(n / 10);
	bench_yield(n / 10);
	bench_raw(nsw / 10);
	bench_sched(nsw / 10, 0, &pre);
	bench_sched(nsw, 1, &pre);
	for (int r = 0; r < REPS; r++) {
		call[r] = bench_call(n);
		yield[r] = bench_yield(n);
		raw[r] = bench_raw(nsw);
		sched[r] = bench_sched(nsw, 0, &pre);
		schedrec[r] = bench_sched(nsw, 1, &pre);
		rr[r] = bench_runs("random", nruns, &found[0]);
		rp[r] = bench_runs("pct", nruns, &found[1]);
	}
	mcall = median(call, REPS);
	myield = median(yield, REPS);
	mraw = median(raw, REPS);
	msched = median(sched, REPS);
	mschedrec = median(schedrec, REPS);

	printf("bench_yield: medians of %d repetitions (%llu calls/yields, %llu switches per repetition)\n",
	       REPS, (unsigned long long)n, (unsigned long long)nsw);
	printf("  %-46s %8.2f ns\n", "plain noinline call", mcall);
	printf("  %-46s %8.2f ns\n", "yield point, no switch (PR_LOAD, 1 context)",
	       myield);
	printf("  %-46s %8.2f ns\n", "raw fiber switch (pr_fiber_switch)", mraw);
	printf("  %-46s %8.2f ns\n", "scheduler switch (alternate, not recorded)",
	       msched);
	printf("  %-46s %8.2f ns\n", "scheduler switch (alternate, recorded)",
	       mschedrec);
	printf("  %-46s %8.0f runs/s (%llu/%llu failing)\n",
	       "message-passing, random, recorded", median(rr, REPS),
	       (unsigned long long)found[0], (unsigned long long)nruns);
	printf("  %-46s %8.0f runs/s (%llu/%llu failing)\n",
	       "message-passing, pct d=3 k=8, recorded", median(rp, REPS),
	       (unsigned long long)found[1], (unsigned long long)nruns);
	printf("  ratio yield/call  %5.2fx  (target <= 2x: %s)\n",
	       myield / mcall, myield / mcall <= 2.0 ? "met" : "NOT met");
	printf("  ratio sched/raw   %5.2fx  (target <= 2x: %s)\n",
	       msched / mraw, msched / mraw <= 2.0 ? "met" : "NOT met");
	printf("  ratio sched/raw   %5.2fx  recorded (target <= 2x: %s)\n",
	       mschedrec / mraw, mschedrec / mraw <= 2.0 ? "met" : "NOT met");
	pr_schedule_free(&sched_rec);
	pr_fiber_release(&ping_fiber);
	return 0;
}
