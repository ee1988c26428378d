/* SPDX-License-Identifier: MIT */
/*
 * fiber.h - user-space execution contexts for simulated CPUs.
 *
 * All fibers of a run share one OS thread, so their interleaving is
 * exactly what the scheduler decides.  On x86-64 a switch is a handful of
 * pushes and pops (fiber_x86_64.S); elsewhere ucontext is the fallback.
 * Stacks come from mmap with a PROT_NONE guard page below them, so an
 * overflow faults (and is contained as a crash) instead of corrupting the
 * neighbour's stack.
 */
#ifndef PAGERACE_RUNTIME_FIBER_H
#define PAGERACE_RUNTIME_FIBER_H

#include <stddef.h>
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef PR_FIBER_UCONTEXT
#include <ucontext.h>
#endif

struct pr_fiber {
#ifdef PR_FIBER_UCONTEXT
	ucontext_t uc;
#else
	void *sp;		/* saved stack pointer while switched out */
#endif
	void *stack;		/* mapping, guard page included; NULL: main */
	size_t size;		/* mapping size */
	void *tsan;		/* pagerace-tsan: its ThreadSanitizer fiber */
	int tsan_blind;		/* that fiber ignores accesses and sync */
};

/* Map a stack of @size bytes (plus guard) once; reused by every run. */
int pr_fiber_alloc(struct pr_fiber *f, size_t size);
void pr_fiber_release(struct pr_fiber *f);

/* Arrange for the next switch to @f to start @entry() on a fresh stack. */
void pr_fiber_prepare(struct pr_fiber *f, void (*entry)(void));
/* What pr_fiber_prepare does for AddressSanitizer, if it is linked in. */
void pr_fiber_fresh_stack(struct pr_fiber *f);

/* Save the running context into @from and resume @to. */
void pr_fiber_switch(struct pr_fiber *from, struct pr_fiber *to);

/*
 * pagerace-tsan (no-ops otherwise): @main is the thread's own stack;
 * name a fiber for ThreadSanitizer's reports; tell ThreadSanitizer that
 * execution continues on @f without a switch (a crash's siglongjmp).
 */
void pr_fiber_tsan_main(struct pr_fiber *main);
void pr_fiber_tsan_name(struct pr_fiber *f, const char *name);
void pr_fiber_tsan_enter(struct pr_fiber *f);

/*
 * pagerace-tsan: give @f a new ThreadSanitizer fiber for a new run.  A
 * fiber's TSan history (its event trace, whose position also picks which
 * shadow cell a new access evicts) would otherwise run on from one run to
 * the next, and whether a race of run N is reported would depend on runs
 * 0..N-1.
 */
void pr_fiber_tsan_renew(struct pr_fiber *f);
/* pagerace-tsan: destroy @f's TSan fiber, if any (the next renew makes one). */
void pr_fiber_tsan_drop(struct pr_fiber *f);

/*
 * pagerace-tsan: make @f's ThreadSanitizer fiber ignore every access and
 * every synchronisation until it is renewed or released (a run that must
 * not stop on a data race: PCT's calibration, pr_run_options.tsan_blind).
 */
void pr_fiber_tsan_blind(struct pr_fiber *f);

#endif /* PAGERACE_RUNTIME_FIBER_H */
