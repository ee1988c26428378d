/* SPDX-License-Identifier: MIT */
/*
 * page.c - mem_map, stable page names, the reference-count detectors and
 * the final put (2.6.13 mm/swap.c put_page / __page_cache_release).
 */
#include "runtime/tsan.h"
#include "model/page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "kernel/spinlock.h"
#include "model/page_alloc.h"
#include "model/variant.h"
#include "runtime/context.h"
#include "runtime/effects.h"

struct page *mem_map;
unsigned long max_mapnr;

int page_model_owns(const void *obj)
{
	const char *p = obj, *base = (const char *)mem_map;

	return mem_map && p >= base &&
	       p < base + max_mapnr * sizeof(struct page);
}

int page_obj_name(const void *obj, char *buf, unsigned len)
{
	static const struct {
		size_t off;
		const char *name;
	} fields[] = {
		{ offsetof(struct page, _count), "._count" },
		{ offsetof(struct page, _mapcount), "._mapcount" },
		{ offsetof(struct page, mapping), ".mapping" },
		{ offsetof(struct page, index), ".index" },
		{ offsetof(struct page, private), ".private" },
		{ offsetof(struct page, lru), ".lru" },
	};
	size_t off;
	unsigned long pfn;
	const char *suffix = "";

	if (!page_model_owns(obj))
		return 0;
	off = (size_t)((const char *)obj - (const char *)mem_map);
	pfn = off / sizeof(struct page);
	off %= sizeof(struct page);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (off == fields[i].off)
			suffix = fields[i].name;
	snprintf(buf, len, "page#%lu%s", pfn, suffix);
	return 1;
}


void page_model_init(unsigned long nr_pages)
{
	free(mem_map);
	mem_map = calloc(nr_pages ? nr_pages : 1, sizeof(*mem_map));
	if (!mem_map)
		abort();
	max_mapnr = nr_pages;
	/* kernel/'s resolver names pool objects, then asks ours */
	kernel_set_obj_resolver(page_obj_name);
	page_model_reset();
}

void page_model_exit(void)
{
	free(mem_map);
	mem_map = NULL;
	max_mapnr = 0;
}

void page_model_reset(void)
{
	/* Every byte, so that runs start identical (padding included). */
	pr_tsan_new_memory(mem_map, max_mapnr * sizeof(*mem_map));
	memset(mem_map, 0, max_mapnr * sizeof(*mem_map));
	for (unsigned long i = 0; i < max_mapnr; i++) {
		struct page *page = &mem_map[i];

		page->_count.counter = -1;	/* page_count 0 */
		page->_mapcount.counter = -1;	/* unmapped */
		INIT_LIST_HEAD(&page->lru);
	}
	page_alloc_reset();
}

static const char *const pg_names[NR_PAGEFLAGS] = {
	"PG_locked", "PG_error", "PG_referenced", "PG_uptodate", "PG_dirty",
	"PG_lru", "PG_active", "PG_slab", "PG_checked", "PG_arch_1",
	"PG_reserved", "PG_private", "PG_writeback", "PG_nosave",
	"PG_compound", "PG_swapcache", "PG_mappedtodisk", "PG_reclaim",
	"PG_nosave_free", "PG_uncached", "PG_free", "PG_freeing",
};

/* Names of the bits of @flags, space separated, into @buf. */
const char *page_flag_names(unsigned long flags, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < NR_PAGEFLAGS && n < len; i++)
		if (flags & (1UL << i))
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? " " : "", pg_names[i]);
	return buf;
}

/*
 * Detector, right after a full put's atomic: see page.h.  A full put
 * (put_page, not the speculative getter's __put_page) on a PG_free page
 * means its caller took a free page for a live one.  The verdict says
 * what the run did: a put that reached zero is the start of a second
 * free; one that did not has freed nothing twice yet.
 */
void page_check_put(struct page *page, const char *func)
{
	int count;

	/*
	 * The verdict reads PG_free, which the put's own atomic (the count,
	 * covered by its yield point) does not touch: for dpor the check
	 * reads that bit, so that it and the free that sets PG_free do not
	 * commute (and it still commutes with lock_page's and the LRU's bit
	 * operations: effects.h, pr_effect_bit).
	 */
	pr_effect_bit(&page->flags, PG_free);
	if (page_peek_flags(page) & (1UL << PG_free)) {
		count = page_peek_count(page);
		if (count == 0)
			pr_fail("put-free-page", page,
				"%s dropped the last reference to page#%lu, which is already on the free lists (PG_free): it tells its caller to free the page, which would free it a second time",
				func, page_to_pfn(page));
		if (count < 0)
			pr_fail("put-free-page", page,
				"%s on page#%lu, which is on the free lists (PG_free) with no reference left to drop: count now %d",
				func, page_to_pfn(page), count);
		pr_fail("put-free-page", page,
			"%s on page#%lu, which is on the free lists (PG_free): %s treats a free page as live; count now %d, so nothing is freed twice yet -- the put that takes it to zero frees it again",
			func, page_to_pfn(page), pr_ctx_name(pr_self()), count);
	}
	page_check_underflow(page, func);
}

/* Detector, right after a reference drop: page_count below zero. */
void page_check_underflow(struct page *page, const char *func)
{
	if (page_peek_count(page) < 0)
		pr_fail("refcount-underflow", page,
			"%s: page_count(page#%lu) dropped to %d",
			func, page_to_pfn(page), page_peek_count(page));
}

/**
 * del_page_from_lru - unlink @page from its LRU list (zone->lru_lock held)
 *
 * 2.6.13 include/linux/mm_inline.h.  The PG_active test is an atomic
 * test_bit, as in the kernel.
 */
void del_page_from_lru(struct zone *zone, struct page *page)
{
	list_del(&page->lru);
	if (PageActive(page)) {
		ClearPageActive(page);
		zone->nr_active--;
	} else {
		zone->nr_inactive--;
	}
}

/**
 * __page_cache_release - free a page whose count reached zero
 *
 * 2.6.13 mm/swap.c: under zone->lru_lock, take the page off the LRU, and
 * free it only if nobody has taken a new reference (page_count still 0):
 * that test is how 2.6.13 hands a racing get_page_testone (LRU isolation)
 * the job of freeing.  Note that a speculative getter of seed 004 holding
 * a transient reference at that moment also makes it skip the free, and
 * then drops that reference with __put_page: the page is leaked (count 0,
 * not on the free lists), which page_alloc_check() reports.
 *
 * PROTO_MERGED follows 2.6.27 instead: PageLRU tested outside the lock,
 * __ClearPageLRU under it, no count test, free_hot_page unconditionally.
 */
void __page_cache_release(struct page *page)
{
	unsigned long flags;
	struct zone *zone = page_zone(page);

	if (variant.protocol == PROTO_MERGED) {
		/* 2.6.27 mm/swap.c */
		if (PageLRU(page)) {
			spin_lock_irqsave(&zone->lru_lock, flags);
			__clear_bit(PG_lru, &page->flags);	/* __ClearPageLRU */
			del_page_from_lru(zone, page);
			spin_unlock_irqrestore(&zone->lru_lock, flags);
		}
		free_hot_page(page);
		return;
	}

	/*
	 * 2.6.13 mm/swap.c.  KNOB_RELEASE_NO_RECHECK drops the count
	 * recheck, which the seeds' speculative references turn into a
	 * leak (doc/findings.md); nothing else revives a page here once the
	 * LRU isolation also went through lru_lock.
	 */
	spin_lock_irqsave(&zone->lru_lock, flags);
	if (TestClearPageLRU(page))
		del_page_from_lru(zone, page);
	if (!knob(KNOB_RELEASE_NO_RECHECK) && page_count(page) != 0)
		page = NULL;
	spin_unlock_irqrestore(&zone->lru_lock, flags);
	if (page)
		free_hot_page(page);
}

/**
 * put_page - drop a reference; the last one frees the page
 *
 * 2.6.13 include/linux/mm.h / mm/swap.c after seed 002 (patch 1/7): the
 * PageReserved test is gone, every page is refcounted alike.  Compound
 * pages are not modelled.
 */
void put_page(struct page *page)
{
	if (put_page_testzero(page))
		__page_cache_release(page);
}
