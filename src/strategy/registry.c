/* SPDX-License-Identifier: MIT */
/*
 * registry.c - strategies by name, for the command line and traces.
 */
#include "runtime/tsan.h"
#include "strategy/strategy.h"

#include <string.h>

PR_NO_TSAN struct pr_strategy *pr_strategy_create(const char *name,
				       const struct pr_strategy_params *p)
{
	if (strcmp(name, "random") == 0)
		return pr_random_create();
	if (strcmp(name, "pct") == 0)
		return pr_pct_create(p);
	if (strcmp(name, "pos") == 0)
		return pr_pos_create(p);
	if (strcmp(name, "dfs") == 0)
		return pr_dfs_create(p);
	if (strcmp(name, "dpor") == 0)
		return pr_dpor_create(p);
	return NULL;
}
