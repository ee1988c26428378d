/* SPDX-License-Identifier: MIT */
/*
 * lexer.c - tokens of herd7's C litmus dialect.
 *
 * Comments: C's block and line comments everywhere; OCaml's "(* ... *)"
 * (nesting) only outside braces -- the header comment, between processes,
 * in the condition -- because inside a body "(*(intptr_t **)x1)" is C.
 * A quoted string outside braces is herd's optional description: skipped.
 */
#include "litmus/internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Longest first: a token is the first entry it starts with. */
static const char *const puncts[] = {
	"/\\", "\\/", "==", "!=", "<=", ">=", "&&", "||", "->", "<<", ">>",
	"++", "--", "+=", "-=", "{", "}", "(", ")", "[", "]", ";", ",", "=",
	"*", "&", "+", "-", "!", "~", "<", ">", "|", "^", "%", "/", "?", ":",
	".",
};

void lit_lex_init(struct lit_lexer *lx, const char *name, const char *text,
		  size_t len, size_t start, int line)
{
	lx->name = name;
	lx->text = text;
	lx->len = len;
	lx->pos = start;
	lx->line = line;
	lx->col = 1;
	lx->depth = 0;
	lx->init = 0;
	lx->result = NULL;
	lx->result_len = 0;
}

static int at(const struct lit_lexer *lx, size_t k)
{
	return lx->pos + k < lx->len ? (unsigned char)lx->text[lx->pos + k] : -1;
}

static void advance(struct lit_lexer *lx)
{
	if (lx->text[lx->pos] == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->pos++;
}

/* The header comment's "Result:" line, remembered for the parser. */
static void note_result(struct lit_lexer *lx, size_t from, size_t to)
{
	const char *k = "Result:";
	size_t kl = strlen(k);

	if (lx->result)
		return;
	for (size_t i = from; i + kl <= to; i++)
		if (!memcmp(lx->text + i, k, kl)) {
			size_t e = i + kl;

			while (e < to && lx->text[e] != '\n')
				e++;
			lx->result = lx->text + i + kl;
			lx->result_len = e - i - kl;
			return;
		}
}

/* Skip blanks and comments; -1 on an unterminated comment. */
static int skip(struct lit_lexer *lx, char *msg, size_t msglen)
{
	for (;;) {
		int c = at(lx, 0);

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
		    c == '\v') {
			advance(lx);
		} else if (c == '/' && at(lx, 1) == '/') {
			while (at(lx, 0) != -1 && at(lx, 0) != '\n')
				advance(lx);
		} else if (c == '/' && at(lx, 1) == '*') {
			size_t from = lx->pos;

			advance(lx);
			advance(lx);
			while (!(at(lx, 0) == '*' && at(lx, 1) == '/')) {
				if (at(lx, 0) == -1) {
					snprintf(msg, msglen, "unterminated comment");
					return -1;
				}
				advance(lx);
			}
			advance(lx);
			advance(lx);
			if (lx->depth == 0)
				note_result(lx, from, lx->pos);
		} else if (c == '(' && at(lx, 1) == '*' &&
			   (lx->depth == 0 || lx->init)) {
			size_t from = lx->pos;
			int nest = 0;

			do {
				if (at(lx, 0) == -1) {
					snprintf(msg, msglen, "unterminated comment");
					return -1;
				}
				if (at(lx, 0) == '(' && at(lx, 1) == '*') {
					nest++;
					advance(lx);
				} else if (at(lx, 0) == '*' && at(lx, 1) == ')') {
					nest--;
					advance(lx);
				}
				advance(lx);
			} while (nest > 0);
			note_result(lx, from, lx->pos);
		} else if (c == '"' && lx->depth == 0) {
			advance(lx);
			while (at(lx, 0) != '"') {
				if (at(lx, 0) == -1) {
					snprintf(msg, msglen, "unterminated string");
					return -1;
				}
				advance(lx);
			}
			advance(lx);
		} else {
			return 0;
		}
	}
}

static int lex_token(struct lit_lexer *lx, struct lit_token *t, char *msg,
		     size_t msglen);

int lit_lex_next(struct lit_lexer *lx, struct lit_token *t, char *msg,
		 size_t msglen)
{
	int rc = lex_token(lx, t, msg, msglen);

	t->end = lx->pos;
	return rc;
}

static int lex_token(struct lit_lexer *lx, struct lit_token *t, char *msg,
		     size_t msglen)
{
	int c;

	memset(t, 0, sizeof(*t));
	if (skip(lx, msg, msglen)) {
		t->line = lx->line;
		t->col = lx->col;
		return -1;
	}
	t->line = lx->line;
	t->col = lx->col;
	t->off = lx->pos;
	c = at(lx, 0);
	if (c == -1) {
		t->kind = T_EOF;
		return 0;
	}
	if (isalpha(c) || c == '_') {
		size_t n = 0;

		while (isalnum(at(lx, 0)) || at(lx, 0) == '_') {
			if (n + 1 >= sizeof(t->text)) {
				snprintf(msg, msglen, "name too long (at most %d characters)",
					 (int)sizeof(t->text) - 1);
				return -1;
			}
			t->text[n++] = (char)at(lx, 0);
			advance(lx);
		}
		t->kind = T_IDENT;
		return 0;
	}
	if (isdigit(c)) {
		unsigned long long v = 0;
		int base = 10, digits = 0;

		if (c == '0' && (at(lx, 1) == 'x' || at(lx, 1) == 'X')) {
			base = 16;
			advance(lx);
			advance(lx);
		}
		for (;;) {
			int d = at(lx, 0);

			if (d >= '0' && d <= '9')
				d -= '0';
			else if (base == 16 && isxdigit(d))
				d = tolower(d) - 'a' + 10;
			else
				break;
			if (v > (0x7fffffffffffffffull - (unsigned)d) / (unsigned)base) {
				snprintf(msg, msglen, "number too large");
				return -1;
			}
			v = v * (unsigned)base + (unsigned)d;
			digits++;
			advance(lx);
		}
		/* Integer suffixes: 1UL, 0u. */
		while (at(lx, 0) == 'u' || at(lx, 0) == 'U' || at(lx, 0) == 'l' ||
		       at(lx, 0) == 'L')
			advance(lx);
		if (!digits || isalpha(at(lx, 0)) || at(lx, 0) == '_') {
			snprintf(msg, msglen, "bad number");
			return -1;
		}
		t->kind = T_NUM;
		t->num = (long long)v;
		snprintf(t->text, sizeof(t->text), "%llu", v);
		return 0;
	}
	for (size_t i = 0; i < sizeof(puncts) / sizeof(puncts[0]); i++) {
		size_t n = strlen(puncts[i]);

		if (lx->pos + n <= lx->len &&
		    !memcmp(lx->text + lx->pos, puncts[i], n)) {
			for (size_t k = 0; k < n; k++)
				advance(lx);
			t->kind = T_PUNCT;
			memcpy(t->text, puncts[i], n + 1);
			if (!strcmp(t->text, "{"))
				lx->depth++;
			else if (!strcmp(t->text, "}") && lx->depth > 0)
				lx->depth--;
			return 0;
		}
	}
	if (c >= 0x20 && c < 0x7f)
		snprintf(msg, msglen, "unexpected character '%c'", c);
	else
		snprintf(msg, msglen, "unexpected byte 0x%02x", (unsigned)c);
	return -1;
}
