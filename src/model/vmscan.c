/* SPDX-License-Identifier: MIT */
/*
 * vmscan.c - the reclaim step of shrink_list (2.6.13 mm/vmscan.c) for one
 * clean page the caller took off the LRU.
 *
 * The caller holds a reference (the isolation's) besides the page cache's,
 * so a page nobody else uses has page_count == 2; shrink_list checks that
 * under tree_lock and then frees the page with plain __put_page.  The seeds
 * add PG_freeing around the check (seed 004, patch 3/7): a speculative
 * getter that raised the count after the check sees the flag and backs
 * off.  PROTO_MERGED freezes the count at 0 with cmpxchg instead (2.6.27
 * __remove_mapping).
 */
#include "check/shadow.h"
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
				 struct page *page)
{
	tree_write_lock(mapping);
	if (!page_freeze_refs(page, 2))
		goto cannot_free;
	if (PageDirty(page)) {
		page_unfreeze_refs(page, 2);
		goto cannot_free;
	}
	__remove_from_page_cache(page);
	shadow_reclaim(page, "shrink_list");
	tree_write_unlock(mapping);
	return 1;
cannot_free:
	tree_write_unlock(mapping);
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
	struct address_space *mapping;

	if (TestSetPageLocked(page))
		return 0;			/* keep */
	shadow_page_locked(page, "shrink_list");
	mapping = LOAD(page->mapping);
	if (!mapping)
		goto keep_locked;	/* truncate got there first */

	if (variant.protocol == PROTO_MERGED) {
		if (!remove_mapping_merged(mapping, page))
			goto keep_locked;
		/*
		 * 2.6.27: the count is frozen at zero, so the page goes
		 * straight back (__pagevec_free -> free_hot_cold_page).
		 */
		unlock_page(page);
		free_hot_page(page);
		return 1;
	}

	if (use_freeing_flag())
		SetPageFreeing(page);
	tree_write_lock(mapping);
	/*
	 * The non racy check for busy page.  It is critical to check
	 * PageDirty _after_ making sure that the page is freeable and
	 * not in use by anybody.  (pagecache + us == 2)
	 */
	if (page_count(page) != 2 || PageDirty(page)) {
		tree_write_unlock(mapping);
		if (use_freeing_flag())
			ClearPageFreeing(page);
		goto keep_locked;
	}
	__remove_from_page_cache(page);
	shadow_reclaim(page, "shrink_list");
	tree_write_unlock(mapping);
	__put_page(page);		/* the page cache's reference */

	unlock_page(page);
	if (use_freeing_flag())
		__ClearPageFreeing(page);
	/* __pagevec_release_nonlru: the isolation's reference, the last */
	put_page(page);
	return 1;

keep_locked:
	unlock_page(page);
	return 0;
}
