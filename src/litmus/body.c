/* SPDX-License-Identifier: MIT */
/*
 * body.c - a process body: declarations, assignments, if/else, blocks,
 * and C expressions over registers, locations and kernel primitives.
 *
 * Registers are the process's local variables and parameters (a
 * parameter holds its location's address).  A location argument of
 * READ_ONCE and its kin is written as an lvalue, "*x" or "*(int **)r1":
 * the parser keeps the pointer expression inside, so every primitive
 * takes the address it acts on as a plain value.
 */
#include "litmus/internal.h"

#include <stdio.h>
#include <string.h>

static struct lit_expr *expr(struct lit_parser *p);
static struct lit_stmt *stmt(struct lit_parser *p);

static struct lit_expr *node(struct lit_parser *p, enum lit_ex kind,
			     const struct lit_token *at)
{
	struct lit_expr *e = lit_alloc(p, sizeof(*e));

	e->kind = kind;
	e->line = at->line;
	e->col = at->col;
	return e;
}

static void deeper(struct lit_parser *p)
{
	if (++p->depth > LIT_MAX_DEPTH)
		lit_fail_at(p, &p->tok, "nested too deeply (at most %d)",
			    LIT_MAX_DEPTH);
}

/* Operator codes: the punctuation's text packed in an int. */
static int opcode(const char *s)
{
	return (unsigned char)s[0] | ((unsigned char)(s[0] ? s[1] : 0) << 8);
}

/* An lvalue argument (*e, or a location's name) as the address it names. */
static struct lit_expr *address_of(struct lit_parser *p, struct lit_expr *e,
				   const struct lit_token *at)
{
	if (e->kind == EX_DEREF)
		return e->a;
	if (e->kind == EX_LOC)
		return e;
	lit_fail_at(p, at, "expected a location, '*pointer'");
}

static struct lit_expr *call(struct lit_parser *p)
{
	struct lit_token name = p->tok;
	const struct lit_prim *pr = lit_prim_find(name.text);
	struct lit_expr *e;

	if (!pr) {
		char what[LIT_NAME + 16];

		snprintf(what, sizeof(what), "primitive %s", name.text);
		lit_unsupported(p, &name, what);
	}
	e = node(p, EX_CALL, &name);
	e->idx = pr->code;
	e->op = pr->lk;
	lit_next(p);
	lit_expect(p, "(");
	while (!lit_is(&p->tok, ")")) {
		struct lit_token at = p->tok;
		struct lit_expr *a;

		if (e->nargs == LIT_MAX_ARGS)
			lit_fail_at(p, &at, "too many arguments");
		a = expr(p);
		if (e->nargs == 0 && pr->lvalue)
			a = address_of(p, a, &at);
		e->args[e->nargs++] = a;
		if (!lit_is(&p->tok, ")"))
			lit_expect(p, ",");
	}
	if (e->nargs != pr->nargs)
		lit_fail_at(p, &name, "%s takes %d argument%s, not %d", name.text,
			    pr->nargs, pr->nargs == 1 ? "" : "s", e->nargs);
	lit_next(p);
	return e;
}

static struct lit_expr *primary(struct lit_parser *p)
{
	struct lit_token t = p->tok;
	struct lit_proc *pr = &p->l->proc[p->proc];
	struct lit_expr *e;
	int i;

	if (t.kind == T_NUM) {
		e = node(p, EX_NUM, &t);
		e->num = t.num;
		lit_next(p);
		return e;
	}
	if (lit_is(&t, "(")) {
		lit_next(p);
		e = expr(p);
		lit_expect(p, ")");
		return e;
	}
	if (t.kind != T_IDENT) {
		if (t.kind == T_EOF)
			lit_fail_at(p, &t, "expected an expression, found end of file");
		lit_fail_at(p, &t, "expected an expression, found '%s'", t.text);
	}
	if (lit_is(lit_peek(p), "("))
		return call(p);
	if (!strcmp(t.text, "NULL") || !strcmp(t.text, "false") ||
	    !strcmp(t.text, "true")) {
		e = node(p, EX_NUM, &t);
		e->num = !strcmp(t.text, "true");
		lit_next(p);
		return e;
	}
	i = lit_reg_find(pr, t.text);
	if (i >= 0) {
		e = node(p, EX_REG, &t);
		e->idx = i;
	} else if ((i = lit_loc_find(p->l, t.text)) >= 0) {
		e = node(p, EX_LOC, &t);
		e->idx = i;
	} else if (lit_is(lit_peek(p), "=")) {
		/* An undeclared register, set before use (older tests). */
		e = node(p, EX_REG, &t);
		e->idx = lit_reg_add(p, &t, pr, t.text);
	} else {
		lit_fail_at(p, &t, "unknown name '%s' (not a register of P%d "
			    "or a location)", t.text, p->proc);
	}
	lit_next(p);
	if (lit_is(&p->tok, "->") || lit_is(&p->tok, ".") || lit_is(&p->tok, "["))
		lit_unsupported(p, &p->tok, lit_is(&p->tok, "[") ?
				"array subscript" : "struct member");
	if (lit_is(&p->tok, "++") || lit_is(&p->tok, "--"))
		lit_unsupported(p, &p->tok, "increment operator");
	return e;
}

static struct lit_expr *unary(struct lit_parser *p)
{
	struct lit_token t = p->tok;
	struct lit_expr *e;

	deeper(p);
	if (lit_is(&t, "(") && lit_is_type(p, lit_peek(p))) {
		enum lit_loc_type ty;

		/* A cast changes nothing: every value is an intptr_t. */
		lit_next(p);
		lit_parse_type(p, &ty);
		lit_expect(p, ")");
		e = unary(p);
	} else if (lit_is(&t, "-") || lit_is(&t, "!") || lit_is(&t, "~")) {
		lit_next(p);
		e = node(p, EX_UN, &t);
		e->op = opcode(t.text);
		e->a = unary(p);
	} else if (lit_is(&t, "+")) {
		lit_next(p);
		e = unary(p);
	} else if (lit_is(&t, "*")) {
		lit_next(p);
		e = node(p, EX_DEREF, &t);
		e->a = unary(p);
	} else if (lit_is(&t, "&")) {
		struct lit_expr *a;

		lit_next(p);
		a = unary(p);
		if (a->kind == EX_DEREF)
			e = a->a;
		else if (a->kind == EX_LOC)
			e = a;
		else
			lit_fail_at(p, &t, "'&' of something not a location");
	} else if (lit_is(&t, "++") || lit_is(&t, "--")) {
		lit_unsupported(p, &t, "increment operator");
	} else if (lit_is_ident(&t, "sizeof")) {
		lit_unsupported(p, &t, "sizeof");
	} else {
		e = primary(p);
	}
	p->depth--;
	return e;
}

static int prec(const struct lit_token *t)
{
	static const struct { const char *op; int prec; } tab[] = {
		{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 },
		{ "==", 6 }, { "!=", 6 }, { "<", 7 }, { "<=", 7 }, { ">", 7 },
		{ ">=", 7 }, { "<<", 8 }, { ">>", 8 }, { "+", 9 }, { "-", 9 },
		{ "*", 10 }, { "/", 10 }, { "%", 10 },
	};

	if (t->kind != T_PUNCT)
		return 0;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(t->text, tab[i].op))
			return tab[i].prec;
	return 0;
}

static struct lit_expr *binary(struct lit_parser *p, int min)
{
	struct lit_expr *l = unary(p);

	for (;;) {
		struct lit_token t = p->tok;
		int pr = prec(&t);
		struct lit_expr *e;

		if (!pr || pr < min)
			return l;
		lit_next(p);
		deeper(p);
		e = node(p, EX_BIN, &t);
		e->op = opcode(t.text);
		e->a = l;
		e->b = binary(p, pr + 1);
		p->depth--;
		l = e;
	}
}

static struct lit_expr *expr(struct lit_parser *p)
{
	struct lit_token start = p->tok;
	struct lit_expr *l;

	deeper(p);
	l = binary(p, 1);
	if (lit_is(&p->tok, "?")) {
		struct lit_expr *e = node(p, EX_COND, &p->tok);

		lit_next(p);
		e->a = l;
		e->b = expr(p);
		lit_expect(p, ":");
		e->c = expr(p);
		l = e;
	} else if (lit_is(&p->tok, "=") || lit_is(&p->tok, "+=") ||
		   lit_is(&p->tok, "-=")) {
		struct lit_token t = p->tok;
		struct lit_expr *e;

		if (l->kind != EX_REG && l->kind != EX_DEREF && l->kind != EX_LOC)
			lit_fail_at(p, &start, "cannot assign to this expression");
		if (l->kind == EX_LOC)
			lit_fail_at(p, &start, "assigning to location '%s' "
				    "directly: write '*%s = ...' or WRITE_ONCE",
				    p->l->loc[l->idx].name, p->l->loc[l->idx].name);
		lit_next(p);
		e = node(p, EX_ASSIGN, &t);
		e->a = l;
		e->b = expr(p);
		if (!lit_is(&t, "=")) {
			/* r += v: r = r + v (a register; or *p = *p + v, two accesses) */
			struct lit_expr *b = node(p, EX_BIN, &t);

			b->op = opcode(lit_is(&t, "+=") ? "+" : "-");
			b->a = l;
			b->b = e->b;
			e->b = b;
		}
		l = e;
	}
	p->depth--;
	return l;
}

static struct lit_stmt *snode(struct lit_parser *p, enum lit_st kind)
{
	struct lit_stmt *s = lit_alloc(p, sizeof(*s));

	s->kind = kind;
	return s;
}

/* "int r1 = e, *r2;": assignments of the initialisers, in order. */
static struct lit_stmt *declaration(struct lit_parser *p)
{
	struct lit_proc *pr = &p->l->proc[p->proc];
	struct lit_stmt *blk = snode(p, ST_BLOCK), *items[16];
	enum lit_loc_type ty;

	lit_parse_type(p, &ty);
	for (;;) {
		struct lit_token name;
		int r;

		while (lit_is(&p->tok, "*"))
			lit_next(p);
		if (p->tok.kind != T_IDENT)
			lit_fail_at(p, &p->tok, "expected a register name");
		name = p->tok;
		if (lit_reg_find(pr, name.text) >= 0 &&
		    pr->reginit[lit_reg_find(pr, name.text)].is_addr)
			lit_fail_at(p, &name, "'%s' is a parameter of P%d",
				    name.text, p->proc);
		r = lit_reg_add(p, &name, pr, name.text);
		lit_next(p);
		if (lit_is(&p->tok, "["))
			lit_unsupported(p, &p->tok, "array");
		if (lit_is(&p->tok, "=")) {
			struct lit_token eq = p->tok;
			struct lit_stmt *s = snode(p, ST_EXPR);
			struct lit_expr *e = node(p, EX_ASSIGN, &eq), *reg;

			lit_next(p);
			reg = node(p, EX_REG, &name);
			reg->idx = r;
			e->a = reg;
			e->b = expr(p);
			s->e = e;
			if (blk->n == (int)(sizeof(items) / sizeof(items[0])))
				lit_fail_at(p, &name, "too many declarators");
			items[blk->n++] = s;
		}
		if (!lit_is(&p->tok, ","))
			break;
		lit_next(p);
	}
	lit_expect(p, ";");
	blk->body = lit_alloc(p, (size_t)(blk->n ? blk->n : 1) * sizeof(*blk->body));
	memcpy(blk->body, items, (size_t)blk->n * sizeof(*items));
	return blk;
}

static struct lit_stmt *stmt(struct lit_parser *p)
{
	struct lit_token t = p->tok;
	struct lit_stmt *s;

	deeper(p);
	if (lit_is(&t, "{")) {
		s = lit_parse_block(p);
	} else if (lit_is(&t, ";")) {
		lit_next(p);
		s = snode(p, ST_NOP);
	} else if (lit_is_ident(&t, "if")) {
		s = snode(p, ST_IF);
		lit_next(p);
		lit_expect(p, "(");
		s->e = expr(p);
		lit_expect(p, ")");
		s->then = stmt(p);
		if (lit_is_ident(&p->tok, "else")) {
			lit_next(p);
			s->els = stmt(p);
		}
	} else if (lit_is_ident(&t, "while") || lit_is_ident(&t, "for") ||
		   lit_is_ident(&t, "do")) {
		lit_unsupported(p, &t, "loop");
	} else if (lit_is_ident(&t, "return") || lit_is_ident(&t, "goto") ||
		   lit_is_ident(&t, "switch") || lit_is_ident(&t, "break") ||
		   lit_is_ident(&t, "continue")) {
		char what[LIT_NAME + 16];

		snprintf(what, sizeof(what), "statement '%s'", t.text);
		lit_unsupported(p, &t, what);
	} else if (lit_is_type(p, &t) && !lit_is(lit_peek(p), "(")) {
		s = declaration(p);
	} else {
		s = snode(p, ST_EXPR);
		s->e = expr(p);
		lit_expect(p, ";");
	}
	p->depth--;
	return s;
}

struct lit_stmt *lit_parse_block(struct lit_parser *p)
{
	struct lit_stmt *b = snode(p, ST_BLOCK);
	struct lit_stmt **items = NULL;
	int cap = 0;

	lit_expect(p, "{");
	while (!lit_is(&p->tok, "}")) {
		struct lit_stmt *s;
		int k;

		if (p->tok.kind == T_EOF)
			lit_fail_at(p, &p->tok, "unterminated block: expected '}'");
		/*
		 * A nested block (a declaration's initialisers, "{ ... }") is
		 * spliced in: registers have no scopes, so nothing changes,
		 * and a body is one straight list of statements, which the
		 * load-buffering rules (reorder.c) scan.
		 */
		s = stmt(p);
		k = s->kind == ST_BLOCK ? s->n : 1;
		if (b->n + k > cap) {
			struct lit_stmt **n;

			cap = cap ? 2 * cap : 8;
			while (b->n + k > cap)
				cap *= 2;
			n = lit_alloc(p, (size_t)cap * sizeof(*n));
			if (b->n)
				memcpy(n, items, (size_t)b->n * sizeof(*n));
			items = n;
		}
		if (s->kind == ST_BLOCK) {
			if (k)
				memcpy(items + b->n, s->body, (size_t)k * sizeof(*items));
			b->n += k;
		} else {
			items[b->n++] = s;
		}
	}
	lit_next(p);
	b->body = items;
	return b;
}
