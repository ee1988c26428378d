/* SPDX-License-Identifier: MIT */
/*
 * dpor_dep.c - dependence as dpor's race analysis (dpor_race.c) asks
 * it: dependence.c's relation, refined where the analysis knows more --
 * a spin resumption depends only on the store that re-enabled it, a
 * sleep resumption with a known waker on that waker, and the pairs one
 * of which enabled the other (a store and its own flush, a wait and the
 * flushes it waited for) are dependent but not reversed.  Also the
 * signature filter's test (rule1) and the tests' cross-checks of the
 * walk's shortcuts.
 */
#include "strategy/dpor_tail.h"
#include "runtime/tsan.h"

#include <stdint.h>

/*
 * For tests (tests/memory_dpor): pr_dpor_own_flush 1 reverses the race
 * of a store with its own flush as any other (the rule before); 2
 * plants an unsound rule: that race is not reversed, and nothing stands
 * in for it (a wait for the buffer's flushes loses its race with the
 * store).
 */
int pr_dpor_own_flush;

/* Rules 1, 3-6 only: a spin resumption as a step that touches nothing. */
PR_NO_TSAN static int dependent_nospin(const struct pr_event *a,
				       const struct pr_event *b)
{
	struct pr_event x, y;

	if (!dpor_is_spin(a) && !dpor_is_spin(b))
		return pr_dependent(a, b);
	x = *a;
	y = *b;
	if (dpor_is_spin(&x))
		x.kind = PR_K_YIELD;
	if (dpor_is_spin(&y))
		y.kind = PR_K_YIELD;
	return pr_dependent(&x, &y);
}

/*
 * Sleeping waits, in the analysis (dependence.c's rule 3 makes a sleep
 * resumption R -- the step of context c that starts at its PR_BLOCK on
 * queue W -- depend on every step that wakes W; sleep sets keep that).
 * c went to sleep at the end of its step S before R (PR_EV_BLOCKS on W),
 * and the runtime made it runnable at w, the first step after S that
 * wakes W (bwake[R]); R depends on w, and that race is not reversed (w
 * enabled R).  A later wake-up w2 of W, before or after R, finds c not
 * asleep and does nothing to it, in either order: so R's kind adds no
 * dependence with w2 (nor, the same argument, with a wake-up after R,
 * when R is e_j).  What R does keeps its own dependences: its accesses
 * and effects (rule 1), and, if c goes to sleep on W again at its end,
 * PR_EV_BLOCKS (rule 3's second half, which orders w2 after S and before
 * c's next sleep).  With the edges S -> w -> R every reordering keeps R
 * enabled where it runs.
 *
 * Only where R commutes with w apart from the wake-up (waker_commutes).
 * If w also wrote what R reads, a wake-up w2 of W moved before w lets R
 * run before w and see the older value: a different class, which only
 * the race of R with w2 leads to (reversing the race with w is not
 * enough: its initials hold w2 only when w2 came before R).  There, and
 * where S is not known to have put c to sleep on W, or a step between S
 * and w overflowed its effects record, bwake[R] is SIZE_MAX and R keeps
 * rule 3 whole.  tests/strategy_dpor.c ("two wakers", and the generated
 * sleeping-wait programs) rejects two weaker forms: never reversing
 * the race with w whatever R reads, and reversing it where R and w are
 * otherwise dependent; both miss a waiter's second sleep.  The gain is
 * modest (truncate-race under merged, bound 2: 912,792 executions,
 * 941,299 with rule 3 whole).
 */
/* Does sleep resumption @i commute with step @k but for its wake-up? */
PR_NO_TSAN static int waker_commutes(const struct dpor_strategy *d, size_t k,
				     size_t i)
{
	const struct pr_event *w = &d->tree.node[k].ev;
	struct pr_event r = d->tree.node[i].ev;

	r.kind = PR_K_YIELD;
	if (dpor_is_spin(w) && (r.flags & PR_EV_WROTE))
		return 0;
	return !dependent_nospin(w, &r);
}

/* bwake[i] (prevsame[i] and the nodes before i set). */
PR_NO_TSAN void dpor_bwake_one(struct dpor_strategy *d, size_t i)
{
	const struct pr_tree *t = &d->tree;
	const struct pr_event *r = &t->node[i].ev;
	size_t s = d->prevsame[i];

	d->bwake[i] = SIZE_MAX;
	if (r->kind != PR_K_BLOCK || s == SIZE_MAX ||
	    !(t->node[s].ev.flags & PR_EV_BLOCKS) ||
	    t->node[s].ev.wq != r->obj)
		return;
	for (size_t k = s + 1; k < i; k++) {
		const struct pr_event *w = &t->node[k].ev;

		/* Its wake-ups unrecorded: it may be the one. */
		if (w->flags & PR_EV_ALL)
			break;
		if (w->proc != r->proc && pr_event_wakes(w, r->obj)) {
			if (!waker_commutes(d, k, i))
				break;
			d->bwake[i] = k;
			break;
		}
	}
}

/*
 * Spin-waits, in the analysis (dependence.c's rule 2 is coarser: a spin
 * resumption depends on every store, and that stays its rule for sleep
 * sets).  The runtime re-enables a spinning context p at the first store
 * (any writing step) after p last came back from a spin (pr_spin,
 * iter_epoch); the resumption step s itself touches nothing shared -- it
 * takes p from its cpu_relax to the yield point where it re-reads what it
 * waits for, which is an ordinary access with its own dependences.  So
 * here s depends only on w, the first writing step after p's previous
 * resumption P (or after the start), and P on w: with the edges P -> w ->
 * s, every reordering of the execution that keeps them keeps every
 * resumption enabled where it runs, and moving s among the other steps
 * between w and p's next step only moves a stutter (the same state
 * follows).  The race (w, s) is not reversed: w enabled s.  Without a
 * writing step between P and s (a first pass counted as stale), s keeps
 * rule 2.  Store buffers (rule 6): a store's race with its own flush is
 * not reversed either -- the store enabled the flush, which can run
 * before it in no execution; reversing it started explorations that
 * ended sleep-set blocked (C-ManfredSpraul-L1G1xchg under tso: 111
 * executions and 1,085 blocked runs).  Nor is a wait's race with the
 * flushes it waited for (3): that one is reversed from the store the
 * flush wrote (wait_store), the real race, which the chain store ->
 * flush -> wait hides from the walk.  Returns 1 if dependent, 2 if
 * dependent but not to be reversed, 3 for the wait.
 */
PR_NO_TSAN int dpor_dependent_at(const struct dpor_strategy *d, size_t j,
				   size_t i)
{
	const struct pr_event *ej = &d->tree.node[j].ev;
	const struct pr_event *ei = &d->tree.node[i].ev;
	struct pr_event x, y;

	if (ej->kind == PR_K_BLOCK && d->bwake[j] != SIZE_MAX) {
		x = *ej;
		x.kind = PR_K_YIELD;
		ej = &x;
	}
	if (ei->kind == PR_K_BLOCK && d->bwake[i] != SIZE_MAX) {
		y = *ei;
		y.kind = PR_K_YIELD;
		ei = &y;
		if (j == d->bwake[i])
			return 2;
	}
	if (dpor_is_spin(ei)) {
		size_t w = dpor_spin_writer(d, i);

		if (w >= i)
			return pr_dependent(ej, ei);
		if (j == w)
			return 2;
	}
	if (dpor_is_spin(ej) && (ei->flags & PR_EV_WROTE) && d->nextw[j + 1] == i)
		return 1;
	if (pr_dpor_own_flush != 1 && pr_flush_of(ej, ei))
		return 2;	/* its store enabled the flush */
	if (ei->kind == PR_K_WAIT && (ej->flags & PR_EV_FLUSH) &&
	    dependent_nospin(ej, ei))
		return 3;	/* the flushes it waited for enabled it */
	/* Bounded: two bumps stay ordered (no observer rule there). */
	if ((d->bounded || pr_dpor_ticks == 1) &&
	    (ej->flags & ei->flags & PR_EV_TICK))
		return 1;
	return dependent_nospin(ej, ei);
}

/*
 * Wait e_i resumed after flush e_j, which its CPU's buffer made it wait
 * for (dpor_dependent_at() returned 3): the store e_s that flush wrote to
 * memory, when e_i depends on it.  Their race is the one to reverse: had
 * e_i's CPU come to the wait before e_s, it would not have waited for
 * that flush; e_s -> e_j -> e_i hides it from the walk, since the race
 * of e_s with its own flush is not reversed (an order that cannot be).
 * SIZE_MAX: none.
 */
PR_NO_TSAN size_t dpor_wait_store(const struct dpor_strategy *d, size_t j,
				    size_t i)
{
	const struct pr_tnode *node = d->tree.node;

	if (pr_dpor_own_flush)
		return SIZE_MAX;	/* 1: not needed; 2: planted */
	for (size_t k = j; k-- > 0;)
		if (pr_flush_of(&node[k].ev, &node[j].ev))
			return d->st[k].proc != d->st[i].proc &&
			       dependent_nospin(&node[k].ev, &node[i].ev) ?
			       k : SIZE_MAX;
	return SIZE_MAX;
}

/*
 * Is step @k's dependence with another such step, in dpor_dependent_at(),
 * rule 1 alone, decided by their signatures: two such steps whose
 * signatures do not meet are independent there?  That is
 * pr_event_sig_only() once dpor_dependent_at() has made a spin resumption or
 * a sleep resumption with a known waker a plain step (PR_K_YIELD, whose
 * signatures are those of its effects: access_of() gives neither kind a
 * range), except for the pairs it treats apart, which the caller keeps:
 * a spin resumption e_i whose waker is unknown (dpor_spin_writer() >= i: it
 * depends on every writing step), e_i's waker (dpor_spin_writer(), bwake[]),
 * and a spin resumption e_j whose writer is e_i.
 */
PR_NO_TSAN int dpor_rule1(const struct dpor_strategy *d, size_t k)
{
	const struct pr_event *e = &d->tree.node[k].ev;

	if ((e->flags & (PR_EV_SIG | PR_EV_ALL | PR_EV_FLUSH |
			 PR_EV_BLOCKS)) != PR_EV_SIG ||
	    e->kind == PR_EV_FIRE)
		return 0;
	return e->kind != PR_K_BLOCK || d->bwake[k] != SIZE_MAX;
}

/*
 * For tests (tests/strategy_race): with pr_dpor_filter_check set, every
 * step the walk rules out is asked of dpor_dependent_at() too, and counted in
 * pr_dpor_filter_wrong if dependent there.  2 plants an unsound filter
 * (the signatures trusted for every step), which the count must catch;
 * the search itself is not changed.
 */
int pr_dpor_filter_check;
unsigned long long pr_dpor_filter_out, pr_dpor_filter_wrong;

PR_NO_TSAN void dpor_filter_check(const struct dpor_strategy *d, size_t i,
				    const size_t *last, const uint32_t *ci,
				    pr_procset present, size_t wi, int ri,
				    int wrote)
{
	const struct dpor_step *si = &d->st[i];

	for (pr_procset m = present; m; m &= m - 1) {
		int q = __builtin_ctzll(m);

		for (size_t j = last[q]; j != SIZE_MAX && d->st[j].seq > CLKQ(d, ci, q);
		     j = d->prevsame[j]) {
			const struct dpor_step *sj = &d->st[j];

			if (pr_dpor_filter_check == 2 ?
			    pr_sig_meet(sj->rsig, sj->wsig, si->rsig, si->wsig) :
			    !dpor_ruled_out(d, j, si, i, wi, ri, wrote))
				continue;
			pr_dpor_filter_out++;
			if (dpor_dependent_at(d, j, i))
				pr_dpor_filter_wrong++;
		}
	}
}

/*
 * Checking (pr_dpor_short_check, dpor_tail.h): a candidate passed over
 * as its twin found it, and a step passed over whole, asked of
 * dpor_dependent_at() all the same.
 */
PR_NO_TSAN void dpor_short_dep(const struct dpor_strategy *d, size_t j,
				 size_t i)
{
	pr_dpor_short_used++;
	if (dpor_dependent_at(d, j, i))
		pr_dpor_short_wrong++;
}

PR_NO_TSAN void dpor_short_step(const struct dpor_strategy *d, size_t i,
				  const size_t *last, const uint32_t *ci,
				  pr_procset present, size_t wi, int ri,
				  int wrote)
{
	const struct dpor_step *si = &d->st[i];

	pr_dpor_short_used++;
	for (pr_procset m = present & ~PR_PROC_BIT(si->proc); m; m &= m - 1) {
		int q = __builtin_ctzll(m);

		for (size_t j = last[q]; j != SIZE_MAX && d->st[j].seq > CLKQ(d, ci, q);
		     j = d->prevsame[j])
			if (!dpor_ruled_out(d, j, si, i, wi, ri, wrote) &&
			    dpor_dependent_at(d, j, i))
				pr_dpor_short_wrong++;
	}
}
