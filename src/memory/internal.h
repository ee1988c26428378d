/* SPDX-License-Identifier: MIT */
/*
 * internal.h - between the store buffers (buffer.c) and the weak model's
 * older values (stale.c).  Nothing outside src/memory/ includes it.
 */
#ifndef PAGERACE_MEMORY_INTERNAL_H
#define PAGERACE_MEMORY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "memory/memory.h"
#include "runtime/context.h"
#include "runtime/choice.h"	/* PR_MEM_SLOTS */

/* Values a location keeps: the newest and PR_MEM_READS older ones. */
#define STALE_DEPTH	4
/* Contexts that may read older values (the others read the newest). */
#define STALE_CPUS	8

/*
 * Copy / compare @n bytes: the model's locations are 1, 2, 4 or 8 bytes,
 * and a call to the C library's memcpy per access was a tenth of weak's
 * cost per step (bench/RESULTS.md); these compile to single moves.
 */
static inline __attribute__((always_inline)) void
mem_copy(void *d, const void *s, size_t n)
{
	switch (n) {
	case 1: __builtin_memcpy(d, s, 1); break;
	case 2: __builtin_memcpy(d, s, 2); break;
	case 4: __builtin_memcpy(d, s, 4); break;
	case 8: __builtin_memcpy(d, s, 8); break;
	default: __builtin_memcpy(d, s, n);
	}
}

static inline __attribute__((always_inline)) int
mem_same(const void *a, const void *b, size_t n)
{
	switch (n) {
	case 1: return !__builtin_memcmp(a, b, 1);
	case 2: return !__builtin_memcmp(a, b, 2);
	case 4: return !__builtin_memcmp(a, b, 4);
	case 8: return !__builtin_memcmp(a, b, 8);
	default: return !__builtin_memcmp(a, b, n);
	}
}

/* The logger, for stale.c's reports (buffer.c owns it). */
struct pr_mem_event;
void mem_log(const struct pr_mem_event *ev);
int mem_logging(void);

/* Every run: forget every location and view. */
void stale_reset(void);

/*
 * A store of @size bytes (@val) by context @ctx (-1: none) reaches
 * memory at @addr: call BEFORE memory is written.  @step: when it was
 * made, for reports.
 */
void stale_write(int ctx, const void *addr, size_t size, const void *val,
		 uint64_t step);

/*
 * An RMW of context @ctx on @size bytes at @addr is performed right
 * after this call (its yield point passed); @full: a full barrier.
 */
void stale_rmw(int ctx, const void *addr, size_t size, int full);

/*
 * Context @ctx's next step is the load of @size bytes at @addr: returns
 * stale_count(ctx, addr) as of now.
 */
int stale_pend(int ctx, const void *addr, size_t size);
/*
 * How many older values that pending load may read (0 if @addr is not
 * what it loads): the decision's stale-read choices.
 */
int stale_count(int ctx, const void *addr);
/* The decision ran @ctx; its pending load reads the @k-th older value. */
void stale_chosen(int ctx, int k);
/*
 * The load of @addr by @ctx is performed: @out holds memory's (newest)
 * value; replace it with the chosen older one, if any, and update the
 * context's view (@order: enum pr_mem_order).  @forwarded: it read its
 * own buffered store (no view change).
 */
void stale_load(int ctx, const void *addr, size_t size, void *out,
		int order, int forwarded);

/* smp_rmb, smp_mb (after the drain): raise the floor. */
void stale_fence(int ctx, int fence);
/* A lock taken / released by @ctx (the unlocker's view passes on). */
void stale_lock(int ctx, const void *lock);
void stale_unlock(int ctx, const void *lock);
/*
 * RCU (and SRCU): a grace period begins (synchronize_rcu, call_rcu):
 * sections begun later (stale_rcu, @enter 1 at an outermost
 * rcu_read_lock or srcu_read_lock, 0 at the matching unlock) read
 * nothing older than now; one ended, waited for by @ctx (-1: none):
 * @ctx reads nothing older than now.
 */
void stale_gp_start(void);
/* A wait loop's pause: 1 if @ctx must re-read instead (stale.c). */
int stale_relax(int ctx);
/* The time of the value @ctx's last load read (0: setup's, or forwarded). */
uint32_t stale_last_time(int ctx);
/* An access of @ctx depends on values of time @t: nothing older. */
void stale_dep(int ctx, uint32_t t);
/* Did @ctx's last load read an older value? */
int stale_last_old(int ctx);
void stale_grace(int ctx);
void stale_rcu(int ctx, int enter);

/* ---- between buffer.c (the CPUs' side) and flush.c (the scheduler's) -- */

/*
 * A buffer has PR_MEM_SLOTS slots.  A CPU's n-th store goes into slot
 * n mod PR_MEM_SLOTS and keeps it until flushed, so a flush choice's code
 * names the same store however the other slots were emptied (the
 * schedule, dfs and dpor rely on it).  Program order among buffered
 * stores is their sequence number; @group counts the CPU's smp_wmbs.
 */
struct entry {
	void *addr;
	uint8_t size;		/* 1, 2, 4 or 8; 0: slot free */
	uint8_t release;	/* waits for every older store */
	uint32_t group;		/* the CPU's smp_wmb count at the store */
	uint64_t seq;		/* program order */
	uint64_t val;		/* the bytes, as memcpy'd */
	uint64_t step;		/* pr_step() at the store, for reports */
};

struct buffer;
/* The slot of @b's oldest store, or -1. */
int mem_oldest(const struct buffer *b);

struct buffer {
	struct entry e[PR_MEM_SLOTS];
	unsigned used;		/* slot mask */
	unsigned fmask;		/* flushable slots, when fvalid */
	int fvalid;		/* fmask is up to date (a store adds its
				 * own bit, a flush clears its bit or,
				 * when it was the oldest or a newer
				 * store overlaps it, fvalid) */
	uint32_t group;
	uint64_t seq;		/* stores made so far */
	int waiting;		/* its CPU sleeps in wait_upto ... */
	uint64_t wait_seq;	/* ... until every store up to this one is out */
};

/* Have every store of @b up to sequence number @seq reached memory? */
static inline int mem_drained_upto(const struct buffer *b, uint64_t seq)
{
	int s = mem_oldest(b);

	return s < 0 || b->e[s].seq > seq;
}

extern int mem_model;		/* enum pr_mem_model of the runs */
extern int mem_stale;		/* weak: loads may read older values */
extern struct buffer mem_buf[PR_MAX_CTX];
extern uint64_t mem_busy;	/* contexts with a nonempty buffer */
extern uint64_t mem_touched;	/* buffers used this run (flush.c's reset) */
extern uint64_t mem_readers;	/* contexts that began an RCU or SRCU section */
extern uint64_t mem_drainers;	/* contexts asleep in drain() ... */
extern uint64_t mem_drain_cpus[PR_MAX_CTX];	/* ... until these buffers
						 * are empty */
extern int mem_waiters;		/* contexts sleeping in wait_upto, drain_all */
extern pr_mem_logger mem_logger;

/* Do [a, a+n) and [b, b+m) overlap? */
static inline int mem_overlap(const void *a, size_t n, const void *b,
			      size_t m)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x < y + m && y < x + n;
}

/* Is store @s, about to join @b as its newest, flushable (flush.c)? */
unsigned mem_flushable_new(const struct buffer *b, int s);
/* Does @c's buffer hold a store overlapping [addr, addr + size)? */
int mem_own_store(int c, const void *addr, size_t size);
/* Tell the logger about buffered store @e (a PR_ME_* @kind). */
void mem_log_ev(int kind, int ctx, int reader, const struct entry *e,
		uint64_t seen);

#endif /* PAGERACE_MEMORY_INTERNAL_H */
