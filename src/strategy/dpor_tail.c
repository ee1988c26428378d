/* SPDX-License-Identifier: MIT */
/*
 * dpor_tail.c - the race walk's shortcuts (dpor_tail.h) for a process
 * that runs alone: a livelocked run is one context's 100,000 steps, each
 * of which dpor_analyse() would otherwise walk back over the same steps
 * of the others.  Each shortcut gives what the walk gives.
 */
#include "strategy/dpor_tail.h"
#include "runtime/tsan.h"

#include <stdint.h>
#include <string.h>

/*
 * A new step of a process that runs alone for long (a spin or a retry
 * loop: most of a livelocked run's 100,000 steps) finds the other
 * processes' tails unchanged from its previous step -- the same latest
 * step, the same clock entry -- and the same few kinds of step of its
 * own.  So a tail met again is walked once more to summarise it (struct
 * dpor_tail), and from then on a step that meets it asks the summary
 * first.  Where the waker @wi is not in the tail and no spin resumption
 * j there has nextw[j + 1] == i (if one has, the latest one has: no
 * writing step after it before i), ruled_out() of a tail step depends
 * on the new step's rule1 and signatures alone: then the tail is ruled
 * out whole if their union is (the signatures' meet is monotone in their
 * bits), and otherwise the candidates a walk left for a step with the
 * same rule1 and signatures are its candidates.  Anything else walks the
 * tail as before: the same candidates in the same order either way.  A
 * tail met once (most, in executions that are not livelocked) costs the
 * key's three stores only.
 */
PR_NO_TSAN static inline int tail_plain(const struct dpor_strategy *d,
					const struct dpor_tail *tq, int q,
					size_t i, size_t wi, int wrote,
					const uint32_t *ci)
{
	return !(wi < i && d->st[wi].proc == q && d->st[wi].seq > CLKQ(d, ci, q)) &&
	       !(tq->spin != SIZE_MAX && wrote && d->nextw[tq->spin + 1] == i);
}

/* Process @q's tail, latest first: its candidates, and its summary. */
PR_NO_TSAN static void walk_tail(struct dpor_strategy *d,
				 struct dpor_tail *tq, int q,
				 const struct dpor_step *si, size_t i,
				 size_t wi, int ri, int wrote,
				 const uint32_t *ci, size_t *nc)
{
	uint64_t rs = 0, ws = 0;
	size_t spin = SIZE_MAX;
	uint8_t r1 = 1;

	for (size_t j = tq->last; j != SIZE_MAX && d->st[j].seq > CLKQ(d, ci, q);
	     j = d->prevsame[j]) {
		const struct dpor_step *sj = &d->st[j];

		rs |= sj->rsig;
		ws |= sj->wsig;
		r1 &= sj->rule1;
		if (sj->spin && spin == SIZE_MAX)
			spin = j;
		if (!dpor_ruled_out(d, j, si, i, wi, ri, wrote))
			d->cand[(*nc)++] = j;
	}
	tq->sum = 1;
	tq->rule1 = r1;
	tq->spin = spin;
	tq->rsig = rs;
	tq->wsig = ws;
}

/*
 * And dependent_at() of those candidates: where the tail is plain (as
 * above), e_i neither a spin nor a sleep resumption, dependent_at(j, i)
 * is dependent_nospin() of e_j (as the analysis sees it, fixed) and e_i,
 * so a step whose event is the same as the one that left the candidates
 * (@src) -- the next turn of a retry loop -- finds independent what src
 * found independent.  memo.nodep records those.
 */
PR_NO_TSAN int dpor_memo_able(const struct dpor_strategy *d, size_t i)
{
	const struct pr_event *e = &d->tree.node[i].ev;

	return e->kind != PR_K_SPIN && e->kind != PR_K_BLOCK;
}

/* Do steps @a and @b have the same event, all dependent_nospin() reads? */
PR_NO_TSAN static int same_step(const struct dpor_strategy *d, size_t a,
				size_t b)
{
	const struct pr_event *x = &d->tree.node[a].ev, *y = &d->tree.node[b].ev;

	if (x->proc != y->proc || x->kind != y->kind || x->ctx != y->ctx ||
	    x->flags != y->flags || x->neff != y->neff || x->bit1 != y->bit1 ||
	    x->size != y->size || x->order != y->order || x->obj != y->obj ||
	    x->wq != y->wq || x->rsig != y->rsig || x->wsig != y->wsig ||
	    !dpor_memo_able(d, b))
		return 0;
	for (int k = 0; k < x->neff; k++)
		if (x->eff[k].obj != y->eff[k].obj ||
		    x->eff[k].size != y->eff[k].size ||
		    x->eff[k].kind != y->eff[k].kind ||
		    x->eff[k].bit1 != y->eff[k].bit1)
			return 0;
	return 1;
}

int pr_dpor_short_check;
unsigned long long pr_dpor_short_used, pr_dpor_short_wrong;

/* Checking (pr_dpor_short_check): the walk of q's tail, against @got. */
PR_NO_TSAN static void verify_tail(const struct dpor_strategy *d, int q,
				   size_t lastq, const struct dpor_step *si,
				   size_t i, size_t wi, int ri, int wrote,
				   const uint32_t *ci, const size_t *got,
				   size_t ngot)
{
	size_t k = 0;

	pr_dpor_short_used++;
	for (size_t j = lastq; j != SIZE_MAX && d->st[j].seq > CLKQ(d, ci, q);
	     j = d->prevsame[j]) {
		if (dpor_ruled_out(d, j, si, i, wi, ri, wrote))
			continue;
		if (k == ngot || got[k] != j) {
			pr_dpor_short_wrong++;
			return;
		}
		k++;
	}
	if (k != ngot)
		pr_dpor_short_wrong++;
}

PR_NO_TSAN struct dpor_memo *dpor_tail_again(struct dpor_strategy *d,
					     struct dpor_tail *tq, int q,
					     const struct dpor_step *si,
					     size_t i, size_t wi, int ri,
					     int wrote, const uint32_t *ci,
					     size_t *nc)
{
	struct dpor_memo *mo;
	size_t n0 = *nc;

	if (tq->sum) {
		if (!tail_plain(d, tq, q, i, wi, wrote, ci)) {
			walk_tail(d, tq, q, si, i, wi, ri, wrote, ci, nc);
			return NULL;
		}
		if (ri && tq->rule1 &&
		    !pr_sig_meet(tq->rsig, tq->wsig, si->rsig, si->wsig)) {
			if (pr_dpor_short_check)
				verify_tail(d, q, tq->last, si, i, wi, ri,
					    wrote, ci, NULL, 0);
			return NULL;
		}
		for (int k = 0; k < tq->nmemo; k++) {
			mo = &tq->memo[k];
			if (mo->rsig != si->rsig || mo->wsig != si->wsig ||
			    mo->ri != ri)
				continue;
			for (int c = 0; c < mo->n; c++)
				d->cand[(*nc)++] = mo->cand[c];
			if (pr_dpor_short_check)
				verify_tail(d, q, tq->last, si, i, wi, ri,
					    wrote, ci, &d->cand[n0], mo->n);
			return mo->nodep && same_step(d, mo->src, i) ? mo : NULL;
		}
	}
	walk_tail(d, tq, q, si, i, wi, ri, wrote, ci, nc);
	if (*nc - n0 > DPOR_MEMO_CAND || !tail_plain(d, tq, q, i, wi, wrote, ci))
		return NULL;
	if (tq->nmemo < DPOR_MEMO)
		mo = &tq->memo[tq->nmemo++];
	else
		mo = &tq->memo[tq->next++ % DPOR_MEMO];
	mo->rsig = si->rsig;
	mo->wsig = si->wsig;
	mo->ri = (uint8_t)ri;
	mo->n = (uint8_t)(*nc - n0);
	mo->nodep = 0;
	mo->src = i;
	for (int c = 0; c < mo->n; c++)
		mo->cand[c] = d->cand[n0 + c];
	return dpor_memo_able(d, i) ? mo : NULL;
}

/* After step @i of @pi, with no race: the union for pi's next step. */
PR_NO_TSAN void dpor_comb_build(const struct dpor_strategy *d,
				struct dpor_comb *cb, pr_procset present,
				const size_t *last, const uint32_t *ci, int pi,
				size_t i)
{
	cb->at = SIZE_MAX;
	cb->rule1 = 1;
	cb->spin = SIZE_MAX;
	cb->rsig = cb->wsig = 0;
	for (pr_procset m = present & ~PR_PROC_BIT(pi); m; m &= m - 1) {
		int q = __builtin_ctzll(m);
		const struct dpor_tail *tq = &d->tail[q];

		if (tq->gen != d->gen || tq->last != last[q] ||
		    tq->clk != CLKQ(d, ci, q) || !tq->sum)
			return;
		cb->rule1 &= tq->rule1;
		if (tq->spin != SIZE_MAX &&
		    (cb->spin == SIZE_MAX || tq->spin > cb->spin))
			cb->spin = tq->spin;
		cb->rsig |= tq->rsig;
		cb->wsig |= tq->wsig;
	}
	cb->pi = pi;
	cb->at = i;
}


/* A step's slot in the stretch's table: by its signatures. */
PR_NO_TSAN static unsigned chain_slot(const struct pr_event *e)
{
	return (unsigned)((e->rsig ^ (e->wsig * 0x9e3779b97f4a7c15ull)) >>
			  (64 - DPOR_CHAIN_BITS));
}

PR_NO_TSAN void dpor_chain_reset(struct dpor_chain *ch)
{
	if (++ch->cur == 0) {
		memset(ch, 0, sizeof(*ch));
		ch->cur = 1;
	}
}

PR_NO_TSAN void dpor_chain_add(const struct dpor_strategy *d,
			       struct dpor_chain *ch, size_t i)
{
	unsigned k = chain_slot(&d->tree.node[i].ev);

	ch->step[k] = i;
	ch->gen[k] = ch->cur;
}

PR_NO_TSAN int dpor_chain_seen(const struct dpor_strategy *d,
			       const struct dpor_chain *ch, size_t i)
{
	const struct pr_event *e = &d->tree.node[i].ev, *x;
	unsigned k = chain_slot(e);

	if (ch->gen[k] != ch->cur)
		return 0;
	x = &d->tree.node[ch->step[k]].ev;
	if (x->rsig != e->rsig || x->wsig != e->wsig)
		return 0;
	if (pr_dpor_short_check == 2)	/* planted: unsound */
		return 1;
	return x->obj == e->obj && same_step(d, ch->step[k], i);
}
