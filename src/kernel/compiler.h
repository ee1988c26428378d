/* SPDX-License-Identifier: MIT */
/*
 * compiler.h - the kernel's compiler helpers (include/linux/compiler.h,
 * kernel.h) that model code written against 2.6.13 expects.
 */
#ifndef PAGERACE_KERNEL_COMPILER_H
#define PAGERACE_KERNEL_COMPILER_H

#include <stddef.h>

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

#ifndef container_of
#define container_of(ptr, type, member) ({				\
		const __typeof__(((type *)0)->member) *__mptr = (ptr);	\
		(type *)(void *)((char *)__mptr - offsetof(type, member)); })
#endif

#define BITS_PER_LONG	(__SIZEOF_LONG__ * 8)

/*
 * A yield point's static description at the *caller's* source location,
 * for kernel primitives implemented out of line that still want traces
 * to name the model function that called them ("find_get_page:lock").
 */
#define KSITE(name, kind, tag)						\
	static const struct pr_site name = {				\
		__func__, __FILE__, __LINE__, (kind), (tag), 0, 0 }

#endif /* PAGERACE_KERNEL_COMPILER_H */
