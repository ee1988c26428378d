/* SPDX-License-Identifier: MIT */
/*
 * filemap_2627.h - 2.6.27's page-cache lookups and insertion
 * (filemap_2627.c), which filemap.c's entry points use under PROTO_MERGED.
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

#endif /* PAGERACE_MODEL_FILEMAP_2627_H */
