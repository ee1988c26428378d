/* SPDX-License-Identifier: MIT */
/*
 * loctable.h - the weak model's location and lock tables, for stale.c.
 *
 * A location written through the model keeps its last STALE_DEPTH
 * values with their times and the bumps that wrote them (stale.c says
 * what they mean); a lock keeps what its last unlocker had seen.  Both
 * are found by address in an open-addressing table, cleared per run by
 * a generation number.  The table's layout depends on addresses, but
 * nothing observable does: a lookup finds the same entry wherever it
 * sits, and a full table (the same location count in every run of the
 * same schedule) sets @loc_overflow, which stale.c reads as "every
 * later untracked value was written just now", the strong side.
 * Entries never move or go within a run.
 */
#ifndef PAGERACE_MEMORY_LOCTABLE_H
#define PAGERACE_MEMORY_LOCTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "memory/internal.h"
#include "runtime/effects.h"
#include "runtime/tsan.h"

#define NLOC	4096		/* locations a run may track */
#define NLOCK	256		/* locks a run may track */

struct loc {
	const void *addr;
	uint32_t gen;		/* the run it belongs to; else free */
	uint8_t size;
	uint8_t n;		/* values held, 1..STALE_DEPTH */
	uint8_t lazy;		/* val[0] is memory's: an RMW wrote it */
	uint8_t mixed;		/* accessed with two sizes: no history */
	uint32_t t[STALE_DEPTH];
	uint64_t val[STALE_DEPTH];
	int8_t wctx[STALE_DEPTH];	/* who wrote it, for reports */
	uint64_t wstep[STALE_DEPTH];
	uint32_t tno[STALE_DEPTH];	/* the bump that wrote it, or
					 * PR_TICK_NONE (setup's) */
	uint32_t coh[STALE_CPUS];
};

struct lockview {
	const void *lock;
	uint32_t gen;
	uint32_t view;		/* what its last unlocker had seen */
	struct pr_tickset view_s;
};

extern int loc_overflow;	/* a table filled up this run */
extern uint32_t loc_created;	/* entries made this run: a failed find
				 * stays failed until it moves */

/* Every run: forget every entry (stale_reset). */
void loc_table_reset(void);

/* The entry of @addr; with @create, a new one (NULL: table full). */
struct loc *loc_find(const void *addr, int create);
/* The view of @lock; with @create, a new one (NULL: table full). */
struct lockview *lock_find(const void *lock, int create);

/*
 * Would a write of @size bytes at @addr now find or make a tracked entry
 * (stale.c's for_write)?  Then a load of those bytes by the writer,
 * right after its flush, reads its own newest store as if forwarded
 * (stale_load).
 */
int loc_tracked_after_write(const void *addr, size_t size);

/* The sizes a location's history keeps: one move each. */
static inline int loc_trackable(size_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* An RMW's value is memory's until someone looks. */
PR_NO_TSAN static inline __attribute__((always_inline)) void
loc_sync(struct loc *e)
{
	if (e->lazy) {
		e->val[0] = 0;
		mem_copy(&e->val[0], e->addr, e->size);
		e->lazy = 0;
	}
}

/* Does memory still hold @e's newest value? */
PR_NO_TSAN static inline __attribute__((always_inline)) int
loc_current(struct loc *e)
{
	loc_sync(e);
	return mem_same(e->addr, &e->val[0], e->size);
}

#endif /* PAGERACE_MEMORY_LOCTABLE_H */
