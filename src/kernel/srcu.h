/* SPDX-License-Identifier: MIT */
/*
 * srcu.h - sleepable RCU (include/linux/srcu.h): read-side sections and
 * grace periods of one srcu_struct, independent of every other domain
 * and of classic RCU.
 *
 * The same scheme as rcu.c: a domain clock ticks at every
 * synchronize_srcu; a reader's outermost srcu_read_lock records the clock
 * in its CPU's slot; synchronize_srcu records, at its tick, the CPUs in a
 * section of this domain that began before it, and blocks on its own
 * queue until each has left (the last one's srcu_read_unlock wakes it).
 * No yield point in the read side (as rcu_read_lock); synchronize_srcu
 * is a fence point ("synchronize_srcu") and, under tso and weak, a full
 * barrier on every CPU as synchronize_rcu is.  Used by the litmus front
 * end (2.6.13 has no SRCU: the page-cache model does not use it).
 */
#ifndef PAGERACE_KERNEL_SRCU_H
#define PAGERACE_KERNEL_SRCU_H

#include <stdint.h>
#include "runtime/context.h"
#include "kernel/percpu.h"

struct srcu_struct {
	uint64_t clock;
	int nesting[KCPU_SLOTS];
	uint64_t start[KCPU_SLOTS];
	uint64_t sync_mask[PR_MAX_CTX];	/* CPUs each waiter waits for */
	char wq[PR_MAX_CTX];		/* each waiter's queue */
};

/* All-zero is an initialised domain. */
void init_srcu_struct(struct srcu_struct *ssp);
/* Returns the index srcu_read_unlock takes (always 0 here). */
int srcu_read_lock(struct srcu_struct *ssp);
void srcu_read_unlock(struct srcu_struct *ssp, int idx);
/* Blocks until every section of @ssp begun before the call has ended. */
void synchronize_srcu(struct srcu_struct *ssp);

#endif /* PAGERACE_KERNEL_SRCU_H */
