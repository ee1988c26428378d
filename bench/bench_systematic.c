/* SPDX-License-Identifier: MIT */
/*
 * bench_systematic.c - what a step costs under dpor and dfs, beside random
 * on the same program, interleaved (ABAB) in one process.
 *
 * dpor runs every decision with budget 1, records each step's event and,
 * after each execution, analyses the new steps for races (vector clocks);
 * random runs unconsulted for many steps at a time.  The figure is ns per
 * step (a step: one yield point passed), median of 5 pairs, and the ratio
 * dpor / random (target <= 3x).  The bpor column is dpor with preemption
 * bound 3 (bounded partial-order reduction: more backtrack points a race,
 * no sleep sets).  Usage: bench_systematic [SCALE [cpu]]; "cpu" times
 * with the process's CPU time, which a busy machine's waits for a core do
 * not inflate (the wall clock otherwise).
 *
 * Timings on the shared machine move by 20-30%; instruction counts do
 * not.  "bench_systematic --one PROGRAM STRATEGY RUNS [BOUND]" runs only
 * that (one repetition, as per_step() does) and prints its step count,
 * for valgrind: bench/ir_systematic.sh takes Ir per step as
 * (Ir(RUNS) - Ir(0)) / steps, so start-up cancels and per-run set-up
 * counts, as it does here.
 */
#include "programs/programs.h"
#include "runtime/run.h"
#include "strategy/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CLOCK_MONOTONIC; "cpu" as second argument: the process's CPU time. */
static clockid_t clock_id = CLOCK_MONOTONIC;

static double now(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ns per step of @runs runs (or executions, stopping at exhaustion). */
static double per_step(const struct pr_program *prog, const char *strat,
		       int bound, uint64_t runs, uint64_t *done,
		       uint64_t *nsteps)
{
	struct pr_strategy_params p = { .has_bound = bound >= 0,
					.preemption_bound = bound };
	struct pr_run_options ro;
	struct pr_schedule rec;
	struct pr_run_result res;
	struct pr_strategy *s = pr_strategy_create(strat, bound >= 0 ? &p : NULL);
	uint64_t steps = 0, i;
	double t0, dt;

	pr_run_options_default(&ro);
	pr_schedule_init(&rec);
	t0 = now();
	for (i = 0; i < runs; i++) {
		if (s->ops->exhausted && s->ops->exhausted(s))
			break;
		pr_run_once(prog, s, &ro, 1, i, &rec, &res);
		steps += res.steps;
	}
	dt = now() - t0;
	s->ops->destroy(s);
	pr_schedule_free(&rec);
	*done = i;
	*nsteps = steps;
	return steps ? dt * 1e9 / (double)steps : 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* --one PROGRAM STRATEGY RUNS [BOUND]: those runs only, their steps. */
static int one(const char *name, const char *strat, uint64_t runs, int bound)
{
	const struct pr_program *prog = pr_program_find(name);
	uint64_t done = 0, steps;
	double ns;

	if (!prog) {
		fprintf(stderr, "bench_systematic: no program %s\n", name);
		return 2;
	}
	ns = per_step(prog, strat, bound, runs, &done, &steps);
	(void)ns;
	printf("runs %llu steps %llu\n", (unsigned long long)done,
	       (unsigned long long)steps);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const progs[] = {
		"message-passing-fixed", "pc-lookup-truncate", "pc-add-lookup",
		"pc-reclaim-lookup", "pc-mixed",
	};
	double scale;
	uint64_t runs;

	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "--one"))
		return one(argv[2], argv[3], strtoull(argv[4], NULL, 10),
			   argc == 6 ? atoi(argv[5]) : -1);
	scale = argc > 1 ? atof(argv[1]) : 1.0;
	if (argc > 2 && !strcmp(argv[2], "cpu"))
		clock_id = CLOCK_PROCESS_CPUTIME_ID;
	runs = (uint64_t)(20000 * scale);

	if (runs < 100)
		runs = 100;
	printf("%-22s %12s %12s %12s %12s %8s %8s\n", "program", "random ns/st",
	       "dpor ns/st", "dfs ns/st", "bpor ns/st", "dpor/rnd", "bpor/rnd");
	for (size_t p = 0; p < sizeof(progs) / sizeof(progs[0]); p++) {
		const struct pr_program *prog = pr_program_find(progs[p]);
		double r[5], d[5], f[5], b[5];
		uint64_t nr, nd, nf, nb, st;

		for (int k = 0; k < 5; k++) {
			r[k] = per_step(prog, "random", -1, runs, &nr, &st);
			d[k] = per_step(prog, "dpor", -1, runs, &nd, &st);
			f[k] = per_step(prog, "dfs", -1, runs, &nf, &st);
			b[k] = per_step(prog, "dpor", 3, runs, &nb, &st);
		}
		qsort(r, 5, sizeof(r[0]), cmp);
		qsort(d, 5, sizeof(d[0]), cmp);
		qsort(f, 5, sizeof(f[0]), cmp);
		qsort(b, 5, sizeof(b[0]), cmp);
		printf("%-22s %12.1f %12.1f %12.1f %12.1f %7.2fx %7.2fx   (%llu/%llu/%llu/%llu runs)\n",
		       progs[p], r[2], d[2], f[2], b[2], d[2] / r[2],
		       b[2] / r[2], (unsigned long long)nr,
		       (unsigned long long)nd, (unsigned long long)nf,
		       (unsigned long long)nb);
	}
	return 0;
}
