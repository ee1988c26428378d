/* SPDX-License-Identifier: MIT */
/*
 * chrome.c - the replayed run as Chrome Trace Event JSON, for Perfetto
 * (ui.perfetto.dev) and chrome://tracing.
 *
 * One process, one thread per context (tid = context id + 1, named with
 * thread_name metadata).  One step is one microsecond of trace time.
 * Each stretch of consecutive steps by one context is a complete ("X")
 * event named after its first yield point, each step inside it a nested
 * one-microsecond event with the object and values as args; preemptions,
 * interrupt deliveries and the failure are instant ("i") events.
 */
#include "report/report.h"
#include "report/memnotes.h"
#include "memory/memory.h"

/* Store-buffer threads come after every CPU's. */
#define BUF_TID	1000
#include "util/json.h"

#include <string.h>

static void sep(FILE *f, int *first)
{
	fputs(*first ? "\n" : ",\n", f);
	*first = 0;
}

static void step_event(FILE *f, const struct pr_report *r, size_t i,
		       int *first)
{
	const struct pr_event *e = &r->log->ev[i];

	sep(f, first);
	fprintf(f, "{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%llu,\"dur\":1,\"name\":",
		e->ctx + 1, (unsigned long long)e->step);
	pr_json_string(f, e->label);
	fprintf(f, ",\"cat\":\"%s\",\"args\":{\"step\":%llu,\"object\":",
		r->important[i] == 2 ? "failing" :
		r->important[i] == 3 ? "older-value" :
		r->important[i] ? "conflict" : "step",
		(unsigned long long)e->step);
	pr_json_string(f, e->obj);
	if (e->before[0]) {
		fprintf(f, ",\"before\":");
		pr_json_string(f, e->before);
	}
	if (e->after[0]) {
		fprintf(f, ",\"after\":");
		pr_json_string(f, e->after);
	}
	if (e->in_rcu)
		fprintf(f, ",\"rcu_read_lock\":true");
	if (e->irqs_off)
		fprintf(f, ",\"irqs_off\":true");
	fprintf(f, "}}");
	if (e->preempted) {
		sep(f, first);
		fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%d,\"ts\":%llu,\"name\":\"preempted\"}",
			e->ctx + 1, (unsigned long long)e->step + 1);
	}
}

/*
 * tso, weak: each CPU's store buffer is a thread of its own ("cpu0 store
 * buffer", after the CPUs), each store a slice from the step it was made
 * to the step it reached memory.
 */
static void buffered(FILE *f, const struct pr_report *r, int *first)
{
	const struct pr_event_log *log = r->log;
	uint64_t shown = 0;

	for (size_t i = 0; i < log->nmem; i++) {
		const struct pr_mem_note *n = &log->mem[i];
		uint64_t at, end;
		char name[PR_EV_NAME + PR_EV_VALUE + 8];

		if (n->kind != PR_ME_STORE || n->ctx >= log->nctx)
			continue;
		if (!(shown & ((uint64_t)1 << n->ctx))) {
			shown |= (uint64_t)1 << n->ctx;
			snprintf(name, sizeof(name), "%s store buffer",
				 log->ctx_name[n->ctx]);
			sep(f, first);
			fprintf(f, "{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":",
				BUF_TID + n->ctx);
			pr_json_string(f, name);
			fprintf(f, "}}");
			sep(f, first);
			fprintf(f, "{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
				BUF_TID + n->ctx, BUF_TID + n->ctx);
		}
		at = pr_mem_note_flushed(log, n);
		end = at ? at : r->res->steps + 1;
		snprintf(name, sizeof(name), "%s = %s", n->obj, n->val_s);
		sep(f, first);
		fprintf(f, "{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%llu,\"dur\":%llu,\"name\":",
			BUF_TID + n->ctx, (unsigned long long)n->store_step,
			(unsigned long long)(end > n->store_step ?
					     end - n->store_step : 1));
		pr_json_string(f, name);
		fprintf(f, ",\"cat\":\"buffered\",\"args\":{\"stored\":%llu,"
			"\"in_memory\":%llu}}", (unsigned long long)n->store_step,
			(unsigned long long)at);
	}
}

/*
 * weak: a load that read an older value (memory/stale.c), an instant
 * mark on its CPU's thread.
 */
static void older_reads(FILE *f, const struct pr_report *r, int *first)
{
	const struct pr_event_log *log = r->log;

	for (size_t i = 0; i < log->nmem; i++) {
		const struct pr_mem_note *n = &log->mem[i];
		char name[PR_EV_NAME + 2 * PR_EV_VALUE + 32];

		if (n->kind != PR_ME_OLD || n->reader < 0 ||
		    n->reader >= log->nctx)
			continue;
		snprintf(name, sizeof(name), "read older %s = %s (newer: %s)",
			 n->obj, n->seen_s, n->val_s);
		sep(f, first);
		fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%d,\"ts\":%llu,\"cat\":\"stale\",\"name\":",
			n->reader + 1, (unsigned long long)n->step);
		pr_json_string(f, name);
		fprintf(f, "}");
	}
}

void pr_report_chrome(FILE *f, const struct pr_report *r)
{
	const struct pr_event_log *log = r->log;
	int first = 1;

	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"title\":");
	pr_json_string(f, r->title);
	fprintf(f, ",\"steps\":%llu,\"preemptions\":%llu},\"traceEvents\":[",
		(unsigned long long)r->res->steps,
		(unsigned long long)r->res->preemptions);
	sep(f, &first);
	fprintf(f, "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":");
	pr_json_string(f, r->title);
	fprintf(f, "}}");
	for (int c = 0; c < log->nctx; c++) {
		sep(f, &first);
		fprintf(f, "{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":",
			c + 1);
		pr_json_string(f, log->ctx_name[c]);
		fprintf(f, "}}");
		sep(f, &first);
		fprintf(f, "{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
			c + 1, c);
	}
	for (size_t a = 0; a < log->n;) {
		const struct pr_event *e = &log->ev[a];
		size_t b = a;
		char name[160];

		while (b + 1 < log->n && pr_event_same_thread(&log->ev[b + 1], e))
			b++;
		if (e->inject >= 0)
			snprintf(name, sizeof(name), "interrupt %s",
				 e->inject < log->ninj ? log->inj_name[e->inject] : "?");
		else
			snprintf(name, sizeof(name), "%s", e->site ? e->site->func :
				 e->label);
		sep(f, &first);
		fprintf(f, "{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%llu,\"dur\":%llu,\"name\":",
			e->ctx + 1, (unsigned long long)e->step,
			(unsigned long long)(log->ev[b].step + 1 - e->step));
		pr_json_string(f, name);
		fprintf(f, ",\"cat\":\"stretch\",\"args\":{\"steps\":%zu}}", b - a + 1);
		for (size_t i = a; i <= b; i++)
			step_event(f, r, i, &first);
		a = b + 1;
	}
	buffered(f, r, &first);
	older_reads(f, r, &first);
	if (r->res->failed) {
		const struct pr_verdict *v = &r->res->verdict;
		char name[128];

		snprintf(name, sizeof(name), "BUG: %s on %s", v->kind, v->obj);
		sep(f, &first);
		fprintf(f, "{\"ph\":\"i\",\"s\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%llu,\"name\":",
			v->ctx >= 0 ? "t" : "p", v->ctx >= 0 ? v->ctx + 1 : 1,
			(unsigned long long)v->step + 1);
		pr_json_string(f, name);
		fprintf(f, ",\"args\":{\"message\":");
		pr_json_string(f, v->msg);
		fprintf(f, "}}");
	}
	fprintf(f, "\n]}\n");
}
