/* SPDX-License-Identifier: MIT */
/*
 * flush.c - the scheduler's side of the store buffers (runtime/memhook.h):
 * which buffered stores may reach memory now, flushing one, the stale
 * reads' choices, the per-run reset, and selecting a model.  buffer.c is
 * the CPUs' side (loads, stores, barriers); memory.h states what each
 * model allows and forbids.
 *
 * Everything here runs on the single scheduler thread, inside a
 * scheduling decision or between runs.
 */
#include "memory/internal.h"
#include "memory/memory.h"
#include "runtime/context.h"
#include "runtime/effects.h"
#include "runtime/memhook.h"
#include "runtime/tsan.h"
#include "runtime/yield.h"
#include "runtime/choice.h"

#include <string.h>

/*
 * Store @s leaves @b (still in @used), whose mask is valid.  A store's
 * answer depends on its older stores only, so the older ones' answers
 * stay; a newer one's changes only if @s overlaps it (coherence) or @s
 * was the oldest (the group to match, a release's "no older store").
 * Keep the mask minus @s unless so; else recompute at the next decision
 * (hook_flushable).
 */
static void keep_mask(struct buffer *b, int s)
{
	const struct entry *e = &b->e[s];
	unsigned others = b->used & ~(1u << s);
	int older = 0;

	/* tso: no walk, its one flushable store is the oldest. */
	for (unsigned m = mem_model == PR_MEM_TSO ? 0 : others; m;
	     m &= m - 1) {
		const struct entry *o = &b->e[__builtin_ctz(m)];

		if (o->seq < e->seq) {
			older = 1;
		} else if (mem_overlap(o->addr, o->size, e->addr, e->size)) {
			b->fvalid = 0;
			return;
		}
	}
	if (others && !older)
		b->fvalid = 0;
	else
		b->fmask &= ~(1u << s);
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
	struct buffer *b = &mem_buf[ctx];
	struct entry *e = &b->e[s];

	if (mem_stale)
		stale_write(ctx, e->addr, e->size, &e->val, e->step);
	mem_copy(e->addr, &e->val, e->size);
	pr_effect(e->addr, e->size, PR_EFF_WRITE);
	/* Its slot only: flushes of other slots may commute (rule 6). */
	pr_effect(e, sizeof(*e), PR_EFF_WRITE);
	if (mem_logger)
		mem_log_ev(PR_ME_FLUSH, ctx, -1, e, 0);
	if (b->fvalid)
		keep_mask(b, s);
	b->used &= ~(1u << s);
	e->size = 0;
	if (!b->used) {
		mem_busy &= ~((uint64_t)1 << ctx);
		for (uint64_t m = mem_drainers; m; m &= m - 1) {
			int d = __builtin_ctzll(m);

			if (!(mem_drain_cpus[d] & mem_busy))
				pr_wake(&mem_drain_cpus[d]);
		}
	}
	/* Memory changed: spin-waiters may see it now (yield.h). */
	pr_hot.store_epoch++;
	if (pr_hot.spinners)
		pr_wake_spinners();
	if (b->waiting && mem_drained_upto(b, b->wait_seq))
		pr_wake(b);
	pr_sched_mem_changed();
}

PR_NO_TSAN static uint64_t hook_busy(void)
{
	return mem_busy;
}

/* tso: the oldest store only. */
static unsigned flushable_tso(const struct buffer *b)
{
	int s = mem_oldest(b);

	return s < 0 ? 0 : 1u << s;
}

/*
 * weak: which stores may reach memory now: one whose every older store of
 * its CPU (1) is to another location (coherence) and (2) is not separated
 * from it by an smp_wmb, smp_mb or release; a release store only when no
 * older store is left.  Every slot in one pass.  A CPU's n-th store sits
 * in slot n mod PR_MEM_SLOTS until flushed (pr_mem_store waits for the
 * slot), so its buffered stores are among the last PR_MEM_SLOTS it made
 * and walking those sequence numbers visits them oldest first: the
 * used mask rotated so that bit i is sequence number k0 + i, walked bit
 * by bit (empty slots cost nothing).  Groups only grow with the
 * sequence, so "every older store is in my group" is "the oldest one
 * is", and the first store of a newer group ends the walk.
 */
static unsigned flushable_weak(const struct buffer *b)
{
	int older[PR_MEM_SLOTS], n = 0;
	uint32_t g0 = 0;
	unsigned m = 0, full = (1u << PR_MEM_SLOTS) - 1, r;
	uint64_t k0 = b->seq > PR_MEM_SLOTS ? b->seq - PR_MEM_SLOTS : 0;
	int sh = (int)(k0 % PR_MEM_SLOTS);

	/* Bit i of @r: the slot of sequence number k0 + i is taken. */
	r = ((b->used >> sh) | (b->used << (PR_MEM_SLOTS - sh))) & full;
	for (; r; r &= r - 1) {
		uint64_t k = k0 + (unsigned)__builtin_ctz(r);
		int s = (int)(k % PR_MEM_SLOTS), ok = 1;
		const struct entry *e = &b->e[s];

		if (e->seq != k)
			continue;
		if (!n)
			g0 = e->group;
		else if (e->group != g0)
			break;	/* groups only grow: no newer store either */
		else if (e->release)
			ok = 0;
		for (int i = 0; ok && i < n; i++)
			if (mem_overlap(b->e[older[i]].addr, b->e[older[i]].size,
				    e->addr, e->size))
				ok = 0;
		if (ok)
			m |= 1u << s;
		older[n++] = s;
	}
	return m;
}

/*
 * Store @s is about to join @b as its newest (not yet in @used): may it
 * be flushed?  flushable_tso's and flushable_weak's rule for that one
 * store; the others' answers do not change with a newer store.  Groups
 * only grow with the sequence: "the oldest store is in my group" is
 * "every other store is".
 */
unsigned mem_flushable_new(const struct buffer *b, int s)
{
	const struct entry *e = &b->e[s];

	if (!b->used)
		return 1u << s;
	if (mem_model == PR_MEM_TSO || e->release)
		return 0;
	for (unsigned m = b->used; m; m &= m - 1) {
		const struct entry *o = &b->e[__builtin_ctz(m)];

		if (o->group != e->group ||
		    mem_overlap(o->addr, o->size, e->addr, e->size))
			return 0;
	}
	return 1u << s;
}

/*
 * Asked at every decision for every nonempty buffer; the answer changes
 * only with a store or a flush (it depends on the entries alone), so it
 * is kept: a store adds its own bit (mem_flushable_new), a flush drops
 * its bit when the others' answers stay (keep_mask), and otherwise the
 * next decision recomputes here.
 */
PR_NO_TSAN static unsigned hook_flushable(int ctx)
{
	struct buffer *b = &mem_buf[ctx];
	unsigned m = 0;

	if (b->fvalid)
		return b->fmask;
	m = mem_model == PR_MEM_TSO ? flushable_tso(b) : flushable_weak(b);
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
	const struct buffer *b = &mem_buf[ctx];

	if (ctx < 0 || ctx >= PR_MAX_CTX || slot < 0 || slot >= PR_MEM_SLOTS ||
	    !(b->used & (1u << slot)))
		return -1;
	*obj = b->e[slot].addr;
	*size = b->e[slot].size;
	*order = b->e[slot].group * 2u +
		 (b->e[slot].release || mem_model == PR_MEM_TSO);
	return hook_flushable(ctx) & (1u << slot) ? 0 : -1;
}

PR_NO_TSAN static void hook_reset(void)
{
	/*
	 * Only the buffers this run used: a slot is taken only while its
	 * bit in @used is set, so a buffer is empty with used, seq and group
	 * zero whatever its entries still hold.
	 */
	for (uint64_t m = mem_touched; m; m &= m - 1) {
		struct buffer *b = &mem_buf[__builtin_ctzll(m)];

		b->used = 0;
		b->fvalid = 0;
		b->group = 0;
		b->seq = 0;
		b->waiting = 0;
	}
	mem_touched = 0;
	mem_busy = 0;
	mem_readers = 0;
	mem_waiters = 0;
	mem_drainers = 0;
	if (mem_stale)
		stale_reset();
}

PR_NO_TSAN static int hook_waiting(void)
{
	return mem_waiters;
}

PR_NO_TSAN static int hook_reads(int ctx, const struct pr_site *site,
				 const void *obj)
{
	int n;

	/*
	 * Most loads have no older value to offer: that test first.  Its
	 * own stores that overlap the load's bytes, not 8 bytes from @obj:
	 * dpor holds the load independent of the flush of an own store to
	 * the next field, which then must not change the load's choices
	 * (tests/memory_dpor's 3-variable programs, two ints side by side,
	 * check that no final state of dfs is lost).
	 */
	if (!(n = stale_count(ctx, obj)) ||
	    mem_own_store(ctx, obj, site && site->size ? site->size : 8))
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
	mem_model = m;
	pr_mem_on = m != PR_MEM_SC;
	mem_stale = m == PR_MEM_WEAK;
	hook_reset();
	pr_set_mem_hooks(!pr_mem_on ? NULL : mem_stale ? &weak_hooks : &hooks);
}

PR_NO_TSAN int pr_mem_model(void)
{
	return mem_model;
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
