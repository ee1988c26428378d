/* SPDX-License-Identifier: MIT */
/*
 * filemap_2627.h - 2.6.27's page-cache lookups and insertion, and its swap
 * cache insertion (filemap_2627.c), which filemap.c's and swap_state.c's
 * entry points use under PROTO_MERGED.
 */
#ifndef PAGERACE_MODEL_FILEMAP_2627_H
#define PAGERACE_MODEL_FILEMAP_2627_H

#include "model/mapping.h"

struct page *find_get_page_2627(struct address_space *mapping,
				unsigned long offset);
struct page *find_lock_page_2627(struct address_space *mapping,
				 unsigned long offset);
unsigned find_get_pages_2627(struct address_space *mapping,
			     unsigned long start, unsigned int nr_pages,
			     struct page **pages);
int add_to_page_cache_2627(struct page *page, struct address_space *mapping,
			   unsigned long offset, unsigned int gfp_mask);
/* 2.6.27's add_to_swap_cache (mm/swap_state.c), in filemap_2627.c too. */
int add_to_swap_cache_2627(struct page *page, unsigned long entry);

#endif /* PAGERACE_MODEL_FILEMAP_2627_H */
