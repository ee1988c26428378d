/* SPDX-License-Identifier: MIT */
/*
 * tree.c - the exploration tree shared by dfs and dpor (tree.h).
 *
 * Invariants:
 *  - node[0..n) is the path of the last execution; node[d].ev is the step
 *    taken from node d, complete for d < pos once the step is over.
 *  - The next execution replays node[0..prefix): at each of those
 *    decisions the enabled set must be the one recorded -- the program is
 *    deterministic -- or the exploration stops with a divergence.
 *  - done is a subset of backtrack; the choice of a node is in done.
 *  - A node's sleeping steps are tree.sleepers[sleep_off, + sleep_n), and
 *    deeper nodes' come after them, so truncating to a node frees its
 *    descendants' at once; the steps themselves are in tree.pool, a
 *    node's from its ancestors' pool_end to its own.
 */
#include "strategy/tree.h"
#include "strategy/tree_internal.h"
#include "runtime/effects.h"
#include "runtime/tsan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

PR_NO_TSAN void pr_tree_init(struct pr_tree *t, const struct pr_tree_policy *policy,
			     int bound, char *error, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->policy = policy;
	t->bound = bound;
	t->error = error;
	t->errlen = errlen;
}

PR_NO_TSAN void pr_tree_free(struct pr_tree *t)
{
	free(t->node);
	free(t->sleepers);
	free(t->pool);
	free(t->sleepcost);
	free(t->sleeporig);
	free(t->sleeptw);
	memset(t, 0, sizeof(*t));
}

PR_NO_TSAN void pr_tree_begin_run(struct pr_tree *t)
{
	t->pos = 0;
	t->stretch = 0;
	t->abandoned = 0;
	t->foreign = 0;
}

PR_NO_TSAN void pr_tree_split(struct pr_tree *t, unsigned shard, unsigned shards)
{
	unsigned levels = 3;

	t->shard = shard;
	t->shards = shards;
	/* At least two choices a level: 2^split >= 8 leaves a shard. */
	while ((1u << levels) < 8 * shards && levels < 24)
		levels++;
	t->split = levels;
}

/*
 * Entering leaf number t->leaf: ours?  Not ours: the run ends here, and
 * is not counted (its owner runs it).
 */
PR_NO_TSAN int pr_tree_leaf_is_foreign(struct pr_tree *t)
{
	return (t->leaf++ % t->shards) != t->shard;
}

PR_NO_TSAN int pr_tree_grow(void **p, size_t *cap, size_t want, size_t elem)
{
	size_t c = *cap ? *cap : 256;
	void *q;

	if (want <= *cap)
		return 0;
	while (c < want)
		c *= 2;
	q = realloc(*p, c * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

PR_NO_TSAN uint32_t *pr_tree_sleepers_reserve(struct pr_tree *t, size_t n)
{
	size_t cap = t->capsleepers;

	if (pr_tree_grow((void **)&t->sleepers, &cap, t->nsleepers + n,
		 sizeof(*t->sleepers)))
		return NULL;
	if (cap != t->capsleepers) {
		int8_t *c = realloc(t->sleepcost, cap * sizeof(*c));
		uint32_t *o;
		pr_procset *w;

		if (!c)
			return NULL;	/* sleepers keeps its larger block */
		t->sleepcost = c;
		o = realloc(t->sleeporig, cap * sizeof(*o));
		if (!o)
			return NULL;
		t->sleeporig = o;
		w = realloc(t->sleeptw, cap * sizeof(*w));
		if (!w)
			return NULL;
		t->sleeptw = w;
		t->capsleepers = cap;
	}
	return &t->sleepers[t->nsleepers];
}

PR_NO_TSAN void pr_tree_take_psleeper(struct pr_tree *t, struct pr_tnode *nd,
				      size_t d, int p)
{
	uint32_t orig = 0;
	int found = 0;

	/* Its latest record: the fewest steps to commute with. */
	for (uint32_t i = 0; i < nd->sleep_n; i++) {
		size_t k = nd->sleep_off + i;

		if (pr_tree_sleeper(t, k)->proc == p && t->sleepcost[k] >= 0 &&
		    (!found || t->sleeporig[k] > orig)) {
			orig = t->sleeporig[k];
			found = 1;
		}
	}
	nd->cont = 1;
	/* No record (cannot happen): the one-step rule only (dpor.c). */
	nd->ps = found ? orig : UINT32_MAX;
	nd->pm = (uint32_t)d;
}

PR_NO_TSAN pr_procset pr_tree_interrupts_of(const struct pr_tree *t,
					    const struct pr_tnode *nd, int p)
{
	pr_procset s = 0;
	int ctx = p < PR_MAX_CTX ? p : t->target[p];

	/* The enabled injections only: contexts are the bits below. */
	for (pr_procset m = nd->enabled & ~t->memprocs &
			    ~(PR_PROC_BIT(PR_MAX_CTX) - 1); m; m &= m - 1) {
		int q = __builtin_ctzll(m);

		if (t->target[q] == ctx)
			s |= PR_PROC_BIT(q);
	}
	return s;
}

/* A new node whose step is never taken: its event zeroed all the same. */
PR_NO_TSAN static void ev_none(struct pr_tnode *nd)
{
	memset(&nd->ev, 0, sizeof(nd->ev));
}

/* Did the decision at @nd preempt the context that could have gone on? */
/*
 * A flush chosen while the running context could go on counts too: it
 * makes that context's stores visible early, a reordering against what
 * the context does next, and a bound that let such flushes go free spent
 * its budget on flush orders deep in the tree before any context switch
 * near its root.  A flush when no context can go on (it finished,
 * blocked, waits for its buffer) is free, as any choice there is.
 */
PR_NO_TSAN static int preempts(const struct pr_tree *t,
			       const struct pr_tnode *nd)
{
	(void)t;
	return nd->cur != PR_NO_PROC && nd->chosen != nd->cur;
}

int pr_tree_stale_wake;

/*
 * Node @nd's step is over: does it touch what the node's other versions
 * (older values its load may read) touched?  A version whose step
 * touches something else keeps the choice from sleeping (next_branch).
 */
PR_NO_TSAN void pr_tree_note_version(struct pr_tnode *nd)
{
	uint64_t f;

	if (nd->nver <= 1)
		return;
	f = pr_event_footprint(&nd->ev);
	if (nd->ver == 0) {
		nd->vsig = f;
		nd->vdiff = 0;
	} else if (f != nd->vsig) {
		nd->vdiff = 1;
	}
}

/*
 * Context @p's older-value choices in @cs (weak): how many, and the
 * first's index in *at.
 */
PR_NO_TSAN static int reads_of(const struct pr_choices *cs, int p, int *at)
{
	int n = 0;

	for (int i = 0; i < cs->n; i++) {
		if (pr_choice_code(&cs->c[i]) < PR_CHOICE_READ ||
		    cs->c[i].ctx != p)
			continue;
		if (!n++)
			*at = i;
	}
	return n;
}

/*
 * A node above the branch (d + 1 < prefix) takes the step it took last
 * time: the program is deterministic, and the enabled set is checked.
 * Everything else pr_tree_pick() does for such a node is the same on
 * every replay -- its event and step count were recorded, its older
 * values counted, its interrupts added to its backtrack set, when it was
 * new or the branch -- so this path only checks the choices and finds
 * the chosen one's index: nothing is written but the node's nver (the
 * same value).  Anything unusual (a flush code not numbered yet, a
 * mismatch: -1) goes the general way, which numbers it or reports the
 * divergence as before.
 */
PR_NO_TSAN static int replay_pick(struct pr_tree *t, const struct pr_choices *cs,
				  struct pr_tnode *nd)
{
	pr_procset en = 0;
	int want = nd->chosen, idx = -1, rat = -1, nr = 0, cur = PR_NO_PROC;

	/*
	 * pr_choice_code() and pr_event_proc() of each choice, unfolded;
	 * with no flush and no older value among them (sc: runtime/choices.c
	 * counts those in cs->mem and cs->reads), contexts and injections.
	 */
	if (!cs->mem && !cs->reads) {
		for (int i = 0; i < cs->n; i++) {
			const struct pr_choice *c = &cs->c[i];
			int p = c->inject < 0 ? c->ctx : PR_MAX_CTX + c->inject;

			en |= PR_PROC_BIT(p);
			if (p == want)
				idx = i;
		}
		goto check;
	}
	for (int i = 0; i < cs->n; i++) {
		const struct pr_choice *c = &cs->c[i];
		int p;

		if (c->read > 0) {
			if (c->ctx == want && !nr++)
				rat = i;
			continue;
		}
		if (c->mem >= 0) {
			uint8_t mp = t->mem_proc[c->ctx * PR_MEM_SLOTS + c->mem];

			if (!mp)
				return -1;
			p = mp - 1;
		} else {
			p = c->inject < 0 ? c->ctx : PR_MAX_CTX + c->inject;
		}
		en |= PR_PROC_BIT(p);
		if (p == want)
			idx = i;
	}
check:
	if (cs->current >= 0)
		cur = pr_event_proc(pr_choice_code(&cs->c[cs->current]));
	if (nd->enabled != en || nd->cur != cur)
		return -1;
	if (want >= PR_MAX_CTX)
		nr = 0;
	if (nd->ver >= 1 + nr)
		return -1;
	nd->nver = (uint8_t)(1 + nr);
	return nd->ver ? rat + nd->ver - 1 : idx;
}

/*
 * Replaying: how many steps from node @d on the chosen context simply
 * goes on -- the same context chosen where it was the one running, no
 * older value read -- before the branch node.  The runtime lets it take
 * them without asking (a budget), as it would any sampler's: it still
 * stops early where something changes what could run (a wake-up, an
 * exit, a sleep), and the next pick then finds its node from the steps
 * taken (cs->step: one step a node, as every pick grants one step
 * otherwise).  The nodes passed were checked when they were first run;
 * only the enabled set at each, the replay's check that the program is
 * deterministic, is not checked again there.  A replayed prefix is most
 * of a search's steps (84% on pc-add-lookup), and each was a decision.
 */
PR_NO_TSAN static int64_t replay_stretch(const struct pr_tree *t, size_t d)
{
	const struct pr_tnode *nd = &t->node[d];
	int p = nd->chosen;
	size_t k = d + 1;

	if (p >= PR_MAX_CTX || nd->nver != 1)
		return 1;
	while (k + 1 < t->prefix && t->node[k].chosen == p &&
	       t->node[k].cur == p && t->node[k].nver == 1)
		k++;
	return (int64_t)(k - d);
}

PR_NO_TSAN int pr_tree_pick(struct pr_tree *t, const struct pr_choices *cs,
			    int64_t *budget)
{
	int idx_of[PR_MAX_PROCS];
	int read_at = 0, nread, reads = 0;
	pr_procset en = 0;
	struct pr_tnode *nd;
	size_t d = t->pos;
	int cur = PR_NO_PROC, p;

	/* After a stretch (below): the steps it really took, maybe fewer. */
	if (t->stretch) {
		d = t->pos = (size_t)cs->step;
		t->stretch = 0;
	}
	if (d + 1 < t->prefix) {
		p = replay_pick(t, cs, &t->node[d]);
		if (p >= 0) {
			if (t->effects)
				pr_effects_track(0);
			*budget = replay_stretch(t, d);
			t->pos = d + (size_t)*budget;
			t->stretch = *budget > 1;
			return p;
		}
	}
	for (int i = 0; i < cs->n; i++) {
		int code = pr_choice_code(&cs->c[i]);

		if (code >= PR_CHOICE_READ) {
			reads = 1;	/* counted for the chosen only */
			continue;
		}
		p = pr_event_proc(code);
		if (code >= PR_CHOICE_MEM) {
			uint8_t *mp = &t->mem_proc[code - PR_CHOICE_MEM];

			if (!*mp) {
				p = PR_MAX_PROCS - 1 - t->mem_procs;
				if (p < PR_MAX_CTX + pr_nr_inject()) {
					snprintf(t->error, t->errlen,
						 "step %zu: too many store-buffer "
						 "slots in use for a systematic "
						 "search (%d injections leave room "
						 "for %d)", d, pr_nr_inject(),
						 PR_MAX_INJECT - pr_nr_inject());
					return -1;
				}
				*mp = (uint8_t)(p + 1);
				t->mem_procs++;
				t->memprocs |= PR_PROC_BIT(p);
			}
			p = *mp - 1;
		}
		t->code_of[p] = code;
		en |= PR_PROC_BIT(p);
		idx_of[p] = i;
		t->target[p] = cs->c[i].ctx;
	}
	if (cs->current >= 0)
		cur = pr_event_proc(pr_choice_code(&cs->c[cs->current]));
	/* Node d - 1 replayed (d - 1 < prefix - 1): its step is recorded. */
	if (d > 0 && d >= t->prefix) {
		struct pr_event *e = &t->node[d - 1].ev;

		pr_event_finish(e);
		pr_tree_note_version(&t->node[d - 1]);
		/* A context that cannot go on may have gone to sleep. */
		if (!(en & PR_PROC_BIT(e->proc)))
			pr_event_stopped(e);
	}
	if (d < t->prefix) {
		nd = &t->node[d];
		if (nd->enabled != en || nd->cur != cur) {
			snprintf(t->error, t->errlen,
				 "step %zu: the choices differ from the execution "
				 "this one replays (enabled %#llx, was %#llx): the "
				 "program is not deterministic", d,
				 (unsigned long long)en,
				 (unsigned long long)nd->enabled);
			return -1;
		}
		/* The branch: a new choice at the last top level is a leaf. */
		if (d + 1 == t->prefix && nd->top && nd->ntop + 1u == t->split &&
		    pr_tree_leaf_is_foreign(t)) {
			t->foreign = 1;
			t->pos = d + 1;
			return PR_PICK_ABANDON;
		}
	} else {
		if (pr_tree_grow((void **)&t->node, &t->cap, d + 1,
				 sizeof(*t->node))) {
			snprintf(t->error, t->errlen, "out of memory at step %zu", d);
			return -1;
		}
		nd = &t->node[d];
		/* Its event: pr_event_begin() below, or ev_none() if it has none. */
		memset(nd, 0, offsetof(struct pr_tnode, ev));
		nd->enabled = en;
		nd->cur = (uint8_t)cur;
		nd->chosen = PR_NO_PROC;
		nd->sleep_off = t->nsleepers;
		nd->pool_end = (uint32_t)t->npool;
		if (d > 0) {
			const struct pr_tnode *up = &t->node[d - 1];

			nd->preemptions = up->preemptions + (uint32_t)preempts(t, up);
			nd->ntop = (uint8_t)(up->ntop + up->top);
		}
		nd->top = t->shards && nd->ntop < t->split &&
			  (en & (en - 1)) != 0;
		t->n = d + 1;
		if (t->prefer) {	/* dpor_first's order */
			t->cs = cs;
			memcpy(t->idx_of, idx_of, sizeof(idx_of));
		}
		p = t->policy->first(t, d);
		nd = &t->node[d];	/* the policy may have grown arrays */
		if (p == PR_NO_PROC) {
			ev_none(nd);
			t->abandoned = 1;
			return PR_PICK_ABANDON;
		}
		if (nd->top && t->full_top)
			nd->backtrack = nd->enabled;
		nd->chosen = (uint8_t)p;
		nd->backtrack |= PR_PROC_BIT(p);
		nd->done |= PR_PROC_BIT(p);
		if (nd->top && nd->ntop + 1u == t->split && pr_tree_leaf_is_foreign(t)) {
			ev_none(nd);
			t->foreign = 1;
			t->pos = d + 1;
			return PR_PICK_ABANDON;
		}
	}
	/*
	 * Replaying: node d's step is the one the last execution recorded
	 * (the program is deterministic, and the enabled set was checked
	 * above), so it is not recorded again, and its effects are not
	 * collected (pr_effects_track(0) drops what the previous step left
	 * too; node[d].ev and the analysis's clocks for it stay valid,
	 * dpor_race.c).  Only the branch node prefix - 1 and the nodes
	 * after it record their steps.  Re-recording the replayed steps would be
	 * 13% of a bounded dpor search's instructions.
	 */
	if (d + 1 < t->prefix) {
		if (t->effects)
			pr_effects_track(0);
	} else {
		if (t->effects)
			pr_effects_track(1);
		pr_event_begin(&nd->ev, t->code_of[nd->chosen]);
		nd->ev.proc = nd->chosen;	/* a flush's number is the tree's */
	}
	/* The same on every replay of this node: the program is deterministic. */
	nread = reads && nd->chosen < PR_MAX_CTX ?
		reads_of(cs, nd->chosen, &read_at) : 0;
	nd->nver = (uint8_t)(1 + nread);
	if (nd->ver >= nd->nver) {
		snprintf(t->error, t->errlen, "step %zu: the older values a load "
			 "could read differ from the execution this one replays",
			 d);
		return -1;
	}
	/*
	 * A bounded search explores deliveries before a context's first step
	 * and wherever a switch is free too: later, the same delivery may
	 * cost a preemption the bound cannot pay.
	 */
	if (nd->ev.kind != PR_EV_START || t->bound >= 0)
		nd->backtrack |= pr_tree_interrupts_of(t, nd, nd->chosen);
	if (t->bound >= 0 && nd->cur == PR_NO_PROC)
		nd->backtrack |= nd->enabled & ~(PR_PROC_BIT(PR_MAX_CTX) - 1);
	t->pos++;
	*budget = 1;
	if (nd->ver)
		return read_at + nd->ver - 1;
	return idx_of[nd->chosen];
}

PR_NO_TSAN pr_procset pr_tree_allowed(struct pr_tree *t,
				      const struct pr_tnode *nd)
{
	if (t->bound < 0 || nd->cur == PR_NO_PROC ||
	    nd->preemptions < (uint32_t)t->bound)
		return nd->enabled;
	/* Early flushes are preemptions too (preempts()). */
	if (nd->enabled != PR_PROC_BIT(nd->cur))
		t->bound_cut = 1;
	return PR_PROC_BIT(nd->cur);
}
