/* SPDX-License-Identifier: MIT */
/*
 * yield.h - yield points: the only places where a simulated CPU can be
 * preempted.
 *
 * Model code marks every shared-memory access with one of the PR_* macros
 * below, placed *before* the access.  The macro records where it is (file,
 * line, function), what kind of access follows and which object it touches,
 * so that replay can explain a failure and a later partial-order reduction can
 * tell independent steps apart.
 *
 * Hot path: a yield point that does not switch costs one decrement and one
 * predictable branch.  The scheduler hands the running context a budget of
 * steps it may take without being consulted; only when the budget runs out
 * (or a strategy asked to see every step, as replay with instrumentation
 * does) is pr_yield_slow() called.  Everything rich is gathered there.
 */
#ifndef PAGERACE_RUNTIME_YIELD_H
#define PAGERACE_RUNTIME_YIELD_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/tsan.h"

/* What kind of access follows a yield point. */
enum pr_kind {
	PR_K_YIELD = 0,		/* no access: an explicit preemption point */
	PR_K_LOAD,		/* plain or READ_ONCE load */
	PR_K_STORE,		/* plain or WRITE_ONCE store */
	PR_K_RMW,		/* atomic read-modify-write */
	PR_K_LOCK,		/* lock acquisition attempt */
	PR_K_UNLOCK,		/* lock release */
	PR_K_FENCE,		/* memory barrier */
	PR_K_ACQUIRE,		/* rcu_dereference, acquire load */
	PR_K_RELEASE,		/* rcu_assign_pointer, release store */
	PR_K_SPIN,		/* cpu_relax() in a wait loop */
	PR_K_BLOCK,		/* sleeping wait */
	PR_K_WAIT,		/* a wait its waker ends (PR_WAIT_AT) */
	PR_K_NR
};

/* Kinds after which the shared state may have changed. */
#define PR_KIND_WRITES(k)						\
	((k) == PR_K_STORE || (k) == PR_K_RMW || (k) == PR_K_LOCK ||	\
	 (k) == PR_K_UNLOCK || (k) == PR_K_RELEASE)

/*
 * A yield point's static description.  One per source location, in
 * read-only data; its address is never used as an identity (ASLR), only
 * its contents.  The trace identifies a site by "func:kind[:tag]", which
 * survives edits that move lines.
 */
struct pr_site {
	const char *func;
	const char *file;
	int line;
	unsigned char kind;	/* enum pr_kind */
	const char *tag;	/* optional: what is accessed, e.g. "_count" */
	unsigned short size;	/* bytes accessed at obj, 0: unknown (replay
				 * reports show values before/after) */
	unsigned char bit1;	/* an atomic bit operation or test_bit on
				 * bit bit1 - 1 of the word at obj, known at
				 * compile time; 0: none (dependence.c) */
};

/*
 * The scheduler state the hot path touches, kept together in one line.
 * @budget:	steps the running context may still take unconsulted.
 * @store_epoch: bumped after every writing access; spin-waiters sleep
 *		until it moves (nothing they re-read can have changed before).
 * @site, @obj:	where the running context last yielded, for verdicts and
 *		for checking a replay against its trace; two stores.
 * @spinners:	set while some context sleeps in a spin-wait, so that the
 *		first store after it makes the scheduler look again.
 */
struct pr_hot {
	int64_t budget;
	uint64_t store_epoch;
	const struct pr_site *site;	/* last yield point of the running context */
	const void *obj;		/* and the object it touches */
	int spinners;		/* spin-waiters a store would wake */
};
/*
 * Thread-local: deterministic runs use one thread (every fiber shares
 * it), so this is the same single copy as a global; in stress mode
 * (stress.c) each CPU's thread has its own, with an unbounded budget, so
 * a yield point stays one decrement and one branch and never writes
 * memory another thread touches.  local-exec: the executable defines it,
 * so the access is one %fs-relative instruction, like a global's.
 */
extern __thread struct pr_hot pr_hot __attribute__((tls_model("local-exec")));

void pr_yield_slow(const struct pr_site *site, const void *obj);
void pr_wake_spinners(void);

#if defined(PR_TSAN) && PR_TSAN
/*
 * pagerace-tsan: the scheduler's bookkeeping must stay out of
 * ThreadSanitizer's sight (runtime/tsan.h), and an inline function is
 * instrumented where it is inlined, so the yield point is a call into
 * the uninstrumented runtime (sched.c).
 */
void pr_yield_at_tsan(const struct pr_site *site, const void *obj, int writes);
#define pr_yield_at(site, obj, writes) pr_yield_at_tsan((site), (obj), (writes))
#define pr_yield_at_inline pr_yield_at_impl
#else
#define pr_yield_at_inline pr_yield_at
#endif

PR_NO_TSAN static inline void pr_yield_at_inline(const struct pr_site *site,
				      const void *obj, int writes)
{
	pr_hot.site = site;
	pr_hot.obj = obj;
	if (__builtin_expect(--pr_hot.budget <= 0, 0))
		pr_yield_slow(site, obj);
	if (writes) {
		pr_hot.store_epoch++;
		if (__builtin_expect(pr_hot.spinners != 0, 0))
			pr_wake_spinners();
	}
}

#define PR__SITE(kind, tag)						\
	static const struct pr_site pr__site = {			\
		__func__, __FILE__, __LINE__, (kind), (tag), 0, 0 }
#define PR__SITE_SZ(kind, tag, size)					\
	static const struct pr_site pr__site = {			\
		__func__, __FILE__, __LINE__, (kind), (tag), (size), 0 }

/* A yield point before an access of @kind to @obj; @tag names the field. */
#define PR_YIELD_POINT(kind, tag, obj) do {				\
		PR__SITE(kind, tag);					\
		pr_yield_at(&pr__site, (const void *)(obj),		\
			    PR_KIND_WRITES(kind));	\
	} while (0)

/*
 * An atomic bit operation or test_bit on bit @nr of the word at @obj:
 * when @nr is a compile-time constant (a PG_* flag) the site records it,
 * so that dpor lets operations on different bits of one word commute
 * (dependence.c, rule 1).  In a static initializer __builtin_constant_p
 * is decided by the front end, the same in every build and flavour.
 */
#define PR_YIELD_POINT_BIT(kind, tag, obj, size, nr) do {		\
		static const struct pr_site pr__site = {		\
			__func__, __FILE__, __LINE__, (kind), (tag), (size), \
			__builtin_constant_p(nr) ?			\
			(unsigned char)((nr) % (__SIZEOF_LONG__ * 8) + 1) : 0 }; \
		pr_yield_at(&pr__site, (const void *)(obj),		\
			    PR_KIND_WRITES(kind));			\
	} while (0)

/* The same, also recording that @size bytes at @obj are accessed. */
#define PR_YIELD_POINT_SZ(kind, tag, obj, size) do {			\
		PR__SITE_SZ(kind, tag, size);				\
		pr_yield_at(&pr__site, (const void *)(obj),		\
			    PR_KIND_WRITES(kind));	\
	} while (0)

#define PR_LOAD(obj, tag)	PR_YIELD_POINT(PR_K_LOAD, tag, obj)
#define PR_STORE(obj, tag)	PR_YIELD_POINT(PR_K_STORE, tag, obj)
#define PR_RMW(obj, tag)	PR_YIELD_POINT(PR_K_RMW, tag, obj)
#define PR_LOCK(obj, tag)	PR_YIELD_POINT(PR_K_LOCK, tag, obj)
#define PR_UNLOCK(obj, tag)	PR_YIELD_POINT(PR_K_UNLOCK, tag, obj)
#define PR_FENCE(tag)		PR_YIELD_POINT(PR_K_FENCE, tag, (void *)0)
#define PR_ACQUIRE(obj, tag)	PR_YIELD_POINT(PR_K_ACQUIRE, tag, obj)
#define PR_RELEASE(obj, tag)	PR_YIELD_POINT(PR_K_RELEASE, tag, obj)
#define PR_YIELD(tag)		PR_YIELD_POINT(PR_K_YIELD, tag, (void *)0)

/*
 * Spin-wait: call in the body of a wait loop, after re-reading the
 * condition.  The context stops being schedulable until some other access
 * writes shared state, so a spinner never starves the context it waits for,
 * and a round in which everyone spins and nobody writes is a livelock.
 */
void pr_spin(const struct pr_site *site, const void *obj);
#define PR_SPIN(obj, tag) do {						\
		PR__SITE(PR_K_SPIN, tag);				\
		pr_spin(&pr__site, (const void *)(obj));				\
	} while (0)

/*
 * Sleeping wait: the context blocks until pr_wake(@waitq).  The caller
 * re-checks its condition afterwards (wake-ups may be spurious).
 */
void pr_block(const struct pr_site *site, const void *waitq);
#define PR_BLOCK(waitq, tag) do {					\
		PR__SITE(PR_K_BLOCK, tag);				\
		pr_block(&pr__site, (const void *)(waitq));				\
	} while (0)

/*
 * A wait whose end its waker decides: the context stops at @site -- a
 * step boundary whether or not it must wait -- and sleeps there on
 * @waitq if @blocked, until a pr_wake(@waitq) that its waker issues only
 * once the condition holds.  Unlike PR_BLOCK, the step that reaches the
 * site reads nothing to decide where it stops, and is not a step that
 * went to sleep (dependence.c, rule 3): the state it finds decides only
 * when the next step is enabled, and that step reads what the waker
 * wrote.  The site (kind PR_K_WAIT) announces no access.  The caller
 * re-checks its condition afterwards (an interrupt handler may have run
 * between the wake-up and the next step).
 */
void pr_wait_at(const struct pr_site *site, const void *waitq, int blocked);
/*
 * The condition of the waits at @waitq no longer holds: the contexts
 * waiting there that could go on (pr_wait_at, woken or never asleep)
 * sleep again until the next pr_wake(@waitq).
 */
void pr_rewait(const void *waitq);
#define PR_WAIT_AT(waitq, tag, blocked) do {				\
		PR__SITE(PR_K_WAIT, tag);				\
		pr_wait_at(&pr__site, (const void *)(waitq), (blocked));	\
	} while (0)

/*
 * Locks (kernel/spinlock.c): a failed attempt sleeps on @lock until an
 * unlock wakes it (pr_wake(@lock)); the step that resumes it tries again,
 * and is a write of [@lock, + @size) for dpor -- the fallback after
 * pr_lock_wait below, which leaves only a lock its own CPU holds to fail.
 * pr_lock_taken(@lock) puts back to sleep the waiters on @lock that could
 * go on and have not run yet -- all of them, or with @shared (a reader
 * took it) the ones that want it alone -- so that a resumed waiter always
 * finds the lock free.  A daemon asleep on a lock is waiting, not idle:
 * if no unlock can come, the run ends in a deadlock verdict.
 */
void pr_block_lock(const struct pr_site *site, const void *lock,
		   size_t size, int shared);
/*
 * A lock's yield point, before the attempt: the context waits there,
 * enabled only while @held(@lock, @shared) is false -- asleep until an
 * unlock wakes it, put back to sleep by pr_lock_taken when someone else
 * takes the lock first -- so that its attempt, the next step, finds the
 * lock free.  Deciding where it stops reads nothing (only enabledness
 * depends on the lock, which dpor sees in the attempt's access), and a
 * waiter makes no failed attempt: an execution is an order of the
 * critical sections.  Interrupts reach it while it waits, as a spinning
 * CPU takes them; after the handler it waits again if the lock is held.
 * @held must say 0 for a lock its own CPU holds: the attempt then finds
 * the deadlock.  Stress mode: a plain yield point (the caller spins).
 */
void pr_lock_wait_slow(const struct pr_site *site, const void *lock,
		       size_t size, int shared, int is_held,
		       int (*held)(const void *lock, int shared));
/*
 * The common case inline: the lock is free and the yield point makes no
 * decision (budget left), so no other context can run before the
 * attempt and the waiter needs no bookkeeping: a plain yield point.
 * (Stress mode's budget is unbounded: the same, as it always was.)
 * @held is asked exactly once on either way: explore grants budgets of
 * several steps where replay decides at every step, and pagerace-tsan's
 * replay must see the same atomic loads of the lock word as its explore
 * (an extra one moves the shadow cell a later access evicts).
 */
PR_NO_TSAN static inline __attribute__((always_inline)) void
pr_lock_wait(const struct pr_site *site, const void *lock, size_t size,
	     int shared, int (*held)(const void *lock, int shared))
{
	int is_held = held(lock, shared);

	if (__builtin_expect(pr_hot.budget > 1 && !is_held, 1))
		pr_yield_at(site, lock, 1);
	else
		pr_lock_wait_slow(site, lock, size, shared, is_held, held);
}
void pr_lock_taken(const void *lock, int shared);

/* Make every context blocked on @waitq runnable again. */
void pr_wake(const void *waitq);

#endif /* PAGERACE_RUNTIME_YIELD_H */
