/* SPDX-License-Identifier: MIT */
/*
 * graph_loc.c - one location's coherent choices (graph_search.h): every
 * coherence order of its writes -- for a lock, of its critical sections,
 * the one never unlocked last -- and for each order every source of
 * each read that the coherence shapes and atomicity allow.
 */
#include "litmus/graph_search.h"

#include <stdlib.h>
#include <string.h>

static int push(struct locset *ls, const struct locopt *o)
{
	if (ls->nopt == ls->cap) {
		size_t cap = ls->cap ? 2 * ls->cap : 16;
		struct locopt *n = realloc(ls->opt, cap * sizeof(*n));

		if (!n)
			return -1;
		ls->opt = n;
		ls->cap = cap;
	}
	ls->opt[ls->nopt++] = *o;
	return 0;
}

/* Put one location's choice @o into the graph. */
void lg_apply(struct graph *g, const struct locset *ls,
		  const struct locopt *o)
{
	for (int i = 0; i < ls->nw; i++) {
		int a = o->order[i];

		g->co.r[a] = 0;
		for (int j = i + 1; j < ls->nw; j++)
			g->co.r[a] |= REL_BIT(o->order[j]);
	}
	for (int i = 0; i < ls->nr; i++)
		g->rf[ls->r[i]] = o->rf[i];
}

/* The writes a read may read (the same value; lock.cat's choices for
 * a failed trylock and spin_is_locked). */
static int sources(const struct search *s, const struct locset *ls,
		   int r, int *src)
{
	const struct graph *g = &s->g;
	const struct gev *e = &g->ev[r];
	int n = 0;

	switch (e->kind) {
	case GE_R:
		for (int i = 0; i < ls->nw; i++)
			if (g->ev[ls->w[i]].val == e->val)
				src[n++] = ls->w[i];
		return n;
	case GE_LF:
	case GE_RL:
		/* rfi-lf: inside its own critical section, that lock;
		 * else any other process's lock write. */
		for (int i = r - 1; i >= 0 && g->ev[i].proc == e->proc; i--) {
			if (g->ev[i].loc != e->loc)
				continue;
			if (g->ev[i].kind == GE_UL)
				break;
			if (g->ev[i].kind == GE_LKW) {
				src[0] = i;
				return 1;
			}
		}
		for (int i = 0; i < ls->nw; i++)
			if (g->ev[ls->w[i]].kind == GE_LKW &&
			    g->ev[ls->w[i]].proc != e->proc)
				src[n++] = ls->w[i];
		return n;
	case GE_RU:
		/* rfi-ru: its process's last unlock, unless locked
		 * again since; rfe-ru: another's unlock, the initial
		 * write. */
		for (int i = r - 1; i >= 0 && g->ev[i].proc == e->proc; i--) {
			if (g->ev[i].loc != e->loc)
				continue;
			if (g->ev[i].kind == GE_LKW)
				break;
			if (g->ev[i].kind == GE_UL) {
				src[n++] = i;
				break;
			}
		}
		for (int i = 0; i < ls->nw; i++) {
			const struct gev *w = &g->ev[ls->w[i]];

			if ((w->kind == GE_UL || w->proc == GE_INIT) &&
			    w->proc != e->proc)
				src[n++] = ls->w[i];
		}
		return n;
	}
	return 0;
}

/* Ask the caller's interrupted() every 64 calls; once it says stop,
 * every loop of the search unwinds and the search is incomplete. */
int lg_stop(struct search *s)
{
	if (!s->stopped && (++s->polls & 63) == 0 && s->interrupted &&
	    s->interrupted())
		s->stopped = 1;
	return s->stopped;
}

/*
 * Can read @k of @ls read from write @c under the co order in s->pos,
 * given the sources of the reads before it?  The four coherence shapes
 * against its own process's accesses to the location (CoWR: not older
 * than a po-earlier write; CoRW: older than a po-later one; CoRR: not
 * older than a po-earlier read's source) and atomicity (an RMW's read
 * reads its write's immediate co-predecessor).  Each is a cycle of
 * po-loc, rf, co and fr, so the pruning loses no coherent choice; and
 * with co a total order of the location's writes they are all that
 * coherence asks (uniproc), so what passes is coherent and atomic:
 * what graph_allows (memory/graph.h) takes for granted.
 */
static int may_read(const struct search *s, const struct locset *ls,
		    const struct locopt *o, int k, int c)
{
	const struct gev *e = &s->g.ev[ls->r[k]];
	int r = ls->r[k];

	for (int i = 1; i < ls->nw; i++) {
		int w = ls->w[i];

		if (s->g.ev[w].proc != e->proc)
			continue;
		if (w < r ? s->pos[c] < s->pos[w] : s->pos[c] >= s->pos[w])
			return 0;
	}
	for (int j = 0; j < k; j++)
		if (s->g.ev[ls->r[j]].proc == e->proc &&
		    s->pos[o->rf[j]] > s->pos[c])
			return 0;
	if (e->rmw >= 0 && s->pos[c] != s->pos[e->rmw] - 1)
		return 0;
	return 1;
}

/* Every read's source, then the coherence check. */
static int reads(struct search *s, struct locset *ls, struct locopt *o,
		 int k)
{
	int src[GRAPH_MAX], n;

	if (k == ls->nr) {
		if (lg_stop(s))
			return 0;
		/* coherent: CoWW was checked with the order, the other
		 * shapes and atomicity read by read (may_read) */
		return push(ls, o);
	}
	if (s->g.ev[ls->r[k]].kind == GE_LKR) {
		/* the write just before its lock's in co */
		int lkw = s->g.ev[ls->r[k]].rmw;

		for (int i = 1; i < ls->nw; i++)
			if (o->order[i] == lkw)
				o->rf[k] = o->order[i - 1];
		if (!may_read(s, ls, o, k, o->rf[k]))
			return 0;
		return reads(s, ls, o, k + 1);
	}
	n = sources(s, ls, ls->r[k], src);
	for (int i = 0; i < n && !s->stopped; i++) {
		if (!may_read(s, ls, o, k, src[i]))
			continue;
		o->rf[k] = (int8_t)src[i];
		if (reads(s, ls, o, k + 1))
			return -1;
	}
	return 0;
}

/* Co orders: the initial write first, then every permutation of the
 * units (a write; for locks a critical section), @last fixed last. */
struct unit {
	int8_t ev[2];
	int n;
};

static int orders(struct search *s, struct locset *ls, struct unit *u,
		  int nu, int k, int last, struct locopt *o)
{
	if (k == nu) {
		int m = 1;

		o->order[0] = (int8_t)ls->w[0];
		for (int i = 0; i < nu; i++)
			for (int j = 0; i != last && j < u[i].n; j++)
				o->order[m++] = u[i].ev[j];
		if (last >= 0)
			for (int j = 0; j < u[last].n; j++)
				o->order[m++] = u[last].ev[j];
		for (int j = 0; j < m; j++)
			s->pos[o->order[j]] = (int8_t)j;
		/* CoWW: a process's writes in its program order */
		for (int i = 1; i < ls->nw; i++)
			for (int j = i + 1; j < ls->nw; j++)
				if (s->g.ev[ls->w[i]].proc ==
				    s->g.ev[ls->w[j]].proc &&
				    (ls->w[i] < ls->w[j]) !=
				    (s->pos[ls->w[i]] < s->pos[ls->w[j]]))
					return 0;
		return reads(s, ls, o, 0);
	}
	if (k == last)
		return orders(s, ls, u, nu, k + 1, last, o);
	for (int i = k; i < nu && !s->stopped; i++) {
		struct unit t;

		if (i == last)
			continue;
		t = u[k]; u[k] = u[i]; u[i] = t;
		if (orders(s, ls, u, nu, k + 1, last, o))
			return -1;
		t = u[k]; u[k] = u[i]; u[i] = t;
	}
	return 0;
}

/*
 * The coherent choices of one location.  Returns 0, 1 when a lock
 * cannot be taken in any order (a deadlock), -1 out of memory.
 */
int lg_location(struct search *s, struct locset *ls)
{
	struct graph *g = &s->g;
	struct unit u[GRAPH_MAX];
	struct locopt o;
	int nu = 0, last = -1, unmatched = 0;

	ls->nw = ls->nr = 0;
	ls->nopt = 0;
	ls->w[ls->nw++] = (int8_t)s->iw[ls->loc];
	for (int i = 0; i < g->n; i++) {
		const struct gev *e = &g->ev[i];

		if (e->loc != ls->loc || e->proc == GE_INIT ||
		    e->kind == GE_SRCU || e->kind == GE_F)
			continue;
		switch (e->kind) {
		case GE_W:
			ls->w[ls->nw++] = (int8_t)i;
			u[nu].ev[0] = (int8_t)i;
			u[nu++].n = 1;
			break;
		case GE_LKW: {
			int ul = -1;

			ls->w[ls->nw++] = (int8_t)i;
			for (int j = i + 1; j < g->n &&
			     g->ev[j].proc == e->proc; j++) {
				if (g->ev[j].loc != e->loc)
					continue;
				if (g->ev[j].kind == GE_LKR)
					return 1;	/* lock-nest */
				if (g->ev[j].kind == GE_UL) {
					ul = j;
					break;
				}
			}
			u[nu].ev[0] = (int8_t)i;
			u[nu].n = 1;
			if (ul >= 0) {
				u[nu].ev[1] = (int8_t)ul;
				u[nu].n = 2;
			} else {
				unmatched++;
				last = nu;
			}
			nu++;
			break;
		}
		case GE_UL:
			ls->w[ls->nw++] = (int8_t)i;
			break;
		default:
			ls->r[ls->nr++] = (int8_t)i;
		}
	}
	if (unmatched > 1)
		return 1;
	/* An unlock with no lock before it: a unit of its own. */
	for (int i = 1; i < ls->nw; i++) {
		int in = 0;

		if (g->ev[ls->w[i]].kind != GE_UL)
			continue;
		for (int k = 0; k < nu; k++)
			in |= u[k].n == 2 && u[k].ev[1] == ls->w[i];
		if (!in) {
			u[nu].ev[0] = ls->w[i];
			u[nu++].n = 1;
		}
	}
	/* a read no write gives its value to: no coherent choice at all,
	 * whatever the order (a lock read's source is the order's) */
	for (int k = 0; k < ls->nr; k++) {
		int src[GRAPH_MAX];

		if (g->ev[ls->r[k]].kind != GE_LKR &&
		    !sources(s, ls, ls->r[k], src))
			return 0;
	}
	/* alone: no other location's choices in the graph */
	rel_zero(&g->co, g->n);
	for (int i = 0; i < g->n; i++)
		g->rf[i] = -1;
	memset(&o, 0, sizeof(o));
	return orders(s, ls, u, nu, 0, last, &o) ? -1 : 0;
}
