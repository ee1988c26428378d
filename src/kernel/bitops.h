/* SPDX-License-Identifier: MIT */
/*
 * bitops.h - bit operations on unsigned long words (include/asm-i386/
 * bitops.h, 2.6.13).
 *
 * Atomic ones (set_bit, clear_bit, change_bit, test_and_*): one yield
 * point, then one __atomic operation on the word.  test_bit: one yield
 * point and a relaxed load.  Non-atomic ones (__set_bit, __clear_bit,
 * __change_bit, __test_and_*): a plain load, a yield point, a plain
 * store -- exactly the read-modify-write the kernel's non-locked
 * instruction is to another CPU, so an atomic update of another bit of
 * the same word landing between the two is lost, as it can be on real
 * hardware.
 *
 * Yield points are tagged with the bit number as written ("PG_free").
 * The atomic ones and test_bit also record the bit when it is a constant
 * (PR_YIELD_POINT_BIT): under sc, dpor lets operations on different bits
 * of a word commute -- each reads and changes only its own bit -- which
 * the non-atomic ones, a load and a store of the whole word, do not.
 * The ordering follows the kernel: set_bit/clear_bit/change_bit imply no
 * barrier (relaxed; use smp_mb__before_clear_bit), test_and_* are full
 * barriers (seq_cst).
 */
#ifndef PAGERACE_KERNEL_BITOPS_H
#define PAGERACE_KERNEL_BITOPS_H

#include "runtime/yield.h"
#include "kernel/compiler.h"
#include "kernel/barrier.h"
#include "kernel/kasan.h"
#include "memory/memory.h"

#define BIT_MASK(nr)	(1UL << ((nr) % BITS_PER_LONG))
#define BIT_WORD(nr)	((nr) / BITS_PER_LONG)

/* The word holding bit @nr of the bitmap at @addr. */
#define __bitop_word(nr, addr)						\
	((unsigned long *)(addr) + BIT_WORD((unsigned long)(nr)))

/* @order seq_cst: returns a value, a full barrier (memory/memory.h). */
#define __bitop_atomic(nr, addr, op, order, tag) ({			\
		unsigned long __bn = (unsigned long)(nr);		\
		unsigned long *__bw = __bitop_word(__bn, (addr));	\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_prepare(__bw, sizeof(*__bw),		\
				       (order) == __ATOMIC_SEQ_CST ?	\
				       PR_MP_RMW_FULL : PR_MP_RMW);	\
		PR_YIELD_POINT_BIT(PR_K_RMW, tag, __bw, sizeof(*__bw), nr); \
		kasan_check(__bw, sizeof(*__bw), 1);			\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_rmw(__bw, sizeof(*__bw),			\
				   (order) == __ATOMIC_SEQ_CST);	\
		(op(__bw, BIT_MASK(__bn), order) & BIT_MASK(__bn)) != 0; })

#define __bitop_andnot(p, m, o)	__atomic_fetch_and((p), ~(m), (o))

#define set_bit(nr, addr)						\
	((void)__bitop_atomic(nr, addr, __atomic_fetch_or, __ATOMIC_RELAXED, #nr))
#define clear_bit(nr, addr)						\
	((void)__bitop_atomic(nr, addr, __bitop_andnot, __ATOMIC_RELAXED, #nr))
#define change_bit(nr, addr)						\
	((void)__bitop_atomic(nr, addr, __atomic_fetch_xor, __ATOMIC_RELAXED, #nr))
#define test_and_set_bit(nr, addr)					\
	((int)__bitop_atomic(nr, addr, __atomic_fetch_or, __ATOMIC_SEQ_CST, #nr))
#define test_and_clear_bit(nr, addr)					\
	((int)__bitop_atomic(nr, addr, __bitop_andnot, __ATOMIC_SEQ_CST, #nr))
#define test_and_change_bit(nr, addr)					\
	((int)__bitop_atomic(nr, addr, __atomic_fetch_xor, __ATOMIC_SEQ_CST, #nr))

#define test_bit(nr, addr) ({						\
		unsigned long __bn = (unsigned long)(nr);		\
		unsigned long *__bw = __bitop_word(__bn, (addr));	\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_prepare(__bw, sizeof(*__bw), PR_MP_LOAD); \
		PR_YIELD_POINT_BIT(PR_K_LOAD, #nr, __bw, sizeof(*__bw), nr); \
		kasan_check(__bw, sizeof(*__bw), 0);			\
		unsigned long __bv = __atomic_load_n(__bw, __ATOMIC_RELAXED); \
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_load(__bw, sizeof(*__bw), &__bv, PR_MO_RELAXED); \
		(int)((__bv & BIT_MASK(__bn)) != 0); })

/*
 * Non-atomic read-modify-write: plain load, yield point, plain store.
 * Evaluates to the bit's old value.  @newval(old, mask) computes the word.
 */
#define __bitop_plain(nr, addr, newval, tag) ({				\
		unsigned long __bn = (unsigned long)(nr);		\
		unsigned long *__bw = __bitop_word(__bn, (addr));	\
		unsigned long __bm = BIT_MASK(__bn), __bold;		\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_prepare(__bw, sizeof(*__bw), PR_MP_LOAD); \
		PR_YIELD_POINT_SZ(PR_K_LOAD, tag, __bw, sizeof(*__bw));					\
		kasan_check(__bw, sizeof(*__bw), 0);			\
		__bold = *__bw;						\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_load(__bw, sizeof(*__bw), &__bold, PR_MO_RELAXED); \
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_prepare(__bw, sizeof(*__bw), PR_MP_STORE); \
		PR_YIELD_POINT_SZ(PR_K_STORE, tag, __bw, sizeof(*__bw));					\
		kasan_check(__bw, sizeof(*__bw), 1);			\
		unsigned long __bnew = newval(__bold, __bm);		\
		if (__builtin_expect(pr_mem_on, 0))			\
			pr_mem_store(__bw, sizeof(*__bw), &__bnew, PR_MO_RELAXED); \
		else							\
			*__bw = __bnew;					\
		(int)((__bold & __bm) != 0); })

#define __bitop_or(w, m)	((w) | (m))
#define __bitop_clr(w, m)	((w) & ~(m))
#define __bitop_xor(w, m)	((w) ^ (m))

#define __set_bit(nr, addr)	((void)__bitop_plain(nr, addr, __bitop_or, #nr))
#define __clear_bit(nr, addr)	((void)__bitop_plain(nr, addr, __bitop_clr, #nr))
#define __change_bit(nr, addr)	((void)__bitop_plain(nr, addr, __bitop_xor, #nr))
#define __test_and_set_bit(nr, addr)	__bitop_plain(nr, addr, __bitop_or, #nr)
#define __test_and_clear_bit(nr, addr)	__bitop_plain(nr, addr, __bitop_clr, #nr)
#define __test_and_change_bit(nr, addr)					\
	__bitop_plain(nr, addr, __bitop_xor, #nr)

/* clear_bit is not a barrier; these make it one where the kernel asks. */
#define smp_mb__before_clear_bit()	__kfence("smp_mb__before_clear_bit")
#define smp_mb__after_clear_bit()	__kfence("smp_mb__after_clear_bit")

#endif /* PAGERACE_KERNEL_BITOPS_H */
