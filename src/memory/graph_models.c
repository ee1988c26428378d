/* SPDX-License-Identifier: MIT */
/*
 * graph_models.c - sequential consistency and x86-TSO as predicates
 * over an execution graph, each with RCU's guarantee.
 *
 *   sc   one total order of every event: acyclic po | rf | co | fr.
 *   tso  x86-TSO (herd7's x86tso.cat): acyclic ppo | fences | rfe | co
 *        | fr, where ppo is po without store-to-load pairs; a locked
 *        instruction (every RMW, a failed cmpxchg's read, a lock's
 *        read and write) and smp_mb or a grace period order everything
 *        po-before against everything po-after; store forwarding
 *        (rfi) orders nothing.
 *
 * Neither machine knows RCU: its guarantee is the kernel's, so both
 * add it the way a real grace period gives it.  For every read-side
 * section S and grace period G of another process (SRCU: on the same
 * srcu_struct), all of S precedes G or G precedes all of S; the model
 * allows the graph if some choice of sides is acyclic with the rest.
 */
#include "memory/graph.h"

#define MAX_PAIRS	16	/* section x grace-period pairs oriented */

struct pair {
	int lock, unlock, gp;
};

/* The (section, grace period) pairs of @g on different processes. */
static int pairs(const struct graph *g, struct pair *pp)
{
	int n = 0;

	for (int i = 0; i < g->n; i++) {
		const struct gev *e = &g->ev[i];
		int srcu = e->kind == GE_SRCU && e->sub == GS_LOCK;
		int depth = 0, end = -1;

		if (!srcu && !(e->kind == GE_F && e->sub == GF_RCU_LOCK))
			continue;
		/* an outermost section only: nested ones are inside */
		for (int j = i - 1; j >= 0 && g->ev[j].proc == e->proc; j--) {
			const struct gev *f = &g->ev[j];

			if (srcu ? f->kind == GE_SRCU && f->loc == e->loc :
			    f->kind == GE_F)
				depth += (srcu ? f->sub == GS_LOCK :
					  f->sub == GF_RCU_LOCK) -
					 (srcu ? f->sub == GS_UNLOCK :
					  f->sub == GF_RCU_UNLOCK);
		}
		if (depth > 0)
			continue;
		depth = 0;
		for (int j = i; j < g->n && g->ev[j].proc == e->proc; j++) {
			const struct gev *f = &g->ev[j];

			if (srcu ? !(f->kind == GE_SRCU && f->loc == e->loc) :
			    f->kind != GE_F)
				continue;
			depth += (srcu ? f->sub == GS_LOCK :
				  f->sub == GF_RCU_LOCK) -
				 (srcu ? f->sub == GS_UNLOCK :
				  f->sub == GF_RCU_UNLOCK);
			if (depth == 0) {
				end = j;
				break;
			}
		}
		if (end < 0)
			continue;
		for (int k = 0; k < g->n; k++) {
			const struct gev *s = &g->ev[k];
			int sync = srcu ? s->kind == GE_SRCU &&
				   s->sub == GS_SYNC && s->loc == e->loc :
				   s->kind == GE_F && s->sub == GF_SYNC_RCU;

			if (!sync || s->proc == e->proc)
				continue;
			if (n == MAX_PAIRS)
				return -1;
			pp[n++] = (struct pair){ i, end, k };
		}
	}
	return n;
}

/*
 * Is @base acyclic with some orientation of each pair?  @keep: the
 * events an orientation edge may join (sc: all; tso: memory accesses
 * and the grace period, which @base orders as a full fence).
 */
static int oriented(const struct graph *g, const struct rel *base,
		    uint64_t keep)
{
	struct pair pp[MAX_PAIRS];
	int np = pairs(g, pp);

	if (np < 0)
		np = MAX_PAIRS;	/* more: checked without the rest */
	for (uint32_t m = 0; m < (UINT32_C(1) << np); m++) {
		struct rel r = *base;

		for (int k = 0; k < np; k++) {
			uint64_t in = 0;

			for (int i = pp[k].lock; i <= pp[k].unlock; i++)
				if (g->ev[i].proc == g->ev[pp[k].lock].proc)
					in |= REL_BIT(i);
			in &= keep;
			if ((m >> k) & 1) {	/* G before all of S */
				r.r[pp[k].gp] |= in;
			} else {		/* all of S before G */
				for (int i = 0; i < g->n; i++)
					if ((in >> i) & 1)
						rel_add(&r, i, pp[k].gp);
			}
		}
		if (rel_acyclic(&r, g->n))
			return 1;
	}
	return 0;
}

int graph_sc(const struct graph *g)
{
	struct rel po, rf, fr, r;
	int n = g->n;

	graph_po(g, &po);
	graph_rf(g, &rf);
	graph_fr(g, &rf, &fr);
	rel_or(&r, &po, &rf, n);
	rel_or(&r, &r, &g->co, n);
	rel_or(&r, &r, &fr, n);
	return oriented(g, &r, ~UINT64_C(0));
}

int graph_tso(const struct graph *g)
{
	struct rel po, rf, in, fr, r, t;
	int n = g->n;
	uint64_t M = graph_reads(g) | graph_writes(g), W = graph_writes(g);
	uint64_t R = graph_reads(g), locked = 0, full = 0, all;

	all = n == 64 ? ~UINT64_C(0) : REL_BIT(n) - 1;
	for (int i = 0; i < n; i++) {
		const struct gev *e = &g->ev[i];

		if (((e->kind == GE_R || e->kind == GE_W) && (e->sub & 1)) ||
		    e->kind == GE_LKR || e->kind == GE_LKW)
			locked |= REL_BIT(i);
		if (e->kind == GE_F && (e->sub == GF_MB ||
		    e->sub == GF_SYNC_RCU || e->sub == GF_BEFORE_ATOMIC ||
		    e->sub == GF_AFTER_ATOMIC || e->sub == GF_AFTER_SPINLOCK ||
		    e->sub == GF_AFTER_UNLOCK_LOCK))
			full |= REL_BIT(i);
		if (e->kind == GE_SRCU && e->sub == GS_SYNC)
			full |= REL_BIT(i);
	}
	graph_po(g, &po);
	/* ppo: po over accesses without W -> R */
	rel_restrict(&r, &po, M, M, n);
	for (int i = 0; i < n; i++)
		if ((W >> i) & 1)
			r.r[i] &= ~R;
	/* locked instructions and full fences order all around them */
	rel_restrict(&t, &po, all, locked | full, n);
	rel_or(&r, &r, &t, n);
	rel_restrict(&t, &po, locked | full, all, n);
	rel_or(&r, &r, &t, n);
	graph_rf(g, &rf);
	graph_fr(g, &rf, &fr);
	graph_int(g, &in);
	rel_minus(&t, &rf, &in, n);	/* rfe */
	rel_or(&r, &r, &t, n);
	rel_or(&r, &r, &g->co, n);
	rel_or(&r, &r, &fr, n);
	return oriented(g, &r, M | full);
}
