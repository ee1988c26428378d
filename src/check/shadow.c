/* SPDX-License-Identifier: MIT */
/*
 * shadow.c - shadow state and detectors for lookups, held references and
 * page-lock ownership.
 */
#include "runtime/tsan.h"
#include "check/shadow.h"
#include "model/mapping.h"
#include "runtime/context.h"
#include "memory/memory.h"
#include "runtime/effects.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NEST	4

struct lookup_key {
	struct address_space *mapping;
	unsigned long index;	/* MODEL_ANY_INDEX for a gang lookup */
	unsigned long start;	/* a gang lookup's first index ... */
	unsigned int nr;	/* ... and how many pages it asks for */
	const char *fn;
};

/*
 * Per CPU, touched only by that CPU's own context (in stress mode, its own
 * thread): no lock.  A cache line each, so stress threads do not share one.
 */
static struct {
	struct lookup_key key[MAX_NEST];
	int depth;
	int track_holds;
} __attribute__((aligned(64))) cpu_lookup[PR_MAX_CTX];

/*
 * Per page.  holders and holder_ctx are taken and dropped on every lookup
 * by every CPU, so they are relaxed atomics rather than state under the
 * harness lock (which would serialise stress threads' lookups); the lock
 * protects the rest.
 */
struct page_shadow {
	int holders;
	int holder_ctx;		/* the last context to take a held ref */
	int lock_owner;		/* context + 2 (-1: setup); 0: unlocked */
	const char *lock_fn;
	const char *hold_fn;	/* who took the last hold: a lookup or @fn */
	uint64_t stale_count;	/* step of reclaim's count check if it read
				 * an older count (shadow_reclaim_counted) */
	uint64_t missed_step;	/* reclaim took the page out after such a
				 * check, at this step; 0: it did not */
	uint64_t missed_check;	/* ... and its check's step */
	const char *missed_fn;	/* the reclaimer */
};

static struct page_shadow *shadow;
static unsigned long nr_shadow;

static const char *reclaim_cause(const char *kind, const void *obj,
				 char *why, size_t len);

PR_NO_TSAN static struct page_shadow *ps(const struct page *page)
{
	unsigned long pfn = page_to_pfn(page);

	if (pfn >= nr_shadow) {
		/* mem_map grew since the last reset: nothing to track yet */
		return NULL;
	}
	return &shadow[pfn];
}

PR_NO_TSAN void shadow_reset(void)
{
	static struct page_shadow *store;
	static unsigned long cap;

	if (max_mapnr > cap) {
		struct page_shadow *n = realloc(store, max_mapnr * sizeof(*n));

		if (!n)
			abort();
		store = n;
		cap = max_mapnr;
	}
	shadow = store;
	nr_shadow = max_mapnr;
	memset(shadow, 0, nr_shadow * sizeof(*shadow));
	pr_set_fail_cause(reclaim_cause);
	/* Slots no context ever used are still zero (pr_ctx_slots). */
	memset(cpu_lookup, 0, (size_t)pr_ctx_slots() * sizeof(cpu_lookup[0]));
}

PR_NO_TSAN static int self_slot(void)
{
	int self = pr_self();

	return self < 0 ? 0 : self;
}

PR_NO_TSAN void shadow_lookup_begin(struct address_space *mapping, unsigned long index,
			 const char *fn)
{
	int c = self_slot();

	if (cpu_lookup[c].depth < MAX_NEST) {
		struct lookup_key *k = &cpu_lookup[c].key[cpu_lookup[c].depth];

		k->mapping = mapping;
		k->index = index;
		k->fn = fn;
	}
	cpu_lookup[c].depth++;
}

PR_NO_TSAN void shadow_gang_lookup_begin(struct address_space *mapping,
					 unsigned long start, unsigned int nr,
					 const char *fn)
{
	struct lookup_key *k;
	int c = self_slot();

	shadow_lookup_begin(mapping, MODEL_ANY_INDEX, fn);
	if (cpu_lookup[c].depth <= MAX_NEST) {
		k = &cpu_lookup[c].key[cpu_lookup[c].depth - 1];
		k->start = start;
		k->nr = nr;
	}
}

PR_NO_TSAN void shadow_lookup_end(void)
{
	int c = self_slot();

	if (cpu_lookup[c].depth > 0)
		cpu_lookup[c].depth--;
}

PR_NO_TSAN static struct lookup_key *current_key(void)
{
	int c = self_slot();
	int d = cpu_lookup[c].depth;

	if (d <= 0 || d > MAX_NEST)
		return NULL;
	return &cpu_lookup[c].key[d - 1];
}


PR_NO_TSAN static const char *mapping_name(const struct address_space *m, char *buf,
				size_t len)
{
	if (!m)
		snprintf(buf, len, "NULL");
	else if (m == &swapper_space)
		snprintf(buf, len, "swapper_space");
	else
		snprintf(buf, len, "m%d", m->id);
	return buf;
}

/*
 * Under --memory weak a removal's stores may become visible out of
 * order: __remove_from_page_cache NULLs the slot (radix_tree_delete) and
 * then ->mapping, __delete_from_swap_cache the slot and then PG_swapcache
 * and ->private, with no barrier between (2.6.13 and 2.6.27 alike).  A
 * lookup can then pass its recheck on the old slot while ->mapping already
 * reads NULL.  No caller can tell that from a removal that completes just
 * after the lookup -- they lock the page and recheck ->mapping
 * (find_lock_page, find_trylock_page, do_generic_mapping_read) -- so it is
 * not a bad lookup (doc/findings.md, "Weak memory").  It is recognised by
 * the page lock: a removal holds it until its unlock, a release that
 * drains every store the removal made.  A page locked by an insertion
 * (add_to_page_cache, add_to_swap_cache: finding F5, a set-up not visible
 * yet) or by nobody is still a bad lookup.  Never under sc.
 */
PR_NO_TSAN static int removal_in_flight(const struct page *page)
{
	const struct page_shadow *s = ps(page);

	if (pr_mem_on && s)	/* written by the page lock's hooks, below */
		pr_effect(&s->lock_owner, sizeof(s->lock_owner), PR_EFF_READ);
	if (!pr_mem_on || !s || s->lock_owner < 2 ||
	    s->lock_owner - 2 == pr_self() || !s->lock_fn)
		return 0;
	return strncmp(s->lock_fn, "add_to_", 7) != 0;
}

/*
 * Under weak a lookup's last load -- its recheck of the slot -- may have
 * read an older value (memory/stale.c): the recheck passed as of an
 * earlier time, on a slot a removal has since cleared, and the removal
 * may be complete now, its lock released, while the lookup's other loads
 * (PG_freeing, say) already saw it.  No barrier orders those loads, so
 * LKMM allows it, and the lookup is then no worse than one that ran just
 * before the removal: its callers lock the page and recheck.  An
 * insertion's set-up not visible yet (F5) is seen through the newest
 * slot, and stays a bad lookup.  Never under sc or tso.
 */
PR_NO_TSAN static int seen_as_cached(void)
{
	return pr_mem_on && pr_mem_last_load_old();
}

/* "find_get_page(m0, 4)", "find_get_pages(m0, 0, 16)": the lookup's call. */
PR_NO_TSAN static const char *lookup_call(const struct lookup_key *k, char *buf,
					  size_t len)
{
	char m[24];

	mapping_name(k->mapping, m, sizeof(m));
	if (k->index == MODEL_ANY_INDEX)
		snprintf(buf, len, "%s(%s, %lu, %u)", k->fn, m, k->start, k->nr);
	else
		snprintf(buf, len, "%s(%s, %lu)", k->fn, m, k->index);
	return buf;
}

PR_NO_TSAN void shadow_lookup_found(struct page *page)
{
	struct lookup_key *k = current_key();
	unsigned long flags;
	char call[96], got[24];

	if (!k)
		return;
	/*
	 * A walk that stops a level short (finding F8) hands back a slot
	 * that holds a radix-tree node: say what the object is, not what a
	 * page's fields would read there.  The address alone decides, so
	 * this holds in stress mode too.
	 */
	if (!page_model_owns(page)) {
		char obj[32];

		pr_fail("bad-lookup", page, "%s returned %s, which is not a page",
			lookup_call(k, call, sizeof(call)),
			pr_obj_name(page, obj, sizeof(obj)));
	}
	/*
	 * The verdict reads PG_free (and for the swap cache PG_swapcache),
	 * ->mapping, ->index, ->private, none of which the lookup's last
	 * access (its recheck of the slot) touches: for dpor this step reads
	 * them, so that a removal's or a free's stores to them and this check
	 * do not commute.  Otherwise only the order the scheduler met first
	 * would be checked -- a variant without the recheck (a bad lookup is
	 * then its only symptom) could pass dpor for want of the other order.
	 * The flags are read bit by bit (pr_effect_bit): the check commutes
	 * with the page lock's and the LRU's bit operations.
	 */
	pr_effect_bit(&page->flags, PG_free);
	if (k->mapping == &swapper_space)
		pr_effect_bit(&page->flags, PG_swapcache);
	pr_effect(&page->mapping, offsetof(struct page, lru) -
		  offsetof(struct page, mapping), PR_EFF_READ);
	flags = page_peek_flags(page);
	if (pr_stress_mode()) {
		/*
		 * Free-running, the page may be truncated between the lookup's
		 * recheck and this check, legitimately: the check needs the
		 * scheduler's step atomicity.  Holds are still tracked.
		 */
		if (cpu_lookup[self_slot()].track_holds)
			shadow_hold(page);
		return;
	}
	/* Names are formatted only on the failure paths: this runs per lookup. */
	if (flags & (1UL << PG_free))
		pr_fail("bad-lookup", page, "%s returned a free page",
			lookup_call(k, call, sizeof(call)));
	if (k->mapping == &swapper_space) {
		if ((!(flags & (1UL << PG_swapcache)) || page->private != k->index) &&
		    !removal_in_flight(page) &&
		    !seen_as_cached())
			pr_fail("bad-lookup", page,
				"%s(swapper_space, %lu) returned a page %s swap entry %lu",
				k->fn, k->index,
				(flags & (1UL << PG_swapcache)) ? "for" : "not in the swap cache,",
				page->private);
		if (cpu_lookup[self_slot()].track_holds)
			shadow_hold(page);
		return;
	}
	if ((page->mapping != k->mapping ||
	     (k->index != MODEL_ANY_INDEX && page->index != k->index)) &&
	    !(page->mapping == NULL && removal_in_flight(page)) &&
	    !seen_as_cached())
		pr_fail("bad-lookup", page,
			"%s returned a page whose mapping is %s and index %lu",
			lookup_call(k, call, sizeof(call)),
			mapping_name(page->mapping, got, sizeof(got)),
			page->index);
	if (cpu_lookup[self_slot()].track_holds)
		shadow_hold(page);
}

PR_NO_TSAN void shadow_track_holds(int on)
{
	cpu_lookup[self_slot()].track_holds = on;
}

PR_NO_TSAN void shadow_hold_by(struct page *page, const char *fn)
{
	struct page_shadow *s = ps(page);

	if (s) {
		/*
		 * Detectors read holders (reclaim-held-page, free-held-page):
		 * for dpor the hold is a write of it, so that a hold and a
		 * check race (effects.h).  Without it dpor took a lookup's
		 * hold and a reclaim's check for independent and kept only the
		 * order that passes (scenarios/no-freeing-flag.scn, once the
		 * RCU daemon's steps no longer happened to order them).
		 */
		pr_effect(&s->holders, sizeof(s->holders), PR_EFF_WRITE);
		__atomic_fetch_add(&s->holders, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&s->holder_ctx, pr_self(), __ATOMIC_RELAXED);
		__atomic_store_n(&s->hold_fn, fn, __ATOMIC_RELAXED);
	}
}

PR_NO_TSAN void shadow_hold(struct page *page)
{
	shadow_hold_by(page, NULL);
}

/*
 * A free of a page someone holds a counted reference on: the holder will
 * go on using (and putting) a free page.  Legitimate transient references
 * (a speculative getter's before its recheck) are never holds.
 */
PR_NO_TSAN void shadow_check_free(struct page *page, const char *fn)
{
	struct page_shadow *s = ps(page);
	const char *by;

	if (s)	/* the verdict depends on the holds so far (shadow_hold_by) */
		pr_effect(&s->holders, sizeof(s->holders), PR_EFF_READ);
	if (!s || __atomic_load_n(&s->holders, __ATOMIC_RELAXED) <= 0)
		return;
	by = __atomic_load_n(&s->hold_fn, __ATOMIC_RELAXED);
	pr_fail("free-held-page", page,
		"%s frees page#%lu while %s holds a reference to it (taken by %s)",
		fn, page_to_pfn(page),
		pr_ctx_name(__atomic_load_n(&s->holder_ctx, __ATOMIC_RELAXED)),
		by ? by : "a lookup");
}

PR_NO_TSAN void shadow_unhold(struct page *page)
{
	struct page_shadow *s = ps(page);
	int n;

	if (!s)
		return;
	pr_effect(&s->holders, sizeof(s->holders), PR_EFF_WRITE);
	n = __atomic_load_n(&s->holders, __ATOMIC_RELAXED);
	while (n > 0 && !__atomic_compare_exchange_n(&s->holders, &n, n - 1, 0,
						      __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED))
		;
}

PR_NO_TSAN int shadow_holders(const struct page *page)
{
	struct page_shadow *s = ps(page);

	if (s)
		pr_effect(&s->holders, sizeof(s->holders), PR_EFF_READ);
	return s ? __atomic_load_n(&s->holders, __ATOMIC_RELAXED) : 0;
}

PR_NO_TSAN static void shadow_reclaim_locked(struct page *page, const char *fn,
					     int own)
{
	struct page_shadow *s = ps(page);

	if (s)	/* the verdict depends on the holds so far (shadow_hold_by) */
		pr_effect(&s->holders, sizeof(s->holders), PR_EFF_READ);
	if (s && __atomic_load_n(&s->holders, __ATOMIC_RELAXED) > own)
		pr_fail("reclaim-held-page", page,
			"%s took the page out of the cache while %s holds a reference from a lookup",
			fn, pr_ctx_name(__atomic_load_n(&s->holder_ctx,
							__ATOMIC_RELAXED)));
	if (s && s->stale_count) {
		s->missed_step = pr_step();
		s->missed_check = s->stale_count;
		s->missed_fn = fn;
		s->stale_count = 0;
	}
}

PR_NO_TSAN void shadow_reclaim_counted(struct page *page)
{
	struct page_shadow *s = ps(page);

	if (s)
		s->stale_count = pr_mem_on && pr_mem_last_load_old() ? pr_step() : 0;
}

/*
 * pr_fail's cause hook (runtime/context.h): a failure on a page reclaim
 * took out on a count that missed a reference is that missed reference's
 * doing.  Only a memory model lets the check miss one.
 */
PR_NO_TSAN static const char *reclaim_cause(const char *kind, const void *obj,
					    char *why, size_t len)
{
	const struct page_shadow *s;

	if (!strcmp(kind, "reclaim-held-page") || !page_model_owns(obj))
		return NULL;
	s = ps(obj);
	if (!s || !s->missed_step)
		return NULL;
	snprintf(why, len, "%s took page#%lu out of the cache at step %llu on a "
		 "page_count (step %llu) older than memory's: a reference it did not see",
		 s->missed_fn, page_to_pfn(obj),
		 (unsigned long long)s->missed_step,
		 (unsigned long long)s->missed_check);
	return "reclaim-held-page";
}

PR_NO_TSAN static void shadow_page_locked_locked(struct page *page, const char *fn)
{
	struct page_shadow *s = ps(page);

	if (!s)
		return;
	/* double-lock and removal_in_flight read it: for dpor a write */
	pr_effect(&s->lock_owner, sizeof(s->lock_owner), PR_EFF_WRITE);
	if (s->lock_owner)
		pr_fail("double-lock", page,
			"%s acquired the page lock, but %s already holds it (taken in %s)",
			fn, s->lock_owner == 1 ? "setup" : pr_ctx_name(s->lock_owner - 2),
			s->lock_fn);
	s->lock_owner = pr_self() + 2;
	s->lock_fn = fn;
}

PR_NO_TSAN static void shadow_page_unlocked_locked(struct page *page, const char *fn)
{
	struct page_shadow *s = ps(page);

	if (!s)
		return;
	pr_effect(&s->lock_owner, sizeof(s->lock_owner), PR_EFF_WRITE);
	if (!s->lock_owner)
		pr_fail("bad-unlock", page, "%s unlocked a page nobody had locked", fn);
	s->lock_owner = 0;
}

/*
 * The page-lock and reclaim hooks: their shadow is shared by every CPU,
 * so in stress mode each runs under the harness lock (a no-op in
 * deterministic runs).
 */
PR_NO_TSAN void shadow_reclaim(struct page *page, const char *fn)
{
	pr_harness_lock();
	shadow_reclaim_locked(page, fn, 0);
	pr_harness_unlock();
}

PR_NO_TSAN void shadow_reclaim_own(struct page *page, const char *fn, int own)
{
	pr_harness_lock();
	shadow_reclaim_locked(page, fn, own);
	pr_harness_unlock();
}

PR_NO_TSAN void shadow_page_locked(struct page *page, const char *fn)
{
	pr_harness_lock();
	shadow_page_locked_locked(page, fn);
	pr_harness_unlock();
}

PR_NO_TSAN void shadow_page_unlocked(struct page *page, const char *fn)
{
	pr_harness_lock();
	shadow_page_unlocked_locked(page, fn);
	pr_harness_unlock();
}

PR_NO_TSAN static void observe_reclaim_fn(struct page *page, const char *fn,
					  int own)
{
	shadow_reclaim_own(page, fn, own);
}

static const struct model_observer shadow_observer = {
	.reset = shadow_reset,
	.lookup_begin = shadow_lookup_begin,
	.gang_lookup_begin = shadow_gang_lookup_begin,
	.lookup_end = shadow_lookup_end,
	.lookup_found = shadow_lookup_found,
	.hold_by = shadow_hold_by,
	.unhold = shadow_unhold,
	.holders = shadow_holders,
	.check_free = shadow_check_free,
	.reclaim = observe_reclaim_fn,
	.reclaim_counted = shadow_reclaim_counted,
	.page_locked = shadow_page_locked,
	.page_unlocked = shadow_page_unlocked,
};

PR_NO_TSAN void shadow_attach(void)
{
	model_set_observer(&shadow_observer);
}
