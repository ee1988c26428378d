/* SPDX-License-Identifier: MIT */
/*
 * percpu.c - storage for the per-CPU kernel state (see percpu.h).
 */
#include "runtime/tsan.h"
#include "kernel/percpu.h"

#include <string.h>

struct kcpu kcpu[KCPU_SLOTS];
int kernel_nr_cpus = 1;

/*
 * Every run starts with irqs on, no preemption or RCU nesting anywhere:
 * in the slots contexts have used (pr_ctx_slots) and setup's own; the
 * rest are still zero.
 */
void kcpu_reset(void)
{
	size_t n = (size_t)pr_ctx_slots();

	pr_tsan_new_memory(kcpu, n * sizeof(kcpu[0]));
	memset(kcpu, 0, n * sizeof(kcpu[0]));
	pr_tsan_new_memory(&kcpu[KCPU_OUTSIDE], sizeof(kcpu[0]));
	memset(&kcpu[KCPU_OUTSIDE], 0, sizeof(kcpu[0]));
}
