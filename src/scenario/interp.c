/* SPDX-License-Identifier: MIT */
/*
 * interp.c - a parsed scenario as a struct pr_program.
 *
 * setup:  model_setup(cpus, pages), the initial state (pages prefilled in
 *	   the caches, named pages given a reference of their own), one
 *	   context per CPU body, one injection per irq handler, model_start.
 * bodies: run their statements; the operations (ops.c) are the only yield
 *	   points, so the interpreter adds nothing to the interleavings.
 * finish: classify the outcome (forbidden -> verdict "forbidden"; none of
 *	   the listed ones -> "unexpected-outcome"), then, if the scenario
 *	   requires cleanliness, the model's end-of-run invariants.
 *
 * Everything a run reads is reset by setup, so run i is a pure function of
 * the scenario, the variant, the seed and i.
 */
#include "scenario/scenario.h"

#include <stdio.h>
#include <string.h>

#include "kernel/kernel.h"
#include "check/shadow.h"
#include "model/mapping.h"
#include "model/model.h"
#include "model/page_alloc.h"
#include "model/radix_tree.h"

static const char *const regname[SCN_NREGS] = {
	"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

static struct address_space *mapping_of(int id)
{
	return id >= 0 ? &mappings[id] : &swapper_space;
}

/* ---- final-state reads, without yield points --------------------------- */

/* The entry at @index of @m's tree, or NULL; NULL too if the tree is broken. */
static struct page *peek_slot(struct address_space *m, unsigned long index)
{
	const struct radix_tree_root *root = &m->page_tree;
	char msg[128];
	const void *bad;

	if (radix_tree_check_msg(root, NULL, 0, msg, sizeof(msg), &bad))
		return NULL;
	return radix_tree_peek(root, index);
}

struct ev {
	int is_page;
	long long i;
	struct page *page;
};

static struct ev value_of(const struct scn_value *v)
{
	struct ev r = { 0, 0, NULL };

	if (v->type == SCN_T_PAGE) {
		r.is_page = 1;
		r.page = v->page;
	} else if (v->type == SCN_T_GANG) {
		r.i = v->n;
	} else {
		r.i = v->i;
	}
	return r;
}

static long long func(enum scn_func f, struct page *p)
{
	unsigned long fl;

	if (!p)
		return f == SCN_F_INDEX ? -1 : 0;
	fl = page_peek_flags(p);
	switch (f) {
	case SCN_F_COUNT: return page_peek_count(p);
	case SCN_F_INDEX:
		return (fl & (1UL << PG_swapcache)) ? (long long)p->private :
						      (long long)p->index;
	case SCN_F_CACHED:
		return p->mapping != NULL || (fl & (1UL << PG_swapcache));
	case SCN_F_DIRTY: return !!(fl & (1UL << PG_dirty));
	case SCN_F_LOCKED: return !!(fl & (1UL << PG_locked));
	case SCN_F_UPTODATE: return !!(fl & (1UL << PG_uptodate));
	case SCN_F_FREE: return !!(fl & (1UL << PG_free));
	}
	return 0;
}

static struct ev eval(const struct scenario *s, int i, struct scn_body *body)
{
	const struct scn_expr *e = &s->expr[i];
	struct ev r = { 0, 0, NULL }, a, b;

	switch (e->kind) {
	case SCN_E_INT:
		r.i = e->i;
		break;
	case SCN_E_NULL:
		r.is_page = 1;
		break;
	case SCN_E_REG:
		r = value_of(e->cpu >= 0 ? &s->cpu[e->cpu].regs[e->reg] :
			     &body->regs[e->reg]);
		break;
	case SCN_E_NAME:
		r.is_page = 1;
		r.page = s->namev[e->name].page;
		break;
	case SCN_E_SLOT:
		r.is_page = 1;
		r.page = peek_slot(mapping_of(e->mapping_id), e->index);
		break;
	case SCN_E_FUNC:
		r.i = func((enum scn_func)e->i, eval(s, e->a, body).page);
		break;
	case SCN_E_NRPAGES:
		r.i = (long long)mapping_of(e->mapping_id)->nrpages;
		break;
	case SCN_E_NRFREE:
		r.i = (long long)page_alloc_nr_free();
		break;
	case SCN_E_NOT:
		r.i = !eval(s, e->a, body).i;
		break;
	case SCN_E_AND:
		r.i = eval(s, e->a, body).i && eval(s, e->b, body).i;
		break;
	case SCN_E_OR:
		r.i = eval(s, e->a, body).i || eval(s, e->b, body).i;
		break;
	case SCN_E_CMP:
		a = eval(s, e->a, body);
		b = eval(s, e->b, body);
		if (a.is_page) {
			r.i = (a.page == b.page) == (e->i == SCN_EQ);
			break;
		}
		switch ((enum scn_cmp)e->i) {
		case SCN_EQ: r.i = a.i == b.i; break;
		case SCN_NE: r.i = a.i != b.i; break;
		case SCN_LT: r.i = a.i < b.i; break;
		case SCN_LE: r.i = a.i <= b.i; break;
		case SCN_GT: r.i = a.i > b.i; break;
		case SCN_GE: r.i = a.i >= b.i; break;
		}
		break;
	}
	return r;
}

/* ---- bodies ------------------------------------------------------------ */

static void exec_block(struct scn_body *b, const struct scn_block *blk);

static void exec_op(struct scn_body *b, const struct scn_stmt *st)
{
	struct scenario *s = b->scn;
	struct scn_op_arg a[SCN_MAX_ARGS];
	struct scn_value out;

	for (int k = 0; k < st->op->nargs; k++) {
		a[k] = st->arg[k];
		if (a[k].type == SCN_T_MAPPING)
			a[k].mapping = mapping_of(a[k].mapping_id);
		if (st->arg_reg[k] >= 0) {
			a[k].v = &b->regs[st->arg_reg[k]];
			a[k].vname = regname[st->arg_reg[k]];
		} else if (st->arg_name[k] >= 0) {
			a[k].v = &s->namev[st->arg_name[k]];
			a[k].vname = s->names[st->arg_name[k]];
		}
	}
	if (st->dst >= 0 && b->regs[st->dst].flags)
		scn_runtime_error(st, "%s = %s: %s still holds a %s from line %d; release it first",
				  regname[st->dst], st->op->name, regname[st->dst],
				  (b->regs[st->dst].flags & SCN_V_REF) ? "reference" : "lock",
				  b->regs[st->dst].line);
	memset(&out, 0, sizeof(out));
	st->op->fn(st, a, &out);
	out.line = st->line;
	out.col = st->col;
	if (st->dst >= 0)
		b->regs[st->dst] = out;
}

static void exec_stmt(struct scn_body *b, const struct scn_stmt *st)
{
	switch (st->kind) {
	case SCN_S_OP:
		exec_op(b, st);
		break;
	case SCN_S_LOOP:
		for (unsigned long i = 0; i < st->count; i++)
			exec_block(b, &st->body);
		break;
	case SCN_S_ASSERT:
		if (!eval(b->scn, st->cond, b).i)
			pr_fail("assert", NULL, "%s line %d: assertion failed%s%s",
				b->name, st->line, st->desc[0] ? ": " : "", st->desc);
		break;
	}
}

static void exec_block(struct scn_body *b, const struct scn_block *blk)
{
	const struct scenario *s = b->scn;

	for (int i = blk->first; i >= 0; i = s->stmt[i].next)
		exec_stmt(b, &s->stmt[i]);
}

/*
 * A body may not end owning a reference or a lock it took: the
 * scenario's mistake (its own operations took it, and only they can
 * release it), reported where it was taken -- not a leak in the model,
 * which model_finish's invariants catch.
 */
static void check_released(struct scn_body *b)
{
	for (int r = 0; r < SCN_NREGS; r++) {
		const struct scn_value *v = &b->regs[r];
		const void *obj = v->type == SCN_T_GANG ? v->gang[0] : v->page;

		if (v->flags)
			pr_fail(SCN_ERROR_KIND, obj,
				"%d:%d: %s ends still holding the %s taken here in %s "
				"(release it: put%s)", v->line, v->col, b->name,
				(v->flags & SCN_V_REF) ? "reference" : "page lock",
				regname[r], (v->flags & SCN_V_LOCK) ? ", unlock" : "");
	}
}

static void run_cpu(void *arg)
{
	struct scn_body *b = arg;

	exec_block(b, &b->block);
	if (b->scn->clean)
		check_released(b);
}

static void run_irq(void *arg)
{
	struct scn_body *b = arg;

	memset(b->regs, 0, sizeof(b->regs));
	exec_block(b, &b->block);
	check_released(b);
}

/* ---- setup and finish -------------------------------------------------- */

static void setup(void *arg)
{
	struct scenario *s = arg;

	shadow_attach();	/* the detectors observe the model */
	model_setup(s->nr_cpus, s->nr_pages);
	for (int i = 0; i < s->nr_cpus; i++)
		memset(s->cpu[i].regs, 0, sizeof(s->cpu[i].regs));
	for (int i = 0; i < s->nirqs; i++)
		memset(s->irq[i].regs, 0, sizeof(s->irq[i].regs));
	memset(s->namev, 0, sizeof(s->namev));
	for (int i = 0; i < s->ninit; i++) {
		const struct scn_init *in = &s->init[i];
		struct page *page;

		if (in->kind == SCN_I_CACHE) {
			page = model_prefill(&mappings[in->mapping_id], in->index);
		} else if (in->kind == SCN_I_SWAP) {
			page = model_prefill_swap(in->index);
		} else {
			page = alloc_page(0);
			if (!page)
				pr_fail("setup", NULL, "out of pages for the initial state");
		}
		for (int bit = 0; bit < NR_PAGEFLAGS; bit++)
			if (bit != PG_lru && (in->flags & (1UL << bit)))
				set_bit(bit, &page->flags);
		if (in->flags & (1UL << PG_lru))
			lru_add_initial(page);
		if (in->name >= 0) {
			struct scn_value *v = &s->namev[in->name];

			if (in->kind != SCN_I_LOOSE)
				get_page(page);
			v->type = SCN_T_PAGE;
			v->page = page;
			v->flags = SCN_V_REF;
			v->line = in->line;
			v->col = in->col;
		}
	}
	for (int i = 0; i < s->nr_cpus; i++)
		pr_spawn(s->cpu[i].name, run_cpu, &s->cpu[i], 0);
	for (int i = 0; i < s->nirqs; i++)
		pr_inject(s->irq[i].cpu, s->irq[i].name, run_irq, &s->irq[i],
			  s->irq[i].count);
	model_start();
}

static void describe_registers(const struct scenario *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int c = 0; c < s->nr_cpus; c++)
		for (int r = 0; r < SCN_NREGS; r++) {
			const struct scn_value *v = &s->cpu[c].regs[r];

			if (v->type == SCN_T_NONE || off + 32 >= len)
				continue;
			if (v->type == SCN_T_PAGE && v->page)
				off += (size_t)snprintf(buf + off, len - off, " %d:r%d=page#%lu",
							c, r, page_to_pfn(v->page));
			else if (v->type == SCN_T_PAGE)
				off += (size_t)snprintf(buf + off, len - off, " %d:r%d=null", c, r);
			else
				off += (size_t)snprintf(buf + off, len - off, " %d:r%d=%lld", c, r,
							v->type == SCN_T_GANG ? (long long)v->n : v->i);
		}
}

static void classify(struct scenario *s)
{
	int listed = 0;
	char regs[200];

	if (!s->noutcomes)
		return;
	for (int i = 0; i < s->noutcomes; i++) {
		struct scn_outcome *o = &s->outcome[i];

		if (o->cls == SCN_FORBIDDEN) {
			if (eval(s, o->cond, NULL).i) {
				describe_registers(s, regs, sizeof(regs));
				pr_fail("forbidden", NULL, "line %d: %s;%s", o->line,
					o->desc, regs);
			}
		} else {
			listed = 1;
		}
	}
	for (int i = 0; i < s->noutcomes; i++) {
		struct scn_outcome *o = &s->outcome[i];

		if (o->cls != SCN_FORBIDDEN && eval(s, o->cond, NULL).i) {
			o->seen++;
			return;
		}
	}
	s->unclassified++;
	if (listed) {
		describe_registers(s, regs, sizeof(regs));
		pr_fail("unexpected-outcome", NULL,
			"no listed outcome matches the end state;%s", regs);
	}
}

static void finish(void *arg)
{
	struct scenario *s = arg;

	classify(s);
	if (!s->clean)
		return;
	for (int i = 0; i < s->nnames; i++)
		if (s->namev[i].flags)
			pr_fail(SCN_ERROR_KIND, s->namev[i].page,
				"%d:%d: the reference '%s' holds from init was never "
				"released (put it in a body)", s->namev[i].line,
				s->namev[i].col ? s->namev[i].col : 1, s->names[i]);
	model_finish();
}

void scenario_program(struct scenario *s, struct pr_program *out)
{
	memset(out, 0, sizeof(*out));
	out->name = s->name;
	out->summary = s->summary;
	out->setup = setup;
	out->finish = finish;
	out->arg = s;
}

void scenario_apply_variant(const struct scenario *s)
{
	variant = s->variant;
}

void scenario_reset_stats(struct scenario *s)
{
	for (int i = 0; i < s->noutcomes; i++)
		s->outcome[i].seen = 0;
	s->unclassified = 0;
}
