/* SPDX-License-Identifier: MIT */
/*
 * stateset.h - the final states a search reached, as hashes: an open set
 * of at most 4096, for the tests that compare dpor's states with dfs's
 * (strategy_dpor.c, strategy_cas.c).
 */
#ifndef PR_TESTS_STATESET_H
#define PR_TESTS_STATESET_H

#include <stdint.h>

struct stateset { uint64_t h[4096]; int n; };

static inline void set_add(struct stateset *s, uint64_t h)
{
	for (int i = 0; i < s->n; i++)
		if (s->h[i] == h)
			return;
	if (s->n < 4096)
		s->h[s->n++] = h;
}

static inline int set_has(const struct stateset *s, uint64_t h)
{
	for (int i = 0; i < s->n; i++)
		if (s->h[i] == h)
			return 1;
	return 0;
}

#endif /* PR_TESTS_STATESET_H */
