/* SPDX-License-Identifier: MIT */
/*
 * spinlock.c - spinlock_t and rwlock_t over yield points (spinlock.h).
 *
 * Between two yield points a context runs alone, so everything done right
 * after an attempt's yield point (the exchange, the owner bookkeeping, the
 * checks) is one indivisible step; the __atomic operations keep the lock
 * words honest for stress mode and ThreadSanitizer.
 *
 * ThreadSanitizer (pagerace-tsan).  These functions are the lock's
 * implementation, not model code: PR_NO_TSAN keeps their bookkeeping
 * (owner, site, per-CPU reader counts) out of its sight.  What the
 * kernel guarantees of a lock is stated with pr_tsan_acquire(lock) after
 * every successful acquisition and pr_tsan_release(lock) before every
 * release: a critical section happens before the next one on the same
 * lock, for spinlocks and for both sides of an rwlock (read_unlock
 * releases too, so a writer is ordered after every reader before it;
 * readers are not ordered with each other, as in the kernel).  The lock
 * words' acquire/release atomics already carry the same edges -- clang
 * instruments atomics even in uninstrumented functions -- so the
 * annotations document the contract rather than add to it.  The owner is
 * read by other CPUs (deadlock checks), so it is a relaxed atomic.
 */
#include "runtime/tsan.h"
#include "kernel/spinlock.h"
#include "kernel/kasan.h"
#include "memory/memory.h"

#include <string.h>

/* A site's file without its directories: verdicts must not carry paths. */
PR_NO_TSAN static const char *site_file(const struct pr_site *site)
{
	const char *slash;

	if (!site)
		return "?";
	slash = strrchr(site->file, '/');
	return slash ? slash + 1 : site->file;
}

PR_NO_TSAN static const char *ctx_label(int ctx)
{
	return ctx < 0 ? "setup/check code" : pr_ctx_name(ctx);
}

/*
 * A failed attempt by @self on a lock held by @owner: if the holder can
 * never release it because it is us, say so now rather than spin.
 * Outside a run nothing else can run, so any held lock is a deadlock.
 */
PR_NO_TSAN static void check_self_deadlock(const void *lock, int self, int owner,
				const struct pr_site *held_at, const char *how)
{
	if (self >= 0 && owner != self)
		return;
	if (self < 0)
		pr_fail("deadlock", lock,
			"%s lock held by %s outside a run (taken in %s)",
			how, ctx_label(owner), held_at ? held_at->func : "?");
	if (pr_in_event())
		pr_fail("deadlock", lock,
			"interrupt handler on %s takes a %s lock its CPU already "
			"holds (taken in %s at %s:%d, interrupts were on)",
			ctx_label(self), how, held_at ? held_at->func : "?",
			site_file(held_at),
			held_at ? held_at->line : 0);
	pr_fail("deadlock", lock,
		"%s takes a %s lock it already holds (taken in %s at %s:%d)",
		ctx_label(self), how, held_at ? held_at->func : "?",
		site_file(held_at),
		held_at ? held_at->line : 0);
}

/*
 * A failed attempt in a scheduled run: sleep on the lock until an unlock
 * wakes it (spinlock.h says why not spin).  A waiter waits before its
 * attempt (pr_lock_wait) until the lock is free, so this is a fallback:
 * an attempt fails there only on a lock its own CPU holds, which
 * check_self_deadlock reports first.  The attempt and the sleep are one
 * step, so the holder's unlock cannot fall between them and be lost; the
 * step that resumes the sleeper makes the next attempt, and it cannot
 * fail, because whoever takes the lock first puts the sleepers it woke
 * back to sleep (lock_taken).  @shared: a reader, whom another reader's
 * taking the lock does not put back to sleep.  Returns 0 in stress mode,
 * where the caller spins.
 */
PR_NO_TSAN static int lock_sleep(const void *lock, size_t size,
				 const struct klock_sites *s, int shared)
{
	if (pr_stress_mode())
		return 0;
	pr_block_lock(&s->wait, lock, size, shared);
	return 1;
}

/* Taken (by @shared, a reader): the sleepers it woke wait again. */
PR_NO_TSAN static void lock_taken(const void *lock, int shared)
{
	if (!pr_stress_mode())
		pr_lock_taken(lock, shared);
}

/* An unlock: wake the scheduled run's sleepers on @lock (not stress's). */
PR_NO_TSAN static void lock_wake(const void *lock)
{
	if (!pr_stress_mode())
		pr_wake(lock);
}

/*
 * pr_lock_wait's tests: must a waiter for the lock wait?  Only for
 * another CPU: a lock its own CPU holds (a recursive attempt, or an
 * interrupt handler on the holder's CPU) is attempted at once, and the
 * attempt reports the deadlock (check_self_deadlock).
 */
PR_NO_TSAN static int spin_held(const void *l, int shared)
{
	const spinlock_t *lock = l;

	(void)shared;
	return __atomic_load_n(&lock->slock, __ATOMIC_RELAXED) &&
	       klock_ctx(__atomic_load_n(&lock->owner, __ATOMIC_RELAXED)) !=
	       pr_self();
}

PR_NO_TSAN static int rw_held(const void *l, int shared)
{
	const rwlock_t *lock = l;
	int c = __atomic_load_n(&lock->cnt, __ATOMIC_RELAXED);

	if (c < 0)	/* a writer: is it us? */
		return klock_ctx(__atomic_load_n(&lock->writer,
						 __ATOMIC_RELAXED)) != pr_self();
	/* Readers keep a writer out, unless one of them is us. */
	return !shared && c > 0 && !lock->readers[kcpu_slot()];
}

/* ---- spinlock_t ------------------------------------------------------ */

PR_NO_TSAN void __spin_lock(spinlock_t *lock, const struct klock_sites *s)
{
	int self = pr_self();

	preempt_disable();
	pr_lock_wait(&s->lock, lock, sizeof(*lock), 0, spin_held);
	for (;;) {
		kasan_check(lock, sizeof(*lock), 1);
		if (!__atomic_exchange_n(&lock->slock, 1, __ATOMIC_ACQUIRE))
			break;
		check_self_deadlock(lock, self,
				    klock_ctx(__atomic_load_n(&lock->owner,
							      __ATOMIC_RELAXED)),
				    lock->site, "spin");
		if (lock_sleep(lock, sizeof(*lock), s, 0))
			continue;	/* resumed: this step tries again */
		do {
			pr_spin(&s->spin, lock);
			pr_yield_at(&s->test, lock, 0);
			kasan_check(lock, sizeof(*lock), 0);
		} while (__atomic_load_n(&lock->slock, __ATOMIC_RELAXED));
		pr_yield_at(&s->lock, lock, 1);
	}
	lock_taken(lock, 0);
	__atomic_store_n(&lock->owner, klock_id(self), __ATOMIC_RELAXED);
	lock->site = &s->lock;
	pr_tsan_acquire(lock);
	if (pr_mem_on)		/* memory/memory.h: drain (tso), acquire (weak) */
		pr_mem_lock(lock);
}

PR_NO_TSAN int __spin_trylock(spinlock_t *lock, const struct klock_sites *s)
{
	preempt_disable();
	pr_yield_at(&s->lock, lock, 1);
	kasan_check(lock, sizeof(*lock), 1);
	if (__atomic_exchange_n(&lock->slock, 1, __ATOMIC_ACQUIRE)) {
		preempt_enable();
		return 0;
	}
	lock_taken(lock, 0);
	__atomic_store_n(&lock->owner, klock_id(pr_self()), __ATOMIC_RELAXED);
	lock->site = &s->lock;
	pr_tsan_acquire(lock);
	if (pr_mem_on)		/* memory/memory.h: drain (tso), acquire (weak) */
		pr_mem_lock(lock);
	return 1;
}

PR_NO_TSAN void __spin_unlock(spinlock_t *lock, const struct pr_site *s)
{
	int self = pr_self();

	/* Release: every older store first, before the yield point. */
	if (pr_mem_on)
		pr_mem_prepare(lock, sizeof(*lock), PR_MP_DRAIN);
	pr_yield_at(s, lock, 1);
	kasan_check(lock, sizeof(*lock), 1);
	if (!__atomic_load_n(&lock->slock, __ATOMIC_RELAXED))
		pr_fail("bad-unlock", lock, "%s unlocks a spinlock nobody holds",
			ctx_label(self));
	if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) != klock_id(self))
		pr_fail("bad-unlock", lock,
			"%s unlocks a spinlock held by %s (taken in %s)",
			ctx_label(self),
			ctx_label(klock_ctx(__atomic_load_n(&lock->owner,
							    __ATOMIC_RELAXED))),
			lock->site ? lock->site->func : "?");
	lock->site = NULL;
	__atomic_store_n(&lock->owner, 0, __ATOMIC_RELAXED);
	pr_tsan_release(lock);
	if (pr_mem_on)		/* memory/memory.h: the acquirer's view */
		pr_mem_unlock(lock);
	__atomic_store_n(&lock->slock, 0, __ATOMIC_RELEASE);
	lock_wake(lock);
	preempt_enable();
}

/* ---- rwlock_t -------------------------------------------------------- */

PR_NO_TSAN void __read_lock(rwlock_t *lock, const struct klock_sites *s)
{
	int self = pr_self();
	int c;

	preempt_disable();
	pr_lock_wait(&s->lock, lock, sizeof(*lock), 1, rw_held);
	for (;;) {
		kasan_check(lock, sizeof(*lock), 1);
		/*
		 * A compare-exchange, not a test then an add: in stress mode a
		 * writer may take the lock between the two.
		 */
		c = __atomic_load_n(&lock->cnt, __ATOMIC_RELAXED);
		while (c >= 0 &&
		       !__atomic_compare_exchange_n(&lock->cnt, &c, c + 1, 0,
						    __ATOMIC_ACQUIRE,
						    __ATOMIC_RELAXED))
			;
		if (c >= 0)
			break;
		check_self_deadlock(lock, self,
				    klock_ctx(__atomic_load_n(&lock->writer,
							      __ATOMIC_RELAXED)),
				    lock->site, "read");
		if (lock_sleep(lock, sizeof(*lock), s, 1))
			continue;	/* resumed: this step tries again */
		do {
			pr_spin(&s->spin, lock);
			pr_yield_at(&s->test, lock, 0);
			kasan_check(lock, sizeof(*lock), 0);
		} while (__atomic_load_n(&lock->cnt, __ATOMIC_RELAXED) < 0);
		pr_yield_at(&s->lock, lock, 1);
	}
	lock_taken(lock, 1);
	if (lock->readers[kcpu_slot()]++ == 0xff)
		pr_fail("deadlock", lock, "read lock nested 256 deep");
	lock->site = &s->lock;
	pr_tsan_acquire(lock);
	if (pr_mem_on)		/* memory/memory.h: drain (tso), acquire (weak) */
		pr_mem_lock(lock);
}

PR_NO_TSAN void __write_lock(rwlock_t *lock, const struct klock_sites *s)
{
	int self = pr_self();
	int expect;

	preempt_disable();
	pr_lock_wait(&s->lock, lock, sizeof(*lock), 0, rw_held);
	for (;;) {
		kasan_check(lock, sizeof(*lock), 1);
		expect = 0;
		if (__atomic_compare_exchange_n(&lock->cnt, &expect, -1, 0,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
		if (lock->readers[kcpu_slot()])
			check_self_deadlock(lock, self, self, lock->site,
					    "write (it holds for reading)");
		if (expect < 0)
			check_self_deadlock(lock, self,
					    klock_ctx(__atomic_load_n(&lock->writer,
								      __ATOMIC_RELAXED)),
					    lock->site, "write");
		if (lock_sleep(lock, sizeof(*lock), s, 0))
			continue;	/* resumed: this step tries again */
		do {
			pr_spin(&s->spin, lock);
			pr_yield_at(&s->test, lock, 0);
			kasan_check(lock, sizeof(*lock), 0);
		} while (__atomic_load_n(&lock->cnt, __ATOMIC_RELAXED) != 0);
		pr_yield_at(&s->lock, lock, 1);
	}
	lock_taken(lock, 0);
	__atomic_store_n(&lock->writer, klock_id(self), __ATOMIC_RELAXED);
	lock->site = &s->lock;
	pr_tsan_acquire(lock);
	if (pr_mem_on)		/* memory/memory.h: drain (tso), acquire (weak) */
		pr_mem_lock(lock);
}

PR_NO_TSAN int __write_trylock(rwlock_t *lock, const struct klock_sites *s)
{
	int expect = 0;

	preempt_disable();
	pr_yield_at(&s->lock, lock, 1);
	kasan_check(lock, sizeof(*lock), 1);
	if (!__atomic_compare_exchange_n(&lock->cnt, &expect, -1, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		preempt_enable();
		return 0;
	}
	lock_taken(lock, 0);
	__atomic_store_n(&lock->writer, klock_id(pr_self()), __ATOMIC_RELAXED);
	lock->site = &s->lock;
	pr_tsan_acquire(lock);
	if (pr_mem_on)		/* memory/memory.h: drain (tso), acquire (weak) */
		pr_mem_lock(lock);
	return 1;
}

PR_NO_TSAN void __read_unlock(rwlock_t *lock, const struct pr_site *s)
{
	int slot = kcpu_slot();

	/* Release: every older store first, before the yield point. */
	if (pr_mem_on)
		pr_mem_prepare(lock, sizeof(*lock), PR_MP_DRAIN);
	pr_yield_at(s, lock, 1);
	kasan_check(lock, sizeof(*lock), 1);
	if (!lock->readers[slot] ||
	    __atomic_load_n(&lock->cnt, __ATOMIC_RELAXED) <= 0)
		pr_fail("bad-unlock", lock,
			"%s read-unlocks an rwlock it does not hold for reading",
			ctx_label(pr_self()));
	lock->readers[slot]--;
	pr_tsan_release(lock);
	if (pr_mem_on)		/* memory/memory.h: the acquirer's view */
		pr_mem_unlock(lock);
	/* Only writers wait while readers hold it: wake them at the last. */
	if (__atomic_sub_fetch(&lock->cnt, 1, __ATOMIC_RELEASE) == 0)
		lock_wake(lock);
	preempt_enable();
}

PR_NO_TSAN void __write_unlock(rwlock_t *lock, const struct pr_site *s)
{
	int self = pr_self();

	/* Release: every older store first, before the yield point. */
	if (pr_mem_on)
		pr_mem_prepare(lock, sizeof(*lock), PR_MP_DRAIN);
	pr_yield_at(s, lock, 1);
	kasan_check(lock, sizeof(*lock), 1);
	if (__atomic_load_n(&lock->cnt, __ATOMIC_RELAXED) >= 0 ||
	    __atomic_load_n(&lock->writer, __ATOMIC_RELAXED) != klock_id(self))
		pr_fail("bad-unlock", lock,
			"%s write-unlocks an rwlock it does not hold for writing",
			ctx_label(self));
	lock->site = NULL;
	__atomic_store_n(&lock->writer, 0, __ATOMIC_RELAXED);
	pr_tsan_release(lock);
	if (pr_mem_on)		/* memory/memory.h: the acquirer's view */
		pr_mem_unlock(lock);
	__atomic_store_n(&lock->cnt, 0, __ATOMIC_RELEASE);
	lock_wake(lock);
	preempt_enable();
}
