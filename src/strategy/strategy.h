/* SPDX-License-Identifier: MIT */
/*
 * strategy.h - the scheduling strategies (random, pct, pos, surw, the
 * portfolio, replay, guided, dfs, dpor) behind the runtime's three-call
 * interface (runtime/choice.h), and their parameters.
 *
 * A strategy's randomness derives from (seed, run index) alone, so that any
 * run can be re-executed on its own and runs can be split across workers.
 */
#ifndef PAGERACE_STRATEGY_H
#define PAGERACE_STRATEGY_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/choice.h"

/* Parameters that any strategy may read; parsed from the command line. */
struct pr_strategy_params {
	int pct_depth;		/* PCT's d: d-1 priority change points */
	uint64_t pct_steps;	/* PCT's k: estimated run length */
	int has_bound;		/* dfs: preemption_bound applies */
	int preemption_bound;	/* dfs: at most this many preemptions a run */
	unsigned shard, shards;	/* dfs, dpor: explore part I of N (N 0: all) */
};

struct pr_schedule;

struct pr_strategy *pr_random_create(void);
/*
 * The random walk with a draw for the choice and one for each step of
 * its budget (random's law, more draws): PCT's calibration runs it, so
 * that k, and every schedule that depends on it, does not depend on how
 * random draws.
 */
struct pr_strategy *pr_random_calibration_create(void);
struct pr_strategy *pr_pct_create(const struct pr_strategy_params *p);
/* Partial order sampling (pos.c); interrupts arrive over pct_steps. */
struct pr_strategy *pr_pos_create(const struct pr_strategy_params *p);
struct pr_strategy *pr_replay_create(const struct pr_schedule *sched);
/* Systematic: dfs.c (bound honoured), dpor.c (NULL if a bound is set). */
struct pr_strategy *pr_dfs_create(const struct pr_strategy_params *p);
struct pr_strategy *pr_dpor_create(const struct pr_strategy_params *p);
/* Make a replay stop at every yield point, for step observers. */
void pr_replay_single_step(struct pr_strategy *s);

/*
 * Guided (guided.c, for the minimiser): follow @n segments leniently -- a
 * segment whose choice is not enabled is skipped, one whose context stops
 * early ends early -- then run without preemption: the running context
 * goes on, and when it stops the lowest-numbered enabled choice runs.
 * @segs is borrowed and must outlive the strategy.
 */
struct pr_segment;
struct pr_strategy *pr_guided_create(const struct pr_segment *segs, size_t n);

/*
 * Witness (witness.c): random scheduling steered by @score, which rates
 * choice @i of @cs PR_WITNESS_AVOID, _SLOW, _NEUTRAL or _PREFER (weighted
 * 0, 1, 4 and 16, times a per-run priority of the choice's context in
 * every other run).  AVOID must mean "this choice leaves the outcome out
 * of reach": a run where every choice is avoided is abandoned
 * (PR_PICK_ABANDON).  Sees memory (flushes, older values); one step a
 * decision.  Every run is a run of the model, replayable from its
 * schedule.  Not by name: the scorer is the caller's.
 */
enum { PR_WITNESS_AVOID = 0, PR_WITNESS_SLOW, PR_WITNESS_NEUTRAL,
       PR_WITNESS_PREFER };
typedef int (*pr_choice_score)(void *arg, const struct pr_choices *cs, int i);
struct pr_strategy *pr_witness_create(pr_choice_score score, void *arg);
/*
 * A dpor strategy without a preemption bound (else nothing happens):
 * at each new node take first, of the choices it may take first, the
 * one @score rates highest (ties: the running context, then the lowest
 * process).  Source-DPOR may start a node with any awake choice, so the
 * search still covers every class; only the order it meets them in
 * changes -- for a goal search (cli/litmus_goal.c), towards a witness.
 */
void pr_dpor_prefer(struct pr_strategy *s, pr_choice_score score, void *arg);

struct pr_program;
struct pr_run_options;
/* PCT's k for @prog: the longest of four reserved random runs of @seed. */
uint64_t pr_pct_calibrate(const struct pr_program *prog,
			  const struct pr_run_options *opts, uint64_t seed);

/*
 * Selectively uniform random walk (surw.c); like pos, interrupts arrive
 * over pct_steps.  pr_surw_learn runs its trial runs (reserved run
 * indexes, a function of @seed): call it once before exploring.
 */
struct pr_strategy *pr_surw_create(const struct pr_strategy_params *p);
int pr_surw_learn(struct pr_strategy *s, const struct pr_program *prog,
		  const struct pr_run_options *opts, uint64_t seed);

/*
 * Portfolio (portfolio.c): run r is run r of member r mod M; the name of
 * that member.  pr_portfolio_calibrate calibrates every member.
 */
struct pr_strategy *pr_portfolio_create(const struct pr_strategy_params *p);
const char *pr_portfolio_member(uint64_t run);
int pr_portfolio_calibrate(struct pr_strategy *s, const struct pr_program *prog,
			   const struct pr_run_options *opts, uint64_t seed);

/*
 * By name ("random", "pct", "pos", "surw", "portfolio", "dfs", "dpor");
 * NULL for an unknown name.  pos, surw and portfolio need
 * params.pct_steps (pr_pct_calibrate).
 */
struct pr_strategy *pr_strategy_create(const char *name,
				       const struct pr_strategy_params *p);
/*
 * Whatever a strategy learns from trial runs before exploring (surw's
 * racing accesses), a function of @prog and @seed alone.  Call it once
 * after creating the strategy, before the first run; a no-op for the
 * others.  Nonzero: out of memory.
 */
int pr_strategy_calibrate(struct pr_strategy *s, const struct pr_program *prog,
			  const struct pr_run_options *opts, uint64_t seed);

#endif /* PAGERACE_STRATEGY_H */
