/* SPDX-License-Identifier: MIT */
/*
 * choice.h - the three-call interface between the scheduler and a
 * scheduling strategy: the choices the runtime offers at a decision, the
 * strategy's operations (begin_run, pick, end_run), what a systematic
 * strategy covered, and the runtime's services to strategies that reason
 * about what a choice would do.  The runtime owns it; strategy/ holds the
 * strategies behind it.
 *
 * At every decision point the runtime builds the set of enabled choices
 * and asks the strategy which one runs next and for how many steps it may
 * run unconsulted (its budget).  The runtime consults again earlier if the
 * enabled set changes (a wake-up, interrupts re-enabled), if the chosen
 * context blocks, spins or finishes, or when the budget runs out.
 */
#ifndef PAGERACE_RUNTIME_CHOICE_H
#define PAGERACE_RUNTIME_CHOICE_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/yield.h"

/*
 * A choice: run context @ctx, or first deliver injection @inject to it,
 * or (a memory model other than sc, src/memory/) write the store in slot
 * @mem of @ctx's store buffer to memory, or (weak) run context @ctx
 * whose next step is a load and let that load return the @read-th older
 * value its location held (memory/memory.h, "stale reads").
 */
struct pr_choice {
	uint8_t ctx;
	int8_t inject;		/* -1 for "run the context" */
	uint8_t was_spinning;	/* re-enabled by a store after spinning */
	int8_t mem;		/* store-buffer slot to flush, -1: none */
	int8_t read;		/* 0: the newest value; k >= 1: the k-th older */
};

/*
 * Encoded choice as stored in schedules: ctx, or PR_CHOICE_EVENT + id,
 * or PR_CHOICE_MEM + ctx * PR_MEM_SLOTS + slot for a flush (trace
 * format 3).  A buffer has PR_MEM_SLOTS slots; a store keeps its slot
 * (its per-CPU sequence number modulo PR_MEM_SLOTS) until it is flushed,
 * so a code names the same store whatever was flushed before it.
 */
#define PR_CHOICE_EVENT	64
#define PR_CHOICE_MEM	192
#define PR_MEM_SLOTS	8
/*
 * Stale reads (trace format 4): PR_CHOICE_READ + ctx * PR_MEM_READS +
 * k - 1 runs @ctx, whose load returns the k-th older value of its
 * location (1 <= k <= PR_MEM_READS).  After every flush code.
 */
#define PR_CHOICE_READ	1024
#define PR_MEM_READS	3
PR_NO_TSAN static inline int pr_choice_code(const struct pr_choice *c)
{
	if (c->read > 0)
		return PR_CHOICE_READ + c->ctx * PR_MEM_READS + c->read - 1;
	if (c->mem >= 0)
		return PR_CHOICE_MEM + c->ctx * PR_MEM_SLOTS + c->mem;
	return c->inject < 0 ? c->ctx : PR_CHOICE_EVENT + c->inject;
}

/* Why the runtime is asking. */
enum pr_reason {
	PR_R_START,	/* first decision of a run */
	PR_R_BUDGET,	/* the running context used up its budget */
	PR_R_CHANGED,	/* the enabled set changed */
	PR_R_SPIN,	/* the running context began to spin-wait */
	PR_R_BLOCK,	/* the running context blocked */
	PR_R_EXIT,	/* the running context finished */
	PR_R_IRET,	/* an injected event's handler returned */
};

/*
 * Contexts and injections (64), then at most 40 * 8 buffered stores: a
 * buffer of 4 always flushed a seed's page set-up before the insert that
 * publishes the page (the knob insert-node-no-wmb could not show), and
 * real store buffers hold more.
 */
#define PR_MAX_CHOICES	400

struct pr_choices {
	int n;
	/*
	 * The last @mem of the @n choices are store-buffer flushes (always
	 * at the end, so a strategy that ignores memory sees the same
	 * indexes as under sc in its first n - mem); 0 under sc.
	 */
	int mem;
	/*
	 * Under weak, the last @reads choices (after the flushes) are stale
	 * reads: choices whose @read is nonzero, for contexts whose next step
	 * is a load; 0 otherwise.  A strategy blind to memory never sees them.
	 */
	int reads;
	struct pr_choice c[PR_MAX_CHOICES];
	int current;		/* index of "continue the running context", or -1 */
	int prev_ctx;		/* context that ran last, or -1 */
	enum pr_reason reason;
	uint64_t step;		/* yield points passed so far in this run */
	uint64_t seg_steps;	/* steps taken by the open segment */
	int seg_code;		/* its choice code, or -1 at the start */
	const struct pr_site *at; /* where the running context stopped */
};

#define PR_BUDGET_UNBOUNDED	(INT64_MAX / 4)

struct pr_strategy;
struct pr_coverage;

struct pr_strategy_ops {
	const char *name;
	/* Prepare run @run of the exploration seeded with @seed. */
	void (*begin_run)(struct pr_strategy *s, uint64_t seed, uint64_t run);
	/*
	 * Return an index into @cs->c and set *@budget (>= 1) to the number of
	 * yield points the chosen context may pass before the next call.  A
	 * negative return aborts the run as a divergence (replay only); the
	 * strategy then explains why in s->error.
	 */
	int (*pick)(struct pr_strategy *s, const struct pr_choices *cs,
		    int64_t *budget);
	/* The run is over; @steps is its length. */
	void (*end_run)(struct pr_strategy *s, uint64_t steps);
	void (*destroy)(struct pr_strategy *s);
	/*
	 * Optional, for systematic strategies (dfs, dpor): nonzero once
	 * every execution they mean to explore has run; and what they
	 * covered so far.  NULL for samplers.
	 */
	int (*exhausted)(struct pr_strategy *s);
	void (*coverage)(struct pr_strategy *s, struct pr_coverage *c);
	/*
	 * Nonzero: pick chooses among flushes too (replay, guided, dfs,
	 * dpor).  Zero: the scheduler decides flushes itself, from its own
	 * generator seeded by (seed, run), and shows pick only the first
	 * n - mem choices (sched.c).
	 */
	int sees_memory;
};

/*
 * What a systematic strategy has covered: the basis of explore's
 * "exhaustive", "bounded" and "incomplete" statements.
 */
struct pr_coverage {
	int complete;		/* every execution up to the bound ran */
	int bound;		/* preemption bound; -1: none */
	int bound_cut;		/* the bound cut some branch off */
	uint64_t executions;	/* complete executions */
	uint64_t blocked;	/* executions ended early as redundant */
	uint64_t max_depth;	/* the longest execution's decisions */
	unsigned shard, shards;	/* a split search's part; shards 0: whole */
	uint64_t foreign;	/* runs that ended in another shard's part */
};

/*
 * pick's answer for "end this run quietly": everything below is known
 * to be redundant (dpor's sleep-set blocked executions).  The run counts
 * as neither passed nor failed (pr_run_result.abandoned).
 */
#define PR_PICK_ABANDON	(-2)

/*
 * Runtime services for strategies that reason about what each choice
 * would do (choices.c).  The pending step of choice @code (as
 * pr_choice_code gives it): for a context, the yield point where it
 * stopped and the object its access touches -- the access it makes
 * first when it runs again (a context interrupted there makes it after
 * the handler returns); @site is NULL for a context not started yet;
 * for a flush (PR_CHOICE_MEM codes), @flush is set, @ctx is the CPU
 * whose buffer it empties and @obj, @size what it writes;
 * for an injection, @ctx is the context it interrupts and @site is NULL.  @runnable: the context is not blocked,
 * spinning or done.  Returns -1 for a code that names nothing.
 */
struct pr_pending {
	const struct pr_site *site;
	const void *obj;
	int ctx;
	int runnable;
	int flush;		/* a store-buffer flush: writes @size at @obj */
	unsigned size;
	uint32_t order;		/* a flush's order (runtime/memhook.h) */
};
int pr_sched_pending(int code, struct pr_pending *p);

struct pr_strategy {
	const struct pr_strategy_ops *ops;
	char error[512];
	/*
	 * Set by end_run: the run belongs to another part of a split
	 * search; pr_run_once reports it as abandoned, verdict and all.
	 */
	int foreign;
};

#endif /* PAGERACE_RUNTIME_CHOICE_H */
