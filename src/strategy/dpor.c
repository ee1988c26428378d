/* SPDX-License-Identifier: MIT */
/*
 * dpor.c - dynamic partial-order reduction with source sets and sleep
 * sets: "Source-DPOR", Abdulla, Aronis, Jonsson & Sagonas, "Optimal
 * dynamic partial order reduction", POPL 2014, Algorithm 1; the original
 * idea is Flanagan & Godefroid, POPL 2005.
 *
 * Two executions are equivalent when one becomes the other by swapping
 * adjacent independent steps (dependence.c); they then reach the same
 * state and the same verdict.  dpor explores at least one execution of
 * every equivalence class (Mazurkiewicz trace), and with sleep sets never
 * completes two of the same class: an execution that could only repeat an
 * explored class is abandoned at the first decision where every enabled
 * process sleeps (counted as "blocked", not as an execution).
 *
 * After each execution, every race -- steps e before e' of different
 * processes, dependent, with no step in between ordering them -- is
 * reversed: at the state before e, some process must be explored that
 * can start the sequence "the steps after e that do not depend on it,
 * then e'" (the initials of that sequence).  If the backtrack set there
 * already holds one, nothing is added (source sets: one representative
 * suffices); if no initial is enabled there, e' could not have run first
 * (e enabled it: a store waking a spinner, a wake-up, an interrupt
 * delivery), and the race is not reversible.
 *
 * Happens-before is tracked with vector clocks over processes.  Sleep
 * sets: a process explored from a node sleeps in the subtrees of its
 * siblings until a step dependent with its own (recorded when it was
 * explored) is taken.
 *
 * With a preemption bound K (--preemption-bound), dpor becomes bounded
 * partial-order reduction (BPOR: Coons, Musuvathi & McKinley, "Bounded
 * partial-order reduction", OOPSLA 2013; bpor.c).  Pruning DPOR's backtrack sets
 * by the bound alone is unsound: the bound makes otherwise independent
 * steps dependent (reversing a race may need a preemption the path can no
 * longer afford, while an equivalent execution that switches at the start
 * of the racing step's scheduling block would not).  So, bounded:
 *  - a race e_j < e_i adds, at node j, e_i's process if it is an enabled
 *    initial of v = notdep(e_j).e_i, else the enabled initials, else
 *    every enabled process (Flanagan & Godefroid's persistent-set rule);
 *  - and the same at one conservative point: k, the last node at or
 *    before j where the scheduler switched (its choice is not the context
 *    that could go on; loom and dejafu place theirs alike), where running
 *    e_i and what it needs first costs no preemption more than the switch
 *    made there -- unless one of those steps happens after e_k, when no
 *    execution of the reversed class switches at k (movable());
 *  - sleep sets, with the preemptions of the reordered execution worked
 *    out (dpor_sleep_cost): a sleeper whose move to the front may cost a
 *    preemption more sleeps only partly, or not at all;
 *  - interrupts are explored before their context's first step and at
 *    every free switch too (tree.c);
 *  - a choice beyond the bound is never taken (tree.c, pr_tree_allowed).
 * tests/strategy_dpor checks on generated programs (with and without wait
 * loops) that bounded dpor reaches every final state dfs with the same
 * bound reaches; each refinement above was kept only once it passed there
 * (variants that failed there: the block start taken where the process
 * changes -- a delivery and its handler then look like two blocks --,
 * e_i's process added where its step is not the one leading to e_i (a
 * handler's), plain sleep sets, a conservative point only where the
 * switch at j was over budget).
 *
 * Not done: wakeup trees (optimal DPOR), which would remove the blocked
 * executions.
 */
#include "strategy/dpor.h"
#include "runtime/tsan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Sleeping blocks (bounded).  A process p explored from node s, whose
 * sleeper's cost change is 0 (dpor_sleep_cost), may be taken again at a
 * node m below a sibling w1 of s: E' = s.w.B.r..., w = the steps
 * node[s..m), B = p's block from m (p's step, then the steps of the
 * context c' it leaves running, for as long as the scheduler lets c'
 * go on), r the choice that ends B while c' could go on.  If every step
 * of B commutes with every step of w (and no step of w is of B's
 * processes), E' is equivalent to E'' = s.B.w.r..., and E'' has no more
 * preemptions: against E', E'' pays the same at s (cost change 0),
 * nothing inside B, one for w1 after B where E' paid one for r, nothing
 * more inside w (the same states, the same contexts able to go on), and
 * at most [cur(m) set] for r after w, where E' paid that for p at m (p
 * is never cur(m): a sleeper that becomes cur is woken).  So E'' is
 * within the bound whenever E' is, p's subtree at s covered its class,
 * and E' is redundant.  The search therefore lets p run at m only as the
 * start of a block: each node of B forbids every choice but c' until a
 * step of B touches what w touched (or is of a process w ran); from
 * there on B, and what follows, is free.  The previous rule stopped
 * after p's own step (the node after it only).  Measured with a class
 * signature over the vector clocks, more than half of the executions of
 * the bounded searches of doc/coverage.md's merged rows repeated an
 * explored class under the previous rule; this one removes part of them.
 *
 * A block that ends on its own (c' blocks, spins or finishes) with
 * every step independent is redundant too (E'' pays nothing after B),
 * but it is not abandoned, not even when it ends with p's own step:
 * the races of what follows add backtrack points on this path (at m,
 * B's conservative point, and elsewhere) that the equivalent execution
 * under p does not add.  At m itself this is what the sleep-set
 * argument needs: for a continuation u from m whose initials do not
 * include p, m must come to explore one of them, and when p is the
 * first choice at m (every awake process is a psleeper), only a race
 * found below m.p puts one there.  The equivalent execution s.p.w...
 * finds that race too, but reverses it at s or above, where the other
 * order may not be within the bound (a psleeper is one exactly because
 * moving its step to s may cost a preemption).  Abandoning after p's
 * own step when c' could not go on lost such a point: tests/strategy_cas
 * program 3 (and 253, 259 of 300) missed final states of bounded dfs;
 * its reduced form is strategy_dpor's "psleeper's own step" case.
 * Variants that tests/strategy_dpor rejected (final states of
 * bounded dfs missed): abandoning there (5 of its 60 generated
 * programs); abandoning there but adding every enabled choice at m, or
 * at every node from s to m (2 of 1500); forbidding switches with no
 * check that B commutes with w (12 of 60, and 1 of 30 wait-loop
 * programs).
 */
PR_NO_TSAN static int block_touches(const struct pr_tree *t,
				    const struct pr_tnode *up)
{
	const struct pr_event *b = &up->ev;

	if (up->ps == UINT32_MAX)
		return 1;
	for (uint32_t z = up->ps; z < up->pm; z++) {
		const struct pr_event *w = &t->node[z].ev;

		if (w->proc == b->proc || pr_dependent(w, b))
			return 1;
	}
	return 0;
}

/* pr_dpor_prefer's order: the awake choice rated highest. */
PR_NO_TSAN static int preferred(struct pr_tree *t, const struct pr_tnode *nd,
				pr_procset awake)
{
	int best = PR_NO_PROC, bs = -1;

	if (nd->cur != PR_NO_PROC && (awake & PR_PROC_BIT(nd->cur))) {
		best = nd->cur;
		bs = t->prefer(t->prefer_arg, t->cs, t->idx_of[best]);
	}
	for (pr_procset m = awake; m; m &= m - 1) {
		int q = __builtin_ctzll(m);
		int sc = q == best ? bs :
			 t->prefer(t->prefer_arg, t->cs, t->idx_of[q]);

		if (sc > bs) {
			bs = sc;
			best = q;
		}
	}
	return best;
}

PR_NO_TSAN static int dpor_first(struct pr_tree *t, size_t d)
{
	struct pr_tnode *nd = &t->node[d], *up;
	struct pr_event *out;
	pr_procset awake;
	int bounded = dpor_of(t)->bounded, p, forced = 0;

	if (d > 0) {
		up = &t->node[d - 1];
		out = pr_tree_sleepers_reserve(t, up->sleep_n);
		nd = &t->node[d];
		up = &t->node[d - 1];
		for (uint32_t i = 0; out && i < up->sleep_n; i++) {
			size_t k = up->sleep_off + i;
			const struct pr_event *s = &t->sleepers[k];
			int8_t c = t->sleepcost[k];

			if (s->proc == up->chosen || pr_dependent(s, &up->ev))
				continue;
			/* Bounded: woken when it becomes the one to go on. */
			if (bounded && s->proc == nd->cur)
				continue;
			t->sleepcost[t->nsleepers] = c;
			t->sleeporig[t->nsleepers] = t->sleeporig[k];
			t->sleepers[t->nsleepers++] = *s;
			nd->sleep_n++;
			if (c < 0)
				nd->sleep |= PR_PROC_BIT(s->proc);
			else
				nd->psleep |= PR_PROC_BIT(s->proc);
		}
		/*
		 * The parent took a process that slept here as a block only,
		 * or went on with its block, every step of which so far
		 * commutes with the steps it was moved past: anything but
		 * letting it go on is redundant ("Sleeping blocks" above).
		 * A block that has ended (no context can go on) is free, even
		 * right after the psleeper's own step: abandoning it would
		 * lose the backtrack points its races add at m.
		 */
		if (up->cont && nd->cur != PR_NO_PROC &&
		    (up->pm == d - 1 || !block_touches(t, up))) {
			nd->sleep |= nd->enabled & ~PR_PROC_BIT(nd->cur);
			forced = 1;
		}
	}
	nd->psleep &= ~nd->sleep;
	awake = nd->enabled & ~nd->sleep;
	if (bounded)
		awake &= pr_tree_allowed(t, nd);
	if (!awake)
		return PR_NO_PROC;
	if (t->prefer && !bounded)
		p = preferred(t, nd, awake);
	else if (nd->cur != PR_NO_PROC && (awake & (PR_PROC_BIT(nd->cur))))
		p = nd->cur;
	else if (awake & ~nd->psleep)
		p = pr_proc_lowest(awake & ~nd->psleep);
	else
		p = pr_proc_lowest(awake);
	nd->cont = 0;
	if (nd->psleep & PR_PROC_BIT(p)) {
		pr_tree_take_psleeper(t, nd, d, p);
	} else if (forced) {
		/* p is cur: the block goes on, its next step to be checked. */
		nd->cont = 1;
		nd->ps = t->node[d - 1].ps;
		nd->pm = t->node[d - 1].pm;
	}
	return p;
}

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
		firstv[pk] = d->seq[k];
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
		size_t w = d->nextw[d->pspin[i] == SIZE_MAX ? 0 : d->pspin[i] + 1];

		if (w >= i)
			return pr_dependent(ej, ei);
		if (j == w)
			return 2;
	}
	if (is_spin(ej) && (ei->flags & PR_EV_WROTE) && d->nextw[j + 1] == i)
		return 1;
	return dependent_nospin(ej, ei);
}

PR_NO_TSAN static void dpor_analyse(struct pr_tree *t)
{
	struct dpor_strategy *d = dpor_of(t);
	size_t last[PR_MAX_PROCS], n = t->n;
	uint32_t count[PR_MAX_PROCS] = { 0 };
	pr_procset present = 0;

	if (n > d->capclk) {
		size_t c = d->capclk ? d->capclk : 256;
		uint32_t *nc, *ns;
		size_t *nw, *np, *nb, *nq, *nk;

		while (c < n)
			c *= 2;
		nc = realloc(d->clk, c * PR_MAX_PROCS * sizeof(*nc));
		if (nc)
			d->clk = nc;
		ns = realloc(d->seq, c * sizeof(*ns));
		if (ns)
			d->seq = ns;
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
		if (!nc || !ns || !nw || !np || !nb || !nq || !nk)
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
		int pi = t->node[i].ev.proc;

		d->prevsame[i] = last[pi];
		last[pi] = i;
		if (i >= t->fresh)
			continue;
		count[pi]++;
		present |= PR_PROC_BIT(pi);
	}
	bwake_compute(d, n);
	for (int q = 0; q < PR_MAX_PROCS; q++)
		last[q] = SIZE_MAX;
	for (size_t i = 0; i < t->fresh && i < n; i++)
		last[t->node[i].ev.proc] = i;
	for (size_t i = t->fresh; i < n; i++) {
		const struct pr_event *ei = &t->node[i].ev;
		uint32_t *ci = CLK(d, i);
		size_t cand[PR_MAX_PROCS];
		pr_procset todo = 0;
		int pi = ei->proc;
		size_t nraces = 0;

		if (last[pi] != SIZE_MAX)
			memcpy(ci, CLK(d, last[pi]), PR_MAX_PROCS * sizeof(*ci));
		else
			memset(ci, 0, PR_MAX_PROCS * sizeof(*ci));
		/*
		 * Walk back over the steps not yet known to happen before e_i,
		 * latest first: cand[q] is q's latest unvisited step, todo the
		 * processes that may still have such steps.  Once q's
		 * candidate is ordered before e_i, so are all its earlier ones.
		 */
		for (pr_procset m = present; m; m &= m - 1) {
			int q = __builtin_ctzll(m);

			if (count[q] > ci[q]) {
				todo |= PR_PROC_BIT(q);
				cand[q] = last[q];
			}
		}
		while (todo) {
			const uint32_t *cj;
			size_t j = 0;
			int pj = -1, dep;

			for (pr_procset m = todo; m; m &= m - 1) {
				int q = __builtin_ctzll(m);

				if (pj < 0 || cand[q] > j) {
					j = cand[q];
					pj = q;
				}
			}
			if (covered(ci, d, j, pj)) {
				todo &= ~PR_PROC_BIT(pj);
				continue;
			}
			cand[pj] = d->prevsame[j];
			if (cand[pj] == SIZE_MAX)
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
		d->seq[i] = ++count[pi];
		ci[pi] = d->seq[i];
		last[pi] = i;
		for (size_t r = 0; r < nraces; r++)
			if (d->races[r] & PR_NOREV)
				continue;
			else if (d->bounded)
				dpor_reverse_bounded(d, d->races[r] & PR_RACE_J, i,
						!(d->races[r] & PR_NOCONS));
			else
				reverse(d, d->races[r] & PR_RACE_J, i);
	}
}

static const struct pr_tree_policy dpor_policy = {
	.first = dpor_first,
	.sleep_cost = dpor_sleep_cost,
	.analyse = dpor_analyse,
};

PR_NO_TSAN static void dpor_begin(struct pr_strategy *s, uint64_t seed, uint64_t run)
{
	(void)seed;
	(void)run;
	pr_effects_track(1);
	pr_tree_begin_run(&((struct dpor_strategy *)s)->tree);
}

PR_NO_TSAN static int dpor_pick(struct pr_strategy *s, const struct pr_choices *cs,
				int64_t *budget)
{
	return pr_tree_pick(&((struct dpor_strategy *)s)->tree, cs, budget);
}

PR_NO_TSAN static void dpor_end(struct pr_strategy *s, uint64_t steps)
{
	struct pr_tree *t = &((struct dpor_strategy *)s)->tree;

	(void)steps;
	pr_tree_end_run(t);
	s->foreign = t->foreign;
	pr_effects_track(0);
}

PR_NO_TSAN static int dpor_exhausted(struct pr_strategy *s)
{
	return ((struct dpor_strategy *)s)->tree.exhausted;
}

PR_NO_TSAN static void dpor_coverage(struct pr_strategy *s, struct pr_coverage *c)
{
	pr_tree_coverage(&((struct dpor_strategy *)s)->tree, c);
}

PR_NO_TSAN static void dpor_destroy(struct pr_strategy *s)
{
	struct dpor_strategy *d = (struct dpor_strategy *)s;

	pr_effects_track(0);
	pr_tree_free(&d->tree);
	free(d->clk);
	free(d->seq);
	free(d->races);
	free(d->nextw);
	free(d->pspin);
	free(d->bstart);
	free(d->prevsame);
	free(d->bwake);
	free(d);
}

static const struct pr_strategy_ops dpor_ops = {
	.name = "dpor",
	.begin_run = dpor_begin,
	.pick = dpor_pick,
	.end_run = dpor_end,
	.destroy = dpor_destroy,
	.sees_memory = 1,
	.exhausted = dpor_exhausted,
	.coverage = dpor_coverage,
};

PR_NO_TSAN void pr_dpor_prefer(struct pr_strategy *s, pr_choice_score score,
			       void *arg)
{
	struct dpor_strategy *d = (struct dpor_strategy *)s;

	if (s->ops != &dpor_ops || d->bounded)
		return;
	d->tree.prefer = score;
	d->tree.prefer_arg = arg;
}

PR_NO_TSAN struct pr_strategy *pr_dpor_create(const struct pr_strategy_params *p)
{
	struct dpor_strategy *d;

	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->base.ops = &dpor_ops;
	d->bounded = p && p->has_bound;
	pr_tree_init(&d->tree, &dpor_policy,
		     d->bounded ? p->preemption_bound : -1, d->base.error,
		     sizeof(d->base.error));
	d->tree.full_top = 1;
	d->tree.effects = 1;
	if (p && p->shards)
		pr_tree_split(&d->tree, p->shard, p->shards);
	return &d->base;
}
