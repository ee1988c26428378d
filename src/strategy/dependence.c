/* SPDX-License-Identifier: MIT */
/*
 * dependence.c - when two steps of different processes do not commute.
 *
 * Partial-order reduction explores one execution per class of executions
 * that differ only in the order of adjacent independent steps, so this
 * relation must never call two steps independent when swapping them could
 * change what happens.  It may call them dependent when they are not: that
 * costs executions, never soundness.  Two steps are dependent when:
 *
 *  1. memory: their accesses -- the one announced by the yield point the
 *     step starts at (loads and acquires read; stores, RMWs, lock and
 *     unlock attempts and releases write; fences and plain yield points
 *     touch nothing under sequential consistency) and the effects reported
 *     on the way (effects.h: RCU reader state and callback queue, slab
 *     free lists and freed objects) -- overlap in bytes, and one of them
 *     writes.  Loads commute with loads; different objects commute.  An
 *     RMW that wrote nothing (a failed cmpxchg: pr_rmw_unwritten) was a
 *     load: swapping it with another load of the word changes neither,
 *     and it still depends on every write of the word -- which decides
 *     whether it fails.  Under sc, an atomic bit operation or test_bit
 *     on a constant bit (its site's bit1: set_bit(PG_locked, ...)) and a
 *     detector's read of one bit (pr_effect_bit) touch that bit alone:
 *     two of them on different bits of one word commute -- each reads
 *     and changes only its own bit, and the word ends the same in either
 *     order.  A plain load or store of the word, a non-atomic bit
 *     operation (a load and a store of the whole word) and a bit number
 *     known only at run time (radix-tree tags) stay whole-word.  Under
 *     tso and weak they do too: a buffered store holds the whole word.
 *  2. spin-waits: a step that resumes a spin-wait (it starts at a
 *     cpu_relax yield point) depends on every step that writes: the
 *     runtime keeps a spinner disabled until some store, so a write can
 *     enable it.
 *  3. sleeping waits: a step that resumes a sleeping wait on queue W
 *     depends on every step that wakes W (pr_wake); so does the step at
 *     whose end its context went to sleep on W: a wake-up before it is
 *     lost, one after it wakes the context (a waiter that tests its
 *     condition, reaches another yield point, then sleeps: without this
 *     dpor took the two orders for one and missed the lost wake-up that
 *     full dfs finds, tests/strategy_dpor.c).
 *  4. interrupts: delivering an injection to context c depends on every
 *     step that runs on c (its own code and its handlers) and on every
 *     other delivery to c: it changes what c does next.  Disabling and
 *     enabling interrupts are steps of c, so they are covered.  Except
 *     c's first step, which only reaches c's first yield point: a handler
 *     delivered before it or after it finds the same state.
 *  5. overflow: a step whose effects overflowed the record depends on
 *     everything.
 *  6. memory models (tso, weak): a flush -- writing a buffered store of
 *     CPU c to memory -- is a write of the store's bytes (rule 1: it
 *     depends on every access and flush of those bytes, including the
 *     store step that buffered it, which is how a store comes to happen
 *     before its flush), wakes spin-waiters (rule 2), depends on the
 *     other flushes of c's buffer that could wait for it or it for them
 *     -- another smp_wmb group, a release, every store under tso, the
 *     same bytes (flushing one makes the other eligible; two stores of
 *     one group to different bytes are both eligible or not whatever the
 *     other does, and commute) -- and on deliveries to c (rule 4, as any
 *     step of c).  A flush reports writing its own slot, which a context
 *     waiting for the buffer (or for that slot, to store) reads.  A
 *     context that must wait for flushes (smp_mb, a full atomic, a lock
 *     or unlock, a load overlapping a store in part, a grace period's
 *     end) stops at a wait point whatever the buffers hold, and sleeps
 *     there until the flush that completes what it waits for
 *     (PR_WAIT_AT): the step that reaches the wait point reads nothing
 *     of the buffers, the step after it reads the buffers it waited
 *     for, so it depends on their flushes and their stores by rule 1.
 *     A store step that goes to the buffer (PR_EFF_BUFFERED) writes its
 *     slot, not the location's bytes: it commutes with every access of
 *     other CPUs to the location, and depends on its own flush, on a
 *     wait for its buffer and on a later store's check of that slot.
 *     A load of c commutes with the flush of c's own store to the same
 *     bytes (own_load_flush): either order reads c's newest store;
 *     towards other CPUs' writes the load keeps a memory read's
 *     dependences.  Under weak a load whose views the order would
 *     change reports a read of the bytes (memory/stale.c) and stays
 *     ordered with the flush.  Under weak a write to memory also
 *     ticks the memory clock (effects.h, PR_EFF_TICK): two ticks do
 *     not conflict here; their order matters only to a later load that
 *     observes it, and dpor_reverse.c reverses them there, the pairs of
 *     which one wrote the observed location and both happen before the
 *     observer (sleep sets keep them dependent on the branches such a
 *     reversal starts: pr_dependent_sleep).
 * Steps of the same process are ordered by the process itself and never
 * asked about.  tests/strategy_dpor.c checks each rule.
 */
#include "strategy/dependence.h"
#include "runtime/tsan.h"
#include "runtime/memhook.h"

#include <stddef.h>
#include <string.h>

PR_NO_TSAN void pr_event_begin(struct pr_event *e, int code)
{
	struct pr_pending p;

	/* eff[] is read below neff only (pr_event_finish fills it). */
	memset(e, 0, offsetof(struct pr_event, eff));
	e->proc = (uint8_t)pr_event_proc(code);
	pr_sched_pending(code, &p);
	e->ctx = (uint8_t)p.ctx;
	if (p.flush) {
		e->kind = PR_K_STORE;
		e->obj = p.obj;
		e->size = p.size;
		e->order = p.order;
		e->flags |= PR_EV_WROTE | PR_EV_WDATA | PR_EV_FLUSH;
		return;
	}
	if (code >= PR_CHOICE_EVENT && code < PR_CHOICE_MEM) {
		e->kind = PR_EV_FIRE;
		return;
	}
	if (!p.site) {
		e->kind = PR_EV_START;
		return;
	}
	e->kind = p.site->kind;
	e->obj = p.obj;
	e->size = p.site->size;
	if (!pr_get_mem_hooks())	/* tso, weak: buffers hold whole words */
		e->bit1 = p.site->bit1;
	if (PR_KIND_WRITES(e->kind))
		e->flags |= PR_EV_WROTE | PR_EV_WDATA;
}

PR_NO_TSAN void pr_event_stopped(struct pr_event *e)
{
	struct pr_pending p;

	if (e->proc >= PR_MAX_CTX || pr_sched_pending(e->proc, &p) < 0)
		return;
	if (!p.runnable && p.site && p.site->kind == PR_K_BLOCK) {
		e->flags |= PR_EV_BLOCKS;
		e->wq = p.obj;
	}
}

static int access_of(const struct pr_event *e, struct pr_effect *a);

/* The lines of [obj, obj + size) as bits (dependence.h, rsig). */
PR_NO_TSAN static uint64_t lines_of(const struct pr_effect *r)
{
	uintptr_t first = (uintptr_t)r->obj >> 6;
	uintptr_t last = ((uintptr_t)r->obj + (r->size ? r->size : 1) - 1) >> 6;
	uint64_t sig = 0;

	if (last - first >= 8)
		return ~(uint64_t)0;
	for (uintptr_t l = first; l <= last; l++)
		sig |= (uint64_t)1 << ((l * 0x9e3779b97f4a7c15ull) >> 58);
	return sig;
}

/* Fill rsig and wsig from the access and the effects (the step is over). */
PR_NO_TSAN void pr_event_sign(struct pr_event *e)
{
	struct pr_effect a;

	e->rsig = e->psig = e->tsig = 0;
	if (access_of(e, &a)) {
		if (a.kind == PR_EFF_WRITE)
			e->psig |= lines_of(&a);
		else
			e->rsig |= lines_of(&a);
	}
	for (int i = 0; i < e->neff; i++) {
		if (e->eff[i].kind == PR_EFF_WRITE)
			e->psig |= lines_of(&e->eff[i]);
		else if (e->eff[i].kind == PR_EFF_TICK)
			e->tsig |= lines_of(&e->eff[i]);
		else if (e->eff[i].kind == PR_EFF_READ)
			e->rsig |= lines_of(&e->eff[i]);
	}
	e->wsig = e->psig | e->tsig;
	e->flags |= PR_EV_SIG;
}

PR_NO_TSAN void pr_event_finish(struct pr_event *e)
{
	int n = pr_effects_take(e->eff);
	struct pr_effect_time tm;

	if (pr_effects_take_time(&tm)) {
		e->flags |= PR_EV_OBS;
		e->oobj = tm.oobj;
		e->osize = tm.oobj ? (uint32_t)tm.osize : PR_EV_MANY;
		e->from = tm.from;
	}
	e->tobj = tm.tobj;
	e->tsize = tm.tobj ? (uint32_t)tm.tsize :
		   tm.tsize ? PR_EV_MANY : 0;
	e->tfirst = tm.tfirst;
	e->tlast = tm.tlast;
	if (n < 0) {
		e->flags |= PR_EV_ALL;
		e->neff = 0;
		return;
	}
	/*
	 * A failed cmpxchg (pr_rmw_unwritten on the announced object): its
	 * access was a load.  PR_EV_WROTE stays: the runtime woke spinners
	 * at its yield point all the same (rule 2, dpor_race.c's spin
	 * analysis).
	 */
	for (int i = 0; i < n; i++) {
		if (e->eff[i].kind == PR_EFF_TICK)
			e->flags |= PR_EV_TICK;
		if (e->eff[i].kind == PR_EFF_BUFFERED) {
			/*
			 * A buffered store: it wrote its slot (an effect of
			 * its own), not memory.  PR_EV_WROTE stays, as for a
			 * failed cmpxchg: its yield point woke spinners.
			 */
			if ((e->kind == PR_K_STORE || e->kind == PR_K_RELEASE) &&
			    e->eff[i].obj == e->obj) {
				e->kind = PR_K_YIELD;
				e->flags &= (uint8_t)~PR_EV_WDATA;
			}
		} else if (e->eff[i].kind != PR_EFF_UNWRITTEN) {
			continue;
		} else if (e->kind == PR_K_RMW && e->eff[i].obj == e->obj) {
			e->kind = PR_K_LOAD;
			e->flags &= (uint8_t)~PR_EV_WDATA;
		}
		e->eff[i--] = e->eff[--n];
	}
	e->neff = (uint8_t)n;
	pr_event_sign(e);
}

PR_NO_TSAN static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xbf58476d1ce4e5b9ull;
}

PR_NO_TSAN uint64_t pr_event_footprint(const struct pr_event *e)
{
	uint64_t h = 0;

	h = mix(h, (uint64_t)e->kind << 32 | e->bit1 << 16 |
		   (e->flags & ~(PR_EV_OBS | PR_EV_SIG)) << 8 | e->neff);
	h = mix(h, (uintptr_t)e->obj);
	h = mix(h, (uint64_t)e->size << 32 | e->tsize);
	h = mix(h, (uintptr_t)e->wq);
	h = mix(h, (uintptr_t)e->tobj);
	for (int i = 0; i < e->neff; i++) {
		h = mix(h, (uintptr_t)e->eff[i].obj);
		h = mix(h, (uint64_t)e->eff[i].size << 16 |
			   (uint64_t)e->eff[i].kind << 8 |
			   (uint64_t)(unsigned)e->eff[i].bit1);
	}
	return h;
}

/* The announced access as a byte range; 0 if it touches nothing. */
PR_NO_TSAN static int access_of(const struct pr_event *e, struct pr_effect *a)
{
	switch (e->kind) {
	case PR_K_LOAD:
	case PR_K_ACQUIRE:
		a->kind = PR_EFF_READ;
		break;
	case PR_K_STORE:
	case PR_K_RMW:
	case PR_K_LOCK:
	case PR_K_UNLOCK:
	case PR_K_RELEASE:
		a->kind = PR_EFF_WRITE;
		break;
	default:
		return 0;
	}
	if (!e->obj)
		return 0;
	a->obj = e->obj;
	a->size = e->size;
	a->bit1 = e->bit1;
	return 1;
}

PR_NO_TSAN static int overlap(const struct pr_effect *x, const struct pr_effect *y)
{
	uintptr_t xa = (uintptr_t)x->obj, ya = (uintptr_t)y->obj;
	uintptr_t xe = xa + (x->size ? x->size : 1);
	uintptr_t ye = ya + (y->size ? y->size : 1);

	return xa < ye && ya < xe;
}

PR_NO_TSAN int pr_flush_of(const struct pr_event *s, const struct pr_event *f)
{
	if (!(f->flags & PR_EV_FLUSH) || (s->flags & PR_EV_FLUSH) ||
	    s->ctx != f->ctx || (s->flags & PR_EV_ALL) || (f->flags & PR_EV_ALL))
		return 0;
	/* The slot: a range both write that is not the location's bytes. */
	for (int i = 0; i < s->neff; i++) {
		const struct pr_effect *x = &s->eff[i];

		if (x->kind != PR_EFF_WRITE || x->obj == f->obj)
			continue;
		for (int k = 0; k < f->neff; k++)
			if (f->eff[k].kind == PR_EFF_WRITE &&
			    f->eff[k].obj == x->obj && f->eff[k].size == x->size)
				return 1;
	}
	return 0;
}

PR_NO_TSAN static int conflict(const struct pr_effect *x, const struct pr_effect *y)
{
	if (x->kind == PR_EFF_WAKE || y->kind == PR_EFF_WAKE)
		return 0;
	if (x->kind == PR_EFF_READ && y->kind == PR_EFF_READ)
		return 0;
	/* Two bumps of a counter: their order is an observer's business. */
	if (x->kind == PR_EFF_TICK && y->kind == PR_EFF_TICK)
		return 0;
	/* Different bits of one word, each read or changed alone (rule 1). */
	if (pr_bits_apart(x->obj, x->size, (unsigned)x->bit1, y->obj, y->size,
			  (unsigned)y->bit1))
		return 0;
	return overlap(x, y);
}

PR_NO_TSAN static int wakes(const struct pr_event *e, const void *waitq)
{
	for (int i = 0; i < e->neff; i++)
		if (e->eff[i].kind == PR_EFF_WAKE && e->eff[i].obj == waitq)
			return 1;
	return 0;
}

PR_NO_TSAN int pr_event_wakes(const struct pr_event *e, const void *waitq)
{
	return wakes(e, waitq);
}

/*
 * Is @l a load of the CPU whose buffer @f flushes?  Then the two commute
 * as far as the bytes they share go (rule 6).  The flushed store was
 * made before the load (a store made after it comes after it: its store
 * step writes the slot the flush writes), so either order reads the
 * CPU's newest store of the bytes: from the buffer before the flush,
 * from memory just after it.  Towards every other write of those bytes
 * the load keeps the dependences of a read of memory, buffered or not:
 * so the two orders are one class that depends on the same steps, and a
 * write of another CPU that could come between the flush and the load is
 * a race of the load's own.  Under weak, a load whose views the order
 * would change reports a read of the bytes as an effect (memory/stale.c),
 * which this does not excuse.
 */
PR_NO_TSAN static int own_load_flush(const struct pr_event *f,
				     const struct pr_event *l)
{
	return (f->flags & PR_EV_FLUSH) && !(l->flags & PR_EV_FLUSH) &&
	       f->ctx == l->ctx &&
	       (l->kind == PR_K_LOAD || l->kind == PR_K_ACQUIRE);
}

/* Rules 2-4, asked one way round. */
PR_NO_TSAN static int enables_or_redirects(const struct pr_event *a,
					   const struct pr_event *b)
{
	if (a->kind == PR_K_SPIN && (b->flags & PR_EV_WROTE))
		return 1;
	if (a->kind == PR_K_BLOCK && wakes(b, a->obj))
		return 1;
	if ((a->flags & PR_EV_BLOCKS) && wakes(b, a->wq))
		return 1;
	if (a->kind == PR_EV_FIRE && b->ctx == a->ctx && b->kind != PR_EV_START)
		return 1;
	return 0;
}

/* The i-th byte range @e touches: its access first, then its effects. */
PR_NO_TSAN static const struct pr_effect *range_at(const struct pr_event *e,
						   const struct pr_effect *acc,
						   int has_acc, int i)
{
	if (has_acc)
		return i == 0 ? acc : &e->eff[i - 1];
	return &e->eff[i];
}

/*
 * Do the signatures of @a and @b meet, with two bumps of one counter
 * apart (psig, tsig)?  Under weak every write to memory bumps the
 * memory time: in wsig any two of them meet on its line.
 */
PR_NO_TSAN static inline int lines_meet(const struct pr_event *a,
					const struct pr_event *b)
{
	return ((a->psig & (b->rsig | b->wsig)) |
		(b->psig & (a->rsig | a->tsig)) |
		(a->tsig & b->rsig) | (b->tsig & a->rsig)) != 0;
}

/* The lines of @b a range of @kind may conflict with (conflict()). */
PR_NO_TSAN static inline uint64_t lines_against(int kind,
					       const struct pr_event *b)
{
	switch (kind) {
	case PR_EFF_WRITE:
		return b->rsig | b->wsig;
	case PR_EFF_READ:
		return b->wsig;
	case PR_EFF_TICK:
		return b->rsig | b->psig;
	default:
		return 0;	/* a wake-up conflicts with nothing */
	}
}

PR_NO_TSAN int pr_dependent_slow(const struct pr_event *a,
				 const struct pr_event *b)
{
	struct pr_effect aa, ab;
	int ha, hb, na, nb;

	/* Rule 1 alone (pr_event_sig_only): skip rules 2-6's checks. */
	if (pr_event_sig_only(a) && pr_event_sig_only(b) && !lines_meet(a, b))
		return 0;
	if ((a->flags | b->flags) & PR_EV_ALL)
		return 1;
	/* Rule 6: one buffer, unless neither can wait for the other. */
	if ((a->flags & b->flags & PR_EV_FLUSH) && a->ctx == b->ctx &&
	    (a->order != b->order || (a->order & 1)))
		return 1;
	if (enables_or_redirects(a, b) || enables_or_redirects(b, a))
		return 1;
	/* Rule 1 on the lines first (dependence.h, rsig). */
	if ((a->flags & b->flags & PR_EV_SIG) && !lines_meet(a, b))
		return 0;
	ha = access_of(a, &aa);
	hb = access_of(b, &ab);
	/* Rule 6: a CPU's own load commutes with its own flush. */
	if (own_load_flush(a, b))
		hb = 0;
	else if (own_load_flush(b, a))
		ha = 0;
	na = ha + a->neff;
	nb = hb + b->neff;
	for (int i = 0; i < na; i++) {
		const struct pr_effect *x = range_at(a, &aa, ha, i);

		/* Only a range whose lines meet what b may conflict with. */
		if ((a->flags & b->flags & PR_EV_SIG) &&
		    !(lines_of(x) & lines_against(x->kind, b)))
			continue;
		for (int j = 0; j < nb; j++)
			if (conflict(x, range_at(b, &ab, hb, j)))
				return 1;
	}
	return 0;
}
