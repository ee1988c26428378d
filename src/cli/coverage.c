/* SPDX-License-Identifier: MIT */
/*
 * coverage.c - what an exploration covered, said once and exactly.
 *
 * A clean verdict is only as strong as the search behind it:
 *   exhaustive  every execution (dfs) or every equivalence class of
 *               executions (dpor) ran, under the memory model named;
 *   bounded     every execution with at most K preemptions ran (dfs), and
 *               the bound did cut some off;
 *   sampled     N runs drawn by a sampler (random, pct, pos, surw,
 *               portfolio): no claim beyond
 *               them;
 *   incomplete  a systematic search stopped early (budget, time, or the
 *               first failure), so it proves nothing about the rest.
 * A search that ran out of budget never says "exhaustive".  The memory
 * model is sequential consistency: pagerace has no other yet.
 */
#include "memory/memory.h"
#include "cli/explore.h"
#include "strategy/strategy.h"

#include <stdio.h>
#include <string.h>

int explore_systematic(const char *strategy)
{
	return !strcmp(strategy, "dfs") || !strcmp(strategy, "dpor");
}

int explore_needs_steps(const char *strategy)
{
	return !strcmp(strategy, "pct") || !strcmp(strategy, "pos") ||
	       !strcmp(strategy, "surw") || !strcmp(strategy, "portfolio");
}

int explore_check_strategy(const struct explore_opts *o, const char *cmd)
{
	static const char *const known[] = { "random", "pct", "pos", "surw", "portfolio", "dfs", "dpor" };
	int ok = 0;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		ok |= !strcmp(o->strategy, known[i]);
	if (!ok) {
		fprintf(stderr, "%s %s: error: unknown strategy '%s' (random, pct, pos, surw, portfolio, dfs, dpor)\n",
			pr_argv0, cmd, o->strategy);
		return -1;
	}
	if (o->params.has_bound && !explore_systematic(o->strategy)) {
		fprintf(stderr, "%s %s: error: --preemption-bound applies to dfs and dpor only\n",
			pr_argv0, cmd);
		return -1;
	}
	if (explore_systematic(o->strategy) && o->jobs > 1 && o->shards) {
		fprintf(stderr, "%s %s: error: %s: --jobs splits the search itself; give --jobs or --shard, not both\n",
			pr_argv0, cmd, o->strategy);
		return -1;
	}
	return 0;
}

void explore_coverage(const struct explore_state *st, struct pr_coverage *c)
{
	memset(c, 0, sizeof(*c));
	c->bound = -1;
	if (st->has_merged)
		*c = st->merged;
	else if (st->strat && st->strat->ops->coverage)
		st->strat->ops->coverage(st->strat, c);
}

const char *explore_statement_kind(const struct pr_coverage *c)
{
	if (!c->complete)
		return "incomplete";
	return c->bound >= 0 && c->bound_cut ? "bounded" : "exhaustive";
}

const char *explore_coverage_kind(const struct explore_state *st)
{
	struct pr_coverage c;

	if (!explore_systematic(st->o.strategy))
		return "sampled";
	explore_coverage(st, &c);
	return explore_statement_kind(&c);
}

static const char *stop_reason(int stopped)
{
	switch (stopped) {
	case STOP_BUDGET:	return "the execution budget (--runs) ran out";
	case STOP_TIME:		return "the time budget (--time) ran out";
	case STOP_FAILURE:	return "at the first failure";
	case STOP_INTERRUPT:	return "interrupted";
	}
	return "stopped early";
}

void explore_sampled_text(const char *strategy, int pct_depth, uint64_t runs,
			  uint64_t failures, char *buf, size_t len)
{
	char how[64];

	if (!strcmp(strategy, "pct"))
		snprintf(how, sizeof(how), "pct d=%d", pct_depth);
	else if (!strcmp(strategy, "portfolio"))
		snprintf(how, sizeof(how), "portfolio: surw, pos, pct d=%d",
			 pct_depth);
	else
		snprintf(how, sizeof(how), "%s", strategy);
	snprintf(buf, len, "sampled: %llu run%s (%s), memory %s, %s",
		 (unsigned long long)runs, runs == 1 ? "" : "s", how,
		 pr_mem_name(pr_mem_model()),
		 failures ? "failures found" : "no failure");
}

void explore_statement_text(const char *strategy, const struct pr_coverage *c,
			    uint64_t failures, int stopped, char *buf,
			    size_t len)
{
	const char *kind = explore_statement_kind(c);
	const char *result = failures ? "failures found" : "no failure";
	char how[96];
	size_t l;

	snprintf(how, sizeof(how), "%s", strategy);
	l = strlen(how);
	if (c->bound >= 0 && !strcmp(kind, "incomplete"))
		l += (size_t)snprintf(how + l, sizeof(how) - l,
				      ", preemption bound %d", c->bound);
	if (c->blocked && l < sizeof(how))
		l += (size_t)snprintf(how + l, sizeof(how) - l,
				      ", %llu sleep-set blocked",
				      (unsigned long long)c->blocked);
	if (c->shards && l < sizeof(how))
		snprintf(how + l, sizeof(how) - l, c->shards > 1 &&
			 c->shard == c->shards ? ", %u shards" : ", shard %u/%u",
			 c->shard == c->shards ? c->shards : c->shard, c->shards);
	if (!strcmp(kind, "incomplete"))
		snprintf(buf, len, "incomplete: stopped after %llu execution%s "
			 "(%s), %s; memory %s, %s",
			 (unsigned long long)c->executions,
			 c->executions == 1 ? "" : "s", how,
			 stop_reason(stopped), pr_mem_name(pr_mem_model()), result);
	else if (!strcmp(kind, "bounded"))
		snprintf(buf, len, "bounded: preemption bound %d, %llu execution%s "
			 "(%s), memory %s, %s", c->bound,
			 (unsigned long long)c->executions,
			 c->executions == 1 ? "" : "s", how,
			 pr_mem_name(pr_mem_model()), result);
	else
		snprintf(buf, len, "exhaustive: %llu execution%s (%s%s), memory %s, %s",
			 (unsigned long long)c->executions,
			 c->executions == 1 ? "" : "s", how,
			 c->bound >= 0 ? "; the preemption bound cut nothing" : "",
			 pr_mem_name(pr_mem_model()), result);
	l = strlen(buf);
	if (c->shards > 1 && c->shard < c->shards && strcmp(kind, "incomplete"))
		snprintf(buf + l, len - l, "; this shard's part only: merge all %u for the whole tree",
			 c->shards);
}

void explore_coverage_text(const struct explore_state *st, char *buf,
			   size_t len)
{
	const struct explore_opts *o = &st->o;
	struct pr_coverage c;

	if (!explore_systematic(o->strategy)) {
		explore_sampled_text(o->strategy, o->params.pct_depth, st->done,
				     st->failures, buf, len);
		return;
	}
	explore_coverage(st, &c);
	explore_statement_text(o->strategy, &c, st->failures, st->stopped, buf,
			       len);
}
