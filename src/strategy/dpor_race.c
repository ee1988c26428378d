/* SPDX-License-Identifier: MIT */
/*
 * dpor_race.c - dpor's race analysis (dpor.c's header says what it is
 * for): after each execution, the happens-before clocks of its new
 * steps, their races with earlier steps, and the backtrack points that
 * reverse them.  Out of dpor.c, which keeps the search's decisions.
 */
#include "strategy/dpor.h"
#include "runtime/tsan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The initials of v = notdep(e_j).e_i: the processes whose first step in
 * v has no earlier step of v happening before it -- those that can start
 * the reversed race.
 */
PR_NO_TSAN pr_procset dpor_initials(const struct dpor_strategy *d,
					 size_t j, size_t i)
{
	const struct pr_tree *t = &d->tree;
	uint32_t firstv[PR_MAX_PROCS];
	int inv[PR_MAX_PROCS], ninv = 0;
	pr_procset initials = 0, seen = 0;
	int pj = t->node[j].ev.proc;

	for (size_t k = j + 1; k <= i; k++) {
		const uint32_t *ck = CLK(d, k);
		int pk = t->node[k].ev.proc, initial = 1;

		if (k < i && covered(ck, d, j, pj))
			continue;	/* happens after e_j: not in v */
		if (seen & PR_PROC_BIT(pk))
			continue;	/* not its first step in v */
		/* An initial: no earlier step of v happens before it. */
		for (int q = 0; q < ninv && initial; q++)
			initial = firstv[inv[q]] > ck[inv[q]];
		if (initial)
			initials |= PR_PROC_BIT(pk);
		seen |= PR_PROC_BIT(pk);
		inv[ninv++] = pk;
		firstv[pk] = d->st[k].seq;
	}
	return initials;
}

/*
 * The race e_j < e_i: add to node j's backtrack set a process that can
 * start notdep(e_j).e_i, unless one is there already.
 */
PR_NO_TSAN static void reverse(struct dpor_strategy *d, size_t j, size_t i)
{
	struct pr_tree *t = &d->tree;
	struct pr_tnode *nj = &t->node[j];
	pr_procset cand = dpor_initials(d, j, i) & nj->enabled;

	if (!cand || (cand & nj->backtrack))
		return;
	if (cand & (PR_PROC_BIT(t->node[i].ev.proc)))
		nj->backtrack |= PR_PROC_BIT(t->node[i].ev.proc);
	else
		nj->backtrack |= PR_PROC_BIT(pr_proc_lowest(cand));
}

/*
 * Bumps and their observers (effects.h, PR_EFF_TICK and PR_EFF_OBSERVE;
 * the weak model's memory time, memory/stale.c).  Two bumps commute in
 * the analysis: the state after them differs only in which of the two
 * writes got the earlier time, and only a later load that weighs older
 * values against its CPU's floor can tell.  So a pair of bumps races
 * only where such an observer follows them: at observer e_i, every two
 * bumps e_a < e_b before it, of different processes, with e_a not
 * happening before e_b, are reversed as a race would be (node a gets an
 * initial of notdep(e_a).e_b).  The pairs with e_b before the previous
 * observer were reversed at that one (on this path: the nodes before a
 * replayed observer are the same), so each observer takes the pairs
 * whose later bump is at or after the previous observer.  Sleep sets
 * keep every two bumps dependent (pr_dependent_sleep): a sleeping bump
 * wakes at the next bump, whatever follows.  The bounded search keeps
 * them dependent outright (dependent_at).
 *
 * For tests (tests/memory_dpor), pr_dpor_ticks: 1 keeps every two bumps
 * dependent (the rule before h14r, the reference), 2 plants an unsound
 * analysis (bumps commute, no observer rule), which must lose states.
 *
 * Before h14r every two writes to memory under weak were dependent:
 * C-WW-G+WW-B+WW-R (six stores, no load) took 14,010 executions under
 * weak against 1,168 under tso.  The corpus's final states are the same
 * (tools/litmus-states.sh, bench/RESULTS.md "h14r").
 */
int pr_dpor_ticks;

PR_NO_TSAN static void observed(struct dpor_strategy *d, size_t i)
{
	const struct pr_tree *t = &d->tree;
	size_t from = 0;

	for (size_t k = i; k-- > 0;)
		if (t->node[k].ev.flags & PR_EV_OBS) {
			from = k;
			break;
		}
	for (size_t b = from; b < i; b++) {
		const struct pr_event *eb = &t->node[b].ev;
		const uint32_t *cb = CLK(d, b);

		if (!(eb->flags & PR_EV_TICK))
			continue;
		for (size_t a = 0; a < b; a++) {
			const struct pr_event *ea = &t->node[a].ev;

			if ((ea->flags & PR_EV_TICK) && ea->proc != eb->proc &&
			    !covered(cb, d, a, ea->proc))
				reverse(d, a, b);
		}
	}
}

#define PR_NOREV	((size_t)1 << (sizeof(size_t) * 8 - 1))
#define PR_NOCONS	((size_t)1 << (sizeof(size_t) * 8 - 2))
#define PR_RACE_J	(PR_NOCONS - 1)

PR_NO_TSAN static int is_spin(const struct pr_event *e)
{
	return e->kind == PR_K_SPIN;
}

/* Rules 1, 3-6 only: a spin resumption as a step that touches nothing. */
PR_NO_TSAN static int dependent_nospin(const struct pr_event *a,
				       const struct pr_event *b)
{
	struct pr_event x, y;

	if (!is_spin(a) && !is_spin(b))
		return pr_dependent(a, b);
	x = *a;
	y = *b;
	if (is_spin(&x))
		x.kind = PR_K_YIELD;
	if (is_spin(&y))
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
 * sleeping-wait programs) rejected the two earlier forms: never
 * reversing the race with w whatever R reads, and reversing it where R
 * and w were otherwise dependent; both missed a waiter's second sleep.
 * The gain is modest (truncate-race under merged, bound 2: 941,299 ->
 * 912,792 executions; bench/RESULTS.md, fourth round).
 */
/* Does sleep resumption @i commute with step @k but for its wake-up? */
PR_NO_TSAN static int waker_commutes(const struct dpor_strategy *d, size_t k,
				     size_t i)
{
	const struct pr_event *w = &d->tree.node[k].ev;
	struct pr_event r = d->tree.node[i].ev;

	r.kind = PR_K_YIELD;
	if (is_spin(w) && (r.flags & PR_EV_WROTE))
		return 0;
	return !dependent_nospin(w, &r);
}

PR_NO_TSAN static void bwake_compute(struct dpor_strategy *d, size_t n)
{
	const struct pr_tree *t = &d->tree;

	for (size_t i = 0; i < n; i++) {
		const struct pr_event *r = &t->node[i].ev;
		size_t s = d->prevsame[i];

		d->bwake[i] = SIZE_MAX;
		if (r->kind != PR_K_BLOCK || s == SIZE_MAX ||
		    !(t->node[s].ev.flags & PR_EV_BLOCKS) ||
		    t->node[s].ev.wq != r->obj)
			continue;
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
}

/* The writing step that may have re-enabled spin resumption @i. */
PR_NO_TSAN static size_t spin_writer(const struct dpor_strategy *d, size_t i)
{
	return d->nextw[d->pspin[i] == SIZE_MAX ? 0 : d->pspin[i] + 1];
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
 * rule 2.  Returns 1 if dependent, 2 if dependent but not to be reversed.
 */
PR_NO_TSAN static int dependent_at(const struct dpor_strategy *d, size_t j,
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
	if (is_spin(ei)) {
		size_t w = spin_writer(d, i);

		if (w >= i)
			return pr_dependent(ej, ei);
		if (j == w)
			return 2;
	}
	if (is_spin(ej) && (ei->flags & PR_EV_WROTE) && d->nextw[j + 1] == i)
		return 1;
	/* Bounded: two bumps stay ordered (no observer rule there). */
	if ((d->bounded || pr_dpor_ticks == 1) &&
	    (ej->flags & ei->flags & PR_EV_TICK))
		return 1;
	return dependent_nospin(ej, ei);
}

/*
 * Is step @k's dependence with another such step, in dependent_at(),
 * rule 1 alone, decided by their signatures: two such steps whose
 * signatures do not meet are independent there?  That is
 * pr_event_sig_only() once dependent_at() has made a spin resumption or
 * a sleep resumption with a known waker a plain step (PR_K_YIELD, whose
 * signatures are those of its effects: access_of() gives neither kind a
 * range), except for the pairs it treats apart, which the caller keeps:
 * a spin resumption e_i whose waker is unknown (spin_writer() >= i: it
 * depends on every writing step), e_i's waker (spin_writer(), bwake[]),
 * and a spin resumption e_j whose writer is e_i.
 */
PR_NO_TSAN static int rule1(const struct dpor_strategy *d, size_t k)
{
	const struct pr_event *e = &d->tree.node[k].ev;

	if ((e->flags & (PR_EV_SIG | PR_EV_ALL | PR_EV_FLUSH |
			 PR_EV_BLOCKS)) != PR_EV_SIG ||
	    e->kind == PR_EV_FIRE)
		return 0;
	return e->kind != PR_K_BLOCK || d->bwake[k] != SIZE_MAX;
}

/*
 * May the walk in dpor_analyse() pass over step @j as independent of
 * step @i on their packed records alone?  @ri: i's rule1() as e_i (a
 * spin resumption whose waker is unknown is not), @wi: i's waker
 * (spin_writer() or bwake[]), @wrote: i wrote shared state.
 */
static inline int ruled_out(const struct dpor_strategy *d, size_t j,
			    const struct dpor_step *si, size_t i, size_t wi,
			    int ri, int wrote)
{
	const struct dpor_step *sj = &d->st[j];

	return ri && sj->rule1 && j != wi &&
	       !pr_sig_meet(sj->rsig, sj->wsig, si->rsig, si->wsig) &&
	       !(sj->spin && wrote && d->nextw[j + 1] == i);
}

/*
 * For tests (tests/strategy_race): with pr_dpor_filter_check set, every
 * step the walk rules out is asked of dependent_at() too, and counted in
 * pr_dpor_filter_wrong if dependent there.  2 plants an unsound filter
 * (the signatures trusted for every step), which the count must catch;
 * the search itself is not changed.
 */
int pr_dpor_filter_check;
unsigned long long pr_dpor_filter_out, pr_dpor_filter_wrong;

PR_NO_TSAN static void filter_check(const struct dpor_strategy *d, size_t i,
				    const size_t *last, const uint32_t *ci,
				    pr_procset present, size_t wi, int ri,
				    int wrote)
{
	const struct dpor_step *si = &d->st[i];

	for (pr_procset m = present; m; m &= m - 1) {
		int q = __builtin_ctzll(m);

		for (size_t j = last[q]; j != SIZE_MAX && d->st[j].seq > ci[q];
		     j = d->prevsame[j]) {
			const struct dpor_step *sj = &d->st[j];

			if (pr_dpor_filter_check == 2 ?
			    pr_sig_meet(sj->rsig, sj->wsig, si->rsig, si->wsig) :
			    !ruled_out(d, j, si, i, wi, ri, wrote))
				continue;
			pr_dpor_filter_out++;
			if (dependent_at(d, j, i))
				pr_dpor_filter_wrong++;
		}
	}
}

PR_NO_TSAN void dpor_analyse(struct pr_tree *t)
{
	struct dpor_strategy *d = dpor_of(t);
	size_t last[PR_MAX_PROCS], n = t->n;
	uint32_t count[PR_MAX_PROCS] = { 0 };
	pr_procset present = 0;

	if (n > d->capclk) {
		size_t c = d->capclk ? d->capclk : 256;
		uint32_t *nc;
		size_t *nw, *np, *nb, *nq, *nk;
		struct dpor_step *nt;
		size_t *nd;

		while (c < n)
			c *= 2;
		nc = realloc(d->clk, c * PR_MAX_PROCS * sizeof(*nc));
		if (nc)
			d->clk = nc;
		nt = realloc(d->st, c * sizeof(*nt));
		if (nt)
			d->st = nt;
		nw = realloc(d->nextw, (c + 1) * sizeof(*nw));
		if (nw)
			d->nextw = nw;
		np = realloc(d->pspin, c * sizeof(*np));
		if (np)
			d->pspin = np;
		nb = realloc(d->bstart, c * sizeof(*nb));
		if (nb)
			d->bstart = nb;
		nq = realloc(d->prevsame, c * sizeof(*nq));
		if (nq)
			d->prevsame = nq;
		nk = realloc(d->bwake, c * sizeof(*nk));
		if (nk)
			d->bwake = nk;
		nd = realloc(d->cand, c * sizeof(*nd));
		if (nd)
			d->cand = nd;
		if (!nc || !nt || !nw || !np || !nb || !nq || !nk || !nd)
			return;		/* no analysis: fewer backtracks */
		d->capclk = c;
	}
	for (size_t k = 0; k < n; k++)
		d->bstart[k] = k == 0 || t->node[k].chosen != t->node[k].cur ?
			       k : d->bstart[k - 1];
	d->nextw[n] = n;
	for (size_t k = n; k-- > 0;)
		d->nextw[k] = (t->node[k].ev.flags & PR_EV_WROTE) ? k
							       : d->nextw[k + 1];
	for (int q = 0; q < PR_MAX_PROCS; q++)
		last[q] = SIZE_MAX;
	for (size_t k = 0; k < n; k++) {
		int pk = t->node[k].ev.proc;

		if (!is_spin(&t->node[k].ev))
			continue;
		d->pspin[k] = last[pk];
		last[pk] = k;
	}
	for (int q = 0; q < PR_MAX_PROCS; q++)
		last[q] = SIZE_MAX;
	/* The replayed prefix's steps and clocks are the last execution's. */
	for (size_t i = 0; i < n; i++) {
		const struct pr_event *ei = &t->node[i].ev;
		struct dpor_step *si = &d->st[i];
		int pi = ei->proc;

		d->prevsame[i] = last[pi];
		last[pi] = i;
		si->rsig = ei->rsig;
		si->wsig = ei->wsig;
		si->proc = ei->proc;
		si->spin = is_spin(ei);
		if (i >= t->fresh)
			continue;
		count[pi]++;
		present |= PR_PROC_BIT(pi);
	}
	bwake_compute(d, n);
	for (size_t k = 0; k < n; k++)
		d->st[k].rule1 = (uint8_t)rule1(d, k);
	for (int q = 0; q < PR_MAX_PROCS; q++)
		last[q] = SIZE_MAX;
	for (size_t i = 0; i < t->fresh && i < n; i++)
		last[t->node[i].ev.proc] = i;
	for (size_t i = t->fresh; i < n; i++) {
		const struct dpor_step *si = &d->st[i];
		uint32_t *ci = CLK(d, i);
		size_t cs[PR_MAX_PROCS], ce[PR_MAX_PROCS], nc = 0, wi;
		pr_procset todo = 0;
		int ri, wrote;
		int pi = si->proc;
		size_t nraces = 0;

		if (last[pi] != SIZE_MAX)
			memcpy(ci, CLK(d, last[pi]), PR_MAX_PROCS * sizeof(*ci));
		else
			memset(ci, 0, PR_MAX_PROCS * sizeof(*ci));
		/*
		 * The steps not yet known to happen before e_i, latest first:
		 * of process q, those after its ci[q]-th.  Once one of q's is
		 * ordered before e_i, so are all its earlier ones.  Most of
		 * them touch nothing e_i touches: first the packed signatures
		 * rule those out (rule1()), leaving each process's candidates
		 * in cand[cs[q]..ce[q]), latest first; then they are visited,
		 * latest first over all processes, as the clock grows.  A
		 * step ruled out would have been found independent by
		 * dependent_at(), and changed nothing.
		 */
		ri = si->rule1 && !(si->spin && spin_writer(d, i) >= i);
		wi = si->spin ? spin_writer(d, i) : d->bwake[i];
		wrote = (t->node[i].ev.flags & PR_EV_WROTE) != 0;
		if (pr_dpor_filter_check)
			filter_check(d, i, last, ci, present, wi, ri, wrote);
		for (pr_procset m = present; m; m &= m - 1) {
			int q = __builtin_ctzll(m);

			cs[q] = nc;
			for (size_t j = last[q];
			     j != SIZE_MAX && d->st[j].seq > ci[q];
			     j = d->prevsame[j])
				if (!ruled_out(d, j, si, i, wi, ri, wrote))
					d->cand[nc++] = j;
			ce[q] = nc;
			if (nc > cs[q])
				todo |= PR_PROC_BIT(q);
		}
		while (todo) {
			const uint32_t *cj;
			size_t j = 0;
			int pj = -1, dep;

			for (pr_procset m = todo; m; m &= m - 1) {
				int q = __builtin_ctzll(m);

				if (pj < 0 || d->cand[cs[q]] > j) {
					j = d->cand[cs[q]];
					pj = q;
				}
			}
			if (covered(ci, d, j, pj)) {
				todo &= ~PR_PROC_BIT(pj);
				continue;
			}
			if (++cs[pj] == ce[pj])
				todo &= ~PR_PROC_BIT(pj);
			cj = CLK(d, j);
			if (pj == pi || (dep = dependent_at(d, j, i)) == 0)
				continue;
			if (nraces == d->capraces) {
				size_t c = d->capraces ? 2 * d->capraces : 64;
				size_t *nr = realloc(d->races, c * sizeof(*nr));

				if (!nr)
					abort();	/* unsound otherwise */
				d->races = nr;
				d->capraces = c;
			}
			d->races[nraces++] = j | (dep == 2 ? PR_NOREV : 0) |
				(d->bounded && d->bstart[j] != j &&
				 !dpor_movable(d, j, i, ci) ? PR_NOCONS : 0);
			for (pr_procset m = present; m; m &= m - 1) {
				int q = __builtin_ctzll(m);

				if (cj[q] > ci[q])
					ci[q] = cj[q];
			}
		}
		present |= PR_PROC_BIT(pi);
		d->st[i].seq = ++count[pi];
		ci[pi] = d->st[i].seq;
		last[pi] = i;
		for (size_t r = 0; r < nraces; r++)
			if (d->races[r] & PR_NOREV)
				continue;
			else if (d->bounded)
				dpor_reverse_bounded(d, d->races[r] & PR_RACE_J, i,
						!(d->races[r] & PR_NOCONS));
			else
				reverse(d, d->races[r] & PR_RACE_J, i);
		if (!d->bounded && !pr_dpor_ticks &&
		    (t->node[i].ev.flags & PR_EV_OBS))
			observed(d, i);
	}
}

