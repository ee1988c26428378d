/* SPDX-License-Identifier: MIT */
/*
 * rcu.c - read-side sections, the callback queue, grace periods, and the
 * callback daemon (rcu.h).
 *
 * The queue and the clock are the RCU implementation's own state, not the
 * model's shared memory (in the kernel: per-CPU lists touched with
 * interrupts off), so they are not preceded by yield points of their own;
 * the points that matter -- the call_rcu, each callback, each wait -- are.
 */
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
} rcu = { .tail = &rcu.head, .daemon = -1 };

void rcu_reset(void)
{
	rcu.clock = 0;
	rcu.head = NULL;
	rcu.tail = &rcu.head;
	rcu.queued = rcu.invoked = 0;
	rcu.sync_waiters = 0;
	rcu.daemon = -1;
}

/* No CPU is in a read-side section that began before @stamp. */
static int grace_period_over(uint64_t stamp)
{
	for (int i = 0; i < KCPU_SLOTS; i++)
		if (kcpu[i].rcu_nesting > 0 && kcpu[i].rcu_start < stamp)
			return 0;
	return 1;
}

int rcu_reader_covers(uint64_t stamp)
{
	const struct kcpu *c = this_kcpu();

	if (c->rcu_nesting == 0)
		return RCU_NOT_READER;
	return c->rcu_start < stamp ? RCU_COVERED : RCU_TOO_LATE;
}

void rcu_read_lock(void)
{
	struct kcpu *c = this_kcpu();

	preempt_disable();
	if (c->rcu_nesting++ == 0)
		c->rcu_start = ++rcu.clock;
}

void rcu_read_unlock(void)
{
	struct kcpu *c = this_kcpu();

	if (c->rcu_nesting <= 0)
		pr_fail("rcu-unbalanced", NULL,
			"rcu_read_unlock without rcu_read_lock");
	if (--c->rcu_nesting == 0) {
		c->rcu_start = 0;
		/* A grace period may have ended: let its waiters look. */
		if ((rcu.head || rcu.sync_waiters) && pr_self() >= 0)
			pr_wake(&rcu.waitq);
	}
	preempt_enable();
}

int rcu_read_lock_held(void)
{
	return this_kcpu()->rcu_nesting > 0;
}

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	PR_STORE(head, "call_rcu");
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
	if (pr_self() >= 0)	/* outside a run nobody waits */
		pr_wake(&rcu.waitq);
}

/* Dequeue and run the oldest callback (its grace period is over). */
static void invoke_oldest(void)
{
	struct rcu_head *h = rcu.head;
	struct kcpu *c = this_kcpu();

	rcu.head = h->next;
	if (!rcu.head)
		rcu.tail = &rcu.head;
	h->next = NULL;
	rcu.invoked++;
	kasan_rcu_done(h);
	c->softirq++;
	h->func(h);
	c->softirq--;
}

static void rcu_daemon(void *arg)
{
	(void)arg;
	for (;;) {
		if (!rcu.head || !grace_period_over(rcu.head->stamp)) {
			PR_BLOCK(&rcu.waitq, "rcu_gp");
			continue;
		}
		invoke_oldest();
		/* The next grace period ends at a scheduling decision too. */
		PR_YIELD("rcu_callback");
	}
}

int rcu_start_daemon(void)
{
	rcu.daemon = pr_spawn("rcu", rcu_daemon, NULL, PR_CTX_DAEMON);
	return rcu.daemon;
}

void synchronize_rcu(void)
{
	struct kcpu *c = this_kcpu();
	uint64_t stamp;

	if (c->rcu_nesting)
		pr_fail("deadlock", NULL,
			"synchronize_rcu inside an RCU read-side section");
	PR_FENCE("synchronize_rcu");
	stamp = ++rcu.clock;
	if (pr_self() < 0) {
		if (!grace_period_over(stamp))
			pr_fail("deadlock", NULL, "synchronize_rcu outside a "
				"run with a CPU left in a read-side section");
		return;
	}
	rcu.sync_waiters++;
	while (!grace_period_over(stamp))
		PR_BLOCK(&rcu.waitq, "synchronize_rcu");
	rcu.sync_waiters--;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int rcu_barrier_final(void)
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
		invoke_oldest();
		ran++;
	}
	return ran;
}

unsigned long rcu_callbacks_queued(void)
{
	return rcu.queued;
}

unsigned long rcu_callbacks_invoked(void)
{
	return rcu.invoked;
}

unsigned long rcu_callbacks_pending(void)
{
	return rcu.queued - rcu.invoked;
}
