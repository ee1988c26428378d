/* SPDX-License-Identifier: MIT */
/*
 * verdict.h - the short, text report of a run's verdict, as explore and
 * replay print it.  Rich reports (backtraces, timelines) build on replay.
 */
#ifndef PAGERACE_REPORT_VERDICT_H
#define PAGERACE_REPORT_VERDICT_H

#include <stdio.h>
#include "runtime/run.h"

/* One line: "KIND on OBJ at step N (CTX): MESSAGE". */
void pr_report_verdict_line(FILE *f, const struct pr_verdict *v);

/* The indented block under a failure headline. */
void pr_report_verdict(FILE *f, const struct pr_run_result *res,
		       size_t nsegments);

#endif /* PAGERACE_REPORT_VERDICT_H */
