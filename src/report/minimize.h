/* SPDX-License-Identifier: MIT */
/*
 * minimize.h - shrink a failing schedule while keeping its failure.
 *
 * A failure is kept when a run fails with the same verdict kind at the
 * same location: the same yield point (site label) and the same object.
 * Among schedules that keep it, smaller means fewer preemptions first,
 * then fewer steps, then fewer segments.  Candidates are made by delta
 * debugging over the schedule's decisions -- dropping chunks of segments,
 * halving then single -- and by moving each switch earlier; each is run
 * under the guided strategy (strategy.h), which follows the proposal
 * where it can and runs without preemption after it, and the schedule the
 * run really took is what is kept, so the result always replays exactly.
 */
#ifndef PAGERACE_REPORT_MINIMIZE_H
#define PAGERACE_REPORT_MINIMIZE_H

#include <stdint.h>
#include "runtime/run.h"

struct pr_min_stats {
	uint64_t runs;			/* candidate runs executed */
	uint64_t preemptions[2];	/* before, after */
	uint64_t steps[2];
	uint64_t segments[2];
	int stopped;			/* stop() ended the work early */
};

/* Does @res fail like @want (kind, site, object)? */
int pr_same_failure(const struct pr_run_result *res,
		    const struct pr_verdict *want);

/*
 * Minimise @sched, a schedule of run (@seed, @run) of @prog that fails
 * with @want.  On success returns 0 with the smallest schedule found in
 * @out (initialised here; its segments' end sites point into the
 * program), its run's result in @res and the counts in @st.  Returns -1
 * with a reason in @err if @sched does not reproduce @want, or on
 * running out of memory.  @max_runs bounds the work (0: 20000); @stop,
 * if not NULL, is asked before each candidate run and ends the work when
 * it returns nonzero (Ctrl-C): the result is then the smallest schedule
 * found so far, and st->stopped is set.
 */
int pr_minimize(const struct pr_program *prog, const struct pr_run_options *ro,
		uint64_t seed, uint64_t run, const struct pr_schedule *sched,
		const struct pr_verdict *want, uint64_t max_runs, int (*stop)(void),
		struct pr_schedule *out, struct pr_run_result *res,
		struct pr_min_stats *st, char *err, size_t errlen);

#endif /* PAGERACE_REPORT_MINIMIZE_H */
