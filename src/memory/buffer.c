/* SPDX-License-Identifier: MIT */
/*
 * buffer.c - per-CPU store buffers for the tso and weak models (memory.h
 * states what each model allows and forbids).
 *
 * A buffer has PR_MEM_SLOTS slots.  A CPU's n-th store goes into slot
 * n mod PR_MEM_SLOTS and keeps it until flushed, so a flush choice's code
 * names the same store however the other slots were emptied (the
 * schedule, dfs and dpor rely on it); if the slot is still taken by the
 * store PR_MEM_SLOTS older, that one is flushed first, with the stores
 * it must follow.  Program order among buffered stores is their sequence
 * number; @group counts the CPU's store-ordering barriers (smp_wmb).
 *
 * Everything here runs on the single scheduler thread, between yield
 * points of the running context or inside a scheduling decision.
 */
#include "memory/memory.h"
#include "memory/internal.h"
#include "runtime/context.h"
#include "runtime/effects.h"
#include "runtime/memhook.h"
#include "runtime/tsan.h"
#include "runtime/yield.h"
#include "strategy/strategy.h"

#include <string.h>

struct entry {
	void *addr;
	uint8_t size;		/* 1, 2, 4 or 8; 0: slot free */
	uint8_t release;	/* waits for every older store */
	uint32_t group;		/* the CPU's smp_wmb count at the store */
	uint64_t seq;		/* program order */
	uint64_t val;		/* the bytes, as memcpy'd */
	uint64_t step;		/* pr_step() at the store, for reports */
};

struct buffer {
	struct entry e[PR_MEM_SLOTS];
	unsigned used;		/* slot mask */
	unsigned fmask;		/* flushable slots, when fvalid */
	int fvalid;		/* fmask is up to date (a store or flush clears) */
	uint32_t group;
	uint64_t seq;		/* stores made so far */
};

int pr_mem_on;
static int model;
static int stale;		/* weak: loads may read older values */
static struct buffer buf[PR_MAX_CTX];
static uint64_t busy;		/* contexts with a nonempty buffer */
static uint64_t touched;	/* buffers used this run (hook_reset) */
static int waiters;		/* contexts sleeping in wait_upto, drain_all */
static pr_mem_logger logger;

static void log_ev(int kind, int ctx, int reader, const struct entry *e,
		   uint64_t seen)
{
	struct pr_mem_event ev = {
		.kind = kind, .ctx = ctx, .reader = reader, .addr = e->addr,
		.size = e->size, .val = e->val, .seen = seen,
		.store_step = e->step, .step = pr_step(),
	};

	logger(&ev);
}

PR_NO_TSAN void mem_log(const struct pr_mem_event *ev)
{
	if (logger)
		logger(ev);
}

PR_NO_TSAN int mem_logging(void)
{
	return logger != NULL;
}

/* Do [a, a+n) and [b, b+m) overlap? */
static int overlap(const void *a, size_t n, const void *b, size_t m)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x < y + m && y < x + n;
}

/* The slot of @b's oldest store, or -1. */
static int oldest(const struct buffer *b)
{
	int best = -1;

	for (int s = 0; s < PR_MEM_SLOTS; s++)
		if ((b->used & (1u << s)) &&
		    (best < 0 || b->e[s].seq < b->e[best].seq))
			best = s;
	return best;
}

/*
 * A flush: always a scheduling decision of its own (hook_flush), never
 * done inside a context's step, so that dfs and dpor see every store's
 * way to memory as a step they can order.  Its effects for dpor
 * (effects.h): the bytes written, the buffer's state (which a draining
 * context reads, wait_upto) and the wake-up of a context waiting for it.
 */
static void write_out(int ctx, int s)
{
	struct buffer *b = &buf[ctx];
	struct entry *e = &b->e[s];

	if (stale)
		stale_write(ctx, e->addr, e->size, &e->val, e->step);
	mem_copy(e->addr, &e->val, e->size);
	pr_effect(e->addr, e->size, PR_EFF_WRITE);
	/* Its slot only: flushes of other slots may commute (rule 6). */
	pr_effect(e, sizeof(*e), PR_EFF_WRITE);
	if (logger)
		log_ev(PR_ME_FLUSH, ctx, -1, e, 0);
	b->used &= ~(1u << s);
	b->fvalid = 0;
	e->size = 0;
	if (!b->used)
		busy &= ~((uint64_t)1 << ctx);
	/* Memory changed: spin-waiters may see it now (yield.h). */
	pr_hot.store_epoch++;
	if (pr_hot.spinners)
		pr_wake_spinners();
	pr_wake(b);
	pr_wake(&busy);
	pr_sched_mem_changed();
}

/*
 * Wait until the running context @ctx's stores up to sequence @seq have
 * reached memory (every one with @seq UINT64_MAX): a barrier, a full
 * atomic, a lock, a store whose slot is still taken.  The context sleeps
 * (PR_BLOCK) while its buffer holds them and the scheduler flushes them
 * -- in any order the model allows, each a decision -- then wakes it.
 * The check reads the buffer's state, so dpor orders it against flushes.
 */
static void wait_upto(int ctx, uint64_t seq)
{
	struct buffer *b = &buf[ctx];
	int s;

	for (;;) {
		pr_effect(b, sizeof(*b), PR_EFF_READ);
		if ((s = oldest(b)) < 0 || b->e[s].seq > seq)
			return;
		waiters++;
		PR_BLOCK(b, "store-buffer");
		waiters--;
	}
}

static void wait_drained(int ctx)
{
	wait_upto(ctx, UINT64_MAX);
}

/* The running context, or -1 when memory is accessed directly. */
static int self(void)
{
	return pr_stress_mode() ? -1 : pr_self();
}

/* ---- the kernel primitives' side ---------------------------------------- */

PR_NO_TSAN void pr_mem_load(const void *addr, size_t size, void *out,
			    int order)
{
	int c = self(), hit = -1;
	struct buffer *b;

	if (c < 0) {
		mem_copy(out, addr, size);
		return;
	}
	b = &buf[c];
	for (unsigned m = b->used; m; m &= m - 1) {
		int s = __builtin_ctz(m);

		if (overlap(b->e[s].addr, b->e[s].size, addr, size) &&
		    (hit < 0 || b->e[s].seq > b->e[hit].seq))
			hit = s;
	}
	if (hit >= 0 && b->e[hit].addr == addr && b->e[hit].size == size) {
		mem_copy(out, &b->e[hit].val, size);
		if (logger)
			log_ev(PR_ME_FORWARD, c, c, &b->e[hit], b->e[hit].val);
		if (stale)
			stale_load(c, addr, size, out, order, 1);
		return;
	}
	if (hit >= 0)	/* only if a handler stored since pr_mem_prepare */
		wait_upto(c, b->e[hit].seq);
	mem_copy(out, addr, size);
	if (stale)
		stale_load(c, addr, size, out, order, 0);
	if (logger && size <= 8) {
		/* Another CPU's newer store still buffered: say so. */
		uint64_t seen = 0;

		mem_copy(&seen, out, size);
		for (int o = 0; o < PR_MAX_CTX; o++) {
			const struct buffer *ob = &buf[o];

			if (o == c || !(busy & ((uint64_t)1 << o)))
				continue;
			for (int s = 0; s < PR_MEM_SLOTS; s++)
				if ((ob->used & (1u << s)) &&
				    overlap(ob->e[s].addr, ob->e[s].size,
					    addr, size))
					log_ev(PR_ME_STALE, o, c, &ob->e[s], seen);
		}
	}
}

PR_NO_TSAN void pr_mem_store(void *addr, size_t size, const void *val,
			     int order)
{
	int c = self(), s;
	struct buffer *b;
	struct entry *e;

	if (c < 0) {
		mem_copy(addr, val, size);
		return;
	}
	b = &buf[c];
	/* Waits here only if a handler stored since pr_mem_prepare. */
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		wait_drained(c);
		if (stale)
			stale_write(c, addr, size, val, pr_step());
		mem_copy(addr, val, size);
		return;
	}
	s = (int)(b->seq % PR_MEM_SLOTS);
	if (b->used & (1u << s))
		wait_upto(c, b->e[s].seq);
	e = &b->e[s];
	e->addr = addr;
	e->size = (uint8_t)size;
	e->release = order == PR_MO_RELEASE;
	e->group = b->group;
	e->seq = b->seq++;
	e->val = 0;
	mem_copy(&e->val, val, size);
	e->step = pr_step();
	b->used |= 1u << s;
	b->fvalid = 0;
	busy |= (uint64_t)1 << c;
	touched |= (uint64_t)1 << c;
	if (logger)
		log_ev(PR_ME_STORE, c, -1, e, 0);
	pr_sched_mem_changed();
}

/* An RMW that returns no value, under weak: what it must not overtake. */
static void rmw_relaxed(int c, const void *addr, size_t size)
{
	struct buffer *b = &buf[c];
	uint64_t upto = 0;
	int any = 0;

	/* Coherence with its own stores, and any smp_wmb before it. */
	for (int s = 0; s < PR_MEM_SLOTS; s++) {
		const struct entry *e = &b->e[s];

		if (!(b->used & (1u << s)))
			continue;
		if ((overlap(e->addr, e->size, addr, size) ||
		     e->group != b->group) && (!any || e->seq > upto)) {
			upto = e->seq;
			any = 1;
		}
	}
	pr_effect(b, sizeof(*b), PR_EFF_READ);
	if (any)
		wait_upto(c, upto);
}

/* Does @c's buffer hold a store overlapping [addr, addr + size)? */
static int own_store(int c, const void *addr, size_t size)
{
	const struct buffer *b = &buf[c];

	for (unsigned m = b->used; m; m &= m - 1)
		if (overlap(b->e[__builtin_ctz(m)].addr,
			    b->e[__builtin_ctz(m)].size, addr, size))
			return 1;
	return 0;
}

/* The newest of @c's stores overlapping [addr, addr + size) but not it. */
static int partial(int c, const void *addr, size_t size)
{
	const struct buffer *b = &buf[c];
	int hit = -1;

	for (unsigned m = b->used; m; m &= m - 1) {
		int s = __builtin_ctz(m);

		if (overlap(b->e[s].addr, b->e[s].size, addr, size) &&
		    (hit < 0 || b->e[s].seq > b->e[hit].seq))
			hit = s;
	}
	if (hit >= 0 && b->e[hit].addr == addr && b->e[hit].size == size)
		return -1;
	return hit;
}

PR_NO_TSAN void pr_mem_prepare(const void *addr, size_t size, int op)
{
	int c = self(), s;
	struct buffer *b;

	if (c < 0)
		return;
	b = &buf[c];
	switch (op) {
	case PR_MP_LOAD:
		if ((s = partial(c, addr, size)) >= 0)
			wait_upto(c, b->e[s].seq);
		if (stale) {
			/* Older values to read: decide at its yield point. */
			stale_pend(c, addr, size);
			if (stale_count(c, addr) && !own_store(c, addr, size))
				pr_sched_mem_read_point();
		}
		break;
	case PR_MP_STORE:
		if (size != 1 && size != 2 && size != 4 && size != 8) {
			wait_drained(c);
			break;
		}
		s = (int)(b->seq % PR_MEM_SLOTS);
		/* Whether it waits depends on that slot's flush. */
		pr_effect(&b->e[s], sizeof(b->e[s]), PR_EFF_READ);
		if (b->used & (1u << s))
			wait_upto(c, b->e[s].seq);
		break;
	case PR_MP_RMW:
		/* tso's RMWs are locked instructions: full barriers. */
		if (model == PR_MEM_WEAK)
			rmw_relaxed(c, addr, size);
		else
			wait_drained(c);
		break;
	default:
		wait_drained(c);
	}
}

PR_NO_TSAN void pr_mem_fence(int fence)
{
	int c = self();

	if (c < 0)
		return;
	if (fence == PR_MF_MB)
		wait_drained(c);
	else if (fence == PR_MF_WMB) {
		buf[c].group++;
		touched |= (uint64_t)1 << c;
	}
	/* smp_mb, smp_rmb: later loads read no older than earlier ones. */
	if (stale)
		stale_fence(c, fence);
}

PR_NO_TSAN void pr_mem_rmw(const void *addr, size_t size, int full)
{
	int c = self();

	if (stale && c >= 0)
		stale_rmw(c, addr, size, full);
}

PR_NO_TSAN void pr_mem_unlock(const void *lock)
{
	int c = self();

	if (stale && c >= 0)
		stale_unlock(c, lock);
}

PR_NO_TSAN void pr_mem_lock(const void *lock)
{
	int c = self();

	/*
	 * tso: a locked instruction drains.  weak: LKMM's spin_lock is an
	 * ACQUIRE only -- later accesses stay after it (loads are performed
	 * in order, later stores are buffered after the lock's exchange), but
	 * stores made before it may become visible after accesses inside the
	 * critical section (finding F5 needs exactly that: seed 007 sets the
	 * page up before write_lock_irq).  The unlock still drains (release).
	 */
	if (c >= 0 && model == PR_MEM_TSO)
		wait_drained(c);
	/* weak: later loads read no older than the last unlocker had seen. */
	if (c >= 0 && stale)
		stale_lock(c, lock);
}

PR_NO_TSAN void pr_mem_drain_all(void)
{
	if (self() < 0)
		return;
	for (;;) {
		pr_effect(buf, sizeof(buf), PR_EFF_READ);
		if (!busy)
			break;
		waiters++;
		PR_BLOCK(&busy, "store-buffers");
		waiters--;
	}
	if (stale)
		stale_grace(self());
}

PR_NO_TSAN uint32_t pr_mem_last_time(void)
{
	int c = self();

	return stale && c >= 0 ? stale_last_time(c) : 0;
}

PR_NO_TSAN void pr_mem_dep(uint32_t t)
{
	int c = self();

	if (stale && c >= 0 && t)
		stale_dep(c, t);
}

PR_NO_TSAN int pr_mem_last_load_old(void)
{
	int c = self();

	return stale && c >= 0 && stale_last_old(c);
}

PR_NO_TSAN int pr_mem_relax(void)
{
	int c = self();

	return stale && c >= 0 && stale_relax(c);
}

PR_NO_TSAN void pr_mem_gp_start(void)
{
	if (stale)
		stale_gp_start();
}

PR_NO_TSAN void pr_mem_rcu_reader(int enter)
{
	int c = self();

	if (stale && c >= 0)
		stale_rcu(c, enter);
}

PR_NO_TSAN int pr_mem_buffered_in(const void *addr, size_t size, int *ctx,
				   uint64_t *step)
{
	int c = self();

	for (uint64_t m = busy; m; m &= m - 1) {
		int o = __builtin_ctzll(m);
		const struct buffer *b = &buf[o];

		if (o == c)
			continue;
		for (int s = 0; s < PR_MEM_SLOTS; s++)
			if ((b->used & (1u << s)) &&
			    overlap(b->e[s].addr, b->e[s].size, addr, size)) {
				*ctx = o;
				*step = b->e[s].step;
				return 1;
			}
	}
	return 0;
}

PR_NO_TSAN void pr_mem_set_logger(pr_mem_logger fn)
{
	logger = fn;
}

/* ---- the scheduler's side (runtime/memhook.h) --------------------------- */

PR_NO_TSAN static uint64_t hook_busy(void)
{
	return busy;
}

/* tso: the oldest store only. */
static unsigned flushable_tso(const struct buffer *b)
{
	int s = oldest(b);

	return s < 0 ? 0 : 1u << s;
}

/*
 * weak: which stores may reach memory now: one whose every older store of
 * its CPU (1) is to another location (coherence) and (2) is not separated
 * from it by an smp_wmb, smp_mb or release; a release store only when no
 * older store is left.  Every slot in one pass.  A CPU's n-th store sits
 * in slot n mod PR_MEM_SLOTS until flushed (pr_mem_store waits for the
 * slot), so its buffered stores are among the last PR_MEM_SLOTS it made
 * and walking those sequence numbers visits them oldest first.  Groups
 * only grow with the sequence, so "every older store is in my group" is
 * "the oldest one is".
 */
static unsigned flushable_weak(const struct buffer *b)
{
	int older[PR_MEM_SLOTS], n = 0;
	uint32_t g0 = 0;
	unsigned m = 0;

	for (uint64_t k = b->seq > PR_MEM_SLOTS ? b->seq - PR_MEM_SLOTS : 0;
	     k < b->seq; k++) {
		int s = (int)(k % PR_MEM_SLOTS), ok = 1;
		const struct entry *e = &b->e[s];

		if (!(b->used & (1u << s)) || e->seq != k)
			continue;
		if (!n)
			g0 = e->group;
		else if (e->release || e->group != g0)
			ok = 0;
		for (int i = 0; ok && i < n; i++)
			if (overlap(b->e[older[i]].addr, b->e[older[i]].size,
				    e->addr, e->size))
				ok = 0;
		if (ok)
			m |= 1u << s;
		older[n++] = s;
	}
	return m;
}

/*
 * Asked at every decision for every nonempty buffer; the answer changes
 * only with a store or a flush (it depends on the entries alone),
 * so it is kept until then.
 */
PR_NO_TSAN static unsigned hook_flushable(int ctx)
{
	struct buffer *b = &buf[ctx];
	unsigned m = 0;

	if (b->fvalid)
		return b->fmask;
	m = model == PR_MEM_TSO ? flushable_tso(b) : flushable_weak(b);
	b->fmask = m;
	b->fvalid = 1;
	return m;
}

PR_NO_TSAN static void hook_flush(int ctx, int slot)
{
	write_out(ctx, slot);
}

PR_NO_TSAN static int hook_pending(int ctx, int slot, const void **obj,
				   unsigned *size, uint32_t *order)
{
	const struct buffer *b = &buf[ctx];

	if (ctx < 0 || ctx >= PR_MAX_CTX || slot < 0 || slot >= PR_MEM_SLOTS ||
	    !(b->used & (1u << slot)))
		return -1;
	*obj = b->e[slot].addr;
	*size = b->e[slot].size;
	*order = b->e[slot].group * 2u +
		 (b->e[slot].release || model == PR_MEM_TSO);
	return hook_flushable(ctx) & (1u << slot) ? 0 : -1;
}

PR_NO_TSAN static void hook_reset(void)
{
	/*
	 * Only the buffers this run used: a slot is taken only while its
	 * bit in @used is set, so a buffer is empty with used, seq and group
	 * zero whatever its entries still hold.
	 */
	for (uint64_t m = touched; m; m &= m - 1) {
		struct buffer *b = &buf[__builtin_ctzll(m)];

		b->used = 0;
		b->fvalid = 0;
		b->group = 0;
		b->seq = 0;
	}
	touched = 0;
	busy = 0;
	waiters = 0;
	if (stale)
		stale_reset();
}

PR_NO_TSAN static int hook_waiting(void)
{
	return waiters;
}

PR_NO_TSAN static int hook_reads(int ctx, const struct pr_site *site,
				 const void *obj)
{
	int n;

	(void)site;
	/* Most loads have no older value to offer: that test first. */
	if (!(n = stale_count(ctx, obj)) || own_store(ctx, obj, 8))
		return 0;	/* none, or it reads its own store */
	return n;
}

PR_NO_TSAN static void hook_chosen(int ctx, int k)
{
	stale_chosen(ctx, k);
}

static const struct pr_mem_hooks hooks = {
	.busy = hook_busy,
	.flushable = hook_flushable,
	.flush = hook_flush,
	.pending = hook_pending,
	.reset = hook_reset,
	.waiting = hook_waiting,
};

/* weak: the same, and loads that read older values. */
static const struct pr_mem_hooks weak_hooks = {
	.busy = hook_busy,
	.flushable = hook_flushable,
	.flush = hook_flush,
	.pending = hook_pending,
	.reset = hook_reset,
	.waiting = hook_waiting,
	.reads = hook_reads,
	.chosen = hook_chosen,
};

PR_NO_TSAN void pr_mem_select(int m)
{
	model = m;
	pr_mem_on = m != PR_MEM_SC;
	stale = m == PR_MEM_WEAK;
	hook_reset();
	pr_set_mem_hooks(!pr_mem_on ? NULL : stale ? &weak_hooks : &hooks);
}

PR_NO_TSAN int pr_mem_model(void)
{
	return model;
}

PR_NO_TSAN int pr_mem_parse(const char *name)
{
	if (!strcmp(name, "sc"))
		return PR_MEM_SC;
	if (!strcmp(name, "tso"))
		return PR_MEM_TSO;
	if (!strcmp(name, "weak"))
		return PR_MEM_WEAK;
	return -1;
}

PR_NO_TSAN const char *pr_mem_name(int m)
{
	return m == PR_MEM_TSO ? "tso" : m == PR_MEM_WEAK ? "weak" : "sc";
}
