/* SPDX-License-Identifier: MIT */
/*
 * page_alloc.h - the buddy allocator of Linux 2.6.13 mm/page_alloc.c, one
 * node, one zone, with the changes of seeds 002-004 (patches 1/7-3/7).
 *
 *   zone->free_area[order]   buddy free lists, under zone->lock
 *                            (spin_lock_irqsave); the head page of a free
 *                            block has PG_free set and ->private = order
 *   zone->pageset[cpu].pcp[0/1]  per-CPU hot and cold lists of order-0
 *                            pages, touched only by their CPU with local
 *                            interrupts off (local_irq_save)
 *
 * A CPU is a runtime context: the per-CPU lists of context c are
 * pageset[c]; outside a run (pr_self() == -1) CPU 0's are used.  An
 * injected interrupt runs on the context it interrupts, so it shares that
 * CPU's lists, which is why the task side disables interrupts around them.
 *
 * Allocation never reclaims and never waits for memory: when the zone is
 * empty alloc_pages() returns NULL (2.6.13 would try reclaim, then OOM).
 * Watermarks, page_state counters, kernel_map_pages and arch_free_page are
 * not modelled.  gfp flags other than __GFP_COLD have no effect.
 */
#ifndef PAGERACE_MODEL_PAGE_ALLOC_H
#define PAGERACE_MODEL_PAGE_ALLOC_H

#include <stddef.h>

#include "kernel/spinlock.h"
#include "model/list.h"
#include "model/page.h"
#include "runtime/context.h"

/* Small, so that buddy merging is exercised with a handful of pages. */
#define MAX_ORDER	4
#define NR_CPUS		PR_MAX_CTX

/* include/linux/gfp.h (2.6.13); only __GFP_COLD changes behaviour here. */
#define __GFP_WAIT	0x10u
#define __GFP_HIGH	0x20u
#define __GFP_IO	0x40u
#define __GFP_FS	0x80u
#define __GFP_COLD	0x100u
#define __GFP_NOWARN	0x200u
#define __GFP_HIGHMEM	0x02u
#define __GFP_NORECLAIM	0x20000u	/* seed 004 context: page_cache_alloc */
#define GFP_ATOMIC	(__GFP_HIGH)
#define GFP_NOIO	(__GFP_WAIT)
#define GFP_NOFS	(__GFP_WAIT | __GFP_IO)
#define GFP_KERNEL	(__GFP_WAIT | __GFP_IO | __GFP_FS)
#define GFP_USER	(__GFP_WAIT | __GFP_IO | __GFP_FS)
#define GFP_HIGHUSER	(__GFP_WAIT | __GFP_IO | __GFP_FS | __GFP_HIGHMEM)

struct free_area {
	struct list_head free_list;
	unsigned long nr_free;
};

/* include/linux/mmzone.h, 2.6.13 */
struct per_cpu_pages {
	int count;		/* number of pages in the list */
	int low;		/* low watermark, refill needed */
	int high;		/* high watermark, emptying needed */
	int batch;		/* chunk size for buddy add/remove */
	struct list_head list;	/* the list of pages */
};

struct per_cpu_pageset {
	struct per_cpu_pages pcp[2];	/* 0: hot.  1: cold */
};

/**
 * struct zone - the single zone of the model
 * @lock:	protects @free_area and @free_pages
 * @free_pages:	pages in @free_area (not counting per-CPU lists)
 * @free_area:	buddy free lists
 * @pageset:	per-CPU hot/cold lists, one per context id
 * @lru_lock:	protects the LRU lists below (owned by vmscan/swap model)
 * @active_list, @inactive_list, @nr_active, @nr_inactive: the LRU
 */
struct zone {
	spinlock_t lock;
	unsigned long free_pages;
	struct free_area free_area[MAX_ORDER];
	struct per_cpu_pageset pageset[NR_CPUS];

	spinlock_t lru_lock;
	struct list_head active_list;
	struct list_head inactive_list;
	unsigned long nr_active;
	unsigned long nr_inactive;
};

extern struct zone zone_normal;

static inline struct zone *page_zone(struct page *page)
{
	(void)page;
	return &zone_normal;
}

/*
 * Per-CPU list sizes, set before page_model_reset() (default batch 1).
 * As 2.6.13 setup_pageset(): hot low 2*batch, high 6*batch, batch batch;
 * cold low 0, high 2*batch, batch max(1, batch/2).
 */
void page_alloc_set_batch(int batch);

struct page *alloc_pages(unsigned int gfp_mask, unsigned int order);
#define alloc_page(gfp_mask)	alloc_pages(gfp_mask, 0)
void __free_pages(struct page *page, unsigned int order);
#define __free_page(page)	__free_pages((page), 0)
void free_hot_page(struct page *page);
void free_cold_page(struct page *page);
void __free_pages_ok(struct page *page, unsigned int order);
void set_page_refs(struct page *page, int order);

void drain_local_pages(void);
/* Outside a run: drain every CPU's lists (sequential, for tests/checks). */
void page_alloc_drain_all(void);

/* include/linux/pagemap.h; the mapping's gfp mask is GFP_HIGHUSER. */
struct page *page_cache_alloc(struct address_space *x);
struct page *page_cache_alloc_cold(struct address_space *x);

/* 2.6.13 mm_inline.h, used by __page_cache_release under zone->lru_lock. */
void del_page_from_lru(struct zone *zone, struct page *page);

/* Outside a run or in a program's setup: empty the zone, then free all. */
void page_alloc_reset(void);

/*
 * End-of-run consistency of the allocator, outside any context (a
 * program's finish hook).  page_alloc_verify() returns 0 if consistent,
 * else -1 with a description in @msg; it never fails the run and has no
 * yield points.  page_alloc_check() fails the run with "invariant".
 *
 * Checked: every page on a buddy list has PG_free, order == ->private, is
 * aligned and in range, is on one list only, and has count 0; no two free
 * buddies of the same order are left unmerged; nr_free and free_pages add
 * up; per-CPU lists hold count pages, none PG_free, all with count 0; no
 * page is both on a buddy list and on a per-CPU list; every other page
 * has no PG_free and count >= 1 (else it leaked).
 */
int page_alloc_verify(char *msg, size_t len);
void page_alloc_check(void);

/* Free pages, counting buddy and per-CPU lists; no yield points. */
unsigned long page_alloc_nr_free(void);

#endif /* PAGERACE_MODEL_PAGE_ALLOC_H */
