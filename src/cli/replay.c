/* SPDX-License-Identifier: MIT */
/*
 * replay.c - `pagerace replay TRACE`: re-execute a recorded run exactly.
 *
 * The replay strategy checks at every decision that the recorded choice is
 * enabled and that the running context stopped at the recorded site; the
 * command then checks that the run took the same schedule and reached the
 * same verdict at the same step.  Any difference is a divergence (exit 2),
 * never a silently different run.
 */
#include "cli/cli.h"
#include "litmus/litmus.h"
#include "report/events.h"
#include "report/report.h"
#include "report/verdict.h"
#include "model/variant.h"
#include "trace/trace.h"
#include "programs/programs.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void replay_usage(FILE *f)
{
	fprintf(f,
"usage: %s replay [OPTIONS] TRACE\n"
"\n"
"Re-execute the run recorded in TRACE, step for step, and confirm that it\n"
"reaches the recorded verdict at the recorded step.\n"
"\n"
"  -l, --log     print every step: number, context, yield point, object\n"
"  -b, --break-at STEP\n"
"                raise SIGTRAP just before step STEP runs (for gdb; see\n"
"                doc/replay.md)\n"
"  -q, --quiet   print nothing but errors (no report)\n"
"  -h, --help    this text\n"
"\n"
"Exit status: 0 the recorded run passed and so did the replay, 1 the\n"
"recorded failure was reproduced, 2 bad trace or divergence.\n",
		pr_argv0);
}

static const struct option long_opts[] = {
	{ "log", no_argument, NULL, 'l' },
	{ "break-at", required_argument, NULL, 'b' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int replay_same_verdict(const struct pr_verdict *a, const struct pr_verdict *b)
{
	return !strcmp(a->kind, b->kind) && a->step == b->step &&
	       a->ctx == b->ctx && a->in_event == b->in_event &&
	       !strcmp(a->obj, b->obj) && !strcmp(a->site, b->site) &&
	       !strcmp(a->msg, b->msg);
}

/* The first segment where two schedules part, or -1 if they are equal. */
static long first_difference(const struct pr_schedule *a,
			     const struct pr_schedule *b)
{
	size_t n = a->n < b->n ? a->n : b->n;

	for (size_t i = 0; i < n; i++)
		if (a->seg[i].code != b->seg[i].code ||
		    a->seg[i].steps != b->seg[i].steps)
			return (long)i;
	return a->n == b->n ? -1 : (long)n;
}

/* --log: one line per step, in the order they run. */
static void log_step(const struct pr_site *site, const void *obj, int ctx,
		     uint64_t step)
{
	char label[128], name[64];
	const char *f = strstr(site->file, "src/");

	printf("%6llu %-8s %-40s %-16s %s:%d\n", (unsigned long long)step,
	       pr_ctx_name(ctx), pr_site_label(site, label, sizeof(label)),
	       pr_obj_name(obj, name, sizeof(name)), f ? f : site->file,
	       site->line);
}

/* Restore the model variant the trace was recorded with. */
static int variant_from_options(const struct pr_trace *t, const char *path)
{
	const char *p = pr_trace_option(t, "protocol");
	const char *k = pr_trace_option(t, "knobs");
	const char *r = pr_trace_option(t, "radix-shift");
	uint64_t shift;

	if (p && variant_protocol_parse(p, &variant.protocol)) {
		fprintf(stderr, "%s: error: unknown protocol '%s'\n", path, p);
		return -1;
	}
	variant.knobs = 0;
	if (k && strcmp(k, "none")) {
		char buf[256], *save = NULL, *tok;

		snprintf(buf, sizeof(buf), "%s", k);
		for (tok = strtok_r(buf, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			enum pr_knob kn;

			if (variant_knob_parse(tok, &kn)) {
				fprintf(stderr, "%s: error: unknown knob '%s'\n",
					path, tok);
				return -1;
			}
			variant.knobs |= kn;
		}
	}
	if (r) {
		if (parse_u64(r, &shift) || shift < 1 || shift > 3) {
			fprintf(stderr, "%s: error: bad radix-shift '%s'\n", path, r);
			return -1;
		}
		variant.radix_map_shift = (unsigned)shift;
	}
	return 0;
}

/*
 * A data-race verdict exists only under ThreadSanitizer, so such a trace
 * is replayed by pagerace-tsan: the plain binary says which command to
 * use instead of reporting a divergence.  Any other trace replays in
 * both (doc/tsan.md): the flavours schedule alike, so a pagerace-tsan
 * trace whose verdict is not a data race is the same run in pagerace, and
 * a plain trace replays under pagerace-tsan unless ThreadSanitizer
 * reports a race first, which replay_flavour_note() then explains.
 */
static int replay_flavour_ok(const char *path, const struct pr_trace *t)
{
	/* A version 1 trace has no flavour, but its verdict says it. */
	if (t->flavour != PR_TRACE_PLAIN &&
	    pr_trace_build_flavour() != PR_TRACE_TSAN &&
	    t->result.failed && !strcmp(t->result.verdict.kind, "data-race")) {
		fprintf(stderr, "%s: error: this trace's data race was found by "
			"pagerace-tsan (the ThreadSanitizer flavour) and replays "
			"only there: pagerace-tsan replay %s\n", path, path);
		return -1;
	}
	return 0;
}

void replay_flavour_note(const char *path, const struct pr_trace *t)
{
	if (t->flavour == PR_TRACE_PLAIN &&
	    pr_trace_build_flavour() == PR_TRACE_TSAN)
		fprintf(stderr, "%s: note: this trace was made by pagerace "
			"(plain), whose runs ThreadSanitizer does not stop; "
			"replay it with: pagerace replay %s\n", path, path);
}

int replay_load(const char *path, struct pr_trace *t, struct target *tg,
		struct pr_run_options *ro)
{
	const char *opt;
	char err[1024];

	if (pr_trace_read(path, t, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (replay_flavour_ok(path, t)) {
		pr_trace_free(t);
		return -1;
	}
	/* Built-in programs embed no text: an edited version 1 trace. */
	if (t->program_text && pr_program_find(t->program)) {
		fprintf(stderr, "%s: error: the trace names the built-in program "
			"'%s' but embeds a scenario text; was its 'program' line "
			"edited?\n", path, t->program);
		pr_trace_free(t);
		return -1;
	}
	/* A scenario runs from the text the trace embeds, not the file. */
	if (t->program_text ? target_from_text(t->program, t->program_text,
					       path, t->program_text_line, tg)
			    : target_resolve(t->program, tg)) {
		pr_trace_free(t);
		return -1;
	}
	pr_run_options_default(ro);
	opt = pr_trace_option(t, "max-steps");
	if (opt && (parse_u64(opt, &ro->max_steps) || ro->max_steps == 0)) {
		fprintf(stderr, "%s: error: bad max-steps option '%s'\n",
			path, opt);
		pr_trace_free(t);
		return -1;
	}
	if (variant_from_options(t, path)) {
		pr_trace_free(t);
		return -1;
	}
	/* Versions 1 and 2 ran under sc; 3 names its model. */
	if (cli_memory_select(t->memory, "replay")) {
		pr_trace_free(t);
		return -1;
	}
	return 0;
}

void replay_title(const struct pr_trace *t, char *buf, size_t len)
{
	const char *k = pr_trace_option(t, "knobs");
	const char *p = pr_trace_option(t, "protocol");

	if (k && strcmp(k, "none"))
		snprintf(buf, len, "%s (%s%s%s)", t->program, k,
			 p ? ", protocol " : "", p ? p : "");
	else if (p)
		snprintf(buf, len, "%s (protocol %s)", t->program, p);
	else
		snprintf(buf, len, "%s", t->program);
}

void replay_print_report(FILE *f, const struct pr_trace *t,
			 const struct pr_event_log *log,
			 const struct pr_run_result *res)
{
	struct pr_report r;
	char title[256];

	replay_title(t, title, sizeof(title));
	if (pr_report_init(&r, log, res, title)) {
		fprintf(stderr, "%s: error: out of memory for the report\n",
			pr_argv0);
		return;
	}
	fputc('\n', f);
	pr_report_text(f, &r);
	pr_report_free(&r);
}

int cmd_replay(int argc, char **argv)
{
	struct pr_trace t;
	struct target tg;
	struct pr_event_log log;
	struct pr_run_options ro;
	struct pr_run_result res;
	struct pr_schedule rec;
	uint64_t break_at = 0;
	long diff;
	int c, quiet = 0, log_steps = 0, rc;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "lb:qh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = 1;
			break;
		case 'l':
			log_steps = 1;
			break;
		case 'b':
			if (parse_u64(optarg, &break_at) || break_at == 0) {
				fprintf(stderr, "%s replay: error: bad step '%s' for --break-at\n",
					pr_argv0, optarg);
				return EXIT_BADINPUT;
			}
			break;
		case 'h':
			replay_usage(stdout);
			return EXIT_NOFAIL;
		default:
			fprintf(stderr, "%s replay: error: unknown option '%s'\n",
				pr_argv0, argv[optind - 1]);
			return EXIT_BADINPUT;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s replay: error: %s\n", pr_argv0,
			optind >= argc ? "which trace?" : "exactly one trace, please");
		return EXIT_BADINPUT;
	}
	if (replay_load(argv[optind], &t, &tg, &ro))
		return EXIT_BADINPUT;
	/* Always instrumented: the report needs every step. */
	pr_event_log_init(&log);
	pr_schedule_init(&rec);
	if (tg.lit)
		litmus_outcomes_reset(tg.lit);
	pr_events_replay(&log, tg.prog, &t.sched, &ro, t.seed, t.run,
			 log_steps ? log_step : NULL, break_at, &rec, &res);
	diff = first_difference(&rec, &t.sched);

	if (res.diverged) {
		fprintf(stderr, "%s: divergence: %s\n", argv[optind],
			res.verdict.msg);
		replay_flavour_note(argv[optind], &t);
		rc = EXIT_BADINPUT;
	} else if (res.failed != t.result.failed ||
		   (res.failed && !replay_same_verdict(&res.verdict, &t.result.verdict)) ||
		   res.steps != t.result.steps || diff >= 0) {
		fprintf(stderr, "%s: divergence: the replay did not reproduce the recorded run\n",
			argv[optind]);
		fprintf(stderr, "  recorded: ");
		if (t.result.failed)
			pr_report_verdict_line(stderr, &t.result.verdict);
		else
			fprintf(stderr, "no failure in %llu steps\n",
				(unsigned long long)t.result.steps);
		fprintf(stderr, "  replayed: ");
		if (res.failed)
			pr_report_verdict_line(stderr, &res.verdict);
		else
			fprintf(stderr, "no failure in %llu steps\n",
				(unsigned long long)res.steps);
		if (diff >= 0)
			fprintf(stderr, "  schedules part at segment %ld\n", diff);
		replay_flavour_note(argv[optind], &t);
		rc = EXIT_BADINPUT;
	} else if (res.failed) {
		if (!quiet) {
			printf("%s: reproduced %s (run %llu, seed %llu, strategy %s)\n",
			       tg.name, res.verdict.kind,
			       (unsigned long long)t.run,
			       (unsigned long long)t.seed, t.strategy);
			pr_report_verdict(stdout, &res, rec.n);
			replay_print_report(stdout, &t, &log, &res);
		}
		rc = EXIT_FOUND;
	} else {
		if (!quiet)
			printf("%s: replayed %llu steps, no failure (as recorded)\n",
			       tg.name, (unsigned long long)res.steps);
		/* A litmus run (a witness): the final state it reached. */
		if (!quiet && tg.lit && litmus_noutcomes(tg.lit) == 1) {
			char buf[1024];
			uint64_t n;
			int holds;

			litmus_outcome(tg.lit, 0, buf, sizeof(buf), &n, &holds);
			printf("  final state %s %s %s\n", buf,
			       holds ? "satisfies" : "does not satisfy",
			       litmus_cond_text(tg.lit));
		}
		rc = EXIT_NOFAIL;
	}
	pr_schedule_free(&rec);
	pr_event_log_free(&log);
	pr_trace_free(&t);
	return rc;
}
