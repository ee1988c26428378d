/* SPDX-License-Identifier: MIT */
/*
 * merge.c - `pagerace merge`: the JSON summaries of `explore --shard I/N
 * --json`, one per shard, combined into the summary one unsharded
 * exploration prints (runs, failures, first failure, every failing run,
 * outcome counts), printed by summary.c as explore prints its own.
 *
 * The summaries are parsed with jansson (duplicate keys refused); each
 * schema version's keys are known (EXPLORE_SCHEMA in explore.h), so an
 * unknown key is an error, and a version newer than this pagerace's is
 * refused by name.  Numbers are read as jansson's json_int_t: a seed or
 * count above 2^63-1 is refused as malformed.
 *
 * Shard I covers runs [first + R*I/N, first + R*(I+1)/N) of the R runs.
 * Taken in shard order, the shards' runs add up to the whole range; when
 * the exploration stops at its first failure, the first shard that failed
 * holds it and the shards after it are ignored, as a single process would
 * never have run them.
 */
#include "config.h"
#include "cli/explore.h"
#include "scenario/scenario.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading -------------------------------------------------------------- */

/* One summary as read (its strings point into @root). */
struct shard_in {
	const char *file;
	json_t *root;
	struct explore_summary s;
	char knobs[512];
	struct summary_failure *failed;
	struct summary_outcome outcomes[SCN_MAX_OUTCOMES];
};

/* The keys of each schema version; anything else is refused. */
static const char *const keys_v1[] = {
	"program", "strategy", "seed", "first_run", "runs", "failures",
	"elapsed_s", "keep_going", "shard", "shards", "slice_first",
	"slice_runs", "pct_depth", "pct_steps", "first_failure",
	/* a dfs or dpor search's, and every exploration's coverage */
	"executions", "blocked", "complete", "bound", "bound_cut", "stopped",
	"coverage", "coverage_statement", NULL
};
static const char *const keys_v2[] = {
	"schema", "interrupted", "signal", "protocol", "knobs", "radix_shift",
	"max_steps", "memory", "failed_runs", "outcomes", "unclassified", NULL
};

static int known_key(const char *key, int schema)
{
	for (int i = 0; keys_v1[i]; i++)
		if (!strcmp(key, keys_v1[i]))
			return 1;
	for (int i = 0; schema >= 2 && keys_v2[i]; i++)
		if (!strcmp(key, keys_v2[i]))
			return 1;
	return 0;
}

static int bad(const struct shard_in *in, const char *what, const char *key)
{
	fprintf(stderr, "%s merge: error: %s: not an explore --json summary: %s%s%s\n",
		pr_argv0, in->file, what, key ? " " : "", key ? key : "");
	return -1;
}

/* @key of @o as a whole number; -1 if present and not one, 0 if absent
 * (@have unchanged) or read (@have set). */
static int get_u64(struct shard_in *in, json_t *o, const char *key,
		   uint64_t *v, int *have)
{
	json_t *j = json_object_get(o, key);

	if (!j)
		return 0;
	if (!json_is_integer(j) || json_integer_value(j) < 0)
		return bad(in, "expected a whole number for", key);
	*v = (uint64_t)json_integer_value(j);
	if (have)
		*have = 1;
	return 0;
}

static int get_str(struct shard_in *in, json_t *o, const char *key,
		   const char **v)
{
	json_t *j = json_object_get(o, key);

	if (!j)
		return 0;
	if (!json_is_string(j))
		return bad(in, "expected a string for", key);
	*v = json_string_value(j);
	return 0;
}

static int get_bool(struct shard_in *in, json_t *o, const char *key, int *v)
{
	json_t *j = json_object_get(o, key);

	if (!j)
		return 0;
	if (!json_is_boolean(j))
		return bad(in, "expected true or false for", key);
	*v = json_is_true(j);
	return 0;
}

/* {"run","kind","step","message","trace"}: all five, nothing else. */
static int get_failure(struct shard_in *in, json_t *o,
		       struct summary_failure *f)
{
	const char *kind = NULL, *msg = NULL, *trace = NULL;
	int hr = 0, hs = 0;

	if (!json_is_object(o) || json_object_size(o) != 5 ||
	    get_u64(in, o, "run", &f->run, &hr) ||
	    get_u64(in, o, "step", &f->step, &hs) ||
	    get_str(in, o, "kind", &kind) || get_str(in, o, "message", &msg) ||
	    get_str(in, o, "trace", &trace) ||
	    !hr || !hs || !kind || !msg || !trace)
		return bad(in, "a failure needs run, kind, step, message and trace", NULL);
	snprintf(f->kind, sizeof(f->kind), "%s", kind);
	f->message = (char *)msg;	/* borrowed from the JSON */
	f->trace = (char *)trace;
	return 0;
}

/* Schema 2's additions. */
static int load_v2(struct shard_in *in, json_t *root)
{
	struct explore_summary *s = &in->s;
	json_t *j, *x;
	size_t i, off = 0;
	uint64_t v = 0;
	int have = 0;

	if (get_bool(in, root, "interrupted", &s->interrupted) ||
	    get_str(in, root, "signal", &s->signal) ||
	    get_str(in, root, "protocol", &s->protocol) ||
	    get_str(in, root, "memory", &s->memory) ||
	    get_u64(in, root, "radix_shift", &v, &have) ||
	    get_u64(in, root, "max_steps", &s->max_steps, NULL) ||
	    get_u64(in, root, "unclassified", &s->unclassified, NULL))
		return -1;
	s->radix_shift = (unsigned)v;
	s->has_model = s->protocol && s->memory && have;
	if ((j = json_object_get(root, "knobs"))) {
		if (!json_is_array(j))
			return bad(in, "expected an array for", "knobs");
		json_array_foreach(j, i, x) {
			if (!json_is_string(x))
				return bad(in, "expected knob names in", "knobs");
			off += (size_t)snprintf(in->knobs + off,
					sizeof(in->knobs) - off, "%s%s",
					i ? "," : "", json_string_value(x));
			if (off >= sizeof(in->knobs))
				return bad(in, "too many", "knobs");
		}
	}
	s->knobs = in->knobs;
	if ((j = json_object_get(root, "failed_runs"))) {
		if (!json_is_array(j))
			return bad(in, "expected an array for", "failed_runs");
		in->failed = calloc(json_array_size(j) + 1, sizeof(*in->failed));
		if (!in->failed)
			return bad(in, "out of memory", NULL);
		json_array_foreach(j, i, x)
			if (get_failure(in, x, &in->failed[i]))
				return -1;
		s->has_failed_list = 1;
		s->nfailed = json_array_size(j);
		s->failed = in->failed;
	}
	if ((j = json_object_get(root, "outcomes"))) {
		if (!json_is_array(j) || json_array_size(j) > SCN_MAX_OUTCOMES)
			return bad(in, "expected an array of outcomes for", "outcomes");
		json_array_foreach(j, i, x) {
			struct summary_outcome *o = &in->outcomes[i];
			int hc = 0;

			if (!json_is_object(x) || json_object_size(x) != 3 ||
			    get_str(in, x, "class", &o->cls) ||
			    get_str(in, x, "description", &o->desc) ||
			    get_u64(in, x, "count", &o->count, &hc) ||
			    !o->cls || !o->desc || !hc)
				return bad(in, "an outcome needs class, count and description", NULL);
		}
		s->has_outcomes = 1;
		s->noutcomes = json_array_size(j);
		s->outcomes = in->outcomes;
	}
	return 0;
}

static int load(const char *path, struct shard_in *in)
{
	static const char *const need[] = {
		"program", "strategy", "seed", "first_run", "runs", "failures",
		"keep_going", "shard", "shards", "slice_first", "slice_runs"
	};
	struct explore_summary *s = &in->s;
	json_error_t jerr;
	json_t *root, *j;
	const char *key;
	uint64_t v = 0;
	int have = 0;

	memset(in, 0, sizeof(*in));
	in->file = path;
	root = in->root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (jerr.line < 1)	/* not a syntax error: open or read */
			fprintf(stderr, "%s merge: error: %s\n", pr_argv0,
				jerr.text);
		else
			fprintf(stderr, "%s:%d:%d: error: not an explore --json summary: %s\n",
				path, jerr.line, jerr.column, jerr.text);
		return -1;
	}
	if (!json_is_object(root))
		return bad(in, "expected an object", NULL);
	/* No "schema": the first layout (before it had a version). */
	s->schema = 1;
	if ((j = json_object_get(root, "schema"))) {
		if (!json_is_integer(j) || json_integer_value(j) < 2)
			return bad(in, "expected a version from 2 for", "schema");
		if (json_integer_value(j) > EXPLORE_SCHEMA) {
			fprintf(stderr, "%s merge: error: %s: summary schema %lld is newer than this pagerace reads (1 to %d); merge it with the pagerace that wrote it\n",
				pr_argv0, path, (long long)json_integer_value(j),
				EXPLORE_SCHEMA);
			return -1;
		}
		s->schema = (int)json_integer_value(j);
	}
	json_object_foreach(root, key, j)
		if (!known_key(key, s->schema))
			return bad(in, "unknown key", key);
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!json_object_get(root, need[i])) {
			fprintf(stderr, "%s merge: error: %s: not a summary of 'explore --shard I/N --json' (no %s)\n",
				pr_argv0, path, need[i]);
			return -1;
		}
	if (get_str(in, root, "program", &s->program) ||
	    get_str(in, root, "strategy", &s->strategy) ||
	    get_u64(in, root, "seed", &s->seed, NULL) ||
	    get_u64(in, root, "first_run", &s->first_run, NULL) ||
	    get_u64(in, root, "runs", &s->runs, NULL) ||
	    get_u64(in, root, "failures", &s->failures, NULL) ||
	    get_u64(in, root, "shard", &s->shard, NULL) ||
	    get_u64(in, root, "shards", &s->shards, NULL) ||
	    get_u64(in, root, "slice_first", &s->slice_first, NULL) ||
	    get_u64(in, root, "slice_runs", &s->slice_runs, NULL) ||
	    get_bool(in, root, "keep_going", &s->keep_going) ||
	    get_u64(in, root, "pct_depth", &v, &s->pct) ||
	    get_u64(in, root, "pct_steps", &s->pct_steps, &have))
		return -1;
	if (v > 16)
		return bad(in, "out of range:", "pct_depth");
	s->pct_depth = (int)v;
	s->pct |= have;
	if ((j = json_object_get(root, "elapsed_s"))) {
		if (!json_is_number(j))
			return bad(in, "expected a number for", "elapsed_s");
		s->elapsed = json_number_value(j);
		s->timing = 1;
	}
	if ((j = json_object_get(root, "first_failure"))) {
		struct summary_failure ff;

		if (get_failure(in, j, &ff))
			return -1;
		s->has_first = 1;
		s->ff_run = ff.run;
		s->ff_step = ff.step;
		s->ff_message = ff.message;
		s->ff_trace = ff.trace;
		/* the kind from the JSON, not the static copy */
		s->ff_kind = json_string_value(json_object_get(j, "kind"));
	}
	if (json_object_get(root, "executions")) {
		json_t *b = json_object_get(root, "bound");
		json_t *st = json_object_get(root, "stopped");

		s->systematic = 1;
		if (get_u64(in, root, "executions", &s->executions, NULL) ||
		    get_u64(in, root, "blocked", &s->blocked, NULL) ||
		    get_bool(in, root, "complete", &s->complete) ||
		    get_bool(in, root, "bound_cut", &s->bound_cut))
			return -1;
		/* bound -1: none */
		if (b && (!json_is_integer(b) || json_integer_value(b) < -1 ||
			  json_integer_value(b) > 1000))
			return bad(in, "bound out of range:", "bound");
		if (st && (!json_is_integer(st) || json_integer_value(st) < 0 ||
			   json_integer_value(st) > 1000))
			return bad(in, "stopped out of range:", "stopped");
		s->bound = b ? (int)json_integer_value(b) : 0;
		s->stopped = st ? (int)json_integer_value(st) : 0;
	}
	/* coverage and coverage_statement: recomputed for the whole. */
	if (s->schema >= 2 && load_v2(in, root))
		return -1;
	if (s->shards == 0 || s->shard >= s->shards ||
	    s->runs > s->slice_runs || s->failures > s->runs ||
	    !s->failures != !s->has_first ||
	    (s->has_failed_list && s->nfailed != s->failures)) {
		fprintf(stderr, "%s merge: error: %s: inconsistent summary\n",
			pr_argv0, path);
		return -1;
	}
	return 0;
}

static void merge_usage(FILE *f)
{
	fprintf(f,
"usage: %s merge [--no-timing] SUMMARY.json...\n"
"\n"
"Combine the --json summaries of 'explore --shard I/N' (every I from 0 to\n"
"N-1, in any order) into the summary one unsharded exploration prints:\n"
"the runs, the failures, the first failure, every failing run and the\n"
"outcome counts.  elapsed_s is the sum of the shards' times.  Reads every\n"
"summary schema up to this pagerace's (%d); refuses a newer one and an\n"
"interrupted shard.  See doc/parallel.md.\n"
"\n"
"      --no-timing   leave elapsed_s out\n"
"  -h, --help        this text\n"
"\n"
"Exit status: 0 no failure, 1 failure found, 2 bad input.\n", pr_argv0,
		EXPLORE_SCHEMA);
}

/* Do @a and @b describe shards of the same exploration? */
static const char *mismatch(const struct explore_summary *a,
			    const struct explore_summary *b)
{
	if (strcmp(a->program, b->program))
		return "program";
	if (strcmp(a->strategy, b->strategy))
		return "strategy";
	if (a->seed != b->seed)
		return "seed";
	if (a->first_run != b->first_run)
		return "first_run";
	if (a->keep_going != b->keep_going)
		return "keep_going";
	if (a->shards != b->shards)
		return "shards";
	if (a->pct != b->pct || a->pct_depth != b->pct_depth ||
	    a->pct_steps != b->pct_steps)
		return "pct_depth/pct_steps";
	if (a->has_model && b->has_model &&
	    (strcmp(a->protocol, b->protocol) || strcmp(a->knobs, b->knobs) ||
	     strcmp(a->memory, b->memory) || a->radix_shift != b->radix_shift ||
	     a->max_steps != b->max_steps))
		return "protocol/knobs/memory/radix_shift/max_steps";
	if (a->has_outcomes && b->has_outcomes) {
		if (a->noutcomes != b->noutcomes)
			return "outcomes";
		for (size_t i = 0; i < a->noutcomes; i++)
			if (strcmp(a->outcomes[i].cls, b->outcomes[i].cls) ||
			    strcmp(a->outcomes[i].desc, b->outcomes[i].desc))
				return "outcomes";
	}
	return NULL;
}

/*
 * Add shard @s's runs to @m, its failures to @failed (m->failed, room for
 * every shard's); the first failure in shard order is kept.
 */
static void add_shard(struct explore_summary *m, const struct explore_summary *s,
		      struct summary_failure *failed)
{
	m->runs += s->runs;
	m->failures += s->failures;
	m->elapsed += s->elapsed;
	m->unclassified += s->unclassified;
	for (size_t k = 0; m->has_failed_list && k < s->nfailed; k++)
		failed[m->nfailed++] = s->failed[k];
	if (s->has_first && !m->has_first) {
		m->has_first = 1;
		m->ff_run = s->ff_run;
		m->ff_step = s->ff_step;
		m->ff_kind = s->ff_kind;
		m->ff_message = s->ff_message;
		m->ff_trace = s->ff_trace;
	}
}

/*
 * Shards of a split dfs or dpor search (--shard I/N): each explored its own
 * leaves of one tree (doc/systematic.md), so the whole is complete when
 * every part is, and its executions are the parts' sum.  Failures are
 * listed by shard; the first reported is shard order's first.
 */
static int merge_tree(struct shard_in **by, uint64_t n, int timing,
		      struct summary_failure *failed)
{
	struct explore_summary m = by[0]->s;
	struct pr_coverage c;
	char cov[256];

	memset(&c, 0, sizeof(c));
	c.complete = 1;
	c.bound = m.bound;
	m.runs = m.failures = m.executions = m.blocked = 0;
	m.elapsed = 0;
	m.has_first = 0;
	m.stopped = 0;
	m.bound_cut = 0;
	m.nfailed = 0;
	m.failed = failed;
	m.unclassified = 0;
	for (uint64_t i = 0; i < n; i++) {
		m.has_model &= by[i]->s.has_model;
		m.has_failed_list &= by[i]->s.has_failed_list;
		m.has_outcomes &= by[i]->s.has_outcomes;
	}
	for (uint64_t i = 0; i < n; i++) {
		const struct explore_summary *s = &by[i]->s;

		add_shard(&m, s, failed);
		c.executions += s->executions;
		c.blocked += s->blocked;
		c.complete &= s->complete;
		c.bound_cut |= s->bound_cut;
		if (!s->complete && !m.stopped)
			m.stopped = s->stopped;
	}
	/* The outcome counts of the parts, summed (same table: mismatch()). */
	m.has_outcomes = 0;	/* a tree's parts: counts left out for now */
	c.shard = c.shards = (unsigned)n;	/* all of them */
	m.executions = c.executions;
	m.blocked = c.blocked;
	m.complete = c.complete;
	m.bound_cut = c.bound_cut;
	m.sharded = 0;
	m.timing = timing;
	explore_statement_text(m.strategy, &c, m.failures, m.stopped, cov,
			       sizeof(cov));
	m.coverage = cov;
	m.coverage_kind = explore_statement_kind(&c);
	explore_summary_print(stdout, &m);
	return m.failures ? EXIT_FOUND : EXIT_NOFAIL;
}

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-timing", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct shard_in *in = NULL, **by = NULL;
	struct explore_summary m;
	struct summary_failure *failed = NULL;
	struct summary_outcome outcomes[SCN_MAX_OUTCOMES];
	size_t nfailed = 0;
	char cov[256];
	int c, nin, timing = 1, rc = EXIT_BADINPUT;
	uint64_t total = 0, n;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'T':
			timing = 0;
			break;
		case 'h':
			merge_usage(stdout);
			return EXIT_NOFAIL;
		default:
			fprintf(stderr, "%s merge: error: unknown option '%s'\n",
				pr_argv0, argv[optind - 1]);
			return EXIT_BADINPUT;
		}
	}
	nin = argc - optind;
	if (nin < 1) {
		fprintf(stderr, "%s merge: error: which summaries? (the --json output of explore --shard I/N)\n",
			pr_argv0);
		return EXIT_BADINPUT;
	}
	in = calloc((size_t)nin, sizeof(*in));
	if (!in)
		return EXIT_BADINPUT;
	for (int i = 0; i < nin; i++) {
		const char *what;

		if (load(argv[optind + i], &in[i]))
			goto out;
		if (!in[i].s.timing)
			timing = 0;
		if (in[i].s.interrupted) {
			fprintf(stderr, "%s merge: error: %s: shard %llu/%llu was interrupted%s%s after %llu of its %llu runs; run it again\n",
				pr_argv0, in[i].file,
				(unsigned long long)in[i].s.shard,
				(unsigned long long)in[i].s.shards,
				in[i].s.signal ? " by " : "",
				in[i].s.signal ? in[i].s.signal : "",
				(unsigned long long)in[i].s.runs,
				(unsigned long long)in[i].s.slice_runs);
			goto out;
		}
		if (i && (what = mismatch(&in[0].s, &in[i].s))) {
			fprintf(stderr, "%s merge: error: %s and %s are not shards of one exploration (%s differs)\n",
				pr_argv0, in[0].file, in[i].file, what);
			goto out;
		}
	}
	n = in[0].s.shards;
	if ((uint64_t)nin != n) {
		fprintf(stderr, "%s merge: error: %d summaries for %llu shards\n",
			pr_argv0, nin, (unsigned long long)n);
		goto out;
	}
	by = calloc((size_t)n, sizeof(*by));
	for (int i = 0; i < nin; i++)
		nfailed += in[i].s.nfailed;
	failed = calloc(nfailed + 1, sizeof(*failed));
	if (!by || !failed)
		goto out;
	if (explore_systematic(in[0].s.strategy)) {
		for (int i = 0; i < nin; i++) {
			if (!in[i].s.systematic || by[in[i].s.shard]) {
				fprintf(stderr, "%s merge: error: %s: %s\n", pr_argv0,
					in[i].file, in[i].s.systematic ?
					"the same shard twice" :
					"no executions/complete fields: not a dfs or dpor summary");
				goto out;
			}
			by[in[i].s.shard] = &in[i];
		}
		rc = merge_tree(by, n, timing, failed);
		goto out;
	}
	for (int i = 0; i < nin; i++) {
		if (by[in[i].s.shard]) {
			fprintf(stderr, "%s merge: error: %s and %s are both shard %llu/%llu\n",
				pr_argv0, by[in[i].s.shard]->file, in[i].file,
				(unsigned long long)in[i].s.shard,
				(unsigned long long)n);
			goto out;
		}
		by[in[i].s.shard] = &in[i];
		total += in[i].s.slice_runs;
	}
	/* The slices must be the ones explore cuts from @total runs. */
	for (uint64_t i = 0; i < n; i++) {
		uint64_t base = total / n, rem = total % n;
		uint64_t lo = in[0].s.first_run + base * i + (i < rem ? i : rem);

		if (by[i]->s.slice_first != lo ||
		    by[i]->s.slice_runs != base + (i < rem)) {
			fprintf(stderr, "%s merge: error: %s: shard %llu/%llu does not cover the runs it should (slice_first %llu, slice_runs %llu)\n",
				pr_argv0, by[i]->file, (unsigned long long)i,
				(unsigned long long)n,
				(unsigned long long)by[i]->s.slice_first,
				(unsigned long long)by[i]->s.slice_runs);
			goto out;
		}
		if (!by[i]->s.failures && by[i]->s.runs != by[i]->s.slice_runs) {
			fprintf(stderr, "%s merge: error: %s: shard %llu/%llu ran %llu of its %llu runs without a failure\n",
				pr_argv0, by[i]->file, (unsigned long long)i,
				(unsigned long long)n,
				(unsigned long long)by[i]->s.runs,
				(unsigned long long)by[i]->s.slice_runs);
			goto out;
		}
	}
	m = in[0].s;
	m.sharded = 0;
	m.timing = timing;
	m.runs = m.failures = 0;
	m.elapsed = 0;
	m.has_first = 0;
	m.unclassified = 0;
	m.nfailed = 0;
	/* What every shard says (schema 2) is merged; else left out. */
	for (int i = 0; i < nin; i++) {
		m.has_model &= in[i].s.has_model;
		m.has_failed_list &= in[i].s.has_failed_list;
		m.has_outcomes &= in[i].s.has_outcomes;
	}
	m.failed = failed;
	if (m.has_outcomes)
		memcpy(outcomes, in[0].s.outcomes, m.noutcomes * sizeof(*outcomes));
	for (size_t k = 0; k < m.noutcomes; k++)
		outcomes[k].count = 0;
	m.outcomes = outcomes;
	for (uint64_t i = 0; i < n; i++) {
		const struct explore_summary *s = &by[i]->s;

		add_shard(&m, s, failed);
		for (size_t k = 0; m.has_outcomes && k < m.noutcomes; k++)
			outcomes[k].count += s->outcomes[k].count;
		/* A single process would have stopped here. */
		if (s->failures && !m.keep_going)
			break;
	}
	explore_sampled_text(m.strategy, m.pct_depth, m.runs, m.failures, cov,
			     sizeof(cov));
	m.coverage = cov;
	m.coverage_kind = "sampled";
	explore_summary_print(stdout, &m);
	rc = m.failures ? EXIT_FOUND : EXIT_NOFAIL;
out:
	for (int i = 0; in && i < nin; i++) {
		free(in[i].failed);
		json_decref(in[i].root);
	}
	free(failed);
	free(in);
	free(by);
	return rc;
}
