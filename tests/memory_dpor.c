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
 */
#include "memory_common.h"

/* ---- 3. generated programs ---------------------------------------------- */

#define GT	3
#define GOPS	4
#define GVARS	2

enum { G_LOAD, G_STORE, G_WMB, G_MB, G_ADD_RET, G_INC, G_RELEASE, G_ACQUIRE,
       G_RMB, G_NKINDS };

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

int main(void)
{
	pr_run_options_default(&ropts);
	test_generated();
	test_uaf();
	return done_testing();
}
