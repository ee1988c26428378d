/* SPDX-License-Identifier: MIT */
/*
 * internal.h - between the store buffers (buffer.c) and the weak model's
 * older values (stale.c).  Nothing outside src/memory/ includes it.
 */
#ifndef PAGERACE_MEMORY_INTERNAL_H
#define PAGERACE_MEMORY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

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

/* Context @ctx's next step is the load of @size bytes at @addr. */
void stale_pend(int ctx, const void *addr, size_t size);
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

#endif /* PAGERACE_MEMORY_INTERNAL_H */
