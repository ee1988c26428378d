/* SPDX-License-Identifier: MIT */
/*
 * model.h - setting up and checking a whole page-cache world for one run:
 * the pieces a program (or a scenario) needs around its CPU bodies.
 *
 *	setup:	model_setup(nr_cpus, nr_pages);
 *		model_prefill(&mappings[0], 3);	(pages already cached)
 *		pr_spawn(...) for each CPU, then model_start();
 *	finish:	model_finish();			(end-of-run invariants)
 */
#ifndef PAGERACE_MODEL_MODEL_H
#define PAGERACE_MODEL_MODEL_H

#include "model/mapping.h"

#define MODEL_MAX_PAGES	64

/*
 * Reset the kernel layer, the pages and allocator, the radix trees (with
 * variant.radix_map_shift) and the mappings m0..m3 and swapper_space.
 * From a program's setup, before any pr_spawn.
 */
void model_setup(int nr_cpus, unsigned long nr_pages);

/* Start the RCU callback daemon; after the CPU contexts are spawned. */
void model_start(void);

/*
 * Initial state, from setup: a clean, unlocked, up-to-date page in
 * @mapping at @index (the page cache's reference only), or a page in the
 * swap cache for @entry.  Returns the page.
 */
struct page *model_prefill(struct address_space *mapping, unsigned long index);
struct page *model_prefill_swap(unsigned long entry);

/*
 * End-of-run checks, from a program's finish: run the remaining RCU
 * callbacks, then check every tree (structure, nrpages, each entry's
 * mapping and index, unlocked, count 1 plus references still held), every
 * page outside the caches (free, count 0), and the allocator's lists.
 */
void model_finish(void);

/* "m0" or "swapper_space", for names. */
const char *model_mapping_name(const struct address_space *m);

#endif /* PAGERACE_MODEL_MODEL_H */
