/* SPDX-License-Identifier: MIT */
/*
 * bench_memory.c - what a memory model costs per step: the
 * built-in page-cache workloads under sc, tso and weak, random strategy,
 * recorded as explore records.  A flush is a step of its own, so ns per
 * step counts it; runs/s is given too.  Target: weak <= 3 x sc per step.
 *
 * Each figure is the median of 5 repetitions of RUNS runs (default 20000;
 * usage: bench_memory [RUNS]).
 *
 * Timings on the shared machine move by 20-30%; instruction counts do
 * not.  "bench_memory --one MODEL PROGRAM RUNS" runs only that (one
 * repetition, no timing) and prints its step count, for
 * valgrind --tool=callgrind: Ir per step = Ir / steps (bench/RESULTS.md,
 * "Weak memory: instructions per step", has the script).
 */
#include "memory/memory.h"
#include "programs/programs.h"
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
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ns per step and runs/s of @runs runs of @prog under @model (medians). */
static void measure(const struct pr_program *prog, int model, uint64_t runs,
		    double *ns_step, double *rate, double *steps_run)
{
	double ns[REPS], rs[REPS];
	struct pr_run_options o;
	struct pr_schedule rec;
	uint64_t steps = 0;

	pr_run_options_default(&o);
	pr_schedule_init(&rec);
	pr_mem_select(model);
	for (int k = 0; k < REPS; k++) {
		struct pr_strategy *s = pr_strategy_create("random", NULL);
		struct pr_run_result res;
		double t0 = now(), dt;

		steps = 0;
		for (uint64_t r = 0; r < runs; r++) {
			pr_run_once(prog, s, &o, 1, r, &rec, &res);
			steps += res.steps;
		}
		dt = now() - t0;
		ns[k] = dt * 1e9 / (double)steps;
		rs[k] = (double)runs / dt;
		s->ops->destroy(s);
	}
	qsort(ns, REPS, sizeof(*ns), cmp);
	qsort(rs, REPS, sizeof(*rs), cmp);
	*ns_step = ns[REPS / 2];
	*rate = rs[REPS / 2];
	*steps_run = (double)steps / (double)runs;
	pr_schedule_free(&rec);
	pr_mem_select(PR_MEM_SC);
}

static const struct pr_program *const progs[] = {
	&pr_prog_pc_mixed, &pr_prog_pc_lookup_truncate,
	&pr_prog_pc_add_lookup, &pr_prog_pc_reclaim_lookup,
};
#define NPROGS	(sizeof(progs) / sizeof(*progs))

/* --one MODEL PROGRAM RUNS: those runs only, their total step count. */
static int one(const char *model, const char *name, uint64_t runs)
{
	const struct pr_program *prog = NULL;
	struct pr_run_options o;
	struct pr_schedule rec;
	struct pr_strategy *s;
	struct pr_run_result res;
	uint64_t steps = 0;
	int m = pr_mem_parse(model);

	for (size_t i = 0; i < NPROGS; i++)
		if (!strcmp(progs[i]->name, name))
			prog = progs[i];
	if (m < 0 || !prog) {
		fprintf(stderr, "bench_memory: --one MODEL PROGRAM RUNS\n");
		return 2;
	}
	pr_run_options_default(&o);
	pr_schedule_init(&rec);
	pr_mem_select(m);
	s = pr_strategy_create("random", NULL);
	for (uint64_t r = 0; r < runs; r++) {
		pr_run_once(prog, s, &o, 1, r, &rec, &res);
		steps += res.steps;
	}
	s->ops->destroy(s);
	pr_schedule_free(&rec);
	printf("%s %s runs %llu steps %llu\n", name, model,
	       (unsigned long long)runs, (unsigned long long)steps);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t runs = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000;
	double worst = 0;

	if (argc == 5 && !strcmp(argv[1], "--one"))
		return one(argv[2], argv[3], strtoull(argv[4], NULL, 10));

	printf("| workload | model | steps/run | ns/step | runs/s | ns/step vs sc |\n");
	printf("|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < NPROGS; i++) {
		double base = 0;

		for (int m = PR_MEM_SC; m <= PR_MEM_WEAK; m++) {
			double ns, rate, spr;

			measure(progs[i], m, runs, &ns, &rate, &spr);
			if (m == PR_MEM_SC)
				base = ns;
			else if (ns / base > worst && m == PR_MEM_WEAK)
				worst = ns / base;
			printf("| %s | %s | %.1f | %.1f | %.0f | %.2fx |\n",
			       progs[i]->name, pr_mem_name(m), spr, ns, rate,
			       ns / base);
		}
	}
	printf("\nworst weak / sc per step: %.2fx (target <= 3x)\n", worst);
	return worst > 3.0;
}
