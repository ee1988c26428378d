/* SPDX-License-Identifier: MIT */
/*
 * model_detectors.c - detectors of the model fire on a planted misuse and
 * stay quiet on the correct use, in a single-CPU run where nothing else
 * can be to blame.
 */
#include "check/shadow.h"
#include "kernel/kernel.h"
#include "kernel/rcu.h"
#include "model/model.h"
#include "model/page_alloc.h"
#include "model/variant.h"
#include "runtime/run.h"
#include "strategy/strategy.h"
#include "tap.h"

#include <string.h>

static int protect;

static void reader(void *arg)
{
	(void)arg;
	if (protect == 1)
		rcu_read_lock();
	(void)radix_tree_lookup(&mappings[0].page_tree, 0);
	if (protect == 1)
		rcu_read_unlock();
}

static void double_put(void *arg)
{
	struct page *page = find_get_page(&mappings[0], 0);

	(void)arg;
	page_cache_release(page);
	if (protect == 2)
		page_cache_release(page);	/* one put too many */
}

/* A held reference (an LRU isolation's) and a free of the page. */
static void free_held(void *arg)
{
	struct page *page = alloc_page(0);

	(void)arg;
	shadow_hold_by(page, "isolate_lru_pages");
	if (protect != 3)
		shadow_unhold(page);	/* the holder let go first */
	__free_page(page);
}

static void setup_reader(void *arg)
{
	shadow_attach();	/* the detectors observe the model */
	model_setup(1, 8);
	model_prefill(&mappings[0], 0);
	pr_spawn("cpu0", (pr_fn)arg, NULL, 0);
	model_start();
}

static void finish(void *arg)
{
	(void)arg;
	model_finish();
}

static const char *run(pr_fn body)
{
	static struct pr_run_result res;
	struct pr_program prog = { "detectors", "", setup_reader, finish,
				   (void *)body };
	struct pr_strategy_params p = { .pct_depth = 3, .pct_steps = 10 };
	struct pr_strategy *s = pr_strategy_create("random", &p);
	struct pr_run_options o;

	pr_run_options_default(&o);
	pr_run_once(&prog, s, &o, 1, 0, NULL, &res);
	s->ops->destroy(s);
	return res.failed ? res.verdict.kind : "";
}

int main(void)
{
	const char *k;

	variant.protocol = PROTO_V2;
	variant.knobs = 0;
	protect = 0;
	k = run(reader);
	ok(!strcmp(k, "rcu-unprotected"),
	   "radix_tree_lookup outside rcu_read_lock and tree_lock: %s", k);
	protect = 1;
	k = run(reader);
	ok(!strcmp(k, ""), "radix_tree_lookup inside rcu_read_lock: clean (%s)", k);
	protect = 0;
	k = run(double_put);
	ok(!strcmp(k, ""), "find_get_page then one put: clean (%s)", k);
	protect = 2;
	k = run(double_put);
	ok(!strcmp(k, "bad-page") || !strcmp(k, "refcount-underflow") ||
	   !strcmp(k, "put-free-page") ||
	   !strcmp(k, "leak") || !strcmp(k, "invariant"),
	   "one put too many is caught: %s", k);
	protect = 0;
	k = run(free_held);
	ok(!strcmp(k, ""), "free after the holder let go: clean (%s)", k);
	protect = 3;
	k = run(free_held);
	ok(!strcmp(k, "free-held-page"), "free of a page still held: %s", k);
	return done_testing();
}
