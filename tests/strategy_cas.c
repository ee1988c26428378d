/* SPDX-License-Identifier: MIT */
/*
 * strategy_cas.c - a failed compare-and-swap is a load (dependence.c,
 * rule 1; runtime/effects.h, pr_rmw_unwritten), checked against full dfs.
 *
 * Generated programs of 2-4 contexts on 2 shared words: loads, stores,
 * a cmpxchg from the value a context last loaded (or from a constant),
 * the kernel's load + cmpxchg increment loop, and wait loops (a context
 * other than cpu0 spins until a word cpu0 stores is nonzero: a failed
 * cmpxchg wakes spinners as any RMW does, which dpor's spin analysis
 * must still see).  For each program, unbounded and with preemption
 * bounds 0-3: dpor reaches every final state dfs reaches, in no more
 * runs.  Beside it, the same programs with the failed RMWs left as
 * writes: the rule must save executions on some and never cost any.
 *
 * Planted: reporting a *successful* cmpxchg as unwritten too (an unsound
 * rule) must make dpor miss a final state dfs reaches on some program --
 * the cross-check above would catch such a bug.
 */
#include "runtime/effects.h"
#include "runtime/run.h"
#include "strategy/strategy.h"
#include "stateset.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#define MAXT	4
#define MAXOP	4
#define NVAR	2

enum { OP_LOAD, OP_STORE, OP_CAS_REG, OP_CAS_CONST, OP_INC_LOOP, OP_WAIT,
       OP_NR };

struct op { int kind, var, val; };

static struct {
	int nt, nops[MAXT];
	struct op op[MAXT][MAXOP];
	int var[NVAR];
	int reg[MAXT][MAXOP + 1];
} g;

/* 0: report failed cmpxchgs; 1: do not (the baseline); 2: planted bug. */
static int mode;

static struct stateset seen;	/* final states of the current search */

/* cmpxchg(v, old, new) at one RMW yield point; returns the old value. */
static int cas(int *v, int old, int nw)
{
	int cur;

	PR_YIELD_POINT_SZ(PR_K_RMW, "x", v, sizeof(*v));
	cur = *v;
	if (cur == old)
		*v = nw;
	if ((cur != old && mode != 1) || (cur == old && mode == 2))
		pr_rmw_unwritten(v);
	return cur;
}

static int load(int *v)
{
	PR_YIELD_POINT_SZ(PR_K_LOAD, "x", v, sizeof(*v));
	return *v;
}

static void body(void *arg)
{
	int t = (int)(intptr_t)arg, last = 0;

	for (int i = 0; i < g.nops[t]; i++) {
		const struct op *o = &g.op[t][i];
		int *v = &g.var[o->var], old;

		switch (o->kind) {
		case OP_LOAD:
			g.reg[t][i] = last = load(v);
			break;
		case OP_STORE:
			PR_YIELD_POINT_SZ(PR_K_STORE, "x", v, sizeof(*v));
			*v = o->val;
			break;
		case OP_CAS_REG:	/* from what this context last saw */
			g.reg[t][i] = cas(v, last, last + o->val) == last;
			break;
		case OP_CAS_CONST:
			g.reg[t][i] = cas(v, o->val - 1, o->val) == o->val - 1;
			break;
		case OP_INC_LOOP:	/* old = *v; while (!cas(v, old, old + 1)) */
			old = load(v);
			for (int tries = 1;; tries++) {
				int cur = cas(v, old, old + 1);

				if (cur == old) {
					g.reg[t][i] = tries;
					break;
				}
				old = cur;
			}
			break;
		case OP_WAIT:		/* until cpu0's store makes it nonzero */
			for (;;) {
				if ((g.reg[t][i] = load(v)) != 0)
					break;
				PR_SPIN(v, "x");
			}
			break;
		}
	}
}

static void setup(void *arg)
{
	(void)arg;
	memset(g.var, 0, sizeof(g.var));
	memset(g.reg, 0, sizeof(g.reg));
	for (int t = 0; t < g.nt; t++) {
		char name[8] = "cpu0";

		name[3] = (char)('0' + t);
		pr_spawn(name, body, (void *)(intptr_t)t, 0);
	}
}

static void finish(void *arg)
{
	uint64_t h = 1469598103934665603ull;

	(void)arg;
	for (int i = 0; i < NVAR; i++)
		h = (h ^ (uint64_t)(uint32_t)g.var[i]) * 1099511628211ull;
	for (int t = 0; t < MAXT; t++)
		for (int i = 0; i <= MAXOP; i++)
			h = (h ^ (uint64_t)(uint32_t)g.reg[t][i]) * 1099511628211ull;
	set_add(&seen, h);
}

static const struct pr_program prog = {
	.name = "cas", .summary = "generated cmpxchg programs",
	.setup = setup, .finish = finish,
};

static struct pr_run_options ropts;

/* Run to the end of the tree; the final states land in `seen`. */
static uint64_t search(const char *strat, int bound, int *complete)
{
	struct pr_strategy_params p = { .pct_depth = 3 };
	struct pr_strategy *s;
	struct pr_run_result res;
	struct pr_coverage c;
	uint64_t runs = 0;

	if (bound >= 0) {
		p.has_bound = 1;
		p.preemption_bound = bound;
	}
	seen.n = 0;
	s = pr_strategy_create(strat, &p);
	while (!s->ops->exhausted(s) && runs < 2000000) {
		pr_run_once(&prog, s, &ropts, 1, runs, NULL, &res);
		runs++;
	}
	s->ops->coverage(s, &c);
	*complete = c.complete;
	s->ops->destroy(s);
	return runs;
}

static uint64_t rng_state = 77;

static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((rng_state >> 33) % n);
}

static void generate(void)
{
	int total, stored0[NVAR];

	memset(&g, 0, sizeof(g));
	do {
		g.nt = 2 + (int)rnd(3);
		total = 0;
		for (int t = 0; t < g.nt; t++) {
			g.nops[t] = 1 + (int)rnd(g.nt == 2 ? 4 : g.nt == 3 ? 3 : 2);
			total += g.nops[t];
		}
	} while (total > (g.nt == 4 ? 6 : 7));
	memset(stored0, 0, sizeof(stored0));
	for (int t = 0; t < g.nt; t++)
		for (int i = 0; i < g.nops[t]; i++) {
			struct op *o = &g.op[t][i];

			o->kind = (int)rnd(OP_NR);
			o->var = (int)rnd(NVAR);
			o->val = 1 + (int)rnd(2);
			/* Waits only where cpu0 surely stores nonzero. */
			if (o->kind == OP_WAIT && (t == 0 || !stored0[o->var]))
				o->kind = OP_INC_LOOP;
			if (t == 0 && o->kind == OP_STORE)
				stored0[o->var] = 1;
		}
}

/*
 * dpor against dfs on the current program, unbounded (bound -1) and with
 * bounds 0-3.  Returns a mask: bit 0 if unbounded dpor missed a state dfs
 * reached or took more runs, bit 1 the same for some bound.  A bound
 * whose dfs did not finish within the budget compares nothing (counted
 * in @skipped); dpor failing to finish where dfs did is a failure.
 */
static int agrees(int k, uint64_t *runs, int *skipped)
{
	int bad = 0;

	for (int bound = -1; bound <= 3; bound++) {
		struct stateset dfs_states;
		uint64_t rd, rp;
		int cd, cp, sub = 1;

		rd = search("dfs", bound, &cd);
		dfs_states = seen;
		rp = search("dpor", bound, &cp);
		*runs += rp;
		if (!cd) {
			(*skipped)++;
			continue;
		}
		for (int i = 0; i < dfs_states.n; i++)
			sub &= set_has(&seen, dfs_states.h[i]);
		if (cp && sub && rp <= rd)
			continue;
		bad |= bound < 0 ? 1 : 2;
		if (mode == 2)
			continue;
		diag("program %d, bound %d: dfs %d states in %llu runs, dpor %d in %llu%s%s",
		     k, bound, dfs_states.n, (unsigned long long)rd, seen.n,
		     (unsigned long long)rp, sub ? "" : ", missed a state",
		     cp ? "" : ", incomplete");
		if (getenv("PR_DUMP"))
			for (int t = 0; t < g.nt; t++)
				for (int o = 0; o < g.nops[t]; o++)
					diag("  cpu%d op%d: %s x%d %d", t, o,
					     (const char *[]){ "load", "store", "cas-reg", "cas-const", "inc-loop", "wait" }[g.op[t][o].kind],
					     g.op[t][o].var, g.op[t][o].val);
	}
	return bad;
}

/*
 * A fixed case: bounded dpor's sleeping blocks (dpor.c) once abandoned an
 * execution right after a psleeper's own step when it ended its block,
 * and lost the backtrack point only that execution's races could add.
 * Reduced from generated program 3 (the scan also found 253 and 259):
 *
 *	cpu0: inc-loop x0	cpu1: x0 = 1; r = x1
 *	cpu2: inc-loop x0	cpu3: x1 = 2
 *
 * Bound 3 reaches, among others, cpu0 load, *cpu2 load, *cpu3 store x1,
 * cpu1 store x0 and load x1 (free: cpu3 is done), cpu0 cas fails (free),
 * *cpu2 cas fails and succeeds, cpu0 cas fails and succeeds: x0 = 3 in
 * 3 and 2 tries, r = 2.  At the node after cpu2's load, dpor explored
 * cpu2 going on, then cpu0, cpu1, and cpu3 (the conservative point of
 * the race of cpu1's load with cpu3's store); under cpu3, cpu0 and cpu1
 * are psleepers (they too preempted cpu2 there).  With cpu3 done and
 * cpu2 asleep, cpu0 ran as a block: its cas succeeded (x0 still 0), it
 * finished, and the execution was abandoned -- so the race of that cas
 * with cpu1's store, which would have put cpu1 at the free node, was
 * never seen, and the order above (cpu1 from the node after cpu2's load
 * costs a 4th preemption) never explored: 26 of dfs's 28 final states.
 */
static int fixed_case(void)
{
	static const struct op ops[4][2] = {
		{ { OP_INC_LOOP, 0, 1 } },
		{ { OP_STORE, 0, 1 }, { OP_LOAD, 1, 1 } },
		{ { OP_INC_LOOP, 0, 1 } },
		{ { OP_STORE, 1, 2 } },
	};
	static const int nops[4] = { 1, 2, 1, 1 };
	uint64_t runs = 0;
	int bad = 0, skipped = 0;

	memset(&g, 0, sizeof(g));
	g.nt = 4;
	memcpy(g.nops, nops, sizeof(nops));
	for (int t = 0; t < 4; t++)
		for (int i = 0; i < nops[t]; i++)
			g.op[t][i] = ops[t][i];
	for (mode = 0; mode <= 1; mode++)
		bad |= agrees(-1, &runs, &skipped);
	return bad || skipped;
}

int main(int argc, char **argv)
{
	int nprogs = argc > 1 ? atoi(argv[1]) : 80;
	int unb_bad = 0, bnd_bad = 0, cheaper = 0, dearer = 0, caught = 0;
	int skipped = 0, ignored = 0;
	uint64_t with = 0, without = 0, planted = 0;

	pr_run_options_default(&ropts);
	if (getenv("PR_CAS_SCAN")) {	/* debugging: baseline only */
		for (int k = 0; k < nprogs; k++) {
			uint64_t a = 0;
			int ops = 0;

			generate();
			for (int t = 0; t < g.nt; t++)
				ops += g.nops[t];
			mode = 1;
			if (agrees(k, &a, &ignored))
				diag("program %d: %d contexts, %d ops", k, g.nt, ops);
		}
		return 0;
	}
	plan(6);
	ok(!fixed_case(),
	   "fixed: a psleeper whose block ends with its own step is not abandoned (bounded dpor reaches dfs's final states)");
	for (int k = 0; k < nprogs; k++) {
		uint64_t a = 0, b = 0;
		int bad;

		generate();
		mode = 0;
		bad = agrees(k, &a, &skipped);
		unb_bad += bad & 1;
		bnd_bad += !!(bad & 2);
		mode = 1;
		(void)agrees(k, &b, &ignored);
		mode = 2;
		caught += !!agrees(k, &planted, &ignored);
		with += a;
		without += b;
		cheaper += a < b;
		dearer += a > b;
	}
	ok(unb_bad == 0,
	   "failed cmpxchg as a load: unbounded dpor reaches every final state dfs reaches, in no more runs (%d of %d programs disagree; %d searches skipped: dfs over budget)",
	   unb_bad, nprogs, skipped);
	ok(bnd_bad == 0,
	   "the same with preemption bounds 0-3 (%d of %d programs disagree)",
	   bnd_bad, nprogs);
	ok(cheaper > 0,
	   "the rule saves executions (%d of %d programs; dpor runs %llu with it, %llu without)",
	   cheaper, nprogs, (unsigned long long)with,
	   (unsigned long long)without);
	ok(dearer == 0, "the rule never costs executions (%d programs dearer)",
	   dearer);
	ok(caught > 0,
	   "planted: a successful cmpxchg reported as unwritten makes dpor miss what dfs reaches (%d of %d programs)",
	   caught, nprogs);
	return done_testing();
}
