/* SPDX-License-Identifier: MIT */
/*
 * sched.c - the scheduler core: decisions, context switches, yield points,
 * interrupts enabled and disabled.  The state lives in sched_state.h;
 * wait.c holds the waits (spin-waits, sleeping waits, lock waiters) and
 * wake-ups, choices.c builds the enabled choices, sched_end.c ends runs
 * with their verdicts, run.c runs one.
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
#include "runtime/sched_state.h"
#include "runtime/effects.h"
#include "runtime/memhook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__thread struct pr_hot pr_hot = { .budget = PR_BUDGET_UNBOUNDED };

/*
 * pagerace-tsan: fibers switch with __tsan_switch_to_fiber_no_sync, so a
 * switch implies no ordering and ThreadSanitizer sees only the model's
 * own synchronisation.  Two edges are the harness's and are stated
 * explicitly: setup (on the main stack) happens before every context of
 * the run (main releases sched_run_sync, each context acquires it when it
 * starts), and every context's accesses happen before the end-of-run
 * checks and the next run's setup (a context releases sched_end_sync whenever
 * it is switched out, main acquires it when the run is over).  Neither
 * orders two contexts with each other.
 */
char sched_run_sync, sched_end_sync;

PR_TSAN_INVISIBLE void sched_tsan_switch_out(void)
{
	pr_tsan_unhide();	/* a verdict inside a decision: release as the context */
	pr_tsan_release(&sched_end_sync);
}



PR_NO_TSAN void sched_set_at(const struct pr_site *site, const void *obj)
{
	pr_hot.site = site;
	pr_hot.obj = obj;
}

/* ---- accounting ------------------------------------------------------ */

PR_NO_TSAN uint64_t pr_step(void)
{
	if (pr_stress_on)
		return pr_stress_step();
	if (!sched_rt.in_run)
		return 0;
	return sched_rt.steps + (uint64_t)(sched_rt.budget_start - pr_hot.budget);
}

PR_NO_TSAN void sched_account(void)
{
	uint64_t used = (uint64_t)(sched_rt.budget_start - pr_hot.budget);

	sched_rt.steps += used;
	sched_rt.seg_steps += used;
	sched_rt.budget_start = pr_hot.budget = 0;
}

/*
 * The enabled set changed under the running context: make its next yield
 * point a decision, keeping the step count of the interval exact.
 */
PR_NO_TSAN void sched_mark_changed(void)
{
	sched_rt.changed = 1;
	sched_choices_stale();
	if (sched_rt.cur >= 0 && pr_hot.budget > 1) {
		sched_rt.budget_start -= pr_hot.budget - 1;
		pr_hot.budget = 1;
	}
}

PR_NO_TSAN void sched_close_segment(uint64_t min_steps)
{
	struct pr_segment seg;

	if (sched_rt.seg_code < 0)
		return;
	if (sched_rt.rec) {
		seg.code = (uint16_t)sched_rt.seg_code;
		seg.steps = (uint32_t)(sched_rt.seg_steps < min_steps ? min_steps
							       : sched_rt.seg_steps);
		seg.end = sched_rt.cur >= 0 ? sched_ctx_at(sched_rt.cur) : NULL;
		seg.end_label = NULL;
		pr_schedule_push(sched_rt.rec, &seg);
	}
	sched_rt.seg_code = -1;
	sched_rt.seg_steps = 0;
}
static void fiber_entry(void);
static void run_event(struct pr_ctx *c);

/* Inline in both of decide's instances: a call frame a decision saves. */
PR_TSAN_INVISIBLE static inline __attribute__((always_inline)) void
switch_to(int t)
{
	int self = sched_rt.cur;
	struct pr_ctx *tc = &sched_rt.ctx[t];

	if (t != self) {
		if (self >= 0) {
			sched_rt.ctx[self].at = pr_hot.site;
			sched_rt.ctx[self].at_obj = pr_hot.obj;
			sched_tsan_switch_out();
		}
		sched_rt.cur = t;
		sched_set_at(tc->at, tc->at_obj);
		if (!tc->started) {
			tc->started = 1;
			pr_fiber_prepare(&tc->fiber, fiber_entry);
		}
		pr_fiber_switch(self >= 0 ? &sched_rt.ctx[self].fiber : &sched_rt.main,
				&tc->fiber);
		/* Resumed: whoever switched here set sched_rt.cur = self. */
		if (self < 0)
			return;		/* the main stack: the run is over */
	}
	if (sched_rt.ctx[self].pending_event >= 0)
		run_event(&sched_rt.ctx[self]);
}

/*
 * Ask the strategy.  Under a memory model, a strategy blind to flushes
 * (sees_memory 0: random, pct, pos, surw, portfolio) never sees them: the
 * scheduler flushes first, each time with probability 1/2 and always when
 * nothing else can run or a context sleeps until its buffer drains, from
 * its own generator (seeded by seed and run, so a run stays a function of
 * them), then shows the strategy the first n - mem choices -- the same
 * array it gets under sc.  A budget longer than MEM_TICK steps is served
 * in ticks of MEM_TICK: at each tick the scheduler may flush, then the
 * running context goes on without asking the strategy again, so a store
 * never waits unboundedly for a decision (real buffers drain in bounded
 * time; a context retrying on a half-visible state would otherwise spin
 * through a whole PCT budget).
 */
#define MEM_TICK	64

/*
 * Under weak, a strategy blind to memory does not choose stale reads
 * either: when the context it runs (@idx) could read an older value,
 * the scheduler's generator tosses the run's coin (run.c: half the runs
 * read only newest values, the others an older one with probability
 * 1/8 or 1/2 at each load that has one) and picks among the older ones
 * uniformly.
 */
PR_NO_TSAN static int maybe_stale(const struct pr_choices *cs, int idx)
{
	int first = cs->n - cs->reads, m = 0;
	int ctx = cs->c[idx].ctx, forced = sched_rt.read_forced;

	sched_rt.read_forced = 0;
	if (!cs->reads || cs->c[idx].inject >= 0 || cs->c[idx].mem >= 0)
		return idx;
	while (first < cs->n && cs->c[first].ctx != ctx)
		first++;
	while (first + m < cs->n && cs->c[first + m].ctx == ctx)
		m++;
	/* A forced decision's coin was tossed already (choices.c). */
	if (!m || (!forced && !sched_stale_coin()))
		return idx;
	return first + (int)pr_rng_below(&sched_rt.mem_rng, (uint64_t)m);
}

PR_NO_TSAN static int pick(struct pr_choices *cs, int64_t *budget)
{
	struct pr_strategy *st = sched_rt.strat;
	int reads = cs->reads, k = cs->n - cs->mem - reads, mem = cs->mem, idx;

	if (!sched_rt.mem || st->ops->sees_memory)
		return st->ops->pick(st, cs, budget);
	if (mem && (k == 0 || sched_rt.mem->waiting() ||
		    pr_rng_below(&sched_rt.mem_rng, 2) == 0))
		return k + (int)pr_rng_below(&sched_rt.mem_rng, (uint64_t)mem);
	if (cs->reason == PR_R_BUDGET && sched_rt.mem_left > 0 &&
	    cs->current >= 0) {
		*budget = sched_rt.mem_left;	/* the tick: go on */
		return maybe_stale(cs, cs->current);
	}
	sched_rt.mem_left = 0;
	if (!mem && !reads)
		return st->ops->pick(st, cs, budget);
	cs->n = k;
	cs->mem = 0;
	cs->reads = 0;
	idx = st->ops->pick(st, cs, budget);
	cs->n = k + mem + reads;
	cs->mem = mem;
	cs->reads = reads;
	if (idx < 0 || idx >= k)
		return idx;
	return maybe_stale(cs, idx);
}

/*
 * A flush chosen: one step of its own, in a segment of its own (choice
 * code PR_CHOICE_MEM + ...), taken on no context's stack -- the running
 * context stays where it is and, chosen next, goes on without counting a
 * preemption.  The run's preemption count (pr_run_result, reports) counts
 * context switches only.  A preemption bound (dfs, dpor: strategy/tree.c)
 * also counts a flush chosen while the running context could go on: a
 * bound K covers the runs with at most K switches and early flushes
 * together; flushes when no context can go on are free.
 */
PR_NO_TSAN static void flush(const struct pr_choice *ch, int code)
{
	if (code != sched_rt.seg_code) {
		sched_close_segment(1);
		sched_rt.seg_code = code;
	}
	sched_rt.mem->flush(ch->ctx, ch->mem);
	sched_rt.steps++;
	sched_rt.seg_steps++;
	sched_choices_stale();
}

/* The rare ends of a decision, out of its straight path. */
PR_NO_TSAN __attribute__((noinline, cold)) static void decide_livelock(void)
{
	sched_verdict(sched_rt.cur, "livelock", NULL,
		      "no progress: step bound %llu exceeded",
		      (unsigned long long)sched_rt.opts->max_steps);
	sched_rt.res->failed = 1;
	sched_fail_now();
}

PR_NO_TSAN __attribute__((noinline, cold)) static void decide_bad_pick(int idx)
{
	if (idx == PR_PICK_ABANDON) {
		/* Nothing new can follow (a systematic strategy's pruning). */
		sched_rt.res->abandoned = 1;
		sched_fail_now();
	}
	sched_verdict(sched_rt.cur, "divergence", NULL, "%s",
		      sched_rt.strat->error[0] ? sched_rt.strat->error
					       : "strategy gave up");
	sched_rt.res->diverged = 1;
	sched_fail_now();
}

/*
 * The decision's straight path -- a budget ran out, nothing changed, sc,
 * no observer, the chosen context is runnable -- is what every sampled
 * run spends most of its scheduling time in (~9 decisions a
 * run on the spec-get micro test): the rest sits behind one test each,
 * in functions of its own.
 *
 * The body is written once and instantiated twice (@plain is a
 * constant): plain, for sc without a decision observer, where every
 * memory-model and observer test folds away; and general, for the rest.
 * Both make the same choice from the same array, so which one runs
 * changes no schedule.
 */
PR_TSAN_INVISIBLE static inline __attribute__((always_inline)) void
decide(enum pr_reason reason, const int plain)
{
	struct pr_choices *cs = &sched_rt.cs;
	const struct pr_choice *ch;
	int64_t budget = 1;
	uint64_t left;
	int idx, code;
	void *hide;

	if (pr_tsan_pending())
		sched_tsan_fail();
	/*
	 * pagerace-tsan: choosing is hidden (tsan.h).  Replay decides at every
	 * step, explore at the end of a segment; the libc calls a decision
	 * makes would otherwise log entries in the context's TSan trace, whose
	 * position picks the shadow cell a later access evicts.
	 */
	hide = pr_tsan_hide_begin();
	sched_account();
	if (sched_rt.changed) {
		if (reason == PR_R_BUDGET)
			reason = PR_R_CHANGED;
		sched_rt.changed = 0;
	}
	if (__builtin_expect(sched_rt.steps > sched_rt.max_steps, 0))
		decide_livelock();
	sched_build_choices(cs, reason, plain);
again:
	if (__builtin_expect(cs->n == 0, 0)) {
		pr_tsan_hide_end(hide);
		sched_nothing_enabled();
		return;
	}
	if (!plain && __builtin_expect(sched_rt.mem != NULL, 0))
		idx = pick(cs, &budget);
	else
		idx = sched_rt.strat->ops->pick(sched_rt.strat, cs, &budget);
	if (__builtin_expect((unsigned)idx >= (unsigned)cs->n, 0))
		decide_bad_pick(idx);
	ch = &cs->c[idx];
	/* Flushes and stale reads come only with a memory model. */
	if (!plain && __builtin_expect(ch->mem >= 0, 0)) {
		flush(ch, pr_choice_code(ch));
		sched_build_choices(cs, reason, plain);
		goto again;
	}
	if (!plain && __builtin_expect(ch->read > 0, 0))
		code = pr_choice_code(ch);
	else
		code = ch->inject < 0 ? ch->ctx : PR_CHOICE_EVENT + ch->inject;
	/* Reading an older value is no switch (tree.c counts it so too). */
	if (cs->current >= 0 && idx != cs->current &&
	    (plain || !(ch->read > 0 && ch->ctx == cs->c[cs->current].ctx))) {
		sched_rt.preemptions++;
		if (!plain && sched_rt.decision_observer)	/* hidden with the decision */
			sched_rt.decision_observer(cs, idx, 1);
	} else if (!plain && sched_rt.decision_observer) {
		sched_rt.decision_observer(cs, idx, 0);
	}
	if (code != sched_rt.seg_code) {
		sched_close_segment(1);
		sched_rt.seg_code = code;
	}
	left = sched_rt.max_steps + 1 - sched_rt.steps;
	if (budget < 1)
		budget = 1;
	if (!plain && __builtin_expect(sched_rt.mem != NULL, 0) &&
	    !sched_rt.strat->ops->sees_memory) {
		sched_rt.mem_left = budget > MEM_TICK ? budget - MEM_TICK : 0;
		if (budget > MEM_TICK)
			budget = MEM_TICK;
	}
	if (!plain && sched_rt.mem && sched_rt.mem->chosen) {
		/*
		 * A stale read is a segment of one step, the load's: a
		 * replay then meets it only at a segment's start.  A blind
		 * strategy's grant goes on after it.
		 */
		if (ch->read > 0 && budget > 1) {
			if (!sched_rt.strat->ops->sees_memory)
				sched_rt.mem_left += budget - 1;
			budget = 1;
		}
		sched_rt.mem->chosen(ch->ctx, ch->inject >= 0 ? 0 : ch->read);
	}
	if ((uint64_t)budget > left)
		budget = (int64_t)left;
	sched_rt.budget_start = pr_hot.budget = budget;

	if (sched_rt.ctx[ch->ctx].state == CTX_SPINNING)
		sched_set_state(ch->ctx, CTX_RUNNABLE);
	if (__builtin_expect(ch->inject >= 0, 0)) {
		/* A lock's waiter takes it (run_event puts it back). */
		if (sched_rt.ctx[ch->ctx].state == CTX_BLOCKED)
			sched_set_state(ch->ctx, CTX_RUNNABLE);
		sched_rt.inj[ch->inject].remaining--;
		sched_choices_stale();
		sched_rt.ctx[ch->ctx].pending_event = ch->inject;
	}
	pr_tsan_hide_end(hide);
	switch_to(ch->ctx);
}

PR_TSAN_INVISIBLE void sched_decide(enum pr_reason reason)
{
	if (__builtin_expect(!sched_rt.mem && !sched_rt.decision_observer, 1))
		decide(reason, 1);
	else
		decide(reason, 0);
}

PR_NO_TSAN static void run_event(struct pr_ctx *c)
{
	struct pr_injection *e = &sched_rt.inj[c->pending_event];
	/* A lock wait it interrupted (pr_lock_wait): the handler's own. */
	const void *wait_obj = c->wait_obj;
	int lock_wait = c->lock_wait;

	c->pending_event = -1;
	/* What the context does when it resumes: for pr_sched_pending. */
	c->irq_at = pr_hot.site;
	c->irq_obj = pr_hot.obj;
	c->in_event++;
	c->events_off++;
	/* This context's events are masked now: the choices changed. */
	sched_mark_changed();
	c->wait_obj = NULL;
	c->lock_wait = LOCK_WAIT_NONE;
	e->fn(e->arg);
	c->wait_obj = wait_obj;
	c->lock_wait = lock_wait;
	if (lock_wait) {
		/* Back to the wait: asleep again if the lock is held. */
		pr_effect(wait_obj, c->lock_size, PR_EFF_READ);
		if (c->lock_held(wait_obj, lock_wait == LOCK_WAIT_SHARED))
			sched_set_state((int)(c - sched_rt.ctx), CTX_BLOCKED);
	}
	c->events_off--;
	c->in_event--;
	sched_choices_stale();	/* its events are unmasked again */
	sched_set_at(&sched_site_iret, NULL);
	pr_hot.budget--;	/* the return from the handler is a step */
	sched_decide(PR_R_IRET);
}

PR_NO_TSAN static void fiber_entry(void)
{
	struct pr_ctx *c = &sched_rt.ctx[sched_rt.cur];

	pr_tsan_acquire(&sched_run_sync);
	if (c->pending_event >= 0)
		run_event(c);
	c->fn(c->arg);
	sched_ctx_done(sched_rt.cur);
	sched_set_at(&sched_site_exit, NULL);
	pr_hot.budget--;	/* the exit is a step */
	sched_decide(PR_R_EXIT);
	abort();		/* a finished context is never chosen */
}

/* ---- yield points ---------------------------------------------------- */

/* The rich replay's step observer, out of ThreadSanitizer's sight. */
PR_TSAN_INVISIBLE void sched_observe(const struct pr_site *site,
				     const void *obj)
{
	void *hide = pr_tsan_hide_begin();

	sched_rt.observer(site, obj, sched_rt.cur, pr_step());
	pr_tsan_hide_end(hide);
}

PR_TSAN_INVISIBLE void pr_yield_slow(const struct pr_site *site, const void *obj)
{
	if (pr_stress_on) {
		pr_stress_yield_slow(site, obj);
		return;
	}
	if (pr_tsan_pending() && sched_rt.cur >= 0)
		sched_tsan_fail();
	if (sched_rt.cur < 0) {
		/* Setup and end-of-run checks run unscheduled. */
		pr_hot.budget = sched_rt.budget_start = PR_BUDGET_UNBOUNDED;
		return;
	}
	if (sched_rt.observer)
		sched_observe(site, obj);
	if (pr_hot.budget > 0)
		return;		/* observed only */
	sched_decide(PR_R_BUDGET);
}

#if PR_TSAN_ENABLED
/* pagerace-tsan's yield point: the inline one, out of TSan's sight. */
PR_NO_TSAN void pr_yield_at_tsan(const struct pr_site *site, const void *obj,
				 int writes)
{
	pr_yield_at_impl(site, obj, writes);
}
#endif

/* Does toggling @c's events change what the scheduler could choose? */
PR_NO_TSAN static void events_toggled(int ctx)
{
	for (int i = 0; i < sched_rt.ninj; i++)
		if (sched_rt.inj[i].ctx == ctx && sched_rt.inj[i].remaining > 0) {
			sched_mark_changed();
			return;
		}
}

PR_NO_TSAN void pr_events_disable(void)
{
	int self = pr_self();

	if (self < 0)
		return;
	if (sched_rt.ctx[self].events_off++ == 0 && !pr_stress_on)
		events_toggled(self);
}

PR_NO_TSAN void pr_events_enable(void)
{
	int self = pr_self();

	if (self < 0)
		return;
	if (sched_rt.ctx[self].events_off <= 0)
		pr_fail("bad-irq-enable", NULL,
			"interrupts enabled more often than disabled");
	if (--sched_rt.ctx[self].events_off == 0 && !pr_stress_on)
		events_toggled(self);
}

PR_NO_TSAN int pr_events_disabled(void)
{
	int self = pr_self();

	return self >= 0 && sched_rt.ctx[self].events_off > 0;
}
