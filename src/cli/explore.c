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

struct explore_opts {
	const char *strategy;
	struct pr_strategy_params params;
	struct pr_run_options run;
	uint64_t seed, runs, first_run;
	double time_budget;	/* seconds; 0: none */
	int keep_going, json, quiet;
	const char *output;	/* trace path for the first failure */
	const char *trace_dir;
	unsigned set;		/* SET_*: given on the command line */
};

/* What the command line set overrides a scenario's defaults. */
enum { SET_STRATEGY = 1, SET_RUNS = 2, SET_SEED = 4, SET_DEPTH = 8,
       SET_PCT_STEPS = 16, SET_MAX_STEPS = 32, SET_PROTOCOL = 64,
       SET_KNOBS = 128, SET_SHIFT = 256 };

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
"  -s, --strategy NAME   random (default) or pct\n"
"  -n, --runs N          number of runs (default 10000)\n"
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
"  -o, --output FILE     write the first failing trace to FILE\n"
"      --trace-dir DIR   where failing traces go (default traces/)\n"
"      --json            print a machine-readable summary on stdout\n"
"  -q, --quiet           no progress line\n"
"  -h, --help            this text\n"
"\n"
"Exit status: 0 no failure, 1 failure found, 2 bad input.\n",
		pr_argv0, pr_argv0);
}

enum { OPT_SEED = 256, OPT_PCT_STEPS, OPT_MAX_STEPS, OPT_JSON, OPT_FIRST,
       OPT_TRACE_DIR, OPT_RADIX_SHIFT };

static const struct option long_opts[] = {
	{ "strategy", required_argument, NULL, 's' },
	{ "runs", required_argument, NULL, 'n' },
	{ "first-run", required_argument, NULL, OPT_FIRST },
	{ "time", required_argument, NULL, 't' },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "depth", required_argument, NULL, 'd' },
	{ "pct-steps", required_argument, NULL, OPT_PCT_STEPS },
	{ "max-steps", required_argument, NULL, OPT_MAX_STEPS },
	{ "protocol", required_argument, NULL, 'p' },
	{ "knob", required_argument, NULL, 'K' },
	{ "radix-shift", required_argument, NULL, OPT_RADIX_SHIFT },
	{ "keep-going", no_argument, NULL, 'k' },
	{ "output", required_argument, NULL, 'o' },
	{ "trace-dir", required_argument, NULL, OPT_TRACE_DIR },
	{ "json", no_argument, NULL, OPT_JSON },
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
	o->trace_dir = "traces";
	pr_run_options_default(&o->run);
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "s:n:t:d:ko:qhp:K:", long_opts,
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
	if (strcmp(o->strategy, "random") && strcmp(o->strategy, "pct")) {
		fprintf(stderr, "%s explore: error: unknown strategy '%s' (random, pct)\n",
			pr_argv0, o->strategy);
		return -1;
	}
	return 0;
}

/*
 * PCT needs the run length k.  Measure it the same way every time: the
 * longest of a few random runs reserved for calibration (run indexes
 * counted down from the top, never explored), so k depends on the seed
 * alone and not on which runs this process explores.
 */
static uint64_t calibrate_pct(const struct target *tg,
			      const struct explore_opts *o)
{
	struct pr_strategy *r = pr_random_create();
	struct pr_run_result res;
	uint64_t k = 1;

	if (!r)
		return 100;
	for (uint64_t i = 0; i < 4; i++) {
		pr_run_once(tg->prog, r, &o->run, o->seed, UINT64_MAX - i, NULL,
			    &res);
		if (res.steps > k)
			k = res.steps;
	}
	r->ops->destroy(r);
	return k;
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

		if (knob(k) && off < sizeof(knobs))
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
		snprintf(path, pathlen, "%s/%s-seed%llu-run%llu.trace",
			 o->trace_dir, tg->short_name, (unsigned long long)o->seed,
			 (unsigned long long)run);
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

static void progress(const struct target *tg, uint64_t done, uint64_t failures,
		     double elapsed)
{
	fprintf(stderr, "\r%s: %llu runs, %.0f runs/s, %llu failures, %.1fs   ",
		tg->name, (unsigned long long)done,
		elapsed > 0 ? done / elapsed : 0.0,
		(unsigned long long)failures, elapsed);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

int cmd_explore(int argc, char **argv)
{
	struct explore_opts o;
	struct target tg;
	struct pr_strategy *strat;
	struct pr_schedule rec;
	struct pr_run_result res, first;
	char path[4096] = "", first_path[4096] = "";
	uint64_t run, done = 0, failures = 0, first_run = 0;
	double t0, last_progress = 0, elapsed = 0;
	int tty, rc = EXIT_NOFAIL;

	if (parse_opts(argc, argv, &o))
		return EXIT_BADINPUT;
	if (target_resolve(argv[optind], &tg))
		return EXIT_BADINPUT;
	if (tg.scn)
		apply_scenario(&o, &tg);
	if (!strcmp(o.strategy, "pct") && o.params.pct_steps == 0)
		o.params.pct_steps = calibrate_pct(&tg, &o);
	strat = pr_strategy_create(o.strategy, &o.params);
	if (!strat) {
		fprintf(stderr, "%s explore: error: cannot create strategy %s\n",
			pr_argv0, o.strategy);
		return EXIT_BADINPUT;
	}
	tty = !o.quiet && !o.json && isatty(STDERR_FILENO);
	pr_schedule_init(&rec);
	memset(&first, 0, sizeof(first));
	t0 = now();
	for (run = o.first_run; ; run++) {
		if (o.time_budget > 0) {
			if ((done & 255) == 0 && (elapsed = now() - t0) >= o.time_budget)
				break;
		} else if (done == o.runs) {
			break;
		}
		if (pr_run_once(tg.prog, strat, &o.run, o.seed, run, &rec, &res)) {
			failures++;
			path[0] = '\0';
			if (save_trace(&tg, &o, run, &res, &rec, path, sizeof(path))) {
				rc = EXIT_BADINPUT;
				done++;
				break;
			}
			if (tty)
				fputc('\n', stderr);
			if (!o.json) {
				printf("%s: FAILED at run %llu (seed %llu, strategy %s)\n",
				       tg.name, (unsigned long long)run,
				       (unsigned long long)o.seed, o.strategy);
				pr_report_verdict(stdout, &res, rec.n);
				printf("  trace:    %s\n  replay:   %s replay %s\n",
				       path, pr_argv0, path);
			}
			if (failures == 1) {
				first = res;
				first_run = run;
				snprintf(first_path, sizeof(first_path), "%s", path);
			}
			rc = EXIT_FOUND;
			done++;
			if (!o.keep_going)
				break;
			continue;
		}
		done++;
		if (tty && (done & 1023) == 0) {
			elapsed = now() - t0;
			if (elapsed - last_progress >= 0.25) {
				progress(&tg, done, failures, elapsed);
				last_progress = elapsed;
			}
		}
	}
	elapsed = now() - t0;
	if (tty)
		fputc('\n', stderr);
	if (o.json) {
		printf("{\"program\":");
		json_string(tg.name);
		printf(",\"strategy\":\"%s\",\"seed\":%llu,\"first_run\":%llu,"
		       "\"runs\":%llu,\"failures\":%llu,\"elapsed_s\":%.3f",
		       o.strategy, (unsigned long long)o.seed,
		       (unsigned long long)o.first_run,
		       (unsigned long long)done, (unsigned long long)failures,
		       elapsed);
		if (!strcmp(o.strategy, "pct"))
			printf(",\"pct_depth\":%d,\"pct_steps\":%llu",
			       o.params.pct_depth,
			       (unsigned long long)o.params.pct_steps);
		if (failures) {
			printf(",\"first_failure\":{\"run\":%llu,\"kind\":",
			       (unsigned long long)first_run);
			json_string(first.verdict.kind);
			printf(",\"step\":%llu,\"message\":",
			       (unsigned long long)first.verdict.step);
			json_string(first.verdict.msg);
			printf(",\"trace\":");
			json_string(first_path);
			printf("}");
		}
		printf("}\n");
	} else {
		printf("%s: %llu runs, %llu failures (strategy %s, seed %llu",
		       tg.name, (unsigned long long)done,
		       (unsigned long long)failures, o.strategy,
		       (unsigned long long)o.seed);
		if (!strcmp(o.strategy, "pct"))
			printf(", depth %d, k %llu", o.params.pct_depth,
			       (unsigned long long)o.params.pct_steps);
		printf("), %.0f runs/s\n", elapsed > 0 ? done / elapsed : 0.0);
		if (tg.scn)
			print_outcomes(tg.scn);
	}
	pr_schedule_free(&rec);
	strat->ops->destroy(strat);
	target_release(&tg);
	return rc;
}
