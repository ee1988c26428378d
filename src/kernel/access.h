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
 */
#ifndef PAGERACE_KERNEL_ACCESS_H
#define PAGERACE_KERNEL_ACCESS_H

#include "runtime/yield.h"
#include "kernel/kasan.h"

#define READ_ONCE(x) ({							\
		__typeof__(&(x)) __ro_p = &(x);				\
		PR_YIELD_POINT_SZ(PR_K_LOAD, #x, __ro_p, sizeof(*__ro_p));	\
		kasan_check(__ro_p, sizeof(*__ro_p), 0);		\
		__atomic_load_n(__ro_p, __ATOMIC_RELAXED); })

#define WRITE_ONCE(x, v) do {						\
		__typeof__(&(x)) __wo_p = &(x);				\
		__typeof__(x) __wo_v = (v);				\
		PR_YIELD_POINT_SZ(PR_K_STORE, #x, __wo_p, sizeof(*__wo_p));	\
		kasan_check(__wo_p, sizeof(*__wo_p), 1);		\
		__atomic_store_n(__wo_p, __wo_v, __ATOMIC_RELAXED);	\
	} while (0)

#define LOAD(x) ({							\
		__typeof__(&(x)) __ld_p = &(x);				\
		PR_YIELD_POINT_SZ(PR_K_LOAD, #x, __ld_p, sizeof(*__ld_p));	\
		kasan_check(__ld_p, sizeof(*__ld_p), 0);		\
		*__ld_p; })

#define STORE(x, v) do {						\
		__typeof__(&(x)) __st_p = &(x);				\
		__typeof__(x) __st_v = (v);				\
		PR_YIELD_POINT_SZ(PR_K_STORE, #x, __st_p, sizeof(*__st_p));	\
		kasan_check(__st_p, sizeof(*__st_p), 1);		\
		*__st_p = __st_v;					\
	} while (0)

#endif /* PAGERACE_KERNEL_ACCESS_H */
