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
 */
#include "runtime/tsan.h"
#include "model/page_alloc.h"
#include "check/shadow.h"

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

struct zone zone_normal;

static int pcp_batch = 1;
static int pageset_ready;	/* every CPU's lists set up with pcp_batch */

enum { SH_USE = 0, SH_PCP, SH_BUDDY };

struct pa_shadow {
	unsigned char where;	/* SH_* */
	unsigned char order;	/* order of an allocated block, at its head */
	unsigned char cpu;	/* SH_PCP: whose list */
};

static struct pa_shadow *shadow;
static unsigned char *seen;	/* page_alloc_verify scratch */
static unsigned long shadow_nr;

#define FREE_CHECK_FLAGS (1UL << PG_lru | 1UL << PG_private |		\
			  1UL << PG_locked | 1UL << PG_active |		\
			  1UL << PG_reclaim | 1UL << PG_slab |		\
			  1UL << PG_swapcache | 1UL << PG_writeback |	\
			  1UL << PG_reserved | 1UL << PG_free)
#define PREP_CHECK_FLAGS (FREE_CHECK_FLAGS | 1UL << PG_dirty)
#define PREP_CLEAR_FLAGS (1UL << PG_uptodate | 1UL << PG_error |	\
			  1UL << PG_referenced | 1UL << PG_arch_1 |	\
			  1UL << PG_checked | 1UL << PG_mappedtodisk)

/* Seed 004 removed the page_count tests; the other protocols keep them. */
static inline int checks_page_count(void)
{
	return variant.protocol != PROTO_V2;
}

PR_NO_TSAN static void shadow_set(struct page *page, unsigned int order, int where)
{
	unsigned long pfn = page_to_pfn(page);

	for (unsigned long i = 0; i < (1UL << order) && pfn + i < shadow_nr; i++) {
		shadow[pfn + i].where = (unsigned char)where;
		shadow[pfn + i].order = 0;
	}
	if (where == SH_USE)
		shadow[pfn].order = (unsigned char)order;
	if (where == SH_PCP)
		shadow[pfn].cpu = (unsigned char)smp_processor_id();
}

/* Detector: freeing a page that is not in use. */
PR_NO_TSAN static void check_not_free(struct page *page, const char *function)
{
	unsigned long pfn = page_to_pfn(page);

	if (shadow[pfn].where == SH_PCP)
		pr_fail("double-free", page,
			"double free of page#%lu in %s: already on CPU %u's per-CPU list",
			pfn, function, shadow[pfn].cpu);
	if (shadow[pfn].where == SH_BUDDY)
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
static void check_page_state(const char *function, struct page *page,
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
static inline unsigned long page_order(struct page *page)
{
	return LOAD(page->private);
}

/* seed 003 (patch 2/7), set_page_order: PG_free instead of PG_private */
static inline void set_page_order(struct page *page, int order)
{
	STORE(page->private, (unsigned long)order);
	__SetPageFree(page);
}

/* seed 003 (patch 2/7), rmv_page_order */
static inline void rmv_page_order(struct page *page)
{
	__ClearPageFree(page);
	STORE(page->private, 0UL);
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

/* 2.6.13 mm/page_alloc.c: outside the zone's pages? */
static inline int bad_range(struct zone *zone, struct page *page)
{
	(void)zone;
	return page < mem_map || page >= mem_map + max_mapnr;
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

	/* detector: the kernel would corrupt its lists here */
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
		shadow_check_free(page + i, __func__);
		check_not_free(page + i, __func__);
	}
	if (shadow[pfn].order != order)
		pr_fail("bad-page", page, "__free_pages_ok: page#%lu freed as order %u, allocated as order %u",
			pfn, order, shadow[pfn].order);
	for (unsigned int i = 0; i < (1U << order); ++i)
		free_pages_check(__func__, page + i);
	list_add(&page->lru, &list);
	free_pages_bulk(page_zone(page), 1, &list, order);
}

/**
 * expand - return the unused halves of a split block to the free lists
 *
 * 2.6.13 mm/page_alloc.c; zone->lock held.
 */
static inline void expand(struct zone *zone, struct page *page, int low,
			  int high, struct free_area *area)
{
	unsigned long size = 1UL << high;

	(void)zone;
	while (high > low) {
		area--;
		high--;
		size >>= 1;
		list_add(&page[size].lru, &area->free_list);
		area->nr_free++;
		set_page_order(&page[size], high);
	}
}

/**
 * set_page_refs - give a new page its first reference
 *
 * seed 004 (patch 3/7): get_page instead of set_page_count(page, 1), so
 * speculative references already on the page are kept (CONFIG_MMU: the
 * head page only).  PROTO_LOCKED/PROTO_MERGED: set_page_count(page, 1).
 */
void set_page_refs(struct page *page, int order)
{
	(void)order;
	if (variant.protocol == PROTO_V2)
		get_page(page);
	else
		set_page_count(page, 1);
}

/**
 * prep_new_page - check and initialise a page leaving the allocator
 *
 * 2.6.13 mm/page_alloc.c with seeds 002/003 (PG_reserved, PG_free in the
 * check) and seed 004 (patch 3/7): no page_count test, then
 * set_page_refs; smp_mb(); and a spin until speculative getters have
 * dropped their references.  The spin is where the cover letter's bug
 * hangs: a getter that holds a reference with interrupts on can be
 * interrupted by an allocation on its own CPU that waits for it forever.
 */
static void prep_new_page(struct page *page, int order)
{
	unsigned long flags;

	check_page_state(__func__, page, PREP_CHECK_FLAGS);

	flags = LOAD(page->flags);
	STORE(page->flags, flags & ~PREP_CLEAR_FLAGS);
	STORE(page->private, 0UL);

	set_page_refs(page, order);
	if (variant.protocol == PROTO_V2) {
		/* seed 004 (patch 3/7), prep_new_page: wait for speculative refs */
		smp_mb();
		while (page_count(page) > 1)
			cpu_relax_on(page);	/* cpu_relax() */
	}
}

/**
 * __rmqueue - take a block of @order from the buddy lists, splitting
 *
 * 2.6.13 mm/page_alloc.c; zone->lock held.
 */
static struct page *__rmqueue(struct zone *zone, unsigned int order)
{
	struct free_area *area;
	unsigned int current_order;
	struct page *page;

	for (current_order = order; current_order < MAX_ORDER; ++current_order) {
		area = zone->free_area + current_order;
		if (list_empty(&area->free_list))
			continue;

		page = list_entry(area->free_list.next, struct page, lru);
		list_del(&page->lru);
		rmv_page_order(page);
		area->nr_free--;
		zone->free_pages -= 1UL << order;
		expand(zone, page, (int)order, (int)current_order, area);
		shadow_set(page, order, SH_USE);
		return page;
	}
	return NULL;
}

/**
 * rmqueue_bulk - move up to @count blocks of @order to @list
 *
 * 2.6.13 mm/page_alloc.c: under zone->lock with interrupts off; pages go
 * to the tail of @list.  Returns the number moved.
 */
static int rmqueue_bulk(struct zone *zone, unsigned int order,
			unsigned long count, struct list_head *list)
{
	unsigned long flags;
	int allocated = 0;
	struct page *page;

	spin_lock_irqsave(&zone->lock, flags);
	for (unsigned long i = 0; i < count; ++i) {
		page = __rmqueue(zone, order);
		if (page == NULL)
			break;
		allocated++;
		shadow_set(page, order, SH_PCP);
		list_add_tail(&page->lru, list);
	}
	spin_unlock_irqrestore(&zone->lock, flags);
	return allocated;
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

	shadow_check_free(page, __func__);	/* detector, no yield point */
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
 * buffered_rmqueue - allocate from the per-CPU lists or the buddy lists
 *
 * 2.6.13 mm/page_alloc.c: order 0 comes from this CPU's hot (or, with
 * __GFP_COLD, cold) list, refilled by a batch when at its low mark; other
 * orders, or an empty list, from __rmqueue under zone->lock.  Then
 * prep_new_page.
 */
static struct page *buffered_rmqueue(struct zone *zone, unsigned int order,
				     unsigned int gfp_flags)
{
	unsigned long flags;
	struct page *page = NULL;
	int cold = !!(gfp_flags & __GFP_COLD);

	if (order == 0) {
		struct per_cpu_pages *pcp;

		pcp = &zone->pageset[smp_processor_id()].pcp[cold]; /* get_cpu() */
		local_irq_save(flags);
		if (pcp->count <= pcp->low)
			pcp->count += rmqueue_bulk(zone, 0,
						   (unsigned long)pcp->batch,
						   &pcp->list);
		if (pcp->count) {
			page = list_entry(pcp->list.next, struct page, lru);
			list_del(&page->lru);
			pcp->count--;
			shadow_set(page, 0, SH_USE);
		}
		local_irq_restore(flags);
	}

	if (page == NULL) {
		spin_lock_irqsave(&zone->lock, flags);
		page = __rmqueue(zone, order);
		spin_unlock_irqrestore(&zone->lock, flags);
	}

	if (page != NULL) {
		PR_ASSERT(!bad_range(zone, page));
		prep_new_page(page, (int)order);
	}
	return page;
}

/**
 * alloc_pages - allocate a block of 2^@order pages with page_count 1
 *
 * 2.6.13 __alloc_pages reduced to its one zone: no watermarks, no
 * reclaim; NULL when nothing is free.  Callable from an injected
 * interrupt (GFP_ATOMIC): it uses the interrupted CPU's per-CPU lists.
 */
struct page *alloc_pages(unsigned int gfp_mask, unsigned int order)
{
	if (order >= MAX_ORDER)
		return NULL;
	return buffered_rmqueue(&zone_normal, order, gfp_mask);
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

/* include/linux/pagemap.h (seed 004 context): mapping_gfp_mask is GFP_HIGHUSER */
struct page *page_cache_alloc(struct address_space *x)
{
	(void)x;
	return alloc_pages(GFP_HIGHUSER | __GFP_NORECLAIM, 0);
}

/* include/linux/pagemap.h */
struct page *page_cache_alloc_cold(struct address_space *x)
{
	(void)x;
	return alloc_pages(GFP_HIGHUSER | __GFP_COLD | __GFP_NORECLAIM, 0);
}

void page_alloc_set_batch(int batch)
{
	if (pcp_batch != (batch < 1 ? 1 : batch))
		pageset_ready = 0;	/* every CPU's lists again */
	pcp_batch = batch < 1 ? 1 : batch;
}

/* 2.6.13 setup_pageset() */
static void setup_pageset(struct per_cpu_pageset *p, int batch)
{
	struct per_cpu_pages *pcp;

	memset(p, 0, sizeof(*p));

	pcp = &p->pcp[0];		/* hot */
	pcp->count = 0;
	pcp->low = 2 * batch;
	pcp->high = 6 * batch;
	pcp->batch = batch > 1 ? batch : 1;
	INIT_LIST_HEAD(&pcp->list);

	pcp = &p->pcp[1];		/* cold */
	pcp->count = 0;
	pcp->low = 0;
	pcp->high = 2 * batch;
	pcp->batch = batch / 2 > 1 ? batch / 2 : 1;
	INIT_LIST_HEAD(&pcp->list);
}

void page_alloc_reset(void)
{
	struct zone *zone = &zone_normal;
	unsigned long pfn;
	int npageset;

	if (shadow_nr != max_mapnr) {
		free(shadow);
		free(seen);
		shadow = calloc(max_mapnr ? max_mapnr : 1, sizeof(*shadow));
		seen = calloc(max_mapnr ? max_mapnr : 1, 1);
		if (!shadow || !seen)
			abort();
		shadow_nr = max_mapnr;
	}

	/*
	 * The per-CPU lists of CPUs no context ever ran on are as the first
	 * reset left them (pr_ctx_slots): reset the rest of the zone and the
	 * used ones.
	 */
	pr_tsan_new_memory(zone, sizeof(*zone));
	if (!pageset_ready) {
		memset(zone, 0, sizeof(*zone));
		npageset = NR_CPUS;
		pageset_ready = 1;
	} else {
		npageset = pr_ctx_slots();
		memset(zone, 0, offsetof(struct zone, pageset));
		memset(&zone->lru_lock, 0,
		       sizeof(*zone) - offsetof(struct zone, lru_lock));
	}
	spin_lock_init(&zone->lock);
	spin_lock_init(&zone->lru_lock);
	for (int order = 0; order < MAX_ORDER; order++)
		INIT_LIST_HEAD(&zone->free_area[order].free_list);
	for (int cpu = 0; cpu < npageset; cpu++)
		setup_pageset(&zone->pageset[cpu], pcp_batch);
	INIT_LIST_HEAD(&zone->active_list);
	INIT_LIST_HEAD(&zone->inactive_list);

	/* All pages free, in the largest aligned blocks, ascending. */
	for (pfn = 0; pfn < max_mapnr; ) {
		unsigned int order = MAX_ORDER - 1;
		struct page *page = &mem_map[pfn];

		while (order > 0 && ((pfn & ((1UL << order) - 1)) ||
				     pfn + (1UL << order) > max_mapnr))
			order--;
		page->flags = 1UL << PG_free;
		page->private = order;
		list_add_tail(&page->lru, &zone->free_area[order].free_list);
		zone->free_area[order].nr_free++;
		zone->free_pages += 1UL << order;
		pfn += 1UL << order;
	}
	memset(shadow, 0, shadow_nr * sizeof(*shadow));
	for (pfn = 0; pfn < max_mapnr; pfn++)
		shadow[pfn].where = SH_BUDDY;
}

unsigned long page_alloc_nr_free(void)
{
	unsigned long n = zone_normal.free_pages;

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		for (int c = 0; c < 2; c++)
			n += (unsigned long)zone_normal.pageset[cpu].pcp[c].count;
	return n;
}

/* The page a list entry belongs to, or NULL if it is not in mem_map. */
static struct page *entry_page(const struct list_head *pos)
{
	const struct page *page;
	size_t off;

	if (!pos)
		return NULL;
	page = list_entry(pos, struct page, lru);
	if (!page_model_owns(page))
		return NULL;
	off = (size_t)((const char *)page - (const char *)mem_map);
	if (off % sizeof(struct page))
		return NULL;
	return (struct page *)page;
}

#define VFAIL(...) do { snprintf(msg, len, __VA_ARGS__); return -1; } while (0)

enum { SEEN_NONE = 0, SEEN_HEAD, SEEN_TAIL, SEEN_PCP };

/* Walk the buddy lists: see page_alloc.h. */
static int verify_buddy(char *msg, size_t len)
{
	struct zone *zone = &zone_normal;
	unsigned long total = 0;

	for (unsigned int order = 0; order < MAX_ORDER; order++) {
		struct free_area *area = &zone->free_area[order];
		const struct list_head *head = &area->free_list, *pos;
		unsigned long n = 0;

		for (pos = head->next; pos != head; pos = pos->next) {
			struct page *page = entry_page(pos);
			unsigned long pfn, size = 1UL << order;

			if (!page)
				VFAIL("free_area[%u]: list entry %lu is not a page", order, n);
			if (++n > max_mapnr)
				VFAIL("free_area[%u]: list longer than mem_map (cycle?)", order);
			pfn = page_to_pfn(page);
			if (seen[pfn] != SEEN_NONE)
				VFAIL("page#%lu is on two free lists (free_area[%u])", pfn, order);
			if (!(page->flags & (1UL << PG_free)))
				VFAIL("page#%lu on free_area[%u] without PG_free", pfn, order);
			if (page->private != order)
				VFAIL("page#%lu on free_area[%u] has order %lu", pfn, order,
				      page->private);
			if ((pfn & (size - 1)) || pfn + size > max_mapnr)
				VFAIL("page#%lu: misaligned or out-of-range block of order %u",
				      pfn, order);
			if (order < MAX_ORDER - 1) {
				unsigned long bpfn = pfn ^ size;
				const struct page *buddy = &mem_map[bpfn];

				if (bpfn < max_mapnr && (buddy->flags & (1UL << PG_free)) &&
				    buddy->private == order)
					VFAIL("page#%lu and its buddy page#%lu both free at order %u, not merged",
					      pfn, bpfn, order);
			}
			for (unsigned long i = 0; i < size; i++) {
				if (i && seen[pfn + i] != SEEN_NONE)
					VFAIL("page#%lu is in two free blocks", pfn + i);
				seen[pfn + i] = i ? SEEN_TAIL : SEEN_HEAD;
				if (i && (mem_map[pfn + i].flags & (1UL << PG_free)))
					VFAIL("page#%lu: PG_free inside the free block at page#%lu",
					      pfn + i, pfn);
				if (page_peek_count(&mem_map[pfn + i]) != 0)
					VFAIL("page#%lu is free with count %d", pfn + i,
					      page_peek_count(&mem_map[pfn + i]));
			}
			total += size;
		}
		if (n != area->nr_free)
			VFAIL("free_area[%u].nr_free is %lu, list holds %lu", order,
			      area->nr_free, n);
	}
	if (total != zone->free_pages)
		VFAIL("zone free_pages is %lu, buddy lists hold %lu", zone->free_pages,
		      total);
	return 0;
}

/* Walk the per-CPU lists. */
static int verify_pcp(char *msg, size_t len)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		for (int c = 0; c < 2; c++) {
			struct per_cpu_pages *pcp = &zone_normal.pageset[cpu].pcp[c];
			const struct list_head *head = &pcp->list, *pos;
			long n = 0;

			for (pos = head->next; pos != head; pos = pos->next) {
				struct page *page = entry_page(pos);
				unsigned long pfn;

				if (!page)
					VFAIL("cpu %d %s list: entry %ld is not a page", cpu,
					      c ? "cold" : "hot", n);
				if ((unsigned long)++n > max_mapnr)
					VFAIL("cpu %d %s list longer than mem_map (cycle?)", cpu,
					      c ? "cold" : "hot");
				pfn = page_to_pfn(page);
				if (seen[pfn] != SEEN_NONE)
					VFAIL("page#%lu on cpu %d's %s list is also on another free list",
					      pfn, cpu, c ? "cold" : "hot");
				seen[pfn] = SEEN_PCP;
				if (page->flags & (1UL << PG_free))
					VFAIL("page#%lu on cpu %d's %s list has PG_free", pfn, cpu,
					      c ? "cold" : "hot");
				if (page_peek_count(page) != 0)
					VFAIL("page#%lu is free with count %d", pfn,
					      page_peek_count(page));
			}
			if (n != pcp->count)
				VFAIL("cpu %d %s list: count %d, list holds %ld", cpu,
				      c ? "cold" : "hot", pcp->count, n);
		}
	return 0;
}

int page_alloc_verify(char *msg, size_t len)
{
	int ret;

	if (len)
		msg[0] = '\0';
	memset(seen, 0, shadow_nr);
	ret = verify_buddy(msg, len);
	if (!ret)
		ret = verify_pcp(msg, len);
	if (ret)
		return ret;

	/* Pages on no free list are in use: a reference, no PG_free. */
	for (unsigned long pfn = 0; pfn < max_mapnr; pfn++) {
		const struct page *page = &mem_map[pfn];
		unsigned long tails = 0;

		if (seen[pfn] != SEEN_NONE)
			continue;
		if (page->flags & (1UL << PG_free))
			VFAIL("page#%lu has PG_free but is on no free list", pfn);
		if (page_peek_count(page) < 1)
			VFAIL("page#%lu leaked: count %d, on no free list", pfn,
			      page_peek_count(page));
		if (shadow[pfn].where == SH_USE)
			tails = (1UL << shadow[pfn].order) - 1;
		for (unsigned long i = 1; i <= tails && pfn + i < max_mapnr; i++) {
			const struct page *tail = &mem_map[pfn + i];

			if (seen[pfn + i] != SEEN_NONE)
				VFAIL("page#%lu: in the allocated block at page#%lu and on a free list",
				      pfn + i, pfn);
			if (tail->flags & (1UL << PG_free))
				VFAIL("page#%lu has PG_free but is on no free list", pfn + i);
		}
		pfn += tails;
	}
	return 0;
}

void page_alloc_check(void)
{
	char msg[256];

	if (page_alloc_verify(msg, sizeof(msg)))
		pr_fail("invariant", NULL, "%s", msg);
}
