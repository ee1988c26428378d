/* SPDX-License-Identifier: MIT */
/*
 * memory_models.c - the memory models (src/memory/) on the classic
 * shapes, run on the kernel's own primitives.
 *
 *  1. Shapes, each explored to the end of its tree by dfs under sc, tso
 *     and weak: whether the "weak" outcome is reachable must be what the
 *     model promises -- SB allowed under tso and weak, forbidden under sc
 *     and with smp_mb (or a value-returning atomic); MP forbidden under sc
 *     and tso, allowed under weak without barriers, forbidden with
 *     smp_wmb + smp_rmb, with release/acquire and with
 *     rcu_assign_pointer/rcu_dereference; 2+2W allowed under weak only;
 *     WRC and IRIW with the barriers LKMM needs forbidden; coherence
 *     (CoRR) and store forwarding everywhere.  Outcomes LKMM allows but
 *     these models never show (LB, MP+wmb without smp_rmb, IRIW without
 *     barriers) are reported, not asserted either way: stronger than
 *     LKMM is sound.
 *  2. dpor reaches the same final states as dfs on every shape and
 *     model, in no more executions; preemption bounds and early flushes.
 *  3. Rule 6 of strategy/dependence.c, directly.
 *  4. A sampler (random) finds SB under tso and never under sc.
 * Generated programs and the use-after-free check: tests/memory_dpor.c.
 */
#include "memory_common.h"

static int *ptr;
static int (*outcome)(void);	/* the shape's weak outcome */

/* ---- shapes ------------------------------------------------------------- */

typedef void (*body)(int *r);

struct shape {
	const char *name;
	body cpu[4];
	int (*outcome)(void);
	int allowed[3];		/* reachable under sc, tso, weak; -1: not asserted */
	int big;		/* 4 CPUs: too many executions for full dfs */
};

static void sb0(int *q) { WRITE_ONCE(x, 1); q[0] = READ_ONCE(y); }
static void sb1(int *q) { WRITE_ONCE(y, 1); q[0] = READ_ONCE(x); }
static void sbm0(int *q) { WRITE_ONCE(x, 1); smp_mb(); q[0] = READ_ONCE(y); }
static void sbm1(int *q) { WRITE_ONCE(y, 1); smp_mb(); q[0] = READ_ONCE(x); }
static void sbx0(int *q) { WRITE_ONCE(x, 1); atomic_inc_return(&a); q[0] = READ_ONCE(y); }
static void sbx1(int *q) { WRITE_ONCE(y, 1); atomic_inc_return(&a); q[0] = READ_ONCE(x); }
static void sbi0(int *q) { WRITE_ONCE(x, 1); atomic_inc(&a); q[0] = READ_ONCE(y); }
static void sbi1(int *q) { WRITE_ONCE(y, 1); atomic_inc(&a); q[0] = READ_ONCE(x); }
static void sbr0(int *q) { WRITE_ONCE(x, 1); atomic_inc_return_relaxed(&a); q[0] = READ_ONCE(y); }
static void sbr1(int *q) { WRITE_ONCE(y, 1); atomic_inc_return_relaxed(&a); q[0] = READ_ONCE(x); }
static int sb_out(void) { return r[0][0] == 0 && r[1][0] == 0; }

static void mp0(int *q) { (void)q; WRITE_ONCE(x, 1); WRITE_ONCE(y, 1); }
static void mp1(int *q) { q[0] = READ_ONCE(y); q[1] = READ_ONCE(x); }
static void mpw0(int *q) { (void)q; WRITE_ONCE(x, 1); smp_wmb(); WRITE_ONCE(y, 1); }
static void mpr1(int *q) { q[0] = READ_ONCE(y); smp_rmb(); q[1] = READ_ONCE(x); }
static void mprel0(int *q) { (void)q; WRITE_ONCE(x, 1); STORE_RELEASE(y, 1); }
static void mpacq1(int *q) { q[0] = LOAD_DEP(y); q[1] = READ_ONCE(x); }
static void mplock0(int *q) { (void)q; WRITE_ONCE(x, 1); test_and_set_bit(0, (unsigned long *)&z); WRITE_ONCE(y, 1); }
static int mp_out(void) { return r[1][0] == 1 && r[1][1] == 0; }

/* Publication through a pointer: rcu_assign_pointer / rcu_dereference. */
static void pub0(int *q)
{
	(void)q;
	WRITE_ONCE(x, 42);
	rcu_assign_pointer(ptr, &x);
}
static void pubplain0(int *q)
{
	(void)q;
	WRITE_ONCE(x, 42);
	WRITE_ONCE(ptr, &x);
}
static void pub1(int *q)
{
	int *p = rcu_dereference(ptr);

	q[0] = p != NULL;
	q[1] = p ? READ_ONCE(*p) : -1;
}
static int pub_out(void) { return r[1][0] == 1 && r[1][1] != 42; }

static void w2_0(int *q) { (void)q; WRITE_ONCE(x, 1); WRITE_ONCE(y, 2); }
static void w2_1(int *q) { (void)q; WRITE_ONCE(y, 1); WRITE_ONCE(x, 2); }
static void w2w0(int *q) { (void)q; WRITE_ONCE(x, 1); smp_wmb(); WRITE_ONCE(y, 2); }
static void w2w1(int *q) { (void)q; WRITE_ONCE(y, 1); smp_wmb(); WRITE_ONCE(x, 2); }
static int w2_out(void) { return x == 1 && y == 1; }

static void lb0(int *q) { q[0] = READ_ONCE(x); WRITE_ONCE(y, 1); }
static void lb1(int *q) { q[0] = READ_ONCE(y); WRITE_ONCE(x, 1); }
static int lb_out(void) { return r[0][0] == 1 && r[1][0] == 1; }

/* WRC with a release on the middle CPU and an acquire on the last. */
static void wrc0(int *q) { (void)q; WRITE_ONCE(x, 1); }
static void wrc1(int *q) { q[0] = READ_ONCE(x); STORE_RELEASE(y, 1); }
static void wrc2(int *q) { q[0] = LOAD_DEP(y); q[1] = READ_ONCE(x); }
static int wrc_out(void) { return r[1][0] == 1 && r[2][0] == 1 && r[2][1] == 0; }

/* IRIW, with and without smp_mb between the readers' loads. */
static void iw0(int *q) { (void)q; WRITE_ONCE(x, 1); }
static void iw1(int *q) { (void)q; WRITE_ONCE(y, 1); }
static void ir2(int *q) { q[0] = READ_ONCE(x); q[1] = READ_ONCE(y); }
static void ir3(int *q) { q[0] = READ_ONCE(y); q[1] = READ_ONCE(x); }
static void irm2(int *q) { q[0] = READ_ONCE(x); smp_mb(); q[1] = READ_ONCE(y); }
static void irm3(int *q) { q[0] = READ_ONCE(y); smp_mb(); q[1] = READ_ONCE(x); }
static int iriw_out(void)
{
	return r[2][0] == 1 && r[2][1] == 0 && r[3][0] == 1 && r[3][1] == 0;
}

/* CoRR: two loads of one location never see its stores out of order. */
static void co0(int *q) { (void)q; WRITE_ONCE(x, 1); WRITE_ONCE(x, 2); }
static void co1(int *q) { q[0] = READ_ONCE(x); q[1] = READ_ONCE(x); }
static int co_out(void) { return r[1][0] == 2 && r[1][1] == 1; }

/* A CPU reads its own store (forwarding), whatever the buffer holds. */
static void fw0(int *q) { WRITE_ONCE(x, 1); WRITE_ONCE(y, 3); q[0] = READ_ONCE(x); }
static void fw1(int *q) { WRITE_ONCE(x, 2); q[0] = READ_ONCE(x); }
static int fw_out(void) { return r[0][0] == 0 || r[1][0] == 0; }

/*
 * Stale reads (weak): the reader's side of MP.  An address dependency
 * through a pointer-typed READ_ONCE orders like rcu_dereference; a lock
 * passes the unlocker's view to the next locker; a release publishes
 * everything its CPU had read (WRC above); an RCU grace period bounds
 * what a later read-side section may read.
 */
static void pubonce1(int *q)
{
	int *p = READ_ONCE(ptr);

	q[0] = p != NULL;
	q[1] = p ? READ_ONCE(*p) : -1;
}
static spinlock_t lk;
static void mplk0(int *q)
{
	(void)q;
	spin_lock(&lk);
	WRITE_ONCE(x, 1);
	WRITE_ONCE(y, 1);
	spin_unlock(&lk);
}
static void mplk1(int *q)
{
	spin_lock(&lk);
	q[0] = READ_ONCE(y);
	q[1] = READ_ONCE(x);
	spin_unlock(&lk);
}
static void rcusync0(int *q)
{
	(void)q;
	WRITE_ONCE(x, 1);
	synchronize_rcu();
	WRITE_ONCE(y, 1);
}
static void rcusync1(int *q)
{
	rcu_read_lock();
	q[0] = READ_ONCE(y);
	q[1] = READ_ONCE(x);
	rcu_read_unlock();
}
/* A CPU's two loads of one location: the second never reads older. */
static void corr1(int *q) { q[0] = READ_ONCE(x); smp_rmb(); q[1] = READ_ONCE(y); }
static void corw0(int *q) { (void)q; WRITE_ONCE(y, 1); smp_wmb(); WRITE_ONCE(x, 1); }
static int corr_out(void) { return r[1][0] == 1 && r[1][1] == 0; }

/* A lock orders its critical sections under every model. */
static void lk0(int *q)
{
	spin_lock(&lk);
	q[0] = LOAD(x);
	STORE(x, q[0] + 1);
	spin_unlock(&lk);
}
static int lk_out(void) { return x != 2; }

static const struct shape shapes[] = {
	{ "SB", { sb0, sb1 }, sb_out, { 0, 1, 1 }, 0 },
	{ "SB+mbs", { sbm0, sbm1 }, sb_out, { 0, 0, 0 }, 0 },
	{ "SB+atomic_inc_returns", { sbx0, sbx1 }, sb_out, { 0, 0, 0 }, 0 },
	{ "SB+atomic_incs", { sbi0, sbi1 }, sb_out, { 0, 0, 1 }, 0 },
	{ "SB+atomic_inc_return_relaxeds", { sbr0, sbr1 }, sb_out, { 0, 0, 1 }, 0 },
	{ "MP", { mp0, mp1 }, mp_out, { 0, 0, 1 }, 0 },
	{ "MP+wmb+rmb", { mpw0, mpr1 }, mp_out, { 0, 0, 0 }, 0 },
	{ "MP+release+acquire", { mprel0, mpacq1 }, mp_out, { 0, 0, 0 }, 0 },
	{ "MP+test_and_set_bit+rmb", { mplock0, mpr1 }, mp_out, { 0, 0, 0 }, 0 },
	{ "MP+test_and_set_bit, reader unordered (LKMM allows)",
	  { mplock0, mp1 }, mp_out, { 0, 0, 1 }, 0 },
	{ "MP+wmb, no smp_rmb (LKMM allows)", { mpw0, mp1 }, mp_out,
	  { 0, 0, 1 }, 0 },
	{ "MP+wmb+pointer READ_ONCE (address dependency)", { pub0, pubonce1 },
	  pub_out, { 0, 0, 0 }, 0 },
	{ "MP+locks", { mplk0, mplk1 }, mp_out, { 0, 0, 0 }, 0 },
	{ "MP+synchronize_rcu+read-side section", { rcusync0, rcusync1 },
	  mp_out, { 0, 0, 0 }, 0 },
	{ "MP+wmb+rmb, the other way round",
	  { corw0, corr1 }, corr_out, { 0, 0, 0 }, 0 },
	{ "MP+rcu_assign_pointer", { pub0, pub1 }, pub_out, { 0, 0, 0 }, 0 },
	{ "MP+plain publish", { pubplain0, pub1 }, pub_out, { 0, 0, 1 }, 0 },
	{ "2+2W", { w2_0, w2_1 }, w2_out, { 0, 0, 1 }, 0 },
	{ "2+2W+wmbs", { w2w0, w2w1 }, w2_out, { 0, 0, 0 }, 0 },
	{ "LB (LKMM allows)", { lb0, lb1 }, lb_out, { 0, -1, -1 }, 0 },
	{ "WRC+release+acquire", { wrc0, wrc1, wrc2 }, wrc_out, { 0, 0, 0 }, 0 },
	{ "IRIW+mbs", { iw0, iw1, irm2, irm3 }, iriw_out, { 0, 0, 0 }, 1 },
	{ "IRIW (LKMM allows)", { iw0, iw1, ir2, ir3 }, iriw_out, { 0, 0, 1 }, 1 },
	{ "CoRR", { co0, co1 }, co_out, { 0, 0, 0 }, 0 },
	{ "forwarding", { fw0, fw1 }, fw_out, { 0, 0, 0 }, 0 },
	{ "spinlock", { lk0, lk0 }, lk_out, { 0, 0, 0 }, 0 },
};

static const struct shape *cur_shape;

static void shape_cpu(void *arg)
{
	int t = (int)(intptr_t)arg;

	cur_shape->cpu[t](r[t]);
}

static void shape_setup(void *arg)
{
	(void)arg;
	kernel_reset(4);
	x = y = z = 0;
	ptr = NULL;
	atomic_set(&a, 0);
	spin_lock_init(&lk);
	memset(r, 0, sizeof(r));
	for (int t = 0; t < 4 && cur_shape->cpu[t]; t++) {
		char name[8] = "cpu0";

		name[3] = (char)('0' + t);
		pr_spawn(name, shape_cpu, (void *)(intptr_t)t, 0);
	}
}

static void finish(void *arg)
{
	(void)arg;
	set_add(&seen, state_hash());
	if (outcome && outcome())
		hit = 1;
}

static const struct pr_program shape_prog = {
	.name = "shape", .summary = "shape",
	.setup = shape_setup, .finish = finish,
};


static void test_shapes(void)
{
	static const int models[3] = { PR_MEM_SC, PR_MEM_TSO, PR_MEM_WEAK };
	static struct stateset dfs_seen;

	for (size_t i = 0; i < sizeof(shapes) / sizeof(*shapes); i++) {
		const struct shape *sh = &shapes[i];

		cur_shape = sh;
		outcome = sh->outcome;
		for (int m = 0; m < 3; m++) {
			struct result d, p;
			int dhit;

			pr_mem_select(models[m]);
			if (sh->big) {
				/* dpor alone; its agreement with dfs is below. */
				p = search(&shape_prog, "dpor", 200000);
				if (sh->allowed[m] >= 0)
					ok(p.complete && !p.failed &&
					   hit == sh->allowed[m],
					   "%s under %s: outcome %s (dpor, %llu "
					   "executions)", sh->name,
					   pr_mem_name(models[m]), sh->allowed[m] ?
					   "reachable" : "never reached",
					   (unsigned long long)p.executions);
				else
					diag("%s under %s: outcome %s (LKMM "
					     "allows it; memory.h says why we "
					     "may not)", sh->name,
					     pr_mem_name(models[m]),
					     hit ? "reached" : "not reached");
				continue;
			}
			d = search(&shape_prog, "dfs", 200000);
			dhit = hit;
			dfs_seen = seen;
			p = search(&shape_prog, "dpor", 200000);
			if (sh->allowed[m] >= 0)
				ok(d.complete && !d.failed && dhit == sh->allowed[m],
				   "%s under %s: outcome %s (dfs, %llu executions)",
				   sh->name, pr_mem_name(models[m]),
				   sh->allowed[m] ? "reachable" : "never reached",
				   (unsigned long long)d.executions);
			else
				diag("%s under %s: outcome %s (LKMM allows it; "
				     "memory.h says why we may not)", sh->name,
				     pr_mem_name(models[m]),
				     dhit ? "reached" : "not reached");
			ok(p.complete && !p.failed && set_same(&seen, &dfs_seen) &&
			   hit == dhit && p.executions <= d.executions,
			   "%s under %s: dpor reaches dfs's %d final states in "
			   "%llu executions (dfs %llu)", sh->name,
			   pr_mem_name(models[m]), dfs_seen.n,
			   (unsigned long long)p.executions,
			   (unsigned long long)d.executions);
		}
	}
	/*
	 * Bounds: an early flush (the running context could go on) counts as
	 * a preemption, one after the context finished does not -- so SB,
	 * which needs no early flush, is within bound 0 under tso, and the
	 * bounded search is smaller than the unbounded one.
	 */
	cur_shape = &shapes[0];
	outcome = sb_out;
	pr_mem_select(PR_MEM_TSO);
	{
		struct result full = search(&shape_prog, "dfs", 200000), b0;
		int full_hit = hit;

		search_bound = 0;
		b0 = search(&shape_prog, "dfs", 200000);
		ok(full_hit && hit && b0.complete &&
		   b0.executions < full.executions,
		   "SB under tso with preemption bound 0: reached in %llu "
		   "executions (unbounded %llu)",
		   (unsigned long long)b0.executions,
		   (unsigned long long)full.executions);
		b0 = search(&shape_prog, "dpor", 200000);
		ok(hit && b0.complete, "... and by bounded dpor (%llu executions)",
		   (unsigned long long)b0.executions);
		search_bound = -1;
	}
	pr_mem_select(PR_MEM_SC);
	outcome = NULL;
}


/* ---- rule 6 of dependence.c, directly ----------------------------------- */

static struct pr_event mev(int proc, int ctx, int kind, const void *obj,
			   int flush)
{
	struct pr_event e;

	memset(&e, 0, sizeof(e));
	e.proc = (uint8_t)proc;
	e.ctx = (uint8_t)ctx;
	e.kind = (uint8_t)kind;
	e.obj = obj;
	e.size = 4;
	if (PR_KIND_WRITES(kind))
		e.flags |= PR_EV_WROTE | PR_EV_WDATA;
	if (flush)
		e.flags |= PR_EV_FLUSH;
	return e;
}

static void test_rule6(void)
{
	static int u[2];
	struct pr_event f0 = mev(63, 0, PR_K_STORE, &u[0], 1);
	struct pr_event f1 = mev(62, 0, PR_K_STORE, &u[1], 1);
	struct pr_event g1 = mev(59, 1, PR_K_STORE, &u[1], 1);
	struct pr_event l0 = mev(1, 1, PR_K_LOAD, &u[0], 0);
	struct pr_event l1 = mev(1, 1, PR_K_LOAD, &u[1], 0);

	struct pr_event f1g = f1, f1r = f1;

	f1g.order = 2;		/* after an smp_wmb */
	f1r.order = 1;		/* a release, or any store under tso */
	ok(!pr_dependent(&f0, &f1), "rule 6: two flushes of one buffer, one "
	   "smp_wmb group, two words commute");
	ok(pr_dependent(&f0, &f1g) && pr_dependent(&f0, &f1r),
	   "rule 6: ... but not across an smp_wmb, nor with a release");
	ok(!pr_dependent(&f0, &g1), "rule 6: flushes of two buffers to two "
	   "words commute");
	ok(pr_dependent(&f1, &g1), "rule 6: flushes to one word depend "
	   "(coherence order)");
	ok(pr_dependent(&f0, &l0) && !pr_dependent(&f0, &l1),
	   "rule 6: a flush is a write of its word to other CPUs' loads");
	ok(pr_event_proc(PR_CHOICE_MEM + 1) < 0,
	   "a flush's process is the search tree's to number");
}


/* ---- 4. a sampler ------------------------------------------------------- */

static void test_random(void)
{
	struct pr_strategy *s;
	struct pr_run_result res;
	int found[2] = { 0, 0 };

	cur_shape = &shapes[0];		/* SB */
	outcome = sb_out;
	for (int m = 0; m < 2; m++) {
		pr_mem_select(m ? PR_MEM_TSO : PR_MEM_SC);
		s = pr_strategy_create("random", NULL);
		hit = 0;
		for (uint64_t run = 0; run < 500; run++) {
			pr_run_once(&shape_prog, s, &ropts, 1, run, NULL, &res);
			found[m] += hit;
			hit = 0;
		}
		s->ops->destroy(s);
	}
	pr_mem_select(PR_MEM_SC);
	outcome = NULL;
	ok(found[0] == 0, "random, 500 runs of SB under sc: never both 0");
	ok(found[1] > 0, "random, 500 runs of SB under tso: both 0 in %d runs",
	   found[1]);
}

int main(void)
{
	pr_run_options_default(&ropts);
	test_rule6();
	test_shapes();
	test_random();
	return done_testing();
}
