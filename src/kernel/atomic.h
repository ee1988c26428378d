/* SPDX-License-Identifier: MIT */
/*
 * atomic.h - atomic_t (include/asm-i386/atomic.h, 2.6.13, plus the
 * atomic_add_unless / atomic_inc_not_zero of 2.6.15+ for the "merged"
 * protocol of 2.6.27).
 *
 * Each operation is one yield point (kind rmw for read-modify-writes,
 * load/store for atomic_read/atomic_set, tagged with the argument, e.g.
 * "&page->_count") followed by one __atomic operation.  They are macros
 * so that the yield point belongs to the calling model function.
 * Read-modify-writes are seq_cst (x86 lock prefix: a full barrier, which
 * the kernel guarantees for those returning a value); atomic_read and
 * atomic_set are relaxed, as in the kernel, where they are plain
 * accesses that imply no ordering.
 */
#ifndef PAGERACE_KERNEL_ATOMIC_H
#define PAGERACE_KERNEL_ATOMIC_H

#include "runtime/yield.h"
#include "kernel/barrier.h"
#include "kernel/kasan.h"
#include "runtime/effects.h"

/*
 * An RMW that found nothing to write (a failed cmpxchg) only read the
 * word: say so to partial-order reduction (runtime/effects.h).  Under sc
 * only: under a memory model the RMW still drained and ordered.
 */
#define __katomic_unwritten(p, failed) do {				\
		if ((failed) && !pr_mem_on)				\
			pr_rmw_unwritten(p);				\
	} while (0)

typedef struct {
	int counter;
} atomic_t;

#define ATOMIC_INIT(i)	{ (i) }

/*
 * Under a memory model, first wait for what the access must not overtake
 * (memory/memory.h, pr_mem_prepare: an RMW returning a value (@full)
 * drains the buffer); then the yield point of @kind on atomic_t *@v, then
 * the shadow check.
 */
#define __katomic_pre_rmw(kind, v, tag, write, full) ({			\
		atomic_t *__ap = (atomic_t *)(v);			\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_prepare(__ap, sizeof(*__ap),		\
				(kind) == PR_K_LOAD ? PR_MP_LOAD :	\
				(kind) == PR_K_STORE ? PR_MP_STORE :	\
				(full) ? PR_MP_RMW_FULL : PR_MP_RMW);	\
		PR_YIELD_POINT_SZ(kind, tag, __ap, sizeof(*__ap));			\
		kasan_check(__ap, sizeof(*__ap), (write));		\
		if (__builtin_expect(pr_mem_on, 0) && (kind) == PR_K_RMW) \
			pr_mem_rmw(__ap, sizeof(*__ap), (full));	\
		__ap; })
#define __katomic_pre(kind, v, tag, write)				\
	__katomic_pre_rmw(kind, v, tag, write, 1)

#define atomic_read(v) ({						\
		atomic_t *__v = __katomic_pre(PR_K_LOAD, (v), #v, 0);	\
		int __r = __atomic_load_n(&__v->counter, __ATOMIC_RELAXED); \
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_load(&__v->counter, sizeof(int), &__r,	\
				    PR_MO_RELAXED);			\
		__r; })

#define atomic_set(v, i) do {						\
		int __i = (i);						\
		atomic_t *__v = __katomic_pre(PR_K_STORE, (v), #v, 1);	\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_store(&__v->counter, sizeof(int), &__i,	\
				     PR_MO_RELAXED);			\
		else							\
			__atomic_store_n(&__v->counter, __i, __ATOMIC_RELAXED); \
	} while (0)

/*
 * Returns the new value of v->counter after adding @i; @full: the kernel
 * operation returns a value (a full barrier under every model).
 */
#define __katomic_add_full(v, i, tag, full) ({				\
		int __i = (i);						\
		atomic_t *__v = __katomic_pre_rmw(PR_K_RMW, (v), tag, 1, full); \
		__atomic_add_fetch(&__v->counter, __i, __ATOMIC_SEQ_CST); })
#define __katomic_add_ret(v, i, tag)	__katomic_add_full(v, i, tag, 1)

/* No value, no ordering (LKMM); seq_cst on the host all the same. */
#define atomic_add(i, v)	((void)__katomic_add_full((v), (i), #v, 0))
#define atomic_sub(i, v)	((void)__katomic_add_full((v), -(i), #v, 0))
#define atomic_inc(v)		((void)__katomic_add_full((v), 1, #v, 0))
#define atomic_dec(v)		((void)__katomic_add_full((v), -1, #v, 0))

#define atomic_add_return(i, v)	__katomic_add_ret((v), (i), #v)
#define atomic_sub_return(i, v)	__katomic_add_ret((v), -(i), #v)
#define atomic_inc_return(v)	__katomic_add_ret((v), 1, #v)
#define atomic_dec_return(v)	__katomic_add_ret((v), -1, #v)

#define atomic_inc_and_test(v)	(__katomic_add_ret((v), 1, #v) == 0)
#define atomic_dec_and_test(v)	(__katomic_add_ret((v), -1, #v) == 0)
#define atomic_sub_and_test(i, v) (__katomic_add_ret((v), -(i), #v) == 0)
#define atomic_add_negative(i, v) (__katomic_add_ret((v), (i), #v) < 0)

/* Returns the value v->counter held before (== @old iff it swapped). */
#define __katomic_cmpxchg(v, old, new, full) ({			\
		int __old = (old), __new = (new);			\
		atomic_t *__v = __katomic_pre_rmw(PR_K_RMW, (v), #v, 1, full); \
		__katomic_unwritten(&__v->counter,			\
			!__atomic_compare_exchange_n(&__v->counter, &__old, \
				__new, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)); \
		__old; })

#define __katomic_xchg(v, new, full) ({					\
		int __new = (new);					\
		atomic_t *__v = __katomic_pre_rmw(PR_K_RMW, (v), #v, 1, full); \
		__atomic_exchange_n(&__v->counter, __new, __ATOMIC_SEQ_CST); })

#define atomic_cmpxchg(v, old, new)	__katomic_cmpxchg(v, old, new, 1)
#define atomic_xchg(v, new)		__katomic_xchg(v, new, 1)

/*
 * The ordering variants of value-returning atomics (later kernels; the
 * litmus corpus uses them).  Under a memory model (memory/memory.h):
 * _relaxed orders nothing more than a non-value-returning RMW; _acquire
 * and _release are full ones (stronger than LKMM: an acquire needs later
 * loads to read no older than its own value, which a full barrier also
 * gives).  Under sc they are the same operation.
 */
#define atomic_add_return_relaxed(i, v)	__katomic_add_full((v), (i), #v, 0)
#define atomic_add_return_acquire(i, v)	__katomic_add_full((v), (i), #v, 1)
#define atomic_add_return_release(i, v)	__katomic_add_full((v), (i), #v, 1)
#define atomic_sub_return_relaxed(i, v)	__katomic_add_full((v), -(i), #v, 0)
#define atomic_sub_return_acquire(i, v)	__katomic_add_full((v), -(i), #v, 1)
#define atomic_sub_return_release(i, v)	__katomic_add_full((v), -(i), #v, 1)
#define atomic_inc_return_relaxed(v)	__katomic_add_full((v), 1, #v, 0)
#define atomic_inc_return_acquire(v)	__katomic_add_full((v), 1, #v, 1)
#define atomic_inc_return_release(v)	__katomic_add_full((v), 1, #v, 1)
#define atomic_dec_return_relaxed(v)	__katomic_add_full((v), -1, #v, 0)
#define atomic_dec_return_acquire(v)	__katomic_add_full((v), -1, #v, 1)
#define atomic_dec_return_release(v)	__katomic_add_full((v), -1, #v, 1)
#define atomic_cmpxchg_relaxed(v, o, n)	__katomic_cmpxchg(v, o, n, 0)
#define atomic_cmpxchg_acquire(v, o, n)	__katomic_cmpxchg(v, o, n, 1)
#define atomic_cmpxchg_release(v, o, n)	__katomic_cmpxchg(v, o, n, 1)
#define atomic_xchg_relaxed(v, n)	__katomic_xchg(v, n, 0)
#define atomic_xchg_acquire(v, n)	__katomic_xchg(v, n, 1)
#define atomic_xchg_release(v, n)	__katomic_xchg(v, n, 1)

/*
 * atomic_add_unless - add @a unless the counter is @u; nonzero if added.
 * The kernel's is a read and a cmpxchg loop; here the whole test-and-add
 * is one step, which is the behaviour of a loop whose cmpxchg succeeds
 * (a failed cmpxchg only retries, it never changes what is observed).
 */
#define atomic_add_unless(v, a, u) ({					\
		int __a = (a), __u = (u), __c;				\
		atomic_t *__v = __katomic_pre(PR_K_RMW, (v), #v, 1);	\
		__c = __atomic_load_n(&__v->counter, __ATOMIC_SEQ_CST);	\
		if (__c != __u)						\
			__atomic_store_n(&__v->counter, __c + __a,	\
					 __ATOMIC_SEQ_CST);		\
		__katomic_unwritten(&__v->counter, __c == __u);		\
		__c != __u; })

#define atomic_inc_not_zero(v)	atomic_add_unless((v), 1, 0)

/* Generic cmpxchg/xchg on a scalar or pointer lvalue's address @ptr. */
#define __kcmpxchg(ptr, old, new, op) ({				\
		__typeof__(ptr) __cp = (ptr);				\
		__typeof__(*__cp) __cold = (old), __cnew = (new);	\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_prepare(__cp, sizeof(*__cp), (op));	\
		PR_YIELD_POINT_SZ(PR_K_RMW, #ptr, __cp, sizeof(*__cp));	\
		kasan_check(__cp, sizeof(*__cp), 1);			\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_rmw(__cp, sizeof(*__cp),			\
				   (op) == PR_MP_RMW_FULL);		\
		__katomic_unwritten(__cp,				\
			!__atomic_compare_exchange_n(__cp, &__cold, __cnew, 0, \
				__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));	\
		__cold; })

#define __kxchg(ptr, new, op) ({					\
		__typeof__(ptr) __xp = (ptr);				\
		__typeof__(*__xp) __xnew = (new);			\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_prepare(__xp, sizeof(*__xp), (op));	\
		PR_YIELD_POINT_SZ(PR_K_RMW, #ptr, __xp, sizeof(*__xp));	\
		kasan_check(__xp, sizeof(*__xp), 1);			\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_rmw(__xp, sizeof(*__xp),			\
				   (op) == PR_MP_RMW_FULL);		\
		__atomic_exchange_n(__xp, __xnew, __ATOMIC_SEQ_CST); })

#define cmpxchg(ptr, old, new)		__kcmpxchg(ptr, old, new, PR_MP_RMW_FULL)
#define cmpxchg_relaxed(ptr, old, new)	__kcmpxchg(ptr, old, new, PR_MP_RMW)
#define cmpxchg_acquire(ptr, old, new)	__kcmpxchg(ptr, old, new, PR_MP_RMW_FULL)
#define cmpxchg_release(ptr, old, new)	__kcmpxchg(ptr, old, new, PR_MP_RMW_FULL)
#define xchg(ptr, new)			__kxchg(ptr, new, PR_MP_RMW_FULL)
#define xchg_relaxed(ptr, new)		__kxchg(ptr, new, PR_MP_RMW)
#define xchg_acquire(ptr, new)		__kxchg(ptr, new, PR_MP_RMW_FULL)
#define xchg_release(ptr, new)		__kxchg(ptr, new, PR_MP_RMW_FULL)

/* x86: atomic RMWs are already full barriers; kept as fence points. */
#define smp_mb__before_atomic_dec()	__kfence("smp_mb__before_atomic_dec")
#define smp_mb__after_atomic_dec()	__kfence("smp_mb__after_atomic_dec")
#define smp_mb__before_atomic_inc()	__kfence("smp_mb__before_atomic_inc")
#define smp_mb__after_atomic_inc()	__kfence("smp_mb__after_atomic_inc")

#endif /* PAGERACE_KERNEL_ATOMIC_H */
