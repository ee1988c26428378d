/* SPDX-License-Identifier: MIT */
/*
 * litmus_goal.c - the litmus command's goal search: when the search for
 * every final state runs out of its share of the time budget, decide
 * the one question the Result: line asks -- can the exists clause
 * hold? -- with a search of the same test cut where it can no longer
 * hold (litmus.h, litmus_goal: a process stops right after a load that
 * gives a register the clause fixes a value it rejects).
 *
 * Why this is sound both ways: a run in which a process stopped has that
 * register wrong for good (it is set once), so it never satisfies the
 * clause, and it records no final state; a run in which none stopped is
 * a run of the test, step for step (the cut only ever skips what follows
 * a rejected load), so a witness found here replays on the test itself.
 * Conversely every run of the test that satisfies the clause is a run of
 * the cut program with the same schedule, and dpor explores a run of
 * every class of the cut program, so a complete search that reached
 * nothing shows the clause unreachable under the memory model.  The
 * other processes go on after one stops, so dpor still sees every write
 * that could have given the rejected load another value.
 *
 * What it does not give: the final-state set (the cut runs have none).
 */
#include "strategy/strategy.h"
#include "cli/cli.h"
#include "cli/interrupt.h"
#include "cli/litmus_goal.h"
#include "litmus/litmus.h"

#include <string.h>

enum litmus_goal_end litmus_goal_search(const struct litmus_opts *o,
					const struct target *tg,
					struct pr_run_options *ro,
					struct pr_schedule *rec, double deadline,
					struct pr_run_result *first, char *trace,
					size_t tracelen, uint64_t *failed,
					uint64_t *other, uint64_t *execs)
{
	struct litmus *l = tg->lit;
	struct pr_strategy_params params;
	struct pr_strategy *st;
	struct pr_coverage cov;
	enum litmus_goal_end end = GOAL_OPEN;
	uint64_t hits0 = litmus_hits(l);

	*execs = 0;
	if (!litmus_goal(l, 1))
		return GOAL_NA;
	memset(&params, 0, sizeof(params));
	params.preemption_bound = -1;
	st = pr_strategy_create(o->strategy, &params);
	if (!st) {
		litmus_goal(l, 0);
		return GOAL_OPEN;
	}
	/* The witness sampler's scorer orders dpor's first choices. */
	pr_dpor_prefer(st, litmus_witness_score, NULL);
	for (uint64_t run = 0; ; run++) {
		struct pr_run_result res;

		if (st->ops->exhausted(st)) {
			end = GOAL_NONE;
			break;
		}
		if ((!(run & 15) && litmus_now() >= deadline) ||
		    interrupt_pending())
			break;
		pr_run_once(tg->prog, st, ro, 0, run, rec, &res);
		if (res.abandoned)
			continue;
		if (!(res.failed || res.diverged)) {
			if (litmus_hits(l) > hits0) {
				if (!o->brief && litmus_save_trace(o, tg, run,
						&res, rec, trace, tracelen))
					trace[0] = '\0';
				end = GOAL_REACHED;
				break;
			}
			continue;
		}
		/* A stopped process's run: whatever it ran into is the cut's. */
		if (litmus_goal_cut(l))
			continue;
		if (litmus_model_too_big(&res))
			break;
		if (!strcmp(res.verdict.kind, "deadlock") ||
		    !strcmp(res.verdict.kind, "livelock"))
			continue;
		if (!strncmp(res.verdict.kind, "litmus-never", 12)) {
			(*failed)++;
			end = GOAL_REACHED;
		} else {
			(*other)++;
			end = GOAL_OTHER;
		}
		*first = res;
		if (litmus_save_trace(o, tg, run, &res, rec, trace, tracelen))
			trace[0] = '\0';
		break;
	}
	st->ops->coverage(st, &cov);
	*execs = cov.executions;
	st->ops->destroy(st);
	litmus_goal(l, 0);
	return end;
}
