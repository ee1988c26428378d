/* SPDX-License-Identifier: MIT */
/*
 * events.c - record every step of a replayed run (events.h).
 *
 * The runtime's observers take no user pointer, so the log being filled
 * is a file-level variable, set only for the duration of
 * pr_events_replay().  Values are read with memcpy from the accessed
 * object: the model's objects live in its own pools, so the memory stays
 * readable even after the model frees an object, which is exactly when a
 * report wants to see it.
 */
#include "runtime/tsan.h"
#include "report/events.h"
#include "report/lifetime.h"
#include "report/memnotes.h"
#include "kernel/irq.h"
#include "kernel/rcu.h"
#include "runtime/context.h"
#include "strategy/strategy.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	struct pr_event_log *log;
	pr_step_observer also;
	uint64_t break_at;
	long pending[PR_MAX_CTX][2];	/* [ctx][in handler]: event awaiting its "after" */
	int inject[PR_MAX_CTX];		/* handler running on ctx, -1: none */
} rec;

PR_NO_TSAN void pr_event_log_init(struct pr_event_log *log)
{
	memset(log, 0, sizeof(*log));
}

PR_NO_TSAN void pr_event_log_free(struct pr_event_log *log)
{
	free(log->ev);
	free(log->sw);
	free(log->mem);
	free(log->life);
	pr_event_log_init(log);
}

PR_NO_TSAN void pr_event_base(const char *obj, char *buf, size_t len)
{
	size_t n = strcspn(obj, ".+");

	if (n >= len)
		n = len - 1;
	memcpy(buf, obj, n);
	buf[n] = '\0';
}

/*
 * A value as a report prints it: small integers in decimal (4-byte ones
 * signed, as atomic_t counts are), words in hex, and pointers by the name
 * of what they point to -- never as an address, which moves with ASLR.
 */
PR_NO_TSAN void pr_event_format_value(const void *addr, unsigned size,
				      char *buf, size_t len)
{
	char name[PR_EV_NAME];
	uint64_t v = 0;

	buf[0] = '\0';
	if (!size || (uintptr_t)addr < 4096)
		return;
	switch (size) {
	case 1: {
		uint8_t x;

		memcpy(&x, addr, 1);
		snprintf(buf, len, "%u", x);
		return;
	}
	case 2: {
		uint16_t x;

		memcpy(&x, addr, 2);
		snprintf(buf, len, "%u", x);
		return;
	}
	case 4: {
		int32_t x;

		memcpy(&x, addr, 4);
		snprintf(buf, len, "%d", (int)x);
		return;
	}
	case 8:
		memcpy(&v, addr, 8);
		break;
	default:
		snprintf(buf, len, "(%u bytes)", size);
		return;
	}
	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	if (v >= 65536) {
		/* An address?  Name it, allowing for a tag in the low bits. */
		pr_obj_name((const void *)(uintptr_t)v, name, sizeof(name));
		if (strcmp(name, "?")) {
			snprintf(buf, len, "&%s", name);
			return;
		}
		pr_obj_name((const void *)(uintptr_t)(v & ~(uint64_t)3), name,
			    sizeof(name));
		if (strcmp(name, "?")) {
			snprintf(buf, len, "&%s|%u", name, (unsigned)(v & 3));
			return;
		}
		if (v >> 32) {
			snprintf(buf, len, "<pointer>");
			return;
		}
	}
	snprintf(buf, len, "0x%llx", (unsigned long long)v);
}

PR_NO_TSAN static struct pr_event *push_event(void)
{
	struct pr_event_log *log = rec.log;

	if (log->n == log->cap) {
		size_t cap = log->cap ? 2 * log->cap : 1024;
		struct pr_event *ev = realloc(log->ev, cap * sizeof(*ev));

		if (!ev) {
			log->oom = 1;
			return NULL;
		}
		log->ev = ev;
		log->cap = cap;
	}
	return &log->ev[log->n++];
}

/* The access of @ctx's pending event has happened: read the value now. */
PR_NO_TSAN static void finish_pending(int ctx, int level)
{
	long i = rec.pending[ctx][level];
	struct pr_event *e;

	if (i < 0)
		return;
	rec.pending[ctx][level] = -1;
	e = &rec.log->ev[i];
	if (e->site && e->site->size)
		pr_event_format_value(e->addr, e->site->size, e->after,
			     sizeof(e->after));
}

PR_NO_TSAN static void on_step(const struct pr_site *site, const void *obj, int ctx,
		    uint64_t step)
{
	struct pr_event *e;
	int level;

	if (rec.also)
		rec.also(site, obj, ctx, step);
	if (rec.break_at && step == rec.break_at)
		raise(SIGTRAP);	/* replay --break-at: the step has not run */
	if (ctx < 0 || ctx >= PR_MAX_CTX)
		return;
	level = pr_in_event() ? 1 : 0;
	finish_pending(ctx, level);
	e = push_event();
	if (!e)
		return;
	memset(e, 0, offsetof(struct pr_event, ip));
	e->step = step;
	e->ctx = ctx;
	e->inject = level ? rec.inject[ctx] : -1;
	e->kind = site->kind;
	e->site = site;
	e->addr = obj;
	pr_site_label(site, e->label, sizeof(e->label));
	pr_obj_name(obj, e->obj, sizeof(e->obj));
	pr_event_format_value(obj, site->size, e->before, sizeof(e->before));
	e->in_rcu = rcu_read_lock_held() != 0;
	e->irqs_off = irqs_disabled() != 0;
#if PR_TSAN_ENABLED
	/*
	 * pagerace-tsan: no backtraces.  Taking one at every step (libunwind
	 * calls into intercepted libc) was enough to make ThreadSanitizer
	 * miss the race the trace records; reports name the innermost model
	 * frame from the yield point instead.
	 */
	e->nip = 0;
#else
	e->nip = unw_backtrace((void **)e->ip, PR_EV_MAX_IPS);
#endif
	if (e->nip < 0)
		e->nip = 0;
	rec.pending[ctx][level] = (long)(e - rec.log->ev);
}

/* An exit or a handler's return: a step that is not a yield point. */
PR_NO_TSAN static void push_special(int ctx, int kind, uint64_t step, int inject)
{
	struct pr_event *e = push_event();

	if (!e)
		return;
	memset(e, 0, sizeof(*e));
	e->step = step;
	e->ctx = ctx;
	e->inject = inject;
	e->kind = kind;
	snprintf(e->label, sizeof(e->label), "%s",
		 kind == PR_EV_EXIT ? "<exit>" : "<iret>");
	snprintf(e->obj, sizeof(e->obj), "-");
}

PR_NO_TSAN static void on_decision(const struct pr_choices *cs, int idx, int preempted)
{
	struct pr_event_log *log = rec.log;
	const struct pr_choice *ch = &cs->c[idx];
	int from = cs->prev_ctx;

	if (from >= 0 && from < PR_MAX_CTX) {
		if ((cs->reason == PR_R_EXIT || cs->reason == PR_R_IRET) &&
		    rec.break_at && cs->step == rec.break_at)
			raise(SIGTRAP);	/* --break-at an exit or return */
		if (cs->reason == PR_R_EXIT) {
			finish_pending(from, 0);
			push_special(from, PR_EV_EXIT, cs->step, -1);
		} else if (cs->reason == PR_R_IRET) {
			finish_pending(from, 1);
			push_special(from, PR_EV_IRET, cs->step,
				     rec.inject[from]);
			rec.inject[from] = -1;
		}
		if (preempted && log->n && log->ev[log->n - 1].ctx == from)
			log->ev[log->n - 1].preempted = 1;
	}
	if (ch->inject >= 0 && ch->ctx < PR_MAX_CTX)
		rec.inject[ch->ctx] = ch->inject;
	if (ch->ctx == from && ch->inject < 0 && !preempted)
		return;		/* the same context goes on: not a switch */
	if (log->nsw == log->swcap) {
		size_t cap = log->swcap ? 2 * log->swcap : 64;
		struct pr_switch *sw = realloc(log->sw, cap * sizeof(*sw));

		if (!sw) {
			log->oom = 1;
			return;
		}
		log->sw = sw;
		log->swcap = cap;
	}
	log->sw[log->nsw++] = (struct pr_switch){
		.step = cs->step, .from = from, .to = ch->ctx,
		.inject = ch->inject, .preempted = preempted,
	};
}

PR_NO_TSAN int pr_events_replay(struct pr_event_log *log, const struct pr_program *prog,
		     const struct pr_schedule *sched,
		     const struct pr_run_options *ro, uint64_t seed,
		     uint64_t run, pr_step_observer also, uint64_t break_at,
		     struct pr_schedule *rec_sched, struct pr_run_result *res)
{
	struct pr_strategy *strat = pr_replay_create(sched);
	int rc;

	if (!strat) {
		memset(res, 0, sizeof(*res));
		res->diverged = 1;
		snprintf(res->verdict.msg, sizeof(res->verdict.msg),
			 "out of memory");
		return 1;
	}
	pr_event_log_free(log);
	pr_replay_single_step(strat);
	rec.log = log;
	rec.also = also;
	rec.break_at = break_at;
	for (int i = 0; i < PR_MAX_CTX; i++) {
		rec.pending[i][0] = rec.pending[i][1] = -1;
		rec.inject[i] = -1;
	}
	pr_set_step_observer(on_step);
	pr_set_decision_observer(on_decision);
	pr_mem_notes_begin(log);
	pr_life_begin(log);
	rc = pr_run_once(prog, strat, ro, seed, run, rec_sched, res);
	pr_life_end();
	pr_mem_notes_end();
	pr_set_step_observer(NULL);
	pr_set_decision_observer(NULL);
	/* The failing context's last access happened: its value now. */
	if (res->failed && res->verdict.ctx >= 0 &&
	    res->verdict.ctx < PR_MAX_CTX) {
		finish_pending(res->verdict.ctx, res->verdict.in_event);
		finish_pending(res->verdict.ctx, 0);
	}
	log->nctx = pr_nr_ctx();
	for (int i = 0; i < log->nctx && i < PR_MAX_CTX; i++)
		snprintf(log->ctx_name[i], sizeof(log->ctx_name[i]), "%s",
			 pr_ctx_name(i));
	for (log->ninj = 0; log->ninj < PR_MAX_INJECT; log->ninj++) {
		const char *n = pr_inject_name(log->ninj);

		if (!strcmp(n, "-"))
			break;
		snprintf(log->inj_name[log->ninj],
			 sizeof(log->inj_name[log->ninj]), "%s", n);
	}
	rec.log = NULL;
	strat->ops->destroy(strat);
	return rc;
}
