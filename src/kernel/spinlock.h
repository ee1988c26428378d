/* SPDX-License-Identifier: MIT */
/*
 * spinlock.h - spinlock_t and rwlock_t (include/linux/spinlock.h, 2.6.13).
 *
 * spinlock_t is a test-and-set lock: one yield point (kind lock) and an
 * atomic exchange per attempt.  In a scheduled run a waiter waits at that
 * yield point, enabled only while the lock is free (pr_lock_wait: asleep
 * while another CPU holds it, woken by the unlock), so its attempt always
 * succeeds; in stress mode it spins (PR_SPIN) and re-reads the lock word
 * (kind load) until it looks free, as the kernel's lock does.  Why the
 * two differ: a spinner is woken by every store anywhere (runtime/yield.h,
 * and dpor's rule 2 makes its every re-read depend on every write), so
 * dfs and dpor explored each store of the holder's critical section
 * against each futile re-read of a waiter -- millions of executions on a
 * 4-CPU litmus test of locks, where waiting for the unlock gives the same
 * outcomes (a failed attempt changes nothing, a waiter does nothing
 * until the lock is free but take interrupts, which reach it while it
 * waits, and under tso the acquiring exchange drains the buffer whether
 * or not attempts failed before it).  Two CPUs waiting for each other's
 * locks are a deadlock verdict.
 *
 * rwlock_t is 2.6 x86's counter without writer preference: readers wait
 * only while a writer holds it, writers while anyone does; read locks may
 * nest (including from an interrupt handler over its interrupted code).
 *
 * Checks, each its own verdict:
 *  - "deadlock": a CPU acquiring a lock it already holds, including an
 *    interrupt handler taking a lock the code it interrupted holds (the
 *    classic missing _irq); outside a run, acquiring any held lock;
 *  - "bad-unlock": releasing a lock this CPU does not hold.
 * Both locks record their owner for reports and lockdep_is_held().
 *
 * Like the kernel, spin_lock disables preemption (see preempt.h for what
 * that means here) and the _irq/_irqsave variants interrupts.  All-zero
 * memory is an unlocked lock.  The lock and unlock operations are macros
 * so that their yield points belong to the calling model function and
 * carry the lock expression as tag ("&mapping->tree_lock").
 */
#ifndef PAGERACE_KERNEL_SPINLOCK_H
#define PAGERACE_KERNEL_SPINLOCK_H

#include "runtime/yield.h"
#include "kernel/compiler.h"
#include "kernel/irq.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"

/*
 * owner and writer hold the holder's context + 2 (klock_id), so that
 * zeroed memory reads as nobody (0) and code outside a run (context -1)
 * as 1.  An unlock clears them before it releases the lock word: in
 * stress mode a CPU that fails to take a lock reads them while another
 * CPU may have just taken it and not yet written its id, and must then
 * read nobody -- never its own id left from its own last hold, which
 * would be a false self-deadlock (deterministic runs take the lock and
 * write the id in one step).
 */
static inline int klock_id(int ctx)
{
	return ctx + 2;
}

static inline int klock_ctx(int id)	/* -2: nobody */
{
	return id - 2;
}

typedef struct {
	int slock;		/* 0: free, 1: held */
	int owner;		/* klock_id of the holder; 0: nobody */
	const struct pr_site *site;	/* where the holder took it */
} spinlock_t;

typedef struct {
	int cnt;		/* >0: readers, -1: a writer, 0: free */
	int writer;		/* klock_id of the writer; 0: nobody */
	const struct pr_site *site;	/* where the last locker took it */
	unsigned char readers[KCPU_SLOTS];	/* read holds per CPU */
} rwlock_t;

#define __SPIN_LOCK_UNLOCKED	{ 0, 0, 0 }
#define SPIN_LOCK_UNLOCKED	((spinlock_t)__SPIN_LOCK_UNLOCKED)
#define DEFINE_SPINLOCK(x)	spinlock_t x = __SPIN_LOCK_UNLOCKED
#define spin_lock_init(l)	((void)(*(l) = SPIN_LOCK_UNLOCKED))

#define __RW_LOCK_UNLOCKED	{ 0, 0, 0, { 0 } }
#define RW_LOCK_UNLOCKED	((rwlock_t)__RW_LOCK_UNLOCKED)
#define DEFINE_RWLOCK(x)	rwlock_t x = __RW_LOCK_UNLOCKED
#define rwlock_init(l)		((void)(*(l) = RW_LOCK_UNLOCKED))

/* The yield points of one acquisition site. */
struct klock_sites {
	struct pr_site lock;	/* an attempt (kind lock) */
	struct pr_site test;	/* stress: re-reading while waiting (kind load) */
	struct pr_site spin;	/* stress: waiting (kind spin) */
	struct pr_site wait;	/* scheduled runs: sleeping after an attempt
				 * failed (lock_sleep's fallback) */
};

#define KLOCK_SITES(name, tag)						\
	static const struct klock_sites name = {			\
		{ __func__, __FILE__, __LINE__, PR_K_LOCK, (tag), 0, 0 },	\
		{ __func__, __FILE__, __LINE__, PR_K_LOAD, (tag), 0, 0 },	\
		{ __func__, __FILE__, __LINE__, PR_K_SPIN, (tag), 0, 0 },	\
		{ __func__, __FILE__, __LINE__, PR_K_BLOCK, (tag), 0, 0 } }

void __spin_lock(spinlock_t *lock, const struct klock_sites *s);
int __spin_trylock(spinlock_t *lock, const struct klock_sites *s);
void __spin_unlock(spinlock_t *lock, const struct pr_site *s);
void __read_lock(rwlock_t *lock, const struct klock_sites *s);
void __write_lock(rwlock_t *lock, const struct klock_sites *s);
int __write_trylock(rwlock_t *lock, const struct klock_sites *s);
void __read_unlock(rwlock_t *lock, const struct pr_site *s);
void __write_unlock(rwlock_t *lock, const struct pr_site *s);

#define __KLOCK(fn, l) ({						\
		KLOCK_SITES(__kl_sites, #l);				\
		fn((l), &__kl_sites); })
#define __KUNLOCK(fn, l) do {						\
		KSITE(__ku_site, PR_K_UNLOCK, #l);			\
		fn((l), &__ku_site);					\
	} while (0)

#define spin_lock(l)		((void)__KLOCK(__spin_lock, l))
#define spin_trylock(l)		__KLOCK(__spin_trylock, l)
#define spin_unlock(l)		__KUNLOCK(__spin_unlock, l)

#define spin_lock_irq(l) \
	do { local_irq_disable(); spin_lock(l); } while (0)
#define spin_unlock_irq(l) \
	do { spin_unlock(l); local_irq_enable(); } while (0)
#define spin_lock_irqsave(l, flags) \
	do { local_irq_save(flags); spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, flags) \
	do { spin_unlock(l); local_irq_restore(flags); } while (0)

#define read_lock(l)		((void)__KLOCK(__read_lock, l))
#define read_unlock(l)		__KUNLOCK(__read_unlock, l)
#define write_lock(l)		((void)__KLOCK(__write_lock, l))
#define write_trylock(l)	__KLOCK(__write_trylock, l)
#define write_unlock(l)		__KUNLOCK(__write_unlock, l)

#define read_lock_irq(l)	do { local_irq_disable(); read_lock(l); } while (0)
#define read_unlock_irq(l)	do { read_unlock(l); local_irq_enable(); } while (0)
#define write_lock_irq(l)	do { local_irq_disable(); write_lock(l); } while (0)
#define write_unlock_irq(l) \
	do { write_unlock(l); local_irq_enable(); } while (0)
#define read_lock_irqsave(l, flags) \
	do { local_irq_save(flags); read_lock(l); } while (0)
#define read_unlock_irqrestore(l, flags) \
	do { read_unlock(l); local_irq_restore(flags); } while (0)
#define write_lock_irqsave(l, flags) \
	do { local_irq_save(flags); write_lock(l); } while (0)
#define write_unlock_irqrestore(l, flags) \
	do { write_unlock(l); local_irq_restore(flags); } while (0)

/* A racy peek, as in the kernel: a yield point and a load. */
#define spin_is_locked(l) ({						\
		spinlock_t *__sil = (l);				\
		PR_LOAD(__sil, #l);					\
		__atomic_load_n(&__sil->slock, __ATOMIC_RELAXED) != 0; })

/*
 * Ownership checks for assertions and rcu_dereference_check conditions:
 * no yield point (only this CPU changes whether it holds a lock).
 */
PR_NO_TSAN static inline int spin_is_held(const spinlock_t *l)
{
	return __atomic_load_n(&l->slock, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&l->owner, __ATOMIC_RELAXED) == klock_id(pr_self());
}

PR_NO_TSAN static inline int write_is_held(const rwlock_t *l)
{
	return __atomic_load_n(&l->cnt, __ATOMIC_RELAXED) < 0 &&
	       __atomic_load_n(&l->writer, __ATOMIC_RELAXED) == klock_id(pr_self());
}

PR_NO_TSAN static inline int read_is_held(const rwlock_t *l)
{
	return l->readers[kcpu_slot()] > 0;
}

PR_NO_TSAN static inline int rwlock_is_held(const rwlock_t *l)
{
	return write_is_held(l) || read_is_held(l);
}

/* lockdep_is_held(&mapping->tree_lock), whichever lock type it is. */
#define lockdep_is_held(l) _Generic((l),				\
		spinlock_t *: spin_is_held,				\
		const spinlock_t *: spin_is_held,			\
		rwlock_t *: rwlock_is_held,				\
		const rwlock_t *: rwlock_is_held)(l)

#define assert_spin_locked(l) do {					\
		if (!spin_is_held(l))					\
			pr_fail("assert", (l), "%s:%d: %s not held",	\
				__FILE__, __LINE__, #l);		\
	} while (0)

#endif /* PAGERACE_KERNEL_SPINLOCK_H */
