/* SPDX-License-Identifier: MIT */
/*
 * graph_enum.c - every execution graph of a litmus test, each checked
 * once against the model (graph.h has the plan).
 *
 * A candidate graph is one path per process, and per location one
 * coherence order of its writes and one write for each of its reads.
 * Coherence and atomicity concern one location at a time, so each
 * location's choices are made and checked alone first (the coherent
 * ones are few); the model's predicate then judges each product of
 * them.  Locks: a location's critical sections (a lock's write up to
 * its process's next unlock) follow each other in co in some order, a
 * section never unlocked last (two such: a deadlock, no execution);
 * a lock's read reads the write before its own (lock.cat).
 */
#include "litmus/graph_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static intptr_t init_value(const struct litmus *l, int loc)
{
	struct lit_val v = { l->loc[loc].init_kind, l->loc[loc].init_val };

	if (l->loc[loc].type == LOC_SPINLOCK || l->loc[loc].type == LOC_SRCU)
		return 0;
	return lit_val_value(&v);
}

/*
 * The paths of every process, over values that grow round by round: a
 * value a chain of k stores computes is there after k rounds, and no
 * execution has a chain longer than its stores.
 */
static int grow(struct search *s)
{
	struct litmus *l = s->l;
	int bound = 1;

	for (int i = 0; i < l->nlocs; i++) {
		s->dom[i].n = 1;
		s->dom[i].v[0] = init_value(l, i);
	}
	for (int round = 0;; round++) {
		struct lg_domain next[LIT_MAX_LOCS];
		int changed = 0, full = 0, stores = 0;

		memcpy(next, s->dom, sizeof(next[0]) * (size_t)l->nlocs);
		s->st->rounds = round + 1;
		for (int p = 0; p < l->nprocs; p++) {
			if (lg_paths_of(l, p, s->dom, &s->paths[p], next,
					s->err, s->errlen))
				return -1;
			stores += s->paths[p].most_stores;
		}
		/* paths store more as locations hold more values (a walk
		 * that read an unknown value shows the stores to come) */
		if (stores + 1 > bound)
			bound = stores + 1;
		if (round + 1 >= bound)
			return 0;
		for (int i = 0; i < l->nlocs; i++) {
			full |= next[i].n == LG_MAX_VALS + 1;
			changed |= next[i].n != s->dom[i].n;
		}
		if (full) {
			snprintf(s->err, s->errlen, "a location may hold more "
				 "than %d values", LG_MAX_VALS);
			return -1;
		}
		if (!changed)
			return 0;
		memcpy(s->dom, next, sizeof(next[0]) * (size_t)l->nlocs);
	}
}

static int value_bit(const struct litmus *l, const struct lg_domain *d,
		     intptr_t v)
{
	int lo = 0, hi = d->n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		int c = lg_value_cmp(l, d->v[mid], v);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/*
 * The values each path reads and writes, by location (vm, vo), so that
 * a combination of paths in which some load reads a value nobody
 * writes is dropped before its graph is built.  Lock events count as
 * writes of 1 (lock) and 0 (unlock); lock reads are left to location().
 */
static int value_masks(struct search *s)
{
	const struct litmus *l = s->l;

	for (int i = 0; i < l->nlocs; i++) {
		int b = value_bit(l, &s->dom[i], init_value(l, i));

		s->initbit[i] = b >= 0 ? REL_BIT(b) : 0;
	}
	for (int p = 0; p < l->nprocs; p++) {
		const struct lg_paths *ps = &s->paths[p];
		size_t n = 0, cap = 0;

		s->vo[p] = malloc((ps->n + 1) * sizeof(*s->vo[p]));
		if (!s->vo[p])
			return -1;
		for (size_t k = 0; k < ps->n; k++) {
			const struct lg_path *pa = &ps->p[k];

			s->vo[p][k] = n;
			for (int e = 0; e < pa->nev; e++) {
				const struct gev *ev = &pa->ev[e];
				uint64_t *m;
				int b;
				size_t j;

				if (ev->loc < 0)
					continue;
				for (j = s->vo[p][k]; j < n; j++)
					if (s->vm[p][j].loc == ev->loc)
						break;
				if (j == n) {
					if (n == cap) {
						struct vmask *nv;

						cap = cap ? 2 * cap : 64;
						nv = realloc(s->vm[p], cap *
							     sizeof(*nv));
						if (!nv)
							return -1;
						s->vm[p] = nv;
					}
					s->vm[p][n].loc = ev->loc;
					s->vm[p][n].w = s->vm[p][n].r = 0;
					n++;
				}
				switch (ev->kind) {
				case GE_W: m = &s->vm[p][j].w;
					   b = value_bit(l, &s->dom[ev->loc], ev->val);
					   break;
				case GE_LKW: m = &s->vm[p][j].w;
					   b = value_bit(l, &s->dom[ev->loc], 1);
					   break;
				case GE_UL: m = &s->vm[p][j].w;
					   b = value_bit(l, &s->dom[ev->loc], 0);
					   break;
				case GE_R: m = &s->vm[p][j].r;
					   b = value_bit(l, &s->dom[ev->loc], ev->val);
					   break;
				default:
					continue;
				}
				if (b >= 0)
					*m |= REL_BIT(b);
			}
		}
		s->vo[p][ps->n] = n;
	}
	return 0;
}

/* Does every load of the picked paths read a value some store of
 * theirs, or the initial state, gives its location? */
static int values_possible(const struct search *s, const size_t *idx)
{
	uint64_t w[LIT_MAX_LOCS], r[LIT_MAX_LOCS];
	int seen[LIT_MAX_LOCS], nseen = 0;
	uint64_t used = 0;	/* locations seen (LIT_MAX_LOCS is 64) */

	for (int p = 0; p < s->l->nprocs; p++)
		for (size_t j = s->vo[p][idx[p]]; j < s->vo[p][idx[p] + 1]; j++) {
			const struct vmask *m = &s->vm[p][j];

			if (!(used & REL_BIT(m->loc))) {
				used |= REL_BIT(m->loc);
				w[m->loc] = s->initbit[m->loc];
				r[m->loc] = 0;
				seen[nseen++] = m->loc;
			}
			w[m->loc] |= m->w;
			r[m->loc] |= m->r;
		}
	for (int i = 0; i < nseen; i++)
		if (r[seen[i]] & ~w[seen[i]])
			return 0;
	return 1;
}

/* The graph of the picked paths: initial writes, then each process. */
static int build(struct search *s)
{
	struct litmus *l = s->l;
	struct graph *g = &s->g;
	uint64_t used = 0;
	static uint64_t gen;	/* the events of each built graph differ */

	g->gen = ++gen;
	for (int p = 0; p < l->nprocs; p++)
		for (int e = 0; e < s->pick[p]->nev; e++)
			if (s->pick[p]->ev[e].loc >= 0 &&
			    s->pick[p]->ev[e].kind != GE_SRCU)
				used |= REL_BIT(s->pick[p]->ev[e].loc);
	g->n = 0;
	for (int i = 0; i < l->nlocs; i++) {
		struct gev *e;

		s->iw[i] = -1;
		if (!((used >> i) & 1))
			continue;
		if (g->n == GRAPH_MAX)
			goto toomany;
		s->iw[i] = g->n;
		e = &g->ev[g->n++];
		memset(e, 0, sizeof(*e));
		e->kind = GE_W;
		e->ann = GA_ONCE;
		e->proc = GE_INIT;
		e->loc = (int16_t)i;
		e->rmw = -1;
		e->val = init_value(l, i);
	}
	for (int p = 0; p < l->nprocs; p++) {
		const struct lg_path *pa = s->pick[p];
		int base = g->n;

		if (g->n + pa->nev > GRAPH_MAX)
			goto toomany;
		for (int e = 0; e < pa->nev; e++) {
			struct gev *d = &g->ev[g->n++];

			*d = pa->ev[e];
			d->addr <<= base;
			d->data <<= base;
			d->ctrl <<= base;
			if (d->rmw >= 0)
				d->rmw = (int16_t)(d->rmw + base);
		}
	}
	for (int i = 0; i < g->n; i++)
		g->rf[i] = -1;
	return 0;
toomany:
	snprintf(s->err, s->errlen, "an execution with more than %d events",
		 GRAPH_MAX);
	return -1;
}

static int model_allows(struct search *s, int *flags)
{
	return graph_allows(&s->g, s->model, flags);
}

static void record(struct search *s)
{
	struct litmus *l = s->l;
	struct lit_val st[LIT_MAX_OBS];

	for (int i = 0; i < l->nobs; i++) {
		const struct lit_obs *o = &l->obs[i];
		intptr_t v;

		if (o->is_reg) {
			v = s->pick[o->proc]->regs[o->reg];
		} else {
			v = init_value(l, o->loc);
			for (int k = 0; k < s->nls; k++)
				if (s->ls[k].loc == o->loc) {
					const struct graph *g = &s->g;
					int w = s->ls[k].w[0];

					/* the co-last write */
					for (int j = 0; j < s->ls[k].nw; j++)
						if (!g->co.r[s->ls[k].w[j]])
							w = s->ls[k].w[j];
					v = g->ev[w].val;
				}
		}
		st[i] = lit_canonical(l, v);
	}
	if (l->filter && !lit_cond_eval(l->filter, st)) {
		l->filtered++;
		return;
	}
	lit_outcome_record(l, st, lit_cond_eval(l->cond, st));
}

/*
 * A signature of the whole graph: every event (kind, annotation,
 * process, location, value -- an address as its location), its
 * reads-from source and its row of co (FNV-1a, 64 bits).  Two
 * executions of one search with one signature would be the same graph
 * explored twice.
 */
static uint64_t signature(const struct search *s)
{
	const struct graph *g = &s->g;
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	const uint64_t prime = UINT64_C(0x100000001b3);

	for (int i = 0; i < g->n; i++) {
		const struct gev *e = &g->ev[i];
		struct lit_val v = lit_canonical(s->l, e->val);
		uint64_t w[4] = {
			(uint64_t)e->kind | (uint64_t)e->ann << 8 |
			(uint64_t)e->sub << 16 | (uint64_t)e->proc << 24 |
			(uint64_t)(uint16_t)e->loc << 32 |
			(uint64_t)(v.is_addr != 0) << 48,
			(uint64_t)v.v, (uint64_t)(int64_t)g->rf[i],
			g->co.r[i] };

		for (int k = 0; k < 4; k++)
			for (int b = 0; b < 64; b += 8)
				h = (h ^ ((w[k] >> b) & 0xff)) * prime;
	}
	return h;
}

static void remember(struct search *s)
{
	if (s->sig_off)
		return;
	if (s->nsig == s->capsig) {
		size_t cap = s->capsig ? 2 * s->capsig : 256;
		uint64_t *n = cap > LG_MAX_SIGS ? NULL :
			      realloc(s->sig, cap * sizeof(*n));

		if (!n) {
			s->sig_off = 1;
			return;
		}
		s->sig = n;
		s->capsig = cap;
	}
	s->sig[s->nsig++] = signature(s);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every product of the locations' choices. */
static void product(struct search *s, int k)
{
	int flags;

	if (k == s->nls) {
		s->st->candidates++;
		if (lg_stop(s) || !model_allows(s, &flags))
			return;
		s->st->executions++;
		remember(s);
		if (flags & GRAPH_FLAG_DATARACE)
			s->st->races++;
		record(s);
		return;
	}
	for (size_t i = 0; i < s->ls[k].nopt && !s->stopped; i++) {
		lg_apply(&s->g, &s->ls[k], &s->ls[k].opt[i]);
		product(s, k + 1);
	}
}

int lg_search(struct litmus *l, int model, struct lg_stats *st,
	      int (*interrupted)(void), int *complete, char *err,
	      size_t errlen)
{
	static struct search s;
	size_t idx[LIT_MAX_PROCS] = { 0 };
	int rc = -1;

	memset(&s, 0, sizeof(s));
	memset(st, 0, sizeof(*st));
	s.l = l;
	s.model = model;
	s.st = st;
	s.err = err;
	s.errlen = errlen;
	s.interrupted = interrupted;
	*complete = 0;
	if (grow(&s))
		goto out;
	for (int p = 0; p < l->nprocs; p++) {
		st->paths += s.paths[p].n;
		if (!s.paths[p].n) {	/* no path can run: no execution */
			*complete = 1;
			rc = 0;
			goto out;
		}
	}
	if (value_masks(&s)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (;;) {
		int stuck = 0, none = 0;

		if (s.stopped || (interrupted && interrupted()))
			break;
		st->combinations++;
		if (!values_possible(&s, idx))
			goto next;
		for (int p = 0; p < l->nprocs; p++)
			s.pick[p] = &s.paths[p].p[idx[p]];
		if (build(&s))
			goto out;
		s.nls = 0;
		for (int i = 0; i < l->nlocs && !stuck && !none; i++) {
			int r;

			if (s.iw[i] < 0)
				continue;
			s.ls[s.nls].loc = i;
			r = lg_location(&s, &s.ls[s.nls]);
			if (r < 0) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			if (r > 0)
				stuck = 1;
			else if (!s.ls[s.nls].nopt)
				none = 1;	/* no coherent choice */
			s.nls++;
		}
		if (s.stopped)
			break;
		if (stuck) {
			st->stuck++;
		} else if (!none) {
			rel_zero(&s.g.co, s.g.n);
			product(&s, 0);
			if (s.stopped)
				break;
		}
next:		/* the next combination of paths */
		{
			int p = l->nprocs - 1;

			while (p >= 0 && ++idx[p] == s.paths[p].n)
				idx[p--] = 0;
			if (p < 0) {
				*complete = 1;
				break;
			}
		}
	}
	rc = 0;
	qsort(s.sig, s.nsig, sizeof(*s.sig), cmp_u64);
	for (size_t i = 1; i < s.nsig; i++)
		st->repeats += s.sig[i] == s.sig[i - 1];
	st->repeats_checked = !s.sig_off;
out:
	free(s.sig);
	for (int p = 0; p < LIT_MAX_PROCS; p++) {
		free(s.vm[p]);
		free(s.vo[p]);
	}
	for (int p = 0; p < LIT_MAX_PROCS; p++)
		free(s.paths[p].p);
	for (int i = 0; i < LIT_MAX_LOCS; i++)
		free(s.ls[i].opt);
	return rc;
}
