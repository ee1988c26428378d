/* SPDX-License-Identifier: MIT */
/*
 * ops.c - the operation registry: every model operation a scenario body
 * may call, registered once with its name, argument types, result and doc
 * string (`pagerace ops` prints this table; the parser checks calls
 * against it; the interpreter calls ->fn).
 *
 * What a body owns is tracked on its values (SCN_V_REF a page reference,
 * SCN_V_LOCK the page lock, SCN_V_HELD a lookup's reference the shadow
 * checker knows about), so releasing what was not taken is a "scenario"
 * error naming the line and column, never a corrupted model: explore
 * reports it as bad input (FILE:LINE:COL: error:, exit 2), not as a race.
 */
#include "scenario/scenario.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check/shadow.h"
#include "kernel/kernel.h"
#include "model/mapping.h"
#include "model/page_alloc.h"

void scn_runtime_error(const struct scn_stmt *s, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_fail("scenario", NULL, "%d:%d: %s", s ? s->line : 0,
		s ? s->col : 0, msg);
}

static void set_page(struct scn_value *out, struct page *page, unsigned flags)
{
	out->type = SCN_T_PAGE;
	out->page = page;
	out->flags = page ? flags : 0;
}

static void set_int(struct scn_value *out, long long v)
{
	out->type = SCN_T_INT;
	out->i = v;
	out->flags = 0;
}

/* The page a PAGE argument holds, with what the body must own of it. */
static struct page *need(const struct scn_stmt *s, struct scn_op_arg *a,
			 unsigned want, const char *what)
{
	struct scn_value *v = a->v;

	if (v->type != SCN_T_PAGE)
		scn_runtime_error(s, "%s: %s holds no page", s->op->name, a->vname);
	if (v->page && (v->flags & want) != want)
		scn_runtime_error(s, "%s: %s (page#%lu) %s", s->op->name, a->vname,
				  page_to_pfn(v->page), what);
	return v->page;
}

/* Drop the reference @v owns (unholding it first if a lookup took it). */
static void drop_ref(struct scn_value *v, struct page *page)
{
	if (v->flags & SCN_V_HELD)
		shadow_unhold(page);
	v->flags &= ~(unsigned)(SCN_V_REF | SCN_V_HELD);
}

static void op_find_get_page(const struct scn_stmt *s, struct scn_op_arg *a,
			     struct scn_value *out)
{
	(void)s;
	shadow_track_holds(1);
	struct page *page = find_get_page(a[0].mapping, a[1].n);
	shadow_track_holds(0);
	set_page(out, page, SCN_V_REF | SCN_V_HELD);
}

static void op_lookup_swap_cache(const struct scn_stmt *s, struct scn_op_arg *a,
				 struct scn_value *out)
{
	(void)s;
	shadow_track_holds(1);
	struct page *page = find_get_page(&swapper_space, a[0].n);
	shadow_track_holds(0);
	set_page(out, page, SCN_V_REF | SCN_V_HELD);
}

static void op_find_lock_page(const struct scn_stmt *s, struct scn_op_arg *a,
			      struct scn_value *out)
{
	(void)s;
	set_page(out, find_lock_page(a[0].mapping, a[1].n),
		 SCN_V_REF | SCN_V_LOCK);
}

static void op_find_trylock_page(const struct scn_stmt *s, struct scn_op_arg *a,
				 struct scn_value *out)
{
	(void)s;
	set_page(out, find_trylock_page(a[0].mapping, a[1].n), SCN_V_LOCK);
}

static void gang(struct scn_op_arg *a, struct scn_value *out, int nonatomic)
{
	unsigned n;

	shadow_track_holds(1);
	if (nonatomic)
		n = find_get_pages_nonatomic(a[0].mapping, a[1].n,
					     (unsigned)a[2].n, out->gang);
	else
		n = find_get_pages(a[0].mapping, a[1].n, (unsigned)a[2].n,
				   out->gang);
	shadow_track_holds(0);
	out->type = SCN_T_GANG;
	out->n = n;
	out->i = n;
	out->flags = n ? SCN_V_REF | SCN_V_HELD : 0;
}

static void op_find_get_pages(const struct scn_stmt *s, struct scn_op_arg *a,
			      struct scn_value *out)
{
	(void)s;
	gang(a, out, 0);
}

static void op_find_get_pages_nonatomic(const struct scn_stmt *s,
					struct scn_op_arg *a,
					struct scn_value *out)
{
	(void)s;
	gang(a, out, 1);
}

static void op_readahead_probe(const struct scn_stmt *s, struct scn_op_arg *a,
			       struct scn_value *out)
{
	(void)s;
	set_int(out, readahead_probe(a[0].mapping, a[1].n));
}

/*
 * After add_to_page_cache / add_to_swap_cache: a page the cache took
 * (@err 0) is "read in" and unlocked; either way the allocation's own
 * reference is dropped, and the op's value is @err.
 */
static void read_in_and_release(struct page *page, int err,
				struct scn_value *out)
{
	if (err == 0) {
		SetPageUptodate(page);
		unlock_page(page);
	}
	page_cache_release(page);
	set_int(out, err);
}

/* page_cache_alloc + add_to_page_cache + "read it in" + unlock + release. */
static void op_add_to_page_cache(const struct scn_stmt *s, struct scn_op_arg *a,
				 struct scn_value *out)
{
	struct page *page = alloc_page(0);
	int err;

	(void)s;
	if (!page) {
		set_int(out, -ENOMEM);
		return;
	}
	err = add_to_page_cache(page, a[0].mapping, a[1].n, 0);
	read_in_and_release(page, err, out);
}

/* truncate of one index: lock it, recheck it is still ours, remove it. */
static void op_remove(const struct scn_stmt *s, struct scn_op_arg *a,
		      struct scn_value *out)
{
	struct address_space *m = a[0].mapping;
	struct page *page = find_lock_page(m, a[1].n);
	int removed = 0;

	(void)s;
	if (page) {
		if (LOAD(page->mapping) == m) {
			remove_from_page_cache(page);
			page_cache_release(page);	/* pagecache ref */
			removed = 1;
		}
		unlock_page(page);
		page_cache_release(page);
	}
	set_int(out, removed);
}

static void op_truncate(const struct scn_stmt *s, struct scn_op_arg *a,
			struct scn_value *out)
{
	(void)s;
	(void)out;
	truncate_inode_pages(a[0].mapping, a[1].n);
}

static void op_shrink(const struct scn_stmt *s, struct scn_op_arg *a,
		      struct scn_value *out)
{
	struct page *page = need(s, &a[0], SCN_V_REF,
				 "holds no reference to isolate it with");
	int freed;

	if (!page) {
		set_int(out, 0);
		return;
	}
	if (a[0].v->flags & SCN_V_LOCK)
		scn_runtime_error(s, "shrink: %s is locked by this body", a[0].vname);
	drop_ref(a[0].v, page);
	freed = shrink_page(page);
	if (!freed)
		page_cache_release(page);	/* kept: putback_lru_page */
	set_int(out, freed);
}

static void op_set_page_dirty(const struct scn_stmt *s, struct scn_op_arg *a,
			      struct scn_value *out)
{
	struct page *page = need(s, &a[0], SCN_V_REF, "holds no reference");

	set_int(out, page ? set_page_dirty(page) : 0);
}

static void op_test_clear_page_dirty(const struct scn_stmt *s,
				     struct scn_op_arg *a, struct scn_value *out)
{
	struct page *page = need(s, &a[0], SCN_V_REF, "holds no reference");

	set_int(out, page ? test_clear_page_dirty(page) : 0);
}

static void op_test_set_page_writeback(const struct scn_stmt *s,
				       struct scn_op_arg *a,
				       struct scn_value *out)
{
	struct page *page = need(s, &a[0], SCN_V_REF | SCN_V_LOCK,
				 "must be referenced and locked by this body");

	set_int(out, page ? test_set_page_writeback(page) : 0);
}

static void op_test_clear_page_writeback(const struct scn_stmt *s,
					 struct scn_op_arg *a,
					 struct scn_value *out)
{
	struct page *page = need(s, &a[0], SCN_V_REF, "holds no reference");

	set_int(out, page ? test_clear_page_writeback(page) : 0);
}

static void op_mapping_tagged(const struct scn_stmt *s, struct scn_op_arg *a,
			      struct scn_value *out)
{
	(void)s;
	set_int(out, mapping_tagged(a[0].mapping, (int)a[1].n));
}

static void op_find_get_pages_tag(const struct scn_stmt *s,
				  struct scn_op_arg *a, struct scn_value *out)
{
	unsigned long index = a[1].n;
	unsigned n;

	(void)s;
	shadow_track_holds(1);
	n = find_get_pages_tag(a[0].mapping, &index, (int)a[2].n,
			       (unsigned)a[3].n, out->gang);
	shadow_track_holds(0);
	out->type = SCN_T_GANG;
	out->n = n;
	out->i = n;
	out->flags = n ? SCN_V_REF | SCN_V_HELD : 0;
}

static void op_invalidate_mapping_pages(const struct scn_stmt *s,
					struct scn_op_arg *a,
					struct scn_value *out)
{
	(void)s;
	set_int(out, (long long)invalidate_mapping_pages(a[0].mapping, a[1].n,
							 a[2].n));
}

static void op_shrink_cache(const struct scn_stmt *s, struct scn_op_arg *a,
			    struct scn_value *out)
{
	(void)s;
	(void)a;
	set_int(out, shrink_cache_one());
}

static void op_add_to_swap_cache(const struct scn_stmt *s, struct scn_op_arg *a,
				 struct scn_value *out)
{
	struct page *page = alloc_page(0);
	int err;

	(void)s;
	if (!page) {
		set_int(out, -ENOMEM);
		return;
	}
	err = add_to_swap_cache(page, a[0].n);
	read_in_and_release(page, err, out);
}

static void op_remove_exclusive_swap_page(const struct scn_stmt *s,
					  struct scn_op_arg *a,
					  struct scn_value *out)
{
	struct page *page = need(s, &a[0], SCN_V_REF | SCN_V_LOCK,
				 "must be referenced and locked by this body");

	set_int(out, page ? remove_exclusive_swap_page(page) : 0);
}

static void op_alloc_page(const struct scn_stmt *s, struct scn_op_arg *a,
			  struct scn_value *out)
{
	(void)s;
	(void)a;
	set_page(out, alloc_page(0), SCN_V_REF);
}

static void op_free_page(const struct scn_stmt *s, struct scn_op_arg *a,
			 struct scn_value *out)
{
	struct page *page = need(s, &a[0], SCN_V_REF, "holds no reference");

	(void)out;
	if (!page)
		return;
	if (a[0].v->flags & SCN_V_LOCK)
		scn_runtime_error(s, "free_page: %s is still locked", a[0].vname);
	drop_ref(a[0].v, page);
	__free_page(page);
}

static void op_drain_local_pages(const struct scn_stmt *s, struct scn_op_arg *a,
				 struct scn_value *out)
{
	(void)s;
	(void)a;
	(void)out;
	drain_local_pages();
}

static void op_put(const struct scn_stmt *s, struct scn_op_arg *a,
		   struct scn_value *out)
{
	struct scn_value *v = a[0].v;

	(void)out;
	if (v->type == SCN_T_GANG) {
		if (!v->n)
			return;
		if (!(v->flags & SCN_V_REF))
			scn_runtime_error(s, "put: %s's pages were already released",
					  a[0].vname);
		if (v->flags & SCN_V_HELD)
			for (unsigned i = 0; i < v->n; i++)
				shadow_unhold(v->gang[i]);
		v->flags = 0;
		release_pages(v->gang, (int)v->n);
		return;
	}
	struct page *page = need(s, &a[0], SCN_V_REF, "holds no reference (already put?)");

	if (!page)
		return;
	drop_ref(v, page);
	page_cache_release(page);
}

static void op_unlock(const struct scn_stmt *s, struct scn_op_arg *a,
		      struct scn_value *out)
{
	struct page *page = need(s, &a[0], SCN_V_LOCK, "is not locked by this body");

	(void)out;
	if (!page)
		return;
	a[0].v->flags &= ~(unsigned)SCN_V_LOCK;
	unlock_page(page);
}

static void op_lock_page(const struct scn_stmt *s, struct scn_op_arg *a,
			 struct scn_value *out)
{
	struct page *page = need(s, &a[0], SCN_V_REF,
				 "holds no reference (lock_page needs one)");

	(void)out;
	if (!page)
		return;
	if (a[0].v->flags & SCN_V_LOCK)
		scn_runtime_error(s, "lock_page: %s is already locked by this body",
				  a[0].vname);
	lock_page(page);
	a[0].v->flags |= SCN_V_LOCK;
}

static void op_set_dirty(const struct scn_stmt *s, struct scn_op_arg *a,
			 struct scn_value *out)
{
	struct page *page = need(s, &a[0], SCN_V_REF, "holds no reference");

	(void)out;
	if (page)
		SetPageDirty(page);
}

static void op_clear_dirty(const struct scn_stmt *s, struct scn_op_arg *a,
			   struct scn_value *out)
{
	struct page *page = need(s, &a[0], SCN_V_REF, "holds no reference");

	(void)out;
	if (page)
		ClearPageDirty(page);
}

#define M SCN_T_MAPPING
#define I SCN_T_INDEX
#define C SCN_T_COUNT
#define P SCN_T_PAGE
#define R SCN_T_REF
#define T SCN_T_TAG

static const struct scn_op ops[] = {
	{ "find_get_page", 2, { M, I }, "MAPPING INDEX", SCN_T_PAGE, 1, 0,
	  "lookup with a reference (seed 007); null if absent.  Release: put",
	  op_find_get_page },
	{ "find_lock_page", 2, { M, I }, "MAPPING INDEX", SCN_T_PAGE, 1, 1,
	  "lookup, lock_page, recheck (seed 007).  Release: unlock, put",
	  op_find_lock_page },
	{ "find_trylock_page", 2, { M, I }, "MAPPING INDEX", SCN_T_PAGE, 1, 1,
	  "lookup and trylock; locked, no reference (seed 007).  Release: unlock",
	  op_find_trylock_page },
	{ "find_get_pages", 3, { M, I, C }, "MAPPING START COUNT", SCN_T_GANG, 1, 1,
	  "gang lookup (tree_lock under locked, else as _nonatomic).  Release: put",
	  op_find_get_pages },
	{ "find_get_pages_nonatomic", 3, { M, I, C }, "MAPPING START COUNT",
	  SCN_T_GANG, 1, 1,
	  "lockless gang lookup, speculative get per slot (seed 007).  Release: put",
	  op_find_get_pages_nonatomic },
	{ "lookup_swap_cache", 1, { I }, "ENTRY", SCN_T_PAGE, 1, 0,
	  "find_get_page in swapper_space.  Release: put",
	  op_lookup_swap_cache },
	{ "readahead_probe", 2, { M, I }, "MAPPING INDEX", SCN_T_INT, 0, 1,
	  "readahead's racy 'is it cached?' probe, no reference: 1 or 0",
	  op_readahead_probe },
	{ "add_to_page_cache", 2, { M, I }, "MAPPING INDEX", SCN_T_INT, 0, 1,
	  "allocate a page, insert it locked, mark uptodate, unlock, drop the "
	  "allocation's reference: 0, -17 (EEXIST) or -12 (ENOMEM)",
	  op_add_to_page_cache },
	{ "remove", 2, { M, I }, "MAPPING INDEX", SCN_T_INT, 0, 1,
	  "truncate one index: find_lock_page, remove_from_page_cache, release: "
	  "1 if removed",
	  op_remove },
	{ "truncate", 2, { M, I }, "MAPPING START", SCN_T_NONE, 0, 1,
	  "truncate_inode_pages from START (mm/truncate.c)",
	  op_truncate },
	{ "shrink", 1, { P }, "PAGE", SCN_T_INT, 0, 0,
	  "shrink_list's reclaim of a page isolated with the reference PAGE holds "
	  "(consumed): 1 if freed",
	  op_shrink },
	{ "find_get_pages_tag", 4, { M, I, T, C }, "MAPPING START TAG COUNT",
	  SCN_T_GANG, 1, 1,
	  "gang lookup of pages tagged dirty or writeback, under tree_lock "
	  "(seed 008).  Release: put",
	  op_find_get_pages_tag },
	{ "mapping_tagged", 2, { M, T }, "MAPPING TAG", SCN_T_INT, 0, 0,
	  "radix_tree_tagged under tree_lock (seed 008): 1 if any page of "
	  "MAPPING carries TAG (dirty or writeback)",
	  op_mapping_tagged },
	{ "set_page_dirty", 1, { P }, "PAGE", SCN_T_INT, 0, 0,
	  "__set_page_dirty_nobuffers: PG_dirty, and the dirty tag under "
	  "tree_lock if still cached: 1 if it was clean",
	  op_set_page_dirty },
	{ "test_clear_page_dirty", 1, { P }, "PAGE", SCN_T_INT, 0, 0,
	  "clear PG_dirty and the dirty tag under tree_lock: 1 if it was dirty",
	  op_test_clear_page_dirty },
	{ "test_set_page_writeback", 1, { P }, "PAGE", SCN_T_INT, 0, 0,
	  "start writeback of a page this body locked: PG_writeback and its "
	  "tag, the dirty tag cleared if clean; the old PG_writeback.  End it "
	  "with test_clear_page_writeback before the page can be freed",
	  op_test_set_page_writeback },
	{ "test_clear_page_writeback", 1, { P }, "PAGE", SCN_T_INT, 0, 0,
	  "end writeback: clear PG_writeback and its tag under tree_lock; the "
	  "old PG_writeback",
	  op_test_clear_page_writeback },
	{ "invalidate_mapping_pages", 3, { M, I, I }, "MAPPING START END",
	  SCN_T_INT, 0, 1,
	  "drop the clean, unlocked, unmapped pages of [START, END] "
	  "(invalidate_complete_page; lockless pagevec lookup, seed 007): the "
	  "number dropped",
	  op_invalidate_mapping_pages },
	{ "shrink_cache", 0, { 0 }, "", SCN_T_INT, 0, 0,
	  "shrink_cache scanning one page: isolate the inactive list's tail "
	  "(get_page_testone under lru_lock), shrink_list it, put it back if "
	  "kept: 1 freed, 0 kept, -1 nothing isolated.  Pages get on the list "
	  "by the init flag lru",
	  op_shrink_cache },
	{ "add_to_swap_cache", 1, { I }, "ENTRY", SCN_T_INT, 0, 0,
	  "allocate a page and add it to the swap cache at ENTRY: 0 or -errno",
	  op_add_to_swap_cache },
	{ "remove_exclusive_swap_page", 1, { P }, "PAGE", SCN_T_INT, 0, 0,
	  "drop a swap cache page nobody else uses; PAGE referenced and locked: "
	  "1 if removed",
	  op_remove_exclusive_swap_page },
	{ "alloc_page", 0, { 0 }, "", SCN_T_PAGE, 1, 0,
	  "alloc_page(0): a page with one reference, or null.  Release: free_page "
	  "or put",
	  op_alloc_page },
	{ "free_page", 1, { P }, "PAGE", SCN_T_NONE, 0, 0,
	  "__free_page: drop PAGE's reference and free the page",
	  op_free_page },
	{ "drain_local_pages", 0, { 0 }, "", SCN_T_NONE, 0, 0,
	  "return this CPU's per-CPU pages to the buddy lists",
	  op_drain_local_pages },
	{ "put", 1, { R }, "PAGE|GANG", SCN_T_NONE, 0, 0,
	  "page_cache_release the reference (release_pages for a gang); null: "
	  "nothing",
	  op_put },
	{ "unlock", 1, { P }, "PAGE", SCN_T_NONE, 0, 0,
	  "unlock_page a page this body locked; null: nothing",
	  op_unlock },
	{ "lock_page", 1, { P }, "PAGE", SCN_T_NONE, 0, 0,
	  "the sleeping page lock on a page this body references",
	  op_lock_page },
	{ "set_dirty", 1, { P }, "PAGE", SCN_T_NONE, 0, 0,
	  "SetPageDirty on a referenced page (reclaim then keeps it)",
	  op_set_dirty },
	{ "clear_dirty", 1, { P }, "PAGE", SCN_T_NONE, 0, 0,
	  "ClearPageDirty on a referenced page",
	  op_clear_dirty },
};

#undef M
#undef I
#undef C
#undef P
#undef R
#undef T

const struct scn_op *scn_op_find(const char *name)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i].name, name))
			return &ops[i];
	return NULL;
}

const struct scn_op *scn_op_at(size_t i)
{
	return i < sizeof(ops) / sizeof(ops[0]) ? &ops[i] : NULL;
}

const char *scn_type_name(enum scn_type t)
{
	switch (t) {
	case SCN_T_MAPPING: return "mapping";
	case SCN_T_INDEX: return "index";
	case SCN_T_COUNT: return "count";
	case SCN_T_PAGE: return "page";
	case SCN_T_REF: return "page or gang";
	case SCN_T_INT: return "number";
	case SCN_T_GANG: return "gang";
	case SCN_T_TAG: return "tag";
	default: return "nothing";
	}
}
