/* SPDX-License-Identifier: MIT */
/*
 * page_alloc.c - Linux 2.6.13-rc6 mm/page_alloc.c, one zone, after seeds
 * 002 (patch 1/7: no PageReserved special case), 003 (patch 2/7: PG_free
 * marks buddy pages) and 004 (patch 3/7: the count of a free page may be
 * raised by speculative getters at any time, so the allocator no longer
 * checks it, and prep_new_page waits for those references to go away).
 *
 * PROTO_LOCKED and PROTO_MERGED keep patches 1/7 and 2/7 (PG_free) but not
 * 3/7: free_pages_check and prep_new_page test page_count() != 0 and a new
 * page gets set_page_count(page, 1), as in 2.6.13 and in 2.6.27.
 *
 * Shared allocator state is touched in the kernel's order through the
 * kernel accessors.  Lists are plain (model/list.h) under zone->lock or,
 * for per-CPU lists, with local interrupts off.  zone->free_pages and
 * free_area[].nr_free are plain under zone->lock; per_cpu_pages fields are
 * plain too: only their CPU touches them, with interrupts off.
 *
 * Beside the model the allocator keeps a shadow (no yield points, not
 * model memory) of where each page is: in use, on a per-CPU list, or in
 * the buddy lists, and the order of each allocated block.  It lets the
 * double-free detector see a page freed twice while it sits on a per-CPU
 * list (where PG_free is clear), and lets page_alloc_verify() tell the
 * tail pages of an allocated block from leaked pages.
 *
 * This file frees: the page checks, the buddy free path and the per-CPU
 * free lists.  Allocation is in page_alloc_rmqueue.c, the reset and the
 * end-of-run checks in page_alloc_reset.c and page_alloc_verify.c; what
 * they share is page_alloc_internal.h.
 */
#include "runtime/tsan.h"
#include "model/page_alloc.h"
#include "model/page_alloc_internal.h"
#include "model/observe.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/access.h"
#include "kernel/barrier.h"
#include "kernel/bitops.h"
#include "kernel/irq.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "model/variant.h"
#include "runtime/context.h"
#include "runtime/effects.h"

struct zone zone_normal;

struct pa_shadow *pa_shadow_map;
unsigned char *pa_seen;
unsigned long pa_shadow_nr;

/* Seed 004 removed the page_count tests; the other protocols keep them. */
static inline int checks_page_count(void)
{
	return variant.protocol != PROTO_V2;
}

PR_NO_TSAN void shadow_set(struct page *page, unsigned int order, int where)
{
	unsigned long pfn = page_to_pfn(page);
	unsigned long n = 1UL << order;

	if (pfn >= pa_shadow_nr)
		return;
	if (n > pa_shadow_nr - pfn)
		n = pa_shadow_nr - pfn;
	/*
	 * check_not_free and __free_pages_ok's order check read this shadow:
	 * for dpor it is written here, or a free and a second free of the
	 * page would commute and only one of their orders be run.
	 */
	pr_effect(&pa_shadow_map[pfn], n * sizeof(pa_shadow_map[0]),
		  PR_EFF_WRITE);
	for (unsigned long i = 0; i < n; i++) {
		pa_shadow_map[pfn + i].where = (unsigned char)where;
		pa_shadow_map[pfn + i].order = 0;
	}
	if (where == SH_USE)
		pa_shadow_map[pfn].order = (unsigned char)order;
	if (where == SH_PCP)
		pa_shadow_map[pfn].cpu = (unsigned char)smp_processor_id();
}

/* Detector: freeing a page that is not in use. */
PR_NO_TSAN static void check_not_free(struct page *page, const char *function)
{
	unsigned long pfn = page_to_pfn(page);

	pr_effect(&pa_shadow_map[pfn], sizeof(pa_shadow_map[pfn]), PR_EFF_READ);
	if (pa_shadow_map[pfn].where == SH_PCP)
		pr_fail("double-free", page,
			"double free of page#%lu in %s: already on CPU %u's per-CPU list",
			pfn, function, pa_shadow_map[pfn].cpu);
	if (pa_shadow_map[pfn].where == SH_BUDDY)
		pr_fail("double-free", page,
			"double free of page#%lu in %s: already in the buddy free lists",
			pfn, function);
}

/**
 * bad_page - report a page in a state it must not be in
 *
 * 2.6.13 mm/page_alloc.c (seeds 002/003 add PG_reserved/PG_free to the
 * cleared set, seed 004 drops set_page_count(page, 0)).  The kernel prints
 * and repairs the page; the model ends the run, naming what was wrong with
 * the values the check loaded.  PG_free on a page being freed is reported
 * as "double-free".
 */
static void bad_page(const char *function, struct page *page, int mapcount,
		     const struct address_space *mapping, int count,
		     unsigned long flags, unsigned long mask)
{
	char names[160];
	unsigned long pfn = page_to_pfn(page);

	if (mapcount)
		pr_fail("bad-page", page, "Bad page state at %s: page#%lu mapcount %d",
			function, pfn, mapcount);
	if (mapping)
		pr_fail("bad-page", page, "Bad page state at %s: page#%lu mapping not NULL",
			function, pfn);
	if (count)
		pr_fail("bad-page", page, "Bad page state at %s: page#%lu count %d",
			function, pfn, count);
	if ((flags & (1UL << PG_free)) && strcmp(function, "prep_new_page"))
		pr_fail("double-free", page,
			"double free of page#%lu in %s: PG_free set (page is in the buddy lists)",
			pfn, function);
	pr_fail("bad-page", page, "Bad page state at %s: page#%lu flags %s",
		function, pfn, page_flag_names(flags & mask, names, sizeof(names)));
}

/*
 * The checks of free_pages_check and prep_new_page: loads in the order of
 * the kernel's || chain, stopping at the first hit.
 */
void check_page_state(const char *function, struct page *page,
			     unsigned long mask)
{
	int mapcount, count = 0;
	struct address_space *mapping = NULL;
	unsigned long flags = 0;

	mapcount = page_mapcount(page);
	if (mapcount)
		goto bad;
	mapping = LOAD(page->mapping);
	if (mapping)
		goto bad;
	if (checks_page_count()) {
		count = page_count(page);
		if (count)
			goto bad;
	}
	flags = LOAD(page->flags);
	if (flags & mask)
		goto bad;
	return;
bad:
	bad_page(function, page, mapcount, mapping, count, flags, mask);
}

/* 2.6.13 mm/page_alloc.c */
static inline struct page *__page_find_buddy(struct page *page,
					     unsigned long page_idx,
					     unsigned int order)
{
	unsigned long buddy_idx = page_idx ^ (1UL << order);

	return page + (buddy_idx - page_idx);
}

/* 2.6.13 mm/page_alloc.c */
static inline unsigned long __find_combined_index(unsigned long page_idx,
						  unsigned int order)
{
	return page_idx & ~(1UL << order);
}

/**
 * page_is_buddy - is @page the head of a free block of @order?
 *
 * seed 003 (patch 2/7): PageFree replaces PagePrivate && page_count == 0,
 * since the count of a free page is no longer stable.
 */
static inline int page_is_buddy(struct page *page, int order)
{
	if (PageFree(page) && (page_order(page) == (unsigned long)order))
		return 1;
	return 0;
}

/**
 * __free_pages_bulk - put a block into the buddy lists, merging buddies
 *
 * 2.6.13 mm/page_alloc.c; zone->lock held.  Detects a block that is
 * already free ("double-free").
 */
static inline void __free_pages_bulk(struct page *page, struct zone *zone,
				     unsigned int order)
{
	unsigned long page_idx;
	unsigned long order_size = 1UL << order;

	/* detector: the kernel would corrupt its lists here (dpor: a read) */
	pr_effect_bit(&page->flags, PG_free);
	if (page_peek_flags(page) & (1UL << PG_free))
		pr_fail("double-free", page,
			"double free of page#%lu in __free_pages_bulk: PG_free set",
			page_to_pfn(page));
	shadow_set(page, order, SH_BUDDY);

	page_idx = page_to_pfn(page) & ((1UL << MAX_ORDER) - 1);
	PR_ASSERT(!(page_idx & (order_size - 1)));
	PR_ASSERT(!bad_range(zone, page));

	zone->free_pages += order_size;
	while (order < MAX_ORDER - 1) {
		unsigned long combined_idx;
		struct free_area *area;
		struct page *buddy;

		combined_idx = __find_combined_index(page_idx, order);
		buddy = __page_find_buddy(page, page_idx, order);

		if (bad_range(zone, buddy))
			break;
		if (!page_is_buddy(buddy, (int)order))
			break;		/* Move the buddy up one level. */
		list_del(&buddy->lru);
		area = zone->free_area + order;
		area->nr_free--;
		rmv_page_order(buddy);
		page = page + (combined_idx - page_idx);
		page_idx = combined_idx;
		order++;
	}
	set_page_order(page, (int)order);
	list_add(&page->lru, &zone->free_area[order].free_list);
	zone->free_area[order].nr_free++;
}

/**
 * free_pages_check - a page being freed must be clean
 *
 * 2.6.13 mm/page_alloc.c; seed 002 adds PG_reserved and __ClearPageDirty,
 * seed 003 adds PG_free, seed 004 removes the page_count test (kept for
 * PROTO_LOCKED/PROTO_MERGED).
 */
static inline void free_pages_check(const char *function, struct page *page)
{
	check_page_state(function, page, FREE_CHECK_FLAGS);
	if (PageDirty(page))
		__ClearPageDirty(page);
}

/**
 * free_pages_bulk - move up to @count pages from @list to the buddy lists
 *
 * 2.6.13 mm/page_alloc.c: takes zone->lock with interrupts off, frees
 * from the tail (the coldest pages).  Returns the number freed.
 */
static int free_pages_bulk(struct zone *zone, int count,
			   struct list_head *list, unsigned int order)
{
	unsigned long flags;
	struct page *page = NULL;
	int ret = 0;

	spin_lock_irqsave(&zone->lock, flags);
	while (!list_empty(list) && count--) {
		page = list_entry(list->prev, struct page, lru);
		/* have to delete it as __free_pages_bulk list manipulates */
		list_del(&page->lru);
		__free_pages_bulk(page, zone, order);
		ret++;
	}
	spin_unlock_irqrestore(&zone->lock, flags);
	return ret;
}

/**
 * __free_pages_ok - free a block of any order straight to the buddy lists
 *
 * 2.6.13 mm/page_alloc.c (CONFIG_MMU).
 */
void __free_pages_ok(struct page *page, unsigned int order)
{
	LIST_HEAD(list);
	unsigned long pfn = page_to_pfn(page);

	for (unsigned int i = 0; i < (1U << order); ++i) {
		observe_check_free(page + i, __func__);
		check_not_free(page + i, __func__);
	}
	/* (check_not_free reported the read of pa_shadow_map[pfn]) */
	if (pa_shadow_map[pfn].order != order)
		pr_fail("bad-page", page, "__free_pages_ok: page#%lu freed as order %u, allocated as order %u",
			pfn, order, pa_shadow_map[pfn].order);
	for (unsigned int i = 0; i < (1U << order); ++i)
		free_pages_check(__func__, page + i);
	list_add(&page->lru, &list);
	free_pages_bulk(page_zone(page), 1, &list, order);
}

/**
 * free_hot_cold_page - free an order-0 page to this CPU's hot or cold list
 *
 * 2.6.13 mm/page_alloc.c: free_pages_check, then with interrupts off
 * drain a batch to the buddy lists if the list is at its high mark, and
 * add the page at the head.
 */
static void free_hot_cold_page(struct page *page, int cold)
{
	struct zone *zone = page_zone(page);
	struct per_cpu_pages *pcp;
	unsigned long flags;
	struct address_space *mapping;

	observe_check_free(page, __func__);	/* detector, no yield point */
	mapping = LOAD(page->mapping);
	if ((unsigned long)mapping & PAGE_MAPPING_ANON)	/* PageAnon */
		STORE(page->mapping, (struct address_space *)NULL);
	free_pages_check(__func__, page);
	pcp = &zone->pageset[smp_processor_id()].pcp[cold];	/* get_cpu() */
	local_irq_save(flags);
	if (pcp->count >= pcp->high)
		pcp->count -= free_pages_bulk(zone, pcp->batch, &pcp->list, 0);
	check_not_free(page, __func__);
	shadow_set(page, 0, SH_PCP);
	list_add(&page->lru, &pcp->list);
	pcp->count++;
	local_irq_restore(flags);
}

/* 2.6.13 mm/page_alloc.c: empty @cpu's per-CPU lists into the buddy lists */
static void __drain_pages(int cpu)
{
	struct zone *zone = &zone_normal;
	struct per_cpu_pageset *pset = &zone->pageset[cpu];

	for (int i = 0; i < 2; i++) {
		struct per_cpu_pages *pcp = &pset->pcp[i];

		pcp->count -= free_pages_bulk(zone, pcp->count, &pcp->list, 0);
	}
}

/**
 * drain_local_pages - give this CPU's per-CPU pages back to the buddy lists
 *
 * 2.6.13 mm/page_alloc.c (CONFIG_PM); interrupts off around the drain.
 */
void drain_local_pages(void)
{
	unsigned long flags;

	local_irq_save(flags);
	__drain_pages(smp_processor_id());
	local_irq_restore(flags);
}

void page_alloc_drain_all(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		__drain_pages(cpu);
}

/* 2.6.13 mm/page_alloc.c */
void free_hot_page(struct page *page)
{
	free_hot_cold_page(page, 0);
}

/* 2.6.13 mm/page_alloc.c */
void free_cold_page(struct page *page)
{
	free_hot_cold_page(page, 1);
}

/**
 * __free_pages - drop a reference; the last one frees the block
 *
 * 2.6.13 mm/page_alloc.c after seed 002 (no PageReserved test).
 */
void __free_pages(struct page *page, unsigned int order)
{
	if (put_page_testzero(page)) {
		if (order == 0)
			free_hot_page(page);
		else
			__free_pages_ok(page, order);
	}
}
