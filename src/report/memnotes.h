/* SPDX-License-Identifier: MIT */
/*
 * memnotes.h - a tso or weak run's store buffers in a report: collected
 * during rich replay (events.c), told in words (text report), drawn
 * (timeline, HTML, Chrome).  Nothing here runs under sc.
 */
#ifndef PAGERACE_REPORT_MEMNOTES_H
#define PAGERACE_REPORT_MEMNOTES_H

#include <stdio.h>
#include "report/events.h"

/* Collect @log's notes during the replay between these two calls. */
void pr_mem_notes_begin(struct pr_event_log *log);
void pr_mem_notes_end(void);

/*
 * The step at which the store of note @n reached memory, 0 if it was
 * still buffered when the run ended.
 */
uint64_t pr_mem_note_flushed(const struct pr_event_log *log,
			     const struct pr_mem_note *n);

struct pr_report;
/*
 * Mark (important 3, '<' in the timeline) every load that read an older
 * value while a newer store sat in another CPU's buffer, unless it is
 * marked already.
 */
void pr_mem_mark_stale(struct pr_report *r);

/*
 * The "Memory" section of the text report: the model, and every load
 * that read an older value while a newer store sat in another CPU's
 * buffer, in words.  Prints nothing under sc.
 */
void pr_report_memory(FILE *f, const struct pr_report *r);

#endif /* PAGERACE_REPORT_MEMNOTES_H */
