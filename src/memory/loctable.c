/* SPDX-License-Identifier: MIT */
/*
 * loctable.c - the weak model's location and lock tables (loctable.h).
 */
#include "memory/loctable.h"

#include <string.h>

static struct loc locs[NLOC];
static struct lockview lockviews[NLOCK];
static uint32_t gen = 1;
int loc_overflow;
uint32_t loc_created;

PR_NO_TSAN void loc_table_reset(void)
{
	if (++gen == 0) {	/* wrapped: clear for real */
		memset(locs, 0, sizeof(locs));
		memset(lockviews, 0, sizeof(lockviews));
		gen = 1;
	}
	loc_overflow = 0;
	loc_created = 0;
}

PR_NO_TSAN static size_t hash(const void *p, size_t n)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 40) & (n - 1);
}

PR_NO_TSAN struct loc *loc_find(const void *addr, int create)
{
	size_t h = hash(addr, NLOC);

	for (size_t i = 0; i < NLOC; i++) {
		struct loc *e = &locs[(h + i) & (NLOC - 1)];

		if (e->gen != gen) {
			if (!create)
				return NULL;
			memset(e, 0, sizeof(*e));
			e->addr = addr;
			e->gen = gen;
			loc_created++;
			return e;
		}
		if (e->addr == addr)
			return e;
	}
	if (create)
		loc_overflow = 1;
	return NULL;
}

PR_NO_TSAN struct lockview *lock_find(const void *lock, int create)
{
	size_t h = hash(lock, NLOCK);

	for (size_t i = 0; i < NLOCK; i++) {
		struct lockview *l = &lockviews[(h + i) & (NLOCK - 1)];

		if (l->gen != gen) {
			if (!create)
				return NULL;
			l->lock = lock;
			l->gen = gen;
			l->view = 0;
			memset(&l->view_s, 0, sizeof(l->view_s));
			return l;
		}
		if (l->lock == lock)
			return l;
	}
	if (create)
		loc_overflow = 1;
	return NULL;
}

/*
 * A write of @size bytes at @addr would find or make a tracked entry:
 * a free slot on the probe path, or @addr's own of that size.
 */
PR_NO_TSAN int loc_tracked_after_write(const void *addr, size_t size)
{
	size_t h = hash(addr, NLOC);

	if (!loc_trackable(size))
		return 0;
	for (size_t i = 0; i < NLOC; i++) {
		const struct loc *e = &locs[(h + i) & (NLOC - 1)];

		if (e->gen != gen)
			return 1;
		if (e->addr == addr)
			return !e->size || (e->size == size && !e->mixed);
	}
	return 0;
}
