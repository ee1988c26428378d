/* SPDX-License-Identifier: MIT */
/*
 * percpu.c - storage for the per-CPU kernel state (see percpu.h).
 */
#include "runtime/tsan.h"
#include "kernel/percpu.h"

#include <string.h>

struct kcpu kcpu[KCPU_SLOTS];
int kernel_nr_cpus = 1;

/* Every run starts with irqs on, no preemption or RCU nesting anywhere. */
void kcpu_reset(void)
{
	pr_tsan_new_memory(kcpu, sizeof(kcpu));
	memset(kcpu, 0, sizeof(kcpu));
}
