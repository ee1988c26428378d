/* SPDX-License-Identifier: MIT */
/*
 * lexer.c - scenario text to tokens.
 *
 * '#' starts a comment to the end of the line.  Newlines are tokens (they
 * end statements, as ';' does).  Identifiers are [A-Za-z_][A-Za-z0-9_.-]*
 * ("find_get_page", "spec-free-check", "m0"); numbers are decimal, with an
 * optional leading '-'; strings are "..." on one line, with \" and \\.
 * Any other byte, a NUL, a non-ASCII byte or a number out of range is an
 * SCN_TK_ERROR token at its position: the parser reports it.
 */
#include "scenario/scenario.h"

#include <stdio.h>
#include <string.h>

void scn_lex_init(struct scn_lexer *lx, const char *file, const char *buf,
		  size_t len)
{
	lx->file = file;
	lx->buf = buf;
	lx->len = len;
	lx->pos = 0;
	lx->line = 1;
	lx->line_start = 0;
}

static int peekc(const struct scn_lexer *lx, size_t off)
{
	return lx->pos + off < lx->len ? (unsigned char)lx->buf[lx->pos + off] : -1;
}

static int is_ident0(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_ident(int c)
{
	return is_ident0(c) || is_digit(c) || c == '-' || c == '.';
}

static void error_tok(struct scn_token *t, const char *msg)
{
	t->kind = SCN_TK_ERROR;
	snprintf(t->text, sizeof(t->text), "%s", msg);
}

static void lex_number(struct scn_lexer *lx, struct scn_token *t)
{
	int neg = 0;
	unsigned long long v = 0;
	int overflow = 0;

	if (peekc(lx, 0) == '-') {
		neg = 1;
		lx->pos++;
	}
	while (is_digit(peekc(lx, 0))) {
		unsigned d = (unsigned)(peekc(lx, 0) - '0');

		if (v > (9223372036854775807ULL - d) / 10)
			overflow = 1;
		else
			v = v * 10 + d;
		lx->pos++;
	}
	if (is_ident0(peekc(lx, 0))) {
		error_tok(t, "a number must not run into a name (missing space?)");
		while (is_ident(peekc(lx, 0)))
			lx->pos++;
		return;
	}
	if (overflow) {
		error_tok(t, "number out of range");
		return;
	}
	t->kind = SCN_TK_NUM;
	t->num = neg ? -(long long)v : (long long)v;
}

static void lex_string(struct scn_lexer *lx, struct scn_token *t)
{
	size_t n = 0;

	lx->pos++;	/* opening quote */
	for (;;) {
		int c = peekc(lx, 0);

		if (c < 0 || c == '\n') {
			error_tok(t, "unterminated string");
			return;
		}
		if (c == '"') {
			lx->pos++;
			break;
		}
		if (c == '\\') {
			int d = peekc(lx, 1);

			if (d != '"' && d != '\\') {
				error_tok(t, "only \\\" and \\\\ may be escaped in a string");
				return;
			}
			c = d;
			lx->pos++;
		}
		if (c < 0x20 || c > 0x7e) {
			if (c == '\t') {
				c = ' ';
			} else {
				error_tok(t, "a string holds printable ASCII only");
				return;
			}
		}
		if (n + 1 >= sizeof(t->text)) {
			error_tok(t, "string too long (at most 255 bytes)");
			return;
		}
		t->text[n++] = (char)c;
		lx->pos++;
	}
	t->text[n] = '\0';
	t->kind = SCN_TK_STR;
}

void scn_lex_next(struct scn_lexer *lx, struct scn_token *t)
{
	int c;

	t->text[0] = '\0';
	t->num = 0;
	for (;;) {
		c = peekc(lx, 0);
		if (c == ' ' || c == '\t' || c == '\r') {
			lx->pos++;
		} else if (c == '#') {
			while (peekc(lx, 0) >= 0 && peekc(lx, 0) != '\n' &&
			       peekc(lx, 0) != 0)
				lx->pos++;
		} else {
			break;
		}
	}
	t->line = lx->line;
	t->col = (int)(lx->pos - lx->line_start) + 1;
	if (c < 0) {
		t->kind = SCN_TK_EOF;
		return;
	}
	if (c == '\n') {
		lx->pos++;
		lx->line++;
		lx->line_start = lx->pos;
		t->kind = SCN_TK_NL;
		return;
	}
	if (is_ident0(c)) {
		size_t n = 0;

		while (is_ident(peekc(lx, 0))) {
			if (n + 1 < SCN_NAME_LEN)
				t->text[n] = (char)peekc(lx, 0);
			n++;
			lx->pos++;
		}
		if (n + 1 > SCN_NAME_LEN) {
			error_tok(t, "name too long (at most 47 characters)");
			return;
		}
		t->text[n] = '\0';
		t->kind = SCN_TK_IDENT;
		return;
	}
	if (is_digit(c) || (c == '-' && is_digit(peekc(lx, 1)))) {
		lex_number(lx, t);
		return;
	}
	if (c == '"') {
		lex_string(lx, t);
		return;
	}
	lx->pos++;
	switch (c) {
	case '{': t->kind = SCN_TK_LBRACE; return;
	case '}': t->kind = SCN_TK_RBRACE; return;
	case '[': t->kind = SCN_TK_LBRACK; return;
	case ']': t->kind = SCN_TK_RBRACK; return;
	case '(': t->kind = SCN_TK_LPAREN; return;
	case ')': t->kind = SCN_TK_RPAREN; return;
	case ':': t->kind = SCN_TK_COLON; return;
	case ',': t->kind = SCN_TK_COMMA; return;
	case ';': t->kind = SCN_TK_SEMI; return;
	case '=':
		if (peekc(lx, 0) == '=') {
			lx->pos++;
			t->kind = SCN_TK_EQ;
		} else {
			t->kind = SCN_TK_ASSIGN;
		}
		return;
	case '!':
		if (peekc(lx, 0) == '=') {
			lx->pos++;
			t->kind = SCN_TK_NE;
		} else {
			t->kind = SCN_TK_NOT;
		}
		return;
	case '<':
		if (peekc(lx, 0) == '=') {
			lx->pos++;
			t->kind = SCN_TK_LE;
		} else {
			t->kind = SCN_TK_LT;
		}
		return;
	case '>':
		if (peekc(lx, 0) == '=') {
			lx->pos++;
			t->kind = SCN_TK_GE;
		} else {
			t->kind = SCN_TK_GT;
		}
		return;
	case '&':
		if (peekc(lx, 0) == '&') {
			lx->pos++;
			t->kind = SCN_TK_AND;
			return;
		}
		error_tok(t, "'&' must be '&&'");
		return;
	case '|':
		if (peekc(lx, 0) == '|') {
			lx->pos++;
			t->kind = SCN_TK_OR;
			return;
		}
		error_tok(t, "'|' must be '||'");
		return;
	default:
		break;
	}
	if (c == 0)
		error_tok(t, "NUL byte in a scenario");
	else if (c >= 0x80)
		snprintf(t->text, sizeof(t->text),
			 "unexpected byte 0x%02x (scenarios are ASCII; comments too)", c);
	else if (c < 0x20 || c == 0x7f)
		snprintf(t->text, sizeof(t->text), "unexpected control byte 0x%02x", c);
	else
		snprintf(t->text, sizeof(t->text), "unexpected character '%c'", c);
	t->kind = SCN_TK_ERROR;
}

const char *scn_tok_name(enum scn_tok k)
{
	static const char *const names[] = {
		[SCN_TK_EOF] = "end of file", [SCN_TK_NL] = "end of line",
		[SCN_TK_IDENT] = "a name", [SCN_TK_NUM] = "a number",
		[SCN_TK_STR] = "a string", [SCN_TK_LBRACE] = "'{'",
		[SCN_TK_RBRACE] = "'}'", [SCN_TK_LBRACK] = "'['",
		[SCN_TK_RBRACK] = "']'", [SCN_TK_LPAREN] = "'('",
		[SCN_TK_RPAREN] = "')'", [SCN_TK_ASSIGN] = "'='",
		[SCN_TK_COLON] = "':'", [SCN_TK_COMMA] = "','",
		[SCN_TK_SEMI] = "';'", [SCN_TK_EQ] = "'=='", [SCN_TK_NE] = "'!='",
		[SCN_TK_LT] = "'<'", [SCN_TK_LE] = "'<='", [SCN_TK_GT] = "'>'",
		[SCN_TK_GE] = "'>='", [SCN_TK_AND] = "'&&'", [SCN_TK_OR] = "'||'",
		[SCN_TK_NOT] = "'!'", [SCN_TK_ERROR] = "a bad token",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

void scn_lex_line(const struct scn_lexer *lx, int line, char *out, size_t len)
{
	size_t p = 0, n = 0;
	int l = 1;

	while (l < line && p < lx->len) {
		if (lx->buf[p] == '\n')
			l++;
		p++;
	}
	if (l != line || len == 0) {
		if (len)
			out[0] = '\0';
		return;
	}
	while (p < lx->len && lx->buf[p] != '\n' && n + 1 < len) {
		unsigned char c = (unsigned char)lx->buf[p++];

		/* Keep the caret aligned: tabs stay tabs, the rest printable. */
		out[n++] = (c == '\t' || (c >= 0x20 && c < 0x7f)) ? (char)c : '?';
	}
	out[n] = '\0';
}
