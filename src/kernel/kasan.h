/* SPDX-License-Identifier: MIT */
/*
 * kasan.h - shadow state for model objects, checked on every access.
 *
 * A pool is an array of equally sized objects (a kmem_cache's memory, or
 * an array the model registers itself) with one shadow byte per object.
 * Every accessor in kernel/ calls kasan_check() with the address it is
 * about to touch; an access to an object that is not ALLOCATED ends the
 * run with verdict "use-after-free" naming the object ("node#3") and its
 * state.  Objects queued by call_rcu are RCU_PENDING: they may still be
 * read, but only from an RCU read-side section that began before they were
 * queued (exactly the readers the grace period waits for), and never
 * written.
 *
 * The common path is one subtraction and one compare against the span
 * covering every pool; only addresses inside it take the slow path.
 * Membership, not the address itself, is what a verdict depends on, so
 * results do not move with ASLR.
 */
#ifndef PAGERACE_KERNEL_KASAN_H
#define PAGERACE_KERNEL_KASAN_H

#include <stddef.h>
#include <stdint.h>

#define KASAN_MAX_POOLS		8
#define KASAN_MAX_OBJECTS	16384	/* shadow bytes over all pools */

enum kasan_state {
	KASAN_FREE = 0,		/* never allocated since the last reset */
	KASAN_ALLOCATED,
	KASAN_RCU_PENDING,	/* queued by call_rcu, grace period running */
	KASAN_FREED,		/* freed during this run */
};

extern uintptr_t kasan_lo, kasan_span;

void kasan_check_slow(const volatile void *addr, size_t size, int is_write);

/**
 * kasan_check - validate an access of @size bytes at @addr
 * @is_write: nonzero for a store or read-modify-write
 *
 * Fails the run (does not return) on an access to a pool object that is
 * not allocated, or that runs past its object.
 */
static inline void kasan_check(const volatile void *addr, size_t size,
			       int is_write)
{
	if (__builtin_expect((uintptr_t)addr - kasan_lo < kasan_span, 0))
		kasan_check_slow(addr, size, is_write);
}

/**
 * kasan_register_pool - add a pool of @count objects of @size bytes at @base
 * @prefix: names its objects "<prefix>#<index>" in reports and traces
 * @initial: the state every object returns to on kasan_reset()
 *
 * Called outside any run.  Registering the same @base again (a setup that
 * runs before every run) updates the pool in place and returns the same
 * id.  Returns the pool id, or -1 when the registry or the shadow is full.
 */
int kasan_register_pool(const void *base, size_t size, unsigned int count,
			const char *prefix, enum kasan_state initial);
void kasan_unregister_pool(int pool);

/* Every pool's objects back to their initial state (between runs). */
void kasan_reset(void);

/* Shadow access for the allocator and RCU (no checks, no yield points). */
int kasan_find(const void *addr, int *pool, unsigned int *index,
	       size_t *offset);
enum kasan_state kasan_get(int pool, unsigned int index);
void kasan_set(int pool, unsigned int index, enum kasan_state s);
void *kasan_object(int pool, unsigned int index);
const char *kasan_state_name(enum kasan_state s);

/*
 * call_rcu's observer (kernel/rcu.h), installed by kasan_register_pool:
 * @head inside a pool object moves it to RCU_PENDING, remembering the RCU
 * clock @stamp; before its callback runs it is ALLOCATED again (the grace
 * period is over: the callback owns it).
 */
void kasan_rcu_queued(const void *head, uint64_t stamp);
void kasan_rcu_done(const void *head);

/*
 * A report's view of object lifetimes: while set, @fn is told of every
 * allocation (ALLOCATED), free (FREED) and call_rcu (RCU_PENDING) of a
 * pool object, and of the end of its grace period (RCU_PENDING to
 * ALLOCATED), with the object's address and its old and new state, from
 * inside the step that made it.  NULL while exploring (one untaken branch per shadow change); the
 * report sets it for a rich replay only.
 */
typedef void (*kasan_observer)(const void *obj, enum kasan_state old,
			       enum kasan_state s);
void kasan_set_observer(kasan_observer fn);

/**
 * kasan_obj_name - name the pool object containing @addr
 *
 * Writes "node#3" (or "node#3+16" for an address inside it) into @buf and
 * returns 1; returns 0 when @addr is in no pool.  A model that installs
 * its own object resolver chains to this one first (or uses
 * kernel_set_obj_resolver, kernel.h, which does the chaining).
 */
int kasan_obj_name(const void *addr, char *buf, unsigned int len);

#endif /* PAGERACE_KERNEL_KASAN_H */
