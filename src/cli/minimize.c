/* SPDX-License-Identifier: MIT */
/*
 * minimize.c - `pagerace minimize TRACE`: shrink a failing trace's
 * schedule, keeping its verdict kind and location (report/minimize.h),
 * check that the result replays exactly, and write it as a new trace.
 */
#include "cli/cli.h"
#include "cli/interrupt.h"
#include "cli/explore.h"
#include "report/minimize.h"
#include "trace/trace.h"
#include "util/outfile.h"

#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void minimize_usage(FILE *f)
{
	fprintf(f,
"usage: %s minimize [OPTIONS] TRACE\n"
"\n"
"Shrink the schedule of the failing run in TRACE while keeping the same\n"
"verdict kind at the same yield point on the same object: fewest\n"
"preemptions first, then fewest steps (delta debugging over its\n"
"decisions).  Writes a new trace that replays exactly and prints the\n"
"counts before and after.\n"
"\n"
"  -o, --output FILE   the new trace (default: " EXPLORE_TRACE_DIR "/NAME.min.trace\n"
"                      for TRACE NAME.trace, in the current directory)\n"
"      --max-runs N    candidate runs to try at most (default 20000)\n"
"  -q, --quiet         print nothing but errors\n"
"  -h, --help          this text\n"
"\n"
"Exit status: 1 the failure was reproduced and the minimised trace\n"
"written (as replay exits 1 when it reproduces a failure: the trace\n"
"written is of a failing run), 2 bad input (including a trace of a run\n"
"that passed) or the output cannot be written, 130/143 interrupted by\n"
"SIGINT/SIGTERM (Ctrl-C): the smallest schedule found so far is written.\n",
		pr_argv0);
}

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "max-runs", required_argument, NULL, 'm' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

#define OUT_MAX	4096	/* the longest output name */

/*
 * EXPLORE_TRACE_DIR/NAME.min.trace for TRACE .../NAME.trace: beside the
 * traces explore saves, never beside the input (which may be a fixture
 * of the source tree's traces/).  Creates the folder.
 */
static char *default_output(const char *in)
{
	const char *b = strrchr(in, '/');
	size_t n;
	char *out;

	b = b ? b + 1 : in;
	n = strlen(b);
	if (n > 6 && !strcmp(b + n - 6, ".trace"))
		n -= 6;
	out = malloc(OUT_MAX);	/* room for pr_trace_write_new's suffix */
	if (!out)
		return NULL;
	if (mkdir(EXPLORE_TRACE_DIR, 0777) && errno != EEXIST) {
		fprintf(stderr, "%s minimize: error: %s: cannot create the trace folder: %s\n",
			pr_argv0, EXPLORE_TRACE_DIR, strerror(errno));
		free(out);
		return NULL;
	}
	snprintf(out, OUT_MAX, "%s/%.*s.min.trace", EXPLORE_TRACE_DIR, (int)n, b);
	return out;
}

/* Does @sched replay to exactly @want's run? */
static int replays_exactly(const struct target *tg, const struct pr_trace *t,
			   const struct pr_run_options *ro,
			   const struct pr_schedule *sched,
			   const struct pr_run_result *want)
{
	struct pr_strategy *s = pr_replay_create(sched);
	struct pr_run_result res;
	int ok;

	if (!s)
		return 0;
	pr_run_once(tg->prog, s, ro, t->seed, t->run, NULL, &res);
	s->ops->destroy(s);
	ok = !res.diverged && res.failed && res.steps == want->steps &&
	     res.verdict.step == want->verdict.step &&
	     pr_same_failure(&res, &want->verdict);
	return ok;
}

int cmd_minimize(int argc, char **argv)
{
	struct pr_trace t;
	struct target tg;
	struct pr_run_options ro;
	struct pr_run_result res;
	struct pr_schedule min;
	struct pr_min_stats st;
	uint64_t max_runs = 0;
	char err[1024], from[160], *out = NULL;
	const char *out_arg = NULL;
	int c, quiet = 0, rc = EXIT_BADINPUT;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "o:qh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out_arg = optarg;
			break;
		case 'm':
			if (parse_u64(optarg, &max_runs) || max_runs == 0) {
				fprintf(stderr, "%s minimize: error: bad number '%s' for --max-runs\n",
					pr_argv0, optarg);
				return EXIT_BADINPUT;
			}
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			minimize_usage(stdout);
			return EXIT_NOFAIL;
		default:
			fprintf(stderr, "%s minimize: error: %s option '%s'\n", pr_argv0,
				optopt && strchr("om", optopt) ? "missing argument to" : "unknown",
				argv[optind - 1]);
			return EXIT_BADINPUT;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s minimize: error: %s\n", pr_argv0,
			optind >= argc ? "which trace?" : "exactly one trace, please");
		return EXIT_BADINPUT;
	}
	if (out_arg && pr_outfile_is(out_arg, argv[optind])) {
		fprintf(stderr, "%s minimize: error: %s: the output is the trace being minimised\n",
			pr_argv0, out_arg);
		return EXIT_BADINPUT;
	}
	if (replay_load(argv[optind], &t, &tg, &ro))
		return EXIT_BADINPUT;
	interrupt_catch();
	if (!t.result.failed) {
		fprintf(stderr, "%s: error: the recorded run passed: nothing to minimise\n",
			argv[optind]);
		goto out;
	}
	out = out_arg ? strdup(out_arg) : default_output(argv[optind]);
	if (!out) {
		if (out_arg)
			fprintf(stderr, "%s minimize: error: out of memory\n",
				pr_argv0);
		goto out;
	}
	if (pr_minimize(tg.prog, &ro, t.seed, t.run, &t.sched, &t.result.verdict,
			max_runs, interrupt_pending, &min, &res, &st, err,
			sizeof(err))) {
		fprintf(stderr, "%s: error: %s\n", argv[optind], err);
		goto out;
	}
	if (!replays_exactly(&tg, &t, &ro, &min, &res)) {
		fprintf(stderr, "%s: error: the minimised schedule does not replay exactly (a pagerace bug)\n",
			argv[optind]);
		pr_schedule_free(&min);
		goto out;
	}
	/* The new trace: the same run, another schedule, its result. */
	snprintf(from, sizeof(from), "%s seed %llu run %llu, %llu preemptions, %llu steps",
		 t.strategy, (unsigned long long)t.seed,
		 (unsigned long long)t.run,
		 (unsigned long long)st.preemptions[0],
		 (unsigned long long)st.steps[0]);
	pr_schedule_free(&t.sched);
	t.sched = min;
	t.result = res;
	free(t.strategy);
	t.strategy = strdup("guided");
	if (!t.strategy || pr_trace_set_option(&t, "minimized-from", from)) {
		fprintf(stderr, "%s minimize: error: out of memory\n", pr_argv0);
		goto out;
	}
	/* -o names the file; the default name never replaces a trace. */
	if (out_arg ? pr_trace_write(out, &t, err, sizeof(err))
		    : pr_trace_write_new(out, OUT_MAX, &t, err, sizeof(err))) {
		fprintf(stderr, "%s minimize: error: %s\n", pr_argv0, err);
		goto out;
	}
	if (!quiet) {
		printf("%s: minimised %s on %s at %s in %llu runs\n", t.program,
		       res.verdict.kind, res.verdict.obj,
		       res.verdict.site[0] ? res.verdict.site : "the end",
		       (unsigned long long)st.runs);
		printf("  preemptions: %llu -> %llu\n",
		       (unsigned long long)st.preemptions[0],
		       (unsigned long long)st.preemptions[1]);
		printf("  steps:       %llu -> %llu\n",
		       (unsigned long long)st.steps[0],
		       (unsigned long long)st.steps[1]);
		printf("  segments:    %llu -> %llu\n",
		       (unsigned long long)st.segments[0],
		       (unsigned long long)st.segments[1]);
		printf("  trace:       %s\n", out);
		printf("  report:      %s show %s\n", pr_argv0, out);
	}
	rc = EXIT_FOUND;
	/* The trace written is whole and replays: the smallest so far. */
	if (st.stopped) {
		printf("%s: interrupted by %s after %llu runs: the smallest "
		       "schedule found so far\n", t.program,
		       interrupt_name(interrupt_pending()),
		       (unsigned long long)st.runs);
		rc = 128 + interrupt_pending();
	}
out:
	free(out);
	pr_trace_free(&t);
	return rc;
}
