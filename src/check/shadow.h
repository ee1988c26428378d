/* SPDX-License-Identifier: MIT */
/*
 * shadow.h - detectors of the page-cache model that need state of their
 * own: what a lookup was asked for, who holds references taken by lookups,
 * and who owns each page lock.  The model calls them through the observer
 * it owns (model/observe.h), which shadow_attach() installs; the
 * operations above the model (scenario/, programs/) call the hold
 * functions directly.  None of them yields, so a check sees the model at
 * one instant.
 */
#ifndef PAGERACE_CHECK_SHADOW_H
#define PAGERACE_CHECK_SHADOW_H

#include "model/observe.h"

struct page;
struct address_space;

/* Make these the model's observer (model_set_observer); before runs. */
void shadow_attach(void);
void shadow_reset(void);

/*
 * A lookup of (@mapping, @index) is in progress on this CPU, until
 * shadow_lookup_end().  @fn names it for reports.  Lookups nest (a handler
 * may look up while its CPU was looking up).
 */
void shadow_lookup_begin(struct address_space *mapping, unsigned long index,
			 const char *fn);
void shadow_lookup_end(void);
/* A gang lookup of @nr pages from @start: any index, reported as asked. */
void shadow_gang_lookup_begin(struct address_space *mapping,
			      unsigned long start, unsigned int nr,
			      const char *fn);

/*
 * The lookup in progress is about to return @page: called at its
 * linearisation point (the recheck of the slot, or under tree_lock), where
 * @page must be in the cache at the key looked up and not free.
 */
void shadow_lookup_found(struct page *page);

/*
 * References taken by lookups that a caller keeps (a scenario's
 * find_get_page) are "held"; reclaim must never take a held page out of
 * the cache: that is what its page_count check under tree_lock is for.
 */
void shadow_hold(struct page *page);
/* While on, a lookup on this CPU holds what it finds (shadow_hold). */
void shadow_track_holds(int on);
void shadow_unhold(struct page *page);
/* A hold taken by @fn outside a lookup (LRU isolation); unheld alike. */
void shadow_hold_by(struct page *page, const char *fn);
/* Detector at every free: a page must not be freed while held. */
void shadow_check_free(struct page *page, const char *fn);
int shadow_holders(const struct page *page);
/*
 * Reclaim has just taken @page out of its tree (tree_lock still held, its
 * count check passed): no lookup may have pinned it since that check.
 */
void shadow_reclaim(struct page *page, const char *fn);
/* The same, when the reclaimer itself holds @own of the holds (isolation). */
void shadow_reclaim_own(struct page *page, const char *fn, int own);
/*
 * Reclaim has just read @page's count, which it trusts if the check
 * passes.  Under a memory model that load may have read an older count
 * than memory holds: a reference reclaim did not see.  If reclaim then
 * takes the page out (shadow_reclaim_own), a later failure on the page
 * (a double free, a bad page state, an unlock of an unlocked page) is
 * reported as reclaim-held-page, its cause, with the symptom after it.
 */
void shadow_reclaim_counted(struct page *page);

/* Page lock ownership: acquired (lock_page, trylock, __SetPageLocked). */
void shadow_page_locked(struct page *page, const char *fn);
void shadow_page_unlocked(struct page *page, const char *fn);

#endif /* PAGERACE_CHECK_SHADOW_H */
