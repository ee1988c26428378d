/* SPDX-License-Identifier: MIT */
/*
 * diag.c - how scenario errors read: "FILE:LINE:COL: error: MESSAGE", the
 * offending line and a caret under the column; and the nearest valid name
 * for a misspelt one (Levenshtein distance).
 */
#include "scenario/scenario.h"
#include "util/caret.h"

#include <stdio.h>
#include <string.h>

void scn_error_format(const struct scn_error *e, char *buf, size_t len)
{
	pr_caret_format(e->file, e->line, e->col, e->msg, e->text, buf, len);
}

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* Edit distance, for names of at most 63 characters. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[64];

	if (la > 63 || lb > 63)
		return 64;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];

			row[j] = min3(row[j] + 1, row[j - 1] + 1,
				      prev + (a[i - 1] != b[j - 1]));
			prev = cur;
		}
	}
	return row[lb];
}

const char *scn_nearest(const char *word, const char *const *cand, size_t n)
{
	const char *best = NULL;
	size_t bestd = (size_t)-1, limit;

	for (size_t i = 0; i < n; i++) {
		size_t d;

		if (!cand[i])
			continue;
		d = distance(word, cand[i]);
		if (d < bestd) {
			bestd = d;
			best = cand[i];
		}
	}
	/* Close enough to be a typo: a third of the word, at least 2. */
	limit = strlen(word) / 3;
	if (limit < 2)
		limit = 2;
	return bestd <= limit ? best : NULL;
}
