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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The variant's knobs, comma-separated in the registry's order, into
 * @knobs (truncated at @size); returns 0 when no knob is on.
 */
static size_t format_knobs(char *knobs, size_t size)
{
	size_t off = 0;

	knobs[0] = '\0';
	for (unsigned i = 0; i < variant_nr_knobs(); i++) {
		enum pr_knob k = variant_knob_at(i);

		if ((variant.knobs & k) && off < size)
			off += (size_t)snprintf(knobs + off, size - off,
						"%s%s", off ? "," : "",
						variant_knob_name(k));
	}
	return off;
}

/* The model's variant travels with the trace, so replay can restore it. */
static void variant_to_options(struct pr_trace *t)
{
	char knobs[512], num[16];

	pr_trace_set_option(t, "protocol", variant_protocol_name(variant.protocol));
	pr_trace_set_option(t, "knobs",
			    format_knobs(knobs, sizeof(knobs)) ? knobs : "none");
	snprintf(num, sizeof(num), "%u", variant.radix_map_shift);
	pr_trace_set_option(t, "radix-shift", num);
}

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

static int save_trace(const struct target *tg, const struct explore_opts *o,
		      uint64_t run, const struct pr_run_result *res,
		      struct pr_schedule *rec, char *path, size_t pathlen)
{
	struct pr_trace t;
	char err[512], num[32];
	int rc, fresh = 0;

	if (o->output && path[0] == '\0') {
		snprintf(path, pathlen, "%s", o->output);
	} else {
		if (mkdir(o->trace_dir, 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "%s explore: error: %s: cannot create the trace folder: %s\n",
				pr_argv0, o->trace_dir, strerror(errno));
			return -1;
		}
		char what[64], model[48] = "";

		/*
		 * The name says what a run depends on besides the program:
		 * the memory model (when not sc), the flavour (when TSan),
		 * the seed or the systematic search, and the run.  Protocol,
		 * knobs and the rest live in the trace; a name another trace
		 * already holds gets a "-2" suffix (pr_trace_write_new).
		 */
		if (o->memory != PR_MEM_SC)
			snprintf(model, sizeof(model), "-%s", pr_mem_name(o->memory));
		if (pr_trace_build_flavour() == PR_TRACE_TSAN)
			strncat(model, "-tsan", sizeof(model) - strlen(model) - 1);
		/* A systematic search has no seed; its shards number alike. */
		if (explore_systematic(o->strategy) && o->shards)
			snprintf(what, sizeof(what), "%s-shard%uof%u", o->strategy,
				 o->shard, o->shards);
		else if (explore_systematic(o->strategy))
			snprintf(what, sizeof(what), "%s", o->strategy);
		else
			snprintf(what, sizeof(what), "seed%llu",
				 (unsigned long long)o->seed);
		snprintf(path, pathlen, "%s/%s%s-%s-run%llu.trace", o->trace_dir,
			 tg->short_name, model, what, (unsigned long long)run);
		fresh = 1;
	}
	pr_trace_init(&t);
	t.program = (char *)tg->name;
	t.program_text = tg->text;	/* NULL for a built-in program */
	t.strategy = (char *)o->strategy;
	t.params = o->params;
	t.seed = o->seed;
	t.run = run;
	t.result = *res;
	t.sched = *rec;
	t.memory = o->memory;
	snprintf(num, sizeof(num), "%llu", (unsigned long long)o->run.max_steps);
	pr_trace_set_option(&t, "max-steps", num);
	variant_to_options(&t);
	/* -o names the file to write; a trace folder's files are never replaced. */
	rc = fresh ? pr_trace_write_new(path, pathlen, &t, err, sizeof(err))
		   : pr_trace_write(path, &t, err, sizeof(err));
	/* The strings and the schedule are borrowed: only free the options. */
	t.program = t.strategy = t.program_text = NULL;
	pr_schedule_init(&t.sched);
	pr_trace_free(&t);
	if (rc) {
		fprintf(stderr, "%s explore: error: %s\n", pr_argv0, err);
		return -1;
	}
	return 0;
}

/* "1h02m", "3m05s", "42s": a duration for the progress line. */
static const char *duration(double secs, char *buf, size_t len)
{
	uint64_t t = secs > 0 ? (uint64_t)(secs + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%" PRIu64 "h%02um", t / 3600,
			 (unsigned)(t % 3600 / 60));
	else if (t >= 60)
		snprintf(buf, len, "%um%02us", (unsigned)(t / 60),
			 (unsigned)(t % 60));
	else
		snprintf(buf, len, "%us", (unsigned)t);
	return buf;
}

/*
 * The progress line on a terminal: with a known number of runs, the
 * total, the percentage done and an estimate of the time left (from the
 * rate so far); under --time, the time spent of the budget.
 */
void explore_progress(struct explore_state *st)
{
	char fails[48], a[32], b[32];
	double elapsed, rate;

	if (!st->tty)
		return;
	elapsed = now() - st->t0;
	if (elapsed - st->last_progress < 0.25)
		return;
	st->last_progress = elapsed;
	rate = elapsed > 0 ? st->done / elapsed : 0.0;
	plural(st->failures, "failure", fails, sizeof(fails));
	if (st->o.time_budget > 0)
		fprintf(stderr, "\r%s: %llu runs, %.0f runs/s, %s, %s elapsed of %s   ",
			st->tg.name, (unsigned long long)st->done, rate, fails,
			duration(elapsed, a, sizeof(a)),
			duration(st->o.time_budget, b, sizeof(b)));
	else
		fprintf(stderr, "\r%s: %llu/%llu runs (%.0f%%), %.0f runs/s, %s, ETA %s   ",
			st->tg.name, (unsigned long long)st->done,
			(unsigned long long)st->len,
			st->len ? 100.0 * st->done / st->len : 100.0, rate, fails,
			rate > 0 ? duration((st->len - st->done) / rate, a, sizeof(a))
				 : "?");
}

/* Keep @res's record for the summary's list of failing runs. */
static int remember_failure(struct explore_state *st, uint64_t run,
			    const struct pr_run_result *res, const char *path)
{
	struct summary_failure *f;

	f = realloc(st->failed, (st->nfailed + 1) * sizeof(*f));
	if (!f)
		return -1;
	st->failed = f;
	f += st->nfailed;
	memset(f, 0, sizeof(*f));
	f->run = run;
	f->step = res->verdict.step;
	snprintf(f->kind, sizeof(f->kind), "%s", res->verdict.kind);
	f->message = strdup(res->verdict.msg);
	f->trace = strdup(path);
	if (!f->message || !f->trace) {
		free(f->message);
		free(f->trace);
		return -1;
	}
	st->nfailed++;
	return 0;
}

int explore_failure(struct explore_state *st, uint64_t run,
		    const struct pr_run_result *res, struct pr_schedule *rec)
{
	char path[4096] = "", nth[32];
	int saved;

	/*
	 * A body misused what it holds (scn_runtime_error, "LINE:COL: ..."):
	 * bad input, reported where it is, never a race and never a trace.
	 */
	if (!strcmp(res->verdict.kind, SCN_ERROR_KIND)) {
		const char *m = res->verdict.msg, *sep = strstr(m, ": ");

		if (st->tty)
			fputc('\n', stderr);
		fprintf(stderr, "%s:%.*s: error: %s (run %llu)\n", st->tg.name,
			sep ? (int)(sep - m) : 0, m, sep ? sep + 2 : m,
			(unsigned long long)run);
		return -1;
	}
	st->failures++;
	if (st->tty)
		fputc('\n', stderr);
	/* The verdict first: it is news even if the trace cannot be saved. */
	if (!st->o.json) {
		printf("%s: FAILED at run #%llu (the %s; seed %llu, strategy %s)\n",
		       st->tg.name, (unsigned long long)run,
		       ordinal(run + 1, nth, sizeof(nth)),
		       (unsigned long long)st->o.seed, st->o.strategy);
		pr_report_verdict(stdout, res, rec->n);
		fflush(stdout);
	}
	saved = !save_trace(&st->tg, &st->o, run, res, rec, path, sizeof(path));
	if (!saved)
		return -1;
	if (!st->o.json)
		printf("  trace:    %s\n  replay:   %s replay %s\n",
		       path, pr_argv0, path);
	if (st->failures == 1) {
		st->first = *res;
		st->first_run = run;
		snprintf(st->first_path, sizeof(st->first_path), "%s", path);
	}
	if (remember_failure(st, run, res, path)) {
		fprintf(stderr, "%s explore: error: out of memory\n", pr_argv0);
		return -1;
	}
	return 0;
}

/* Explore [st->lo, st->lo + st->len) in this process. */
int explore_loop(struct explore_state *st)
{
	struct pr_schedule rec;
	struct pr_run_result res;
	int rc = EXIT_NOFAIL;

	pr_schedule_init(&rec);
	for (uint64_t run = st->lo; ; run++) {
		if (interrupt_pending()) {
			st->stopped = STOP_INTERRUPT;
			break;
		}
		if (st->strat->ops->exhausted &&
		    st->strat->ops->exhausted(st->strat))
			break;
		if (st->o.time_budget > 0) {
			if ((st->done & 255) == 0 &&
			    now() - st->t0 >= st->o.time_budget) {
				st->stopped = STOP_TIME;
				break;
			}
		} else if (st->done == st->len) {
			st->stopped = STOP_BUDGET;
			break;
		}
		if (pr_run_once(st->tg.prog, st->strat, &st->o.run, st->o.seed,
				run, &rec, &res)) {
			st->done++;
			if (explore_failure(st, run, &res, &rec)) {
				rc = EXIT_BADINPUT;
				break;
			}
			rc = EXIT_FOUND;
			if (!st->o.keep_going) {
				st->stopped = STOP_FAILURE;
				break;
			}
			continue;
		}
		st->done++;
		if (res.abandoned)
			st->blocked++;
		if ((st->done & 1023) == 0)
			explore_progress(st);
	}
	pr_schedule_free(&rec);
	return rc;
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
	format_knobs(knobs, sizeof(knobs));
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
	st.t0 = now();
	if (o->jobs > 1 && explore_systematic(o->strategy))
		rc = explore_jobs_tree(&st);
	else if (o->jobs > 1 || explore_worker_replaced(&st))
		rc = explore_jobs(&st);
	else
		rc = explore_loop(&st);
	elapsed = now() - st.t0;
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
