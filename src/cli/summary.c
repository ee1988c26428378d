/* SPDX-License-Identifier: MIT */
/*
 * summary.c - the summary at the end of an exploration, as text and as
 * the one-line JSON object of --json (explore.h, struct explore_summary).
 * explore prints it for its runs, merge for the shards it combined.
 *
 * Run numbers are indices: run #0 is the first run of a seed, so the
 * text says "run #192 (the 193rd)" and the JSON's "run" is 192, as in
 * trace names (...-run192.trace), --first-run and `replay`.
 */
#include "config.h"
#include "cli/explore.h"
#include "util/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *plural(uint64_t n, const char *word, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 " %s%s", n, word, n == 1 ? "" : "s");
	return buf;
}

const char *ordinal(uint64_t n, char *buf, size_t len)
{
	const char *sfx = "th";

	if (n % 100 < 11 || n % 100 > 13) {
		if (n % 10 == 1)
			sfx = "st";
		else if (n % 10 == 2)
			sfx = "nd";
		else if (n % 10 == 3)
			sfx = "rd";
	}
	snprintf(buf, len, "%" PRIu64 "%s", n, sfx);
	return buf;
}

/* ---- JSON ----------------------------------------------------------------- */

static void json_knobs(FILE *f, const char *knobs)
{
	const char *p = knobs;

	putc('[', f);
	while (p && *p) {
		size_t n = strcspn(p, ",");
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (p != knobs)
			putc(',', f);
		pr_json_string(f, name);
		p += n;
		if (*p == ',')
			p++;
	}
	putc(']', f);
}

static void json_failure(FILE *f, uint64_t run, const char *kind,
			 uint64_t step, const char *message, const char *trace)
{
	fprintf(f, "{\"run\":%" PRIu64 ",\"kind\":", run);
	pr_json_string(f, kind);
	fprintf(f, ",\"step\":%" PRIu64 ",\"message\":", step);
	pr_json_string(f, message);
	fprintf(f, ",\"trace\":");
	pr_json_string(f, trace);
	putc('}', f);
}

void explore_summary_print(FILE *f, const struct explore_summary *s)
{
	fprintf(f, "{\"schema\":%d,\"program\":", EXPLORE_SCHEMA);
	pr_json_string(f, s->program);
	fprintf(f, ",\"strategy\":");
	pr_json_string(f, s->strategy);
	fprintf(f, ",\"seed\":%" PRIu64 ",\"first_run\":%" PRIu64
		",\"runs\":%" PRIu64 ",\"failures\":%" PRIu64,
		s->seed, s->first_run, s->runs, s->failures);
	if (s->timing)
		fprintf(f, ",\"elapsed_s\":%.6f", s->elapsed);
	fprintf(f, ",\"keep_going\":%s,\"interrupted\":%s",
		s->keep_going ? "true" : "false",
		s->interrupted ? "true" : "false");
	if (s->interrupted && s->signal) {
		fprintf(f, ",\"signal\":");
		pr_json_string(f, s->signal);
	}
	if (s->has_model) {
		fprintf(f, ",\"protocol\":");
		pr_json_string(f, s->protocol);
		fprintf(f, ",\"knobs\":");
		json_knobs(f, s->knobs);
		fprintf(f, ",\"radix_shift\":%u,\"max_steps\":%" PRIu64
			",\"memory\":", s->radix_shift, s->max_steps);
		pr_json_string(f, s->memory);
	}
	if (s->sharded)
		fprintf(f, ",\"shard\":%" PRIu64 ",\"shards\":%" PRIu64
			",\"slice_first\":%" PRIu64 ",\"slice_runs\":%" PRIu64,
			s->shard, s->shards, s->slice_first, s->slice_runs);
	if (s->pct)
		fprintf(f, ",\"pct_depth\":%d,\"pct_steps\":%" PRIu64,
			s->pct_depth, s->pct_steps);
	if (s->systematic)
		fprintf(f, ",\"executions\":%" PRIu64 ",\"blocked\":%" PRIu64
			",\"complete\":%s,\"bound\":%d,\"bound_cut\":%s,\"stopped\":%d",
			s->executions, s->blocked,
			s->complete ? "true" : "false", s->bound,
			s->bound_cut ? "true" : "false", s->stopped);
	if (s->coverage) {
		fprintf(f, ",\"coverage\":");
		pr_json_string(f, s->coverage_kind);
		fprintf(f, ",\"coverage_statement\":");
		pr_json_string(f, s->coverage);
	}
	if (s->has_first) {
		fprintf(f, ",\"first_failure\":");
		json_failure(f, s->ff_run, s->ff_kind, s->ff_step,
			     s->ff_message, s->ff_trace);
	}
	if (s->has_failed_list) {
		fprintf(f, ",\"failed_runs\":[");
		for (size_t i = 0; i < s->nfailed; i++) {
			const struct summary_failure *x = &s->failed[i];

			if (i)
				putc(',', f);
			json_failure(f, x->run, x->kind, x->step, x->message,
				     x->trace);
		}
		putc(']', f);
	}
	if (s->expect) {
		char why[160];

		fprintf(f, ",\"expect\":");
		pr_json_string(f, s->expect);
		fprintf(f, ",\"expect_met\":%s",
			explore_expect_met(s, why, sizeof(why)) ? "true" : "false");
	}
	if (s->has_outcomes) {
		fprintf(f, ",\"outcomes\":[");
		for (size_t i = 0; i < s->noutcomes; i++) {
			const struct summary_outcome *o = &s->outcomes[i];

			fprintf(f, "%s{\"class\":", i ? "," : "");
			pr_json_string(f, o->cls);
			fprintf(f, ",\"count\":%" PRIu64 ",\"description\":",
				o->count);
			pr_json_string(f, o->desc);
			putc('}', f);
		}
		fprintf(f, "],\"unclassified\":%" PRIu64, s->unclassified);
	}
	fprintf(f, "}\n");
}

int explore_expect_met(const struct explore_summary *s, char *why, size_t len)
{
	char nth[32], runs[48];

	if (!s->expect)
		return -1;
	if (!strcmp(s->expect, "pass")) {
		if (!s->failures) {
			snprintf(why, len, "no failure in %s",
				 plural(s->runs, "run", runs, sizeof(runs)));
			return 1;
		}
		snprintf(why, len, "run #%" PRIu64 " is a %s", s->ff_run,
			 s->has_first ? s->ff_kind : "failure");
		return 0;
	}
	for (size_t i = 0; i < s->nfailed; i++)
		if (!strcmp(s->failed[i].kind, s->expect)) {
			snprintf(why, len, "run #%" PRIu64 " (the %s) is a %s",
				 s->failed[i].run,
				 ordinal(s->failed[i].run + 1, nth, sizeof(nth)),
				 s->expect);
			return 1;
		}
	if (s->has_first && !strcmp(s->ff_kind, s->expect)) {
		snprintf(why, len, "run #%" PRIu64 " is a %s", s->ff_run,
			 s->expect);
		return 1;
	}
	if (s->has_first)
		snprintf(why, len, "the failure found is %s (run #%" PRIu64 ")%s",
			 s->ff_kind, s->ff_run,
			 s->nfailed > 1 ? ", and no other failure is one" : "");
	else if (s->failures)
		snprintf(why, len, "%" PRIu64 " failures, none of them one",
			 s->failures);
	else
		snprintf(why, len, "no failure in %s",
			 plural(s->runs, "run", runs, sizeof(runs)));
	return 0;
}

/* ---- text ----------------------------------------------------------------- */

/* How the runs ended, by the scenario's outcome classes.  Forbidden rows
 * are failures, reported as such: the table shows the others, if any. */
static void text_outcomes(FILE *f, const struct explore_summary *s)
{
	int any = 0;

	for (size_t i = 0; i < s->noutcomes; i++)
		any |= strcmp(s->outcomes[i].cls, "forbidden") != 0;
	if (!s->has_outcomes || !any)
		return;
	fprintf(f, "outcomes:\n");
	for (size_t i = 0; i < s->noutcomes; i++)
		if (strcmp(s->outcomes[i].cls, "forbidden"))
			fprintf(f, "  %-11s %8" PRIu64 "  %s\n",
				s->outcomes[i].cls, s->outcomes[i].count,
				s->outcomes[i].desc);
}

void explore_summary_text(FILE *f, const struct explore_summary *s)
{
	char runs[48], fails[48];

	fprintf(f, "%s: %s, %s (strategy %s, seed %" PRIu64, s->program,
		plural(s->runs, "run", runs, sizeof(runs)),
		plural(s->failures, "failure", fails, sizeof(fails)),
		s->strategy, s->seed);
	if (s->pct)
		fprintf(f, ", depth %d, k %" PRIu64, s->pct_depth, s->pct_steps);
	if (s->sharded)
		fprintf(f, ", shard %" PRIu64 "/%" PRIu64, s->shard, s->shards);
	if (!s->timing)
		fprintf(f, ")\n");
	else
		fprintf(f, "), %.0f runs/s\n",
			s->elapsed > 0 ? s->runs / s->elapsed : 0.0);
	if (s->coverage)
		fprintf(f, "coverage: %s\n", s->coverage);
	if (s->expect) {
		char why[160];
		int met = explore_expect_met(s, why, sizeof(why));

		fprintf(f, "expect:   %s: %s: %s\n", s->expect,
			met ? "met" : "NOT MET", why);
	}
	text_outcomes(f, s);
	if (s->interrupted) {
		fprintf(f, "%s: interrupted by %s after %" PRIu64, s->program,
			s->signal ? s->signal : "a signal", s->runs);
		if (s->planned)
			fprintf(f, " of %" PRIu64, s->planned);
		fprintf(f, " runs; the counts above cover those runs only\n");
	}
}
