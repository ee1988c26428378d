/* SPDX-License-Identifier: MIT */
/*
 * truncate.c - truncate_inode_pages and invalidate_mapping_pages (2.6.13
 * mm/truncate.c) with the seeds' non-atomic pagevec lookup (seed 007,
 * patch 6/7) and tree_lock a spinlock (seed 008, patch 7/7).
 */
#include "model/observe.h"
#include "kernel/kernel.h"
#include "model/mapping.h"

#define PAGEVEC_SIZE	14

/*
 * 2.6.13 truncate_complete_page: if the page is still ours, clean it and
 * take it out of the cache, dropping the page cache's reference.
 */
static void truncate_complete_page(struct address_space *mapping,
				   struct page *page)
{
	if (LOAD(page->mapping) != mapping)
		return;
	ClearPageDirty(page);
	ClearPageUptodate(page);
	ClearPageMappedToDisk(page);
	remove_from_page_cache(page);
	page_cache_release(page);	/* pagecache ref */
}

/*
 * seed 007 (patch 6/7), mm/swap.c pagevec_lookup_nonatomic; PROTO_LOCKED
 * keeps 2.6.13's pagevec_lookup (find_get_pages under tree_lock).
 */
static unsigned pagevec_lookup_nonatomic(struct page **pages,
					 struct address_space *mapping,
					 unsigned long start, unsigned nr)
{
	return find_get_pages_nonatomic(mapping, start, nr, pages);
}

/**
 * truncate_inode_pages - remove every page at or after @start
 *
 * The first pass skips locked pages and pages under writeback; the second
 * waits for them.  Pages found but already truncated by someone else are
 * left alone (truncate_complete_page's mapping check).
 */
void truncate_inode_pages(struct address_space *mapping, unsigned long start)
{
	struct page *pages[PAGEVEC_SIZE];
	unsigned long next = start;
	unsigned n, i;

	while ((n = pagevec_lookup_nonatomic(pages, mapping, next,
					     PAGEVEC_SIZE)) != 0) {
		for (i = 0; i < n; i++) {
			struct page *page = pages[i];
			unsigned long page_index = LOAD(page->index);

			if (page_index > next)
				next = page_index;
			next++;
			if (TestSetPageLocked(page))
				continue;
			observe_page_locked(page, "truncate_inode_pages");
			if (PageWriteback(page)) {
				unlock_page(page);
				continue;
			}
			truncate_complete_page(mapping, page);
			unlock_page(page);
		}
		release_pages(pages, (int)n);
	}

	next = start;
	for (;;) {
		n = pagevec_lookup_nonatomic(pages, mapping, next, PAGEVEC_SIZE);
		if (!n) {
			if (next == start)
				break;
			next = start;
			continue;
		}
		for (i = 0; i < n; i++) {
			struct page *page = pages[i];
			unsigned long page_index;

			lock_page(page);
			page_index = LOAD(page->index);
			if (page_index > next)
				next = page_index;
			next++;
			truncate_complete_page(mapping, page);
			unlock_page(page);
		}
		release_pages(pages, (int)n);
	}
}

/*
 * 2.6.13 mm/truncate.c invalidate_complete_page (seed 008: the spinlock):
 * take a clean, unmapped, locked page out of the cache.  No page_count
 * test: like truncate, it leaves holders of references with a page that
 * is no longer cached.  PagePrivate pages (buffers) are not modelled.
 */
static int invalidate_complete_page(struct address_space *mapping,
				    struct page *page)
{
	if (LOAD(page->mapping) != mapping)
		return 0;

	tree_write_lock(mapping);
	if (PageDirty(page)) {
		tree_write_unlock(mapping);
		return 0;
	}
	__remove_from_page_cache(page);
	tree_write_unlock(mapping);
	ClearPageUptodate(page);
	page_cache_release(page);	/* pagecache ref */
	return 1;
}

/**
 * invalidate_mapping_pages - drop the clean, unlocked pages of a range
 * @mapping:	the address_space
 * @start:	first index
 * @end:	last index (inclusive)
 *
 * 2.6.13 mm/truncate.c with seed 007's pagevec_lookup_nonatomic: pages
 * that are locked, dirty, under writeback or mapped are left alone.
 * Returns the number of pages invalidated.
 */
unsigned long invalidate_mapping_pages(struct address_space *mapping,
				       unsigned long start, unsigned long end)
{
	struct page *pages[PAGEVEC_SIZE];
	unsigned long next = start;
	unsigned long ret = 0;
	unsigned n, i;

	while (next <= end &&
	       (n = pagevec_lookup_nonatomic(pages, mapping, next,
					     PAGEVEC_SIZE)) != 0) {
		for (i = 0; i < n; i++) {
			struct page *page = pages[i];
			unsigned long page_index;

			if (TestSetPageLocked(page)) {
				next++;
				continue;
			}
			observe_page_locked(page, "invalidate_mapping_pages");
			page_index = LOAD(page->index);
			if (page_index > next)
				next = page_index;
			next++;
			if (PageDirty(page) || PageWriteback(page))
				goto unlock;
			if (page_mapped(page))
				goto unlock;
			ret += invalidate_complete_page(mapping, page);
unlock:
			unlock_page(page);
			if (next > end)
				break;
		}
		release_pages(pages, (int)n);
	}
	return ret;
}
