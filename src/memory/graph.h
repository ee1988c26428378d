/* SPDX-License-Identifier: MIT */
/*
 * graph.h - execution graphs and the memory models as consistency
 * predicates over them.
 *
 * An execution graph is the set of events one execution performed --
 * loads, stores, the halves of read-modify-writes, fences, lock events,
 * RCU and SRCU events -- with program order (po), reads-from (rf) and
 * coherence order (co).  A memory model is a predicate: does it allow
 * this graph?  sc, tso and lkmm each have one (graph_sc.c, graph_tso.c,
 * lkmm.c), over the same events and the same relation algebra below.
 *
 * Events are numbered 0 .. n-1 in the order they were added: the
 * initial writes first (one per location, proc GE_INIT), then each
 * process's events in program order.  A relation is a bit matrix over
 * them (GRAPH_MAX events: one 64-bit word a row), so composing,
 * closing and testing acyclicity are word operations.
 */
#ifndef PAGERACE_MEMORY_GRAPH_H
#define PAGERACE_MEMORY_GRAPH_H

#include <stdint.h>
#include <string.h>

#define GRAPH_MAX	64	/* events in one graph */
#define GE_INIT		0xff	/* the proc of an initial write */

enum ge_kind {
	GE_R = 0,	/* a load (also an RMW's read) */
	GE_W,		/* a store (also an RMW's write, an initial write) */
	GE_F,		/* a fence: ge_fence in .sub */
	GE_LKR,		/* spin_lock's (or a successful trylock's) read */
	GE_LKW,		/* ... and its write */
	GE_UL,		/* spin_unlock */
	GE_LF,		/* a failed spin_trylock */
	GE_RL,		/* spin_is_locked() that saw it locked */
	GE_RU,		/* spin_is_locked() that saw it unlocked */
	GE_SRCU,	/* srcu_read_lock/unlock, synchronize_srcu: ge_srcu */
};

/* Annotations of an access (linux-kernel.bell's Accesses). */
enum ge_ann {
	GA_PLAIN = 0,	/* a C access: not Marked */
	GA_ONCE,	/* READ_ONCE, WRITE_ONCE, relaxed atomics */
	GA_ACQUIRE,
	GA_RELEASE,
	GA_NORETURN,	/* the read of an RMW that returns no value */
};

enum ge_fence {
	GF_MB = 0, GF_RMB, GF_WMB, GF_BARRIER, GF_RCU_LOCK, GF_RCU_UNLOCK,
	GF_SYNC_RCU, GF_BEFORE_ATOMIC, GF_AFTER_ATOMIC, GF_AFTER_SPINLOCK,
	GF_AFTER_UNLOCK_LOCK,
};

enum ge_srcu { GS_LOCK = 0, GS_UNLOCK, GS_SYNC };

struct gev {
	uint8_t kind;		/* enum ge_kind */
	uint8_t ann;		/* enum ge_ann (accesses) */
	uint8_t sub;		/* enum ge_fence / ge_srcu */
	uint8_t proc;		/* process, GE_INIT for an initial write */
	int16_t loc;		/* location, -1 for a fence */
	int16_t rmw;		/* a read's write in one RMW (or -1) */
	intptr_t val;		/* the value read or written */
	uint64_t addr, data, ctrl;	/* dependencies: events this one's
					 * address, value, control flow
					 * came from (loads, by index) */
};

/* A relation: bit j of row i says (i, j). */
struct rel {
	uint64_t r[GRAPH_MAX];
};

struct graph {
	int n;
	struct gev ev[GRAPH_MAX];
	int rf[GRAPH_MAX];		/* the write each read-like event reads
					 * (GE_R, GE_LF, GE_RL, GE_RU), else -1 */
	struct rel co;			/* coherence: a strict total order of
					 * each location's writes (GE_W,
					 * GE_LKW, GE_UL), transitive */
	uint64_t gen;			/* 0, or a number that changes
					 * whenever n or ev do: a model may
					 * keep what follows from the events
					 * alone while it stays (rf and co
					 * may change) */
};

/* ---- the relation algebra ---- */

#define REL_BIT(j)	(UINT64_C(1) << (j))

static inline void rel_zero(struct rel *a, int n)
{
	memset(a->r, 0, sizeof(a->r[0]) * (size_t)n);
}

static inline int rel_has(const struct rel *a, int i, int j)
{
	return (a->r[i] >> j) & 1;
}

static inline void rel_add(struct rel *a, int i, int j)
{
	a->r[i] |= REL_BIT(j);
}

/* c = a | b (c may be a or b) */
static inline void rel_or(struct rel *c, const struct rel *a,
			  const struct rel *b, int n)
{
	for (int i = 0; i < n; i++)
		c->r[i] = a->r[i] | b->r[i];
}

static inline void rel_and(struct rel *c, const struct rel *a,
			   const struct rel *b, int n)
{
	for (int i = 0; i < n; i++)
		c->r[i] = a->r[i] & b->r[i];
}

/* c = a \ b */
static inline void rel_minus(struct rel *c, const struct rel *a,
			     const struct rel *b, int n)
{
	for (int i = 0; i < n; i++)
		c->r[i] = a->r[i] & ~b->r[i];
}

/* c = a ; b (c distinct from a and b) */
static inline void rel_seq(struct rel *c, const struct rel *a,
			   const struct rel *b, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t row = a->r[i], out = 0;

		while (row) {
			int j = __builtin_ctzll(row);

			row &= row - 1;
			out |= b->r[j];
		}
		c->r[i] = out;
	}
}

/* [s] ; a ; [t]: keep the pairs from set s to set t (c may be a) */
static inline void rel_restrict(struct rel *c, const struct rel *a,
				uint64_t s, uint64_t t, int n)
{
	for (int i = 0; i < n; i++)
		c->r[i] = (s >> i) & 1 ? a->r[i] & t : 0;
}

/* c = a^-1 (c distinct from a) */
static inline void rel_inverse(struct rel *c, const struct rel *a, int n)
{
	rel_zero(c, n);
	for (int i = 0; i < n; i++) {
		uint64_t row = a->r[i];

		while (row) {
			int j = __builtin_ctzll(row);

			row &= row - 1;
			c->r[j] |= REL_BIT(i);
		}
	}
}

/* a = a+ (Warshall, in place) */
static inline void rel_plus(struct rel *a, int n)
{
	for (int k = 0; k < n; k++)
		for (int i = 0; i < n; i++)
			if ((a->r[i] >> k) & 1)
				a->r[i] |= a->r[k];
}

/* a = a* */
static inline void rel_star(struct rel *a, int n)
{
	rel_plus(a, n);
	for (int i = 0; i < n; i++)
		a->r[i] |= REL_BIT(i);
}

static inline int rel_irreflexive(const struct rel *a, int n)
{
	for (int i = 0; i < n; i++)
		if ((a->r[i] >> i) & 1)
			return 0;
	return 1;
}

static inline int rel_empty(const struct rel *a, int n)
{
	for (int i = 0; i < n; i++)
		if (a->r[i])
			return 0;
	return 1;
}

/* Is a acyclic?  (Its transitive closure irreflexive; a is kept.) */
static inline int rel_acyclic(const struct rel *a, int n)
{
	struct rel t = *a;

	rel_plus(&t, n);
	return rel_irreflexive(&t, n);
}

/* ---- sets and base relations of a graph (graph.c) ---- */

/* The events of kind @kind (a bit each). */
uint64_t graph_kind(const struct graph *g, int kind);
/* Reads: GE_R, GE_LKR, GE_LF, GE_RL, GE_RU.  Writes: GE_W, GE_LKW, GE_UL. */
uint64_t graph_reads(const struct graph *g);
uint64_t graph_writes(const struct graph *g);
/* Fences of kind @f. */
uint64_t graph_fences(const struct graph *g, int f);

/* po: same process, earlier event first (initial writes: none). */
void graph_po(const struct graph *g, struct rel *po);
/* loc: both events on one location; int: both of one process. */
void graph_loc(const struct graph *g, struct rel *loc);
void graph_int(const struct graph *g, struct rel *in);
/* rf from g->rf, fr = rf^-1 ; co. */
void graph_rf(const struct graph *g, struct rel *rf);
void graph_fr(const struct graph *g, const struct rel *rf, struct rel *fr);
/* rmw: each RMW's read to its write. */
void graph_rmw(const struct graph *g, struct rel *rmw);

/* ---- the models ---- */

enum graph_model { GRAPH_SC = 0, GRAPH_TSO, GRAPH_LKMM };

/*
 * Flags a consistent execution may raise (linux-kernel.cat's flags): a
 * data race between plain accesses, a bad SRCU nesting.  Flags never
 * make an execution inconsistent.
 */
enum { GRAPH_FLAG_DATARACE = 1, GRAPH_FLAG_BAD_NESTING = 2 };

/*
 * Does @model allow @g, a graph whose co and rf are coherent and atomic
 * (linux-kernel.cat's "coherence" and "atomic", the same under every
 * model; the search builds only such graphs, litmus/graph_loc.c)?  sc
 * then asks for one total order, tso for x86-TSO's, lkmm for
 * linux-kernel.cat's other axioms.  @flags, when not NULL, gets the
 * flags a consistent graph raises (lkmm only).  A new model is one
 * more case here and in enum graph_model.
 */
int graph_allows(const struct graph *g, int model, int *flags);

int graph_sc(const struct graph *g);
int graph_tso(const struct graph *g);
int graph_lkmm(const struct graph *g, int *flags);

#endif /* PAGERACE_MEMORY_GRAPH_H */
