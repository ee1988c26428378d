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
#include "cli/cli.h"
#include "cli/explore.h"
#include "report/verdict.h"
#include "model/variant.h"
#include "scenario/scenario.h"
#include "trace/trace.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What the command line set overrides a scenario's defaults. */
enum { SET_STRATEGY = 1, SET_RUNS = 2, SET_SEED = 4, SET_DEPTH = 8,
       SET_PCT_STEPS = 16, SET_MAX_STEPS = 32, SET_PROTOCOL = 64,
       SET_KNOBS = 128, SET_SHIFT = 256, SET_BOUND = 512 };

static void explore_usage(FILE *f)
{
	fprintf(f,
"usage: %s explore [OPTIONS] PROGRAM|SCENARIO-FILE\n"
"\n"
"Run PROGRAM (see '%s list') or a scenario file (pagerace-scenario(5))\n"
"repeatedly under a scheduling strategy.  Stop at the first failing run,\n"
"save its trace and print the replay command.  A scenario's protocol, knobs,\n"
"radix shift and explore settings apply unless an option below overrides\n"
"them ('-K none': no knobs).\n"
"\n"
"  -s, --strategy NAME   random (default), pct, dfs or dpor (systematic:\n"
"                        every schedule, or one per equivalence class)\n"
"  -n, --runs N          number of runs (default 10000; dfs and dpor:\n"
"                        an execution budget, default 1000000)\n"
"      --preemption-bound K  dfs: at most K preemptions per execution\n"
"      --first-run I     index of the first run (default 0)\n"
"  -t, --time SECONDS    stop after this long instead (runs stay exact)\n"
"      --seed S          exploration seed (default 1)\n"
"  -d, --depth D         PCT depth: D-1 priority change points (default 3)\n"
"      --pct-steps K     PCT's estimated run length (default: measured)\n"
"      --max-steps N     a run longer than N steps is a livelock (default 100000)\n"
"  -p, --protocol P      page-cache protocol: locked, v2 (default), merged\n"
"  -K, --knob NAME       plant a known bug back (repeatable; see doc/variants.md)\n"
"      --radix-shift N   RADIX_TREE_MAP_SHIFT of the model's trees: 1-3 (default 2)\n"
"  -k, --keep-going      do not stop at the first failure\n"
"  -j, --jobs N          fork N worker processes (default 1); the same output\n"
"      --shard I/N       explore only slice I (0 to N-1) of the runs, for\n"
"                        spreading one exploration over machines ('merge')\n"
"  -o, --output FILE     write the first failing trace to FILE\n"
"      --trace-dir DIR   where failing traces go (default traces/)\n"
"      --json            print a machine-readable summary on stdout\n"
"      --no-timing       leave timing (runs/s, elapsed_s) out of the summary\n"
"  -q, --quiet           no progress line\n"
"  -h, --help            this text\n"
"\n"
"Exit status: 0 no failure, 1 failure found, 2 bad input.\n",
		pr_argv0, pr_argv0);
}

enum { OPT_SEED = 256, OPT_PCT_STEPS, OPT_MAX_STEPS, OPT_JSON, OPT_FIRST,
       OPT_TRACE_DIR, OPT_RADIX_SHIFT, OPT_SHARD, OPT_NO_TIMING, OPT_BOUND };

static const struct option long_opts[] = {
	{ "strategy", required_argument, NULL, 's' },
	{ "runs", required_argument, NULL, 'n' },
	{ "first-run", required_argument, NULL, OPT_FIRST },
	{ "time", required_argument, NULL, 't' },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "depth", required_argument, NULL, 'd' },
	{ "pct-steps", required_argument, NULL, OPT_PCT_STEPS },
	{ "preemption-bound", required_argument, NULL, OPT_BOUND },
	{ "max-steps", required_argument, NULL, OPT_MAX_STEPS },
	{ "protocol", required_argument, NULL, 'p' },
	{ "knob", required_argument, NULL, 'K' },
	{ "radix-shift", required_argument, NULL, OPT_RADIX_SHIFT },
	{ "keep-going", no_argument, NULL, 'k' },
	{ "output", required_argument, NULL, 'o' },
	{ "trace-dir", required_argument, NULL, OPT_TRACE_DIR },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "no-timing", no_argument, NULL, OPT_NO_TIMING },
	{ "jobs", required_argument, NULL, 'j' },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int bad_number(const char *opt, const char *arg)
{
	fprintf(stderr, "%s explore: error: %s needs a whole number, not '%s'\n",
		pr_argv0, opt, arg);
	return -1;
}

/* "I/N": slice I of N, 0 <= I < N. */
static int parse_shard(const char *arg, struct explore_opts *o)
{
	const char *slash = strchr(arg, '/');
	uint64_t i, n;
	char buf[32];

	if (slash && (size_t)(slash - arg) < sizeof(buf)) {
		memcpy(buf, arg, (size_t)(slash - arg));
		buf[slash - arg] = '\0';
		if (!parse_u64(buf, &i) && !parse_u64(slash + 1, &n) &&
		    n >= 1 && n <= 1000000 && i < n) {
			o->shard = (unsigned)i;
			o->shards = (unsigned)n;
			return 0;
		}
	}
	fprintf(stderr, "%s explore: error: --shard needs I/N with 0 <= I < N, not '%s'\n",
		pr_argv0, arg);
	return -1;
}

static int parse_opts(int argc, char **argv, struct explore_opts *o)
{
	uint64_t v;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->strategy = "random";
	o->params.pct_depth = 3;
	o->seed = 1;
	o->runs = 10000;
	o->jobs = 1;
	o->trace_dir = "traces";
	pr_run_options_default(&o->run);
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "s:n:t:d:ko:qhp:K:j:", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 's':
			o->strategy = optarg;
			o->set |= SET_STRATEGY;
			break;
		case 'n':
			if (parse_u64(optarg, &o->runs) || o->runs == 0)
				return bad_number("--runs", optarg);
			o->set |= SET_RUNS;
			break;
		case OPT_FIRST:
			if (parse_u64(optarg, &o->first_run))
				return bad_number("--first-run", optarg);
			break;
		case 't':
			errno = 0;
			o->time_budget = strtod(optarg, &end);
			if (errno || *end || !(o->time_budget > 0)) {
				fprintf(stderr, "%s explore: error: --time needs a positive number of seconds, not '%s'\n",
					pr_argv0, optarg);
				return -1;
			}
			break;
		case OPT_SEED:
			if (parse_u64(optarg, &o->seed))
				return bad_number("--seed", optarg);
			o->set |= SET_SEED;
			break;
		case 'd':
			if (parse_u64(optarg, &v) || v < 1 || v > 16) {
				fprintf(stderr, "%s explore: error: --depth needs a number from 1 to 16, not '%s'\n",
					pr_argv0, optarg);
				return -1;
			}
			o->params.pct_depth = (int)v;
			o->set |= SET_DEPTH;
			break;
		case OPT_PCT_STEPS:
			if (parse_u64(optarg, &o->params.pct_steps) ||
			    o->params.pct_steps == 0)
				return bad_number("--pct-steps", optarg);
			o->set |= SET_PCT_STEPS;
			break;
		case OPT_BOUND:
			if (parse_u64(optarg, &v) || v > 1000) {
				fprintf(stderr, "%s explore: error: --preemption-bound needs a number from 0 to 1000, not '%s'\n",
					pr_argv0, optarg);
				return -1;
			}
			o->params.has_bound = 1;
			o->params.preemption_bound = (int)v;
			o->set |= SET_BOUND;
			break;
		case OPT_MAX_STEPS:
			if (parse_u64(optarg, &o->run.max_steps) ||
			    o->run.max_steps == 0 || o->run.max_steps > UINT32_MAX)
				return bad_number("--max-steps", optarg);
			o->set |= SET_MAX_STEPS;
			break;
		case 'k':
			o->keep_going = 1;
			break;
		case 'p':
			if (variant_protocol_parse(optarg, &variant.protocol)) {
				fprintf(stderr, "%s explore: error: unknown protocol '%s' (locked, v2, merged)\n",
					pr_argv0, optarg);
				return -1;
			}
			o->set |= SET_PROTOCOL;
			break;
		case 'K': {
			enum pr_knob k;

			if (!(o->set & SET_KNOBS))
				variant.knobs = 0;	/* the command line's set */
			o->set |= SET_KNOBS;
			if (!strcmp(optarg, "none"))
				break;

			if (variant_knob_parse(optarg, &k)) {
				fprintf(stderr, "%s explore: error: unknown knob '%s' (see doc/variants.md)\n",
					pr_argv0, optarg);
				return -1;
			}
			variant.knobs |= k;
			break;
		}
		case OPT_RADIX_SHIFT:
			if (parse_u64(optarg, &v) || v < 1 || v > 3) {
				fprintf(stderr, "%s explore: error: --radix-shift needs 1, 2 or 3, not '%s'\n",
					pr_argv0, optarg);
				return -1;
			}
			variant.radix_map_shift = (unsigned)v;
			o->set |= SET_SHIFT;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_TRACE_DIR:
			o->trace_dir = optarg;
			break;
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_NO_TIMING:
			o->no_timing = 1;
			break;
		case 'j':
			if (parse_u64(optarg, &v) || v < 1 || v > 256) {
				fprintf(stderr, "%s explore: error: --jobs needs a number from 1 to 256, not '%s'\n",
					pr_argv0, optarg);
				return -1;
			}
			o->jobs = (unsigned)v;
			break;
		case OPT_SHARD:
			if (parse_shard(optarg, o))
				return -1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			explore_usage(stdout);
			exit(EXIT_NOFAIL);
		default:
			if (optopt && optopt < 256)
				fprintf(stderr, "%s explore: error: unknown or incomplete option '-%c'\n",
					pr_argv0, optopt);
			else
				fprintf(stderr, "%s explore: error: unknown or incomplete option '%s'\n",
					pr_argv0, argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s explore: error: %s\n", pr_argv0,
			optind >= argc ? "which program? (see 'pagerace list')"
				       : "exactly one program, please");
		return -1;
	}
	if (o->shards && o->time_budget > 0) {
		fprintf(stderr, "%s explore: error: --shard needs a number of runs, not --time\n",
			pr_argv0);
		return -1;
	}
	return explore_check_strategy(o, "explore");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The model's variant travels with the trace, so replay can restore it. */
static void variant_to_options(struct pr_trace *t)
{
	char knobs[256] = "", num[16];
	size_t off = 0;

	pr_trace_set_option(t, "protocol", variant_protocol_name(variant.protocol));
	for (unsigned i = 0; i < variant_nr_knobs(); i++) {
		enum pr_knob k = variant_knob_at(i);

		if ((variant.knobs & k) && off < sizeof(knobs))
			off += (size_t)snprintf(knobs + off, sizeof(knobs) - off,
						"%s%s", off ? "," : "",
						variant_knob_name(k));
	}
	pr_trace_set_option(t, "knobs", off ? knobs : "none");
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
	if (x->max_steps && !(o->set & SET_MAX_STEPS))
		o->run.max_steps = x->max_steps;
	if (x->has_bound && !(o->set & SET_BOUND)) {
		o->params.has_bound = 1;
		o->params.preemption_bound = x->bound;
	}
}

/* How the runs ended, by the scenario's outcome classes. */
static void print_outcomes(const struct scenario *scn)
{
	static const char *const cls[] = { "acceptable", "interesting",
					   "forbidden" };

	if (!scn->noutcomes)
		return;
	printf("outcomes:\n");
	for (int i = 0; i < scn->noutcomes; i++)
		if (scn->outcome[i].cls != SCN_FORBIDDEN)
			printf("  %-11s %8llu  %s\n", cls[scn->outcome[i].cls],
			       (unsigned long long)scn->outcome[i].seen,
			       scn->outcome[i].desc);
}

static int save_trace(const struct target *tg, const struct explore_opts *o,
		      uint64_t run, const struct pr_run_result *res,
		      struct pr_schedule *rec, char *path, size_t pathlen)
{
	struct pr_trace t;
	char err[512], num[32];
	int rc;

	if (o->output && path[0] == '\0') {
		snprintf(path, pathlen, "%s", o->output);
	} else {
		if (mkdir(o->trace_dir, 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "%s explore: error: cannot create %s: %s\n",
				pr_argv0, o->trace_dir, strerror(errno));
			return -1;
		}
		char what[64];

		/* A systematic search has no seed; its shards number alike. */
		if (explore_systematic(o->strategy) && o->shards)
			snprintf(what, sizeof(what), "%s-shard%uof%u", o->strategy,
				 o->shard, o->shards);
		else if (explore_systematic(o->strategy))
			snprintf(what, sizeof(what), "%s", o->strategy);
		else
			snprintf(what, sizeof(what), "seed%llu",
				 (unsigned long long)o->seed);
		snprintf(path, pathlen, "%s/%s-%s-run%llu.trace", o->trace_dir,
			 tg->short_name, what, (unsigned long long)run);
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
	snprintf(num, sizeof(num), "%llu", (unsigned long long)o->run.max_steps);
	pr_trace_set_option(&t, "max-steps", num);
	variant_to_options(&t);
	rc = pr_trace_write(path, &t, err, sizeof(err));
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

void explore_progress(struct explore_state *st)
{
	double elapsed;

	if (!st->tty)
		return;
	elapsed = now() - st->t0;
	if (elapsed - st->last_progress < 0.25)
		return;
	st->last_progress = elapsed;
	fprintf(stderr, "\r%s: %llu runs, %.0f runs/s, %llu failures, %.1fs   ",
		st->tg.name, (unsigned long long)st->done,
		elapsed > 0 ? st->done / elapsed : 0.0,
		(unsigned long long)st->failures, elapsed);
}

int explore_failure(struct explore_state *st, uint64_t run,
		    const struct pr_run_result *res, struct pr_schedule *rec)
{
	char path[4096] = "";

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
	if (save_trace(&st->tg, &st->o, run, res, rec, path, sizeof(path)))
		return -1;
	if (st->tty)
		fputc('\n', stderr);
	if (!st->o.json) {
		printf("%s: FAILED at run %llu (seed %llu, strategy %s)\n",
		       st->tg.name, (unsigned long long)run,
		       (unsigned long long)st->o.seed, st->o.strategy);
		pr_report_verdict(stdout, res, rec->n);
		printf("  trace:    %s\n  replay:   %s replay %s\n",
		       path, pr_argv0, path);
	}
	if (st->failures == 1) {
		st->first = *res;
		st->first_run = run;
		snprintf(st->first_path, sizeof(st->first_path), "%s", path);
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

static void print_summary(struct explore_state *st, double elapsed)
{
	const struct explore_opts *o = &st->o;
	char cov[256];

	if (o->json) {
		struct explore_summary s;

		memset(&s, 0, sizeof(s));
		s.program = st->tg.name;
		s.strategy = o->strategy;
		s.seed = o->seed;
		s.first_run = o->first_run;
		s.runs = st->done;
		s.failures = st->failures;
		s.elapsed = elapsed;
		s.timing = !o->no_timing;
		s.keep_going = o->keep_going;
		s.pct = !strcmp(o->strategy, "pct");
		s.pct_depth = o->params.pct_depth;
		s.pct_steps = o->params.pct_steps;
		s.sharded = o->shards != 0;
		s.shard = o->shard;
		s.shards = o->shards;
		s.slice_first = st->lo;
		s.slice_runs = st->len;
		s.has_first = st->failures != 0;
		s.ff_run = st->first_run;
		s.ff_step = st->first.verdict.step;
		s.ff_kind = st->first.verdict.kind;
		s.ff_message = st->first.verdict.msg;
		s.ff_trace = st->first_path;
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
		explore_summary_print(stdout, &s);
		return;
	}
	printf("%s: %llu runs, %llu failures (strategy %s, seed %llu",
	       st->tg.name, (unsigned long long)st->done,
	       (unsigned long long)st->failures, o->strategy,
	       (unsigned long long)o->seed);
	if (!strcmp(o->strategy, "pct"))
		printf(", depth %d, k %llu", o->params.pct_depth,
		       (unsigned long long)o->params.pct_steps);
	if (o->shards)
		printf(", shard %u/%u", o->shard, o->shards);
	if (o->no_timing)
		printf(")\n");
	else
		printf("), %.0f runs/s\n",
		       elapsed > 0 ? st->done / elapsed : 0.0);
	explore_coverage_text(st, cov, sizeof(cov));
	printf("coverage: %s\n", cov);
	if (st->tg.scn)
		print_outcomes(st->tg.scn);
}

int cmd_explore(int argc, char **argv)
{
	struct explore_state st;
	struct explore_opts *o = &st.o;
	double elapsed;
	int rc;

	memset(&st, 0, sizeof(st));
	if (parse_opts(argc, argv, o))
		return EXIT_BADINPUT;
	if (target_resolve(argv[optind], &st.tg))
		return EXIT_BADINPUT;
	if (st.tg.scn)
		apply_scenario(o, &st.tg);
	if (explore_check_strategy(o, "explore")) {
		target_release(&st.tg);
		return EXIT_BADINPUT;
	}
	/* A systematic search's runs are a budget; a generous one. */
	if (explore_systematic(o->strategy) && !(o->set & SET_RUNS) &&
	    !(st.tg.scn && st.tg.scn->explore.runs))
		o->runs = 1000000;
	if (!strcmp(o->strategy, "pct") && o->params.pct_steps == 0) {
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
	if (!st.strat) {
		fprintf(stderr, "%s explore: error: cannot create strategy %s\n",
			pr_argv0, o->strategy);
		target_release(&st.tg);
		return EXIT_BADINPUT;
	}
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
	st.t0 = now();
	if (o->jobs > 1 && explore_systematic(o->strategy))
		rc = explore_jobs_tree(&st);
	else if (o->jobs > 1)
		rc = explore_jobs(&st);
	else
		rc = explore_loop(&st);
	elapsed = now() - st.t0;
	if (st.tty)
		fputc('\n', stderr);
	print_summary(&st, elapsed);
	st.strat->ops->destroy(st.strat);
	target_release(&st.tg);
	return rc;
}
