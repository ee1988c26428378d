/* SPDX-License-Identifier: MIT */
/*
 * kernel_bitops.c - atomic and non-atomic bit operations.
 *
 * set_bit on bit 0 and __set_bit on bit 1 of the same word: the
 * non-atomic one is a load, a yield point and a store, so a set_bit that
 * lands in between is overwritten -- the lost-update class behind PG_free
 * and PG_locked being set with __ variants in the seeds.  With both
 * atomic, no schedule loses a bit.  Also: a run re-executed on its own
 * reproduces its verdict and length.
 */
#include "kernel/kernel.h"
#include "runtime/run.h"
#include "strategy/strategy.h"
#include "tap.h"

#include <string.h>

#define RUNS	300
#define SEED	0xb175ULL

static int nonatomic;
static unsigned long word;
static int tas_wins;

static void setter0(void *arg)
{
	(void)arg;
	set_bit(0, &word);
	if (!test_and_set_bit(4, &word))
		tas_wins++;
}

static void setter1(void *arg)
{
	(void)arg;
	if (nonatomic)
		__set_bit(1, &word);
	else
		set_bit(1, &word);
	if (!test_and_set_bit(4, &word))
		tas_wins++;
}

static void setup(void *arg)
{
	(void)arg;
	kernel_reset(2);
	word = 0;
	tas_wins = 0;
	pr_name_object(&word, "word");
	pr_spawn("cpu0", setter0, NULL, 0);
	pr_spawn("cpu1", setter1, NULL, 0);
}

static void finish(void *arg)
{
	(void)arg;
	PR_ASSERT(test_bit(0, &word) && test_bit(1, &word));
	PR_ASSERT(tas_wins == 1);	/* test_and_set_bit: exactly one winner */
}

static const struct pr_program prog = {
	.name = "kernel_bitops", .setup = setup, .finish = finish,
};

int main(void)
{
	struct pr_strategy_params params;
	struct pr_run_options opts;
	struct pr_strategy *s;
	struct pr_run_result res, again;
	int failed = 0, first = -1, same = 1;
	uint64_t steps = 0;

	plan(4);
	memset(&params, 0, sizeof(params));
	pr_run_options_default(&opts);
	s = pr_strategy_create("random", &params);

	nonatomic = 0;
	for (int run = 0; run < RUNS; run++)
		failed += pr_run_once(&prog, s, &opts, SEED, (uint64_t)run,
				      NULL, &res);
	ok(failed == 0, "set_bit vs set_bit on one word: no lost bit in %d "
	   "runs (%d failed)", RUNS, failed);

	nonatomic = 1;
	failed = 0;
	for (int run = 0; run < RUNS; run++) {
		if (!pr_run_once(&prog, s, &opts, SEED, (uint64_t)run, NULL,
				 &res))
			continue;
		if (first < 0) {
			first = run;
			steps = res.steps;
			diag("run %d: %s at %s: %s", run, res.verdict.kind,
			     res.verdict.where, res.verdict.msg);
		}
		failed++;
	}
	ok(failed > 0, "set_bit vs __set_bit: a lost update is found (%d of "
	   "%d runs, first run %d)", failed, RUNS, first);

	/* Re-execute the first failing run alone, twice. */
	for (int k = 0; k < 2 && first >= 0; k++) {
		pr_run_once(&prog, s, &opts, SEED, (uint64_t)first, NULL,
			    &again);
		same &= again.failed && again.steps == steps &&
			!strcmp(again.verdict.kind, "assert");
	}
	ok(first >= 0 && same, "the failing run reproduces alone (%llu steps)",
	   (unsigned long long)steps);

	/* A passing run must not depend on what ran before it either. */
	pr_run_once(&prog, s, &opts, SEED, 0, NULL, &res);
	for (int run = 1; run < 20; run++)
		pr_run_once(&prog, s, &opts, SEED, (uint64_t)run, NULL, &again);
	pr_run_once(&prog, s, &opts, SEED, 0, NULL, &again);
	ok(res.failed == again.failed && res.steps == again.steps,
	   "run 0 is the same before and after other runs");

	s->ops->destroy(s);
	return done_testing();
}
