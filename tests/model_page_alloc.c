/* SPDX-License-Identifier: MIT */
/*
 * model_page_alloc.c - unit test of struct page and the page allocator
 * (src/model/page.c, src/model/page_alloc.c).
 *
 * Sequential part, outside any run (pr_self() == -1, yield points are
 * no-ops, CPU 0's per-CPU lists): buddy merging back to the initial shape,
 * hot/cold order, PG_free exactly on free block heads, the biased count.
 * Detectors, which end a run, are exercised under pr_run_once with small
 * programs.  Concurrent part: CPUs allocating and freeing (and an
 * interrupt allocating) under the random strategy, many seeds, with
 * page_alloc_check() after every run.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/kernel.h"
#include "model/page.h"
#include "model/page_alloc.h"
#include "model/variant.h"
#include "runtime/context.h"
#include "runtime/rng.h"
#include "runtime/run.h"
#include "strategy/strategy.h"
#include "tap.h"

#define NPAGES	32	/* four blocks of MAX_ORDER-1 */

static int initial_shape(void)
{
	char msg[256];

	if (page_alloc_verify(msg, sizeof(msg))) {
		diag("verify: %s", msg);
		return 0;
	}
	for (unsigned int o = 0; o < MAX_ORDER; o++)
		if (zone_normal.free_area[o].nr_free !=
		    (o == MAX_ORDER - 1 ? NPAGES >> (MAX_ORDER - 1) : 0))
			return 0;
	for (unsigned long i = 0; i < NPAGES; i++)
		if (!!(page_peek_flags(&mem_map[i]) & (1UL << PG_free)) !=
		    (i % (1UL << (MAX_ORDER - 1)) == 0))
			return 0;
	return zone_normal.free_pages == NPAGES;
}

static int verify_ok(void)
{
	char msg[256];

	if (page_alloc_verify(msg, sizeof(msg))) {
		diag("verify: %s", msg);
		return 0;
	}
	return 1;
}

static void shuffle(struct page **p, int n, struct pr_rng *rng)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(pr_rng_next(rng) % (uint64_t)(i + 1));
		struct page *t = p[i];

		p[i] = p[j];
		p[j] = t;
	}
}

static void test_sequential(void)
{
	struct page *pages[NPAGES + 1];
	struct pr_rng rng;
	int n, distinct = 1, counts = 1, flags = 1;

	variant.protocol = PROTO_V2;
	variant.knobs = 0;
	page_model_reset();
	ok(initial_shape(), "initial free lists: %d blocks of order %d",
	   NPAGES >> (MAX_ORDER - 1), MAX_ORDER - 1);

	for (n = 0; n < NPAGES + 1; n++)
		if (!(pages[n] = alloc_page(GFP_KERNEL)))
			break;
	for (int i = 0; i < n; i++) {
		if (page_peek_count(pages[i]) != 1)
			counts = 0;
		if (page_peek_flags(pages[i]) & (1UL << PG_free))
			flags = 0;
		for (int j = 0; j < i; j++)
			if (pages[i] == pages[j])
				distinct = 0;
	}
	ok(n == NPAGES && distinct && page_alloc_nr_free() == 0,
	   "allocated all %d pages, distinct, then NULL (got %d)", NPAGES, n);
	ok(counts && flags && verify_ok(),
	   "allocated pages have page_count 1 and no PG_free");

	for (int i = 0; i < NPAGES; i++)
		__free_page(pages[i]);
	ok(verify_ok(), "freed in allocation order: consistent, %lu on per-CPU lists",
	   page_alloc_nr_free() - zone_normal.free_pages);
	drain_local_pages();
	ok(initial_shape(), "after drain_local_pages: merged back to the initial shape");

	for (n = 0; n < NPAGES; n++)
		pages[n] = alloc_page(GFP_KERNEL);
	for (int i = NPAGES - 1; i >= 0; i--)
		__free_page(pages[i]);
	drain_local_pages();
	ok(initial_shape(), "freed in reverse order: initial shape");

	pr_rng_seed(&rng, 42, 0, 0);
	for (int round = 0; round < 20; round++) {
		for (n = 0; n < NPAGES; n++)
			pages[n] = alloc_page(round & 1 ? GFP_KERNEL | __GFP_COLD : GFP_KERNEL);
		shuffle(pages, NPAGES, &rng);
		for (int i = 0; i < NPAGES; i++)
			__free_page(pages[i]);
		drain_local_pages();
		if (!initial_shape())
			break;
		if (round == 19)
			ok(1, "20 rounds of alloc-all / free in random order: initial shape");
	}

	/* Higher orders: all blocks of order 2, freed shuffled. */
	for (n = 0; n < NPAGES / 4; n++)
		pages[n] = alloc_pages(GFP_KERNEL, 2);
	ok(alloc_pages(GFP_KERNEL, 0) == NULL && verify_ok(),
	   "order-2 allocation takes the whole zone, shadow tails ok");
	shuffle(pages, NPAGES / 4, &rng);
	for (int i = 0; i < NPAGES / 4; i++)
		__free_pages(pages[i], 2);
	ok(initial_shape(), "order-2 blocks freed shuffled: initial shape");

	/* Random mixed-order churn, checking after every operation. */
	{
		struct { struct page *p; unsigned int order; } held[NPAGES];
		int nheld = 0, bad = 0, allocs = 0, fails = 0;

		for (int op = 0; op < 4000 && !bad; op++) {
			if (nheld && (nheld == NPAGES || pr_rng_next(&rng) % 2)) {
				int i = (int)(pr_rng_next(&rng) % (uint64_t)nheld);

				__free_pages(held[i].p, held[i].order);
				held[i] = held[--nheld];
			} else {
				unsigned int order = (unsigned int)(pr_rng_next(&rng) % 3);
				unsigned int gfp = pr_rng_next(&rng) % 2 ? __GFP_COLD : 0;
				struct page *p = alloc_pages(GFP_KERNEL | gfp, order);

				if (p) {
					held[nheld].p = p;
					held[nheld++].order = order;
					allocs++;
				} else {
					fails++;
				}
			}
			if (!verify_ok())
				bad = op + 1;
		}
		while (nheld--)
			__free_pages(held[nheld].p, held[nheld].order);
		drain_local_pages();
		ok(!bad && initial_shape(),
		   "4000 random ops of orders 0-2 (%d allocs, %d failed): consistent "
		   "after each, initial shape at the end", allocs, fails);
	}
}

static void test_hot_cold(void)
{
	struct page *p, *q, *r, *s;

	page_model_reset();
	p = alloc_page(GFP_KERNEL);
	q = alloc_page(GFP_KERNEL);
	__free_page(p);		/* put_page_testzero, free_hot_page */
	r = alloc_page(GFP_KERNEL);
	ok(r == p, "hot: a page freed hot is the next one allocated");
	if (put_page_testzero(q))
		free_cold_page(q);
	s = alloc_page(GFP_KERNEL);
	ok(s != q, "cold: a hot allocation does not take a page freed cold");
	r = alloc_page(GFP_KERNEL | __GFP_COLD);
	ok(r == q, "cold: a __GFP_COLD allocation does");
}

static void test_refcount(void)
{
	struct page *p;
	int t0, t1, z;

	page_model_reset();
	p = alloc_page(GFP_KERNEL);
	ok(page_count(p) == 1 && p->_count.counter == 0,
	   "biased count: page_count 1 is _count 0");
	get_page(p);
	z = put_page_testzero(p);
	ok(page_count(p) == 1 && !z, "get_page/put_page_testzero: 2 -> 1, not zero");
	set_page_count(p, 0);
	ok(p->_count.counter == -1, "set_page_count(0) stores -1");
	t0 = get_page_testone(p);
	t1 = get_page_testone(p);
	ok(t0 && !t1 && page_count(p) == 2,
	   "get_page_testone true only from 0 (0->1), false from 1");
	__put_page(p);
	__put_page(p);
	ok(page_count(p) == 0, "__put_page twice: back to 0, no free");
	ok(!get_page_unless_zero(p) && page_count(p) == 0,
	   "get_page_unless_zero fails on count 0");
	set_page_count(p, 1);
	ok(get_page_unless_zero(p) && page_count(p) == 2,
	   "get_page_unless_zero succeeds on count 1 -> 2");
	ok(!page_freeze_refs(p, 1) && page_freeze_refs(p, 2) && page_count(p) == 0,
	   "page_freeze_refs only at the exact count");
	page_unfreeze_refs(p, 1);
	z = put_page_testzero(p);
	ok(z && page_count(p) == 0, "put_page_testzero true on the last reference");
	free_hot_page(p);
	drain_local_pages();
	ok(initial_shape(), "page back in the allocator");

	{
		char buf[32];

		pr_obj_name(&mem_map[5], buf, sizeof(buf));
		ok(!strcmp(buf, "page#5"), "page names: %s", buf);
		pr_obj_name(&mem_map[7]._count, buf, sizeof(buf));
		ok(!strcmp(buf, "page#7._count"), "field names: %s", buf);
	}
}

/* --- detectors, each under a one-context run ------------------------ */

static void (*det_body)(void);
static int det_check_at_end;

static void det_ctx(void *arg)
{
	(void)arg;
	det_body();
}

static void det_setup_real(void *arg)
{
	(void)arg;
	kernel_reset(1);
	page_model_reset();
	pr_spawn("cpu0", det_ctx, NULL, 0);
}

static void det_finish(void *arg)
{
	(void)arg;
	if (det_check_at_end)
		page_alloc_check();
}

static void body_double_free_pcp(void)
{
	struct page *p = alloc_page(GFP_KERNEL);

	__free_page(p);
	free_hot_page(p);
}

static void body_double_free_buddy(void)
{
	struct page *p = alloc_page(GFP_KERNEL);

	__free_page(p);
	drain_local_pages();
	free_hot_page(p);
}

static void body_put_free(void)
{
	struct page *p = alloc_page(GFP_KERNEL);

	__free_page(p);
	drain_local_pages();
	put_page(p);
}

static void body_underflow(void)
{
	struct page *p = alloc_page(GFP_KERNEL);

	__put_page(p);
	__put_page(p);
}

static void body_bad_flag(void)
{
	struct page *p = alloc_page(GFP_KERNEL);

	SetPageLRU(p);
	__free_page(p);
}

static void body_leak(void)
{
	struct page *p = alloc_page(GFP_KERNEL);

	__put_page(p);	/* count 0, never freed */
}

static void body_clean(void)
{
	struct page *p = alloc_pages(GFP_KERNEL, 1), *q = alloc_page(GFP_KERNEL);

	get_page(q);
	put_page(q);
	put_page(q);
	__free_pages(p, 1);
}

static int run_det(void (*body)(void), int check, struct pr_run_result *res)
{
	struct pr_program prog = {
		"det", "detector test", det_setup_real, det_finish, NULL
	};
	struct pr_strategy_params params = { 0 };
	struct pr_strategy *strat = pr_strategy_create("random", &params);
	struct pr_run_options opts;
	int ret;

	pr_run_options_default(&opts);
	det_body = body;
	det_check_at_end = check;
	ret = pr_run_once(&prog, strat, &opts, 1, 0, NULL, res);
	strat->ops->destroy(strat);
	return ret;
}

static void test_detectors(void)
{
	struct pr_run_result res;

	run_det(body_clean, 1, &res);
	ok(!res.failed, "clean alloc/get/put/free program passes page_alloc_check%s%s",
	   res.failed ? ": " : "", res.failed ? res.verdict.msg : "");

	run_det(body_double_free_pcp, 0, &res);
	ok(res.failed && !strcmp(res.verdict.kind, "double-free") &&
	   strstr(res.verdict.msg, "double free of page#0"),
	   "double free of a page on a per-CPU list: %s: %s",
	   res.verdict.kind, res.verdict.msg);

	run_det(body_double_free_buddy, 0, &res);
	ok(res.failed && !strcmp(res.verdict.kind, "double-free") &&
	   !strcmp(res.verdict.obj, "page#0"),
	   "double free of a page in the buddy lists: %s %s: %s",
	   res.verdict.kind, res.verdict.obj, res.verdict.msg);

	run_det(body_put_free, 0, &res);
	ok(res.failed && !strcmp(res.verdict.kind, "put-free-page"),
	   "put_page on a free page: %s: %s", res.verdict.kind, res.verdict.msg);

	run_det(body_underflow, 0, &res);
	ok(res.failed && !strcmp(res.verdict.kind, "refcount-underflow"),
	   "__put_page below zero: %s: %s", res.verdict.kind, res.verdict.msg);

	run_det(body_bad_flag, 0, &res);
	ok(res.failed && !strcmp(res.verdict.kind, "bad-page") &&
	   strstr(res.verdict.msg, "PG_lru"),
	   "freeing a page with PG_lru: %s: %s", res.verdict.kind, res.verdict.msg);

	run_det(body_leak, 1, &res);
	ok(res.failed && !strcmp(res.verdict.kind, "invariant") &&
	   strstr(res.verdict.msg, "leaked"),
	   "page_alloc_check finds a leaked page: %s: %s",
	   res.verdict.kind, res.verdict.msg);
}

/* --- concurrent: CPUs and an interrupt allocating and freeing -------- */

#define CPUS	2
#define ROUNDS	6

static void cpu_body(void *arg)
{
	unsigned long id = (unsigned long)arg;
	struct page *held[3];
	unsigned int order[3];

	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < 3; i++) {
			order[i] = (unsigned int)((id + (unsigned long)r + (unsigned long)i) % 3);
			held[i] = alloc_pages(i == 1 ? GFP_KERNEL | __GFP_COLD : GFP_KERNEL,
					      order[i]);
		}
		for (int i = 2; i >= 0; i--)
			if (held[i]) {
				if (order[i] == 0 && (r & 1))
					put_page(held[i]);
				else
					__free_pages(held[i], order[i]);
			}
	}
}

static void irq_body(void *arg)
{
	struct page *p;

	(void)arg;
	p = alloc_page(GFP_ATOMIC);
	if (p)
		__free_page(p);
}

static void conc_setup(void *arg)
{
	(void)arg;
	kernel_reset(CPUS);
	page_model_reset();
	for (unsigned long i = 0; i < CPUS; i++)
		pr_spawn(i ? "cpu1" : "cpu0", cpu_body, (void *)i, 0);
	pr_inject(0, "irq0", irq_body, NULL, 2);
}

static void conc_finish(void *arg)
{
	(void)arg;
	page_alloc_check();
}

static void test_concurrent(enum pr_protocol proto, int nruns)
{
	struct pr_program prog = {
		"alloc-free", "CPUs and an irq allocating", conc_setup, conc_finish, NULL
	};
	struct pr_strategy_params params = { 0 };
	struct pr_strategy *strat = pr_strategy_create("random", &params);
	struct pr_run_options opts;
	struct pr_run_result res;
	int failed = 0;
	uint64_t steps = 0, preempt = 0;

	variant.protocol = proto;
	pr_run_options_default(&opts);
	for (int run = 0; run < nruns; run++) {
		if (pr_run_once(&prog, strat, &opts, 7, (uint64_t)run, NULL, &res)) {
			diag("run %d: %s %s: %s at %s", run, res.verdict.kind,
			     res.verdict.obj, res.verdict.msg, res.verdict.where);
			failed++;
			break;
		}
		steps += res.steps;
		preempt += res.preemptions;
	}
	ok(!failed, "%s: %d random runs of %d CPUs + irq alloc/free, "
	   "page_alloc_check clean (%llu steps, %llu preemptions)",
	   variant_protocol_name(proto), nruns, CPUS,
	   (unsigned long long)steps, (unsigned long long)preempt);
	strat->ops->destroy(strat);
}

/*
 * The cover letter's interrupt bug, reduced: a context holds a speculative
 * reference on the page its CPU will allocate next, with interrupts on; an
 * interrupt allocates it and prep_new_page spins forever.  With
 * interrupts off around the reference, no run hangs.
 */
static struct page *spec_target;
static int spec_irqs_off;

static void spec_body(void *arg)
{
	unsigned long flags = 0;

	(void)arg;
	if (spec_irqs_off)
		local_irq_save(flags);
	if (get_page_testone(spec_target) || PageFree(spec_target))
		__put_page(spec_target);
	else
		put_page(spec_target);
	if (spec_irqs_off)
		local_irq_restore(flags);
}

static void spec_setup(void *arg)
{
	(void)arg;
	kernel_reset(1);
	page_model_reset();
	spec_target = alloc_page(GFP_KERNEL);	/* CPU 0 outside a run */
	__free_page(spec_target);		/* head of CPU 0's hot list */
	pr_spawn("cpu0", spec_body, NULL, 0);
	pr_inject(0, "irq0", irq_body, NULL, 1);
}

static void test_spec_irq(void)
{
	struct pr_program prog = {
		"spec-irq", "speculative ref vs irq allocation", spec_setup,
		conc_finish, NULL
	};
	struct pr_strategy_params params = { 0 };
	struct pr_strategy *strat = pr_strategy_create("random", &params);
	struct pr_run_options opts;
	struct pr_run_result res;
	int found = 0, fails_off = 0, run;

	variant.protocol = PROTO_V2;
	pr_run_options_default(&opts);
	spec_irqs_off = 0;
	for (run = 0; run < 500 && !found; run++)
		if (pr_run_once(&prog, strat, &opts, 3, (uint64_t)run, NULL, &res))
			found = !strcmp(res.verdict.kind, "livelock") ? run + 1 : -1;
	ok(found > 0, "irqs on: interrupt allocation spins in prep_new_page "
	   "(run %d: %s at %s)", found - 1, res.verdict.kind, res.verdict.site);
	spec_irqs_off = 1;
	for (run = 0; run < 500; run++)
		if (pr_run_once(&prog, strat, &opts, 3, (uint64_t)run, NULL, &res)) {
			diag("irqs off, run %d: %s: %s", run, res.verdict.kind,
			     res.verdict.msg);
			fails_off++;
		}
	ok(fails_off == 0, "irqs off: 500 runs, no hang, allocator consistent");
	strat->ops->destroy(strat);
}

int main(void)
{
	kernel_reset(1);
	page_model_init(NPAGES);
	test_sequential();
	test_hot_cold();
	test_refcount();
	test_detectors();
	test_concurrent(PROTO_V2, 2000);
	test_concurrent(PROTO_LOCKED, 500);
	test_concurrent(PROTO_MERGED, 500);
	test_spec_irq();
	page_model_exit();
	return done_testing();
}
