/* SPDX-License-Identifier: MIT */
/*
 * trace_lex.c - the trace reader's line-level primitives: lines, keys,
 * numbers, escaped strings (doc/trace-format.md), each bounded and each
 * failing with "FILE:LINE:COL: error: MESSAGE".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_parse.h"

int tp_fail(struct parser *p, unsigned long line, size_t col,
		const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "%s:%lu:%zu: error: %s", p->name,
			 line, col, msg);
	return -1;
}

/* Column (1-based) of @s within the current line. */
size_t tp_col(const struct parser *p, const char *s)
{
	return (size_t)(s - p->line) + 1;
}


/*
 * Advance to the next line: 1, 0 at end of input, -1 on error.  Unless
 * @raw (program text), only printable ASCII is allowed.
 */
int tp_next_line(struct parser *p, int raw)
{
	size_t rest, max;
	const char *nl, *nul;

	if (p->pushed) {
		p->pushed = 0;
		return 1;
	}
	if (p->pos >= p->len)
		return 0;
	rest = p->len - p->pos;
	max = rest < PR_TRACE_MAX_LINE + 1 ? rest : PR_TRACE_MAX_LINE + 1;
	p->line = p->buf + p->pos;
	p->lineno++;
	nl = memchr(p->line, '\n', max);
	p->linelen = nl ? (size_t)(nl - p->line) : max;
	nul = memchr(p->line, '\0', p->linelen);
	if (nul)
		return FAIL_AT(p, nul, "NUL byte in trace");
	if (!nl) {
		if (max > PR_TRACE_MAX_LINE)
			return tp_fail(p, p->lineno, PR_TRACE_MAX_LINE + 1,
				    "line longer than %d bytes",
				    PR_TRACE_MAX_LINE);
		return tp_fail(p, p->lineno, p->linelen + 1, "line not "
			    "terminated by a newline (truncated trace?)");
	}
	p->pos += p->linelen + 1;
	if (raw)
		return 1;
	for (size_t i = 0; i < p->linelen; i++) {
		unsigned char c = (unsigned char)p->line[i];

		if (c == '\r')
			return tp_fail(p, p->lineno, i + 1, "carriage return "
				    "(CRLF line endings?)");
		if (c < 0x20 || c >= 0x7f)
			return tp_fail(p, p->lineno, i + 1, "unescaped byte "
				    "0x%02x (write it as \\x%02x)", c, c);
	}
	return 1;
}

static const char *const known_keys[] = {
	"pagerace-trace", "pagerace-version", "program", "strategy", "param",
	"seed", "run", "option", "result", "verdict-kind", "verdict-step",
	"verdict-ctx", "verdict-event", "verdict-obj", "verdict-site",
	"verdict-where", "verdict-msg", "steps", "preemptions", "sites",
	"site", "schedule", "program-text", "end", "flavour", "check",
	"memory",
};

int tp_is_key(const char *s, size_t n, const char *key)
{
	return strlen(key) == n && !memcmp(s, key, n);
}

int tp_known_key(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(known_keys) / sizeof(*known_keys); i++)
		if (tp_is_key(s, n, known_keys[i]))
			return 1;
	return 0;
}

/* Length of the current line's first word. */
size_t tp_key_len(const struct parser *p)
{
	const char *sp = memchr(p->line, ' ', p->linelen);

	return sp ? (size_t)(sp - p->line) : p->linelen;
}

/* Does the next line start with @key?  (It stays unread.)  -1: error. */
int tp_peek_key(struct parser *p, const char *key)
{
	int r = tp_next_line(p, 0);

	if (r <= 0)
		return r;
	p->pushed = 1;
	return tp_is_key(p->line, tp_key_len(p), key);
}

int tp_eof_error(struct parser *p, const char *what)
{
	return tp_fail(p, p->lineno + 1, 1, "unexpected end of file (truncated "
		    "trace?): expected %s", what);
}

/*
 * Read the line for @key.  *@val/@vend delimit its value (after one
 * space); *@val is NULL if the line is the key alone.
 */
int tp_expect(struct parser *p, const char *key, const char **val,
		  const char **vend)
{
	size_t kl;
	int r = tp_next_line(p, 0);
	char what[48];

	if (r < 0)
		return -1;
	if (!r) {
		snprintf(what, sizeof(what), "'%s'", key);
		return tp_eof_error(p, what);
	}
	kl = tp_key_len(p);
	if (!tp_is_key(p->line, kl, key)) {
		if (!kl)
			return FAIL_AT(p, p->line, "empty line, expected '%s'",
				       key);
		if (!tp_known_key(p->line, kl))
			return FAIL_AT(p, p->line, "unknown key '%.*s' "
				       "(expected '%s')",
				       (int)(kl > 40 ? 40 : kl), p->line, key);
		return FAIL_AT(p, p->line, "expected '%s', found '%.*s'", key,
			       (int)kl, p->line);
	}
	*val = kl < p->linelen ? p->line + kl + 1 : NULL;
	*vend = p->line + p->linelen;
	return 0;
}

int tp_need_value(struct parser *p, const char *key, const char *val)
{
	if (!val)
		return tp_fail(p, p->lineno, p->linelen + 1, "'%s' needs a value",
			    key);
	return 0;
}

/*
 * A decimal number in [@s, @e): digits only, no sign, no leading zero,
 * at most @max.
 */
int tp_number(struct parser *p, const char *s, const char *e,
		  uint64_t max, const char *what, uint64_t *out)
{
	uint64_t v = 0;
	int w = (int)(e - s > 40 ? 40 : e - s);

	if (s == e)
		return FAIL_AT(p, s, "expected a number for %s", what);
	for (const char *q = s; q < e; q++) {
		if (*q < '0' || *q > '9')
			return FAIL_AT(p, s, "bad number '%.*s' for %s "
				       "(junk at column %zu)", w, s, what,
				       tp_col(p, q));
		if ((uint64_t)(*q - '0') > max ||
		    v > (max - (uint64_t)(*q - '0')) / 10)
			return FAIL_AT(p, s, "number '%.*s' out of range for "
				       "%s (at most %llu)", w, s, what,
				       (unsigned long long)max);
		v = v * 10 + (uint64_t)(*q - '0');
	}
	if (*s == '0' && e - s > 1)
		return FAIL_AT(p, s, "bad number '%.*s' for %s (leading zero)",
			       w, s, what);
	*out = v;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Unescape [@s, @e) into @dst (room for @cap bytes including the NUL).
 * *@n is the unescaped length; with @dst NULL only that is computed.
 */
int tp_unescape(struct parser *p, const char *s, const char *e,
		    char *dst, size_t cap, size_t *n)
{
	size_t o = 0;

	for (const char *q = s; q < e; q++) {
		char c = *q;

		if (c == '\\') {
			if (q + 1 >= e)
				return FAIL_AT(p, q, "backslash at end of line");
			if (q[1] == '\\') {
				c = '\\';
				q++;
			} else if (q[1] == 'n') {
				c = '\n';
				q++;
			} else if (q[1] == 'x') {
				int hi = q + 2 < e ? hexval(q[2]) : -1;
				int lo = q + 3 < e ? hexval(q[3]) : -1;

				if (hi < 0 || lo < 0)
					return FAIL_AT(p, q, "bad escape, "
						       "\\x needs two hex digits");
				c = (char)(hi * 16 + lo);
				if (!c)
					return FAIL_AT(p, q, "escaped NUL "
						       "byte in string");
				q += 3;
			} else {
				return FAIL_AT(p, q, "bad escape '\\%c' (use "
					       "\\\\, \\n or \\xHH)", q[1]);
			}
		}
		if (dst) {
			if (o + 1 >= cap)
				return FAIL_AT(p, s, "string too long (at "
					       "most %zu bytes)", cap - 1);
			dst[o] = c;
		}
		o++;
	}
	if (dst)
		dst[o] = 0;
	*n = o;
	return 0;
}

/* A string value into freshly allocated *@out ("" if @s is NULL). */
int tp_string(struct parser *p, const char *s, const char *e,
		  char **out)
{
	size_t n;

	if (!s)
		s = e;
	if (tp_unescape(p, s, e, NULL, 0, &n))
		return -1;
	if (!(*out = malloc(n + 1)))
		return FAIL_AT(p, s, "out of memory");
	return tp_unescape(p, s, e, *out, n + 1, &n);
}

int tp_string_line(struct parser *p, const char *key, int nonempty,
		       char **out)
{
	const char *v, *e;

	if (tp_expect(p, key, &v, &e))
		return -1;
	if (nonempty && (!v || v == e))
		return tp_fail(p, p->lineno, p->linelen + 1, "'%s' needs a "
			    "non-empty value", key);
	return tp_string(p, v, e, out);
}

int tp_fixed_line(struct parser *p, const char *key, char *dst,
		      size_t cap)
{
	const char *v, *e;
	size_t n;

	if (tp_expect(p, key, &v, &e))
		return -1;
	return tp_unescape(p, v ? v : e, e, dst, cap, &n);
}

int tp_number_line(struct parser *p, const char *key, uint64_t max,
		       uint64_t *out)
{
	const char *v, *e;

	if (tp_expect(p, key, &v, &e) || tp_need_value(p, key, v))
		return -1;
	return tp_number(p, v, e, max, key, out);
}
