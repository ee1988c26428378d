/* SPDX-License-Identifier: MIT */
/*
 * strategy_samplers.c - the portfolio's run-by-run assignment, and what
 * sets pos and surw apart from a random walk.
 *
 * Portfolio: run r is run r of member r mod 3 (surw, pos, pct), whoever
 * asks and in whatever order: for every program, seed
 * and run, the portfolio's schedule is the member's own schedule of that
 * (seed, run), run by a separate instance.  So --jobs and --shard, which
 * split runs by index, give one process's results.
 *
 * pos and surw: each is a function of (seed, run) (runtime_determinism.c
 * checks byte-identical traces) and different from the others: over the
 * same seeds and runs their schedules differ from random's and from each
 * other's, so a registry that handed out the same sampler under three
 * names would fail here.
 */
#include "programs/programs.h"
#include "runtime/run.h"
#include "strategy/strategy.h"
#include "tap.h"

#include <string.h>

#define NSEEDS	10
#define NRUNS	24

static struct pr_run_options ropts;

static struct pr_strategy *make(const char *name, int depth,
				const struct pr_program *prog, uint64_t seed)
{
	struct pr_strategy_params p = { .pct_depth = depth };
	struct pr_strategy *s;

	p.pct_steps = pr_pct_calibrate(prog, &ropts, seed);
	s = pr_strategy_create(name, &p);
	if (!s || pr_strategy_calibrate(s, prog, &ropts, seed))
		bail_out("cannot create a strategy");
	return s;
}

static int same_schedule(const struct pr_schedule *a,
			 const struct pr_schedule *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->seg[i].code != b->seg[i].code ||
		    a->seg[i].steps != b->seg[i].steps ||
		    a->seg[i].end != b->seg[i].end)
			return 0;
	return 1;
}

static void check_portfolio(const char *name)
{
	const struct pr_program *prog = pr_program_find(name);
	static const char *const want[] = { "surw", "pos", "pct" };
	struct pr_schedule a, b;
	struct pr_run_result ra, rb;
	int bad = 0, total = 0, names = 1;

	if (!ok(prog != NULL, "program %s exists", name))
		return;
	for (uint64_t r = 0; r < 6; r++)
		names &= !strcmp(pr_portfolio_member(r), want[r % 3]);
	ok(names, "portfolio: runs 0..5 go to surw, pos, pct, surw, pos, pct");
	pr_schedule_init(&a);
	pr_schedule_init(&b);
	for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
		struct pr_strategy *port = make("portfolio", 3, prog, seed);
		struct pr_strategy *m[3];

		for (int i = 0; i < 3; i++)
			m[i] = make(want[i], 3, prog, seed);
		/* Descending, so no run leans on the one before it. */
		for (uint64_t r = NRUNS; r-- > 0;) {
			pr_run_once(prog, port, &ropts, seed, r, &a, &ra);
			pr_run_once(prog, m[r % 3], &ropts, seed, r, &b, &rb);
			total++;
			if (!same_schedule(&a, &b) || ra.failed != rb.failed ||
			    ra.steps != rb.steps) {
				if (!bad++)
					diag("%s seed %llu run %llu: portfolio and %s differ",
					     name, (unsigned long long)seed,
					     (unsigned long long)r, want[r % 3]);
			}
		}
		port->ops->destroy(port);
		for (int i = 0; i < 3; i++)
			m[i]->ops->destroy(m[i]);
	}
	ok(bad == 0, "%s: portfolio run r is member r mod 3's run r (%d runs, %d differ)",
	   name, total, bad);
	pr_schedule_free(&a);
	pr_schedule_free(&b);
}

/* Over the same (seed, run) pairs, how many schedules of @x and @y differ. */
static int differ(const char *prog_name, const char *x, const char *y)
{
	const struct pr_program *prog = pr_program_find(prog_name);
	struct pr_schedule a, b;
	struct pr_run_result ra, rb;
	int n = 0;

	pr_schedule_init(&a);
	pr_schedule_init(&b);
	for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
		struct pr_strategy *sx = make(x, 3, prog, seed);
		struct pr_strategy *sy = make(y, 3, prog, seed);

		for (uint64_t r = 0; r < NRUNS; r++) {
			pr_run_once(prog, sx, &ropts, seed, r, &a, &ra);
			pr_run_once(prog, sy, &ropts, seed, r, &b, &rb);
			n += !same_schedule(&a, &b);
		}
		sx->ops->destroy(sx);
		sy->ops->destroy(sy);
	}
	pr_schedule_free(&a);
	pr_schedule_free(&b);
	return n;
}

int main(void)
{
	static const char *const progs[] = {
		"message-passing", "null-deref", "spin-livelock", "lost-update",
	};
	static const char *const pairs[][2] = {
		{ "pos", "random" }, { "surw", "random" }, { "pos", "surw" },
		{ "pos", "pct" }, { "surw", "pct" },
	};

	pr_run_options_default(&ropts);
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		check_portfolio(progs[i]);
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		int n = differ("message-passing", pairs[i][0], pairs[i][1]);

		ok(n >= NSEEDS * NRUNS / 4,
		   "message-passing: %s and %s give different schedules (%d of %d runs)",
		   pairs[i][0], pairs[i][1], n, NSEEDS * NRUNS);
	}
	return done_testing();
}
