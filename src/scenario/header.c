/* SPDX-License-Identifier: MIT */
/*
 * header.c - the parts of a scenario file that are not code: the header
 * lines (protocol, knobs, expect, explore, ...) and the init block.
 */
#include "scenario/parse.h"

#include <stdio.h>
#include <string.h>

#include "model/page.h"
#include "memory/memory.h"

/* ---- header ------------------------------------------------------------ */

void scn_once(struct parser *p, int *seen_line, const char *key,
		 const struct scn_token *t)
{
	if (*seen_line)
		scn_fail_at(p, t->line, t->col, "'%s' given twice (first on line %d)",
			    key, *seen_line);
	*seen_line = t->line;
}

void scn_parse_protocol(struct parser *p)
{
	static const char *const protos[] = { "locked", "v2", "merged" };
	enum pr_protocol pr;
	const char *near;

	if (p->tok.kind == SCN_TK_IDENT &&
	    variant_protocol_parse(p->tok.text, &pr) == 0) {
		p->s->variant.protocol = pr;
		scn_advance(p);
		return;
	}
	if (p->tok.kind == SCN_TK_IDENT &&
	    (near = scn_nearest(p->tok.text, protos, 3)))
		scn_fail(p, "unknown protocol '%s' (did you mean '%s'?)",
			 p->tok.text, near);
	scn_fail(p, "expected a protocol: locked, v2 or merged");
}

/* "memory sc|tso|weak": the memory model runs use (memory/memory.h). */
void scn_parse_memory(struct parser *p)
{
	static const char *const models[] = { "sc", "tso", "weak" };
	const char *near;
	int m;

	if (p->tok.kind == SCN_TK_IDENT && (m = pr_mem_parse(p->tok.text)) >= 0) {
		p->s->memory = m;
		scn_advance(p);
		return;
	}
	if (p->tok.kind == SCN_TK_IDENT &&
	    (near = scn_nearest(p->tok.text, models, 3)))
		scn_fail(p, "unknown memory model '%s' (did you mean '%s'?)",
			 p->tok.text, near);
	scn_fail(p, "expected a memory model: sc, tso or weak");
}

void scn_parse_knobs(struct parser *p)
{
	const char *cand[32];
	size_t n = 0;

	for (unsigned i = 0; i < variant_nr_knobs() && n < 32; i++)
		cand[n++] = variant_knob_name(variant_knob_at(i));
	if (p->tok.kind == SCN_TK_IDENT && !strcmp(p->tok.text, "none")) {
		scn_advance(p);
		return;
	}
	for (;;) {
		enum pr_knob k;
		const char *near;
		char f[64];

		if (p->tok.kind != SCN_TK_IDENT)
			scn_fail(p, "expected a knob name, found %s",
				 scn_found(p, f, sizeof(f)));
		if (variant_knob_parse(p->tok.text, &k)) {
			near = scn_nearest(p->tok.text, cand, n);
			if (near)
				scn_fail(p, "unknown knob '%s' (did you mean '%s'?)",
					 p->tok.text, near);
			scn_fail(p, "unknown knob '%s' (see 'pagerace ops' or doc/variants.md)",
				 p->tok.text);
		}
		p->s->variant.knobs |= k;
		scn_advance(p);
		if (p->tok.kind != SCN_TK_COMMA)
			return;
		scn_advance(p);
	}
}

static const char *const verdict_kinds[] = {
	"bad-lookup", "use-after-free", "null-deref", "invariant", "leak",
	"double-free", "put-free-page", "refcount-underflow",
	"reclaim-held-page", "free-held-page", "double-lock", "bad-unlock", "bad-page",
	"deadlock", "livelock", "crash", "assert", "forbidden",
	"unexpected-outcome", "scenario", "bug", "out-of-bounds",
	"invalid-free", "corrupt", "rcu-unbalanced", "rcu-unprotected",
	"sleep-in-atomic", "preempt-imbalance", "bad-irq-enable", "torn-read",
	"srcu-unbalanced",
};

void scn_parse_expect(struct parser *p)
{
	size_t n = sizeof(verdict_kinds) / sizeof(verdict_kinds[0]);
	const char *near;
	char word[SCN_NAME_LEN];
	struct scn_token t = p->tok;

	scn_ident(p, "a verdict kind (bad-lookup, use-after-free, ...) or 'pass'",
	      word, sizeof(word));
	if (!strcmp(word, "pass")) {
		p->s->expect_pass = 1;
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(word, verdict_kinds[i])) {
			snprintf(p->s->expect, sizeof(p->s->expect), "%s", word);
			return;
		}
	near = scn_nearest(word, verdict_kinds, n);
	if (near)
		scn_fail_at(p, t.line, t.col, "unknown verdict kind '%s' (did you mean '%s'?)",
			    word, near);
	scn_fail_at(p, t.line, t.col, "unknown verdict kind '%s'", word);
}

void scn_parse_explore(struct parser *p)
{
	static const char *const keys[] = { "strategy", "runs", "depth",
					    "max-steps", "seed", "pct-steps",
					    "bound" };
	struct scn_explore *x = &p->s->explore;
	int n = 0;

	while (p->tok.kind == SCN_TK_IDENT) {
		struct scn_token t = p->tok;
		const char *near;
		char v[SCN_NAME_LEN];

		scn_advance(p);
		if (!strcmp(t.text, "strategy")) {
			struct scn_token vt = p->tok;

			scn_ident(p, "a strategy (random, pct, pos, surw, portfolio, dfs or dpor)", v,
				  sizeof(v));
			if (strcmp(v, "random") && strcmp(v, "pct") && strcmp(v, "pos") &&
			    strcmp(v, "surw") && strcmp(v, "portfolio") &&
			    strcmp(v, "dfs") && strcmp(v, "dpor"))
				scn_fail_at(p, vt.line, vt.col,
					    "unknown strategy '%s' (random, pct, pos, surw, portfolio, dfs or dpor)", v);
			snprintf(x->strategy, sizeof(x->strategy), "%s", v);
		} else if (!strcmp(t.text, "runs")) {
			x->runs = (uint64_t)scn_number(p, 1, 100000000, "a number of runs");
		} else if (!strcmp(t.text, "depth")) {
			x->depth = (int)scn_number(p, 1, 16, "a PCT depth");
		} else if (!strcmp(t.text, "max-steps")) {
			x->max_steps = (uint64_t)scn_number(p, 1, 4294967295LL, "a step bound");
		} else if (!strcmp(t.text, "seed")) {
			x->seed = (uint64_t)scn_number(p, 0, 9223372036854775807LL, "a seed");
			x->has_seed = 1;
		} else if (!strcmp(t.text, "bound")) {
			x->bound = (int)scn_number(p, 0, 1000, "a preemption bound");
			x->has_bound = 1;
		} else if (!strcmp(t.text, "pct-steps")) {
			x->pct_steps = (uint64_t)scn_number(p, 1, 4294967295LL,
							"PCT's run length");
		} else {
			near = scn_nearest(t.text, keys, 7);
			if (near)
				scn_fail_at(p, t.line, t.col,
					    "unknown explore setting '%s' (did you mean '%s'?)",
					    t.text, near);
			scn_fail_at(p, t.line, t.col,
				    "unknown explore setting '%s' (strategy, runs, depth, max-steps, seed, pct-steps, bound)",
				    t.text);
		}
		n++;
	}
	if (!n)
		scn_fail(p, "expected explore settings, e.g. 'explore strategy pct runs 1000'");
}

/* ---- init -------------------------------------------------------------- */

static const struct { const char *name; int bit; } init_flags[] = {
	/* Only flags a page may still carry when it is freed, and PG_lru,
	 * which the release of the last reference clears. */
	{ "dirty", PG_dirty }, { "referenced", PG_referenced },
	{ "error", PG_error }, { "checked", PG_checked },
	{ "mappedtodisk", PG_mappedtodisk },
	{ "lru", PG_lru },	/* on the inactive list (lru_add_initial) */
};
#define NINIT_FLAGS (sizeof(init_flags) / sizeof(init_flags[0]))

static int reserved_word(const char *w)
{
	static const char *const words[] = {
		"m0", "m1", "m2", "m3", "swap", "page", "null", "loop", "assert",
		"count", "index", "cached", "dirty", "locked", "uptodate", "free",
		"nrpages", "nr_free",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(w, words[i]))
			return 1;
	return scn_op_find(w) != NULL;
}

static void parse_init_stmt(struct parser *p)
{
	struct scenario *s = p->s;
	struct scn_init *in;
	struct scn_token t = p->tok;
	char f[64];

	if (s->ninit >= SCN_MAX_INIT)
		scn_fail(p, "too many initial pages (at most %d)", SCN_MAX_INIT);
	in = &s->init[s->ninit];
	memset(in, 0, sizeof(*in));
	in->name = -1;
	in->line = t.line;
	in->col = t.col;
	if (t.kind != SCN_TK_IDENT)
		scn_fail(p, "expected an initial page (m0[INDEX], swap[ENTRY], page, or NAME = ...), found %s",
			 scn_found(p, f, sizeof(f)));
	if (strcmp(t.text, "page") && strcmp(t.text, "swap") &&
	    !(t.text[0] == 'm' && t.text[1] >= '0' && t.text[1] <= '3' && !t.text[2])) {
		/* NAME = ... */
		if (scn_reg_index(p, t.text) >= 0)
			scn_fail(p, "registers belong to bodies; name an initial page with another word");
		if (reserved_word(t.text))
			scn_fail(p, "'%s' is a reserved word", t.text);
		scn_advance(p);
		if (p->tok.kind != SCN_TK_ASSIGN) {
			const char *cand[] = { "page", "swap", "m0", "m1", "m2", "m3" };
			const char *near = scn_nearest(t.text, cand, 6);

			if (near)
				scn_fail_at(p, t.line, t.col,
					    "unknown initial page '%s' (did you mean '%s'?)",
					    t.text, near);
			scn_fail(p, "expected '=' after the name '%s', found %s",
				 t.text, scn_found(p, f, sizeof(f)));
		}
		if (scn_name_index(s, t.text) >= 0)
			scn_fail_at(p, t.line, t.col, "'%s' is named twice", t.text);
		if (s->nnames >= SCN_MAX_NAMES)
			scn_fail_at(p, t.line, t.col, "too many names (at most %d)",
				    SCN_MAX_NAMES);
		snprintf(s->names[s->nnames], SCN_NAME_LEN, "%.*s", SCN_NAME_LEN - 1, t.text);
		in->name = s->nnames++;
		scn_advance(p);
		t = p->tok;
		if (t.kind != SCN_TK_IDENT)
			scn_fail(p, "expected m0[INDEX], swap[ENTRY] or page, found %s",
				 scn_found(p, f, sizeof(f)));
	}
	if (!strcmp(t.text, "page")) {
		in->kind = SCN_I_LOOSE;
		if (in->name < 0)
			scn_fail(p, "a loose page needs a name: 'NAME = page'");
		scn_advance(p);
	} else {
		in->mapping_id = scn_parse_mapping(p);
		in->kind = in->mapping_id < 0 ? SCN_I_SWAP : SCN_I_CACHE;
		if (p->tok.kind != SCN_TK_LBRACK)
			scn_fail(p, "expected '[' after the mapping, found %s",
				 scn_found(p, f, sizeof(f)));
		scn_advance(p);
		in->index = (unsigned long)scn_number(p, 0, SCN_MAX_INDEX,
						  in->kind == SCN_I_SWAP ?
						  "a swap entry" : "an index");
		if (p->tok.kind != SCN_TK_RBRACK)
			scn_fail(p, "expected ']', found %s", scn_found(p, f, sizeof(f)));
		scn_advance(p);
		for (int i = 0; i < s->ninit; i++)
			if (s->init[i].kind == in->kind &&
			    s->init[i].mapping_id == in->mapping_id &&
			    s->init[i].index == in->index)
				scn_fail_at(p, t.line, t.col,
					    "that slot already holds a page (line %d)",
					    s->init[i].line);
	}
	while (p->tok.kind == SCN_TK_IDENT) {
		const char *cand[NINIT_FLAGS];
		const char *near;
		size_t i;

		for (i = 0; i < NINIT_FLAGS; i++) {
			cand[i] = init_flags[i].name;
			if (!strcmp(p->tok.text, init_flags[i].name))
				break;
		}
		if (i == NINIT_FLAGS) {
			near = scn_nearest(p->tok.text, cand, NINIT_FLAGS);
			if (near)
				scn_fail(p, "unknown page flag '%s' (did you mean '%s'?)",
					 p->tok.text, near);
			scn_fail(p, "unknown page flag '%s' (dirty, referenced, error, checked, mappedtodisk, lru)",
				 p->tok.text);
		}
		in->flags |= 1UL << init_flags[i].bit;
		scn_advance(p);
	}
	s->ninit++;
	scn_end_stmt(p, "an initial page");
}

void scn_parse_init(struct parser *p, int *seen)
{
	struct scn_token t = p->tok;

	scn_once(p, seen, "init", &t);
	scn_advance(p);
	scn_open_brace(p, "the initial state");
	for (;;) {
		scn_skip_blank(p);
		if (p->tok.kind == SCN_TK_RBRACE)
			break;
		if (p->tok.kind == SCN_TK_EOF)
			scn_fail_at(p, t.line, t.col, "init block is never closed with '}'");
		parse_init_stmt(p);
	}
	scn_advance(p);
}

