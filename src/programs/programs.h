/* SPDX-License-Identifier: MIT */
/*
 * programs.h - built-in programs written against the C API: small classic
 * bugs (each next to its fixed version) that prove the runtime, and the
 * first things a new user can explore.
 */
#ifndef PAGERACE_PROGRAMS_H
#define PAGERACE_PROGRAMS_H

#include "runtime/run.h"

/* NULL-terminated, in the order `pagerace list` shows them. */
extern const struct pr_program *const pr_programs[];

const struct pr_program *pr_program_find(const char *name);

extern const struct pr_program pr_prog_lost_update, pr_prog_lost_update_fixed;
extern const struct pr_program pr_prog_abba, pr_prog_abba_fixed;
extern const struct pr_program pr_prog_message_passing,
	pr_prog_message_passing_fixed;
extern const struct pr_program pr_prog_spin_livelock,
	pr_prog_spin_livelock_fixed;
extern const struct pr_program pr_prog_null_deref, pr_prog_null_deref_fixed;
extern const struct pr_program pr_prog_store_buffering,
	pr_prog_store_buffering_fixed;

/* Page-cache workloads over the model (pagecache.c). */
extern const struct pr_program pr_prog_pc_lookup_truncate,
	pr_prog_pc_lookup_reuse, pr_prog_pc_walk_free, pr_prog_pc_irq_alloc,
	pr_prog_pc_add_lookup, pr_prog_pc_reclaim_lookup,
	pr_prog_pc_lock_truncate, pr_prog_pc_swap, pr_prog_pc_mixed;

#endif /* PAGERACE_PROGRAMS_H */
