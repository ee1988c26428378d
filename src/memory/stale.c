/* SPDX-License-Identifier: MIT */
/*
 * stale.c - the weak model's loads that read an older value (memory.h,
 * "Stale reads", states the rules; this file keeps the books).
 *
 * Memory time: a counter bumped by every write that reaches memory (a
 * flush, an RMW, a direct store).  Memory is multi-copy atomic: a value
 * becomes visible to every CPU at once, at its time.  A location written
 * through the model keeps its last STALE_DEPTH values with their times;
 * value k (0 the newest) was current from t[k] until t[k - 1].
 *
 * Each CPU has a view: @floor (its loads read a value still current at
 * some time >= floor), @vread (the latest time of a value it read),
 * @lastw (the time of its latest write), and per location, in the
 * location, @coh (never read a value older than one it read or wrote
 * there).  A load may read value k when t[k - 1] > max(floor, coh): the
 * load then happened "as of" a time in value k's interval, which the
 * CPU's earlier loads of other locations did not bound unless a barrier
 * said so.  Barriers raise the floor (buffer.c calls stale_fence,
 * stale_lock, stale_grace, stale_gp_start, stale_rcu).
 *
 * Which value a load reads is a scheduler decision (runtime/memhook.h,
 * "reads" and "chosen"): the decision before the load offers every older
 * value as a choice of its own.
 *
 * Locations and locks are found by address in loctable.c's tables.  A
 * full table only stops tracking: every later untracked value then
 * counts as written just now (@loc_overflow), the strong side.
 *
 * Writes the model does not see (direct __atomic operations of the
 * harness, memset) are caught when a location's memory no longer holds
 * its newest value: its history restarts, the value dated now.  A value
 * never written through the model in this run is dated 0 (setup).
 *
 * For dpor (effects.h): writes to memory tick the clock (PR_EFF_TICK:
 * their order decides which values a barrier lets a load skip, even at
 * different locations, but only such a load sees it -- one with a floor
 * and an older value reports PR_EFF_OBSERVE with its location, and dpor
 * reverses the ticks before it that nothing else orders, of which one
 * wrote there (a tick says which location it wrote), dpor_reverse.c); a grace
 * period's beginning and end and stale_relax read the clock into a floor
 * only, and tick too; the grace-period floor is written by a grace
 * period's beginning and read by entering a read-side section, the one
 * place it moves a floor -- a load weighs only its CPU's floor, so it
 * does not read that word (it did: every load then depended on every
 * synchronize_rcu's beginning, and C-RW-G+RW-G+RW-B+RW-B took 181
 * executions and 861 blocked ones under weak, now 26 and 65); a
 * location's books are its bytes, which the access already names.
 *
 * Sources (pr_effects_run: dpor's runs, replayed steps included): each
 * time in a view has beside it the bumps it came from (a pr_tickset of
 * their ordinals): a value's time is its write's bump, a floor read of
 * the clock its own, and a maximum takes the union (a superset of the
 * bump that won it, which a reordering may change).  An observer
 * reports its floor's; dpor reverses a bump of the location against
 * those only.  A time of unknown source (a restart, an overflow, a
 * dependency's time: stale_dep) takes every bump up to it, or "every".
 */
#include "memory/internal.h"
#include "memory/loctable.h"
#include "memory/memory.h"
#include "runtime/context.h"
#include "runtime/effects.h"
#include "runtime/tsan.h"

#include <string.h>

#define NTIME	1024		/* times whose bump stays known (tick_at) */
#define TICK_EVERY (PR_TICKS_ALL - 1)	/* a time of unknown source */

struct view {
	uint32_t floor, vread, lastw;
	const void *pend;	/* the load its next step performs */
	struct loc *pend_e;	/* its location, if tracked when announced */
	uint32_t pend_c;	/* @loc_created then: no entry yet if unchanged */
	uint8_t psize;
	int8_t chosen;		/* that load's older value, 0: newest */
	uint64_t at;		/* the step the choice is for */
	int rcu;		/* inside RCU (or SRCU) read-side sections */
	int old;		/* read an older value since stale_relax */
	int last_old;		/* its last load read an older value */
	uint32_t last_t;	/* the time of the value its last load read */
	/*
	 * For dpor (pr_effects_run): the bumps each time above came from,
	 * every one that went into its maximum (a superset is sound: an
	 * observer reverses a bump of its location against each).
	 */
	struct pr_tickset floor_s, vread_s, lastw_s, last_s;
};

static struct view views[PR_MAX_CTX];
static uint64_t vtouched;	/* views used this run: stale_reset clears them */
static uint32_t now_t;		/* memory time */
static uint32_t gp;		/* when the last grace period began */
static struct pr_tickset gp_s;	/* its bump (pr_effects_run) */
static uint32_t nticks;		/* bumps so far: the next one's ordinal */
static uint32_t tick_at[NTIME];	/* the bump that took each write's time */
static int dated_now;		/* a value was dated now (restart) */

#define MAX(a, b)	((a) > (b) ? (a) : (b))

int pr_stale_sources;

/*
 * @ctx's view, to change: noted so that the next run clears only the
 * views used.  Once per function: the mark is a store the compiler keeps.
 */
static inline struct view *vw(int ctx)
{
	vtouched |= (uint64_t)1 << ctx;
	return &views[ctx];
}

/* @ctx's view, to read only: one never changed this run is all zeros. */
static inline const struct view *vr(int ctx)
{
	return &views[ctx];
}

PR_NO_TSAN void stale_reset(void)
{
	loc_table_reset();
	/* Per run, not the whole array: most runs use a few contexts. */
	for (uint64_t m = vtouched; m; m &= m - 1)
		memset(&views[__builtin_ctzll(m)], 0, sizeof(views[0]));
	vtouched = 0;
	now_t = 0;
	gp = 0;
	memset(&gp_s, 0, sizeof(gp_s));
	nticks = 0;
	dated_now = 0;
}

/* Restart @e's history: memory's value, dated now (a write unseen). */
PR_NO_TSAN static void restart(struct loc *e)
{
	pr_effect(&now_t, sizeof(now_t), PR_EFF_READ);
	e->n = 1;
	e->lazy = 0;
	e->val[0] = 0;
	mem_copy(&e->val[0], e->addr, e->size);
	e->t[0] = now_t;
	e->wctx[0] = -1;
	e->wstep[0] = 0;
	e->tno[0] = TICK_EVERY;
	dated_now = 1;
}

/*
 * @e for a write of @size bytes: a new entry starts with the value
 * memory holds (dated 0, setup's, or now after an loc_overflow); another
 * size makes it mixed.  NULL: not tracked.
 */
PR_NO_TSAN static struct loc *for_write(const void *addr, size_t size)
{
	struct loc *e = loc_find(addr, 1);

	if (!e)
		return NULL;
	if (!e->size) {
		e->size = (uint8_t)size;
		e->n = 1;
		mem_copy(&e->val[0], addr, size);
		e->t[0] = loc_overflow ? now_t : 0;
		e->tno[0] = loc_overflow ? TICK_EVERY : PR_TICK_NONE;
		e->wctx[0] = -1;
	} else if (e->size != size) {
		e->mixed = 1;
	}
	if (e->mixed)
		return NULL;
	if (!loc_current(e))
		restart(e);
	return e;
}

/* Make room for a new newest value, written now by @ctx (bump @tno). */
PR_NO_TSAN static void push(struct loc *e, int ctx, uint64_t step, uint32_t tno)
{
	int n = e->n < STALE_DEPTH ? e->n : STALE_DEPTH - 1;

	/*
	 * Every slot moves up one, held or not: values past @n are never
	 * read (older, log_old), and a fixed count compiles to plain moves
	 * where four memmove calls of @n were a tenth of a flush.
	 */
	for (int k = STALE_DEPTH - 1; k > 0; k--) {
		e->t[k] = e->t[k - 1];
		e->val[k] = e->val[k - 1];
		e->wctx[k] = e->wctx[k - 1];
		e->wstep[k] = e->wstep[k - 1];
		e->tno[k] = e->tno[k - 1];
	}
	e->n = (uint8_t)(n + 1);
	e->t[0] = now_t;
	e->wctx[0] = (int8_t)ctx;
	e->wstep[0] = step;
	e->tno[0] = tno;
}

/* @s holds bump @n alone. */
PR_NO_TSAN static void set_one(struct pr_tickset *s, uint32_t n)
{
	memset(s, 0, sizeof(*s));
	pr_tickset_add(s, n);
}

/*
 * A bump of the memory time by a write of [addr, addr + size) (NULL: a
 * floor's read of it): its ordinal, reported to dpor.  A write's bump
 * then takes the next time (tick_at says whose it is).
 */
PR_NO_TSAN static uint32_t tick(const void *addr, size_t size)
{
	uint32_t n = nticks++;

	pr_effect_tick(&now_t, sizeof(now_t), addr, size, n);
	return n;
}

PR_NO_TSAN static void next_time(uint32_t n)
{
	now_t++;
	if (now_t < NTIME)
		tick_at[now_t] = n;
}

/* @ctx wrote at time now_t, bump @n (coherence with its own write). */
PR_NO_TSAN static void wrote(struct loc *e, int ctx, uint32_t n)
{
	struct view *v;

	if (ctx < 0)
		return;
	v = vw(ctx);
	v->lastw = now_t;
	if (pr_effects_run)
		set_one(&v->lastw_s, n);
	if (e && ctx < STALE_CPUS)
		e->coh[ctx] = now_t;
}

PR_NO_TSAN void stale_write(int ctx, const void *addr, size_t size,
			    const void *val, uint64_t step)
{
	struct loc *e = NULL;
	uint32_t n = tick(addr, size);

	if (loc_trackable(size))
		e = for_write(addr, size);
	next_time(n);
	if (e) {
		push(e, ctx, step, n);
		e->val[0] = 0;
		mem_copy(&e->val[0], val, size);
	}
	wrote(e, ctx, n);
}

PR_NO_TSAN void stale_rmw(int ctx, const void *addr, size_t size, int full)
{
	struct loc *e = NULL;
	struct view *v;
	uint32_t told, from, n = tick(addr, size);

	if (loc_trackable(size))
		e = for_write(addr, size);
	/* The value it reads: always the newest (atomicity). */
	if (e) {
		told = e->t[0];
		from = e->tno[0];
	} else {
		told = loc_overflow || loc_find(addr, 0) ? now_t : 0;
		from = told ? TICK_EVERY : PR_TICK_NONE;
	}
	next_time(n);
	if (e) {
		push(e, ctx, pr_step(), n);
		e->lazy = 1;
	}
	if (ctx < 0)
		return;
	wrote(e, ctx, n);
	v = &views[ctx];	/* marked by wrote */
	v->vread = MAX(v->vread, told);
	/* A full barrier after it too: everything before now. */
	if (full)
		v->floor = MAX(v->floor, now_t);
	if (pr_effects_run) {
		pr_tickset_add(&v->vread_s, from);
		if (full)
			pr_tickset_add(&v->floor_s, n);
	}
}

/* The lowest time @ctx's load of @e may read as of. */
PR_NO_TSAN static uint32_t low(const struct loc *e, int ctx)
{
	const struct view *v = vr(ctx);

	return MAX(v->floor, e->coh[ctx]);
}

/* The older values @ctx may read at @e (memory current, synced). */
PR_NO_TSAN static int older(const struct loc *e, int ctx)
{
	uint32_t lo = low(e, ctx);
	int k = 0;

	while (k + 1 < e->n && e->t[k] > lo)
		k++;
	return k;
}

/* stale_count of @ctx's pending load, tracked at @e. */
PR_NO_TSAN static inline __attribute__((always_inline)) int
count_at(struct loc *e, const struct view *v, int ctx)
{
	if (e->mixed || e->size != v->psize || e->n < 2 || !loc_current(e))
		return 0;
	return older(e, ctx);
}

PR_NO_TSAN int stale_pend(int ctx, const void *addr, size_t size)
{
	struct view *v = vw(ctx);

	v->pend = addr;
	v->psize = (uint8_t)size;
	v->chosen = 0;
	/* Entries never move or go within a run: found once, kept. */
	v->pend_e = loc_find(addr, 0);
	v->pend_c = loc_created;
	/* stale_count(ctx, addr), knowing what it would look up. */
	if (ctx >= STALE_CPUS || !addr || !v->pend_e)
		return 0;
	return count_at(v->pend_e, v, ctx);
}

PR_NO_TSAN int stale_count(int ctx, const void *addr)
{
	const struct view *v;
	struct loc *e;

	if (ctx < 0 || ctx >= STALE_CPUS || !addr)
		return 0;
	v = vr(ctx);
	if (v->pend != addr)
		return 0;
	if (!(e = v->pend_e)) {
		/* Not tracked when announced: is it now? */
		if (v->pend_c == loc_created || !(e = loc_find(addr, 0)))
			return 0;
	}
	return count_at(e, v, ctx);
}

PR_NO_TSAN void stale_chosen(int ctx, int k)
{
	struct view *v = vw(ctx);

	/* @at matters only with a choice (stale_load tests @chosen first). */
	v->chosen = (int8_t)k;
	if (k)
		v->at = pr_step();
}

/* Report reading value @k of @e (k >= 1). */
PR_NO_TSAN static void log_old(const struct loc *e, int ctx, int k)
{
	struct pr_mem_event ev = {
		.kind = PR_ME_OLD, .ctx = e->wctx[k - 1], .reader = ctx,
		.addr = e->addr, .size = e->size, .val = e->val[k - 1],
		.seen = e->val[k], .store_step = e->wstep[k - 1],
		.step = pr_step(),
	};

	mem_log(&ev);
}


/* The bumps @v's floor came from, as an observer reports them. */
PR_NO_TSAN static const struct pr_tickset *floor_from(const struct view *v)
{
	static const struct pr_tickset every = {
		.w[PR_TICKS_ALL / 64 - 1] = (uint64_t)1 << 63,
	};

	return pr_effects_run ? &v->floor_s : &every;
}

/*
 * A load of @ctx is performed.  Reading its own newest store -- from
 * its buffer (@forwarded) or, flushed, from memory -- changes no view:
 * LKMM orders nothing by a read from the CPU's own write (rfi), and so
 * the two orders of the load and that store's flush reach one state,
 * which dpor relies on (dependence.c, rule 6: they commute).  Where the
 * flush would leave the location untracked (or did), the load reports a
 * read of the bytes, which keeps it ordered with the flush.
 */
PR_NO_TSAN void stale_load(int ctx, const void *addr, size_t size, void *out,
			   int order, int forwarded)
{
	struct view *v = vw(ctx);
	int k = v->chosen && v->at == pr_step() && v->pend == addr
		? v->chosen : 0;
	int known = v->pend == addr;	/* looked up at stale_pend */
	struct loc *e;
	uint32_t t, from;

	e = known && v->pend_e ? v->pend_e : NULL;
	known = known && (e || v->pend_c == loc_created);
	v->chosen = 0;
	v->pend = NULL;
	v->pend_e = NULL;
	v->last_old = k > 0;
	/*
	 * Its own store: the value may carry a dependency on what the CPU
	 * read before (r1 = y; z = r1; r2 = z; *r2): count everything it
	 * read -- stronger than the one dependency, never weaker.
	 */
	v->last_t = v->vread;
	if (pr_effects_run)
		v->last_s = v->vread_s;
	if (forwarded) {
		/* Only dpor reads it: no table probe when effects are off. */
		if (pr_effects_on && !loc_tracked_after_write(addr, size))
			pr_effect(addr, size, PR_EFF_READ);
		return;
	}
	if (!e && !known && loc_trackable(size))
		e = loc_find(addr, 0);
	/* Its own newest store, flushed: as if forwarded. */
	if (e && e->size == size && !e->mixed && !k && e->wctx[0] == ctx &&
	    loc_current(e))
		return;
	pr_effect(addr, size, PR_EFF_READ);
	if (!e || e->size != size || e->mixed) {
		/* Untracked: setup's value, unless unseen writes happened. */
		if (e || loc_overflow)
			pr_effect(&now_t, sizeof(now_t), PR_EFF_READ);
		t = e || loc_overflow ? now_t : 0;
		from = t ? TICK_EVERY : PR_TICK_NONE;
	} else {
		if (!loc_current(e))
			restart(e);
		/* Older values against a floor: it sees the ticks' order. */
		if (e->n > 1 && vr(ctx)->floor)
			pr_effect_observe(addr, size, floor_from(v));
		if (k && k > older(e, ctx))
			k = 0;	/* cannot happen: the decision saw this state */
		if (k) {
			v->old = 1;
			mem_copy(out, &e->val[k], size);
			if (mem_logging())
				log_old(e, ctx, k);
		}
		t = e->t[k];
		from = e->tno[k];
		if (ctx < STALE_CPUS)
			e->coh[ctx] = MAX(e->coh[ctx], t);
	}
	v->last_t = t;
	v->vread = MAX(v->vread, t);
	if (order == PR_MO_ACQUIRE)
		v->floor = MAX(v->floor, t);
	if (pr_effects_run) {
		set_one(&v->last_s, from);
		pr_tickset_add(&v->vread_s, from);
		if (order == PR_MO_ACQUIRE && pr_stale_sources != 1)
			pr_tickset_add(&v->floor_s, from);
	}
}

PR_NO_TSAN void stale_fence(int ctx, int fence)
{
	struct view *v = vw(ctx);

	if (fence == PR_MF_RMB)
		v->floor = MAX(v->floor, v->vread);
	else if (fence == PR_MF_MB)
		v->floor = MAX(v->floor, MAX(v->vread, v->lastw));
	if (pr_effects_run && (fence == PR_MF_RMB || fence == PR_MF_MB)) {
		pr_tickset_or(&v->floor_s, &v->vread_s);
		if (fence == PR_MF_MB)
			pr_tickset_or(&v->floor_s, &v->lastw_s);
	}
}

PR_NO_TSAN void stale_lock(int ctx, const void *lock)
{
	struct lockview *l = lock_find(lock, 0);
	struct view *v = vw(ctx);

	if (loc_overflow) {		/* a lost view: everything until now */
		pr_effect(&now_t, sizeof(now_t), PR_EFF_READ);
		v->floor = MAX(v->floor, now_t);
		if (pr_effects_run)
			pr_tickset_add(&v->floor_s, TICK_EVERY);
	} else if (l) {
		v->floor = MAX(v->floor, l->view);
		if (pr_effects_run)
			pr_tickset_or(&v->floor_s, &l->view_s);
	}
}

PR_NO_TSAN void stale_unlock(int ctx, const void *lock)
{
	struct lockview *l = lock_find(lock, 1);
	const struct view *v = vr(ctx);

	if (!l)
		return;
	l->view = MAX(l->view, MAX(v->floor, MAX(v->vread, v->lastw)));
	if (pr_effects_run) {
		pr_tickset_or(&l->view_s, &v->floor_s);
		pr_tickset_or(&l->view_s, &v->vread_s);
		pr_tickset_or(&l->view_s, &v->lastw_s);
	}
}

/*
 * The RCU guarantee, as floors.  pagerace's grace period (kernel/rcu.c)
 * waits for the read-side sections that began before it began (its
 * synchronize_rcu or call_rcu), so a section that begins later must read
 * nothing older than that beginning (stale_gp_start, stale_rcu): what
 * the updater unpublished before it is invisible to readers the period
 * does not wait for.  The waiter itself, when the period ends, reads
 * nothing older than now (synchronize_rcu is a full barrier, and the
 * readers' stores are drained): stale_grace.  A CPU outside any section
 * gets nothing, as in LKMM.
 */
PR_NO_TSAN void stale_gp_start(void)
{
	uint32_t n = tick(NULL, 0);

	pr_effect(&gp, sizeof(gp), PR_EFF_WRITE);
	gp = now_t;
	if (pr_effects_run)
		set_one(&gp_s, n);
}

PR_NO_TSAN void stale_grace(int ctx)
{
	uint32_t n = tick(NULL, 0);

	if (ctx >= 0) {
		struct view *v = vw(ctx);

		v->floor = MAX(v->floor, now_t);
		if (pr_effects_run)
			pr_tickset_add(&v->floor_s, n);
	}
}

PR_NO_TSAN void stale_rcu(int ctx, int enter)
{
	struct view *v = vw(ctx);

	pr_effect(&gp, sizeof(gp), PR_EFF_READ);
	if (enter && v->rcu++ == 0) {
		v->floor = MAX(v->floor, gp);
		if (pr_effects_run)
			pr_tickset_or(&v->floor_s, &gp_s);
	} else if (!enter && v->rcu > 0) {
		v->rcu--;
	}
}

PR_NO_TSAN uint32_t stale_last_time(int ctx)
{
	return vr(ctx)->last_t;
}

PR_NO_TSAN void stale_dep(int ctx, uint32_t t)
{
	struct view *v = vw(ctx);

	v->floor = MAX(v->floor, t);
	if (!pr_effects_run)
		return;
	/* Whatever @t was the maximum of, its bumps took times <= t. */
	if (dated_now || loc_overflow || t >= NTIME)
		pr_tickset_add(&v->floor_s, TICK_EVERY);
	for (uint32_t u = 1; u <= t && u < NTIME; u++)
		pr_tickset_add(&v->floor_s, tick_at[u]);
}

PR_NO_TSAN int stale_last_old(int ctx)
{
	return vr(ctx)->last_old;
}

/*
 * A wait loop is about to give up the CPU until memory changes (a spin
 * or a sleep): if this CPU read an older value since its last wait, the
 * condition it saw may be long gone for everyone else -- nothing would
 * ever wake it.  Real CPUs see every store eventually (and a sleeper's
 * prepare_to_wait orders its test after it is queued): its floor goes to
 * now and the caller re-reads instead of waiting (returns 1).
 */
PR_NO_TSAN int stale_relax(int ctx)
{
	struct view *v = vw(ctx);

	uint32_t n;

	if (!v->old)
		return 0;
	n = tick(NULL, 0);
	v->old = 0;
	v->floor = MAX(v->floor, now_t);
	if (pr_effects_run)
		pr_tickset_add(&v->floor_s, n);
	return 1;
}
