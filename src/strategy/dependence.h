/* SPDX-License-Identifier: MIT */
/*
 * dependence.h - the steps a systematic strategy records, and when two of
 * them do not commute.
 *
 * An event is one step of one process: a context's step from the yield
 * point where it stopped to the next one, or the delivery of an injected
 * interrupt.  Processes are numbered like choice codes: contexts 0 to
 * PR_MAX_CTX - 1, then injections (pr_event_proc).
 */
#ifndef PAGERACE_STRATEGY_DEPENDENCE_H
#define PAGERACE_STRATEGY_DEPENDENCE_H

#include <stdint.h>
#include "runtime/context.h"
#include "runtime/effects.h"
#include "strategy/strategy.h"

#define PR_MAX_PROCS	(PR_MAX_CTX + PR_MAX_INJECT)
typedef uint64_t pr_procset;		/* one bit per process */
#define PR_PROC_BIT(p)	((pr_procset)1 << (p))
_Static_assert(PR_MAX_PROCS <= 64, "a pr_procset has 64 bits");

/* Kinds beyond enum pr_kind that only events have. */
#define PR_EV_FIRE	(PR_K_NR + 0)	/* an injection's delivery */
#define PR_EV_START	(PR_K_NR + 1)	/* a context's first step */

enum {
	PR_EV_ALL = 1,		/* touched more than it could record: depends
				 * on every other step */
	PR_EV_WROTE = 2,	/* wrote shared state (wakes spin-waiters) */
	PR_EV_FLUSH = 4,	/* a store-buffer flush (rule 6) */
	PR_EV_BLOCKS = 8,	/* its context went to sleep on @wq at its
				 * end (rule 3) */
	PR_EV_WDATA = 16,	/* its access writes @obj (a store, a flush, an
				 * RMW that did not report pr_rmw_unwritten):
				 * PR_EV_WROTE less the RMWs that only read */
	PR_EV_SIG = 32,		/* rsig and wsig are set (pr_event_finish) */
	PR_EV_TICK = 64,	/* bumped a counter (PR_EFF_TICK): commutes
				 * with another bump in the race analysis,
				 * unless an observer follows (dpor_reverse.c);
				 * nor in sleep sets off the branches it asks
				 * for (pr_dependent_sleep) */
	PR_EV_OBS = 128,	/* observed the bumps' order (PR_EFF_OBSERVE) */
};

struct pr_event {
	uint8_t proc;
	uint8_t kind;		/* the announced access, or PR_EV_* */
	uint8_t ctx;		/* the context it runs on (an injection's
				 * target) */
	uint8_t flags;		/* PR_EV_* flags */
	uint8_t neff;
	uint8_t bit1;		/* an atomic bit operation or test_bit on
				 * bit bit1 - 1 of the word at obj (its site's
				 * bit1, under sc only); 0: the whole range */
	uint32_t size;		/* bytes at obj; 0: unknown, one byte */
	uint32_t order;		/* a flush's order (runtime/memhook.h) */
	const void *obj;
	const void *wq;		/* PR_EV_BLOCKS: the wait queue */
	/*
	 * PR_EV_TICK: the location its bump of the memory time wrote
	 * (effects.h, pr_effect_tick): tobj NULL, tsize 0: none (a floor
	 * read); tobj NULL, tsize PR_EV_MANY: more than one.  PR_EV_OBS: the
	 * location it observed; oobj NULL: more than one.  tfirst..tlast:
	 * the ordinals of its bumps (PR_TICK_NONE: none); from: the bumps
	 * the observer's floor took its time from.
	 */
	const void *tobj, *oobj;
	uint32_t tsize, osize;
	uint32_t tfirst, tlast;
	struct pr_tickset from;
	/*
	 * PR_EV_SIG: the 64-byte lines the step reads (rsig) and writes
	 * (wsig), access and effects, one hashed bit a line (every bit for
	 * a range of more than 8 lines).  Two steps whose signatures do not
	 * meet (no write of one meets a read or write of the other) touch
	 * no common byte that either writes: rule 1 holds them independent
	 * without comparing their ranges pairwise.
	 */
	uint64_t rsig, wsig;
	/*
	 * wsig split in two for pr_dependent's own test: psig, the lines
	 * it writes plainly; tsig, the lines of the counters it bumps
	 * (PR_EFF_TICK), which meet a plain read or write of the line but
	 * not another bump -- every write to memory under weak bumps the
	 * one clock, so in wsig any two such steps meet.
	 */
	uint64_t psig, tsig;
	struct pr_effect eff[PR_MAX_EFFECTS];
};

#define PR_EV_MANY	UINT32_MAX

/*
 * Contexts and injections.  A store-buffer flush (memory models,
 * PR_CHOICE_MEM codes) is a process of its own too -- slot s of context
 * c's buffer, whose steps are the stores that pass through that slot, in
 * program order -- but its number is given by the search tree (tree.c),
 * counting down from the top of the injections' range in the order the
 * slots are first met; -1 here.
 */
static inline int pr_event_proc(int code)
{
	if (code >= PR_CHOICE_READ)	/* a context's step, reading older */
		return (code - PR_CHOICE_READ) / PR_MEM_READS;
	if (code >= PR_CHOICE_MEM)
		return -1;
	return code >= PR_CHOICE_EVENT ? PR_MAX_CTX + code - PR_CHOICE_EVENT
				       : code;
}

/* Contexts and injections only: a flush's process has no unique code. */
static inline int pr_proc_code(int proc)
{
	return proc >= PR_MAX_CTX ? PR_CHOICE_EVENT + proc - PR_MAX_CTX : proc;
}

/*
 * Fill @e with what choice @code is about to do (its pending access),
 * from the runtime; the effects are added when the step is over
 * (pr_event_finish).
 */
void pr_event_begin(struct pr_event *e, int code);
void pr_event_finish(struct pr_event *e);
/*
 * A hash of what finished step @e touches -- its access, effects and
 * the flags dependence reads, not PR_EV_OBS: two steps with the same
 * footprint are dependent with the same steps.
 */
uint64_t pr_event_footprint(const struct pr_event *e);
/*
 * The step of context @e->proc is over and the context cannot run now:
 * note whether it went to sleep (PR_EV_BLOCKS).
 */
void pr_event_stopped(struct pr_event *e);

/*
 * Set @e's line signatures (rsig, wsig, PR_EV_SIG) from its access and
 * effects; pr_event_finish does it.  An event whose access or effects
 * change afterwards must not keep PR_EV_SIG.
 */
void pr_event_sign(struct pr_event *e);

/* Does step @e wake the contexts sleeping on @waitq (rule 3)? */
int pr_event_wakes(const struct pr_event *e, const void *waitq);

/* Do @a and @b (of different processes) fail to commute? */
int pr_dependent_slow(const struct pr_event *a, const struct pr_event *b);

/*
 * Is @f the flush of the store that step @s put in its CPU's buffer
 * (rule 6: both write the slot, which no other store takes before @f
 * empties it)?  @s before @f in the execution.
 */
int pr_flush_of(const struct pr_event *s, const struct pr_event *f);

/*
 * Can the line signatures alone show step @e independent of another step
 * for which this holds too?  Only if @e has them (pr_event_finish), and
 * if none of rules 2-6 can make it dependent whatever it touches: each
 * of those needs one of the two steps to have overflowed its record, to
 * be a flush, to resume a spin or a sleeping wait, to go to sleep at its
 * end, or to deliver an interrupt (pr_dependent_slow's checks before the
 * signatures; dpor_race.c's spin and sleep cases are about such steps
 * too).  Between two steps that pass, dependence is rule 1 alone, and
 * the signatures hold every line of every range rule 1 compares,
 * pr_dependent's plain path included: its accesses are access_of()'s
 * ranges, and PR_EV_WDATA is set exactly on the kinds access_of()
 * calls writes (tests/strategy_sig).
 */
static inline int pr_event_sig_only(const struct pr_event *e)
{
	return (e->flags & (PR_EV_SIG | PR_EV_ALL | PR_EV_FLUSH |
			    PR_EV_BLOCKS)) == PR_EV_SIG &&
	       e->kind != PR_K_SPIN && e->kind != PR_K_BLOCK &&
	       e->kind != PR_EV_FIRE;
}

/* Do the signatures meet: a line one writes that the other touches? */
static inline int pr_sig_meet(uint64_t ar, uint64_t aw, uint64_t br,
			      uint64_t bw)
{
	return ((aw & (br | bw)) | (bw & ar)) != 0;
}

/*
 * Rule 1's exception: two single-bit touches (bit1: bit + 1, 0 none) of
 * different bits of the same word commute (dependence.c).
 */
static inline int pr_bits_apart(const void *xo, size_t xs, unsigned xb,
				 const void *yo, size_t ys, unsigned yb)
{
	return xb && yb && xb != yb && xo == yo && xs == ys;
}

/*
 * The common case inline: two plain accesses with no effects (no spin or
 * sleep resumption, no interrupt delivery, nothing overflowed).
 */
#define PR_EV_PLAIN(e)	((e)->neff == 0 &&				\
			 !((e)->flags & (PR_EV_ALL | PR_EV_FLUSH |	\
					 PR_EV_BLOCKS)) &&		\
			 (e)->kind != PR_K_SPIN && (e)->kind != PR_K_BLOCK &&	\
			 (e)->kind != PR_EV_FIRE)
static inline int pr_dependent(const struct pr_event *a,
			       const struct pr_event *b)
{
	uintptr_t xa, ya;

	if (!PR_EV_PLAIN(a) || !PR_EV_PLAIN(b))
		return pr_dependent_slow(a, b);
	if (!a->obj || !b->obj || !((a->flags | b->flags) & PR_EV_WDATA))
		return 0;
	/* Accesses that touch memory but write nothing: loads. */
	if (a->kind == PR_K_YIELD || a->kind == PR_K_FENCE ||
	    a->kind == PR_K_WAIT || a->kind == PR_EV_START ||
	    b->kind == PR_K_YIELD || b->kind == PR_K_FENCE ||
	    b->kind == PR_K_WAIT || b->kind == PR_EV_START)
		return 0;
	/* Rule 1: two bit operations on different bits of one word. */
	if (pr_bits_apart(a->obj, a->size, a->bit1, b->obj, b->size, b->bit1))
		return 0;
	xa = (uintptr_t)a->obj;
	ya = (uintptr_t)b->obj;
	return xa < ya + (b->size ? b->size : 1) &&
	       ya < xa + (a->size ? a->size : 1);
}

/*
 * Dependence for sleep sets on the branches where an observer needs the
 * order of two bumps (dpor_reverse.c, tickwake; everywhere when bounded):
 * pr_dependent(), and two bumps of a counter (PR_EV_TICK) too -- a
 * sleeping bump wakes at the next bump.
 */
static inline int pr_dependent_sleep(const struct pr_event *a,
				     const struct pr_event *b)
{
	return ((a->flags & b->flags) & PR_EV_TICK) || pr_dependent(a, b);
}

#endif /* PAGERACE_STRATEGY_DEPENDENCE_H */
