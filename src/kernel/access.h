/* SPDX-License-Identifier: MIT */
/*
 * access.h - how model code touches shared memory.
 *
 *   READ_ONCE(x), WRITE_ONCE(x, v)   the kernel's marked accesses: relaxed
 *                                    C11 atomics (racing on them is fine)
 *   LOAD(x), STORE(x, v)             the kernel's plain accesses: a plain C
 *                                    access, so a ThreadSanitizer build of
 *                                    the model reports the races the kernel
 *                                    code really has
 *
 * Each is a yield point placed before the access (tagged with the
 * stringified lvalue, e.g. "root->rnode"), then a shadow check of the
 * address (kasan.h), then the access.  @x must be an lvalue; @v is
 * evaluated before the yield point, so a WRITE_ONCE(a, READ_ONCE(b)) is two
 * yield points in the order the kernel's code performs the two accesses.
 *
 * Under a memory model other than sc (memory/memory.h) the access goes
 * through the model instead: one predictable branch on pr_mem_on, taken
 * never under sc, so runs there are what they always were.  A load reads
 * memory first and lets the model overwrite the value (its own CPU's
 * buffered store, say): __auto_type keeps the value's unqualified type.
 */
#ifndef PAGERACE_KERNEL_ACCESS_H
#define PAGERACE_KERNEL_ACCESS_H

#include "runtime/yield.h"
#include "kernel/kasan.h"
#include "memory/memory.h"

/*
 * The model's say: wait before the yield point (memory.h, pr_mem_prepare),
 * then a load of *@p into @v, or a store of @v to *@p.
 */
#define __kmem_prepare(p, op) do {					\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_prepare((p), sizeof(*(p)), (op));	\
	} while (0)
#define __kmem_load(p, v, order) do {					\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_load((p), sizeof(*(p)), &(v), (order));	\
	} while (0)
#define __kmem_store(p, v, order, plain) do {				\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_store((p), sizeof(*(p)), &(v), (order));	\
		else							\
			plain;						\
	} while (0)

/*
 * The order of a plain or READ_ONCE load of @v's type under weak: a
 * pointer is loaded to be dereferenced, and the kernel relies on the
 * address dependency to order the dependent loads after it (LKMM's
 * addr); the model gives it acquire's order, which orders every later
 * load of the CPU -- stronger than the dependency, never weaker.
 * (__builtin_classify_type: 5 is a pointer, in gcc and clang.)
 */
#define __kmem_order_of(v)						\
	(__builtin_classify_type(v) == 5 ? PR_MO_ACQUIRE : PR_MO_RELAXED)

#define READ_ONCE(x) ({							\
		__typeof__(&(x)) __ro_p = &(x);				\
		__kmem_prepare(__ro_p, PR_MP_LOAD);			\
		PR_YIELD_POINT_SZ(PR_K_LOAD, #x, __ro_p, sizeof(*__ro_p));	\
		kasan_check(__ro_p, sizeof(*__ro_p), 0);		\
		__auto_type __ro_v = __atomic_load_n(__ro_p, __ATOMIC_RELAXED); \
		__kmem_load(__ro_p, __ro_v, __kmem_order_of(__ro_v));		\
		__ro_v; })

#define WRITE_ONCE(x, v) do {						\
		__typeof__(&(x)) __wo_p = &(x);				\
		__typeof__(x) __wo_v = (v);				\
		__kmem_prepare(__wo_p, PR_MP_STORE);			\
		PR_YIELD_POINT_SZ(PR_K_STORE, #x, __wo_p, sizeof(*__wo_p));	\
		kasan_check(__wo_p, sizeof(*__wo_p), 1);		\
		__kmem_store(__wo_p, __wo_v, PR_MO_RELAXED,		\
			__atomic_store_n(__wo_p, __wo_v, __ATOMIC_RELAXED)); \
	} while (0)

/*
 * STORE_RELEASE(x, v): the kernel's publication idiom "smp_wmb(); x = v"
 * (or rcu_assign_pointer).  The same yield point as STORE (kind store, so
 * traces do not change), performed as a C11 release store: what the
 * barrier guarantees a reader that loads @x with rcu_dereference, and the
 * only form ThreadSanitizer understands (it does not model fences).
 */
#define STORE_RELEASE(x, v) do {					\
		__typeof__(&(x)) __sr_p = &(x);				\
		__typeof__(x) __sr_v = (v);				\
		__kmem_prepare(__sr_p, PR_MP_STORE);			\
		PR_YIELD_POINT_SZ(PR_K_STORE, #x, __sr_p, sizeof(*__sr_p));	\
		kasan_check(__sr_p, sizeof(*__sr_p), 1);		\
		__kmem_store(__sr_p, __sr_v, PR_MO_RELEASE,		\
			__atomic_store_n(__sr_p, __sr_v, __ATOMIC_RELEASE)); \
	} while (0)

/*
 * LOAD_DEP(x): a lockless load of a pointer the code then dereferences,
 * where the kernel relies on address-dependency ordering (seed 004's
 * "page = *pagep"; rcu_dereference in later kernels).  The same yield
 * point as LOAD, performed as a C11 acquire load: the ordering the
 * dependency gives on every architecture the seeds ran on but Alpha, in
 * the form ThreadSanitizer understands.
 */
#define LOAD_DEP(x) ({							\
		__typeof__(&(x)) __ldd_p = &(x);			\
		__kmem_prepare(__ldd_p, PR_MP_LOAD);			\
		PR_YIELD_POINT_SZ(PR_K_LOAD, #x, __ldd_p, sizeof(*__ldd_p));	\
		kasan_check(__ldd_p, sizeof(*__ldd_p), 0);		\
		__auto_type __ldd_v = __atomic_load_n(__ldd_p, __ATOMIC_ACQUIRE); \
		__kmem_load(__ldd_p, __ldd_v, PR_MO_ACQUIRE);		\
		__ldd_v; })

#define LOAD(x) ({							\
		__typeof__(&(x)) __ld_p = &(x);				\
		__kmem_prepare(__ld_p, PR_MP_LOAD);			\
		PR_YIELD_POINT_SZ(PR_K_LOAD, #x, __ld_p, sizeof(*__ld_p));	\
		kasan_check(__ld_p, sizeof(*__ld_p), 0);		\
		__auto_type __ld_v = *__ld_p;				\
		__kmem_load(__ld_p, __ld_v, __kmem_order_of(__ld_v));		\
		__ld_v; })

#define STORE(x, v) do {						\
		__typeof__(&(x)) __st_p = &(x);				\
		__typeof__(x) __st_v = (v);				\
		__kmem_prepare(__st_p, PR_MP_STORE);			\
		PR_YIELD_POINT_SZ(PR_K_STORE, #x, __st_p, sizeof(*__st_p));	\
		kasan_check(__st_p, sizeof(*__st_p), 1);		\
		__kmem_store(__st_p, __st_v, PR_MO_RELAXED,		\
			*__st_p = __st_v);				\
	} while (0)

#endif /* PAGERACE_KERNEL_ACCESS_H */
