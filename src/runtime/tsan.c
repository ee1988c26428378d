/* SPDX-License-Identifier: MIT */
/*
 * tsan.c - ThreadSanitizer reports as verdicts (tsan.h, doc/tsan.md).
 *
 * Capture.  The clang 14 TSan runtime calls the weak hook
 * __tsan_on_report(report) for every report it prints (after printing
 * it, with halt_on_error=0 it then carries on), and its debugging API
 * (__tsan_get_report_data, _mop, _thread: what LLDB uses) reads the
 * report: each memory operation's thread, address, size, write/atomic
 * flags and stack.  That is structured data, so nothing is parsed from
 * the printed text (which __sanitizer_set_report_fd would give), and it
 * arrives synchronously on the thread (fiber) that made the second
 * access, which is what lets the deterministic scheduler turn it into the
 * verdict of the very run that raced, at the very step.
 *
 * The hook may not end the run itself: TSan holds its report lock while
 * it runs.  It only copies the report into harness memory, names
 * everything without addresses (the object by pr_obj_name, each access by
 * its innermost function and source line via __sanitizer_symbolize_pc,
 * each context by the fiber or thread name the runtime gave it), and
 * tells the scheduler (pr_tsan_noted), which fails the run at the
 * context's next yield point; stress mode collects it when the iteration
 * ends.
 */
#include "runtime/context.h"
#include "runtime/internal.h"
#include "runtime/tsan.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Written once per run by the reporting context, then flagged. */
static struct pr_tsan_report pending;
static int pending_flag;

#if PR_TSAN_ENABLED
PR_TSAN_INVISIBLE int pr_tsan_pending(void)
{
	/*
	 * Deterministic mode asks at every decision, and replay decides at
	 * every step: an atomic load would log an access in the running
	 * context's TSan trace each time, moving the trace position that
	 * picks evicted shadow cells (tsan.h, pr_tsan_hide_begin), so replay
	 * would miss races explore saw.  There the flag is only ever touched
	 * by this thread (the hook runs on the fiber that raced): a plain
	 * read, which PR_NO_TSAN leaves uninstrumented.  Stress workers set
	 * it from any thread: an atomic read.
	 */
	if (!pr_stress_on)
		return pending_flag;
	return __atomic_load_n(&pending_flag, __ATOMIC_RELAXED);
}
#endif

PR_NO_TSAN int pr_tsan_take(struct pr_tsan_report *out)
{
	if (!pr_tsan_pending())
		return 0;
	*out = pending;
	out->pending = 1;
	pr_tsan_reset();
	/*
	 * Named here, not in __tsan_on_report: the resolvers are model code,
	 * instrumented, and an instrumented call from inside ThreadSanitizer's
	 * report can need a new trace part, whose switch waits for the report
	 * to finish -- a deadlock (seen with explore -k on add-after-insert).
	 */
	for (int i = 0; i < 2; i++)
		if (out->a[i].addr)
			pr_obj_name(out->a[i].addr, out->a[i].obj,
				    sizeof(out->a[i].obj));
	return 1;
}

#if PR_TSAN_ENABLED
void AnnotateIgnoreSyncBegin(const char *file, int line);
void AnnotateIgnoreSyncEnd(const char *file, int line);
/* clang 14 exports them, no header */
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);

/*
 * One per thread (explore --jobs forks; stress never hides).  @hidden_from
 * is the fiber hidden code left, NULL when not hiding: a nested begin is
 * a no-op, and pr_tsan_unhide ends hiding early on the paths that leave a
 * context from inside hidden code (a verdict, a crash).
 */
static _Thread_local void *hidden_fiber, *hidden_from;

PR_TSAN_INVISIBLE void *pr_tsan_hide_begin(void)
{
	void *cur;

	if (hidden_from)
		return NULL;
	cur = __tsan_get_current_fiber();
	if (!hidden_fiber) {
		hidden_fiber = __tsan_create_fiber(0);
		__tsan_set_fiber_name(hidden_fiber, "harness");
		__tsan_switch_to_fiber(hidden_fiber,
				       __tsan_switch_to_fiber_no_sync);
		/* For good: this fiber only ever runs hidden code. */
		__tsan_ignore_thread_begin();
		AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
	} else {
		__tsan_switch_to_fiber(hidden_fiber,
				       __tsan_switch_to_fiber_no_sync);
	}
	hidden_from = cur;
	return cur;
}

PR_TSAN_INVISIBLE void pr_tsan_unhide(void)
{
	if (!hidden_from)
		return;
	__tsan_switch_to_fiber(hidden_from, __tsan_switch_to_fiber_no_sync);
	hidden_from = NULL;
}

PR_TSAN_INVISIBLE void pr_tsan_drop_hidden(void)
{
	void *cur;

	if (!hidden_fiber || hidden_from)
		return;
	/* A fiber that ends with ignores on stops the process: end them. */
	cur = __tsan_get_current_fiber();
	__tsan_switch_to_fiber(hidden_fiber, __tsan_switch_to_fiber_no_sync);
	AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
	__tsan_ignore_thread_end();
	__tsan_switch_to_fiber(cur, __tsan_switch_to_fiber_no_sync);
	__tsan_destroy_fiber(hidden_fiber);
	hidden_fiber = NULL;
}

PR_TSAN_INVISIBLE void pr_tsan_hide_end(void *cookie)
{
	if (cookie)
		pr_tsan_unhide();
}
#endif

#if PR_TSAN_ENABLED
void __tsan_flush_memory(void);	/* clang 14 exports it, no header */
#endif

/*
 * Fresh fibers and AnnotateNewMemory on model memory were not enough for
 * run N's verdict not to depend on runs 0..N-1: ThreadSanitizer hands a
 * new fiber a slot (sid) of 256 whose epoch runs on from its previous
 * owners, the main thread's clock (inherited by every fiber it creates)
 * remembers those epochs, and when a slot's epochs run out TSan resets
 * everything, at a moment that depends on how many runs came before.
 * explore from run 0 and from run 108 then disagreed on run 109 of
 * add-after-insert (seed 1, pct), a race seen at step 63 in one and at
 * step 72 in the other.  __tsan_flush_memory is that global reset, on
 * demand (clang 14's runtime: DoReset): every run starts where a fresh
 * process would.  It also drops the traces and clocks of the fibers of
 * finished runs, which is what kept pagerace-tsan's memory growing.
 */
PR_TSAN_INVISIBLE void pr_tsan_new_history(void)
{
#if PR_TSAN_ENABLED
	__tsan_flush_memory();
#endif
}

#if PR_TSAN_ENABLED
static void quiet_tsan_reports(void);
#else
static inline void quiet_tsan_reports(void) { }
#endif

PR_NO_TSAN void pr_tsan_reset(void)
{
	/* Twice a run: free in the plain build, where nothing is reported. */
	if (!PR_TSAN_ENABLED)
		return;
	quiet_tsan_reports();
	memset(&pending, 0, sizeof(pending));
	__atomic_store_n(&pending_flag, 0, __ATOMIC_RELAXED);
}

static const char *access_kind(const struct pr_tsan_access *a)
{
	if (a->atomic)
		return a->write ? "atomic write" : "atomic read";
	return a->write ? "write" : "read";
}

PR_NO_TSAN void pr_tsan_describe(const struct pr_tsan_report *r, char *buf,
				 unsigned len)
{
	const struct pr_tsan_access *a = &r->a[0], *b = &r->a[1];

	snprintf(buf, len,
		 "%s of %d bytes by %s in %s%s%s%s races with %s of %d bytes by %s in %s%s%s%s",
		 access_kind(a), a->size, a->ctx, a->func,
		 a->where[0] ? " (" : "", a->where, a->where[0] ? ")" : "",
		 access_kind(b), b->size, b->ctx, b->func,
		 b->where[0] ? " (" : "", b->where, b->where[0] ? ")" : "");
}

#if PR_TSAN_ENABLED
#include <sanitizer/common_interface_defs.h>

int __tsan_get_report_data(void *report, const char **description, int *count,
			   int *stack_count, int *mop_count, int *loc_count,
			   int *mutex_count, int *thread_count,
			   int *unique_tid_count, void **sleep_trace,
			   unsigned long trace_size);
int __tsan_get_report_mop(void *report, unsigned long idx, int *tid,
			  void **addr, int *size, int *write, int *atomic,
			  void **trace, unsigned long trace_size);
int __tsan_get_report_thread(void *report, unsigned long idx, int *tid,
			     unsigned long *os_id, int *running,
			     const char **name, int *parent_tid, void **trace,
			     unsigned long trace_size);
void __tsan_on_report(void *report);
const char *__tsan_default_options(void);

/*
 * Defaults for pagerace-tsan (TSAN_OPTIONS still overrides them): a
 * report must not end the process, it becomes a verdict; the exit code
 * is pagerace's own; and a race is reported every time it happens, not
 * once per process (suppress_equal_stacks/addresses), because replay and
 * minimize re-execute the same run in one process and must see the same
 * report each time.  A long stress run may want them back on.
 * io_sync=0: a write() to a descriptor would release it and a read()
 * acquire it, ordering whichever simulated CPUs the harness's own I/O
 * happens on.
 */
PR_NO_TSAN const char *__tsan_default_options(void)
{
	return "halt_on_error=0:exitcode=0:report_signal_unsafe=0:"
	       "suppress_equal_stacks=0:suppress_equal_addresses=0:io_sync=0";
}

#if PR_TSAN_ENABLED
/*
 * pagerace-tsan reports a race in its own words: the verdict, the trace
 * and replay's report, each in the order of the run.  ThreadSanitizer's
 * own text (addresses, pids, thread numbers, printed to stderr whenever
 * it fires, so after the summary it belongs to) goes to /dev/null,
 * unless TSAN_OPTIONS names a log_path: then it goes there.
 */
static int quiet_pid;	/* the process whose report fd is /dev/null */

PR_NO_TSAN static void quiet_tsan_reports(void)
{
	const char *o = getenv("TSAN_OPTIONS");
	int fd;

	/*
	 * Per process, at its first run: TSan ties the fd to the pid that
	 * set it, and a forked worker's report would go to a file ".PID"
	 * (and from a constructor, before TSan's own set-up, too).
	 */
	if (quiet_pid == (int)getpid())
		return;
	quiet_pid = (int)getpid();
	if (o && strstr(o, "log_path="))
		return;
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0)
		__sanitizer_set_report_fd((void *)(intptr_t)fd);
}
#endif

#define TRACE_MAX 16

/* "src/model/filemap.c:123" from "/abs/path/src/model/filemap.c:123". */
PR_NO_TSAN static void short_where(const char *in, char *out, size_t len)
{
	const char *s = strstr(in, "src/");

	if (!s)
		s = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
	snprintf(out, len, "%s", s);
}

/*
 * The innermost frame that is the model's (or a scenario's or program's)
 * own code: frames inside the harness's headers (access macros expand in
 * the model function, so those are rare) are skipped.
 */
PR_NO_TSAN static void symbolize(void **trace, struct pr_tsan_access *a)
{
	char buf[256], *sp;

	snprintf(a->func, sizeof(a->func), "?");
	a->where[0] = '\0';
	for (int i = 0; i < TRACE_MAX && trace[i]; i++) {
		__sanitizer_symbolize_pc(trace[i], "%f %s:%l", buf, sizeof(buf));
		sp = strchr(buf, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		if (strstr(sp + 1, "src/runtime/") || strstr(sp + 1, "src/kernel/"))
			if (trace[i + 1] && i + 1 < TRACE_MAX)
				continue;
		snprintf(a->func, sizeof(a->func), "%.63s", buf);
		short_where(sp + 1, a->where, sizeof(a->where));
		return;
	}
}

PR_NO_TSAN static void thread_name(void *report, int nthreads, int tid,
				   char *out, size_t len)
{
	snprintf(out, len, "?");
	for (int i = 0; i < nthreads; i++) {
		int t, running, parent;
		unsigned long os;
		const char *name = NULL;
		void *tr[1];

		if (!__tsan_get_report_thread(report, (unsigned long)i, &t, &os,
					      &running, &name, &parent, tr, 1))
			continue;
		if (t == tid) {
			snprintf(out, len, "%s", name && *name ? name :
				 tid == 0 ? "main" : "?");
			return;
		}
	}
}

PR_NO_TSAN void __tsan_on_report(void *report)
{
	const char *desc = NULL;
	int count, stacks, mops, locs, mutexes, threads, utids;
	void *sleep[1];
	struct pr_tsan_report r;

	if (pr_tsan_pending())
		return;		/* the first report of a run is its verdict */
	if (!__tsan_get_report_data(report, &desc, &count, &stacks, &mops,
				    &locs, &mutexes, &threads, &utids, sleep, 1))
		return;
	if (!desc || strcmp(desc, "data-race") || mops < 2)
		return;		/* only data races are verdicts */
	memset(&r, 0, sizeof(r));
	for (int i = 0; i < 2; i++) {
		struct pr_tsan_access *a = &r.a[i];
		void *trace[TRACE_MAX + 1], *addr = NULL;
		int tid = -1;

		memset(trace, 0, sizeof(trace));
		__tsan_get_report_mop(report, (unsigned long)i, &tid, &addr,
				      &a->size, &a->write, &a->atomic, trace,
				      TRACE_MAX);
		symbolize(trace, a);
		a->addr = addr;	/* named by pr_tsan_take (see there) */
		snprintf(a->obj, sizeof(a->obj), "?");
		thread_name(report, threads, tid, a->ctx, sizeof(a->ctx));
	}
	pr_tsan_noted(&r);
	pending = r;
	__atomic_store_n(&pending_flag, 1, __ATOMIC_RELAXED);
}
#endif /* PR_TSAN_ENABLED */
