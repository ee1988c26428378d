/* SPDX-License-Identifier: MIT */
/*
 * graph_eval.c - one process's body as the events it performs, a load's
 * value guessed: every path, found by walking the body again with the
 * next combination of guesses (an odometer over the choice points).
 *
 * The events of each primitive are linux-kernel.def's under herd7's
 * default (lkmmv1) reading: a fully ordered RMW (xchg, cmpxchg that
 * succeeds, atomic_*_return, atomic_fetch_*, *_and_test, a successful
 * atomic_add_unless) is smp_mb, its read, its write, smp_mb; _acquire
 * makes the read an acquire, _release the write a release, _relaxed
 * neither; an RMW that returns nothing (atomic_inc) reads Noreturn; a
 * failed cmpxchg or atomic_add_unless is only its read; spin_lock is a
 * lock read and a lock write; a trylock or spin_is_locked is a choice
 * between its two outcomes.
 *
 * Dependencies ride on values: each value carries the set of loads it
 * was computed from.  An access's address gives addr, a store's value
 * data, an if's condition ctrl to the events of the branch it takes
 * (herd7's C semantics: not to those after the if).
 *
 * While the domains grow (@written), a load may also read a value
 * outside its location's domain, "unknown" (the UNK bit of a value's
 * dependencies): an if on an unknown value takes both branches, an
 * unknown address ends the path, and a store of an unknown value adds
 * nothing to a domain.  Such a path is never an execution (it is not
 * returned), but the known values it stores are harvested: a value that
 * only a branch on a not-yet-known value leads to (LB through a hidden
 * control dependency) enters its domain, and the next round reads it.
 */
#include "litmus/graph.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct walk {
	const struct litmus *l;
	int proc;
	const struct lg_domain *dom;
	struct lg_domain *written;
	struct lg_path *p;
	intptr_t regs[LIT_MAX_REGS];
	uint64_t rdep[LIT_MAX_REGS];	/* the loads each register came from */
	uint64_t ctrl;			/* the loads control came from */
	int choice[LG_MAX_CHOICES], nchoice[LG_MAX_CHOICES];
	int depth, pos;
	int overflow;			/* 1 events, 2 guesses */
	int poi;			/* herd7's program-order index */
	int unk;			/* the path read an unknown value */
	jmp_buf drop;			/* the path cannot happen */
};

int lg_loc_of(const struct litmus *l, intptr_t a)
{
	for (int i = 0; i < l->nlocs; i++)
		if (lit_loc_address(i) == a)
			return i;
	return -1;
}

/* The next guess, one of @k. */
static int choose(struct walk *w, int k)
{
	if (k <= 1)
		return 0;
	if (w->pos < w->depth)
		return w->choice[w->pos++];
	if (w->depth == LG_MAX_CHOICES) {
		w->overflow = 2;
		longjmp(w->drop, 1);
	}
	w->choice[w->depth] = 0;
	w->nchoice[w->depth] = k;
	w->depth++;
	w->pos++;
	return 0;
}

static int add(struct walk *w, int kind, int ann, int sub, int loc,
	       intptr_t val, uint64_t addr, uint64_t data)
{
	struct gev *e;

	if (w->p->nev == LG_MAX_EV) {
		w->overflow = 1;
		longjmp(w->drop, 1);
	}
	e = &w->p->ev[w->p->nev];
	memset(e, 0, sizeof(*e));
	e->kind = (uint8_t)kind;
	e->ann = (uint8_t)ann;
	e->sub = (uint8_t)sub;
	e->proc = (uint8_t)w->proc;
	e->loc = (int16_t)loc;
	e->rmw = -1;
	e->val = val;
	e->addr = addr;
	e->data = data;
	e->ctrl = w->ctrl;
	return w->p->nev++;
}

static void fence(struct walk *w, int f)
{
	add(w, GE_F, GA_ONCE, f, -1, 0, 0, 0);
}

/* A value's dependencies include an unknown value (local events < 63). */
#define UNK REL_BIT(63)
#define UNK_STANDIN ((intptr_t)0x5eed1ee7)	/* what arithmetic sees */

static int loc_at(struct walk *w, intptr_t a, uint64_t adep)
{
	int loc = lg_loc_of(w->l, a);

	if (loc < 0 || (adep & UNK))
		longjmp(w->drop, 1);	/* not a location: no such execution */
	return loc;
}

/* A load of @loc that reads @v; *@dep the load itself. */
static intptr_t load_val(struct walk *w, int loc, int ann, int atomic,
			 uint64_t adep, intptr_t v, uint64_t *dep, int *ev)
{
	int i = add(w, GE_R, ann, atomic, loc, v, adep, 0);

	*dep = REL_BIT(i);
	if (ev)
		*ev = i;
	return v;
}

/* The value a load of @loc guesses. */
static intptr_t guess(struct walk *w, int loc)
{
	const struct lg_domain *d = &w->dom[loc];

	return d->v[choose(w, d->n)];
}

/* A load that guesses its value: a domain value, or while the domains
 * grow also the unknown one. */
static intptr_t load(struct walk *w, int loc, int ann, int atomic,
		     uint64_t adep, uint64_t *dep, int *ev)
{
	const struct lg_domain *d = &w->dom[loc];
	int c = choose(w, d->n + (w->written != NULL));
	intptr_t v;

	if (c < d->n)
		return load_val(w, loc, ann, atomic, adep, d->v[c], dep, ev);
	w->unk = 1;
	v = load_val(w, loc, ann, atomic, adep, UNK_STANDIN, dep, ev);
	*dep |= UNK;
	return v;
}

/* A condition's truth; both, one path each, when it is unknown. */
static int truth(struct walk *w, intptr_t c, uint64_t dep)
{
	if (dep & UNK)
		return choose(w, 2) == 0;
	return c != 0;
}

int lg_value_cmp(const struct litmus *l, intptr_t a, intptr_t b)
{
	struct lit_val x = lit_canonical(l, a), y = lit_canonical(l, b);

	if (x.is_addr != y.is_addr)
		return x.is_addr < y.is_addr ? -1 : 1;
	return x.v < y.v ? -1 : x.v > y.v;
}

/* Add @v to @d in lg_value_cmp's order; a full domain gets n
 * LG_MAX_VALS + 1. */
static void dom_add(const struct litmus *l, struct lg_domain *d, intptr_t v)
{
	int i = 0;

	if (d->n > LG_MAX_VALS)
		return;
	while (i < d->n && lg_value_cmp(l, d->v[i], v) < 0)
		i++;
	if (i < d->n && d->v[i] == v)
		return;
	if (d->n == LG_MAX_VALS) {
		d->n++;
		return;
	}
	memmove(&d->v[i + 1], &d->v[i], (size_t)(d->n - i) * sizeof(d->v[0]));
	d->v[i] = v;
	d->n++;
}

static void store(struct walk *w, int loc, int ann, int atomic,
		  intptr_t v, uint64_t adep, uint64_t ddep, int rd)
{
	int i = add(w, GE_W, ann, atomic, loc, v, adep, ddep);

	if (w->written && !(ddep & UNK))
		dom_add(w->l, &w->written[loc], v);

	if (rd >= 0)
		w->p->ev[rd].rmw = (int16_t)i;
}

static intptr_t eval(struct walk *w, const struct lit_expr *e, uint64_t *dep);

static intptr_t arith(struct walk *w, int op, intptr_t a, intptr_t b)
{
	intptr_t r;

	if (lit_binop(op, a, b, &r))
		longjmp(w->drop, 1);	/* a division fault: no execution */
	return r;
}

/* The read and write annotations of an RMW of flavour @lk. */
static int rmw_rann(int lk)
{
	return lk == LK_ACQUIRE ? GA_ACQUIRE : GA_ONCE;
}

static int rmw_wann(int lk)
{
	return lk == LK_RELEASE ? GA_RELEASE : GA_ONCE;
}

/*
 * An RMW that writes: smp_mb around it when fully ordered.  @op: the
 * new value from the old one (0: xchg, @arg is the value), returns the
 * old value; *@dep the read (and, for op, @arg's loads).
 */
enum { RMW_XCHG, RMW_ADD, RMW_SUB };

static intptr_t rmw(struct walk *w, int lk, int loc, uint64_t adep,
		    int op, intptr_t arg, uint64_t argdep, uint64_t *dep)
{
	intptr_t old, nv;
	uint64_t rd;
	int ri;

	if (lk == LK_MB)
		fence(w, GF_MB);
	old = load(w, loc, rmw_rann(lk), 1, adep, &rd, &ri);
	nv = op == RMW_XCHG ? arg :
	     op == RMW_ADD ? (intptr_t)((uintptr_t)old + (uintptr_t)arg) :
	     (intptr_t)((uintptr_t)old - (uintptr_t)arg);
	store(w, loc, rmw_wann(lk), 1, nv, adep,
	      argdep | (op == RMW_XCHG ? 0 : rd), ri);
	if (lk == LK_MB)
		fence(w, GF_MB);
	*dep = rd | (op == RMW_XCHG ? 0 : argdep);
	return old;
}

/* A value-returning atomic's result is int-sized. */
static intptr_t as_int(intptr_t v)
{
	return (intptr_t)(int)v;
}

static intptr_t call(struct walk *w, const struct lit_expr *e, uint64_t *dep)
{
	intptr_t a[LIT_MAX_ARGS] = { 0 };
	uint64_t d[LIT_MAX_ARGS] = { 0 };
	int loc = -1, pos = -1, lk = e->op, ri;
	intptr_t v;
	uint64_t rd;

	for (int i = 0; i < e->nargs; i++)
		a[i] = eval(w, e->args[i], &d[i]);
	pos = lit_prim_loc_arg(e->idx);
	if (pos >= 0)
		loc = loc_at(w, a[pos], d[pos]);
	*dep = 0;
	switch (e->idx) {
	case P_READ_ONCE: case P_RCU_DEREF: case P_ATOMIC_READ:
		return load(w, loc, GA_ONCE, 0, d[0], dep, NULL);
	case P_LOAD_ACQUIRE:
		return load(w, loc, GA_ACQUIRE, 0, d[0], dep, NULL);
	case P_WRITE_ONCE: case P_ATOMIC_SET:
		store(w, loc, GA_ONCE, 0, a[1], d[0], d[1], -1);
		return 0;
	case P_STORE_RELEASE: case P_RCU_ASSIGN:
		store(w, loc, GA_RELEASE, 0, a[1], d[0], d[1], -1);
		return 0;
	case P_MB:
		fence(w, lk);	/* smp_mb, or smp_mb__before_atomic ... */
		return 0;
	case P_RMB: fence(w, GF_RMB); return 0;
	case P_WMB: fence(w, GF_WMB); return 0;
	case P_BARRIER: fence(w, GF_BARRIER); return 0;
	case P_RCU_LOCK: fence(w, GF_RCU_LOCK); return 0;
	case P_RCU_UNLOCK: fence(w, GF_RCU_UNLOCK); return 0;
	case P_SYNC_RCU: fence(w, GF_SYNC_RCU); return 0;
	case P_SPIN_LOCK:
		ri = add(w, GE_LKR, GA_ONCE, 0, loc, 0, d[0], 0);
		w->p->ev[ri].rmw = (int16_t)add(w, GE_LKW, GA_ONCE, 0, loc, 1,
						 d[0], 0);
		return 0;
	case P_SPIN_UNLOCK:
		add(w, GE_UL, GA_ONCE, 0, loc, 0, d[0], 0);
		return 0;
	case P_SPIN_TRYLOCK:
		if (choose(w, 2) == 0) {
			ri = add(w, GE_LKR, GA_ONCE, 0, loc, 0, d[0], 0);
			w->p->ev[ri].rmw = (int16_t)add(w, GE_LKW, GA_ONCE, 0,
							 loc, 1, d[0], 0);
			return 1;
		}
		add(w, GE_LF, GA_ONCE, 0, loc, 1, d[0], 0);
		return 0;
	case P_SPIN_IS_LOCKED:
		if (choose(w, 2) == 0) {
			add(w, GE_RL, GA_ONCE, 0, loc, 1, d[0], 0);
			return 1;
		}
		add(w, GE_RU, GA_ONCE, 0, loc, 0, d[0], 0);
		return 0;
	case P_XCHG: case P_ATOMIC_XCHG:
		v = rmw(w, lk, loc, d[0], RMW_XCHG, a[1], d[1], dep);
		return e->idx == P_ATOMIC_XCHG ? as_int(v) : v;
	case P_CMPXCHG: case P_ATOMIC_CMPXCHG:
		/* The value read decides which events there are. */
		v = guess(w, loc);
		if (v != a[1]) {
			load_val(w, loc, GA_ONCE, 1, d[0], v, dep, NULL);
		} else {
			if (lk == LK_MB)
				fence(w, GF_MB);
			load_val(w, loc, rmw_rann(lk), 1, d[0], v, &rd, &ri);
			store(w, loc, rmw_wann(lk), 1, a[2], d[0], d[2], ri);
			if (lk == LK_MB)
				fence(w, GF_MB);
			*dep = rd;
		}
		return e->idx == P_ATOMIC_CMPXCHG ? as_int(v) : v;
	case P_ATOMIC_ADD: case P_ATOMIC_SUB:
		v = load(w, loc, GA_NORETURN, 1, d[1], &rd, &ri);
		store(w, loc, GA_ONCE, 1, e->idx == P_ATOMIC_ADD ?
		      v + a[0] : v - a[0], d[1], d[0] | rd, ri);
		*dep = 0;
		return 0;
	case P_ATOMIC_INC: case P_ATOMIC_DEC:
		v = load(w, loc, GA_NORETURN, 1, d[0], &rd, &ri);
		store(w, loc, GA_ONCE, 1, e->idx == P_ATOMIC_INC ? v + 1 : v - 1,
		      d[0], rd, ri);
		return 0;
	case P_ATOMIC_ADD_RETURN:
		return as_int(rmw(w, lk, loc, d[1], RMW_ADD, a[0], d[0], dep) +
			      a[0]);
	case P_ATOMIC_SUB_RETURN:
		return as_int(rmw(w, lk, loc, d[1], RMW_SUB, a[0], d[0], dep) -
			      a[0]);
	case P_ATOMIC_INC_RETURN:
		return as_int(rmw(w, lk, loc, d[0], RMW_ADD, 1, 0, dep) + 1);
	case P_ATOMIC_DEC_RETURN:
		return as_int(rmw(w, lk, loc, d[0], RMW_SUB, 1, 0, dep) - 1);
	case P_ATOMIC_FETCH_ADD:
		return as_int(rmw(w, lk, loc, d[1], RMW_ADD, a[0], d[0], dep));
	case P_ATOMIC_FETCH_SUB:
		return as_int(rmw(w, lk, loc, d[1], RMW_SUB, a[0], d[0], dep));
	case P_ATOMIC_FETCH_INC:
		return as_int(rmw(w, lk, loc, d[0], RMW_ADD, 1, 0, dep));
	case P_ATOMIC_FETCH_DEC:
		return as_int(rmw(w, lk, loc, d[0], RMW_SUB, 1, 0, dep));
	case P_ATOMIC_INC_AND_TEST:
		return as_int(rmw(w, LK_MB, loc, d[0], RMW_ADD, 1, 0, dep) + 1)
		       == 0;
	case P_ATOMIC_DEC_AND_TEST:
		return as_int(rmw(w, LK_MB, loc, d[0], RMW_SUB, 1, 0, dep) - 1)
		       == 0;
	case P_ATOMIC_SUB_AND_TEST:
		return as_int(rmw(w, LK_MB, loc, d[1], RMW_SUB, a[0], d[0], dep)
			      - a[0]) == 0;
	case P_ATOMIC_ADD_UNLESS: case P_ATOMIC_INC_NOT_ZERO: {
		intptr_t inc = e->idx == P_ATOMIC_INC_NOT_ZERO ? 1 : a[1];
		intptr_t unless = e->idx == P_ATOMIC_INC_NOT_ZERO ? 0 : a[2];

		v = guess(w, loc);
		if ((int)v == (int)unless) {
			load_val(w, loc, GA_ONCE, 1, d[0], v, dep, NULL);
			*dep = 0;
			return 0;
		}
		fence(w, GF_MB);
		load_val(w, loc, GA_ONCE, 1, d[0], v, &rd, &ri);
		store(w, loc, GA_ONCE, 1, (intptr_t)(int)(v + inc), d[0],
		      rd | d[1], ri);
		fence(w, GF_MB);
		*dep = 0;
		return 1;
	}
	case P_SRCU_LOCK:
		add(w, GE_SRCU, GA_ONCE, GS_LOCK, loc, 0, d[0], 0);
		/* herd7's token: from the process and the statement */
		return (w->proc + 1) * 307 + w->poi * 599;
	case P_SRCU_UNLOCK:
		add(w, GE_SRCU, GA_ONCE, GS_UNLOCK, loc, a[1], d[0], d[1]);
		return 0;
	case P_SYNC_SRCU:
		add(w, GE_SRCU, GA_ONCE, GS_SYNC, loc, 0, d[0], 0);
		return 0;
	}
	return 0;
}

static intptr_t eval(struct walk *w, const struct lit_expr *e, uint64_t *dep)
{
	intptr_t a, b;
	uint64_t da, db;

	*dep = 0;
	switch (e->kind) {
	case EX_NUM:
		return (intptr_t)e->num;
	case EX_REG:
		*dep = w->rdep[e->idx];
		return w->regs[e->idx];
	case EX_LOC:
		return lit_loc_address(e->idx);
	case EX_UN:
		a = eval(w, e->a, dep);
		return e->op == '-' ? (intptr_t)(0 - (uintptr_t)a) :
		       e->op == '!' ? !a : ~a;
	case EX_BIN:
		a = eval(w, e->a, &da);
		if (e->op == ('&' | '&' << 8) || e->op == ('|' | '|' << 8)) {
			int and = e->op == ('&' | '&' << 8);

			*dep = da;
			if (and ? !truth(w, a, da) : truth(w, a, da))
				return !and;
			b = eval(w, e->b, &db);
			*dep |= db;
			return !!b;
		}
		b = eval(w, e->b, &db);
		*dep = da | db;
		return arith(w, e->op, a, b);
	case EX_COND:
		a = eval(w, e->a, &da);
		b = truth(w, a, da) ? eval(w, e->b, &db) :
				       eval(w, e->c, &db);
		*dep = da | db;
		return b;
	case EX_ASSIGN:
		a = eval(w, e->b, &da);
		if (e->a->kind == EX_REG) {
			w->regs[e->a->idx] = a;
			w->rdep[e->a->idx] = da;
		} else {
			b = eval(w, e->a->a, &db);
			store(w, loc_at(w, b, db), GA_PLAIN, 0, a, db, da, -1);
		}
		*dep = da;
		return a;
	case EX_DEREF:
		b = eval(w, e->a, &db);
		return load(w, loc_at(w, b, db), GA_PLAIN, 0, db, dep, NULL);
	case EX_CALL:
		return call(w, e, dep);
	}
	return 0;
}

/*
 * A primitive linux-kernel.def defines as a block ("{ __store...; }"):
 * herd7 numbers the block and the statement in it, so the statements
 * after it count one more (the srcu_read_lock token depends on it).
 */
static int braced(const struct lit_expr *e)
{
	if (e->kind != EX_CALL)
		return 0;
	switch (e->idx) {
	case P_WRITE_ONCE: case P_STORE_RELEASE: case P_RCU_ASSIGN:
	case P_MB: case P_RMB: case P_WMB: case P_BARRIER:
	case P_RCU_LOCK: case P_RCU_UNLOCK: case P_SYNC_RCU:
	case P_SPIN_LOCK: case P_SPIN_UNLOCK: case P_SRCU_UNLOCK:
	case P_SYNC_SRCU: case P_ATOMIC_SET: case P_ATOMIC_ADD:
	case P_ATOMIC_SUB: case P_ATOMIC_INC: case P_ATOMIC_DEC:
		return 1;
	}
	return 0;
}

static void exec(struct walk *w, const struct lit_stmt *s)
{
	intptr_t c;
	uint64_t d;

	w->poi++;
	switch (s->kind) {
	case ST_NOP:
		break;
	case ST_EXPR:
		eval(w, s->e, &d);
		w->poi += braced(s->e);
		break;
	case ST_IF: {
		uint64_t saved = w->ctrl;

		w->poi++;	/* the branches' index */
		c = eval(w, s->e, &d);
		w->ctrl |= d;	/* ctrl: to the events of the branch taken */
		if (truth(w, c, d))
			exec(w, s->then);
		else if (s->els)
			exec(w, s->els);
		w->ctrl = saved;	/* herd7: not past the join */
		break;
	}
	case ST_BLOCK:
		for (int i = 0; i < s->n; i++)
			exec(w, s->body[i]);
		break;
	}
}

/* A process's body: its statements, the body's block not numbered. */
static void exec_body(struct walk *w, const struct lit_stmt *s)
{
	if (s->kind != ST_BLOCK) {
		exec(w, s);
		return;
	}
	for (int i = 0; i < s->n; i++)
		exec(w, s->body[i]);
}

static int push(struct lg_paths *out, const struct lg_path *p)
{
	if (out->n == LG_MAX_PATHS)
		return -1;
	if (out->n == out->cap) {
		size_t cap = out->cap ? 2 * out->cap : 16;
		struct lg_path *np = realloc(out->p, cap * sizeof(*np));

		if (!np)
			return -1;
		out->p = np;
		out->cap = cap;
	}
	out->p[out->n++] = *p;
	return 0;
}

int lg_paths_of(const struct litmus *l, int proc,
		const struct lg_domain *dom, struct lg_paths *out,
		struct lg_domain *written, char *err, size_t errlen)
{
	static struct walk w;	/* large: not on the stack */
	struct lg_path path;
	const struct lit_proc *pr = &l->proc[proc];

	memset(&w, 0, sizeof(w));
	w.l = l;
	w.proc = proc;
	w.dom = dom;
	w.written = written;
	w.p = &path;
	out->n = 0;
	out->most_stores = 0;
	for (;;) {
		path.nev = 0;
		w.unk = 0;
		w.pos = 0;
		w.ctrl = 0;
		w.poi = 0;
		for (int r = 0; r < LIT_MAX_REGS; r++) {
			w.regs[r] = r < pr->nregs ?
				    lit_val_value(&pr->reginit[r]) : 0;
			w.rdep[r] = 0;
		}
		if (!setjmp(w.drop)) {
			int nst = 0;

			exec_body(&w, pr->body);
			for (int e = 0; e < path.nev; e++)
				nst += path.ev[e].kind == GE_W;
			if (nst > out->most_stores)
				out->most_stores = nst;
			memcpy(path.regs, w.regs, sizeof(path.regs));
			if (!w.unk && push(out, &path)) {
				snprintf(err, errlen, "P%d has more than %d "
					 "paths", proc, LG_MAX_PATHS);
				return -1;
			}
		} else if (w.overflow) {
			snprintf(err, errlen, "P%d: a path with more than %d %s",
				 proc, w.overflow == 1 ? LG_MAX_EV :
				 LG_MAX_CHOICES, w.overflow == 1 ? "events" :
				 "guessed values");
			return -1;
		}
		/* the next combination of guesses */
		while (w.depth > 0 &&
		       w.choice[w.depth - 1] + 1 >= w.nchoice[w.depth - 1])
			w.depth--;
		if (w.depth == 0)
			return 0;
		w.choice[w.depth - 1]++;
	}
}
