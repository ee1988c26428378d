/* SPDX-License-Identifier: MIT */
/*
 * irq.h - local interrupt control and interrupt context.
 *
 * An interrupt is an event injected into a CPU's context (pr_inject); the
 * runtime delivers it only while the context has events enabled.  Here
 * that becomes the kernel's interrupt flag: a per-CPU *flag*, not a count
 * (local_irq_disable twice and local_irq_enable once leaves interrupts on,
 * as in the kernel), mapped onto pr_events_disable/enable on its
 * transitions.  local_irq_save(flags) / local_irq_restore(flags) save and
 * restore the flag; @flags is an unsigned long lvalue, nonzero when
 * interrupts were off.
 *
 * An injected handler runs with interrupts off (SA_INTERRUPT, and the
 * runtime never nests events); irqs_disabled() says so, while the saved
 * flag stays that of the interrupted code so save/restore pairs inside a
 * handler balance.
 *
 * None of this is a yield point: it touches no shared memory.  Enabling
 * interrupts makes the runtime reconsider its choices at the next one.
 */
#ifndef PAGERACE_KERNEL_IRQ_H
#define PAGERACE_KERNEL_IRQ_H

#include "kernel/percpu.h"
#include "runtime/context.h"

void local_irq_disable(void);
void local_irq_enable(void);
unsigned long __local_irq_save(void);
void __local_irq_restore(unsigned long flags);

#define local_irq_save(flags)	((flags) = __local_irq_save())
#define local_irq_restore(flags) __local_irq_restore(flags)
#define local_save_flags(flags)	((flags) = (unsigned long)this_kcpu()->irqs_off)

static inline int irqs_disabled(void)
{
	return this_kcpu()->irqs_off || pr_in_event();
}

/* Running an injected interrupt handler. */
static inline int in_irq(void)
{
	return pr_in_event();
}

/* Running RCU callbacks (softirq context in the kernel). */
static inline int in_softirq(void)
{
	return this_kcpu()->softirq > 0;
}

static inline int in_interrupt(void)
{
	return in_irq() || in_softirq();
}

/* Cannot sleep here: interrupt context, preemption or interrupts off. */
static inline int in_atomic(void)
{
	return in_interrupt() || this_kcpu()->preempt_count > 0;
}

/**
 * might_sleep - fail with "sleep-in-atomic" if the caller may not block
 *
 * Call before a sleeping wait (lock_page's PR_BLOCK): blocking with a
 * spinlock held, in an RCU read-side section, with interrupts off or in a
 * handler is a kernel bug the scheduler would otherwise turn into a
 * deadlock far from its cause.
 */
void might_sleep(void);

#endif /* PAGERACE_KERNEL_IRQ_H */
