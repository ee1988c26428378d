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
 *   weak  the kernel's memory model for the primitives pagerace has:
 *         stores are buffered and may be flushed out of order, and loads
 *         may read an older value ("stale reads", stale.c).
 *
 *         Stores: a store may be flushed once every older store of its
 *         CPU (1) is to another location (coherence), (2) is not
 *         separated from it by an smp_wmb, smp_mb or release
 *         (smp_store_release, rcu_assign_pointer, spin_unlock: a release
 *         waits for every older store).  Value-returning atomics
 *         (atomic_*_return, *_and_test, xchg, cmpxchg, test_and_*_bit,
 *         and their _acquire forms), smp_mb and lock release drain the
 *         CPU's buffer; lock acquisition does not (stores before it may
 *         become visible after accesses inside the critical section);
 *         non-value-returning RMWs (atomic_inc, set_bit, clear_bit) only
 *         flush what coherence and an earlier smp_wmb require.
 *
 *         Loads: memory has a time, bumped by every write that reaches
 *         it, and is multi-copy atomic (a value is visible to every CPU
 *         from its time on).  A location remembers its last 4 values.  A
 *         load returns the CPU's own buffered store if it has one, else
 *         any value of its location that was current at some time >= the
 *         CPU's floor and >= the time of the newest value this CPU read
 *         or wrote there (coherence: CoRR, CoWR hold); which one is a
 *         scheduler decision.  Floors: smp_rmb raises it to the latest
 *         time of any value the CPU read; smp_mb and value-returning
 *         atomics also to its own latest write (and a full RMW to its
 *         own write, i.e. now); an acquire load (smp_load_acquire,
 *         rcu_dereference, LOAD_DEP, and any load of a pointer-typed
 *         lvalue: address dependencies, kernel/access.h) to the time of
 *         the value it read; spin_lock and friends to what the last
 *         unlocker of that lock had read or written (critical sections
 *         are ordered); a read-side section that begins after a grace period
 *         began (synchronize_rcu, synchronize_srcu, call_rcu) starts at
 *         that beginning, as the period does not wait for it (the RCU
 *         guarantee); the end of a period raises the waiter's (and an
 *         RCU callback's CPU's) to now.
 *         A release store waits for every older store and is flushed
 *         after every earlier load was performed, so an acquirer that
 *         reads it sees all the releaser saw (WRC+rel+acq forbidden).
 *         So weak shows MP+wmb without smp_rmb (and MP without either),
 *         SB, 2+2W, R, S-like shapes and read-read reordering in general.
 *
 * What weak forbids that LKMM allows (stronger is sound, weaker would be
 * a bug): load buffering (a store is never visible before an earlier
 * load of its CPU was performed: LB and its relatives are never
 * observed -- except in litmus tests, whose interpreter performs a
 * later store before a load when ppo allows it, src/litmus/reorder.c);
 * memory is multi-copy atomic (IRIW without smp_mb, WRC
 * whose middle CPU has no ordering are never observed); spin_unlock is
 * a full barrier; an address dependency orders every later load of the
 * CPU, not only the dependent one; _acquire RMWs are full barriers; a
 * load reads one of its location's last 4 values only, and a store's
 * flush overtakes at most PR_MEM_SLOTS - 1 older stores; a location
 * accessed with two sizes at one address reads only its newest value,
 * and CPUs numbered 8 and up always read the newest; a grace period's
 * end drains the buffers of every CPU that began a read-side section
 * before the period began, not only of those whose sections it had to
 * wait for, and the whole buffer, not only the stores of the section
 * (pr_mem_drain_readers).  Reading an older value costs no preemption
 * in a preemption bound.
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
/*
 * Tests (tests/memory_dpor): 1 plants floors that forget the bump an
 * acquire load took its time from (stale.c, the bumps a floor came
 * from), which must lose states.
 */
extern int pr_stale_sources;

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
 * @order: enum pr_mem_order (under weak an acquire raises the CPU's
 *	   floor to the time of the value read)
 *
 * Own buffered stores first (the newest one to exactly @addr/@size); a
 * buffered store overlapping it only in part is flushed first, with the
 * older stores it must follow.  Under weak, @out may then be replaced by
 * an older value of the location, if the decision before the load chose
 * one.
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
 * locked instruction); under weak an acquire of @lock: later loads read
 * nothing older than its last unlocker had seen (pr_mem_unlock).  A
 * release calls pr_mem_prepare(lock, size, PR_MP_DRAIN) before its yield
 * point and pr_mem_unlock(lock) after it.
 */
void pr_mem_lock(const void *lock);
void pr_mem_unlock(const void *lock);

/*
 * An atomic RMW of @size bytes at @addr is performed right after this
 * call, after its yield point (@full: it returns a value, a full
 * barrier).  Under weak its write gets a memory time; a no-op otherwise.
 */
void pr_mem_rmw(const void *addr, size_t size, int full);

/*
 * The end of an RCU callback's grace period: every store made in a
 * read-side section it waited for is visible.  Drains every CPU's
 * buffer (the callback's period does not say whom it waited for).
 */
void pr_mem_drain_all(void);
/*
 * The end of a synchronize_rcu or synchronize_srcu: drains the caller's
 * buffer and those of the CPUs that had begun an RCU or SRCU read-side
 * section when the period began (pr_mem_gp_start), nobody else's.
 * LKMM's RCU guarantee concerns
 * read-side sections (a section that does not begin after the period
 * began -- still running then, or over before it -- has everything
 * po-before its end, its stores included, precede the period's end) and
 * the waiter (a strong fence); a CPU that never was a reader gets
 * nothing, so its stores may stay buffered past the period
 * (C-RR-G+RR-R+RR-R, Result: Sometimes, needs exactly that), and a
 * section that begins after the period began is bound only by the
 * other half of the guarantee (what precedes the period precedes the
 * section: the waiter drained its own buffer when the period began, and
 * stale_gp_start floors the section's loads), so a CPU whose sections
 * all began later keeps its stores buffered too (the C-WW rings of the
 * corpus need a reader's stores to outlive a period that began before
 * its section).  Draining every CPU that
 * had begun a section, all its buffer, is stronger than LKMM (only the
 * stores po-before the end of such a section must be visible), never
 * weaker.  pr_mem_drain_all drains everyone: RCU callbacks.
 */
void pr_mem_drain_readers(void);

/*
 * An outermost RCU or SRCU read-side section begins (@enter 1) or ends
 * (0) on the running CPU: under weak, the grace period's guarantee
 * (stale.c, stale_grace) depends on it.  A no-op otherwise.
 */
void pr_mem_rcu_reader(int enter);
/*
 * A grace period begins (synchronize_rcu, synchronize_srcu, call_rcu,
 * after their drain): under weak, sections begun later read nothing
 * older than now; under tso and weak, the CPUs that have begun a
 * section so far are those the period's end drains
 * (pr_mem_drain_readers).
 */
void pr_mem_gp_start(void);

/*
 * Does a CPU other than the caller still hold a store to
 * [addr, addr + size) in its buffer?  Then 1, with that CPU in *@ctx and
 * the step it stored at in *@step.  kmem_cache_free asks: such a store
 * reaches memory after the free, a use-after-free the missing ordering
 * makes possible.
 */
int pr_mem_buffered_in(const void *addr, size_t size, int *ctx,
		       uint64_t *step);

/*
 * Dependencies, for interpreters that know them (src/litmus/): under
 * weak, the memory time of the value the running CPU's last load read
 * (0 otherwise), and "the access about to be made depends on values of
 * time @t" -- it reads nothing older (LKMM's addr, for that CPU's later
 * loads too: stronger, never weaker).
 */
uint32_t pr_mem_last_time(void);
void pr_mem_dep(uint32_t t);

/*
 * For checkers that judge what the running CPU saw: under weak, did its
 * last load read an older value (the decision before it chose one)?
 * 0 under sc and tso.
 */
int pr_mem_last_load_old(void);

/*
 * A wait loop (cpu_relax_on, lock_page's sleep) is about to pause until
 * memory changes.  Under weak, 1 when the CPU read an older value since
 * its last pause: it then reads nothing older than now, and must re-read
 * its condition instead of pausing (what it saw may be long gone, and
 * nothing would wake it).  0 otherwise, always under sc and tso.
 */
int pr_mem_relax(void);

/*
 * What context @ctx's pending load of @size bytes at @addr would read if
 * it ran now: @k 0 the value it reads by default (its own buffered store
 * to those bytes, else memory's), @k >= 1 the k-th older value (weak: a
 * stale-read choice of the decision).  0 with the value in *@val
 * (zero-extended), -1 when there is no such value.  Looks only (peek.c):
 * for strategies that steer runs; nothing changes.
 */
int pr_mem_peek(int ctx, const void *addr, size_t size, int k, uint64_t *val);
/*
 * The value the store in slot @slot of @ctx's buffer would write if
 * flushed now (zero-extended): 0, or -1 for an empty slot.  Looks only.
 */
int pr_mem_peek_flush(int ctx, int slot, uint64_t *val);

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
	PR_ME_OLD,		/* weak: a load read an older value; @val is
				 * the newer one @ctx stored at @store_step
				 * (ctx -1: not through a buffer) */
};

typedef void (*pr_mem_logger)(const struct pr_mem_event *ev);
void pr_mem_set_logger(pr_mem_logger fn);

#endif /* PAGERACE_MEMORY_MEMORY_H */
