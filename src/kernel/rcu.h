/* SPDX-License-Identifier: MIT */
/*
 * rcu.h - classic RCU (include/linux/rcupdate.h, 2.6.13): read-side
 * sections, call_rcu, synchronize_rcu, with grace periods decided by the
 * scheduler.
 *
 * Grace periods.  A global RCU clock ticks at every outermost
 * rcu_read_lock and every call_rcu / synchronize_rcu.  Each CPU remembers
 * when its current read-side section began.  A callback stamped at time T
 * may run once no CPU is inside a section that began before T: exactly
 * "every CPU that was a reader at T has left its section since", with
 * sections that began later (and cannot have seen the removed object)
 * not waited for.  Callbacks are FIFO in stamp order, so only the oldest
 * needs testing.
 *
 * Callbacks run in a daemon context "rcu" (rcu_start_daemon, from the
 * model's setup, after the CPU contexts are spawned so CPUs keep ids
 * 0..n-1).  It sleeps while the oldest callback is not ready and is woken
 * by call_rcu and by every rcu_read_unlock that ends a section; once ready
 * it is just another runnable context, so *when* a grace period ends is a
 * scheduling decision that exploration varies and replay reproduces.
 * Each callback is one step (a yield point precedes it) and runs with
 * in_softirq() true.  Objects freed through call_rcu are RCU_PENDING in
 * the shadow meanwhile (kasan.h).
 *
 * At the end of a run (outside any context) rcu_barrier_final() runs what
 * is still queued; the daemon normally leaves nothing, as a run only ends
 * when every daemon is blocked.
 */
#ifndef PAGERACE_KERNEL_RCU_H
#define PAGERACE_KERNEL_RCU_H

#include <stdint.h>
#include "runtime/context.h"
#include "kernel/barrier.h"

/**
 * struct rcu_head - callback queue entry, embedded in the object it frees
 * @next:	next queued callback
 * @func:	what to call after the grace period
 * @stamp:	RCU clock at call_rcu
 */
struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
	uint64_t stamp;
};

#define RCU_HEAD_INIT		{ .next = NULL, .func = NULL, .stamp = 0 }
#define RCU_HEAD(head)		struct rcu_head head = RCU_HEAD_INIT
#define INIT_RCU_HEAD(ptr)	do {					\
		(ptr)->next = NULL; (ptr)->func = NULL; (ptr)->stamp = 0; \
	} while (0)

void rcu_read_lock(void);
void rcu_read_unlock(void);
/* 2.6.13 has no preemptible RCU: the _bh flavour is the same here. */
#define rcu_read_lock_bh()	rcu_read_lock()
#define rcu_read_unlock_bh()	rcu_read_unlock()

/* Inside a read-side section on this CPU. */
int rcu_read_lock_held(void);

/**
 * call_rcu - run @func(@head) after a grace period
 *
 * A yield point (a store to @head) precedes the queueing.  Fails with
 * "double-free" if @head is already queued.
 */
void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
#define call_rcu_bh(head, func)	call_rcu((head), (func))

/**
 * synchronize_rcu - wait until every read-side section that began before
 * the call has ended
 *
 * Blocks the calling context (a sleeping wait, woken as readers leave).
 * Called inside a read-side section it is a "deadlock" verdict.
 */
void synchronize_rcu(void);
#define synchronize_kernel()	synchronize_rcu()

/**
 * rcu_dereference_check - rcu_dereference(@p), legal only under
 * rcu_read_lock or when @cond (a lockdep-like condition, e.g.
 * lockdep_is_held(&mapping->tree_lock)) holds; otherwise fails with kind
 * "rcu-unprotected".
 */
#define rcu_dereference_check(p, cond) ({				\
		if (!rcu_read_lock_held() && !(cond))			\
			pr_fail("rcu-unprotected", &(p),		\
				"rcu_dereference(%s) outside rcu_read_lock "\
				"and without %s", #p, #cond);		\
		rcu_dereference(p); })

/* Start the callback daemon (from setup, after the CPU contexts). */
int rcu_start_daemon(void);

/**
 * rcu_barrier_final - end-of-run: run every callback still queued
 *
 * Outside any context.  Fails with "rcu-unbalanced" if a CPU ended the
 * run inside a read-side section.  Returns how many callbacks it ran (the
 * model treats a nonzero count as "callbacks still pending after the
 * final grace period" when it wants that to be a failure).
 */
int rcu_barrier_final(void);

/* Between runs: empty queue, clock zero, no daemon. */
void rcu_reset(void);

/* Counters for the current run. */
unsigned long rcu_callbacks_queued(void);
unsigned long rcu_callbacks_invoked(void);
unsigned long rcu_callbacks_pending(void);

/* For kasan: may this CPU read an object queued at @stamp? */
enum {
	RCU_COVERED = 0,	/* in a section the grace period waits for */
	RCU_NOT_READER,		/* not in a read-side section */
	RCU_TOO_LATE,		/* in a section that began after @stamp */
};
int rcu_reader_covers(uint64_t stamp);

/*
 * A checker's view of call_rcu (kernel/kasan.c installs one): @queued is
 * told of each rcu_head queued, with its clock stamp, @done when its grace
 * period is over, before its callback runs.  rcu owns the interface, so
 * the checker that asks rcu_reader_covers() is not called back by name.
 * NULL: nobody watches.  Set outside runs.
 */
struct rcu_observer {
	void (*queued)(const void *head, uint64_t stamp);
	void (*done)(const void *head);
};
void rcu_set_observer(const struct rcu_observer *o);

#endif /* PAGERACE_KERNEL_RCU_H */
