/* SPDX-License-Identifier: MIT */
/*
 * page_alloc_reset.c - the allocator's start-of-run state: the per-CPU
 * list sizes (setup_pageset) and the zone with every page free, in the
 * largest aligned blocks (page_alloc.c has the conventions).
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

static int pcp_batch = 1;
static int pageset_ready;	/* every CPU's lists set up with pcp_batch */

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

	if (pa_shadow_nr != max_mapnr) {
		free(pa_shadow_map);
		free(pa_seen);
		pa_shadow_map = calloc(max_mapnr ? max_mapnr : 1, sizeof(*pa_shadow_map));
		pa_seen = calloc(max_mapnr ? max_mapnr : 1, 1);
		if (!pa_shadow_map || !pa_seen)
			abort();
		pa_shadow_nr = max_mapnr;
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
	memset(pa_shadow_map, 0, pa_shadow_nr * sizeof(*pa_shadow_map));
	for (pfn = 0; pfn < max_mapnr; pfn++)
		pa_shadow_map[pfn].where = SH_BUDDY;
}
