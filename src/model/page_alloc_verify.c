/* SPDX-License-Identifier: MIT */
/*
 * page_alloc_verify.c - the allocator's end-of-run consistency check
 * (page_alloc.h says what is checked) and its free-page count; no yield
 * points.
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

unsigned long page_alloc_nr_free(void)
{
	unsigned long n = zone_normal.free_pages;

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		for (int c = 0; c < 2; c++)
			n += (unsigned long)zone_normal.pageset[cpu].pcp[c].count;
	return n;
}

/* The page a list entry belongs to, or NULL if it is not in mem_map. */
static struct page *entry_page(const struct list_head *pos)
{
	const struct page *page;
	size_t off;

	if (!pos)
		return NULL;
	page = list_entry(pos, struct page, lru);
	if (!page_model_owns(page))
		return NULL;
	off = (size_t)((const char *)page - (const char *)mem_map);
	if (off % sizeof(struct page))
		return NULL;
	return (struct page *)page;
}

#define VFAIL(...) do { snprintf(msg, len, __VA_ARGS__); return -1; } while (0)

enum { SEEN_NONE = 0, SEEN_HEAD, SEEN_TAIL, SEEN_PCP };

/* Walk the buddy lists: see page_alloc.h. */
static int verify_buddy(char *msg, size_t len)
{
	struct zone *zone = &zone_normal;
	unsigned long total = 0;

	for (unsigned int order = 0; order < MAX_ORDER; order++) {
		struct free_area *area = &zone->free_area[order];
		const struct list_head *head = &area->free_list, *pos;
		unsigned long n = 0;

		for (pos = head->next; pos != head; pos = pos->next) {
			struct page *page = entry_page(pos);
			unsigned long pfn, size = 1UL << order;

			if (!page)
				VFAIL("free_area[%u]: list entry %lu is not a page", order, n);
			if (++n > max_mapnr)
				VFAIL("free_area[%u]: list longer than mem_map (cycle?)", order);
			pfn = page_to_pfn(page);
			if (pa_seen[pfn] != SEEN_NONE)
				VFAIL("page#%lu is on two free lists (free_area[%u])", pfn, order);
			if (!(page->flags & (1UL << PG_free)))
				VFAIL("page#%lu on free_area[%u] without PG_free", pfn, order);
			if (page->private != order)
				VFAIL("page#%lu on free_area[%u] has order %lu", pfn, order,
				      page->private);
			if ((pfn & (size - 1)) || pfn + size > max_mapnr)
				VFAIL("page#%lu: misaligned or out-of-range block of order %u",
				      pfn, order);
			if (order < MAX_ORDER - 1) {
				unsigned long bpfn = pfn ^ size;
				const struct page *buddy = &mem_map[bpfn];

				if (bpfn < max_mapnr && (buddy->flags & (1UL << PG_free)) &&
				    buddy->private == order)
					VFAIL("page#%lu and its buddy page#%lu both free at order %u, not merged",
					      pfn, bpfn, order);
			}
			for (unsigned long i = 0; i < size; i++) {
				if (i && pa_seen[pfn + i] != SEEN_NONE)
					VFAIL("page#%lu is in two free blocks", pfn + i);
				pa_seen[pfn + i] = i ? SEEN_TAIL : SEEN_HEAD;
				if (i && (mem_map[pfn + i].flags & (1UL << PG_free)))
					VFAIL("page#%lu: PG_free inside the free block at page#%lu",
					      pfn + i, pfn);
				if (page_peek_count(&mem_map[pfn + i]) != 0)
					VFAIL("page#%lu is free with count %d", pfn + i,
					      page_peek_count(&mem_map[pfn + i]));
			}
			total += size;
		}
		if (n != area->nr_free)
			VFAIL("free_area[%u].nr_free is %lu, list holds %lu", order,
			      area->nr_free, n);
	}
	if (total != zone->free_pages)
		VFAIL("zone free_pages is %lu, buddy lists hold %lu", zone->free_pages,
		      total);
	return 0;
}

/* Walk the per-CPU lists. */
static int verify_pcp(char *msg, size_t len)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		for (int c = 0; c < 2; c++) {
			struct per_cpu_pages *pcp = &zone_normal.pageset[cpu].pcp[c];
			const struct list_head *head = &pcp->list, *pos;
			long n = 0;

			for (pos = head->next; pos != head; pos = pos->next) {
				struct page *page = entry_page(pos);
				unsigned long pfn;

				if (!page)
					VFAIL("cpu %d %s list: entry %ld is not a page", cpu,
					      c ? "cold" : "hot", n);
				if ((unsigned long)++n > max_mapnr)
					VFAIL("cpu %d %s list longer than mem_map (cycle?)", cpu,
					      c ? "cold" : "hot");
				pfn = page_to_pfn(page);
				if (pa_seen[pfn] != SEEN_NONE)
					VFAIL("page#%lu on cpu %d's %s list is also on another free list",
					      pfn, cpu, c ? "cold" : "hot");
				pa_seen[pfn] = SEEN_PCP;
				if (page->flags & (1UL << PG_free))
					VFAIL("page#%lu on cpu %d's %s list has PG_free", pfn, cpu,
					      c ? "cold" : "hot");
				if (page_peek_count(page) != 0)
					VFAIL("page#%lu is free with count %d", pfn,
					      page_peek_count(page));
			}
			if (n != pcp->count)
				VFAIL("cpu %d %s list: count %d, list holds %ld", cpu,
				      c ? "cold" : "hot", pcp->count, n);
		}
	return 0;
}

int page_alloc_verify(char *msg, size_t len)
{
	int ret;

	if (len)
		msg[0] = '\0';
	memset(pa_seen, 0, pa_shadow_nr);
	ret = verify_buddy(msg, len);
	if (!ret)
		ret = verify_pcp(msg, len);
	if (ret)
		return ret;

	/* Pages on no free list are in use: a reference, no PG_free. */
	for (unsigned long pfn = 0; pfn < max_mapnr; pfn++) {
		const struct page *page = &mem_map[pfn];
		unsigned long tails = 0;

		if (pa_seen[pfn] != SEEN_NONE)
			continue;
		if (page->flags & (1UL << PG_free))
			VFAIL("page#%lu has PG_free but is on no free list", pfn);
		if (page_peek_count(page) < 1)
			VFAIL("page#%lu leaked: count %d, on no free list", pfn,
			      page_peek_count(page));
		if (pa_shadow_map[pfn].where == SH_USE)
			tails = (1UL << pa_shadow_map[pfn].order) - 1;
		for (unsigned long i = 1; i <= tails && pfn + i < max_mapnr; i++) {
			const struct page *tail = &mem_map[pfn + i];

			if (pa_seen[pfn + i] != SEEN_NONE)
				VFAIL("page#%lu: in the allocated block at page#%lu and on a free list",
				      pfn + i, pfn);
			if (tail->flags & (1UL << PG_free))
				VFAIL("page#%lu has PG_free but is on no free list", pfn + i);
		}
		pfn += tails;
	}
	return 0;
}

void page_alloc_check(void)
{
	char msg[256];

	if (page_alloc_verify(msg, sizeof(msg)))
		pr_fail("invariant", NULL, "%s", msg);
}
