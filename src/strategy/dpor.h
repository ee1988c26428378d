/* SPDX-License-Identifier: MIT */
/*
 * dpor.h - the dpor strategy's state, shared by dpor.c (source-DPOR's
 * decisions), dpor_race.c (its race analysis) and bpor.c (what a
 * preemption bound adds).  Private to
 * src/strategy/.
 */
#ifndef PAGERACE_STRATEGY_DPOR_H
#define PAGERACE_STRATEGY_DPOR_H

#include <stddef.h>
#include <stdint.h>
#include "strategy/tree.h"

/*
 * What the race analysis's walk back over the execution reads of each
 * step, packed together (dpor_race.c): most steps it visits are ruled
 * out on these alone.
 */
struct dpor_step {
	uint64_t rsig, wsig;	/* the event's line signatures */
	uint32_t seq;		/* the event is its process's seq-th */
	uint8_t proc;
	uint8_t rule1;		/* rule 1 alone, but for some pairs (rule1()) */
	uint8_t spin;		/* a spin resumption */
	uint8_t wrote;		/* PR_EV_WROTE: wrote shared state */
};

/*
 * A process's tail in the race walk (dpor_race.c): its steps after the
 * new step's clock entry, from its latest, summarised so the walk can
 * rule them all out at once, and the candidates it left there for the
 * last few kinds of new step (their signatures).  Valid while last and
 * clk match.
 */
#define DPOR_MEMO	8	/* kinds of new step remembered a tail */
#define DPOR_MEMO_CAND	4	/* candidates remembered a kind */

struct dpor_memo {
	uint64_t rsig, wsig;	/* the new step's signatures, */
	uint8_t ri;		/*  and its rule1 as e_i */
	uint8_t n;		/* the candidates it left, latest first */
	uint8_t nodep;		/* bit c: cand[c] found independent of src */
	size_t src;		/* the step that left them */
	size_t cand[DPOR_MEMO_CAND];
};

struct dpor_tail {
	size_t last;		/* the process's latest step, and */
	uint32_t clk;		/*  the clock entry: the key */
	uint32_t gen;		/* the analysis the key is of (dpor->gen) */
	uint8_t sum;		/* rule1..wsig are set (the tail's second walk) */
	uint8_t rule1;		/* every step's rule1 */
	uint8_t nmemo, next;	/* memo[0..nmemo) used; the next to reuse */
	size_t spin;		/* the latest spin resumption, or SIZE_MAX */
	uint64_t rsig, wsig;	/* their signatures' union */
	struct dpor_memo memo[DPOR_MEMO];
};

struct dpor_strategy {
	struct pr_strategy base;
	struct pr_tree tree;
	uint32_t *clk;		/* clk[i * wcol + col[q]]: events of q that
				 * happen before or are event i */
	size_t capclk;
	/*
	 * The clocks' columns: one a process the analysis has met, given
	 * in the order met; column 0 stays 0 (a process not met yet).  A
	 * row was 64 entries, 256 bytes a step -- a livelocked run's
	 * 100,000 new steps wrote 25 MB of clocks, most of them zeros.
	 */
	uint8_t col[PR_MAX_PROCS];
	unsigned ncol, wcol;	/* columns given (with 0), and a row's width */
	size_t *races;		/* the current step's, during analysis */
	size_t capraces;
	size_t *nextw;		/* nextw[k]: the first writing step >= k */
	size_t *pspin;		/* pspin[i]: the spin resumption of i's
				 * process before i, or SIZE_MAX */
	size_t *bwake;		/* bwake[i]: the wake-up that woke sleep
				 * resumption i, or SIZE_MAX (dpor_race.c) */
	size_t *bstart;		/* bounded: the last switch at or before k */
	size_t *prevsame;	/* the step of the same process before k */
	struct dpor_step *st;	/* st[k]: step k, packed */
	size_t *cand;		/* the current step's possible races */
	struct dpor_tail *tail;	/* PR_MAX_PROCS of them (36 KB: not in the
				 * strategy, which calloc would zero) */
	uint32_t gen;		/* analyses begun: dpor_tail's keys */
	size_t kept;		/* nodes whose per-step records (bstart,
				 * prevsame, bwake, st) are still the tree's */
	int bounded;		/* BPOR: see the header comment */
};

#define CLK(d, i)	(&(d)->clk[(size_t)(i) * (d)->wcol])
/* Process @q's entry of clock @c. */
#define CLKQ(d, c, q)	((c)[(d)->col[q]])

static inline struct dpor_strategy *dpor_of(struct pr_tree *t)
{
	return (struct dpor_strategy *)((char *)t -
					offsetof(struct dpor_strategy, tree));
}

/* Is event j (of process pj) ordered before the event whose clock is c? */
static inline int covered(const uint32_t *c, const struct dpor_strategy *d,
			  size_t j, int pj)
{
	return d->st[j].seq <= CLKQ(d, c, pj);
}

/* dpor_race.c: the race analysis after each execution (the policy's). */
void dpor_analyse(struct pr_tree *t);

/* Tests: the bumps' rule (dpor_reverse.c): 0 observers, 1 ordered, 2 none,
 * 4 observers without marked branches, 5 marked branches wake at every
 * bump, 6 marked branches wake at none. */
extern int pr_dpor_ticks;
/*
 * For tests (tests/kernel_spinlock): 1 plants an unsound analysis of
 * locks -- neither lock_race() nor lock_waiters() (dpor_race.c) -- which
 * must lose final states.
 */
extern int pr_dpor_locks;

/*
 * Tests: the race of a store with its own flush (dpor_dep.c): 1 reversed
 * as any race, 2 planted: not reversed, and no wait races the store.
 */
extern int pr_dpor_own_flush;

/* Tests: check the race analysis's filter (dpor_race.c). */
extern int pr_dpor_filter_check;
extern unsigned long long pr_dpor_filter_out, pr_dpor_filter_wrong;

/* The initials of notdep(e_j).e_i (dpor_reverse.c). */
pr_procset dpor_initials(const struct dpor_strategy *d, size_t j, size_t i);
/* Reverse the race of steps @j < @i: a backtrack point at j (dpor_reverse.c). */
void dpor_reverse(struct dpor_strategy *d, size_t j, size_t i);
/* Step @i observes memory time: reverse the unordered bumps before it. */
void dpor_observed(struct dpor_strategy *d, size_t i);
/* The policy's stale_redundant (dpor_reverse.c). */
int dpor_stale_redundant(struct pr_tree *t, size_t k, int ver);
/* Tests: 1 explores every older value a load may read, 2 and 3 plant bad rules. */
extern int pr_dpor_stale;

/* dpor_dep.c: dependence as the analysis asks it. */
static inline int dpor_is_spin(const struct pr_event *e)
{
	return e->kind == PR_K_SPIN;
}

/* The writing step that may have re-enabled spin resumption @i. */
static inline size_t dpor_spin_writer(const struct dpor_strategy *d,
				      size_t i)
{
	return d->nextw[d->pspin[i] == SIZE_MAX ? 0 : d->pspin[i] + 1];
}

/* Step @i's waker, if it is a sleep resumption (d->bwake[i]). */
void dpor_bwake_one(struct dpor_strategy *d, size_t i);
/* 0 independent, 1 a race, 2 dependent but not reversed, 3 a wait. */
int dpor_dependent_at(const struct dpor_strategy *d, size_t j, size_t i);
/* For 3: the store whose race with wait @i stands in; SIZE_MAX: none. */
size_t dpor_wait_store(const struct dpor_strategy *d, size_t j, size_t i);
/* Is step @k's dependence decided by the signatures alone? */
int dpor_rule1(const struct dpor_strategy *d, size_t k);
/* Tests' cross-checks of the walk's filter and shortcuts. */
void dpor_filter_check(const struct dpor_strategy *d, size_t i,
		       const size_t *last, const uint32_t *ci,
		       pr_procset present, size_t wi, int ri, int wrote);
void dpor_short_dep(const struct dpor_strategy *d, size_t j, size_t i);
void dpor_short_step(const struct dpor_strategy *d, size_t i,
		     const size_t *last, const uint32_t *ci,
		     pr_procset present, size_t wi, int ri, int wrote);

/* bpor.c: the preemption bound's part. */
int dpor_sleep_cost(const struct pr_tree *t, const struct pr_tnode *nd,
		    int old);
int dpor_movable(const struct dpor_strategy *d, size_t j, size_t i,
		 const uint32_t *ci);
void dpor_reverse_bounded(struct dpor_strategy *d, size_t j, size_t i,
			  int cons);

#endif /* PAGERACE_STRATEGY_DPOR_H */
