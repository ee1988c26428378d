/* SPDX-License-Identifier: MIT */
/*
 * filemap_2627.c - the page cache's lockless lookups and insertion as
 * Linux 2.6.27 mm/filemap.c and include/linux/pagemap.h have them, over
 * the 2.6.27 radix tree (radix_tree_2627.h).  filemap.c dispatches here
 * under PROTO_MERGED.
 *
 * The 2.6.27 protocol: a lookup loads the slot with radix_tree_deref_slot,
 * starts again from the root on an empty slot or RADIX_TREE_RETRY, takes
 * its reference with page_cache_get_speculative (get_page_unless_zero,
 * failing on a count frozen or dropped to zero), and rechecks that the
 * slot still holds the page; the remover freezes the count at zero under
 * tree_lock (vmscan.c's remove_mapping_merged).  The retries that wait
 * for a remover (count zero, page moved) are wait loops (cpu_relax_on), so
 * a retrier never starves the remover it waits for; the retries that only
 * restart the walk (empty slot, RADIX_TREE_RETRY) are not.
 */
#include "model/observe.h"
#include "kernel/kernel.h"
#include "kernel/rcu.h"
#include "model/filemap_2627.h"
#include "model/radix_tree_2627.h"
#include "model/variant.h"

/*
 * 2.6.27 include/linux/pagemap.h: page_cache_get_speculative, SMP case:
 * get_page_unless_zero ("Either the page has been freed, or will be
 * freed. In either case, retry").
 */
static inline int page_cache_get_speculative_2627(struct page *page)
{
	return get_page_unless_zero(page);
}

/**
 * find_get_page_2627 - 2.6.27 find_get_page
 * @mapping: the address_space to search
 * @offset: the page index
 *
 * 2.6.27 mm/filemap.c: under rcu_read_lock, lookup_slot, deref_slot
 * ("if (unlikely(!page || page == RADIX_TREE_RETRY)) goto repeat"),
 * page_cache_get_speculative, "has the page moved?" recheck of *pagep.
 * Every retry starts again from radix_tree_lookup_slot.
 */
struct page *find_get_page_2627(struct address_space *mapping,
				unsigned long offset)
{
	void **pagep;
	struct page *page;

	observe_lookup_begin(mapping, offset, "find_get_page");
	rcu_read_lock();
repeat:
	page = NULL;
	pagep = radix_tree_lookup_slot(&mapping->page_tree, offset);
	if (pagep) {
		page = radix_tree_deref_slot(pagep);
		if (!page || page == RADIX_TREE_RETRY)
			goto repeat;

		if (!page_cache_get_speculative_2627(page)) {
			cpu_relax_on(page);	/* freed, or being freed */
			goto repeat;
		}

		/*
		 * Has the page moved?
		 * This is part of the lockless pagecache protocol.
		 */
		if (page != READ_ONCE(*pagep)) {	/* racy by design */
			page_cache_release(page);
			cpu_relax_on(page);
			goto repeat;
		}
		observe_lookup_found(page);
	}
	rcu_read_unlock();
	observe_lookup_end();

	return page;
}

/**
 * find_lock_page_2627 - 2.6.27 find_lock_page
 *
 * 2.6.27 mm/filemap.c: find_get_page, lock_page, and "has the page been
 * truncated?" on ->mapping only; the index is a VM_BUG_ON (a page we hold
 * a reference on cannot come back at another index).
 * KNOB_LOCK_NO_RECHECK drops the mapping recheck here too.
 */
struct page *find_lock_page_2627(struct address_space *mapping,
				 unsigned long offset)
{
	struct page *page;

repeat:
	page = find_get_page_2627(mapping, offset);
	if (page) {
		lock_page(page);
		/* Has the page been truncated? */
		if (!knob(KNOB_LOCK_NO_RECHECK) &&
		    LOAD(page->mapping) != mapping) {
			unlock_page(page);
			page_cache_release(page);
			goto repeat;
		}
		if (!knob(KNOB_LOCK_NO_RECHECK) && LOAD(page->index) != offset)
			pr_fail("BUG", page, "find_lock_page: "
				"VM_BUG_ON(page->index != offset)");
		/* Locked now: the page cannot leave the cache under us. */
		if (page->mapping != mapping || page->index != offset)
			pr_fail("bad-lookup", page,
				"find_lock_page(m%d, %lu) returned a locked page that was truncated",
				mapping->id, offset);
	}
	return page;
}

/**
 * find_get_pages_2627 - 2.6.27 find_get_pages (lockless gang lookup)
 *
 * 2.6.27 mm/filemap.c: gang_lookup_slot under RCU, then per slot:
 * deref_slot (an empty slot is skipped; RADIX_TREE_RETRY restarts the
 * whole gang lookup), page_cache_get_speculative and the recheck, both of
 * which "goto repeat" on the same slot.  KNOB_DEREF_SLOT_PLAIN plants the
 * code gcc made of 2.6.27's plain radix_tree_deref_slot: the page pointer
 * is not reloaded when get_page_unless_zero fails, so the loop spins on a
 * freed page until someone reallocates it (e8c82c2e, 2.6.28).
 * The key each page is checked against is its mapping (a slot does not
 * tell its index).
 */
unsigned find_get_pages_2627(struct address_space *mapping,
			     unsigned long start, unsigned int nr_pages,
			     struct page **pages)
{
	void **slots[nr_pages ? nr_pages : 1];
	unsigned int i;
	unsigned int ret;
	unsigned int nr_found;

	observe_gang_lookup_begin(mapping, start, nr_pages, "find_get_pages");
	rcu_read_lock();
	/* The kernel reuses @pages for the slots; the model keeps them apart. */
restart:
	nr_found = radix_tree_gang_lookup_slot(&mapping->page_tree,
					       (void ***)slots, start, nr_pages);
	ret = 0;
	for (i = 0; i < nr_found; i++) {
		struct page *page;
repeat:
		page = radix_tree_deref_slot(slots[i]);
		if (!page)
			continue;
		/*
		 * this can only trigger if nr_found == 1, making livelock
		 * a non issue.
		 */
		if (page == RADIX_TREE_RETRY)
			goto restart;
get:
		if (!page_cache_get_speculative_2627(page)) {
			cpu_relax_on(page);
			if (knob(KNOB_DEREF_SLOT_PLAIN))
				goto get;	/* the hoisted load */
			goto repeat;
		}

		/* Has the page moved? */
		if (page != READ_ONCE(*slots[i])) {	/* racy by design */
			page_cache_release(page);
			cpu_relax_on(page);
			goto repeat;
		}
		observe_lookup_found(page);

		pages[ret] = page;
		ret++;
	}
	rcu_read_unlock();
	observe_lookup_end();
	return ret;
}

/**
 * add_to_page_cache_2627 - 2.6.27 add_to_page_cache
 *
 * 2.6.27 include/linux/pagemap.h add_to_page_cache: set_page_locked, then
 * mm/filemap.c add_to_page_cache_locked: reference, ->mapping and ->index
 * set before radix_tree_insert publishes the page (rcu_assign_pointer);
 * on failure ->mapping is cleared and the reference dropped with
 * page_cache_release (a put that may free, though the caller's own
 * reference keeps it), then clear_page_locked.
 */
int add_to_page_cache_2627(struct page *page, struct address_space *mapping,
			   unsigned long offset, unsigned int gfp_mask)
{
	int error;

	SetPageLocked(page);			/* set_page_locked */
	observe_page_locked(page, "add_to_page_cache");

	error = radix_tree_preload(gfp_mask);
	if (error == 0) {
		page_cache_get(page);
		STORE(page->mapping, mapping);
		STORE(page->index, offset);

		tree_write_lock(mapping);
		error = radix_tree_insert(&mapping->page_tree, offset, page);
		if (!error) {
			STORE(mapping->nrpages, LOAD(mapping->nrpages) + 1);
		} else {
			STORE(page->mapping, NULL);
			page_cache_release(page);
		}
		tree_write_unlock(mapping);
		radix_tree_preload_end();
	}
	if (error) {
		observe_page_unlocked(page, "add_to_page_cache");
		ClearPageLocked(page);		/* clear_page_locked */
	}
	return error;
}

/**
 * add_to_swap_cache_2627 - 2.6.27 add_to_swap_cache, with its caller's lock
 *
 * 2.6.27 mm/swap_state.c read_swap_cache_async: set_page_locked, then
 * add_to_swap_cache: reference, PG_swapcache and page_private set before
 * radix_tree_insert publishes the page in swapper_space; on failure
 * page_private is cleared, PG_swapcache cleared and the reference dropped
 * with page_cache_release, and the caller does clear_page_locked.
 * (The model's add_to_swap_cache returns the page locked, as the seeds'.)
 */
int add_to_swap_cache_2627(struct page *page, unsigned long entry)
{
	int error;

	SetPageLocked(page);			/* set_page_locked */
	observe_page_locked(page, "add_to_swap_cache");

	error = radix_tree_preload(0);
	if (!error) {
		page_cache_get(page);
		SetPageSwapCache(page);
		STORE(page->private, entry);	/* set_page_private */

		tree_write_lock(&swapper_space);
		error = radix_tree_insert(&swapper_space.page_tree, entry,
					  page);
		if (!error)
			STORE(swapper_space.nrpages,
			      LOAD(swapper_space.nrpages) + 1);
		tree_write_unlock(&swapper_space);
		radix_tree_preload_end();

		if (error) {
			STORE(page->private, 0);
			ClearPageSwapCache(page);
			page_cache_release(page);
		}
	}
	if (error) {
		observe_page_unlocked(page, "add_to_swap_cache");
		ClearPageLocked(page);		/* clear_page_locked */
	}
	return error;
}
