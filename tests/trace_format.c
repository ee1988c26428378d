/* SPDX-License-Identifier: MIT */
/*
 * trace_format.c - the trace format: round trips (write -> read -> print is
 * byte-identical), atomic writes, a table of malformed inputs with their
 * exact error positions, and a small deterministic mutation fuzz.
 *
 * Build with -DPR_TRACE_TEST_STUBS to link without the runtime (provides
 * pr_site_label and pr_segment_end_label, as in runtime/schedule.c).
 */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "trace/trace.h"

#ifdef PR_TRACE_TEST_STUBS
static const char *const kind_names[PR_K_NR] = {
	"yield", "load", "store", "rmw", "lock", "unlock", "fence",
	"acquire", "release", "spin", "block",
};

const char *pr_site_label(const struct pr_site *site, char *buf, size_t len)
{
	const char *k = site->kind < PR_K_NR ? kind_names[site->kind] : "?";

	if (site->tag)
		snprintf(buf, len, "%s:%s:%s", site->func, k, site->tag);
	else
		snprintf(buf, len, "%s:%s", site->func, k);
	return buf;
}

const char *pr_segment_end_label(const struct pr_segment *seg, char *buf,
				 size_t len)
{
	if (seg->end_label) {
		snprintf(buf, len, "%s", seg->end_label);
		return buf;
	}
	if (!seg->end) {
		snprintf(buf, len, "-");
		return buf;
	}
	return pr_site_label(seg->end, buf, len);
}
#endif

static const struct pr_site sites[] = {
	{ "writer", "tests/foo.c", 23, PR_K_STORE, "counter", 0 },
	{ "writer", "tests/foo.c", 21, PR_K_LOAD, "counter", 0 },
	{ "irq_handler", "tests/foo.c", 40, PR_K_RMW, NULL, 0 },
	{ "weird", "tests/foo.c", 50, PR_K_LOCK, "a b\\c\n\x01\xff ", 0 },
};

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		bail_out("out of memory");
	return d;
}

static void push(struct pr_trace *t, int code, uint32_t steps,
		 const struct pr_site *end)
{
	struct pr_segment s = { (uint16_t)code, steps, end, NULL };

	if (t->sched.n == t->sched.cap) {
		t->sched.cap = t->sched.cap ? t->sched.cap * 2 : 16;
		t->sched.seg = realloc(t->sched.seg,
				       t->sched.cap * sizeof(s));
		if (!t->sched.seg)
			bail_out("out of memory");
	}
	t->sched.seg[t->sched.n++] = s;
}

static void sample(struct pr_trace *t)
{
	struct pr_verdict *v = &t->result.verdict;

	pr_trace_init(t);
	t->pagerace_version = xstrdup("0.1.0");
	t->program = xstrdup("lost-update");
	t->strategy = xstrdup("pct");
	t->params.pct_depth = 3;
	t->params.pct_steps = 120;
	t->seed = 42;
	t->run = UINT64_MAX;
	pr_trace_set_option(t, "protocol", "v2");
	pr_trace_set_option(t, "max-steps", "100000");
	pr_trace_set_option(t, "knobs", "");
	pr_trace_set_option(t, "minimized-from", " lead and trail  ");
	t->result.failed = 1;
	t->result.steps = 123;
	t->result.preemptions = 2;
	strcpy(v->kind, "lost-update");
	v->step = 57;
	v->ctx = 1;
	strcpy(v->ctx_name, "cpu1");
	v->in_event = 1;
	strcpy(v->obj, "counter");
	strcpy(v->site, "writer:store:counter");
	strcpy(v->where, "tests/foo.c:23");
	for (int i = 0; i < PR_VERDICT_TEXT - 1; i++)	/* every byte */
		v->msg[i] = (char)(i + 1);
	v->msg[PR_VERDICT_TEXT - 1] = 0;
	push(t, 0, 12, &sites[0]);
	push(t, 1, 3, &sites[1]);
	push(t, PR_CHOICE_EVENT + 0, 5, &sites[2]);
	push(t, 0, 9, &sites[1]);
	push(t, PR_TRACE_MAX_CODE, UINT32_MAX, &sites[3]);
	push(t, 63, 1, &sites[0]);
	for (int i = 0; i < 40; i++)
		push(t, i % 3, (uint32_t)(i + 1), i % 5 ? &sites[i % 4] : NULL);
	t->program_text = xstrdup("cpu 0 {\n\tstore x 1\r\n\n| not a "
				  "prefix\\n \x01\xfe\n}  ");
}

/* pr_trace_fprint into a fresh buffer; NULL on failure. */
static char *print(const struct pr_trace *t, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	int r;

	if (!f)
		bail_out("open_memstream");
	r = pr_trace_fprint(f, t);
	fclose(f);
	if (r) {
		free(buf);
		return NULL;
	}
	if (len)
		*len = n;
	return buf;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			if (!(buf = realloc(buf, cap)))
				bail_out("out of memory");
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	*len = n;
	return buf;
}

static int count_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strstr(e->d_name, ".tmp.") != NULL;
	closedir(d);
	return n;
}

/* Print, parse, print again: the two texts must be identical. */
static int round_trip(const char *what, const struct pr_trace *t)
{
	struct pr_trace r;
	char err[512], *a, *b;
	size_t na, nb;
	int good;

	if (!(a = print(t, &na)))
		return ok(0, "%s: prints", what);
	if (pr_trace_parse(what, a, na, &r, err, sizeof(err))) {
		diag("%s", err);
		free(a);
		return ok(0, "%s: parses", what);
	}
	b = print(&r, &nb);
	good = b && na == nb && !memcmp(a, b, na);
	pr_trace_free(&r);
	free(a);
	free(b);
	return ok(good, "%s: print/parse/print is byte-identical", what);
}

static void test_round_trip(const char *dir)
{
	struct pr_trace t, r;
	char path[4096], err[512], label[512], *a, *b, *file;
	size_t na, nb, nf;
	int same = 1;

	sample(&t);
	a = print(&t, &na);
	ok(a != NULL, "sample prints (%zu bytes)", na);
	snprintf(path, sizeof(path), "%s/sample.trace", dir);
	ok(!pr_trace_write(path, &t, err, sizeof(err)), "pr_trace_write: %s",
	   err);
	ok(count_tmp(dir) == 0, "no temporary file left after a write");
	file = slurp(path, &nf);
	ok(file && nf == na && !memcmp(file, a, na),
	   "file written equals pr_trace_fprint output");
	ok(!pr_trace_read(path, &r, err, sizeof(err)), "pr_trace_read: %s",
	   err);
	b = print(&r, &nb);
	ok(b && na == nb && !memcmp(a, b, na),
	   "write -> read -> fprint is byte-identical");

	/* The fields themselves survive. */
	ok(r.result.verdict.step == 57 && r.result.verdict.ctx == 1 &&
	   !strcmp(r.result.verdict.kind, "lost-update") &&
	   !strcmp(r.result.verdict.obj, "counter") &&
	   !strcmp(r.result.verdict.site, "writer:store:counter") &&
	   !strcmp(r.result.verdict.where, "tests/foo.c:23") &&
	   !strcmp(r.result.verdict.msg, t.result.verdict.msg) &&
	   !strcmp(r.result.verdict.ctx_name, "cpu1") &&
	   r.result.verdict.in_event == 1 && r.result.failed == 1 &&
	   !r.result.diverged && r.result.steps == 123 &&
	   r.result.preemptions == 2, "verdict and result survive");
	ok(r.seed == 42 && r.run == UINT64_MAX && r.params.pct_depth == 3 &&
	   r.params.pct_steps == 120 && !strcmp(r.strategy, "pct") &&
	   !strcmp(r.program, "lost-update") &&
	   !strcmp(r.pagerace_version, "0.1.0"), "run identity survives");
	ok(r.program_text && !strcmp(r.program_text, t.program_text),
	   "program text survives verbatim (no final newline)");
	ok(r.nopts == 4 && !strcmp(pr_trace_option(&r, "max-steps"), "100000")
	   && !strcmp(pr_trace_option(&r, "knobs"), "") &&
	   !strcmp(pr_trace_option(&r, "minimized-from"), " lead and trail  ") &&
	   !pr_trace_option(&r, "nope"), "options survive");
	for (size_t i = 0; i < t.sched.n && same; i++) {
		const struct pr_segment *o = &t.sched.seg[i], *n = &r.sched.seg[i];
		const char *l = o->end ? pr_site_label(o->end, label,
							sizeof(label)) : NULL;

		same = o->code == n->code && o->steps == n->steps &&
		       !n->end && (l ? n->end_label && !strcmp(l, n->end_label)
				   : !n->end_label);
	}
	ok(r.sched.n == t.sched.n && same, "%zu segments survive, labels "
	   "included", t.sched.n);
	ok(r.nsites == 4, "site table is deduplicated (%zu sites)", r.nsites);

	/* Overwriting an existing trace is atomic too. */
	t.seed = 7;
	ok(!pr_trace_write(path, &t, err, sizeof(err)) && count_tmp(dir) == 0,
	   "rewrite in place leaves no temporary file");
	pr_trace_free(&r);
	ok(!pr_trace_read(path, &r, err, sizeof(err)) && r.seed == 7,
	   "rewritten trace reads back");
	pr_trace_free(&r);

	/* Variants of the sample. */
	free(t.program_text);
	t.program_text = xstrdup("line\n\nlast\n");
	round_trip("program text ending in a newline", &t);
	free(t.program_text);
	t.program_text = xstrdup("");
	round_trip("empty program text", &t);
	free(t.program_text);
	t.program_text = NULL;
	round_trip("no program text", &t);
	strcpy(t.result.verdict.ctx_name, "-");
	t.result.verdict.ctx = -1;
	t.result.failed = 0;
	t.result.diverged = 1;
	round_trip("context named '-', diverged", &t);
	t.result.verdict.ctx_name[0] = 0;
	t.result.diverged = 0;
	memset(&t.result.verdict, 0, sizeof(t.result.verdict));
	t.result.verdict.ctx = -1;
	t.sched.n = 0;
	round_trip("passing run, empty schedule", &t);
	free(t.pagerace_version);
	t.pagerace_version = NULL;
	a = (free(a), print(&t, NULL));
	ok(a && strstr(a, "\npagerace-version " PACKAGE_VERSION "\n"),
	   "NULL version writes PACKAGE_VERSION");

	/* A large schedule. */
	srand(1);
	t.sched.n = 0;
	for (int i = 0; i < 200000; i++)
		push(&t, rand() % 70, (uint32_t)(rand() % 1000 + 1),
		     rand() % 7 ? &sites[rand() % 4] : NULL);
	round_trip("200000 segments", &t);

	/* Failures leave nothing behind. */
	t.sched.seg[5].steps = 0;
	snprintf(path, sizeof(path), "%s/bad.trace", dir);
	ok(pr_trace_write(path, &t, err, sizeof(err)) == -1 &&
	   strstr(err, "zero steps") && access(path, F_OK) && !count_tmp(dir),
	   "a zero-step segment is refused, no file: %s", err);
	t.sched.seg[5].steps = 1;
	snprintf(path, sizeof(path), "%s/no/such/dir.trace", dir);
	ok(pr_trace_write(path, &t, err, sizeof(err)) == -1 &&
	   strstr(err, "cannot create"), "unwritable path: %s", err);
	ok(pr_trace_read(path, &r, err, sizeof(err)) == -1 &&
	   strstr(err, "cannot open"), "missing file: %s", err);
	pr_trace_free(&t);
	free(a);
	free(b);
	free(file);
}

static void test_options(void)
{
	struct pr_trace t;

	pr_trace_init(&t);
	ok(!pr_trace_set_option(&t, "b", "1") && !pr_trace_set_option(&t, "a", "2")
	   && !pr_trace_set_option(&t, "b", "3") && t.nopts == 2 &&
	   !strcmp(t.opts[0].key, "a") && !strcmp(pr_trace_option(&t, "b"), "3"),
	   "options: replace and keep sorted");
	ok(pr_trace_set_option(&t, "has space", "x") == -1 && errno == EINVAL &&
	   pr_trace_set_option(&t, "", "x") == -1, "options: bad keys refused");
	pr_trace_free(&t);
}

/* ---- malformed inputs -------------------------------------------------- */

static const char base[] =
	"pagerace-trace 1\n"			/* 1 */
	"pagerace-version 0.1.0\n"
	"program lost-update\n"
	"strategy pct\n"
	"param pct-depth 3\n"			/* 5 */
	"param pct-steps 120\n"
	"seed 42\n"
	"run 17\n"
	"option max-steps 100000\n"
	"result fail\n"				/* 10 */
	"verdict-kind lost-update\n"
	"verdict-step 57\n"
	"verdict-ctx 1 cpu1\n"
	"verdict-event 0\n"
	"verdict-obj counter\n"			/* 15 */
	"verdict-site writer:store:counter\n"
	"verdict-where tests/foo.c:23\n"
	"verdict-msg counter is 1, expected 2\n"
	"steps 29\n"
	"preemptions 2\n"			/* 20 */
	"sites 3\n"
	"site 0 writer:store:counter\n"
	"site 1 writer:load:counter\n"
	"site 2 irq:rmw\n"
	"schedule 4\n"				/* 25 */
	"c0*12@0 c1*3@1 e0*5@2 c0*9\n"
	"program-text 2\n"
	"| cpu 0 {\n"
	"|\n"
	"end\n";				/* 30 */

#define S(x)	x, sizeof(x) - 1
struct bad {
	const char *what;
	const char *find;	/* replaced (first occurrence); NULL: append */
	const char *rep;
	size_t replen;
	int cut;		/* drop everything after the replacement */
	const char *pos;	/* "LINE:COL" */
	const char *msg;
};

static const struct bad bad[] = {
	{ "missing magic", "pagerace-trace 1\n", S(""), 0, "1:1",
	  "not a pagerace trace" },
	{ "empty file", "pagerace-trace", S(""), 1, "1:1",
	  "not a pagerace trace" },
	{ "other text", "pagerace-trace 1", S("#!/bin/sh"), 0, "1:1",
	  "not a pagerace trace" },
	{ "version 5", "trace 1", S("trace 5"), 0, "1:16",
	  "unsupported trace format version 5 (this pagerace reads 1 to 4)" },
	{ "version 0", "trace 1", S("trace 0"), 0, "1:16",
	  "unsupported trace format version 0" },
	{ "huge version", "trace 1", S("trace 99999999999999999999999"), 0,
	  "1:16", "unsupported trace format version 99999999999999999999" },
	{ "truncated at a line", "sites 3\n", S(""), 1, "21:1",
	  "unexpected end of file (truncated trace?): expected 'sites'" },
	{ "truncated mid-line", "end\n", S("en"), 1, "30:3",
	  "not terminated by a newline" },
	{ "truncated schedule", "c0*12@0", S(""), 1, "26:1",
	  "expected 4 more segments" },
	{ "no end", "end\n", S(""), 0, "30:1", "expected 'end'" },
	{ "bad number", "seed 42", S("seed 4x2"), 0, "7:6",
	  "bad number '4x2' for seed (junk at column 7)" },
	{ "number overflow", "seed 42", S("seed 18446744073709551616"), 0,
	  "7:6", "out of range for seed" },
	{ "leading zero", "run 17", S("run 017"), 0, "8:5", "leading zero" },
	{ "negative number", "steps 29", S("steps -29"), 0, "19:7",
	  "bad number" },
	{ "missing value", "steps 29", S("steps"), 0, "19:6",
	  "'steps' needs a value" },
	{ "unknown key", "run 17", S("walk 17"), 0, "8:1",
	  "unknown key 'walk' (expected 'run')" },
	{ "keys out of order", "seed 42\nrun 17", S("run 17\nseed 42"), 0,
	  "7:1", "expected 'seed', found 'run'" },
	{ "unknown param", "pct-depth", S("pct-width"), 0, "5:7",
	  "unknown param 'pct-width'" },
	{ "bad result", "result fail", S("result maybe"), 0, "10:8",
	  "bad result 'maybe'" },
	{ "context out of range", "ctx 1 cpu1", S("ctx 64 cpu1"), 0, "13:13",
	  "out of range for verdict-ctx" },
	{ "flag out of range", "verdict-event 0", S("verdict-event 5"), 0,
	  "14:15", "out of range for verdict-event (at most 1)" },
	{ "verdict string too long", "kind lost-update",
	  S("kind 0123456789012345678901234567890123"), 0, "11:14",
	  "string too long (at most 31 bytes)" },
	{ "bad escape", "counter is 1", S("counter\\qis 1"), 0, "18:20",
	  "bad escape '\\q'" },
	{ "escaped NUL", "counter is 1", S("counter\\x00is 1"), 0, "18:20",
	  "escaped NUL" },
	{ "embedded NUL", "counter is 1", S("counter\0is 1"), 0, "18:20",
	  "NUL byte in trace" },
	{ "raw control byte", "counter is 1", S("counter\tis 1"), 0, "18:20",
	  "unescaped byte 0x09" },
	{ "CRLF", "run 17\n", S("run 17\r\n"), 0, "8:7", "carriage return" },
	{ "reserved site label", "irq:rmw", S("-"), 0, "24:8",
	  "site label '-' is reserved" },
	{ "site out of order", "site 1", S("site 2"), 0, "23:6",
	  "site 2 out of order (expected site 1)" },
	{ "bad token", "c1*3@1", S("x1*3@1"), 0, "26:9",
	  "bad segment token 'x1*3@1'" },
	{ "token without steps", "c1*3@1", S("c1*@1"), 0, "26:9",
	  "bad segment token" },
	{ "token with junk", "c1*3@1", S("c1*3@1z"), 0, "26:9",
	  "bad segment token" },
	{ "double space", "c1*3@1 ", S("c1*3@1  "), 0, "26:16",
	  "empty segment token" },
	{ "context code out of range", "c1*3@1", S("c64*3@1"), 0, "26:9",
	  "context 64 out of range (0..63)" },
	{ "event code out of range", "e0*5@2", S("e128*5@2"), 0, "26:16",
	  "event 128 out of range (0..127)" },
	{ "zero-step segment", "c1*3@1", S("c1*0@1"), 0, "26:12",
	  "zero-step segment" },
	{ "steps overflow", "c1*3@1", S("c1*4294967296@1"), 0, "26:12",
	  "out of range for segment steps" },
	{ "site out of range", "e0*5@2", S("e0*5@3"), 0, "26:21",
	  "site 3 out of range (3 sites)" },
	{ "count too big", "schedule 4", S("schedule 5"), 0, "27:1",
	  "schedule has 4 segments, but its count says 5" },
	{ "count too small", "schedule 4", S("schedule 3"), 0, "26:23",
	  "more segments than its count 3" },
	{ "count too small by a line", "schedule 4\nc0*12@0 c1*3@1 e0*5@2 c0*9",
	  S("schedule 2\nc0*12@0 c1*3@1\ne0*5@2 c0*9"), 0, "27:1",
	  "more segments than its count 2" },
	{ "segment limit", "schedule 4", S("schedule 16777217"), 0, "25:10",
	  "at most 16777216" },
	{ "program-text count", "program-text 2", S("program-text 3"), 0,
	  "30:1", "must start with '| '" },
	{ "program-text noeol on nothing", "program-text 2\n| cpu 0 {\n|\n",
	  S("program-text 0 noeol\n"), 0, "27:16", "'noeol' without any line" },
	{ "text after end", "end\n", S("end x\n"), 0, "30:4",
	  "unexpected text after 'end'" },
	{ "trailing data", NULL, S("x\n"), 0, "31:1",
	  "trailing data after 'end'" },
	{ "trailing empty line", NULL, S("\n"), 0, "31:1",
	  "trailing data after 'end'" },
};

static void test_malformed(void)
{
	char err[512], *buf;
	struct pr_trace t;
	size_t n;

	ok(!pr_trace_parse("base", base, sizeof(base) - 1, &t, err, sizeof(err)),
	   "base text parses: %s", err);
	ok(t.sched.n == 4 && t.sched.seg[2].code == PR_CHOICE_EVENT &&
	   !strcmp(t.sched.seg[2].end_label, "irq:rmw") &&
	   !t.sched.seg[3].end_label && !strcmp(t.program_text, "cpu 0 {\n\n"),
	   "base text contents");
	pr_trace_free(&t);

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const struct bad *b = &bad[i];
		const char *at = b->find ? strstr(base, b->find) : base +
				 sizeof(base) - 1;
		size_t pre = (size_t)(at - base);
		size_t post = b->find ? strlen(b->find) : 0;
		char where[64];
		int r;

		if (!at)
			bail_out(b->what);
		buf = malloc(sizeof(base) + b->replen);
		memcpy(buf, base, pre);
		memcpy(buf + pre, b->rep, b->replen);
		n = pre + b->replen;
		if (!b->cut) {
			memcpy(buf + n, at + post, sizeof(base) - 1 - pre - post);
			n += sizeof(base) - 1 - pre - post;
		}
		err[0] = 0;
		r = pr_trace_parse("t.trace", buf, n, &t, err, sizeof(err));
		snprintf(where, sizeof(where), "t.trace:%s: error: ", b->pos);
		ok(r == -1 && !strncmp(err, where, strlen(where)) &&
		   strstr(err, b->msg) && t.sched.n == 0 && !t.program,
		   "%s: %s", b->what, err);
		free(buf);
	}

	/* A line over the limit. */
	n = sizeof(base) + PR_TRACE_MAX_LINE + 16;
	buf = malloc(n);
	strcpy(buf, "pagerace-trace 1\npagerace-version ");
	memset(buf + strlen(buf), 'v', PR_TRACE_MAX_LINE);
	strcpy(buf + 34 + PR_TRACE_MAX_LINE, "\n");
	ok(pr_trace_parse("t", buf, strlen(buf), &t, err, sizeof(err)) == -1 &&
	   strstr(err, "t:2:65537: error: line longer than 65536 bytes"),
	   "line limit: %s", err);
	free(buf);
	ok(pr_trace_parse("t", base, sizeof(base) - 1, &t, NULL, 0) == 0,
	   "parse with no error buffer");
	pr_trace_free(&t);
}

/*
 * Version 2: the version 1 base, written again, gains the
 * flavour and check lines; the check notices an edited seed, run, option,
 * verdict or schedule, and not an edited pagerace-version.
 */
static void replace_line(char *buf, const char *key, const char *line)
{
	char *at = strstr(buf, key), *eol;

	if (!at)
		bail_out(key);
	eol = strchr(at + 1, '\n');
	memmove(at + strlen(line), eol, strlen(eol) + 1);
	memcpy(at, line, strlen(line));
}

static void test_version2(void)
{
	static const struct {
		const char *key, *line, *pos;
	} edits[] = {
		{ "\nseed ", "\nseed 43", "t.trace:31:7" },
		{ "\nrun ", "\nrun 18", "t.trace:31:7" },
		{ "\noption max-steps", "\noption max-steps 99", "t.trace:31:7" },
		{ "\nverdict-step", "\nverdict-step 58", "t.trace:31:7" },
		{ "\nc0*12@0", "\nc0*13@0 c1*3@1 e0*5@2 c0*9", "t.trace:31:7" },
		{ "\n| cpu 0 {", "\n| cpu 1 {", "t.trace:31:7" },
		{ "\nflavour ", "\nflavour tsan", "t.trace:31:7" },
	};
	char err[512], buf[4096], *out, *again;
	struct pr_trace t, u;
	size_t n;

	ok(!pr_trace_parse("base", base, sizeof(base) - 1, &t, err, sizeof(err)) &&
	   t.format == 1 && t.flavour == PR_TRACE_FLAVOUR_UNKNOWN,
	   "a version 1 trace reads, flavour unknown: %s", err);
	out = print(&t, &n);
	ok(out && !strncmp(out, "pagerace-trace 2\npagerace-version 0.1.0\n"
			   "flavour plain\nprogram lost-update\n",
			   strlen("pagerace-trace 2\npagerace-version 0.1.0\n"
				  "flavour plain\nprogram lost-update\n")) &&
	   strstr(out, "\n|\ncheck ") && strstr(out, "\nend\n"),
	   "written again as version 2, flavour plain (this build), check");
	pr_trace_free(&t);
	ok(out && !pr_trace_parse("t.trace", out, n, &u, err, sizeof(err)) &&
	   u.format == 2 && u.flavour == PR_TRACE_PLAIN,
	   "version 2 reads back: %s", err);
	again = print(&u, NULL);
	ok(again && !strcmp(again, out), "version 2 round trip is byte-identical");
	free(again);
	pr_trace_free(&u);
	for (size_t i = 0; out && i < sizeof(edits) / sizeof(*edits); i++) {
		snprintf(buf, sizeof(buf), "%s", out);
		replace_line(buf, edits[i].key, edits[i].line);
		err[0] = 0;
		ok(strcmp(buf, out) &&
		   pr_trace_parse("t.trace", buf, strlen(buf), &u, err,
				  sizeof(err)) == -1 &&
		   !strncmp(err, edits[i].pos, strlen(edits[i].pos)) &&
		   strstr(err, "check mismatch"),
		   "edited '%s': %s", edits[i].line + 1, err);
	}
	snprintf(buf, sizeof(buf), "%s", out ? out : "");
	replace_line(buf, "\npagerace-version", "\npagerace-version 7.0-edited");
	ok(!pr_trace_parse("t.trace", buf, strlen(buf), &u, err, sizeof(err)) &&
	   !strcmp(u.pagerace_version, "7.0-edited"),
	   "pagerace-version is informational: %s", err);
	pr_trace_free(&u);
	snprintf(buf, sizeof(buf), "%s", out ? out : "");
	replace_line(buf, "\nflavour", "\nflavour asan");
	ok(pr_trace_parse("t.trace", buf, strlen(buf), &u, err, sizeof(err)) == -1 &&
	   strstr(err, "t.trace:3:9: error: unknown flavour 'asan'"),
	   "unknown flavour: %s", err);
	snprintf(buf, sizeof(buf), "%s", out ? out : "");
	replace_line(buf, "\ncheck", "\ncheck 12345");
	ok(pr_trace_parse("t.trace", buf, strlen(buf), &u, err, sizeof(err)) == -1 &&
	   strstr(err, "t.trace:31:7: error: bad check '12345'"),
	   "short check: %s", err);
	snprintf(buf, sizeof(buf), "%s", out ? out : "");
	replace_line(buf, "\ncheck", "");
	ok(pr_trace_parse("t.trace", buf, strlen(buf), &u, err, sizeof(err)) == -1 &&
	   strstr(err, "t.trace:31:1: error: expected 'check', found 'end'"),
	   "no check line: %s", err);
	free(out);
}

/* ---- mutation fuzz ----------------------------------------------------- */

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_fuzz(void)
{
	static const char junk[] = "\n\0 \\x@*ce019-|";
	struct pr_trace t, s;
	char err[512], *orig, *buf;
	size_t n0, parsed = 0, bad_shape = 0, unstable = 0;

	sample(&t);
	orig = print(&t, &n0);
	pr_trace_free(&t);
	buf = malloc(n0 + 64);
	for (int i = 0; i < 30000; i++) {
		size_t n = n0, k = 1 + next() % 4;

		memcpy(buf, orig, n0);
		while (k-- && n > 1) {
			size_t at = next() % n;

			switch (next() % 4) {
			case 0:
				buf[at] = junk[next() % (sizeof(junk) - 1)];
				break;
			case 1:
				buf[at] ^= (char)(1u << (next() % 8));
				break;
			case 2:
				memmove(buf + at, buf + at + 1, n - at - 1);
				n--;
				break;
			default:
				n = at + 1;
				break;
			}
		}
		if (pr_trace_parse("f", buf, n, &t, err, sizeof(err))) {
			bad_shape += strncmp(err, "f:", 2) ||
				     !strstr(err, ": error: ");
			continue;
		}
		parsed++;
		{
			char *a = print(&t, &n), *b = NULL;
			size_t nb = 0;

			if (a && !pr_trace_parse("g", a, n, &s, err, sizeof(err))) {
				b = print(&s, &nb);
				pr_trace_free(&s);
			}
			unstable += !a || !b || n != nb || memcmp(a, b, n);
			free(a);
			free(b);
		}
		pr_trace_free(&t);
	}
	diag("fuzz: 30000 mutants, %zu still parse", parsed);
	ok(!bad_shape, "fuzz: every error is FILE:LINE:COL: error: ...");
	ok(!unstable, "fuzz: every accepted mutant prints and re-parses "
	   "to the same text");
	free(buf);
	free(orig);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[1024];

	snprintf(dir, sizeof(dir), "%s/pagerace-trace-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		bail_out("mkdtemp");
	test_round_trip(dir);
	test_options();
	test_malformed();
	test_version2();
	test_fuzz();
	{
		char path[1100];

		snprintf(path, sizeof(path), "%s/sample.trace", dir);
		unlink(path);
		rmdir(dir);
	}
	return done_testing();
}
