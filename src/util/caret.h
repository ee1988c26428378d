/* SPDX-License-Identifier: MIT */
/*
 * caret.h - how an input error reads, for every front end (scenario files,
 * litmus files): "FILE:LINE:COL: error: MESSAGE", the offending line and
 * a caret under the column.
 */
#ifndef PAGERACE_UTIL_CARET_H
#define PAGERACE_UTIL_CARET_H

#include <stddef.h>

/**
 * pr_caret_format - format an error at @line:@col of @file into @buf
 * @text: the offending line (tabs in it are copied so the caret lines up)
 *
 * A @line of 0 or less has no position: "FILE: error: MESSAGE" alone.
 */
void pr_caret_format(const char *file, int line, int col, const char *msg,
		     const char *text, char *buf, size_t len);

#endif /* PAGERACE_UTIL_CARET_H */
