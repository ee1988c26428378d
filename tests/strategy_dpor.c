/* SPDX-License-Identifier: MIT */
/*
 * strategy_dpor.c - the systematic strategies checked against each other
 * and against brute force.
 *
 *  1. The dependence relation, rule by rule (strategy/dependence.c).
 *  2. Generated programs -- 2 to 4 contexts, a few shared variables,
 *     loads, stores and atomic adds, and sometimes an interrupt -- each
 *     explored by full dfs and by dpor: the same set of final states, dpor
 *     in no more executions, and dpor's complete executions exactly the
 *     number of Mazurkiewicz traces, counted here by brute force over
 *     every interleaving of the operations (no runtime involved).
 *  3. A failure in exactly one equivalence class is found by dpor.
 *  4. The classic programs (src/programs/): dfs and dpor, run to the end
 *     of their trees, reach the same verdicts.
 *  5. Preemption bounds: dfs with bound K explores a subset, never more,
 *     and states when the bound cut nothing; bounded dpor (BPOR) reaches
 *     every final state bounded dfs reaches on the generated programs.
 */
#include "programs/programs.h"
#include "runtime/run.h"
#include "strategy/dependence.h"
#include "strategy/dpor_tail.h"
#include "strategy/strategy.h"
#include "stateset.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static struct pr_run_options ropts;

/* ---- 1. dependence rules ------------------------------------------------ */

static struct pr_event ev(int proc, int kind, const void *obj, unsigned size)
{
	struct pr_event e;

	memset(&e, 0, sizeof(e));
	e.proc = (uint8_t)proc;
	e.ctx = (uint8_t)proc;
	e.kind = (uint8_t)kind;
	e.obj = obj;
	e.size = size;
	if (PR_KIND_WRITES(kind))
		e.flags |= PR_EV_WROTE | PR_EV_WDATA;
	return e;
}

/*
 * Rule 1 for bits: atomic bit operations and test_bit on constant bits
 * (their sites' bit1) and a detector's read of one bit (pr_effect_bit).
 */
static void test_bit_rules(void)
{
	static unsigned long w, v;
	struct pr_event a, b;

	a = ev(0, PR_K_RMW, &w, sizeof(w)), b = ev(1, PR_K_RMW, &w, sizeof(w));
	a.bit1 = 1, b.bit1 = 6;		/* set_bit(0, &w), clear_bit(5, &w) */
	ok(!pr_dependent(&a, &b) && !pr_dependent_slow(&a, &b),
	   "rule 1: atomic operations on different bits of a word commute");
	b.bit1 = 1;
	ok(pr_dependent(&a, &b) && pr_dependent_slow(&a, &b),
	   "rule 1: ... on the same bit they do not");
	b = ev(1, PR_K_LOAD, &w, sizeof(w));
	b.bit1 = 6;			/* test_bit(5, &w) */
	ok(!pr_dependent(&a, &b), "rule 1: test_bit of another bit commutes");
	b.bit1 = 0;			/* a load of the whole word */
	ok(pr_dependent(&a, &b), "rule 1: a load of the whole word does not");
	b = ev(1, PR_K_STORE, &w, sizeof(w));
	ok(pr_dependent(&a, &b), "rule 1: nor a store of it");
	b = ev(1, PR_K_RMW, &v, sizeof(v));
	b.bit1 = 6;
	ok(!pr_dependent(&a, &b), "rule 1: bits of different words commute");
	b = ev(1, PR_K_YIELD, NULL, 0);
	b.eff[0] = (struct pr_effect){ &w, sizeof(w), PR_EFF_READ, 6 };
	b.neff = 1;
	ok(!pr_dependent(&a, &b),
	   "rule 1: reading one bit (pr_effect_bit) commutes with another bit's RMW");
	b.eff[0].bit1 = 1;
	ok(pr_dependent(&a, &b), "rule 1: ... not with its own bit's");
	b.eff[0].bit1 = 0;
	ok(pr_dependent(&a, &b), "rule 1: ... nor a read of the whole word");
}

static void test_rules(void)
{
	static int x[4], q;
	struct pr_event a, b;

	a = ev(0, PR_K_LOAD, &x[0], 4), b = ev(1, PR_K_LOAD, &x[0], 4);
	ok(!pr_dependent(&a, &b), "rule 1: loads commute");
	b = ev(1, PR_K_STORE, &x[0], 4);
	ok(pr_dependent(&a, &b) && pr_dependent(&b, &a),
	   "rule 1: a load and a store of the same word do not (both ways)");
	b = ev(1, PR_K_STORE, &x[1], 4);
	ok(!pr_dependent(&a, &b), "rule 1: different words commute");
	b = ev(1, PR_K_STORE, &x[0], 16);
	a = ev(0, PR_K_RMW, &x[3], 4);
	ok(pr_dependent(&a, &b), "rule 1: overlapping byte ranges conflict");
	a = ev(0, PR_K_FENCE, NULL, 0);
	ok(!pr_dependent(&a, &b), "rule 1: a fence touches nothing under sc");
	a = ev(0, PR_K_LOAD, &x[2], 4);
	b = ev(1, PR_K_YIELD, NULL, 0);
	b.eff[0] = (struct pr_effect){ &x[2], 4, PR_EFF_WRITE, 0 };
	b.neff = 1;
	ok(pr_dependent(&a, &b), "rule 1: effects count like accesses");
	b.eff[0].kind = PR_EFF_READ;
	ok(!pr_dependent(&a, &b), "rule 1: a read effect commutes with a load");
	test_bit_rules();
	a = ev(0, PR_K_SPIN, &x[0], 0);
	b = ev(1, PR_K_STORE, &x[3], 4);
	ok(pr_dependent(&a, &b), "rule 2: resuming a spin depends on any store");
	b = ev(1, PR_K_LOAD, &x[3], 4);
	ok(!pr_dependent(&a, &b), "rule 2: ... not on a load");
	a = ev(0, PR_K_BLOCK, &q, 0);
	b = ev(1, PR_K_YIELD, NULL, 0);
	b.eff[0] = (struct pr_effect){ &q, 0, PR_EFF_WAKE, 0 };
	b.neff = 1;
	ok(pr_dependent(&a, &b), "rule 3: resuming a sleep depends on its wake-up");
	b.eff[0].obj = &x[0];
	ok(!pr_dependent(&a, &b), "rule 3: ... not on another queue's");
	a = ev(PR_MAX_CTX, PR_EV_FIRE, NULL, 0);
	a.ctx = 1;
	b = ev(1, PR_K_YIELD, NULL, 0);
	ok(pr_dependent(&a, &b), "rule 4: an interrupt depends on its context's steps");
	b = ev(2, PR_K_STORE, &x[0], 4);
	ok(!pr_dependent(&a, &b), "rule 4: ... and commutes with other contexts'");
	b = ev(3, PR_K_YIELD, NULL, 0);
	b.flags |= PR_EV_ALL;
	ok(pr_dependent(&a, &b), "rule 5: an overflowed step depends on all");
}

/* ---- 2. generated programs --------------------------------------------- */

#define MAXT	4
#define MAXOP	4
#define NVAR	3

enum { OP_LOAD, OP_STORE, OP_ADD, OP_STORE_REG, OP_WAIT, OP_SLEEP, OP_WAKE };

struct op { int kind, var, val; };

static struct gen {
	int nt, nops[MAXT];
	struct op op[MAXT][MAXOP];
	int irq;		/* interrupt on context 0: x[irqvar] += 10 */
	int irqvar;
	int var[NVAR];
	int reg[MAXT][MAXOP];
	int fail_on;		/* section 3: fail when the state is this */
	int sleeps;		/* writes wake the sleepers on their word */
} g;

static struct stateset seen;	/* final states of the current search */

static void gen_body(void *arg)
{
	int t = (int)(intptr_t)arg;

	for (int i = 0; i < g.nops[t]; i++) {
		const struct op *o = &g.op[t][i];
		int *v = &g.var[o->var];

		switch (o->kind) {
		case OP_LOAD:
			PR_YIELD_POINT_SZ(PR_K_LOAD, "x", v, sizeof(*v));
			g.reg[t][i] = *v;
			break;
		case OP_STORE:
			PR_YIELD_POINT_SZ(PR_K_STORE, "x", v, sizeof(*v));
			*v = o->val;
			if (g.sleeps)
				pr_wake(v);
			break;
		case OP_ADD:
			PR_YIELD_POINT_SZ(PR_K_RMW, "x", v, sizeof(*v));
			g.reg[t][i] = (*v += o->val);
			if (g.sleeps)
				pr_wake(v);
			break;
		case OP_STORE_REG:
			PR_YIELD_POINT_SZ(PR_K_STORE, "x", v, sizeof(*v));
			*v = (i ? g.reg[t][i - 1] : 0) + 1;
			if (g.sleeps)
				pr_wake(v);
			break;
		case OP_SLEEP:	/* a sleeping wait: until x != 0 */
			for (int round = 0;; round++) {
				pr_effect(v, sizeof(*v), PR_EFF_READ);
				if ((g.reg[t][i] = *v) != 0) {
					g.reg[t][i] += 16 * round;
					break;
				}
				PR_BLOCK(v, "x");
			}
			break;
		case OP_WAKE:	/* a wake-up that changes nothing */
			PR_YIELD("wake");
			pr_wake(v);
			break;
		case OP_WAIT:	/* a wait loop: until x != 0 */
			for (;;) {
				PR_YIELD_POINT_SZ(PR_K_LOAD, "x", v, sizeof(*v));
				if ((g.reg[t][i] = *v) != 0)
					break;
				PR_SPIN(v, "x");
			}
			break;
		}
	}
}

static void gen_irq(void *arg)
{
	int *v = &g.var[g.irqvar];

	(void)arg;
	PR_YIELD_POINT_SZ(PR_K_RMW, "x", v, sizeof(*v));
	*v += 10;
}

static void gen_setup(void *arg)
{
	(void)arg;
	memset(g.var, 0, sizeof(g.var));
	memset(g.reg, 0, sizeof(g.reg));
	for (int t = 0; t < g.nt; t++) {
		char name[8] = "cpu0";

		name[3] = (char)('0' + t);
		pr_spawn(name, gen_body, (void *)(intptr_t)t, 0);
	}
	if (g.irq)
		pr_inject(0, "irq", gen_irq, NULL, 1);
}

static uint64_t state_hash(void)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < NVAR; i++)
		h = (h ^ (uint64_t)(uint32_t)g.var[i]) * 1099511628211ull;
	for (int t = 0; t < MAXT; t++)
		for (int i = 0; i < MAXOP; i++)
			h = (h ^ (uint64_t)(uint32_t)g.reg[t][i]) * 1099511628211ull;
	return h;
}

static void gen_finish(void *arg)
{
	uint64_t h = state_hash();

	(void)arg;
	set_add(&seen, h);
	if (g.fail_on && g.var[0] == 1 && g.var[1] == 1 &&
	    g.reg[1][0] == 1 && g.reg[1][1] == 1)
		pr_fail("assert", NULL, "the one bad class");
}

static const struct pr_program gen_prog = {
	.name = "generated", .summary = "generated",
	.setup = gen_setup, .finish = gen_finish,
};

struct result {
	uint64_t runs, executions, blocked, failures;
	int complete, bound_cut;
};

/* Run @strat on @prog to the end of its tree (at most @budget runs). */
static struct result search(const struct pr_program *prog, const char *strat,
			    int bound, uint64_t budget, struct stateset *kinds)
{
	struct pr_strategy_params p = { .pct_depth = 3 };
	struct pr_strategy *s;
	struct pr_run_result res;
	struct pr_coverage c;
	struct result r;

	memset(&r, 0, sizeof(r));
	if (bound >= 0) {
		p.has_bound = 1;
		p.preemption_bound = bound;
	}
	s = pr_strategy_create(strat, &p);
	while (!s->ops->exhausted(s) && r.runs < budget) {
		pr_run_once(prog, s, &ropts, 1, r.runs, NULL, &res);
		r.runs++;
		r.failures += res.failed;
		if (kinds && !res.abandoned) {
			uint64_t h = 0;

			for (const char *k = res.verdict.kind; *k; k++)
				h = h * 131 + (unsigned char)*k;
			set_add(kinds, h + 1);
		}
	}
	s->ops->coverage(s, &c);
	r.executions = c.executions;
	r.blocked = c.blocked;
	r.complete = c.complete;
	r.bound_cut = c.bound_cut;
	s->ops->destroy(s);
	return r;
}

/* ---- brute force: Mazurkiewicz traces of the operations ------------------ */

struct bop { int t, i, var, writes, irq; };

static struct bop bops[MAXT * MAXOP + 1];
static int nbops;
static uint64_t *traces;
static size_t ntraces, captraces;

static int bdep(const struct bop *a, const struct bop *b)
{
	if (a->t == b->t && !a->irq && !b->irq)
		return 0;
	/* The interrupt runs on context 0: it depends on its steps (rule 4). */
	if ((a->irq && b->t == 0) || (b->irq && a->t == 0))
		return 1;
	return a->var == b->var && (a->writes || b->writes);
}

/*
 * The trace of an interleaving, from each operation's position in it (-1:
 * not in it -- an interrupt never delivered): for each dependent pair,
 * which came first.  Two bits a pair: absent, before, after.
 */
static uint64_t canon(const int *pos)
{
	uint64_t key = 0;
	int bit = 0;

	for (int a = 0; a < nbops; a++)
		for (int b = a + 1; b < nbops; b++) {
			int present = pos[a] >= 0 && pos[b] >= 0;

			if (!bdep(&bops[a], &bops[b]))
				continue;
			key |= (uint64_t)(present ? (pos[a] < pos[b] ? 1 : 2) : 0) << bit;
			bit += 2;
		}
	return key;
}

static void add_trace(uint64_t key)
{
	for (size_t i = 0; i < ntraces; i++)
		if (traces[i] == key)
			return;
	if (ntraces == captraces) {
		captraces = captraces ? 2 * captraces : 1024;
		traces = realloc(traces, captraces * sizeof(*traces));
		if (!traces)
			abort();
	}
	traces[ntraces++] = key;
}

/*
 * Every interleaving: next[t] is context t's next operation.  The
 * interrupt, if any, may come before any of context 0's operations or
 * not at all (it runs whole: one access), but only while context 0 has
 * not finished.
 */
static void enumerate(int *order, int n, int *next, int irq_left)
{
	int progressed = 0;

	for (int t = 0; t < g.nt; t++) {
		if (next[t] >= g.nops[t])
			continue;
		progressed = 1;
		for (int k = 0; k < nbops; k++)
			if (!bops[k].irq && bops[k].t == t && bops[k].i == next[t])
				order[n] = k;
		next[t]++;
		enumerate(order, n + 1, next, irq_left);
		next[t]--;
	}
	if (irq_left && next[0] < g.nops[0]) {
		order[n] = nbops - 1;
		enumerate(order, n + 1, next, 0);
	}
	if (!progressed) {
		int pos[MAXT * MAXOP + 1];

		for (int k = 0; k < nbops; k++)
			pos[k] = -1;
		for (int k = 0; k < n; k++)
			pos[order[k]] = k;
		add_trace(canon(pos));
	}
}

static size_t brute_traces(void)
{
	int order[MAXT * MAXOP + 1], next[MAXT] = { 0 };

	nbops = 0;
	for (int t = 0; t < g.nt; t++)
		for (int i = 0; i < g.nops[t]; i++) {
			const struct op *o = &g.op[t][i];

			bops[nbops++] = (struct bop){ t, i, o->var,
						      o->kind != OP_LOAD, 0 };
		}
	if (g.irq)
		bops[nbops++] = (struct bop){ -1, 0, g.irqvar, 1, 1 };
	ntraces = 0;
	enumerate(order, 0, next, g.irq);
	return ntraces;
}

static uint64_t rng_state = 42;

static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((rng_state >> 33) % n);
}

static void generate(void)
{
	int total;

	memset(&g, 0, sizeof(g));
	do {
		g.nt = 2 + (int)rnd(3);
		total = 0;
		for (int t = 0; t < g.nt; t++) {
			g.nops[t] = 1 + (int)rnd(g.nt == 2 ? 4 : g.nt == 3 ? 3 : 2);
			total += g.nops[t];
		}
	} while (total > (g.nt == 4 ? 6 : 7));
	for (int t = 0; t < g.nt; t++)
		for (int i = 0; i < g.nops[t]; i++) {
			struct op *o = &g.op[t][i];

			o->kind = (int)rnd(4);
			o->var = (int)rnd(NVAR);
			o->val = 1 + (int)rnd(3);
		}
	g.irq = rnd(3) == 0;
	g.irqvar = (int)rnd(NVAR);
}

/*
 * Bounded dpor (BPOR) on the current program against dfs with the same
 * bound K = 0..3: every final state dfs reaches within the bound, in no
 * more executions.  Returns 1 if both hold for every K.
 */
static int bounded_agrees(int k, uint64_t *pruns, uint64_t *druns)
{
	int all = 1;

	for (int bound = 0; bound <= 3; bound++) {
		struct stateset dfs_states;
		struct result rd, rp;
		int sub = 1;

		seen.n = 0;
		rd = search(&gen_prog, "dfs", bound, 2000000, NULL);
		dfs_states = seen;
		seen.n = 0;
		rp = search(&gen_prog, "dpor", bound, 2000000, NULL);
		for (int i = 0; i < dfs_states.n; i++)
			sub &= set_has(&seen, dfs_states.h[i]);
		*pruns += rp.runs;
		*druns += rd.runs;
		if (!rd.complete || !rp.complete || !sub || rp.runs > rd.runs) {
			diag("program %d, bound %d: dfs %d states in %llu runs%s, "
			     "dpor %d states in %llu runs%s%s", k, bound,
			     dfs_states.n, (unsigned long long)rd.runs,
			     rd.complete ? "" : " (incomplete)", seen.n,
			     (unsigned long long)rp.runs,
			     rp.complete ? "" : " (incomplete)",
			     sub ? "" : ", missed a state");
			if (getenv("PR_DUMP"))
				for (int t = 0; t < g.nt; t++)
					for (int o = 0; o < g.nops[t]; o++)
						diag("  cpu%d op%d: %s x%d %d", t, o,
						     (const char *[]){ "load", "store", "add", "store-reg", "wait", "sleep", "wake" }[g.op[t][o].kind],
						     g.op[t][o].var, g.op[t][o].val);
			if (getenv("PR_DUMP") && g.irq)
				diag("  irq on cpu0: x%d += 10", g.irqvar);
			all = 0;
		}
	}
	return all;
}

static void test_generated(int nprogs)
{
	int agree = 0, fewer = 0, exact = 0, bagree = 0;
	uint64_t bpruns = 0, bdruns = 0;

	for (int k = 0; k < nprogs; k++) {
		struct stateset dfs_states;
		struct result rd, rp;
		size_t want;

		generate();
		seen.n = 0;
		rd = search(&gen_prog, "dfs", -1, 2000000, NULL);
		dfs_states = seen;
		seen.n = 0;
		rp = search(&gen_prog, "dpor", -1, 2000000, NULL);
		want = brute_traces();
		if (rd.complete && rp.complete && dfs_states.n == seen.n) {
			int same = 1;

			for (int i = 0; i < seen.n; i++)
				same &= set_has(&dfs_states, seen.h[i]);
			agree += same;
			if (!same)
				diag("program %d: dpor missed a final state dfs reached", k);
		} else {
			diag("program %d: dfs %d states%s, dpor %d states%s", k,
			     dfs_states.n, rd.complete ? "" : " (incomplete)",
			     seen.n, rp.complete ? "" : " (incomplete)");
		}
		fewer += rp.runs <= rd.runs;
		exact += rp.executions == want;
		bagree += bounded_agrees(k, &bpruns, &bdruns);
		if (rp.executions != want)
			diag("program %d (%d contexts%s): dpor %llu executions (+%llu blocked), %zu traces by brute force",
			     k, g.nt, g.irq ? ", irq" : "",
			     (unsigned long long)rp.executions,
			     (unsigned long long)rp.blocked, want);
	}
	ok(agree == nprogs, "generated: dpor reaches every final state full dfs reaches (%d/%d programs)",
	   agree, nprogs);
	ok(fewer == nprogs, "generated: dpor never runs more than dfs (%d/%d)",
	   fewer, nprogs);
	ok(exact == nprogs, "generated: dpor's complete executions = Mazurkiewicz traces by brute force (%d/%d)",
	   exact, nprogs);
	ok(bagree == nprogs, "generated: dpor with bound 0-3 reaches every final state dfs with the same bound reaches, in no more runs (%d/%d; %llu runs vs %llu)",
	   bagree, nprogs, (unsigned long long)bpruns,
	   (unsigned long long)bdruns);
}

/*
 * Generated programs with wait loops: some operations of contexts 1.. wait
 * until a variable context 0 writes is nonzero (every write leaves it
 * nonzero, and context 0 never waits, so every run ends).  Spinning
 * makes switches free and re-enables spinners on stores (dependence rule
 * 2), which the bounded search's preemption count and sleep sets must
 * get right: dpor, unbounded and with bounds 0-3, reaches every final
 * state dfs with the same bound reaches.
 */
/*
 * dpor_covers_dfs -- search the generated program with full dfs and with
 * dpor.  1 if dpor completed and reached every final state dfs reached
 * (and, with @no_failures, neither search met a failure); 0 if not, with
 * a diagnostic; -1 if full dfs was too long to finish.
 */
static int dpor_covers_dfs(const char *what, int k, int no_failures)
{
	struct stateset dfs_states;
	struct result rd, rp;
	int same = 1;

	seen.n = 0;
	rd = search(&gen_prog, "dfs", -1, 300000, NULL);
	dfs_states = seen;
	seen.n = 0;
	rp = search(&gen_prog, "dpor", -1, 2000000, NULL);
	for (int i = 0; i < dfs_states.n; i++)
		same &= set_has(&seen, dfs_states.h[i]);
	if (!rd.complete)
		return -1;
	if (rp.complete && same && !(no_failures && (rd.failures || rp.failures)))
		return 1;
	diag("%s program %d: dfs %d states in %llu runs, dpor %d in %llu%s",
	     what, k, dfs_states.n, (unsigned long long)rd.runs, seen.n,
	     (unsigned long long)rp.runs, same ? "" : ", missed a state");
	return 0;
}

static void test_waits(int nprogs)
{
	int agree = 0, bagree = 0, waits = 0, big = 0;
	uint64_t bpruns = 0, bdruns = 0, saved = rng_state;

	rng_state = 4242;
	for (int k = 0; k < nprogs; k++) {
		int writes0[NVAR] = { 0 };

		do	/* small enough for full dfs */
			generate();
		while (g.nt > 3 || g.nops[0] + g.nops[1] + g.nops[2] > 6);
		for (int i = 0; i < g.nops[0]; i++)
			writes0[g.op[0][i].var] |= g.op[0][i].kind != OP_LOAD;
		for (int t = 1; t < g.nt; t++)
			for (int i = 0; i < g.nops[t]; i++) {
				struct op *o = &g.op[t][i];

				if (rnd(2) != 0)
					continue;
				for (int v = 0; v < NVAR; v++)
					if (writes0[(o->var + v) % NVAR]) {
						o->var = (o->var + v) % NVAR;
						o->kind = OP_WAIT;
						waits++;
						break;
					}
			}
		switch (dpor_covers_dfs("wait", k, 0)) {
		case 1: agree++; break;
		case -1: big++; break;	/* full dfs too long: bounds only */
		}
		bagree += bounded_agrees(k, &bpruns, &bdruns);
	}
	rng_state = saved;
	ok(agree == nprogs - big && big <= nprogs / 10 && waits > nprogs / 2,
	   "wait loops: dpor reaches every final state full dfs reaches (%d/%d programs, %d waits; %d too long for full dfs)",
	   agree, nprogs - big, waits, big);
	ok(bagree == nprogs,
	   "wait loops: dpor with bound 0-3 reaches every final state dfs with the same bound reaches, in no more runs (%d/%d; %llu runs vs %llu)",
	   bagree, nprogs, (unsigned long long)bpruns,
	   (unsigned long long)bdruns);
}

/*
 * Generated programs with sleeping waits: some operations of contexts
 * 1.. sleep until a word context 0 writes is nonzero (every write leaves
 * it nonzero and wakes its sleepers in the same step; the wait reads the
 * word and goes to sleep in one step, so no wake-up is lost), others
 * wake a word's sleepers without writing anything.  A waiter that wakes
 * to a zero word sleeps again; how many times it did is part of the
 * final state.  This is where dpor.c's "Sleeping waits" applies (a
 * resumption depends on the wake-up that woke it, not on the others):
 * dpor, unbounded and with bounds 0-3, reaches every final state dfs
 * with the same bound reaches.
 */
static void test_sleeps(int nprogs)
{
	int agree = 0, bagree = 0, sleeps = 0, wakes = 0, big = 0;
	uint64_t bpruns = 0, bdruns = 0, saved = rng_state;

	rng_state = 4343;
	for (int k = 0; k < nprogs; k++) {
		int writes0[NVAR] = { 0 };

		do	/* small enough for full dfs */
			generate();
		while (g.nt > 3 || g.nops[0] + g.nops[1] + g.nops[2] > 6);
		g.irq = 0;
		g.sleeps = 1;
		for (int i = 0; i < g.nops[0]; i++)
			writes0[g.op[0][i].var] |= g.op[0][i].kind != OP_LOAD;
		for (int t = 1; t < g.nt; t++)
			for (int i = 0; i < g.nops[t]; i++) {
				struct op *o = &g.op[t][i];
				unsigned r = rnd(3);

				if (r == 1) {
					o->kind = OP_WAKE;
					wakes++;
					continue;
				}
				if (r != 0)
					continue;
				for (int v = 0; v < NVAR; v++)
					if (writes0[(o->var + v) % NVAR]) {
						o->var = (o->var + v) % NVAR;
						o->kind = OP_SLEEP;
						sleeps++;
						break;
					}
			}
		switch (dpor_covers_dfs("sleep", k, 1)) {
		case 1: agree++; break;
		case -1: big++; break;	/* full dfs too long: bounds only */
		}
		bagree += bounded_agrees(k, &bpruns, &bdruns);
	}
	g.sleeps = 0;
	rng_state = saved;
	ok(agree == nprogs - big && big <= nprogs / 10 && sleeps > nprogs / 2,
	   "sleeping waits: dpor reaches every final state full dfs reaches (%d/%d programs, %d sleeps, %d extra wake-ups; %d too long for full dfs)",
	   agree, nprogs - big, sleeps, wakes, big);
	ok(bagree == nprogs,
	   "sleeping waits: dpor with bound 0-3 reaches every final state dfs with the same bound reaches, in no more runs (%d/%d; %llu runs vs %llu)",
	   bagree, nprogs, (unsigned long long)bpruns,
	   (unsigned long long)bdruns);
}

/* ---- 3. one bad class --------------------------------------------------- */

static void test_one_class(void)
{
	struct result rp, rd;
	size_t want;

	/* cpu0: x0 = 1; x1 = 1.  cpu1: r0 = x1; r1 = x0.  Bad: r0 = r1 = 1. */
	memset(&g, 0, sizeof(g));
	g.nt = 2;
	g.nops[0] = g.nops[1] = 2;
	g.op[0][0] = (struct op){ OP_STORE, 0, 1 };
	g.op[0][1] = (struct op){ OP_STORE, 1, 1 };
	g.op[1][0] = (struct op){ OP_LOAD, 1, 0 };
	g.op[1][1] = (struct op){ OP_LOAD, 0, 0 };
	g.fail_on = 1;
	want = brute_traces();
	seen.n = 0;
	rp = search(&gen_prog, "dpor", -1, 100000, NULL);
	rd = search(&gen_prog, "dfs", -1, 100000, NULL);
	ok(rp.failures == 1 && rp.complete,
	   "a failure in one class of %zu is found by dpor, once (%llu)",
	   want, (unsigned long long)rp.failures);
	ok(rd.failures >= 1, "and by dfs (%llu of %llu executions)",
	   (unsigned long long)rd.failures, (unsigned long long)rd.runs);
	g.fail_on = 0;
}

/* ---- 4. classic programs ------------------------------------------------ */

static void test_classics(void)
{
	const struct pr_program *const progs[] = {
		&pr_prog_lost_update, &pr_prog_lost_update_fixed,
		&pr_prog_abba, &pr_prog_abba_fixed,
		&pr_prog_message_passing, &pr_prog_message_passing_fixed,
		&pr_prog_spin_livelock, &pr_prog_null_deref,
		&pr_prog_null_deref_fixed,
	};

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct stateset kd = { .n = 0 }, kp = { .n = 0 };
		struct result rd, rp;
		int same;

		rd = search(progs[i], "dfs", -1, 400000, &kd);
		rp = search(progs[i], "dpor", -1, 400000, &kp);
		same = rd.complete && rp.complete && kd.n == kp.n;
		for (int k = 0; same && k < kp.n; k++)
			same &= set_has(&kd, kp.h[k]);
		ok(same && rp.runs <= rd.runs,
		   "%s: dpor (%llu executions, %llu blocked) reaches the verdicts of full dfs (%llu executions): %d kinds",
		   progs[i]->name, (unsigned long long)rp.executions,
		   (unsigned long long)rp.blocked,
		   (unsigned long long)rd.executions, kd.n);
	}
}

/*
 * A lost wake-up: the waiter tests its flag, reaches another yield point,
 * then sleeps; the waker sets the flag and wakes it.  Waking between the
 * test and the sleep deadlocks.  The step at whose end the waiter goes to
 * sleep touches nothing, so only dependence rule 3's "going to sleep on W
 * depends on waking W" tells dpor that its order against the wake-up
 * matters: without it dpor ran 2 executions and missed the deadlock.
 */
static int lw_flag, lw_done;
static char lw_wq;

static void lw_waiter(void *arg)
{
	(void)arg;
	PR_YIELD_POINT_SZ(PR_K_LOAD, "flag", &lw_flag, sizeof(lw_flag));
	if (!lw_flag) {
		PR_YIELD("gap");
		PR_BLOCK(&lw_wq, "wq");
	}
	PR_YIELD_POINT_SZ(PR_K_STORE, "done", &lw_done, sizeof(lw_done));
	lw_done = 1;
}

static void lw_waker(void *arg)
{
	(void)arg;
	PR_YIELD_POINT_SZ(PR_K_STORE, "flag", &lw_flag, sizeof(lw_flag));
	lw_flag = 1;
	PR_YIELD("before-wake");
	pr_wake(&lw_wq);
}

static void lw_setup(void *arg)
{
	(void)arg;
	lw_flag = lw_done = 0;
	pr_spawn("cpu0", lw_waiter, NULL, 0);
	pr_spawn("cpu1", lw_waker, NULL, 0);
}

static const struct pr_program lw_prog = {
	.name = "lost-wakeup", .summary = "lost wake-up",
	.setup = lw_setup,
};

static void test_lost_wakeup(void)
{
	struct result rd, rp;

	rd = search(&lw_prog, "dfs", -1, 100000, NULL);
	rp = search(&lw_prog, "dpor", -1, 100000, NULL);
	ok(rd.failures > 0 && rp.failures > 0 && rp.complete,
	   "lost wake-up: dpor finds the deadlock full dfs finds (dpor %llu of %llu executions, dfs %llu of %llu)",
	   (unsigned long long)rp.failures, (unsigned long long)rp.executions,
	   (unsigned long long)rd.failures, (unsigned long long)rd.executions);
	rd = search(&lw_prog, "dfs", 1, 100000, NULL);
	rp = search(&lw_prog, "dpor", 1, 100000, NULL);
	ok(rd.failures > 0 && rp.failures > 0 && rp.complete,
	   "lost wake-up, bound 1: bounded dpor finds it too (%llu of %llu; dfs %llu of %llu)",
	   (unsigned long long)rp.failures, (unsigned long long)rp.executions,
	   (unsigned long long)rd.failures, (unsigned long long)rd.executions);
}

/*
 * Two wakers: the waiter reads the flag (an effect, inside its step) and
 * sleeps while it is 0, in a loop; cpu1 sets the flag and wakes it in one
 * step, cpu2 only wakes it.  How many times it slept (0-2) is the final
 * state.  dpor's analysis makes a sleep resumption R depend on the
 * wake-up that woke it only, where R commutes with that waker otherwise
 * (dpor.c, "Sleeping waits").  When cpu1 woke the waiter, R read the flag
 * cpu1 wrote, and cpu2's wake-up, moved first, lets R run before cpu1
 * and sleep again (two rounds): R must keep racing with cpu2's wake-up
 * there.  The first form of the rule (never reversing the race with the
 * waker, R independent of every other wake-up) missed the two rounds at
 * every bound; reversing the waker's race where R and the waker were
 * otherwise dependent missed them without a bound.
 */
static int tw_flag, tw_rounds;
static char tw_wq;

static void tw_waiter(void *arg)
{
	(void)arg;
	for (;;) {
		pr_effect(&tw_flag, sizeof(tw_flag), PR_EFF_READ);
		if (tw_flag)
			break;
		tw_rounds++;
		PR_BLOCK(&tw_wq, "wq");
	}
}

static void tw_setter(void *arg)
{
	(void)arg;
	PR_YIELD_POINT_SZ(PR_K_STORE, "flag", &tw_flag, sizeof(tw_flag));
	tw_flag = 1;
	pr_wake(&tw_wq);
}

static void tw_waker(void *arg)
{
	(void)arg;
	PR_YIELD("wake");
	pr_wake(&tw_wq);
}

static void tw_setup(void *arg)
{
	(void)arg;
	tw_flag = tw_rounds = 0;
	pr_spawn("cpu0", tw_waiter, NULL, 0);
	pr_spawn("cpu1", tw_setter, NULL, 0);
	pr_spawn("cpu2", tw_waker, NULL, 0);
}

static void tw_finish(void *arg)
{
	(void)arg;
	set_add(&seen, (uint64_t)tw_rounds + 1);
}

static const struct pr_program tw_prog = {
	.name = "two-wakers", .summary = "two wakers",
	.setup = tw_setup, .finish = tw_finish,
};

static void test_two_wakers(void)
{
	int agree = 1;
	uint64_t pruns = 0, druns = 0;

	for (int bound = -1; bound <= 3; bound++) {
		struct stateset dfs_states;
		struct result rd, rp;

		seen.n = 0;
		rd = search(&tw_prog, "dfs", bound, 100000, NULL);
		dfs_states = seen;
		seen.n = 0;
		rp = search(&tw_prog, "dpor", bound, 100000, NULL);
		for (int i = 0; i < dfs_states.n; i++)
			agree &= set_has(&seen, dfs_states.h[i]);
		agree &= rd.complete && rp.complete && !rd.failures &&
			 !rp.failures;
		if (bound >= 0)
			pruns += rp.executions, druns += rd.executions;
		if (!agree)
			diag("two wakers, bound %d: dfs %d states, dpor %d",
			     bound, dfs_states.n, seen.n);
	}
	ok(agree, "two wakers: dpor, unbounded and with bound 0-3, reaches every final state dfs reaches (bounded: dpor %llu executions, dfs %llu)",
	   (unsigned long long)pruns, (unsigned long long)druns);
}

/* ---- 5. bounds ---------------------------------------------------------- */

static void test_bounds(void)
{
	struct result r0, r1, r2, full;

	full = search(&pr_prog_message_passing, "dfs", -1, 400000, NULL);
	r0 = search(&pr_prog_message_passing, "dfs", 0, 400000, NULL);
	r1 = search(&pr_prog_message_passing, "dfs", 1, 400000, NULL);
	r2 = search(&pr_prog_message_passing, "dfs", 2, 400000, NULL);
	ok(r0.complete && r0.bound_cut && r0.failures == 0,
	   "message-passing, bound 0: %llu executions, the bound cut, no failure",
	   (unsigned long long)r0.executions);
	ok(r1.complete && r1.failures == 0 && r1.executions > r0.executions,
	   "bound 1: %llu executions, no failure (the bug needs 2 preemptions)",
	   (unsigned long long)r1.executions);
	ok(r2.complete && r2.failures > 0 && r2.executions < full.executions,
	   "bound 2: found (%llu failing of %llu; full dfs %llu)",
	   (unsigned long long)r2.failures, (unsigned long long)r2.executions,
	   (unsigned long long)full.executions);
	r1 = search(&pr_prog_message_passing, "dpor", 1, 400000, NULL);
	r2 = search(&pr_prog_message_passing, "dpor", 2, 400000, NULL);
	ok(r1.complete && r1.failures == 0 && r2.complete && r2.failures > 0 &&
	   r2.executions < full.executions,
	   "dpor with bound 1: nothing in %llu executions; bound 2: found in %llu",
	   (unsigned long long)r1.executions, (unsigned long long)r2.executions);
	full = search(&pr_prog_lost_update, "dfs", -1, 400000, NULL);
	r0 = search(&pr_prog_lost_update, "dfs", 1000, 400000, NULL);
	ok(r0.complete && !r0.bound_cut && r0.executions == full.executions,
	   "a bound the program never reaches cuts nothing (%llu executions, as full dfs)",
	   (unsigned long long)r0.executions);
}

int main(int argc, char **argv)
{
	int nprogs = argc > 1 ? atoi(argv[1]) : 60;

	pr_run_options_default(&ropts);
	plan(14 + 9 + 4 + 2 + 2 + 2 + 9 + 2 + 1 + 5 + 2);
	/* Every dpor search below checks the race analysis's filter, */
	pr_dpor_filter_check = 1;
	/* and its shortcuts (dpor_tail.c). */
	pr_dpor_short_check = 1;
	test_rules();
	test_generated(nprogs);
	test_waits(nprogs / 2);
	test_sleeps(nprogs / 2);
	test_one_class();
	test_classics();
	test_lost_wakeup();
	test_two_wakers();
	test_bounds();
	ok(pr_dpor_filter_wrong == 0 && pr_dpor_filter_out > 0,
	   "the race analysis ruled out %llu steps on their signatures, %llu "
	   "of them dependent (tests/strategy_race)", pr_dpor_filter_out,
	   pr_dpor_filter_wrong);
	ok(pr_dpor_short_wrong == 0,
	   "the race walk's shortcuts: %llu taken, %llu of them wrong "
	   "(tests/strategy_race)", pr_dpor_short_used, pr_dpor_short_wrong);
	free(traces);
	return done_testing();
}
