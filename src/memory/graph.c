/* SPDX-License-Identifier: MIT */
/*
 * graph.c - the base sets and relations of an execution graph, what
 * every model shares (coherence, atomicity), and the dispatch to each
 * model's predicate.
 */
#include "memory/graph.h"

uint64_t graph_kind(const struct graph *g, int kind)
{
	uint64_t s = 0;

	for (int i = 0; i < g->n; i++)
		if (g->ev[i].kind == kind)
			s |= REL_BIT(i);
	return s;
}

uint64_t graph_reads(const struct graph *g)
{
	return graph_kind(g, GE_R) | graph_kind(g, GE_LKR) |
	       graph_kind(g, GE_LF) | graph_kind(g, GE_RL) |
	       graph_kind(g, GE_RU);
}

uint64_t graph_writes(const struct graph *g)
{
	return graph_kind(g, GE_W) | graph_kind(g, GE_LKW) |
	       graph_kind(g, GE_UL);
}

uint64_t graph_fences(const struct graph *g, int f)
{
	uint64_t s = 0;

	for (int i = 0; i < g->n; i++)
		if (g->ev[i].kind == GE_F && g->ev[i].sub == f)
			s |= REL_BIT(i);
	return s;
}

void graph_po(const struct graph *g, struct rel *po)
{
	rel_zero(po, g->n);
	for (int i = 0; i < g->n; i++) {
		if (g->ev[i].proc == GE_INIT)
			continue;
		for (int j = i + 1; j < g->n; j++)
			if (g->ev[j].proc == g->ev[i].proc)
				rel_add(po, i, j);
	}
}

void graph_loc(const struct graph *g, struct rel *loc)
{
	rel_zero(loc, g->n);
	for (int i = 0; i < g->n; i++)
		for (int j = 0; j < g->n; j++)
			if (g->ev[i].loc >= 0 && g->ev[i].loc == g->ev[j].loc)
				rel_add(loc, i, j);
}

void graph_int(const struct graph *g, struct rel *in)
{
	rel_zero(in, g->n);
	for (int i = 0; i < g->n; i++)
		for (int j = 0; j < g->n; j++)
			if (g->ev[i].proc == g->ev[j].proc &&
			    g->ev[i].proc != GE_INIT)
				rel_add(in, i, j);
}

void graph_rf(const struct graph *g, struct rel *rf)
{
	rel_zero(rf, g->n);
	for (int i = 0; i < g->n; i++)
		if (g->rf[i] >= 0)
			rel_add(rf, g->rf[i], i);
}

void graph_fr(const struct graph *g, const struct rel *rf, struct rel *fr)
{
	struct rel inv;

	rel_inverse(&inv, rf, g->n);
	rel_seq(fr, &inv, &g->co, g->n);
}

void graph_rmw(const struct graph *g, struct rel *rmw)
{
	rel_zero(rmw, g->n);
	for (int i = 0; i < g->n; i++)
		if (g->ev[i].rmw >= 0)
			rel_add(rmw, i, g->ev[i].rmw);
}

int graph_allows(const struct graph *g, int model, int *flags)
{
	if (flags)
		*flags = 0;
	switch (model) {
	case GRAPH_SC:
		return graph_sc(g);
	case GRAPH_TSO:
		return graph_tso(g);
	default:
		return graph_lkmm(g, flags);
	}
}
