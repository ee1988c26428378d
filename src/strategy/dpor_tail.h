/* SPDX-License-Identifier: MIT */
/*
 * dpor_tail.h - the race walk's shortcuts (dpor_tail.c): what the walk
 * over the other processes' steps found for one step of a process that
 * runs alone, kept for its next steps.  Private to dpor_race.c and
 * dpor_tail.c.
 */
#ifndef PAGERACE_STRATEGY_DPOR_TAIL_H
#define PAGERACE_STRATEGY_DPOR_TAIL_H

#include "strategy/dpor.h"

/*
 * May the walk in dpor_analyse() pass over step @j as independent of
 * step @i on their packed records alone?  @ri: i's rule1() as e_i (a
 * spin resumption whose waker is unknown is not), @wi: i's waker
 * (spin_writer() or bwake[]), @wrote: i wrote shared state.
 */
static inline int dpor_ruled_out(const struct dpor_strategy *d, size_t j,
				 const struct dpor_step *si, size_t i,
				 size_t wi, int ri, int wrote)
{
	const struct dpor_step *sj = &d->st[j];

	return ri && sj->rule1 && j != wi &&
	       !pr_sig_meet(sj->rsig, sj->wsig, si->rsig, si->wsig) &&
	       !(sj->spin && wrote && d->nextw[j + 1] == i);
}

/*
 * A process that runs alone (a livelocked run: one context's 100,000
 * steps) meets, step after step, the same tails of every other process:
 * while it takes step after step with no race, their keys do not change
 * (its clock does not grow), and the union of their summaries rules a
 * step out as tail_again() would each tail: no candidate anywhere, as
 * the per-process walk would find.  @at: the step after which the union
 * holds for the next step of process @pi (SIZE_MAX: none).  The waker of
 * step i is in some tail if it is after its process's clock entry.
 */
struct dpor_comb {
	size_t at;
	int pi;
	uint8_t rule1;
	size_t spin;		/* the latest spin resumption of all */
	uint64_t rsig, wsig;
};

PR_NO_TSAN static inline int dpor_comb_ruled_out(const struct dpor_strategy *d,
						 const struct dpor_comb *cb,
						 const struct dpor_step *si,
						 size_t i, size_t wi, int ri,
						 int wrote, const uint32_t *ci)
{
	return ri && cb->rule1 &&
	       !(wi < i && d->st[wi].seq > CLKQ(d, ci, d->st[wi].proc)) &&
	       !pr_sig_meet(cb->rsig, cb->wsig, si->rsig, si->wsig) &&
	       !(cb->spin != SIZE_MAX && wrote && d->nextw[cb->spin + 1] == i);
}

/*
 * And a step that does meet some tail, in such a stretch -- a run of
 * steps of one process with no race, which all meet the same tails -- is
 * the same as an earlier step of the stretch, more often than not: the
 * next turn of the retry loop.  Its candidates are that twin's, or fewer
 * (the only clause of ruled_out() that a step's index decides, a spin
 * resumption j in a tail with nextw[j + 1] == i, cannot hold for a step
 * that writes after a twin that wrote), and dependent_at() of each is
 * dependent_nospin() of the same two events (neither a spin nor a sleep
 * resumption: memo_able()), with the same clock: so it has no race
 * either.  The stretch's race-free steps are kept in a table of
 * DPOR_CHAIN slots by their signatures, the latest in each.
 */
#define DPOR_CHAIN_BITS	4
#define DPOR_CHAIN	(1u << DPOR_CHAIN_BITS)

/* The stretch's race-free steps, one a slot (by signatures), this gen's. */
struct dpor_chain {
	size_t step[DPOR_CHAIN];
	uint32_t gen[DPOR_CHAIN];
	uint32_t cur;
};

/*
 * Step @i's candidates in process @q's tail (key @q's latest step and
 * ci[q], met before in this analysis), appended to d->cand[*nc..),
 * latest first; the memo whose nodep step @i may use, or NULL.
 */
struct dpor_memo *dpor_tail_again(struct dpor_strategy *d,
				  struct dpor_tail *tq, int q,
				  const struct dpor_step *si, size_t i,
				  size_t wi, int ri, int wrote,
				  const uint32_t *ci, size_t *nc);
/* May step @i leave or use a memo's nodep (not a spin or sleep resumption)? */
int dpor_memo_able(const struct dpor_strategy *d, size_t i);
void dpor_comb_build(const struct dpor_strategy *d, struct dpor_comb *cb,
		     pr_procset present, const size_t *last,
		     const uint32_t *ci, int pi, size_t i);
/* A new stretch: no step of the last one is kept. */
void dpor_chain_reset(struct dpor_chain *ch);
/* Race-free step @i of the stretch, kept (in its slot). */
void dpor_chain_add(const struct dpor_strategy *d, struct dpor_chain *ch,
		    size_t i);
/* Is step @i the same as one kept of its stretch? */
int dpor_chain_seen(const struct dpor_strategy *d,
		    const struct dpor_chain *ch, size_t i);

/*
 * For tests (tests/strategy_race): with pr_dpor_short_check set, every
 * shortcut taken is checked against the walk it saves -- the same
 * candidates, or, for a step passed over whole or a candidate found
 * independent by its twin, dependent_at() asked all the same -- and
 * counted in pr_dpor_short_wrong where they differ; the search is not
 * changed.  2 plants an unsound shortcut (a twin by its signatures
 * alone), which the count must catch, and which does change the search.
 */
extern int pr_dpor_short_check;
extern unsigned long long pr_dpor_short_used, pr_dpor_short_wrong;

#endif /* PAGERACE_STRATEGY_DPOR_TAIL_H */
