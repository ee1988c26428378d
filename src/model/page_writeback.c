/* SPDX-License-Identifier: MIT */
/*
 * page_writeback.c - the dirty and writeback tags of the page cache's radix
 * tree (2.6.13 mm/page-writeback.c with seed 008, patch 7/7).
 *
 * Every function here changes a page flag and the matching radix-tree tag
 * together under mapping->tree_lock, so that tagged gang lookups
 * (find_get_pages_tag) and mapping_tagged see flag and tag agree.  Seed 008
 * turns the rwlock into a spinlock: write_lock_irq(save) becomes
 * spin_lock_irq(save), and mapping_tagged's read_lock_irqsave too (the
 * seeds have no lockless tag reader).  PROTO_LOCKED keeps the rwlock
 * (write side for the updates, read side for mapping_tagged).  The model
 * does not distinguish the irqsave forms from the irq ones: none of these
 * runs from an interrupt in any scenario.  PROTO_MERGED runs the same code
 * (2.6.27 kept these under tree_lock).
 *
 * Not modelled: the nr_dirty page-state counters, __mark_inode_dirty,
 * mapping_cap_account_dirty and the buffer-head variant of set_page_dirty
 * (the model's mappings have no a_ops: __set_page_dirty_nobuffers is their
 * set_page_dirty).
 */
#include "kernel/kernel.h"
#include "kernel/spinlock.h"
#include "model/mapping.h"
#include "model/variant.h"

/* 2.6.13 include/linux/mm.h: page_mapping, without PageAnon (no anon pages) */
static struct address_space *page_mapping(struct page *page)
{
	if (PageSwapCache(page))
		return &swapper_space;
	return LOAD(page->mapping);
}

/* 2.6.13 include/linux/mm.h: page_index (a swap page's key is its entry) */
static unsigned long page_index(struct page *page)
{
	if (PageSwapCache(page))
		return LOAD(page->private);
	return LOAD(page->index);
}

static void tree_lock_irqsave(struct address_space *mapping)
{
	tree_write_lock(mapping);	/* seed 008: spin_lock_irqsave */
}

static void tree_unlock_irqrestore(struct address_space *mapping)
{
	tree_write_unlock(mapping);
}

/**
 * set_page_dirty - mark a page dirty, and its slot with the dirty tag
 *
 * 2.6.13 mm/page-writeback.c __set_page_dirty_nobuffers (seed 008: the
 * spinlock).  After taking tree_lock the mapping is read again: truncate
 * may have taken the page out of the cache since (then no tag is set).
 * Returns 1 if the page was clean before.
 */
int set_page_dirty(struct page *page)
{
	struct address_space *mapping, *mapping2;

	if (TestSetPageDirty(page))
		return 0;
	mapping = page_mapping(page);
	if (!mapping)
		return 1;
	tree_lock_irqsave(mapping);
	mapping2 = page_mapping(page);
	if (mapping2) {			/* Race with truncate? */
		if (mapping2 != mapping)
			pr_fail("BUG", page, "__set_page_dirty_nobuffers: "
				"BUG_ON(mapping2 != mapping)");
		radix_tree_tag_set(&mapping->page_tree, page_index(page),
				   PAGECACHE_TAG_DIRTY);
	}
	tree_unlock_irqrestore(mapping);
	return 1;
}

/**
 * test_clear_page_dirty - clear PG_dirty and the dirty tag together
 *
 * 2.6.13 mm/page-writeback.c with seed 008.  Returns 1 if it was dirty.
 */
int test_clear_page_dirty(struct page *page)
{
	struct address_space *mapping = page_mapping(page);

	if (mapping) {
		tree_lock_irqsave(mapping);
		if (TestClearPageDirty(page)) {
			radix_tree_tag_clear(&mapping->page_tree,
					     page_index(page),
					     PAGECACHE_TAG_DIRTY);
			tree_unlock_irqrestore(mapping);
			return 1;
		}
		tree_unlock_irqrestore(mapping);
		return 0;
	}
	return TestClearPageDirty(page);
}

/**
 * test_set_page_writeback - start writeback: PG_writeback and its tag
 *
 * 2.6.13 mm/page-writeback.c with seed 008: sets the writeback tag if the
 * flag was clear, and clears the dirty tag if the page is no longer dirty
 * (the caller cleared PG_dirty with clear_page_dirty_for_io).  Returns the
 * old PG_writeback.
 */
int test_set_page_writeback(struct page *page)
{
	struct address_space *mapping = page_mapping(page);
	int ret;

	if (mapping) {
		unsigned long index;

		tree_lock_irqsave(mapping);
		ret = TestSetPageWriteback(page);
		index = page_index(page);
		if (!ret)
			radix_tree_tag_set(&mapping->page_tree, index,
					   PAGECACHE_TAG_WRITEBACK);
		if (!PageDirty(page))
			radix_tree_tag_clear(&mapping->page_tree, index,
					     PAGECACHE_TAG_DIRTY);
		tree_unlock_irqrestore(mapping);
	} else {
		ret = TestSetPageWriteback(page);
	}
	return ret;
}

/**
 * test_clear_page_writeback - end writeback: PG_writeback and its tag
 *
 * 2.6.13 mm/page-writeback.c with seed 008.  Returns the old PG_writeback.
 */
int test_clear_page_writeback(struct page *page)
{
	struct address_space *mapping = page_mapping(page);
	int ret;

	if (mapping) {
		tree_lock_irqsave(mapping);
		ret = TestClearPageWriteback(page);
		if (ret)
			radix_tree_tag_clear(&mapping->page_tree,
					     page_index(page),
					     PAGECACHE_TAG_WRITEBACK);
		tree_unlock_irqrestore(mapping);
	} else {
		ret = TestClearPageWriteback(page);
	}
	return ret;
}

/**
 * mapping_tagged - does any page of @mapping carry @tag?
 *
 * 2.6.13 mm/page-writeback.c; seed 007 adds the comment "XXX:
 * radix_tree_tagged is safe to run without the lock?" and seed 008 turns
 * the read lock into spin_lock_irqsave (and the question into a
 * statement) -- but keeps the lock, so radix_tree_tagged never runs
 * lockless in the seeds.
 */
int mapping_tagged(struct address_space *mapping, int tag)
{
	int ret;

	if (variant.protocol == PROTO_LOCKED) {
		read_lock_irq(&mapping->tree_rwlock);
		ret = radix_tree_tagged(&mapping->page_tree, tag);
		read_unlock_irq(&mapping->tree_rwlock);
		return ret;
	}
	spin_lock_irq(&mapping->tree_lock);
	ret = radix_tree_tagged(&mapping->page_tree, tag);
	spin_unlock_irq(&mapping->tree_lock);
	return ret;
}
