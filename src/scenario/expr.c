/* SPDX-License-Identifier: MIT */
/*
 * expr.c - conditions of asserts and outcomes: parsing and types.
 *
 *	cond    := and { "||" and }
 *	and     := unary { "&&" unary }
 *	unary   := "!" unary | "(" cond ")" | operand [ CMP operand ]
 *	operand := NUMBER | null | CPU ":" rN | rN | NAME | MAP "[" INDEX "]"
 *		 | FUNC "(" operand ")" | nrpages "(" MAP ")" | nr_free
 *	FUNC    := count | index | cached | dirty | locked | uptodate | free
 *
 * Pages compare with == and != only (identity; null is no page); numbers
 * with all six.  A gang register reads as the number of pages it holds.  A
 * bare operand must be a number and is true when not 0.
 */
#include "scenario/parse.h"

#include <stdio.h>
#include <string.h>

static const char *const funcs[] = {
	[SCN_F_COUNT] = "count", [SCN_F_INDEX] = "index",
	[SCN_F_CACHED] = "cached", [SCN_F_DIRTY] = "dirty",
	[SCN_F_LOCKED] = "locked", [SCN_F_UPTODATE] = "uptodate",
	[SCN_F_FREE] = "free",
};
#define NFUNCS (sizeof(funcs) / sizeof(funcs[0]))

static int new_expr(struct parser *p, enum scn_expr_kind kind, int line, int col)
{
	struct scenario *s = p->s;
	struct scn_expr *e;

	if (s->nexpr >= s->expr_cap)
		scn_fail_at(p, line, col, "condition too large (at most %d terms in a file)",
			    s->expr_cap);
	e = &s->expr[s->nexpr];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->a = e->b = -1;
	e->cpu = -1;
	e->name = -1;
	e->line = line;
	e->col = col;
	return s->nexpr++;
}

static int parse_index_in_brackets(struct parser *p, unsigned long *out)
{
	char f[64];

	if (p->tok.kind != SCN_TK_LBRACK)
		scn_fail(p, "expected '[' after the mapping, found %s",
			 scn_found(p, f, sizeof(f)));
	scn_advance(p);
	if (p->tok.kind != SCN_TK_NUM || p->tok.num < 0 ||
	    p->tok.num > SCN_MAX_INDEX)
		scn_fail(p, "expected an index from 0 to %d, found %s",
			 SCN_MAX_INDEX, scn_found(p, f, sizeof(f)));
	*out = (unsigned long)p->tok.num;
	scn_advance(p);
	if (p->tok.kind != SCN_TK_RBRACK)
		scn_fail(p, "expected ']', found %s", scn_found(p, f, sizeof(f)));
	scn_advance(p);
	return 0;
}

static int parse_operand(struct parser *p, struct scn_body *body)
{
	struct scn_token t = p->tok;
	char f[64];
	int e, r;

	if (t.kind == SCN_TK_NUM) {
		scn_advance(p);
		if (p->tok.kind == SCN_TK_COLON) {
			/* CPU:rN */
			scn_advance(p);
			if (body)
				scn_fail_at(p, t.line, t.col,
					    "a body names its own registers without a CPU: write 'rN'");
			if (p->tok.kind != SCN_TK_IDENT ||
			    (r = scn_reg_index(p, p->tok.text)) < 0)
				scn_fail(p, "expected a register after '%lld:', found %s",
					 t.num, scn_found(p, f, sizeof(f)));
			if (t.num < 0 || t.num >= SCN_MAX_CPUS)
				scn_fail_at(p, t.line, t.col, "no cpu %lld (cpus are 0 to %d)",
					    t.num, SCN_MAX_CPUS - 1);
			e = new_expr(p, SCN_E_REG, t.line, t.col);
			p->s->expr[e].cpu = (int)t.num;
			p->s->expr[e].reg = r;
			scn_advance(p);
			return e;
		}
		e = new_expr(p, SCN_E_INT, t.line, t.col);
		p->s->expr[e].i = t.num;
		return e;
	}
	if (t.kind != SCN_TK_IDENT)
		scn_fail(p, "expected a value (number, null, register, name, m0[INDEX], "
			 "count(...), ...), found %s", scn_found(p, f, sizeof(f)));
	if (!strcmp(t.text, "null")) {
		scn_advance(p);
		return new_expr(p, SCN_E_NULL, t.line, t.col);
	}
	if (!strcmp(t.text, "nr_free")) {
		scn_advance(p);
		return new_expr(p, SCN_E_NRFREE, t.line, t.col);
	}
	if (!strcmp(t.text, "nrpages")) {
		scn_advance(p);
		if (p->tok.kind != SCN_TK_LPAREN)
			scn_fail(p, "expected '(' after nrpages, found %s",
				 scn_found(p, f, sizeof(f)));
		scn_advance(p);
		e = new_expr(p, SCN_E_NRPAGES, t.line, t.col);
		p->s->expr[e].mapping_id = scn_parse_mapping(p);
		if (p->tok.kind != SCN_TK_RPAREN)
			scn_fail(p, "expected ')', found %s", scn_found(p, f, sizeof(f)));
		scn_advance(p);
		return e;
	}
	for (size_t i = 0; i < NFUNCS; i++) {
		if (strcmp(t.text, funcs[i]))
			continue;
		scn_advance(p);
		if (p->tok.kind != SCN_TK_LPAREN)
			scn_fail(p, "expected '(' after %s, found %s", funcs[i],
				 scn_found(p, f, sizeof(f)));
		scn_advance(p);
		e = new_expr(p, SCN_E_FUNC, t.line, t.col);
		p->s->expr[e].i = (long long)i;
		if (++p->depth > SCN_MAX_EXPR_DEPTH)
			scn_fail(p, "condition nested too deeply");
		r = parse_operand(p, body);
		p->depth--;
		p->s->expr[e].a = r;
		if (p->tok.kind != SCN_TK_RPAREN)
			scn_fail(p, "expected ')', found %s", scn_found(p, f, sizeof(f)));
		scn_advance(p);
		return e;
	}
	if ((r = scn_reg_index(p, t.text)) >= 0) {
		if (!body)
			scn_fail(p, "which CPU's %s? In an outcome write 'CPU:%s', e.g. '0:%s'",
				 t.text, t.text, t.text);
		scn_advance(p);
		e = new_expr(p, SCN_E_REG, t.line, t.col);
		p->s->expr[e].reg = r;
		return e;
	}
	if ((r = scn_name_index(p->s, t.text)) >= 0) {
		scn_advance(p);
		e = new_expr(p, SCN_E_NAME, t.line, t.col);
		p->s->expr[e].name = r;
		return e;
	}
	if ((t.text[0] == 'm' && t.text[1] >= '0' && t.text[1] <= '3' && !t.text[2]) ||
	    !strcmp(t.text, "swap")) {
		int m = scn_parse_mapping(p);
		unsigned long idx;

		parse_index_in_brackets(p, &idx);
		e = new_expr(p, SCN_E_SLOT, t.line, t.col);
		p->s->expr[e].mapping_id = m;
		p->s->expr[e].index = idx;
		return e;
	}
	{
		const char *cand[NFUNCS + SCN_MAX_NAMES + 3];
		const char *near;
		size_t n = 0;

		for (size_t i = 0; i < NFUNCS; i++)
			cand[n++] = funcs[i];
		cand[n++] = "null";
		cand[n++] = "nrpages";
		cand[n++] = "nr_free";
		for (int i = 0; i < p->s->nnames; i++)
			cand[n++] = p->s->names[i];
		near = scn_nearest(t.text, cand, n);
		if (near)
			scn_fail(p, "unknown name '%s' in a condition (did you mean '%s'?)",
				 t.text, near);
		scn_fail(p, "unknown name '%s' in a condition", t.text);
	}
}

static int cmp_of(enum scn_tok k)
{
	switch (k) {
	case SCN_TK_EQ: return SCN_EQ;
	case SCN_TK_NE: return SCN_NE;
	case SCN_TK_LT: return SCN_LT;
	case SCN_TK_LE: return SCN_LE;
	case SCN_TK_GT: return SCN_GT;
	case SCN_TK_GE: return SCN_GE;
	default: return -1;
	}
}

static int parse_or(struct parser *p, struct scn_body *body);

static int parse_unary(struct parser *p, struct scn_body *body)
{
	struct scn_token t = p->tok;
	char f[64];
	int e, a, op;

	if (++p->depth > SCN_MAX_EXPR_DEPTH)
		scn_fail(p, "condition nested too deeply (at most %d levels)",
			 SCN_MAX_EXPR_DEPTH);
	if (t.kind == SCN_TK_NOT) {
		scn_advance(p);
		a = parse_unary(p, body);
		e = new_expr(p, SCN_E_NOT, t.line, t.col);
		p->s->expr[e].a = a;
	} else if (t.kind == SCN_TK_LPAREN) {
		scn_advance(p);
		e = parse_or(p, body);
		if (p->tok.kind != SCN_TK_RPAREN)
			scn_fail(p, "expected ')', found %s", scn_found(p, f, sizeof(f)));
		scn_advance(p);
	} else {
		a = parse_operand(p, body);
		op = cmp_of(p->tok.kind);
		if (op < 0) {
			e = a;
		} else {
			struct scn_token o = p->tok;

			scn_advance(p);
			e = new_expr(p, SCN_E_CMP, o.line, o.col);
			p->s->expr[e].i = op;
			p->s->expr[e].a = a;
			p->s->expr[e].b = parse_operand(p, body);
		}
	}
	p->depth--;
	return e;
}

static int parse_and(struct parser *p, struct scn_body *body)
{
	int e = parse_unary(p, body);

	while (p->tok.kind == SCN_TK_AND) {
		struct scn_token o = p->tok;
		int n;

		scn_advance(p);
		n = new_expr(p, SCN_E_AND, o.line, o.col);
		p->s->expr[n].a = e;
		p->s->expr[n].b = parse_unary(p, body);
		e = n;
	}
	return e;
}

static int parse_or(struct parser *p, struct scn_body *body)
{
	int e = parse_and(p, body);

	while (p->tok.kind == SCN_TK_OR) {
		struct scn_token o = p->tok;
		int n;

		scn_advance(p);
		n = new_expr(p, SCN_E_OR, o.line, o.col);
		p->s->expr[n].a = e;
		p->s->expr[n].b = parse_and(p, body);
		e = n;
	}
	return e;
}

int scn_parse_cond(struct parser *p, struct scn_body *body)
{
	p->depth = 0;
	return parse_or(p, body);
}

/* The type of node @i: SCN_T_INT or SCN_T_PAGE (a gang reads as INT). */
static enum scn_type type_of(struct parser *p, int i, struct scn_body *body,
			     int depth)
{
	struct scn_expr *e = &p->s->expr[i];
	enum scn_type ta, tb;
	struct scn_body *b;

	if (depth > 2 * SCN_MAX_EXPR_DEPTH + 4)
		scn_fail_at(p, e->line, e->col, "condition nested too deeply");
	switch (e->kind) {
	case SCN_E_INT:
	case SCN_E_NRPAGES:
	case SCN_E_NRFREE:
		return e->type = SCN_T_INT;
	case SCN_E_NULL:
	case SCN_E_NAME:
	case SCN_E_SLOT:
		return e->type = SCN_T_PAGE;
	case SCN_E_REG:
		b = body;
		if (!b) {
			if (e->cpu < 0 || e->cpu >= p->s->nr_cpus)
				scn_fail_at(p, e->line, e->col,
					    "no cpu %d in this scenario (it has %d)",
					    e->cpu, p->s->nr_cpus);
			b = &p->s->cpu[e->cpu];
		}
		ta = b->regtype[e->reg];
		if (ta == SCN_T_NONE)
			scn_fail_at(p, e->line, e->col,
				    "%s never sets r%d%s", b->name, e->reg,
				    body ? " before this line" : "");
		return e->type = (ta == SCN_T_PAGE ? SCN_T_PAGE : SCN_T_INT);
	case SCN_E_FUNC:
		if (type_of(p, e->a, body, depth + 1) != SCN_T_PAGE)
			scn_fail_at(p, e->line, e->col, "%s() takes a page",
				    funcs[e->i]);
		return e->type = SCN_T_INT;
	case SCN_E_NOT:
		if (type_of(p, e->a, body, depth + 1) != SCN_T_INT)
			scn_fail_at(p, e->line, e->col,
				    "'!' needs a condition, not a page (compare it with null)");
		return e->type = SCN_T_INT;
	case SCN_E_AND:
	case SCN_E_OR:
		if (type_of(p, e->a, body, depth + 1) != SCN_T_INT ||
		    type_of(p, e->b, body, depth + 1) != SCN_T_INT)
			scn_fail_at(p, e->line, e->col,
				    "'%s' joins conditions, not pages (compare pages with == or !=)",
				    e->kind == SCN_E_AND ? "&&" : "||");
		return e->type = SCN_T_INT;
	case SCN_E_CMP:
		ta = type_of(p, e->a, body, depth + 1);
		tb = type_of(p, e->b, body, depth + 1);
		if (ta != tb)
			scn_fail_at(p, e->line, e->col,
				    "cannot compare a %s with a %s", scn_type_name(ta),
				    scn_type_name(tb));
		if (ta == SCN_T_PAGE && e->i != SCN_EQ && e->i != SCN_NE)
			scn_fail_at(p, e->line, e->col,
				    "pages compare with == and != only");
		return e->type = SCN_T_INT;
	}
	return SCN_T_INT;
}

void scn_check_cond(struct parser *p, int root, struct scn_body *body)
{
	struct scn_expr *e = &p->s->expr[root];

	if (type_of(p, root, body, 0) != SCN_T_INT)
		scn_fail_at(p, e->line, e->col,
			    "a condition must be true or false: compare the page (== null, != null, == m0[3])");
}
