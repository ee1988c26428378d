/* SPDX-License-Identifier: MIT */
/*
 * wait.c - the scheduler's waits: spin-waits, sleeping waits and wait
 * points, lock waiters, and the wake-ups that end them (yield.h states
 * what each promises).  Each changes a context's state and hands the
 * choice to sched_decide (sched.c); in stress mode each forwards to
 * stress.c.
 *
 * A waiter's state lives in its context (wait_obj, lock_wait,
 * spin_epoch); sched_set_state keeps the scheduler's masks exact and
 * sched_mark_changed makes the running context's next yield point a
 * decision whenever what could be chosen changes.
 */
#include "runtime/sched_state.h"
#include "runtime/effects.h"

/*
 * A spin-wait pass (yield.h): the context stops being schedulable until
 * another context writes shared state (pr_hot.store_epoch moves).
 */
PR_NO_TSAN void pr_spin(const struct pr_site *site, const void *obj)
{
	struct pr_ctx *c;

	if (pr_stress_on) {
		pr_stress_spin(site, obj);
		return;
	}
	if (sched_rt.cur < 0)
		return;
	c = &sched_rt.ctx[sched_rt.cur];
	pr_hot.budget--;
	sched_set_at(site, obj);
	if (sched_rt.observer)
		sched_observe(site, obj);
	/*
	 * The loop's reads since its last pass may predate stores by others
	 * (this context could have been preempted between them), so the
	 * snapshot is taken where the pass began, not here.  A first pass has
	 * no known beginning: it counts as stale, which costs one extra pass.
	 */
	sched_set_state(sched_rt.cur, CTX_SPINNING);
	c->spin_epoch = c->iter_epoch;
	c->wait_obj = obj;
	pr_hot.spinners = 1;
	sched_decide(PR_R_SPIN);
	c->wait_obj = NULL;
	c->iter_epoch = pr_hot.store_epoch;
}

/* A sleeping wait (yield.h): the context sleeps until pr_wake(@waitq). */
PR_NO_TSAN void pr_block(const struct pr_site *site, const void *waitq)
{
	struct pr_ctx *c;

	if (pr_stress_on) {
		pr_stress_block(site, waitq);
		return;
	}
	if (sched_rt.cur < 0)
		return;
	c = &sched_rt.ctx[sched_rt.cur];
	pr_hot.budget--;
	sched_set_at(site, waitq);
	if (sched_rt.observer)
		sched_observe(site, waitq);
	sched_set_state(sched_rt.cur, CTX_BLOCKED);
	c->wait_obj = waitq;
	sched_decide(PR_R_BLOCK);
	c->wait_obj = NULL;
}

/*
 * A wait point (yield.h, pr_wait_at): asleep already if @blocked, else a
 * yield point that remembers @waitq so that pr_rewait can put it to sleep.
 */
PR_NO_TSAN void pr_wait_at(const struct pr_site *site, const void *waitq,
			   int blocked)
{
	struct pr_ctx *c;

	if (blocked) {
		pr_block(site, waitq);
		return;
	}
	if (pr_stress_on || sched_rt.cur < 0) {
		pr_yield_at(site, waitq, 0);
		return;
	}
	c = &sched_rt.ctx[sched_rt.cur];
	c->wait_obj = waitq;	/* for pr_rewait */
	pr_yield_at(site, waitq, 0);
	c->wait_obj = NULL;
}

/* Waiters at @waitq that could go on sleep again (yield.h). */
PR_NO_TSAN void pr_rewait(const void *waitq)
{
	int slept = 0;

	if (pr_stress_on)
		return;
	for (uint64_t m = sched_rt.runnable; m; m &= m - 1) {
		int i = __builtin_ctzll(m);

		if (i != sched_rt.cur && sched_rt.ctx[i].wait_obj == waitq) {
			sched_set_state(i, CTX_BLOCKED);
			slept = 1;
		}
	}
	if (slept) {
		pr_effect(waitq, 0, PR_EFF_WAKE);
		sched_mark_changed();
	}
}

/*
 * pr_lock_wait's slow path (yield.h): the waiter is marked in its context
 * (lock_wait, lock_held) and sleeps while the lock is held, or stops at a
 * yield point that pr_lock_taken can turn into sleep; after an interrupt
 * handler, run_event (sched.c) puts it back to sleep if the lock is held.
 */
PR_NO_TSAN void pr_lock_wait_slow(const struct pr_site *site,
				  const void *lock, size_t size, int shared,
				  int is_held,
				  int (*held)(const void *lock, int shared))
{
	struct pr_ctx *c;

	if (pr_stress_on || sched_rt.cur < 0) {
		pr_yield_at(site, lock, 1);
		return;
	}
	c = &sched_rt.ctx[sched_rt.cur];
	c->lock_wait = shared ? LOCK_WAIT_SHARED : LOCK_WAIT_ALONE;
	c->lock_held = held;
	c->lock_size = size;
	sched_rt.lock_sleepers++;
	if (is_held) {
		pr_block(site, lock);
	} else {
		c->wait_obj = lock;	/* for pr_lock_taken */
		pr_yield_at(site, lock, 1);
	}
	sched_rt.lock_sleepers--;
	c->wait_obj = NULL;
	c->lock_wait = LOCK_WAIT_NONE;
}

/* Sleep until the lock is released, then retry it as a write (yield.h). */
PR_NO_TSAN void pr_block_lock(const struct pr_site *site, const void *lock,
			      size_t size, int shared)
{
	struct pr_ctx *c;

	if (pr_stress_on || sched_rt.cur < 0) {
		pr_block(site, lock);
		return;
	}
	c = &sched_rt.ctx[sched_rt.cur];
	c->lock_wait = shared ? LOCK_WAIT_SHARED : LOCK_WAIT_ALONE;
	sched_rt.lock_sleepers++;
	pr_block(site, lock);
	sched_rt.lock_sleepers--;
	c->lock_wait = LOCK_WAIT_NONE;
	/* This step makes the next attempt: a write of the lock word. */
	pr_effect(lock, size, PR_EFF_WRITE);
	pr_hot.store_epoch++;
	if (pr_hot.spinners)
		pr_wake_spinners();
}

/* @lock was taken: its waiters that can no longer take it sleep (yield.h). */
PR_NO_TSAN void pr_lock_taken(const void *lock, int shared)
{
	int slept = 0;

	if (pr_stress_on || !sched_rt.lock_sleepers)
		return;
	for (uint64_t m = sched_rt.runnable; m; m &= m - 1) {
		int i = __builtin_ctzll(m);
		struct pr_ctx *c = &sched_rt.ctx[i];

		if (c->wait_obj == lock && c->lock_wait &&
		    (!shared || c->lock_wait == LOCK_WAIT_ALONE)) {
			sched_set_state(i, CTX_BLOCKED);
			slept = 1;
		}
	}
	if (slept) {
		/* It changes whether they can run, as a wake-up does. */
		pr_effect(lock, 0, PR_EFF_WAKE);
		sched_mark_changed();
	}
}

/* A store after a spin-wait: the spinners may now see a change. */
PR_NO_TSAN void pr_wake_spinners(void)
{
	pr_hot.spinners = 0;
	sched_mark_changed();
}

/* Wake every context asleep on @waitq (yield.h). */
PR_NO_TSAN void pr_wake(const void *waitq)
{
	int woke = 0;
	uint64_t m;

	if (pr_stress_on) {
		pr_stress_wake(waitq);
		return;
	}
	pr_effect(waitq, 0, PR_EFF_WAKE);
	for (m = sched_rt.blocked; m; m &= m - 1) {
		int i = __builtin_ctzll(m);

		if (sched_rt.ctx[i].wait_obj == waitq) {
			sched_set_state(i, CTX_RUNNABLE);
			woke = 1;
		}
	}
	if (woke)
		sched_mark_changed();
}
