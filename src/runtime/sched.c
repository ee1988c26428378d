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

struct pr_hot pr_hot = { .budget = PR_BUDGET_UNBOUNDED };

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

/* The running context's site lives in pr_hot; the others' in their ctx. */
static const struct pr_site *ctx_at(int i)
{
	return i == rt.cur ? pr_hot.site : rt.ctx[i].at;
}

static void set_at(const struct pr_site *site, const void *obj)
{
	pr_hot.site = site;
	pr_hot.obj = obj;
}

/* ---- accounting ------------------------------------------------------ */

uint64_t pr_step(void)
{
	if (!rt.in_run)
		return 0;
	return rt.steps + (uint64_t)(rt.budget_start - pr_hot.budget);
}

static void account(void)
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
static void mark_changed(void)
{
	rt.changed = 1;
	if (rt.cur >= 0 && pr_hot.budget > 1) {
		rt.budget_start -= pr_hot.budget - 1;
		pr_hot.budget = 1;
	}
}

static void close_segment(uint64_t min_steps)
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

static __attribute__((noreturn)) void leave_to_main(void)
{
	int self = rt.cur;

	rt.cur = -1;
	pr_hot.budget = PR_BUDGET_UNBOUNDED;
	rt.budget_start = PR_BUDGET_UNBOUNDED;
	pr_fiber_switch(&rt.ctx[self].fiber, &rt.main);
	abort();	/* an ended run's contexts are never resumed */
}

static void end_run(uint64_t min_last_steps)
{
	close_segment(min_last_steps);
	if (rt.cur >= 0)
		leave_to_main();
	pr_hot.budget = rt.budget_start = PR_BUDGET_UNBOUNDED;
}

/* Fill the run's verdict, blaming context @ctx (-1: none). */
static void fill_verdict(int ctx, const char *kind, const void *obj,
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

static void fail_now(void)
{
	if (rt.cur >= 0) {
		account();
		end_run(1);
	}
	siglongjmp(rt.env, 1);
}

void pr_fail(const char *kind, const void *obj, const char *fmt, ...)
{
	va_list ap;

	if (!rt.in_run)
		abort();	/* a detector outside any run: a harness bug */
	va_start(ap, fmt);
	fill_verdict(rt.cur, kind, obj, fmt, ap);
	va_end(ap);
	rt.res->failed = 1;
	fail_now();
	abort();
}

static void verdict_printf(int ctx, const char *kind, const void *obj,
			   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fill_verdict(ctx, kind, obj, fmt, ap);
	va_end(ap);
}

/* Called by the crash handler, on the signal stack. */
void pr_crash_verdict(const char *what)
{
	verdict_printf(rt.cur, "crash", NULL, "%s", what);
	rt.res->failed = 1;
	if (rt.cur >= 0) {
		account();
		close_segment(1);
	}
	rt.cur = -1;
	siglongjmp(rt.env, 2);
}

int pr_crash_in_run(void)
{
	return rt.in_run;
}

static const char *state_name(enum ctx_state s)
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
static void nothing_enabled(void)
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

static int ctx_enabled(const struct pr_ctx *c)
{
	return c->state == CTX_RUNNABLE ||
	       (c->state == CTX_SPINNING && c->spin_epoch != pr_hot.store_epoch);
}

static int inj_enabled(const struct pr_injection *e)
{
	const struct pr_ctx *t = &rt.ctx[e->ctx];

	return e->remaining > 0 && !t->events_off && !t->in_event &&
	       (t->state == CTX_RUNNABLE || t->state == CTX_SPINNING);
}

static void build_choices(struct pr_choices *cs, enum pr_reason reason)
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

static void switch_to(int t)
{
	int self = rt.cur;
	struct pr_ctx *tc = &rt.ctx[t];

	if (t != self) {
		if (self >= 0) {
			rt.ctx[self].at = pr_hot.site;
			rt.ctx[self].at_obj = pr_hot.obj;
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

static void decide(enum pr_reason reason)
{
	struct pr_choices *cs = &rt.cs;
	const struct pr_choice *ch;
	int64_t budget = 1;
	uint64_t left;
	int idx, code, preempted;

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
	if (rt.decision_observer)
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
	switch_to(ch->ctx);
}

static void run_event(struct pr_ctx *c)
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

static void fiber_entry(void)
{
	struct pr_ctx *c = &rt.ctx[rt.cur];

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

void pr_yield_slow(const struct pr_site *site, const void *obj)
{
	if (rt.cur < 0) {
		/* Setup and end-of-run checks run unscheduled. */
		pr_hot.budget = rt.budget_start = PR_BUDGET_UNBOUNDED;
		return;
	}
	if (rt.observer)
		rt.observer(site, obj, rt.cur, pr_step());
	if (pr_hot.budget > 0)
		return;		/* observed only */
	decide(PR_R_BUDGET);
}

void pr_spin(const struct pr_site *site, const void *obj)
{
	struct pr_ctx *c;

	if (rt.cur < 0)
		return;
	c = &rt.ctx[rt.cur];
	pr_hot.budget--;
	set_at(site, obj);
	if (rt.observer)
		rt.observer(site, obj, rt.cur, pr_step());
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

void pr_block(const struct pr_site *site, const void *waitq)
{
	struct pr_ctx *c;

	if (rt.cur < 0)
		return;
	c = &rt.ctx[rt.cur];
	pr_hot.budget--;
	set_at(site, waitq);
	if (rt.observer)
		rt.observer(site, waitq, rt.cur, pr_step());
	c->state = CTX_BLOCKED;
	c->wait_obj = waitq;
	decide(PR_R_BLOCK);
	c->wait_obj = NULL;
}

/* A store after a spin-wait: the spinners may now see a change. */
void pr_wake_spinners(void)
{
	pr_hot.spinners = 0;
	mark_changed();
}

void pr_wake(const void *waitq)
{
	int woke = 0;

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

int pr_spawn(const char *name, pr_fn fn, void *arg, unsigned int flags)
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
	}
	snprintf(c->name, sizeof(c->name), "%s", name);
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

int pr_inject(int ctx, const char *name, pr_fn fn, void *arg, int count)
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
static void events_toggled(int ctx)
{
	for (int i = 0; i < rt.ninj; i++)
		if (rt.inj[i].ctx == ctx && rt.inj[i].remaining > 0) {
			mark_changed();
			return;
		}
}

void pr_events_disable(void)
{
	if (rt.cur < 0)
		return;
	if (rt.ctx[rt.cur].events_off++ == 0)
		events_toggled(rt.cur);
}

void pr_events_enable(void)
{
	if (rt.cur < 0)
		return;
	if (rt.ctx[rt.cur].events_off <= 0)
		pr_fail("bad-irq-enable", NULL,
			"interrupts enabled more often than disabled");
	if (--rt.ctx[rt.cur].events_off == 0)
		events_toggled(rt.cur);
}

int pr_events_disabled(void)
{
	return rt.cur >= 0 && rt.ctx[rt.cur].events_off > 0;
}

int pr_self(void)
{
	return rt.cur;
}

int pr_in_event(void)
{
	return rt.cur >= 0 && rt.ctx[rt.cur].in_event > 0;
}

int pr_nr_ctx(void)
{
	return rt.nctx;
}

const char *pr_ctx_name(int ctx)
{
	if (ctx < 0 || ctx >= rt.nctx)
		return "-";
	return rt.ctx[ctx].name;
}

const char *pr_inject_name(int inj)
{
	if (inj < 0 || inj >= rt.ninj)
		return "-";
	return rt.inj[inj].name;
}

void pr_set_step_observer(pr_step_observer fn)
{
	rt.observer = fn;
}

void pr_set_decision_observer(pr_decision_observer fn)
{
	rt.decision_observer = fn;
}

/* ---- the run --------------------------------------------------------- */

void pr_run_options_default(struct pr_run_options *o)
{
	o->max_steps = 100000;
	o->stack_size = 256 * 1024;
}

int pr_run_once(const struct pr_program *prog, struct pr_strategy *strat,
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
	rt.in_run = 1;

	if (sigsetjmp(rt.env, 1) == 0) {
		strat->ops->begin_run(strat, seed, run);
		prog->setup(prog->arg);
		pr_hot.budget = rt.budget_start = 0;
		decide(PR_R_START);
		/* Back on the main stack: every context is done or stuck. */
		pr_hot.budget = rt.budget_start = PR_BUDGET_UNBOUNDED;
		if (!res->failed && !res->diverged && prog->finish)
			prog->finish(prog->arg);
	}
	rt.cur = -1;
	pr_hot.budget = rt.budget_start = PR_BUDGET_UNBOUNDED;
	rt.in_run = 0;
	res->steps = rt.steps;
	res->preemptions = rt.preemptions;
	strat->ops->end_run(strat, rt.steps);
	return res->failed || res->diverged;
}
