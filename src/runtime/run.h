/* SPDX-License-Identifier: MIT */
/*
 * run.h - executing one run of a program under a strategy, and what a run
 * leaves behind: its schedule (the decisions, run-length encoded) and its
 * verdict.
 */
#ifndef PAGERACE_RUNTIME_RUN_H
#define PAGERACE_RUNTIME_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/context.h"
#include "runtime/choice.h"

/*
 * A program under test.  @setup resets the program's shared state and
 * creates its contexts (pr_spawn, pr_inject); it runs before every run, on
 * the main stack.  @finish, if set, runs after a run that did not fail and
 * may pr_fail() on end-of-run invariants (leaks, lost updates).
 */
struct pr_program {
	const char *name;
	const char *summary;
	void (*setup)(void *arg);
	void (*finish)(void *arg);
	void *arg;
};

/*
 * One segment of a schedule: choice @code ran for @steps yield points,
 * then stopped at the site labelled @end (see pr_site_label).
 */
struct pr_segment {
	uint16_t code;
	uint32_t steps;
	const struct pr_site *end;	/* recording: the site itself */
	const char *end_label;		/* read from a trace */
};

struct pr_schedule {
	struct pr_segment *seg;
	size_t n, cap;
};

void pr_schedule_init(struct pr_schedule *s);
void pr_schedule_free(struct pr_schedule *s);
void pr_schedule_grow(struct pr_schedule *s);
/* Append @seg; the array grows geometrically and is kept between runs. */
PR_NO_TSAN static inline void pr_schedule_push(struct pr_schedule *s,
					       const struct pr_segment *seg)
{
	if (__builtin_expect(s->n == s->cap, 0))
		pr_schedule_grow(s);
	s->seg[s->n++] = *seg;
}
uint64_t pr_schedule_steps(const struct pr_schedule *s);
/* The label of segment @i's end, whichever way the schedule was made. */
const char *pr_segment_end_label(const struct pr_segment *seg, char *buf,
				 size_t len);

/* "func:kind" or "func:kind:tag": how traces identify a site. */
const char *pr_site_label(const struct pr_site *site, char *buf, size_t len);
const char *pr_kind_name(int kind);

#define PR_VERDICT_TEXT 256

struct pr_verdict {
	char kind[32];		/* "" if the run passed */
	uint64_t step;
	int ctx;		/* -1: outside any context (end-of-run check) */
	int in_event;		/* inside an injected event's handler */
	char ctx_name[32];
	char obj[64];
	char site[128];		/* label of the last yield point passed */
	char where[160];	/* file:line of that yield point */
	char msg[PR_VERDICT_TEXT];
};

struct pr_run_result {
	int failed;		/* a verdict other than divergence */
	int diverged;		/* replay could not follow its schedule */
	int abandoned;		/* the strategy ended it early, with nothing
				 * to learn below (dpor's sleep-set blocked
				 * executions); not a complete execution */
	uint64_t steps;
	uint64_t preemptions;	/* switches away from a still-runnable context */
	struct pr_verdict verdict;
};

struct pr_run_options {
	uint64_t max_steps;	/* a run longer than this is a livelock */
	size_t stack_size;	/* per context */
	/*
	 * pagerace-tsan: the contexts' accesses are out of ThreadSanitizer's
	 * sight, so no data-race verdict ends the run early (PCT's
	 * calibration measures the run length the plain build measures).
	 * No effect in the plain build.  Default 0.
	 */
	int tsan_blind;
};

void pr_run_options_default(struct pr_run_options *o);

/*
 * Execute run @run of @prog with strategy @strat and exploration seed
 * @seed.  When @rec is not NULL the schedule is recorded into it (it is
 * emptied first).  Returns res->failed || res->diverged.
 */
int pr_run_once(const struct pr_program *prog, struct pr_strategy *strat,
		const struct pr_run_options *opts, uint64_t seed, uint64_t run,
		struct pr_schedule *rec, struct pr_run_result *res);

/*
 * Call before fork() from a process that has executed runs (explore's
 * workers).  pagerace-tsan: destroy the ThreadSanitizer fibers kept from
 * the last run.  TSan counts live fibers as threads, and a child forked
 * from a process with more than one treats itself as forked from a
 * multi-threaded program: it ignores every access and reports nothing,
 * so its runs would find no data race.  The next run makes new fibers,
 * as the first run of a fresh process does.  A no-op in the plain build.
 */
void pr_run_before_fork(void);

/*
 * Optional observer for rich replay: called at every yield point the
 * runtime passes through its slow path (the strategy sets budget 1 to see
 * them all).  NULL by default; exploration never pays for it.
 */
typedef void (*pr_step_observer)(const struct pr_site *site, const void *obj,
				 int ctx, uint64_t step);
void pr_set_step_observer(pr_step_observer fn);

/*
 * Optional observer of decisions, for rich replay: called once the
 * strategy has picked choice @idx of @cs (which says why it was asked, who
 * ran before and at which step); @preempted is set when that context was
 * still runnable.  This is how a report learns of exits, handler returns
 * and preemptions, which are not yield points.  NULL by default.
 */
typedef void (*pr_decision_observer)(const struct pr_choices *cs, int idx,
				     int preempted);
void pr_set_decision_observer(pr_decision_observer fn);

#endif /* PAGERACE_RUNTIME_RUN_H */
