/* SPDX-License-Identifier: MIT */
/*
 * strategy_race.c - dpor's race analysis rules steps out on their line
 * signatures (dpor_race.c, rule1()) only where dependent_at() would have
 * found them independent.  Bounded and unbounded dpor searches of
 * shipped scenarios that have spin-waits, sleeping waits, interrupts and
 * RCU and slab effects run with pr_dpor_filter_check set: every step the
 * filter rules out is asked of dependent_at() as well, and none may be
 * dependent there.
 *
 * Planted: a filter that trusts the signatures for every step (a spin
 * resumption's dependence on writers, a wake-up's on its sleeper, an
 * interrupt's on its context are not in them) must be caught.
 *
 * The same searches, and pc-mixed's first 2,100 executions (its run
 * 2,044 livelocks: one context's 100,000 steps alone), run with
 * pr_dpor_short_check set: every shortcut of dpor_tail.c -- a tail ruled
 * out whole or its candidates remembered, a candidate independent as for
 * its twin, a step passed over whole -- is checked against the walk it
 * saves.  Planted: a twin by its signatures alone must be caught.
 */
#include "runtime/run.h"
#include "programs/programs.h"
#include "scenario/scenario.h"
#include "strategy/dpor_tail.h"
#include "strategy/strategy.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const scns[] = {
	"merged-mixed", "mixed", "truncate-race", "merged-truncate-race",
	"spec-irq", "merged-irq-lookup", "writeback-irq", "merged-swap-cache",
	"locked-lookup-truncate",
};

/* @runs runs of dpor (bound @bound, -1: none) on scenario @name. */
static int search(const char *name, int bound, int runs)
{
	struct pr_strategy_params p = { 0 };
	struct pr_run_options ropts;
	struct pr_run_result res;
	struct pr_program prog;
	struct pr_strategy *s;
	struct scenario *scn;
	struct scn_error e;
	const char *top = getenv("abs_top_srcdir");
	char path[4096], *text;
	size_t len;

	if (!top)
		top = getenv("top_srcdir");
	snprintf(path, sizeof(path), "%s/scenarios/%s.scn", top ? top : ".",
		 name);
	text = scenario_read_file(path, &len, &e);
	if (!text)
		return -1;
	scn = scenario_parse(path, text, len, &e);
	free(text);
	if (!scn)
		return -1;
	scenario_apply_variant(scn);
	scenario_program(scn, &prog);
	pr_run_options_default(&ropts);
	if (bound >= 0) {
		p.has_bound = 1;
		p.preemption_bound = bound;
	}
	s = pr_strategy_create("dpor", &p);
	for (int r = 0; r < runs && !s->ops->exhausted(s); r++)
		pr_run_once(&prog, s, &ropts, 1, (uint64_t)r, NULL, &res);
	s->ops->destroy(s);
	scenario_free(scn);
	return 0;
}

/* @runs runs of unbounded dpor on built-in program @name. */
static int search_prog(const char *name, int runs)
{
	const struct pr_program *prog = pr_program_find(name);
	struct pr_run_options ropts;
	struct pr_run_result res;
	struct pr_strategy *s;

	if (!prog)
		return -1;
	pr_run_options_default(&ropts);
	s = pr_strategy_create("dpor", NULL);
	for (int r = 0; r < runs && !s->ops->exhausted(s); r++)
		pr_run_once(prog, s, &ropts, 1, (uint64_t)r, NULL, &res);
	s->ops->destroy(s);
	return 0;
}

int main(void)
{
	const size_t n = sizeof(scns) / sizeof(scns[0]);
	int missing = 0;

	plan(4);
	pr_dpor_filter_check = 1;
	for (size_t k = 0; k < n; k++) {
		missing += search(scns[k], 2, 1500) < 0;
		missing += search(scns[k], -1, 500) < 0;
	}
	ok(!missing && pr_dpor_filter_wrong == 0 && pr_dpor_filter_out > 100000,
	   "the race analysis rules out %llu steps, %llu of them dependent "
	   "(%d scenarios missing)", pr_dpor_filter_out,
	   pr_dpor_filter_wrong, missing);

	pr_dpor_filter_check = 2;	/* planted */
	pr_dpor_filter_out = pr_dpor_filter_wrong = 0;
	for (size_t k = 0; k < n; k++)
		search(scns[k], 2, 300);
	ok(pr_dpor_filter_wrong > 0, "planted: trusting the signatures of "
	   "every step rules out %llu dependent steps of %llu",
	   pr_dpor_filter_wrong, pr_dpor_filter_out);
	pr_dpor_filter_check = 0;

	pr_dpor_short_check = 1;
	missing = search_prog("pc-mixed", 2100) < 0;
	for (size_t k = 0; k < n; k++) {
		missing += search(scns[k], 2, 1500) < 0;
		missing += search(scns[k], -1, 500) < 0;
	}
	ok(!missing && pr_dpor_short_wrong == 0 && pr_dpor_short_used > 100000,
	   "the race walk's shortcuts: %llu taken, %llu of them wrong "
	   "(%d searches missing)", pr_dpor_short_used, pr_dpor_short_wrong,
	   missing);

	pr_dpor_short_check = 2;	/* planted */
	pr_dpor_short_used = pr_dpor_short_wrong = 0;
	search_prog("pc-mixed", 2100);
	for (size_t k = 0; k < n; k++)
		search(scns[k], 2, 300);
	ok(pr_dpor_short_wrong > 0, "planted: a twin by its signatures alone "
	   "is wrong %llu times of %llu shortcuts", pr_dpor_short_wrong,
	   pr_dpor_short_used);
	return done_testing();
}
