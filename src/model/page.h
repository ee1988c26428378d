/* SPDX-License-Identifier: MIT */
/*
 * page.h - struct page, its flags and its reference count, as in Linux
 * 2.6.13-rc6 with patches 1/7 (PageReserved removal, seed 002), 2/7 (PG_free,
 * seed 003) and 3/7 (speculative get_page, seed 004) of "lockless pagecache 2".
 *
 * Every access to a field of a struct page goes through the kernel layer's
 * accessors (bit ops, atomics, LOAD/STORE), each of which is a yield point,
 * so the interleavings the real kernel allows are the ones explored.  The
 * atomic and the non-atomic (__) flag operations differ exactly as in the
 * kernel: __SetPageFree is a plain load and a plain store with a yield point
 * between them, and can lose a concurrent set_bit on the same word.
 *
 * Pages live in one fixed array, mem_map[0 .. max_mapnr), sized by
 * page_model_init() and reset to an identical state by page_model_reset()
 * before every run.  Page N is called "page#N" in reports and traces.
 *
 * Reference count conventions (2.6.13: the count is BIASED by -1):
 *   page_count(p)          = atomic_read(&p->_count) + 1
 *   a free page            has page_count 0 (_count == -1) and PG_free set
 *                          on the head page of its buddy block
 *   alloc_pages()          returns a page with page_count 1
 *   get_page / put_page    take and drop a reference; the put that reaches
 *                          zero frees the page (__page_cache_release)
 *   get_page_testone       atomic_inc_and_test: true iff 0 -> 1, i.e. the
 *                          caller has just taken a reference on a page that
 *                          was free or being freed (seed 004)
 *   __put_page             atomic_dec, never frees: only to undo a
 *                          speculative reference on a free page (seed 004)
 *   get_page_unless_zero   the 2.6.27 ("merged") protocol.  In 2.6.27 the
 *                          count is unbiased and this is
 *                          atomic_inc_not_zero(&_count); here the biased
 *                          representation is kept for every protocol and it
 *                          is atomic_add_unless(&_count, 1, -1), written as
 *                          the generic cmpxchg loop.
 */
#ifndef PAGERACE_MODEL_PAGE_H
#define PAGERACE_MODEL_PAGE_H

#include "runtime/tsan.h"
#include <stddef.h>

#include "kernel/atomic.h"
#include "kernel/bitops.h"
#include "model/list.h"

struct address_space;

/* include/linux/page-flags.h, 2.6.13-rc6 numbering + seeds 003/004. */
#define PG_locked		 0	/* Page is locked. Don't touch. */
#define PG_error		 1
#define PG_referenced		 2
#define PG_uptodate		 3
#define PG_dirty		 4
#define PG_lru			 5
#define PG_active		 6
#define PG_slab			 7	/* slab debug (Suparna wants this) */
#define PG_checked		 8	/* kill me in 2.5.<early>. */
#define PG_arch_1		 9
#define PG_reserved		10
#define PG_private		11	/* Has something at ->private */
#define PG_writeback		12	/* Page is under writeback */
#define PG_nosave		13	/* Used for system suspend/resume */
#define PG_compound		14	/* Part of a compound page */
#define PG_swapcache		15	/* Swap page: swp_entry_t in private */
#define PG_mappedtodisk		16	/* Has blocks allocated on-disk */
#define PG_reclaim		17	/* To be reclaimed asap */
#define PG_nosave_free		18	/* Free, should not be written */
#define PG_uncached		19	/* Page has been mapped as uncached */
#define PG_free			20	/* Page is on the free lists (seed 003) */
#define PG_freeing		21	/* PG_refcount about to be freed (seed 004) */
#define NR_PAGEFLAGS		22

/* include/linux/mm.h: the anon bit in page->mapping. */
#define PAGE_MAPPING_ANON	1

/**
 * struct page - one page frame (include/linux/mm.h, 2.6.13)
 * @flags:	PG_* bits; atomic and non-atomic bit ops as the kernel has them
 * @_count:	usage count, biased by -1: use page_count() and friends
 * @_mapcount:	ptes mapping the page, biased by -1 (-1: unmapped)
 * @mapping:	owning address_space (low bit set: anon_vma)
 * @index:	offset within @mapping
 * @private:	buddy order while PG_free; fs data when PG_private
 * @lru:	free list, per-CPU list or LRU list linkage (always under the
 *		lock or with irqs off that protects that list)
 */
struct page {
	unsigned long flags;
	atomic_t _count;
	atomic_t _mapcount;
	struct address_space *mapping;
	unsigned long index;
	unsigned long private;
	struct list_head lru;
};

/* The page frames: mem_map[0 .. max_mapnr). */
extern struct page *mem_map;
extern unsigned long max_mapnr;

static inline unsigned long page_to_pfn(const struct page *page)
{
	return (unsigned long)(page - mem_map);
}

static inline struct page *pfn_to_page(unsigned long pfn)
{
	return mem_map + pfn;
}

static inline int pfn_valid(unsigned long pfn)
{
	return pfn < max_mapnr;
}

/* Is @obj the address of (or inside) a page of mem_map?  No yield point. */
int page_model_owns(const void *obj);

/*
 * Page flag operations (include/linux/page-flags.h as in the seeds).
 * Only the variants the kernel defines exist: e.g. there is no
 * __SetPageDirty, and PG_free has only the non-atomic setters.
 */
#define PageLocked(page)	test_bit(PG_locked, &(page)->flags)
#define SetPageLocked(page)	set_bit(PG_locked, &(page)->flags)
#define __SetPageLocked(page)	__set_bit(PG_locked, &(page)->flags)	/* seed 007 */
#define TestSetPageLocked(page)	test_and_set_bit(PG_locked, &(page)->flags)
#define ClearPageLocked(page)	clear_bit(PG_locked, &(page)->flags)
#define __ClearPageLocked(page)	__clear_bit(PG_locked, &(page)->flags)	/* seed 007 */
#define TestClearPageLocked(page) test_and_clear_bit(PG_locked, &(page)->flags)

#define PageError(page)		test_bit(PG_error, &(page)->flags)
#define SetPageError(page)	set_bit(PG_error, &(page)->flags)
#define ClearPageError(page)	clear_bit(PG_error, &(page)->flags)

#define PageReferenced(page)	test_bit(PG_referenced, &(page)->flags)
#define SetPageReferenced(page)	set_bit(PG_referenced, &(page)->flags)
#define ClearPageReferenced(page) clear_bit(PG_referenced, &(page)->flags)
#define TestClearPageReferenced(page) test_and_clear_bit(PG_referenced, &(page)->flags)

#define PageUptodate(page)	test_bit(PG_uptodate, &(page)->flags)
#define SetPageUptodate(page)	set_bit(PG_uptodate, &(page)->flags)
#define ClearPageUptodate(page)	clear_bit(PG_uptodate, &(page)->flags)

#define PageDirty(page)		test_bit(PG_dirty, &(page)->flags)
#define SetPageDirty(page)	set_bit(PG_dirty, &(page)->flags)
#define TestSetPageDirty(page)	test_and_set_bit(PG_dirty, &(page)->flags)
#define ClearPageDirty(page)	clear_bit(PG_dirty, &(page)->flags)
#define __ClearPageDirty(page)	__clear_bit(PG_dirty, &(page)->flags)	/* seed 002 */
#define TestClearPageDirty(page) test_and_clear_bit(PG_dirty, &(page)->flags)

#define SetPageLRU(page)	set_bit(PG_lru, &(page)->flags)
#define PageLRU(page)		test_bit(PG_lru, &(page)->flags)
#define TestSetPageLRU(page)	test_and_set_bit(PG_lru, &(page)->flags)
#define TestClearPageLRU(page)	test_and_clear_bit(PG_lru, &(page)->flags)

#define PageActive(page)	test_bit(PG_active, &(page)->flags)
#define SetPageActive(page)	set_bit(PG_active, &(page)->flags)
#define ClearPageActive(page)	clear_bit(PG_active, &(page)->flags)
#define TestClearPageActive(page) test_and_clear_bit(PG_active, &(page)->flags)
#define TestSetPageActive(page)	test_and_set_bit(PG_active, &(page)->flags)

#define PageSlab(page)		test_bit(PG_slab, &(page)->flags)
#define SetPageSlab(page)	set_bit(PG_slab, &(page)->flags)
#define ClearPageSlab(page)	clear_bit(PG_slab, &(page)->flags)
#define TestClearPageSlab(page)	test_and_clear_bit(PG_slab, &(page)->flags)
#define TestSetPageSlab(page)	test_and_set_bit(PG_slab, &(page)->flags)

#define PageChecked(page)	test_bit(PG_checked, &(page)->flags)
#define SetPageChecked(page)	set_bit(PG_checked, &(page)->flags)
#define ClearPageChecked(page)	clear_bit(PG_checked, &(page)->flags)

#define PageReserved(page)	test_bit(PG_reserved, &(page)->flags)
#define SetPageReserved(page)	set_bit(PG_reserved, &(page)->flags)
#define ClearPageReserved(page)	clear_bit(PG_reserved, &(page)->flags)
#define __ClearPageReserved(page) __clear_bit(PG_reserved, &(page)->flags)

#define SetPagePrivate(page)	set_bit(PG_private, &(page)->flags)
#define ClearPagePrivate(page)	clear_bit(PG_private, &(page)->flags)
#define PagePrivate(page)	test_bit(PG_private, &(page)->flags)
#define __SetPagePrivate(page)	__set_bit(PG_private, &(page)->flags)
#define __ClearPagePrivate(page) __clear_bit(PG_private, &(page)->flags)

/* 2.6.13 also counts nr_writeback here; the model keeps no page_state. */
#define PageWriteback(page)	test_bit(PG_writeback, &(page)->flags)
#define SetPageWriteback(page)	((void)test_and_set_bit(PG_writeback, &(page)->flags))
#define TestSetPageWriteback(page) test_and_set_bit(PG_writeback, &(page)->flags)
#define ClearPageWriteback(page) ((void)test_and_clear_bit(PG_writeback, &(page)->flags))
#define TestClearPageWriteback(page) test_and_clear_bit(PG_writeback, &(page)->flags)

#define PageMappedToDisk(page)	test_bit(PG_mappedtodisk, &(page)->flags)
#define SetPageMappedToDisk(page) set_bit(PG_mappedtodisk, &(page)->flags)
#define ClearPageMappedToDisk(page) clear_bit(PG_mappedtodisk, &(page)->flags)

#define PageReclaim(page)	test_bit(PG_reclaim, &(page)->flags)
#define SetPageReclaim(page)	set_bit(PG_reclaim, &(page)->flags)
#define ClearPageReclaim(page)	clear_bit(PG_reclaim, &(page)->flags)
#define TestClearPageReclaim(page) test_and_clear_bit(PG_reclaim, &(page)->flags)

#define PageCompound(page)	test_bit(PG_compound, &(page)->flags)

#define PageSwapCache(page)	test_bit(PG_swapcache, &(page)->flags)
#define SetPageSwapCache(page)	set_bit(PG_swapcache, &(page)->flags)
#define ClearPageSwapCache(page) clear_bit(PG_swapcache, &(page)->flags)

/* seed 003 (patch 2/7): only non-atomic setters, used under zone->lock. */
#define PageFree(page)		test_bit(PG_free, &(page)->flags)
#define __SetPageFree(page)	__set_bit(PG_free, &(page)->flags)
#define __ClearPageFree(page)	__clear_bit(PG_free, &(page)->flags)

/* seed 004 (patch 3/7) */
#define PageFreeing(page)	test_bit(PG_freeing, &(page)->flags)
#define SetPageFreeing(page)	set_bit(PG_freeing, &(page)->flags)
#define ClearPageFreeing(page)	clear_bit(PG_freeing, &(page)->flags)
#define __ClearPageFreeing(page) __clear_bit(PG_freeing, &(page)->flags)

/*
 * Detector hooks (page.c).  They read the page directly, without a yield
 * point, immediately after the atomic they check, so they observe exactly
 * the state that atomic produced.
 */
void page_check_put(struct page *page, const char *func);
void page_check_underflow(struct page *page, const char *func);

/* "PG_lru PG_locked ..." for the bits of @flags; no yield points. */
const char *page_flag_names(unsigned long flags, char *buf, size_t len);

/* Raw, yield-free views of a page for detectors and end-of-run checks. */
PR_NO_TSAN static inline int page_peek_count(const struct page *page)
{
	return page->_count.counter + 1;
}

PR_NO_TSAN static inline unsigned long page_peek_flags(const struct page *page)
{
	return page->flags;
}

/* 2.6.13 include/linux/mm.h: the biased reference count. */

/**
 * page_count - the page's reference count (biased representation + 1)
 */
static inline int page_count(struct page *page)
{
	return atomic_read(&page->_count) + 1;
}

/**
 * set_page_count - store reference count @v (the kernel's plain atomic_set)
 */
static inline void set_page_count(struct page *page, int v)
{
	atomic_set(&page->_count, v - 1);
}

/**
 * put_page_testzero - drop a reference; true if it was the last one
 *
 * Fails the run with "put-free-page" if the page is on the free lists
 * (PG_free) and with "refcount-underflow" if the count went below zero.
 */
static inline int put_page_testzero(struct page *page)
{
	int ret = atomic_add_negative(-1, &page->_count);

	page_check_put(page, "put_page_testzero");
	return ret;
}

/**
 * get_page_testone - take a reference; true iff the count went 0 -> 1
 *
 * 2.6.13 include/linux/mm.h; the test page_cache_get_speculative relies on
 * to notice it grabbed a free page (seed 004).
 */
static inline int get_page_testone(struct page *page)
{
	return atomic_inc_and_test(&page->_count);
}

/**
 * get_page_testone_relaxed - get_page_testone without its memory barrier
 *
 * The same yield point and increment, but under --memory tso/weak an RMW
 * that orders nothing (LKMM's atomic_inc_return_relaxed() == 0): what
 * page_cache_get_speculative would be if seed 004's "get_page_testone
 * provides a memory barrier" did not hold (KNOB_TESTONE_NO_MB).
 */
static inline int get_page_testone_relaxed(struct page *page)
{
	return atomic_inc_return_relaxed(&page->_count) == 0;
}

/**
 * get_page - take a reference on a page someone already holds
 */
static inline void get_page(struct page *page)
{
	atomic_inc(&page->_count);
}

/**
 * __put_page - drop a reference without ever freeing
 *
 * 2.6.13 include/linux/mm.h.  Legitimate on a PG_free page: it is how a
 * speculative getter undoes its reference on a free page (seed 004).  Fails
 * the run with "refcount-underflow" if page_count drops below zero.
 */
static inline void __put_page(struct page *page)
{
	atomic_dec(&page->_count);
	page_check_underflow(page, "__put_page");
}

/**
 * get_page_unless_zero - 2.6.27: take a reference unless the page is free
 *
 * atomic_add_unless(&_count, 1, -1) on the biased count (see top of file).
 * Returns 1 if a reference was taken.
 */
static inline int get_page_unless_zero(struct page *page)
{
	int c = atomic_read(&page->_count);

	for (;;) {
		int old;

		if (c == -1)
			return 0;
		old = atomic_cmpxchg(&page->_count, c, c + 1);
		if (old == c)
			return 1;
		c = old;
	}
}

/**
 * page_freeze_refs - 2.6.27 pagemap.h: count -> 0 iff it is exactly @count
 */
static inline int page_freeze_refs(struct page *page, int count)
{
	return atomic_cmpxchg(&page->_count, count - 1, -1) == count - 1;
}

/**
 * page_unfreeze_refs - 2.6.27 pagemap.h: restore @count after a freeze
 */
static inline void page_unfreeze_refs(struct page *page, int count)
{
	atomic_set(&page->_count, count - 1);
}

/* _mapcount, biased by -1 (2.6.13 include/linux/mm.h). */
static inline int page_mapcount(struct page *page)
{
	return atomic_read(&page->_mapcount) + 1;
}

static inline int page_mapped(struct page *page)
{
	return atomic_read(&page->_mapcount) >= 0;
}

static inline void reset_page_mapcount(struct page *page)
{
	atomic_set(&page->_mapcount, -1);
}

void put_page(struct page *page);
void __page_cache_release(struct page *page);

/* include/linux/pagemap.h */
#define page_cache_get(page)		get_page(page)
#define page_cache_release(page)	put_page(page)

/*
 * Model set-up, outside any run.  page_model_init() (re)allocates mem_map
 * with @nr_pages frames, installs the "page#N" name resolver and resets.
 * page_model_reset() returns every page, the zone, the free lists and the
 * per-CPU lists to one identical initial state: all pages free, merged
 * into the largest aligned buddy blocks.  Call it from a program's setup.
 */
void page_model_init(unsigned long nr_pages);
void page_model_reset(void);
void page_model_exit(void);

/*
 * Name of @obj if it lies in mem_map: "page#N" for the page itself (and
 * its flags word, which is at offset 0), "page#N._count" etc. for other
 * fields.  Returns 0 if @obj is not a page.  No yield points.
 */
int page_obj_name(const void *obj, char *buf, unsigned len);

#endif /* PAGERACE_MODEL_PAGE_H */
