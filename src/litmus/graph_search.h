/* SPDX-License-Identifier: MIT */
/*
 * graph_search.h - the state of one graph search, shared by its two
 * halves: graph_enum.c (paths, their combinations, the product of the
 * locations' choices, the model's check) and graph_loc.c (one
 * location's coherent choices).  Internal to litmus/.
 */
#ifndef PAGERACE_LITMUS_GRAPH_SEARCH_H
#define PAGERACE_LITMUS_GRAPH_SEARCH_H

#include "litmus/graph.h"

/* One location's coherent choice: its writes in co order, the write
 * each of its reads reads. */
struct locopt {
	int8_t order[GRAPH_MAX];
	int8_t rf[GRAPH_MAX];	/* per read of the location, in order */
};

struct locset {
	int loc;
	int nw, nr;
	int8_t w[GRAPH_MAX], r[GRAPH_MAX];	/* events */
	struct locopt *opt;
	size_t nopt, cap;
};

struct search {
	struct litmus *l;
	int model;
	struct lg_stats *st;
	struct lg_domain dom[LIT_MAX_LOCS];
	struct lg_paths paths[LIT_MAX_PROCS];
	struct graph g;
	const struct lg_path *pick[LIT_MAX_PROCS];
	int iw[LIT_MAX_LOCS];		/* a location's initial write, -1 */
	struct locset ls[LIT_MAX_LOCS];
	int nls;
	char *err;
	size_t errlen;
	int8_t pos[GRAPH_MAX];		/* a write's place in the co order */
	/* each path's values by location: bit i of w (r) if it writes
	 * (reads) the location's i-th domain value; paths[p].p[k]'s run
	 * from vm[p][vo[p][k]] to vm[p][vo[p][k + 1]] */
	struct vmask { int loc; uint64_t w, r; } *vm[LIT_MAX_PROCS];
	size_t *vo[LIT_MAX_PROCS];
	uint64_t initbit[LIT_MAX_LOCS];
	uint64_t *sig;			/* each execution's graph signature */
	size_t nsig, capsig;
	int sig_off;			/* past LG_MAX_SIGS, or out of memory */
	int (*interrupted)(void);	/* asked every 64 polls (stop()) */
	unsigned polls;
	int stopped;			/* it said stop: incomplete */
};

/*
 * graph_loc.c: the coherent choices of location @ls->loc in s->g (its
 * writes' co orders, each read's source), into @ls->opt.  Returns 0,
 * 1 when a lock cannot be taken in any order (a deadlock), -1 out of
 * memory.
 */
int lg_location(struct search *s, struct locset *ls);
/* Put choice @o of @ls into @g (its co order and its reads' rf). */
void lg_apply(struct graph *g, const struct locset *ls,
	      const struct locopt *o);
/* Ask s->interrupted every 64 calls; 1 once it said stop. */
int lg_stop(struct search *s);

#endif /* PAGERACE_LITMUS_GRAPH_SEARCH_H */
