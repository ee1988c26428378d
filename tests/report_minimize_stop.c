/*
 * report_minimize_stop.c - pr_minimize's stop hook (what Ctrl-C asks of
 * `pagerace minimize`): asked before each candidate run, it ends the
 * work early with the smallest schedule found so far, which still fails
 * the same way; st.stopped says so.  Without a stop hook, or one that
 * never says stop, the same minimisation runs to its end.
 */
#include "programs/programs.h"
#include "report/minimize.h"
#include "runtime/run.h"
#include "strategy/strategy.h"
#include "tap.h"

#include <stdint.h>
#include <string.h>

static int calls, stop_after;

static int stop_hook(void)
{
	return ++calls > stop_after;
}

int main(void)
{
	const struct pr_program *prog = pr_program_find("message-passing");
	struct pr_strategy_params p = { 0 };
	struct pr_run_options ro;
	struct pr_schedule rec, min;
	struct pr_run_result res, mres;
	struct pr_min_stats full, cut;
	struct pr_strategy *s;
	char err[256];
	uint64_t run;
	int found = 0;

	plan(5);
	if (!prog)
		bail_out("no program message-passing");
	pr_run_options_default(&ro);
	s = pr_strategy_create("random", &p);
	if (!s)
		bail_out("cannot create a strategy");
	pr_schedule_init(&rec);
	for (run = 0; run < 100000 && !found; run++)
		found = pr_run_once(prog, s, &ro, 1, run, &rec, &res) != 0;
	run--;
	s->ops->destroy(s);
	ok(found, "random seed 1 finds message-passing's failure (run %llu)",
	   (unsigned long long)run);

	/* To the end: a hook that never says stop changes nothing. */
	calls = 0;
	stop_after = 1 << 30;
	ok(!pr_minimize(prog, &ro, 1, run, &rec, &res.verdict, 0, stop_hook,
			&min, &mres, &full, err, sizeof(err)) && !full.stopped &&
	   full.runs > 3, "minimised to the end: %llu runs, %llu -> %llu steps",
	   (unsigned long long)full.runs, (unsigned long long)full.steps[0],
	   (unsigned long long)full.steps[1]);
	pr_schedule_free(&min);

	/* Stopped after two candidates. */
	calls = 0;
	stop_after = 2;
	ok(!pr_minimize(prog, &ro, 1, run, &rec, &res.verdict, 0, stop_hook,
			&min, &mres, &cut, err, sizeof(err)),
	   "stopped minimisation returns a result");
	/* The hook is asked at least once per candidate: <= 2 candidates. */
	ok(cut.stopped && cut.runs <= 3, "st.stopped set after %llu runs "
	   "(the first and at most 2 candidates)", (unsigned long long)cut.runs);
	ok(pr_same_failure(&mres, &res.verdict),
	   "its schedule fails the same way (%s)", mres.verdict.kind);
	pr_schedule_free(&min);
	pr_schedule_free(&rec);
	return done_testing();
}
