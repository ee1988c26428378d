/* SPDX-License-Identifier: MIT */
/*
 * tsan.h - the ThreadSanitizer flavour (pagerace-tsan, doc/tsan.md).
 *
 * The same sources build twice; the second build defines PR_TSAN=1 and
 * compiles the model with -fsanitize=thread (src/local.am): kernel/,
 * model/, programs/ and the scenario and litmus code that runs a CPU's
 * body.  The harness -- runtime/, memory/, strategy/, util/, trace/,
 * check/, report/, cli/, the scenario and litmus front ends -- is
 * compiled with PR_TSAN=1 but not instrumented at all: it runs a
 * different number of times in explore and in replay (replay decides at
 * every step and observes every step), and every function entry, exit
 * or access ThreadSanitizer logs moves the running context's trace
 * position, which picks the shadow cell a later access evicts; a race
 * explore reported could then go unreported in replay.  Function
 * attributes alone left that to the inliner: moving sched.c's waits to a
 * file of their own turned an inlined yield point into a logged call.
 * tests/tsan_harness_uninstrumented.sh checks the binary.  The API below
 * (fibers, acquire/release, the report hook) works from uninstrumented
 * code.  Under it:
 *
 *  - PR_NO_TSAN marks harness code ThreadSanitizer must not instrument
 *    where it is compiled instrumented: in the model's files (the kernel
 *    primitives' bookkeeping, kasan's shadow) and in harness headers
 *    whose inline functions the model calls.  Their plain accesses are
 *    the harness's, not the model's, and would be reported as races
 *    between fibers or threads.  Atomics stay instrumented even there
 *    (clang instruments them in every function, as they may
 *    synchronise), so a lock word's acquire/release still counts.  In
 *    the harness's own files it changes nothing (they are not
 *    instrumented) and stays as documentation.
 *  - pr_tsan_acquire(addr) / pr_tsan_release(addr) state a happens-before
 *    edge that the model's kernel primitives guarantee but that is not an
 *    atomic ThreadSanitizer can see (a grace period, a lock whose words
 *    are touched out of its sight).  Each use says why it holds.
 *
 * In the plain build every macro here is empty: nothing changes in the
 * deterministic hot path or in any trace.
 */
#ifndef PAGERACE_RUNTIME_TSAN_H
#define PAGERACE_RUNTIME_TSAN_H

#if defined(PR_TSAN) && PR_TSAN
#include <sanitizer/tsan_interface.h>

#define PR_NO_TSAN	__attribute__((no_sanitize("thread")))
/*
 * PR_TSAN_INVISIBLE: not even function entry and exit are logged (clang
 * keeps those in PR_NO_TSAN code, for stack traces), nor atomics.  The
 * whole harness is compiled so (above); the attribute is for harness
 * code the model's objects contain: an inline function of a harness
 * header that the model calls (runtime/effects.h) is not inlined into
 * instrumented code but emitted there as a copy of its own, which would
 * log an entry and an exit.  It also marks what the harness's files must
 * keep invisible should one ever be instrumented again: the yield slow
 * path and decisions, and the code that hides (pr_tsan_hide_begin),
 * where an entry logged on one TSan fiber and an exit on another would
 * unbalance both shadow stacks.
 */
#if defined(__has_attribute) && __has_attribute(disable_sanitizer_instrumentation)
#define PR_TSAN_INVISIBLE	__attribute__((disable_sanitizer_instrumentation))
#else
#error "pagerace-tsan needs clang >= 14 (disable_sanitizer_instrumentation)"
#endif
#define pr_tsan_acquire(addr)	__tsan_acquire((void *)(addr))
#define pr_tsan_release(addr)	__tsan_release((void *)(addr))
#define PR_TSAN_ENABLED	1

/* ThreadSanitizer's dynamic annotation: forget the history of a range. */
void AnnotateNewMemory(const char *file, int line, const volatile void *mem,
		       unsigned long size);
#define pr_tsan_new_memory(p, n)	\
	AnnotateNewMemory(__FILE__, __LINE__, (p), (unsigned long)(n))

#else

#define PR_NO_TSAN
#define PR_TSAN_INVISIBLE
#define pr_tsan_acquire(addr)	((void)(addr))
#define pr_tsan_release(addr)	((void)(addr))
#define pr_tsan_new_memory(p, n)	((void)(p), (void)(n))
#define PR_TSAN_ENABLED	0

#endif

/*
 * pr_tsan_new_memory(p, n): model memory the harness resets for the next
 * run is new memory to ThreadSanitizer.  Every reset of model state calls
 * it on what it resets.  TSan keeps four shadow cells per 8 bytes and,
 * when all are taken, evicts the one the accessing thread's trace position
 * picks.  Cells left by earlier runs, and fibers whose traces ran on from
 * earlier runs, made whether run N's race is reported depend on runs
 * 0..N-1: explore (run 11 after runs 0-10) and replay (run 11 alone) of
 * one schedule disagreed.  This, with TSan's global reset before every run
 * (pr_tsan_new_history) and a new TSan fiber for a context the previous
 * run abandoned (pr_fiber_tsan_renew), starts every run from a clean
 * history.
 */

/*
 * runtime/tsan.c: a ThreadSanitizer report seen by __tsan_on_report,
 * waiting to become the run's "data-race" verdict (deterministic mode)
 * or the iteration's (stress mode).  Both accesses, named without
 * addresses: the object (pr_obj_name), the model function and line of
 * each access, its size and kind, and the context that made it.
 */
struct pr_tsan_access {
	char ctx[32];		/* context (fiber or thread) name */
	char func[64];		/* innermost model function, "?" unknown */
	char where[96];		/* file:line of that frame, "" unknown */
	char obj[64];		/* pr_obj_name of the address */
	const void *addr;	/* the address: named by pr_tsan_take, never shown */
	int size, write, atomic;
};

struct pr_tsan_report {
	int pending;
	struct pr_pending_site {
		const void *site;	/* struct pr_site of the yield point */
		const void *obj;
	} at;
	unsigned long long step;
	int ctx;
	struct pr_tsan_access a[2];	/* a[0] current, a[1] previous */
};

/*
 * Nonzero once a report is pending.  Asked at every decision, so the
 * plain build, where no report can arrive, answers 0 inline.
 */
#if PR_TSAN_ENABLED
int pr_tsan_pending(void);
#else
static inline int pr_tsan_pending(void)
{
	return 0;
}
#endif
/* Take the pending report (clears it); 0 if there was none. */
int pr_tsan_take(struct pr_tsan_report *out);
/* Format @r as a verdict message. */
void pr_tsan_describe(const struct pr_tsan_report *r, char *buf, unsigned len);
/* Forget anything pending (between runs). */
void pr_tsan_reset(void);

/*
 * Before every deterministic run: ThreadSanitizer forgets everything (its
 * global reset: shadow memory, every thread's clock and trace, the slots
 * and their epochs).  See tsan.c.  A no-op in the plain build.
 */
void pr_tsan_new_history(void);

/*
 * pr_tsan_hide_begin() / pr_tsan_hide_end(cookie): run harness code that
 * is not PR_NO_TSAN-deep (the rich replay's observers call libc and the
 * model's instrumented name resolvers) out of ThreadSanitizer's sight.
 * In between, the thread is on a TSan fiber of its own that ignores
 * every access and every synchronisation, so nothing it does reaches the
 * model's shadow cells, its clocks, or the current context's trace
 * (whose position picks the evicted cell: a function entry logged there
 * changes which race is reported).  Observed and unobserved runs are then
 * the same run to TSan: replay and show see what explore saw.  Free in
 * the plain build.
 */
#if PR_TSAN_ENABLED
void *pr_tsan_hide_begin(void);
void pr_tsan_hide_end(void *cookie);
void pr_tsan_unhide(void);
/* Destroy the hidden fiber (before fork: pr_run_before_fork); remade on use. */
void pr_tsan_drop_hidden(void);
#else
static inline void pr_tsan_drop_hidden(void)
{
}

static inline void *pr_tsan_hide_begin(void)
{
	return (void *)0;
}

static inline void pr_tsan_hide_end(void *cookie)
{
	(void)cookie;
}

static inline void pr_tsan_unhide(void)
{
}
#endif

#endif /* PAGERACE_RUNTIME_TSAN_H */
