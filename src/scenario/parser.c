/* SPDX-License-Identifier: MIT */
/*
 * parser.c - scenario files: the header, the initial state, the bodies and
 * the outcomes (grammar in doc/scenario-format.md).
 *
 * The first error stops the parse: it is recorded with its position and
 * the parser unwinds (longjmp) to scenario_parse, which frees everything.
 * Every limit is checked where its token is read, so no input can make the
 * parser crash, loop or allocate more than a constant times its size.
 */
#include "scenario/parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/page.h"

/* ---- bodies ------------------------------------------------------------ */

static int new_stmt(struct parser *p)
{
	struct scenario *s = p->s;
	struct scn_stmt *st;

	if (s->nstmts >= s->stmt_cap)
		scn_fail(p, "too many statements (at most %d in a file)", s->stmt_cap);
	st = &s->stmt[s->nstmts];
	memset(st, 0, sizeof(*st));
	st->next = -1;
	st->dst = -1;
	st->cond = -1;
	st->line = p->tok.line;
	st->col = p->tok.col;
	for (int i = 0; i < SCN_MAX_ARGS; i++)
		st->arg_reg[i] = st->arg_name[i] = -1;
	return s->nstmts++;
}

static void parse_block(struct parser *p, struct scn_body *b,
			struct scn_block *blk, int depth, long mult);

/* One argument of @op, of type @want, into statement @si's slot @k. */
static void parse_arg(struct parser *p, struct scn_body *b, int si, int k,
		      enum scn_type want)
{
	struct scn_stmt *st = &p->s->stmt[si];
	const struct scn_op *op = st->op;
	struct scn_token t = p->tok;
	char f[64];
	int r;

	st->arg[k].type = want;
	switch (want) {
	case SCN_T_MAPPING:
		st->arg[k].mapping_id = scn_parse_mapping(p);
		if (op->file_only && st->arg[k].mapping_id < 0)
			scn_fail_at(p, t.line, t.col,
				    "%s works on m0..m3; the swap cache has add_to_swap_cache, remove_exclusive_swap_page and lookup_swap_cache",
				    op->name);
		return;
	case SCN_T_INDEX:
		st->arg[k].n = (unsigned long)scn_number(p, 0, SCN_MAX_INDEX,
						     "an index");
		return;
	case SCN_T_COUNT:
		st->arg[k].n = (unsigned long)scn_number(p, 1, SCN_MAX_GANG,
						     "a page count");
		return;
	case SCN_T_TAG:
		if (t.kind == SCN_TK_IDENT && !strcmp(t.text, "dirty"))
			st->arg[k].n = 0;	/* PAGECACHE_TAG_DIRTY */
		else if (t.kind == SCN_TK_IDENT && !strcmp(t.text, "writeback"))
			st->arg[k].n = 1;	/* PAGECACHE_TAG_WRITEBACK */
		else
			scn_fail(p, "%s needs a tag, dirty or writeback, found %s",
				 op->name, scn_found(p, f, sizeof(f)));
		scn_advance(p);
		return;
	default:
		break;
	}
	/* A page (or gang): a register of this body or an init name. */
	if (t.kind != SCN_TK_IDENT)
		scn_fail(p, "%s needs a page register or name, found %s", op->name,
			 scn_found(p, f, sizeof(f)));
	if ((r = scn_reg_index(p, t.text)) >= 0) {
		enum scn_type have = b->regtype[r];

		if (have == SCN_T_NONE)
			scn_fail(p, "r%d is not set before this line", r);
		if (!(have == SCN_T_PAGE ||
		      (want == SCN_T_REF && have == SCN_T_GANG)))
			scn_fail(p, "%s needs a %s, but r%d holds a %s", op->name,
				 scn_type_name(want), r, scn_type_name(have));
		st->arg_reg[k] = r;
	} else if ((r = scn_name_index(p->s, t.text)) >= 0) {
		st->arg_name[k] = r;
	} else {
		const char *cand[SCN_MAX_NAMES];
		const char *near;

		for (int i = 0; i < p->s->nnames; i++)
			cand[i] = p->s->names[i];
		near = scn_nearest(t.text, cand, (size_t)p->s->nnames);
		if (near)
			scn_fail(p, "unknown page '%s' (did you mean '%s'?)", t.text, near);
		scn_fail(p, "unknown page '%s': use a register (r0..r15) or a name from init",
			 t.text);
	}
	scn_advance(p);
}

static void parse_op(struct parser *p, struct scn_body *b, int si, int dst,
		     const struct scn_token *dt)
{
	struct scn_stmt *st = &p->s->stmt[si];
	struct scn_token t = p->tok;
	const struct scn_op *op;
	char f[64];

	if (t.kind != SCN_TK_IDENT)
		scn_fail(p, "expected an operation, found %s", scn_found(p, f, sizeof(f)));
	op = scn_op_find(t.text);
	if (!op) {
		const char *cand[64];
		const char *near;
		size_t n = 0;

		while (n < 62 && scn_op_at(n)) {
			cand[n] = scn_op_at(n)->name;
			n++;
		}
		cand[n++] = "loop";
		cand[n++] = "assert";
		near = scn_nearest(t.text, cand, n);
		if (near)
			scn_fail(p, "unknown operation '%s' (did you mean '%s'?)",
				 t.text, near);
		scn_fail(p, "unknown operation '%s' (see 'pagerace ops')", t.text);
	}
	st->kind = SCN_S_OP;
	st->op = op;
	st->line = t.line;
	st->col = t.col;
	scn_advance(p);
	for (int k = 0; k < op->nargs; k++) {
		if (p->tok.kind == SCN_TK_NL || p->tok.kind == SCN_TK_SEMI ||
		    p->tok.kind == SCN_TK_EOF || p->tok.kind == SCN_TK_RBRACE)
			scn_fail(p, "%s needs %d argument%s: %s %s", op->name,
				 op->nargs, op->nargs == 1 ? "" : "s", op->name,
				 op->argnames);
		parse_arg(p, b, si, k, op->arg[k]);
	}
	if (p->tok.kind != SCN_TK_NL && p->tok.kind != SCN_TK_SEMI &&
	    p->tok.kind != SCN_TK_EOF && p->tok.kind != SCN_TK_RBRACE)
		scn_fail(p, "too many arguments: %s takes %s%s", op->name,
			 op->nargs ? op->argnames : "none", "");
	if (dst >= 0) {
		if (op->result == SCN_T_NONE)
			scn_fail_at(p, dt->line, dt->col, "%s returns nothing to assign",
				    op->name);
		if (b->regtype[dst] != SCN_T_NONE && b->regtype[dst] != op->result)
			scn_fail_at(p, dt->line, dt->col,
				    "r%d holds a %s elsewhere in %s; %s gives a %s (use another register)",
				    dst, scn_type_name(b->regtype[dst]), b->name,
				    op->name, scn_type_name(op->result));
		b->regtype[dst] = op->result;
		st->dst = dst;
	} else if (op->must_assign) {
		scn_fail_at(p, t.line, t.col,
			    "%s returns a %s that must be released: write 'rN = %s ...'",
			    op->name, op->result == SCN_T_GANG ? "gang of references" :
			    "reference or lock", op->name);
	}
	if (++p->dynamic > SCN_MAX_DYNAMIC)
		scn_fail_at(p, t.line, t.col,
			    "a run would execute more than %d operations (loops multiply)",
			    SCN_MAX_DYNAMIC);
}

static void parse_stmt(struct parser *p, struct scn_body *b, int si, int depth,
		       long mult)
{
	struct scn_stmt *st = &p->s->stmt[si];
	struct scn_token t = p->tok;
	char f[64];
	int r;

	if (t.kind != SCN_TK_IDENT)
		scn_fail(p, "expected an operation, 'loop' or 'assert', found %s",
			 scn_found(p, f, sizeof(f)));
	if (!strcmp(t.text, "loop")) {
		long n;

		scn_advance(p);
		n = (long)scn_number(p, 1, SCN_MAX_LOOP, "a loop count");
		if (depth >= SCN_MAX_NEST)
			scn_fail_at(p, t.line, t.col, "loops nested too deeply (at most %d)",
				    SCN_MAX_NEST);
		if (mult * n > SCN_MAX_DYNAMIC)
			scn_fail_at(p, t.line, t.col,
				    "a run would execute more than %d operations (loops multiply)",
				    SCN_MAX_DYNAMIC);
		st->kind = SCN_S_LOOP;
		st->count = (unsigned long)n;
		parse_block(p, b, &st->body, depth + 1, mult * n);
		scn_end_stmt(p, "a loop");
		return;
	}
	if (!strcmp(t.text, "assert")) {
		scn_advance(p);
		st->kind = SCN_S_ASSERT;
		st->cond = scn_parse_cond(p, b);
		scn_check_cond(p, st->cond, b);
		if (p->tok.kind == SCN_TK_STR)
			scn_string(p, "the assertion's description", st->desc,
			       sizeof(st->desc));
		p->dynamic += (int)mult;
		scn_end_stmt(p, "an assertion");
		return;
	}
	if ((r = scn_reg_index(p, t.text)) >= 0) {
		scn_advance(p);
		if (p->tok.kind != SCN_TK_ASSIGN)
			scn_fail(p, "expected '=' after %s, found %s", t.text,
				 scn_found(p, f, sizeof(f)));
		scn_advance(p);
		p->dynamic += (int)mult - 1;
		parse_op(p, b, si, r, &t);
	} else {
		p->dynamic += (int)mult - 1;
		parse_op(p, b, si, -1, NULL);
	}
	scn_end_stmt(p, "the operation's arguments");
}

static void parse_block(struct parser *p, struct scn_body *b,
			struct scn_block *blk, int depth, long mult)
{
	struct scn_token open = p->tok;
	int prev = -1;

	scn_open_brace(p, depth ? "the loop's body" : b->name);
	blk->first = -1;
	blk->n = 0;
	for (;;) {
		int si;

		scn_skip_blank(p);
		if (p->tok.kind == SCN_TK_RBRACE)
			break;
		if (p->tok.kind == SCN_TK_EOF)
			scn_fail_at(p, open.line, open.col, "'{' is never closed");
		si = new_stmt(p);
		if (prev < 0)
			blk->first = si;
		else
			p->s->stmt[prev].next = si;
		prev = si;
		blk->n++;
		parse_stmt(p, b, si, depth, mult);
	}
	scn_advance(p);
}

static void parse_body(struct parser *p, int is_irq)
{
	struct scenario *s = p->s;
	struct scn_token t = p->tok;
	struct scn_body *b;
	long cpu;

	scn_advance(p);
	cpu = (long)scn_number(p, 0, SCN_MAX_CPUS - 1, "a cpu number");
	if (is_irq) {
		if (s->nirqs >= SCN_MAX_IRQS)
			scn_fail_at(p, t.line, t.col, "too many irq handlers (at most %d)",
				    SCN_MAX_IRQS);
		b = &s->irq[s->nirqs];
		snprintf(b->name, sizeof(b->name), "irq%d", s->nirqs);
		s->nirqs++;
		b->count = 1;
		if (p->tok.kind == SCN_TK_IDENT && !strcmp(p->tok.text, "count")) {
			scn_advance(p);
			b->count = (int)scn_number(p, 1, 100, "a delivery count");
		}
	} else {
		b = &s->cpu[cpu];
		if (b->line)
			scn_fail_at(p, t.line, t.col, "cpu %ld has two bodies (first on line %d)",
				    cpu, b->line);
		snprintf(b->name, sizeof(b->name), "cpu%ld", cpu);
	}
	b->line = t.line;
	b->cpu = (int)cpu;
	b->scn = s;
	parse_block(p, b, &b->block, 0, 1);
	scn_end_stmt(p, "a body");
}

/* ---- outcomes and the file --------------------------------------------- */

static void parse_outcome(struct parser *p, enum scn_class cls)
{
	struct scenario *s = p->s;
	struct scn_outcome *o;
	struct scn_token t = p->tok;

	if (s->noutcomes >= SCN_MAX_OUTCOMES)
		scn_fail(p, "too many outcomes (at most %d)", SCN_MAX_OUTCOMES);
	o = &s->outcome[s->noutcomes++];
	memset(o, 0, sizeof(*o));
	o->cls = cls;
	o->line = t.line;
	scn_advance(p);
	o->cond = scn_parse_cond(p, NULL);
	scn_string(p, "the outcome's description", o->desc, sizeof(o->desc));
	scn_end_stmt(p, "an outcome");
}

static const char *const keywords[] = {
	"scenario", "summary", "protocol", "knobs", "knob", "radix-shift",
	"cpus", "pages", "clean", "expect", "explore", "init", "cpu", "irq",
	"acceptable", "interesting", "forbidden", "memory",
};
#define NKEYWORDS (sizeof(keywords) / sizeof(keywords[0]))

static void parse_file(struct parser *p)
{
	struct scenario *s = p->s;
	int seen[NKEYWORDS] = { 0 };
	int cpus = 0, cpus_line = 0;

	scn_advance(p);
	for (;;) {
		struct scn_token t;
		size_t k;

		scn_skip_blank(p);
		t = p->tok;
		if (t.kind == SCN_TK_EOF)
			break;
		if (t.kind != SCN_TK_IDENT) {
			char f[64];

			scn_fail(p, "expected a keyword (scenario, protocol, init, cpu, ...), found %s",
				 scn_found(p, f, sizeof(f)));
		}
		for (k = 0; k < NKEYWORDS; k++)
			if (!strcmp(t.text, keywords[k]))
				break;
		if (k == NKEYWORDS) {
			const char *near = scn_nearest(t.text, keywords, NKEYWORDS);

			if (near)
				scn_fail(p, "unknown keyword '%s' (did you mean '%s'?)",
					 t.text, near);
			scn_fail(p, "unknown keyword '%s'", t.text);
		}
		if (!strcmp(t.text, "init")) {
			scn_parse_init(p, &seen[k]);
			scn_end_stmt(p, "the init block");
			continue;
		}
		if (!strcmp(t.text, "cpu") || !strcmp(t.text, "irq")) {
			if (!seen[k])
				seen[k] = t.line;
			parse_body(p, t.text[0] == 'i');
			continue;
		}
		if (!strcmp(t.text, "acceptable") || !strcmp(t.text, "interesting") ||
		    !strcmp(t.text, "forbidden")) {
			parse_outcome(p, t.text[0] == 'a' ? SCN_ACCEPTABLE :
					 t.text[0] == 'i' ? SCN_INTERESTING :
					 SCN_FORBIDDEN);
			continue;
		}
		if (!strcmp(t.text, "knob"))
			k--;	/* "knob" is "knobs" */
		scn_once(p, &seen[k], keywords[k], &t);
		scn_advance(p);
		if (!strcmp(t.text, "scenario")) {
			if (p->tok.kind == SCN_TK_STR)
				scn_string(p, "the scenario's name", s->name, sizeof(s->name));
			else
				scn_ident(p, "the scenario's name", s->name, sizeof(s->name));
		} else if (!strcmp(t.text, "summary")) {
			scn_string(p, "the summary", s->summary, sizeof(s->summary));
		} else if (!strcmp(t.text, "protocol")) {
			scn_parse_protocol(p);
			s->has_protocol = 1;
		} else if (!strcmp(t.text, "knobs") || !strcmp(t.text, "knob")) {
			scn_parse_knobs(p);
			s->has_knobs = 1;
		} else if (!strcmp(t.text, "memory")) {
			scn_parse_memory(p);
			s->has_memory = 1;
		} else if (!strcmp(t.text, "radix-shift")) {
			s->variant.radix_map_shift = (unsigned)scn_number(p, 1, 3, "a radix shift");
			s->has_shift = 1;
		} else if (!strcmp(t.text, "cpus")) {
			cpus_line = t.line;
			cpus = (int)scn_number(p, 1, SCN_MAX_CPUS, "a number of cpus");
		} else if (!strcmp(t.text, "pages")) {
			s->nr_pages = (unsigned long)scn_number(p, 1, MODEL_MAX_PAGES,
							    "a number of pages");
		} else if (!strcmp(t.text, "clean")) {
			struct scn_token vt = p->tok;
			char v[SCN_NAME_LEN];

			scn_ident(p, "yes or no", v, sizeof(v));
			if (strcmp(v, "yes") && strcmp(v, "no"))
				scn_fail_at(p, vt.line, vt.col, "clean is yes or no, not '%s'", v);
			s->clean = v[0] == 'y';
		} else if (!strcmp(t.text, "expect")) {
			scn_parse_expect(p);
		} else if (!strcmp(t.text, "explore")) {
			scn_parse_explore(p);
		}
		scn_end_stmt(p, keywords[k]);
	}

	/* Whole-file checks. */
	for (int i = 0; i < SCN_MAX_CPUS; i++) {
		if (s->cpu[i].line) {
			if (i != s->nr_cpus)
				scn_fail_at(p, s->cpu[i].line, 1,
					    "cpu %d without cpu %d: number the bodies from 0",
					    i, s->nr_cpus);
			s->nr_cpus++;
		}
	}
	if (!s->nr_cpus)
		scn_fail_at(p, p->tok.line, p->tok.col,
			    "no cpu bodies: a scenario needs at least 'cpu 0 { ... }'");
	if (cpus && cpus != s->nr_cpus)
		scn_fail_at(p, cpus_line, 1, "cpus says %d but the file has %d cpu bodies",
			    cpus, s->nr_cpus);
	for (int i = 0; i < s->nirqs; i++)
		if (s->irq[i].cpu >= s->nr_cpus)
			scn_fail_at(p, s->irq[i].line, 1, "irq on cpu %d, which has no body",
				    s->irq[i].cpu);
	_Static_assert(SCN_MAX_INIT >= MODEL_MAX_PAGES,
		       "init must take a page for every frame 'pages' allows");
	if ((unsigned long)s->ninit > s->nr_pages)
		scn_fail_at(p, s->init[s->ninit - 1].line, s->init[s->ninit - 1].col,
			    "the initial state needs %d pages but the scenario has %lu (raise 'pages')",
			    s->ninit, s->nr_pages);
	for (int i = 0; i < s->noutcomes; i++)
		scn_check_cond(p, s->outcome[i].cond, NULL);
	if (s->expect_pass && s->expect[0])
		scn_fail_at(p, 1, 1, "expect given twice");
}

static void default_name(struct scenario *s, const char *file)
{
	const char *b = strrchr(file, '/');
	size_t n;

	b = b ? b + 1 : file;
	n = strcspn(b, ".");
	if (n >= sizeof(s->name))
		n = sizeof(s->name) - 1;
	memcpy(s->name, b, n);
	s->name[n] = '\0';
}

struct scenario *scenario_parse(const char *file, const char *text, size_t len,
				struct scn_error *err)
{
	struct parser p;
	struct scenario *s;
	size_t cap;

	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", file);
	if (len > SCN_MAX_FILE) {
		snprintf(err->msg, sizeof(err->msg), "file too large (at most %u bytes)",
			 SCN_MAX_FILE);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return NULL;
	}
	/* A statement takes at least 3 bytes, an expression node 1. */
	cap = len / 3 + 8;
	s->stmt_cap = (int)(cap < SCN_MAX_STMTS ? cap : SCN_MAX_STMTS);
	cap = len + 8;
	s->expr_cap = (int)(cap < SCN_MAX_EXPR ? cap : SCN_MAX_EXPR);
	s->stmt = calloc((size_t)s->stmt_cap, sizeof(*s->stmt));
	s->expr = calloc((size_t)s->expr_cap, sizeof(*s->expr));
	if (!s->stmt || !s->expr) {
		scenario_free(s);
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return NULL;
	}
	snprintf(s->file, sizeof(s->file), "%s", file);
	default_name(s, file);
	s->variant.protocol = PROTO_V2;
	s->variant.radix_map_shift = 2;
	s->nr_pages = 8;
	s->clean = 1;

	memset(&p, 0, sizeof(p));
	scn_lex_init(&p.lx, file, text, len);
	p.s = s;
	p.err = err;
	if (setjmp(p.fail)) {
		scenario_free(s);
		return NULL;
	}
	parse_file(&p);
	if (scenario_lint(s, text, len, err)) {
		scenario_free(s);
		return NULL;
	}
	return s;
}

void scenario_free(struct scenario *s)
{
	if (!s)
		return;
	free(s->stmt);
	free(s->expr);
	free(s);
}
