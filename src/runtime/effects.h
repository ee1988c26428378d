/* SPDX-License-Identifier: MIT */
/*
 * effects.h - what a step did besides the access after its yield point.
 *
 * A step is everything a context does from one yield point to the next:
 * the access the first yield point announces, then code that the model
 * treats as private.  Some of that code touches state other contexts read
 * without a yield point of its own -- RCU's reader nesting and callback
 * queue, the slab's free lists, wake-ups of sleeping contexts -- because
 * in the kernel it is per-CPU or done with interrupts off, so it cannot be
 * preempted in between.  It cannot be preempted here either, but a
 * partial-order reduction must still know that two such steps do not
 * commute.  Kernel code reports those touches with pr_effect(); the
 * runtime keeps them only while a strategy asks (pr_effects_track), so
 * exploration by sampling never pays for them.
 */
#ifndef PAGERACE_RUNTIME_EFFECTS_H
#define PAGERACE_RUNTIME_EFFECTS_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/tsan.h"

enum pr_effect_kind {
	PR_EFF_READ = 1,	/* reads [obj, obj + size) */
	PR_EFF_WRITE = 2,	/* writes it */
	PR_EFF_WAKE = 3,	/* pr_wake(obj): contexts blocked on obj may run */
	PR_EFF_UNWRITTEN = 4,	/* the step's announced RMW on obj wrote
				 * nothing: a failed cmpxchg (pr_rmw_unwritten) */
	/*
	 * A bump of the counter at obj, or a read of it that only floors
	 * take, whose order among other such touches only an observer
	 * (PR_EFF_OBSERVE) can tell: it conflicts with every plain read
	 * and write of obj, not with another tick.  The weak model's memory
	 * time (memory/stale.c): every write that reaches memory takes the
	 * next time, a grace period's beginning and end read it into a
	 * floor, and the order of two of them matters only to a load that
	 * weighs older values against a floor.
	 */
	PR_EFF_TICK = 5,
	/*
	 * The step's outcome may depend on the order of the bumps of obj
	 * before it (stale.c: a load whose older values are those written
	 * after its CPU's floor).  No conflict of its own: dpor reverses
	 * the bumps before it that no other step orders (dpor_race.c).
	 */
	PR_EFF_OBSERVE = 6,
	/*
	 * The step's announced store to obj went into its CPU's store
	 * buffer (memory/buffer.c), not to memory: it touched the buffer's
	 * slot (a WRITE effect of its own), not obj's bytes, which its
	 * flush writes later (dependence.c, rule 6).
	 */
	PR_EFF_BUFFERED = 7,
};

struct pr_effect {
	const void *obj;
	size_t size;
	int kind;		/* enum pr_effect_kind */
	int bit1;		/* a READ of bit bit1 - 1 of the word at obj
				 * only (pr_effect_bit); 0: every byte */
};

/*
 * The effects one step may record before they are summarised as "all"
 * (PR_EV_ALL: dependent with every other step).  12, not 8: under weak,
 * the step of synchronize_rcu that starts a grace period records nine
 * (the memory time's bump and the grace-period word, rcu's clock, its
 * waiter count, sync_mask written and read, and the per-CPU state it
 * reads), and as "all" it made every load after it explore its older
 * values again (dpor_stale_redundant gives up past such a step):
 * C-RW-G+RW-G+RW-R+RW-R took 4,158 executions under weak, now 587.  No
 * step of the corpus's 2-4 CPU tests or of the shipped scenarios records
 * more than 12, under any model (bench/RESULTS.md).
 */
#define PR_MAX_EFFECTS	12

/*
 * Called by kernel code: this step reads or writes [obj, obj + size).
 * A load and a branch when no strategy asks (pr_effects_on is 0): the
 * samplers and pagerace-tsan's runs do not even make the call.
 *
 * These inline functions are the harness's, called from the model's
 * code.  In pagerace-tsan that code is instrumented, and clang does not
 * inline a function that is not into one that is: it emits a copy in the
 * model's object.  PR_TSAN_INVISIBLE keeps that copy from logging an
 * entry and an exit (runtime/tsan.h; tests/tsan_harness_uninstrumented.sh
 * checks it).
 */
extern int pr_effects_on;
void pr_effect_slow(const void *obj, size_t size, int kind, int bit1);
PR_TSAN_INVISIBLE static inline void pr_effect(const void *obj, size_t size,
					       int kind)
{
	if (__builtin_expect(pr_effects_on, 0))
		pr_effect_slow(obj, size, kind, 0);
}

/*
 * A detector reads bit @nr of the unsigned long at @word and nothing else
 * of it (PG_free of page->flags): under sc it commutes with atomic bit
 * operations on the word's other bits (dependence.c, rule 1), as those
 * commute with each other.  Under a memory model a plain read of the word.
 */
PR_TSAN_INVISIBLE static inline void pr_effect_bit(const unsigned long *word,
						   unsigned nr)
{
	if (__builtin_expect(pr_effects_on, 0))
		pr_effect_slow(word, sizeof(*word), PR_EFF_READ,
			       (int)(nr % (sizeof(*word) * 8)) + 1);
}

/*
 * Called right after an RMW whose yield point announced a write but which
 * wrote nothing -- a cmpxchg that failed, an atomic_add_unless that met
 * its @u: it only read @obj.  Partial-order reduction then lets it commute
 * with other loads of @obj (dependence.c, rule 1), as Nidhugg and GenMC
 * treat a failed compare-and-swap; otherwise two CPUs racing on one word
 * with load-then-cmpxchg loops multiply the executions for nothing.  The
 * runtime has already woken spin-waiters at its yield point (a writing
 * kind), and that stays true of the step.  Under a memory model the RMW
 * still drains and orders (memory/memory.h), so callers report it under
 * sc only.
 */
PR_TSAN_INVISIBLE static inline void pr_rmw_unwritten(const void *obj)
{
	pr_effect(obj, 0, PR_EFF_UNWRITTEN);
}

/*
 * A set of the memory time's ticks (below), by their ordinal in the run:
 * the ticks a CPU's floor took its time from (memory/stale.c).  Bit
 * PR_TICKS_ALL - 1 says "every tick": an ordinal past the others, or a
 * time whose source was not kept.
 */
#define PR_TICKS_ALL	256u
#define PR_TICK_NONE	UINT32_MAX
struct pr_tickset {
	uint64_t w[PR_TICKS_ALL / 64];
};

static inline void pr_tickset_add(struct pr_tickset *s, uint32_t n)
{
	if (n == PR_TICK_NONE)
		return;
	if (n >= PR_TICKS_ALL)
		n = PR_TICKS_ALL - 1;
	s->w[n / 64] |= (uint64_t)1 << (n % 64);
}

static inline void pr_tickset_or(struct pr_tickset *s,
				 const struct pr_tickset *o)
{
	for (unsigned i = 0; i < PR_TICKS_ALL / 64; i++)
		s->w[i] |= o->w[i];
}

static inline int pr_tickset_every(const struct pr_tickset *s)
{
	return (int)(s->w[PR_TICKS_ALL / 64 - 1] >> 63);
}

/* Does @s hold one of the ticks [first, last]? */
static inline int pr_tickset_meets(const struct pr_tickset *s,
				   uint32_t first, uint32_t last)
{
	if (first == PR_TICK_NONE)
		return 0;
	if (pr_tickset_every(s) || last >= PR_TICKS_ALL - 1)
		return 1;
	for (uint32_t n = first; n <= last; n++)
		if (s->w[n / 64] >> (n % 64) & 1)
			return 1;
	return 0;
}

/*
 * The weak model's memory time (memory/stale.c).  A bump of the clock at
 * @clock (PR_EFF_TICK) by a write of [obj, obj + size) that reaches
 * memory; @obj NULL: by a step that reads the time into a floor and
 * writes no location (a grace period's beginning or end).  @n is the
 * tick's ordinal in the run.  And a load of [obj, obj + size) that
 * weighed that location's older values against its CPU's floor
 * (PR_EFF_OBSERVE), with @from, the ticks that floor took its time from.
 * The locations and the ticks let dpor reverse, at an observer, only the
 * bumps whose order it can tell: a bump of the location it loaded
 * against one its floor came from (dpor_reverse.c).
 */
void pr_effect_tick_slow(const void *clock, size_t csize, const void *obj,
			 size_t size, uint32_t n);
PR_TSAN_INVISIBLE static inline void
pr_effect_tick(const void *clock, size_t csize, const void *obj, size_t size,
	       uint32_t n)
{
	if (__builtin_expect(pr_effects_on, 0))
		pr_effect_tick_slow(clock, csize, obj, size, n);
}

void pr_effect_observe_slow(const void *obj, size_t size,
			    const struct pr_tickset *from);
PR_TSAN_INVISIBLE static inline void
pr_effect_observe(const void *obj, size_t size, const struct pr_tickset *from)
{
	if (__builtin_expect(pr_effects_on, 0))
		pr_effect_observe_slow(obj, size, from);
}

/* Strategies: record effects from now on (1) or stop (0). */
void pr_effects_track(int on);

/*
 * Strategies that record effects in this run, even if not at every step
 * (dpor replays a prefix without): 1 from the run's beginning, 0 after
 * its end.  The weak model then keeps its floors' ticks (pr_tickset),
 * which a step reports only while effects are on but gathers all run.
 */
extern int pr_effects_run;

/*
 * The effects of the step that just ended (the one before the current
 * decision): copies at most PR_MAX_EFFECTS into @out and returns their
 * number, or -1 if the step had more (treat it as touching everything).
 */
int pr_effects_take(struct pr_effect *out);
/* Steps pr_effects_take found with more than PR_MAX_EFFECTS (tests). */
extern unsigned long pr_effects_overflows;

/*
 * Where that step's memory time went (never among the effects
 * pr_effects_take returns, and known even when they overflowed).
 * Returns whether it reported PR_EFF_OBSERVE.  Clears it; call after
 * pr_effects_take.
 */
#define PR_EFF_MANY	((size_t)-1)
struct pr_effect_time {
	/* The location its bumps wrote (obj NULL, size 0: none; obj NULL,
	 * size PR_EFF_MANY: more than one), and their ordinals. */
	const void *tobj;
	size_t tsize;
	uint32_t tfirst, tlast;		/* PR_TICK_NONE: no bump */
	/* The location it observed (obj NULL: more than one) and the ticks
	 * its floor came from (the union, if it observed twice). */
	const void *oobj;
	size_t osize;
	struct pr_tickset from;
};
int pr_effects_take_time(struct pr_effect_time *out);

#endif /* PAGERACE_RUNTIME_EFFECTS_H */
