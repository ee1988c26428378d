/* SPDX-License-Identifier: MIT */
/*
 * parser.c - a litmus file's outline: the "C name" line, the header
 * comment's Result:, the init block, the processes' headers (their
 * bodies are body.c's), then the final clauses (cond.c).
 *
 * Errors unwind with longjmp to litmus_parse, which frees what was built:
 * every node is allocated through lit_alloc and listed in the litmus
 * (tokens.c, with the token stream the parts read).
 */
#include "litmus/internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Type words: a location's type is what its base name says. */
static const char *const scalar_types[] = {
	"int", "intptr_t", "uintptr_t", "long", "unsigned", "signed", "char",
	"short", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "bool",
	"_Bool", "size_t", "void", "const", "volatile", "int8_t", "int16_t",
	"int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
	NULL
};

int lit_is_type(struct lit_parser *p, const struct lit_token *t)
{
	(void)p;
	if (t->kind != T_IDENT)
		return 0;
	for (int i = 0; scalar_types[i]; i++)
		if (!strcmp(t->text, scalar_types[i]))
			return 1;
	return !strcmp(t->text, "atomic_t") || !strcmp(t->text, "atomic_long_t") ||
	       !strcmp(t->text, "spinlock_t") || !strcmp(t->text, "struct");
}

int lit_parse_type(struct lit_parser *p, enum lit_loc_type *type)
{
	int stars = 0, words = 0;

	*type = LOC_INT;
	while (lit_is_type(p, &p->tok)) {
		if (lit_is_ident(&p->tok, "struct")) {
			lit_next(p);
			if (lit_is_ident(&p->tok, "srcu_struct"))
				*type = LOC_SRCU;
			else if (p->tok.kind == T_IDENT)
				lit_unsupported(p, &p->tok, "struct type");
			else
				lit_fail_at(p, &p->tok, "expected a struct name");
		} else if (lit_is_ident(&p->tok, "atomic_t") ||
			   lit_is_ident(&p->tok, "atomic_long_t")) {
			*type = LOC_ATOMIC;
		} else if (lit_is_ident(&p->tok, "spinlock_t")) {
			*type = LOC_SPINLOCK;
		}
		words++;
		lit_next(p);
	}
	if (!words)
		lit_fail_at(p, &p->tok, "expected a type");
	while (lit_is(&p->tok, "*")) {
		stars++;
		lit_next(p);
	}
	/* "int * const p": qualifiers after the stars. */
	while (lit_is_ident(&p->tok, "const") || lit_is_ident(&p->tok, "volatile"))
		lit_next(p);
	return stars;
}

int lit_loc_find(const struct litmus *l, const char *name)
{
	for (int i = 0; i < l->nlocs; i++)
		if (!strcmp(l->loc[i].name, name))
			return i;
	return -1;
}

int lit_loc_add(struct lit_parser *p, const struct lit_token *at,
		const char *name, enum lit_loc_type type)
{
	struct litmus *l = p->l;
	int i = lit_loc_find(l, name);

	if (i >= 0) {
		if (type != LOC_INT)
			l->loc[i].type = type;
		return i;
	}
	if (l->nlocs == LIT_MAX_LOCS)
		lit_fail_at(p, at, "too many locations (at most %d)", LIT_MAX_LOCS);
	i = l->nlocs++;
	snprintf(l->loc[i].name, sizeof(l->loc[i].name), "%s", name);
	l->loc[i].type = type;
	return i;
}

int lit_reg_find(const struct lit_proc *pr, const char *name)
{
	for (int i = 0; i < pr->nregs; i++)
		if (!strcmp(pr->regname[i], name))
			return i;
	return -1;
}

int lit_reg_add(struct lit_parser *p, const struct lit_token *at,
		struct lit_proc *pr, const char *name)
{
	int i = lit_reg_find(pr, name);

	if (i >= 0)
		return i;
	if (pr->nregs == LIT_MAX_REGS)
		lit_fail_at(p, at, "too many registers (at most %d)", LIT_MAX_REGS);
	i = pr->nregs++;
	snprintf(pr->regname[i], sizeof(pr->regname[i]), "%s", name);
	return i;
}

/* Register initialisations of the init block ("0:r1=x;"), applied later. */
struct lit_reginit {
	int proc;
	char name[LIT_NAME];
	struct lit_val v;
	struct lit_token at;
};

/* An initial value: a number, a location (its address), &loc, ATOMIC_INIT(n). */
static struct lit_val init_value(struct lit_parser *p)
{
	struct lit_val v = { 0, 0 };
	int neg = 0;

	if (lit_is(&p->tok, "(")) {	/* a cast: (intptr_t *)1 */
		enum lit_loc_type ty;

		lit_next(p);
		lit_parse_type(p, &ty);
		lit_expect(p, ")");
	}
	if (lit_is(&p->tok, "-")) {
		neg = 1;
		lit_next(p);
	}
	if (lit_is(&p->tok, "&")) {
		lit_next(p);
		if (p->tok.kind != T_IDENT)
			lit_fail_at(p, &p->tok, "expected a location after '&'");
	}
	if (p->tok.kind == T_NUM) {
		v.v = neg ? -p->tok.num : p->tok.num;
	} else if (lit_is_ident(&p->tok, "ATOMIC_INIT")) {
		lit_next(p);
		lit_expect(p, "(");
		v = init_value(p);
		if (!lit_is(&p->tok, ")"))
			lit_fail_at(p, &p->tok, "expected ')'");
	} else if (p->tok.kind == T_IDENT && !neg) {
		v.is_addr = 1;
		v.v = lit_loc_add(p, &p->tok, p->tok.text, LOC_INT);
	} else {
		lit_fail_at(p, &p->tok, "expected an initial value");
	}
	lit_next(p);
	return v;
}

static size_t parse_init(struct lit_parser *p, struct lit_reginit *ri, size_t max)
{
	size_t n = 0;

	/* Lexed after '{': the init block's OCaml comments are comments. */
	p->lx.init = 1;
	lit_expect(p, "{");
	while (!lit_is(&p->tok, "}")) {
		enum lit_loc_type ty = LOC_INT;
		struct lit_token name;
		int proc = -1;

		if (lit_is(&p->tok, ";")) {
			lit_next(p);
			continue;
		}
		if (p->tok.kind == T_EOF)
			lit_fail_at(p, &p->tok, "unterminated init block");
		if (lit_is_type(p, &p->tok))
			lit_parse_type(p, &ty);
		if (p->tok.kind == T_NUM && lit_is(lit_peek(p), ":")) {
			if (p->tok.num >= LIT_MAX_PROCS)
				lit_fail_at(p, &p->tok, "no process P%lld", p->tok.num);
			proc = (int)p->tok.num;
			lit_next(p);
			lit_next(p);
		}
		if (p->tok.kind != T_IDENT)
			lit_fail_at(p, &p->tok, "expected a location or register name");
		if (lit_is(lit_peek(p), "["))
			lit_unsupported(p, lit_peek(p), "array");
		name = p->tok;
		lit_next(p);
		if (proc >= 0) {
			if (n == max)
				lit_fail_at(p, &name, "too many register initialisations");
			ri[n].proc = proc;
			ri[n].at = name;
			snprintf(ri[n].name, sizeof(ri[n].name), "%s", name.text);
			ri[n].v = (struct lit_val){ 0, 0 };
			if (lit_is(&p->tok, "=")) {
				lit_next(p);
				ri[n].v = init_value(p);
			}
			n++;
		} else {
			int i = lit_loc_add(p, &name, name.text, ty);

			if (lit_is(&p->tok, "=")) {
				struct lit_val v;

				lit_next(p);
				v = init_value(p);
				p->l->loc[i].init_kind = v.is_addr;
				p->l->loc[i].init_val = v.v;
			}
		}
		if (!lit_is(&p->tok, "}"))
			lit_expect(p, ";");
	}
	p->lx.init = 0;
	lit_next(p);
	return n;
}

/* "P3" -> 3; -1 if @t is not a process name. */
static int proc_number(const struct lit_token *t)
{
	long n = 0;

	if (t->kind != T_IDENT || t->text[0] != 'P' || !t->text[1])
		return -1;
	for (const char *s = t->text + 1; *s; s++) {
		if (!isdigit((unsigned char)*s) || n > 1000)
			return -1;
		n = n * 10 + (*s - '0');
	}
	return (int)n;
}

static void parse_proc(struct lit_parser *p)
{
	struct litmus *l = p->l;
	int n = proc_number(&p->tok);
	struct lit_proc *pr;

	if (n != l->nprocs)
		lit_fail_at(p, &p->tok, "expected P%d, found %s", l->nprocs,
			    p->tok.text);
	if (n >= LIT_MAX_PROCS)
		lit_fail_at(p, &p->tok, "too many processes (at most %d)",
			    LIT_MAX_PROCS);
	pr = &l->proc[n];
	pr->line = p->tok.line;
	l->nprocs++;
	p->proc = n;
	lit_next(p);
	lit_expect(p, "(");
	while (!lit_is(&p->tok, ")")) {
		enum lit_loc_type ty;
		int loc, reg;

		lit_parse_type(p, &ty);
		if (p->tok.kind != T_IDENT)
			lit_fail_at(p, &p->tok, "expected a parameter name");
		loc = lit_loc_add(p, &p->tok, p->tok.text, ty);
		if (lit_reg_find(pr, p->tok.text) >= 0)
			lit_fail_at(p, &p->tok, "parameter '%s' twice", p->tok.text);
		reg = lit_reg_add(p, &p->tok, pr, p->tok.text);
		pr->reginit[reg] = (struct lit_val){ 1, loc };
		lit_next(p);
		if (!lit_is(&p->tok, ")"))
			lit_expect(p, ",");
	}
	lit_next(p);
	/* Registers the init block sets ("1:r2=x;") exist from the start. */
	for (size_t i = 0; i < p->nri; i++)
		if (p->ri[i].proc == n)
			lit_reg_add(p, &p->ri[i].at, pr, p->ri[i].name);
	if (!lit_is(&p->tok, "{"))
		lit_fail_at(p, &p->tok, "expected '{' to begin P%d's body", n);
	pr->body = lit_parse_block(p);
	p->proc = -1;
}

/* The 1-based line and column of @at in @text. */
static void text_position(const char *text, const char *at, int *line,
			  int *col)
{
	*line = *col = 1;
	for (const char *c = text; c < at; c++, (*col)++)
		if (*c == '\n') {
			(*line)++;
			*col = 0;
		}
}

/*
 * The result words herd7's corpus uses: the three oracles, and those that
 * are none (a test of a flag, a deadlock or an open question).
 */
static const char *const result_words[] = {
	"Never", "Sometimes", "Always", "Maybe", "DEADLOCK", "Flag",
};

/*
 * Where the result text says DATARACE, or is not one of the three.  A
 * first word that is none of result_words is a misspelt oracle: an
 * error, not a test run without one.
 */
static void parse_result(struct lit_parser *p, struct litmus *l,
			 const char *text, const char *s, size_t n)
{
	size_t k = 0, w;
	int known = 0;

	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= 2 && s[n - 2] == '*' && s[n - 1] == ')')	/* (* Result: X *) */
		n -= 2;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	snprintf(l->result, sizeof(l->result), "%.*s", (int)n, s);
	while (k < n && isalpha((unsigned char)s[k]))
		k++;
	for (w = 0; w < sizeof(result_words) / sizeof(result_words[0]); w++)
		known |= strlen(result_words[w]) == k &&
			 !memcmp(s, result_words[w], k);
	if (!known) {
		int line, col;

		text_position(text, s, &line, &col);
		lit_set_error(p, line, col, "");
		snprintf(p->err->msg, sizeof(p->err->msg),
			 "unknown Result '%.*s' (Never, Sometimes or Always; "
			 "Maybe, DEADLOCK or Flag for no oracle)",
			 (int)(k ? k : n > 20 ? 20 : n), s);
		longjmp(p->fail, 1);
	}
	l->datarace = strstr(l->result, "DATARACE") != NULL;
	if (k == 5 && !memcmp(s, "Never", 5) && (k == n || l->datarace))
		l->expect = LIT_EXPECT_NEVER;
	else if (k == 9 && !memcmp(s, "Sometimes", 9) && (k == n || l->datarace))
		l->expect = LIT_EXPECT_SOMETIMES;
	else if (k == 6 && !memcmp(s, "Always", 6) && (k == n || l->datarace))
		l->expect = LIT_EXPECT_ALWAYS;
	else
		l->expect = LIT_EXPECT_OTHER;
}

static void parse_all(struct lit_parser *p, const char *text, size_t len)
{
	struct litmus *l = p->l;
	struct lit_reginit ri[64];
	size_t nri, e = 0, s;

	if (len > LIT_MAX_FILE) {
		lit_set_error(p, 0, 0, "file too large");
		longjmp(p->fail, 1);
	}
	if (memchr(text, '\0', len)) {
		/* Where the first NUL is, as the scenario lexer says it. */
		const char *nul = memchr(text, '\0', len);
		int line, col;

		text_position(text, nul, &line, &col);
		lit_set_error(p, line, col, "not a text file (a NUL byte)");
		longjmp(p->fail, 1);
	}
	/* The first line: "C name"; another architecture is unsupported. */
	while (e < len && text[e] != '\n')
		e++;
	s = 0;
	while (s < e && (text[s] == ' ' || text[s] == '\t'))
		s++;
	if (s == e || text[s] != 'C' || (s + 1 < e && !isspace((unsigned char)text[s + 1]))) {
		size_t w = s;

		while (w < e && !isspace((unsigned char)text[w]))
			w++;
		if (w > s) {
			char arch[32];

			snprintf(arch, sizeof(arch), "%.*s", (int)(w - s), text + s);
			snprintf(p->err->construct, sizeof(p->err->construct),
				 "architecture %s", arch);
			lit_set_error(p, 1, (int)s + 1, "");
			snprintf(p->err->msg, sizeof(p->err->msg),
				 "unsupported architecture '%s': only C litmus tests "
				 "(a first line 'C NAME')", arch);
			longjmp(p->fail, 1);
		}
		lit_set_error(p, 1, 1, "expected 'C NAME' on the first line");
		longjmp(p->fail, 1);
	}
	s++;
	while (s < e && isspace((unsigned char)text[s]))
		s++;
	snprintf(l->name, sizeof(l->name), "%.*s", (int)(e - s), text + s);
	while (l->name[0] && isspace((unsigned char)l->name[strlen(l->name) - 1]))
		l->name[strlen(l->name) - 1] = '\0';
	lit_lex_init(&p->lx, p->lx.name, text, len, e, 1);
	p->lx.col = (int)e + 1;
	lit_next(p);
	/* herd's header lines before the init block: "Prefetch=...". */
	while (p->tok.kind == T_IDENT && lit_is(lit_peek(p), "=")) {
		int line = p->tok.line;

		while (p->lx.pos < p->lx.len && p->lx.text[p->lx.pos] != '\n')
			p->lx.pos++;
		p->has_peek = 0;
		p->lx.line = line;
		lit_next(p);
	}
	if (!lit_is(&p->tok, "{"))
		lit_fail_at(p, &p->tok, "expected the init block '{'");
	nri = parse_init(p, ri, sizeof(ri) / sizeof(ri[0]));
	p->ri = ri;
	p->nri = nri;
	if (proc_number(&p->tok) < 0)
		lit_fail_at(p, &p->tok, "expected P0");
	while (proc_number(&p->tok) >= 0)
		parse_proc(p);
	for (size_t i = 0; i < nri; i++) {
		struct lit_proc *pr;
		int r;

		if (ri[i].proc >= l->nprocs)
			lit_fail_at(p, &ri[i].at, "no process P%d", ri[i].proc);
		pr = &l->proc[ri[i].proc];
		r = lit_reg_add(p, &ri[i].at, pr, ri[i].name);
		pr->reginit[r] = ri[i].v;
	}
	if (p->lx.result)
		parse_result(p, l, text, p->lx.result, p->lx.result_len);
	lit_parse_final(p);
}

struct litmus *litmus_parse(const char *name, const char *text, size_t len,
			    struct lit_error *e)
{
	struct lit_parser *p = calloc(1, sizeof(*p));
	/* volatile: live across setjmp (p->fail) */
	struct litmus *volatile l = calloc(1, sizeof(struct litmus));
	char *file = strdup(name);

	memset(e, 0, sizeof(*e));
	if (!p || !l || !file) {
		snprintf(e->file, sizeof(e->file), "%s", name);
		snprintf(e->msg, sizeof(e->msg), "out of memory");
		free(p);
		free(l);
		free(file);
		return NULL;
	}
	l->file = file;
	p->l = l;
	p->err = e;
	p->proc = -1;
	p->lx.name = l->file;
	p->lx.text = text;
	p->lx.len = len;
	if (setjmp(p->fail)) {
		free(p);
		litmus_free(l);
		return NULL;
	}
	parse_all(p, text, len);
	free(p);
	return l;
}

void litmus_free(struct litmus *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nalloc; i++)
		free(l->alloc[i]);
	free(l->alloc);
	free(l->out);
	free(l->file);
	free(l);
}

char *litmus_read_file(const char *path, size_t *len, struct lit_error *e)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	memset(e, 0, sizeof(*e));
	snprintf(e->file, sizeof(e->file), "%s", path);
	if (!f) {
		snprintf(e->msg, sizeof(e->msg), "cannot open: %s", strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t r;

		if (n == cap) {
			char *b;

			cap = cap ? 2 * cap : 8192;
			if (cap > LIT_MAX_FILE + 1)
				cap = LIT_MAX_FILE + 1;
			if (n == cap) {
				snprintf(e->msg, sizeof(e->msg), "file too large");
				goto fail;
			}
			b = realloc(buf, cap + 1);
			if (!b) {
				snprintf(e->msg, sizeof(e->msg), "out of memory");
				goto fail;
			}
			buf = b;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(e->msg, sizeof(e->msg), "read error: %s", strerror(errno));
		goto fail;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	fclose(f);
	free(buf);
	return NULL;
}

const char *litmus_name(const struct litmus *l) { return l->name; }
int litmus_nprocs(const struct litmus *l) { return l->nprocs; }
enum lit_expect litmus_expect(const struct litmus *l) { return l->expect; }
const char *litmus_result_text(const struct litmus *l) { return l->result; }
int litmus_datarace(const struct litmus *l) { return l->datarace; }
enum lit_quant litmus_quant(const struct litmus *l) { return l->quant; }
const char *litmus_cond_text(const struct litmus *l) { return l->cond_text; }
