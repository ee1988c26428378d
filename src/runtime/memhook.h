/* SPDX-License-Identifier: MIT */
/*
 * memhook.h - what the scheduler needs from a memory model (src/memory/)
 * to make its store-buffer flushes decisions like any other.
 *
 * The runtime sits below memory/ and does not know how buffers work: the
 * model registers these hooks (pr_set_mem_hooks) when a run's model is
 * not sc, and tells the scheduler when its buffers change
 * (pr_sched_mem_changed).  Under sc the hooks are NULL and nothing here
 * is ever called: choices, steps and traces are exactly as before.
 */
#ifndef PAGERACE_RUNTIME_MEMHOOK_H
#define PAGERACE_RUNTIME_MEMHOOK_H

#include <stdint.h>

struct pr_site;

struct pr_mem_hooks {
	/* Contexts whose buffers hold stores (bit i: context i). */
	uint64_t (*busy)(void);
	/* The slots of @ctx's buffer that may be written to memory now. */
	unsigned (*flushable)(int ctx);
	/* Write the store in @slot of @ctx's buffer to memory. */
	void (*flush)(int ctx, int slot);
	/*
	 * What flushing @slot of @ctx would write: @obj, @size bytes; and
	 * its @order among the buffer's stores: its smp_wmb group times 2,
	 * plus 1 if it waits for every older store (a release; every store
	 * under tso).  Two flushes of one buffer commute when their orders
	 * are equal and even (strategy/dependence.c, rule 6).
	 */
	int (*pending)(int ctx, int slot, const void **obj, unsigned *size,
		       uint32_t *order);
	/* Empty every buffer: a run begins. */
	void (*reset)(void);
	/* Contexts sleeping until their buffers drain (smp_mb, ...). */
	int (*waiting)(void);
	/*
	 * Optional (weak: stale reads).  @reads: how many older values
	 * (0..PR_MEM_READS) the load @ctx performs next could return, given
	 * the yield point @site and object @obj where it stopped.  @chosen:
	 * the decision just made runs @ctx and its load (if its next step
	 * is one) returns the @k-th older value, 0 the newest.
	 */
	int (*reads)(int ctx, const struct pr_site *site, const void *obj);
	void (*chosen)(int ctx, int k);
};

/*
 * The other way, for the model's access path (a load or store under tso
 * or weak asks twice): the running context without two calls.
 * "*pr_mem_stress ? -1 : *pr_mem_cur" is "pr_stress_mode() ? -1 :
 * pr_self()" (-1 outside a run, and when running free in stress.c).
 */
extern const int *const pr_mem_cur;
extern const int *const pr_mem_stress;

/* NULL (sc) or the model's hooks; set before runs, not during one. */
void pr_set_mem_hooks(const struct pr_mem_hooks *h);
const struct pr_mem_hooks *pr_get_mem_hooks(void);

/*
 * A buffer gained or lost a store: the enabled choices are rebuilt at the
 * next decision.  Cheap; call it on every change.
 */
void pr_sched_mem_changed(void);

/*
 * The running context's next yield point is a load that may return an
 * older value: make it a decision (its choices offer the older values),
 * without shortening what a strategy blind to memory granted (sched.c).
 */
void pr_sched_mem_read_point(void);

#endif /* PAGERACE_RUNTIME_MEMHOOK_H */
