/* SPDX-License-Identifier: MIT */
/*
 * rcu.c - read-side sections, the callback queue, grace periods, and the
 * callback daemon (rcu.h).
 *
 * The queue and the clock are the RCU implementation's own state, not the
 * model's shared memory (in the kernel: per-CPU lists touched with
 * interrupts off), so they are not preceded by yield points of their own;
 * the points that matter -- the call_rcu, each callback, each wait -- are.
 *
 * Stress mode: that state is shared by real threads, so every touch of it
 * is under pr_harness_lock (a no-op in deterministic runs).  The lock is a
 * locked exchange, a full barrier, which is what makes the grace period
 * sound: a reader's section start is visible to the daemon before the
 * reader's first load of a protected pointer.
 *
 * ThreadSanitizer (pagerace-tsan): this file is the RCU implementation, so
 * it is PR_NO_TSAN; what RCU guarantees the model is stated explicitly:
 *  - call_rcu releases @head, its callback acquires it: the updater's
 *    accesses before call_rcu (unpublishing the object, and anything
 *    before) happen before the callback (which frees it);
 *  - every rcu_read_unlock that ends a section releases rcu.gp, and each
 *    callback and each return from synchronize_rcu acquires it: a
 *    read-side section happens before the end of the grace periods that
 *    wait for it.  One sync object for all readers over-approximates
 *    (sections the grace period does not wait for are ordered too), but
 *    those sections cannot reach the object -- if they do, kasan reports a
 *    use-after-free with the reason -- so no race on it is hidden.
 */
#include "runtime/tsan.h"
#include "kernel/rcu.h"
#include "kernel/irq.h"
#include "kernel/kasan.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"

static struct {
	uint64_t clock;			/* ticks at section starts and calls */
	struct rcu_head *head, **tail;	/* FIFO, oldest stamp first */
	unsigned long queued, invoked;
	int sync_waiters;		/* contexts in synchronize_rcu */
	int daemon;			/* its context id, -1: none */
	int waitq;			/* address is the wait queue */
	char gp;			/* ThreadSanitizer: grace periods */
} rcu = { .tail = &rcu.head, .daemon = -1 };

PR_NO_TSAN void rcu_reset(void)
{
	rcu.clock = 0;
	rcu.head = NULL;
	rcu.tail = &rcu.head;
	rcu.queued = rcu.invoked = 0;
	rcu.sync_waiters = 0;
	rcu.daemon = -1;
}

/* No CPU is in a read-side section that began before @stamp. */
PR_NO_TSAN static int grace_period_over(uint64_t stamp)
{
	for (int i = 0; i < KCPU_SLOTS; i++)
		if (kcpu[i].rcu_nesting > 0 && kcpu[i].rcu_start < stamp)
			return 0;
	return 1;
}

PR_NO_TSAN int rcu_reader_covers(uint64_t stamp)
{
	const struct kcpu *c = this_kcpu();

	if (c->rcu_nesting == 0)
		return RCU_NOT_READER;
	return c->rcu_start < stamp ? RCU_COVERED : RCU_TOO_LATE;
}

PR_NO_TSAN void rcu_read_lock(void)
{
	struct kcpu *c = this_kcpu();

	preempt_disable();
	pr_harness_lock();
	if (c->rcu_nesting++ == 0)
		c->rcu_start = ++rcu.clock;
	pr_harness_unlock();
}

PR_NO_TSAN void rcu_read_unlock(void)
{
	struct kcpu *c = this_kcpu();
	int wake = 0;

	if (c->rcu_nesting <= 0)
		pr_fail("rcu-unbalanced", NULL,
			"rcu_read_unlock without rcu_read_lock");
	pr_harness_lock();
	if (--c->rcu_nesting == 0) {
		pr_tsan_release(&rcu.gp);
		c->rcu_start = 0;
		/* A grace period may have ended: let its waiters look. */
		wake = (rcu.head || rcu.sync_waiters) && pr_self() >= 0;
	}
	pr_harness_unlock();
	if (wake)
		pr_wake(&rcu.waitq);
	preempt_enable();
}

PR_NO_TSAN int rcu_read_lock_held(void)
{
	return this_kcpu()->rcu_nesting > 0;
}

PR_NO_TSAN void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	PR_STORE(head, "call_rcu");
	pr_tsan_release(head);
	pr_harness_lock();
	for (const struct rcu_head *h = rcu.head; h; h = h->next)
		if (h == head)
			pr_fail("double-free", head,
				"call_rcu on an rcu_head already queued");
	head->stamp = ++rcu.clock;
	kasan_rcu_queued(head, head->stamp);
	head->func = func;
	head->next = NULL;
	*rcu.tail = head;
	rcu.tail = &head->next;
	rcu.queued++;
	pr_harness_unlock();
	if (pr_self() >= 0)	/* outside a run nobody waits */
		pr_wake(&rcu.waitq);
}

/* Dequeue the oldest callback (its grace period is over). */
PR_NO_TSAN static struct rcu_head *dequeue_oldest(void)
{
	struct rcu_head *h = rcu.head;

	rcu.head = h->next;
	if (!rcu.head)
		rcu.tail = &rcu.head;
	h->next = NULL;
	rcu.invoked++;
	kasan_rcu_done(h);
	return h;
}

/* Run a dequeued callback, in softirq context. */
PR_NO_TSAN static void invoke(struct rcu_head *h)
{
	struct kcpu *c = this_kcpu();

	pr_tsan_acquire(&rcu.gp);
	pr_tsan_acquire(h);
	c->softirq++;
	h->func(h);
	c->softirq--;
}

/* The oldest callback, dequeued, if its grace period is over. */
PR_NO_TSAN static struct rcu_head *take_ready(void)
{
	struct rcu_head *h = NULL;

	pr_harness_lock();
	if (rcu.head && grace_period_over(rcu.head->stamp))
		h = dequeue_oldest();
	pr_harness_unlock();
	return h;
}

PR_NO_TSAN static void rcu_daemon(void *arg)
{
	struct rcu_head *h;

	(void)arg;
	for (;;) {
		if (!(h = take_ready())) {
			PR_BLOCK(&rcu.waitq, "rcu_gp");
			continue;
		}
		invoke(h);
		/* The next grace period ends at a scheduling decision too. */
		PR_YIELD("rcu_callback");
	}
}

PR_NO_TSAN int rcu_start_daemon(void)
{
	rcu.daemon = pr_spawn("rcu", rcu_daemon, NULL, PR_CTX_DAEMON);
	return rcu.daemon;
}

PR_NO_TSAN void synchronize_rcu(void)
{
	struct kcpu *c = this_kcpu();
	uint64_t stamp;

	if (c->rcu_nesting)
		pr_fail("deadlock", NULL,
			"synchronize_rcu inside an RCU read-side section");
	PR_FENCE("synchronize_rcu");
	pr_harness_lock();
	stamp = ++rcu.clock;
	pr_harness_unlock();
	if (pr_self() < 0) {
		if (!grace_period_over(stamp))
			pr_fail("deadlock", NULL, "synchronize_rcu outside a "
				"run with a CPU left in a read-side section");
		pr_tsan_acquire(&rcu.gp);
		return;
	}
	pr_harness_lock();
	rcu.sync_waiters++;
	pr_harness_unlock();
	for (;;) {
		int over;

		pr_harness_lock();
		over = grace_period_over(stamp);
		pr_harness_unlock();
		if (over)
			break;
		PR_BLOCK(&rcu.waitq, "synchronize_rcu");
	}
	pr_harness_lock();
	rcu.sync_waiters--;
	pr_harness_unlock();
	pr_tsan_acquire(&rcu.gp);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

PR_NO_TSAN int rcu_barrier_final(void)
{
	int ran = 0;

	for (int i = 0; i < KCPU_SLOTS; i++)
		if (kcpu[i].rcu_nesting)
			pr_fail("rcu-unbalanced", NULL,
				"%s ended the run inside rcu_read_lock (nesting %d)",
				i == KCPU_OUTSIDE ? "setup" : pr_ctx_name(i),
				kcpu[i].rcu_nesting);
	/* Every CPU is quiescent: every queued grace period is over. */
	while (rcu.head) {
		invoke(dequeue_oldest());
		ran++;
	}
	return ran;
}

PR_NO_TSAN unsigned long rcu_callbacks_queued(void)
{
	return rcu.queued;
}

PR_NO_TSAN unsigned long rcu_callbacks_invoked(void)
{
	return rcu.invoked;
}

PR_NO_TSAN unsigned long rcu_callbacks_pending(void)
{
	return rcu.queued - rcu.invoked;
}
