/* SPDX-License-Identifier: MIT */
/*
 * detector_effects.c - a detector's hidden reads are seen by dpor.
 *
 * The story.  kasan_check() runs before every access and reads the
 * object's shadow (allocated, queued for RCU freeing, freed).  The shadow
 * changes in kmem_cache_free, kmem_cache_alloc and call_rcu, none of
 * which is a yield point of its own.  kmem_cache_free always told dpor it
 * wrote the object (effects.h); kmem_cache_alloc and call_rcu did not.
 * So an access to an object and the allocation that reuses it -- or the
 * call_rcu that queues it -- looked independent to dpor's race analysis,
 * and dpor ran only one of their orders.  When that order was the
 * harmless one (the access after the reallocation, or before call_rcu),
 * the use after free was never run: a "clean" verdict that covered less
 * than it said.  The same hole had already cost scenarios/no-freeing-
 * flag.scn its bug (check/shadow.c's holds);
 * this is the audit's regression test for the allocator's and RCU's
 * shadow.
 *
 * Each program has a planted use after free in one interleaving.  Full
 * dfs finds it; dpor must find it too, whichever context the scheduler
 * runs first (both spawn orders).  Remove the pr_effect() in
 * kmem_cache_alloc or kasan_rcu_queued and dpor misses it.
 */
#include "kernel/kernel.h"
#include "runtime/run.h"
#include "strategy/strategy.h"
#include "tap.h"

#include <string.h>

struct obj {
	int val;
	int pad[7];		/* the read below is far from the rcu_head */
	struct rcu_head rcu;
};

enum prog { P_REALLOC, P_CALL_RCU };

static enum prog which;
static int swapped;		/* spawn the reader first */
static kmem_cache_t *cache;
static struct obj *gp;
static int a, b;

static void nothing(struct rcu_head *head)
{
	(void)head;		/* not freed: only call_rcu's shadow counts */
}

/*
 * P_REALLOC: free the only object of a one-object cache, then allocate
 * it again; the reader's access between the two is a use after free.
 * P_CALL_RCU: queue the object for RCU freeing; a read outside a
 * read-side section after that is one.
 */
static void updater(void *arg)
{
	(void)arg;
	WRITE_ONCE(a, 1);
	if (which == P_REALLOC) {
		kmem_cache_free(cache, gp);
		WRITE_ONCE(b, 1);
		(void)kmem_cache_alloc(cache, 0);
	} else {
		call_rcu(&gp->rcu, nothing);
	}
	WRITE_ONCE(b, 2);
}

static void reader(void *arg)
{
	(void)arg;
	(void)READ_ONCE(gp->val);
}

static void setup(void *arg)
{
	(void)arg;
	kernel_reset(2);
	cache = kmem_cache_create_capacity("obj", sizeof(struct obj), 1, NULL);
	gp = kmem_cache_alloc(cache, 0);
	gp->val = 42;
	a = b = 0;
	if (swapped)
		pr_spawn("reader", reader, NULL, 0);
	pr_spawn("updater", updater, NULL, 0);
	if (!swapped)
		pr_spawn("reader", reader, NULL, 0);
}

static void finish(void *arg)
{
	(void)arg;
	(void)rcu_barrier_final();
}

static const struct pr_program prog = {
	.name = "detector_effects", .setup = setup, .finish = finish,
};

struct result {
	uint64_t runs, uaf;
	int complete;
};

static struct result search(const char *strat)
{
	struct pr_strategy_params params;
	struct pr_run_options opts;
	struct pr_strategy *s;
	struct pr_run_result res;
	struct pr_coverage c;
	struct result r;

	memset(&params, 0, sizeof(params));
	memset(&r, 0, sizeof(r));
	pr_run_options_default(&opts);
	s = pr_strategy_create(strat, &params);
	while (!s->ops->exhausted(s) && r.runs < 100000) {
		if (pr_run_once(&prog, s, &opts, 1, r.runs, NULL, &res) &&
		    !strcmp(res.verdict.kind, "use-after-free"))
			r.uaf++;
		r.runs++;
	}
	s->ops->coverage(s, &c);
	r.complete = c.complete;
	s->ops->destroy(s);
	return r;
}

static void check(enum prog p, const char *name)
{
	for (swapped = 0; swapped < 2; swapped++) {
		struct result d, o;

		which = p;
		d = search("dfs");
		o = search("dpor");
		ok(d.complete && d.uaf >= 1,
		   "%s, %s first: dfs finds the use after free (%llu of %llu runs)",
		   name, swapped ? "reader" : "updater",
		   (unsigned long long)d.uaf, (unsigned long long)d.runs);
		ok(o.complete && o.uaf >= 1,
		   "%s, %s first: dpor finds it too (%llu of %llu executions)",
		   name, swapped ? "reader" : "updater",
		   (unsigned long long)o.uaf, (unsigned long long)o.runs);
	}
}

int main(void)
{
	plan(8);
	check(P_REALLOC, "access before the reallocation");
	check(P_CALL_RCU, "access after call_rcu, outside a read-side section");
	return done_testing();
}
