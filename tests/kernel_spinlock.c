/* SPDX-License-Identifier: MIT */
/*
 * kernel_spinlock.c - spinlock_t and rwlock_t under exploration.
 *
 * Three CPUs increment a shared counter with a plain load and store.
 * Under a spinlock (or an rwlock's write side) no schedule loses an
 * update; without it some schedule does.  Then the lock checks: a CPU
 * re-taking its own lock, an interrupt handler taking the lock its CPU
 * holds (found by exploring irq delivery points, and absent with
 * spin_lock_irq), an unlock of a free lock, and an ABBA pair that the
 * runtime reports as a deadlock (both waiters asleep on the other's lock)
 * rather than hanging.  Last, what waiting at the lock's yield point
 * (pr_lock_wait) buys and must keep: dpor explores one execution per
 * order of the critical sections, no more (a waiter that spun was woken by
 * every store and multiplied them; one that made a failed attempt before
 * it slept still split each order in five); it reaches every final state
 * full dfs reaches, including the one where a CPU takes first a lock that
 * another then never releases, and loses some without its lock rules
 * (pr_dpor_locks); an interrupt reaches a CPU while it waits for a lock
 * another holds; and a daemon asleep on a lock nobody will release is a
 * deadlock, not an idle daemon.
 */
#include "kernel/kernel.h"
#include "runtime/run.h"
#include "strategy/dpor.h"
#include "tap.h"

#include <string.h>

#define RUNS	300
#define SEED	0x10c4ULL
#define NCPU	3
#define INCS	3

enum mode {
	M_SPIN, M_NONE, M_RWLOCK, M_SELF, M_IRQ, M_IRQ_SAFE, M_BADUNLOCK,
	M_ABBA, M_ONCE, M_RW_ONCE, M_DAEMON, M_MIX, M_LEAK, M_IRQ_WAIT,
};

static enum mode mode;
static int counter;
static spinlock_t lock, lock_b;
static rwlock_t rw;

static void incrementer(void *arg)
{
	(void)arg;
	for (int i = 0; i < INCS; i++) {
		if (mode == M_SPIN)
			spin_lock(&lock);
		else if (mode == M_RWLOCK)
			write_lock(&rw);
		STORE(counter, LOAD(counter) + 1);
		if (mode == M_SPIN)
			spin_unlock(&lock);
		else if (mode == M_RWLOCK)
			write_unlock(&rw);
	}
}

/* A read-side section: it must never see a writer's half-done state. */
static void read_section(void)
{
	int a, b;

	read_lock(&rw);
	a = LOAD(counter);
	b = LOAD(counter);
	PR_ASSERT(a == b);
	read_unlock(&rw);
}

/* rwlock readers alongside the writers. */
static void rw_reader(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++)
		read_section();
}

static void self_deadlock(void *arg)
{
	(void)arg;
	spin_lock(&lock);
	spin_lock(&lock);
}

static void irq_handler(void *arg)
{
	(void)arg;
	spin_lock(&lock);
	STORE(counter, LOAD(counter) + 1);
	spin_unlock(&lock);
}

static void irq_victim(void *arg)
{
	(void)arg;
	for (int i = 0; i < INCS; i++) {
		if (mode == M_IRQ_SAFE)
			spin_lock_irq(&lock);
		else
			spin_lock(&lock);
		STORE(counter, LOAD(counter) + 1);
		if (mode == M_IRQ_SAFE)
			spin_unlock_irq(&lock);
		else
			spin_unlock(&lock);
	}
}

static void bad_unlock(void *arg)
{
	(void)arg;
	spin_unlock(&lock);
}

static void abba(void *arg)
{
	int first = arg != NULL;

	spin_lock(first ? &lock : &lock_b);
	PR_YIELD("between");
	spin_lock(first ? &lock_b : &lock);
	spin_unlock(first ? &lock_b : &lock);
	spin_unlock(first ? &lock : &lock_b);
}

/* One critical section each: the executions are the orders of the sections. */
static void once(void *arg)
{
	(void)arg;
	if (mode == M_RW_ONCE && pr_self() == 2) {
		read_section();
		return;
	}
	if (mode == M_RW_ONCE)
		write_lock(&rw);
	else
		spin_lock(&lock);
	STORE(counter, LOAD(counter) + 1);
	STORE(counter, LOAD(counter) + 1);
	if (mode == M_RW_ONCE)
		write_unlock(&rw);
	else
		spin_unlock(&lock);
}

/*
 * Lock sections mixed with unlocked accesses, for dpor against full dfs:
 * every final state of (x, r0, r1) that one reaches the other must.
 */
static int mix_x, mix_y, mix_r0, mix_r1;
static unsigned mix_states;

static void mix0(void *arg)
{
	(void)arg;
	spin_lock(&lock);
	STORE(mix_x, 1);
	spin_unlock(&lock);
	mix_r0 = LOAD(mix_y);
}

static void mix1(void *arg)
{
	(void)arg;
	STORE(mix_y, 1);
	spin_lock(&lock);
	mix_r1 = LOAD(mix_x);
	spin_unlock(&lock);
}

static void mix2(void *arg)
{
	(void)arg;
	spin_lock(&lock);
	STORE(mix_x, 2);
	spin_unlock(&lock);
}

/* Takes the lock and returns without releasing it. */
static void leaker(void *arg)
{
	(void)arg;
	spin_lock(&lock);
}

/*
 * A lock one CPU never releases: the other's section runs only if it
 * takes the lock first (final state r1 = 0); otherwise it waits for ever
 * (a deadlock, no final state).
 */
static void leak_writer(void *arg)
{
	(void)arg;
	spin_lock(&lock);
	STORE(mix_x, 1);
}

static void leak_reader(void *arg)
{
	(void)arg;
	spin_lock(&lock);
	mix_r1 = LOAD(mix_x);
	spin_unlock(&lock);
}

/* An interrupt while its CPU waits for a lock another CPU holds. */
static int waiting_for_lock, irq_saw_wait;

static void irq_while_waiting(void *arg)
{
	(void)arg;
	if (waiting_for_lock && lock.owner == klock_id(0))
		irq_saw_wait = 1;
}

static void wait_holder(void *arg)
{
	(void)arg;
	spin_lock(&lock);
	PR_YIELD("held");
	spin_unlock(&lock);
}

static void wait_waiter(void *arg)
{
	(void)arg;
	PR_YIELD("start");
	waiting_for_lock = 1;
	spin_lock(&lock);
	waiting_for_lock = 0;
	spin_unlock(&lock);
}

static void lock_daemon(void *arg)
{
	(void)arg;
	PR_YIELD("daemon starts");
	spin_lock(&lock);
	spin_unlock(&lock);
}

static int expected;

static void setup(void *arg)
{
	(void)arg;
	kernel_reset(NCPU);
	counter = 0;
	spin_lock_init(&lock);
	spin_lock_init(&lock_b);
	rwlock_init(&rw);
	pr_name_object(&counter, "counter");
	pr_name_object(&lock, "lock");
	pr_name_object(&lock_b, "lock_b");
	pr_name_object(&rw, "rw");
	expected = -1;
	switch (mode) {
	case M_SPIN:
	case M_NONE:
	case M_RWLOCK:
		for (int i = 0; i < NCPU; i++)
			pr_spawn(i == 0 ? "cpu0" : i == 1 ? "cpu1" : "cpu2",
				 incrementer, NULL, 0);
		if (mode == M_RWLOCK)
			pr_spawn("cpu3", rw_reader, NULL, 0);
		expected = NCPU * INCS;
		break;
	case M_SELF:
		pr_spawn("cpu0", self_deadlock, NULL, 0);
		break;
	case M_IRQ:
	case M_IRQ_SAFE:
		pr_spawn("cpu0", irq_victim, NULL, 0);
		pr_inject(0, "irq", irq_handler, NULL, 1);
		break;
	case M_BADUNLOCK:
		pr_spawn("cpu0", bad_unlock, NULL, 0);
		break;
	case M_ABBA:
		pr_spawn("cpu0", abba, &lock, 0);
		pr_spawn("cpu1", abba, NULL, 0);
		break;
	case M_ONCE:
	case M_RW_ONCE:
		for (int i = 0; i < NCPU; i++)
			pr_spawn(i == 0 ? "cpu0" : i == 1 ? "cpu1" : "cpu2",
				 once, NULL, 0);
		expected = mode == M_ONCE ? 2 * NCPU : 2 * (NCPU - 1);
		break;
	case M_MIX:
		mix_x = mix_y = mix_r0 = mix_r1 = 0;
		pr_spawn("cpu0", mix0, NULL, 0);
		pr_spawn("cpu1", mix1, NULL, 0);
		pr_spawn("cpu2", mix2, NULL, 0);
		break;
	case M_LEAK:
		mix_x = 0;
		mix_r1 = -1;
		pr_spawn("cpu0", leak_writer, NULL, 0);
		pr_spawn("cpu1", leak_reader, NULL, 0);
		break;
	case M_IRQ_WAIT:
		waiting_for_lock = 0;
		pr_spawn("cpu0", wait_holder, NULL, 0);
		pr_spawn("cpu1", wait_waiter, NULL, 0);
		pr_inject(1, "irq", irq_while_waiting, NULL, 1);
		break;
	case M_DAEMON:
		pr_spawn("cpu0", leaker, NULL, 0);
		pr_spawn("daemon", lock_daemon, NULL, PR_CTX_DAEMON);
		break;
	}
}

static void finish(void *arg)
{
	(void)arg;
	if (expected >= 0)
		PR_ASSERT(counter == expected);
	if (mode != M_DAEMON && mode != M_LEAK)
		PR_ASSERT(!lock.slock && !lock_b.slock && rw.cnt == 0);
	if (mode == M_LEAK)	/* it ran to the end: r1 is 0 */
		mix_states |= 1u << (mix_r1 + 1);
	if (mode == M_MIX)	/* x in 1..2, r0 in 0..1, r1 in 0..2 */
		mix_states |= 1u << ((mix_x - 1) * 6 + mix_r0 * 3 + mix_r1);
}

static const struct pr_program prog = {
	.name = "kernel_spinlock", .setup = setup, .finish = finish,
};

struct tally {
	int failed, kind_hits, first;
	struct pr_verdict v;	/* first failure of the kind looked for */
	struct pr_coverage cov;
};

static int bound = -1;	/* dfs, dpor: a preemption bound; -1 none */

static void explore_with(const char *strategy, enum mode m, int runs,
			 const char *kind, struct tally *t)
{
	struct pr_strategy_params params;
	struct pr_run_options opts;
	struct pr_strategy *s;
	struct pr_run_result res;

	memset(&params, 0, sizeof(params));
	if (bound >= 0) {
		params.has_bound = 1;
		params.preemption_bound = bound;
	}
	memset(t, 0, sizeof(*t));
	t->first = -1;
	pr_run_options_default(&opts);
	s = pr_strategy_create(strategy, &params);
	mode = m;
	for (int run = 0; run < runs &&
	     !(s->ops->exhausted && s->ops->exhausted(s)); run++) {
		if (!pr_run_once(&prog, s, &opts, SEED, (uint64_t)run, NULL, &res))
			continue;
		if (!t->failed++ && !kind)
			t->v = res.verdict;
		if (kind && !strcmp(res.verdict.kind, kind)) {
			if (t->first < 0) {
				t->first = run;
				t->v = res.verdict;
			}
			t->kind_hits++;
		}
	}
	if (s->ops->coverage)
		s->ops->coverage(s, &t->cov);
	s->ops->destroy(s);
	if (t->failed)
		diag("%s: %s on %s%s obj %s at %s: %s", kind ? kind : "failure",
		     t->v.kind, t->v.ctx_name, t->v.in_event ? " (irq)" : "",
		     t->v.obj, t->v.site, t->v.msg);
}

static void explore(enum mode m, int runs, const char *kind, struct tally *t)
{
	explore_with("random", m, runs, kind, t);
}

int main(void)
{
	struct tally t;

	plan(22);

	explore(M_SPIN, RUNS, NULL, &t);
	ok(t.failed == 0, "spinlock: counter exact in %d runs (%d failed)",
	   RUNS, t.failed);

	explore(M_NONE, RUNS, "assert", &t);
	ok(t.kind_hits > 0, "no lock: a lost update is found (%d of %d runs, "
	   "first run %d)", t.kind_hits, RUNS, t.first);

	explore(M_RWLOCK, RUNS, NULL, &t);
	ok(t.failed == 0, "rwlock: writers exclusive, readers consistent in "
	   "%d runs (%d failed)", RUNS, t.failed);

	explore(M_SELF, 1, "deadlock", &t);
	ok(t.kind_hits == 1, "re-taking a held spinlock is a deadlock");

	explore(M_IRQ, RUNS, "deadlock", &t);
	ok(t.kind_hits > 0 && t.v.in_event, "spin_lock vs an irq handler "
	   "taking it: deadlock found in the handler (%d of %d runs)",
	   t.kind_hits, RUNS);
	ok(t.kind_hits == t.failed, "  and nothing else fails (%d/%d)",
	   t.kind_hits, t.failed);

	explore(M_IRQ_SAFE, RUNS, NULL, &t);
	ok(t.failed == 0, "spin_lock_irq vs the same handler: no verdict in %d "
	   "runs (%d failed)", RUNS, t.failed);

	explore(M_BADUNLOCK, 1, "bad-unlock", &t);
	ok(t.kind_hits == 1, "unlocking a free spinlock is a bad-unlock");

	explore(M_ABBA, RUNS, "deadlock", &t);
	ok(t.kind_hits > 0 && t.kind_hits == t.failed, "ABBA: deadlock "
	   "reported, never a hang (%d of %d runs)", t.kind_hits, RUNS);

	/*
	 * 3 CPUs, one section each: the 3! orders of the sections, one
	 * execution each, under sc, tso and weak (a waiter that made one
	 * failed attempt before it slept took 30; waiters that spun, woken
	 * by every store, 3,840 under sc and 478,752 under tso and weak).
	 */
	explore_with("dpor", M_ONCE, 100000, NULL, &t);
	ok(t.cov.complete && t.cov.executions == 6 && t.failed == 0,
	   "dpor: one spinlock section on each of 3 CPUs: 6 executions, "
	   "exhaustive (%llu, %s, %d failed)",
	   (unsigned long long)t.cov.executions,
	   t.cov.complete ? "exhaustive" : "incomplete", t.failed);

	explore_with("dpor", M_RW_ONCE, 100000, NULL, &t);
	ok(t.cov.complete && t.cov.executions <= 6 && t.failed == 0,
	   "dpor: rwlock, 2 writers and a reader once each: <= 6 executions "
	   "(%llu, %d failed)", (unsigned long long)t.cov.executions,
	   t.failed);

	{
		unsigned by_dfs, by_dpor, planted;
		unsigned long long n_dfs;

		mix_states = 0;
		explore_with("dfs", M_MIX, 2000000, NULL, &t);
		by_dfs = mix_states;
		n_dfs = t.cov.executions;
		ok(t.cov.complete && t.failed == 0, "full dfs of sections and "
		   "plain accesses: exhaustive, %llu executions", n_dfs);
		mix_states = 0;
		explore_with("dpor", M_MIX, 2000000, NULL, &t);
		by_dpor = mix_states;
		ok(t.cov.complete && by_dpor == by_dfs && t.cov.executions < n_dfs,
		   "  dpor reaches the same final states (%#x, dfs %#x) in "
		   "%llu executions", by_dpor, by_dfs,
		   (unsigned long long)t.cov.executions);
		mix_states = 0;
		pr_dpor_locks = 1;
		explore_with("dpor", M_MIX, 2000000, NULL, &t);
		pr_dpor_locks = 0;
		planted = mix_states;
		ok(planted != by_dfs, "  without its lock rules dpor loses "
		   "some (%#x)", planted);

		mix_states = 0;
		explore_with("dfs", M_LEAK, 100000, "deadlock", &t);
		by_dfs = mix_states;
		mix_states = 0;
		explore_with("dpor", M_LEAK, 100000, "deadlock", &t);
		by_dpor = mix_states;
		ok(t.cov.complete && by_dpor == by_dfs && by_dfs == 1u << 1 &&
		   t.kind_hits > 0, "a lock never released: dpor runs the "
		   "section that takes it first (states %#x, dfs %#x; %d "
		   "deadlocks)", by_dpor, by_dfs, t.kind_hits);
		mix_states = 0;
		pr_dpor_locks = 1;
		explore_with("dpor", M_LEAK, 100000, "deadlock", &t);
		pr_dpor_locks = 0;
		ok(mix_states != by_dfs, "  not without its lock rules (%#x)",
		   mix_states);
	}

	/* Bounded dpor (BPOR) against dfs with the same bound. */
	for (bound = 0; bound <= 2; bound++) {
		unsigned by_dfs, by_dpor;

		mix_states = 0;
		explore_with("dfs", M_MIX, 2000000, NULL, &t);
		by_dfs = mix_states;
		mix_states = 0;
		explore_with("dpor", M_MIX, 2000000, NULL, &t);
		by_dpor = mix_states;
		ok(t.cov.complete && by_dpor == by_dfs, "preemption bound %d: "
		   "dpor reaches the final states dfs reaches (%#x, dfs %#x)",
		   bound, by_dpor, by_dfs);
	}
	bound = -1;

	irq_saw_wait = 0;
	explore_with("dpor", M_IRQ_WAIT, 100000, NULL, &t);
	ok(t.cov.complete && irq_saw_wait && t.failed == 0,
	   "an interrupt reaches a CPU waiting for a lock another holds "
	   "(%llu executions)", (unsigned long long)t.cov.executions);

	explore_with("dpor", M_DAEMON, 1000, "deadlock", &t);
	ok(t.cov.complete && t.kind_hits > 0 && t.kind_hits == t.failed,
	   "a daemon asleep on a lock a finished CPU leaked: deadlock "
	   "(%d of %llu executions)", t.kind_hits,
	   (unsigned long long)t.cov.executions);
	ok(t.kind_hits > 0 && strstr(t.v.msg, "daemon") != NULL,
	   "  the verdict names the daemon: %s", t.v.msg);

	return done_testing();
}
