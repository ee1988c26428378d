/* SPDX-License-Identifier: MIT */
/*
 * memory_dpor.c - dpor against dfs under tso and weak, and a store that
 * lands after a free.
 *
 *  1. Generated programs of stores, loads, fences (smp_rmb too) and
 *     atomics on two variables, 2 or 3 CPUs, under tso and weak: dpor's
 *     final states equal dfs's (a superset where dfs ran out of budget)
 *     -- the check that flushes, and under weak the loads that read
 *     older values and the memory clock their floors depend on, have a
 *     sound place in the dependence relation.
 *  2. A store still in its CPU's buffer when another CPU frees the
 *     object (the free was ordered after a later store only) is a
 *     use-after-free under weak, and not with smp_wmb or under tso/sc.
 *  3. No step of a grace period's updater overflows dpor's record of its
 *     effects (effects.h), under any model.
 *  4. A store's race with its own flush, not reversed, and the race of a
 *     grace period's drain with the store that stands in for it.
 */
#include "memory_common.h"
#include "strategy/dpor.h"
#include "strategy/tree.h"

/* ---- 3. generated programs ---------------------------------------------- */

#define GT	3
#define GOPS	4
#define GVARS	3

enum { G_LOAD, G_STORE, G_WMB, G_MB, G_ADD_RET, G_INC, G_RELEASE, G_ACQUIRE,
       G_RMB, G_NKINDS };

static struct { int nt, n[GT], kind[GT][GOPS], var[GT][GOPS]; } gp;
static int gvars = 2;		/* variables the program uses */
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
		case G_RMB: smp_rmb(); break;
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
	z = (unsigned long)gv[2];

	set_add(&seen, state_hash());
}

static const struct pr_program gen_prog = {
	.name = "generated", .summary = "generated",
	.setup = gen_setup, .finish = gen_finish,
};

/*
 * Three variables (@three 1): CPU 0 makes one access, CPU 1 two, CPU 2
 * three, most of them loads -- two ints side by side, where a load must
 * not lose its older values to the flush of its own store to the next
 * one (memory/flush.c, hook_reads).  @three 2: CPU 0 stores, CPU 1
 * stores, does anything, stores, CPU 2 loads, does anything, loads --
 * shapes where a load's older values depend on the order of two flushes
 * to different locations that nothing else orders
 * (tests/litmus/flush-order.litmus), which dpor lets commute unless such
 * a load observes them (strategy/dpor_race.c, observed()).
 */
static void gen_program(unsigned *seed, int k, int three)
{
	gp.nt = three ? 3 : 2 + (k % 3 == 0);
	for (int t = 0; t < gp.nt; t++) {
		*seed = *seed * 1103515245u + 12345u;
		if (three == 1)
			gp.n[t] = t + 1;
		else if (three)
			gp.n[t] = t ? 3 : 1;
		else
			gp.n[t] = gp.nt == 3 ? 1 + (int)(*seed >> 16) % 2
					     : 2 + (int)(*seed >> 16) % 2;
		for (int i = 0; i < gp.n[t]; i++) {
			*seed = *seed * 1103515245u + 12345u;
			gp.kind[t][i] = (int)(*seed >> 16) % G_NKINDS;
			/* Mostly accesses: fences only matter between them. */
			if ((*seed >> 8) % 3 == 0)
				gp.kind[t][i] = (int)(*seed >> 20) % 2;
			if (three == 2 && (t == 0 || (t == 1 && i != 1)))
				gp.kind[t][i] = G_STORE;
			else if (three && t == 2 && i != 1)
				gp.kind[t][i] = G_LOAD;
			gp.var[t][i] = (int)(*seed >> 24) % gvars;
		}
	}
	/*
	 * flush-order's family: CPU 0 on x, CPU 1 writes y and z (either
	 * order) around its middle access, CPU 2 reads them back the other
	 * way round around its middle access to x.
	 */
	if (three == 2) {
		static const int mid1[4] = { G_WMB, G_MB, G_RELEASE, G_STORE };
		static const int mid2[4] = { G_ACQUIRE, G_RMB, G_ADD_RET, G_LOAD };
		int v = 1 + (int)(*seed >> 12) % 2;

		/* Mostly barriers between: an observer needs a floor. */
		if ((*seed >> 4) % 4)
			gp.kind[1][1] = mid1[(*seed >> 6) % 4];
		if ((*seed >> 8) % 4)
			gp.kind[2][1] = mid2[(*seed >> 10) % 4];
		gp.var[0][0] = 0;
		gp.var[1][0] = gp.var[2][2] = v;
		gp.var[1][2] = gp.var[2][0] = 3 - v;
		gp.var[2][1] = 0;
	}
}

static void test_generated(int three, int n)
{
	static struct stateset dfs_seen;
	static const int models[2] = { PR_MEM_TSO, PR_MEM_WEAK };
	unsigned seed = three ? 4242 : 12345;
	int agree[2] = { 0, 0 }, cut[2] = { 0, 0 };
	uint64_t runs[2][2] = { { 0, 0 }, { 0, 0 } };

	gvars = three ? 3 : 2;
	for (int k = 0; k < n; k++) {
		gen_program(&seed, k, three);

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
		ok(agree[m] == n && cut[m] < n / 3, "generated (%d variables) "
		   "under %s: dpor "
		   "reaches exactly dfs's final states (%d/%d programs, %d "
		   "where dfs ran out of budget: a superset; %llu dfs runs, "
		   "%llu dpor runs)", gvars, pr_mem_name(models[m]), agree[m], n,
		   cut[m], (unsigned long long)runs[m][0],
		   (unsigned long long)runs[m][1]);
}


/*
 * The observer rule on programs too big for dfs (@three 2): dpor's final
 * states under weak equal those of dpor with every two writes to memory
 * dependent (pr_dpor_ticks 1, the reference rule, itself checked
 * against dfs above); with the bumps commuting and no observer rule
 * (pr_dpor_ticks 2, planted) some program loses states, so the check
 * sees the rule.  Likewise the sleepers on the branches observers ask
 * for: they wake at the bumps of the processes recorded in tickfrom;
 * waking at every bump (5, the rule before) reaches the same states,
 * waking at none (4: no marks; 6: marks without tickfrom) loses some.
 */
static void test_observers(int n)
{
	static struct stateset ref;
	unsigned seed = 777;
	int agree = 0, lost = 0, lost4 = 0, lost6 = 0, lostf = 0, any = 0;
	uint64_t runs[3] = { 0, 0, 0 };

	gvars = 3;
	pr_mem_select(PR_MEM_WEAK);
	for (int k = 0; k < n; k++) {
		struct result o, p, u;

		gen_program(&seed, k, 2);
		pr_dpor_ticks = 1;
		o = search(&gen_prog, "dpor", 1000000);
		ref = seen;
		pr_dpor_ticks = 2;
		u = search(&gen_prog, "dpor", 1000000);
		lost += !set_same(&seen, &ref);
		pr_dpor_ticks = 4;
		(void)search(&gen_prog, "dpor", 1000000);
		lost4 += !set_same(&seen, &ref);
		pr_dpor_ticks = 6;
		(void)search(&gen_prog, "dpor", 1000000);
		lost6 += !set_same(&seen, &ref);
		pr_dpor_ticks = 5;
		(void)search(&gen_prog, "dpor", 1000000);
		any += set_same(&seen, &ref);
		pr_dpor_ticks = 0;
		pr_stale_sources = 1;
		(void)search(&gen_prog, "dpor", 1000000);
		pr_stale_sources = 0;
		lostf += !set_same(&seen, &ref);
		pr_dpor_ticks = 0;
		p = search(&gen_prog, "dpor", 1000000);
		runs[0] += o.runs;
		runs[1] += p.runs;
		runs[2] += u.runs;
		if (o.complete && p.complete && !o.failed && !p.failed &&
		    set_same(&seen, &ref))
			agree++;
		else
			diag("program %d: %d states with ticks ordered (%s), "
			     "%d with observers (%s)", k, ref.n,
			     o.complete ? "complete" : "cut", seen.n,
			     p.complete ? "complete" : "cut");
	}
	pr_mem_select(PR_MEM_SC);
	ok(agree == n, "weak, 3 CPUs, 7 accesses: dpor with observers reaches "
	   "exactly the final states of dpor with every two writes to memory "
	   "dependent (%d/%d programs; %llu runs against %llu)", agree, n,
	   (unsigned long long)runs[1], (unsigned long long)runs[0]);
	ok(lost > 0, "without the observer rule, %d of %d programs lose final "
	   "states (%llu runs)", lost, n, (unsigned long long)runs[2]);
	ok(lost4 > 0, "without waking sleepers at bumps on the branches "
	   "observers ask for, %d of %d programs lose final states", lost4, n);
	ok(any == n, "waking them at every bump (the rule before tickfrom) "
	   "reaches the same final states (%d/%d programs)", any, n);
	ok(lost6 > 0, "with the branches marked but the bumps they put first "
	   "not recorded (tickfrom), %d of %d programs lose final states",
	   lost6, n);
	ok(lostf > 0, "with floors that forget the write an acquire load "
	   "read, %d of %d programs lose final states", lostf, n);
}

/*
 * Stale reads a reordering gives (dpor_reverse.c, dpor_stale_redundant):
 * on the flush-order family under weak, dpor that skips an older value
 * whose newer writes the load does not otherwise need, and lets a load
 * with older values sleep when each value's step touched the same
 * (tree.c, note_version), reaches exactly the final states of dpor that
 * reads every older value and never puts such a load to sleep
 * (pr_dpor_stale 1, pr_tree_stale_wake 1: the rules test_generated
 * checked against dfs before these two);
 * with the planted rule (2: the load needs nothing) some program loses
 * states, so the check sees the rule's condition.
 */
static void test_stale(int n)
{
	static struct stateset ref;
	unsigned seed = 4711;
	int agree = 0, lost = 0;
	uint64_t runs[3] = { 0, 0, 0 };

	gvars = 3;
	pr_mem_select(PR_MEM_WEAK);
	for (int k = 0; k < n; k++) {
		struct result o, p, u;

		gen_program(&seed, k, k % 2 ? 2 : 1);
		pr_dpor_stale = 1;
		pr_tree_stale_wake = 1;
		o = search(&gen_prog, "dpor", 1000000);
		ref = seen;
		pr_tree_stale_wake = 0;
		pr_dpor_stale = 2;
		u = search(&gen_prog, "dpor", 1000000);
		lost += !set_same(&seen, &ref);
		pr_dpor_stale = 0;
		p = search(&gen_prog, "dpor", 1000000);
		runs[0] += o.runs;
		runs[1] += p.runs;
		runs[2] += u.runs;
		if (o.complete && p.complete && !o.failed && !p.failed &&
		    set_same(&seen, &ref))
			agree++;
		else
			diag("program %d: %d states reading every older value "
			     "(%s), %d skipping (%s)", k, ref.n,
			     o.complete ? "complete" : "cut", seen.n,
			     p.complete ? "complete" : "cut");
	}
	pr_mem_select(PR_MEM_SC);
	ok(agree == n, "weak, 3 CPUs: dpor skipping the older values a "
	   "reordering reads as the newest, and letting such loads sleep, "
	   "reaches exactly the final states of dpor reading every one and "
	   "never (%d/%d programs; %llu runs against %llu)", agree, n, (unsigned long long)runs[1],
	   (unsigned long long)runs[0]);
	ok(lost > 0, "skipping every older value after another CPU's write, "
	   "%d of %d programs lose final states (%llu runs)", lost, n,
	   (unsigned long long)runs[2]);
}

/* ---- 5. a store that lands after a free ----------------------------------- */

static kmem_cache_t *objc;
static int *obj, done, fenced;

static void uaf_writer(void *arg)
{
	(void)arg;
	WRITE_ONCE(obj[0], 1);
	if (fenced)
		smp_wmb();
	WRITE_ONCE(done, 1);
}

static void uaf_freer(void *arg)
{
	(void)arg;
	if (READ_ONCE(done))
		kmem_cache_free(objc, obj);
}

static void uaf_setup(void *arg)
{
	(void)arg;
	kernel_reset(2);
	objc = kmem_cache_create_capacity("mm-obj", 2 * sizeof(int), 4, NULL);
	obj = kmem_cache_zalloc(objc, 0);
	done = 0;
	pr_spawn("cpu0", uaf_freer, NULL, 0);
	pr_spawn("cpu1", uaf_writer, NULL, 0);
}

static const struct pr_program uaf_prog = {
	.name = "uaf", .summary = "uaf", .setup = uaf_setup,
};

/* Runs of @strat to the end of its tree that fail with @kind. */
static int failing(const struct pr_program *prog, const char *strat,
		   const char *kind, int *complete)
{
	struct pr_strategy_params p = { .pct_depth = 3 };
	struct pr_strategy *s = pr_strategy_create(strat, &p);
	struct pr_run_result res;
	struct pr_coverage c;
	int n = 0;

	for (uint64_t run = 0; !s->ops->exhausted(s) && run < 100000; run++) {
		pr_run_once(prog, s, &ropts, 1, run, NULL, &res);
		n += res.failed && !strcmp(res.verdict.kind, kind);
	}
	s->ops->coverage(s, &c);
	*complete = c.complete;
	s->ops->destroy(s);
	return n;
}

static void test_uaf(void)
{
	static const int models[3] = { PR_MEM_SC, PR_MEM_TSO, PR_MEM_WEAK };

	for (fenced = 0; fenced < 2; fenced++)
		for (int m = 0; m < 3; m++) {
			int want = !fenced && models[m] == PR_MEM_WEAK;
			int cd, cp, nd, np;

			pr_mem_select(models[m]);
			nd = failing(&uaf_prog, "dfs", "use-after-free", &cd);
			np = failing(&uaf_prog, "dpor", "use-after-free", &cp);
			ok(cd && cp && (nd > 0) == want && (np > 0) == want,
			   "store, %sstore, free when the second is seen, under "
			   "%s: use-after-free %s (dfs %d, dpor %d runs)",
			   fenced ? "smp_wmb, " : "", pr_mem_name(models[m]),
			   want ? "found" : "never", nd, np);
		}
	pr_mem_select(PR_MEM_SC);
}

/* ---- 6. a grace period's first step, recorded whole ----------------------- */

/*
 * dpor records at most PR_MAX_EFFECTS effects of a step; past that the
 * step depends on every other (PR_EV_ALL), and under weak every load
 * after it explores its older values again (dpor_stale_redundant gives
 * up).  The step of synchronize_rcu that starts a grace period records
 * nine under weak (effects.h).  Updaters and readers of RCU, searched to
 * the end under each model, must have no step overflow; a step of
 * PR_MAX_EFFECTS + 1 effects, planted, must show as one.
 */
static int planted;
static char touched[PR_MAX_EFFECTS + 1];

static void gp_updater(void *arg)
{
	(void)arg;
	r[0][0] = READ_ONCE(x);
	synchronize_rcu();
	WRITE_ONCE(y, 1);
}

static void gp_reader(void *arg)
{
	int t = (int)(intptr_t)arg;

	rcu_read_lock();
	if (planted && t == 2)
		for (int i = 0; i < PR_MAX_EFFECTS + 1; i++)
			pr_effect(&touched[i], 1, PR_EFF_READ);
	r[t][0] = READ_ONCE(y);
	WRITE_ONCE(x, t);
	rcu_read_unlock();
}

static void gp_setup(void *arg)
{
	(void)arg;
	kernel_reset(3);
	x = y = 0;
	memset(r, 0, sizeof(r));
	pr_spawn("cpu0", gp_updater, NULL, 0);
	pr_spawn("cpu1", gp_reader, (void *)(intptr_t)1, 0);
	pr_spawn("cpu2", gp_reader, (void *)(intptr_t)2, 0);
}

static void gp_finish(void *arg)
{
	(void)arg;
	set_add(&seen, state_hash());
}

static const struct pr_program gp_prog = {
	.name = "gp", .summary = "gp", .setup = gp_setup, .finish = gp_finish,
};

static void test_effects_whole(void)
{
	static const int models[3] = { PR_MEM_SC, PR_MEM_TSO, PR_MEM_WEAK };

	for (planted = 0; planted < 2; planted++)
		for (int m = 0; m < 3; m++) {
			struct result p;
			unsigned long over;

			pr_mem_select(models[m]);
			pr_effects_overflows = 0;
			p = search(&gp_prog, "dpor", 1000000);
			over = pr_effects_overflows;
			ok(p.complete && !p.failed && (over > 0) == planted,
			   "a grace period's updater and two readers under %s%s: "
			   "%lu steps over %d effects (%llu executions, %d final "
			   "states)", pr_mem_name(models[m]),
			   planted ? ", a reader's step planted with one effect "
				     "too many" : "", over, PR_MAX_EFFECTS,
			   (unsigned long long)p.executions, seen.n);
		}
	planted = 0;
	pr_mem_select(PR_MEM_SC);
}

/*
 * The race of a store with its own flush is not reversed (an order that
 * cannot be); a grace period's drain that waited for that flush races
 * with the store instead (dpor_dep.c, dpor_wait_store).  A ring of two SRCU
 * readers that store in their sections and two updaters that store,
 * synchronize_srcu and load (the shape of the corpus's C-SRCU-42, in
 * words of our own), through the litmus front end: under tso and weak,
 * dpor reaches exactly the final states of dpor that reverses the
 * store-flush race as any other (pr_dpor_own_flush 1), the all-zero one
 * among them; with the drain's race dropped (2, planted) weak loses it.
 */
#include "litmus/litmus.h"

static const char srcu_ring[] =
	"C srcu-ring\n"
	"{ }\n"
	"P0(int *a, int *b, struct srcu_struct *s)\n"
	"{ int i; int v; i = srcu_read_lock(s); v = READ_ONCE(*b);\n"
	"  WRITE_ONCE(*a, 1); srcu_read_unlock(s, i); }\n"
	"P1(int *b, int *c, struct srcu_struct *t)\n"
	"{ int i; int v; i = srcu_read_lock(t); v = READ_ONCE(*c);\n"
	"  WRITE_ONCE(*b, 1); srcu_read_unlock(t, i); }\n"
	"P2(int *c, int *d, struct srcu_struct *s)\n"
	"{ int v; WRITE_ONCE(*c, 1); synchronize_srcu(s); v = READ_ONCE(*d); }\n"
	"P3(int *d, int *a, struct srcu_struct *t)\n"
	"{ int v; WRITE_ONCE(*d, 1); synchronize_srcu(t); v = READ_ONCE(*a); }\n"
	"exists (0:v=0 /\\ 1:v=0 /\\ 2:v=0 /\\ 3:v=0)\n";

/*
 * Search @l's program with dpor to the end: its final states (hashed into
 * @set), and the runs that met the condition.
 */
static struct result ring_search(struct litmus *l, struct stateset *set,
				 uint64_t *hits)
{
	struct pr_program prog;
	struct result res;

	litmus_program(l, &prog);
	litmus_outcomes_reset(l);
	res = search(&prog, "dpor", 1000000);
	set->n = 0;
	for (size_t i = 0; i < litmus_noutcomes(l); i++) {
		char buf[256];
		uint64_t count, h = 1469598103934665603ull;
		int holds;

		litmus_outcome(l, i, buf, sizeof(buf), &count, &holds);
		for (const char *c = buf; *c; c++)
			h = (h ^ (uint8_t)*c) * 1099511628211ull;
		set_add(set, h);
	}
	*hits = litmus_hits(l);
	return res;
}

static void test_own_flush(void)
{
	static const int models[2] = { PR_MEM_TSO, PR_MEM_WEAK };
	struct lit_error err;
	struct litmus *l = litmus_parse("srcu-ring", srcu_ring,
					sizeof(srcu_ring) - 1, &err);

	if (!l) {
		char msg[512];

		lit_error_format(&err, msg, sizeof(msg));
		bail_out(msg);
	}
	static struct stateset ref, planted;

	for (int m = 0; m < 2; m++) {
		struct result o, p, u;
		uint64_t ho, hp, hu;

		pr_mem_select(models[m]);
		pr_dpor_own_flush = 1;
		o = ring_search(l, &ref, &ho);
		pr_dpor_own_flush = 2;
		u = ring_search(l, &planted, &hu);
		pr_dpor_own_flush = 0;
		p = ring_search(l, &seen, &hp);
		ok(o.complete && p.complete && !p.failed &&
		   set_same(&seen, &ref) && hp > 0 && ho > 0,
		   "an SRCU ring under %s: dpor reaches exactly the %d final "
		   "states of dpor that reverses a store's race with its own "
		   "flush, the all-zero one among them (%llu runs against "
		   "%llu)", pr_mem_name(models[m]), ref.n,
		   (unsigned long long)p.runs, (unsigned long long)o.runs);
		if (models[m] == PR_MEM_WEAK)
			ok(u.complete && !hu && !set_same(&planted, &ref),
			   "... without the drain's race with the store, the "
			   "all-zero state is lost (%d of %d final states, "
			   "%llu runs)", planted.n, ref.n,
			   (unsigned long long)u.runs);
	}
	litmus_free(l);
	pr_dpor_own_flush = 0;
	pr_mem_select(PR_MEM_SC);
}

int main(void)
{
	pr_run_options_default(&ropts);
	test_generated(0, 150);
	test_generated(1, 60);
	test_observers(60);
	test_stale(60);
	test_uaf();
	test_effects_whole();
	test_own_flush();
	return done_testing();
}
