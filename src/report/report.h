/* SPDX-License-Identifier: MIT */
/*
 * report.h - the rich report of a replayed run: what failed, where, and
 * which earlier accesses by whom it conflicts with, as text (in the manner
 * of a kernel KASAN or lockdep splat), as a timeline, as Chrome Trace
 * Event JSON and as an HTML/SVG swimlane picture.
 *
 * Every renderer is a pure function of the event log, the run's result
 * and the title: two replays of one trace give byte-identical output.
 */
#ifndef PAGERACE_REPORT_REPORT_H
#define PAGERACE_REPORT_REPORT_H

#include <stdio.h>
#include "report/backtrace.h"
#include "report/events.h"

#define PR_REPORT_MAX_RELATED	16

struct pr_report {
	const struct pr_event_log *log;
	const struct pr_run_result *res;
	char title[256];	/* "pc-lookup-reuse (knobs no-recheck)" */
	long fail;		/* the failing access in log->ev, -1: none */
	char focus[PR_EV_NAME];	/* the object the report is about, "" */
	long related[PR_REPORT_MAX_RELATED];	/* conflicting events, in order */
	int nrel;
	unsigned char *important;	/* per event: shown on its own line */
	struct pr_symtab *st;
};

/*
 * Work out the failing access, the object in question and the events that
 * conflict with it, and symbolise their backtraces.  0, or -1 (no memory).
 */
int pr_report_init(struct pr_report *r, const struct pr_event_log *log,
		   const struct pr_run_result *res, const char *title);
void pr_report_free(struct pr_report *r);

/* The whole text report: headline, accesses, backtraces, timeline. */
void pr_report_text(FILE *f, struct pr_report *r);

/* timeline.c: one column per context, the steps that matter. */
void pr_report_timeline(FILE *f, const struct pr_report *r);

/* chrome.c: Chrome Trace Event JSON (Perfetto, chrome://tracing). */
void pr_report_chrome(FILE *f, const struct pr_report *r);

/* html.c: one self-contained HTML page with an SVG swimlane picture. */
void pr_report_html(FILE *f, struct pr_report *r);

/* "cpu0" or "cpu0 (in interrupt timer)" for event @e, into @buf. */
const char *pr_report_who(const struct pr_report *r, const struct pr_event *e,
			  char *buf, size_t len);

/* Is @e an event of the same context and handler level as @o? */
static inline int pr_event_same_thread(const struct pr_event *e,
				       const struct pr_event *o)
{
	return e->ctx == o->ctx && (e->inject >= 0) == (o->inject >= 0);
}

#endif /* PAGERACE_REPORT_REPORT_H */
