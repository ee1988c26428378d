/* SPDX-License-Identifier: MIT */
/*
 * irq.c - the interrupt flag over the runtime's event masking (irq.h).
 */
#include "kernel/irq.h"

void local_irq_disable(void)
{
	struct kcpu *c = this_kcpu();

	if (!c->irqs_off) {
		c->irqs_off = 1;
		pr_events_disable();
	}
}

void local_irq_enable(void)
{
	struct kcpu *c = this_kcpu();

	if (c->irqs_off) {
		c->irqs_off = 0;
		pr_events_enable();
	}
}

unsigned long __local_irq_save(void)
{
	unsigned long flags = (unsigned long)this_kcpu()->irqs_off;

	local_irq_disable();
	return flags;
}

void __local_irq_restore(unsigned long flags)
{
	if (flags)
		local_irq_disable();
	else
		local_irq_enable();
}

void might_sleep(void)
{
	struct kcpu *c = this_kcpu();

	if (pr_self() < 0)
		return;		/* outside a run nothing blocks */
	if (in_interrupt() || c->irqs_off || c->preempt_count > 0)
		pr_fail("sleep-in-atomic", (void *)0,
			"sleeping wait %s (preempt_count %d, rcu nesting %d, irqs %s)",
			in_irq() ? "in an interrupt handler" :
			in_softirq() ? "in an RCU callback" :
			"in atomic context",
			c->preempt_count, c->rcu_nesting,
			c->irqs_off ? "off" : "on");
}
