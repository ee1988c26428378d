/* SPDX-License-Identifier: MIT */
/*
 * portfolio.c - several samplers in one exploration, run by run.
 *
 * No sampler wins everywhere: PCT needs the right depth, POS is strong on
 * races between two accesses far apart in their threads, SURW on
 * interleavings of many accesses to one object.  The portfolio runs them
 * in turn: run r is run r of member r mod M (same seed, same run index,
 * each member drawing from its own stream), so every run is still a pure
 * function of (seed, r) and --jobs and --shard split a portfolio exactly
 * like any sampler.  On a bug that one member finds in N runs the
 * portfolio needs about M N; on one that only a member finds, it finds it.
 *
 * The members, in order (PORTFOLIO below): surw, pos, and pct at the
 * exploration's depth -- the three that bench/samplers.sh found best on
 * the shipped scenarios, each winning somewhere (bench/RESULTS.md).
 * pr_portfolio_member names the member of run r, for reports and tests.
 */
#include "runtime/tsan.h"
#include "strategy/strategy.h"

#include <stdlib.h>

static const char *const PORTFOLIO[] = { "surw", "pos", "pct" };
#define NMEMBERS	(int)(sizeof(PORTFOLIO) / sizeof(PORTFOLIO[0]))

struct portfolio_strategy {
	struct pr_strategy base;
	struct pr_strategy *m[NMEMBERS];
	struct pr_strategy *cur;
};

PR_NO_TSAN static int member_of(uint64_t run)
{
	return (int)(run % (uint64_t)NMEMBERS);
}

PR_NO_TSAN const char *pr_portfolio_member(uint64_t run)
{
	return PORTFOLIO[member_of(run)];
}

PR_NO_TSAN static void portfolio_begin(struct pr_strategy *s, uint64_t seed,
				       uint64_t run)
{
	struct portfolio_strategy *p = (struct portfolio_strategy *)s;

	p->cur = p->m[member_of(run)];
	p->cur->ops->begin_run(p->cur, seed, run);
}

PR_NO_TSAN static int portfolio_pick(struct pr_strategy *s,
				     const struct pr_choices *cs, int64_t *budget)
{
	struct portfolio_strategy *p = (struct portfolio_strategy *)s;

	return p->cur->ops->pick(p->cur, cs, budget);
}

PR_NO_TSAN static void portfolio_end(struct pr_strategy *s, uint64_t steps)
{
	struct portfolio_strategy *p = (struct portfolio_strategy *)s;

	p->cur->ops->end_run(p->cur, steps);
}

PR_NO_TSAN static void portfolio_destroy(struct pr_strategy *s)
{
	struct portfolio_strategy *p = (struct portfolio_strategy *)s;

	for (int i = 0; i < NMEMBERS; i++)
		if (p->m[i])
			p->m[i]->ops->destroy(p->m[i]);
	free(p);
}

static const struct pr_strategy_ops portfolio_ops = {
	.name = "portfolio",
	.begin_run = portfolio_begin,
	.pick = portfolio_pick,
	.end_run = portfolio_end,
	.destroy = portfolio_destroy,
};

PR_NO_TSAN struct pr_strategy *pr_portfolio_create(const struct pr_strategy_params *params)
{
	struct portfolio_strategy *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->base.ops = &portfolio_ops;
	for (int i = 0; i < NMEMBERS; i++) {
		p->m[i] = pr_strategy_create(PORTFOLIO[i], params);
		if (!p->m[i]) {
			portfolio_destroy(&p->base);
			return NULL;
		}
	}
	return &p->base;
}

PR_NO_TSAN int pr_portfolio_calibrate(struct pr_strategy *s,
				      const struct pr_program *prog,
				      const struct pr_run_options *opts,
				      uint64_t seed)
{
	struct portfolio_strategy *p = (struct portfolio_strategy *)s;

	for (int i = 0; i < NMEMBERS; i++)
		if (pr_strategy_calibrate(p->m[i], prog, opts, seed))
			return -1;
	return 0;
}
