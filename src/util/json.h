/* SPDX-License-Identifier: MIT */
/*
 * json.h - the one JSON string writer of the program (explore --json,
 * merge, show -f chrome, stress --json).
 *
 * Valid UTF-8 passes through unchanged, so a UTF-8 path or message reads
 * back as it was.  '"' and '\\' are backslash-escaped, control characters
 * (below 0x20, and 0x7f) become \u00XX.  A byte that is not part of a
 * valid UTF-8 sequence (a Latin-1 file name, a truncated message) becomes
 * U+FFFD, the replacement character, written "\ufffd": the output stays
 * valid JSON, and the loss is visible rather than silently turning the
 * byte into another character.
 */
#ifndef PAGERACE_UTIL_JSON_H
#define PAGERACE_UTIL_JSON_H

#include <stdio.h>

/* Write @s (NUL-terminated; NULL is written as null) as a JSON string. */
void pr_json_string(FILE *f, const char *s);

#endif /* PAGERACE_UTIL_JSON_H */
