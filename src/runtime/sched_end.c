/* SPDX-License-Identifier: MIT */
/*
 * sched_end.c - ending a run: verdicts (pr_fail, data races, crashes,
 * deadlock and livelock) and the way back to the main stack.
 */
#include "runtime/sched_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ending a run ---------------------------------------------------- */

PR_TSAN_INVISIBLE __attribute__((noreturn)) void sched_leave_to_main(void)
{
	int self = sched_rt.cur;

	/* Where it stopped, as a switch would keep it (pr_sched_pending). */
	sched_rt.ctx[self].at = pr_hot.site;
	sched_rt.ctx[self].at_obj = pr_hot.obj;
	sched_rt.cur = -1;
	pr_hot.budget = PR_BUDGET_UNBOUNDED;
	sched_rt.budget_start = PR_BUDGET_UNBOUNDED;
	sched_tsan_switch_out();
	pr_fiber_switch(&sched_rt.ctx[self].fiber, &sched_rt.main);
	abort();	/* an ended run's contexts are never resumed */
}

PR_TSAN_INVISIBLE void sched_end_run(uint64_t min_last_steps)
{
	sched_close_segment(min_last_steps);
	if (sched_rt.cur >= 0)
		sched_leave_to_main();
	pr_hot.budget = sched_rt.budget_start = PR_BUDGET_UNBOUNDED;
}

/* Fill the run's verdict, blaming context @ctx (-1: none). */
PR_NO_TSAN static void fill_verdict(int ctx, const char *kind, const void *obj,
			 const char *fmt, va_list ap)
{
	struct pr_verdict *v = &sched_rt.res->verdict;
	const struct pr_site *at = NULL;

	memset(v, 0, sizeof(*v));
	snprintf(v->kind, sizeof(v->kind), "%s", kind);
	v->step = pr_step();
	v->ctx = ctx;
	if (ctx >= 0) {
		struct pr_ctx *c = &sched_rt.ctx[ctx];

		v->in_event = c->in_event > 0;
		snprintf(v->ctx_name, sizeof(v->ctx_name), "%s", c->name);
		at = sched_ctx_at(ctx);
	}
	pr_obj_name(obj, v->obj, sizeof(v->obj));
	if (at) {
		const char *f = strstr(at->file, "src/");

		pr_site_label(at, v->site, sizeof(v->site));
		snprintf(v->where, sizeof(v->where), "%s:%d",
			 f ? f : at->file, at->line);
	}
	if (fmt)
		vsnprintf(v->msg, sizeof(v->msg), fmt, ap);
}

PR_TSAN_INVISIBLE void sched_fail_now(void)
{
	if (sched_rt.cur >= 0) {
		sched_account();
		sched_end_run(1);
	}
	siglongjmp(sched_rt.env, 1);
}

static pr_fail_cause_fn fail_cause;	/* context.h: a symptom's cause */

PR_NO_TSAN void pr_set_fail_cause(pr_fail_cause_fn fn)
{
	fail_cause = fn;
}

/* The cause of the verdict just filled in, if a detector knows one. */
PR_NO_TSAN static void name_cause(const void *obj)
{
	struct pr_verdict *v = &sched_rt.res->verdict;
	char why[PR_VERDICT_TEXT], symptom[PR_VERDICT_TEXT + 32];
	const char *k;

	if (!fail_cause || !(k = fail_cause(v->kind, obj, why, sizeof(why))))
		return;
	snprintf(symptom, sizeof(symptom), "%s: %s", v->kind, v->msg);
	snprintf(v->kind, sizeof(v->kind), "%s", k);
	snprintf(v->msg, sizeof(v->msg), "%s; first symptom: %s", why, symptom);
}

PR_NO_TSAN void pr_fail(const char *kind, const void *obj, const char *fmt, ...)
{
	va_list ap;

	if (pr_stress_on) {
		char msg[PR_VERDICT_TEXT];

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		pr_stress_fail(kind, obj, msg);
	}
	if (!sched_rt.in_run)
		abort();	/* a detector outside any run: a harness bug */
	va_start(ap, fmt);
	fill_verdict(sched_rt.cur, kind, obj, fmt, ap);
	va_end(ap);
	name_cause(obj);
	sched_rt.res->failed = 1;
	sched_fail_now();
	abort();
}

PR_NO_TSAN void sched_verdict(int ctx, const char *kind, const void *obj,
			   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fill_verdict(ctx, kind, obj, fmt, ap);
	va_end(ap);
}

/*
 * A ThreadSanitizer report is pending (runtime/tsan.c): fail the run with
 * kind "data-race", at the step, context and yield point where the second
 * access was made, so that replay reaches the same verdict.
 */
PR_NO_TSAN void sched_tsan_fail(void)
{
	struct pr_tsan_report r;
	struct pr_verdict *v = &sched_rt.res->verdict;
	const struct pr_site *at;
	char msg[PR_VERDICT_TEXT];

	if (!pr_tsan_take(&r))
		return;
	pr_tsan_describe(&r, msg, sizeof(msg));
	sched_verdict(r.ctx, "data-race", NULL, "%s", msg);
	snprintf(v->obj, sizeof(v->obj), "%s", r.a[0].obj);
	v->step = r.step;
	at = r.at.site;
	if (r.ctx >= 0 && at) {
		const char *f = strstr(at->file, "src/");

		pr_site_label(at, v->site, sizeof(v->site));
		snprintf(v->where, sizeof(v->where), "%s:%d",
			 f ? f : at->file, at->line);
	}
	sched_rt.res->failed = 1;
	sched_fail_now();
}

/*
 * From __tsan_on_report, on the context that made the second access:
 * remember where it is, and make its next yield point a slow one (keeping
 * the step count exact, as sched_mark_changed does) so the run ends there.
 */
PR_NO_TSAN void pr_tsan_noted(struct pr_tsan_report *r)
{
	if (pr_stress_on) {
		r->ctx = pr_stress_self;
		r->step = 0;
		r->at.site = pr_hot.site;
		return;
	}
	r->ctx = sched_rt.cur;
	r->step = pr_step();
	r->at.site = sched_rt.cur >= 0 ? pr_hot.site : NULL;
	r->at.obj = pr_hot.obj;
	if (sched_rt.cur >= 0 && pr_hot.budget > 1) {
		sched_rt.budget_start -= pr_hot.budget - 1;
		pr_hot.budget = 1;
	}
}

/* Called by the crash handler, on the signal stack. */
PR_NO_TSAN void pr_crash_verdict(const char *what)
{
	if (pr_stress_on)
		pr_stress_crash(what);
	if (sched_rt.cur >= 0) {
		/* ThreadSanitizer must know we are back on the main stack. */
		sched_tsan_switch_out();
		pr_fiber_tsan_enter(&sched_rt.main);
	}
	sched_verdict(sched_rt.cur, "crash", NULL, "%s", what);
	sched_rt.res->failed = 1;
	if (sched_rt.cur >= 0) {
		sched_account();
		sched_close_segment(1);
	}
	sched_rt.cur = -1;
	siglongjmp(sched_rt.env, 2);
}

PR_NO_TSAN int pr_crash_in_run(void)
{
	return sched_rt.in_run || pr_stress_on;
}

PR_NO_TSAN static const char *state_name(enum ctx_state s)
{
	switch (s) {
	case CTX_RUNNABLE:	return "runnable";
	case CTX_SPINNING:	return "spinning";
	case CTX_BLOCKED:	return "blocked";
	case CTX_DONE:		return "done";
	}
	return "?";
}

/*
 * Nothing can run.  Either the run is complete, or the contexts left are
 * waiting for each other: spinning (livelock, no store can come) or
 * sleeping (deadlock).
 */
PR_NO_TSAN void sched_nothing_enabled(void)
{
	char msg[PR_VERDICT_TEXT], name[64];
	size_t off = 0;
	int stuck = -1, spinning = 0;

	if (!(sched_rt.spinning | sched_rt.blocked)) {
		sched_end_run(0);	/* every context done: complete */
		return;
	}
	for (int i = 0; i < sched_rt.nctx; i++) {
		struct pr_ctx *c = &sched_rt.ctx[i];

		if (c->state == CTX_DONE)
			continue;
		if (c->state == CTX_BLOCKED && (c->flags & PR_CTX_DAEMON) &&
		    !c->lock_wait)
			continue;
		if (c->state == CTX_SPINNING)
			spinning = 1;
		if (stuck < 0 || (i == sched_rt.cur && c->state == CTX_SPINNING))
			stuck = i;
		if (off < sizeof(msg))
			off += (size_t)snprintf(msg + off, sizeof(msg) - off,
				"%s%s %s%s on %s", off ? "; " : "", c->name,
				c->in_event ? "(in interrupt) " : "",
				state_name(c->state),
				pr_obj_name(c->wait_obj, name, sizeof(name)));
	}
	if (stuck < 0) {
		sched_end_run(0);	/* complete */
		return;
	}
	/* Blame the most telling context: the one that spun last. */
	sched_verdict(stuck, spinning ? "livelock" : "deadlock",
		       sched_rt.ctx[stuck].wait_obj, "%s", msg);
	sched_rt.res->failed = 1;
	sched_fail_now();
}
