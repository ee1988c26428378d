/* SPDX-License-Identifier: MIT */
/*
 * pagecache.c - built-in page-cache workloads over the model of the seeds.
 *
 * Each workload is a few CPUs running model operations on a small initial
 * page cache; which protocol and which planted bugs they run against is
 * the variant (explore --protocol/--knob, recorded in the trace).  Every
 * run ends with the model's invariants (model_finish), so a workload that
 * passes has also left no leak, no stray reference and no broken tree.
 * The races of doc/variants.md each have a workload here that finds them.
 */
#include "check/shadow.h"
#include "kernel/kernel.h"
#include "model/model.h"
#include "model/page_alloc.h"
#include "programs/programs.h"

/* find_get_page whose reference the caller keeps until release_held(). */
static struct page *lookup_held(struct address_space *m, unsigned long index)
{
	struct page *page;

	shadow_track_holds(1);
	page = find_get_page(m, index);
	shadow_track_holds(0);
	return page;
}

static void release_held(struct page *page)
{
	if (page) {
		shadow_unhold(page);
		page_cache_release(page);
	}
}

static void finish(void *arg)
{
	(void)arg;
	model_finish();
}

/*
 * Workloads that are about a page, not about the tree's shape, keep a
 * second page ("keeper") at index 1 of the same leaf, so that the tree never
 * empties under a reader: seed 006's __lookup_slot re-reads root->rnode and
 * interior slots, and a tree emptied in between is a NULL dereference of
 * its own (doc/findings.md), which would hide the race being looked for.
 */
#define KEEPER	1

/* ---- lookups racing truncate (spec-free-check, no-recheck) ------------- */

static void lookup0(void *arg)
{
	(void)arg;
	release_held(lookup_held(&mappings[0], 0));
}

/* Truncate only index 0: the keeper at index 1 stays. */
static void truncate_one(struct address_space *m, unsigned long index)
{
	struct page *page = find_lock_page(m, index);

	if (!page)
		return;
	if (page->mapping == m) {
		remove_from_page_cache(page);
		page_cache_release(page);	/* pagecache ref */
	}
	unlock_page(page);
	page_cache_release(page);
}

static void truncate0(void *arg)
{
	(void)arg;
	truncate_one(&mappings[0], 0);
}

/* Truncate, then reuse the freed page elsewhere: a stale pointer's target. */
static void truncate0_reuse(void *arg)
{
	struct page *page;

	(void)arg;
	truncate_one(&mappings[0], 0);
	page = alloc_page(0);
	if (!page)
		return;
	if (add_to_page_cache(page, &mappings[1], 0, 0) == 0)
		unlock_page(page);
	page_cache_release(page);
}

static void setup_lookup_truncate(void *arg)
{
	(void)arg;
	shadow_attach();	/* the detectors observe the model */
	model_setup(3, 8);
	model_prefill(&mappings[0], KEEPER);
	model_prefill(&mappings[0], 0);
	pr_spawn("cpu0", lookup0, NULL, 0);
	pr_spawn("cpu1", lookup0, NULL, 0);
	pr_spawn("cpu2", truncate0, NULL, 0);
	model_start();
}

static void setup_lookup_reuse(void *arg)
{
	(void)arg;
	shadow_attach();	/* the detectors observe the model */
	model_setup(2, 8);
	model_prefill(&mappings[0], KEEPER);
	model_prefill(&mappings[0], 0);
	pr_spawn("cpu0", lookup0, NULL, 0);
	pr_spawn("cpu1", truncate0_reuse, NULL, 0);
	model_start();
}

/* ---- a reader walking nodes that truncate frees (radix-rcu-free) ------- */

static void lookup_deep(void *arg)
{
	(void)arg;
	release_held(lookup_held(&mappings[0], 5));
}

static void truncate_tail(void *arg)
{
	(void)arg;
	truncate_inode_pages(&mappings[0], 4);
}

static void setup_walk_free(void *arg)
{
	(void)arg;
	shadow_attach();	/* the detectors observe the model */
	model_setup(2, 8);
	/* index 5 needs two levels at shift 2; 4..5 share the freed leaf */
	model_prefill(&mappings[0], 0);
	model_prefill(&mappings[0], 4);
	model_prefill(&mappings[0], 5);
	pr_spawn("cpu0", lookup_deep, NULL, 0);
	pr_spawn("cpu1", truncate_tail, NULL, 0);
	model_start();
}

/* ---- an interrupt allocating under a speculative reference (spec-irq) -- */

static void truncate0_drain(void *arg)
{
	(void)arg;
	truncate_one(&mappings[0], 0);
	drain_local_pages();
}

static void irq_alloc(void *arg)
{
	struct page *page;

	(void)arg;
	page = alloc_page(0);
	if (page)
		__free_page(page);
}

static void setup_irq_alloc(void *arg)
{
	int cpu0;

	(void)arg;
	shadow_attach();	/* the detectors observe the model */
	model_setup(2, 4);
	model_prefill(&mappings[0], KEEPER);
	model_prefill(&mappings[0], 0);
	cpu0 = pr_spawn("cpu0", lookup0, NULL, 0);
	pr_spawn("cpu1", truncate0_drain, NULL, 0);
	pr_inject(cpu0, "irq-alloc", irq_alloc, NULL, 1);
	model_start();
}

/* ---- insertion racing lookups (add-after-insert) ----------------------- */

static void add1(void *arg)
{
	struct page *page;

	(void)arg;
	page = alloc_page(0);
	if (!page)
		return;
	if (add_to_page_cache(page, &mappings[0], 1, 0) == 0) {
		SetPageUptodate(page);
		unlock_page(page);
	}
	page_cache_release(page);
}

static void lookup1(void *arg)
{
	(void)arg;
	release_held(lookup_held(&mappings[0], 1));
}

static void trylock1(void *arg)
{
	struct page *page;

	(void)arg;
	page = find_trylock_page(&mappings[0], 1);
	if (page)
		unlock_page(page);
}

static void setup_add_lookup(void *arg)
{
	(void)arg;
	shadow_attach();	/* the detectors observe the model */
	model_setup(3, 8);
	pr_spawn("cpu0", add1, NULL, 0);
	pr_spawn("cpu1", lookup1, NULL, 0);
	pr_spawn("cpu2", trylock1, NULL, 0);
	model_start();
}

/* ---- reclaim racing a lookup (no-freeing-flag) ------------------------- */

static struct page *reclaim_victim;

static void reclaim0(void *arg)
{
	(void)arg;
	if (!shrink_page(reclaim_victim))
		page_cache_release(reclaim_victim);	/* kept: drop isolation ref */
}

/* Look a page up and use it a while (here: look at its neighbour). */
static void lookup0_use(void *arg)
{
	struct page *page;

	(void)arg;
	page = lookup_held(&mappings[0], 0);
	(void)readahead_probe(&mappings[0], KEEPER);
	release_held(page);
}

static void setup_reclaim_lookup(void *arg)
{
	(void)arg;
	shadow_attach();	/* the detectors observe the model */
	model_setup(2, 8);
	model_prefill(&mappings[0], KEEPER);
	reclaim_victim = model_prefill(&mappings[0], 0);
	get_page(reclaim_victim);	/* isolate_lru_pages' reference */
	pr_spawn("cpu0", reclaim0, NULL, 0);
	pr_spawn("cpu1", lookup0_use, NULL, 0);
	model_start();
}

/* ---- find_lock_page racing truncate (lock-no-recheck) ------------------ */

static void lock0(void *arg)
{
	struct page *page;

	(void)arg;
	page = find_lock_page(&mappings[0], 0);
	if (page) {
		unlock_page(page);
		page_cache_release(page);
	}
}

static void setup_lock_truncate(void *arg)
{
	(void)arg;
	shadow_attach();	/* the detectors observe the model */
	model_setup(2, 8);
	model_prefill(&mappings[0], KEEPER);
	model_prefill(&mappings[0], 0);
	pr_spawn("cpu0", lock0, NULL, 0);
	pr_spawn("cpu1", truncate0, NULL, 0);
	model_start();
}

/* ---- the swap cache pair ----------------------------------------------- */

static struct page *swap_page;

static void swap_lookup(void *arg)
{
	(void)arg;
	release_held(lookup_held(&swapper_space, 7));
}

static void swap_remove(void *arg)
{
	(void)arg;
	lock_page(swap_page);
	remove_exclusive_swap_page(swap_page);
	unlock_page(swap_page);
	page_cache_release(swap_page);	/* our reference: may free it */
}

static void setup_swap(void *arg)
{
	(void)arg;
	shadow_attach();	/* the detectors observe the model */
	model_setup(2, 8);
	swap_page = model_prefill_swap(7);
	get_page(swap_page);		/* the remover's own reference */
	pr_spawn("cpu0", swap_remove, NULL, 0);
	pr_spawn("cpu1", swap_lookup, NULL, 0);
	model_start();
}

/* ---- everything at once, on 3 CPUs ------------------------------------- */

static void mixed_reader(void *arg)
{
	struct page *pages[4];
	unsigned n;

	(void)arg;
	release_held(lookup_held(&mappings[0], 1));
	lock0(NULL);
	n = find_get_pages_nonatomic(&mappings[0], 0, 4, pages);
	release_pages(pages, (int)n);
	(void)readahead_probe(&mappings[0], 2);
}

static void mixed_writer(void *arg)
{
	(void)arg;
	add1(NULL);
	truncate_inode_pages(&mappings[0], 0);
}

static void setup_mixed(void *arg)
{
	(void)arg;
	shadow_attach();	/* the detectors observe the model */
	model_setup(3, 8);
	reclaim_victim = model_prefill(&mappings[0], 0);
	get_page(reclaim_victim);
	model_prefill(&mappings[0], 2);
	pr_spawn("cpu0", mixed_reader, NULL, 0);
	pr_spawn("cpu1", mixed_writer, NULL, 0);
	pr_spawn("cpu2", reclaim0, NULL, 0);
	model_start();
}

#define PC_PROGRAM(var, pname, psummary, psetup)			\
	const struct pr_program var = {					\
		.name = pname, .summary = psummary,			\
		.setup = psetup, .finish = finish,			\
	}

PC_PROGRAM(pr_prog_pc_lookup_truncate, "pc-lookup-truncate",
	   "two find_get_page vs truncate of the page (spec-free-check)",
	   setup_lookup_truncate);
PC_PROGRAM(pr_prog_pc_lookup_reuse, "pc-lookup-reuse",
	   "find_get_page vs truncate + reuse of the page (no-recheck)",
	   setup_lookup_reuse);
PC_PROGRAM(pr_prog_pc_walk_free, "pc-walk-free",
	   "find_get_page deep in the tree vs truncate freeing nodes (radix-rcu-free)",
	   setup_walk_free);
PC_PROGRAM(pr_prog_pc_irq_alloc, "pc-irq-alloc",
	   "find_get_page with an allocating interrupt vs truncate (spec-irq)",
	   setup_irq_alloc);
PC_PROGRAM(pr_prog_pc_add_lookup, "pc-add-lookup",
	   "add_to_page_cache vs find_get_page and find_trylock_page (add-after-insert)",
	   setup_add_lookup);
PC_PROGRAM(pr_prog_pc_reclaim_lookup, "pc-reclaim-lookup",
	   "shrink_list reclaim vs find_get_page (no-freeing-flag)",
	   setup_reclaim_lookup);
PC_PROGRAM(pr_prog_pc_lock_truncate, "pc-lock-truncate",
	   "find_lock_page vs truncate (lock-no-recheck)",
	   setup_lock_truncate);
PC_PROGRAM(pr_prog_pc_swap, "pc-swap",
	   "remove_exclusive_swap_page vs a swap cache lookup",
	   setup_swap);
PC_PROGRAM(pr_prog_pc_mixed, "pc-mixed",
	   "lookups, gang lookup, insertion, truncate and reclaim on 3 CPUs",
	   setup_mixed);
