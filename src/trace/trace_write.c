/* SPDX-License-Identifier: MIT */
/*
 * trace_write.c - checking and writing traces (doc/trace-format.md).
 *
 * The output is a pure function of the struct: no time, no addresses, no
 * locale; options are kept sorted and site labels are numbered in order of
 * first use, so equal traces give byte-identical text.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"
#include "util/outfile.h"

#define LABEL_MAX	512

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * The label of a segment's end, whichever way the schedule was made; NULL
 * if it has none (the runtime labels a missing site "-").  A read label is
 * used as is: copying it through a buffer could truncate it.
 */
static const char *seg_label(const struct pr_segment *seg, char *buf,
			     size_t len)
{
	const char *l = seg->end_label;

	if (!l)
		l = pr_segment_end_label(seg, buf, len);
	return l && *l && strcmp(l, "-") ? l : NULL;
}

/* ---- escaping ---------------------------------------------------------- */

static int plain_byte(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '\\';
}

/* Length of @s escaped; a final space is escaped so no line ends in one. */
static size_t escaped_len(const char *s)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\' || *p == '\n')
			n += 2;
		else if (!plain_byte(*p) || (*p == ' ' && !p[1]))
			n += 4;
		else
			n++;
	}
	return n;
}

static void put_escaped(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (!plain_byte(*p) || (*p == ' ' && !p[1]))
			fprintf(f, "\\x%02x", *p);
		else
			putc(*p, f);
	}
}

/* "key value", or "key" alone for an empty value. */
static void put_str(FILE *f, const char *key, const char *val)
{
	fputs(key, f);
	if (val && *val) {
		putc(' ', f);
		put_escaped(f, val);
	}
	putc('\n', f);
}

/* ---- site table: labels numbered in order of first use ----------------- */

struct site_table {
	char **label;		/* by index */
	size_t n, cap;
	uint32_t *slot;		/* hash: index + 1, 0 = empty */
	size_t nslot;		/* power of two */
	uint32_t *seg_site;	/* per segment: index, or UINT32_MAX */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static void site_table_free(struct site_table *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->label[i]);
	free(st->label);
	free(st->slot);
	free(st->seg_site);
	memset(st, 0, sizeof(*st));
}

static int site_table_grow(struct site_table *st)
{
	size_t nslot = st->nslot ? st->nslot * 2 : 64;
	uint32_t *slot = calloc(nslot, sizeof(*slot));

	if (!slot)
		return -1;
	for (size_t i = 0; i < st->n; i++) {
		size_t h = hash_str(st->label[i]) & (nslot - 1);

		while (slot[h])
			h = (h + 1) & (nslot - 1);
		slot[h] = (uint32_t)i + 1;
	}
	free(st->slot);
	st->slot = slot;
	st->nslot = nslot;
	return 0;
}

/* Index of @label, added if new; -1 on ENOMEM. */
static long site_table_index(struct site_table *st, const char *label)
{
	size_t h;

	if ((st->n + 1) * 2 > st->nslot && site_table_grow(st))
		return -1;
	h = hash_str(label) & (st->nslot - 1);
	while (st->slot[h]) {
		if (!strcmp(st->label[st->slot[h] - 1], label))
			return st->slot[h] - 1;
		h = (h + 1) & (st->nslot - 1);
	}
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 16;
		char **l = realloc(st->label, cap * sizeof(*l));

		if (!l)
			return -1;
		st->label = l;
		st->cap = cap;
	}
	if (!(st->label[st->n] = strdup(label)))
		return -1;
	st->slot[h] = (uint32_t)st->n + 1;
	return (long)st->n++;
}

/* 0, or -1 with errno ENOMEM / EINVAL (too many sites). */
static int site_table_build(struct site_table *st,
			    const struct pr_schedule *s)
{
	char buf[LABEL_MAX];

	memset(st, 0, sizeof(*st));
	if (s->n && !(st->seg_site = malloc(s->n * sizeof(*st->seg_site))))
		goto nomem;
	for (size_t i = 0; i < s->n; i++) {
		const char *l = seg_label(&s->seg[i], buf, sizeof(buf));
		long idx;

		st->seg_site[i] = UINT32_MAX;
		if (!l)
			continue;
		if ((idx = site_table_index(st, l)) < 0)
			goto nomem;
		if (st->n > PR_TRACE_MAX_SITES) {
			site_table_free(st);
			errno = EINVAL;
			return -1;
		}
		st->seg_site[i] = (uint32_t)idx;
	}
	return 0;
nomem:
	site_table_free(st);
	errno = ENOMEM;
	return -1;
}

/* ---- checking ---------------------------------------------------------- */

static int key_ok(const char *k)
{
	if (!k || !*k || strlen(k) > 128)
		return 0;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		      (*k >= '0' && *k <= '9') || *k == '.' || *k == '_' ||
		      *k == '-'))
			return 0;
	return 1;
}

/* Does a string line "key value" fit?  Key lengths here are small. */
static int str_fits(const char *s)
{
	return escaped_len(s) + 160 <= PR_TRACE_MAX_LINE;
}

#define FIELD_OK(arr)	(memchr((arr), 0, sizeof(arr)) != NULL)

static int check_verdict(const struct pr_verdict *v, char *err,
			 size_t errlen)
{
	if (!FIELD_OK(v->kind) || !FIELD_OK(v->ctx_name) ||
	    !FIELD_OK(v->obj) || !FIELD_OK(v->site) || !FIELD_OK(v->where) ||
	    !FIELD_OK(v->msg)) {
		seterr(err, errlen, "a verdict string is not NUL-terminated");
		return -1;
	}
	if (v->ctx < -1 || v->ctx >= PR_CHOICE_EVENT) {
		seterr(err, errlen, "verdict context %d out of range", v->ctx);
		return -1;
	}
	if (v->in_event != 0 && v->in_event != 1) {
		seterr(err, errlen, "verdict in_event is %d, not 0 or 1",
		       v->in_event);
		return -1;
	}
	return 0;
}

static int check_text(const char *text, char *err, size_t errlen)
{
	size_t lines = 0;

	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);

		if (len + 2 > PR_TRACE_MAX_LINE) {
			seterr(err, errlen, "program text line %zu is longer "
			       "than %d bytes", lines + 1,
			       PR_TRACE_MAX_LINE - 2);
			return -1;
		}
		if (++lines > PR_TRACE_MAX_TEXT_LINES) {
			seterr(err, errlen, "program text has more than %u "
			       "lines", PR_TRACE_MAX_TEXT_LINES);
			return -1;
		}
		text += len + (nl != NULL);
	}
	return 0;
}

int pr_trace_check(const struct pr_trace *t, char *err, size_t errlen)
{
	char buf[LABEL_MAX];

	/* A version 1 trace read back is written as version 2. */
	if (t->format < PR_TRACE_FORMAT_MIN || t->format > PR_TRACE_FORMAT) {
		seterr(err, errlen, "trace format %d, this pagerace writes %d",
		       t->format, PR_TRACE_FORMAT);
		return -1;
	}
	if (!pr_trace_memory_name(t->memory)) {
		seterr(err, errlen, "memory model %d out of range", t->memory);
		return -1;
	}
	if (!t->program || !*t->program || !t->strategy || !*t->strategy) {
		seterr(err, errlen, "trace without a program or strategy");
		return -1;
	}
	if (!str_fits(t->program) || !str_fits(t->strategy) ||
	    (t->pagerace_version && !str_fits(t->pagerace_version))) {
		seterr(err, errlen, "program, strategy or version string is "
		       "too long");
		return -1;
	}
	if (t->params.pct_depth < 0) {
		seterr(err, errlen, "negative pct-depth %d",
		       t->params.pct_depth);
		return -1;
	}
	if (t->nopts > PR_TRACE_MAX_OPTIONS || (t->nopts && !t->opts)) {
		seterr(err, errlen, "too many options (%zu, at most %d)",
		       t->nopts, PR_TRACE_MAX_OPTIONS);
		return -1;
	}
	for (size_t i = 0; i < t->nopts; i++) {
		const struct pr_trace_option *o = &t->opts[i];

		if (!key_ok(o->key) || !o->value || !str_fits(o->value)) {
			seterr(err, errlen, "option %zu has a bad key or value",
			       i);
			return -1;
		}
		if (i && strcmp(t->opts[i - 1].key, o->key) >= 0) {
			seterr(err, errlen, "options not sorted or not unique "
			       "at '%s' (use pr_trace_set_option)", o->key);
			return -1;
		}
	}
	if (t->result.failed && t->result.diverged) {
		seterr(err, errlen, "result is both failed and diverged");
		return -1;
	}
	if (check_verdict(&t->result.verdict, err, errlen))
		return -1;
	if (t->sched.n > PR_TRACE_MAX_SEGMENTS || (t->sched.n && !t->sched.seg)) {
		seterr(err, errlen, "schedule has %zu segments, at most %u",
		       t->sched.n, PR_TRACE_MAX_SEGMENTS);
		return -1;
	}
	for (size_t i = 0; i < t->sched.n; i++) {
		const struct pr_segment *s = &t->sched.seg[i];
		const char *l;

		if (s->code >= PR_CHOICE_MEM &&
		    s->code <= PR_CHOICE_MEM + PR_TRACE_MAX_MEM &&
		    t->memory == PR_TRACE_MEM_SC) {
			seterr(err, errlen, "segment %zu: a flush in an sc "
			       "trace", i);
			return -1;
		}
		if (s->code >= PR_CHOICE_READ &&
		    s->code <= PR_CHOICE_READ + PR_TRACE_MAX_READ &&
		    t->memory != PR_TRACE_MEM_WEAK) {
			seterr(err, errlen, "segment %zu: a stale read in a "
			       "trace whose memory model is not weak", i);
			return -1;
		}
		if (s->code > PR_TRACE_MAX_CODE &&
		    (s->code < PR_CHOICE_MEM ||
		     s->code > PR_CHOICE_MEM + PR_TRACE_MAX_MEM) &&
		    (s->code < PR_CHOICE_READ ||
		     s->code > PR_CHOICE_READ + PR_TRACE_MAX_READ)) {
			seterr(err, errlen, "segment %zu: choice code %u out "
			       "of range", i, s->code);
			return -1;
		}
		if (!s->steps) {
			seterr(err, errlen, "segment %zu has zero steps", i);
			return -1;
		}
		l = seg_label(s, buf, sizeof(buf));
		if (l && !str_fits(l)) {
			seterr(err, errlen, "segment %zu: site label too long",
			       i);
			return -1;
		}
	}
	if (t->program_text && check_text(t->program_text, err, errlen))
		return -1;
	return 0;
}

/* ---- printing ---------------------------------------------------------- */

static const char *result_word(const struct pr_run_result *r)
{
	return r->diverged ? "diverged" : r->failed ? "fail" : "pass";
}

static void put_segment(FILE *f, const struct pr_segment *s, uint32_t site)
{
	if (s->code >= PR_CHOICE_READ)
		fprintf(f, "r%u*%lu", s->code - PR_CHOICE_READ,
			(unsigned long)s->steps);
	else if (s->code >= PR_CHOICE_MEM)
		fprintf(f, "m%u*%lu", s->code - PR_CHOICE_MEM,
			(unsigned long)s->steps);
	else if (s->code >= PR_CHOICE_EVENT)
		fprintf(f, "e%u*%lu", s->code - PR_CHOICE_EVENT,
			(unsigned long)s->steps);
	else
		fprintf(f, "c%u*%lu", s->code, (unsigned long)s->steps);
	if (site != UINT32_MAX)
		fprintf(f, "@%lu", (unsigned long)site);
}

static void put_program_text(FILE *f, const char *text)
{
	size_t lines = 0, len = strlen(text);
	int noeol = len && text[len - 1] != '\n';

	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	lines += noeol;
	fprintf(f, "program-text %zu%s\n", lines, noeol ? " noeol" : "");
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);

		if (n) {
			fputs("| ", f);
			fwrite(text, 1, n, f);
			putc('\n', f);
		} else {
			fputs("|\n", f);
		}
		text += n + (nl != NULL);
	}
}

static int has_reads(const struct pr_schedule *sc)
{
	for (size_t i = 0; i < sc->n; i++)
		if (sc->seg[i].code >= PR_CHOICE_READ)
			return 1;
	return 0;
}

static void put_body(FILE *f, const struct pr_trace *t,
		     const struct site_table *st)
{
	const struct pr_run_result *r = &t->result;
	const struct pr_verdict *v = &r->verdict;

	int flavour = t->flavour == PR_TRACE_FLAVOUR_UNKNOWN ?
		      pr_trace_build_flavour() : t->flavour;

	/* An sc trace stays version 2, byte for byte (trace.h); 3 without
	 * stale reads. */
	fprintf(f, "pagerace-trace %d\n", t->memory == PR_TRACE_MEM_SC ?
		PR_TRACE_FORMAT_SC : has_reads(&t->sched) ? PR_TRACE_FORMAT
		: PR_TRACE_FORMAT_MEM);
	/* Left out of the check: the one informational line (see check()). */
	put_str(f, "pagerace-version",
		t->pagerace_version ? t->pagerace_version : PACKAGE_VERSION);
	fprintf(f, "flavour %s\n", pr_trace_flavour_name(flavour));
	if (t->memory != PR_TRACE_MEM_SC)
		fprintf(f, "memory %s\n", pr_trace_memory_name(t->memory));
	put_str(f, "program", t->program);
	put_str(f, "strategy", t->strategy);
	fprintf(f, "param pct-depth %d\n", t->params.pct_depth);
	fprintf(f, "param pct-steps %llu\n",
		(unsigned long long)t->params.pct_steps);
	fprintf(f, "seed %llu\n", (unsigned long long)t->seed);
	fprintf(f, "run %llu\n", (unsigned long long)t->run);
	for (size_t i = 0; i < t->nopts; i++) {
		fprintf(f, "option %s", t->opts[i].key);
		if (*t->opts[i].value) {
			putc(' ', f);
			put_escaped(f, t->opts[i].value);
		}
		putc('\n', f);
	}
	fprintf(f, "result %s\n", result_word(r));
	put_str(f, "verdict-kind", v->kind);
	fprintf(f, "verdict-step %llu\n", (unsigned long long)v->step);
	fprintf(f, "verdict-ctx %d ", v->ctx);
	if (!v->ctx_name[0])
		putc('-', f);
	else if (!strcmp(v->ctx_name, "-"))
		fputs("\\x2d", f);
	else
		put_escaped(f, v->ctx_name);
	putc('\n', f);
	fprintf(f, "verdict-event %d\n", v->in_event);
	put_str(f, "verdict-obj", v->obj);
	put_str(f, "verdict-site", v->site);
	put_str(f, "verdict-where", v->where);
	put_str(f, "verdict-msg", v->msg);
	fprintf(f, "steps %llu\n", (unsigned long long)r->steps);
	fprintf(f, "preemptions %llu\n", (unsigned long long)r->preemptions);
	fprintf(f, "sites %zu\n", st->n);
	for (size_t i = 0; i < st->n; i++) {
		fprintf(f, "site %zu ", i);
		put_escaped(f, st->label[i]);
		putc('\n', f);
	}
	fprintf(f, "schedule %zu\n", t->sched.n);
	for (size_t i = 0; i < t->sched.n; i++) {
		put_segment(f, &t->sched.seg[i], st->seg_site[i]);
		putc((i + 1) % PR_TRACE_SEGS_PER_LINE && i + 1 < t->sched.n ?
		     ' ' : '\n', f);
	}
	if (t->program_text)
		put_program_text(f, t->program_text);
}

/*
 * The check line: FNV-1a of every byte of @body (the lines before it)
 * except the second line, pagerace-version.  trace_read.c's check()
 * computes the same over the file it reads.
 */
static void put_check(FILE *f, const char *body, size_t len)
{
	const char *l2 = memchr(body, '\n', len);
	const char *l3 = l2 ? memchr(l2 + 1, '\n', len - (size_t)(l2 + 1 - body)) : NULL;
	uint64_t h;

	if (!l3) {		/* cannot happen: put_body writes both */
		l2 = l3 = body + len - 1;
	}
	h = pr_trace_hash(PR_TRACE_HASH_INIT, body, (size_t)(l2 + 1 - body));
	h = pr_trace_hash(h, l3 + 1, len - (size_t)(l3 + 1 - body));
	fprintf(f, "check %016llx\n", (unsigned long long)h);
}

/* 0, or -1 with errno (EINVAL: check failed, with @err set). */
static int print(FILE *f, const struct pr_trace *t, char *err, size_t errlen)
{
	struct site_table st;
	char *body = NULL;
	size_t len = 0;
	FILE *mem;

	if (pr_trace_check(t, err, errlen)) {
		errno = EINVAL;
		return -1;
	}
	if (site_table_build(&st, &t->sched)) {
		seterr(err, errlen, errno == EINVAL ?
		       "more than %u distinct sites" : "out of memory",
		       PR_TRACE_MAX_SITES);
		return -1;
	}
	mem = open_memstream(&body, &len);
	if (!mem) {
		site_table_free(&st);
		seterr(err, errlen, "out of memory");
		errno = ENOMEM;
		return -1;
	}
	put_body(mem, t, &st);
	site_table_free(&st);
	if (fclose(mem)) {
		free(body);
		seterr(err, errlen, "out of memory");
		errno = ENOMEM;
		return -1;
	}
	fwrite(body, 1, len, f);
	put_check(f, body, len);
	fputs("end\n", f);
	free(body);
	if (fflush(f) || ferror(f)) {
		seterr(err, errlen, "write error: %s", strerror(errno));
		errno = EIO;
		return -1;
	}
	return 0;
}

int pr_trace_fprint(FILE *f, const struct pr_trace *t)
{
	return print(f, t, NULL, 0);
}

static int fill_trace(FILE *f, void *arg, char *msg, size_t msglen)
{
	return print(f, arg, msg, msglen);
}

int pr_trace_write(const char *path, const struct pr_trace *t, char *err,
		   size_t errlen)
{
	char msg[256];

	if (pr_trace_check(t, msg, sizeof(msg))) {
		seterr(err, errlen, "%s: %s", path, msg);
		return -1;
	}
	return pr_outfile_write(path, fill_trace, (void *)t, err, errlen);
}

int pr_trace_write_new(char *path, size_t pathlen, const struct pr_trace *t,
		       char *err, size_t errlen)
{
	char msg[256];

	if (pr_trace_check(t, msg, sizeof(msg))) {
		seterr(err, errlen, "%s: %s", path, msg);
		return -1;
	}
	return pr_outfile_write_new(path, pathlen, ".trace", fill_trace,
				    (void *)t, err, errlen);
}
