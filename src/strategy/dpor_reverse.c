/* SPDX-License-Identifier: MIT */
/*
 * dpor_reverse.c - how dpor reverses a race it found (dpor_race.c finds
 * them): the initials of the reversed order, the backtrack point they go
 * to, and the weak model's memory-time bumps, which race only where a
 * later load observes their order.
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
	uint32_t firstv[PR_MAX_PROCS];
	int inv[PR_MAX_PROCS], ninv = 0;
	pr_procset initials = 0, seen = 0;
	int pj = d->st[j].proc;

	for (size_t k = j + 1; k <= i; k++) {
		const uint32_t *ck = CLK(d, k);
		int pk = d->st[k].proc, initial = 1;

		if (k < i && covered(ck, d, j, pj))
			continue;	/* happens after e_j: not in v */
		if (seen & PR_PROC_BIT(pk))
			continue;	/* not its first step in v */
		/* An initial: no earlier step of v happens before it. */
		for (int q = 0; q < ninv && initial; q++)
			initial = firstv[inv[q]] > CLKQ(d, ck, inv[q]);
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
PR_NO_TSAN void dpor_reverse(struct dpor_strategy *d, size_t j, size_t i)
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
 * only where such an observer follows them: at observer e_i, pairs of
 * bumps e_a < e_b before it, of different processes, with e_a not
 * happening before e_b, are reversed as a race would be (node a gets an
 * initial of notdep(e_a).e_b).  Which pairs: the load at location L
 * reads value k when the write that ended k's interval (a bump at L) is
 * later than every time its floor took (stale.c: max(floor, coh)), and
 * each of those times is a bump's that reached the load through steps
 * that happen before it (its CPU's own, a read-from, a lock's handover,
 * a grace period's word).  Its outcome is therefore fixed by the order
 * of each bump at L against each bump its floor took a time from: the
 * floor's sources, which the weak model keeps beside each time of a
 * view (stale.c; every bump that went into a maximum, a superset of the
 * one that won it) and the observer reports (pr_effect_observe).  A
 * pair of which neither bump writes L, or neither is a source, or one
 * does not happen before e_i, may go either way without changing what
 * it reads.  Its process's previous observer of L took the pairs that
 * happened before that one and that it took.  Before the sources every
 * bump that happened before the observer counted as one:
 * C-WR-G+WR-G+WR-G+WR-R took 16,034 executions, now 3,068 (the grace
 * periods' steps happen before every later reader without being what
 * its floor took).
 *
 * Sleep sets: a sleeping bump e_a must wake at a bump e_b where an
 * observer will need e_b before e_a, or that order is never run.  Such
 * an order is asked for by the observer's reversal at node a
 * (reverse_bumps), which marks the branch it starts there (tickwake)
 * and records e_b's process (tickfrom): on that branch, and below it, a
 * sleeper wakes at a bump of a process in tickfrom (pr_dependent_sleep,
 * dpor.c); elsewhere, and at other processes' bumps, a sleeper wakes
 * only at a step dependent with its own (pr_dependent).  A flush's
 * process is its store-buffer slot's, the same in every execution, so
 * e_b's process in the reversed order is the one recorded.
 * C-SB+l-o-o-u+l-o-o-u+l-o-o-u-X went from 6,564 executions and 6,687
 * blocked ones to 1,193 and 3,247 with the marks; waking at any bump on
 * a marked branch (before tickfrom) C-ManfredSpraul-L1G1xchg took 12,576
 * executions under weak, now 5,934.  The bounded search keeps every two
 * bumps dependent, in the analysis (dependent_at) and in sleep sets.
 *
 * For tests (tests/memory_dpor), pr_dpor_ticks: 1 keeps every two bumps
 * dependent (the reference rule), 5 wakes a marked branch's sleepers
 * at every bump (a coarser rule, sound), 2 plants
 * an unsound analysis (bumps commute, no observer rule), 4 another (no
 * branch marked: sleepers never wake at bumps) and 6 a third (branches
 * marked, tickfrom not recorded), which must lose states.
 *
 * With every two writes to memory dependent, C-WW-G+WW-B+WW-R (six
 * stores, no load) takes 14,010 executions under weak against 1,168 under
 * tso, with the same final states (tools/litmus-states.sh compares them).
 * Choosing the pairs by location and happens-before, rather than
 * reversing every unordered pair at each observer, takes
 * WW+WR+WR+WR+onces+locked from 150 executions under weak to 56 (sc: 15).
 */
int pr_dpor_ticks;

/*
 * The pair of bumps e_a < e_b, reversed for an observer: as a race, and
 * the branch at node a that starts the reversed order is marked
 * (tickwake), so that a sleeper there wakes at a bump: the steps put to
 * sleep at node a include e_a, which must come after e_b there.
 */
PR_NO_TSAN static void reverse_bumps(struct dpor_strategy *d, size_t a,
				     size_t b)
{
	struct pr_tnode *na = &d->tree.node[a];
	pr_procset cand = dpor_initials(d, a, b) & na->enabled;
	int pb = d->tree.node[b].ev.proc;

	if (!cand)
		return;
	if (pr_dpor_ticks == 4) {	/* planted: no mark */
		dpor_reverse(d, a, b);
		return;
	}
	if (pr_dpor_ticks != 6)		/* 6, planted: wake at none */
		na->tickfrom |= PR_PROC_BIT(pb);
	if (cand & na->backtrack) {
		na->tickwake |= cand & na->backtrack;
		return;
	}
	if (!(cand & PR_PROC_BIT(pb)))
		pb = pr_proc_lowest(cand);
	na->backtrack |= PR_PROC_BIT(pb);
	na->tickwake |= PR_PROC_BIT(pb);
}

/* Does bump @e write [obj, obj + size) (or may it: more than one)? */
PR_NO_TSAN static int bumps_at(const struct pr_event *e, const void *obj,
			       uint32_t size)
{
	uintptr_t a = (uintptr_t)e->tobj, b = (uintptr_t)obj;

	if (e->tsize == PR_EV_MANY)
		return 1;
	return e->tobj && a < b + size && b < a + e->tsize;
}

/* Did bump @e give observer @o's floor its time (or may it have)? */
PR_NO_TSAN static int floored(const struct pr_event *o, const struct pr_event *e)
{
	return pr_tickset_meets(&o->from, e->tfirst, e->tlast);
}

/* Does observer @o reverse the pair of bumps @a < @b? */
PR_NO_TSAN static int takes(const struct pr_event *o, const struct pr_event *a,
			    const struct pr_event *b)
{
	int al = !o->oobj || bumps_at(a, o->oobj, o->osize);
	int bl = !o->oobj || bumps_at(b, o->oobj, o->osize);

	return (bl && floored(o, a)) || (al && floored(o, b));
}

PR_NO_TSAN void dpor_observed(struct dpor_strategy *d, size_t i)
{
	const struct pr_tree *t = &d->tree;
	const struct pr_event *eo = &t->node[i].ev, *ep = NULL;
	const uint32_t *co = CLK(d, i), *ck = NULL;

	/* Its process's last observer of the same location took those before. */
	for (size_t k = i; k-- > 0;) {
		const struct pr_event *ek = &t->node[k].ev;

		if (ek->proc == eo->proc && (ek->flags & PR_EV_OBS) &&
		    (!ek->oobj || (ek->oobj == eo->oobj &&
				   ek->osize == eo->osize))) {
			ck = CLK(d, k);
			ep = ek;
			break;
		}
	}
	for (size_t b = 1; b < i; b++) {
		const struct pr_event *eb = &t->node[b].ev;
		const uint32_t *cb = CLK(d, b);
		int pb = eb->proc, bk;

		if (!(eb->flags & PR_EV_TICK) || !covered(co, d, b, pb))
			continue;
		bk = ck && covered(ck, d, b, pb);
		for (size_t a = 0; a < b; a++) {
			const struct pr_event *ea = &t->node[a].ev;
			int pa = ea->proc;

			if (!(ea->flags & PR_EV_TICK) || pa == pb ||
			    !covered(co, d, a, pa) || covered(cb, d, a, pa) ||
			    !takes(eo, ea, eb) ||
			    (bk && covered(ck, d, a, pa) && takes(ep, ea, eb)))
				continue;
			reverse_bumps(d, a, b);
		}
	}
}

/*
 * Stale reads (weak; memory/stale.c).  Node k's load of L took the newest
 * value; it may also read older value v, the one v writes to L before
 * the newest ended (W_v-1 ... W_0, the last v bumps at L before k).  If
 * none of those writes happens before the load other than by the load's
 * own read of L -- not before its process's previous step, nor before any
 * other step it depends on -- and nothing it needs after W_v-1 bumps the
 * memory time, the load and what it needs can move ahead of W_v-1 in an
 * equivalent order, where value v is the newest: the same value at the
 * same time, so the same views and the same state after.  (A bump moved
 * past W_v-1, a bump too, would change their order, which a later load
 * may observe: C-RR-G+RR-R+RR-R's Sometimes was lost that way.)  That order is explored from W_v-1's node (the race of W_v-1
 * and the load, which the run that read the newest value reverses, with
 * the same initials), so reading v as an older value here repeats it.
 * Loads that must read an older value -- after the write is ordered
 * before them by a fence, a read-from, a lock or their own process --
 * are still explored.  Checked against dfs on generated programs
 * (tests/memory_dpor) and the litmus corpus's final states.
 *
 * Not for the bounded search: the reordered execution may switch where
 * the bound cannot pay.  pr_dpor_stale (tests): 1 explores every value;
 * 2 plants an unsound rule (the load needs nothing: every older value
 * after writes of other processes is skipped), which must lose states;
 * 3 another (bumps may move with the load).
 */
int pr_dpor_stale;

PR_NO_TSAN int dpor_stale_redundant(struct pr_tree *t, size_t k, int ver)
{
	struct dpor_strategy *d = dpor_of(t);
	const struct pr_event *r = &t->node[k].ev;
	uintptr_t ro = (uintptr_t)r->obj;
	uint32_t join[PR_MAX_PROCS + 1];
	size_t w[256], nw = 0;

	if (pr_dpor_stale == 1 || d->bounded || k >= d->kept || ver < 1 ||
	    (size_t)ver > sizeof(w) / sizeof(w[0]) ||
	    (r->kind != PR_K_LOAD && r->kind != PR_K_ACQUIRE) || !r->obj ||
	    (r->flags & (PR_EV_ALL | PR_EV_BLOCKS)) || r->proc >= PR_MAX_CTX ||
	    d->wcol > PR_MAX_PROCS + 1)
		return 0;
	/* The writes after value ver: the last ver bumps at L before k. */
	for (size_t x = k; x-- > 0 && nw < (size_t)ver;) {
		const struct pr_event *e = &t->node[x].ev;
		uintptr_t eo = (uintptr_t)e->tobj;

		if (e->flags & PR_EV_ALL)
			return 0;	/* it may have written L unseen */
		if (!(e->flags & PR_EV_TICK) || (!e->tobj && e->tsize == 0))
			continue;
		if (e->tsize == PR_EV_MANY)
			return 0;
		if (eo >= ro + r->size || ro >= eo + e->tsize)
			continue;
		if (e->tobj != r->obj || e->tsize != r->size)
			return 0;	/* another size: no history there */
		w[nw++] = x;
	}
	if (nw < (size_t)ver)
		return 0;
	/* What the load needs besides those writes: its clock without them. */
	memset(join, 0, d->wcol * sizeof(join[0]));
	for (size_t x = 0, m = nw; x < k && pr_dpor_stale != 2; x++) {
		const struct pr_event *e = &t->node[x].ev;
		const uint32_t *cx;

		if (m > 0 && x == w[m - 1]) {
			m--;
			continue;
		}
		if (e->proc != r->proc && !pr_dependent_sleep(e, r))
			continue;
		cx = CLK(d, x);
		for (unsigned c = 0; c < d->wcol; c++)
			if (cx[c] > join[c])
				join[c] = cx[c];
	}
	for (size_t m = 0; m < nw; m++)
		if (covered(join, d, w[m], t->node[w[m]].ev.proc))
			return 0;
	/*
	 * What moves ahead with the load must not bump the memory time: a
	 * bump moved past W_v-1 (itself a bump) changes their order, which
	 * a later load may observe (an observer, above).
	 */
	for (size_t x = w[nw - 1] + 1; x < k && pr_dpor_stale != 3; x++)
		if ((t->node[x].ev.flags & PR_EV_TICK) &&
		    covered(join, d, x, t->node[x].ev.proc))
			return 0;
	return 1;
}
