/* SPDX-License-Identifier: MIT */
/*
 * percpu.h - per-CPU kernel state (interrupt flag, preempt count, RCU
 * read-side nesting) indexed by the current context.
 *
 * A CPU is a context: pr_self() is the CPU number for the contexts the
 * model spawns first (0 .. nr_cpus-1); daemons (the RCU callback runner)
 * get the ids after them and their own slot.  Outside a run (setup,
 * end-of-run checks) pr_self() is -1 and the code runs sequentially; it
 * gets a slot of its own, KCPU_OUTSIDE, so that setup code taking locks or
 * entering RCU read-side sections works and leaves no trace in any CPU's
 * state.  An interrupt handler runs on its CPU's context and so shares
 * the CPU's slot, as in the kernel.
 */
#ifndef PAGERACE_KERNEL_PERCPU_H
#define PAGERACE_KERNEL_PERCPU_H

#include <stdint.h>
#include "runtime/context.h"

#define KCPU_OUTSIDE	PR_MAX_CTX
#define KCPU_SLOTS	(PR_MAX_CTX + 1)

/**
 * struct kcpu - one CPU's (context's) kernel state; private to kernel/.
 * @irqs_off:	local_irq_disable state (a flag, not a count, as in the kernel)
 * @preempt_count: preempt_disable nesting
 * @softirq:	running RCU callbacks (in_softirq)
 * @rcu_nesting: rcu_read_lock nesting
 * @rcu_start:	RCU clock when the outermost read-side section began
 */
struct kcpu {
	int irqs_off;
	int preempt_count;
	int softirq;
	int rcu_nesting;
	uint64_t rcu_start;
} __attribute__((aligned(64)));	/* a line each: stress threads write their own */

extern struct kcpu kcpu[KCPU_SLOTS];
extern int kernel_nr_cpus;

static inline int kcpu_slot(void)
{
	int self = pr_self();

	return self < 0 ? KCPU_OUTSIDE : self;
}

static inline struct kcpu *this_kcpu(void)
{
	return &kcpu[kcpu_slot()];
}

/**
 * smp_processor_id - the current CPU
 *
 * Outside a run (setup) this is CPU 0, so setup code may use per-CPU
 * structures; the RCU daemon reports its own context id (>= nr_cpus).
 */
static inline int smp_processor_id(void)
{
	int self = pr_self();

	return self < 0 ? 0 : self;
}

static inline int num_online_cpus(void)
{
	return kernel_nr_cpus;
}

void kcpu_reset(void);

#endif /* PAGERACE_KERNEL_PERCPU_H */
