/* SPDX-License-Identifier: MIT */
/*
 * timeline.c - one column per context, one row per step that matters.
 *
 * The run is cut into stretches: maximal runs of consecutive steps by one
 * context at one level (task or interrupt handler).  Each stretch shows
 * its first and last step, the steps in between that the report is about
 * (the failing access '>', conflicting accesses '#'), and a ". N steps"
 * row for what it skips.  A '*' ends a stretch whose context was
 * preempted; an interrupt's stretch is labelled with its handler.
 * Under tso and weak, a "~" row in a CPU's column is a flush: one of its
 * buffered stores reaching memory (memnotes.h), in step order.
 */
#include "report/report.h"
#include "memory/memory.h"

#include <stdlib.h>
#include <string.h>

#define COLW	36	/* the narrowest context column */

/*
 * The timeline is laid out twice: first measuring (each column as wide
 * as its widest cell, so no label is cut), then printing.
 */
struct tl {
	FILE *f;
	int measure;
	size_t w[PR_MAX_CTX];
};

/* One line: the step, then @cells[c] (NULL: empty) per context. */
static void emit(struct tl *t, int n, const char *step,
		 const char *const *cells)
{
	size_t len = 16, off;
	char *line;

	if (t->measure) {
		for (int c = 0; c < n; c++)
			if (cells[c] && strlen(cells[c]) > t->w[c])
				t->w[c] = strlen(cells[c]);
		return;
	}
	for (int c = 0; c < n; c++)
		len += t->w[c] + 3;
	line = malloc(len);
	if (!line)
		return;
	off = (size_t)snprintf(line, len, "%8s", step);
	for (int c = 0; c < n && off < len; c++)
		off += (size_t)snprintf(line + off, len - off, " | %-*s",
					(int)t->w[c], cells[c] ? cells[c] : "");
	if (off >= len)
		off = len - 1;
	while (off > 0 && line[off - 1] == ' ')
		off--;
	line[off] = '\0';
	fprintf(t->f, "%s\n", line);
	free(line);
}

static void row(struct tl *t, const struct pr_report *r, const char *step,
		int ctx, const char *text)
{
	const char *cells[PR_MAX_CTX] = { NULL };
	int n = r->log->nctx < 1 ? 1 : r->log->nctx;

	if (ctx >= 0 && ctx < PR_MAX_CTX)
		cells[ctx] = text;
	emit(t, n, step, cells);
}

static void event_row(struct tl *t, const struct pr_report *r, size_t i)
{
	const struct pr_event *e = &r->log->ev[i];
	char text[sizeof(e->label) + 2 * PR_EV_VALUE + 8], step[24];
	char mark = r->important[i] == 2 ? '>' : r->important[i] == 3 ? '<' :
		    r->important[i] ? '#' : ' ';

	snprintf(step, sizeof(step), "%llu", (unsigned long long)e->step);
	if (r->important[i] && e->before[0] && e->after[0] &&
	    strcmp(e->before, e->after))
		snprintf(text, sizeof(text), "%c%s %s->%s", mark, e->label,
			 e->before, e->after);
	else
		snprintf(text, sizeof(text), "%c%s", mark, e->label);
	if (e->preempted && strlen(text) < sizeof(text) - 3)
		strcat(text, " *");
	row(t, r, step, e->ctx, text);
}

/* The flushes before step @upto, from note *@k on. */
static void flush_rows(struct tl *t, const struct pr_report *r, size_t *k,
		       uint64_t upto)
{
	const struct pr_event_log *log = r->log;
	char text[PR_EV_NAME + PR_EV_VALUE + 32], step[24];

	for (; *k < log->nmem && log->mem[*k].step < upto; (*k)++) {
		const struct pr_mem_note *n = &log->mem[*k];

		if (n->kind != PR_ME_FLUSH)
			continue;
		snprintf(step, sizeof(step), "%llu", (unsigned long long)n->step);
		snprintf(text, sizeof(text), "~%s = %s visible (stored %llu)",
			 n->obj, n->val_s, (unsigned long long)n->store_step);
		row(t, r, step, n->ctx, text);
	}
}

static void timeline(struct tl *t, const struct pr_report *r)
{
	size_t k = 0;	/* the next store-buffer note */
	const struct pr_event_log *log = r->log;
	int n = log->nctx < 1 ? 1 : log->nctx;
	const char *names[PR_MAX_CTX] = { NULL };
	char buf[96];

	for (int c = 0; c < n && c < PR_MAX_CTX; c++)
		names[c] = log->ctx_name[c];
	emit(t, n, "step", names);
	for (size_t a = 0; a < log->n;) {
		const struct pr_event *first = &log->ev[a];
		size_t b = a, last_shown = a;

		while (b + 1 < log->n &&
		       pr_event_same_thread(&log->ev[b + 1], first))
			b++;
		flush_rows(t, r, &k, first->step);
		if (first->inject >= 0) {
			snprintf(buf, sizeof(buf), "<interrupt %s>",
				 first->inject < log->ninj ?
				 log->inj_name[first->inject] : "?");
			row(t, r, "", first->ctx, buf);
		}
		event_row(t, r, a);
		for (size_t i = a + 1; i <= b; i++) {
			if (i != b && !r->important[i])
				continue;
			flush_rows(t, r, &k, log->ev[i].step);
			if (i > last_shown + 1) {
				snprintf(buf, sizeof(buf), " . %zu step%s",
					 i - last_shown - 1,
					 i - last_shown - 1 == 1 ? "" : "s");
				row(t, r, "", first->ctx, buf);
			}
			event_row(t, r, i);
			last_shown = i;
		}
		a = b + 1;
	}
	flush_rows(t, r, &k, r->res->verdict.step + 1);
	if (r->res->failed) {
		const struct pr_verdict *v = &r->res->verdict;
		char step[24];

		snprintf(step, sizeof(step), "%llu", (unsigned long long)v->step);
		snprintf(buf, sizeof(buf), "!! BUG: %s%s", v->kind,
			 v->ctx < 0 ? " (end-of-run check)" : "");
		row(t, r, step, v->ctx < 0 ? 0 : v->ctx, buf);
	}
}

void pr_report_timeline(FILE *f, const struct pr_report *r)
{
	struct tl t;

	memset(&t, 0, sizeof(t));
	t.f = f;
	t.measure = 1;
	for (int c = 0; c < PR_MAX_CTX; c++)
		t.w[c] = COLW;
	timeline(&t, r);
	t.measure = 0;
	fprintf(f, "Timeline ('>' the failing access, '#' a conflicting one, "
		"'*' preempted%s):\n", r->log->memory ? ", '<' a load that read "
		"an older value, '~' a buffered store reaching memory" : "");
	timeline(&t, r);
}
