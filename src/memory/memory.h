/* SPDX-License-Identifier: MIT */
/*
 * memory.h - memory models other than sequential consistency: what the
 * kernel primitives (src/kernel/) call instead of touching memory when a
 * run's model is tso or weak.
 *
 * Under sc (the default) none of this runs: pr_mem_on is 0 and every
 * access macro takes its plain branch, so runs, steps and traces are
 * exactly those of a build without this room.
 *
 * The models keep each CPU's not-yet-visible stores aside in a store
 * buffer (buffer.c).  The data lives in real memory: a store under tso or
 * weak goes into the storing CPU's buffer; a load looks in its own CPU's
 * buffer first (store forwarding) and then in memory; a flush writes the
 * oldest eligible store to memory.  Which store is flushed when is a
 * scheduler decision (runtime/memhook.h): recorded, replayed, explored.
 *
 *   tso   x86: one FIFO buffer per CPU; only its oldest store may be
 *         flushed; atomic RMWs, lock acquisition and release, smp_mb and
 *         the RCU grace period drain it.  smp_wmb/smp_rmb order nothing
 *         TSO does not already order.
 *   weak  the kernel's memory model for the primitives pagerace has, as
 *         a buffer whose stores may be flushed out of order: a store may
 *         be flushed once every older store of its CPU (1) is to another
 *         location (coherence), (2) is not separated from it by an
 *         smp_wmb, smp_mb or release (smp_store_release,
 *         rcu_assign_pointer, spin_unlock: a release waits for every
 *         older store) -- so MP without smp_wmb, 2+2W and SB are allowed.
 *         Value-returning atomics (atomic_*_return, *_and_test, xchg,
 *         cmpxchg, test_and_*_bit), smp_mb and lock release drain the
 *         CPU's buffer (full barriers; lock acquisition is an acquire:
 *         stores before it may still be buffered); non-value-returning ones
 *         (atomic_inc, set_bit, clear_bit) only flush what coherence and
 *         an earlier smp_wmb require of their own store.
 *
 * What weak forbids that LKMM allows (stronger is sound, weaker would be
 * a bug): loads are never reordered with loads or with later stores
 * (MP+wmb without smp_rmb, load buffering LB, and read-to-read coherence
 * shapes are never observed); memory is multi-copy atomic (IRIW without
 * smp_mb, WRC without a release are never observed); spin_unlock is a
 * full barrier; a store's flush can overtake at most
 * PR_MEM_SLOTS - 1 older stores (a full buffer flushes its oldest first).
 * Address dependencies (rcu_dereference, LOAD_DEP) are therefore always
 * respected, like acquire.
 *
 * Contexts are CPUs: an injected handler shares its CPU's buffer.
 * Setup and end-of-run checks (no context) access memory directly; a run
 * ends only once every buffer is empty (flushes stay enabled).
 */
#ifndef PAGERACE_MEMORY_MEMORY_H
#define PAGERACE_MEMORY_MEMORY_H

#include <stddef.h>
#include <stdint.h>

enum pr_mem_model {
	PR_MEM_SC = 0,
	PR_MEM_TSO,
	PR_MEM_WEAK,
};

/* Orders a load or store asks for. */
enum pr_mem_order {
	PR_MO_RELAXED = 0,
	PR_MO_ACQUIRE,		/* smp_load_acquire, rcu_dereference, LOAD_DEP */
	PR_MO_RELEASE,		/* smp_store_release, rcu_assign_pointer */
};

enum pr_mem_fence {
	PR_MF_MB = 0,		/* smp_mb: full */
	PR_MF_WMB,		/* smp_wmb: stores before it, before stores after */
	PR_MF_RMB,		/* smp_rmb: loads before it, before loads after */
};

/*
 * The model of the runs to come: nonzero when not sc.  Read by every
 * access macro (one predictable branch); written only by pr_mem_select.
 */
extern int pr_mem_on;

/* "sc", "tso", "weak" -> the model, -1 for anything else. */
int pr_mem_parse(const char *name);
const char *pr_mem_name(int model);
/* The model selected now (PR_MEM_SC if none). */
int pr_mem_model(void);

/*
 * Select @model for every later run of this process (registers the
 * scheduler hooks).  Call between runs only.
 */
void pr_mem_select(int model);

/**
 * pr_mem_load - load @size bytes at @addr into @out under the model
 * @order: enum pr_mem_order (acquire orders nothing more here: loads are
 *	   performed in program order)
 *
 * Own buffered stores first (the newest one to exactly @addr/@size); a
 * buffered store overlapping it only in part is flushed first, with the
 * older stores it must follow.
 */
void pr_mem_load(const void *addr, size_t size, void *out, int order);

/**
 * pr_mem_store - store @size bytes from @val at @addr under the model
 * @order: PR_MO_RELAXED or PR_MO_RELEASE
 *
 * Buffered when @size is 1, 2, 4 or 8 and the caller is a context;
 * otherwise (larger objects) the buffer is drained and memory written.
 */
void pr_mem_store(void *addr, size_t size, const void *val, int order);

/* What the access after pr_mem_prepare is. */
enum pr_mem_op {
	PR_MP_LOAD = 0,		/* a load (pr_mem_load) */
	PR_MP_STORE,		/* a store (pr_mem_store) */
	PR_MP_RMW,		/* an atomic RMW returning no value, done on
				 * memory by the caller */
	PR_MP_RMW_FULL,		/* one returning a value: a full barrier */
	PR_MP_DRAIN,		/* anything that needs this CPU's buffer
				 * empty first (spin_unlock, call_rcu) */
};

/**
 * pr_mem_prepare - wait until the access @op to @size bytes at @addr may
 * be performed; call BEFORE the access's yield point
 *
 * Waiting (the context sleeps while the scheduler flushes its buffer,
 * each flush a decision) must end before the yield point, so that the
 * step that performs the access starts at the access's own yield point
 * and dfs and dpor see what it touches.  Waits for: a load, this CPU's
 * buffered stores overlapping it only in part; a store, its slot to be
 * free (a store PR_MEM_SLOTS older) or, for sizes other than 1, 2, 4
 * and 8, every store; an RMW, everything when it returns a value or
 * under tso (a locked instruction), else this CPU's stores to the same
 * bytes and those before its last smp_wmb; PR_MP_DRAIN, everything.
 */
void pr_mem_prepare(const void *addr, size_t size, int op);

/* An smp_mb / smp_wmb / smp_rmb by the running context. */
void pr_mem_fence(int fence);

/*
 * After a lock is taken (spin, read and write locks): under tso drain (a
 * locked instruction); under weak nothing -- the acquire LKMM gives, as
 * later loads are in order and later stores buffered after it.  A release
 * calls pr_mem_prepare(lock, size, PR_MP_DRAIN) before its yield point.
 */
void pr_mem_lock(void);

/*
 * The RCU grace period's guarantee: every CPU has passed a full barrier
 * since the period began, so every store made in a read-side section it
 * waited for is visible.  Drains every CPU's buffer.
 */
void pr_mem_drain_all(void);

/*
 * Does a CPU other than the caller still hold a store to
 * [addr, addr + size) in its buffer?  Then 1, with that CPU in *@ctx and
 * the step it stored at in *@step.  kmem_cache_free asks: such a store
 * reaches memory after the free, a use-after-free the missing ordering
 * makes possible.
 */
int pr_mem_buffered_in(const void *addr, size_t size, int *ctx,
		       uint64_t *step);

/* ---- for reports (rich replay) ---------------------------------------- */

/*
 * What a buffered store or a load looked like, for the report: set
 * pr_mem_log_on and the model calls the installed logger.
 */
struct pr_mem_event {
	int kind;		/* PR_ME_FLUSH, PR_ME_FORWARD, PR_ME_STALE */
	int ctx;		/* the CPU whose buffer holds the store */
	int reader;		/* the loading CPU (FORWARD, STALE) */
	const void *addr;
	unsigned size;
	uint64_t val;		/* the store's value */
	uint64_t seen;		/* the value the reader got (STALE) */
	uint64_t store_step;	/* when the store was made */
	uint64_t step;		/* when this happened */
};

enum {
	PR_ME_FLUSH = 1,	/* a buffered store reached memory */
	PR_ME_FORWARD,		/* a load read its own CPU's buffered store */
	PR_ME_STALE,		/* a load read memory while another CPU had
				 * a newer store to it buffered */
	PR_ME_STORE,		/* a store went into the buffer */
};

typedef void (*pr_mem_logger)(const struct pr_mem_event *ev);
void pr_mem_set_logger(pr_mem_logger fn);

#endif /* PAGERACE_MEMORY_MEMORY_H */
