/* SPDX-License-Identifier: MIT */
/*
 * page_alloc_rmqueue.c - the allocation side of 2.6.13-rc6
 * mm/page_alloc.c (page_alloc.c has the conventions): splitting blocks
 * off the buddy lists, the per-CPU hot and cold lists' refill, and
 * prep_new_page with seed 004's wait for speculative references.
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
 * KNOB_PREP_NO_MB drops the smp_mb() (doc/variants.md, "Barriers").
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
		if (!knob(KNOB_PREP_NO_MB))
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
