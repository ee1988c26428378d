/* SPDX-License-Identifier: MIT */
/*
 * memnotes.c - store-buffer notes of a rich replay (memnotes.h).
 */
#include "report/memnotes.h"
#include "report/report.h"
#include "memory/memory.h"
#include "runtime/context.h"
#include "runtime/tsan.h"

#include <stdlib.h>
#include <string.h>

static struct pr_event_log *notes_log;

PR_NO_TSAN static void on_mem(const struct pr_mem_event *ev)
{
	struct pr_event_log *log = notes_log;
	struct pr_mem_note *n;

	if (log->nmem == log->memcap) {
		size_t cap = log->memcap ? 2 * log->memcap : 256;
		struct pr_mem_note *m = realloc(log->mem, cap * sizeof(*m));

		if (!m) {
			log->oom = 1;
			return;
		}
		log->mem = m;
		log->memcap = cap;
	}
	n = &log->mem[log->nmem++];
	memset(n, 0, sizeof(*n));
	n->kind = ev->kind;
	n->ctx = ev->ctx;
	n->reader = ev->reader;
	n->size = ev->size;
	n->val = ev->val;
	n->seen = ev->seen;
	n->store_step = ev->store_step;
	/* A flush is a decision's step of its own, the next one. */
	n->step = ev->kind == PR_ME_FLUSH ? ev->step + 1 : ev->step;
	pr_obj_name(ev->addr, n->obj, sizeof(n->obj));
	/* Named now, while the run's objects live; never a raw address. */
	pr_event_format_value(&ev->val, ev->size, n->val_s, sizeof(n->val_s));
	pr_event_format_value(&ev->seen, ev->size, n->seen_s,
			      sizeof(n->seen_s));
	/*
	 * A load served from its own CPU's buffer: the event's value at the
	 * yield point (read from memory) is not what the load got.
	 */
	if (ev->kind == PR_ME_FORWARD || ev->kind == PR_ME_OLD)
		for (size_t i = log->n; i-- > 0;)
			if (log->ev[i].ctx == ev->reader) {
				snprintf(log->ev[i].before,
					 sizeof(log->ev[i].before), "%s",
					 ev->kind == PR_ME_OLD ? n->seen_s
							       : n->val_s);
				break;
			}
}

PR_NO_TSAN void pr_mem_notes_begin(struct pr_event_log *log)
{
	log->memory = pr_mem_model();
	if (log->memory == PR_MEM_SC)
		return;
	notes_log = log;
	pr_mem_set_logger(on_mem);
}

PR_NO_TSAN void pr_mem_notes_end(void)
{
	pr_mem_set_logger(NULL);
	notes_log = NULL;
}

uint64_t pr_mem_note_flushed(const struct pr_event_log *log,
			     const struct pr_mem_note *n)
{
	for (size_t i = 0; i < log->nmem; i++) {
		const struct pr_mem_note *f = &log->mem[i];

		if (f->kind == PR_ME_FLUSH && f->ctx == n->ctx &&
		    f->store_step == n->store_step && !strcmp(f->obj, n->obj))
			return f->step;
	}
	return 0;
}

void pr_mem_mark_stale(struct pr_report *r)
{
	const struct pr_event_log *log = r->log;
	size_t e = 0;

	/* Notes and events are both in step order. */
	for (size_t i = 0; i < log->nmem; i++) {
		const struct pr_mem_note *n = &log->mem[i];

		if (n->kind != PR_ME_STALE && n->kind != PR_ME_OLD)
			continue;
		while (e < log->n && log->ev[e].step < n->step)
			e++;
		for (size_t k = e; k < log->n && log->ev[k].step == n->step; k++)
			if (log->ev[k].ctx == n->reader && !r->important[k])
				r->important[k] = 3;
	}
}

#define MAX_TOLD	12

/*
 * weak: loads that read an older value although the newer one was in
 * memory already (memory/stale.c): the load happened "as of" an earlier
 * time, which nothing between it and the CPU's earlier loads forbade.
 */
static void report_old(FILE *f, const struct pr_event_log *log)
{
	size_t old = 0, told = 0;

	for (size_t i = 0; i < log->nmem; i++)
		old += log->mem[i].kind == PR_ME_OLD;
	if (!old)
		return;
	fprintf(f, "%zu load%s read an older value although the newer one "
		"was in memory (no smp_rmb, acquire or dependency ordered "
		"%s after the CPU's earlier loads):\n", old,
		old == 1 ? "" : "s", old == 1 ? "it" : "them");
	for (size_t i = 0; i < log->nmem && told < MAX_TOLD; i++) {
		const struct pr_mem_note *n = &log->mem[i];
		uint64_t at;

		if (n->kind != PR_ME_OLD)
			continue;
		fprintf(f, "  %s read %s = %s at step %llu, an older value: ",
			log->ctx_name[n->reader], n->obj, n->seen_s,
			(unsigned long long)n->step);
		if (n->ctx < 0) {
			fprintf(f, "%s had been written since\n", n->val_s);
		} else {
			at = pr_mem_note_flushed(log, n);
			fprintf(f, "%s's store of %s at step %llu",
				log->ctx_name[n->ctx], n->val_s,
				(unsigned long long)n->store_step);
			if (at)
				fprintf(f, " had reached memory at step %llu\n",
					(unsigned long long)at);
			else
				fprintf(f, " was already in memory\n");
		}
		told++;
	}
	if (old > told)
		fprintf(f, "  ... and %zu more\n", old - told);
}

void pr_report_memory(FILE *f, const struct pr_report *r)
{
	const struct pr_event_log *log = r->log;
	size_t told = 0, stale = 0, buffered = 0;

	if (log->memory == PR_MEM_SC)
		return;
	for (size_t i = 0; i < log->nmem; i++) {
		stale += log->mem[i].kind == PR_ME_STALE;
		buffered += log->mem[i].kind == PR_ME_STORE &&
			    !pr_mem_note_flushed(log, &log->mem[i]);
	}
	fprintf(f, "\nMemory model %s: %zu load%s read an older value while "
		"a newer store sat in another CPU's store buffer%s\n",
		pr_mem_name(log->memory), stale, stale == 1 ? "" : "s",
		stale ? ":" : ".");
	for (size_t i = 0; i < log->nmem && told < MAX_TOLD; i++) {
		const struct pr_mem_note *n = &log->mem[i];
		uint64_t at;

		if (n->kind != PR_ME_STALE)
			continue;
		at = pr_mem_note_flushed(log, n);
		fprintf(f, "  %s read %s = %s at step %llu, an older value: "
			"%s's store of %s at step %llu was still in %s's "
			"store buffer", log->ctx_name[n->reader], n->obj,
			n->seen_s, (unsigned long long)n->step,
			log->ctx_name[n->ctx], n->val_s,
			(unsigned long long)n->store_step, log->ctx_name[n->ctx]);
		if (at)
			fprintf(f, " (it reached memory at step %llu)\n",
				(unsigned long long)at);
		else
			fprintf(f, " (it never reached memory before the run "
				"ended)\n");
		told++;
	}
	if (stale > told)
		fprintf(f, "  ... and %zu more\n", stale - told);
	report_old(f, log);
	if (r->res->failed && buffered) {
		told = 0;
		fprintf(f, "Still buffered when the run stopped:\n");
		for (size_t i = 0; i < log->nmem && told < MAX_TOLD; i++) {
			const struct pr_mem_note *n = &log->mem[i];

			if (n->kind != PR_ME_STORE || pr_mem_note_flushed(log, n))
				continue;
			fprintf(f, "  %s's store of %s to %s at step %llu\n",
				log->ctx_name[n->ctx], n->val_s,
				n->obj, (unsigned long long)n->store_step);
			told++;
		}
	}
}
