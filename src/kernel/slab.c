/* SPDX-License-Identifier: MIT */
/*
 * slab.c - kmem_cache over a static arena, with shadow state (slab.h).
 */
#include "runtime/effects.h"
#include "runtime/tsan.h"
#include "kernel/slab.h"
#include "memory/memory.h"
#include "kernel/kasan.h"
#include "runtime/context.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define POISON_INUSE	0x5a	/* fresh, never allocated */
#define POISON_FREE	0x6b	/* freed */

struct kmem_cache {
	char name[24];
	size_t objsize;		/* as asked */
	size_t size;		/* stride: objsize rounded up to 16 */
	unsigned int capacity;
	unsigned char *mem;
	int pool;		/* kasan pool id */
	kmem_ctor_t ctor;	/* 2.6.13 constructor, or */
	void (*ctor1)(void *obj);	/* the one-argument kind */
	unsigned int active;
	unsigned int fresh;	/* objects [fresh, capacity) never used yet */
	unsigned long crashes;	/* pr_crash_count() at the last reset */
	int used;
};

static struct kmem_cache caches[KMEM_CACHE_MAX];
static unsigned char arena[KMEM_ARENA_SIZE] __attribute__((aligned(64)));
static size_t arena_used;

/*
 * Constructed objects, as a fresh slab has them; else poison.
 *
 * Only objects [0, fresh) can differ from that state: allocation hands
 * them out in index order, and an access to a never-allocated object fails
 * its run in kasan_check() before it happens.  So a reset redoes just
 * those (a clean run of a small scenario touches a handful of a cache's
 * hundreds of objects), unless a crash was contained since the last one:
 * a wild store may have hit any object, so then all of them.
 */
PR_NO_TSAN static void reset_objects(struct kmem_cache *c, unsigned int n)
{
	pr_tsan_new_memory(c->mem, c->size * n);
	memset(c->mem, POISON_INUSE, c->size * n);
	for (unsigned int i = 0; i < n; i++) {
		kasan_set(c->pool, i, KASAN_FREE);
		if (c->ctor)
			c->ctor(c->mem + c->size * i, c,
				SLAB_CTOR_CONSTRUCTOR);
		else if (c->ctor1)
			c->ctor1(c->mem + c->size * i);
	}
	c->active = 0;
	c->fresh = 0;
}

PR_NO_TSAN static void reset_one(struct kmem_cache *c)
{
	unsigned long crashes = pr_crash_count();

	if (crashes != c->crashes) {
		c->crashes = crashes;
		reset_objects(c, c->capacity);
	} else {
		reset_objects(c, c->fresh);
	}
}

/* A new cache: every object, whatever the arena held before. */
PR_NO_TSAN static void reset_all(struct kmem_cache *c)
{
	c->crashes = pr_crash_count();
	reset_objects(c, c->capacity);
}

PR_NO_TSAN static kmem_cache_t *create(const char *name, size_t size,
			    unsigned int capacity, kmem_ctor_t ctor,
			    void (*ctor1)(void *obj))
{
	struct kmem_cache *c = NULL;
	size_t stride = (size + 15) & ~(size_t)15;

	for (int i = 0; i < KMEM_CACHE_MAX; i++)
		if (caches[i].used && !strcmp(caches[i].name, name)) {
			c = &caches[i];
			if (c->objsize != size || c->capacity < capacity)
				return NULL;
			c->ctor = ctor;
			c->ctor1 = ctor1;
			reset_all(c);	/* the constructor may differ */
			return c;
		}
	for (int i = 0; i < KMEM_CACHE_MAX; i++)
		if (!caches[i].used) {
			c = &caches[i];
			break;
		}
	if (!c || !size || !capacity ||
	    stride * capacity > KMEM_ARENA_SIZE - arena_used)
		return NULL;
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->objsize = size;
	c->size = stride;
	c->capacity = capacity;
	c->mem = arena + arena_used;
	c->ctor = ctor;
	c->ctor1 = ctor1;
	c->pool = kasan_register_pool(c->mem, stride, capacity, c->name,
				      KASAN_FREE);
	if (c->pool < 0)
		return NULL;
	arena_used += stride * capacity;
	c->used = 1;
	reset_all(c);
	return c;
}

PR_NO_TSAN kmem_cache_t *kmem_cache_create(const char *name, size_t size, size_t align,
				unsigned long flags, kmem_ctor_t ctor,
				kmem_ctor_t dtor)
{
	(void)align;
	(void)flags;
	(void)dtor;
	return create(name, size, KMEM_CACHE_DEFAULT_CAPACITY, ctor, NULL);
}

PR_NO_TSAN kmem_cache_t *kmem_cache_create_capacity(const char *name, size_t size,
					 unsigned int capacity,
					 void (*ctor)(void *obj))
{
	return create(name, size, capacity, NULL, ctor);
}

/*
 * The arena is a stack: destroying the most recent cache gives its memory
 * back, any other keeps its memory reserved (caches live for the process
 * in practice).
 */
PR_NO_TSAN int kmem_cache_destroy(kmem_cache_t *c)
{
	if (!c || !c->used)
		return -1;
	kasan_unregister_pool(c->pool);
	if (c->mem + c->size * c->capacity == arena + arena_used)
		arena_used -= c->size * c->capacity;
	c->used = 0;
	return 0;
}

PR_NO_TSAN void kmem_cache_reset_cache(kmem_cache_t *cachep)
{
	for (int i = 0; i < KMEM_CACHE_MAX; i++)
		if (caches[i].used && (!cachep || cachep == &caches[i]))
			reset_one(&caches[i]);
}

PR_NO_TSAN void *kmem_cache_alloc(kmem_cache_t *c, unsigned int gfp)
{
	unsigned int i;
	void *obj;

	(void)gfp;
	pr_effect(c, sizeof(*c), PR_EFF_WRITE);		/* the free list */
	pr_harness_lock();
	if (c->fresh < c->capacity) {
		i = c->fresh++;
	} else {
		for (i = 0; i < c->capacity; i++)
			if (kasan_get(c->pool, i) == KASAN_FREED)
				break;
		if (i == c->capacity) {
			pr_harness_unlock();
			return NULL;
		}
	}
	kasan_set(c->pool, i, KASAN_ALLOCATED);
	c->active++;
	pr_harness_unlock();
	obj = c->mem + c->size * i;
	/*
	 * The object's shadow changes from freed to allocated: every access
	 * to it checks that shadow (kasan_check), so for dpor the allocation
	 * writes the object, as kmem_cache_free does.  Without it an access
	 * to the freed object and its reallocation looked independent, and
	 * dpor kept only the order in which the access comes after the
	 * allocation and passes (tests/kernel_slab.c, "use after free
	 * before a reallocation").
	 */
	pr_effect(obj, c->size, PR_EFF_WRITE);
	/*
	 * ThreadSanitizer: the slab allocator's own locking orders a free
	 * before the allocation that reuses the object (kmem_cache_free
	 * releases it): the new owner's first writes do not race with the
	 * last owner's accesses.
	 */
	pr_tsan_acquire(obj);
	return obj;
}

PR_NO_TSAN void *kmem_cache_zalloc(kmem_cache_t *c, unsigned int gfp)
{
	void *obj = kmem_cache_alloc(c, gfp);

	if (obj)
		memset(obj, 0, c->objsize);
	return obj;
}

PR_NO_TSAN int kmem_cache_obj_index(const kmem_cache_t *c, const void *obj)
{
	uintptr_t a = (uintptr_t)obj, base = (uintptr_t)c->mem;

	if (a < base || a - base >= c->size * c->capacity ||
	    (a - base) % c->size)
		return -1;
	return (int)((a - base) / c->size);
}

PR_NO_TSAN void kmem_cache_free(kmem_cache_t *c, void *obj)
{
	int i = kmem_cache_obj_index(c, obj);
	enum kasan_state s;

	if (i < 0)
		pr_fail("invalid-free", obj,
			"kmem_cache_free(%s): not an object of this cache",
			c->name);
	/*
	 * The freeing CPU's own stores land before the free list's (they
	 * share its store buffer on real hardware; ours are kept apart).
	 */
	if (pr_mem_on) {
		int o;
		uint64_t at;

		pr_mem_fence(PR_MF_MB);
		/* Another CPU's store to it still on its way: it lands after. */
		pr_effect(obj, c->size, PR_EFF_READ);
		if (pr_mem_buffered_in(obj, c->size, &o, &at))
			pr_fail("use-after-free", obj, "kmem_cache_free(%s): "
				"%s's store to it at step %llu is still in "
				"its store buffer and reaches memory after "
				"the free", c->name, pr_ctx_name(o),
				(unsigned long long)at);
	}
	pr_effect(c, sizeof(*c), PR_EFF_WRITE);
	pr_effect(obj, c->size, PR_EFF_WRITE);		/* poison, shadow */
	pr_harness_lock();
	s = kasan_get(c->pool, (unsigned int)i);
	switch (s) {
	case KASAN_ALLOCATED:
		break;
	case KASAN_FREED:
		pr_fail("double-free", obj, "kmem_cache_free of a freed object");
	case KASAN_RCU_PENDING:
		pr_fail("double-free", obj,
			"kmem_cache_free of an object queued by call_rcu "
			"(its callback will free it again)");
	case KASAN_FREE:
		pr_fail("invalid-free", obj,
			"kmem_cache_free of an object never allocated");
	}
	kasan_set(c->pool, (unsigned int)i, KASAN_FREED);
	c->active--;
	if (!c->ctor && !c->ctor1)
		memset(obj, POISON_FREE, c->size);
	pr_tsan_release(obj);
	pr_harness_unlock();
}

PR_NO_TSAN int kmem_cache_check_leaks(kmem_cache_t *c)
{
	unsigned int first = c->capacity;

	for (unsigned int i = 0; i < c->capacity; i++) {
		enum kasan_state s = kasan_get(c->pool, i);

		if (s == KASAN_ALLOCATED || s == KASAN_RCU_PENDING) {
			first = i;
			break;
		}
	}
	if (first == c->capacity)
		return 0;
	pr_fail("leak", c->mem + c->size * first,
		"%u %s object%s still allocated at the end of the run, "
		"the first %s",
		c->active, c->name, c->active == 1 ? "" : "s",
		kasan_get(c->pool, first) == KASAN_RCU_PENDING ?
		"still queued by call_rcu" : "never freed");
}

PR_NO_TSAN unsigned int kmem_cache_nr_active(const kmem_cache_t *c)
{
	return c->active;
}

PR_NO_TSAN unsigned int kmem_cache_capacity(const kmem_cache_t *c)
{
	return c->capacity;
}

PR_NO_TSAN const char *kmem_cache_name(const kmem_cache_t *c)
{
	return c->name;
}
