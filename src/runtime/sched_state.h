/* SPDX-License-Identifier: MIT */
/*
 * sched_state.h - the scheduler's state and the functions its files share
 * (sched.c decisions and yield points, wait.c waits and wake-ups,
 * choices.c enabled choices, sched_end.c verdicts and ending a run, run.c
 * contexts and pr_run_once).
 * Private to src/runtime/.
 */
#ifndef PAGERACE_RUNTIME_SCHED_STATE_H
#define PAGERACE_RUNTIME_SCHED_STATE_H

#include "runtime/context.h"
#include "runtime/internal.h"
#include "runtime/fiber.h"
#include "runtime/run.h"
#include "runtime/tsan.h"
#include "runtime/rng.h"

#include <setjmp.h>
#include <stdarg.h>

/* Why a context waits in pr_lock_wait or sleeps in pr_block_lock
 * (yield.h). */
enum { LOCK_WAIT_NONE, LOCK_WAIT_ALONE, LOCK_WAIT_SHARED };

enum ctx_state {
	CTX_RUNNABLE,
	CTX_SPINNING,	/* schedulable again once store_epoch moves */
	CTX_BLOCKED,	/* until pr_wake(wait_obj) */
	CTX_DONE,
};

struct pr_ctx {
	char name[32];
	pr_fn fn;
	void *arg;
	unsigned int flags;
	enum ctx_state state;
	const void *wait_obj;
	int lock_wait;		/* in pr_lock_wait or pr_block_lock:
				 * LOCK_WAIT_* */
	/* pr_lock_wait's: must it still wait for wait_obj (after a handler)? */
	int (*lock_held)(const void *lock, int shared);
	size_t lock_size;
	uint64_t spin_epoch;	/* stores seen when its wait-loop pass began */
	uint64_t iter_epoch;	/* store_epoch when pr_spin last returned */
	int events_off;		/* nesting of pr_events_disable */
	int in_event;		/* running an injected handler */
	int pending_event;	/* injection to run when resumed, or -1 */
	int started;
	const struct pr_site *at;	/* last yield point, while switched out */
	const void *at_obj;
	const struct pr_site *irq_at;	/* where an interrupt came in */
	const void *irq_obj;
	struct pr_fiber fiber;	/* stack kept across runs */
};

struct pr_injection {
	int ctx;
	char name[32];
	pr_fn fn;
	void *arg;
	int remaining;
};

struct sched_rt {
	struct pr_ctx ctx[PR_MAX_CTX];
	int nctx;
	int fibers_ready;	/* contexts whose stacks are mapped */
	struct pr_injection inj[PR_MAX_INJECT];
	int ninj;
	int cur;		/* running context, -1: the main stack */
	int in_run;
	struct pr_fiber main;
	sigjmp_buf env;		/* crash or failure outside any context */

	const struct pr_program *prog;
	struct pr_strategy *strat;
	const struct pr_run_options *opts;
	uint64_t max_steps;	/* opts->max_steps, read at every decision */
	struct pr_schedule *rec;
	struct pr_run_result *res;

	uint64_t steps;		/* steps before the current decision interval */
	int64_t budget_start;
	int changed;		/* enabled set changed since the last decision */
	int seg_code;		/* open segment's choice code, -1: none */
	uint64_t seg_steps;
	uint64_t preemptions;
	pr_step_observer observer;
	pr_decision_observer decision_observer;
	struct pr_choices cs;

	/*
	 * The enabled set, kept as it changes (choices.c): contexts by state
	 * as bit masks, so a decision reads the set instead of scanning
	 * every context, and the last decision's array is reused while
	 * nothing changed (@cs_stale clear).  Bit i is context i.
	 */
	uint64_t runnable;	/* CTX_RUNNABLE */
	uint64_t spinning;	/* CTX_SPINNING: enabled once store_epoch moves */
	uint64_t blocked;	/* CTX_BLOCKED, for pr_wake */
	int lock_sleepers;	/* contexts in pr_lock_wait or pr_block_lock,
				 * woken or not */
	int cs_stale;		/* rebuild sched_rt.cs at the next decision */
	int8_t cs_pos[PR_MAX_CTX];	/* a runnable context's index in cs.c */

	/* A memory model other than sc (memhook.h), or NULL. */
	const struct pr_mem_hooks *mem;
	struct pr_rng mem_rng;	/* flushes for strategies blind to them */
	int64_t mem_left;	/* their budget beyond the current tick */
	int read_forced;	/* a blind strategy's load decision whose coin
				 * already said "an older value" (choices.c) */
	int stale_odds;		/* this run's: an older value with probability
				 * 1 / stale_odds, never if 0 (run.c) */
};

extern struct sched_rt sched_rt;

extern const struct pr_site sched_site_start, sched_site_exit, sched_site_iret;
/* ThreadSanitizer's two harness edges (sched.c explains them). */
extern char sched_run_sync, sched_end_sync;

/* sched.c */
void sched_tsan_switch_out(void);
/* The running context's site lives in pr_hot; the others' in their ctx. */
PR_NO_TSAN static inline const struct pr_site *sched_ctx_at(int i)
{
	return i == sched_rt.cur ? pr_hot.site : sched_rt.ctx[i].at;
}
void sched_set_at(const struct pr_site *site, const void *obj);
void sched_account(void);
void sched_mark_changed(void);
void sched_close_segment(uint64_t min_steps);
void sched_decide(enum pr_reason reason);
/* The rich replay's step observer at a yield point or wait (wait.c). */
void sched_observe(const struct pr_site *site, const void *obj);

/* choices.c */
/*
 * Every change of a context's state goes through here, so that the masks
 * above stay exact; anything else that changes what could be chosen
 * (interrupts masked or delivered, a memory model's pending flushes)
 * calls sched_choices_stale().
 */
PR_NO_TSAN static inline void sched_set_state(int i, enum ctx_state st)
{
	uint64_t bit = (uint64_t)1 << i;

	sched_rt.runnable &= ~bit;
	sched_rt.spinning &= ~bit;
	sched_rt.blocked &= ~bit;
	if (st == CTX_RUNNABLE)
		sched_rt.runnable |= bit;
	else if (st == CTX_SPINNING)
		sched_rt.spinning |= bit;
	else if (st == CTX_BLOCKED)
		sched_rt.blocked |= bit;
	sched_rt.ctx[i].state = st;
	sched_rt.cs_stale = 1;
}

PR_NO_TSAN static inline void sched_choices_stale(void)
{
	sched_rt.cs_stale = 1;
}

/* Context @i finished: sched_set_state(i, CTX_DONE), keeping the array
 * when it can. */
void sched_ctx_done(int i);
int sched_ctx_enabled(const struct pr_ctx *c);
/* A blind strategy's coin: does this load read an older value? */
int sched_stale_coin(void);
int sched_inj_enabled(const struct pr_injection *e);
void sched_rebuild_choices(struct pr_choices *cs);
/* Under weak: the stale-read choices, after the flushes (choices.c);
 * nothing for a model without them. */
void sched_add_reads(struct pr_choices *cs);

/**
 * sched_build_choices - the enabled choices at this decision
 *
 * The array of the last decision is kept while nothing that decides
 * enabledness changed (sched_set_state, sched_choices_stale); most
 * decisions only end a budget, so they only refresh where the running
 * context sits in it and the decision's own fields.  Inline: it runs at
 * every decision, and rebuilding is the rare part.  @plain (a constant):
 * the caller knows there is no memory model (sched.c, decide).
 */
PR_NO_TSAN static inline void sched_build_choices(struct pr_choices *cs,
						  enum pr_reason reason,
						  const int plain)
{
	int cur = sched_rt.cur;

	if (sched_rt.cs_stale)
		sched_rebuild_choices(cs);
	if (!plain && __builtin_expect(sched_rt.mem != NULL, 0))
		sched_add_reads(cs);
	cs->reason = reason;
	cs->prev_ctx = cur;
	cs->step = sched_rt.steps;
	cs->seg_steps = sched_rt.seg_steps;
	cs->seg_code = sched_rt.seg_code;
	if (cur >= 0) {
		cs->current = (sched_rt.runnable >> cur) & 1 ? sched_rt.cs_pos[cur]
							     : -1;
		cs->at = pr_hot.site;	/* sched_ctx_at(cur) */
	} else {
		cs->current = -1;
		cs->at = NULL;
	}
}

/* sched_end.c */
__attribute__((noreturn)) void sched_leave_to_main(void);
void sched_end_run(uint64_t min_last_steps);
void sched_fail_now(void);
void sched_verdict(int ctx, const char *kind, const void *obj,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void sched_tsan_fail(void);
void sched_nothing_enabled(void);

#endif /* PAGERACE_RUNTIME_SCHED_STATE_H */
