/* SPDX-License-Identifier: MIT */
/*
 * page_alloc_internal.h - what the files of the allocator share
 * (page_alloc.c: freeing; page_alloc_rmqueue.c: allocating;
 * page_alloc_reset.c and page_alloc_verify.c: its state outside a run):
 * the shadow of where each page is, the flag masks of the page checks, and
 * the free-block markers both directions touch.  Not for users of the
 * allocator (page_alloc.h).
 */
#ifndef PAGERACE_MODEL_PAGE_ALLOC_INTERNAL_H
#define PAGERACE_MODEL_PAGE_ALLOC_INTERNAL_H

#include "kernel/access.h"
#include "kernel/bitops.h"
#include "model/page.h"
#include "model/page_alloc.h"
#include "runtime/tsan.h"

/*
 * The shadow (no yield points, not model memory): where each page is, and
 * the order of each allocated block at its head (page_alloc.c's header).
 */
enum { SH_USE = 0, SH_PCP, SH_BUDDY };

struct pa_shadow {
	unsigned char where;	/* SH_* */
	unsigned char order;	/* order of an allocated block, at its head */
	unsigned char cpu;	/* SH_PCP: whose list */
};

extern struct pa_shadow *pa_shadow_map;	/* one per page, pa_shadow_nr */
extern unsigned char *pa_seen;		/* page_alloc_verify scratch */
extern unsigned long pa_shadow_nr;

/* Record that @page's block of @order is now @where (SH_*). */
void shadow_set(struct page *page, unsigned int order, int where);

#define FREE_CHECK_FLAGS (1UL << PG_lru | 1UL << PG_private |		\
			  1UL << PG_locked | 1UL << PG_active |		\
			  1UL << PG_reclaim | 1UL << PG_slab |		\
			  1UL << PG_swapcache | 1UL << PG_writeback |	\
			  1UL << PG_reserved | 1UL << PG_free)
#define PREP_CHECK_FLAGS (FREE_CHECK_FLAGS | 1UL << PG_dirty)
#define PREP_CLEAR_FLAGS (1UL << PG_uptodate | 1UL << PG_error |	\
			  1UL << PG_referenced | 1UL << PG_arch_1 |	\
			  1UL << PG_checked | 1UL << PG_mappedtodisk)

/*
 * The checks of free_pages_check and prep_new_page (page_alloc.c): fail
 * the run naming what was wrong with @page.
 */
void check_page_state(const char *function, struct page *page,
		      unsigned long mask);

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

/* 2.6.13 mm/page_alloc.c: outside the zone's pages? */
static inline int bad_range(struct zone *zone, struct page *page)
{
	(void)zone;
	return page < mem_map || page >= mem_map + max_mapnr;
}

#endif /* PAGERACE_MODEL_PAGE_ALLOC_INTERNAL_H */
