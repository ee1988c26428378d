/* SPDX-License-Identifier: MIT */
/*
 * cell.h - a litmus location in memory: one cell per location, holding
 * its value as the kernel type its declarations give it.  A pointer
 * value is the address of a cell's @v (what "&x" evaluates to); every
 * location's address is that, whatever its type, and the primitives pick
 * the field they act on (atomic_* the atomic_t, spin_* the lock).
 */
#ifndef PAGERACE_LITMUS_CELL_H
#define PAGERACE_LITMUS_CELL_H

#include <stdint.h>
#include "kernel/kernel.h"
#include "kernel/srcu.h"

struct lit_cell {
	intptr_t v;		/* int, intptr_t, pointer locations */
	atomic_t a;		/* atomic_t locations */
	spinlock_t lock;	/* spinlock_t locations */
	struct srcu_struct srcu;	/* struct srcu_struct locations */
};

#endif /* PAGERACE_LITMUS_CELL_H */
