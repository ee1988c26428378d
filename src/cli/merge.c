/* SPDX-License-Identifier: MIT */
/*
 * merge.c - `pagerace merge`: the JSON summaries of `explore --shard I/N
 * --json`, one per shard, combined into the summary one unsharded
 * exploration prints (runs, failures, first failure, every failing run,
 * outcome counts), printed by summary.c as explore prints its own.
 *
 * Each summary is read and checked by merge_read.c (merge_load); this
 * file checks that they are shards of one exploration and combines them.
 *
 * Shard I covers runs [first + R*I/N, first + R*(I+1)/N) of the R runs.
 * Taken in shard order, the shards' runs add up to the whole range; when
 * the exploration stops at its first failure, the first shard that failed
 * holds it and the shards after it are ignored, as a single process would
 * never have run them.
 */
#include "config.h"
#include "cli/merge.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

		if (merge_load(argv[optind + i], &in[i]))
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
