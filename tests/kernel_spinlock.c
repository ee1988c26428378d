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
 * runtime sees as a livelock rather than hanging.
 */
#include "kernel/kernel.h"
#include "runtime/run.h"
#include "tap.h"

#include <string.h>

#define RUNS	300
#define SEED	0x10c4ULL
#define NCPU	3
#define INCS	3

enum mode {
	M_SPIN, M_NONE, M_RWLOCK, M_SELF, M_IRQ, M_IRQ_SAFE, M_BADUNLOCK,
	M_ABBA,
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

/* rwlock readers alongside the writers: they must never see a torn state. */
static void rw_reader(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++) {
		int a, b;

		read_lock(&rw);
		a = LOAD(counter);
		b = LOAD(counter);
		PR_ASSERT(a == b);
		read_unlock(&rw);
	}
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
	}
}

static void finish(void *arg)
{
	(void)arg;
	if (expected >= 0)
		PR_ASSERT(counter == expected);
	PR_ASSERT(!lock.slock && !lock_b.slock && rw.cnt == 0);
}

static const struct pr_program prog = {
	.name = "kernel_spinlock", .setup = setup, .finish = finish,
};

struct tally {
	int failed, kind_hits, first;
	struct pr_verdict v;	/* first failure of the kind looked for */
};

static void explore(enum mode m, int runs, const char *kind, struct tally *t)
{
	struct pr_strategy_params params;
	struct pr_run_options opts;
	struct pr_strategy *s;
	struct pr_run_result res;

	memset(&params, 0, sizeof(params));
	memset(t, 0, sizeof(*t));
	t->first = -1;
	pr_run_options_default(&opts);
	s = pr_strategy_create("random", &params);
	mode = m;
	for (int run = 0; run < runs; run++) {
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
	s->ops->destroy(s);
	if (t->failed)
		diag("%s: %s on %s%s obj %s at %s: %s", kind ? kind : "failure",
		     t->v.kind, t->v.ctx_name, t->v.in_event ? " (irq)" : "",
		     t->v.obj, t->v.site, t->v.msg);
}

int main(void)
{
	struct tally t;

	plan(9);

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

	explore(M_ABBA, RUNS, "livelock", &t);
	ok(t.kind_hits > 0 && t.kind_hits == t.failed, "ABBA: livelock "
	   "reported, never a hang (%d of %d runs)", t.kind_hits, RUNS);

	return done_testing();
}
