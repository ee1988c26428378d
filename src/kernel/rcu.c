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
 * Stress mode: that state is shared by real threads, so the queue and the
 * clock's ticks are under pr_harness_lock (a no-op in deterministic runs).
 * The read side takes no lock -- it runs on every lookup, and a lock there
 * would serialise the lockless lookups whose scaling stress measures: a
 * section start reads the clock and publishes itself in the CPU's own
 * kcpu with relaxed atomics, then a full fence (ThreadSanitizer models
 * no fences, so it adds no happens-before edge: RCU's guarantees to the
 * model are the rcu.gp annotations below), which is what makes the
 * grace period sound: the start is visible to the daemon before the
 * reader's first load of a protected pointer, and an updater's unpublish
 * (before its call_rcu tick) is visible to a reader that read the new tick.
 *
 * Clock: call_rcu and synchronize_rcu tick it and take the new value as
 * their stamp; a section takes the current value as its start.  A section
 * started before a stamp's tick has start < stamp and is waited for; one
 * started after has start >= stamp and is not.
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
#include "runtime/effects.h"
#include "runtime/tsan.h"
#include "kernel/rcu.h"
#include "kernel/irq.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "memory/memory.h"

#include <string.h>

static struct {
	uint64_t clock;			/* ticks at section starts and calls */
	struct rcu_head *head, **tail;	/* FIFO, oldest stamp first */
	unsigned long queued, invoked;
	int sync_waiters;		/* contexts in synchronize_rcu */
	/*
	 * Per waiting context: the CPUs (kcpu slots) it still waits for,
	 * those in a read-side section when it ticked the clock, and its own
	 * wait queue.  A reader leaving its section clears its bit and wakes
	 * a waiter only once that waiter's mask is empty, so a waiter never
	 * wakes up to find its grace period still running: no spurious
	 * wake-ups for dpor to interleave (litmus tests with several
	 * synchronize_rcu calls and readers were thousands of times larger).
	 */
	uint64_t sync_mask[PR_MAX_CTX];
	char sync_wq[PR_MAX_CTX];
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
	memset(rcu.sync_mask, 0, sizeof(rcu.sync_mask));
	rcu.daemon = -1;
}

/*
 * Does the reader in kcpu slot @i hold up a grace period stamped @stamp?
 * If so, the caller's result depends on that reader's section: report it
 * (effects.h, for dpor).
 *
 * Only such a slot is reported, not the whole kcpu array.  The result
 * depends on the other slots' writes (rcu_read_lock and the outermost
 * rcu_read_unlock, the only steps that report writing a kcpu) in neither
 * order: an unlock of a section that does not hold the stamp up (none,
 * or start >= stamp) leaves it not holding it up; an outermost lock
 * right before or right after this check reads the clock this check's
 * stamp was taken from (every stamp queued or waited for is <= the clock
 * now, and a tick between the two steps would be a third step, which
 * the lock depends on through rcu.clock), so the section it starts has
 * start >= stamp and does not hold it up either.  Nested locks and
 * unlocks change no slot's nesting from or to 0.  So the check commutes
 * with every step that writes a slot it does not report (dependence.c,
 * rule 1), and dpor no longer orders the callback daemon's checks
 * against the section starts and ends of readers the grace period does
 * not wait for (tests/strategy_dpor.c, "rcu grace-period check").
 */
PR_NO_TSAN static int holds_up(int i, uint64_t stamp)
{
	if (__atomic_load_n(&kcpu[i].rcu_nesting, __ATOMIC_RELAXED) > 0 &&
	    __atomic_load_n(&kcpu[i].rcu_start, __ATOMIC_RELAXED) < stamp) {
		pr_effect(&kcpu[i], sizeof(kcpu[i]), PR_EFF_READ);
		return 1;
	}
	return 0;
}

/*
 * No CPU is in a read-side section that began before @stamp.  Reads other
 * CPUs' kcpu (relaxed atomics: in stress mode they run meanwhile).  Every
 * slot is looked at (not only up to the first that holds the stamp up):
 * the result depends on each of them (holds_up).
 */
PR_NO_TSAN static int grace_period_over(uint64_t stamp)
{
	int over = 1;

	for (int i = 0; i < KCPU_SLOTS; i++)
		if (holds_up(i, stamp))
			over = 0;
	return over;
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
	if (c->rcu_nesting == 0) {
		/* Seen by grace periods (effects.h: for dpor). */
		pr_effect(&rcu.clock, sizeof(rcu.clock), PR_EFF_READ);
		pr_effect(c, sizeof(*c), PR_EFF_WRITE);
		__atomic_store_n(&c->rcu_start,
				 __atomic_load_n(&rcu.clock, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&c->rcu_nesting, 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (pr_mem_on)	/* the grace period's guarantee (weak) */
			pr_mem_rcu_reader(1);
	} else {
		__atomic_store_n(&c->rcu_nesting, c->rcu_nesting + 1,
				 __ATOMIC_RELAXED);
	}
}

/*
 * The reader in kcpu slot @slot left its outermost section: no waiter
 * waits for it any more; wake those that waited for nobody else.
 */
PR_NO_TSAN static void sync_reader_left(int slot)
{
	uint64_t bit = 1ull << slot;

	if (slot >= 64)
		return;
	pr_effect(rcu.sync_mask, sizeof(rcu.sync_mask), PR_EFF_WRITE);
	pr_harness_lock();
	for (int i = 0; i < PR_MAX_CTX; i++)
		if (rcu.sync_mask[i] & bit) {
			rcu.sync_mask[i] &= ~bit;
			if (!rcu.sync_mask[i] && pr_self() >= 0)
				pr_wake(&rcu.sync_wq[i]);
		}
	pr_harness_unlock();
}

PR_NO_TSAN void rcu_read_unlock(void)
{
	struct kcpu *c = this_kcpu();
	int wake = 0;

	if (c->rcu_nesting <= 0)
		pr_fail("rcu-unbalanced", NULL,
			"rcu_read_unlock without rcu_read_lock");
	if (c->rcu_nesting == 1) {
		pr_effect(c, sizeof(*c), PR_EFF_WRITE);
		pr_effect(&rcu.head, sizeof(rcu.head), PR_EFF_READ);
		/*
		 * No effect on rcu.sync_waiters: what the unlock does for
		 * waiters is in sync_reader_left's effect, and with none
		 * waiting (every mask empty) it does nothing a later
		 * synchronize_rcu could see but the kcpu write above.
		 */
		pr_tsan_release(&rcu.gp);
		if (pr_mem_on)
			pr_mem_rcu_reader(0);
		__atomic_store_n(&c->rcu_nesting, 0, __ATOMIC_RELAXED);
		/* Seen leaving by whoever queues or waits next, or we see them. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		/* A grace period may have ended: let the daemon look. */
		wake = __atomic_load_n(&rcu.head, __ATOMIC_RELAXED) &&
		       pr_self() >= 0;
		if (__atomic_load_n(&rcu.sync_waiters, __ATOMIC_RELAXED))
			sync_reader_left(kcpu_slot());
	} else {
		__atomic_store_n(&c->rcu_nesting, c->rcu_nesting - 1,
				 __ATOMIC_RELAXED);
	}
	if (wake)
		pr_wake(&rcu.waitq);
	preempt_enable();
}

PR_NO_TSAN int rcu_read_lock_held(void)
{
	return this_kcpu()->rcu_nesting > 0;
}

static const struct rcu_observer *observer;	/* kasan.c's, or NULL */

PR_NO_TSAN void rcu_set_observer(const struct rcu_observer *o)
{
	observer = o;
}

PR_NO_TSAN void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	/* Unpublishing stores first: the callback frees (memory/memory.h). */
	if (pr_mem_on)
		pr_mem_prepare(head, sizeof(*head), PR_MP_DRAIN);
	PR_STORE(head, "call_rcu");
	pr_tsan_release(head);
	if (pr_mem_on)		/* readers from now on are not waited for */
		pr_mem_gp_start();
	pr_effect(&rcu.clock, sizeof(rcu.clock), PR_EFF_WRITE);
	pr_effect(&rcu.head, sizeof(rcu.head), PR_EFF_WRITE);
	pr_harness_lock();
	for (const struct rcu_head *h = rcu.head; h; h = h->next)
		if (h == head)
			pr_fail("double-free", head,
				"call_rcu on an rcu_head already queued");
	head->stamp = __atomic_add_fetch(&rcu.clock, 1, __ATOMIC_RELAXED);
	if (observer)
		observer->queued(head, head->stamp);
	head->func = func;
	head->next = NULL;
	__atomic_store_n(rcu.tail, head, __ATOMIC_RELAXED);	/* rcu.head if empty */
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

	__atomic_store_n(&rcu.head, h->next, __ATOMIC_RELAXED);
	if (!rcu.head)
		rcu.tail = &rcu.head;
	h->next = NULL;
	rcu.invoked++;
	if (observer)
		observer->done(h);
	return h;
}

/* Run a dequeued callback, in softirq context. */
PR_NO_TSAN static void invoke(struct rcu_head *h)
{
	struct kcpu *c = this_kcpu();

	pr_tsan_acquire(&rcu.gp);
	pr_tsan_acquire(h);
	/*
	 * The grace period is over: every CPU has passed a full barrier since
	 * it began (memory/memory.h), so every store a reader made is visible.
	 */
	if (pr_mem_on)
		pr_mem_drain_all();
	c->softirq++;
	h->func(h);
	c->softirq--;
}

/*
 * The oldest callback, dequeued, if its grace period is over.  Effects:
 * writes the queue if it dequeues; a check that dequeues nothing only
 * reads it (an unlock's look at rcu.head, whether to wake the daemon,
 * commutes with it), and reads the slots that hold its grace period up
 * (holds_up).  What dpor must also see is the reclaim-held-page
 * detector's holds, which check/shadow.c reports as effects: without them
 * a check and a hold would look independent.
 */
PR_NO_TSAN static struct rcu_head *take_ready(void)
{
	struct rcu_head *h = NULL;

	pr_harness_lock();
	if (rcu.head && grace_period_over(rcu.head->stamp))
		h = dequeue_oldest();
	pr_harness_unlock();
	pr_effect(&rcu.head, sizeof(rcu.head), h ? PR_EFF_WRITE : PR_EFF_READ);
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
	uint64_t stamp, mask = 0;
	int me = pr_self();

	if (c->rcu_nesting)
		pr_fail("deadlock", NULL,
			"synchronize_rcu inside an RCU read-side section");
	if (pr_mem_on)		/* synchronize_rcu is a full barrier itself */
		pr_mem_prepare(&rcu, 0, PR_MP_DRAIN);
	PR_FENCE("synchronize_rcu");
	if (pr_mem_on)		/* readers from now on are not waited for */
		pr_mem_gp_start();
	pr_effect(&rcu.clock, sizeof(rcu.clock), PR_EFF_WRITE);
	pr_effect(&rcu.sync_waiters, sizeof(rcu.sync_waiters), PR_EFF_WRITE);
	pr_harness_lock();
	stamp = __atomic_add_fetch(&rcu.clock, 1, __ATOMIC_RELAXED);
	pr_harness_unlock();
	if (me < 0) {
		if (!grace_period_over(stamp))
			pr_fail("deadlock", NULL, "synchronize_rcu outside a "
				"run with a CPU left in a read-side section");
		pr_tsan_acquire(&rcu.gp);
		return;
	}
	pr_harness_lock();
	__atomic_fetch_add(&rcu.sync_waiters, 1, __ATOMIC_RELAXED);
	/* Seen by every reader that leaves after this, or we see it leave. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* The readers this grace period waits for (grace_period_over's). */
	pr_effect(rcu.sync_mask, sizeof(rcu.sync_mask), PR_EFF_WRITE);
	for (int i = 0; i < KCPU_SLOTS && i < 64; i++)
		if (holds_up(i, stamp))
			mask |= 1ull << i;
	rcu.sync_mask[me] = mask;
	pr_harness_unlock();
	for (;;) {
		int over;

		pr_effect(rcu.sync_mask, sizeof(rcu.sync_mask), PR_EFF_READ);
		pr_harness_lock();
		over = rcu.sync_mask[me] == 0;
		pr_harness_unlock();
		if (over)
			break;
		PR_BLOCK(&rcu.sync_wq[me], "synchronize_rcu");
	}
	pr_harness_lock();
	__atomic_fetch_sub(&rcu.sync_waiters, 1, __ATOMIC_RELAXED);
	pr_harness_unlock();
	pr_tsan_acquire(&rcu.gp);
	/* The readers' barriers and its own: a CPU that never was a
	 * reader may keep its stores buffered (memory/memory.h). */
	if (pr_mem_on)
		pr_mem_drain_readers();
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
