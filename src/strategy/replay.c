/* SPDX-License-Identifier: MIT */
/*
 * replay.c - follow a recorded schedule, step for step.
 *
 * The recording runtime closes a segment exactly when the chosen code
 * changes, so at every decision of a faithful replay the open segment has
 * either used fewer steps than recorded (the same context must simply go
 * on) or exactly as many (the context must have stopped at the recorded
 * site, and the next segment's choice must be enabled).  Anything else is
 * a divergence, reported with its step, never papered over.
 */
#include "runtime/tsan.h"
#include "runtime/run.h"
#include "strategy/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct replay_strategy {
	struct pr_strategy base;
	const struct pr_schedule *sched;
	size_t i;		/* the segment being replayed */
	int single_step;	/* consult at every yield point (observers) */
};

PR_NO_TSAN static void code_name(int code, char *buf, size_t len)
{
	if (code >= PR_CHOICE_READ)
		snprintf(buf, len, "r%d", code - PR_CHOICE_READ);
	else if (code >= PR_CHOICE_MEM)
		snprintf(buf, len, "m%d", code - PR_CHOICE_MEM);
	else if (code >= PR_CHOICE_EVENT)
		snprintf(buf, len, "e%d", code - PR_CHOICE_EVENT);
	else
		snprintf(buf, len, "c%d", code);
}

PR_NO_TSAN static void replay_begin(struct pr_strategy *s, uint64_t seed, uint64_t run)
{
	struct replay_strategy *r = (struct replay_strategy *)s;

	(void)seed;
	(void)run;
	r->i = 0;
}

/*
 * A run that failed ended inside its last segment, after the yield point
 * of its last recorded step: let that segment run one step further, so the
 * failure can happen again instead of a decision the recording never made.
 */
PR_NO_TSAN static int64_t last_slack(const struct replay_strategy *r)
{
	return r->i + 1 == r->sched->n;
}

PR_NO_TSAN static int find_code(const struct pr_choices *cs, int code)
{
	for (int i = 0; i < cs->n; i++)
		if (pr_choice_code(&cs->c[i]) == code)
			return i;
	return -1;
}

PR_NO_TSAN static int replay_pick(struct pr_strategy *s, const struct pr_choices *cs,
		       int64_t *budget)
{
	struct replay_strategy *r = (struct replay_strategy *)s;
	const struct pr_schedule *sc = r->sched;
	const struct pr_segment *seg;
	char want[128], got[128], cn[16];
	int idx;

	if (cs->seg_code >= 0) {
		seg = &sc->seg[r->i];
		if (cs->seg_steps < seg->steps + (uint64_t)last_slack(r)) {
			/*
			 * Mid-segment: the same choice goes on (the context
			 * may have spun and been re-chosen at once).
			 */
			idx = find_code(cs, seg->code);
			if (idx < 0) {
				code_name(seg->code, cn, sizeof(cn));
				snprintf(s->error, sizeof(s->error),
					 "step %llu: %s stopped after %llu of %u recorded steps",
					 (unsigned long long)cs->step, cn,
					 (unsigned long long)cs->seg_steps,
					 seg->steps);
				return -1;
			}
			*budget = r->single_step ? 1 :
				  (int64_t)(seg->steps + last_slack(r) -
					    cs->seg_steps);
			return idx;
		}
		pr_segment_end_label(seg, want, sizeof(want));
		pr_site_label(cs->at, got, sizeof(got));
		if (cs->seg_steps > seg->steps || strcmp(want, got) != 0) {
			snprintf(s->error, sizeof(s->error),
				 "step %llu: expected to stop at %s, stopped at %s",
				 (unsigned long long)cs->step, want, got);
			return -1;
		}
		r->i++;
	}
	if (r->i >= sc->n) {
		snprintf(s->error, sizeof(s->error),
			 "step %llu: the recorded schedule ended but the run goes on",
			 (unsigned long long)cs->step);
		return -1;
	}
	seg = &sc->seg[r->i];
	idx = find_code(cs, seg->code);
	if (idx < 0) {
		code_name(seg->code, cn, sizeof(cn));
		snprintf(s->error, sizeof(s->error),
			 "step %llu: recorded choice %s is not enabled",
			 (unsigned long long)cs->step, cn);
		return -1;
	}
	*budget = r->single_step ? 1 : (int64_t)seg->steps + last_slack(r);
	return idx;
}

PR_NO_TSAN static void replay_end(struct pr_strategy *s, uint64_t steps)
{
	(void)s;
	(void)steps;
}

PR_NO_TSAN static void replay_destroy(struct pr_strategy *s)
{
	free(s);
}

static const struct pr_strategy_ops replay_ops = {
	.name = "replay",
	.begin_run = replay_begin,
	.pick = replay_pick,
	.end_run = replay_end,
	.destroy = replay_destroy,
	.sees_memory = 1,
};

PR_NO_TSAN struct pr_strategy *pr_replay_create(const struct pr_schedule *sched)
{
	struct replay_strategy *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->base.ops = &replay_ops;
	r->sched = sched;
	return &r->base;
}

PR_NO_TSAN void pr_replay_single_step(struct pr_strategy *s)
{
	((struct replay_strategy *)s)->single_step = 1;
}
