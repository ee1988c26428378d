/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the table of built-in programs.
 */
#include "programs/programs.h"

#include <string.h>

const struct pr_program *const pr_programs[] = {
	&pr_prog_lost_update,
	&pr_prog_lost_update_fixed,
	&pr_prog_abba,
	&pr_prog_abba_fixed,
	&pr_prog_message_passing,
	&pr_prog_message_passing_fixed,
	&pr_prog_spin_livelock,
	&pr_prog_spin_livelock_fixed,
	&pr_prog_null_deref,
	&pr_prog_null_deref_fixed,
	&pr_prog_store_buffering,
	&pr_prog_store_buffering_fixed,
	&pr_prog_pc_lookup_truncate,
	&pr_prog_pc_lookup_reuse,
	&pr_prog_pc_walk_free,
	&pr_prog_pc_irq_alloc,
	&pr_prog_pc_add_lookup,
	&pr_prog_pc_reclaim_lookup,
	&pr_prog_pc_lock_truncate,
	&pr_prog_pc_swap,
	&pr_prog_pc_mixed,
	NULL
};

const struct pr_program *pr_program_find(const char *name)
{
	for (int i = 0; pr_programs[i]; i++)
		if (strcmp(pr_programs[i]->name, name) == 0)
			return pr_programs[i];
	return NULL;
}
