/* SPDX-License-Identifier: MIT */
/*
 * tokens.c - the parser's token-level helpers: errors with positions,
 * expected-token checks, mappings, registers and names; and reading a
 * scenario file whole.
 */
#include "scenario/parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void scn_fail_at(struct parser *p, int line, int col, const char *fmt, ...)
{
	struct scn_error *e = p->err;
	va_list ap;

	e->line = line;
	e->col = col;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	scn_lex_line(&p->lx, line, e->text, sizeof(e->text));
	longjmp(p->fail, 1);
}

void scn_advance(struct parser *p)
{
	scn_lex_next(&p->lx, &p->tok);
	if (p->tok.kind == SCN_TK_ERROR)
		scn_fail(p, "%s", p->tok.text);
}

const char *scn_found(const struct parser *p, char *buf, size_t len)
{
	if (p->tok.kind == SCN_TK_IDENT)
		snprintf(buf, len, "'%s'", p->tok.text);
	else if (p->tok.kind == SCN_TK_NUM)
		snprintf(buf, len, "'%lld'", p->tok.num);
	else
		snprintf(buf, len, "%s", scn_tok_name(p->tok.kind));
	return buf;
}

int scn_parse_mapping(struct parser *p)
{
	static const char *const maps[] = { "m0", "m1", "m2", "m3", "swap" };
	const char *near;
	char f[64];

	if (p->tok.kind != SCN_TK_IDENT)
		scn_fail(p, "expected a mapping (m0..m3 or swap), found %s",
			 scn_found(p, f, sizeof(f)));
	for (int i = 0; i < 5; i++)
		if (!strcmp(p->tok.text, maps[i])) {
			scn_advance(p);
			return i < 4 ? i : -1;
		}
	near = scn_nearest(p->tok.text, maps, 5);
	if (near)
		scn_fail(p, "unknown mapping '%s' (did you mean '%s'?)", p->tok.text,
			 near);
	scn_fail(p, "unknown mapping '%s' (m0..m3 or swap)", p->tok.text);
}

int scn_reg_index(struct parser *p, const char *name)
{
	char *end;
	long v;

	if (name[0] != 'r' || name[1] < '0' || name[1] > '9')
		return -1;
	v = strtol(name + 1, &end, 10);
	if (*end)
		return -1;
	if (v >= SCN_NREGS || (name[1] == '0' && name[2]))
		scn_fail(p, "no register %s (registers are r0 to r%d)", name,
			 SCN_NREGS - 1);
	return (int)v;
}

int scn_name_index(const struct scenario *s, const char *name)
{
	for (int i = 0; i < s->nnames; i++)
		if (!strcmp(s->names[i], name))
			return i;
	return -1;
}

long long scn_number(struct parser *p, long long lo, long long hi,
			const char *what)
{
	char f[64];
	long long v;

	if (p->tok.kind != SCN_TK_NUM)
		scn_fail(p, "expected %s, found %s", what, scn_found(p, f, sizeof(f)));
	v = p->tok.num;
	if (v < lo || v > hi)
		scn_fail(p, "%s must be from %lld to %lld, not %lld", what, lo, hi, v);
	scn_advance(p);
	return v;
}

void scn_ident(struct parser *p, const char *what, char *out, size_t len)
{
	char f[64];

	if (p->tok.kind != SCN_TK_IDENT)
		scn_fail(p, "expected %s, found %s", what, scn_found(p, f, sizeof(f)));
	snprintf(out, len, "%s", p->tok.text);
	scn_advance(p);
}

void scn_string(struct parser *p, const char *what, char *out, size_t len)
{
	char f[64];

	if (p->tok.kind != SCN_TK_STR)
		scn_fail(p, "expected %s in double quotes, found %s", what,
			 scn_found(p, f, sizeof(f)));
	if (strlen(p->tok.text) >= len)
		scn_fail(p, "%s too long (at most %zu characters)", what, len - 1);
	snprintf(out, len, "%s", p->tok.text);
	scn_advance(p);
}

/* A statement ends at a newline, ';', end of file, or before a '}'. */
void scn_end_stmt(struct parser *p, const char *after)
{
	char f[64];

	switch (p->tok.kind) {
	case SCN_TK_NL:
	case SCN_TK_SEMI:
		scn_advance(p);
		return;
	case SCN_TK_EOF:
	case SCN_TK_RBRACE:
		return;
	default:
		scn_fail(p, "expected end of line after %s, found %s", after,
			 scn_found(p, f, sizeof(f)));
	}
}

void scn_skip_blank(struct parser *p)
{
	while (p->tok.kind == SCN_TK_NL || p->tok.kind == SCN_TK_SEMI)
		scn_advance(p);
}

void scn_open_brace(struct parser *p, const char *what)
{
	char f[64];

	if (p->tok.kind != SCN_TK_LBRACE)
		scn_fail(p, "expected '{' to open %s, found %s", what,
			 scn_found(p, f, sizeof(f)));
	scn_advance(p);
}

char *scenario_read_file(const char *path, size_t *len, struct scn_error *err)
{
	FILE *f;
	char *buf;
	size_t n;

	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", path);
	f = fopen(path, "rb");
	if (!f) {
		snprintf(err->msg, sizeof(err->msg), "cannot open: %s", strerror(errno));
		return NULL;
	}
	buf = malloc(SCN_MAX_FILE + 1);
	if (!buf) {
		fclose(f);
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return NULL;
	}
	n = fread(buf, 1, SCN_MAX_FILE + 1, f);
	if (ferror(f)) {
		snprintf(err->msg, sizeof(err->msg), "cannot read: %s", strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	if (n > SCN_MAX_FILE) {
		snprintf(err->msg, sizeof(err->msg), "file too large (at most %u bytes)",
			 SCN_MAX_FILE);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}
