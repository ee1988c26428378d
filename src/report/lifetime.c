/* SPDX-License-Identifier: MIT */
/*
 * lifetime.c - allocation and free notes of pool objects (lifetime.h).
 *
 * The shadow tells of a change from inside the step that made it: the
 * context running is pr_self() (-1 during the program's set-up), and its
 * latest event in the log is that step.  A note copies that event's step
 * and context and takes a backtrace of its own, so the report can print
 * it like an access.
 */
#include "runtime/tsan.h"
#include "report/lifetime.h"
#include "report/report.h"
#include "kernel/kasan.h"
#include "runtime/context.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdlib.h>
#include <string.h>

static struct pr_event_log *life_log;

PR_NO_TSAN static void on_shadow(const void *obj, enum kasan_state old,
				 enum kasan_state s)
{
	struct pr_event_log *log = life_log;
	int ctx = pr_self(), level = pr_in_event() ? 1 : 0;
	struct pr_event *e;

	/* A grace period's end hands the object to its callback: no note. */
	if (!log || (old == KASAN_RCU_PENDING && s == KASAN_ALLOCATED))
		return;
	if (log->nlife == log->lifecap) {
		size_t cap = log->lifecap ? 2 * log->lifecap : 64;
		struct pr_event *n = realloc(log->life, cap * sizeof(*n));

		if (!n) {
			log->oom = 1;
			return;
		}
		log->life = n;
		log->lifecap = cap;
	}
	e = &log->life[log->nlife++];
	memset(e, 0, sizeof(*e));
	e->ctx = -1;
	e->inject = -1;
	/* The step this happens in: the context's latest event. */
	for (size_t i = log->n; ctx >= 0 && i-- > 0;)
		if (log->ev[i].ctx == ctx &&
		    (log->ev[i].inject >= 0) == (level == 1)) {
			e->step = log->ev[i].step;
			e->ctx = ctx;
			e->inject = log->ev[i].inject;
			e->in_rcu = log->ev[i].in_rcu;
			e->irqs_off = log->ev[i].irqs_off;
			break;
		}
	e->kind = s == KASAN_ALLOCATED ? PR_EV_ALLOC :
		  s == KASAN_FREED ? PR_EV_FREE : PR_EV_RCU_QUEUE;
	snprintf(e->label, sizeof(e->label), "%s",
		 e->kind == PR_EV_ALLOC ? "allocated" :
		 e->kind == PR_EV_FREE ? "freed" : "queued by call_rcu");
	pr_obj_name(obj, e->obj, sizeof(e->obj));
	e->addr = obj;
#if PR_TSAN_ENABLED
	e->nip = 0;	/* as events.c: no backtraces under ThreadSanitizer */
#else
	e->nip = unw_backtrace((void **)e->ip, PR_EV_MAX_IPS);
#endif
	if (e->nip < 0)
		e->nip = 0;
}

PR_NO_TSAN void pr_life_begin(struct pr_event_log *log)
{
	/*
	 * pagerace-tsan: no notes.  Naming the object calls the model's
	 * (instrumented) resolver at points exploration never called it,
	 * which moves ThreadSanitizer's history and with it the race a
	 * replay reports.
	 */
	if (PR_TSAN_ENABLED)
		return;
	life_log = log;
	kasan_set_observer(on_shadow);
}

PR_NO_TSAN void pr_life_end(void)
{
	kasan_set_observer(NULL);
	life_log = NULL;
}

/* The verdicts about an object's memory, as KASAN's. */
static int memory_safety(const char *kind)
{
	return !strcmp(kind, "use-after-free") || !strcmp(kind, "double-free") ||
	       !strcmp(kind, "invalid-free") || !strcmp(kind, "out-of-bounds");
}

/*
 * The notes to print for @r's object: @n[0], its last allocation at or
 * before the failing step (-1: none recorded, the object was allocated
 * before the run); @n[1], the call_rcu that queued it after that; @n[2],
 * the free after that.
 */
static void pick(const struct pr_report *r, long n[3])
{
	const struct pr_event_log *log = r->log;
	/* The verdict's step: a preempted access completes there. */
	uint64_t limit = r->res->verdict.step;
	char base[PR_EV_NAME];

	n[0] = n[1] = n[2] = -1;
	if (!r->focus[0] || !r->res->failed || !memory_safety(r->res->verdict.kind))
		return;
	for (size_t i = 0; i < log->nlife; i++) {
		const struct pr_event *e = &log->life[i];

		if (e->ctx >= 0 && e->step > limit)
			break;
		pr_event_base(e->obj, base, sizeof(base));
		if (strcmp(base, r->focus))
			continue;
		if (e->kind == PR_EV_ALLOC) {
			n[0] = (long)i;
			n[1] = n[2] = -1;
		} else if (e->kind == PR_EV_RCU_QUEUE) {
			if (n[1] < 0 && n[2] < 0)
				n[1] = (long)i;
		} else if (n[2] < 0) {
			n[2] = (long)i;
		}
	}
}

void pr_report_lifetime_prepare(struct pr_report *r)
{
	long n[3];

	pick(r, n);
	for (int i = 0; i < 3; i++)
		if (n[i] >= 0)
			pr_symtab_add(r->st, &r->log->life[n[i]]);
}

static void print_note(FILE *f, struct pr_report *r, const struct pr_event *e,
		       const char *verb)
{
	char who[96];

	if (e->ctx < 0)
		fprintf(f, "\n%s %s in the program's set-up:\n", verb, e->obj);
	else
		fprintf(f, "\n%s %s by %s at step %llu:\n", verb, e->obj,
			pr_report_who(r, e, who, sizeof(who)),
			(unsigned long long)e->step);
	pr_backtrace_print(f, r->st, e, "   ");
}

void pr_report_lifetime(FILE *f, struct pr_report *r)
{
	static const char *const verb[3] = {
		"Allocated", "Queued for RCU freeing", "Freed",
	};
	const struct pr_event_log *log = r->log;
	long n[3];

	pick(r, n);
	if (n[0] < 0 && n[1] < 0 && n[2] < 0)
		return;
	if (n[0] < 0)
		fprintf(f, "\n%s was allocated before the run began.\n",
			r->focus);
	for (int i = 0; i < 3; i++)
		if (n[i] >= 0)
			print_note(f, r, &log->life[n[i]], verb[i]);
}
