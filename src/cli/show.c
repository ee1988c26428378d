/* SPDX-License-Identifier: MIT */
/*
 * show.c - `pagerace show TRACE`: replay a trace with full
 * instrumentation and print its report -- as text (the default), as
 * Chrome Trace Event JSON or as an HTML/SVG swimlane picture.
 */
#include "cli/cli.h"
#include "report/events.h"
#include "report/report.h"
#include "trace/trace.h"
#include "util/outfile.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum format { F_TEXT, F_CHROME, F_HTML };

static void show_usage(FILE *f)
{
	fprintf(f,
"usage: %s show [OPTIONS] TRACE\n"
"\n"
"Replay TRACE with full instrumentation and print its report: the failure,\n"
"the failing access and the earlier accesses it conflicts with, each with\n"
"its backtrace, and a timeline with one column per context.\n"
"\n"
"  -f, --format FMT   text (default), chrome (Trace Event JSON for Perfetto\n"
"                     or chrome://tracing) or html (an SVG swimlane page)\n"
"  -o, --output FILE  write to FILE instead of standard output: a regular\n"
"                     file whole (a temporary renamed over it), through a\n"
"                     symlink to its target, into a device or FIFO as is\n"
"  -h, --help         this text\n"
"\n"
"Exit status: 0 the run passed, 1 it failed (as recorded), 2 bad trace or\n"
"divergence.\n",
		pr_argv0);
}

static const struct option long_opts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void render(FILE *f, enum format fmt, struct pr_report *r)
{
	switch (fmt) {
	case F_TEXT:
		pr_report_text(f, r);
		break;
	case F_CHROME:
		pr_report_chrome(f, r);
		break;
	case F_HTML:
		pr_report_html(f, r);
		break;
	}
}

struct render_arg {
	enum format fmt;
	struct pr_report *r;
};

static int fill_report(FILE *f, void *arg, char *msg, size_t msglen)
{
	struct render_arg *a = arg;

	render(f, a->fmt, a->r);
	if (ferror(f)) {
		snprintf(msg, msglen, "cannot write: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int cmd_show(int argc, char **argv)
{
	struct pr_trace t;
	struct target tg;
	struct pr_run_options ro;
	struct pr_run_result res;
	struct pr_event_log log;
	struct pr_report r;
	const char *out = NULL;
	enum format fmt = F_TEXT;
	char title[256];
	int c, rc;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "f:o:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "text"))
				fmt = F_TEXT;
			else if (!strcmp(optarg, "chrome") || !strcmp(optarg, "json"))
				fmt = F_CHROME;
			else if (!strcmp(optarg, "html"))
				fmt = F_HTML;
			else {
				fprintf(stderr, "%s show: error: unknown format '%s' (text, chrome or html)\n",
					pr_argv0, optarg);
				return EXIT_BADINPUT;
			}
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			show_usage(stdout);
			return EXIT_NOFAIL;
		default:
			fprintf(stderr, "%s show: error: %s option '%s'\n", pr_argv0,
				optopt && strchr("fo", optopt) ? "missing argument to" : "unknown",
				argv[optind - 1]);
			return EXIT_BADINPUT;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s show: error: %s\n", pr_argv0,
			optind >= argc ? "which trace?" : "exactly one trace, please");
		return EXIT_BADINPUT;
	}
	if (out && pr_outfile_is(out, argv[optind])) {
		fprintf(stderr, "%s show: error: %s: the output is the trace being shown\n",
			pr_argv0, out);
		return EXIT_BADINPUT;
	}
	if (replay_load(argv[optind], &t, &tg, &ro))
		return EXIT_BADINPUT;
	pr_event_log_init(&log);
	pr_events_replay(&log, tg.prog, &t.sched, &ro, t.seed, t.run, NULL, 0,
			 NULL, &res);
	if (res.diverged || res.failed != t.result.failed ||
	    res.steps != t.result.steps ||
	    (res.failed && !replay_same_verdict(&res.verdict, &t.result.verdict))) {
		fprintf(stderr, "%s: divergence: %s\n", argv[optind],
			res.diverged ? res.verdict.msg :
			"the replay did not reproduce the recorded run");
		replay_flavour_note(argv[optind], &t);
		rc = EXIT_BADINPUT;
		goto out;
	}
	replay_title(&t, title, sizeof(title));
	if (pr_report_init(&r, &log, &res, title)) {
		fprintf(stderr, "%s show: error: out of memory\n", pr_argv0);
		rc = EXIT_BADINPUT;
		goto out;
	}
	rc = res.failed ? EXIT_FOUND : EXIT_NOFAIL;
	if (out) {
		struct render_arg a = { fmt, &r };
		char err[1024];

		if (pr_outfile_write(out, fill_report, &a, err, sizeof(err))) {
			fprintf(stderr, "%s show: error: %s\n", pr_argv0, err);
			rc = EXIT_BADINPUT;
		}
	} else {
		render(stdout, fmt, &r);
		if (fflush(stdout)) {
			fprintf(stderr, "%s show: error: cannot write the report\n",
				pr_argv0);
			rc = EXIT_BADINPUT;
		}
	}
	pr_report_free(&r);
out:
	pr_event_log_free(&log);
	pr_trace_free(&t);
	return rc;
}
