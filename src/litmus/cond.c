/* SPDX-License-Identifier: MIT */
/*
 * cond.c - the final clauses: "locations [x; 0:r1;]", "filter P", and the
 * condition "exists P", "~exists P" or "forall P", where P is built from
 * "0:r1=1", "x=2", "1:r1=x" (x's address), "0:r1=1:r2", "x!=0" with
 * "/\", "\/", "~" / "not", parentheses, true and false.
 *
 * Every register and location these mention is recorded in a run's
 * final state (litmus->obs), in order of first mention; the condition is
 * evaluated over that state.
 */
#include "litmus/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int obs_add(struct lit_parser *p, const struct lit_token *at, int is_reg,
		   int proc, int reg, int loc)
{
	struct litmus *l = p->l;

	for (int i = 0; i < l->nobs; i++)
		if (l->obs[i].is_reg == is_reg &&
		    (is_reg ? l->obs[i].proc == proc && l->obs[i].reg == reg
			    : l->obs[i].loc == loc))
			return i;
	if (l->nobs == LIT_MAX_OBS)
		lit_fail_at(p, at, "the condition names too many values (at most %d)",
			    LIT_MAX_OBS);
	l->obs[l->nobs] = (struct lit_obs){ is_reg, proc, reg, loc };
	return l->nobs++;
}

/* "0:r1": a register; fills @o (kind 1). */
static void reg_operand(struct lit_parser *p, struct lit_operand *o)
{
	struct litmus *l = p->l;
	struct lit_token n = p->tok;
	int r;

	if (n.num >= l->nprocs)
		lit_fail_at(p, &n, "no process P%lld", n.num);
	lit_next(p);
	lit_expect(p, ":");
	if (p->tok.kind != T_IDENT)
		lit_fail_at(p, &p->tok, "expected a register name");
	r = lit_reg_find(&l->proc[n.num], p->tok.text);
	if (r < 0)
		lit_fail_at(p, &p->tok, "P%lld has no register '%s'", n.num,
			    p->tok.text);
	o->kind = 1;
	o->proc = (int)n.num;
	o->reg = r;
	o->obs = obs_add(p, &n, 1, o->proc, r, -1);
	lit_next(p);
}

/* The left of '=': a register or a location's value. */
static void lhs(struct lit_parser *p, struct lit_operand *o)
{
	if (p->tok.kind == T_NUM && lit_is(lit_peek(p), ":")) {
		reg_operand(p, o);
	} else if (p->tok.kind == T_IDENT) {
		int loc = lit_loc_find(p->l, p->tok.text);

		if (loc < 0)
			lit_fail_at(p, &p->tok, "unknown location '%s'", p->tok.text);
		o->kind = 2;
		o->loc = loc;
		o->obs = obs_add(p, &p->tok, 0, -1, -1, loc);
		lit_next(p);
	} else {
		lit_fail_at(p, &p->tok, "expected a register (0:r1) or a location");
	}
}

/* The right of '=': a number, a location's address, or a register. */
static void rhs(struct lit_parser *p, struct lit_operand *o)
{
	int neg = 0;

	if (p->tok.kind == T_NUM && lit_is(lit_peek(p), ":")) {
		reg_operand(p, o);
		return;
	}
	if (lit_is(&p->tok, "-")) {
		neg = 1;
		lit_next(p);
	}
	o->kind = 0;
	if (p->tok.kind == T_NUM) {
		o->val = (struct lit_val){ 0, neg ? -p->tok.num : p->tok.num };
	} else if (p->tok.kind == T_IDENT && !neg) {
		int loc = lit_loc_find(p->l, p->tok.text);

		if (loc < 0)
			lit_fail_at(p, &p->tok, "unknown location '%s'", p->tok.text);
		o->val = (struct lit_val){ 1, loc };
	} else {
		lit_fail_at(p, &p->tok, "expected a value");
	}
	lit_next(p);
}

static struct lit_cond *prop(struct lit_parser *p);

static struct lit_cond *cnode(struct lit_parser *p, enum lit_cx kind)
{
	struct lit_cond *c = lit_alloc(p, sizeof(*c));

	c->kind = kind;
	return c;
}

static struct lit_cond *atom(struct lit_parser *p)
{
	struct lit_cond *c;

	if (++p->depth > LIT_MAX_DEPTH)
		lit_fail_at(p, &p->tok, "condition nested too deeply");
	if (lit_is(&p->tok, "~") || lit_is_ident(&p->tok, "not")) {
		lit_next(p);
		c = cnode(p, CX_NOT);
		c->a = atom(p);
	} else if (lit_is(&p->tok, "(")) {
		lit_next(p);
		c = prop(p);
		lit_expect(p, ")");
	} else if (lit_is_ident(&p->tok, "true") || lit_is_ident(&p->tok, "false")) {
		c = cnode(p, lit_is_ident(&p->tok, "true") ? CX_TRUE : CX_FALSE);
		lit_next(p);
	} else {
		c = cnode(p, CX_EQ);
		lhs(p, &c->l);
		if (lit_is(&p->tok, "!="))
			c->kind = CX_NE;
		else if (!lit_is(&p->tok, "=") && !lit_is(&p->tok, "=="))
			lit_fail_at(p, &p->tok, "expected '=' or '!='");
		lit_next(p);
		rhs(p, &c->r);
	}
	p->depth--;
	return c;
}

static struct lit_cond *conjunction(struct lit_parser *p)
{
	struct lit_cond *l = atom(p);

	while (lit_is(&p->tok, "/\\")) {
		struct lit_cond *c = cnode(p, CX_AND);

		lit_next(p);
		c->a = l;
		c->b = atom(p);
		l = c;
	}
	return l;
}

static struct lit_cond *prop(struct lit_parser *p)
{
	struct lit_cond *l = conjunction(p);

	while (lit_is(&p->tok, "\\/")) {
		struct lit_cond *c = cnode(p, CX_OR);

		lit_next(p);
		c->a = l;
		c->b = conjunction(p);
		l = c;
	}
	return l;
}

static void locations(struct lit_parser *p)
{
	lit_next(p);
	lit_expect(p, "[");
	while (!lit_is(&p->tok, "]")) {
		struct lit_operand o;

		if (lit_is(&p->tok, ";")) {
			lit_next(p);
			continue;
		}
		lhs(p, &o);
		if (!lit_is(&p->tok, "]"))
			lit_expect(p, ";");
	}
	lit_next(p);
}

/* The condition's text, from @from to @to, blanks squeezed. */
static void cond_text(struct lit_parser *p, size_t from, size_t to)
{
	char *s = lit_alloc(p, to - from + 1);
	size_t n = 0;
	int blank = 0;

	for (size_t i = from; i < to; i++) {
		char c = p->lx.text[i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			blank = 1;
			continue;
		}
		if (blank && n)
			s[n++] = ' ';
		blank = 0;
		s[n++] = c;
	}
	s[n] = '\0';
	p->l->cond_text = s;
}

void lit_parse_final(struct lit_parser *p)
{
	struct litmus *l = p->l;
	int have = 0;

	for (;;) {
		struct lit_token t = p->tok;

		if (lit_is_ident(&t, "locations")) {
			locations(p);
		} else if (lit_is_ident(&t, "filter")) {
			if (l->filter)
				lit_fail_at(p, &t, "a second filter");
			lit_next(p);
			l->filter = prop(p);
		} else if (!have && (lit_is_ident(&t, "exists") ||
				     lit_is_ident(&t, "forall") ||
				     (lit_is(&t, "~") &&
				      lit_is_ident(lit_peek(p), "exists")))) {
			size_t from = t.off, to;

			l->quant = lit_is(&t, "~") ? LIT_Q_NOT_EXISTS :
				   lit_is_ident(&t, "forall") ? LIT_Q_FORALL :
				   LIT_Q_EXISTS;
			if (l->quant == LIT_Q_NOT_EXISTS)
				lit_next(p);
			lit_next(p);
			l->cond = prop(p);
			to = p->last_end;
			cond_text(p, from, to);
			have = 1;
		} else if (lit_is(&t, ";") && have) {
			lit_next(p);
		} else if (t.kind == T_EOF) {
			break;
		} else if (lit_is_ident(&t, "observed") || lit_is_ident(&t, "cases")) {
			lit_unsupported(p, &t, "condition kind");
		} else if (t.kind == T_IDENT && lit_is(lit_peek(p), "(") && !have) {
			char what[LIT_NAME + 16];

			snprintf(what, sizeof(what), "top-level %s", t.text);
			lit_unsupported(p, &t, what);
		} else {
			lit_fail_at(p, &t, have ? "unexpected '%s' after the condition"
				    : "expected exists, ~exists, forall, filter or "
				      "locations; found '%s'", t.text);
		}
	}
	if (!have)
		lit_fail_at(p, &p->tok, "no condition (exists, ~exists or forall)");
}

int lit_val_cmp(const struct lit_val *a, const struct lit_val *b)
{
	if (a->is_addr != b->is_addr)
		return a->is_addr < b->is_addr ? -1 : 1;
	return a->v < b->v ? -1 : a->v > b->v;
}

static const struct lit_val *operand(const struct lit_operand *o,
				     const struct lit_val *state)
{
	return o->kind == 0 ? &o->val : &state[o->obs];
}

int lit_cond_eval(const struct lit_cond *c, const struct lit_val *state)
{
	switch (c->kind) {
	case CX_TRUE:
		return 1;
	case CX_FALSE:
		return 0;
	case CX_EQ:
		return !lit_val_cmp(operand(&c->l, state), operand(&c->r, state));
	case CX_NE:
		return !!lit_val_cmp(operand(&c->l, state), operand(&c->r, state));
	case CX_AND:
		return lit_cond_eval(c->a, state) && lit_cond_eval(c->b, state);
	case CX_OR:
		return lit_cond_eval(c->a, state) || lit_cond_eval(c->b, state);
	case CX_NOT:
		return !lit_cond_eval(c->a, state);
	}
	return 0;
}

void lit_val_text(const struct litmus *l, const struct lit_val *v, char *buf,
		  size_t len)
{
	if (v->is_addr)
		snprintf(buf, len, "%s", l->loc[v->v].name);
	else
		snprintf(buf, len, "%lld", v->v);
}
