/* SPDX-License-Identifier: MIT */
/*
 * graph.h - a litmus test under a memory model given as a consistency
 * predicate (memory/graph.h): every candidate execution graph of the
 * test, each checked once.
 *
 * graph_eval.c runs each process's body alone, a load returning any
 * value its location may hold (a guess), and records the path: its
 * events in program order, their dependencies, the final registers.
 * The values a location may hold grow from its initial value by what
 * the paths store, round after round; a value that needs more rounds
 * than the test has stores is a chain no execution can build.
 * graph_enum.c takes one path per process, and for each location every
 * coherence order of its writes and every write each read may read
 * (same value), keeps the per-location choices that are coherent, and
 * checks the whole graph against the model: each consistent graph is
 * one execution, its final state recorded.
 */
#ifndef PAGERACE_LITMUS_GRAPH_H
#define PAGERACE_LITMUS_GRAPH_H

#include "litmus/internal.h"
#include "memory/graph.h"

#define LG_MAX_EV	48	/* events of one process's path */
#define LG_MAX_VALS	32	/* values one location may hold */
#define LG_MAX_PATHS	(1 << 16)	/* paths of one process */
#define LG_MAX_CHOICES	64	/* guesses along one path */
#define LG_MAX_SIGS	(1 << 20)	/* graph signatures kept */

struct lg_path {
	int nev;
	struct gev ev[LG_MAX_EV];	/* deps and rmw: local indices */
	intptr_t regs[LIT_MAX_REGS];
};

/*
 * The order of a domain's values: numbers by value, then the locations'
 * addresses by location (so that no order depends on where the
 * locations are in memory).
 */
int lg_value_cmp(const struct litmus *l, intptr_t a, intptr_t b);

struct lg_domain {
	intptr_t v[LG_MAX_VALS];	/* sorted */
	int n;
};

struct lg_paths {
	struct lg_path *p;
	size_t n, cap;
	int most_stores;	/* of any walk, an unknown value's too */
};

/*
 * graph_eval.c: every path of @proc's body with loads guessing from
 * @dom (one domain a location).  0, or -1 with @err filled (a path
 * with too many events or guesses, too many paths).  Paths that fail
 * (a bad pointer, a division by zero) are dropped: no execution has
 * them.  Every value a walk stores, on a path kept or dropped, goes
 * into @written (its location's; n LG_MAX_VALS + 1 when one is full):
 * a store before the guess that fails is one other guesses keep.
 */
int lg_paths_of(const struct litmus *l, int proc,
		const struct lg_domain *dom, struct lg_paths *out,
		struct lg_domain *written, char *err, size_t errlen);

/* The location of address @a, -1 if it is none. */
int lg_loc_of(const struct litmus *l, intptr_t a);

/* What one search did (graph_enum.c). */
struct lg_stats {
	uint64_t executions;	/* consistent graphs */
	uint64_t candidates;	/* graphs checked against the model */
	uint64_t combinations;	/* path combinations tried */
	uint64_t stuck;		/* combinations with no way for a lock
				 * to be taken (a deadlock) */
	uint64_t races;		/* consistent graphs flagged data-race */
	uint64_t paths;		/* paths over every process */
	int rounds;		/* rounds of value growth */
	uint64_t repeats;	/* consistent graphs met before (0: each
				 * explored once; checked up to
				 * LG_MAX_SIGS executions) */
	int repeats_checked;	/* every execution's graph was compared */
};

/*
 * Every execution of @l that @model (enum graph_model) allows; final
 * states recorded (outcome.c) as the runtime's runs do.  0, or -1 with
 * @err filled when the test is beyond the engine's limits.
 * @interrupted: polled between combinations; nonzero stops the search
 * (*@complete 0).
 */
int lg_search(struct litmus *l, int model, struct lg_stats *st,
	      int (*interrupted)(void), int *complete, char *err,
	      size_t errlen);

#endif /* PAGERACE_LITMUS_GRAPH_H */
