/* SPDX-License-Identifier: MIT */
/*
 * filemap.c - the page cache's insertion, removal and lookups
 * (mm/filemap.c, include/linux/pagemap.h) under the three protocols.
 *
 * PROTO_LOCKED is 2.6.13-rc6 before the seeds: lookups take tree_lock for
 * reading and a plain reference under it.  PROTO_V2 is the seeds: lookups
 * walk the radix tree under RCU and take a speculative reference, which
 * they verify afterwards.  PROTO_MERGED is what 2.6.27 merged:
 * get_page_unless_zero and a retry loop; removal freezes the count.
 *
 * Every lookup tells the shadow checker what it was asked for and reports
 * the page at its linearisation point, where the page must be the one in
 * the cache at that key (check/shadow.c).
 */
#include "model/observe.h"
#include "kernel/kernel.h"
#include "kernel/irq.h"
#include "kernel/preempt.h"
#include "kernel/rcu.h"
#include "model/filemap_2627.h"
#include "model/mapping.h"
#include "model/variant.h"
#include "runtime/effects.h"

struct address_space mappings[MODEL_MAX_MAPPINGS];
struct address_space swapper_space;

static int locked_proto(void)
{
	return variant.protocol == PROTO_LOCKED;
}

/* seed 008 (patch 7/7): tree_lock is a spinlock once no reader takes it. */
void tree_write_lock(struct address_space *mapping)
{
	if (locked_proto())
		write_lock_irq(&mapping->tree_rwlock);
	else
		spin_lock_irq(&mapping->tree_lock);
}

void tree_write_unlock(struct address_space *mapping)
{
	if (locked_proto())
		write_unlock_irq(&mapping->tree_rwlock);
	else
		spin_unlock_irq(&mapping->tree_lock);
}

/**
 * add_to_page_cache - insert a new, locked page at @offset of @mapping
 *
 * seed 007 (patch 6/7), add_to_page_cache: the page gets its reference,
 * PG_locked, mapping and index *before* radix_tree_insert publishes it to
 * lockless readers, so a reader can never see it half set up; hence also
 * the non-atomic __SetPageLocked (nobody else can see the page yet).
 * PROTO_LOCKED, and KNOB_ADD_AFTER_INSERT on top of the lockless lookups,
 * set it up after insertion as 2.6.13 did.
 */
int add_to_page_cache(struct page *page, struct address_space *mapping,
		      unsigned long offset, unsigned int gfp_mask)
{
	int error;

	if (variant.protocol == PROTO_MERGED)	/* 2.6.27: filemap_2627.c */
		return add_to_page_cache_2627(page, mapping, offset, gfp_mask);
	error = radix_tree_preload(gfp_mask);
	if (error)
		return error;
	if (!locked_proto() && !knob(KNOB_ADD_AFTER_INSERT)) {
		page_cache_get(page);
		__SetPageLocked(page);
		observe_page_locked(page, "add_to_page_cache");
		STORE(page->mapping, mapping);
		STORE(page->index, offset);

		tree_write_lock(mapping);
		error = radix_tree_insert(&mapping->page_tree, offset, page);
		if (!error)
			STORE(mapping->nrpages, LOAD(mapping->nrpages) + 1);
		tree_write_unlock(mapping);
		radix_tree_preload_end();

		if (error) {
			STORE(page->mapping, NULL);
			__put_page(page);
			observe_page_unlocked(page, "add_to_page_cache");
			__ClearPageLocked(page);
		}
		return error;
	}

	/* 2.6.13 mm/filemap.c, add_to_page_cache */
	tree_write_lock(mapping);
	error = radix_tree_insert(&mapping->page_tree, offset, page);
	if (!error) {
		page_cache_get(page);
		if (locked_proto()) {
			SetPageLocked(page);
		} else {
			/* v1: the seeds' non-atomic lock, in the old place */
			__SetPageLocked(page);
		}
		observe_page_locked(page, "add_to_page_cache");
		STORE(page->mapping, mapping);
		STORE(page->index, offset);
		STORE(mapping->nrpages, LOAD(mapping->nrpages) + 1);
	}
	tree_write_unlock(mapping);
	radix_tree_preload_end();
	return error;
}

/**
 * __remove_from_page_cache - take @page out of its mapping (tree_lock held)
 *
 * 2.6.13 mm/filemap.c: delete from the tree first, then clear ->mapping,
 * so a lockless reader that still finds the page in the tree also finds
 * it correctly mapped.  The page cache's reference is the caller's to drop.
 */
void __remove_from_page_cache(struct page *page)
{
	struct address_space *mapping = LOAD(page->mapping);

	radix_tree_delete(&mapping->page_tree, LOAD(page->index));
	STORE(page->mapping, NULL);
	STORE(mapping->nrpages, LOAD(mapping->nrpages) - 1);
}

/**
 * remove_from_page_cache - the same, taking tree_lock; @page is locked
 */
void remove_from_page_cache(struct page *page)
{
	struct address_space *mapping = LOAD(page->mapping);

	if (!PageLocked(page))
		pr_fail("bug", page, "remove_from_page_cache of an unlocked page");
	tree_write_lock(mapping);
	__remove_from_page_cache(page);
	tree_write_unlock(mapping);
}

/*
 * seed 004 (patch 3/7), page_cache_get_speculative, v2 and its v1 knobs:
 *   KNOB_SPEC_IRQ         preempt_disable instead of local_irq_save (v1);
 *   KNOB_SPEC_FREE_CHECK  no PageFree test after get_page_testone (v1);
 *   KNOB_NO_RECHECK       no page != *pagep recheck;
 *   KNOB_TESTONE_NO_MB    get_page_testone without its memory barrier;
 *   KNOB_SPEC_RMB         smp_rmb() before the recheck (F11's fix).
 */
static struct page *get_speculative_v2(struct page **pagep)
{
	unsigned long flags = 0;
	struct page *page;
	int freeing;

	if (knob(KNOB_SPEC_IRQ))
		preempt_disable();
	else
		local_irq_save(flags);

	/* Lockless: racy by design against insert and delete (see LOAD_DEP). */
	page = LOAD_DEP(*pagep);
	if (!page)
		goto out_failed;

	/* Note that get_page_testone provides a memory barrier */
	if ((knob(KNOB_TESTONE_NO_MB) ? get_page_testone_relaxed(page) :
					 get_page_testone(page)) ||
	    (!knob(KNOB_SPEC_FREE_CHECK) && PageFree(page))) {
		/*
		 * Picked up a freed page: previous getters keep the
		 * allocator spinning, so PageFree is stable here.
		 */
		__put_page(page);
		page = NULL;
		goto out_failed;
	}

	/*
	 * Seed 004 tests PageFreeing, then rechecks *pagep, two loads with
	 * nothing between: on a weakly ordered CPU the recheck may be
	 * satisfied first, and see the slot as of before a removal whose
	 * PG_freeing the test sees already cleared (finding F11).
	 * KNOB_SPEC_RMB orders them (not in the seed).
	 */
	freeing = PageFreeing(page);
	if (!freeing && knob(KNOB_SPEC_RMB))
		smp_rmb();
	if (freeing ||
	    (!knob(KNOB_NO_RECHECK) && page != READ_ONCE(*pagep))) {
		/* Being freed, or no longer at *pagep: our ref pins it. */
		put_page(page);
		page = NULL;
		goto out_failed;
	}
	observe_lookup_found(page);

out_failed:
	if (knob(KNOB_SPEC_IRQ))
		preempt_enable();
	else
		local_irq_restore(flags);
	return page;
}

/**
 * page_cache_get_speculative - take a reference on the page at *@pagep
 *
 * The caller is inside rcu_read_lock and holds no lock: the page may be
 * freed, reused or removed under it.  Returns the page with a reference,
 * or NULL if it could not be pinned where *@pagep points.  PROTO_MERGED
 * has 2.6.27's instead (filemap_2627.c).
 */
struct page *page_cache_get_speculative(struct page **pagep)
{
	return get_speculative_v2(pagep);
}

/**
 * find_get_page - find and get a reference to a pagecache page
 * @mapping:	the address_space to search
 * @offset:	the page index
 *
 * seed 007 (patch 6/7), find_get_page: RCU instead of tree_lock.
 */
struct page *find_get_page(struct address_space *mapping, unsigned long offset)
{
	struct page **pagep;
	struct page *page = NULL;

	if (variant.protocol == PROTO_MERGED)	/* 2.6.27: filemap_2627.c */
		return find_get_page_2627(mapping, offset);
	observe_lookup_begin(mapping, offset, "find_get_page");
	if (locked_proto()) {
		/* 2.6.13 */
		read_lock_irq(&mapping->tree_rwlock);
		page = radix_tree_lookup(&mapping->page_tree, offset);
		if (page) {
			page_cache_get(page);
			observe_lookup_found(page);
		}
		read_unlock_irq(&mapping->tree_rwlock);
	} else {
		rcu_read_lock();
		pagep = (struct page **)radix_tree_lookup_slot(
					&mapping->page_tree, offset);
		if (pagep)
			page = page_cache_get_speculative(pagep);
		rcu_read_unlock();
	}
	observe_lookup_end();
	return page;
}

/**
 * find_trylock_page - find and lock a page, without sleeping
 *
 * seed 007 (patch 6/7): built on find_get_page; checks after locking that
 * the page was not truncated meanwhile.  "Silly interface requires us to
 * drop the refcount": the page comes back locked but unreferenced.
 */
struct page *find_trylock_page(struct address_space *mapping,
			       unsigned long offset)
{
	struct page *page;

	if (locked_proto()) {
		/* 2.6.13 */
		read_lock_irq(&mapping->tree_rwlock);
		page = radix_tree_lookup(&mapping->page_tree, offset);
		if (page && TestSetPageLocked(page))
			page = NULL;
		if (page)
			observe_page_locked(page, "find_trylock_page");
		read_unlock_irq(&mapping->tree_rwlock);
		return page;
	}

	page = find_get_page(mapping, offset);
	if (page) {
		if (TestSetPageLocked(page))
			goto out_failed;
		observe_page_locked(page, "find_trylock_page");
		/* Has the page been truncated before being locked? */
		if (LOAD(page->mapping) != mapping ||
		    LOAD(page->index) != offset) {
			unlock_page(page);
			goto out_failed;
		}
		__put_page(page);
		return page;
out_failed:
		page_cache_release(page);
	}
	return NULL;
}

/**
 * find_lock_page - locate, pin and lock a pagecache page, sleeping for it
 *
 * seed 007 (patch 6/7): find_get_page, lock_page, then recheck mapping and
 * index, since the page may have been truncated while we slept.
 * KNOB_LOCK_NO_RECHECK drops that recheck.
 */
struct page *find_lock_page(struct address_space *mapping, unsigned long offset)
{
	struct page *page;

	if (variant.protocol == PROTO_MERGED)	/* 2.6.27: filemap_2627.c */
		return find_lock_page_2627(mapping, offset);
	if (locked_proto()) {
		/* 2.6.13 */
		read_lock_irq(&mapping->tree_rwlock);
repeat_locked:
		page = radix_tree_lookup(&mapping->page_tree, offset);
		if (page) {
			page_cache_get(page);
			if (TestSetPageLocked(page)) {
				read_unlock_irq(&mapping->tree_rwlock);
				lock_page(page);
				read_lock_irq(&mapping->tree_rwlock);
				/* Has the page been truncated while we slept? */
				if (LOAD(page->mapping) != mapping ||
				    LOAD(page->index) != offset) {
					unlock_page(page);
					page_cache_release(page);
					goto repeat_locked;
				}
			} else {
				observe_page_locked(page, "find_lock_page");
			}
		}
		read_unlock_irq(&mapping->tree_rwlock);
		return page;
	}

repeat:
	page = find_get_page(mapping, offset);
	if (page) {
		lock_page(page);
		/* Has the page been truncated before being locked? */
		if (!knob(KNOB_LOCK_NO_RECHECK) &&
		    (LOAD(page->mapping) != mapping ||
		     LOAD(page->index) != offset)) {
			unlock_page(page);
			page_cache_release(page);
			goto repeat;
		}
		/*
		 * Locked now: the page cannot leave the cache under us.  The
		 * check reads ->mapping and ->index without a yield point:
		 * for dpor a read of them (effects.h).
		 */
		pr_effect(&page->mapping, sizeof(page->mapping) +
			  sizeof(page->index), PR_EFF_READ);
		if (page->mapping != mapping || page->index != offset)
			pr_fail("bad-lookup", page,
				"find_lock_page(m%d, %lu) returned a locked page that was truncated",
				mapping->id, offset);
	}
	return page;
}

/**
 * find_get_pages - gang lookup under tree_lock
 *
 * 2.6.13 mm/filemap.c, and seed 008 (patch 7/7), which keeps it under
 * tree_lock (now a spinlock): only find_get_pages_nonatomic is lockless
 * in the seeds, so under the lock a plain page_cache_get pins each page.
 * PROTO_MERGED is 2.6.27, whose find_get_pages is lockless (RCU and a
 * speculative get per slot): routed to the lockless walk.
 */
unsigned find_get_pages(struct address_space *mapping, unsigned long start,
			unsigned int nr_pages, struct page **pages)
{
	unsigned int i, ret;

	if (variant.protocol == PROTO_MERGED)	/* 2.6.27: filemap_2627.c */
		return find_get_pages_2627(mapping, start, nr_pages, pages);
	observe_gang_lookup_begin(mapping, start, nr_pages, "find_get_pages");
	if (locked_proto())
		read_lock_irq(&mapping->tree_rwlock);
	else
		spin_lock_irq(&mapping->tree_lock);
	ret = radix_tree_gang_lookup(&mapping->page_tree, (void **)pages,
				     start, nr_pages);
	for (i = 0; i < ret; i++) {
		page_cache_get(pages[i]);
		observe_lookup_found(pages[i]);
	}
	if (locked_proto())
		read_unlock_irq(&mapping->tree_rwlock);
	else
		spin_unlock_irq(&mapping->tree_lock);
	observe_lookup_end();
	return ret;
}

/**
 * find_get_pages_tag - gang lookup of pages carrying @tag, under tree_lock
 *
 * 2.6.13 mm/filemap.c with seed 008 (patch 7/7): spin_lock_irq instead of
 * read_lock_irq, a plain page_cache_get under it, and *@index moved past
 * the last page found.  PROTO_MERGED runs the same (2.6.27's lockless
 * version is not modelled here).
 */
unsigned find_get_pages_tag(struct address_space *mapping,
			    unsigned long *index, int tag,
			    unsigned int nr_pages, struct page **pages)
{
	unsigned int i, ret;

	observe_gang_lookup_begin(mapping, *index, nr_pages, "find_get_pages_tag");
	if (locked_proto())
		read_lock_irq(&mapping->tree_rwlock);
	else
		spin_lock_irq(&mapping->tree_lock);
	ret = radix_tree_gang_lookup_tag(&mapping->page_tree, (void **)pages,
					 *index, nr_pages, tag);
	for (i = 0; i < ret; i++) {
		page_cache_get(pages[i]);
		observe_lookup_found(pages[i]);
	}
	if (ret)
		*index = LOAD(pages[ret - 1]->index) + 1;
	if (locked_proto())
		read_unlock_irq(&mapping->tree_rwlock);
	else
		spin_unlock_irq(&mapping->tree_lock);
	observe_lookup_end();
	return ret;
}

/**
 * find_get_pages_nonatomic - gang lookup without tree_lock
 *
 * seed 007 (patch 6/7): gang_lookup_slot under RCU, then a speculative
 * get on each slot; pages that could not be pinned are skipped, so the
 * result is not a snapshot of any single instant.  The key each page is
 * checked against is the index its slot was found at.
 */
unsigned find_get_pages_nonatomic(struct address_space *mapping,
				  unsigned long start, unsigned int nr_pages,
				  struct page **pages)
{
	struct page **slots[nr_pages ? nr_pages : 1];
	unsigned int i, ret, ret2 = 0;

	if (variant.protocol == PROTO_MERGED)	/* 2.6.27: filemap_2627.c */
		return find_get_pages_2627(mapping, start, nr_pages, pages);
	if (locked_proto())
		return find_get_pages(mapping, start, nr_pages, pages);
	/* A slot pointer does not tell its index: check the mapping only. */
	observe_gang_lookup_begin(mapping, start, nr_pages,
				 "find_get_pages_nonatomic");
	rcu_read_lock();
	/* The kernel reuses @pages for the slots; the model keeps them apart. */
	ret = radix_tree_gang_lookup_slot(&mapping->page_tree,
					  (void ***)slots, start, nr_pages);
	for (i = 0; i < ret; i++) {
		struct page *page;

		page = page_cache_get_speculative(slots[i]);
		if (page)
			pages[ret2++] = page;
	}
	rcu_read_unlock();
	observe_lookup_end();
	return ret2;
}

/**
 * readahead_probe - __do_page_cache_readahead's "already cached?" test
 *
 * seed 007 (patch 6/7), mm/readahead.c: "Don't need mapping->tree_lock -
 * lookup can be racy": a bare radix_tree_lookup under RCU, no reference
 * taken, the answer only a hint.
 */
int readahead_probe(struct address_space *mapping, unsigned long offset)
{
	struct page *page;

	if (locked_proto()) {
		read_lock_irq(&mapping->tree_rwlock);
		page = radix_tree_lookup(&mapping->page_tree, offset);
		read_unlock_irq(&mapping->tree_rwlock);
	} else {
		rcu_read_lock();
		page = radix_tree_lookup(&mapping->page_tree, offset);
		rcu_read_unlock();
	}
	return page != NULL;
}

/**
 * release_pages - drop the references a gang lookup returned
 * (2.6.13 mm/swap.c, without the LRU batching the model has no use for)
 */
void release_pages(struct page **pages, int nr)
{
	for (int i = 0; i < nr; i++)
		page_cache_release(pages[i]);
}
