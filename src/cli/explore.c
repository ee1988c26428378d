/* SPDX-License-Identifier: MIT */
/*
 * explore.c - `pagerace explore`: run a program many times under a
 * strategy; save the trace of each failing run and say how to replay it.
 *
 * Exploration records decisions only.  Run i of seed s is a pure function
 * of (program, strategy, parameters, s, i), so a failure found here is
 * re-created by `pagerace replay` from its trace alone, and runs can be
 * split across processes without changing what is found.
 */
#include "config.h"
#include "memory/memory.h"
#include "cli/cli.h"
#include "cli/explore.h"
#include "cli/interrupt.h"
#include "report/verdict.h"
#include "model/variant.h"
#include "scenario/scenario.h"
#include "trace/trace.h"
#include "util/outfile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * A scenario's own settings (its variant, explore line and expectation)
 * apply wherever the command line did not set the same thing.
 */
static void apply_scenario(struct explore_opts *o, const struct target *tg)
{
	const struct scenario *scn = tg->scn;
	const struct scn_explore *x = &scn->explore;
	struct pr_variant cli = variant;

	scenario_apply_variant(scn);
	if (o->set & SET_PROTOCOL)
		variant.protocol = cli.protocol;
	if (o->set & SET_KNOBS)
		variant.knobs = cli.knobs;
	if (o->set & SET_SHIFT)
		variant.radix_map_shift = cli.radix_map_shift;
	if (x->strategy[0] && !(o->set & SET_STRATEGY))
		o->strategy = x->strategy;
	if (x->runs && !(o->set & SET_RUNS))
		o->runs = x->runs;
	if (x->has_seed && !(o->set & SET_SEED))
		o->seed = x->seed;
	if (x->depth && !(o->set & SET_DEPTH))
		o->params.pct_depth = x->depth;
	if (x->pct_steps && !(o->set & SET_PCT_STEPS))
		o->params.pct_steps = x->pct_steps;
	if (scn->has_memory && !(o->set & SET_MEMORY))
		o->memory = scn->memory;
	if (x->max_steps && !(o->set & SET_MAX_STEPS))
		o->run.max_steps = x->max_steps;
	/* A scenario's bound belongs to its systematic strategy: -s pct drops it. */
	if (x->has_bound && !(o->set & SET_BOUND) &&
	    explore_systematic(o->strategy)) {
		o->params.has_bound = 1;
		o->params.preemption_bound = x->bound;
	}
}

/* The scenario's outcome table, as the summary shows it. */
static void fill_outcomes(const struct scenario *scn,
			  struct summary_outcome *out, size_t *n)
{
	static const char *const cls[] = { "acceptable", "interesting",
					   "forbidden" };

	*n = 0;
	for (int i = 0; i < scn->noutcomes; i++) {
		out[*n].cls = cls[scn->outcome[i].cls];
		out[*n].desc = scn->outcome[i].desc;
		out[*n].count = scn->outcome[i].seen;
		(*n)++;
	}
}

static void print_summary(struct explore_state *st, double elapsed)
{
	const struct explore_opts *o = &st->o;
	struct summary_outcome outcomes[SCN_MAX_OUTCOMES];
	struct explore_summary s;
	char knobs[512];
	char cov[256];

	memset(&s, 0, sizeof(s));
	s.schema = EXPLORE_SCHEMA;
	s.program = st->tg.name;
	s.strategy = o->strategy;
	s.seed = o->seed;
	s.first_run = o->first_run;
	s.runs = st->done;
	s.planned = o->time_budget > 0 ? 0 : st->len;
	s.failures = st->failures;
	s.elapsed = elapsed;
	s.timing = !o->no_timing;
	s.keep_going = o->keep_going;
	/* pct's parameters; the portfolio runs pct among its members. */
	s.pct = !strcmp(o->strategy, "pct") || !strcmp(o->strategy, "portfolio");
	s.pct_depth = o->params.pct_depth;
	s.pct_steps = o->params.pct_steps;
	s.sharded = o->shards != 0;
	s.shard = o->shard;
	s.shards = o->shards;
	s.slice_first = st->lo;
	s.slice_runs = st->len;
	s.has_first = st->failures != 0 && st->nfailed != 0;
	s.ff_run = st->first_run;
	s.ff_step = st->first.verdict.step;
	s.ff_kind = st->first.verdict.kind;
	s.ff_message = st->first.verdict.msg;
	s.ff_trace = st->first_path;
	s.interrupted = interrupt_pending() != 0;
	s.signal = s.interrupted ? interrupt_name(interrupt_pending()) : NULL;
	s.has_model = 1;
	s.protocol = variant_protocol_name(variant.protocol);
	explore_format_knobs(knobs, sizeof(knobs));
	s.knobs = knobs;
	s.radix_shift = variant.radix_map_shift;
	s.max_steps = o->run.max_steps;
	s.memory = pr_mem_name(pr_mem_model());
	s.has_failed_list = 1;
	s.nfailed = st->nfailed;
	s.failed = st->failed;
	if (st->tg.scn) {
		s.expect = st->tg.scn->expect_pass ? "pass" :
			   st->tg.scn->expect[0] ? st->tg.scn->expect : NULL;
		s.has_outcomes = 1;
		fill_outcomes(st->tg.scn, outcomes, &s.noutcomes);
		s.outcomes = outcomes;
		s.unclassified = st->tg.scn->unclassified;
	}
	/* What the exploration covered (coverage.c): one statement. */
	explore_coverage_text(st, cov, sizeof(cov));
	s.coverage = cov;
	s.coverage_kind = explore_coverage_kind(st);
	if (explore_systematic(o->strategy)) {
		struct pr_coverage c;

		explore_coverage(st, &c);
		s.systematic = 1;
		s.executions = c.executions;
		s.blocked = c.blocked;
		s.complete = c.complete;
		s.bound = c.bound;
		s.bound_cut = c.bound_cut;
		s.stopped = st->stopped;
	}
	if (o->json)
		explore_summary_print(stdout, &s);
	else
		explore_summary_text(stdout, &s);
}

/*
 * Does one process not suffice (--worker-runs: more runs than a worker
 * may make)?  Then explore_jobs runs them in one worker at a time.  A
 * dfs or dpor search carries its tree from run to run, so it stays in
 * one process.
 */
static int explore_worker_replaced(const struct explore_state *st)
{
	const struct explore_opts *o = &st->o;

	if (!o->worker_runs || explore_systematic(o->strategy))
		return 0;
	return o->time_budget > 0 || st->len > o->worker_runs;
}

int cmd_explore(int argc, char **argv)
{
	struct explore_state st;
	struct explore_opts *o = &st.o;
	double elapsed;
	int rc;

	memset(&st, 0, sizeof(st));
	if (explore_parse_opts(argc, argv, o))
		return EXIT_BADINPUT;
	if (o->output && pr_outfile_is(o->output, argv[optind])) {
		fprintf(stderr, "%s explore: error: %s: the output is the program being explored\n",
			pr_argv0, o->output);
		return EXIT_BADINPUT;
	}
	if (target_resolve(argv[optind], &st.tg))
		return EXIT_BADINPUT;
	if (st.tg.scn)
		apply_scenario(o, &st.tg);
	if (explore_check_strategy(o, "explore") ||
	    cli_memory_select(o->memory, "explore")) {
		target_release(&st.tg);
		return EXIT_BADINPUT;
	}
	/* A systematic search's runs are a budget; a generous one. */
	if (explore_systematic(o->strategy) && !(o->set & SET_RUNS) &&
	    !(st.tg.scn && st.tg.scn->explore.runs))
		o->runs = 1000000;
	/* Run indices are 64-bit: the last one must not wrap. */
	if (o->first_run > (o->time_budget > 0 ? INT64_MAX : UINT64_MAX - o->runs)) {
		fprintf(stderr, "%s explore: error: --first-run %" PRIu64 " with %" PRIu64 " runs passes the last run index, %" PRIu64 "\n",
			pr_argv0, o->first_run, o->runs, UINT64_MAX);
		target_release(&st.tg);
		return EXIT_BADINPUT;
	}
	if (explore_needs_steps(o->strategy) && o->params.pct_steps == 0) {
		o->params.pct_steps = pr_pct_calibrate(st.tg.prog, &o->run,
						       o->seed);
		if (st.tg.scn)	/* the calibration runs are not explored */
			scenario_reset_stats(st.tg.scn);
	}
	if (explore_systematic(o->strategy)) {
		o->params.shard = o->shard;
		o->params.shards = o->shards;
	}
	st.strat = pr_strategy_create(o->strategy, &o->params);
	if (!st.strat || pr_strategy_calibrate(st.strat, st.tg.prog, &o->run,
					       o->seed)) {
		fprintf(stderr, "%s explore: error: cannot create strategy %s\n",
			pr_argv0, o->strategy);
		if (st.strat)
			st.strat->ops->destroy(st.strat);
		target_release(&st.tg);
		return EXIT_BADINPUT;
	}
	if (st.tg.scn)	/* trial runs (surw) are not explored either */
		scenario_reset_stats(st.tg.scn);
	/* Slice I of N: runs * I / N up to runs * (I + 1) / N, exactly. */
	st.lo = o->first_run;
	st.len = o->runs;
	if (o->shards && explore_systematic(o->strategy)) {
		/* The strategy splits its tree instead; the budget is a shard's. */
	} else if (o->shards) {
		uint64_t base = o->runs / o->shards, rem = o->runs % o->shards;

		st.lo += base * o->shard + (o->shard < rem ? o->shard : rem);
		st.len = base + (o->shard < rem);
	}
	st.tty = !o->quiet && !o->json && isatty(STDERR_FILENO);
	/* Temporaries of explorations killed while saving (SIGKILL). */
	pr_outfile_clean_stale(o->trace_dir);
	interrupt_catch();
	st.t0 = explore_now();
	if (o->jobs > 1 && explore_systematic(o->strategy))
		rc = explore_jobs_tree(&st);
	else if (o->jobs > 1 || explore_worker_replaced(&st))
		rc = explore_jobs(&st);
	else
		rc = explore_loop(&st);
	elapsed = explore_now() - st.t0;
	if (st.tty)
		fputc('\n', stderr);
	print_summary(&st, elapsed);
	st.strat->ops->destroy(st.strat);
	target_release(&st.tg);
	for (size_t i = 0; i < st.nfailed; i++) {
		free(st.failed[i].message);
		free(st.failed[i].trace);
	}
	free(st.failed);
	if (interrupt_pending() && rc != EXIT_BADINPUT)
		rc = 128 + interrupt_pending();
	return rc;
}
