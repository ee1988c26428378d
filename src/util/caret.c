/* SPDX-License-Identifier: MIT */
/* caret.c - see caret.h. */
#include "util/caret.h"

#include <stdio.h>
#include <string.h>

void pr_caret_format(const char *file, int line, int col, const char *msg,
		     const char *text, char *buf, size_t len)
{
	size_t off, tlen = strlen(text);

	if (line <= 0) {
		snprintf(buf, len, "%s: error: %s\n", file, msg);
		return;
	}
	off = (size_t)snprintf(buf, len, "%s:%d:%d: error: %s\n %s\n ",
			       file, line, col, msg, text);
	/* The caret under column col; tabs copied so it lines up. */
	for (int c = 1; c < col && off + 3 < len; c++) {
		size_t i = (size_t)(c - 1);

		buf[off++] = (i < tlen && text[i] == '\t') ? '\t' : ' ';
	}
	if (off + 3 <= len) {
		buf[off++] = '^';
		buf[off++] = '\n';
		buf[off] = '\0';
	}
}
