/* SPDX-License-Identifier: MIT */
/*
 * model.c - one run's page-cache world: set-up, initial state, end-of-run
 * invariants (leaks, counts, trees, free lists).
 */
#include "model/observe.h"
#include "runtime/tsan.h"
#include "kernel/kernel.h"
#include "model/model.h"
#include "model/page_alloc.h"
#include "model/variant.h"

#include <stdio.h>
#include <string.h>

static void init_mapping(struct address_space *m, int id)
{
	pr_tsan_new_memory(m, sizeof(*m));
	memset(m, 0, sizeof(*m));
	INIT_RADIX_TREE(&m->page_tree, 0);
	m->id = id;
}

static int model_obj_name(const void *obj, char *buf, unsigned len)
{
	const char *p = obj;

	for (int i = 0; i < MODEL_MAX_MAPPINGS; i++) {
		const char *b = (const char *)&mappings[i];

		if (p >= b && p < b + sizeof(mappings[i])) {
			snprintf(buf, len, "m%d%s", i,
				 p == (const char *)&mappings[i].tree_lock ||
				 p == (const char *)&mappings[i].tree_rwlock ?
				 ".tree_lock" : "");
			return 1;
		}
	}
	if (p >= (const char *)&swapper_space &&
	    p < (const char *)&swapper_space + sizeof(swapper_space)) {
		snprintf(buf, len, "swapper_space");
		return 1;
	}
	return page_obj_name(obj, buf, len);
}

/* Does this CPU hold the tree_lock of the mapping @root belongs to? */
static int tree_lock_held(const struct radix_tree_root *root)
{
	struct address_space *m = NULL;

	if (root == &swapper_space.page_tree)
		m = &swapper_space;
	for (int i = 0; i < MODEL_MAX_MAPPINGS; i++)
		if (root == &mappings[i].page_tree)
			m = &mappings[i];
	return m && (rwlock_is_held(&m->tree_rwlock) ||
		     spin_is_held(&m->tree_lock));
}

const struct model_observer *model_observer;

void model_set_observer(const struct model_observer *o)
{
	model_observer = o;
}

void model_setup(int nr_cpus, unsigned long nr_pages)
{
	static unsigned long pages_now;
	static int initialised;

	if (nr_pages > MODEL_MAX_PAGES)
		pr_fail("setup", NULL, "at most %d pages", MODEL_MAX_PAGES);
	kernel_reset(nr_cpus);
	if (!initialised) {
		radix_tree_init(256);
		initialised = 1;
	}
	if (pages_now != nr_pages) {
		page_model_init(nr_pages);
		pages_now = nr_pages;
	}
	page_model_reset();
	kernel_set_obj_resolver(model_obj_name);
	radix_tree_set_lock_check(tree_lock_held);
	if (radix_tree_reset() != 0)
		pr_fail("setup", NULL, "unsupported radix tree shift %u",
			variant.radix_map_shift);
	for (int i = 0; i < MODEL_MAX_MAPPINGS; i++)
		init_mapping(&mappings[i], i);
	init_mapping(&swapper_space, -1);
	observe_reset();
}

void model_start(void)
{
	rcu_start_daemon();
}

struct page *model_prefill(struct address_space *mapping, unsigned long index)
{
	struct page *page = alloc_page(0);

	if (!page)
		pr_fail("setup", NULL, "out of pages for the initial state");
	if (add_to_page_cache(page, mapping, index, 0) != 0)
		pr_fail("setup", page, "index %lu of %s is taken", index,
			model_mapping_name(mapping));
	SetPageUptodate(page);
	unlock_page(page);
	put_page(page);		/* the allocation's; the cache keeps its own */
	return page;
}

struct page *model_prefill_swap(unsigned long entry)
{
	struct page *page = alloc_page(0);

	if (!page)
		pr_fail("setup", NULL, "out of pages for the initial state");
	if (add_to_swap_cache(page, entry) != 0)
		pr_fail("setup", page, "swap entry %lu is taken", entry);
	SetPageUptodate(page);
	unlock_page(page);
	put_page(page);
	return page;
}

const char *model_mapping_name(const struct address_space *m)
{
	static const char *const names[] = { "m0", "m1", "m2", "m3" };

	if (m == &swapper_space)
		return "swapper_space";
	if (m && m->id >= 0 && m->id < MODEL_MAX_MAPPINGS)
		return names[m->id];
	return "NULL";
}

/* Where each page is found at the end: 0 nowhere, 1 once in a cache. */
static unsigned char seen[MODEL_MAX_PAGES];

static void check_entry(struct address_space *m, unsigned long index,
			struct page *page)
{
	unsigned long pfn;
	int want;

	if (!pfn_valid(page_to_pfn(page)))
		pr_fail("invariant", page, "%s index %lu holds a non-page",
			model_mapping_name(m), index);
	pfn = page_to_pfn(page);
	if (seen[pfn]++)
		pr_fail("invariant", page, "page is in the page cache twice");
	if (page_peek_flags(page) & (1UL << PG_free))
		pr_fail("invariant", page, "free page still in %s at index %lu",
			model_mapping_name(m), index);
	if (m == &swapper_space) {
		if (!(page_peek_flags(page) & (1UL << PG_swapcache)) ||
		    page->private != index)
			pr_fail("invariant", page,
				"swap cache entry %lu: PG_swapcache or private wrong",
				index);
	} else if (page->mapping != m || page->index != index) {
		pr_fail("invariant", page,
			"%s index %lu holds a page whose mapping is %s, index %lu",
			model_mapping_name(m), index,
			model_mapping_name(page->mapping), page->index);
	}
	if (page_peek_flags(page) & (1UL << PG_locked))
		pr_fail("leak", page, "page still locked at the end of the run");
	want = 1 + observe_holders(page);
	if (page_peek_count(page) != want)
		pr_fail("leak", page,
			"page in %s at index %lu has count %d, expected %d",
			model_mapping_name(m), index, page_peek_count(page), want);
}

static unsigned long nodes_seen;

/* radix_tree_peek_each's callback: one (index, page) of a tree. */
static unsigned long walked_now;

static void walk_entry(void *arg, unsigned long index, void *item)
{
	check_entry(arg, index, item);
	walked_now++;
}

static void check_mapping(struct address_space *m)
{
	unsigned long entries = 0, walked = 0;

	radix_tree_check(&m->page_tree, &entries, 0);
	walked_now = 0;
	nodes_seen += radix_tree_peek_each(&m->page_tree, walk_entry, m);
	walked = walked_now;
	if (walked != entries)
		pr_fail("invariant", m, "%s: walked %lu entries, radix_tree_check counted %lu",
			model_mapping_name(m), walked, entries);
	if (m->nrpages != entries)
		pr_fail("invariant", m, "%s: nrpages is %lu but the tree holds %lu pages",
			model_mapping_name(m), m->nrpages, entries);
}

void model_finish(void)
{
	unsigned long ran = rcu_barrier_final();

	(void)ran;
	if (rcu_callbacks_pending())
		pr_fail("leak", NULL, "%lu RCU callbacks still pending after the final grace period",
			rcu_callbacks_pending());
	memset(seen, 0, sizeof(seen));
	nodes_seen = 0;
	for (int i = 0; i < MODEL_MAX_MAPPINGS; i++)
		check_mapping(&mappings[i]);
	check_mapping(&swapper_space);
	/* Every callback has run: a node in no tree should have been freed. */
	if (radix_tree_nodes_active() != nodes_seen)
		pr_fail("leak", NULL,
			"%u radix-tree nodes allocated, %lu in the trees: %lu never freed",
			radix_tree_nodes_active(), nodes_seen,
			(unsigned long)radix_tree_nodes_active() - nodes_seen);
	for (unsigned long pfn = 0; pfn < max_mapnr; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if (seen[pfn])
			continue;
		if (page_peek_count(page) != 0)
			pr_fail("leak", page,
				"page has count %d but is neither free nor in a cache",
				page_peek_count(page));
	}
	page_alloc_check();
}
