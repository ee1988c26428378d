/* SPDX-License-Identifier: MIT */
/*
 * tests/util_json.c - the program's one JSON string writer (util/json.h):
 * valid UTF-8 passes through, '"' and '\\' are escaped, control bytes
 * become \u00XX, and every byte that is not part of a valid UTF-8
 * sequence (stray continuation, overlong form, surrogate, past U+10FFFF,
 * a sequence cut short) becomes \ufffd.
 */
#include "config.h"
#include "util/json.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *render(const char *s)
{
	static char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	if (!f)
		return NULL;
	pr_json_string(f, s);
	fclose(f);
	return buf;
}

static void check(const char *in, const char *want, const char *what)
{
	const char *got = render(in);

	ok(got && !strcmp(got, want), "%s: %s", what, got ? got : "(none)");
}

int main(void)
{
	plan(13);
	check("plain", "\"plain\"", "ASCII as is");
	check("a\"b\\c", "\"a\\\"b\\\\c\"", "quote and backslash escaped");
	check("t\tn\n\x01\x1f\x7f", "\"t\\u0009n\\u000a\\u0001\\u001f\\u007f\"",
	      "control bytes as \\u00XX");
	check("caf\xc3\xa9", "\"caf\xc3\xa9\"", "2-byte UTF-8 passes through");
	check("\xe2\x82\xac", "\"\xe2\x82\xac\"", "3-byte UTF-8 (euro) passes through");
	check("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"", "4-byte UTF-8 passes through");
	check("caf\xe9", "\"caf\\ufffd\"", "a Latin-1 byte becomes \\ufffd");
	check("\x80x", "\"\\ufffdx\"", "a stray continuation byte becomes \\ufffd");
	check("\xc0\xaf", "\"\\ufffd\\ufffd\"", "an overlong '/' is two \\ufffd");
	check("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "a UTF-16 surrogate is invalid");
	check("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", "past U+10FFFF is invalid");
	check("ab\xe2\x82", "\"ab\\ufffd\\ufffd\"", "a sequence cut short by the end");
	ok(!strcmp(render(NULL), "null"), "NULL is null");
	return done_testing();
}
