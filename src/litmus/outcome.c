/* SPDX-License-Identifier: MIT */
/*
 * outcome.c - the set of final states a test's runs reached, kept sorted
 * by value (numbers before addresses, then by number or location order),
 * so its listing is the same whatever order the runs came in.
 */
#include "litmus/internal.h"

#include <stdlib.h>
#include <string.h>

static int cmp_state(const struct litmus *l, const struct lit_val *a,
		     const struct lit_val *b)
{
	for (int i = 0; i < l->nobs; i++) {
		int c = lit_val_cmp(&a[i], &b[i]);

		if (c)
			return c;
	}
	return 0;
}

void lit_outcome_record(struct litmus *l, const struct lit_val *st, int holds)
{
	size_t lo = 0, hi = l->nout;

	l->runs++;
	l->hits += holds != 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = cmp_state(l, st, l->out[mid].v);

		if (!c) {
			l->out[mid].count++;
			return;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (l->nout == LIT_MAX_OUTCOMES)
		pr_fail("litmus-outcomes", NULL, "more than %d distinct final "
			"states", LIT_MAX_OUTCOMES);
	if (l->nout == l->capout) {
		size_t cap = l->capout ? 2 * l->capout : 64;
		struct lit_outcome *o = realloc(l->out, cap * sizeof(*o));

		if (!o)
			pr_fail("litmus-outcomes", NULL, "out of memory");
		l->out = o;
		l->capout = cap;
	}
	memmove(&l->out[lo + 1], &l->out[lo], (l->nout - lo) * sizeof(*l->out));
	memcpy(l->out[lo].v, st, (size_t)l->nobs * sizeof(*st));
	l->out[lo].count = 1;
	l->out[lo].holds = holds;
	l->nout++;
}

void litmus_outcomes_reset(struct litmus *l)
{
	l->nout = 0;
	l->runs = l->hits = l->filtered = 0;
}

size_t litmus_noutcomes(const struct litmus *l)
{
	return l->nout;
}

void litmus_outcome(const struct litmus *l, size_t i, char *buf, size_t len,
		    uint64_t *count, int *holds)
{
	litmus_state_text(l, l->out[i].v, buf, len);
	*count = l->out[i].count;
	*holds = l->out[i].holds;
}

uint64_t litmus_runs(const struct litmus *l)
{
	return l->runs;
}

uint64_t litmus_hits(const struct litmus *l)
{
	return l->hits;
}
