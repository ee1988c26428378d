/* SPDX-License-Identifier: MIT */
/*
 * effects.c - a step's effects besides its announced access (effects.h).
 *
 * The buffer belongs to the step under way: sched_decide() hands it to the
 * strategy (through pr_effects_take) and empties it before the next step
 * starts.  Effects outside a context (setup, end-of-run checks) and in
 * stress mode are not recorded: no strategy decides there.
 */
#include "runtime/effects.h"
#include "runtime/internal.h"
#include "runtime/context.h"
#include "runtime/tsan.h"
#include "runtime/memhook.h"

#include <string.h>

int pr_effects_on;
int pr_effects_run;
unsigned long pr_effects_overflows;

static struct {
	int n;			/* recorded; PR_MAX_EFFECTS + 1: overflowed */
	int observe;		/* PR_EFF_OBSERVE reported: kept apart, so
				 * that an overflowed step still says it */
	struct pr_effect e[PR_MAX_EFFECTS];
	struct pr_effect tick, obs;	/* pr_effects_take_time's */
	uint32_t tfirst, tlast;
	struct pr_tickset from;
} eff = { .tfirst = PR_TICK_NONE, .tlast = PR_TICK_NONE };

/* Note location [obj, obj + size) in @at; a second one makes it "many". */
PR_NO_TSAN static void note_loc(struct pr_effect *at, const void *obj,
				size_t size, size_t many)
{
	if (!at->obj && !at->size) {
		at->obj = obj;
		at->size = size;
	} else if (at->obj != obj || at->size != size) {
		at->obj = NULL;
		at->size = many;
	}
}

PR_NO_TSAN void pr_effects_track(int on)
{
	pr_effects_on = on;
	eff.n = 0;
	eff.observe = 0;
	memset(&eff.tick, 0, sizeof(eff.tick));
	memset(&eff.obs, 0, sizeof(eff.obs));
	memset(&eff.from, 0, sizeof(eff.from));
	eff.tfirst = eff.tlast = PR_TICK_NONE;
}

PR_NO_TSAN void pr_effect_slow(const void *obj, size_t size, int kind,
				int bit1)
{
	if (pr_stress_on || pr_self() < 0)
		return;
	if (kind == PR_EFF_OBSERVE) {
		eff.observe = 1;
		note_loc(&eff.obs, obj, size, PR_EFF_MANY);
		return;
	}
	if (pr_get_mem_hooks())	/* tso, weak: buffers hold whole words */
		bit1 = 0;
	/* The same touch twice in one step says nothing new. */
	for (int i = 0; i < eff.n && i < PR_MAX_EFFECTS; i++)
		if (eff.e[i].obj == obj && eff.e[i].size == size &&
		    eff.e[i].kind == kind && eff.e[i].bit1 == bit1)
			return;
	if (eff.n < PR_MAX_EFFECTS)
		eff.e[eff.n] = (struct pr_effect){ obj, size, kind, bit1 };
	if (eff.n <= PR_MAX_EFFECTS)
		eff.n++;
}

PR_NO_TSAN int pr_effects_take(struct pr_effect *out)
{
	int n = eff.n;

	eff.n = 0;
	if (n > PR_MAX_EFFECTS) {
		pr_effects_overflows++;
		return -1;
	}
	memcpy(out, eff.e, (size_t)n * sizeof(*out));
	return n;
}

PR_NO_TSAN void pr_effect_tick_slow(const void *clock, size_t csize,
				     const void *obj, size_t size, uint32_t n)
{
	if (pr_stress_on || pr_self() < 0)
		return;
	pr_effect_slow(clock, csize, PR_EFF_TICK, 0);
	if (obj)
		note_loc(&eff.tick, obj, size, PR_EFF_MANY);
	if (eff.tfirst == PR_TICK_NONE)
		eff.tfirst = n;
	eff.tlast = n;
}

PR_NO_TSAN void pr_effect_observe_slow(const void *obj, size_t size,
				       const struct pr_tickset *from)
{
	if (pr_stress_on || pr_self() < 0)
		return;
	pr_effect_slow(obj, size, PR_EFF_OBSERVE, 0);
	pr_tickset_or(&eff.from, from);
}

PR_NO_TSAN int pr_effects_take_time(struct pr_effect_time *out)
{
	int o = eff.observe;

	out->tobj = eff.tick.obj;
	out->tsize = eff.tick.size;
	out->tfirst = eff.tfirst;
	out->tlast = eff.tlast;
	out->oobj = eff.obs.obj;
	out->osize = eff.obs.size;
	out->from = eff.from;
	eff.observe = 0;
	memset(&eff.tick, 0, sizeof(eff.tick));
	memset(&eff.obs, 0, sizeof(eff.obs));
	memset(&eff.from, 0, sizeof(eff.from));
	eff.tfirst = eff.tlast = PR_TICK_NONE;
	return o;
}
