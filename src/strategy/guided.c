/* SPDX-License-Identifier: MIT */
/*
 * guided.c - follow a prefix of decisions, then run without preemption.
 *
 * The minimiser (report/minimize.c) proposes schedules by dropping
 * segments or shortening them; such a proposal is rarely feasible to the
 * step, so this strategy follows it leniently instead of diverging: a
 * segment whose choice is not enabled is skipped, a segment whose context
 * stops early (blocks, spins, exits) simply ends, and once the list is
 * used up every context runs until it stops on its own.  The run records
 * its real schedule as usual, and that recording replays exactly.
 */
#include "runtime/tsan.h"
#include "runtime/run.h"
#include "strategy/strategy.h"

#include <stdlib.h>

struct guided_strategy {
	struct pr_strategy base;
	const struct pr_segment *segs;
	size_t n;
	size_t i;		/* segment being followed */
	int started;		/* segment i has been chosen at least once */
	uint64_t left;		/* its steps still to take */
	uint64_t last_step;	/* cs->step at the previous pick */
};

PR_NO_TSAN static void guided_begin(struct pr_strategy *s, uint64_t seed, uint64_t run)
{
	struct guided_strategy *g = (struct guided_strategy *)s;

	(void)seed;
	(void)run;
	g->i = 0;
	g->started = 0;
	g->left = 0;
	g->last_step = 0;
}

PR_NO_TSAN static int find_code(const struct pr_choices *cs, int code)
{
	for (int i = 0; i < cs->n; i++)
		if (pr_choice_code(&cs->c[i]) == code)
			return i;
	return -1;
}

PR_NO_TSAN static int guided_pick(struct pr_strategy *s, const struct pr_choices *cs,
		       int64_t *budget)
{
	struct guided_strategy *g = (struct guided_strategy *)s;
	uint64_t used = cs->step - g->last_step;
	int idx;

	g->last_step = cs->step;
	if (g->started)
		g->left = used < g->left ? g->left - used : 0;
	while (g->i < g->n) {
		const struct pr_segment *seg = &g->segs[g->i];

		if (!g->started) {
			g->started = 1;
			g->left = seg->steps;
		}
		idx = g->left ? find_code(cs, seg->code) : -1;
		if (idx >= 0) {
			*budget = (int64_t)g->left;
			return idx;
		}
		g->i++;
		g->started = 0;
	}
	/* The prefix is used up: no more preemptions. */
	*budget = PR_BUDGET_UNBOUNDED;
	if (cs->current >= 0)
		return cs->current;
	for (int i = 0; i < cs->n; i++)
		if (cs->c[i].inject < 0)
			return i;
	return 0;
}

PR_NO_TSAN static void guided_end(struct pr_strategy *s, uint64_t steps)
{
	(void)s;
	(void)steps;
}

PR_NO_TSAN static void guided_destroy(struct pr_strategy *s)
{
	free(s);
}

static const struct pr_strategy_ops guided_ops = {
	.name = "guided",
	.begin_run = guided_begin,
	.pick = guided_pick,
	.end_run = guided_end,
	.destroy = guided_destroy,
	.sees_memory = 1,
};

PR_NO_TSAN struct pr_strategy *pr_guided_create(const struct pr_segment *segs, size_t n)
{
	struct guided_strategy *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->base.ops = &guided_ops;
	g->segs = segs;
	g->n = n;
	return &g->base;
}
