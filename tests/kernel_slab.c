/* SPDX-License-Identifier: MIT */
/*
 * kernel_slab.c - the slab's reset between runs.
 *
 * kmem_cache_reset() redoes only the objects the run allocated (slab.c):
 * objects never handed out cannot have changed, since allocation goes in
 * index order and an access to a never-allocated object fails its run in
 * kasan_check().  A contained crash may have been a wild store anywhere,
 * so after one the reset redoes every object.  Both must leave each cache
 * byte for byte as it was created, with every object never allocated,
 * and allocation starting again at object #0.
 */
#include "kernel/kernel.h"
#include "kernel/kasan.h"
#include "programs/programs.h"
#include "runtime/run.h"
#include "strategy/strategy.h"
#include "tap.h"

#include <stdint.h>
#include <string.h>

#define CAP	8
#define OBJSZ	40

static void zero_ctor(void *obj)
{
	memset(obj, 0, OBJSZ);
}

/* The cache's memory as it was created, to compare resets against. */
struct snap {
	kmem_cache_t *c;
	unsigned char *obj[CAP];
	unsigned char bytes[CAP][OBJSZ];
};

/* Allocate every object (in index order), remember the pristine bytes. */
static int snap_take(struct snap *s)
{
	for (int i = 0; i < CAP; i++) {
		s->obj[i] = kmem_cache_alloc(s->c, 0);
		if (!s->obj[i] || kmem_cache_obj_index(s->c, s->obj[i]) != i)
			return -1;
		memcpy(s->bytes[i], s->obj[i], OBJSZ);
	}
	kmem_cache_reset(s->c);
	return 0;
}

/* Every object pristine and never allocated; the next one is #0. */
static int snap_same(const struct snap *s, const char **why)
{
	int pool;
	unsigned int idx;
	size_t off;
	void *first;

	for (int i = 0; i < CAP; i++) {
		if (memcmp(s->bytes[i], s->obj[i], OBJSZ)) {
			*why = "object bytes differ";
			return 0;
		}
		if (!kasan_find(s->obj[i], &pool, &idx, &off) ||
		    kasan_get(pool, idx) != KASAN_FREE) {
			*why = "object not 'never allocated'";
			return 0;
		}
	}
	if (kmem_cache_nr_active(s->c) != 0) {
		*why = "active count not zero";
		return 0;
	}
	first = kmem_cache_alloc(s->c, 0);
	kmem_cache_reset(s->c);
	if (first != s->obj[0]) {
		*why = "allocation does not restart at #0";
		return 0;
	}
	*why = "";
	return 1;
}

/* A run's worth of use: allocate @n, scribble on them, free some. */
static void use(struct snap *s, int n)
{
	unsigned char *o[CAP];

	for (int i = 0; i < n; i++) {
		o[i] = kmem_cache_alloc(s->c, 0);
		memset(o[i], 0xa0 + i, OBJSZ);
	}
	for (int i = 0; i < n; i += 2) {
		if (s->c && kmem_cache_name(s->c)[0] == 'z')
			memset(o[i], 0, OBJSZ);	/* freed constructed */
		kmem_cache_free(s->c, o[i]);
	}
}

static void check_cache(struct snap *s, const char *name)
{
	struct pr_run_options ropts;
	struct pr_run_result res;
	struct pr_strategy *strat;
	const char *why;
	int crashed = 0;

	ok(snap_take(s) == 0, "%s: %d objects allocated in index order", name,
	   CAP);
	for (int n = 0; n <= CAP; n += 3) {
		use(s, n);
		kmem_cache_reset(s->c);
		ok(snap_same(s, &why), "%s: after a run that used %d objects, "
		   "the reset cache is as created %s", name, n, why);
	}

	/*
	 * A wild store into an object the run never allocated: the lazy
	 * reset does not look there, which is only sound because such a
	 * store cannot happen without a crash.  After a contained crash the
	 * reset must restore it.
	 */
	use(s, 2);
	memset(s->obj[CAP - 1], 0xee, OBJSZ);
	pr_run_options_default(&ropts);
	strat = pr_random_create();
	for (uint64_t run = 0; run < 2000 && !crashed; run++)
		crashed = pr_run_once(&pr_prog_null_deref, strat, &ropts, 1, run,
				      NULL, &res) &&
			  !strcmp(res.verdict.kind, "crash");
	strat->ops->destroy(strat);
	ok(crashed, "%s: a crash contained (null-deref)", name);
	kmem_cache_reset(s->c);
	ok(snap_same(s, &why), "%s: after a crash, the reset restores even "
	   "a never-allocated object %s", name, why);
}

int main(void)
{
	static struct snap plain, ctor;

	kernel_reset(2);
	plain.c = kmem_cache_create_capacity("plain", OBJSZ, CAP, NULL);
	ctor.c = kmem_cache_create_capacity("zeroed", OBJSZ, CAP, zero_ctor);
	if (!ok(plain.c && ctor.c, "caches created"))
		return done_testing();
	check_cache(&plain, "poisoned cache");
	check_cache(&ctor, "constructed cache");
	return done_testing();
}
