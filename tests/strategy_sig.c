/* SPDX-License-Identifier: MIT */
/*
 * strategy_sig.c - the line signatures of dependence.h (rsig, wsig) only
 * decide what comparing the byte ranges would: on random pairs of steps
 * (loads, stores, RMWs, plain yields, with up to 8 read, write and
 * wake-up effects of 1-600 bytes over two buffers), pr_dependent gives
 * the same answer with the signatures set as without them, and the
 * signatures alone decide a share of the pairs.
 *
 * Planted: a signature that leaves out a written range's lines (an
 * unsound one) must change some answer -- the check above would catch a
 * signature that misses lines.
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

static struct pr_event random_event(int proc)
{
	static const int kinds[] = { PR_K_LOAD, PR_K_STORE, PR_K_RMW,
				     PR_K_YIELD };
	struct pr_event e;
	size_t sz;

	memset(&e, 0, sizeof(e));
	e.proc = e.ctx = (uint8_t)proc;
	e.kind = (uint8_t)kinds[rnd(4)];
	range(&e.obj, &sz);
	e.size = (uint32_t)sz;
	if (PR_KIND_WRITES(e.kind))
		e.flags |= PR_EV_WROTE | PR_EV_WDATA;
	e.neff = (uint8_t)rnd(PR_MAX_EFFECTS + 1);
	for (int i = 0; i < e.neff; i++) {
		range(&e.eff[i].obj, &e.eff[i].size);
		e.eff[i].kind = rnd(5) ? (rnd(2) ? PR_EFF_READ : PR_EFF_WRITE)
				       : PR_EFF_WAKE;
	}
	return e;
}

int main(void)
{
	const int pairs = 200000;
	int differ = 0, decided = 0, dep = 0, planted = 0;

	plan(3);
	for (int n = 0; n < pairs; n++) {
		struct pr_event a = random_event(0), b = random_event(1);
		int plain = pr_dependent(&a, &b), with;

		pr_event_sign(&a);
		pr_event_sign(&b);
		with = pr_dependent(&a, &b);
		differ += with != plain || pr_dependent(&b, &a) != plain;
		dep += plain;
		decided += !((a.wsig & (b.rsig | b.wsig)) | (b.wsig & a.rsig));
		/* Planted: a's written lines left out. */
		a.wsig = 0;
		planted += pr_dependent(&a, &b) != plain;
	}
	ok(differ == 0, "signatures change no answer (%d of %d pairs differ; "
	   "%d dependent)", differ, pairs, dep);
	ok(decided > pairs / 20, "signatures alone decide %d of %d pairs",
	   decided, pairs);
	ok(planted > 0, "planted: a signature without the written lines "
	   "changes %d answers", planted);
	return done_testing();
}
