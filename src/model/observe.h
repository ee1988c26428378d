/* SPDX-License-Identifier: MIT */
/*
 * observe.h - what the model tells a checker as it runs: lookups and what
 * they return, references held, frees, reclaim and page-lock ownership.
 *
 * The model owns this interface and calls it at the points named below;
 * a checker (check/shadow.c) installs its functions with
 * model_set_observer() before runs, and reads the model's own state
 * (page.h, mapping.h) when told.  So the arrow goes one way: the checker
 * knows the model, the model knows only this table.  With no observer
 * every call is one untaken branch.  None of them yields: a check sees the
 * model at one instant.
 */
#ifndef PAGERACE_MODEL_OBSERVE_H
#define PAGERACE_MODEL_OBSERVE_H

struct page;
struct address_space;

/* A gang lookup's key: any index will do, the mapping must match. */
#define MODEL_ANY_INDEX	(~0UL)

struct model_observer {
	/* model_setup: a run begins (the page count may have changed). */
	void (*reset)(void);
	/* A lookup of (@mapping, @index) by @fn begins; lookups nest. */
	void (*lookup_begin)(struct address_space *mapping,
			     unsigned long index, const char *fn);
	/* A gang lookup of @nr pages from @start. */
	void (*gang_lookup_begin)(struct address_space *mapping,
				  unsigned long start, unsigned int nr,
				  const char *fn);
	void (*lookup_end)(void);
	/* The lookup in progress returns @page (its linearisation point). */
	void (*lookup_found)(struct page *page);
	/* A reference taken by @fn outside a lookup (LRU isolation). */
	void (*hold_by)(struct page *page, const char *fn);
	void (*unhold)(struct page *page);
	int (*holders)(const struct page *page);
	/* @fn is freeing @page. */
	void (*check_free)(struct page *page, const char *fn);
	/* Reclaim (@fn, holding @own of the holds) took @page out. */
	void (*reclaim)(struct page *page, const char *fn, int own);
	/* Reclaim just read @page's count, which it trusts if it passes. */
	void (*reclaim_counted)(struct page *page);
	/* @page's lock was taken, or released, by @fn. */
	void (*page_locked)(struct page *page, const char *fn);
	void (*page_unlocked)(struct page *page, const char *fn);
};

extern const struct model_observer *model_observer;

/* Install @o (NULL: none); between runs only. */
void model_set_observer(const struct model_observer *o);

#define OBSERVE(call, ...) do {						\
		if (model_observer)					\
			model_observer->call(__VA_ARGS__);		\
	} while (0)

static inline void observe_reset(void)
{
	if (model_observer)
		model_observer->reset();
}
#define observe_lookup_begin(m, i, fn)	OBSERVE(lookup_begin, m, i, fn)
#define observe_gang_lookup_begin(m, s, n, fn) \
	OBSERVE(gang_lookup_begin, m, s, n, fn)
static inline void observe_lookup_end(void)
{
	if (model_observer)
		model_observer->lookup_end();
}
#define observe_lookup_found(p)		OBSERVE(lookup_found, p)
#define observe_hold_by(p, fn)		OBSERVE(hold_by, p, fn)
#define observe_unhold(p)		OBSERVE(unhold, p)
static inline int observe_holders(const struct page *page)
{
	return model_observer ? model_observer->holders(page) : 0;
}
#define observe_check_free(p, fn)	OBSERVE(check_free, p, fn)
#define observe_reclaim(p, fn, own)	OBSERVE(reclaim, p, fn, own)
#define observe_reclaim_counted(p)	OBSERVE(reclaim_counted, p)
#define observe_page_locked(p, fn)	OBSERVE(page_locked, p, fn)
#define observe_page_unlocked(p, fn)	OBSERVE(page_unlocked, p, fn)

#endif /* PAGERACE_MODEL_OBSERVE_H */
