/* SPDX-License-Identifier: MIT */
/*
 * report.c - the text report (report.h), shaped like a kernel splat:
 *
 *   BUG: KIND on OBJ
 *   message
 *   the failing access: who, where, the value, its call trace
 *   the earlier accesses it conflicts with, each with its call trace
 *   read-side and interrupt state of every CPU at the end
 *   the timeline
 *
 * "Conflicting" is decided on object names, never addresses: the report
 * is about one object (the verdict's, else the failing access's), and an
 * earlier access to it conflicts when it was made by another context (or
 * by an interrupt handler on the same one) and one of the two writes, or
 * when the failing context itself wrote it earlier (its own reference
 * taking or lock taking is often half the story).
 */
#include "report/report.h"
#include "report/lifetime.h"
#include "report/memnotes.h"
#include "report/verdict.h"

#include <stdlib.h>
#include <string.h>

#define PER_THREAD	4	/* conflicting writes shown per context */

const char *pr_report_who(const struct pr_report *r, const struct pr_event *e,
			  char *buf, size_t len)
{
	const struct pr_event_log *log = r->log;
	const char *name = e->ctx >= 0 && e->ctx < log->nctx ?
			   log->ctx_name[e->ctx] : "?";

	if (e->inject >= 0 && e->inject < log->ninj)
		snprintf(buf, len, "%s (in interrupt %s)", name,
			 log->inj_name[e->inject]);
	else if (e->inject >= 0)
		snprintf(buf, len, "%s (in interrupt)", name);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

static int usable_name(const char *n)
{
	return n[0] && strcmp(n, "-") && strcmp(n, "?");
}

static int kind_writes(int kind)
{
	return kind < PR_K_NR && PR_KIND_WRITES(kind);
}

static long find_failing(const struct pr_event_log *log,
			 const struct pr_verdict *v)
{
	if (v->ctx < 0)
		return -1;
	for (size_t i = log->n; i-- > 0;) {
		const struct pr_event *e = &log->ev[i];

		if (e->ctx == v->ctx && (e->inject >= 0) == (v->in_event != 0) &&
		    e->site)
			return (long)i;
	}
	return -1;
}

static void pick_related(struct pr_report *r)
{
	const struct pr_event_log *log = r->log;
	const struct pr_event *fe = r->fail >= 0 ? &log->ev[r->fail] : NULL;
	size_t end = log->n;
	int count[PR_MAX_CTX][2] = { { 0 } };
	char base[PR_EV_NAME];

	r->nrel = 0;
	if (!r->focus[0])
		return;
	/* Newest first, so the per-context caps keep the latest. */
	for (size_t i = end; i-- > 0 && r->nrel < PR_REPORT_MAX_RELATED;) {
		const struct pr_event *e = &log->ev[i];
		int lvl = e->inject >= 0, w = kind_writes(e->kind);

		if (!e->site || e->ctx < 0 || e->ctx >= PR_MAX_CTX ||
		    (long)i == r->fail)
			continue;
		pr_event_base(e->obj, base, sizeof(base));
		if (strcmp(base, r->focus))
			continue;
		if (fe && pr_event_same_thread(e, fe)) {
			if (!w)
				continue;	/* its own reads */
		} else if (!w && fe && !kind_writes(fe->kind)) {
			continue;		/* read against read */
		}
		if (count[e->ctx][lvl] >= PER_THREAD)
			continue;
		count[e->ctx][lvl]++;
		r->related[r->nrel++] = (long)i;
	}
	/* Oldest first for the reader. */
	for (int a = 0, b = r->nrel - 1; a < b; a++, b--) {
		long t = r->related[a];

		r->related[a] = r->related[b];
		r->related[b] = t;
	}
}

int pr_report_init(struct pr_report *r, const struct pr_event_log *log,
		   const struct pr_run_result *res, const char *title)
{
	const struct pr_verdict *v = &res->verdict;

	memset(r, 0, sizeof(*r));
	r->log = log;
	r->res = res;
	snprintf(r->title, sizeof(r->title), "%s", title ? title : "");
	r->fail = res->failed ? find_failing(log, v) : -1;
	if (res->failed && usable_name(v->obj))
		pr_event_base(v->obj, r->focus, sizeof(r->focus));
	else if (r->fail >= 0 && usable_name(log->ev[r->fail].obj))
		pr_event_base(log->ev[r->fail].obj, r->focus, sizeof(r->focus));
	pick_related(r);
	r->important = calloc(log->n + 1, 1);
	r->st = pr_symtab_new();
	if (!r->important || !r->st) {
		pr_report_free(r);
		return -1;
	}
	for (int i = 0; i < r->nrel; i++)
		r->important[r->related[i]] = 1;
	if (r->fail >= 0)
		r->important[r->fail] = 2;
	pr_mem_mark_stale(r);
	pr_report_lifetime_prepare(r);
	for (size_t i = 0; i < log->n; i++)
		if (r->important[i])
			pr_symtab_add(r->st, &log->ev[i]);
	if (r->fail < 0 && !r->nrel)	/* print_last_accesses() */
		for (size_t i = 0; i < log->n; i++)
			if (log->ev[i].site)
				pr_symtab_add(r->st, &log->ev[i]);
	pr_symtab_resolve(r->st);
	return 0;
}

void pr_report_free(struct pr_report *r)
{
	free(r->important);
	pr_symtab_free(r->st);
	r->important = NULL;
	r->st = NULL;
}

static void print_value(FILE *f, const struct pr_event *e)
{
	if (e->before[0] && e->after[0] && strcmp(e->before, e->after))
		fprintf(f, " (%s -> %s)", e->before, e->after);
	else if (e->before[0])
		fprintf(f, " (value %s)", e->before);
}

static void print_state(FILE *f, const struct pr_event *e)
{
	if (e->in_rcu && e->irqs_off)
		fprintf(f, " [rcu_read_lock held, irqs off]");
	else if (e->in_rcu)
		fprintf(f, " [rcu_read_lock held]");
	else if (e->irqs_off)
		fprintf(f, " [irqs off]");
}

/* "cpu0 at step 10: LABEL on OBJ (a -> b) [state]" and its call trace. */
static void print_access(FILE *f, struct pr_report *r,
			 const struct pr_event *e, const char *verb)
{
	char who[96];

	fprintf(f, "%s by %s at step %llu:\n", verb,
		pr_report_who(r, e, who, sizeof(who)),
		(unsigned long long)e->step);
	fprintf(f, "  %s on %s", e->label, e->obj);
	print_value(f, e);
	print_state(f, e);
	if (e->preempted)
		fprintf(f, ", then preempted");
	fputc('\n', f);
	pr_backtrace_print(f, r->st, e, "   ");
}

/* Since when has @ctx been inside rcu_read_lock at the end of the log? */
static void print_readers(FILE *f, const struct pr_report *r)
{
	const struct pr_event_log *log = r->log;
	int any = 0;

	for (int c = 0; c < log->nctx && c < PR_MAX_CTX; c++) {
		long last = -1, since = -1;

		for (size_t i = log->n; i-- > 0;)
			if (log->ev[i].ctx == c) {
				last = (long)i;
				break;
			}
		if (last < 0 || (!log->ev[last].in_rcu && !log->ev[last].irqs_off))
			continue;
		if (!any)
			fprintf(f, "\nHeld at each context's last recorded step:\n");
		any = 1;
		if (log->ev[last].in_rcu) {
			for (long i = last; i >= 0; i--) {
				if (log->ev[i].ctx != c)
					continue;
				if (!log->ev[i].in_rcu)
					break;
				since = i;
			}
			fprintf(f, "  %s (step %llu): inside rcu_read_lock since step %llu (%s)\n",
				log->ctx_name[c],
				(unsigned long long)log->ev[last].step,
				(unsigned long long)log->ev[since].step,
				log->ev[since].label);
		}
		if (log->ev[last].irqs_off)
			fprintf(f, "  %s (step %llu): interrupts disabled\n",
				log->ctx_name[c],
				(unsigned long long)log->ev[last].step);
	}
}

/* Nothing to focus on (an end-of-run check without an object). */
static void print_last_accesses(FILE *f, struct pr_report *r, int gap)
{
	const struct pr_event_log *log = r->log;

	fprintf(f, "%sLast access by each context:\n", gap ? "\n" : "");
	for (int c = 0; c < log->nctx && c < PR_MAX_CTX; c++)
		for (size_t i = log->n; i-- > 0;)
			if (log->ev[i].ctx == c && log->ev[i].site) {
				fputc('\n', f);
				print_access(f, r, &log->ev[i], "Access");
				break;
			}
}

void pr_report_text(FILE *f, struct pr_report *r)
{
	const struct pr_event_log *log = r->log;
	const struct pr_verdict *v = &r->res->verdict;
	const char *rule =
		"==================================================================";

	fprintf(f, "%s\n", rule);
	if (!r->res->failed) {
		fprintf(f, "no failure: %s ran %llu steps\n", r->title,
			(unsigned long long)r->res->steps);
	} else {
		fprintf(f, "BUG: %s", v->kind);
		if (usable_name(v->obj))
			fprintf(f, " on %s", v->obj);
		else if (r->focus[0])
			fprintf(f, " on %s", r->focus);
		fprintf(f, "\n");
		if (v->msg[0])
			fprintf(f, "%s\n", v->msg);
	}
	fprintf(f, "%s: %llu steps, %llu preemptions, %zu switches\n",
		r->title, (unsigned long long)r->res->steps,
		(unsigned long long)r->res->preemptions, log->nsw);
	if (r->res->failed && v->ctx < 0)
		fprintf(f, "found by the end-of-run check, after every context finished\n");
	if (log->oom)
		fprintf(f, "(out of memory: the event log is incomplete)\n");
	fputc('\n', f);
	if (r->fail >= 0)
		print_access(f, r, &log->ev[r->fail],
			     r->res->failed ? "Failing access" : "Last access");

	if (r->nrel) {
		fprintf(f, "%sEarlier accesses to %s it conflicts with, oldest first:\n",
			r->fail >= 0 ? "\n" : "", r->focus);
		for (int i = 0; i < r->nrel; i++) {
			fputc('\n', f);
			print_access(f, r, &log->ev[r->related[i]],
				     kind_writes(log->ev[r->related[i]].kind) ?
				     "Write" : "Read");
		}
	} else if (r->focus[0]) {
		fprintf(f, "%sNo earlier conflicting access to %s was recorded.\n",
			r->fail >= 0 ? "\n" : "", r->focus);
	}
	if (r->fail < 0 && !r->nrel)
		print_last_accesses(f, r, !!r->focus[0]);
	pr_report_lifetime(f, r);
	print_readers(f, r);
	pr_report_memory(f, r);
	fputc('\n', f);
	pr_report_timeline(f, r);
	fprintf(f, "%s\n", rule);
}
