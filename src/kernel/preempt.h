/* SPDX-License-Identifier: MIT */
/*
 * preempt.h - preempt_disable / preempt_enable.
 *
 * Preemption in the kernel means another task runs on this CPU.  The model
 * has exactly one task per CPU (its context), so there is nothing to
 * preempt it in favour of, and disabling preemption changes no schedule:
 * the count is only recorded, for in_atomic(), for RCU (classic RCU read
 * sections are preempt-disabled regions) and for might_sleep() checks.
 * What another CPU does meanwhile is unaffected, exactly as in the kernel.
 * Interrupts are a different matter: see irq.h.
 */
#ifndef PAGERACE_KERNEL_PREEMPT_H
#define PAGERACE_KERNEL_PREEMPT_H

#include "kernel/percpu.h"
#include "runtime/context.h"

static inline int preempt_count(void)
{
	return this_kcpu()->preempt_count;
}

static inline void preempt_disable(void)
{
	this_kcpu()->preempt_count++;
}

static inline void preempt_enable_no_resched(void)
{
	struct kcpu *c = this_kcpu();

	if (c->preempt_count <= 0)
		pr_fail("preempt-imbalance", (void *)0,
			"preempt_enable without preempt_disable");
	c->preempt_count--;
}

/* The kernel would reschedule here; one task per CPU: nothing to do. */
static inline void preempt_enable(void)
{
	preempt_enable_no_resched();
}

#define get_cpu()	({ preempt_disable(); smp_processor_id(); })
#define put_cpu()	preempt_enable()

#endif /* PAGERACE_KERNEL_PREEMPT_H */
