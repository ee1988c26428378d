/* SPDX-License-Identifier: MIT */
/*
 * mapping.h - struct address_space and the page-cache operations of
 * mm/filemap.c, mm/truncate.c, mm/vmscan.c (shrink_list's reclaim step),
 * mm/readahead.c and the swap cache, as the seeds leave them, with the
 * protocol and bug knobs of variant.h.
 *
 * Lock order (2.6.13): page lock (PG_locked, sleeping) -> tree_lock
 * (irq-safe).  tree_lock protects the radix tree's structure and nrpages;
 * it is an rwlock before the patches (readers take it for lookups) and a
 * spinlock after patch 7/7 (seed 008), when no lookup takes it any more.
 */
#ifndef PAGERACE_MODEL_MAPPING_H
#define PAGERACE_MODEL_MAPPING_H

#include "kernel/spinlock.h"
#include "model/page.h"
#include "model/radix_tree.h"

#define MODEL_MAX_MAPPINGS	4

struct address_space {
	struct radix_tree_root page_tree;
	rwlock_t tree_rwlock;		/* PROTO_LOCKED's tree_lock */
	spinlock_t tree_lock;		/* PROTO_V2/MERGED's (seed 008) */
	unsigned long nrpages;		/* under tree_lock */
	int id;				/* "m0", "m1", ...; -1: swapper_space */
};

extern struct address_space mappings[MODEL_MAX_MAPPINGS];
extern struct address_space swapper_space;

/* tree_lock for writers, whichever lock type the protocol has. */
void tree_write_lock(struct address_space *mapping);
void tree_write_unlock(struct address_space *mapping);

/* mm/filemap.c */
int add_to_page_cache(struct page *page, struct address_space *mapping,
		      unsigned long offset, unsigned int gfp_mask);
void __remove_from_page_cache(struct page *page);
void remove_from_page_cache(struct page *page);
struct page *page_cache_get_speculative(struct page **pagep);
struct page *find_get_page(struct address_space *mapping, unsigned long offset);
struct page *find_trylock_page(struct address_space *mapping,
			       unsigned long offset);
struct page *find_lock_page(struct address_space *mapping, unsigned long offset);
unsigned find_get_pages(struct address_space *mapping, unsigned long start,
			unsigned int nr_pages, struct page **pages);
unsigned find_get_pages_nonatomic(struct address_space *mapping,
				  unsigned long start, unsigned int nr_pages,
				  struct page **pages);

/* The sleeping page lock (mm/filemap.c, include/linux/pagemap.h). */
void lock_page(struct page *page);
void unlock_page(struct page *page);

/* mm/readahead.c: the racy "is it cached?" probe; 1 if present. */
int readahead_probe(struct address_space *mapping, unsigned long offset);

/* mm/truncate.c */
void truncate_inode_pages(struct address_space *mapping, unsigned long start);
unsigned long invalidate_mapping_pages(struct address_space *mapping,
				       unsigned long start, unsigned long end);

/* The page cache's radix-tree tags (2.6.13 include/linux/fs.h). */
#define PAGECACHE_TAG_DIRTY	0
#define PAGECACHE_TAG_WRITEBACK	1

/* mm/page-writeback.c: page flag and tree tag together, under tree_lock. */
int set_page_dirty(struct page *page);
int test_clear_page_dirty(struct page *page);
int test_set_page_writeback(struct page *page);
int test_clear_page_writeback(struct page *page);
int mapping_tagged(struct address_space *mapping, int tag);

/* mm/filemap.c: gang lookup of tagged pages, under tree_lock (seed 008). */
unsigned find_get_pages_tag(struct address_space *mapping,
			    unsigned long *index, int tag,
			    unsigned int nr_pages, struct page **pages);

/*
 * mm/vmscan.c: shrink_list's reclaim of one page the caller isolated from
 * the LRU (holding a reference of its own, dropped here).  Returns 1 if the
 * page was reclaimed.
 */
int shrink_page(struct page *page);
/* mm/vmscan.c: shrink_cache scanning one page of the inactive list. */
int shrink_cache_one(void);
/* Set-up only: put a page on the inactive list (scenario init "lru"). */
void lru_add_initial(struct page *page);

/* mm/swap_state.c, mm/swapfile.c (the entry's swap_map count is 1). */
int add_to_swap_cache(struct page *page, unsigned long entry);
int remove_exclusive_swap_page(struct page *page);

/* mm/swap.c: release what a gang lookup returned. */
void release_pages(struct page **pages, int nr);

#endif /* PAGERACE_MODEL_MAPPING_H */
