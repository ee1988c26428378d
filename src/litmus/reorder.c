/* SPDX-License-Identifier: MIT */
/*
 * reorder.c - load buffering for litmus tests under weak: a process
 * performs a later store before the load it is about to perform, when
 * LKMM's preserved program order (ppo) does not order the two.
 *
 * The memory model (src/memory/) never lets a store become visible
 * before an earlier load of its CPU was performed: a store is buffered
 * when the CPU reaches it, and loads are performed in program order.
 * LKMM allows more (LB: r0 = x; y = 1 || r1 = y; x = 1 ends with
 * r0 = r1 = 1).  The interpreter knows what the memory model cannot: the
 * statements still to come.  So before a load statement, a process
 * performs every later store that may go first (each its own step, a
 * store like any other: into the CPU's store buffer).  When it becomes
 * visible is the buffer's flush, a scheduler decision like every flush:
 * before the load (load buffering) or at any point after it, which is
 * every execution of the program as written too.  So this adds no
 * choice: the flushes the search explores already cover both orders,
 * and traces, replay, dfs and dpor need nothing new.
 *
 * Why performing it early loses no execution of the program as written:
 * a buffered store is invisible to other CPUs until flushed, and to its
 * own CPU's loads until then only at its own location, which nothing it
 * passes accesses (rule 3); it passes only stores to other locations in
 * the same smp_wmb group, which may be flushed in either order anyway;
 * its address dependency (pr_mem_dep, which raises the CPU's floor for
 * later loads) is applied where the store stands in the program, not
 * when it is performed.  (A buffer of PR_MEM_SLOTS stores that fills up
 * makes the CPU wait for a flush: stronger, never weaker.)
 *
 * The rules (stronger than LKMM where that is simpler, never weaker): a
 * store S is performed before the load statement L the process is at
 * when
 *  1. L is a whole statement "r = READ_ONCE(*a)", "r = *a",
 *     "r = rcu_dereference(*a)" (or without "r ="), in the block the
 *     process runs, and S is a later statement of that block: never out
 *     of an if or into one (a store inside an if on a loaded value is
 *     ctrl-dependent on it);
 *  2. S is "WRITE_ONCE(*b, v)" or "*b = v" with b and v computed from
 *     registers and constants only, none of them set by L or by any
 *     statement between (no address or data dependency; its address and
 *     value are known now); never a release (smp_store_release,
 *     rcu_assign_pointer), an RMW or anything that returns a value;
 *  3. every statement between L and S is one of: register arithmetic; a
 *     relaxed load or store as in 1 and 2 whose address is known now and
 *     differs from S's (coherence: same-location accesses keep their
 *     order); smp_wmb()
 *     when no store between L and it is still to be performed (S is then
 *     preceded by an smp_wmb's effect on the buffer, so the stores the
 *     CPU buffered before stay before S); an if/else on an access-free
 *     condition whose branches hold only such statements (LKMM's ctrl
 *     reaches the statements inside the if only, as herd7 computes it:
 *     a store after the if is not ordered by it; whichever branch runs,
 *     its registers and known locations count).  Anything else stops the
 *     search: smp_mb and its kin, smp_rmb (LKMM orders only loads against
 *     loads with it, but the hardware orders later stores too -- ARM's
 *     dmb ishld, Power's lwsync -- and the corpus's C-JO-OOTA-5, whose
 *     Result: Never says what the kernel relies on although herd7 finds
 *     it, would be reached), acquire loads (smp_load_acquire orders
 *     everything after it), releases, RMWs of every kind, locks, RCU and
 *     SRCU read-side sections and grace periods, barrier(), smp_wmb()
 *     inside an if, an if on a condition that loads.
 *     L's address also differs from S's.
 *  4. An exception to 3: S may pass rcu_read_unlock() (not inside an
 *     if), which moves it into the read-side section L is in (nothing
 *     between L and the unlock begins one: rcu_read_lock stops the
 *     search).  LKMM's rcu_read_unlock is no fence (C-RW-G+RW-R1+...,
 *     Sometimes, needs a store after a section performed before the
 *     section's load), and a store inside the section is bound by more
 *     of the RCU guarantee than one after it, never less: LKMM's
 *     rcu-link reaches a store po-after the section's lock either way,
 *     and now also ends at it ("prop ; po" to the unlock).  It never
 *     passes rcu_read_lock: moved out of a section it would escape the
 *     grace periods that wait for it (C-RW-G+RW-R1 would be reached,
 *     which LKMM forbids) -- unless the section goes with it:
 *  5. S may pass rcu_read_lock() (not inside an if) when that lock is
 *     performed early too, just before S (and skipped when reached):
 *     the section then begins before L and holds everything between,
 *     S included.  A section that holds more events is bound by more of
 *     the RCU guarantee (LKMM's rcu-link reaches from its lock and to
 *     its unlock through po), and two sections of a CPU merged into one
 *     (rules 4 and 5 together: "r = x; unlock; lock; y = 1") allow a
 *     grace period fewer places to fit: stronger, never weaker.
 *     C-RW-R2 ("r = x; lock; y = 1; unlock") and C-RW-R3 need it.
 * Under these rules LKMM relates S to nothing it passes (no dependency,
 * fence, same location, release/acquire, lock or RCU boundary between),
 * so each run is a run of the program with S moved up, whose outcomes
 * LKMM allows for the original too (ppo, the fences, po-loc and the
 * RCU/lock relations coincide).  sc and tso have no load buffering (x86
 * forbids it): this runs under weak only, and only for litmus tests
 * (the page-cache model's code is not an interpreter).
 */
#include "litmus/internal.h"
#include "memory/memory.h"

#include <string.h>

#define LB_DONE		32	/* stores performed early, not yet reached */
#define LB_ADDRS	32	/* addresses a store passes */
#define LB_LOCKS	4	/* rcu_read_locks a store passes */

int lit_lb_on;
uint8_t lit_lb_now[LIT_MAX_PROCS];

/* A process's stores performed early, until it reaches them. */
struct lbproc {
	const struct lit_stmt *done[LB_DONE];
	int ndone;
};

static struct lbproc lb[LIT_MAX_PROCS];
static struct litmus *test;

/* ---- classification ---------------------------------------------------- */

/* Access-free: registers, constants, locations' addresses, operators. */
static int pure(const struct lit_expr *e, uint64_t *regs)
{
	switch (e->kind) {
	case EX_NUM:
	case EX_LOC:
		return 1;
	case EX_REG:
		*regs |= (uint64_t)1 << e->idx;
		return 1;
	case EX_UN:
		return pure(e->a, regs);
	case EX_BIN:
		return pure(e->a, regs) && pure(e->b, regs);
	case EX_COND:
		return pure(e->a, regs) && pure(e->b, regs) && pure(e->c, regs);
	default:
		return 0;
	}
}

int lit_access_free(const struct lit_expr *e)
{
	uint64_t regs = 0;

	return pure(e, &regs);
}

/* A relaxed load of an access-free address: its address, else NULL. */
static struct lit_expr *load_of(const struct lit_expr *e, uint64_t *regs)
{
	struct lit_expr *a = NULL;

	if (e->kind == EX_DEREF)
		a = e->a;
	else if (e->kind == EX_CALL && e->nargs >= 1 &&
		 lit_prim_class(e->idx) == LBC_LOAD)
		a = e->args[0];
	return a && pure(a, regs) ? a : NULL;
}

static void classify(struct lit_stmt *s)
{
	const struct lit_expr *e = s->e;
	uint64_t a = 0, v = 0;

	s->lbc = LBC_OTHER;
	s->dreg = -1;
	s->addr = s->val = NULL;
	s->areads = s->vreads = 0;
	switch (s->kind) {
	case ST_NOP:
		s->lbc = LBC_NOP;
		return;
	case ST_BLOCK:
		for (int i = 0; i < s->n; i++)
			classify(s->body[i]);
		return;
	case ST_IF:
		classify(s->then);
		if (s->els)
			classify(s->els);
		if (pure(e, &v))
			s->lbc = LBC_IF;
		return;
	case ST_EXPR:
		break;
	}
	if (e->kind == EX_ASSIGN && e->a->kind == EX_REG) {
		s->dreg = (int8_t)e->a->idx;
		e = e->b;
	} else if (e->kind == EX_ASSIGN && e->a->kind == EX_DEREF) {
		if (pure(e->a->a, &a) && pure(e->b, &v)) {
			s->lbc = LBC_STORE;
			s->addr = e->a->a;
			s->val = e->b;
			s->areads = a;
			s->vreads = v;
		}
		return;
	}
	if (pure(e, &v)) {
		s->lbc = LBC_PURE;
		return;
	}
	if ((s->addr = load_of(e, &a))) {
		s->lbc = LBC_LOAD;
		s->areads = a;
		return;
	}
	if (e->kind != EX_CALL || s->dreg >= 0)
		return;
	switch (lit_prim_class(e->idx)) {
	case LBC_STORE:
		if (pure(e->args[0], &a) && pure(e->args[1], &v)) {
			s->lbc = LBC_STORE;
			s->addr = e->args[0];
			s->val = e->args[1];
			s->areads = a;
			s->vreads = v;
		}
		break;
	case LBC_RMB:
		s->lbc = LBC_RMB;
		break;
	case LBC_WMB:
		s->lbc = LBC_WMB;
		break;
	case LBC_RCU_UNLOCK:
	case LBC_RCU_LOCK:
		s->lbc = lit_prim_class(e->idx);
		break;
	}
}

void lit_lb_classify(struct litmus *l)
{
	for (int p = 0; p < l->nprocs; p++)
		classify(l->proc[p].body);
}


/* ---- a run ---------------------------------------------------------------- */

void lit_lb_reset(struct litmus *l)
{
	test = l;
	for (int p = 0; p < l->nprocs; p++) {
		lb[p].ndone = 0;
		lit_lb_now[p] = 0;
	}
	lit_lb_on = pr_mem_model() == PR_MEM_WEAK;
}

static int is_done(const struct lbproc *b, const struct lit_stmt *s)
{
	for (int k = 0; k < b->ndone; k++)
		if (b->done[k] == s)
			return 1;
	return 0;
}

/* The time of the values S's address was computed from (interp.c). */
static uint32_t addr_time(int proc, const struct lit_stmt *s)
{
	uint32_t t = 0;

	for (uint64_t m = s->areads; m; m &= m - 1) {
		uint32_t r = lit_reg_time(proc, __builtin_ctzll(m));

		if (r > t)
			t = r;
	}
	return t;
}

int lit_lb_skip(int proc, const struct lit_stmt *s)
{
	struct lbproc *b = &lb[proc];

	for (int k = 0; k < b->ndone; k++)
		if (b->done[k] == s) {
			b->done[k] = b->done[--b->ndone];
			/* Its address dependency, where it stands (see above). */
			pr_mem_dep(addr_time(proc, s));
			return 1;
		}
	return 0;
}

/* ---- the rules ------------------------------------------------------------ */

/* A known location address of @e (registers as they are now), or 0. */
static intptr_t where(int proc, const struct lit_expr *e)
{
	intptr_t a;

	if (lit_eval_pure(proc, e, &a) || !lit_is_location(test, a))
		return 0;
	return a;
}

static int seen(const intptr_t *addrs, int n, intptr_t a)
{
	for (int k = 0; k < n; k++)
		if (addrs[k] == a)
			return 1;
	return 0;
}

/* What the statements a store would pass add up to (first()). */
struct passed {
	intptr_t addrs[LB_ADDRS];	/* locations accessed */
	int na;
	uint64_t written;		/* registers set */
	int pending;			/* a store still to be performed */
	int wmb;			/* an smp_wmb */
	/* rcu_read_locks passed (rule 5): performed first */
	const struct lit_stmt *locks[LB_LOCKS];
	int nlocks;
};

/*
 * Can a store pass @t (rule 3)?  Adds what it accesses and sets to @ps;
 * 0 when nothing may pass it.  An if on an access-free condition may be
 * passed when everything in both branches may be: LKMM's control
 * dependency reaches the statements inside the if only (herd7's C
 * semantics), and whichever branch runs, it touches only locations
 * known now and sets registers S does not read.
 */
static int pass(int proc, const struct lbproc *b, const struct lit_stmt *t,
		struct passed *ps, int in_if)
{
	intptr_t a;

	if (is_done(b, t))
		return 1;
	switch (t->lbc) {
	case LBC_NOP:
		return 1;
	case LBC_PURE:
		if (t->dreg >= 0)
			ps->written |= (uint64_t)1 << t->dreg;
		return 1;
	case LBC_WMB:
		if (ps->pending || in_if)
			return 0;
		ps->wmb = 1;
		return 1;
	case LBC_LOAD:
	case LBC_STORE:
		if ((t->areads & ps->written) || ps->na == LB_ADDRS ||
		    !(a = where(proc, t->addr)))
			return 0;
		ps->addrs[ps->na++] = a;
		if (t->lbc == LBC_STORE)
			ps->pending = 1;
		else if (t->dreg >= 0)
			ps->written |= (uint64_t)1 << t->dreg;
		return 1;
	case LBC_RCU_UNLOCK:
		return !in_if;	/* rule 4 */
	case LBC_RCU_LOCK:	/* rule 5 */
		if (in_if || ps->nlocks == LB_LOCKS)
			return 0;
		ps->locks[ps->nlocks++] = t;
		return 1;
	case LBC_IF:
		return pass(proc, b, t->then, ps, 1) &&
		       (!t->els || pass(proc, b, t->els, ps, 1));
	default:
		if (t->kind != ST_BLOCK)
			return 0;
		for (int j = 0; j < t->n; j++)
			if (!pass(proc, b, t->body[j], ps, in_if))
				return 0;
		return 1;
	}
}

/*
 * The first store of @blk after statement @i (a load) that may go
 * before it (rules 1-3), or NULL; *@wmb: it passes an smp_wmb.
 */
static const struct lit_stmt *first(int proc, const struct lit_stmt *blk,
				    int i, int *wmb, struct passed *locks)
{
	const struct lbproc *b = &lb[proc];
	const struct lit_stmt *s = blk->body[i];
	struct passed ps;

	*wmb = 0;
	ps.na = 0;
	ps.pending = ps.wmb = 0;
	ps.nlocks = 0;
	if (!(ps.addrs[ps.na++] = where(proc, s->addr)))
		return NULL;
	ps.written = s->dreg >= 0 ? (uint64_t)1 << s->dreg : 0;
	for (int j = i + 1; j < blk->n; j++) {
		const struct lit_stmt *t = blk->body[j];
		intptr_t a;

		if (t->lbc == LBC_STORE && !is_done(b, t) &&
		    !((t->areads | t->vreads) & ps.written) &&
		    (a = where(proc, t->addr)) && !seen(ps.addrs, ps.na, a)) {
			*wmb = ps.wmb;
			*locks = ps;
			return t;
		}
		if (!pass(proc, b, t, &ps, 0))
			return NULL;
	}
	return NULL;
}

void lit_lb_early(struct litmus *l, int proc, const struct lit_stmt *blk,
		  int i)
{
	struct lbproc *b = &lb[proc];
	const struct lit_stmt *s;
	struct passed ps;
	int wmb;

	while (b->ndone < LB_DONE - LB_LOCKS &&
	       (s = first(proc, blk, i, &wmb, &ps))) {
		uint32_t saved;

		/* The sections it enters begin first, here (rule 5). */
		for (int k = 0; k < ps.nlocks; k++) {
			b->done[b->ndone++] = ps.locks[k];
			lit_exec(l, proc, ps.locks[k]);
		}
		b->done[b->ndone++] = s;
		/* The stores the CPU buffered stay before it (rule 3). */
		if (wmb)
			pr_mem_fence(PR_MF_WMB);
		/* Its dependencies are applied where it stands. */
		saved = lit_dep_begin(proc);
		lit_lb_now[proc] = 1;
		lit_exec(l, proc, s);
		lit_lb_now[proc] = 0;
		lit_dep_restore(proc, saved);
	}
}
