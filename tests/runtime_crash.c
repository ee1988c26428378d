/* SPDX-License-Identifier: MIT */
/*
 * runtime_crash.c - crash containment.
 *
 * A fault in simulated code is the run's verdict ("crash"), not the end of
 * the process: null-deref's SIGSEGV is found, replays to the same crash at
 * the same step, and exploration goes on afterwards.  A stack overflow in a
 * fiber hits the guard page and is contained the same way, and so are
 * abort() and a failed assert(), again and again in one process.
 */
#undef NDEBUG
#include "programs/programs.h"
#include "runtime/run.h"
#include "strategy/strategy.h"
#include "tap.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static struct pr_run_options ropts;

/* ---- a program that overflows its stack on one schedule --------------- */

static int flag;

static __attribute__((noinline)) int recurse(volatile int depth)
{
	volatile char pad[64];

	pad[0] = (char)depth;
	/* Never true: keeps the recursion unbounded and not a tail call. */
	if (depth < 0)
		return pad[0];
	return recurse(depth + 1) + pad[0];
}

static void setter(void *arg)
{
	(void)arg;
	PR_STORE(&flag, "flag");
	flag = 1;
}

static void checker(void *arg)
{
	(void)arg;
	PR_LOAD(&flag, "flag");
	if (flag)
		flag = recurse(0);	/* only if setter ran first */
	PR_STORE(&flag, "flag");
}

static void overflow_setup(void *arg)
{
	(void)arg;
	flag = 0;
	pr_spawn("setter", setter, NULL, 0);
	pr_spawn("checker", checker, NULL, 0);
}

static const struct pr_program overflow_prog = {
	.name = "stack-overflow", .setup = overflow_setup,
};

/* ---- abort() and assert() in a context -------------------------------- */

static int abort_mode;	/* 0: abort(), 1: assert() */

static void aborter(void *arg)
{
	(void)arg;
	PR_LOAD(&flag, "flag");
	if (abort_mode == 0)
		abort();
	assert(flag == 12345);
}

static void bystander(void *arg)
{
	(void)arg;
	PR_STORE(&flag, "flag");
	flag = 1;
	PR_STORE(&flag, "flag");
}

static void abort_setup(void *arg)
{
	abort_mode = (int)(long)arg;
	flag = 0;
	pr_spawn("bystander", bystander, NULL, 0);
	pr_spawn("aborter", aborter, NULL, 0);
}

static const struct pr_program abort_prog = {
	.name = "abort", .setup = abort_setup, .arg = (void *)0L,
};
static const struct pr_program assert_prog = {
	.name = "assert", .setup = abort_setup, .arg = (void *)1L,
};

/* ---- helpers ---------------------------------------------------------- */

static int64_t find(const struct pr_program *prog, struct pr_strategy *s,
		    uint64_t seed, uint64_t max, struct pr_schedule *rec,
		    struct pr_run_result *res)
{
	for (uint64_t run = 0; run < max; run++)
		if (pr_run_once(prog, s, &ropts, seed, run, rec, res))
			return (int64_t)run;
	return -1;
}

/* Healthy runs after a crash: programs still pass and still fail. */
static void check_goes_on(const char *after)
{
	struct pr_strategy *s = pr_random_create();
	struct pr_run_result res;
	int bad = 0, lost = 0;

	for (uint64_t run = 0; run < 500; run++) {
		bad += pr_run_once(&pr_prog_lost_update_fixed, s, &ropts, 7,
				   run, NULL, &res);
		bad += pr_run_once(&pr_prog_spin_livelock_fixed, s, &ropts, 7,
				   run, NULL, &res);
		lost += pr_run_once(&pr_prog_lost_update, s, &ropts, 7, run,
				    NULL, &res) &&
			!strcmp(res.verdict.kind, "lost-update");
	}
	s->ops->destroy(s);
	ok(bad == 0 && lost > 0,
	   "after %s: 1000 fixed runs pass, lost-update still found (%d times)",
	   after, lost);
}

static void check_crash(const struct pr_program *prog, const char *sig,
			int min_found)
{
	struct pr_strategy *s = pr_random_create(), *r;
	struct pr_schedule rec, rep;
	struct pr_run_result res, rres;
	int64_t run;
	int found = 0, other = 0;

	pr_schedule_init(&rec);
	pr_schedule_init(&rep);
	run = find(prog, s, 1, 2000, &rec, &res);
	if (ok(run >= 0, "%s: a crashing run within 2000", prog->name)) {
		diag("%s: run %lld: %s at step %llu (%s, ctx %d): %s",
		     prog->name, (long long)run, res.verdict.kind,
		     (unsigned long long)res.verdict.step, res.verdict.site,
		     res.verdict.ctx, res.verdict.msg);
		ok(res.failed && !strcmp(res.verdict.kind, "crash") &&
		   strstr(res.verdict.msg, sig) != NULL,
		   "%s: verdict is a crash with %s", prog->name, sig);
		r = pr_replay_create(&rec);
		pr_run_once(prog, r, &ropts, 1, (uint64_t)run, &rep, &rres);
		r->ops->destroy(r);
		ok(!rres.diverged && rres.failed &&
		   !strcmp(rres.verdict.kind, "crash") &&
		   !strcmp(rres.verdict.msg, res.verdict.msg) &&
		   rres.verdict.step == res.verdict.step &&
		   rres.verdict.ctx == res.verdict.ctx &&
		   !strcmp(rres.verdict.site, res.verdict.site) &&
		   rres.steps == res.steps,
		   "%s: replay crashes the same way at step %llu",
		   prog->name, (unsigned long long)rres.verdict.step);
	}
	/* The same program, many more runs: every crash is contained. */
	for (uint64_t i = 0; i < 1000; i++)
		if (pr_run_once(prog, s, &ropts, 2, i, NULL, &res)) {
			if (!strcmp(res.verdict.kind, "crash") &&
			    strstr(res.verdict.msg, sig))
				found++;
			else
				other++;
		}
	ok(found >= min_found && other == 0,
	   "%s: 1000 more runs in the same process, %d contained crashes, %d other failures",
	   prog->name, found, other);
	s->ops->destroy(s);
	pr_schedule_free(&rec);
	pr_schedule_free(&rep);
	check_goes_on(prog->name);
}

int main(void)
{
	pr_run_options_default(&ropts);

	check_crash(&pr_prog_null_deref, "SIGSEGV", 10);
	check_crash(&overflow_prog, "SIGSEGV", 10);
	check_crash(&abort_prog, "SIGABRT", 10);
	check_crash(&assert_prog, "SIGABRT", 10);
	/* And the first one once more, after all the others. */
	check_crash(&pr_prog_null_deref, "SIGSEGV", 10);
	return done_testing();
}
