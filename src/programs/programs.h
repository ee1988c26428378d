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

#endif /* PAGERACE_PROGRAMS_H */
