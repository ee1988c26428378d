/* SPDX-License-Identifier: MIT */
/*
 * swap_state.c - the swap cache pair of the seeds: add_to_swap_cache
 * (seed 007, patch 6/7, mm/swap_state.c) and remove_exclusive_swap_page
 * (seed 004, patch 3/7, mm/swapfile.c).
 *
 * The swap cache is swapper_space's radix tree indexed by swap entry; a
 * page in it has PG_swapcache and its entry in page->private.  The swap
 * map is reduced to "this entry is used once" (remove_exclusive's case).
 */
#include "model/observe.h"
#include "kernel/kernel.h"
#include "model/filemap_2627.h"
#include "model/mapping.h"
#include "model/variant.h"

/* 2.6.13 mm/swap_state.c __delete_from_swap_cache (tree_lock held) */
static void __delete_from_swap_cache(struct page *page)
{
	radix_tree_delete(&swapper_space.page_tree, LOAD(page->private));
	STORE(page->private, 0);
	ClearPageSwapCache(page);
	STORE(swapper_space.nrpages, LOAD(swapper_space.nrpages) - 1);
}

/**
 * add_to_swap_cache - insert a locked-to-be page into the swap cache
 *
 * seed 007 (patch 6/7), __add_to_swap_cache: set up before insertion, as
 * add_to_page_cache (PROTO_LOCKED: after, as 2.6.13).
 */
int add_to_swap_cache(struct page *page, unsigned long entry)
{
	int error;

	if (variant.protocol == PROTO_MERGED)	/* 2.6.27: filemap_2627.c */
		return add_to_swap_cache_2627(page, entry);
	error = radix_tree_preload(0);
	if (error)
		return error;
	if (variant.protocol != PROTO_LOCKED) {
		page_cache_get(page);
		SetPageLocked(page);
		observe_page_locked(page, "add_to_swap_cache");
		SetPageSwapCache(page);
		STORE(page->private, entry);
		tree_write_lock(&swapper_space);
		error = radix_tree_insert(&swapper_space.page_tree, entry, page);
		if (!error)
			STORE(swapper_space.nrpages,
			      LOAD(swapper_space.nrpages) + 1);
		tree_write_unlock(&swapper_space);
		if (error) {
			__put_page(page);
			observe_page_unlocked(page, "add_to_swap_cache");
			ClearPageLocked(page);
			ClearPageSwapCache(page);
		}
		return error;
	}
	tree_write_lock(&swapper_space);
	error = radix_tree_insert(&swapper_space.page_tree, entry, page);
	if (!error) {
		page_cache_get(page);
		SetPageLocked(page);
		observe_page_locked(page, "add_to_swap_cache");
		SetPageSwapCache(page);
		STORE(page->private, entry);
		STORE(swapper_space.nrpages, LOAD(swapper_space.nrpages) + 1);
	}
	tree_write_unlock(&swapper_space);
	return error;
}

/**
 * remove_exclusive_swap_page - drop a locked page's swap cache entry if
 * we are its only user
 *
 * seed 004 (patch 3/7), mm/swapfile.c: the count (us + swap cache == 2)
 * is rechecked under tree_lock with PG_freeing set around it, as in
 * shrink_list.  2.6.27 mm/swapfile.c (PROTO_MERGED) has the same plain
 * recheck without PG_freeing (no page_freeze_refs here).  Returns 1 if
 * the page left the swap cache.
 */
int remove_exclusive_swap_page(struct page *page)
{
	unsigned long entry;
	int retval = 0;
	int freeing = variant.protocol == PROTO_V2 && !knob(KNOB_NO_FREEING_FLAG);

	if (!PageLocked(page))
		pr_fail("bug", page, "remove_exclusive_swap_page of an unlocked page");
	if (!PageSwapCache(page))
		return 0;
	if (PageWriteback(page))
		return 0;
	if (page_count(page) != 2)	/* 2: us + cache */
		return 0;
	entry = LOAD(page->private);

	if (freeing) {
		SetPageFreeing(page);
		/* Not in seed 004: F10's fix (KNOB_FREEING_MB, vmscan.c). */
		if (knob(KNOB_FREEING_MB))
			smp_mb__after_clear_bit();
	}
	tree_write_lock(&swapper_space);
	if (page_count(page) == 2 && !PageWriteback(page)) {
		__delete_from_swap_cache(page);
		/*
		 * 2.6.27 (merged) keeps this plain recheck, without PG_freeing
		 * or a frozen count: a lookup_swap_cache that pinned the page
		 * meanwhile keeps a page that stays allocated (our reference)
		 * and finds !PageSwapCache once it locks it, so that is no
		 * reclaim of a held page there.
		 */
		if (variant.protocol != PROTO_MERGED)
			observe_reclaim(page, "remove_exclusive_swap_page", 0);
		SetPageDirty(page);
		retval = 1;
	}
	tree_write_unlock(&swapper_space);
	if (freeing)
		ClearPageFreeing(page);

	(void)entry;		/* swap_free(entry): the map is not modelled */
	if (retval)
		page_cache_release(page);
	return retval;
}
