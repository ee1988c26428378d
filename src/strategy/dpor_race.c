/* SPDX-License-Identifier: MIT */
/*
 * dpor_race.c - dpor's race analysis (dpor.c's header says what it is
 * for): after each execution, the happens-before clocks of its new
 * steps, their races with earlier steps, and the backtrack points that
 * reverse them.  Out of dpor.c, which keeps the search's decisions;
 * which pairs are dependent, and which of those are not reversed, is
 * dpor_dep.c's.
 */
#include "strategy/dpor_tail.h"
#include "runtime/tsan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PR_NOREV	((size_t)1 << (sizeof(size_t) * 8 - 1))
#define PR_NOCONS	((size_t)1 << (sizeof(size_t) * 8 - 2))
#define PR_RACE_J	(PR_NOCONS - 1)

/*
 * Rows wide enough for the columns given (d->ncol): rows [0, @rows) move
 * to their wider places, the new columns 0 (no event of a process not
 * met before).  All of them, not only the replayed prefix's: a split
 * search's foreign runs leave rows that a later prefix reads as they
 * were.  -1 if out of memory.
 */
PR_NO_TSAN static int clk_widen(struct dpor_strategy *d, size_t rows)
{
	unsigned w = d->wcol;
	uint32_t *nc;

	while (w < d->ncol)
		w *= 2;
	nc = realloc(d->clk, d->capclk * w * sizeof(*nc));
	if (!nc)
		return -1;
	for (size_t r = rows; r-- > 0;) {
		memmove(&nc[r * w], &nc[r * d->wcol], d->wcol * sizeof(*nc));
		memset(&nc[r * w + d->wcol], 0, (w - d->wcol) * sizeof(*nc));
	}
	d->clk = nc;
	d->wcol = w;
	return 0;
}

/*
 * Locks, in the analysis.  A waiter waits at the lock's yield point,
 * enabled only while the lock is free (pr_lock_wait), so its attempt e_i
 * always succeeds and depends on the unlock that let it run: the clock
 * then orders the previous holder's acquisition e_j before e_i, and the
 * race that decides the order of the two critical sections -- e_i could
 * have run before e_j, had its process reached the lock first -- is not
 * among the pairs the walk finds.  It is added here, as Flanagan and
 * Godefroid's DPOR treats lock acquisitions: e_i races with the last
 * acquisition of the same lock by another process before it.  Reversing
 * it (notdep(e_j).e_i) brings e_i's process to the lock first; where it
 * cannot go first, its initials are not enabled at e_j and nothing is
 * added.  A pair ordered by other steps as well costs an exploration that
 * sleep sets cut, never a class.  tests/kernel_spinlock.c compares dpor
 * with dfs.
 */
int pr_dpor_locks;

PR_NO_TSAN static void lock_race(struct dpor_strategy *d, size_t i,
				 const uint32_t *ci)
{
	const struct pr_tree *t = &d->tree;
	const struct pr_event *ei = &t->node[i].ev;

	for (size_t j = i; j-- > 0;) {
		const struct pr_event *ej = &t->node[j].ev;

		if (ej->kind != PR_K_LOCK || ej->obj != ei->obj)
			continue;
		if (ej->proc == ei->proc)
			return;		/* its own: the race was that one's */
		if (!d->bounded)
			dpor_reverse(d, j, i);
		else
			dpor_reverse_bounded(d, j, i, !(d->bstart[j] != j &&
						!dpor_movable(d, j, i, ci)));
		return;
	}
}

/*
 * And a waiter that never got the lock: the run ended (a deadlock, a
 * verdict, everyone else done) with a context asleep at a lock's yield
 * point, its attempt never made, so no step of its races with the
 * acquisition that kept it out.  At the last acquisition of that lock by
 * another process, its process is explored -- or, where it cannot run,
 * every process that can (Flanagan and Godefroid's fallback); bounded,
 * at the start of that step's scheduling block too.  Without this, a CPU
 * waiting forever on a lock another never releases hid the run where it
 * takes the lock first (the corpus's C-no-race lost its final state).
 */
PR_NO_TSAN static void lock_waiters(struct dpor_strategy *d)
{
	struct pr_tree *t = &d->tree;
	struct pr_pending p;

	for (int q = 0; q < PR_MAX_CTX && pr_sched_pending(q, &p) == 0; q++) {
		if (p.runnable || !p.site || p.site->kind != PR_K_LOCK)
			continue;
		for (size_t j = t->n; j-- > 0;) {
			struct pr_tnode *nj = &t->node[j];
			pr_procset add;

			if (nj->ev.kind != PR_K_LOCK || nj->ev.obj != p.obj ||
			    nj->ev.proc == q)
				continue;
			add = nj->enabled & PR_PROC_BIT(q) ? PR_PROC_BIT(q)
							   : nj->enabled;
			nj->backtrack |= add;
			if (d->bounded && d->bstart[j] != j)
				t->node[d->bstart[j]].backtrack |=
					t->node[d->bstart[j]].enabled &
					PR_PROC_BIT(q) ? PR_PROC_BIT(q)
					: t->node[d->bstart[j]].enabled;
			break;
		}
	}
}

PR_NO_TSAN void dpor_analyse(struct pr_tree *t)
{
	struct dpor_strategy *d = dpor_of(t);
	size_t last[PR_MAX_PROCS], lastf[PR_MAX_PROCS], lspin[PR_MAX_PROCS];
	size_t n = t->n, keep, fe;
	struct dpor_comb comb = { .at = SIZE_MAX };
	struct dpor_chain chain = { .cur = 1 };
	size_t chain_at = SIZE_MAX;
	int chain_pi = -1;
	uint32_t count[PR_MAX_PROCS] = { 0 };
	pr_procset present = 0;

	/* A run that failed in its set-up has no step, so no race. */
	if (n == 0) {
		d->kept = 0;
		return;
	}
	keep = d->kept < t->fresh ? d->kept : t->fresh;
	fe = t->fresh < n ? t->fresh : n;
	if (keep > fe)
		keep = fe;
	if (!d->wcol) {
		d->wcol = 8;
		d->ncol = 1;	/* column 0: always 0 */
	}
	if (n > d->capclk) {
		size_t c = d->capclk ? d->capclk : 256;
		uint32_t *nc;
		size_t *nw, *np, *nb, *nq, *nk;
		struct dpor_step *nt;
		size_t *nd;

		while (c < n)
			c *= 2;
		nc = realloc(d->clk, c * d->wcol * sizeof(*nc));
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
		if (!nc || !nt || !nw || !np || !nb || !nq || !nk || !nd) {
			d->kept = 0;
			return;		/* no analysis: fewer backtracks */
		}
		/*
		 * The rows and records of steps no analysis has reached read
		 * as 0: a split search's foreign runs leave prefixes whose
		 * clocks the analysis never computes (dpor_end), and what
		 * they read must not be whatever the heap held.
		 */
		memset(&nc[d->capclk * d->wcol], 0,
		       (c - d->capclk) * d->wcol * sizeof(*nc));
		memset(&nt[d->capclk], 0, (c - d->capclk) * sizeof(*nt));
		d->capclk = c;
	}
	/*
	 * The per-step records of the nodes above @keep -- bstart, prevsame,
	 * bwake, st[] but for seq (which the clocks' walk below sets) -- are
	 * the last analysis's: each depends on its node and the nodes before
	 * it only, and those are unchanged (d->kept says up to where).  Only
	 * nextw[] looks ahead: below the last writing step above keep it is
	 * recomputed.  The replayed prefix was 80% of pc-mixed's steps, and
	 * recomputing its records each execution about 70 of the 690
	 * instructions a step of its first 2,044 executions (callgrind).
	 */
	for (int q = 0; q < PR_MAX_PROCS; q++)
		last[q] = lspin[q] = SIZE_MAX;
	/* The replayed prefix's steps and clocks are the last execution's. */
	for (size_t i = 0; i < keep; i++) {
		const struct dpor_step *si = &d->st[i];

		last[si->proc] = i;
		count[si->proc]++;
		present |= PR_PROC_BIT(si->proc);
		if (si->spin)
			lspin[si->proc] = i;
	}
	/*
	 * One pass over the other nodes, each read once: a livelocked run's
	 * 100,000 nodes are 33 MB, and a pass over them each for bstart,
	 * pspin, prevsame, bwake and rule1 (and nextw) cost more than its
	 * instructions.  Later passes read the packed st[].
	 */
	for (size_t i = keep; i < n; i++) {
		const struct pr_tnode *nd = &t->node[i];
		const struct pr_event *ei = &nd->ev;
		struct dpor_step *si = &d->st[i];
		int pi = ei->proc;

		if (i == fe)	/* each process's last step before the new */
			memcpy(lastf, last, sizeof(last));
		if (!d->col[pi])	/* met first: a clock column */
			d->col[pi] = (uint8_t)d->ncol++;
		d->bstart[i] = i == 0 || nd->chosen != nd->cur ?
			       i : d->bstart[i - 1];
		d->prevsame[i] = last[pi];
		last[pi] = i;
		si->rsig = ei->rsig;
		si->wsig = ei->wsig;
		si->proc = ei->proc;
		si->spin = dpor_is_spin(ei);
		si->wrote = (ei->flags & PR_EV_WROTE) != 0;
		if (si->spin) {
			d->pspin[i] = lspin[pi];
			lspin[pi] = i;
		}
		dpor_bwake_one(d, i);
		si->rule1 = (uint8_t)dpor_rule1(d, i);
		if (i >= t->fresh)
			continue;
		count[pi]++;
		present |= PR_PROC_BIT(pi);
	}
	if (fe < n)
		memcpy(last, lastf, sizeof(last));
	if (d->ncol > d->wcol && clk_widen(d, d->capclk) < 0) {
		d->kept = 0;
		return;		/* no analysis: fewer backtracks */
	}
	d->nextw[n] = n;
	for (size_t k = n; k-- > keep;)
		d->nextw[k] = d->st[k].wrote ? k : d->nextw[k + 1];
	for (size_t k = keep; k-- > 0;) {
		if (d->st[k].wrote) {
			d->nextw[k] = k;	/* and so on up: as they were */
			break;
		}
		d->nextw[k] = d->nextw[k + 1];
	}
	d->kept = n;
	/* Step indices name other steps now: no tail's key holds. */
	if (!d->tail || ++d->gen == 0) {
		if (!d->tail)
			d->tail = malloc(PR_MAX_PROCS * sizeof(*d->tail));
		if (!d->tail) {
			d->kept = 0;
			return;		/* no analysis: fewer backtracks */
		}
		for (int q = 0; q < PR_MAX_PROCS; q++)
			d->tail[q].gen = 0;
		d->gen = 1;
	}
	for (size_t i = t->fresh; i < n; i++) {
		const struct dpor_step *si = &d->st[i];
		uint32_t *ci = CLK(d, i);
		size_t cs[PR_MAX_PROCS], ce[PR_MAX_PROCS], nc = 0, wi;
		size_t cs0[PR_MAX_PROCS];
		struct dpor_memo *mq[PR_MAX_PROCS];
		pr_procset todo = 0;
		int ri, wrote;
		int pi = si->proc;
		size_t nraces = 0;

		if (last[pi] != SIZE_MAX)
			memcpy(ci, CLK(d, last[pi]), d->wcol * sizeof(*ci));
		else
			memset(ci, 0, d->wcol * sizeof(*ci));
		/*
		 * The steps not yet known to happen before e_i, latest first:
		 * of process q, those after its ci[q]-th.  Once one of q's is
		 * ordered before e_i, so are all its earlier ones.  Most of
		 * them touch nothing e_i touches: first the packed signatures
		 * rule those out (dpor_rule1()), leaving each process's candidates
		 * in cand[cs[q]..ce[q]), latest first; then they are visited,
		 * latest first over all processes, as the clock grows.  A
		 * step ruled out would have been found independent by
		 * dpor_dependent_at(), and changed nothing.
		 */
		ri = si->rule1 && !(si->spin && dpor_spin_writer(d, i) >= i);
		wi = si->spin ? dpor_spin_writer(d, i) : d->bwake[i];
		wrote = si->wrote;
		if (pr_dpor_filter_check)
			dpor_filter_check(d, i, last, ci, present, wi, ri, wrote);
		if (chain_at == SIZE_MAX || chain_at + 1 != i || chain_pi != pi)
			dpor_chain_reset(&chain);	/* other tails now */
		if ((comb.at != SIZE_MAX && comb.at + 1 == i && comb.pi == pi &&
		     dpor_comb_ruled_out(d, &comb, si, i, wi, ri, wrote, ci)) ||
		    dpor_chain_seen(d, &chain, i)) {
			/* No candidate, or its twin's: no race. */
			if (pr_dpor_short_check)
				dpor_short_step(d, i, last, ci, present, wi, ri,
					   wrote);
			if (comb.at != SIZE_MAX && comb.at + 1 == i)
				comb.at = i;
			chain_at = i;
			chain_pi = pi;
			goto own;
		}
		for (pr_procset m = present; m; m &= m - 1) {
			int q = __builtin_ctzll(m);
			struct dpor_tail *tq = &d->tail[q];

			cs[q] = cs0[q] = nc;
			mq[q] = NULL;
			if (tq->gen == d->gen && tq->last == last[q] &&
			    tq->clk == CLKQ(d, ci, q)) {
				mq[q] = dpor_tail_again(d, tq, q, si, i, wi, ri,
						   wrote, ci, &nc);
			} else {
				tq->gen = d->gen;
				tq->last = last[q];
				tq->clk = CLKQ(d, ci, q);
				tq->sum = tq->nmemo = tq->next = 0;
				for (size_t j = last[q];
				     j != SIZE_MAX && d->st[j].seq > CLKQ(d, ci, q);
				     j = d->prevsame[j])
					if (!dpor_ruled_out(d, j, si, i, wi, ri, wrote))
						d->cand[nc++] = j;
			}
			ce[q] = nc;
			if (nc > cs[q])
				todo |= PR_PROC_BIT(q);
		}
		while (todo) {
			const uint32_t *cj;
			struct dpor_memo *mo;
			size_t j = 0, s;
			int pj = -1, dep, c;

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
			c = (int)(cs[pj] - cs0[pj]);
			if (++cs[pj] == ce[pj])
				todo &= ~PR_PROC_BIT(pj);
			cj = CLK(d, j);
			if (pj == pi)
				continue;
			mo = mq[pj];
			if (mo && mo->src != i && (mo->nodep >> c & 1)) {
				if (pr_dpor_short_check)
					dpor_short_dep(d, j, i);
				continue;	/* as for mo->src: independent */
			}
			dep = dpor_dependent_at(d, j, i);
			if (!dep && mo && mo->src == i)
				mo->nodep |= (uint8_t)(1u << c);
			if (!dep)
				continue;
			if (nraces + 2 > d->capraces) {
				size_t cap = d->capraces ? 2 * d->capraces : 64;
				size_t *nr = realloc(d->races, cap * sizeof(*nr));

				if (!nr)
					abort();	/* unsound otherwise */
				d->races = nr;
				d->capraces = cap;
			}
			d->races[nraces++] = j | (dep >= 2 ? PR_NOREV : 0) |
				(d->bounded && d->bstart[j] != j &&
				 !dpor_movable(d, j, i, ci) ? PR_NOCONS : 0);
			s = dep == 3 ? dpor_wait_store(d, j, i) : SIZE_MAX;
			if (s != SIZE_MAX)
				d->races[nraces++] = s |
					(d->bounded && d->bstart[s] != s &&
					 !dpor_movable(d, s, i, ci) ? PR_NOCONS : 0);
			/* Columns of processes not yet present are 0 in both. */
			for (unsigned w = 1; w < d->ncol; w++)
				if (cj[w] > ci[w])
					ci[w] = cj[w];
		}
		if (nraces) {
			chain_at = SIZE_MAX;
		} else {
			chain_at = i;
			chain_pi = pi;
			if (dpor_memo_able(d, i))
				dpor_chain_add(d, &chain, i);
		}
		if (nraces)
			comb.at = SIZE_MAX;
		else if (comb.at != SIZE_MAX && comb.at + 1 == i && comb.pi == pi)
			comb.at = i;
		else
			dpor_comb_build(d, &comb, present, last, ci, pi, i);
own:
		present |= PR_PROC_BIT(pi);
		d->st[i].seq = ++count[pi];
		CLKQ(d, ci, pi) = d->st[i].seq;
		last[pi] = i;
		for (size_t r = 0; r < nraces; r++)
			if (d->races[r] & PR_NOREV)
				continue;
			else if (d->bounded)
				dpor_reverse_bounded(d, d->races[r] & PR_RACE_J, i,
						!(d->races[r] & PR_NOCONS));
			else
				dpor_reverse(d, d->races[r] & PR_RACE_J, i);
		if (t->node[i].ev.kind == PR_K_LOCK && !pr_dpor_locks)
			lock_race(d, i, ci);
		if (!d->bounded && pr_dpor_ticks != 1 && pr_dpor_ticks != 2 &&
		    (t->node[i].ev.flags & PR_EV_OBS))
			dpor_observed(d, i);
	}
	if (!pr_dpor_locks)
		lock_waiters(d);
}

