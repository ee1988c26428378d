/* SPDX-License-Identifier: MIT */
/*
 * merge_read.c - reading one shard's `explore --json` summary for
 * `pagerace merge` (merge.c combines them).
 *
 * The summaries are parsed with jansson (duplicate keys refused); each
 * schema version's keys are known (EXPLORE_SCHEMA in explore.h), so an
 * unknown key is an error, and a version newer than this pagerace's is
 * refused by name.  Numbers are read as jansson's json_int_t: a seed or
 * count above 2^63-1 is refused as malformed.
 */
#include "config.h"
#include "cli/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	"max_steps", "memory", "failed_runs", "outcomes", "unclassified",
	"expect", "expect_met", NULL
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
	    get_str(in, root, "expect", &s->expect) ||
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

int merge_load(const char *path, struct shard_in *in)
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
