/* SPDX-License-Identifier: MIT */
/*
 * context.h - what a program under test sees of the scheduler: simulated
 * contexts (CPUs and daemons), injected events (interrupts), failure
 * verdicts and object names.
 *
 * A program's setup function (struct pr_program, run.h) creates its
 * contexts and injections afresh for every run; the runtime owns their
 * stacks and reuses them, so a run allocates nothing.
 */
#ifndef PAGERACE_RUNTIME_CONTEXT_H
#define PAGERACE_RUNTIME_CONTEXT_H

#include <stdarg.h>
#include <stddef.h>
#include "runtime/yield.h"

/*
 * What bounds these: a schedule codes a context as its id below
 * PR_CHOICE_EVENT (64, fixed by the trace format) and an injection as
 * PR_CHOICE_EVENT + id; the scheduler keeps contexts in 64-bit masks,
 * dfs and dpor keep contexts and injections together in one 64-bit set
 * (strategy/dependence.h), and a decision offers at most
 * PR_MAX_CTX + PR_MAX_INJECT <= PR_MAX_CHOICES choices.  40 + 24 fills
 * that; raising either needs a wider set first.
 */
#define PR_MAX_CTX	40	/* contexts per run: 32 CPUs and daemons */
#define PR_MAX_INJECT	24	/* injection points per run */

typedef void (*pr_fn)(void *arg);

enum pr_ctx_flags {
	/*
	 * A daemon (an RCU callback runner, say) does not keep a run alive:
	 * the run ends when every other context has finished and every
	 * daemon is blocked, and a blocked daemon is never a deadlock.
	 */
	PR_CTX_DAEMON = 1 << 0,
};

/* Create a context running @fn(@arg); returns its id (0, 1, ... in order). */
int pr_spawn(const char *name, pr_fn fn, void *arg, unsigned int flags);

/*
 * Declare an event that the scheduler may deliver to context @ctx at any of
 * its yield points while it has events enabled (pr_events_disable count is
 * zero) and is not already running one: @fn(@arg) then runs on @ctx's stack
 * until it returns, and @ctx's own code cannot run meanwhile.  This is how a
 * hardware interrupt is modelled.  It is delivered at most @count times per
 * run.  Returns the injection id.
 */
int pr_inject(int ctx, const char *name, pr_fn fn, void *arg, int count);

/* local_irq_disable/enable for the current context; they nest. */
void pr_events_disable(void);
void pr_events_enable(void);
int pr_events_disabled(void);

/*
 * Crashes contained so far in this process (crash.c).  A crash may be a
 * wild store anywhere, so state that is reset lazily between runs (the
 * slab resets only the objects a run used) resets in full after one.
 */
unsigned long pr_crash_count(void);

/*
 * Per-CPU state indexed by context id need only be reset in the slots a
 * context ever used: ids below pr_ctx_slots() (at least 1, for setup's
 * CPU 0).  The others are as their first full reset left them.  After a
 * contained crash it is PR_MAX_CTX: a wild store may be anywhere.
 */
int pr_ctx_slots(void);

int pr_self(void);		/* current context id, -1 outside a run */
int pr_in_event(void);		/* running an injected event's handler */
int pr_nr_ctx(void);
int pr_nr_inject(void);
const char *pr_ctx_name(int ctx);
const char *pr_inject_name(int inject);
uint64_t pr_step(void);		/* yield points passed so far in this run */

/*
 * Failure verdicts.  pr_fail() ends the run at once: the failing context
 * never returns from it.  @obj names the object involved (see
 * pr_name_object); @kind is a short stable word ("double-free",
 * "assert"); the message is free text for the report.
 */
__attribute__((noreturn, format(printf, 3, 4)))
void pr_fail(const char *kind, const void *obj, const char *fmt, ...);

/*
 * A detector that can tell a failure's cause from its symptom (a page
 * freed twice because reclaim missed a reference, say) registers one of
 * these.  pr_fail calls it with the verdict's @kind and @obj; it returns
 * NULL (no cause known) or the kind to report instead, with the cause in
 * words in @why (@len bytes).  The verdict's message is then the cause,
 * then "first symptom:" and the original kind and message.  NULL by
 * default; set between runs.
 */
typedef const char *(*pr_fail_cause_fn)(const char *kind, const void *obj,
					 char *why, size_t len);
void pr_set_fail_cause(pr_fail_cause_fn fn);

/*
 * Serialise the harness's own bookkeeping (RCU queue and clock, detector
 * shadow state, slab free lists) against other threads in stress mode
 * (stress.c); no-ops in deterministic runs.  Recursive; pr_fail under it
 * is fine.  ThreadSanitizer derives no ordering from it.
 */
void pr_harness_lock(void);
void pr_harness_unlock(void);

/*
 * Running free (stress.c) rather than under the scheduler.  Detectors
 * that check the model at an instant -- a linearisation point -- need the
 * step atomicity only the scheduler gives, and skip those checks then.
 */
int pr_stress_mode(void);

/* Check a condition on the model; fails the run with kind "assert". */
#define PR_ASSERT(cond) do {						\
		if (!(cond))						\
			pr_fail("assert", (void *)0, "%s:%d: %s: %s",	\
				__FILE__, __LINE__, __func__, #cond);	\
	} while (0)

/*
 * Stable object names.  Addresses change from run to run (ASLR); reports
 * and traces name objects by what the program registered ("page#3",
 * "counter").  A resolver lets the model compute names for its own objects
 * instead of registering each one.
 */
void pr_name_object(const void *obj, const char *name);
typedef int (*pr_obj_resolver)(const void *obj, char *buf, unsigned len);
void pr_set_obj_resolver(pr_obj_resolver fn);
pr_obj_resolver pr_get_obj_resolver(void);	/* for chaining */
const char *pr_obj_name(const void *obj, char *buf, unsigned len);

#endif /* PAGERACE_RUNTIME_CONTEXT_H */
