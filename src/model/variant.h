/* SPDX-License-Identifier: MIT */
/*
 * variant.h - which page-cache protocol a run models, and which of the
 * known bugs are planted back into it.  Documented in doc/variants.md with
 * the seed hunk each knob reverts.  Set once before a run; never changed
 * while contexts run.
 */
#ifndef PAGERACE_MODEL_VARIANT_H
#define PAGERACE_MODEL_VARIANT_H

/* The fixes for the seeds' own bugs, all at once. */
#define KNOB_SEED_FIXES	(KNOB_RADIX_SINGLE_READ | KNOB_RELEASE_NO_RECHECK | \
			 KNOB_GANG_EMPTY_EXIT)

enum pr_protocol {
	PROTO_LOCKED,	/* 2.6.13 before the patches: tree_lock on lookups */
	PROTO_V2,	/* the seeds: lockless pagecache 2 (default) */
	PROTO_MERGED,	/* 2.6.27: get_page_unless_zero, page_freeze_refs */
};

/* Bug knobs: each reverts one fix of the seeds (v1 bugs and others). */
enum pr_knob {
	KNOB_SPEC_FREE_CHECK	= 1 << 0, /* no PageFree test in get_speculative */
	KNOB_RADIX_RCU_FREE	= 1 << 1, /* radix nodes freed at once, not via RCU */
	KNOB_SPEC_IRQ		= 1 << 2, /* get_speculative: preempt off, irqs on */
	KNOB_ADD_AFTER_INSERT	= 1 << 3, /* page published before it is set up */
	KNOB_NO_FREEING_FLAG	= 1 << 4, /* shrink_list without SetPageFreeing */
	KNOB_NO_RECHECK		= 1 << 5, /* get_speculative without page != *pagep */
	KNOB_LOCK_NO_RECHECK	= 1 << 6, /* find_lock_page without mapping recheck */

	/*
	 * Fixes for what pagerace found in the seeds themselves
	 * (doc/findings.md), as later kernels fixed it; on for PROTO_MERGED.
	 */
	KNOB_RADIX_SINGLE_READ	= 1 << 7, /* lockless radix readers load once */
	KNOB_RELEASE_NO_RECHECK	= 1 << 8, /* __page_cache_release: no count test */
	KNOB_GANG_EMPTY_EXIT	= 1 << 9, /* gang lookup stops on an empty tree */
	/*
	 * F5 (found by pagerace-tsan): radix_tree_insert publishes the item
	 * with rcu_assign_pointer, as 2.6.27 does.  Changes memory ordering
	 * only, never a schedule; on for PROTO_MERGED.
	 */
	KNOB_INSERT_RELEASE	= 1 << 10,

	/*
	 * The 2.6.27 tree (PROTO_MERGED only; no effect on the 2.6.13 tree):
	 * each plants back 2.6.27's text where a later kernel fixed its
	 * lockless path (doc/variants.md, "The 2.6.27 tree").
	 */
	KNOB_SHRINK_STALE_SLOT	= 1 << 11, /* shrink leaves the item in slot 0 */
	KNOB_DEREF_SLOT_PLAIN	= 1 << 12, /* find_get_pages retries a stale page */

	/*
	 * The seeds' barriers (doc/variants.md, "Barriers"): each
	 * drops one barrier the seeds add or rely on.  Memory ordering only:
	 * under --memory sc they remove a fence's yield point and can change
	 * no outcome; under tso and weak the reordering they allow is
	 * explored.
	 */
	KNOB_EXTEND_NO_WMB	= 1 << 13, /* extend: no smp_wmb before ->rnode */
	KNOB_INSERT_NODE_NO_WMB	= 1 << 14, /* insert: no smp_wmb before *slot = tmp */
	KNOB_PREP_NO_MB		= 1 << 15, /* prep_new_page: no smp_mb before the spin */
	KNOB_TESTONE_NO_MB	= 1 << 16, /* get_page_testone: a relaxed RMW */
	/*
	 * A fix, not a bug: smp_mb__after_clear_bit() after SetPageFreeing
	 * in shrink_list and remove_exclusive_swap_page, closing finding
	 * F10 (store buffering against the getter's get_page_testone).  With
	 * it, testone-no-mb's missing barrier is a failure of its own.
	 */
	KNOB_FREEING_MB		= 1 << 17,
	/*
	 * A fix, not a bug: smp_rmb() between page_cache_get_speculative's
	 * PageFreeing test and its page != *pagep recheck, closing finding
	 * F11 (the two loads satisfied out of order).
	 */
	KNOB_SPEC_RMB		= 1 << 18,
};

struct pr_variant {
	enum pr_protocol protocol;
	unsigned int knobs;
	unsigned int radix_map_shift;	/* RADIX_TREE_MAP_SHIFT: 2 or 3 (6 in 2.6.13) */
};

extern struct pr_variant variant;

static inline int knob(enum pr_knob k)
{
	if (variant.protocol == PROTO_MERGED &&
	    (k & (KNOB_SEED_FIXES | KNOB_INSERT_RELEASE)))
		return 1;
	return (variant.knobs & k) != 0;
}

/* Name <-> value, for the command line, scenarios and traces. */
int variant_protocol_parse(const char *name, enum pr_protocol *out);
const char *variant_protocol_name(enum pr_protocol p);
int variant_knob_parse(const char *name, enum pr_knob *out);
const char *variant_knob_name(enum pr_knob k);
unsigned int variant_nr_knobs(void);
enum pr_knob variant_knob_at(unsigned int i);	/* 0 .. nr-1 */

#endif /* PAGERACE_MODEL_VARIANT_H */
