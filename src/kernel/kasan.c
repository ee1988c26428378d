/* SPDX-License-Identifier: MIT */
/*
 * kasan.c - the pool registry and the slow path of kasan_check().
 *
 * Nothing here is a yield point: the shadow is the harness's view of the
 * model, not model memory, and it changes only together with the accesses
 * (alloc, free, call_rcu) that define it.  Each of those reports a write
 * of the whole object to dpor (effects.h), because every access's check
 * reads the object's shadow: the access is then dependent on them.
 *
 * In stress mode CPUs are threads and check shadow bytes others update:
 * the bytes and RCU stamps are read and written as relaxed atomics (plain
 * moves on x86-64, so nothing changes for deterministic runs) and the
 * whole file is PR_NO_TSAN: the shadow is the harness's, not the model's.
 */
#include "runtime/tsan.h"
#include "kernel/kasan.h"
#include "kernel/rcu.h"
#include "runtime/context.h"
#include "runtime/effects.h"

#include <stdio.h>
#include <string.h>

struct kasan_pool {
	uintptr_t base;
	size_t size;
	unsigned int count;
	unsigned int first;	/* index of its first shadow byte */
	unsigned char initial;
	int used;
	char prefix[24];
};

static struct kasan_pool pools[KASAN_MAX_POOLS];
static unsigned int shadow_used;
static unsigned char shadow[KASAN_MAX_OBJECTS];
static uint64_t rcu_stamp[KASAN_MAX_OBJECTS];	/* call_rcu time */

uintptr_t kasan_lo;
uintptr_t kasan_span;	/* 0: no pools, the fast path never matches */

PR_NO_TSAN static void recompute_span(void)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	for (int i = 0; i < KASAN_MAX_POOLS; i++) {
		const struct kasan_pool *p = &pools[i];

		if (!p->used)
			continue;
		if (p->base < lo)
			lo = p->base;
		if (p->base + p->size * p->count > hi)
			hi = p->base + p->size * p->count;
	}
	kasan_lo = lo == UINTPTR_MAX ? 0 : lo;
	kasan_span = hi > lo ? hi - lo : 0;
}

static const struct rcu_observer kasan_rcu_observer = {
	.queued = kasan_rcu_queued,
	.done = kasan_rcu_done,
};

PR_NO_TSAN int kasan_register_pool(const void *base, size_t size, unsigned int count,
			const char *prefix, enum kasan_state initial)
{
	struct kasan_pool *p = NULL;
	int id = -1;

	rcu_set_observer(&kasan_rcu_observer);	/* RCU_PENDING objects */
	for (int i = 0; i < KASAN_MAX_POOLS; i++)
		if (pools[i].used && pools[i].base == (uintptr_t)base) {
			id = i;
			break;
		}
	if (id >= 0 && count > pools[id].count)
		return -1;	/* shadow is carved once: cannot grow */
	if (id < 0) {
		for (int i = 0; i < KASAN_MAX_POOLS; i++)
			if (!pools[i].used) {
				id = i;
				break;
			}
		if (id < 0 || count > KASAN_MAX_OBJECTS - shadow_used)
			return -1;
		pools[id].first = shadow_used;
		shadow_used += count;
	}
	p = &pools[id];
	p->base = (uintptr_t)base;
	p->size = size ? size : 1;
	p->count = count;
	p->initial = (unsigned char)initial;
	p->used = 1;
	snprintf(p->prefix, sizeof(p->prefix), "%s", prefix);
	memset(&shadow[p->first], initial, count);
	memset(&rcu_stamp[p->first], 0, count * sizeof(rcu_stamp[0]));
	recompute_span();
	return id;
}

/* The shadow bytes are not reclaimed: pools live for the process. */
PR_NO_TSAN void kasan_unregister_pool(int pool)
{
	if (pool < 0 || pool >= KASAN_MAX_POOLS)
		return;
	pools[pool].used = 0;
	pools[pool].base = 0;
	recompute_span();
}

PR_NO_TSAN void kasan_reset(void)
{
	for (int i = 0; i < KASAN_MAX_POOLS; i++) {
		struct kasan_pool *p = &pools[i];

		if (!p->used)
			continue;
		memset(&shadow[p->first], p->initial, p->count);
		memset(&rcu_stamp[p->first], 0,
		       p->count * sizeof(rcu_stamp[0]));
	}
}

PR_NO_TSAN int kasan_find(const void *addr, int *pool, unsigned int *index,
	       size_t *offset)
{
	uintptr_t a = (uintptr_t)addr;

	for (int i = 0; i < KASAN_MAX_POOLS; i++) {
		const struct kasan_pool *p = &pools[i];

		if (!p->used || a < p->base || a - p->base >= p->size * p->count)
			continue;
		*pool = i;
		*index = (unsigned int)((a - p->base) / p->size);
		*offset = (a - p->base) % p->size;
		return 1;
	}
	return 0;
}

PR_NO_TSAN enum kasan_state kasan_get(int pool, unsigned int index)
{
	return (enum kasan_state)__atomic_load_n(&shadow[pools[pool].first + index],
						 __ATOMIC_RELAXED);
}

static kasan_observer observer;	/* report/lifetime.c, replay only */

PR_NO_TSAN void kasan_set_observer(kasan_observer fn)
{
	observer = fn;
}

PR_NO_TSAN void kasan_set(int pool, unsigned int index, enum kasan_state s)
{
	unsigned char *sh = &shadow[pools[pool].first + index];

	if (__builtin_expect(observer != NULL, 0) && s != KASAN_FREE)
		observer(kasan_object(pool, index),
			 (enum kasan_state)__atomic_load_n(sh, __ATOMIC_RELAXED), s);
	__atomic_store_n(sh, (unsigned char)s, __ATOMIC_RELAXED);
}

PR_NO_TSAN void *kasan_object(int pool, unsigned int index)
{
	return (void *)(pools[pool].base + pools[pool].size * index);
}

PR_NO_TSAN const char *kasan_state_name(enum kasan_state s)
{
	switch (s) {
	case KASAN_FREE:	return "never allocated";
	case KASAN_ALLOCATED:	return "allocated";
	case KASAN_RCU_PENDING:	return "queued for RCU freeing";
	case KASAN_FREED:	return "freed";
	}
	return "?";
}

PR_NO_TSAN int kasan_obj_name(const void *addr, char *buf, unsigned int len)
{
	int pool;
	unsigned int idx;
	size_t off;

	if (!kasan_find(addr, &pool, &idx, &off))
		return 0;
	if (off)
		snprintf(buf, len, "%s#%u+%zu", pools[pool].prefix, idx, off);
	else
		snprintf(buf, len, "%s#%u", pools[pool].prefix, idx);
	return 1;
}

PR_NO_TSAN void kasan_check_slow(const volatile void *addr, size_t size, int is_write)
{
	const char *what = is_write ? "write" : "read";
	const struct kasan_pool *p;
	int pool, why;
	unsigned int idx;
	size_t off;
	void *obj;
	enum kasan_state s;

	if (!kasan_find((const void *)addr, &pool, &idx, &off))
		return;		/* between two pools */
	p = &pools[pool];
	obj = kasan_object(pool, idx);
	s = kasan_get(pool, idx);
	if (off + size > p->size)
		pr_fail("out-of-bounds", obj,
			"%zu-byte %s at offset %zu of a %zu-byte %s object",
			size, what, off, p->size, p->prefix);
	if (s == KASAN_ALLOCATED)
		return;
	if (s == KASAN_RCU_PENDING && !is_write) {
		why = rcu_reader_covers(__atomic_load_n(&rcu_stamp[p->first + idx],
							__ATOMIC_RELAXED));
		if (why == RCU_COVERED)
			return;
		pr_fail("use-after-free", obj,
			"%s at offset %zu of an object queued for RCU freeing, %s",
			what, off, why == RCU_NOT_READER ?
			"outside rcu_read_lock" :
			"from a read-side section that began after call_rcu "
			"(the grace period does not wait for it)");
	}
	pr_fail("use-after-free", obj, "%s at offset %zu of a %s object",
		what, off, kasan_state_name(s));
}

PR_NO_TSAN void kasan_rcu_queued(const void *head, uint64_t stamp)
{
	int pool;
	unsigned int idx;
	size_t off;
	void *obj;
	enum kasan_state s;

	if (!kasan_find(head, &pool, &idx, &off))
		return;
	obj = kasan_object(pool, idx);
	/*
	 * The object's shadow becomes "queued for RCU freeing": a later
	 * access from outside a read-side section that covers the stamp is a
	 * use after free, an earlier one is not.  For dpor call_rcu writes
	 * the object (the check of every access reads its shadow), or the
	 * access and call_rcu would commute and only one order be run.
	 */
	pr_effect(obj, pools[pool].size, PR_EFF_WRITE);
	s = kasan_get(pool, idx);
	if (s == KASAN_RCU_PENDING)
		pr_fail("double-free", obj,
			"call_rcu on an object already queued for RCU freeing");
	if (s != KASAN_ALLOCATED)
		pr_fail("use-after-free", obj, "call_rcu on a %s object",
			kasan_state_name(s));
	kasan_set(pool, idx, KASAN_RCU_PENDING);
	__atomic_store_n(&rcu_stamp[pools[pool].first + idx], stamp,
			 __ATOMIC_RELAXED);
}

PR_NO_TSAN void kasan_rcu_done(const void *head)
{
	int pool;
	unsigned int idx;
	size_t off;

	if (kasan_find(head, &pool, &idx, &off) &&
	    kasan_get(pool, idx) == KASAN_RCU_PENDING)
		kasan_set(pool, idx, KASAN_ALLOCATED);
}
