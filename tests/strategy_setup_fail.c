/* SPDX-License-Identifier: MIT */
/*
 * strategy_setup_fail.c - every strategy survives a run of zero steps.
 *
 * A program whose set-up fails (a scenario's init hitting a model bug,
 * say an off-by-one in radix_tree_insert's extend test) ends every run
 * before its first yield point: the verdict comes from set-up and the
 * schedule is empty.  dpor's race analysis once indexed its per-step
 * arrays before allocating them for such a run and died of SIGSEGV; the
 * samplers' calibration measures a run length of 0.  Here each strategy,
 * created and calibrated as explore does, runs such a program until it is
 * exhausted or for a few runs: every run reports the set-up verdict, its
 * schedule is empty, and the schedule replays to the same verdict.
 */
#include "runtime/run.h"
#include "strategy/strategy.h"
#include "tap.h"

#include <string.h>

#define RUNS	20

static int shared;

static void cpu(void *arg)
{
	(void)arg;
	shared++;
}

/* Two CPUs are spawned, then set-up fails before either runs. */
static void setup(void *arg)
{
	(void)arg;
	shared = 0;
	pr_spawn("cpu0", cpu, NULL, 0);
	pr_spawn("cpu1", cpu, NULL, 0);
	pr_fail("setup", NULL, "planted: set-up fails before any step");
}

static const struct pr_program prog = {
	.name = "setup-fail",
	.summary = "a set-up that fails before the first step",
	.setup = setup,
};

static void one_strategy(const char *name, int bound)
{
	struct pr_strategy_params p = { .pct_depth = 3 };
	struct pr_run_options ro;
	struct pr_schedule rec;
	struct pr_run_result res;
	struct pr_strategy *s;
	int all_setup = 1, all_empty = 1, replays = 1;
	uint64_t run;

	pr_run_options_default(&ro);
	pr_schedule_init(&rec);
	if (bound >= 0) {
		p.has_bound = 1;
		p.preemption_bound = bound;
	}
	if (strcmp(name, "random") && strcmp(name, "dfs") &&
	    strcmp(name, "dpor"))
		p.pct_steps = pr_pct_calibrate(&prog, &ro, 1);
	s = pr_strategy_create(name, &p);
	if (!s || pr_strategy_calibrate(s, &prog, &ro, 1)) {
		ok(0, "%s: created and calibrated", name);
		if (s)
			s->ops->destroy(s);
		return;
	}
	for (run = 0; run < RUNS; run++) {
		struct pr_strategy *r;
		struct pr_run_result again;

		if (s->ops->exhausted && s->ops->exhausted(s))
			break;
		pr_run_once(&prog, s, &ro, 1, run, &rec, &res);
		all_setup &= res.failed && !res.diverged &&
			     !strcmp(res.verdict.kind, "setup");
		all_empty &= pr_schedule_steps(&rec) == 0;
		r = pr_replay_create(&rec);
		pr_run_once(&prog, r, &ro, 1, run, NULL, &again);
		r->ops->destroy(r);
		replays &= again.failed && !again.diverged &&
			   !strcmp(again.verdict.kind, res.verdict.kind);
	}
	ok(run > 0 && all_setup && all_empty && replays,
	   "%s%s: %llu runs, each the set-up verdict with an empty schedule, "
	   "each replayed", name, bound >= 0 ? " (preemption bound 1)" : "",
	   (unsigned long long)run);
	s->ops->destroy(s);
	pr_schedule_free(&rec);
}

int main(void)
{
	static const char *const names[] = {
		"random", "pct", "pos", "surw", "portfolio", "dfs", "dpor",
	};

	plan(9);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		one_strategy(names[i], -1);
	one_strategy("dfs", 1);
	one_strategy("dpor", 1);
	return done_testing();
}
