/* SPDX-License-Identifier: MIT */
/*
 * choices.c - the enabled choices at a decision: which contexts can run
 * and which injections can be delivered, in a fixed order (contexts by id,
 * then injections by id) so that an index means the same in every run.
 */
#include "runtime/sched_state.h"
#include "runtime/memhook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(PR_MAX_CTX + PR_MAX_INJECT + PR_MAX_CTX * PR_MEM_SLOTS
	       <= PR_MAX_CHOICES,
	       "a decision's choices fit its array");
_Static_assert(PR_MAX_CTX <= 64 && PR_MAX_CTX <= PR_CHOICE_EVENT,
	       "contexts fit the state masks and the choice codes");

/* ---- decisions ------------------------------------------------------- */

PR_NO_TSAN int sched_ctx_enabled(const struct pr_ctx *c)
{
	return c->state == CTX_RUNNABLE ||
	       (c->state == CTX_SPINNING && c->spin_epoch != pr_hot.store_epoch);
}

PR_NO_TSAN int sched_inj_enabled(const struct pr_injection *e)
{
	const struct pr_ctx *t = &sched_rt.ctx[e->ctx];

	/* A lock's waiter spins with interrupts on (pr_lock_wait). */
	return e->remaining > 0 && !t->events_off && !t->in_event &&
	       (t->state == CTX_RUNNABLE || t->state == CTX_SPINNING ||
		(t->state == CTX_BLOCKED && t->lock_wait));
}

/*
 * A memory model's flushes, after everything else (contexts by id, then
 * slots by number): the buffers' state decides them, and every change to
 * it marks the choices stale (pr_sched_mem_changed).
 */
PR_NO_TSAN static int add_flushes(struct pr_choices *cs, int n)
{
	uint64_t m = sched_rt.mem->busy();
	int n0 = n;

	while (m) {
		int i = __builtin_ctzll(m);
		unsigned slots = sched_rt.mem->flushable(i);

		m &= m - 1;
		for (int s = 0; s < PR_MEM_SLOTS; s++) {
			if (!(slots & (1u << s)))
				continue;
			cs->c[n].ctx = (uint8_t)i;
			cs->c[n].inject = -1;
			cs->c[n].was_spinning = 0;
			cs->c[n].mem = (int8_t)s;
			cs->c[n].read = 0;
			n++;
		}
	}
	cs->mem = n - n0;
	return n;
}

/*
 * Rebuild the array from the masks: enabled contexts by id, then
 * deliverable injections by id -- the order every strategy and every
 * stored trace's choice indices assume.  O(enabled + injections), not
 * O(contexts): a 32-CPU run with most CPUs blocked pays for the few
 * that can run.
 */
PR_NO_TSAN void sched_rebuild_choices(struct pr_choices *cs)
{
	uint64_t m = sched_rt.runnable | sched_rt.spinning;
	int n = 0;

	/*
	 * cs_pos is read for the running context only when it is runnable,
	 * and a runnable context is always in the array: entries of the
	 * others are left as they were (pr_run_once clears them per run).
	 */
	while (m) {
		int i = __builtin_ctzll(m);
		uint64_t bit = m & -m;
		int spin = (sched_rt.spinning & bit) != 0;

		m ^= bit;
		if (spin && sched_rt.ctx[i].spin_epoch == pr_hot.store_epoch)
			continue;
		sched_rt.cs_pos[i] = (int8_t)n;
		cs->c[n].ctx = (uint8_t)i;
		cs->c[n].inject = -1;
		cs->c[n].was_spinning = (uint8_t)spin;
		cs->c[n].mem = -1;
		cs->c[n].read = 0;
		n++;
	}
	for (int i = 0; i < sched_rt.ninj; i++) {
		if (!sched_inj_enabled(&sched_rt.inj[i]))
			continue;
		cs->c[n].ctx = (uint8_t)sched_rt.inj[i].ctx;
		cs->c[n].inject = (int8_t)i;
		cs->c[n].was_spinning = 0;
		cs->c[n].mem = -1;
		cs->c[n].read = 0;
		n++;
	}
	cs->mem = 0;
	cs->reads = 0;
	if (sched_rt.mem)
		n = add_flushes(cs, n);
	cs->n = n;
	/* A spinner's enabledness moves with store_epoch: never cached. */
	sched_rt.cs_stale = sched_rt.spinning != 0;
}

/*
 * Context @i (the running one) finished.  When the array is current
 * (cs_stale clear: no spinner, nothing changed since the last rebuild)
 * and holds contexts and injections only (sc), what a rebuild would
 * give is the same array without @i's entries -- its own and its
 * injections', which a finished context can no longer take -- so they
 * are cut out in place instead (every run ends each context this way,
 * and a rebuild would cost ~60 instructions of a ~3600-instruction run,
 * four times).  Order and positions stay those of a rebuild.
 */
PR_NO_TSAN void sched_ctx_done(int i)
{
	struct pr_choices *cs = &sched_rt.cs;
	int keep = !sched_rt.cs_stale && !sched_rt.mem &&
		   ((sched_rt.runnable >> i) & 1);
	int n, j;

	sched_set_state(i, CTX_DONE);
	if (!keep)
		return;
	n = sched_rt.cs_pos[i];
	for (j = n + 1; j < cs->n; j++) {
		if (cs->c[j].ctx == i)
			continue;
		if (cs->c[j].inject < 0)
			sched_rt.cs_pos[cs->c[j].ctx] = (int8_t)n;
		cs->c[n++] = cs->c[j];
	}
	cs->n = n;
	sched_rt.cs_stale = 0;
}

/* Where context @i stopped: the access its next step makes first. */
PR_NO_TSAN static const struct pr_site *next_access(int i, const void **obj)
{
	const struct pr_ctx *c = &sched_rt.ctx[i];
	const struct pr_site *site = sched_ctx_at(i);

	*obj = i == sched_rt.cur ? pr_hot.obj : c->at_obj;
	if (site == &sched_site_iret) {
		*obj = c->irq_obj;
		site = c->irq_at;
	}
	return site;
}

/*
 * Under weak, the older values each enabled context's next load could
 * return, as choices after the flushes.  Recomputed at every decision
 * (the running context's next access changes without a rebuild); they
 * never enter the cached part of the array.  A full array offers fewer
 * (a stronger model, never a weaker one).
 */
PR_NO_TSAN void sched_add_reads(struct pr_choices *cs)
{
	int n = cs->n - cs->reads, k = n - cs->mem;

	if (!sched_rt.mem->reads)
		return;
	for (int i = 0; i < k; i++) {
		const struct pr_choice *ch = &cs->c[i];
		const struct pr_site *site;
		const void *obj;
		int m;

		if (ch->inject >= 0)
			continue;
		site = next_access(ch->ctx, &obj);
		if (!site || (site->kind != PR_K_LOAD &&
			      site->kind != PR_K_ACQUIRE))
			continue;
		m = sched_rt.mem->reads(ch->ctx, site, obj);
		for (int r = 1; r <= m && n < PR_MAX_CHOICES; r++) {
			cs->c[n].ctx = ch->ctx;
			cs->c[n].inject = -1;
			cs->c[n].was_spinning = 0;
			cs->c[n].mem = -1;
			cs->c[n].read = (int8_t)r;
			n++;
		}
	}
	cs->reads = n - (cs->n - cs->reads);
	cs->n = n;
}

PR_NO_TSAN int pr_sched_pending(int code, struct pr_pending *p)
{
	const struct pr_ctx *c;

	memset(p, 0, sizeof(*p));
	if (code >= PR_CHOICE_READ)	/* a context's step, reading older */
		code = (code - PR_CHOICE_READ) / PR_MEM_READS;
	else if (code >= PR_CHOICE_MEM) {
		unsigned size = 0;

		code -= PR_CHOICE_MEM;
		if (!sched_rt.mem || code / PR_MEM_SLOTS >= sched_rt.nctx)
			return -1;
		p->ctx = code / PR_MEM_SLOTS;
		p->runnable = sched_rt.mem->pending(p->ctx, code % PR_MEM_SLOTS,
						    &p->obj, &size,
						    &p->order) == 0;
		p->size = size;
		p->flush = 1;
		return 0;
	}
	if (code >= PR_CHOICE_EVENT && code < PR_CHOICE_MEM) {
		code -= PR_CHOICE_EVENT;
		if (code >= sched_rt.ninj)
			return -1;
		p->ctx = sched_rt.inj[code].ctx;
		p->runnable = sched_inj_enabled(&sched_rt.inj[code]);
		return 0;
	}
	if (code < 0 || code >= sched_rt.nctx)
		return -1;
	c = &sched_rt.ctx[code];
	p->ctx = code;
	p->runnable = c->state == CTX_RUNNABLE;
	p->site = sched_ctx_at(code);
	p->obj = code == sched_rt.cur ? pr_hot.obj : c->at_obj;
	if (p->site == &sched_site_start) {
		p->site = NULL;		/* not started: no access pending */
		p->obj = NULL;
	} else if (p->site == &sched_site_iret) {
		p->site = c->irq_at;
		p->obj = c->irq_obj;
	}
	return 0;
}

/* ---- memory models ------------------------------------------------------ */

PR_NO_TSAN void pr_set_mem_hooks(const struct pr_mem_hooks *h)
{
	sched_rt.mem = h;
	sched_rt.cs_stale = 1;
}

PR_NO_TSAN const struct pr_mem_hooks *pr_get_mem_hooks(void)
{
	return sched_rt.mem;
}

PR_NO_TSAN void pr_sched_mem_changed(void)
{
	sched_rt.cs_stale = 1;
}

PR_NO_TSAN int sched_stale_coin(void)
{
	return sched_rt.stale_odds &&
	       pr_rng_below(&sched_rt.mem_rng, (uint64_t)sched_rt.stale_odds) == 0;
}

PR_NO_TSAN void pr_sched_mem_read_point(void)
{
	int64_t rest = pr_hot.budget - 1;

	if (sched_rt.cur < 0 || rest <= 0)
		return;		/* a decision there already */
	/*
	 * A blind strategy's grant goes on after it (sched.c, pick); its
	 * coin (run.c: this run's odds) is tossed here, so that a load that
	 * reads the newest value costs no decision.
	 */
	if (!sched_rt.strat->ops->sees_memory) {
		if (!sched_stale_coin())
			return;
		sched_rt.read_forced = 1;
		sched_rt.mem_left += rest;
	}
	sched_rt.budget_start -= rest;
	pr_hot.budget = 1;
}
