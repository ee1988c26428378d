/* SPDX-License-Identifier: MIT */
/*
 * lifetime.h - where the object a report is about was allocated and
 * freed, as KASAN prints it: collected during rich replay through the
 * shadow's observer (kernel/kasan.h), told after the conflicting
 * accesses.  Exploration never pays for it; pagerace-tsan keeps no notes
 * (lifetime.c says why).
 */
#ifndef PAGERACE_REPORT_LIFETIME_H
#define PAGERACE_REPORT_LIFETIME_H

#include <stdio.h>
#include "report/events.h"

/* Collect @log's lifetime notes during the replay between these calls. */
void pr_life_begin(struct pr_event_log *log);
void pr_life_end(void);

struct pr_report;
/* Queue the backtraces of the notes the report will print. */
void pr_report_lifetime_prepare(struct pr_report *r);
/*
 * For a memory-safety verdict (use-after-free, double-free, invalid-free,
 * out-of-bounds): "Allocated ...", "Queued for RCU freeing by ..." and
 * "Freed by ..." for the report's object: its last allocation before the
 * failing step and what ended that lifetime, each with its step and
 * backtrace.  Prints nothing when no note names the object.
 */
void pr_report_lifetime(FILE *f, struct pr_report *r);

#endif /* PAGERACE_REPORT_LIFETIME_H */
