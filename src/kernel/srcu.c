/* SPDX-License-Identifier: MIT */
/*
 * srcu.c - sleepable RCU's read side and grace periods (srcu.h).
 *
 * Effects for dpor (effects.h): a section start reads the domain clock
 * and writes the CPU's slot; its end writes the slot and the waiters'
 * masks; synchronize_srcu's tick writes the clock and reads every slot.
 * Stress mode: the domain state is under pr_harness_lock.
 */
#include "runtime/effects.h"
#include "kernel/srcu.h"
#include "kernel/barrier.h"
#include "memory/memory.h"

#include <string.h>

PR_NO_TSAN void init_srcu_struct(struct srcu_struct *ssp)
{
	memset(ssp, 0, sizeof(*ssp));
}

PR_NO_TSAN int srcu_read_lock(struct srcu_struct *ssp)
{
	int slot = kcpu_slot();

	if (ssp->nesting[slot]++ == 0) {
		pr_effect(&ssp->clock, sizeof(ssp->clock), PR_EFF_READ);
		pr_effect(&ssp->nesting[slot], sizeof(ssp->nesting[slot]),
			  PR_EFF_WRITE);
		pr_harness_lock();
		ssp->start[slot] = ssp->clock;
		pr_harness_unlock();
		if (pr_mem_on)	/* the grace period's guarantee (weak) */
			pr_mem_rcu_reader(1);
	}
	return 0;
}

PR_NO_TSAN void srcu_read_unlock(struct srcu_struct *ssp, int idx)
{
	int slot = kcpu_slot();
	uint64_t bit = 1ull << (slot & 63);

	(void)idx;
	if (ssp->nesting[slot] <= 0)
		pr_fail("srcu-unbalanced", ssp,
			"srcu_read_unlock without srcu_read_lock");
	if (--ssp->nesting[slot])
		return;
	if (pr_mem_on)
		pr_mem_rcu_reader(0);
	pr_effect(&ssp->nesting[slot], sizeof(ssp->nesting[slot]),
		  PR_EFF_WRITE);
	pr_effect(ssp->sync_mask, sizeof(ssp->sync_mask), PR_EFF_WRITE);
	pr_harness_lock();
	for (int i = 0; i < PR_MAX_CTX; i++)
		if (ssp->sync_mask[i] & bit) {
			ssp->sync_mask[i] &= ~bit;
			if (!ssp->sync_mask[i] && pr_self() >= 0)
				pr_wake(&ssp->wq[i]);
		}
	pr_harness_unlock();
}

PR_NO_TSAN void synchronize_srcu(struct srcu_struct *ssp)
{
	int me = pr_self(), slot = kcpu_slot();
	uint64_t stamp, mask = 0;

	if (ssp->nesting[slot])
		pr_fail("deadlock", ssp, "synchronize_srcu inside a read-side "
			"section of the same srcu_struct");
	if (pr_mem_on)		/* a full barrier itself */
		pr_mem_prepare(ssp, 0, PR_MP_DRAIN);
	PR_FENCE("synchronize_srcu");
	if (pr_mem_on)		/* readers from now on are not waited for */
		pr_mem_gp_start();
	pr_effect(&ssp->clock, sizeof(ssp->clock), PR_EFF_WRITE);
	pr_effect(ssp->nesting, sizeof(ssp->nesting), PR_EFF_READ);
	pr_effect(ssp->sync_mask, sizeof(ssp->sync_mask), PR_EFF_WRITE);
	pr_harness_lock();
	stamp = ++ssp->clock;
	for (int i = 0; i < KCPU_SLOTS && i < 64; i++)
		if (ssp->nesting[i] > 0 && ssp->start[i] < stamp)
			mask |= 1ull << i;
	if (me >= 0)
		ssp->sync_mask[me] = mask;
	pr_harness_unlock();
	if (me < 0) {
		if (mask)
			pr_fail("deadlock", ssp, "synchronize_srcu outside a run "
				"with a CPU left in a read-side section");
		return;
	}
	for (;;) {
		int over;

		pr_effect(ssp->sync_mask, sizeof(ssp->sync_mask), PR_EFF_READ);
		pr_harness_lock();
		over = ssp->sync_mask[me] == 0;
		pr_harness_unlock();
		if (over)
			break;
		PR_BLOCK(&ssp->wq[me], "synchronize_srcu");
	}
	/* The readers' barriers and its own: a CPU that never was a
	 * reader may keep its stores buffered (memory/memory.h). */
	if (pr_mem_on)
		pr_mem_drain_readers();
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
