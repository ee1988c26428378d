/* SPDX-License-Identifier: MIT */
/*
 * sched.c - the scheduler core: contexts, decisions, the run loop.
 *
 * Invariants, stated once:
 *  - Exactly one context runs at a time, and it changes only inside
 *    decide(), which only runs at a yield point (or at a context's exit,
 *    or when an injected handler returns).
 *  - Steps: every yield point passed is one step, so are a context's exit
 *    and an event handler's return.  The running context owns the open
 *    schedule segment; pr_hot.budget counts down its remaining steps and
 *    rt.budget_start - pr_hot.budget is what it has used since the last
 *    decision.
 *  - The schedule is the sequence of (choice, steps) segments; it is the
 *    whole of a run's nondeterminism.  Same program, strategy, seed and run
 *    index give the same schedule, so the same verdict.
 *  - Nothing here allocates during a run except the schedule array, which
 *    grows geometrically and is kept between runs.
 */
#include "runtime/context.h"
#include "runtime/internal.h"
#include "runtime/fiber.h"
#include "runtime/run.h"
#include "runtime/tsan.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ctx_state {
	CTX_RUNNABLE,
	CTX_SPINNING,	/* schedulable again once store_epoch moves */
	CTX_BLOCKED,	/* until pr_wake(wait_obj) */
	CTX_DONE,
};

struct pr_ctx {
	char name[32];
	pr_fn fn;
	void *arg;
	unsigned int flags;
	enum ctx_state state;
	const void *wait_obj;
	uint64_t spin_epoch;	/* stores seen when its wait-loop pass began */
	uint64_t iter_epoch;	/* store_epoch when pr_spin last returned */
	int events_off;		/* nesting of pr_events_disable */
	int in_event;		/* running an injected handler */
	int pending_event;	/* injection to run when resumed, or -1 */
	int started;
	const struct pr_site *at;	/* last yield point, while switched out */
	const void *at_obj;
	struct pr_fiber fiber;	/* stack kept across runs */
};

struct pr_injection {
	int ctx;
	char name[32];
	pr_fn fn;
	void *arg;
	int remaining;
};

__thread struct pr_hot pr_hot = { .budget = PR_BUDGET_UNBOUNDED };

static struct {
	struct pr_ctx ctx[PR_MAX_CTX];
	int nctx;
	int fibers_ready;	/* contexts whose stacks are mapped */
	struct pr_injection inj[PR_MAX_INJECT];
	int ninj;
	int cur;		/* running context, -1: the main stack */
	int in_run;
	struct pr_fiber main;
	sigjmp_buf env;		/* crash or failure outside any context */

	const struct pr_program *prog;
	struct pr_strategy *strat;
	const struct pr_run_options *opts;
	struct pr_schedule *rec;
	struct pr_run_result *res;

	uint64_t steps;		/* steps before the current decision interval */
	int64_t budget_start;
	int changed;		/* enabled set changed since the last decision */
	int seg_code;		/* open segment's choice code, -1: none */
	uint64_t seg_steps;
	uint64_t preemptions;
	pr_step_observer observer;
	pr_decision_observer decision_observer;
	struct pr_choices cs;
} rt = { .cur = -1 };

static const struct pr_site site_start = { "<start>", __FILE__, 0, PR_K_YIELD, NULL, 0 };
static const struct pr_site site_exit = { "<exit>", __FILE__, 0, PR_K_YIELD, NULL, 0 };
static const struct pr_site site_iret = { "<iret>", __FILE__, 0, PR_K_YIELD, NULL, 0 };

static void decide(enum pr_reason reason);

/*
 * pagerace-tsan: fibers switch with __tsan_switch_to_fiber_no_sync, so a
 * switch implies no ordering and ThreadSanitizer sees only the model's
 * own synchronisation.  Two edges are the harness's and are stated
 * explicitly: setup (on the main stack) happens before every context of
 * the run (main releases run_sync, each context acquires it when it
 * starts), and every context's accesses happen before the end-of-run
 * checks and the next run's setup (a context releases end_sync whenever
 * it is switched out, main acquires it when the run is over).  Neither
 * orders two contexts with each other.
 */
static char run_sync, end_sync;

PR_TSAN_INVISIBLE static void tsan_switch_out(void)
{
	pr_tsan_unhide();	/* a verdict inside decide(): release as the context */
	pr_tsan_release(&end_sync);
}

static void tsan_fail(void);

/* The running context's site lives in pr_hot; the others' in their ctx. */
PR_NO_TSAN static const struct pr_site *ctx_at(int i)
{
	return i == rt.cur ? pr_hot.site : rt.ctx[i].at;
}

PR_NO_TSAN static void set_at(const struct pr_site *site, const void *obj)
{
	pr_hot.site = site;
	pr_hot.obj = obj;
}

/* ---- accounting ------------------------------------------------------ */

PR_NO_TSAN uint64_t pr_step(void)
{
	if (pr_stress_on)
		return pr_stress_step();
	if (!rt.in_run)
		return 0;
	return rt.steps + (uint64_t)(rt.budget_start - pr_hot.budget);
}

PR_NO_TSAN static void account(void)
{
	uint64_t used = (uint64_t)(rt.budget_start - pr_hot.budget);

	rt.steps += used;
	rt.seg_steps += used;
	rt.budget_start = pr_hot.budget = 0;
}

/*
 * The enabled set changed under the running context: make its next yield
 * point a decision, keeping the step count of the interval exact.
 */
PR_NO_TSAN static void mark_changed(void)
{
	rt.changed = 1;
	if (rt.cur >= 0 && pr_hot.budget > 1) {
		rt.budget_start -= pr_hot.budget - 1;
		pr_hot.budget = 1;
	}
}

PR_NO_TSAN static void close_segment(uint64_t min_steps)
{
	struct pr_segment seg;

	if (rt.seg_code < 0)
		return;
	if (rt.rec) {
		seg.code = (uint16_t)rt.seg_code;
		seg.steps = (uint32_t)(rt.seg_steps < min_steps ? min_steps
							       : rt.seg_steps);
		seg.end = rt.cur >= 0 ? ctx_at(rt.cur) : NULL;
		seg.end_label = NULL;
		pr_schedule_push(rt.rec, &seg);
	}
	rt.seg_code = -1;
	rt.seg_steps = 0;
}

/* ---- ending a run ---------------------------------------------------- */

PR_TSAN_INVISIBLE static __attribute__((noreturn)) void leave_to_main(void)
{
	int self = rt.cur;

	rt.cur = -1;
	pr_hot.budget = PR_BUDGET_UNBOUNDED;
	rt.budget_start = PR_BUDGET_UNBOUNDED;
	tsan_switch_out();
	pr_fiber_switch(&rt.ctx[self].fiber, &rt.main);
	abort();	/* an ended run's contexts are never resumed */
}

PR_TSAN_INVISIBLE static void end_run(uint64_t min_last_steps)
{
	close_segment(min_last_steps);
	if (rt.cur >= 0)
		leave_to_main();
	pr_hot.budget = rt.budget_start = PR_BUDGET_UNBOUNDED;
}

/* Fill the run's verdict, blaming context @ctx (-1: none). */
PR_NO_TSAN static void fill_verdict(int ctx, const char *kind, const void *obj,
			 const char *fmt, va_list ap)
{
	struct pr_verdict *v = &rt.res->verdict;
	const struct pr_site *at = NULL;

	memset(v, 0, sizeof(*v));
	snprintf(v->kind, sizeof(v->kind), "%s", kind);
	v->step = pr_step();
	v->ctx = ctx;
	if (ctx >= 0) {
		struct pr_ctx *c = &rt.ctx[ctx];

		v->in_event = c->in_event > 0;
		snprintf(v->ctx_name, sizeof(v->ctx_name), "%s", c->name);
		at = ctx_at(ctx);
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

PR_TSAN_INVISIBLE static void fail_now(void)
{
	if (rt.cur >= 0) {
		account();
		end_run(1);
	}
	siglongjmp(rt.env, 1);
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
	if (!rt.in_run)
		abort();	/* a detector outside any run: a harness bug */
	va_start(ap, fmt);
	fill_verdict(rt.cur, kind, obj, fmt, ap);
	va_end(ap);
	rt.res->failed = 1;
	fail_now();
	abort();
}

PR_NO_TSAN static void verdict_printf(int ctx, const char *kind, const void *obj,
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
PR_NO_TSAN static void tsan_fail(void)
{
	struct pr_tsan_report r;
	struct pr_verdict *v = &rt.res->verdict;
	const struct pr_site *at;
	char msg[PR_VERDICT_TEXT];

	if (!pr_tsan_take(&r))
		return;
	pr_tsan_describe(&r, msg, sizeof(msg));
	verdict_printf(r.ctx, "data-race", NULL, "%s", msg);
	snprintf(v->obj, sizeof(v->obj), "%s", r.a[0].obj);
	v->step = r.step;
	at = r.at.site;
	if (r.ctx >= 0 && at) {
		const char *f = strstr(at->file, "src/");

		pr_site_label(at, v->site, sizeof(v->site));
		snprintf(v->where, sizeof(v->where), "%s:%d",
			 f ? f : at->file, at->line);
	}
	rt.res->failed = 1;
	fail_now();
}

/*
 * From __tsan_on_report, on the context that made the second access:
 * remember where it is, and make its next yield point a slow one (keeping
 * the step count exact, as mark_changed does) so the run ends there.
 */
PR_NO_TSAN void pr_tsan_noted(struct pr_tsan_report *r)
{
	if (pr_stress_on) {
		r->ctx = pr_stress_self;
		r->step = 0;
		r->at.site = pr_hot.site;
		return;
	}
	r->ctx = rt.cur;
	r->step = pr_step();
	r->at.site = rt.cur >= 0 ? pr_hot.site : NULL;
	r->at.obj = pr_hot.obj;
	if (rt.cur >= 0 && pr_hot.budget > 1) {
		rt.budget_start -= pr_hot.budget - 1;
		pr_hot.budget = 1;
	}
}

/* Called by the crash handler, on the signal stack. */
PR_NO_TSAN void pr_crash_verdict(const char *what)
{
	if (pr_stress_on)
		pr_stress_crash(what);
	if (rt.cur >= 0) {
		/* ThreadSanitizer must know we are back on the main stack. */
		tsan_switch_out();
		pr_fiber_tsan_enter(&rt.main);
	}
	verdict_printf(rt.cur, "crash", NULL, "%s", what);
	rt.res->failed = 1;
	if (rt.cur >= 0) {
		account();
		close_segment(1);
	}
	rt.cur = -1;
	siglongjmp(rt.env, 2);
}

PR_NO_TSAN int pr_crash_in_run(void)
{
	return rt.in_run || pr_stress_on;
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
PR_NO_TSAN static void nothing_enabled(void)
{
	char msg[PR_VERDICT_TEXT], name[64];
	size_t off = 0;
	int stuck = -1, spinning = 0;

	for (int i = 0; i < rt.nctx; i++) {
		struct pr_ctx *c = &rt.ctx[i];

		if (c->state == CTX_DONE)
			continue;
		if (c->state == CTX_BLOCKED && (c->flags & PR_CTX_DAEMON))
			continue;
		if (c->state == CTX_SPINNING)
			spinning = 1;
		if (stuck < 0 || (i == rt.cur && c->state == CTX_SPINNING))
			stuck = i;
		if (off < sizeof(msg))
			off += (size_t)snprintf(msg + off, sizeof(msg) - off,
				"%s%s %s%s on %s", off ? "; " : "", c->name,
				c->in_event ? "(in interrupt) " : "",
				state_name(c->state),
				pr_obj_name(c->wait_obj, name, sizeof(name)));
	}
	if (stuck < 0) {
		end_run(0);	/* complete */
		return;
	}
	/* Blame the most telling context: the one that spun last. */
	verdict_printf(stuck, spinning ? "livelock" : "deadlock",
		       rt.ctx[stuck].wait_obj, "%s", msg);
	rt.res->failed = 1;
	fail_now();
}

/* ---- decisions ------------------------------------------------------- */

PR_NO_TSAN static int ctx_enabled(const struct pr_ctx *c)
{
	return c->state == CTX_RUNNABLE ||
	       (c->state == CTX_SPINNING && c->spin_epoch != pr_hot.store_epoch);
}

PR_NO_TSAN static int inj_enabled(const struct pr_injection *e)
{
	const struct pr_ctx *t = &rt.ctx[e->ctx];

	return e->remaining > 0 && !t->events_off && !t->in_event &&
	       (t->state == CTX_RUNNABLE || t->state == CTX_SPINNING);
}

PR_NO_TSAN static void build_choices(struct pr_choices *cs, enum pr_reason reason)
{
	cs->n = 0;
	cs->current = -1;
	for (int i = 0; i < rt.nctx; i++) {
		struct pr_ctx *c = &rt.ctx[i];

		if (!ctx_enabled(c))
			continue;
		if (i == rt.cur && c->state == CTX_RUNNABLE)
			cs->current = cs->n;
		cs->c[cs->n].ctx = (uint8_t)i;
		cs->c[cs->n].inject = -1;
		cs->c[cs->n].was_spinning = c->state == CTX_SPINNING;
		cs->n++;
	}
	for (int i = 0; i < rt.ninj; i++) {
		if (!inj_enabled(&rt.inj[i]))
			continue;
		cs->c[cs->n].ctx = (uint8_t)rt.inj[i].ctx;
		cs->c[cs->n].inject = (int8_t)i;
		cs->c[cs->n].was_spinning = 0;
		cs->n++;
	}
	cs->reason = reason;
	cs->prev_ctx = rt.cur;
	cs->step = rt.steps;
	cs->seg_steps = rt.seg_steps;
	cs->seg_code = rt.seg_code;
	cs->at = rt.cur >= 0 ? ctx_at(rt.cur) : NULL;
}

static void fiber_entry(void);
static void run_event(struct pr_ctx *c);

PR_TSAN_INVISIBLE static void switch_to(int t)
{
	int self = rt.cur;
	struct pr_ctx *tc = &rt.ctx[t];

	if (t != self) {
		if (self >= 0) {
			rt.ctx[self].at = pr_hot.site;
			rt.ctx[self].at_obj = pr_hot.obj;
			tsan_switch_out();
		}
		rt.cur = t;
		set_at(tc->at, tc->at_obj);
		if (!tc->started) {
			tc->started = 1;
			pr_fiber_prepare(&tc->fiber, fiber_entry);
		}
		pr_fiber_switch(self >= 0 ? &rt.ctx[self].fiber : &rt.main,
				&tc->fiber);
		/* Resumed: whoever switched here set rt.cur = self. */
		if (self < 0)
			return;		/* the main stack: the run is over */
	}
	if (rt.ctx[self].pending_event >= 0)
		run_event(&rt.ctx[self]);
}

PR_TSAN_INVISIBLE static void decide(enum pr_reason reason)
{
	struct pr_choices *cs = &rt.cs;
	const struct pr_choice *ch;
	int64_t budget = 1;
	uint64_t left;
	int idx, code, preempted;
	void *hide;

	if (pr_tsan_pending())
		tsan_fail();
	/*
	 * pagerace-tsan: choosing is hidden (tsan.h).  Replay decides at every
	 * step, explore at the end of a segment; the libc calls a decision
	 * makes would otherwise log entries in the context's TSan trace, whose
	 * position picks the shadow cell a later access evicts.
	 */
	hide = pr_tsan_hide_begin();
	account();
	if (rt.changed && reason == PR_R_BUDGET)
		reason = PR_R_CHANGED;
	rt.changed = 0;
	if (rt.steps > rt.opts->max_steps) {
		verdict_printf(rt.cur, "livelock", NULL,
			       "no progress: step bound %llu exceeded",
			       (unsigned long long)rt.opts->max_steps);
		rt.res->failed = 1;
		fail_now();
	}
	build_choices(cs, reason);
	if (cs->n == 0) {
		pr_tsan_hide_end(hide);
		nothing_enabled();
		return;
	}
	idx = rt.strat->ops->pick(rt.strat, cs, &budget);
	if (idx < 0 || idx >= cs->n) {
		verdict_printf(rt.cur, "divergence", NULL, "%s",
			       rt.strat->error[0] ? rt.strat->error
						  : "strategy gave up");
		rt.res->diverged = 1;
		fail_now();
	}
	ch = &cs->c[idx];
	code = pr_choice_code(ch);
	preempted = cs->current >= 0 && idx != cs->current;
	if (preempted)
		rt.preemptions++;
	if (rt.decision_observer)	/* hidden with the decision */
		rt.decision_observer(cs, idx, preempted);
	if (code != rt.seg_code) {
		close_segment(1);
		rt.seg_code = code;
	}
	left = rt.opts->max_steps + 1 - rt.steps;
	if (budget < 1)
		budget = 1;
	if ((uint64_t)budget > left)
		budget = (int64_t)left;
	rt.budget_start = pr_hot.budget = budget;

	if (rt.ctx[ch->ctx].state == CTX_SPINNING)
		rt.ctx[ch->ctx].state = CTX_RUNNABLE;
	if (ch->inject >= 0) {
		rt.inj[ch->inject].remaining--;
		rt.ctx[ch->ctx].pending_event = ch->inject;
	}
	pr_tsan_hide_end(hide);
	switch_to(ch->ctx);
}

PR_NO_TSAN static void run_event(struct pr_ctx *c)
{
	struct pr_injection *e = &rt.inj[c->pending_event];

	c->pending_event = -1;
	c->in_event++;
	c->events_off++;
	/* This context's events are masked now: the choices changed. */
	mark_changed();
	e->fn(e->arg);
	c->events_off--;
	c->in_event--;
	set_at(&site_iret, NULL);
	pr_hot.budget--;	/* the return from the handler is a step */
	decide(PR_R_IRET);
}

PR_TSAN_INVISIBLE static void fiber_entry(void)
{
	struct pr_ctx *c = &rt.ctx[rt.cur];

	pr_tsan_acquire(&run_sync);
	if (c->pending_event >= 0)
		run_event(c);
	c->fn(c->arg);
	c->state = CTX_DONE;
	set_at(&site_exit, NULL);
	pr_hot.budget--;	/* the exit is a step */
	decide(PR_R_EXIT);
	abort();		/* a finished context is never chosen */
}

/* ---- yield points ---------------------------------------------------- */

/* The rich replay's step observer, out of ThreadSanitizer's sight. */
PR_TSAN_INVISIBLE static void observe(const struct pr_site *site, const void *obj)
{
	void *hide = pr_tsan_hide_begin();

	rt.observer(site, obj, rt.cur, pr_step());
	pr_tsan_hide_end(hide);
}

PR_TSAN_INVISIBLE void pr_yield_slow(const struct pr_site *site, const void *obj)
{
	if (pr_stress_on) {
		pr_stress_yield_slow(site, obj);
		return;
	}
	if (pr_tsan_pending() && rt.cur >= 0)
		tsan_fail();
	if (rt.cur < 0) {
		/* Setup and end-of-run checks run unscheduled. */
		pr_hot.budget = rt.budget_start = PR_BUDGET_UNBOUNDED;
		return;
	}
	if (rt.observer)
		observe(site, obj);
	if (pr_hot.budget > 0)
		return;		/* observed only */
	decide(PR_R_BUDGET);
}

PR_NO_TSAN void pr_spin(const struct pr_site *site, const void *obj)
{
	struct pr_ctx *c;

	if (pr_stress_on) {
		pr_stress_spin(site, obj);
		return;
	}
	if (rt.cur < 0)
		return;
	c = &rt.ctx[rt.cur];
	pr_hot.budget--;
	set_at(site, obj);
	if (rt.observer)
		observe(site, obj);
	/*
	 * The loop's reads since its last pass may predate stores by others
	 * (this context could have been preempted between them), so the
	 * snapshot is taken where the pass began, not here.  A first pass has
	 * no known beginning: it counts as stale, which costs one extra pass.
	 */
	c->state = CTX_SPINNING;
	c->spin_epoch = c->iter_epoch;
	c->wait_obj = obj;
	pr_hot.spinners = 1;
	decide(PR_R_SPIN);
	c->wait_obj = NULL;
	c->iter_epoch = pr_hot.store_epoch;
}

PR_NO_TSAN void pr_block(const struct pr_site *site, const void *waitq)
{
	struct pr_ctx *c;

	if (pr_stress_on) {
		pr_stress_block(site, waitq);
		return;
	}
	if (rt.cur < 0)
		return;
	c = &rt.ctx[rt.cur];
	pr_hot.budget--;
	set_at(site, waitq);
	if (rt.observer)
		observe(site, waitq);
	c->state = CTX_BLOCKED;
	c->wait_obj = waitq;
	decide(PR_R_BLOCK);
	c->wait_obj = NULL;
}

#if PR_TSAN_ENABLED
/* pagerace-tsan's yield point: the inline one, out of TSan's sight. */
PR_NO_TSAN void pr_yield_at_tsan(const struct pr_site *site, const void *obj,
				 int writes)
{
	pr_yield_at_impl(site, obj, writes);
}
#endif

/* A store after a spin-wait: the spinners may now see a change. */
PR_NO_TSAN void pr_wake_spinners(void)
{
	pr_hot.spinners = 0;
	mark_changed();
}

PR_NO_TSAN void pr_wake(const void *waitq)
{
	int woke = 0;

	if (pr_stress_on) {
		pr_stress_wake(waitq);
		return;
	}
	for (int i = 0; i < rt.nctx; i++) {
		struct pr_ctx *c = &rt.ctx[i];

		if (c->state == CTX_BLOCKED && c->wait_obj == waitq) {
			c->state = CTX_RUNNABLE;
			woke = 1;
		}
	}
	if (woke)
		mark_changed();
}

/* ---- contexts and events --------------------------------------------- */

PR_NO_TSAN int pr_spawn(const char *name, pr_fn fn, void *arg, unsigned int flags)
{
	struct pr_ctx *c;

	if (!rt.in_run || rt.cur >= 0 || rt.nctx >= PR_MAX_CTX)
		pr_fail("setup", NULL, "pr_spawn(%s): only from setup, at most %d contexts",
			name, PR_MAX_CTX);
	c = &rt.ctx[rt.nctx];
	if (rt.nctx >= rt.fibers_ready) {
		if (pr_fiber_alloc(&c->fiber, rt.opts->stack_size) != 0)
			pr_fail("setup", NULL, "cannot map a stack for %s", name);
		rt.fibers_ready = rt.nctx + 1;
	} else if (c->state == CTX_DONE || !c->started) {
		pr_fiber_tsan_reuse(&c->fiber);	/* previous run: finished */
	} else {
		pr_fiber_tsan_renew(&c->fiber);	/* abandoned mid-function */
	}
	if (rt.opts->tsan_blind)
		pr_fiber_tsan_blind(&c->fiber);
	/* strncpy pads with NULs: the name buffer is the same every run. */
	strncpy(c->name, name, sizeof(c->name) - 1);
	c->name[sizeof(c->name) - 1] = '\0';
	pr_fiber_tsan_name(&c->fiber, c->name);
	c->fn = fn;
	c->arg = arg;
	c->flags = flags;
	c->state = CTX_RUNNABLE;
	c->wait_obj = NULL;
	c->spin_epoch = 0;
	c->iter_epoch = UINT64_MAX;
	c->events_off = 0;
	c->in_event = 0;
	c->pending_event = -1;
	c->started = 0;
	c->at = &site_start;
	c->at_obj = NULL;
	return rt.nctx++;
}

PR_NO_TSAN int pr_inject(int ctx, const char *name, pr_fn fn, void *arg, int count)
{
	struct pr_injection *e;

	if (!rt.in_run || rt.cur >= 0 || rt.ninj >= PR_MAX_INJECT ||
	    ctx < 0 || ctx >= rt.nctx)
		pr_fail("setup", NULL, "pr_inject(%s): only from setup, on an existing context",
			name);
	e = &rt.inj[rt.ninj];
	e->ctx = ctx;
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->fn = fn;
	e->arg = arg;
	e->remaining = count;
	return rt.ninj++;
}

/* Does toggling @c's events change what the scheduler could choose? */
PR_NO_TSAN static void events_toggled(int ctx)
{
	for (int i = 0; i < rt.ninj; i++)
		if (rt.inj[i].ctx == ctx && rt.inj[i].remaining > 0) {
			mark_changed();
			return;
		}
}

PR_NO_TSAN void pr_events_disable(void)
{
	int self = pr_self();

	if (self < 0)
		return;
	if (rt.ctx[self].events_off++ == 0 && !pr_stress_on)
		events_toggled(self);
}

PR_NO_TSAN void pr_events_enable(void)
{
	int self = pr_self();

	if (self < 0)
		return;
	if (rt.ctx[self].events_off <= 0)
		pr_fail("bad-irq-enable", NULL,
			"interrupts enabled more often than disabled");
	if (--rt.ctx[self].events_off == 0 && !pr_stress_on)
		events_toggled(self);
}

PR_NO_TSAN int pr_events_disabled(void)
{
	int self = pr_self();

	return self >= 0 && rt.ctx[self].events_off > 0;
}

PR_NO_TSAN int pr_self(void)
{
	return pr_stress_on ? pr_stress_self : rt.cur;
}

PR_NO_TSAN int pr_in_event(void)
{
	int self = pr_self();

	return self >= 0 && rt.ctx[self].in_event > 0;
}

PR_NO_TSAN int pr_nr_ctx(void)
{
	return rt.nctx;
}

PR_NO_TSAN const char *pr_ctx_name(int ctx)
{
	if (ctx < 0 || ctx >= rt.nctx)
		return "-";
	return rt.ctx[ctx].name;
}

PR_NO_TSAN const char *pr_inject_name(int inj)
{
	if (inj < 0 || inj >= rt.ninj)
		return "-";
	return rt.inj[inj].name;
}

PR_NO_TSAN void pr_set_step_observer(pr_step_observer fn)
{
	rt.observer = fn;
}

PR_NO_TSAN void pr_set_decision_observer(pr_decision_observer fn)
{
	rt.decision_observer = fn;
}

/* ---- the run --------------------------------------------------------- */

PR_NO_TSAN void pr_run_options_default(struct pr_run_options *o)
{
	o->max_steps = 100000;
	o->stack_size = 256 * 1024;
	o->tsan_blind = 0;
}

PR_NO_TSAN int pr_run_once(const struct pr_program *prog, struct pr_strategy *strat,
		const struct pr_run_options *opts, uint64_t seed, uint64_t run,
		struct pr_schedule *rec, struct pr_run_result *res)
{
	memset(res, 0, sizeof(*res));
	rt.nctx = 0;
	rt.ninj = 0;
	rt.cur = -1;
	rt.prog = prog;
	rt.strat = strat;
	rt.opts = opts;
	rt.rec = rec;
	rt.res = res;
	rt.steps = 0;
	rt.changed = 0;
	rt.seg_code = -1;
	rt.seg_steps = 0;
	rt.preemptions = 0;
	strat->error[0] = '\0';
	pr_hot.budget = rt.budget_start = PR_BUDGET_UNBOUNDED;
	pr_hot.store_epoch = 0;
	pr_hot.spinners = 0;
	if (rec)
		rec->n = 0;
	pr_objname_reset();
	pr_crash_install();
	pr_tsan_reset();
	pr_tsan_new_history();
	pr_fiber_tsan_main(&rt.main);
	rt.in_run = 1;

	/* No mask saved: a crash unblocks its own signal (crash.c). */
	if (sigsetjmp(rt.env, 0) == 0) {
		strat->ops->begin_run(strat, seed, run);
		prog->setup(prog->arg);
		if (pr_tsan_pending())
			tsan_fail();
		pr_tsan_release(&run_sync);
		pr_hot.budget = rt.budget_start = 0;
		decide(PR_R_START);
		/* Back on the main stack: every context is done or stuck. */
		pr_tsan_acquire(&end_sync);
		pr_hot.budget = rt.budget_start = PR_BUDGET_UNBOUNDED;
		if (!res->failed && !res->diverged && prog->finish)
			prog->finish(prog->arg);
		if (pr_tsan_pending())
			tsan_fail();
	}
	pr_tsan_acquire(&end_sync);
	pr_tsan_reset();
	rt.cur = -1;
	pr_hot.budget = rt.budget_start = PR_BUDGET_UNBOUNDED;
	rt.in_run = 0;
	res->steps = rt.steps;
	res->preemptions = rt.preemptions;
	strat->ops->end_run(strat, rt.steps);
	return res->failed || res->diverged;
}

/* ---- stress mode (stress.c) ------------------------------------------ */

/* Setup for a stress iteration: contexts and injections, no scheduling. */
PR_NO_TSAN void pr_sched_stress_setup(const struct pr_program *prog,
				      const struct pr_run_options *opts,
				      struct pr_run_result *res)
{
	memset(res, 0, sizeof(*res));
	rt.nctx = 0;
	rt.ninj = 0;
	rt.cur = -1;
	rt.prog = prog;
	rt.opts = opts;
	rt.res = res;
	pr_objname_reset();
	rt.in_run = 1;
	prog->setup(prog->arg);
	rt.in_run = 0;
}

PR_NO_TSAN void pr_sched_ctx_body(int ctx, pr_fn *fn, void **arg,
				  unsigned int *flags)
{
	*fn = rt.ctx[ctx].fn;
	*arg = rt.ctx[ctx].arg;
	*flags = rt.ctx[ctx].flags;
}

/*
 * Stress: deliver one of @ctx's injections now, on its own thread, if its
 * interrupts are enabled and it is not already in a handler; @pick
 * chooses among the eligible ones.  Returns 1 if a handler ran.
 */
PR_NO_TSAN int pr_sched_stress_event(int ctx, unsigned int pick)
{
	struct pr_ctx *c = &rt.ctx[ctx];
	int eligible[PR_MAX_INJECT], n = 0;
	struct pr_injection *e;

	if (c->events_off || c->in_event)
		return 0;
	for (int i = 0; i < rt.ninj; i++)
		if (rt.inj[i].ctx == ctx && rt.inj[i].remaining > 0)
			eligible[n++] = i;
	if (!n)
		return 0;
	e = &rt.inj[eligible[pick % (unsigned int)n]];
	e->remaining--;
	c->in_event++;
	c->events_off++;
	e->fn(e->arg);
	c->events_off--;
	c->in_event--;
	return 1;
}

/* Stress: does @ctx still have interrupts to take? */
PR_NO_TSAN int pr_sched_ctx_has_events(int ctx)
{
	for (int i = 0; i < rt.ninj; i++)
		if (rt.inj[i].ctx == ctx && rt.inj[i].remaining > 0)
			return 1;
	return 0;
}

/* Stress: reset the per-context interrupt state a failed body left. */
PR_NO_TSAN void pr_sched_ctx_reset(int ctx)
{
	rt.ctx[ctx].events_off = 0;
	rt.ctx[ctx].in_event = 0;
}
