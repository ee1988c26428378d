/* SPDX-License-Identifier: MIT */
/*
 * explore_opts.c - `pagerace explore`'s command line: its help text and
 * options, parsed into struct explore_opts (explore.h).
 */
#include "config.h"
#include "cli/cli.h"
#include "cli/explore.h"
#include "model/variant.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
"  -s, --strategy NAME   portfolio (default: surw, pos and pct in turn,\n"
"                        run by run), random, pct, pos (partial order\n"
"                        sampling), surw (selectively uniform random\n"
"                        walk); dfs or dpor (systematic: every schedule,\n"
"                        or one per equivalence class)\n"
"  -n, --runs N          number of runs (default 10000; dfs and dpor:\n"
"                        an execution budget, default 1000000)\n"
"      --preemption-bound K  dfs, dpor: at most K preemptions per execution\n"
"                            (none: no bound, not even the scenario's)\n"
"      --first-run I     index of the first run (default 0)\n"
"  -t, --time SECONDS    stop after this long instead (runs stay exact)\n"
"      --seed S          exploration seed (default 1)\n"
"  -d, --depth D         PCT depth: D-1 priority change points (default 3)\n"
"      --pct-steps K     PCT's estimated run length, over which pos and\n"
"                        the portfolio spread interrupts (default: measured)\n"
"      --max-steps N     a run longer than N steps is a livelock (default 100000)\n"
"  -m, --memory MODEL    sc (default: sequential consistency), tso (x86\n"
"                        store buffers) or weak (the kernel's memory model)\n"
"  -p, --protocol P      page-cache protocol: locked, v2 (default), merged\n"
"  -K, --knob NAME       plant a known bug back (repeatable; see doc/variants.md)\n"
"      --radix-shift N   RADIX_TREE_MAP_SHIFT of the model's trees: 1-3 (default 2)\n"
"  -k, --keep-going      do not stop at the first failure\n"
"  -j, --jobs N          fork N worker processes (default 1); the same output\n"
"      --worker-runs N   random, pct: a fresh worker process every N runs\n"
"                        (0: never; default 0, in pagerace-tsan 5000: the\n"
"                        ThreadSanitizer runtime grows with every run)\n"
"      --shard I/N       explore only slice I (0 to N-1) of the runs, for\n"
"                        spreading one exploration over machines ('merge')\n"
"  -o, --output FILE     write the first failing trace to FILE\n"
"      --trace-dir DIR   where failing traces go (default " EXPLORE_TRACE_DIR "/)\n"
"      --json            print a machine-readable summary on stdout\n"
"      --no-timing       leave timing (runs/s, elapsed_s) out of the summary\n"
"  -q, --quiet           no progress line\n"
"  -h, --help            this text\n"
"\n"
"Runs are numbered from 0: run #192 is the 193rd run of its seed.  SIGINT\n"
"or SIGTERM stops at the end of the current run and prints the summary\n"
"of the runs done.\n"
"\n"
"Exit status: 0 no failure, 1 failure found, 2 bad input, 130 or 143\n"
"interrupted by SIGINT or SIGTERM.\n",
		pr_argv0, pr_argv0);
}

enum { OPT_SEED = 256, OPT_PCT_STEPS, OPT_MAX_STEPS, OPT_JSON, OPT_FIRST,
       OPT_TRACE_DIR, OPT_RADIX_SHIFT, OPT_SHARD, OPT_NO_TIMING, OPT_BOUND,
       OPT_WORKER_RUNS, OPT_MEMORY };

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
	{ "memory", required_argument, NULL, 'm' },
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
	{ "worker-runs", required_argument, NULL, OPT_WORKER_RUNS },
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

static int bad_positive(const char *opt, const char *arg)
{
	fprintf(stderr, "%s explore: error: %s needs a whole number of at least 1, not '%s'\n",
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

int explore_parse_opts(int argc, char **argv, struct explore_opts *o)
{
	uint64_t v;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	/* bench/samplers.sh: the most robust sampler on the scenarios. */
	o->strategy = "portfolio";
	o->params.pct_depth = 3;
	o->seed = 1;
	o->runs = 10000;
	o->jobs = 1;
	o->worker_runs = EXPLORE_WORKER_RUNS;
	o->trace_dir = EXPLORE_TRACE_DIR;
	pr_run_options_default(&o->run);
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "s:n:t:d:ko:qhp:K:j:m:", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 's':
			o->strategy = optarg;
			o->set |= SET_STRATEGY;
			break;
		case 'n':
			if (parse_u64(optarg, &o->runs) || o->runs == 0)
				return bad_positive("--runs", optarg);
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
				return bad_positive("--pct-steps", optarg);
			o->set |= SET_PCT_STEPS;
			break;
		case OPT_BOUND:
			/* "none": no bound, not even the scenario's. */
			o->set |= SET_BOUND;
			if (!strcmp(optarg, "none")) {
				o->params.has_bound = 0;
				break;
			}
			if (parse_u64(optarg, &v) || v > 1000) {
				fprintf(stderr, "%s explore: error: --preemption-bound needs a number from 0 to 1000 or 'none', not '%s'\n",
					pr_argv0, optarg);
				return -1;
			}
			o->params.has_bound = 1;
			o->params.preemption_bound = (int)v;
			break;
		case OPT_MAX_STEPS:
			if (parse_u64(optarg, &o->run.max_steps) ||
			    o->run.max_steps == 0 || o->run.max_steps > UINT32_MAX) {
				fprintf(stderr, "%s explore: error: --max-steps needs a number from 1 to %" PRIu32 ", not '%s'\n",
					pr_argv0, UINT32_MAX, optarg);
				return -1;
			}
			o->set |= SET_MAX_STEPS;
			break;
		case 'm':
		case OPT_MEMORY:
			if (cli_memory_parse(optarg, "explore", &o->memory))
				return -1;
			o->set |= SET_MEMORY;
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
		case OPT_WORKER_RUNS:
			if (parse_u64(optarg, &v))
				return bad_number("--worker-runs", optarg);
			o->worker_runs = v;
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

