/* SPDX-License-Identifier: MIT */
/*
 * merge.c - `pagerace merge`: the JSON summaries of `explore --shard I/N
 * --json`, one per shard, combined into the summary one unsharded
 * exploration prints (runs, failures, first failure); and the printer of
 * that summary, which explore uses too.
 *
 * Shard I covers runs [first + R*I/N, first + R*(I+1)/N) of the R runs.
 * Taken in shard order, the shards' runs add up to the whole range; when
 * the exploration stops at its first failure, the first shard that failed
 * holds it and the shards after it are ignored, as a single process would
 * never have run them.
 */
#include "config.h"
#include "cli/explore.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- printing ------------------------------------------------------------- */

static void json_string(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			putc(c, f);
	}
	putc('"', f);
}

void explore_summary_print(FILE *f, const struct explore_summary *s)
{
	fprintf(f, "{\"program\":");
	json_string(f, s->program);
	fprintf(f, ",\"strategy\":");
	json_string(f, s->strategy);
	fprintf(f, ",\"seed\":%llu,\"first_run\":%llu,\"runs\":%llu,\"failures\":%llu",
		(unsigned long long)s->seed, (unsigned long long)s->first_run,
		(unsigned long long)s->runs, (unsigned long long)s->failures);
	if (s->timing)
		fprintf(f, ",\"elapsed_s\":%.6f", s->elapsed);
	fprintf(f, ",\"keep_going\":%s", s->keep_going ? "true" : "false");
	if (s->sharded)
		fprintf(f, ",\"shard\":%llu,\"shards\":%llu,\"slice_first\":%llu,\"slice_runs\":%llu",
			(unsigned long long)s->shard,
			(unsigned long long)s->shards,
			(unsigned long long)s->slice_first,
			(unsigned long long)s->slice_runs);
	if (s->pct)
		fprintf(f, ",\"pct_depth\":%d,\"pct_steps\":%llu", s->pct_depth,
			(unsigned long long)s->pct_steps);
	if (s->systematic)
		fprintf(f, ",\"executions\":%llu,\"blocked\":%llu,\"complete\":%s,"
			"\"bound\":%d,\"bound_cut\":%s,\"stopped\":%d",
			(unsigned long long)s->executions,
			(unsigned long long)s->blocked,
			s->complete ? "true" : "false", s->bound,
			s->bound_cut ? "true" : "false", s->stopped);
	if (s->coverage) {
		fprintf(f, ",\"coverage\":");
		json_string(f, s->coverage_kind);
		fprintf(f, ",\"coverage_statement\":");
		json_string(f, s->coverage);
	}
	if (s->has_first) {
		fprintf(f, ",\"first_failure\":{\"run\":%llu,\"kind\":",
			(unsigned long long)s->ff_run);
		json_string(f, s->ff_kind);
		fprintf(f, ",\"step\":%llu,\"message\":",
			(unsigned long long)s->ff_step);
		json_string(f, s->ff_message);
		fprintf(f, ",\"trace\":");
		json_string(f, s->ff_trace);
		fprintf(f, "}");
	}
	fprintf(f, "}\n");
}

/* ---- reading -------------------------------------------------------------- */

/* One summary as read, with the fields that were present. */
struct shard_in {
	const char *file;
	struct explore_summary s;
	unsigned have;			/* HAVE_* */
	char *strings[5];		/* program, strategy, kind, message, trace */
};

enum { HAVE_PROGRAM = 1, HAVE_STRATEGY = 2, HAVE_SEED = 4, HAVE_FIRST_RUN = 8,
       HAVE_RUNS = 16, HAVE_FAILURES = 32, HAVE_KEEP_GOING = 64,
       HAVE_SHARD = 128, HAVE_SHARDS = 256, HAVE_SLICE_FIRST = 512,
       HAVE_SLICE_RUNS = 1024, HAVE_ELAPSED = 2048 };
#define HAVE_NEEDED	2047

struct parser {
	const char *p, *file;
	char err[256];
};

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' ||
	       *ps->p == '\r')
		ps->p++;
}

static int perr(struct parser *ps, const char *what)
{
	if (!ps->err[0])
		snprintf(ps->err, sizeof(ps->err), "%s", what);
	return -1;
}

static int expect(struct parser *ps, char c)
{
	skip_ws(ps);
	if (*ps->p != c) {
		char m[64];

		snprintf(m, sizeof(m), "expected '%c'", c);
		return perr(ps, m);
	}
	ps->p++;
	return 0;
}

static void put_utf8(char **o, unsigned u)
{
	if (u < 0x80) {
		*(*o)++ = (char)u;
	} else if (u < 0x800) {
		*(*o)++ = (char)(0xc0 | (u >> 6));
		*(*o)++ = (char)(0x80 | (u & 0x3f));
	} else {
		*(*o)++ = (char)(0xe0 | (u >> 12));
		*(*o)++ = (char)(0x80 | ((u >> 6) & 0x3f));
		*(*o)++ = (char)(0x80 | (u & 0x3f));
	}
}

/* A JSON string, unescaped into a new allocation. */
static char *parse_string(struct parser *ps)
{
	const char *q;
	char *out, *o;

	if (expect(ps, '"'))
		return NULL;
	for (q = ps->p; *q && *q != '"'; q++)
		if (*q == '\\' && q[1])
			q++;
	if (*q != '"') {
		perr(ps, "unterminated string");
		return NULL;
	}
	out = o = malloc((size_t)(q - ps->p) * 3 + 1);
	if (!out) {
		perr(ps, "out of memory");
		return NULL;
	}
	while (ps->p < q) {
		char c = *ps->p++;
		unsigned u = 0;

		if (c != '\\') {
			*o++ = c;
			continue;
		}
		c = *ps->p++;
		switch (c) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'u':
			for (int i = 0; i < 4; i++, ps->p++) {
				if (!isxdigit((unsigned char)*ps->p)) {
					free(out);
					perr(ps, "bad \\u escape");
					return NULL;
				}
				u = u * 16 + (unsigned)(isdigit((unsigned char)*ps->p)
					? *ps->p - '0'
					: (tolower((unsigned char)*ps->p) - 'a' + 10));
			}
			if (u == 0) {
				free(out);
				perr(ps, "\\u0000 in a string");
				return NULL;
			}
			put_utf8(&o, u);
			break;
		default:
			*o++ = c;	/* \" \\ \/ */
		}
	}
	*o = '\0';
	ps->p = q + 1;
	return out;
}

/* A whole unsigned number, or a decimal (@d set) for elapsed_s. */
static int parse_number(struct parser *ps, uint64_t *u, double *d)
{
	char tok[64];
	size_t n = 0;

	skip_ws(ps);
	while (n < sizeof(tok) - 1 && (isdigit((unsigned char)*ps->p) ||
	       *ps->p == '.' || *ps->p == '-' || *ps->p == '+' ||
	       *ps->p == 'e' || *ps->p == 'E'))
		tok[n++] = *ps->p++;
	tok[n] = '\0';
	if (d) {
		char *end;

		errno = 0;
		*d = strtod(tok, &end);
		if (!n || errno || *end)
			return perr(ps, "bad number");
		return 0;
	}
	if (parse_u64(tok, u))
		return perr(ps, "expected a whole number");
	return 0;
}

static int parse_bool(struct parser *ps, int *b)
{
	skip_ws(ps);
	if (!strncmp(ps->p, "true", 4)) {
		*b = 1;
		ps->p += 4;
	} else if (!strncmp(ps->p, "false", 5)) {
		*b = 0;
		ps->p += 5;
	} else {
		return perr(ps, "expected true or false");
	}
	return 0;
}

static int parse_first_failure(struct parser *ps, struct shard_in *in)
{
	unsigned got = 0;

	if (expect(ps, '{'))
		return -1;
	for (;;) {
		char *key;
		int rc = 0;

		skip_ws(ps);
		if (*ps->p == '}' && !got)
			break;
		key = parse_string(ps);
		if (!key || expect(ps, ':')) {
			free(key);
			return -1;
		}
		if (!strcmp(key, "run")) {
			rc = parse_number(ps, &in->s.ff_run, NULL);
			got |= 1;
		} else if (!strcmp(key, "step")) {
			rc = parse_number(ps, &in->s.ff_step, NULL);
			got |= 2;
		} else if (!strcmp(key, "kind") || !strcmp(key, "message") ||
			   !strcmp(key, "trace")) {
			int i = key[0] == 'k' ? 2 : key[0] == 'm' ? 3 : 4;

			free(in->strings[i]);
			in->strings[i] = parse_string(ps);
			rc = in->strings[i] ? 0 : -1;
			got |= 4u << (i - 2);
		} else {
			rc = perr(ps, "unknown key in first_failure");
		}
		free(key);
		if (rc)
			return -1;
		skip_ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		break;
	}
	if (expect(ps, '}'))
		return -1;
	if (got != 31)
		return perr(ps, "first_failure lacks run, kind, step, message or trace");
	in->s.has_first = 1;
	return 0;
}

static int parse_summary(struct parser *ps, struct shard_in *in)
{
	static const struct { const char *key; unsigned have; } nums[] = {
		{ "seed", HAVE_SEED }, { "first_run", HAVE_FIRST_RUN },
		{ "runs", HAVE_RUNS }, { "failures", HAVE_FAILURES },
		{ "shard", HAVE_SHARD }, { "shards", HAVE_SHARDS },
		{ "slice_first", HAVE_SLICE_FIRST },
		{ "slice_runs", HAVE_SLICE_RUNS },
	};
	uint64_t *numv[] = { &in->s.seed, &in->s.first_run, &in->s.runs,
			     &in->s.failures, &in->s.shard, &in->s.shards,
			     &in->s.slice_first, &in->s.slice_runs };

	if (expect(ps, '{'))
		return -1;
	for (;;) {
		char *key = parse_string(ps);
		int rc = 0, known = 0;

		if (!key || expect(ps, ':')) {
			free(key);
			return -1;
		}
		for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
			if (!strcmp(key, nums[i].key)) {
				rc = parse_number(ps, numv[i], NULL);
				in->have |= nums[i].have;
				known = 1;
			}
		if (known) {
			/* done */
		} else if (!strcmp(key, "program") || !strcmp(key, "strategy")) {
			int i = key[0] == 'p' ? 0 : 1;

			free(in->strings[i]);
			in->strings[i] = parse_string(ps);
			rc = in->strings[i] ? 0 : -1;
			in->have |= i ? HAVE_STRATEGY : HAVE_PROGRAM;
		} else if (!strcmp(key, "elapsed_s")) {
			rc = parse_number(ps, NULL, &in->s.elapsed);
			in->have |= HAVE_ELAPSED;
		} else if (!strcmp(key, "keep_going")) {
			rc = parse_bool(ps, &in->s.keep_going);
			in->have |= HAVE_KEEP_GOING;
		} else if (!strcmp(key, "pct_depth")) {
			uint64_t v;

			rc = parse_number(ps, &v, NULL);
			if (!rc && v > 16)
				rc = perr(ps, "pct_depth out of range");
			in->s.pct_depth = (int)v;
			in->s.pct = 1;
		} else if (!strcmp(key, "pct_steps")) {
			rc = parse_number(ps, &in->s.pct_steps, NULL);
			in->s.pct = 1;
		} else if (!strcmp(key, "first_failure")) {
			rc = parse_first_failure(ps, in);
		} else if (!strcmp(key, "executions") ||
			   !strcmp(key, "blocked")) {
			rc = parse_number(ps, key[0] == 'e' ? &in->s.executions
							  : &in->s.blocked, NULL);
			in->s.systematic = 1;
		} else if (!strcmp(key, "complete") ||
			   !strcmp(key, "bound_cut")) {
			rc = parse_bool(ps, key[0] == 'c' ? &in->s.complete
							  : &in->s.bound_cut);
		} else if (!strcmp(key, "bound") || !strcmp(key, "stopped")) {
			uint64_t v;
			int neg = 0;

			skip_ws(ps);
			if (*ps->p == '-') {	/* bound -1: none */
				neg = 1;
				ps->p++;
			}
			rc = parse_number(ps, &v, NULL);
			if (!rc && v > 1000)
				rc = perr(ps, "bound or stopped out of range");
			if (key[0] == 'b')
				in->s.bound = neg ? -(int)v : (int)v;
			else
				in->s.stopped = (int)v;
		} else if (!strcmp(key, "coverage") ||
			   !strcmp(key, "coverage_statement")) {
			/* Recomputed for the whole: a shard's says less. */
			char *s = parse_string(ps);

			rc = s ? 0 : -1;
			free(s);
		} else {
			char m[96];

			snprintf(m, sizeof(m), "unknown key \"%.60s\"", key);
			rc = perr(ps, m);
		}
		free(key);
		if (rc)
			return -1;
		skip_ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		break;
	}
	if (expect(ps, '}'))
		return -1;
	skip_ws(ps);
	if (*ps->p)
		return perr(ps, "text after the summary");
	return 0;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			char *t;

			cap = cap ? cap * 2 : 8192;
			t = realloc(text, cap);
			if (!t) {
				free(text);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			text = t;
		}
		r = fread(text + n, 1, 4096, f);
		n += r;
	} while (r > 0);
	if (ferror(f) || memchr(text, '\0', n)) {
		free(text);
		fclose(f);
		errno = EINVAL;
		return NULL;
	}
	fclose(f);
	text[n] = '\0';
	return text;
}

static int load(const char *path, struct shard_in *in)
{
	struct parser ps;
	char *text = read_file(path);

	memset(in, 0, sizeof(*in));
	in->file = path;
	if (!text) {
		fprintf(stderr, "%s merge: error: cannot read %s: %s\n",
			pr_argv0, path, strerror(errno));
		return -1;
	}
	memset(&ps, 0, sizeof(ps));
	ps.p = text;
	ps.file = path;
	if (parse_summary(&ps, in)) {
		fprintf(stderr, "%s merge: error: %s: not an explore --json summary: %s (at byte %ld)\n",
			pr_argv0, path, ps.err, (long)(ps.p - text));
		free(text);
		return -1;
	}
	free(text);
	if ((in->have & HAVE_NEEDED) != HAVE_NEEDED) {
		fprintf(stderr, "%s merge: error: %s: not a summary of 'explore --shard I/N --json' (no %s)\n",
			pr_argv0, path,
			!(in->have & HAVE_SHARD) ? "shard" :
			!(in->have & HAVE_KEEP_GOING) ? "keep_going" : "required keys");
		return -1;
	}
	if (in->s.shards == 0 || in->s.shard >= in->s.shards ||
	    in->s.runs > in->s.slice_runs || in->s.failures > in->s.runs ||
	    !in->s.failures != !in->s.has_first) {
		fprintf(stderr, "%s merge: error: %s: inconsistent summary\n",
			pr_argv0, path);
		return -1;
	}
	in->s.program = in->strings[0];
	in->s.strategy = in->strings[1];
	in->s.ff_kind = in->strings[2];
	in->s.ff_message = in->strings[3];
	in->s.ff_trace = in->strings[4];
	return 0;
}

static void merge_usage(FILE *f)
{
	fprintf(f,
"usage: %s merge [--no-timing] SUMMARY.json...\n"
"\n"
"Combine the --json summaries of 'explore --shard I/N' (every I from 0 to\n"
"N-1, in any order) into the summary one unsharded exploration prints:\n"
"the runs, the failures, the first failure.  elapsed_s is the sum of the\n"
"shards' times.  See doc/parallel.md.\n"
"\n"
"      --no-timing   leave elapsed_s out\n"
"  -h, --help        this text\n"
"\n"
"Exit status: 0 no failure, 1 failure found, 2 bad input.\n", pr_argv0);
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
	return NULL;
}

/*
 * Shards of a split dfs or dpor search (--shard I/N): each explored its own
 * leaves of one tree (doc/systematic.md), so the whole is complete when
 * every part is, and its executions are the parts' sum.  Failures are
 * listed by shard; the first reported is shard order's first.
 */
static int merge_tree(struct shard_in **by, uint64_t n, int timing)
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
	for (uint64_t i = 0; i < n; i++) {
		const struct explore_summary *s = &by[i]->s;

		m.runs += s->runs;
		m.failures += s->failures;
		m.elapsed += s->elapsed;
		c.executions += s->executions;
		c.blocked += s->blocked;
		c.complete &= s->complete;
		c.bound_cut |= s->bound_cut;
		if (!s->complete && !m.stopped)
			m.stopped = s->stopped;
		if (s->has_first && !m.has_first) {
			m.has_first = 1;
			m.ff_run = s->ff_run;
			m.ff_step = s->ff_step;
			m.ff_kind = s->ff_kind;
			m.ff_message = s->ff_message;
			m.ff_trace = s->ff_trace;
		}
	}
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
		if (!(in[i].have & HAVE_ELAPSED))
			timing = 0;
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
	if (!by)
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
		rc = merge_tree(by, n, timing);
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
	for (uint64_t i = 0; i < n; i++) {
		const struct explore_summary *s = &by[i]->s;

		m.runs += s->runs;
		m.failures += s->failures;
		m.elapsed += s->elapsed;
		if (s->has_first && !m.has_first) {
			m.has_first = 1;
			m.ff_run = s->ff_run;
			m.ff_step = s->ff_step;
			m.ff_kind = s->ff_kind;
			m.ff_message = s->ff_message;
			m.ff_trace = s->ff_trace;
		}
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
	for (int i = 0; i < nin; i++)
		for (int j = 0; j < 5; j++)
			free(in[i].strings[j]);
	free(in);
	free(by);
	return rc;
}
