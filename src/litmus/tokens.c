/* SPDX-License-Identifier: MIT */
/*
 * tokens.c - what every part of the litmus parser (parser.c, body.c,
 * cond.c) reads its text through: the token stream with one token of
 * lookahead over lexer.c, the errors (file:line:col with the line for
 * the caret), which unwind with longjmp to litmus_parse, and lit_alloc,
 * which lists every node in the litmus so that an error frees them all.
 */
#include "litmus/internal.h"
#include "util/caret.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lit_error_format(const struct lit_error *e, char *buf, size_t len)
{
	pr_caret_format(e->file, e->line, e->col, e->msg, e->text, buf, len);
}

void lit_set_error(struct lit_parser *p, int line, int col, const char *msg)
{
	struct lit_error *e = p->err;
	const char *s = p->lx.text, *end = s + p->lx.len;
	size_t n;

	snprintf(e->file, sizeof(e->file), "%s", p->lx.name);
	snprintf(e->msg, sizeof(e->msg), "%s", msg);
	e->line = line;
	e->col = col;
	for (int l = 1; l < line && s < end; s++)
		if (*s == '\n')
			l++;
	for (n = 0; s + n < end && s[n] != '\n' && n + 1 < sizeof(e->text); n++)
		e->text[n] = isprint((unsigned char)s[n]) || s[n] == '\t' ? s[n] : '?';
	e->text[n] = '\0';
}

void lit_fail_at(struct lit_parser *p, const struct lit_token *t,
		 const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	lit_set_error(p, t->line, t->col, msg);
	longjmp(p->fail, 1);
}

void lit_unsupported(struct lit_parser *p, const struct lit_token *t,
		     const char *construct)
{
	snprintf(p->err->construct, sizeof(p->err->construct), "%s", construct);
	lit_fail_at(p, t, "unsupported %s", construct);
}

void *lit_alloc(struct lit_parser *p, size_t size)
{
	struct litmus *l = p->l;
	void *m;

	if (l->nalloc == l->capalloc) {
		size_t cap = l->capalloc ? 2 * l->capalloc : 64;
		void **a = realloc(l->alloc, cap * sizeof(*a));

		if (!a)
			lit_fail_at(p, &p->tok, "out of memory");
		l->alloc = a;
		l->capalloc = cap;
	}
	m = calloc(1, size);
	if (!m)
		lit_fail_at(p, &p->tok, "out of memory");
	l->alloc[l->nalloc++] = m;
	return m;
}

static void lex(struct lit_parser *p, struct lit_token *t)
{
	char msg[200];

	if (lit_lex_next(&p->lx, t, msg, sizeof(msg))) {
		lit_set_error(p, t->line ? t->line : p->lx.line,
			  t->col ? t->col : p->lx.col, msg);
		longjmp(p->fail, 1);
	}
}

void lit_next(struct lit_parser *p)
{
	p->last_end = p->tok.end;
	if (p->has_peek) {
		p->tok = p->peek;
		p->has_peek = 0;
	} else {
		lex(p, &p->tok);
	}
}

const struct lit_token *lit_peek(struct lit_parser *p)
{
	if (!p->has_peek) {
		lex(p, &p->peek);
		p->has_peek = 1;
	}
	return &p->peek;
}

int lit_is(const struct lit_token *t, const char *punct)
{
	return t->kind == T_PUNCT && !strcmp(t->text, punct);
}

int lit_is_ident(const struct lit_token *t, const char *word)
{
	return t->kind == T_IDENT && !strcmp(t->text, word);
}

static const char *tok_desc(const struct lit_token *t, char *buf, size_t len)
{
	if (t->kind == T_EOF)
		return "end of file";
	snprintf(buf, len, "'%s'", t->text);
	return buf;
}

void lit_expect(struct lit_parser *p, const char *punct)
{
	char b[64];

	if (!lit_is(&p->tok, punct))
		lit_fail_at(p, &p->tok, "expected '%s', found %s", punct,
			    tok_desc(&p->tok, b, sizeof(b)));
	lit_next(p);
}
