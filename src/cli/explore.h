/* SPDX-License-Identifier: MIT */
/*
 * explore.h - what explore.c shares with jobs.c (parallel workers) and
 * merge.c (summaries of shards).
 *
 * An exploration covers runs [first, first + runs) of one seed.  However
 * they are split -- one process, --jobs workers, --shard slices -- the
 * failures are reported in run order by explore_failure(), and the summary
 * is printed by explore_summary_print(), so the output is the same.
 */
#ifndef PAGERACE_CLI_EXPLORE_H
#define PAGERACE_CLI_EXPLORE_H

#include <stdint.h>
#include <stdio.h>
#include "cli/cli.h"
#include "runtime/run.h"
#include "strategy/strategy.h"

/*
 * Where explore saves failing traces unless told (--trace-dir): a folder
 * of the current directory, named so that it is never the source tree's
 * traces/, whose files are fixtures of the regression suite.
 */
#define EXPLORE_TRACE_DIR	"pagerace-traces"

/*
 * --worker-runs' default.  ThreadSanitizer's thread registry never frees
 * the context of a destroyed fiber (about 240 bytes: its registry is built
 * without a quarantine, so dead contexts are never reused), and every run
 * makes fresh fibers (runtime/tsan.h: a fiber's history must not outlive
 * its run).  pagerace-tsan therefore explores random and pct runs in a
 * worker process that is replaced every 5000 runs, which bounds its
 * memory (doc/tsan.md, "Memory"); runs are pure functions of their index,
 * so the output is that of one process (jobs.c).  The plain build's
 * memory is flat: one process, as before.
 */
#if defined(PR_TSAN) && PR_TSAN
#define EXPLORE_WORKER_RUNS	5000
#else
#define EXPLORE_WORKER_RUNS	0
#endif

struct explore_opts {
	const char *strategy;
	struct pr_strategy_params params;
	struct pr_run_options run;
	uint64_t seed, runs, first_run;
	double time_budget;	/* seconds; 0: none */
	int keep_going, json, quiet, no_timing;
	unsigned jobs;		/* worker processes; 1: this one */
	uint64_t worker_runs;	/* replace a worker after this many runs; 0 never */
	unsigned shard, shards;	/* --shard I/N; shards 0: none */
	const char *output;	/* trace path for the first failure */
	const char *trace_dir;
	unsigned set;		/* SET_*: given on the command line */
	int memory;		/* memory/memory.h: PR_MEM_SC (default) ... */
};

/* One failing run, as the summary lists it. */
struct summary_failure {
	uint64_t run, step;
	char kind[32];
	char *message, *trace;	/* owned by whoever filled the list */
};

/* What the command line set overrides a scenario's defaults. */
enum { SET_STRATEGY = 1, SET_RUNS = 2, SET_SEED = 4, SET_DEPTH = 8,
       SET_PCT_STEPS = 16, SET_MAX_STEPS = 32, SET_PROTOCOL = 64,
       SET_KNOBS = 128, SET_SHIFT = 256, SET_BOUND = 512, SET_MEMORY = 1024 };

/* Parse explore's command line into @o; -1 (said on stderr) if bad. */
int explore_parse_opts(int argc, char **argv, struct explore_opts *o);

/* An exploration under way: its options, target, strategy and counts. */
struct explore_state {
	struct explore_opts o;
	struct target tg;
	struct pr_strategy *strat;
	uint64_t lo, len;	/* the runs explored: [lo, lo + len) */
	uint64_t done, failures, first_run;
	struct pr_run_result first;
	char first_path[4096];
	struct summary_failure *failed;	/* every failure, in run order */
	size_t nfailed;
	int tty;
	double t0, last_progress;
	uint64_t blocked;	/* runs a systematic strategy abandoned */
	int stopped;		/* STOP_*: why the loop ended early */
	struct pr_coverage merged;	/* --jobs: the parts' together */
	int has_merged;
};

enum { STOP_NONE, STOP_BUDGET, STOP_TIME, STOP_FAILURE, STOP_INTERRUPT };

/*
 * coverage.c: the strategies explore knows, checked against the other
 * options (@cmd names the command in errors); and what an exploration
 * covered, as one statement: "exhaustive: ...", "bounded: ...",
 * "sampled: ..." or "incomplete: ...", and its first word.
 */
int explore_check_strategy(const struct explore_opts *o, const char *cmd);
int explore_systematic(const char *strategy);
/* Does @strategy need PCT's run length k (params.pct_steps)? */
int explore_needs_steps(const char *strategy);
void explore_coverage_text(const struct explore_state *st, char *buf,
			   size_t len);
const char *explore_coverage_kind(const struct explore_state *st);
/*
 * The same from plain numbers (merge recomputes the whole's): a
 * systematic search's, whose @c->shard == @c->shards means "all the
 * shards, merged"; and a sampler's.
 */
struct pr_coverage;
const char *explore_statement_kind(const struct pr_coverage *c);
void explore_statement_text(const char *strategy, const struct pr_coverage *c,
			    uint64_t failures, int stopped, char *buf,
			    size_t len);
void explore_sampled_text(const char *strategy, int pct_depth, uint64_t runs,
			  uint64_t failures, char *buf, size_t len);

/*
 * explore_run.c, the runs of one process, which explore.c, jobs.c and
 * jobs_tree.c call (and which call none of them).  Run @run failed with
 * @res and schedule @rec: save its trace and print it (unless --json).
 * Returns 0, or -1 if the trace could not be saved (said on stderr).
 * Counts the failure.
 */
int explore_failure(struct explore_state *st, uint64_t run,
		    const struct pr_run_result *res, struct pr_schedule *rec);
/* The progress line on a terminal (rate-limited). */
void explore_progress(struct explore_state *st);
/* Explore [st->lo, st->lo + st->len) in this process. */
int explore_loop(struct explore_state *st);
/* The monotonic clock, in seconds. */
double explore_now(void);
/*
 * The variant's knobs, comma-separated in the registry's order, into
 * @knobs (truncated at @size); returns 0 when no knob is on.
 */
size_t explore_format_knobs(char *knobs, size_t size);

/* jobs.c: explore [st->lo, st->lo + st->len) with st->o.jobs workers. */
int explore_jobs(struct explore_state *st);
/*
 * jobs_tree.c: a dfs or dpor search in st->o.jobs parts, one worker each,
 * each running explore_loop in its own process.
 */
int explore_jobs_tree(struct explore_state *st);
/* coverage.c: what a systematic search covered (merged parts for --jobs). */
void explore_coverage(const struct explore_state *st, struct pr_coverage *c);

/*
 * The version of the --json summary's layout.  1: the keys before this
 * field existed (no "schema" key); 2: schema, interrupted, the model's
 * settings, failed_runs and outcomes.  merge reads every version up to
 * this one and refuses a newer one.
 */
#define EXPLORE_SCHEMA		2

/* A row of a scenario's outcome table, as the summary shows it. */
struct summary_outcome {
	const char *cls;	/* acceptable, interesting, forbidden */
	const char *desc;
	uint64_t count;
};

/*
 * A summary, as `explore` prints it (text, or one JSON object with
 * --json) and `merge` reads and writes it.  Everything either printer
 * says comes from here, so a new statement (a strategy's coverage, say)
 * is a field here and a line in each printer of summary.c.
 */
struct explore_summary {
	int schema;		/* of the JSON read (merge); printed: EXPLORE_SCHEMA */
	const char *program, *strategy;
	uint64_t seed, first_run, runs, failures;
	uint64_t planned;	/* runs asked for; 0: a time budget */
	double elapsed;
	int timing;		/* print elapsed_s, runs/s */
	int keep_going;
	int pct;		/* print pct_depth, pct_steps */
	int pct_depth;
	uint64_t pct_steps;
	int sharded;		/* print shard, shards, slice_first, slice_runs */
	uint64_t shard, shards, slice_first, slice_runs;
	int has_first;
	uint64_t ff_run, ff_step;
	const char *ff_kind, *ff_message, *ff_trace;
	/* schema 2 */
	int interrupted;	/* stopped early by a signal */
	const char *signal;	/* its name, "SIGINT" */
	int has_model;		/* the model's settings below are known */
	const char *protocol, *memory;
	const char *knobs;	/* comma-separated; "" for none */
	unsigned radix_shift;
	uint64_t max_steps;
	int has_failed_list;	/* failed_runs is known (schema 2) */
	size_t nfailed;		/* every failure's record (-k: several) */
	const struct summary_failure *failed;
	int has_outcomes;	/* a scenario's outcome table */
	size_t noutcomes;
	const struct summary_outcome *outcomes;
	uint64_t unclassified;
	/* the coverage statement (main's systematic strategies) */
	const char *coverage, *coverage_kind;	/* NULL: not known */
	int systematic;		/* dfs, dpor: print what the search covered */
	uint64_t executions, blocked;
	int complete, bound, bound_cut, stopped;	/* STOP_* */
	/* a scenario's expect line: a verdict kind, "pass", NULL: none */
	const char *expect;
};

/* summary.c: one JSON object on one line. */
void explore_summary_print(FILE *f, const struct explore_summary *s);
/* summary.c: the text summary: counts line, outcome table, interruption. */
void explore_summary_text(FILE *f, const struct explore_summary *s);
/*
 * summary.c: was @s's expect line met?  1 or 0, and in @why (if not
 * NULL) what was found: "run #252 is a double-free", "no failure in 2000
 * runs", "the first failure is bad-page (run #7)".  An expected kind is
 * met by any failure of that kind the summary lists (-k lists several);
 * "pass" by no failure at all.  -1 if @s has no expectation.
 */
int explore_expect_met(const struct explore_summary *s, char *why, size_t len);
/* "1 failure", "2 failures": @n and @word, plural unless n is 1. */
const char *plural(uint64_t n, const char *word, char *buf, size_t len);
/* "193rd": the ordinal of @n. */
const char *ordinal(uint64_t n, char *buf, size_t len);

#endif /* PAGERACE_CLI_EXPLORE_H */
