/* SPDX-License-Identifier: MIT */
/*
 * run.c - a run: contexts and injections created by setup, the
 * accessors a program uses, and pr_run_once, which executes one run under a
 * strategy; plus the setup of free-running stress iterations.
 */
#include "runtime/sched_state.h"
#include "runtime/memhook.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct pr_site sched_site_start = { "<start>", __FILE__, 0, PR_K_YIELD, NULL, 0, 0 };
const struct pr_site sched_site_exit = { "<exit>", __FILE__, 0, PR_K_YIELD, NULL, 0, 0 };
const struct pr_site sched_site_iret = { "<iret>", __FILE__, 0, PR_K_YIELD, NULL, 0, 0 };

struct sched_rt sched_rt = { .cur = -1 };

static int ctx_slots = 1;	/* 1 + the highest context id ever spawned */

PR_NO_TSAN int pr_ctx_slots(void)
{
	return pr_crash_count() ? PR_MAX_CTX : ctx_slots;
}

/* ---- contexts and events --------------------------------------------- */

/*
 * Setup names the same contexts the same way every run: compare, and
 * copy only when the name changed (the first run, or a program that
 * renames), so a run makes no string copies.  A copy pads with NULs, so
 * the buffer's bytes are a function of the name alone.
 */
PR_NO_TSAN static void set_name(char *dst, size_t len, const char *src)
{
	if (strncmp(dst, src, len - 1) == 0)
		return;
	strncpy(dst, src, len - 1);
	dst[len - 1] = '\0';
}

PR_NO_TSAN int pr_spawn(const char *name, pr_fn fn, void *arg, unsigned int flags)
{
	struct pr_ctx *c;

	if (!sched_rt.in_run || sched_rt.cur >= 0 || sched_rt.nctx >= PR_MAX_CTX)
		pr_fail("setup", NULL, "pr_spawn(%s): only from setup, at most %d contexts",
			name, PR_MAX_CTX);
	c = &sched_rt.ctx[sched_rt.nctx];
	if (sched_rt.nctx >= sched_rt.fibers_ready) {
		if (pr_fiber_alloc(&c->fiber, sched_rt.opts->stack_size) != 0)
			pr_fail("setup", NULL, "cannot map a stack for %s", name);
		sched_rt.fibers_ready = sched_rt.nctx + 1;
	} else if (PR_TSAN_ENABLED) {
		pr_fiber_tsan_renew(&c->fiber);
	}
	if (PR_TSAN_ENABLED && sched_rt.opts->tsan_blind)
		pr_fiber_tsan_blind(&c->fiber);
	set_name(c->name, sizeof(c->name), name);
	if (sched_rt.nctx >= ctx_slots)
		ctx_slots = sched_rt.nctx + 1;
	if (PR_TSAN_ENABLED)	/* the plain build's are no-ops: no calls */
		pr_fiber_tsan_name(&c->fiber, c->name);
	c->fn = fn;
	c->arg = arg;
	c->flags = flags;
	/*
	 * sched_set_state(nctx, CTX_RUNNABLE), less its clearing of the
	 * other masks: pr_run_once emptied them and no context has this id
	 * yet in this run.
	 */
	sched_rt.runnable |= (uint64_t)1 << sched_rt.nctx;
	c->state = CTX_RUNNABLE;
	sched_rt.cs_stale = 1;
	c->wait_obj = NULL;
	c->lock_wait = 0;
	c->lock_held = NULL;
	c->spin_epoch = 0;
	c->iter_epoch = UINT64_MAX;
	c->events_off = 0;
	c->in_event = 0;
	c->pending_event = -1;
	c->started = 0;
	c->at = &sched_site_start;
	c->at_obj = NULL;
	return sched_rt.nctx++;
}

PR_NO_TSAN int pr_inject(int ctx, const char *name, pr_fn fn, void *arg, int count)
{
	struct pr_injection *e;

	if (!sched_rt.in_run || sched_rt.cur >= 0 || sched_rt.ninj >= PR_MAX_INJECT ||
	    ctx < 0 || ctx >= sched_rt.nctx)
		pr_fail("setup", NULL, "pr_inject(%s): only from setup, on an existing context",
			name);
	e = &sched_rt.inj[sched_rt.ninj];
	e->ctx = ctx;
	set_name(e->name, sizeof(e->name), name);
	e->fn = fn;
	e->arg = arg;
	e->remaining = count;
	sched_choices_stale();
	return sched_rt.ninj++;
}

PR_NO_TSAN int pr_self(void)
{
	return pr_stress_on ? pr_stress_self : sched_rt.cur;
}

/* memhook.h: pr_self() for the memory models, without the calls. */
const int *const pr_mem_cur = &sched_rt.cur;
const int *const pr_mem_stress = &pr_stress_on;

PR_NO_TSAN int pr_in_event(void)
{
	int self = pr_self();

	return self >= 0 && sched_rt.ctx[self].in_event > 0;
}

PR_NO_TSAN int pr_nr_ctx(void)
{
	return sched_rt.nctx;
}

PR_NO_TSAN int pr_nr_inject(void)
{
	return sched_rt.ninj;
}

PR_NO_TSAN const char *pr_ctx_name(int ctx)
{
	if (ctx < 0 || ctx >= sched_rt.nctx)
		return "-";
	return sched_rt.ctx[ctx].name;
}

PR_NO_TSAN const char *pr_inject_name(int inj)
{
	if (inj < 0 || inj >= sched_rt.ninj)
		return "-";
	return sched_rt.inj[inj].name;
}

PR_NO_TSAN void pr_set_step_observer(pr_step_observer fn)
{
	sched_rt.observer = fn;
}

PR_NO_TSAN void pr_set_decision_observer(pr_decision_observer fn)
{
	sched_rt.decision_observer = fn;
}

/* ---- the run --------------------------------------------------------- */

PR_NO_TSAN void pr_run_options_default(struct pr_run_options *o)
{
	o->max_steps = 100000;
	o->stack_size = 256 * 1024;
	o->tsan_blind = 0;
}

PR_NO_TSAN int pr_run_once(const struct pr_program *prog, struct pr_strategy *strat,
		const struct pr_run_options *opts, uint64_t seed, uint64_t run,
		struct pr_schedule *rec, struct pr_run_result *res)
{
	memset(res, 0, sizeof(*res));
	sched_rt.nctx = 0;
	sched_rt.ninj = 0;
	sched_rt.runnable = sched_rt.spinning = sched_rt.blocked = 0;
	sched_rt.lock_sleepers = 0;
	sched_rt.cs_stale = 1;
	memset(sched_rt.cs_pos, -1, sizeof(sched_rt.cs_pos));
	sched_rt.cur = -1;
	sched_rt.prog = prog;
	sched_rt.strat = strat;
	sched_rt.opts = opts;
	sched_rt.max_steps = opts->max_steps;
	sched_rt.rec = rec;
	sched_rt.res = res;
	sched_rt.steps = 0;
	sched_rt.changed = 0;
	sched_rt.seg_code = -1;
	sched_rt.seg_steps = 0;
	sched_rt.preemptions = 0;
	strat->error[0] = '\0';
	pr_hot.budget = sched_rt.budget_start = PR_BUDGET_UNBOUNDED;
	pr_hot.store_epoch = 0;
	pr_hot.spinners = 0;
	if (rec)
		rec->n = 0;
	pr_objname_reset();
	pr_crash_install();
	pr_tsan_reset();
	pr_tsan_new_history();
	pr_fiber_tsan_main(&sched_rt.main);
	sched_rt.in_run = 1;

	/* No mask saved: a crash unblocks its own signal (crash.c). */
	if (sched_rt.mem) {
		sched_rt.mem->reset();
		pr_rng_seed(&sched_rt.mem_rng, seed, run, 0x6d656d);
		sched_rt.mem_left = 0;
		sched_rt.read_forced = 0;
		/*
		 * Stale reads (weak) for strategies blind to them: a bug that
		 * needs several loads to read the newest value is rarer when
		 * each may read an older one, one that needs a single stale
		 * read rarer when none does -- so the odds vary by run: never
		 * in half the runs, 1/8 or 1/2 in the others.
		 */
		{
			static const int odds[4] = { 0, 0, 8, 2 };

			sched_rt.stale_odds = sched_rt.mem->reads ?
				odds[pr_rng_below(&sched_rt.mem_rng, 4)] : 0;
		}
	}
	if (sigsetjmp(sched_rt.env, 0) == 0) {
		strat->ops->begin_run(strat, seed, run);
		prog->setup(prog->arg);
		if (pr_tsan_pending())
			sched_tsan_fail();
		pr_tsan_release(&sched_run_sync);
		pr_hot.budget = sched_rt.budget_start = 0;
		sched_decide(PR_R_START);
		/* Back on the main stack: every context is done or stuck. */
		pr_tsan_acquire(&sched_end_sync);
		pr_hot.budget = sched_rt.budget_start = PR_BUDGET_UNBOUNDED;
		if (!res->failed && !res->diverged && !res->abandoned &&
		    prog->finish)
			prog->finish(prog->arg);
		if (pr_tsan_pending())
			sched_tsan_fail();
	}
	pr_tsan_acquire(&sched_end_sync);
	pr_tsan_reset();
	sched_rt.cur = -1;
	pr_hot.budget = sched_rt.budget_start = PR_BUDGET_UNBOUNDED;
	sched_rt.in_run = 0;
	res->steps = sched_rt.steps;
	res->preemptions = sched_rt.preemptions;
	strat->foreign = 0;
	strat->ops->end_run(strat, sched_rt.steps);
	if (strat->foreign) {
		/* Another shard's run: it reports it. */
		res->failed = 0;
		res->abandoned = 1;
		memset(&res->verdict, 0, sizeof(res->verdict));
	}
	return res->failed || res->diverged;
}

PR_NO_TSAN void pr_run_before_fork(void)
{
	if (!PR_TSAN_ENABLED)
		return;
	for (int i = 0; i < sched_rt.fibers_ready; i++)
		pr_fiber_tsan_drop(&sched_rt.ctx[i].fiber);
	pr_tsan_drop_hidden();
}

/* ---- stress mode (stress.c) ------------------------------------------ */

/* Setup for a stress iteration: contexts and injections, no scheduling. */
PR_NO_TSAN void pr_sched_stress_setup(const struct pr_program *prog,
				      const struct pr_run_options *opts,
				      struct pr_run_result *res)
{
	memset(res, 0, sizeof(*res));
	sched_rt.nctx = 0;
	sched_rt.ninj = 0;
	sched_rt.runnable = sched_rt.spinning = sched_rt.blocked = 0;
	sched_rt.lock_sleepers = 0;
	sched_rt.cs_stale = 1;
	sched_rt.cur = -1;
	sched_rt.prog = prog;
	sched_rt.opts = opts;
	sched_rt.res = res;
	pr_objname_reset();
	sched_rt.in_run = 1;
	prog->setup(prog->arg);
	sched_rt.in_run = 0;
}

PR_NO_TSAN void pr_sched_ctx_body(int ctx, pr_fn *fn, void **arg,
				  unsigned int *flags)
{
	*fn = sched_rt.ctx[ctx].fn;
	*arg = sched_rt.ctx[ctx].arg;
	*flags = sched_rt.ctx[ctx].flags;
}

/*
 * Stress: deliver one of @ctx's injections now, on its own thread, if its
 * interrupts are enabled and it is not already in a handler; @pick
 * chooses among the eligible ones.  Returns 1 if a handler ran.
 */
PR_NO_TSAN int pr_sched_stress_event(int ctx, unsigned int pick)
{
	struct pr_ctx *c = &sched_rt.ctx[ctx];
	int eligible[PR_MAX_INJECT], n = 0;
	struct pr_injection *e;

	if (c->events_off || c->in_event)
		return 0;
	for (int i = 0; i < sched_rt.ninj; i++)
		if (sched_rt.inj[i].ctx == ctx && sched_rt.inj[i].remaining > 0)
			eligible[n++] = i;
	if (!n)
		return 0;
	e = &sched_rt.inj[eligible[pick % (unsigned int)n]];
	e->remaining--;
	c->in_event++;
	c->events_off++;
	e->fn(e->arg);
	c->events_off--;
	c->in_event--;
	return 1;
}

/* Stress: does @ctx still have interrupts to take? */
PR_NO_TSAN int pr_sched_ctx_has_events(int ctx)
{
	for (int i = 0; i < sched_rt.ninj; i++)
		if (sched_rt.inj[i].ctx == ctx && sched_rt.inj[i].remaining > 0)
			return 1;
	return 0;
}

/* Stress: reset the per-context interrupt state a failed body left. */
PR_NO_TSAN void pr_sched_ctx_reset(int ctx)
{
	sched_rt.ctx[ctx].events_off = 0;
	sched_rt.ctx[ctx].in_event = 0;
}
