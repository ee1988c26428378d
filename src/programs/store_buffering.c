/* SPDX-License-Identifier: MIT */
/*
 * store_buffering.c - Dekker's mutual exclusion entry, the "SB" shape:
 * each CPU raises its own flag, then looks at the other's; both seeing
 * the other's flag down means both entered.
 *
 * Sequentially consistent it cannot fail: whichever CPU loads second
 * loaded after the other's store.  Under tso and weak (--memory) each
 * store may still sit in its CPU's store buffer when the other CPU loads,
 * so both read 0: the failure needs no preemption at all, only two
 * flushes after the loads.  The fixed version puts smp_mb() between the
 * store and the load, which drains the buffer (memory/memory.h).  Uses
 * the kernel's primitives (kernel/access.h, kernel/barrier.h), so the
 * memory model applies to it.
 */
#include "programs/programs.h"
#include "kernel/access.h"
#include "kernel/barrier.h"

static int flag[2], inside;

static void cpu(int self, int fenced)
{
	WRITE_ONCE(flag[self], 1);
	if (fenced)
		smp_mb();
	if (READ_ONCE(flag[!self]))
		return;		/* the other one goes first */
	/* In the critical section: nobody else may be. */
	if (READ_ONCE(inside))
		pr_fail("mutual-exclusion", &inside,
			"cpu%d entered while cpu%d was inside: both read the "
			"other's flag as 0", self, !self);
	WRITE_ONCE(inside, 1);
}

static void cpu0(void *arg) { cpu(0, arg != NULL); }
static void cpu1(void *arg) { cpu(1, arg != NULL); }

static void setup(void *arg)
{
	flag[0] = flag[1] = inside = 0;
	pr_name_object(&flag[0], "flag0");
	pr_name_object(&flag[1], "flag1");
	pr_name_object(&inside, "inside");
	pr_spawn("cpu0", cpu0, arg, 0);
	pr_spawn("cpu1", cpu1, arg, 0);
}

const struct pr_program pr_prog_store_buffering = {
	.name = "store-buffering",
	.summary = "Dekker's entry without smp_mb (fails under --memory tso/weak only)",
	.setup = setup, .arg = NULL,
};

const struct pr_program pr_prog_store_buffering_fixed = {
	.name = "store-buffering-fixed",
	.summary = "the same with smp_mb between each flag store and load",
	.setup = setup, .arg = (void *)1,
};
