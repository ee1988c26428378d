/* SPDX-License-Identifier: MIT */
/*
 * bench_scaling.c - does a step cost more as CPUs are added?
 *
 * N CPUs (N = 2, 3, 4, 6, 8, 16, 32) do the same work each, on data of
 * their own, so any growth of the cost per step is the scheduler's:
 *
 *   model  a scenario: CPU i does `loop L { r0 = find_get_page m0 i;
 *          put r0 }` on its own page (v2, lockless: nobody blocks), so a
 *          step is a yield point of the page-cache model
 *   bare   CPU i does an atomic increment of its own word (PR_RMW), L
 *          times: a step is a yield point and nothing else, the worst
 *          case for the decision path's share
 *
 * under random (the default sampler) and pct d=3.  Figure: ns per step
 * (yield points passed, per-run setup included), median of REPS rounds;
 * the sizes are interleaved inside each round, so load on the shared
 * machine falls on all of them alike.  The ratio ns(N) / ns(2) is what
 * the goal keeps <= 1.2x up to 8 CPUs.  Uniform random switches
 * at a step with probability (N-1)/N (0.5 at 2 CPUs, 0.875 at 8), so
 * part of the growth is the sampler's own choice, not the decision
 * path's cost; "decisions/step" shows it.
 * Usage: bench_scaling [SCALE]
 *        bench_scaling --one model|bare random|pct CPUS RUNS
 * The second form runs one figure's runs and prints its steps, for
 * instruction counts under callgrind (bench/scaling.sh): repeatable where
 * the time of a shared machine is not.  Sizes a build cannot run (more
 * CPUs than PR_MAX_CTX or a scenario allows) print as "-".
 */
#include "runtime/run.h"
#include "scenario/scenario.h"
#include "strategy/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS	5
#define LOOP	15	/* operations per CPU per run (32 x 2 x 15 fits SCN_MAX_DYNAMIC) */

static const int sizes[] = { 2, 3, 4, 6, 8, 16, 32 };
#define NSIZES	((int)(sizeof(sizes) / sizeof(sizes[0])))

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

/* ---- bare: a private atomic increment per step ------------------------ */

static long words[64 * 8];	/* a line each */
static int bare_n;

static void bare_cpu(void *arg)
{
	long *w = &words[(long)arg * 8];

	for (int i = 0; i < LOOP; i++) {
		PR_RMW(w, "word");
		__atomic_fetch_add(w, 1, __ATOMIC_RELAXED);
	}
}

static void bare_setup(void *arg)
{
	static const char *const names[] = {
		"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9",
		"c10", "c11", "c12", "c13", "c14", "c15", "c16", "c17", "c18",
		"c19", "c20", "c21", "c22", "c23", "c24", "c25", "c26", "c27",
		"c28", "c29", "c30", "c31",
	};

	(void)arg;
	for (long i = 0; i < bare_n; i++)
		pr_spawn(names[i], bare_cpu, (void *)i, 0);
}

static const struct pr_program bare_prog = {
	.name = "bare", .setup = bare_setup,
};

/* ---- model: a scenario per size -------------------------------------- */

static struct scenario *scn[NSIZES];
static struct pr_program scn_prog[NSIZES];

static int make_scenario(int k)
{
	char text[16384];
	size_t off = 0;
	struct scn_error err;
	int n = sizes[k];

	off += (size_t)snprintf(text + off, sizeof(text) - off,
				"scenario scaling%d\nprotocol v2\n"
				"knobs radix-single-read, release-no-recheck, "
				"gang-empty-exit\npages %d\ninit {\n", n, n + 8 > 64 ? 64 : n + 8);
	for (int i = 0; i < n; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"    m0[%d]\n", i);
	off += (size_t)snprintf(text + off, sizeof(text) - off, "}\n");
	for (int i = 0; i < n; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"cpu %d {\n    loop %d {\n"
					"        r0 = find_get_page m0 %d\n"
					"        put r0\n    }\n}\n", i, LOOP, i);
	scn[k] = scenario_parse("scaling.scn", text, off, &err);
	if (!scn[k])
		return -1;	/* more CPUs than this build's scenarios take */
	scenario_program(scn[k], &scn_prog[k]);
	return 0;
}

/* ---- measuring -------------------------------------------------------- */

static uint64_t total_steps;

static double per_step(const struct pr_program *prog, const char *strat,
		       uint64_t runs, double *decisions)
{
	struct pr_strategy_params params;
	struct pr_run_options ro;
	struct pr_schedule rec;
	struct pr_run_result res;
	struct pr_strategy *s;
	uint64_t steps = 0, segs = 0;
	double t0, dt;

	memset(&params, 0, sizeof(params));
	params.pct_depth = 3;
	params.pct_steps = 100;
	s = pr_strategy_create(strat, &params);
	if (!s) {
		fprintf(stderr, "bench_scaling: no strategy %s\n", strat);
		exit(2);
	}
	pr_run_options_default(&ro);
	pr_schedule_init(&rec);
	t0 = now();
	for (uint64_t i = 0; i < runs; i++) {
		pr_run_once(prog, s, &ro, 1, i, &rec, &res);
		steps += res.steps;
		segs += rec.n;
		if (res.failed || res.diverged) {
			fprintf(stderr, "bench_scaling: run %llu failed: %s\n",
				(unsigned long long)i, res.verdict.msg);
			exit(1);
		}
	}
	dt = now() - t0;
	s->ops->destroy(s);
	pr_schedule_free(&rec);
	total_steps = steps;
	*decisions = (double)segs / (double)steps;
	return dt * 1e9 / (double)steps;
}

static int size_index(int n)
{
	for (int k = 0; k < NSIZES; k++)
		if (sizes[k] == n)
			return k;
	return -1;
}

static int one(char **argv)
{
	int k = size_index(atoi(argv[4])), bare = !strcmp(argv[2], "bare");
	double d;

	if (k < 0 || (!bare && make_scenario(k) != 0) ||
	    (bare && sizes[k] > PR_MAX_CTX)) {
		printf("steps -\n");
		return 0;
	}
	bare_n = sizes[k];
	if (!bare)
		scenario_apply_variant(scn[k]);
	per_step(bare ? &bare_prog : &scn_prog[k], argv[3],
		 strtoull(argv[5], NULL, 10), &d);
	printf("steps %llu decisions/step %.3f\n",
	       (unsigned long long)total_steps, d);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const strats[] = { "random", "pct" };
	double scale, t[2][2][NSIZES][REPS], dec[2][2][NSIZES];
	int ok[2][NSIZES];

	if (argc == 6 && !strcmp(argv[1], "--one"))
		return one(argv);
	scale = argc > 1 ? atof(argv[1]) : 1.0;
	for (int k = 0; k < NSIZES; k++) {
		ok[0][k] = make_scenario(k) == 0;
		ok[1][k] = sizes[k] <= PR_MAX_CTX;
	}
	for (int r = 0; r < REPS; r++)
		for (int w = 0; w < 2; w++)
			for (int st = 0; st < 2; st++)
				for (int k = 0; k < NSIZES; k++) {
					/* ~400k steps per figure at SCALE 1 */
					uint64_t runs = (uint64_t)(scale * 400000.0 /
						(double)(sizes[k] * LOOP * (w ? 1 : 4)));

					if (!ok[w][k])
						continue;
					if (runs < 10)
						runs = 10;
					bare_n = sizes[k];
					if (w == 0)
						scenario_apply_variant(scn[k]);
					t[w][st][k][r] = per_step(w ? &bare_prog
								    : &scn_prog[k],
								  strats[st], runs,
								  &dec[w][st][k]);
				}
	printf("%-6s %-7s %5s %10s %12s %12s %10s\n", "work", "strat", "cpus",
	       "ns/step", "range", "decis/step", "vs 2 cpus");
	for (int w = 0; w < 2; w++)
		for (int st = 0; st < 2; st++) {
			double base = 0;

			for (int k = 0; k < NSIZES; k++) {
				double *v = t[w][st][k];

				if (!ok[w][k]) {
					printf("%-6s %-7s %5d %10s\n", w ? "bare" : "model",
					       strats[st], sizes[k], "-");
					continue;
				}
				qsort(v, REPS, sizeof(*v), cmp_double);
				if (k == 0)
					base = v[REPS / 2];
				printf("%-6s %-7s %5d %10.1f %5.1f-%-6.1f %12.3f %9.2fx\n",
				       w ? "bare" : "model", strats[st], sizes[k],
				       v[REPS / 2], v[0], v[REPS - 1], dec[w][st][k],
				       v[REPS / 2] / base);
			}
		}
	for (int k = 0; k < NSIZES; k++)
		if (scn[k])
			scenario_free(scn[k]);
	return 0;
}
