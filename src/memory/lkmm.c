/* SPDX-License-Identifier: MIT */
/*
 * lkmm.c - the Linux-kernel memory model as a predicate over an
 * execution graph: tools/memory-model's linux-kernel.cat,
 * linux-kernel.bell and lock.cat as herdtools7 7.58 ships them
 * (catalogue/linux; herd's default lkmmv1 reading of linux-kernel.def:
 * a fully ordered RMW is an smp_mb, the RMW, an smp_mb; the read of an
 * RMW that returns nothing is Noreturn; a failed cmpxchg is a plain
 * READ_ONCE).
 *
 * Each definition below is the .cat line it names, in the file's order;
 * "fence" and "strong-fence" are extended by rcu-fence after hb and pb,
 * as the .cat rebinds them, and "nonrw-fence" keeps its first value.
 * Lock events arrive merged as lock.cat leaves them: a lock's read and
 * write are an RMW (lk-rmw), unlocks are writes in co right after their
 * lock's write, a lock's read reads the write before its own in co.
 */
#include "memory/graph.h"

/* Scratch of one check: the relations, by their .cat names. */
struct lk {
	int n;
	uint64_t all, M, R, W, IW, marked, plain, rmwset, acq, rel, noret;
	struct rel id, po, poq, loc, in, ext, rf, rfe, rfi, co, coe, fr, fre,
		   rmw, addr, data, ctrl;
	struct rel strong, nonrw, fence, cumul, prop, hb, hbs, pb, pbs,
		   rcu_fence, rb;
	/* from the events alone (base_fences) */
	struct rel acqpo, porel, rmb, wmb, mb0, gp, dep, rwdep, addrwmb,
		   depm, ulmb;
	uint64_t sync, ssync;
};

/* c = a? (a | id) */
static void opt(struct rel *c, const struct rel *a, const struct lk *k)
{
	rel_or(c, a, &k->id, k->n);
}

/* fencerel(S) = (po & (_ * S)) ; po */
static void fencerel(struct rel *c, const struct lk *k, uint64_t s)
{
	struct rel t;

	rel_restrict(&t, &k->po, k->all, s, k->n);
	rel_seq(c, &t, &k->po, k->n);
}

/* X * Y */
static void cross(struct rel *c, uint64_t x, uint64_t y, int n)
{
	for (int i = 0; i < n; i++)
		c->r[i] = (x >> i) & 1 ? y : 0;
}

/* c = a ; b ; d */
static void seq3(struct rel *c, const struct rel *a, const struct rel *b,
		 const struct rel *d, int n)
{
	struct rel t;

	rel_seq(&t, a, b, n);
	rel_seq(c, &t, d, n);
}

static void deps(struct lk *k, const struct graph *g)
{
	rel_zero(&k->addr, k->n);
	rel_zero(&k->data, k->n);
	rel_zero(&k->ctrl, k->n);
	for (int j = 0; j < k->n; j++)
		for (int i = 0; i < k->n; i++) {
			if ((g->ev[j].addr >> i) & 1)
				rel_add(&k->addr, i, j);
			if ((g->ev[j].data >> i) & 1)
				rel_add(&k->data, i, j);
			if ((g->ev[j].ctrl >> i) & 1)
				rel_add(&k->ctrl, i, j);
		}
}

static void base_fences(struct lk *k, const struct graph *g);

/* What follows from the events alone: sets, po, loc, int, ext and the
 * dependencies. */
static void base_events(struct lk *k, const struct graph *g)
{
	int n = k->n = g->n;
	uint64_t lockev;

	k->all = n == 64 ? ~UINT64_C(0) : REL_BIT(n) - 1;
	rel_zero(&k->id, n);
	for (int i = 0; i < n; i++)
		rel_add(&k->id, i, i);
	k->R = graph_reads(g);
	k->W = graph_writes(g);
	k->M = k->R | k->W;
	k->IW = k->acq = k->rel = k->noret = k->rmwset = 0;
	for (int i = 0; i < n; i++) {
		const struct gev *e = &g->ev[i];

		if (e->proc == GE_INIT)
			k->IW |= REL_BIT(i);
		if (e->ann == GA_ACQUIRE || e->kind == GE_LKR)
			k->acq |= REL_BIT(i);
		if (e->ann == GA_RELEASE || e->kind == GE_UL)
			k->rel |= REL_BIT(i);
		if (e->ann == GA_NORETURN)
			k->noret |= REL_BIT(i);
		if ((e->kind == GE_R || e->kind == GE_W) && (e->sub & 1))
			k->rmwset |= REL_BIT(i);
	}
	graph_rmw(g, &k->rmw);
	lockev = graph_kind(g, GE_LKR) | graph_kind(g, GE_LKW) |
		 graph_kind(g, GE_UL) | graph_kind(g, GE_LF) |
		 graph_kind(g, GE_RL) | graph_kind(g, GE_RU);
	/* linux-kernel.bell: Marked = (~M) | IW | Once | Release | Acquire |
	 * domain(rmw) | range(rmw) | LKR | LKW | UL | LF | RL | RU */
	k->marked = (k->all & ~k->M) | k->IW | k->acq | k->rel | lockev;
	for (int i = 0; i < n; i++)
		if (g->ev[i].ann != GA_PLAIN || g->ev[i].rmw >= 0)
			k->marked |= REL_BIT(i);
	for (int i = 0; i < n; i++)
		if (g->ev[i].rmw >= 0)
			k->marked |= REL_BIT(g->ev[i].rmw);
	k->plain = k->M & ~k->marked;

	graph_po(g, &k->po);
	opt(&k->poq, &k->po, k);
	graph_loc(g, &k->loc);
	graph_int(g, &k->in);
	for (int i = 0; i < n; i++)
		k->ext.r[i] = ~k->in.r[i] & k->all;
	deps(k, g);
	base_fences(k, g);
}

/*
 * The base relations of @g.  The part from the events alone is kept for
 * the next graph with the same events (g->gen: a search checks many rf
 * and co choices of one set of events); one check at a time.
 */
static void base(struct lk *k, const struct graph *g)
{
	static struct lk events;
	static uint64_t events_gen;
	int n;

	if (!g->gen || g->gen != events_gen) {
		base_events(&events, g);
		events_gen = g->gen;
	}
	*k = events;
	n = k->n;
	graph_rf(g, &k->rf);
	rel_and(&k->rfe, &k->rf, &k->ext, n);
	rel_and(&k->rfi, &k->rf, &k->in, n);
	k->co = g->co;
	rel_and(&k->coe, &k->co, &k->ext, n);
	graph_fr(g, &k->rf, &k->fr);
	rel_and(&k->fre, &k->fr, &k->ext, n);
}

/* rcu-rscs / srcu-rscs: each outermost-or-nested section's lock to its
 * unlock, matched innermost first (linux-kernel.bell's recursion, for
 * sections that nest); SRCU per location.  *@bad: an unmatched one. */
static void sections(struct rel *c, const struct graph *g, int srcu,
		     int *bad)
{
	int stack[GRAPH_MAX], sp;

	uint64_t procs = 0;	/* the processes with events (ids < 64) */

	rel_zero(c, g->n);
	for (int i = 0; i < g->n; i++)
		if (g->ev[i].proc < 64)
			procs |= REL_BIT(g->ev[i].proc);
	for (int p = 0; procs; p++) {
		if (!(procs & REL_BIT(p)))
			continue;
		procs &= ~REL_BIT(p);
		sp = 0;
		for (int i = 0; i < g->n; i++) {
			const struct gev *e = &g->ev[i];
			int lock, unlock;

			if (e->proc != p)
				continue;
			lock = srcu ? e->kind == GE_SRCU && e->sub == GS_LOCK :
			       e->kind == GE_F && e->sub == GF_RCU_LOCK;
			unlock = srcu ? e->kind == GE_SRCU && e->sub == GS_UNLOCK :
				 e->kind == GE_F && e->sub == GF_RCU_UNLOCK;
			if (lock) {
				stack[sp++] = i;
			} else if (unlock) {
				int m = sp - 1;

				while (srcu && m >= 0 &&
				       g->ev[stack[m]].loc != e->loc)
					m--;
				if (m < 0) {
					*bad = 1;
					continue;
				}
				rel_add(c, stack[m], i);
				for (int q = m; q + 1 < sp; q++)
					stack[q] = stack[q + 1];
				sp--;
			}
		}
		if (sp)
			*bad = 1;
	}
}

/*
 * let rec rcu-order = rcu-gp | srcu-gp | (rcu-gp ; rcu-link ; rcu-rscsi)
 *   | ((srcu-gp ; rcu-link ; srcu-rscsi) & loc) | (rcu-rscsi ; rcu-link ;
 *   rcu-gp) | ((srcu-rscsi ; rcu-link ; srcu-gp) & loc) | (rcu-gp ;
 *   rcu-link ; rcu-order ; rcu-link ; rcu-rscsi) | ... | (rcu-order ;
 *   rcu-link ; rcu-order)
 * computed as the least fixpoint.
 */
static void rcu_order(struct rel *ord, const struct lk *k,
		      const struct rel *gp, const struct rel *sgp,
		      const struct rel *rsi, const struct rel *srsi,
		      const struct rel *link)
{
	int n = k->n;
	struct rel t, u, gl, sgl, rl, srl;

	rel_or(ord, gp, sgp, n);
	rel_seq(&gl, gp, link, n);	/* rcu-gp ; rcu-link */
	rel_seq(&sgl, sgp, link, n);
	rel_seq(&rl, rsi, link, n);
	rel_seq(&srl, srsi, link, n);
	rel_seq(&t, &gl, rsi, n);
	rel_or(ord, ord, &t, n);
	rel_seq(&t, &sgl, srsi, n);
	rel_and(&t, &t, &k->loc, n);
	rel_or(ord, ord, &t, n);
	rel_seq(&t, &rl, gp, n);
	rel_or(ord, ord, &t, n);
	rel_seq(&t, &srl, sgp, n);
	rel_and(&t, &t, &k->loc, n);
	rel_or(ord, ord, &t, n);
	for (;;) {
		struct rel next = *ord, ol, olr;

		rel_seq(&ol, ord, link, n);		/* rcu-order ; rcu-link */
		seq3(&t, &gl, &ol, rsi, n);
		rel_or(&next, &next, &t, n);
		seq3(&t, &sgl, &ol, srsi, n);
		rel_and(&t, &t, &k->loc, n);
		rel_or(&next, &next, &t, n);
		seq3(&t, &rl, &ol, gp, n);
		rel_or(&next, &next, &t, n);
		seq3(&t, &srl, &ol, sgp, n);
		rel_and(&t, &t, &k->loc, n);
		rel_or(&next, &next, &t, n);
		rel_seq(&olr, &ol, ord, n);
		rel_or(&next, &next, &olr, n);
		rel_minus(&u, &next, ord, n);
		if (rel_empty(&u, n))
			break;
		*ord = next;
	}
}

/* The "Plain accesses and data races" part: 0 when plain-coherence
 * fails; *@race set when the data-race flag is raised. */
static int plain(const struct lk *k, const struct graph *g, int *race)
{
	int n = k->n;
	uint64_t R4rmb = k->R & ~k->noret, notnoret = k->all & ~k->noret;
	struct rel xb, vis, t, u, v, rmbf, wpre, rpre, wpost, rpost, ww, wr,
		   rwx, pre, a, b, c;

	if (!k->plain)		/* pre-race (below) is empty */
		return 1;
	/* xbstar = (hb | pb | rb)* */
	rel_or(&xb, &k->hb, &k->pb, n);
	rel_or(&xb, &xb, &k->rb, n);
	rel_star(&xb, n);
	/* vis = cumul-fence* ; rfe? ; [Marked] ; ((strong-fence ; [Marked] ;
	 * xbstar) | (xbstar & int)) */
	t = k->cumul;
	rel_star(&t, n);
	opt(&u, &k->rfe, k);
	rel_restrict(&u, &u, k->all, k->marked, n);
	rel_seq(&v, &t, &u, n);
	rel_restrict(&t, &k->strong, k->all, k->marked, n);
	rel_seq(&u, &t, &xb, n);
	rel_and(&t, &xb, &k->in, n);
	rel_or(&u, &u, &t, n);
	rel_seq(&vis, &v, &u, n);
	/* the bounds */
	fencerel(&rmbf, k, graph_fences(g, GF_RMB));
	rel_or(&t, &k->addr, &k->fence, n);
	opt(&t, &t, k);
	rel_restrict(&wpre, &t, k->marked, k->all, n);
	rel_restrict(&u, &rmbf, R4rmb, notnoret, n);
	rel_or(&t, &k->addr, &k->nonrw, n);
	rel_or(&t, &t, &u, n);
	opt(&t, &t, k);
	rel_restrict(&rpre, &t, k->marked, k->all, n);
	opt(&t, &k->fence, k);
	rel_restrict(&wpost, &t, k->all, k->marked, n);
	rel_restrict(&u, &rmbf, notnoret, R4rmb, n);
	rel_or(&t, &k->nonrw, &u, n);
	opt(&t, &t, k);
	rel_restrict(&rpost, &t, k->all, k->marked, n);
	/* ww-vis, wr-vis, rw-xbstar */
	seq3(&t, &k->strong, &xb, &wpre, n);
	rel_or(&ww, &k->fence, &t, n);
	seq3(&t, &wpost, &vis, &wpre, n);
	rel_or(&ww, &ww, &t, n);
	seq3(&t, &k->strong, &xb, &rpre, n);
	rel_or(&wr, &k->fence, &t, n);
	seq3(&t, &wpost, &vis, &rpre, n);
	rel_or(&wr, &wr, &t, n);
	seq3(&t, &rpost, &xb, &wpre, n);
	rel_or(&rwx, &k->fence, &t, n);
	/* pre-race = ext & ((Plain * M) | ((M \ IW) * Plain)) */
	cross(&t, k->plain, k->M, n);
	cross(&u, k->M & ~k->IW, k->plain, n);
	rel_or(&t, &t, &u, n);
	rel_and(&pre, &t, &k->ext, n);
	if (rel_empty(&pre, n))
		return 1;
	/* plain-coherence */
	rel_inverse(&t, &rwx, n);
	rel_and(&a, &pre, &k->rf, n);
	rel_and(&a, &a, &t, n);
	rel_inverse(&t, &wr, n);
	rel_and(&b, &pre, &k->fr, n);
	rel_and(&b, &b, &t, n);
	rel_inverse(&t, &ww, n);
	rel_and(&c, &pre, &k->co, n);
	rel_and(&c, &c, &t, n);
	if (!rel_empty(&a, n) || !rel_empty(&b, n) || !rel_empty(&c, n))
		return 0;
	/* ww-nonrace = ww-vis & ((Marked * W) | rw-xbstar) &
	 * ((W * Marked) | wr-vis) */
	cross(&t, k->marked, k->W, n);
	rel_or(&t, &t, &rwx, n);
	cross(&u, k->W, k->marked, n);
	rel_or(&u, &u, &wr, n);
	rel_and(&a, &ww, &t, n);
	rel_and(&a, &a, &u, n);
	rel_and(&b, &pre, &k->co, n);
	rel_minus(&b, &b, &a, n);		/* ww-race */
	opt(&t, &k->co, k);
	rel_seq(&u, &t, &k->rf, n);
	rel_and(&u, &pre, &u, n);
	rel_minus(&u, &u, &wr, n);		/* wr-race */
	rel_and(&c, &pre, &k->fr, n);
	rel_minus(&c, &c, &rwx, n);		/* rw-race */
	if (!rel_empty(&b, n) || !rel_empty(&u, n) || !rel_empty(&c, n))
		*race = 1;
	return 1;
}

/* The fences and dependencies of linux-kernel.cat that follow from the
 * events alone (graph_lkmm adds the parts that read rf or co). */
static void base_fences(struct lk *k, const struct graph *g)
{
	int n = k->n;
	uint64_t M = k->M, W = k->W;
	struct rel t, u, v;

	/* acq-po, po-rel */
	rel_restrict(&k->acqpo, &k->po, k->acq, M, n);
	rel_restrict(&k->porel, &k->po, M, k->rel, n);
	/* rmb, wmb, mb */
	fencerel(&t, k, graph_fences(g, GF_RMB));
	rel_restrict(&k->rmb, &t, k->R & ~k->noret, k->R & ~k->noret, n);
	fencerel(&t, k, graph_fences(g, GF_WMB));
	rel_restrict(&k->wmb, &t, W, W, n);
	fencerel(&t, k, graph_fences(g, GF_MB));
	rel_restrict(&k->mb0, &t, M, M, n);
	/* [M] ; fencerel(Before-atomic) ; [RMW] ; po? ; [M] */
	fencerel(&t, k, graph_fences(g, GF_BEFORE_ATOMIC));
	rel_restrict(&t, &t, M, k->rmwset, n);
	rel_seq(&u, &t, &k->poq, n);
	rel_restrict(&u, &u, k->all, M, n);
	rel_or(&k->mb0, &k->mb0, &u, n);
	/* [M] ; po? ; [RMW] ; fencerel(After-atomic) ; [M] */
	fencerel(&t, k, graph_fences(g, GF_AFTER_ATOMIC));
	rel_restrict(&t, &t, k->rmwset, M, n);
	rel_restrict(&u, &k->poq, M, k->all, n);
	rel_seq(&v, &u, &t, n);
	rel_or(&k->mb0, &k->mb0, &v, n);
	/* [M] ; po? ; [LKW] ; fencerel(After-spinlock) ; [M] */
	fencerel(&t, k, graph_fences(g, GF_AFTER_SPINLOCK));
	rel_restrict(&t, &t, graph_kind(g, GE_LKW), M, n);
	rel_seq(&v, &u, &t, n);
	rel_or(&k->mb0, &k->mb0, &v, n);
	/* [LKW] ; fencerel(After-unlock-lock) ; [M]: graph_lkmm puts
	 * [M] ; po ; [UL] ; (co | po) before it */
	fencerel(&t, k, graph_fences(g, GF_AFTER_UNLOCK_LOCK));
	rel_restrict(&k->ulmb, &t, graph_kind(g, GE_LKW), M, n);
	/* gp = po ; [Sync-rcu | Sync-srcu] ; po? */
	k->sync = graph_fences(g, GF_SYNC_RCU);
	k->ssync = 0;
	for (int i = 0; i < n; i++)
		if (g->ev[i].kind == GE_SRCU && g->ev[i].sub == GS_SYNC)
			k->ssync |= REL_BIT(i);
	rel_restrict(&t, &k->po, k->all, k->sync | k->ssync, n);
	rel_seq(&k->gp, &t, &k->poq, n);
	/* ppo's parts: rwdep, addr ; [Plain] ; wmb, dep ; [Marked] */
	rel_or(&k->dep, &k->addr, &k->data, n);
	rel_or(&t, &k->dep, &k->ctrl, n);
	rel_restrict(&k->rwdep, &t, k->all, W, n);
	rel_restrict(&t, &k->addr, k->all, k->plain, n);
	rel_seq(&k->addrwmb, &t, &k->wmb, n);
	rel_restrict(&k->depm, &k->dep, k->all, k->marked, n);
}

int graph_lkmm(const struct graph *g, int *flags)
{
	struct lk k;
	struct rel t, u, v, mb, wmb, porel, pul, ppo, ow, tow, tor, rcs, srcs,
		   rsi, srsi, rgp, sgp, link, ord;
	int n, bad = 0, race = 0;
	uint64_t M, sync, ssync;

	base(&k, g);
	n = k.n;
	M = k.M;

	/* po-unlock-rf-lock-po */
	rel_restrict(&t, &k.rf, graph_kind(g, GE_UL), graph_kind(g, GE_LKR), n);
	seq3(&pul, &k.po, &t, &k.po, n);
	/* mb: the fences (base_fences), and [M] ; po ; [UL] ; (co | po) ;
	 * [LKW] ; fencerel(After-unlock-lock) ; [M] */
	mb = k.mb0;
	if (!rel_empty(&k.ulmb, n)) {
		rel_or(&v, &k.co, &k.po, n);
		rel_restrict(&v, &v, graph_kind(g, GE_UL),
			     graph_kind(g, GE_LKW), n);
		rel_seq(&u, &v, &k.ulmb, n);
		rel_restrict(&v, &k.po, M, k.all, n);
		rel_seq(&t, &v, &u, n);
		rel_or(&mb, &mb, &t, n);
	}
	sync = k.sync;
	ssync = k.ssync;
	rel_or(&k.strong, &mb, &k.gp, n);
	/* nonrw-fence, fence */
	rel_or(&k.nonrw, &k.strong, &k.porel, n);
	rel_or(&k.nonrw, &k.nonrw, &k.acqpo, n);
	rel_or(&k.fence, &k.nonrw, &k.wmb, n);
	rel_or(&k.fence, &k.fence, &k.rmb, n);
	porel = k.porel;
	wmb = k.wmb;

	/* ppo */
	rel_or(&ow, &k.co, &k.fr, n);
	rel_and(&t, &ow, &k.in, n);
	rel_or(&tow, &k.rwdep, &t, n);
	rel_or(&tow, &tow, &k.addrwmb, n);
	rel_seq(&u, &k.depm, &k.rfi, n);
	rel_or(&tor, &k.addr, &u, n);
	rel_or(&ppo, &tor, &tow, n);
	rel_or(&ppo, &ppo, &k.fence, n);
	rel_and(&t, &pul, &k.in, n);
	rel_or(&ppo, &ppo, &t, n);

	/* cumul-fence = [Marked] ; (A-cumul(strong-fence | po-rel) | wmb |
	 * po-unlock-rf-lock-po) ; [Marked] */
	rel_or(&t, &k.strong, &porel, n);
	rel_restrict(&u, &k.rfe, k.all, k.marked, n);
	opt(&u, &u, &k);
	rel_seq(&v, &u, &t, n);
	rel_or(&v, &v, &wmb, n);
	rel_or(&v, &v, &pul, n);
	rel_restrict(&k.cumul, &v, k.marked, k.marked, n);
	/* prop = [Marked] ; (overwrite & ext)? ; cumul-fence* ; [Marked] ;
	 * rfe? ; [Marked] */
	rel_and(&t, &ow, &k.ext, n);
	opt(&t, &t, &k);
	rel_restrict(&t, &t, k.marked, k.all, n);
	u = k.cumul;
	rel_star(&u, n);
	rel_seq(&v, &t, &u, n);
	opt(&t, &k.rfe, &k);
	rel_restrict(&t, &t, k.marked, k.marked, n);
	rel_seq(&k.prop, &v, &t, n);
	/* hb = [Marked] ; (ppo | rfe | ((prop \ id) & int)) ; [Marked] */
	rel_minus(&t, &k.prop, &k.id, n);
	rel_and(&t, &t, &k.in, n);
	rel_or(&t, &t, &ppo, n);
	rel_or(&t, &t, &k.rfe, n);
	rel_restrict(&k.hb, &t, k.marked, k.marked, n);
	if (!rel_acyclic(&k.hb, n))
		return 0;
	/* pb = prop ; strong-fence ; hb* ; [Marked] */
	k.hbs = k.hb;
	rel_star(&k.hbs, n);
	seq3(&t, &k.prop, &k.strong, &k.hbs, n);
	rel_restrict(&k.pb, &t, k.all, k.marked, n);
	if (!rel_acyclic(&k.pb, n))
		return 0;
	k.pbs = k.pb;
	rel_star(&k.pbs, n);

	/* RCU: every base case of rcu-order holds a grace period, so with
	 * none rcu-order, rcu-fence and rb are empty (the SRCU nesting is
	 * still checked) */
	sections(&rcs, g, 0, &bad);
	sections(&srcs, g, 1, &bad);
	if (!(sync | ssync)) {
		rel_zero(&k.rb, n);
		goto plain_accesses;
	}
	rel_inverse(&rsi, &rcs, n);
	rel_inverse(&srsi, &srcs, n);
	rel_restrict(&rgp, &k.id, sync, sync, n);
	rel_restrict(&sgp, &k.id, ssync, ssync, n);
	/* rcu-link = po? ; hb* ; pb* ; prop ; po */
	seq3(&t, &k.poq, &k.hbs, &k.pbs, n);
	seq3(&link, &t, &k.prop, &k.po, n);
	rcu_order(&ord, &k, &rgp, &sgp, &rsi, &srsi, &link);
	/* rcu-fence = po ; rcu-order ; po? */
	seq3(&k.rcu_fence, &k.po, &ord, &k.poq, n);
	rel_or(&k.fence, &k.fence, &k.rcu_fence, n);
	rel_or(&k.strong, &k.strong, &k.rcu_fence, n);
	/* rb = prop ; rcu-fence ; hb* ; pb* ; [Marked] */
	seq3(&t, &k.prop, &k.rcu_fence, &k.hbs, n);
	rel_seq(&u, &t, &k.pbs, n);
	rel_restrict(&k.rb, &u, k.all, k.marked, n);
	if (!rel_irreflexive(&k.rb, n))
		return 0;

plain_accesses:
	if (!plain(&k, g, &race))
		return 0;
	if (flags)
		*flags = (race ? GRAPH_FLAG_DATARACE : 0) |
			 (bad ? GRAPH_FLAG_BAD_NESTING : 0);
	return 1;
}
