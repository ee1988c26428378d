/* SPDX-License-Identifier: MIT */
/*
 * vmscan.c - reclaim (2.6.13 mm/vmscan.c): shrink_list's step for one
 * clean page the caller took off the LRU, and shrink_cache's scan of one
 * page of the inactive list (isolate, shrink, put back).
 *
 * The caller holds a reference (the isolation's) besides the page cache's,
 * so a page nobody else uses has page_count == 2; shrink_list checks that
 * under tree_lock and then frees the page with plain __put_page.  The seeds
 * add PG_freeing around the check (seed 004, patch 3/7): a speculative
 * getter that raised the count after the check sees the flag and backs
 * off.  PROTO_MERGED freezes the count at 0 with cmpxchg instead (2.6.27
 * __remove_mapping).
 */
#include "model/observe.h"
#include "kernel/kernel.h"
#include "model/mapping.h"
#include "model/page_alloc.h"
#include "model/variant.h"

static int use_freeing_flag(void)
{
	return variant.protocol == PROTO_V2 && !knob(KNOB_NO_FREEING_FLAG);
}

/* 2.6.27 mm/vmscan.c __remove_mapping, for a page-cache page. */
static int remove_mapping_merged(struct address_space *mapping,
				 struct page *page, int held)
{
	tree_write_lock(mapping);
	if (!page_freeze_refs(page, 2))
		goto cannot_free;
	if (PageDirty(page)) {
		page_unfreeze_refs(page, 2);
		goto cannot_free;
	}
	__remove_from_page_cache(page);
	observe_reclaim(page, "shrink_list", held);
	tree_write_unlock(mapping);
	return 1;
cannot_free:
	tree_write_unlock(mapping);
	return 0;
}

/*
 * shrink_list's step for one page (see shrink_page).  @held: the caller's
 * reference is known to the shadow checker (an LRU isolation); when the
 * page is reclaimed it is unheld just before this function drops it, when
 * it is kept the caller unholds it.
 */
static int __shrink_page(struct page *page, int held)
{
	struct address_space *mapping;
	int count;

	if (TestSetPageLocked(page))
		return 0;			/* keep */
	observe_page_locked(page, "shrink_list");
	mapping = LOAD(page->mapping);
	if (!mapping)
		goto keep_locked;	/* truncate got there first */

	if (variant.protocol == PROTO_MERGED) {
		if (!remove_mapping_merged(mapping, page, held))
			goto keep_locked;
		/*
		 * 2.6.27: the count is frozen at zero, so the page goes
		 * straight back (__pagevec_free -> free_hot_cold_page).
		 */
		unlock_page(page);
		if (held)
			observe_unhold(page);
		free_hot_page(page);
		return 1;
	}

	if (use_freeing_flag()) {
		SetPageFreeing(page);
		/*
		 * Not in seed 004: KNOB_FREEING_MB's fix for F10.  set_bit
		 * orders nothing and write_lock_irq is an acquire, so without
		 * a full barrier here the count read below may miss a getter
		 * that misses PG_freeing (doc/findings.md, F10).
		 */
		if (knob(KNOB_FREEING_MB))
			smp_mb__after_clear_bit();
	}
	tree_write_lock(mapping);
	/*
	 * The non racy check for busy page.  It is critical to check
	 * PageDirty _after_ making sure that the page is freeable and
	 * not in use by anybody.  (pagecache + us == 2)
	 */
	count = page_count(page);
	observe_reclaim_counted(page);
	if (count != 2 || PageDirty(page)) {
		tree_write_unlock(mapping);
		if (use_freeing_flag())
			ClearPageFreeing(page);
		goto keep_locked;
	}
	__remove_from_page_cache(page);
	observe_reclaim(page, "shrink_list", held);
	tree_write_unlock(mapping);
	__put_page(page);		/* the page cache's reference */

	unlock_page(page);
	if (use_freeing_flag())
		__ClearPageFreeing(page);
	/*
	 * seed 004 (patch 3/7), shrink_list's free_it: the page goes on
	 * freed_pvec, released by 2.6.13's __pagevec_release_nonlru:
	 * put_page_testzero, then pagevec_free of the pages that reached
	 * zero (free_hot_cold_page, cold: pagevec_init(&freed_pvec, 1)).
	 * No lru_lock and no page_count recheck, unlike put_page's
	 * __page_cache_release: the page is off the LRU, so nothing in
	 * 2.6.13 could revive it; a speculative getter's transient
	 * reference is the seeds' to handle (PG_freeing is already clear).
	 */
	if (held)
		observe_unhold(page);
	if (put_page_testzero(page))
		free_cold_page(page);
	return 1;

keep_locked:
	unlock_page(page);
	return 0;
}

/**
 * shrink_page - reclaim @page if it is clean and unused
 *
 * Returns 1 if the page was freed (the caller's reference is gone too),
 * 0 if it was kept (the caller still holds its reference).
 */
int shrink_page(struct page *page)
{
	return __shrink_page(page, 0);
}

/**
 * lru_add_initial - put @page on the inactive list, before a run
 *
 * What 2.6.13's add_to_page_cache_lru -> lru_cache_add -> __pagevec_lru_add
 * leaves behind (PG_lru set, on zone->inactive_list), done by the set-up
 * of a scenario whose initial page says "lru".  Outside any context: no
 * yield points.
 */
void lru_add_initial(struct page *page)
{
	struct zone *zone = page_zone(page);

	__set_bit(PG_lru, &page->flags);
	list_add(&page->lru, &zone->inactive_list);
	zone->nr_inactive++;
}

/**
 * shrink_cache_one - 2.6.13 shrink_cache scanning one page
 *
 * isolate_lru_pages(1, &zone->inactive_list, ...) under zone->lru_lock:
 * TestClearPageLRU, list_del, and the isolation's reference taken with
 * get_page_testone; a 0 -> 1 there means "it is being freed elsewhere":
 * __put_page, SetPageLRU and back on the list.  That test is why 2.6.13's
 * __page_cache_release rechecks page_count under the same lock: a release
 * that finds the count raised leaves the free to the scanner.  Then
 * shrink_list (__shrink_page), and a page kept is put back under
 * lru_lock (TestSetPageLRU, add_page_to_inactive_list) and released
 * through __pagevec_release -> release_pages, which is put_page's shape:
 * put_page_testzero, lru_lock, TestClearPageLRU, the count recheck.  The
 * scanner's private list holds one page, so it is kept in a local.
 * PROTO_MERGED isolates as 2.6.27 does, with get_page_unless_zero, which
 * cannot revive a page whose count reached zero.
 *
 * The isolation's reference is known to the shadow checker from the
 * isolation until shrink_list or the put-back drops it: a free of the
 * page meanwhile is "free-held-page".
 *
 * Returns 1 if the page was reclaimed, 0 if it was put back, -1 if
 * nothing was isolated (empty list, or a page being freed elsewhere).
 */
int shrink_cache_one(void)
{
	struct zone *zone = &zone_normal;
	struct page *page;

	spin_lock_irq(&zone->lru_lock);
	if (list_empty(&zone->inactive_list)) {
		spin_unlock_irq(&zone->lru_lock);
		return -1;
	}
	/* isolate_lru_pages: lru_to_page(src) is the list's tail */
	page = list_entry(zone->inactive_list.prev, struct page, lru);
	if (variant.protocol == PROTO_MERGED) {
		/*
		 * 2.6.27 __isolate_lru_page: a reference only unless the
		 * count is zero, then ClearPageLRU; a page being freed
		 * stays where it is (-EBUSY: list_move back to src).
		 */
		if (!get_page_unless_zero(page)) {
			spin_unlock_irq(&zone->lru_lock);
			return -1;
		}
		clear_bit(PG_lru, &page->flags);	/* ClearPageLRU */
		list_del(&page->lru);
		goto isolated;
	}
	if (!TestClearPageLRU(page))
		pr_fail("BUG", page, "isolate_lru_pages: page on the LRU without PG_lru");
	list_del(&page->lru);
	if (get_page_testone(page)) {
		/* It is being freed elsewhere */
		__put_page(page);
		SetPageLRU(page);
		list_add(&page->lru, &zone->inactive_list);
		spin_unlock_irq(&zone->lru_lock);
		return -1;
	}
isolated:
	zone->nr_inactive--;
	observe_hold_by(page, "isolate_lru_pages");
	spin_unlock_irq(&zone->lru_lock);

	if (__shrink_page(page, 1))
		return 1;

	/* shrink_cache: "Put back any unfreeable pages." */
	spin_lock_irq(&zone->lru_lock);
	if (TestSetPageLRU(page))
		pr_fail("BUG", page, "shrink_cache: put-back page already has PG_lru");
	list_add(&page->lru, &zone->inactive_list);	/* add_page_to_inactive_list */
	zone->nr_inactive++;
	spin_unlock_irq(&zone->lru_lock);
	observe_unhold(page);
	page_cache_release(page);	/* __pagevec_release -> release_pages */
	return 0;
}
