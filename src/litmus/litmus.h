/* SPDX-License-Identifier: MIT */
/*
 * litmus.h - herd7's C litmus dialect (the Linux-kernel memory model's
 * tests, tools/memory-model/litmus-tests and the paulmckrcu/litmus
 * collection): a parser, an interpreter that runs each P<n> as a context
 * on pagerace's own kernel primitives (kernel/: READ_ONCE, RCU,
 * spinlocks, atomics), and the set of final states the runs reached,
 * checked against the test's condition and its "Result:" annotation.
 *
 * A parsed test is a pr_program: setup spawns one context per process,
 * finish records the run's final state in the outcome set and fails the
 * run when the state contradicts the annotation (a "Never" condition
 * met, an "Always" condition missed), so the trace of such a run replays
 * and explains itself like any other failure.
 *
 * Errors are "FILE:LINE:COL: error: MESSAGE" (unsupported constructs say
 * "unsupported"), never a crash.
 */
#ifndef PAGERACE_LITMUS_H
#define PAGERACE_LITMUS_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/run.h"

#define LIT_MAX_FILE	(1u << 20)

/* The first error found: where and what, and the offending line. */
struct lit_error {
	char file[256];
	int line, col;		/* 1-based; 0: no position */
	char msg[256];
	char text[256];
	char construct[64];	/* unsupported construct's name, or "" */
};

/* "FILE:LINE:COL: error: MSG", the line and a caret. */
void lit_error_format(const struct lit_error *e, char *buf, size_t len);

/* The header's "Result:" line (herd7's verdict under LKMM). */
enum lit_expect {
	LIT_EXPECT_NONE,	/* no Result: line */
	LIT_EXPECT_NEVER,
	LIT_EXPECT_SOMETIMES,
	LIT_EXPECT_ALWAYS,
	LIT_EXPECT_OTHER,	/* Maybe, DEADLOCK, Flag ...: not an oracle */
};

/* How the condition is quantified. */
enum lit_quant { LIT_Q_EXISTS, LIT_Q_NOT_EXISTS, LIT_Q_FORALL };

struct litmus;

/* Parse @len bytes of @text (file @name); NULL with @e filled on error. */
struct litmus *litmus_parse(const char *name, const char *text, size_t len,
			    struct lit_error *e);
/* Read and parse a file; NULL with @e filled (no position) on error. */
char *litmus_read_file(const char *path, size_t *len, struct lit_error *e);
void litmus_free(struct litmus *l);

const char *litmus_name(const struct litmus *l);	/* the C line's name */
int litmus_nprocs(const struct litmus *l);
enum lit_expect litmus_expect(const struct litmus *l);
/* The Result: line's text ("Never", "Sometimes DATARACE"); "" if none. */
const char *litmus_result_text(const struct litmus *l);
/* The Result: line says DATARACE: plain accesses race (not an oracle). */
int litmus_datarace(const struct litmus *l);
enum lit_quant litmus_quant(const struct litmus *l);
/* "exists (0:r0=0 /\ 1:r0=0)", as written, on one line. */
const char *litmus_cond_text(const struct litmus *l);

/*
 * The program that runs the test (valid while @l lives).  Its finish
 * fails a run whose final state contradicts the Result: line:
 * "litmus-never" (the condition met, LKMM forbids it) or "litmus-always"
 * (missed, LKMM guarantees it).
 */
void litmus_program(struct litmus *l, struct pr_program *prog);

/* The outcome set: final states of the runs since the last reset. */
void litmus_outcomes_reset(struct litmus *l);
size_t litmus_noutcomes(const struct litmus *l);
/*
 * Outcome @i in sorted order: its state as "0:r0=1; 1:r0=0; x=1;",
 * how many runs reached it, and whether the condition's proposition
 * holds in it.
 */
void litmus_outcome(const struct litmus *l, size_t i, char *buf, size_t len,
		    uint64_t *count, int *holds);
/* Runs recorded, runs whose state satisfies the proposition. */
uint64_t litmus_runs(const struct litmus *l);
uint64_t litmus_hits(const struct litmus *l);

/*
 * The witness sampler's scorer (witness.c; strategy/witness.c): rate
 * choice @i of @cs by whether it brings the run closer to the exists
 * clause.  litmus_program prepares it for @l; @arg is unused.
 */
struct pr_choices;
void litmus_witness_prepare(struct litmus *l);
int litmus_witness_score(void *arg, const struct pr_choices *cs, int i);

/*
 * The goal search (interp.c): while on, a process whose load gives a
 * register the exists clause fixes (a top-level conjunct "P:r=v" or
 * "P:r!=v", r set by that one load statement and nowhere else) a value
 * the clause rejects stops right after that load, and a run in which
 * one stopped records no final state and fails nothing.  Such a run can
 * never satisfy the clause -- r keeps that value to the end -- and
 * every run in which no process stops is a run of the test itself, so
 * the condition is reachable in the cut program exactly when it is in
 * the test: a complete dpor search of the cut program decides
 * reachability (not the final-state set) with far fewer executions.
 * Returns whether the clause fixes any register (else there is nothing
 * to cut).
 */
int litmus_goal(struct litmus *l, int on);
/* Did a process stop (goal search) in the last run? */
int litmus_goal_cut(const struct litmus *l);

#endif /* PAGERACE_LITMUS_H */
