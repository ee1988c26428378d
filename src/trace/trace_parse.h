/* SPDX-License-Identifier: MIT */
/*
 * trace_parse.h - the trace reader's line-level primitives (trace_lex.c),
 * shared with the section parsers (trace_read.c).  Private to src/trace/.
 *
 * Every primitive returns -1 after writing "FILE:LINE:COL: error: ..."
 * into the parser's error buffer (tp_fail), so callers just propagate.
 */
#ifndef PAGERACE_TRACE_PARSE_H
#define PAGERACE_TRACE_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include "trace/trace.h"

struct parser {
	const char *name;
	const char *buf;
	size_t len, pos;
	unsigned long lineno;	/* of the current line */
	const char *line;	/* current line, without '\n' */
	size_t linelen;
	int pushed;		/* current line was pushed back */
	size_t ver_beg, ver_end;	/* the pagerace-version line, '\n' included */
	char *err;
	size_t errlen;
	struct pr_trace *t;
};

/* An option key: [A-Za-z0-9._-]+ (trace.c). */
int tp_key_ok(const char *k, size_t n);

int tp_fail(struct parser *p, unsigned long line, size_t col,
		const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
size_t tp_col(const struct parser *p, const char *s);
int tp_next_line(struct parser *p, int raw);
int tp_is_key(const char *s, size_t n, const char *key);
int tp_known_key(const char *s, size_t n);
size_t tp_key_len(const struct parser *p);
int tp_peek_key(struct parser *p, const char *key);
int tp_eof_error(struct parser *p, const char *what);
int tp_expect(struct parser *p, const char *key, const char **val,
		const char **vend);
int tp_need_value(struct parser *p, const char *key, const char *val);
int tp_number(struct parser *p, const char *s, const char *e, uint64_t max,
		const char *what, uint64_t *out);
int tp_unescape(struct parser *p, const char *s, const char *e, char *dst,
		size_t cap, size_t *n);
int tp_string(struct parser *p, const char *s, const char *e, char **out);
int tp_string_line(struct parser *p, const char *key, int nonempty, char **out);
int tp_fixed_line(struct parser *p, const char *key, char *dst, size_t cap);
int tp_number_line(struct parser *p, const char *key, uint64_t max,
		uint64_t *out);

#define FAIL_AT(p, s, ...)	tp_fail((p), (p)->lineno, tp_col((p), (s)), __VA_ARGS__)

#endif /* PAGERACE_TRACE_PARSE_H */
