/* SPDX-License-Identifier: MIT */
/*
 * memory_models.c - the memory models (src/memory/) on the classic
 * shapes, run on the kernel's own primitives, and dpor against dfs under
 * tso and weak.
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
 *     model, in no more executions (the flush rules of dependence.c).
 *  3. Generated programs of stores, loads, fences and atomics under tso
 *     and weak: dpor's final states equal dfs's.
 *  4. A sampler (random) finds SB under tso and never under sc.
 */
#include "kernel/access.h"
#include "kernel/atomic.h"
#include "kernel/barrier.h"
#include "kernel/bitops.h"
#include "kernel/kernel.h"
#include "kernel/spinlock.h"
#include "memory/memory.h"
#include "runtime/run.h"
#include "strategy/dependence.h"
#include "strategy/strategy.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static struct pr_run_options ropts;

/* Shared variables and each CPU's registers; reset by setup. */
static int x, y;
static unsigned long z;
static int *ptr;
static atomic_t a;
static int r[4][4];

/* ---- final states ------------------------------------------------------- */

static struct stateset { uint64_t h[8192]; int n; } seen;
static int hit;			/* the shape's outcome was reached */
static int (*outcome)(void);

static void set_add(struct stateset *s, uint64_t h)
{
	for (int i = 0; i < s->n; i++)
		if (s->h[i] == h)
			return;
	if (s->n < 8192)
		s->h[s->n++] = h;
}

/* Every state of @p is in @q. */
static int set_sub(const struct stateset *p, const struct stateset *q)
{
	for (int i = 0; i < p->n; i++) {
		int found = 0;

		for (int j = 0; j < q->n && !found; j++)
			found = p->h[i] == q->h[j];
		if (!found)
			return 0;
	}
	return 1;
}

static int set_same(const struct stateset *p, const struct stateset *q)
{
	return p->n == q->n && set_sub(p, q);
}

static uint64_t state_hash(void)
{
	uint64_t h = 1469598103934665603ull;
	int v[4] = { x, y, z, atomic_read(&a) };

	for (int i = 0; i < 4; i++)
		h = (h ^ (uint64_t)(uint32_t)v[i]) * 1099511628211ull;
	for (int t = 0; t < 4; t++)
		for (int i = 0; i < 4; i++)
			h = (h ^ (uint64_t)(uint32_t)r[t][i]) * 1099511628211ull;
	return h;
}

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

/* A lock orders its critical sections under every model. */
static spinlock_t lk;
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
	{ "MP", { mp0, mp1 }, mp_out, { 0, 0, 1 }, 0 },
	{ "MP+wmb+rmb", { mpw0, mpr1 }, mp_out, { 0, 0, 0 }, 0 },
	{ "MP+release+acquire", { mprel0, mpacq1 }, mp_out, { 0, 0, 0 }, 0 },
	{ "MP+test_and_set_bit", { mplock0, mp1 }, mp_out, { 0, 0, 0 }, 0 },
	{ "MP+wmb (LKMM allows)", { mpw0, mp1 }, mp_out, { 0, 0, -1 }, 0 },
	{ "MP+rcu_assign_pointer", { pub0, pub1 }, pub_out, { 0, 0, 0 }, 0 },
	{ "MP+plain publish", { pubplain0, pub1 }, pub_out, { 0, 0, 1 }, 0 },
	{ "2+2W", { w2_0, w2_1 }, w2_out, { 0, 0, 1 }, 0 },
	{ "2+2W+wmbs", { w2w0, w2w1 }, w2_out, { 0, 0, 0 }, 0 },
	{ "LB (LKMM allows)", { lb0, lb1 }, lb_out, { 0, -1, -1 }, 0 },
	{ "WRC+release+acquire", { wrc0, wrc1, wrc2 }, wrc_out, { 0, 0, 0 }, 0 },
	{ "IRIW+mbs", { iw0, iw1, irm2, irm3 }, iriw_out, { 0, 0, 0 }, 1 },
	{ "IRIW (LKMM allows)", { iw0, iw1, ir2, ir3 }, iriw_out, { 0, 0, -1 }, 1 },
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

struct result {
	uint64_t runs, executions;
	int complete, failed;
};

/* @strat to the end of its tree (at most @budget runs). */
static struct result search(const struct pr_program *prog, const char *strat,
			    uint64_t budget)
{
	struct pr_strategy_params p = { .pct_depth = 3 };
	struct pr_strategy *s = pr_strategy_create(strat, &p);
	struct pr_run_result res;
	struct pr_coverage c;
	struct result out;

	memset(&out, 0, sizeof(out));
	seen.n = 0;
	hit = 0;
	while (!s->ops->exhausted(s) && out.runs < budget) {
		pr_run_once(prog, s, &ropts, 1, out.runs, NULL, &res);
		out.runs++;
		if ((res.failed || res.diverged) && !out.failed)
			diag("%s run %llu: %s: %s", strat,
			     (unsigned long long)out.runs, res.verdict.kind,
			     res.verdict.msg);
		out.failed |= res.failed || res.diverged;
	}
	s->ops->coverage(s, &c);
	out.executions = c.executions;
	out.complete = c.complete;
	s->ops->destroy(s);
	return out;
}

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
	pr_mem_select(PR_MEM_SC);
	outcome = NULL;
}

/* ---- 3. generated programs ---------------------------------------------- */

#define GT	3
#define GOPS	4
#define GVARS	2

enum { G_LOAD, G_STORE, G_WMB, G_MB, G_ADD_RET, G_INC, G_RELEASE, G_ACQUIRE,
       G_NKINDS };

static struct { int nt, n[GT], kind[GT][GOPS], var[GT][GOPS]; } gp;
static int gv[GVARS];

static void gen_cpu(void *arg)
{
	int t = (int)(intptr_t)arg;

	for (int i = 0; i < gp.n[t]; i++) {
		int *v = &gv[gp.var[t][i]];

		switch (gp.kind[t][i]) {
		case G_LOAD: r[t][i] = READ_ONCE(*v); break;
		case G_STORE: WRITE_ONCE(*v, t * 10 + i + 1); break;
		case G_WMB: smp_wmb(); break;
		case G_MB: smp_mb(); break;
		case G_ADD_RET: r[t][i] = atomic_add_return(1, (atomic_t *)v); break;
		case G_INC: atomic_inc((atomic_t *)v); break;
		case G_RELEASE: STORE_RELEASE(*v, t * 10 + i + 1); break;
		case G_ACQUIRE: r[t][i] = LOAD_DEP(*v); break;
		}
	}
}

static void gen_setup(void *arg)
{
	(void)arg;
	memset(gv, 0, sizeof(gv));
	memset(r, 0, sizeof(r));
	x = y = z = 0;
	atomic_set(&a, 0);
	for (int t = 0; t < gp.nt; t++)
		pr_spawn(t ? "cpu1" : "cpu0", gen_cpu, (void *)(intptr_t)t, 0);
}

static void gen_finish(void *arg)
{
	(void)arg;
	x = gv[0];
	y = gv[1];
	set_add(&seen, state_hash());
}

static const struct pr_program gen_prog = {
	.name = "generated", .summary = "generated",
	.setup = gen_setup, .finish = gen_finish,
};

static void test_generated(void)
{
	static struct stateset dfs_seen;
	static const int models[2] = { PR_MEM_TSO, PR_MEM_WEAK };
	unsigned seed = 12345;
	int agree[2] = { 0, 0 }, cut[2] = { 0, 0 }, n = 150;
	uint64_t runs[2][2] = { { 0, 0 }, { 0, 0 } };

	for (int k = 0; k < n; k++) {
		gp.nt = 2 + (k % 3 == 0);
		for (int t = 0; t < gp.nt; t++) {
			seed = seed * 1103515245u + 12345u;
			gp.n[t] = gp.nt == 3 ? 1 + (int)(seed >> 16) % 2
					     : 2 + (int)(seed >> 16) % 2;
			for (int i = 0; i < gp.n[t]; i++) {
				seed = seed * 1103515245u + 12345u;
				gp.kind[t][i] = (int)(seed >> 16) % G_NKINDS;
				/* Mostly accesses: fences only matter between them. */
				if ((seed >> 8) % 3 == 0)
					gp.kind[t][i] = (int)(seed >> 20) % 2;
				gp.var[t][i] = (int)(seed >> 24) % GVARS;
			}
		}
		for (int m = 0; m < 2; m++) {
			struct result d, p;

			pr_mem_select(models[m]);
			d = search(&gen_prog, "dfs", 100000);
			dfs_seen = seen;
			p = search(&gen_prog, "dpor", 100000);
			runs[m][0] += d.runs;
			runs[m][1] += p.runs;
			/* A dfs cut by the budget saw a subset: dpor has it. */
			if (p.complete && !d.failed && !p.failed &&
			    (d.complete ? set_same(&seen, &dfs_seen)
					: set_sub(&dfs_seen, &seen)))
				agree[m]++;
			else
				diag("program %d under %s: dfs %d states (%s), "
				     "dpor %d (%s)", k, pr_mem_name(models[m]),
				     dfs_seen.n, d.complete ? "complete" : "cut",
				     seen.n, p.complete ? "complete" : "cut");
			cut[m] += !d.complete;
		}
	}
	pr_mem_select(PR_MEM_SC);
	for (int m = 0; m < 2; m++)
		ok(agree[m] == n && cut[m] < n / 4, "generated under %s: dpor "
		   "reaches exactly dfs's final states (%d/%d programs, %d "
		   "where dfs ran out of budget: a superset; %llu dfs runs, "
		   "%llu dpor runs)", pr_mem_name(models[m]), agree[m], n,
		   cut[m], (unsigned long long)runs[m][0],
		   (unsigned long long)runs[m][1]);
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
		e.flags |= PR_EV_WROTE;
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

	ok(pr_dependent(&f0, &f1), "rule 6: two flushes of one buffer depend");
	ok(!pr_dependent(&f0, &g1), "rule 6: flushes of two buffers to two "
	   "words commute");
	ok(pr_dependent(&f1, &g1), "rule 6: flushes to one word depend "
	   "(coherence order)");
	ok(pr_dependent(&f0, &l0) && !pr_dependent(&f0, &l1),
	   "rule 6: a flush is a write of its word to other CPUs' loads");
	ok(pr_event_proc(PR_CHOICE_MEM + 0 * PR_MEM_SLOTS + 1) == PR_MAX_PROCS - 2,
	   "a flush's process counts down from the top");
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
	test_generated();
	test_random();
	return done_testing();
}
