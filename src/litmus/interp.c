/* SPDX-License-Identifier: MIT */
/*
 * interp.c - a litmus test as a pr_program: setup lays out the locations
 * (one cell each, in declaration order) and spawns P0..Pn-1 as contexts
 * "P0".."Pn-1"; each runs its body by walking the syntax tree, with its
 * registers in a small array; finish reads the final state and records
 * it (outcome.c).
 *
 * Only the kernel primitives (prims.c) and plain "*p" accesses touch
 * shared memory, each through kernel/'s yield points; register
 * arithmetic is local and invisible to the scheduler, as on a CPU.
 * One test runs at a time in a process: the cells and registers are
 * static, so their addresses are fixed for the process's life.
 */
#include "litmus/internal.h"
#include "litmus/cell.h"

#include <stdio.h>
#include <string.h>

static struct lit_cell cells[LIT_MAX_LOCS];
static intptr_t regs[LIT_MAX_PROCS][LIT_MAX_REGS];
/*
 * Under weak (memory/stale.c), address dependencies: the memory time of
 * the newest value each register's value was computed from, and of the
 * expression being evaluated (lit_dep_*).  An access whose address was
 * computed from loaded values reads nothing older than they (LKMM's
 * addr dependency; stronger: it also orders the CPU's later loads).
 * Control and data dependencies are reorder.c's: a store performed
 * before an earlier load never sits inside an if or reads a register
 * that load (or anything between) set.
 */
static uint32_t rtime[LIT_MAX_PROCS][LIT_MAX_REGS];
static uint32_t acc[LIT_MAX_PROCS];
/* The goal search (litmus.h, litmus_goal). */
int lit_goal_on;
uint8_t lit_cut[LIT_MAX_PROCS];

/* The process each context runs (-1: none, e.g. the RCU daemon). */
static int8_t proc_of[PR_MAX_CTX];

int lit_proc_of_ctx(int ctx)
{
	return ctx >= 0 && ctx < PR_MAX_CTX ? proc_of[ctx] : -1;
}

uint32_t lit_dep_begin(int proc)
{
	uint32_t saved = acc[proc];

	acc[proc] = 0;
	return saved;
}

uint32_t lit_reg_time(int proc, int r)
{
	return rtime[proc][r];
}

void lit_dep_restore(int proc, uint32_t saved)
{
	acc[proc] = saved;
}

uint32_t lit_dep_end(int proc, uint32_t saved)
{
	uint32_t t = acc[proc];

	acc[proc] = saved > t ? saved : t;
	return t;
}

void lit_dep_value(int proc, uint32_t t)
{
	if (t > acc[proc])
		acc[proc] = t;
}

struct lit_cell *lit_cell_of(struct litmus *l, int proc, intptr_t addr)
{
	uintptr_t base = (uintptr_t)cells, a = (uintptr_t)addr;

	if (a >= base && a < base + (uintptr_t)l->nlocs * sizeof(cells[0]) &&
	    (a - base) % sizeof(cells[0]) == 0)
		return &cells[(a - base) / sizeof(cells[0])];
	pr_fail("litmus-bad-pointer", NULL,
		"P%d used %lld as a pointer: it is not a location's address",
		proc, (long long)addr);
}

struct lit_cell *lit_cell_at(const struct litmus *l, intptr_t addr)
{
	uintptr_t base = (uintptr_t)cells, a = (uintptr_t)addr;

	if (a >= base && a < base + (uintptr_t)l->nlocs * sizeof(cells[0]) &&
	    (a - base) % sizeof(cells[0]) == 0)
		return &cells[(a - base) / sizeof(cells[0])];
	return NULL;
}

int lit_is_location(const struct litmus *l, intptr_t addr)
{
	uintptr_t base = (uintptr_t)cells, a = (uintptr_t)addr;

	return a >= base && a < base + (uintptr_t)l->nlocs * sizeof(cells[0]) &&
	       (a - base) % sizeof(cells[0]) == 0;
}

static intptr_t address(int loc)
{
	return (intptr_t)&cells[loc].v;
}

/* A value as a final state records it: a location's address by name. */
static struct lit_val canonical(const struct litmus *l, intptr_t v)
{
	for (int i = 0; i < l->nlocs; i++)
		if (v == address(i))
			return (struct lit_val){ 1, i };
	return (struct lit_val){ 0, (long long)v };
}

static intptr_t initial(const struct lit_val *v)
{
	return v->is_addr ? address((int)v->v) : (intptr_t)v->v;
}

intptr_t lit_val_value(const struct lit_val *v)
{
	return initial(v);
}

intptr_t lit_loc_address(int loc)
{
	return address(loc);
}

struct lit_val lit_canonical(const struct litmus *l, intptr_t v)
{
	return canonical(l, v);
}

/* "r = load": the value @e returns is the one a single access loads,
 * at an address computed without accessing memory (witness.c). */
int lit_direct_load(const struct lit_expr *e)
{
	if (e->kind == EX_DEREF)
		return lit_access_free(e->a);
	return e->kind == EX_CALL && e->nargs >= 1 && lit_prim_loads(e->idx) &&
	       lit_access_free(e->args[0]);
}

/*
 * A binary operator of the litmus dialect on two values (C's, in
 * two's complement); -1 for a division by zero or INTPTR_MIN / -1.
 * Shared by the run engine and the graph engine (graph_eval.c).
 */
int lit_binop(int op, intptr_t a, intptr_t b, intptr_t *out)
{
	char o[3] = { (char)(op & 0xff), (char)(op >> 8), 0 };
	uintptr_t ua = (uintptr_t)a, ub = (uintptr_t)b;
	intptr_t r = 0;

	if (!strcmp(o, "/") || !strcmp(o, "%")) {
		if (b == 0 || (b == -1 && a == INTPTR_MIN))
			return -1;
		r = o[0] == '/' ? a / b : a % b;
	}
	else if (!strcmp(o, "+")) r = (intptr_t)(ua + ub);
	else if (!strcmp(o, "-")) r = (intptr_t)(ua - ub);
	else if (!strcmp(o, "*")) r = (intptr_t)(ua * ub);
	else if (!strcmp(o, "&")) r = a & b;
	else if (!strcmp(o, "|")) r = a | b;
	else if (!strcmp(o, "^")) r = a ^ b;
	else if (!strcmp(o, "<<")) r = (intptr_t)(ua << (ub & 63));
	else if (!strcmp(o, ">>")) r = a >> (ub & 63);
	else if (!strcmp(o, "==")) r = a == b;
	else if (!strcmp(o, "!=")) r = a != b;
	else if (!strcmp(o, "<")) r = a < b;
	else if (!strcmp(o, "<=")) r = a <= b;
	else if (!strcmp(o, ">")) r = a > b;
	else if (!strcmp(o, ">=")) r = a >= b;
	*out = r;
	return 0;
}

static intptr_t binop(int proc, int op, intptr_t a, intptr_t b)
{
	intptr_t r;

	if (lit_binop(op, a, b, &r))
		pr_fail("litmus-arith", NULL, "P%d divides %lld by %lld",
			proc, (long long)a, (long long)b);
	return r;
}

/*
 * An access-free expression (reorder.c: registers as they are now):
 * 0 and its value in *@out, or -1 when it cannot be computed without
 * failing (a division by zero) or is not access-free.
 */
int lit_eval_pure(int proc, const struct lit_expr *e, intptr_t *out)
{
	intptr_t a, b, c;

	switch (e->kind) {
	case EX_NUM:
		*out = (intptr_t)e->num;
		return 0;
	case EX_REG:
		*out = regs[proc][e->idx];
		return 0;
	case EX_LOC:
		*out = address(e->idx);
		return 0;
	case EX_UN:
		if (lit_eval_pure(proc, e->a, &a))
			return -1;
		*out = e->op == '-' ? (intptr_t)(0 - (uintptr_t)a) :
		       e->op == '!' ? !a : ~a;
		return 0;
	case EX_BIN:
		if (lit_eval_pure(proc, e->a, &a) || lit_eval_pure(proc, e->b, &b))
			return -1;
		if ((e->op == '/' || e->op == '%') &&
		    (b == 0 || (b == -1 && a == INTPTR_MIN)))
			return -1;
		if (e->op == ('&' | '&' << 8))
			*out = a && b;
		else if (e->op == ('|' | '|' << 8))
			*out = a || b;
		else
			*out = binop(proc, e->op, a, b);
		return 0;
	case EX_COND:
		if (lit_eval_pure(proc, e->a, &a) || lit_eval_pure(proc, e->b, &b) ||
		    lit_eval_pure(proc, e->c, &c))
			return -1;
		*out = a ? b : c;
		return 0;
	default:
		return -1;
	}
}

/* Plain C accesses "r = *p" and "*p = v": kernel/access.h's LOAD, STORE. */
static intptr_t plain_load(intptr_t *p)
{
	intptr_t v = LOAD(*p);

	if (pr_mem_on)
		lit_dep_value(pr_self(), pr_mem_last_time());
	return v;
}

static void plain_store(intptr_t *p, intptr_t v)
{
	STORE(*p, v);
}

intptr_t lit_eval(struct litmus *l, int proc, intptr_t *r,
		  const struct lit_expr *e)
{
	intptr_t a;

	switch (e->kind) {
	case EX_NUM:
		return (intptr_t)e->num;
	case EX_REG:
		lit_dep_value(proc, rtime[proc][e->idx]);
		return r[e->idx];
	case EX_LOC:
		return address(e->idx);
	case EX_UN:
		a = lit_eval(l, proc, r, e->a);
		return e->op == '-' ? (intptr_t)(0 - (uintptr_t)a) :
		       e->op == '!' ? !a : ~a;
	case EX_BIN:
		if (e->op == ('&' | '&' << 8))
			return lit_eval(l, proc, r, e->a) &&
			       lit_eval(l, proc, r, e->b);
		if (e->op == ('|' | '|' << 8))
			return lit_eval(l, proc, r, e->a) ||
			       lit_eval(l, proc, r, e->b);
		a = lit_eval(l, proc, r, e->a);
		return binop(proc, e->op, a, lit_eval(l, proc, r, e->b));
	case EX_COND:
		return lit_eval(l, proc, r, e->a) ? lit_eval(l, proc, r, e->b)
						  : lit_eval(l, proc, r, e->c);
	case EX_ASSIGN: {
		uint32_t saved = lit_dep_begin(proc), t;

		if (e->a->kind == EX_REG && lit_wit_wants(proc, e->a->idx) &&
		    lit_direct_load(e->b)) {
			/* The witness sampler's scorer looks (witness.c). */
			lit_wit_reg[proc] = (int8_t)e->a->idx;
			a = lit_eval(l, proc, r, e->b);
			lit_wit_reg[proc] = -1;
			lit_wit_done(proc, e->b);
			/* Goal search: set once, so r keeps the value. */
			if (lit_goal_on && !lit_wit_good(proc, e->a->idx, a))
				lit_cut[proc] = 1;
		} else {
			a = lit_eval(l, proc, r, e->b);
		}
		t = lit_dep_end(proc, saved);
		if (e->a->kind == EX_REG) {
			r[e->a->idx] = a;
			rtime[proc][e->a->idx] = t;
		} else {
			intptr_t at;

			saved = lit_dep_begin(proc);
			at = lit_eval(l, proc, r, e->a->a);
			t = lit_dep_end(proc, saved);
			if (pr_mem_on && !lit_lb_now[proc])
				pr_mem_dep(t);
			plain_store(&lit_cell_of(l, proc, at)->v, a);
		}
		return a;
	}
	case EX_DEREF: {
		uint32_t saved = lit_dep_begin(proc), t;
		intptr_t at = lit_eval(l, proc, r, e->a);

		t = lit_dep_end(proc, saved);
		if (pr_mem_on)
			pr_mem_dep(t);
		return plain_load(&lit_cell_of(l, proc, at)->v);
	}
	case EX_CALL:
		return lit_prim_call(l, proc, r, e);
	}
	return 0;
}

void lit_exec(struct litmus *l, int proc, const struct lit_stmt *s)
{
	if (lit_cut[proc])	/* goal search: stopped */
		return;
	switch (s->kind) {
	case ST_NOP:
		break;
	case ST_EXPR:
		lit_eval(l, proc, regs[proc], s->e);
		lit_wit_stored(proc, s);
		break;
	case ST_IF:
		if (lit_eval(l, proc, regs[proc], s->e))
			lit_exec(l, proc, s->then);
		else if (s->els)
			lit_exec(l, proc, s->els);
		break;
	case ST_BLOCK:
		for (int i = 0; i < s->n; i++) {
			const struct lit_stmt *t = s->body[i];

			if (lit_cut[proc])
				return;
			/* Under weak, load buffering (reorder.c): before a
			 * load, the stores that may go first; a store
			 * performed so is skipped when reached. */
			if (lit_lb_on) {
				if (lit_lb_skip(proc, t))
					continue;
				if (t->lbc == LBC_LOAD)
					lit_lb_early(l, proc, s, i);
			}
			lit_exec(l, proc, t);
		}
		break;
	}
}

static struct litmus *running;	/* the test the contexts belong to */

static void body(void *arg)
{
	int proc = (int)(intptr_t)arg;

	lit_exec(running, proc, running->proc[proc].body);
}

/* Stable names for reports: "x", and "x.lock" for a spinlock's word. */
static int name_cell(const void *obj, char *buf, unsigned len)
{
	const struct litmus *l = running;
	uintptr_t base = (uintptr_t)cells, a = (uintptr_t)obj;
	size_t i, off;

	if (!l || a < base || a >= base + (uintptr_t)l->nlocs * sizeof(cells[0]))
		return 0;
	i = (a - base) / sizeof(cells[0]);
	off = (a - base) % sizeof(cells[0]);
	if (off >= offsetof(struct lit_cell, srcu))
		snprintf(buf, len, "%s.srcu", l->loc[i].name);
	else if (off >= offsetof(struct lit_cell, lock))
		snprintf(buf, len, "%s.lock", l->loc[i].name);
	else
		snprintf(buf, len, "%s", l->loc[i].name);
	return 1;
}

static void setup(void *arg)
{
	struct litmus *l = arg;
	static char names[LIT_MAX_PROCS][8];

	running = l;
	lit_lb_reset(l);
	kernel_reset(l->nprocs);
	kernel_set_obj_resolver(name_cell);
	/* Only the cells this test uses; an SRCU domain only where one is. */
	for (int i = 0; i < l->nlocs; i++) {
		struct lit_val v = { l->loc[i].init_kind, l->loc[i].init_val };

		cells[i].v = initial(&v);
		cells[i].a.counter = (int)initial(&v);
		spin_lock_init(&cells[i].lock);
		if (l->loc[i].type == LOC_SRCU)
			init_srcu_struct(&cells[i].srcu);
	}
	memset(proc_of, -1, sizeof(proc_of));
	memset(lit_cut, 0, sizeof(lit_cut));
	lit_wit_reset(l);
	for (int p = 0; p < l->nprocs; p++) {
		int c;

		lit_wit_reg[p] = -1;
		acc[p] = 0;
		memset(rtime[p], 0, sizeof(rtime[p]));
		for (int r = 0; r < LIT_MAX_REGS; r++)
			regs[p][r] = r < l->proc[p].nregs ?
				initial(&l->proc[p].reginit[r]) : 0;
		if (!names[p][0])	/* the same every run: made once */
			snprintf(names[p], sizeof(names[p]), "P%d", p);
		c = pr_spawn(names[p], body, (void *)(intptr_t)p, 0);
		if (c >= 0 && c < PR_MAX_CTX)
			proc_of[c] = (int8_t)p;
	}
}

/* The final value of location @i. */
static intptr_t final_value(const struct litmus *l, int i)
{
	return l->loc[i].type == LOC_ATOMIC ? cells[i].a.counter : cells[i].v;
}

/* "0:r0=1 /\ x=2", the state as the condition reads it. */
static void state_text(const struct litmus *l, const struct lit_val *st,
		       char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < l->nobs && off + 1 < len; i++) {
		char v[LIT_NAME];

		lit_val_text(l, &st[i], v, sizeof(v));
		if (l->obs[i].is_reg)
			off += (size_t)snprintf(buf + off, len - off, "%s%d:%s=%s",
					i ? "; " : "", l->obs[i].proc,
					l->proc[l->obs[i].proc].regname[l->obs[i].reg], v);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%s",
					i ? "; " : "", l->loc[l->obs[i].loc].name, v);
	}
}

static void finish(void *arg)
{
	struct litmus *l = arg;
	struct lit_val st[LIT_MAX_OBS];
	char text[512];
	int holds;

	/* Goal search: a stopped process's run satisfies nothing. */
	if (litmus_goal_cut(l))
		return;
	for (int i = 0; i < l->nobs; i++) {
		const struct lit_obs *o = &l->obs[i];

		st[i] = canonical(l, o->is_reg ? regs[o->proc][o->reg]
					       : final_value(l, o->loc));
	}
	if (l->filter && !lit_cond_eval(l->filter, st)) {
		l->filtered++;
		return;
	}
	holds = lit_cond_eval(l->cond, st);
	lit_outcome_record(l, st, holds);
	if (l->datarace)
		return;
	if ((holds && l->expect == LIT_EXPECT_NEVER) ||
	    (!holds && l->expect == LIT_EXPECT_ALWAYS)) {
		state_text(l, st, text, sizeof(text));
		pr_fail(holds ? "litmus-never" : "litmus-always", NULL,
			"final state %s %s %s, which the test's Result: says "
			"LKMM %s", text, holds ? "satisfies" : "does not satisfy",
			l->cond_text, holds ? "forbids (Never)" : "guarantees (Always)");
	}
}

void litmus_program(struct litmus *l, struct pr_program *prog)
{
	lit_lb_classify(l);
	litmus_witness_prepare(l);
	memset(prog, 0, sizeof(*prog));
	prog->name = l->name;
	prog->summary = "a litmus test";
	prog->setup = setup;
	prog->finish = finish;
	prog->arg = l;
}

int litmus_goal_cut(const struct litmus *l)
{
	for (int p = 0; p < l->nprocs; p++)
		if (lit_cut[p])
			return 1;
	return 0;
}

void litmus_state_text(const struct litmus *l, const struct lit_val *st,
		       char *buf, size_t len)
{
	state_text(l, st, buf, len);
}
