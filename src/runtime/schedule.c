/* SPDX-License-Identifier: MIT */
/*
 * schedule.c - recorded schedules and site labels.
 */
#include "runtime/tsan.h"
#include "runtime/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[PR_K_NR] = {
	[PR_K_YIELD]	= "yield",
	[PR_K_LOAD]	= "load",
	[PR_K_STORE]	= "store",
	[PR_K_RMW]	= "rmw",
	[PR_K_LOCK]	= "lock",
	[PR_K_UNLOCK]	= "unlock",
	[PR_K_FENCE]	= "fence",
	[PR_K_ACQUIRE]	= "acquire",
	[PR_K_RELEASE]	= "release",
	[PR_K_SPIN]	= "spin",
	[PR_K_BLOCK]	= "block",
	[PR_K_WAIT]	= "wait",
};

PR_NO_TSAN const char *pr_kind_name(int kind)
{
	if (kind < 0 || kind >= PR_K_NR)
		return "?";
	return kind_names[kind];
}

/*
 * A site's label deliberately leaves out the line number: traces stay
 * valid when the model's source is edited around a yield point, while a
 * replay that reaches a different function or kind of access still counts
 * as a divergence.  Pseudo-sites ("<exit>") are their own label.
 */
PR_NO_TSAN const char *pr_site_label(const struct pr_site *site, char *buf, size_t len)
{
	if (!site)
		snprintf(buf, len, "-");
	else if (site->func[0] == '<')
		snprintf(buf, len, "%s", site->func);
	else if (site->tag && site->tag[0])
		snprintf(buf, len, "%s:%s:%s", site->func,
			 pr_kind_name(site->kind), site->tag);
	else
		snprintf(buf, len, "%s:%s", site->func, pr_kind_name(site->kind));
	return buf;
}

PR_NO_TSAN const char *pr_segment_end_label(const struct pr_segment *seg, char *buf,
				 size_t len)
{
	if (seg->end_label) {
		snprintf(buf, len, "%s", seg->end_label);
		return buf;
	}
	return pr_site_label(seg->end, buf, len);
}

PR_NO_TSAN void pr_schedule_init(struct pr_schedule *s)
{
	memset(s, 0, sizeof(*s));
}

PR_NO_TSAN void pr_schedule_free(struct pr_schedule *s)
{
	free(s->seg);
	memset(s, 0, sizeof(*s));
}

PR_NO_TSAN void pr_schedule_grow(struct pr_schedule *s)
{
	size_t cap = s->cap ? s->cap * 2 : 1024;
	struct pr_segment *n = realloc(s->seg, cap * sizeof(*n));

	if (!n)
		abort();	/* out of memory: nothing sane to do */
	s->seg = n;
	s->cap = cap;
}

PR_NO_TSAN uint64_t pr_schedule_steps(const struct pr_schedule *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->seg[i].steps;
	return n;
}
