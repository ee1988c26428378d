/* SPDX-License-Identifier: MIT */
/*
 * stress.c - free-running mode: a program's contexts as real threads.
 *
 * Deterministic runs interleave fibers at yield points; stress mode runs
 * every context of a run on a thread of its own, in parallel, the way
 * jcstress or a classic ThreadSanitizer test does: the hardware and the
 * OS decide the interleaving, nothing is recorded, and a failure cannot
 * be replayed -- but every detector still applies, and the real memory
 * model and real timing are in play.
 *
 * What each runtime call becomes (sched.c forwards to these while
 * pr_stress_on is set):
 *  - yield points: nothing.  Each thread's pr_hot (thread-local) holds an
 *    unbounded budget, so the hot path is its usual decrement and branch
 *    and never reaches the slow path -- unless --jitter or interrupts ask
 *    for it, then the budget is a small random number and the slow path
 *    (pr_stress_yield_slow) delays for a random time (a pause loop, and
 *    one time in eight sched_yield) and/or delivers an interrupt, then
 *    draws a new budget.
 *  - pr_spin: sched_yield(), after checking whether the iteration is
 *    over or past its deadline (a livelock).
 *  - pr_block: a futex wait on one of 64 hashed words, with a 200 us
 *    timeout: callers re-check their condition (wake-ups may be
 *    spurious), and the timeout closes the window between that check and
 *    the wait that the deterministic scheduler closes by not switching
 *    there.  pr_wake bumps the word and wakes its sleepers, if any.
 *  - pr_fail, a crash: the first verdict of an iteration wins; the thread
 *    leaves its body (siglongjmp), the others stop at their next wait.
 *
 * Interrupts (pr_inject) run on the interrupted CPU's own thread, at one
 * of its yield points with interrupts enabled, chosen at random: the
 * handler preempts the CPU's code exactly as a hardware interrupt does
 * (that code cannot run meanwhile, local_irq_disable keeps it out, and
 * it runs on the same kcpu).  A helper thread per CPU would run the
 * handler *beside* the interrupted code -- the opposite of what the
 * spec-irq race is about -- and a real signal (pthread_kill) cannot be
 * masked by local_irq_disable without a system call per toggle, and
 * ThreadSanitizer defers asynchronous signals to its interceptors, which
 * a spinning CPU never calls.
 *
 * Synchronisation that ThreadSanitizer must not see.  Barriers between
 * iterations (pthread_barrier_wait) are real happens-before edges: one
 * iteration's accesses are ordered before the next one's setup.  Within
 * an iteration the harness adds none: the futex words and the stop flags
 * are relaxed atomics, and pr_harness_lock (which serialises the
 * harness's own bookkeeping: the RCU callback queue, the page-lock and
 * reclaim shadow, the slab free lists -- not the per-lookup paths, see
 * kernel/rcu.c and check/shadow.c) is a relaxed exchange, so
 * ThreadSanitizer derives no ordering from them and reports the races
 * the model has, not fewer.
 */
#define _GNU_SOURCE
#include "runtime/context.h"
#include "runtime/internal.h"
#include "runtime/run.h"
#include "runtime/rng.h"
#include "runtime/stress.h"
#include "runtime/tsan.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int pr_stress_on;
__thread int pr_stress_self = -1;

#define NBUCKETS	64

#if defined(__x86_64__) || defined(__i386__)
#define relax()	__builtin_ia32_pause()
#else
#define relax()	__asm__ __volatile__("" ::: "memory")
#endif

static struct {
	/* Set up once, then read-only while workers run. */
	int nthreads;
	pthread_t th[PR_MAX_CTX];
	pthread_barrier_t start, end;
	int quit;
	const struct pr_stress_options *opts;
	const struct pr_program *prog;
	uint64_t iter;
	uint64_t deadline_ns;
	struct pr_run_result *res;
	sigjmp_buf main_env;

	/* Relaxed atomics within an iteration. */
	int stop;		/* a verdict was recorded: everyone leave */
	int running;		/* non-daemon contexts still in their body */
	int daemons_stop;	/* every CPU is done: daemons may leave */
	int failed;		/* a verdict is recorded (under the lock) */
	int hlock;
	int arrived;		/* start line: workers spin until all are here */
	/*
	 * Futex words of pr_block/pr_wake, hashed by wait queue.  waiters
	 * lets a wake with nobody asleep (every unlock of an uncontended
	 * lock, every iteration's end) skip the system call.
	 */
	struct {
		int seq;	/* bumped by each wake */
		int waiters;	/* threads in (or entering) FUTEX_WAIT */
	} bucket[NBUCKETS];
} st;

/* Per thread. */
static __thread struct {
	sigjmp_buf env;
	struct pr_rng rng;
	int daemon;
	int hlock_depth;
	int events;		/* this context has interrupts to take */
	unsigned long spins;
} me;

PR_NO_TSAN int pr_stress_mode(void)
{
	return pr_stress_on;
}

PR_NO_TSAN static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

PR_NO_TSAN static int load(const int *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

PR_NO_TSAN static void store(int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* ---- the harness lock ------------------------------------------------ */

/*
 * Serialise harness bookkeeping between stress threads; a no-op in
 * deterministic runs, where a context runs alone between yield points.
 * Recursive per thread.  Relaxed exchange plus compiler barriers: on
 * x86-64 the locked exchange is a full barrier already, and being
 * relaxed it gives ThreadSanitizer no happens-before edge between the
 * model's CPUs (see above).  Elsewhere acquire/release keep it correct.
 */
#if defined(__x86_64__)
#define HLOCK_ACQ	__ATOMIC_RELAXED
#define HLOCK_REL	__ATOMIC_RELAXED
#else
#define HLOCK_ACQ	__ATOMIC_ACQUIRE
#define HLOCK_REL	__ATOMIC_RELEASE
#endif

PR_NO_TSAN void pr_harness_lock(void)
{
	if (!pr_stress_on)
		return;
	if (me.hlock_depth++)
		return;
	while (__atomic_exchange_n(&st.hlock, 1, HLOCK_ACQ))
		while (load(&st.hlock))
			relax();
	__asm__ __volatile__("" ::: "memory");
}

PR_NO_TSAN void pr_harness_unlock(void)
{
	if (!pr_stress_on)
		return;
	if (--me.hlock_depth)
		return;
	__asm__ __volatile__("" ::: "memory");
	__atomic_store_n(&st.hlock, 0, HLOCK_REL);
}

/* ---- waiting --------------------------------------------------------- */

PR_NO_TSAN static int bucket_of(const void *waitq)
{
	uintptr_t h = (uintptr_t)waitq;

	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ull;
	return (int)((h >> 32) % NBUCKETS);
}

/*
 * Bump bucket @i's word and wake its sleepers, if it has any.  The
 * sleeper counts itself before it reads the word, the waker bumps the
 * word before it reads the count (locked instructions, full barriers on
 * x86-64), so one of them sees the other; where neither would, the 200 us
 * timeout of pr_stress_block bounds the miss, as it bounds the window
 * between a caller's check and its wait.
 */
PR_NO_TSAN static void wake_bucket(int i)
{
	__atomic_fetch_add(&st.bucket[i].seq, 1, __ATOMIC_RELAXED);
	__asm__ __volatile__("" ::: "memory");
	if (load(&st.bucket[i].waiters))
		syscall(SYS_futex, &st.bucket[i].seq, FUTEX_WAKE_PRIVATE,
			INT_MAX, NULL, NULL, 0);
}

PR_NO_TSAN static void wake_all(void)
{
	for (int i = 0; i < NBUCKETS; i++)
		wake_bucket(i);
}

/* Leave the body: the iteration is over for this thread. */
PR_NO_TSAN static __attribute__((noreturn)) void leave(void)
{
	if (me.hlock_depth) {
		me.hlock_depth = 1;
		pr_harness_unlock();
	}
	if (pr_stress_self < 0)
		siglongjmp(st.main_env, 1);
	siglongjmp(me.env, 1);
}

/* A waiting context: is the iteration over, or past its deadline? */
PR_NO_TSAN static void check_waiting(const void *obj, const char *how)
{
	if (load(&st.stop) || (me.daemon && load(&st.daemons_stop)))
		leave();
	if (now_ns() > st.deadline_ns) {
		char name[64], msg[PR_VERDICT_TEXT];

		if (!strcmp(how, "running"))
			snprintf(msg, sizeof(msg),
				 "%s still running after the %.1f s iteration timeout (a loop without a wait?)",
				 pr_ctx_name(pr_stress_self),
				 st.opts->timeout_ms / 1000.0);
		else
			snprintf(msg, sizeof(msg),
				 "%s %s on %s for longer than the %.1f s iteration timeout",
				 pr_ctx_name(pr_stress_self), how,
				 pr_obj_name(obj, name, sizeof(name)),
				 st.opts->timeout_ms / 1000.0);
		pr_stress_fail(!strcmp(how, "blocked") ? "deadlock" : "livelock",
			       obj, msg);
	}
}

PR_NO_TSAN void pr_stress_spin(const struct pr_site *site, const void *obj)
{
	pr_hot.site = site;
	pr_hot.obj = obj;
	if (pr_stress_self < 0)
		return;
	if ((++me.spins & 63) == 0)
		check_waiting(obj, "spinning");
	if (load(&st.stop))
		leave();
	sched_yield();
}

PR_NO_TSAN void pr_stress_block(const struct pr_site *site, const void *waitq)
{
	struct timespec ts = { 0, 200 * 1000 };
	int i = bucket_of(waitq);
	int seq;

	pr_hot.site = site;
	pr_hot.obj = waitq;
	if (pr_stress_self < 0)
		return;
	check_waiting(waitq, "blocked");
	__atomic_fetch_add(&st.bucket[i].waiters, 1, __ATOMIC_RELAXED);
	__asm__ __volatile__("" ::: "memory");
	seq = load(&st.bucket[i].seq);
	syscall(SYS_futex, &st.bucket[i].seq, FUTEX_WAIT_PRIVATE, seq, &ts,
		NULL, 0);
	__atomic_fetch_sub(&st.bucket[i].waiters, 1, __ATOMIC_RELAXED);
}

PR_NO_TSAN void pr_stress_wake(const void *waitq)
{
	wake_bucket(bucket_of(waitq));
}

/* ---- yield points ---------------------------------------------------- */

/*
 * Without jitter or interrupts a thread still comes to the slow path
 * every 64K yield points, to notice the end of the iteration or a loop
 * with no wait in it (a livelock the scheduler would catch by its step
 * bound): one extra branch in 65536.
 */
#define STRESS_CHECK_EVERY	65536

PR_NO_TSAN static int64_t next_budget(void)
{
	if (pr_stress_self < 0)
		return PR_BUDGET_UNBOUNDED;
	if (!st.opts->jitter_us && !me.events)
		return STRESS_CHECK_EVERY;
	return 1 + (int64_t)pr_rng_below(&me.rng, 4);
}

PR_NO_TSAN void pr_stress_yield_slow(const struct pr_site *site,
				     const void *obj)
{
	(void)site;
	(void)obj;
	pr_hot.budget = next_budget();
	if (pr_stress_self < 0)
		return;
	if (load(&st.stop) || (me.daemon && load(&st.daemons_stop)))
		leave();
	if ((++me.spins & 255) == 0)
		check_waiting(obj, "running");
	if (me.events && pr_rng_below(&me.rng, 4) == 0) {
		pr_sched_stress_event(pr_stress_self,
				      (unsigned int)pr_rng_next(&me.rng));
		me.events = pr_sched_ctx_has_events(pr_stress_self);
	}
	if (st.opts->jitter_us) {
		/*
		 * About 0..jitter_us microseconds of pause instructions: no
		 * clock reads (a libc call ThreadSanitizer intercepts, at
		 * every few yield points, would swamp its history).
		 */
		uint64_t n = pr_rng_below(&me.rng, st.opts->jitter_us + 1) * 30;

		while (n--)
			relax();
		/*
		 * And now and then give the core away: on a machine with fewer
		 * free cores than threads this is what interleaves them.
		 */
		if (pr_rng_below(&me.rng, 8) == 0)
			sched_yield();
	}
}

PR_NO_TSAN uint64_t pr_stress_step(void)
{
	return 0;	/* no global step order exists in stress mode */
}

/* ---- verdicts -------------------------------------------------------- */

PR_NO_TSAN static void record(const char *kind, const void *obj,
			      const char *msg)
{
	struct pr_verdict *v = &st.res->verdict;
	int self = pr_stress_self;
	const struct pr_site *at = pr_hot.site;

	pr_harness_lock();
	if (!st.failed) {
		memset(v, 0, sizeof(*v));
		snprintf(v->kind, sizeof(v->kind), "%s", kind);
		v->ctx = self;
		v->in_event = pr_in_event();
		snprintf(v->ctx_name, sizeof(v->ctx_name), "%s",
			 self >= 0 ? pr_ctx_name(self) : "-");
		pr_obj_name(obj, v->obj, sizeof(v->obj));
		if (self >= 0 && at) {
			const char *f = strstr(at->file, "src/");

			pr_site_label(at, v->site, sizeof(v->site));
			snprintf(v->where, sizeof(v->where), "%s:%d",
				 f ? f : at->file, at->line);
		}
		snprintf(v->msg, sizeof(v->msg), "%s", msg);
		st.res->failed = 1;
		store(&st.failed, 1);
	}
	pr_harness_unlock();
	store(&st.stop, 1);
	wake_all();
}

PR_NO_TSAN void pr_stress_fail(const char *kind, const void *obj,
			       const char *msg)
{
	record(kind, obj, msg);
	leave();
}

PR_NO_TSAN void pr_stress_crash(const char *what)
{
	record("crash", NULL, what);
	leave();
}

/* ---- threads and iterations ------------------------------------------ */

PR_NO_TSAN static void run_context(int i)
{
	pr_fn fn;
	void *arg;
	unsigned int flags;
	static __thread char altstack[64 * 1024];
	static __thread int altstack_set;

	if (!altstack_set) {	/* once per thread: it is a system call */
		stack_t ss;

		memset(&ss, 0, sizeof(ss));
		ss.ss_sp = altstack;
		ss.ss_size = sizeof(altstack);
		sigaltstack(&ss, NULL);
		altstack_set = 1;
	}

	pr_sched_ctx_body(i, &fn, &arg, &flags);
	pr_stress_self = i;
	me.daemon = (flags & PR_CTX_DAEMON) != 0;
	me.hlock_depth = 0;
	me.spins = 0;
	me.events = pr_sched_ctx_has_events(i);
	pr_rng_seed(&me.rng, st.opts->seed, st.iter, (uint64_t)i + 0x57);
	pr_hot.spinners = 0;
	pr_hot.budget = next_budget();
#if PR_TSAN_ENABLED
	__tsan_set_fiber_name(__tsan_get_current_fiber(), pr_ctx_name(i));
#endif
	/*
	 * The start line: a barrier wakes threads tens of microseconds apart,
	 * longer than a body runs, so they would never overlap; spinning
	 * here until every worker has arrived starts them together (as
	 * jcstress does).  Relaxed: no ordering between the CPUs.
	 */
#if !PR_TSAN_ENABLED
	/*
	 * Not under ThreadSanitizer: it reports unordered accesses whether
	 * or not they overlap in time, and threads spinning on an atomic
	 * while its runtime resets its global state could hang there.
	 */
	__atomic_add_fetch(&st.arrived, 1, __ATOMIC_RELAXED);
	for (unsigned long spin = 0; load(&st.arrived) < st.nthreads; spin++)
		if (spin < 1000)
			relax();
		else
			sched_yield();	/* more threads than cores */
#endif
	/* No mask saved: the crash handler unblocks its signal (crash.c). */
	if (sigsetjmp(me.env, 0) == 0)
		fn(arg);
	pr_sched_ctx_reset(i);
	pr_hot.budget = PR_BUDGET_UNBOUNDED;
	if (!me.daemon &&
	    __atomic_sub_fetch(&st.running, 1, __ATOMIC_RELAXED) == 0) {
		store(&st.daemons_stop, 1);
		wake_all();
	}
}

PR_NO_TSAN static void *worker(void *arg)
{
	int i = (int)(intptr_t)arg;

	for (;;) {
		pthread_barrier_wait(&st.start);
		if (st.quit)
			return NULL;
		run_context(i);
		pthread_barrier_wait(&st.end);
	}
}

PR_NO_TSAN static int start_threads(int n)
{
	if (pthread_barrier_init(&st.start, NULL, (unsigned)n + 1) ||
	    pthread_barrier_init(&st.end, NULL, (unsigned)n + 1))
		return -1;
	for (int i = 0; i < n; i++)
		if (pthread_create(&st.th[i], NULL, worker,
				   (void *)(intptr_t)i)) {
			st.nthreads = i;
			return -1;
		}
	st.nthreads = n;
	return 0;
}

PR_NO_TSAN void pr_stress_begin(const struct pr_program *prog,
				const struct pr_stress_options *opts)
{
	memset(&st, 0, sizeof(st));
	st.prog = prog;
	st.opts = opts;
	pr_crash_install();
	pr_stress_on = 1;
}

PR_NO_TSAN void pr_stress_end(void)
{
	if (st.nthreads) {
		st.quit = 1;
		pthread_barrier_wait(&st.start);
		for (int i = 0; i < st.nthreads; i++)
			pthread_join(st.th[i], NULL);
		pthread_barrier_destroy(&st.start);
		pthread_barrier_destroy(&st.end);
	}
	st.nthreads = 0;
	pr_stress_on = 0;
	pr_hot.budget = PR_BUDGET_UNBOUNDED;
}

PR_NO_TSAN int pr_stress_iteration(uint64_t iter, struct pr_run_result *res)
{
	struct pr_run_options ro;
	struct pr_tsan_report r;
	static struct pr_run_result setup_res;
	int n;

	memset(res, 0, sizeof(*res));
	res->verdict.ctx = -1;
	st.res = res;
	st.iter = iter;
	st.stop = st.failed = st.daemons_stop = st.arrived = 0;
	pr_tsan_reset();
	pr_run_options_default(&ro);
	pr_hot.budget = PR_BUDGET_UNBOUNDED;
	if (sigsetjmp(st.main_env, 0) == 0) {
		pr_sched_stress_setup(st.prog, &ro, &setup_res);
		n = pr_nr_ctx();
		if (!st.nthreads && start_threads(n)) {
			fprintf(stderr, "pagerace stress: cannot start %d threads\n", n);
			exit(2);
		}
		if (n != st.nthreads)
			pr_stress_fail("setup", NULL,
				       "setup created a different number of contexts");
		st.running = n;
		for (int i = 0; i < n; i++) {
			pr_fn fn;
			void *arg;
			unsigned int flags;

			pr_sched_ctx_body(i, &fn, &arg, &flags);
			st.running -= (flags & PR_CTX_DAEMON) != 0;
		}
		st.deadline_ns = now_ns() + st.opts->timeout_ms * 1000000ull;
		pthread_barrier_wait(&st.start);
		pthread_barrier_wait(&st.end);
		if (!st.failed && st.prog->finish)
			st.prog->finish(st.prog->arg);
	}
	/*
	 * A ThreadSanitizer report of this iteration is its verdict even if
	 * a detector also fired: TSan reports each race once per process.
	 */
	if (pr_tsan_take(&r)) {
		memset(&res->verdict, 0, sizeof(res->verdict));
		snprintf(res->verdict.kind, sizeof(res->verdict.kind), "data-race");
		res->verdict.ctx = r.ctx;
		snprintf(res->verdict.ctx_name, sizeof(res->verdict.ctx_name),
			 "%s", r.a[0].ctx);
		snprintf(res->verdict.obj, sizeof(res->verdict.obj), "%s",
			 r.a[0].obj);
		pr_tsan_describe(&r, res->verdict.msg, sizeof(res->verdict.msg));
		res->failed = 1;
	}
	return res->failed;
}
