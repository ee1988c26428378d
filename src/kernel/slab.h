/* SPDX-License-Identifier: MIT */
/*
 * slab.h - kmem_cache (include/linux/slab.h, 2.6.13 signatures) over
 * fixed pools with shadow state.
 *
 * A cache is an array of @capacity objects carved from a static arena when
 * it is created (outside any run); nothing is allocated during a run.
 * Objects are named "<cache name>#<index>" (create the radix tree's cache
 * as "node" to get "node#3").  Between runs kmem_cache_reset() frees every
 * object and refills the memory with the same poison, so every run starts
 * from identical state.  Allocation hands out the lowest index never used
 * in this run first, then the lowest freed one: ids follow allocation
 * order for a given schedule, and a freed object stays freed (so stale
 * accesses to it are caught) as long as the pool has fresh ones.
 *
 * Verdicts: "double-free", "invalid-free" (not an object of this cache,
 * or never allocated), "leak" (kmem_cache_check_leaks).  Without a
 * constructor, freed memory is poisoned with 0x6b and fresh memory with
 * 0x5a, as the kernel's SLAB_POISON does, so a use after free that slips
 * past the shadow reads the same garbage in every run.
 *
 * The allocator's bookkeeping has no yield points: the kernel's slab
 * works on per-CPU arrays with interrupts off, so an allocation or a free
 * is atomic with respect to every other CPU; we model it as one step.
 */
#ifndef PAGERACE_KERNEL_SLAB_H
#define PAGERACE_KERNEL_SLAB_H

#include <stddef.h>

#define KMEM_CACHE_MAX			8
#define KMEM_CACHE_DEFAULT_CAPACITY	256
#define KMEM_ARENA_SIZE			(4u << 20)

/* Accepted and ignored. */
#define SLAB_HWCACHE_ALIGN	0x00002000UL
#define SLAB_PANIC		0x00040000UL
#define SLAB_CTOR_CONSTRUCTOR	0x001UL

typedef struct kmem_cache kmem_cache_t;

typedef void (*kmem_ctor_t)(void *obj, kmem_cache_t *cachep,
			    unsigned long flags);

/**
 * kmem_cache_create - a cache of KMEM_CACHE_DEFAULT_CAPACITY objects
 *
 * 2.6.13's signature; @align, @flags and @dtor are ignored.  @ctor, if
 * given, runs on every object when the cache is reset (the kernel runs it
 * when a slab is created) and never again: as in the kernel, objects must
 * be freed in constructed state, and since SLAB_POISON is off for caches
 * with a constructor, freed objects of such a cache are not poisoned, so
 * an object freed dirty is handed out dirty.
 * Creating a cache whose name exists returns that cache, reset, so a
 * setup run before every run may create its caches each time.  Returns
 * NULL if the arena or the registry is full.
 */
kmem_cache_t *kmem_cache_create(const char *name, size_t size, size_t align,
				unsigned long flags, kmem_ctor_t ctor,
				kmem_ctor_t dtor);

/*
 * As kmem_cache_create with a capacity of @capacity objects and a
 * constructor that takes the object only (NULL: none).
 */
kmem_cache_t *kmem_cache_create_capacity(const char *name, size_t size,
					 unsigned int capacity,
					 void (*ctor)(void *obj));

int kmem_cache_destroy(kmem_cache_t *cachep);

/* NULL when the cache is full (the kernel's allocation failure). */
void *kmem_cache_alloc(kmem_cache_t *cachep, unsigned int gfp);
void *kmem_cache_zalloc(kmem_cache_t *cachep, unsigned int gfp);
void kmem_cache_free(kmem_cache_t *cachep, void *obj);

/*
 * Free everything, re-poison (between runs, outside any context).
 * kmem_cache_reset(cachep) resets one cache, kmem_cache_reset() or
 * kmem_cache_reset(NULL) every cache.  Only the objects the run
 * allocated are redone (the others cannot have changed), every object
 * after a contained crash (pr_crash_count): the result is the same.
 */
void kmem_cache_reset_cache(kmem_cache_t *cachep);
#define kmem_cache_reset(...)						\
	kmem_cache_reset_cache((kmem_cache_t *[1]){ __VA_ARGS__ }[0])

/**
 * kmem_cache_check_leaks - end-of-run: fail with "leak" naming the first
 * object of @cachep still allocated (or still queued by call_rcu)
 *
 * Returns 0 when there is none.
 */
int kmem_cache_check_leaks(kmem_cache_t *cachep);

/* Introspection for checks and tests (no yield points). */
unsigned int kmem_cache_nr_active(const kmem_cache_t *cachep);
unsigned int kmem_cache_capacity(const kmem_cache_t *cachep);
const char *kmem_cache_name(const kmem_cache_t *cachep);
/* The object's index in its cache (its "#n"), or -1. */
int kmem_cache_obj_index(const kmem_cache_t *cachep, const void *obj);

#endif /* PAGERACE_KERNEL_SLAB_H */
