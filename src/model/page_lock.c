/* SPDX-License-Identifier: MIT */
/*
 * page_lock.c - PG_locked as a sleeping lock (2.6.13 mm/filemap.c
 * __lock_page / unlock_page, include/linux/pagemap.h lock_page).
 *
 * A waiter sleeps on the page itself (the model's page_waitqueue).  The
 * bit is re-read right before sleeping, with no yield point in between, so
 * an unlock cannot slip into the gap and be lost: that is what
 * prepare_to_wait before the test achieves in __wait_on_bit_lock.
 */
#include "model/observe.h"
#include "kernel/kernel.h"
#include "kernel/irq.h"
#include "model/mapping.h"

/**
 * lock_page - lock @page, sleeping until it is available
 */
void lock_page(struct page *page)
{
	might_sleep();
	while (TestSetPageLocked(page)) {
		/*
		 * Under weak a test that read an older value tries again
		 * instead of sleeping (memory/memory.h, pr_mem_relax): the
		 * kernel's prepare_to_wait queues the waiter, with a full
		 * barrier, before the test, so an unlock either wakes it or
		 * is seen by it.
		 */
		if (PageLocked(page) && !(pr_mem_on && pr_mem_relax()))
			PR_BLOCK(page, "PG_locked");
	}
	observe_page_locked(page, "lock_page");
}

/**
 * unlock_page - unlock a locked page and wake its sleepers
 *
 * 2.6.13: the barriers order the critical section before the clear; a
 * page that was not locked is a BUG().
 */
void unlock_page(struct page *page)
{
	observe_page_unlocked(page, "unlock_page");
	smp_mb();
	if (!TestClearPageLocked(page))
		pr_fail("bug", page, "unlock_page of an unlocked page");
	smp_mb();
	pr_wake(page);
}
