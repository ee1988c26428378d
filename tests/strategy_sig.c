/* SPDX-License-Identifier: MIT */
/*
 * strategy_sig.c - the line signatures of dependence.h (rsig, wsig) only
 * decide what comparing the byte ranges would: on random pairs of steps
 * (mostly loads, stores, RMWs, plain yields, some of every other kind,
 * sleepers, flushes and overflows, with up to 8 read, write and wake-up
 * effects of 1-600 bytes over two buffers), pr_dependent gives the same
 * answer with the signatures set as without them -- rules 2-6 included,
 * which pr_event_sig_only() keeps out of the signatures' shortcut -- and
 * the signatures alone decide a share of the pairs.
 *
 * Planted: a signature that leaves out a written range's lines (an
 * unsound one) must change some answer -- the check above would catch a
 * signature that misses lines -- and so must one whose bumps of a
 * counter (PR_EFF_TICK: tsig, apart so that two bumps do not meet) meet
 * no plain read of it.
 */
#include "strategy/dependence.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static unsigned char buf[2][4096];
static uint64_t rng = 0x2545f4914f6cdd1dull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void range(const void **obj, size_t *size)
{
	unsigned sz = 1 + (rnd(4) ? rnd(16) : rnd(600));

	*obj = &buf[rnd(2)][rnd(sizeof(buf[0]) - sz)];
	*size = sz;
}

/* A wait queue: one of two words, so that wake-ups meet sleepers. */
static const void *queue(void)
{
	return &buf[1][8 * rnd(2)];
}

/*
 * Mostly loads, stores, RMWs and plain yields; one step in four of any
 * other kind (rule 2-6 material: spin and sleep resumptions, sleepers,
 * deliveries, flushes, overflows), which pr_event_sig_only() must keep
 * out of the signatures' shortcut.
 */
static struct pr_event random_event(int proc)
{
	static const int kinds[] = { PR_K_LOAD, PR_K_STORE, PR_K_RMW,
				     PR_K_YIELD };
	static const int other[] = { PR_K_LOCK, PR_K_UNLOCK, PR_K_FENCE,
				     PR_K_ACQUIRE, PR_K_RELEASE, PR_K_SPIN,
				     PR_K_BLOCK, PR_EV_FIRE, PR_EV_START };
	struct pr_event e;
	size_t sz;

	memset(&e, 0, sizeof(e));
	e.proc = (uint8_t)proc;
	e.ctx = (uint8_t)rnd(2);
	e.kind = (uint8_t)(rnd(4) ? kinds[rnd(4)] : other[rnd(9)]);
	range(&e.obj, &sz);
	e.size = (uint32_t)sz;
	if (e.kind == PR_K_BLOCK)
		e.obj = queue();
	if (PR_KIND_WRITES(e.kind))
		e.flags |= PR_EV_WROTE | PR_EV_WDATA;
	else if (!rnd(8))
		e.flags |= PR_EV_WROTE;		/* a failed cmpxchg, say */
	if (!rnd(10)) {
		e.flags |= PR_EV_BLOCKS;
		e.wq = queue();
	}
	if (!rnd(10)) {
		e.kind = PR_K_STORE;
		e.flags |= PR_EV_WROTE | PR_EV_WDATA | PR_EV_FLUSH;
		e.order = rnd(3);
	}
	e.neff = (uint8_t)rnd(PR_MAX_EFFECTS + 1);
	for (int i = 0; i < e.neff; i++) {
		range(&e.eff[i].obj, &e.eff[i].size);
		e.eff[i].kind = rnd(5) ? (rnd(2) ? PR_EFF_READ : PR_EFF_WRITE)
				       : rnd(2) ? PR_EFF_WAKE : PR_EFF_TICK;
		if (e.eff[i].kind == PR_EFF_WAKE)
			e.eff[i].obj = queue();
	}
	if (!rnd(50))
		e.flags |= PR_EV_ALL;
	return e;
}

int main(void)
{
	const int pairs = 200000;
	int differ = 0, decided = 0, dep = 0, planted = 0, naive = 0;
	int tplanted = 0;

	plan(5);
	for (int n = 0; n < pairs; n++) {
		struct pr_event a = random_event(0), b = random_event(1), c;
		int plain = pr_dependent(&a, &b), with;

		pr_event_sign(&a);
		pr_event_sign(&b);
		with = pr_dependent(&a, &b);
		differ += with != plain || pr_dependent(&b, &a) != plain;
		dep += plain;
		decided += !((a.wsig & (b.rsig | b.wsig)) | (b.wsig & a.rsig));
		/* Planted: the shortcut for every step, not sig_only's. */
		naive += plain && !pr_sig_meet(a.rsig, a.wsig, b.rsig, b.wsig);
		/* Planted: a's bumped lines meet nothing. */
		c = a;
		c.tsig = 0;
		c.wsig = c.psig;
		tplanted += pr_dependent(&c, &b) != plain;
		/* Planted: a's written lines left out. */
		a.wsig = a.psig = a.tsig = 0;
		planted += pr_dependent(&a, &b) != plain;
	}
	ok(differ == 0, "signatures change no answer (%d of %d pairs differ; "
	   "%d dependent)", differ, pairs, dep);
	ok(decided > pairs / 20, "signatures alone decide %d of %d pairs",
	   decided, pairs);
	ok(planted > 0, "planted: a signature without the written lines "
	   "changes %d answers", planted);
	ok(tplanted > 0, "planted: bumps that meet no read of their counter "
	   "change %d answers", tplanted);
	ok(naive > 0, "planted: the signatures' shortcut taken for steps of "
	   "every kind changes %d answers", naive);
	return done_testing();
}
