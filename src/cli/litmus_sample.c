/* SPDX-License-Identifier: MIT */
/*
 * litmus_sample.c - the litmus command's sampled phase: the runs that
 * follow an exhaustive search that did not finish in its share of the
 * budget (litmus.c, run_test).
 */
#include "strategy/strategy.h"
#include "cli/cli.h"
#include "cli/interrupt.h"
#include "cli/litmus_goal.h"
#include "litmus/litmus.h"

#include <string.h>

/*
 * With a time budget (the corpus run), when the exhaustive search
 * stopped unfinished (its share of the budget spent, or the execution
 * budget), the rest of the time goes to sampled runs until @deadline or
 * the first run that reaches the condition or fails: under tso and weak
 * random runs (flushes and stale reads by the scheduler's coins) for
 * every test, and for a Sometimes test under every model the witness
 * sampler (strategy/witness.c, steered by litmus/witness.c towards the
 * values the exists clause wants its loads to return).  A reached
 * condition is a real witness, which the search may not have met; only
 * the search may say a condition is never reached.  A search that
 * completes needs no sampling: it saw every class of executions.
 * Outside --brief, the run that reached a Sometimes condition is saved
 * as a trace (@trace) that replay re-executes.  Returns 1 + the run
 * that reached it, or 0.
 */
uint64_t litmus_sample(const struct litmus_opts *o, const struct target *tg,
		       struct pr_run_options *ro, struct pr_schedule *rec,
		       double deadline, struct pr_run_result *first, char *trace,
		       size_t tracelen, uint64_t *failed, uint64_t *other,
		       uint64_t *stuck)
{
	struct litmus_opts so = *o;
	int some = litmus_expect(tg->lit) == LIT_EXPECT_SOMETIMES;
	struct pr_strategy *st;
	struct pr_strategy_params params;
	uint64_t run;

	memset(&params, 0, sizeof(params));
	params.preemption_bound = -1;
	st = some ? pr_witness_create(litmus_witness_score, NULL) :
		    pr_strategy_create("random", &params);
	if (!st)
		return 0;
	so.strategy = st->ops->name;
	for (run = 0; !(run & 15) ? litmus_now() < deadline : 1; run++) {
		struct pr_run_result res;

		if (interrupt_pending())
			break;
		pr_run_once(tg->prog, st, ro, 0, run, rec, &res);
		if (!(res.failed || res.diverged)) {
			if (some && litmus_hits(tg->lit)) {
				if (!o->brief && litmus_save_trace(&so, tg, run, &res,
							    rec, trace, tracelen))
					trace[0] = '\0';
				break;
			}
			continue;
		}
		if (litmus_model_too_big(&res) || !strcmp(res.verdict.kind, "deadlock") ||
		    !strcmp(res.verdict.kind, "livelock")) {
			*stuck += !litmus_model_too_big(&res);
			continue;
		}
		if (!strncmp(res.verdict.kind, "litmus-never", 12) ||
		    !strncmp(res.verdict.kind, "litmus-always", 13))
			(*failed)++;
		else
			(*other)++;
		*first = res;
		if (litmus_save_trace(&so, tg, run, &res, rec, trace, tracelen))
			trace[0] = '\0';
		break;
	}
	st->ops->destroy(st);
	return (some && litmus_hits(tg->lit)) || *failed || *other ? run + 1 : 0;
}
