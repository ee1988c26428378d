/* SPDX-License-Identifier: MIT */
/*
 * kernel_rcu.c - RCU grace periods as scheduling decisions.
 *
 * Two CPUs and the "rcu" daemon: cpu0 reads an object inside
 * rcu_read_lock across several yield points, cpu1 unpublishes it and
 * frees it.  Freed through call_rcu (or after synchronize_rcu) no
 * schedule may let the reader touch freed memory, and every callback
 * must run; freed directly (the planted bug) some schedule must be a
 * "use-after-free".
 */
#include "kernel/kernel.h"
#include "runtime/run.h"
#include "strategy/strategy.h"
#include "tap.h"

#include <string.h>

#define RUNS	400
#define SEED	0x5eedULL

enum mode { M_CALL_RCU, M_SYNC, M_DIRECT, M_STALE, M_UNPROTECTED, M_SEARCH,
	    M_SEARCH_LATE };

struct obj {
	int val;
	struct rcu_head rcu;
};

static kmem_cache_t *cache;
static struct obj *gp;
static enum mode mode;
/* Instrumentation, not model state: read and written without yields. */
static int reader_holding, freed, overlap;

static void obj_free_rcu(struct rcu_head *head)
{
	struct obj *o = container_of(head, struct obj, rcu);

	/* The grace period must outlast any reader that may hold @o. */
	PR_ASSERT(!reader_holding);
	kmem_cache_free(cache, o);
	freed++;
}

static void reader(void *arg)
{
	(void)arg;
	for (int pass = 0; pass < 2; pass++) {
		struct obj *p;

		rcu_read_lock();
		p = rcu_dereference(gp);
		if (p) {
			reader_holding = 1;
			for (int i = 0; i < 4; i++) {
				PR_ASSERT(READ_ONCE(p->val) == 42);
				PR_YIELD("reader");
			}
			reader_holding = 0;
		}
		rcu_read_unlock();
	}
}

static struct obj *stale;

static void updater(void *arg)
{
	struct obj *old = LOAD(gp);

	(void)arg;
	rcu_assign_pointer(gp, NULL);
	switch (mode) {
	case M_CALL_RCU:
		call_rcu(&old->rcu, obj_free_rcu);
		overlap += reader_holding;
		break;
	case M_SYNC:
		synchronize_rcu();
		PR_ASSERT(!reader_holding);
		kmem_cache_free(cache, old);
		freed++;
		break;
	case M_DIRECT:		/* planted: no grace period */
		kmem_cache_free(cache, old);
		freed++;
		break;
	default:
		break;
	}
}

/* A pointer kept from before call_rcu, used in a later section. */
static void stale_user(void *arg)
{
	(void)arg;
	stale = gp;
	rcu_assign_pointer(gp, NULL);
	call_rcu(&stale->rcu, obj_free_rcu);
	rcu_read_lock();
	(void)READ_ONCE(stale->val);	/* section began after call_rcu */
	rcu_read_unlock();
}

static void unprotected(void *arg)
{
	struct obj *p;

	(void)arg;
	p = rcu_dereference_check(gp, 0);
	(void)p;
}

/*
 * M_SEARCH: two readers, one section each, and an updater that
 * unpublishes the object and frees it through call_rcu, with the daemon;
 * what each reader saw, and who ran the callback, are the final state.
 * M_SEARCH_LATE: reader 0 reads the object again after its section
 * ends (a planted use-after-free, when the callback ran in between).
 */
static int seen[2];

static void search_reader(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct obj *p;

	rcu_read_lock();
	p = rcu_dereference(gp);
	if (p) {
		reader_holding++;
		PR_ASSERT(READ_ONCE(p->val) == 42);
		reader_holding--;
	}
	seen[me] = p != NULL;
	rcu_read_unlock();
	if (p && me == 0 && mode == M_SEARCH_LATE)
		(void)READ_ONCE(p->val);
}

static void search_updater(void *arg)
{
	struct obj *old = LOAD(gp);

	(void)arg;
	rcu_assign_pointer(gp, NULL);
	call_rcu(&old->rcu, obj_free_rcu);
}

static void setup(void *arg)
{
	(void)arg;
	kernel_reset(mode >= M_SEARCH ? 3 : 2);
	cache = kmem_cache_create("obj", sizeof(struct obj), 0, 0, NULL, NULL);
	gp = kmem_cache_alloc(cache, 0);
	gp->val = 42;
	reader_holding = 0;
	freed = 0;
	switch (mode) {
	case M_STALE:
		pr_spawn("cpu0", stale_user, NULL, 0);
		break;
	case M_UNPROTECTED:
		pr_spawn("cpu0", unprotected, NULL, 0);
		break;
	case M_SEARCH:
	case M_SEARCH_LATE:
		seen[0] = seen[1] = -1;
		pr_spawn("cpu0", search_reader, (void *)0, 0);
		pr_spawn("cpu1", search_reader, (void *)1, 0);
		pr_spawn("cpu2", search_updater, NULL, 0);
		break;
	default:
		pr_spawn("cpu0", reader, NULL, 0);
		pr_spawn("cpu1", updater, NULL, 0);
		break;
	}
	rcu_start_daemon();
}

static int barrier_ran, final_state;

static void finish(void *arg)
{
	int ran;

	(void)arg;
	ran = rcu_barrier_final();
	barrier_ran += ran;
	final_state = (seen[0] + 1) * 9 + (seen[1] + 1) * 3 + ran;
	PR_ASSERT(freed == 1);
	kmem_cache_check_leaks(cache);
}

static const struct pr_program prog = {
	.name = "kernel_rcu", .setup = setup, .finish = finish,
};

struct tally {
	int failed, kind_hits, first;
	struct pr_verdict v;	/* first failure */
};

static void explore(enum mode m, int runs, const char *kind, struct tally *t)
{
	struct pr_strategy_params params;
	struct pr_run_options opts;
	struct pr_strategy *s;
	struct pr_run_result res;

	memset(&params, 0, sizeof(params));
	memset(t, 0, sizeof(*t));
	t->first = -1;
	pr_run_options_default(&opts);
	s = pr_strategy_create("random", &params);
	mode = m;
	for (int run = 0; run < runs; run++) {
		if (!pr_run_once(&prog, s, &opts, SEED, (uint64_t)run, NULL, &res))
			continue;
		if (!t->failed++)
			t->v = res.verdict;
		if (kind && !strcmp(res.verdict.kind, kind)) {
			if (t->first < 0)
				t->first = run;
			t->kind_hits++;
		}
	}
	s->ops->destroy(s);
}

/*
 * dfs or dpor (@bound < 0: none) on M_SEARCH to the end of its tree: the
 * final states reached (bit final_state), failures, executions.
 */
struct sresult {
	uint64_t runs, executions, failures, states;
	int complete;
};

static struct sresult search(enum mode m, const char *strat, int bound)
{
	struct pr_strategy_params params;
	struct pr_run_options opts;
	struct pr_strategy *s;
	struct pr_run_result res;
	struct pr_coverage c;
	struct sresult r;

	memset(&params, 0, sizeof(params));
	memset(&r, 0, sizeof(r));
	if (bound >= 0) {
		params.has_bound = 1;
		params.preemption_bound = bound;
	}
	pr_run_options_default(&opts);
	s = pr_strategy_create(strat, &params);
	mode = m;
	while (!s->ops->exhausted(s) && r.runs < 2000000) {
		final_state = -1;
		if (pr_run_once(&prog, s, &opts, SEED, r.runs, NULL, &res))
			r.failures++;
		else if (!res.abandoned && final_state >= 0)
			r.states |= 1ull << final_state;
		r.runs++;
	}
	s->ops->coverage(s, &c);
	r.executions = c.executions;
	r.complete = c.complete;
	s->ops->destroy(s);
	return r;
}

/*
 * The callback daemon's grace-period check reports reading only the
 * readers' slots that hold its grace period up (rcu.c, holds_up): a
 * section start, and the end of a section it does not wait for, commute
 * with it.  dpor must still reach every final state dfs reaches, with
 * and without a preemption bound; and it explores fewer executions than
 * when the check read every slot (the counts before are in the message).
 */
static void test_search(void)
{
	struct sresult fd, fp, bd, bp;

	fd = search(M_SEARCH, "dfs", -1);
	fp = search(M_SEARCH, "dpor", -1);
	ok(fd.complete && fp.complete && fd.failures == 0 && fp.failures == 0 &&
	   fd.states == fp.states,
	   "systematic: dpor reaches every final state full dfs reaches "
	   "(%#llx; dpor %llu executions, dfs %llu)",
	   (unsigned long long)fd.states, (unsigned long long)fp.executions,
	   (unsigned long long)fd.executions);
	bd = search(M_SEARCH, "dfs", 2);
	bp = search(M_SEARCH, "dpor", 2);
	ok(bd.complete && bp.complete && bd.failures == 0 && bp.failures == 0 &&
	   bd.states == bp.states,
	   "systematic, bound 2: bounded dpor reaches every final state bounded "
	   "dfs reaches (%#llx; dpor %llu executions, dfs %llu)",
	   (unsigned long long)bd.states, (unsigned long long)bp.executions,
	   (unsigned long long)bd.executions);
	/*
	 * The every-slot counts re-measured after the psleeper fix (21af8f6)
	 * and the sleep-resumption rule, by reporting a read of every
	 * kcpu slot in grace_period_over: 354 and 631 (559 before the fix).
	 */
	ok(fp.executions < 354 && bp.executions < 631,
	   "systematic: the grace-period check's slots cut dpor's executions "
	   "(%llu; bound 2: %llu; 354 and 631 when it read every slot)",
	   (unsigned long long)fp.executions,
	   (unsigned long long)bp.executions);
	fd = search(M_SEARCH_LATE, "dfs", -1);
	fp = search(M_SEARCH_LATE, "dpor", -1);
	bd = search(M_SEARCH_LATE, "dfs", 2);
	bp = search(M_SEARCH_LATE, "dpor", 2);
	ok(fd.failures && fp.failures && bd.failures && bp.failures &&
	   fd.states == fp.states && bd.states == bp.states,
	   "systematic: a read after the section: use-after-free found by dpor "
	   "(%llu of %llu executions; bound 2: %llu of %llu) as by dfs "
	   "(%llu of %llu; %llu of %llu)",
	   (unsigned long long)fp.failures, (unsigned long long)fp.executions,
	   (unsigned long long)bp.failures, (unsigned long long)bp.executions,
	   (unsigned long long)fd.failures, (unsigned long long)fd.executions,
	   (unsigned long long)bd.failures, (unsigned long long)bd.executions);
}

static void show(const struct tally *t)
{
	if (t->failed)
		diag("first failure: %s on %s obj %s at %s: %s", t->v.kind,
		     t->v.ctx_name, t->v.obj, t->v.site, t->v.msg);
}

int main(void)
{
	struct tally t;

	plan(13);

	overlap = barrier_ran = 0;
	explore(M_CALL_RCU, RUNS, NULL, &t);
	show(&t);
	ok(t.failed == 0, "call_rcu: no verdict in %d runs (%d failed)", RUNS,
	   t.failed);
	diag("call_rcu queued while the reader held the object in %d runs; "
	     "%d callbacks left for rcu_barrier_final", overlap, barrier_ran);
	ok(overlap > 0, "call_rcu: the reader held the object at call_rcu "
	   "in some run (%d)", overlap);
	ok(barrier_ran == 0, "call_rcu: the daemon ran every callback before "
	   "the run ended");

	explore(M_SYNC, RUNS, NULL, &t);
	show(&t);
	ok(t.failed == 0, "synchronize_rcu: no verdict in %d runs (%d failed)",
	   RUNS, t.failed);

	explore(M_DIRECT, RUNS, "use-after-free", &t);
	show(&t);
	ok(t.kind_hits > 0, "planted direct free: use-after-free found "
	   "(%d of %d runs, first run %d)", t.kind_hits, RUNS, t.first);
	ok(t.kind_hits == t.failed, "planted direct free: every failure is a "
	   "use-after-free (%d/%d)", t.kind_hits, t.failed);
	ok(strncmp(t.v.obj, "obj#0", 5) == 0, "the verdict names the object "
	   "(%s)", t.v.obj);

	explore(M_STALE, 1, "use-after-free", &t);
	show(&t);
	ok(t.kind_hits == 1, "a section begun after call_rcu may not read the "
	   "queued object");

	explore(M_UNPROTECTED, 1, "rcu-unprotected", &t);
	show(&t);
	ok(t.kind_hits == 1, "rcu_dereference_check outside rcu_read_lock");

	test_search();
	return done_testing();
}
