/* SPDX-License-Identifier: MIT */
/*
 * bpor.c - what a preemption bound adds to dpor (bounded partial-order
 * reduction, Coons, Musuvathi & McKinley, OOPSLA 2013; dpor.c's header
 * says what and why): the sleepers' preemption cost, the backtrack at
 * the race and at its conservative point.
 */
#include "strategy/dpor.h"
#include "runtime/tsan.h"

#include <stdint.h>

/*
 * Sleep sets under a preemption bound.  Node s explored p, and now takes
 * w1: p sleeps in w1's subtree until a step dependent with p's.  The
 * usual argument -- an execution s.w.p.v there (w independent of p) is
 * equivalent to s.p.w.v, which p's subtree covered -- needs s.p.w.v
 * within the bound too, and moving p's step forward changes the count.
 * With cur(x) the context that may go on at node x (PR_NO_PROC: none;
 * choosing y at x preempts iff cur(x) is set and y differs), m = s.w,
 * and c' = cur(m.p) the context p's step leaves able to go on, the
 * preemptions of s.p.w.v minus those of s.w.p.v are
 *
 *   [cur(s)] ([p != cur(s)] - [w1 != cur(s)])     (the choice at s)
 * + [c'] ([w1 != c'] - [v1 != c'])                (after p's step)
 * + [cur(m)] ([v1 != cur(m)] - [p != cur(m)])     (after w)
 *
 * (the steps inside w and v see the same states and the same cur in
 * both orders, since p's step commutes with w's).  p != cur(m) and
 * w1 != c' (a step of c' after p's would be dependent: c' is p, or the
 * context p's delivery interrupts), so the last two lines are at most
 * [c' set and v1 = c'].  Call the first line the sleeper's cost change:
 *  - -1 (p was cur(s), w1 preempted it): the difference is <= 0 for
 *    every v, so p sleeps as usual;
 *  - 0: <= 0 unless the step after p is c' going on: p may run in w1's
 *    subtree only as the start of a block, and the node after it may
 *    only let c' go on (psleep and cont);
 *  - +1 (p preempted cur(s), w1 let it go on): no sleeper.
 * Every execution a sleeper cuts off is so equivalent to one within the
 * bound that starts with p at s, and p's subtree covered every such one
 * (the same induction over the order of exploration as for plain sleep
 * sets).  Without a bound every sleeper is plain (-1).
 */
PR_NO_TSAN int dpor_sleep_cost(const struct pr_tree *t,
				      const struct pr_tnode *nd, int old)
{
	int c;

	if (!dpor_of((struct pr_tree *)t)->bounded)
		return -1;
	if (nd->cur == PR_NO_PROC)
		return 0;
	c = (old != nd->cur) - (nd->chosen != nd->cur);
	return c > 0 ? INT8_MAX : c;
}

/*
 * BPOR at node @nk: e_i's process @p if it is an enabled initial, else
 * every enabled initial, else every enabled process (the persistent-set
 * rule of Flanagan & Godefroid).  Not just p where p is enabled: when
 * e_i is a handler's step, p's step at nk is the interrupted code's, and
 * only the delivery (an initial) leads to e_i.
 */
PR_NO_TSAN static void backtrack_bounded(struct pr_tnode *nk, pr_procset ini,
					 int p)
{
	pr_procset cand = ini & nk->enabled;

	if (cand & PR_PROC_BIT(p))
		nk->backtrack |= PR_PROC_BIT(p);
	else if (cand)
		nk->backtrack |= cand;
	else
		nk->backtrack |= nk->enabled;
}

/*
 * BPOR's race e_j < e_i: at node j, and at the conservative point: the
 * last node at or before j where the scheduler switched (its choice is
 * not the context that could go on), where running v first costs no
 * preemption more than the switch the execution made there.
 */
PR_NO_TSAN void dpor_reverse_bounded(struct dpor_strategy *d, size_t j,
				     size_t i, int cons)
{
	struct pr_tree *t = &d->tree;
	int p = t->node[i].ev.proc;
	pr_procset ini = dpor_initials(d, j, i);
	size_t k = d->bstart[j];

	backtrack_bounded(&t->node[j], ini, p);
	if (k != j && cons)
		backtrack_bounded(&t->node[k], ini, p);
}

/*
 * Can v = notdep(e_j).e_i run before e_k, k = bstart[j] < j: does no
 * step of v happen after e_k?  @ci: e_i's clock before the race with e_j
 * joined it.
 */
PR_NO_TSAN int dpor_movable(const struct dpor_strategy *d, size_t j, size_t i,
			    const uint32_t *ci)
{
	const struct pr_tree *t = &d->tree;
	size_t k = d->bstart[j];
	int pj = t->node[j].ev.proc, pk = t->node[k].ev.proc;

	if (covered(ci, d, k, pk))
		return 0;
	for (size_t x = j + 1; x < i; x++) {
		const uint32_t *cx = CLK(d, x);

		if (covered(ci, d, x, t->node[x].ev.proc) &&
		    !covered(cx, d, j, pj) && covered(cx, d, k, pk))
			return 0;
	}
	return 1;
}

