/* SPDX-License-Identifier: MIT */
/*
 * trace_read.c - reading traces (doc/trace-format.md): the sections, in
 * file order, on top of trace_lex.c's line primitives.
 *
 * The parser is strict and total: it works on a length-delimited buffer
 * (no NUL needed), bounds every line, number and count, grows its arrays
 * only as input arrives (a short file cannot make it allocate much), and
 * reports the first problem as "FILE:LINE:COL: error: MESSAGE".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/trace_parse.h"

static int header(struct parser *p)
{
	static const char magic[] = "pagerace-trace ";
	const char *v, *e;
	uint64_t version;

	if (p->len < sizeof(magic) - 1 ||
	    memcmp(p->buf, magic, sizeof(magic) - 1))
		return tp_fail(p, 1, 1, "not a pagerace trace (no "
			    "'pagerace-trace' line)");
	if (tp_expect(p, "pagerace-trace", &v, &e))
		return -1;
	if (v == e)
		return FAIL_AT(p, v, "not a pagerace trace (no format version)");
	for (const char *q = v; q < e; q++)
		if (*q < '0' || *q > '9')
			return FAIL_AT(p, v, "not a pagerace trace (bad format "
				       "version '%.*s')",
				       (int)(e - v > 20 ? 20 : e - v), v);
	if (e - v > 9 || tp_number(p, v, e, UINT32_MAX, "format version",
				&version))
		return FAIL_AT(p, v, "unsupported trace format version %.*s "
			       "(this pagerace reads %d to %d)",
			       (int)(e - v > 20 ? 20 : e - v), v,
			       PR_TRACE_FORMAT_MIN, PR_TRACE_FORMAT);
	if (version < PR_TRACE_FORMAT_MIN || version > PR_TRACE_FORMAT)
		return FAIL_AT(p, v, "unsupported trace format version %llu "
			       "(this pagerace reads %d to %d)",
			       (unsigned long long)version, PR_TRACE_FORMAT_MIN,
			       PR_TRACE_FORMAT);
	p->t->format = (int)version;
	p->t->flavour = PR_TRACE_FLAVOUR_UNKNOWN;
	if (tp_string_line(p, "pagerace-version", 0, &p->t->pagerace_version))
		return -1;
	p->ver_beg = (size_t)(p->line - p->buf);
	p->ver_end = p->ver_beg + p->linelen + 1;
	if (version >= 2) {
		if (tp_expect(p, "flavour", &v, &e) || tp_need_value(p, "flavour", v))
			return -1;
		if (tp_is_key(v, (size_t)(e - v), "plain"))
			p->t->flavour = PR_TRACE_PLAIN;
		else if (tp_is_key(v, (size_t)(e - v), "tsan"))
			p->t->flavour = PR_TRACE_TSAN;
		else
			return FAIL_AT(p, v, "unknown flavour '%.*s' (expected "
				       "'plain' or 'tsan')",
				       (int)(e - v > 20 ? 20 : e - v), v);
	}
	p->t->memory = PR_TRACE_MEM_SC;
	if (version >= 3) {
		int m;

		if (tp_expect(p, "memory", &v, &e) || tp_need_value(p, "memory", v))
			return -1;
		for (m = 0; m < PR_TRACE_MEM_NR; m++)
			if (tp_is_key(v, (size_t)(e - v), pr_trace_memory_name(m)))
				break;
		if (m == PR_TRACE_MEM_NR)
			return FAIL_AT(p, v, "unknown memory model '%.*s' "
				       "(expected 'sc', 'tso' or 'weak')",
				       (int)(e - v > 20 ? 20 : e - v), v);
		p->t->memory = m;
	}
	if (tp_string_line(p, "program", 1, &p->t->program) ||
	    tp_string_line(p, "strategy", 1, &p->t->strategy))
		return -1;
	return 0;
}

static int params(struct parser *p)
{
	unsigned seen = 0;
	int r;

	while ((r = tp_peek_key(p, "param")) > 0) {
		const char *v, *e, *sp;
		uint64_t x;

		if (tp_expect(p, "param", &v, &e) || tp_need_value(p, "param", v))
			return -1;
		sp = memchr(v, ' ', (size_t)(e - v));
		if (!sp)
			return tp_fail(p, p->lineno, p->linelen + 1,
				    "'param' needs a name and a value");
		if (tp_is_key(v, (size_t)(sp - v), "pct-depth")) {
			if (seen & 1)
				return FAIL_AT(p, v, "duplicate param");
			if (tp_number(p, sp + 1, e, INT32_MAX, "pct-depth", &x))
				return -1;
			p->t->params.pct_depth = (int)x;
			seen |= 1;
		} else if (tp_is_key(v, (size_t)(sp - v), "pct-steps")) {
			if (seen & 2)
				return FAIL_AT(p, v, "duplicate param");
			if (tp_number(p, sp + 1, e, UINT64_MAX, "pct-steps",
				   &p->t->params.pct_steps))
				return -1;
			seen |= 2;
		} else {
			return FAIL_AT(p, v, "unknown param '%.*s'",
				       (int)(sp - v > 40 ? 40 : sp - v), v);
		}
	}
	return r;
}

/*
 * The option keys this reader knows.  An option is a run setting needed
 * to reproduce the run: one it does not know would be replayed without,
 * as a run it is not, so it is refused.  minimized-from is a note.
 */
static const char *const option_keys[] = {
	"knobs", "max-steps", "minimized-from", "protocol", "radix-shift",
};

static int known_option(const char *key, size_t n)
{
	for (size_t i = 0; i < sizeof(option_keys) / sizeof(option_keys[0]); i++)
		if (strlen(option_keys[i]) == n && !memcmp(option_keys[i], key, n))
			return 1;
	return 0;
}

static int options(struct parser *p)
{
	int r;

	while ((r = tp_peek_key(p, "option")) > 0) {
		const char *v, *e, *sp;
		char *key, *val;

		if (tp_expect(p, "option", &v, &e) || tp_need_value(p, "option", v))
			return -1;
		sp = memchr(v, ' ', (size_t)(e - v));
		if (!sp)
			sp = e;
		if (!tp_key_ok(v, (size_t)(sp - v)))
			return FAIL_AT(p, v, "bad option key (want "
				       "[A-Za-z0-9._-], 1 to 128 bytes)");
		if (!known_option(v, (size_t)(sp - v)))
			return FAIL_AT(p, v, "unknown option '%.*s' (knobs, "
				       "max-steps, minimized-from, protocol, "
				       "radix-shift): a setting this pagerace "
				       "cannot reproduce", (int)(sp - v), v);
		if (!(key = strndup(v, (size_t)(sp - v))))
			return FAIL_AT(p, v, "out of memory");
		if (pr_trace_option(p->t, key)) {
			free(key);
			return FAIL_AT(p, v, "duplicate option '%.*s'",
				       (int)(sp - v), v);
		}
		if (tp_string(p, sp < e ? sp + 1 : NULL, e, &val)) {
			free(key);
			return -1;
		}
		r = pr_trace_set_option(p->t, key, val);
		free(key);
		free(val);
		if (r)
			return FAIL_AT(p, v, errno == EINVAL ? "too many "
				       "options" : "out of memory");
	}
	return r;
}

static int verdict(struct parser *p)
{
	struct pr_run_result *res = &p->t->result;
	struct pr_verdict *vd = &res->verdict;
	const char *v, *e, *sp;
	uint64_t x;
	size_t n;

	if (tp_expect(p, "result", &v, &e) || tp_need_value(p, "result", v))
		return -1;
	if (tp_is_key(v, (size_t)(e - v), "fail"))
		res->failed = 1;
	else if (tp_is_key(v, (size_t)(e - v), "diverged"))
		res->diverged = 1;
	else if (!tp_is_key(v, (size_t)(e - v), "pass"))
		return FAIL_AT(p, v, "bad result '%.*s' (want pass, fail or "
			       "diverged)", (int)(e - v > 40 ? 40 : e - v), v);
	if (tp_fixed_line(p, "verdict-kind", vd->kind, sizeof(vd->kind)) ||
	    tp_number_line(p, "verdict-step", UINT64_MAX, &vd->step))
		return -1;

	if (tp_expect(p, "verdict-ctx", &v, &e) ||
	    tp_need_value(p, "verdict-ctx", v))
		return -1;
	sp = memchr(v, ' ', (size_t)(e - v));
	if (!sp)
		return tp_fail(p, p->lineno, p->linelen + 1, "'verdict-ctx' needs "
			    "a context id and a name");
	if (tp_is_key(v, (size_t)(sp - v), "-1")) {
		vd->ctx = -1;
	} else {
		if (tp_number(p, v, sp, PR_CHOICE_EVENT - 1, "verdict-ctx", &x))
			return -1;
		vd->ctx = (int)x;
	}
	if (tp_is_key(sp + 1, (size_t)(e - sp - 1), "-"))
		vd->ctx_name[0] = 0;
	else if (tp_unescape(p, sp + 1, e, vd->ctx_name, sizeof(vd->ctx_name),
			  &n))
		return -1;
	else if (!n)
		return FAIL_AT(p, sp + 1, "empty context name (write '-')");

	if (tp_number_line(p, "verdict-event", 1, &x))
		return -1;
	vd->in_event = (int)x;
	if (tp_fixed_line(p, "verdict-obj", vd->obj, sizeof(vd->obj)) ||
	    tp_fixed_line(p, "verdict-site", vd->site, sizeof(vd->site)) ||
	    tp_fixed_line(p, "verdict-where", vd->where, sizeof(vd->where)) ||
	    tp_fixed_line(p, "verdict-msg", vd->msg, sizeof(vd->msg)) ||
	    tp_number_line(p, "steps", UINT64_MAX, &res->steps) ||
	    tp_number_line(p, "preemptions", UINT64_MAX, &res->preemptions))
		return -1;
	return 0;
}

static int sites(struct parser *p)
{
	struct pr_trace *t = p->t;
	uint64_t n;
	size_t cap = 0;

	if (tp_number_line(p, "sites", PR_TRACE_MAX_SITES, &n))
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		const char *v, *e, *sp;
		uint64_t idx;
		char *label;

		if (tp_expect(p, "site", &v, &e) || tp_need_value(p, "site", v))
			return -1;
		sp = memchr(v, ' ', (size_t)(e - v));
		if (!sp || sp + 1 == e)
			return tp_fail(p, p->lineno, p->linelen + 1, "'site' "
				    "needs an index and a label");
		if (tp_number(p, v, sp, PR_TRACE_MAX_SITES, "site index", &idx))
			return -1;
		if (idx != i)
			return FAIL_AT(p, v, "site %llu out of order (expected "
				       "site %llu)", (unsigned long long)idx,
				       (unsigned long long)i);
		if (t->nsites == cap) {
			size_t nc = cap ? cap * 2 : 16;
			char **s = realloc(t->sites, nc * sizeof(*s));

			if (!s)
				return FAIL_AT(p, v, "out of memory");
			t->sites = s;
			cap = nc;
		}
		if (tp_is_key(sp + 1, (size_t)(e - sp - 1), "-"))
			return FAIL_AT(p, sp + 1, "site label '-' is reserved "
				       "(no site: leave out the '@')");
		if (tp_string(p, sp + 1, e, &label))
			return -1;
		t->sites[t->nsites++] = label;
	}
	return 0;
}

/* One segment token [s, e): c<ctx>*<steps>[@<site>] or e<id>*... */
static int segment(struct parser *p, const char *s, const char *e,
		   struct pr_segment *seg)
{
	const char *q = s, *d;
	uint64_t id, steps, site;

	if (s == e)
		return FAIL_AT(p, s, "empty segment token (extra space?)");
	if (*q != 'c' && *q != 'e' && (*q != 'm' || p->t->format < 3) &&
	    (*q != 'r' || p->t->format < 4))
		goto bad;
	for (d = ++q; q < e && *q >= '0' && *q <= '9'; q++)
		;
	if (q == d || q == e || *q != '*')
		goto bad;
	if (tp_number(p, d, q, UINT32_MAX, "choice", &id))
		return -1;
	if (*s == 'c' && id >= PR_CHOICE_EVENT)
		return FAIL_AT(p, s, "context %llu out of range (0..%d)",
			       (unsigned long long)id, PR_CHOICE_EVENT - 1);
	if (*s == 'e' && id > PR_TRACE_MAX_CODE - PR_CHOICE_EVENT)
		return FAIL_AT(p, s, "event %llu out of range (0..%d)",
			       (unsigned long long)id,
			       PR_TRACE_MAX_CODE - PR_CHOICE_EVENT);
	if (*s == 'm' && id > PR_TRACE_MAX_MEM)
		return FAIL_AT(p, s, "flush %llu out of range (0..%d)",
			       (unsigned long long)id, PR_TRACE_MAX_MEM);
	if (*s == 'm' && p->t->memory == PR_TRACE_MEM_SC)
		return FAIL_AT(p, s, "a flush in a trace whose memory model "
			       "is sc");
	if (*s == 'r' && id > PR_TRACE_MAX_READ)
		return FAIL_AT(p, s, "stale read %llu out of range (0..%d)",
			       (unsigned long long)id, PR_TRACE_MAX_READ);
	if (*s == 'r' && p->t->memory != PR_TRACE_MEM_WEAK)
		return FAIL_AT(p, s, "a stale read in a trace whose memory "
			       "model is not weak");
	for (d = ++q; q < e && *q >= '0' && *q <= '9'; q++)
		;
	if (q == d || (q < e && *q != '@'))
		goto bad;
	if (tp_number(p, d, q, UINT32_MAX, "segment steps", &steps))
		return -1;
	if (!steps)
		return FAIL_AT(p, d, "zero-step segment");
	seg->code = (uint16_t)(*s == 'c' ? id : *s == 'e' ? PR_CHOICE_EVENT + id
			       : *s == 'm' ? PR_CHOICE_MEM + id
			       : PR_CHOICE_READ + id);
	seg->steps = (uint32_t)steps;
	seg->end = NULL;
	seg->end_label = NULL;
	if (q == e)
		return 0;
	for (d = ++q; q < e && *q >= '0' && *q <= '9'; q++)
		;
	if (q == d || q != e)
		goto bad;
	if (tp_number(p, d, q, UINT32_MAX, "site index", &site))
		return -1;
	if (site >= p->t->nsites)
		return FAIL_AT(p, d, "site %llu out of range (%zu sites)",
			       (unsigned long long)site, p->t->nsites);
	seg->end_label = p->t->sites[site];
	return 0;
bad:
	return FAIL_AT(p, s, "bad segment token '%.*s' (expected e.g. "
		       "c0*12@3, e1*5 or m2*1)", (int)(e - s > 40 ? 40 : e - s), s);
}

static int looks_like_segment(const char *s, size_t n)
{
	return n >= 2 && (*s == 'c' || *s == 'e') && s[1] >= '0' &&
	       s[1] <= '9';
}

static int schedule(struct parser *p)
{
	struct pr_schedule *sc = &p->t->sched;
	uint64_t n;
	char what[64];

	if (tp_number_line(p, "schedule", PR_TRACE_MAX_SEGMENTS, &n))
		return -1;
	while (sc->n < n) {
		const char *s, *e, *end;
		int r = tp_next_line(p, 0);

		if (r < 0)
			return -1;
		if (!r) {
			snprintf(what, sizeof(what), "%llu more segments",
				 (unsigned long long)(n - sc->n));
			return tp_eof_error(p, what);
		}
		if (tp_known_key(p->line, tp_key_len(p)))
			return FAIL_AT(p, p->line, "schedule has %zu segments, "
				       "but its count says %llu", sc->n,
				       (unsigned long long)n);
		end = p->line + p->linelen;
		for (s = p->line; ; s = e + 1) {
			e = memchr(s, ' ', (size_t)(end - s));
			if (!e)
				e = end;
			if (sc->n == n)
				return FAIL_AT(p, s, "schedule has more "
					       "segments than its count %llu",
					       (unsigned long long)n);
			if (sc->n == sc->cap) {
				size_t nc = sc->cap ? sc->cap * 2 : 64;
				struct pr_segment *g;

				if (nc > n)
					nc = n;
				g = realloc(sc->seg, nc * sizeof(*g));
				if (!g)
					return FAIL_AT(p, s, "out of memory");
				sc->seg = g;
				sc->cap = nc;
			}
			if (segment(p, s, e, &sc->seg[sc->n]))
				return -1;
			sc->n++;
			if (e == end)
				break;
		}
	}
	if (tp_next_line(p, 0) > 0) {
		p->pushed = 1;
		if (looks_like_segment(p->line, tp_key_len(p)))
			return FAIL_AT(p, p->line, "schedule has more segments "
				       "than its count %llu",
				       (unsigned long long)n);
	}
	return 0;
}

static int program_text(struct parser *p)
{
	const char *v, *e, *sp;
	uint64_t n;
	int noeol = 0, r;
	char *text;
	size_t len = 0, cap = 64;

	if ((r = tp_peek_key(p, "program-text")) <= 0)
		return r;
	if (tp_expect(p, "program-text", &v, &e) ||
	    tp_need_value(p, "program-text", v))
		return -1;
	sp = memchr(v, ' ', (size_t)(e - v));
	if (sp) {
		if (!tp_is_key(sp + 1, (size_t)(e - sp - 1), "noeol"))
			return FAIL_AT(p, sp + 1, "unexpected '%.*s' after "
				       "the line count (only 'noeol')",
				       (int)(e - sp - 1 > 40 ? 40 : e - sp - 1),
				       sp + 1);
		noeol = 1;
	}
	if (tp_number(p, v, sp ? sp : e, PR_TRACE_MAX_TEXT_LINES,
		   "program-text lines", &n))
		return -1;
	if (noeol && !n)
		return FAIL_AT(p, sp + 1, "'noeol' without any line");
	if (!(text = malloc(cap)))
		return FAIL_AT(p, v, "out of memory");
	p->t->program_text = text;
	for (uint64_t i = 0; i < n; i++) {
		size_t add;

		if ((r = tp_next_line(p, 1)) < 0)
			return -1;
		if (!r) {
			char what[64];

			snprintf(what, sizeof(what), "%llu more program-text "
				 "lines", (unsigned long long)(n - i));
			return tp_eof_error(p, what);
		}
		if (!p->linelen || p->line[0] != '|' ||
		    (p->linelen > 1 && p->line[1] != ' '))
			return FAIL_AT(p, p->line, "program-text line must "
				       "start with '| ' (or be '|')");
		if (i == 0)
			p->t->program_text_line = p->lineno;
		add = p->linelen > 2 ? p->linelen - 2 : 0;
		if (len + add + 2 > cap) {
			while (len + add + 2 > cap)
				cap *= 2;
			if (!(text = realloc(p->t->program_text, cap)))
				return FAIL_AT(p, p->line, "out of memory");
			p->t->program_text = text;
		}
		memcpy(text + len, p->line + 2, add);
		len += add;
		if (!noeol || i + 1 < n)
			text[len++] = '\n';
	}
	text[len] = 0;
	return 0;
}

/*
 * Version 2: "check HEX", 16 lower-case hex digits, the FNV-1a hash of the
 * file's bytes from its first line up to this one, the pagerace-version
 * line left out (informational).  An edited seed, run, option or schedule
 * is noticed here rather than replayed as something it is not.
 */
static int check(struct parser *p)
{
	const char *v, *e;
	uint64_t want = 0, h;
	size_t beg;

	if (p->t->format < 2)
		return 0;
	if (tp_expect(p, "check", &v, &e) || tp_need_value(p, "check", v))
		return -1;
	if (e - v != 16)
		return FAIL_AT(p, v, "bad check '%.*s' (16 hex digits)",
			       (int)(e - v > 20 ? 20 : e - v), v);
	for (const char *q = v; q < e; q++) {
		int d = *q >= '0' && *q <= '9' ? *q - '0' :
			*q >= 'a' && *q <= 'f' ? *q - 'a' + 10 : -1;

		if (d < 0)
			return FAIL_AT(p, q, "bad check '%.*s' (16 lower-case "
				       "hex digits)", (int)(e - v), v);
		want = want << 4 | (uint64_t)d;
	}
	beg = (size_t)(p->line - p->buf);
	h = pr_trace_hash(PR_TRACE_HASH_INIT, p->buf, p->ver_beg);
	h = pr_trace_hash(h, p->buf + p->ver_end, beg - p->ver_end);
	if (h != want)
		return FAIL_AT(p, v, "check mismatch: the trace was changed "
			       "after it was written (its seed, run, options, "
			       "verdict or schedule no longer match; only "
			       "pagerace-version may be edited)");
	return 0;
}

static int parse(struct parser *p)
{
	const char *v, *e;

	if (p->len > PR_TRACE_MAX_FILE)
		return tp_fail(p, 1, 1, "larger than %u bytes", PR_TRACE_MAX_FILE);
	if (header(p) || params(p) ||
	    tp_number_line(p, "seed", UINT64_MAX, &p->t->seed) ||
	    tp_number_line(p, "run", UINT64_MAX, &p->t->run) ||
	    options(p) || verdict(p) || sites(p) || schedule(p) ||
	    program_text(p) || check(p))
		return -1;
	if (tp_expect(p, "end", &v, &e))
		return -1;
	if (v)
		return FAIL_AT(p, v - 1, "unexpected text after 'end'");
	if (p->pos < p->len)
		return tp_fail(p, p->lineno + 1, 1, "trailing data after 'end'");
	return 0;
}

int pr_trace_parse(const char *name, const char *buf, size_t len,
		   struct pr_trace *t, char *err, size_t errlen)
{
	struct parser p = {
		.name = name, .buf = buf, .len = len,
		.err = err, .errlen = errlen, .t = t,
	};

	pr_trace_init(t);
	if (parse(&p)) {
		pr_trace_free(t);
		return -1;
	}
	return 0;
}

int pr_trace_read(const char *path, struct pr_trace *t, char *err,
		  size_t errlen)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	int fd, r;

	if (!err)
		errlen = 0;
	pr_trace_init(t);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: error: cannot open: %s", path,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > PR_TRACE_MAX_FILE) {
		snprintf(err, errlen, "%s: error: %s", path,
			 S_ISREG(st.st_mode) ? "trace file too large" :
			 "not a regular file");
		close(fd);
		return -1;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		snprintf(err, errlen, "%s: error: out of memory", path);
		close(fd);
		return -1;
	}
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: error: read: %s", path,
				 strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	r = pr_trace_parse(path, buf, len, t, err, errlen);
	free(buf);
	return r;
}
