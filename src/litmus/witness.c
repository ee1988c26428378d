/* SPDX-License-Identifier: MIT */
/*
 * witness.c - the litmus command's scorer for the witness sampler
 * (strategy/witness.c): steer runs towards the test's exists clause.
 *
 * The condition's top-level conjuncts "P:r=v" and "P:r!=v" say what
 * value each load into register r of process P must return, when r is
 * set once in P's body, by that load ("r = READ_ONCE(*x)", "r = *x",
 * smp_load_acquire, rcu_dereference, atomic_read).  A process whose next
 * step is such a load is avoided while the value it would read now (its
 * own buffered store, else memory's; or, for a stale-read choice, that
 * older value: memory/peek.c) is not the one wanted, and preferred when
 * it is; a flush to the location such a load waits for is preferred
 * while memory's value is not the one wanted, avoided once it is (the
 * load goes first).  A flush is scored by the value it brings: preferred
 * when a wanted load of that location (pending or still to come) reads
 * a rejected value now and would read the flushed one well, avoided
 * when a pending one reads well now and would not after it, held back
 * (SLOW) when only a load still to come would lose its value.  Where
 * the condition fixes a location's final value and every store to it
 * is counted (constant stores outside any if, which every run
 * performs), a flush that leaves that final value out of reach is
 * avoided: the wanted value with a rejected one still to land after it
 * and no wanted one left, or a rejected value as the last store (a
 * grace period's drain that needs it then waits for the others; a run
 * where nothing else can go is abandoned: strategy/witness.c).
 * Everything else is neutral.  The scorer only looks:
 * every run is an ordinary run of the model, and a condition it reaches
 * is reached by an execution that `pagerace replay` re-executes.
 */
#include "litmus/internal.h"
#include "litmus/cell.h"
#include "memory/memory.h"
#include "strategy/strategy.h"

#include <string.h>

/* What the condition wants of a register (want_kind per proc, reg). */
enum { W_NONE, W_EQ, W_NE };

#define W_LOADS	16	/* wanted loads a process may have */
#define W_STORES 16	/* counted stores a process may have */

struct fstore {
	const struct lit_stmt *s;	/* "WRITE_ONCE(*x, v);" */
	int loc;
	intptr_t v;
};

struct wload {
	const struct lit_expr *e;	/* the load ("READ_ONCE(*x)") */
	int reg;			/* the register it sets */
};

static struct {
	const struct litmus *l;
	uint8_t kind[LIT_MAX_PROCS][LIT_MAX_REGS];
	struct lit_val val[LIT_MAX_PROCS][LIT_MAX_REGS];
	uint8_t sets[LIT_MAX_PROCS][LIT_MAX_REGS];	/* assignments */
	/* each process's wanted loads, in program order */
	struct wload wl[LIT_MAX_PROCS][W_LOADS];
	int nwl[LIT_MAX_PROCS];
	/* what the condition wants of a location's final value */
	uint8_t lkind[LIT_MAX_LOCS];
	struct lit_val lval[LIT_MAX_LOCS];
	/*
	 * Each process's stores of a constant to a location whose final
	 * value the condition fixes, outside any if ("WRITE_ONCE(*x, 2);"
	 * statements: each runs once, in every run), and whether those are
	 * all the writes the location gets (counted: no other access
	 * writes it, no access goes through a computed pointer).
	 */
	struct fstore fs[LIT_MAX_PROCS][W_STORES];
	int nfs[LIT_MAX_PROCS];
	uint8_t uncounted[LIT_MAX_LOCS];
	int any_counted;
} wit;

/* Per run: the counted stores each process performed. */
static uint8_t fdone[LIT_MAX_PROCS][W_STORES];

/* Per run: the first of each process's wanted loads not performed. */
static int next[LIT_MAX_PROCS];

/* The register a process's next access loads into, -1: none. */
int8_t lit_wit_reg[LIT_MAX_PROCS];

static void count_expr(int proc, const struct lit_expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_ASSIGN && e->a->kind == EX_REG &&
	    wit.sets[proc][e->a->idx] < 255)
		wit.sets[proc][e->a->idx]++;
	count_expr(proc, e->a);
	count_expr(proc, e->b);
	count_expr(proc, e->c);
	if (e->kind == EX_CALL)
		for (int i = 0; i < e->nargs; i++)
			count_expr(proc, e->args[i]);
}

static void count_stmt(int proc, const struct lit_stmt *s)
{
	if (!s)
		return;
	count_expr(proc, s->e);
	count_stmt(proc, s->then);
	count_stmt(proc, s->els);
	for (int i = 0; i < s->n; i++)
		count_stmt(proc, s->body[i]);
}

/* The wanted loads, statement by statement ("r = load" statements). */
static void loads_stmt(int proc, const struct lit_stmt *s)
{
	const struct lit_expr *e;

	if (!s)
		return;
	e = s->e;
	if (s->kind == ST_EXPR && e && e->kind == EX_ASSIGN &&
	    e->a->kind == EX_REG && lit_wit_wants(proc, e->a->idx) &&
	    lit_direct_load(e->b) && wit.nwl[proc] < W_LOADS)
		wit.wl[proc][wit.nwl[proc]++] = (struct wload){ e->b, e->a->idx };
	loads_stmt(proc, s->then);
	loads_stmt(proc, s->els);
	for (int i = 0; i < s->n; i++)
		loads_stmt(proc, s->body[i]);
}

/*
 * The location @a names in process @proc: a location, or a register
 * that holds one from the start and is never assigned (the parameters
 * "P0(int *x)"); -1 otherwise.
 */
static int loc_of(int proc, const struct lit_expr *a)
{
	const struct lit_val *v;

	if (a->kind == EX_LOC)
		return a->idx;
	if (a->kind != EX_REG || wit.sets[proc][a->idx] ||
	    a->idx >= wit.l->proc[proc].nregs)
		return -1;
	v = &wit.l->proc[proc].reginit[a->idx];
	return v->is_addr && v->v >= 0 && v->v < wit.l->nlocs ? (int)v->v : -1;
}

/*
 * The writes to the locations (stores_stmt): a location stays counted
 * while every access to it is a counted store or a load; any other
 * access to it, or an access through a pointer that names no fixed
 * location (*computed), ends the counting.
 */
static void mentions(int proc, const struct lit_expr *e, int *computed)
{
	int loc;

	if (!e)
		return;
	if (e->kind == EX_CALL && lit_prim_loads(e->idx) && e->nargs == 1) {
		if (loc_of(proc, e->args[0]) < 0)
			*computed = 1;
		return;		/* a load */
	}
	if (e->kind == EX_DEREF) {
		if (loc_of(proc, e->a) < 0)
			*computed = 1;
		return;		/* "*x" read (an assignment's target below) */
	}
	if (e->kind == EX_ASSIGN && e->a->kind == EX_DEREF) {
		if ((loc = loc_of(proc, e->a->a)) >= 0)
			wit.uncounted[loc] = 1;
		else
			*computed = 1;
		mentions(proc, e->b, computed);
		return;
	}
	if (e->kind == EX_CALL) {
		/* Any other primitive on a location may write it. */
		if (e->nargs >= 1) {
			if ((loc = loc_of(proc, e->args[0])) >= 0)
				wit.uncounted[loc] = 1;
			else
				*computed = 1;
		}
		for (int i = 1; i < e->nargs; i++)
			mentions(proc, e->args[i], computed);
		return;
	}
	mentions(proc, e->a, computed);
	mentions(proc, e->b, computed);
	mentions(proc, e->c, computed);
}

static void stores_stmt(int proc, const struct lit_stmt *s, int in_if,
			int *computed)
{
	const struct lit_expr *e;
	int loc;

	if (!s)
		return;
	e = s->e;
	if (s->kind == ST_EXPR && e && e->kind == EX_CALL &&
	    lit_prim_class(e->idx) == LBC_STORE && e->nargs == 2 &&
	    (loc = loc_of(proc, e->args[0])) >= 0 &&
	    e->args[1]->kind == EX_NUM) {
		if (in_if || wit.nfs[proc] == W_STORES)
			wit.uncounted[loc] = 1;
		else
			wit.fs[proc][wit.nfs[proc]++] = (struct fstore)
				{ s, loc, (intptr_t)e->args[1]->num };
		return;
	}
	if (s->kind == ST_IF)
		in_if = 1;
	mentions(proc, e, computed);
	stores_stmt(proc, s->then, in_if, computed);
	stores_stmt(proc, s->els, in_if, computed);
	for (int i = 0; i < s->n; i++)
		stores_stmt(proc, s->body[i], in_if, computed);
}

static void conjuncts(const struct lit_cond *c, int neg)
{
	const struct lit_operand *r, *k;

	if (c->kind == CX_AND && !neg) {
		conjuncts(c->a, 0);
		conjuncts(c->b, 0);
		return;
	}
	if (c->kind == CX_NOT) {
		if (c->a->kind == CX_EQ || c->a->kind == CX_NE)
			conjuncts(c->a, !neg);
		return;
	}
	if (c->kind != CX_EQ && c->kind != CX_NE)
		return;
	r = c->l.kind == 2 ? &c->l : c->r.kind == 2 ? &c->r : NULL;
	k = r == &c->l ? &c->r : &c->l;
	if (r && k->kind == 0) {	/* "x=v": a final value */
		wit.lkind[r->loc] = (c->kind == CX_EQ) != neg ? W_EQ : W_NE;
		wit.lval[r->loc] = k->val;
		return;
	}
	r = c->l.kind == 1 ? &c->l : c->r.kind == 1 ? &c->r : NULL;
	k = r == &c->l ? &c->r : &c->l;
	if (!r || k->kind != 0 || wit.sets[r->proc][r->reg] != 1)
		return;
	wit.kind[r->proc][r->reg] = (c->kind == CX_EQ) != neg ? W_EQ : W_NE;
	wit.val[r->proc][r->reg] = k->val;
}

void litmus_witness_prepare(struct litmus *l)
{
	memset(&wit, 0, sizeof(wit));
	wit.l = l;
	for (int p = 0; p < l->nprocs; p++)
		count_stmt(p, l->proc[p].body);
	if (l->cond && l->quant == LIT_Q_EXISTS)
		conjuncts(l->cond, 0);
	for (int p = 0; p < l->nprocs; p++)
		loads_stmt(p, l->proc[p].body);
	{
		int computed = 0;

		for (int p = 0; p < l->nprocs; p++)
			stores_stmt(p, l->proc[p].body, 0, &computed);
		for (int i = 0; i < l->nlocs; i++) {
			wit.any_counted |= wit.lkind[i] != W_NONE &&
					   !wit.uncounted[i] && !computed;
		}
	}
}

void lit_wit_reset(const struct litmus *l)
{
	for (int p = 0; p < l->nprocs; p++)
		next[p] = 0;
	memset(fdone, 0, sizeof(fdone));
}

void lit_wit_stored(int proc, const struct lit_stmt *s)
{
	if (!wit.any_counted)
		return;
	for (int k = 0; k < wit.nfs[proc]; k++)
		if (wit.fs[proc][k].s == s) {
			fdone[proc][k] = 1;
			return;
		}
}

void lit_wit_done(int proc, const struct lit_expr *e)
{
	for (int k = next[proc]; k < wit.nwl[proc]; k++)
		if (wit.wl[proc][k].e == e) {
			next[proc] = k + 1;
			return;
		}
}

int lit_wit_wants(int proc, int reg)
{
	return proc >= 0 && proc < LIT_MAX_PROCS && reg >= 0 &&
	       reg < LIT_MAX_REGS && wit.kind[proc][reg] != W_NONE;
}

int lit_wit_good(int proc, int reg, intptr_t v)
{
	return (v == lit_val_value(&wit.val[proc][reg])) ==
	       (wit.kind[proc][reg] == W_EQ);
}

int litmus_goal(struct litmus *l, int on)
{
	int any = 0;

	for (int p = 0; p < l->nprocs; p++)
		for (int r = 0; r < LIT_MAX_REGS; r++)
			any |= wit.kind[p][r] != W_NONE;
	lit_goal_on = on && any;
	return any;
}

/* Is @v (a loaded value of @size bytes) what the condition wants? */
static int good(int proc, int reg, uint64_t v, unsigned size)
{
	intptr_t got = size == 4 ? (intptr_t)(int32_t)v :
		       size == 2 ? (intptr_t)(int16_t)v :
		       size == 1 ? (intptr_t)(int8_t)v : (intptr_t)v;
	intptr_t want = lit_val_value(&wit.val[proc][reg]);

	return (got == want) == (wit.kind[proc][reg] == W_EQ);
}

/* Process @p's next step is a wanted load: its location and size. */
static int wanted_load(int p, int ctx, const void **obj, unsigned *size)
{
	struct pr_pending pd;

	if (p < 0 || lit_wit_reg[p] < 0 || !lit_wit_wants(p, lit_wit_reg[p]))
		return 0;
	if (pr_sched_pending(ctx, &pd) < 0 || !pd.site || !pd.obj ||
	    !pd.runnable ||
	    (pd.site->kind != PR_K_LOAD && pd.site->kind != PR_K_ACQUIRE))
		return 0;
	*obj = pd.obj;
	*size = pd.site->size ? pd.site->size : sizeof(intptr_t);
	return 1;
}

/*
 * Process @p's next wanted load, still to come (not its pending step):
 * its register, location and size when its address is known now; -1
 * otherwise.
 */
static int future_load(int p, const void **obj, unsigned *size)
{
	const struct wload *w;
	const struct lit_expr *a;
	struct lit_cell *c;
	intptr_t addr;

	if (p < 0 || next[p] >= wit.nwl[p])
		return -1;
	w = &wit.wl[p][next[p]];
	a = w->e->kind == EX_DEREF ? w->e->a : w->e->args[0];
	if (lit_eval_pure(p, a, &addr) || !(c = lit_cell_at(wit.l, addr)))
		return -1;
	if (w->e->kind == EX_DEREF) {
		*obj = &c->v;
		*size = sizeof(c->v);
	} else {
		lit_prim_load_obj(w->e->idx, c, obj, size);
	}
	return w->reg;
}

/*
 * Would flushing the store in slot @slot of CPU @ctx's buffer to counted
 * location @loc, @good (the value the condition wants last there) or
 * not, leave the final value out of reach?  The stores still to reach
 * memory there -- the others buffered, and the counted statements not
 * yet performed, which every run performs -- decide it: a good one with
 * a bad one to follow and no good one after, or a bad one that is the
 * last.  Such a flush is avoided: the run waits for the other stores
 * (a grace period's drain that needs it waits too), or is abandoned
 * when nothing else can go (strategy/witness.c).
 */
static int hopeless(int loc, int ctx, int slot, int good_flush)
{
	struct lit_cell *c = lit_cell_at(wit.l,
		lit_val_value(&(struct lit_val){ 1, loc }));
	intptr_t want = lit_val_value(&wit.lval[loc]);
	int good = 0, bad = 0;

	for (int p = 0; p < wit.l->nprocs; p++)
		for (int k = 0; k < wit.nfs[p]; k++)
			if (!fdone[p][k] && wit.fs[p][k].loc == loc) {
				if ((wit.fs[p][k].v == want) ==
				    (wit.lkind[loc] == W_EQ))
					good++;
				else
					bad++;
			}
	for (int x = 0; x < PR_MAX_CTX; x++) {
		if (lit_proc_of_ctx(x) < 0)
			continue;
		for (int s = 0; s < PR_MEM_SLOTS; s++) {
			struct pr_pending pd;
			uint64_t v;

			if ((x == ctx && s == slot) || pr_mem_peek_flush(x, s, &v) ||
			    pr_sched_pending(PR_CHOICE_MEM + x * PR_MEM_SLOTS + s,
					     &pd) < 0 || pd.obj != (const void *)&c->v)
				continue;
			if (((intptr_t)v == want) == (wit.lkind[loc] == W_EQ))
				good++;
			else
				bad++;
		}
	}
	return good_flush ? bad > 0 && !good : !good && !bad;
}

/*
 * A flush of @v to @obj, where the condition wants a final value of the
 * location: the last write wins, so one that brings an unwanted value
 * goes early (PREFER) and one that brings the wanted value late (SLOW),
 * after the others it must follow.
 */
static int final_score(const void *obj, unsigned size, uint64_t v,
		       int self_ctx, int self_slot)
{
	struct lit_cell *c;
	intptr_t got, want;
	int loc;

	for (loc = 0; loc < wit.l->nlocs; loc++)
		if (wit.lkind[loc] != W_NONE)
			break;
	if (loc == wit.l->nlocs)
		return PR_WITNESS_NEUTRAL;	/* no final value wanted */
	for (loc = 0; loc < wit.l->nlocs; loc++) {
		c = lit_cell_at(wit.l, lit_val_value(&(struct lit_val){ 1, loc }));
		if (c && obj == (const void *)&c->v)
			break;
	}
	if (loc == wit.l->nlocs || wit.lkind[loc] == W_NONE ||
	    size != sizeof(c->v))
		return PR_WITNESS_NEUTRAL;
	got = (intptr_t)v;
	want = lit_val_value(&wit.lval[loc]);
	if (wit.any_counted && !wit.uncounted[loc] &&
	    hopeless(loc, self_ctx, self_slot, (got == want) ==
		     (wit.lkind[loc] == W_EQ)))
		return PR_WITNESS_AVOID;
	return (got == want) == (wit.lkind[loc] == W_EQ) ? PR_WITNESS_SLOW
							 : PR_WITNESS_PREFER;
}

int litmus_witness_score(void *arg, const struct pr_choices *cs, int i)
{
	const struct pr_choice *c = &cs->c[i];
	const void *obj;
	unsigned size;
	uint64_t v;
	int p, reg;

	(void)arg;
	if (c->inject >= 0)
		return PR_WITNESS_NEUTRAL;
	if (c->mem >= 0) {
		struct pr_pending f;
		uint64_t fv;
		int help = 0, harm = 0, known;

		if (pr_sched_pending(pr_choice_code(c), &f) < 0 || !f.obj)
			return PR_WITNESS_NEUTRAL;
		known = !pr_mem_peek_flush(c->ctx, c->mem, &fv);
		/* The wanted loads, pending or to come, of that location. */
		for (int k = 0; k < cs->n - cs->mem - cs->reads; k++) {
			const struct pr_choice *o = &cs->c[k];
			int pending, now;

			if (o->inject >= 0 || o->ctx == c->ctx)
				continue;
			p = lit_proc_of_ctx(o->ctx);
			pending = wanted_load(p, o->ctx, &obj, &size);
			if (pending)
				reg = lit_wit_reg[p];
			else if ((reg = future_load(p, &obj, &size)) < 0)
				continue;
			if (obj != f.obj || pr_mem_peek(o->ctx, obj, size, 0, &v))
				continue;
			now = good(p, reg, v, size);
			if (!known)
				continue;
			if (now && !good(p, reg, fv, size)) {
				/* It would spoil a load that reads well now. */
				if (pending)
					return PR_WITNESS_AVOID;
				harm = 1;
			} else if (!now && good(p, reg, fv, size)) {
				help = 1;
			}
		}
		if (harm)
			return help ? PR_WITNESS_NEUTRAL : PR_WITNESS_SLOW;
		if (help)
			return PR_WITNESS_PREFER;
		return known ? final_score(f.obj, f.size, fv, c->ctx, c->mem) :
		       PR_WITNESS_NEUTRAL;
	}
	p = lit_proc_of_ctx(c->ctx);
	if (wanted_load(p, c->ctx, &obj, &size))
		return pr_mem_peek(c->ctx, obj, size, c->read, &v) ?
		       PR_WITNESS_NEUTRAL :
		       good(p, lit_wit_reg[p], v, size) ? PR_WITNESS_PREFER :
		       PR_WITNESS_AVOID;
	/* On its way to a load whose value is not there yet: later. */
	if (c->read == 0 && (reg = future_load(p, &obj, &size)) >= 0 &&
	    !pr_mem_peek(c->ctx, obj, size, 0, &v) && !good(p, reg, v, size))
		return PR_WITNESS_SLOW;
	return PR_WITNESS_NEUTRAL;
}
