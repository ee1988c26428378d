/* SPDX-License-Identifier: MIT */
/*
 * lint.c - misuse of a scenario's own references, found before any run.
 *
 * A body is straight-line code with counted loops and no branches, so
 * what its registers own after each statement is known from the text,
 * except whether a lookup found a page at all.  Assuming it did (a null
 * result owns nothing, and every rule below is harmless for null), three
 * mistakes are certain, whatever the schedule:
 *
 *   rN = OP ...   while rN still owns the reference or page lock an
 *                 earlier OP took
 *   put rN        when rN's reference was already put (or consumed)
 *   end of body   with a reference or lock a register took (cpu bodies when the
 *                 scenario checks cleanliness, irq handlers always: the
 *                 interpreter's check_released rule)
 *
 * They are the scenario's mistakes, not the model's: only the body's own
 * operations take and release what its registers own.  The interpreter
 * checks the same at run time (scn_runtime_error) for what this misses;
 * explore reports both as bad input.  Loops are walked twice, which is
 * enough to see an iteration meet the previous one's leftovers.
 */
#include "scenario/scenario.h"

#include <stdio.h>
#include <string.h>

struct lint {
	const struct scenario *s;
	const char *text;
	size_t len;
	struct scn_error *err;
	unsigned own[SCN_NREGS];	/* SCN_V_REF | SCN_V_LOCK */
	int line[SCN_NREGS], col[SCN_NREGS];	/* where it was taken */
	int put[SCN_NREGS];		/* line of the put that released it, 0: none */
};

static void where(struct lint *l, int line, int col)
{
	const char *p = l->text, *end = l->text + l->len, *eol;

	l->err->line = line;
	l->err->col = col;
	for (int i = 1; i < line && p < end; i++) {
		p = memchr(p, '\n', (size_t)(end - p));
		p = p ? p + 1 : end;
	}
	eol = memchr(p, '\n', (size_t)(end - p));
	snprintf(l->err->text, sizeof(l->err->text), "%.*s",
		 (int)((eol ? eol : end) - p), p);
}

static int is(const struct scn_op *op, const char *name)
{
	return !strcmp(op->name, name);
}

/* What a result that must be assigned owns (ops.c's set_page flags). */
static unsigned takes(const struct scn_op *op)
{
	if (is(op, "find_trylock_page"))
		return SCN_V_LOCK;
	if (is(op, "find_lock_page"))
		return SCN_V_REF | SCN_V_LOCK;
	return SCN_V_REF;
}

static const char *what(unsigned own)
{
	return (own & SCN_V_REF) ? "reference" : "page lock";
}

static int walk(struct lint *l, const struct scn_block *blk)
{
	for (int i = blk->first; i >= 0; i = l->s->stmt[i].next) {
		const struct scn_stmt *st = &l->s->stmt[i];
		const struct scn_op *op = st->op;
		int r;

		if (st->kind == SCN_S_LOOP) {
			for (unsigned long k = 0; k < 2 && k < st->count; k++)
				if (walk(l, &st->body))
					return -1;
			continue;
		}
		if (st->kind != SCN_S_OP)
			continue;
		r = op->nargs ? st->arg_reg[0] : -1;
		if (r >= 0 && (is(op, "put") || is(op, "shrink") ||
			       is(op, "free_page"))) {
			if (!(l->own[r] & SCN_V_REF) && l->put[r]) {
				where(l, st->line, st->col);
				snprintf(l->err->msg, sizeof(l->err->msg),
					 "%s r%d: r%d's reference was already released on "
					 "line %d", op->name, r, r, l->put[r]);
				return -1;
			}
			l->own[r] &= ~(unsigned)SCN_V_REF;
			l->put[r] = st->line;
		} else if (r >= 0 && is(op, "unlock")) {
			l->own[r] &= ~(unsigned)SCN_V_LOCK;
		} else if (r >= 0 && is(op, "lock_page")) {
			l->own[r] |= SCN_V_LOCK;
		}
		if (st->dst < 0)
			continue;
		if (op->must_assign && l->own[st->dst]) {
			where(l, st->line, st->col);
			snprintf(l->err->msg, sizeof(l->err->msg),
				 "r%d = %s: r%d still holds the %s taken on line %d; "
				 "release it first (or use another register)",
				 st->dst, op->name, st->dst, what(l->own[st->dst]),
				 l->line[st->dst]);
			return -1;
		}
		l->own[st->dst] = op->must_assign ? takes(op) : 0;
		l->line[st->dst] = st->line;
		l->col[st->dst] = st->col;
		l->put[st->dst] = 0;
	}
	return 0;
}

static int lint_body(struct lint *l, const struct scn_body *b, int end_check)
{
	memset(l->own, 0, sizeof(l->own));
	memset(l->put, 0, sizeof(l->put));
	if (walk(l, &b->block))
		return -1;
	if (!end_check)
		return 0;
	for (int r = 0; r < SCN_NREGS; r++)
		if (l->own[r]) {
			where(l, l->line[r], l->col[r]);
			snprintf(l->err->msg, sizeof(l->err->msg),
				 "%s ends still holding the %s r%d takes here "
				 "(release it: %s r%d)", b->name, what(l->own[r]), r,
				 (l->own[r] & SCN_V_REF) ? "put" : "unlock", r);
			return -1;
		}
	return 0;
}

int scenario_lint(const struct scenario *s, const char *text, size_t len,
		  struct scn_error *err)
{
	struct lint l = { .s = s, .text = text, .len = len, .err = err };

	for (int i = 0; i < s->nr_cpus; i++)
		if (lint_body(&l, &s->cpu[i], s->clean))
			return -1;
	for (int i = 0; i < s->nirqs; i++)
		if (lint_body(&l, &s->irq[i], 1))
			return -1;
	return 0;
}
