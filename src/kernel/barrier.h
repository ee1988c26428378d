/* SPDX-License-Identifier: MIT */
/*
 * barrier.h - memory barriers, cpu_relax, and RCU pointer publication.
 *
 * Under sc every barrier is a real fence and changes nothing observable;
 * under tso and weak (memory/memory.h) it also tells the model what it
 * orders.  Each is still a yield point of its
 * own (kind fence, tag "smp_mb"/"smp_wmb"/"smp_rmb"; acquire for
 * rcu_dereference, release for rcu_assign_pointer) so that the trace
 * records where the ordering points are and a weak-memory mode can give
 * them meaning later without touching model code.
 *
 * Wait loops.  cpu_relax() is only a preemption point: it does not know
 * what the loop waits for.  A kernel wait loop
 *
 *	while (page_count(page) > 1)
 *		cpu_relax();
 *
 * is written in the model as
 *
 *	while (page_count(page) > 1)
 *		cpu_relax_on(page);
 *
 * cpu_relax_on(obj) is PR_SPIN(obj): the context sleeps until some other
 * context writes shared memory (so the spinner never starves the context
 * it waits for, and when every context is spinning the runtime reports a
 * livelock).  The condition must be re-read (through a yield point) on
 * every iteration, which the loop above does.
 */
#ifndef PAGERACE_KERNEL_BARRIER_H
#define PAGERACE_KERNEL_BARRIER_H

#include "runtime/yield.h"
#include "kernel/kasan.h"
#include "memory/memory.h"

/* The model's side of a fence (memory/memory.h); nothing under sc. */
#define __kmem_fence(f) do {						\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_fence(f);				\
	} while (0)

#define barrier()	__asm__ __volatile__("" ::: "memory")

/* A full fence recorded under @tag (smp_mb__before_clear_bit & co.). */
#define __kfence(tag) do {						\
		PR_FENCE(tag);						\
		__kmem_fence(PR_MF_MB);					\
		__atomic_thread_fence(__ATOMIC_SEQ_CST);		\
	} while (0)

#define smp_mb() do {							\
		PR_FENCE("smp_mb");					\
		__kmem_fence(PR_MF_MB);					\
		__atomic_thread_fence(__ATOMIC_SEQ_CST);		\
	} while (0)
#define smp_wmb() do {							\
		PR_FENCE("smp_wmb");					\
		__kmem_fence(PR_MF_WMB);				\
		__atomic_thread_fence(__ATOMIC_RELEASE);		\
	} while (0)
#define smp_rmb() do {							\
		PR_FENCE("smp_rmb");					\
		__kmem_fence(PR_MF_RMB);				\
		__atomic_thread_fence(__ATOMIC_ACQUIRE);		\
	} while (0)
/* Alpha only; a no-op everywhere else and here. */
#define smp_read_barrier_depends()	do { } while (0)
#define mb()	smp_mb()
#define wmb()	smp_wmb()
#define rmb()	smp_rmb()

/* A preemption point with no access: see "Wait loops" above. */
#define cpu_relax() do {						\
		PR_YIELD("cpu_relax");					\
		barrier();						\
	} while (0)

/*
 * The body of a wait loop whose condition reads @obj.  Under weak, a
 * pass that read an older value goes round again at once, reading
 * nothing older than now (memory.h, pr_mem_relax): a plain preemption
 * point, not a sleep no store would end.
 */
#define cpu_relax_on(obj) do {						\
		if (__builtin_expect(pr_mem_on, 0) && pr_mem_relax())	\
			PR_YIELD("cpu_relax");				\
		else							\
			PR_SPIN((obj), "cpu_relax");			\
	} while (0)

/*
 * spin_until - wait until @cond holds; @obj is what @cond reads (named in
 * a livelock report).  @cond must read shared memory through yield points.
 */
#define spin_until(cond, obj) do {					\
		while (!(cond))						\
			cpu_relax_on(obj);				\
	} while (0)

/**
 * rcu_dereference - load an RCU-protected pointer (an lvalue)
 *
 * An acquire load.  2.6.13's version took any expression; this one needs
 * the pointer's location, as every use in the page cache has it
 * (rcu_dereference(root->rnode), rcu_dereference(*slot)).  See also
 * rcu_dereference_check() in rcu.h.
 */
#define rcu_dereference(p) ({						\
		__typeof__(&(p)) __rd_p = &(p);				\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_prepare(__rd_p, sizeof(*__rd_p), PR_MP_LOAD); \
		PR_ACQUIRE(__rd_p, #p);					\
		kasan_check(__rd_p, sizeof(*__rd_p), 0);		\
		__auto_type __rd_v = __atomic_load_n(__rd_p, __ATOMIC_ACQUIRE); \
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_load(__rd_p, sizeof(*__rd_p), &__rd_v,	\
				    PR_MO_ACQUIRE);			\
		__rd_v; })

/**
 * rcu_assign_pointer - publish @v through the RCU-protected pointer @p
 *
 * A release store: everything written to *v before it is visible to a
 * reader that loads @p with rcu_dereference.  Evaluates to @v.
 */
#define rcu_assign_pointer(p, v) ({					\
		__typeof__(&(p)) __ra_p = &(p);				\
		__typeof__(p) __ra_v = (v);				\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_prepare(__ra_p, sizeof(*__ra_p), PR_MP_STORE); \
		PR_RELEASE(__ra_p, #p);					\
		kasan_check(__ra_p, sizeof(*__ra_p), 1);		\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_store(__ra_p, sizeof(*__ra_p), &__ra_v,	\
				     PR_MO_RELEASE);			\
		else							\
			__atomic_store_n(__ra_p, __ra_v, __ATOMIC_RELEASE); \
		__ra_v; })

#endif /* PAGERACE_KERNEL_BARRIER_H */
