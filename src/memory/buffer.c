/* SPDX-License-Identifier: MIT */
/*
 * buffer.c - per-CPU store buffers for the tso and weak models, the
 * CPUs' side: loads, stores, RMWs, barriers and locks (memory.h states
 * what each model allows and forbids; flush.c is the scheduler's side:
 * which stores may be flushed, and flushing them).
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
#include "runtime/choice.h"

#include <string.h>

int pr_mem_on;
int mem_model;
int mem_stale;
struct buffer mem_buf[PR_MAX_CTX];
uint64_t mem_busy;
uint64_t mem_touched;
uint64_t mem_readers;
/* What dpor sees of mem_readers: a byte a CPU (effects only, never set). */
static const char mem_reader_marks[PR_MAX_CTX];
int mem_waiters;
uint64_t mem_drainers;
uint64_t mem_drain_cpus[PR_MAX_CTX];
pr_mem_logger mem_logger;

void mem_log_ev(int kind, int ctx, int reader, const struct entry *e,
		uint64_t seen)
{
	struct pr_mem_event ev = {
		.kind = kind, .ctx = ctx, .reader = reader, .addr = e->addr,
		.size = e->size, .val = e->val, .seen = seen,
		.store_step = e->step, .step = pr_step(),
	};

	mem_logger(&ev);
}

PR_NO_TSAN void mem_log(const struct pr_mem_event *ev)
{
	if (mem_logger)
		mem_logger(ev);
}

PR_NO_TSAN int mem_logging(void)
{
	return mem_logger != NULL;
}

/* The slot of @b's oldest store, or -1. */
int mem_oldest(const struct buffer *b)
{
	int best = -1;

	for (int s = 0; s < PR_MEM_SLOTS; s++)
		if ((b->used & (1u << s)) &&
		    (best < 0 || b->e[s].seq < b->e[best].seq))
			best = s;
	return best;
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
	struct buffer *b = &mem_buf[ctx];

	for (;;) {
		int blocked = !mem_drained_upto(b, seq);

		if (blocked) {
			b->waiting = 1;
			b->wait_seq = seq;
			mem_waiters++;
		}
		PR_WAIT_AT(b, "store-buffer", blocked);
		if (blocked) {
			b->waiting = 0;
			mem_waiters--;
		}
		pr_effect(b, sizeof(*b), PR_EFF_READ);
		if (mem_drained_upto(b, seq))
			return;
	}
}

static void wait_drained(int ctx)
{
	wait_upto(ctx, UINT64_MAX);
}

/*
 * The running context, or -1 when memory is accessed directly: what
 * pr_stress_mode() ? -1 : pr_self() says, without the calls
 * (runtime/memhook.h).
 */
static inline int self(void)
{
	return *pr_mem_stress ? -1 : *pr_mem_cur;
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
	b = &mem_buf[c];
	for (unsigned m = b->used; m; m &= m - 1) {
		int s = __builtin_ctz(m);

		if (mem_overlap(b->e[s].addr, b->e[s].size, addr, size) &&
		    (hit < 0 || b->e[s].seq > b->e[hit].seq))
			hit = s;
	}
	if (hit >= 0 && b->e[hit].addr == addr && b->e[hit].size == size) {
		mem_copy(out, &b->e[hit].val, size);
		if (mem_logger)
			mem_log_ev(PR_ME_FORWARD, c, c, &b->e[hit], b->e[hit].val);
		if (mem_stale)
			stale_load(c, addr, size, out, order, 1);
		return;
	}
	if (hit >= 0)	/* only if a handler stored since pr_mem_prepare */
		wait_upto(c, b->e[hit].seq);
	mem_copy(out, addr, size);
	if (mem_stale)
		stale_load(c, addr, size, out, order, 0);
	if (mem_logger && size <= 8) {
		/* Another CPU's newer store still buffered: say so. */
		uint64_t seen = 0;

		mem_copy(&seen, out, size);
		for (int o = 0; o < PR_MAX_CTX; o++) {
			const struct buffer *ob = &mem_buf[o];

			if (o == c || !(mem_busy & ((uint64_t)1 << o)))
				continue;
			for (int s = 0; s < PR_MEM_SLOTS; s++)
				if ((ob->used & (1u << s)) &&
				    mem_overlap(ob->e[s].addr, ob->e[s].size,
					    addr, size))
					mem_log_ev(PR_ME_STALE, o, c, &ob->e[s], seen);
		}
	}
}

/* @c's buffer is busy again: who waits for it to drain waits on. */
static __attribute__((noinline)) void rewait_drainers(int c)
{
	for (uint64_t m = mem_drainers; m; m &= m - 1) {
		int d = __builtin_ctzll(m);

		if (d != c && (mem_drain_cpus[d] >> c & 1))
			pr_rewait(&mem_drain_cpus[d]);
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
	b = &mem_buf[c];
	/* Waits here only if a handler stored since pr_mem_prepare. */
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		wait_drained(c);
		if (mem_stale)
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
	/* The others' flushability does not change with a newer store. */
	if (b->fvalid)
		b->fmask |= mem_flushable_new(b, s);
	b->used |= 1u << s;
	/* For dpor: the slot changed, not memory (rule 6). */
	pr_effect(addr, size, PR_EFF_BUFFERED);
	pr_effect(e, sizeof(*e), PR_EFF_WRITE);
	if (mem_drainers & ~((uint64_t)1 << c))
		rewait_drainers(c);
	mem_busy |= (uint64_t)1 << c;
	mem_touched |= (uint64_t)1 << c;
	if (mem_logger)
		mem_log_ev(PR_ME_STORE, c, -1, e, 0);
	pr_sched_mem_changed();
}

/* An RMW that returns no value, under weak: what it must not overtake. */
static void rmw_relaxed(int c, const void *addr, size_t size)
{
	struct buffer *b = &mem_buf[c];
	uint64_t upto = 0;
	int any = 0;

	/* Coherence with its own stores, and any smp_wmb before it. */
	for (int s = 0; s < PR_MEM_SLOTS; s++) {
		const struct entry *e = &b->e[s];

		if (!(b->used & (1u << s)))
			continue;
		if ((mem_overlap(e->addr, e->size, addr, size) ||
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
int mem_own_store(int c, const void *addr, size_t size)
{
	const struct buffer *b = &mem_buf[c];

	for (unsigned m = b->used; m; m &= m - 1)
		if (mem_overlap(b->e[__builtin_ctz(m)].addr,
			    b->e[__builtin_ctz(m)].size, addr, size))
			return 1;
	return 0;
}

/*
 * A load's prepare waited for a partly overlapping store of its own: is
 * any store overlapping it left?  Out of the load's straight path.
 */
static __attribute__((noinline)) int wait_partial(int c, uint64_t seq,
						  const void *addr, size_t size)
{
	wait_upto(c, seq);
	return mem_own_store(c, addr, size);
}

/* pr_mem_prepare of a store, an RMW, a drain: out of the loads' way. */
static __attribute__((noinline)) void prepare_other(int c, const void *addr,
						    size_t size, int op)
{
	struct buffer *b = &mem_buf[c];
	int s;

	switch (op) {
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
		if (mem_model == PR_MEM_WEAK)
			rmw_relaxed(c, addr, size);
		else
			wait_drained(c);
		break;
	default:
		wait_drained(c);
	}
}

PR_NO_TSAN void pr_mem_prepare(const void *addr, size_t size, int op)
{
	int c = self(), s = -1, own = 0;
	const struct buffer *b;

	if (c < 0)
		return;
	if (op != PR_MP_LOAD) {
		prepare_other(c, addr, size, op);
		return;
	}
	/*
	 * A load.  One pass: the newest of its stores overlapping the load
	 * (partial, when not exactly it) and whether any does
	 * (mem_own_store).
	 */
	b = &mem_buf[c];
	for (unsigned m = b->used; m; m &= m - 1) {
		int t = __builtin_ctz(m);

		if (mem_overlap(b->e[t].addr, b->e[t].size, addr, size)) {
			own = 1;
			if (s < 0 || b->e[t].seq > b->e[s].seq)
				s = t;
		}
	}
	if (s >= 0 && (b->e[s].addr != addr || b->e[s].size != size))
		own = wait_partial(c, b->e[s].seq, addr, size);
	/* Older values to read: decide at its yield point. */
	if (mem_stale && stale_pend(c, addr, size) && !own)
		pr_sched_mem_read_point();
}

PR_NO_TSAN void pr_mem_fence(int fence)
{
	int c = self();

	if (c < 0)
		return;
	if (fence == PR_MF_MB)
		wait_drained(c);
	else if (fence == PR_MF_WMB) {
		mem_buf[c].group++;
		mem_touched |= (uint64_t)1 << c;
	}
	/* smp_mb, smp_rmb: later loads read no older than earlier ones. */
	if (mem_stale)
		stale_fence(c, fence);
}

PR_NO_TSAN void pr_mem_rmw(const void *addr, size_t size, int full)
{
	int c = self();

	if (mem_stale && c >= 0)
		stale_rmw(c, addr, size, full);
}

PR_NO_TSAN void pr_mem_unlock(const void *lock)
{
	int c = self();

	if (mem_stale && c >= 0)
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
	if (c >= 0 && mem_model == PR_MEM_TSO)
		wait_drained(c);
	/* weak: later loads read no older than the last unlocker had seen. */
	if (c >= 0 && mem_stale)
		stale_lock(c, lock);
}

/* For dpor: the step reads the buffers of @cpus (few: one by one). */
PR_NO_TSAN static void read_buffers(uint64_t cpus)
{
	if (__builtin_popcountll(cpus) > PR_MAX_EFFECTS / 2) {
		pr_effect(mem_buf, sizeof(mem_buf), PR_EFF_READ);
		return;
	}
	for (; cpus; cpus &= cpus - 1)
		pr_effect(&mem_buf[__builtin_ctzll(cpus)], sizeof(mem_buf[0]),
			  PR_EFF_READ);
}

/*
 * Wait until the buffers of @cpus are empty (a grace period's end): as
 * wait_upto, at a wait point whatever the buffers hold, woken only by
 * the flush that empties the last of them (flush.c).  The check after
 * it reads those buffers: it depends on every flush and every buffered
 * store of theirs, which can make it wait again.
 */
PR_NO_TSAN static void drain(uint64_t cpus)
{
	int c = self();

	mem_drain_cpus[c] = cpus;
	for (;;) {
		int blocked = (mem_busy & cpus) != 0;

		/* Woken by the flush that empties the last (flush.c), put
		 * back to sleep by a store into one of them (pr_mem_store). */
		mem_drainers |= (uint64_t)1 << c;
		mem_waiters += blocked;
		PR_WAIT_AT(&mem_drain_cpus[c], "store-buffers", blocked);
		mem_drainers &= ~((uint64_t)1 << c);
		mem_waiters -= blocked;
		read_buffers(cpus);
		if (!(mem_busy & cpus))
			break;
	}
	if (mem_stale)
		stale_grace(c);
}

PR_NO_TSAN void pr_mem_drain_all(void)
{
	if (self() >= 0)
		drain(~(uint64_t)0);
}

/*
 * The readers each waiter's grace period answers for: the CPUs that had
 * begun a read-side section when the period began (pr_mem_gp_start).
 * Written and read by that waiter only, in the same run.
 */
static uint64_t gp_readers[PR_MAX_CTX];

PR_NO_TSAN void pr_mem_drain_readers(void)
{
	int c = self();

	if (c < 0)
		return;
	drain(gp_readers[c] | (uint64_t)1 << c);
}

PR_NO_TSAN uint32_t pr_mem_last_time(void)
{
	int c = self();

	return mem_stale && c >= 0 ? stale_last_time(c) : 0;
}

PR_NO_TSAN void pr_mem_dep(uint32_t t)
{
	int c = self();

	if (mem_stale && c >= 0 && t)
		stale_dep(c, t);
}

PR_NO_TSAN int pr_mem_last_load_old(void)
{
	int c = self();

	return mem_stale && c >= 0 && stale_last_old(c);
}

PR_NO_TSAN int pr_mem_relax(void)
{
	int c = self();

	return mem_stale && c >= 0 && stale_relax(c);
}

PR_NO_TSAN void pr_mem_gp_start(void)
{
	int c = self();

	/*
	 * A section that begins after this has no store the period must
	 * make visible (memory.h, pr_mem_drain_readers): the sections
	 * begun so far are the ones its end drains.
	 */
	if (c >= 0) {
		pr_effect(mem_reader_marks, sizeof(mem_reader_marks),
			  PR_EFF_READ);
		gp_readers[c] = mem_readers;
	}
	if (mem_stale)
		stale_gp_start();
}

PR_NO_TSAN void pr_mem_rcu_reader(int enter)
{
	int c = self();

	if (c < 0)
		return;
	/* A reader now: grace periods drain its buffer (drain_readers). */
	if (enter) {
		/*
		 * For dpor, its own mark: two CPUs becoming readers
		 * commute (the mask's other bits are not theirs to change).
		 */
		pr_effect(&mem_reader_marks[c], 1, PR_EFF_WRITE);
		mem_readers |= (uint64_t)1 << c;
	}
	if (mem_stale)
		stale_rcu(c, enter);
}

PR_NO_TSAN int pr_mem_buffered_in(const void *addr, size_t size, int *ctx,
				   uint64_t *step)
{
	int c = self();

	for (uint64_t m = mem_busy; m; m &= m - 1) {
		int o = __builtin_ctzll(m);
		const struct buffer *b = &mem_buf[o];

		if (o == c)
			continue;
		for (int s = 0; s < PR_MEM_SLOTS; s++)
			if ((b->used & (1u << s)) &&
			    mem_overlap(b->e[s].addr, b->e[s].size, addr, size)) {
				*ctx = o;
				*step = b->e[s].step;
				return 1;
			}
	}
	return 0;
}

PR_NO_TSAN void pr_mem_set_logger(pr_mem_logger fn)
{
	mem_logger = fn;
}

