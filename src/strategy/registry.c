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
	if (strcmp(name, "surw") == 0)
		return pr_surw_create(p);
	if (strcmp(name, "portfolio") == 0)
		return pr_portfolio_create(p);
	if (strcmp(name, "dfs") == 0)
		return pr_dfs_create(p);
	if (strcmp(name, "dpor") == 0)
		return pr_dpor_create(p);
	return NULL;
}

PR_NO_TSAN int pr_strategy_calibrate(struct pr_strategy *s,
				     const struct pr_program *prog,
				     const struct pr_run_options *opts,
				     uint64_t seed)
{
	if (strcmp(s->ops->name, "surw") == 0)
		return pr_surw_learn(s, prog, opts, seed);
	if (strcmp(s->ops->name, "portfolio") == 0)
		return pr_portfolio_calibrate(s, prog, opts, seed);
	return 0;
}
