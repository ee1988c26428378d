/* SPDX-License-Identifier: MIT */
/*
 * litmus_goal.h - what the litmus command's files share (litmus.c, the
 * command; litmus_goal.c, its goal search; litmus_sample.c, its sampled
 * phase).
 */
#ifndef PAGERACE_CLI_LITMUS_GOAL_H
#define PAGERACE_CLI_LITMUS_GOAL_H

#include <stddef.h>
#include <stdint.h>

struct target;
struct pr_run_options;
struct pr_run_result;
struct pr_schedule;

struct litmus_opts {
	const char *strategy;
	const char *memory;
	uint64_t max_execs;	/* budget per test; 0 none */
	double time_budget;	/* seconds per test; 0 none */
	double some_budget;	/* --sometimes-budget: a Sometimes test's
				 * seconds, more than time_budget; 0 none */
	uint64_t max_steps;
	const char *trace_dir;
	int quiet, brief;
	int goal_only;		/* --goal: decide the exists clause only */
};

double litmus_now(void);	/* monotonic seconds */
/* The report's "final states" list: each state, '*' where the
 * condition holds, and how many executions ended in it. */
void litmus_print_states(const struct litmus *l);
/* The run stopped at the memory model's limit (too many CPUs). */
int litmus_model_too_big(const struct pr_run_result *res);
/* Save run @run's schedule @rec as a trace; its path in @path. */
int litmus_save_trace(const struct litmus_opts *o, const struct target *tg,
		      uint64_t run, const struct pr_run_result *res,
		      struct pr_schedule *rec, char *path, size_t pathlen);

/*
 * The sampled runs after an unfinished search, until @deadline
 * (litmus_sample.c): 1 + the run that reached the condition or failed,
 * or 0.
 */
uint64_t litmus_sample(const struct litmus_opts *o, const struct target *tg,
		       struct pr_run_options *ro, struct pr_schedule *rec,
		       double deadline, struct pr_run_result *first, char *trace,
		       size_t tracelen, uint64_t *failed, uint64_t *other,
		       uint64_t *stuck);

/* What the goal search found. */
enum litmus_goal_end {
	GOAL_OPEN,	/* stopped by the deadline: nothing decided */
	GOAL_NONE,	/* complete: the exists clause is unreachable */
	GOAL_REACHED,	/* a run satisfied it (a witness, or a Never
			 * test's failure counted in *failed) */
	GOAL_OTHER,	/* a run of the test failed otherwise (*other) */
	GOAL_NA,	/* the clause fixes no register: nothing to cut */
};

/*
 * The goal search (litmus.h, litmus_goal): a dpor (or dfs, o->strategy)
 * search of the test cut where a register gets a value the exists
 * clause rejects, until @deadline.  A run that reaches the clause or
 * fails is saved as a trace into @trace (unless --brief for a reached
 * Sometimes clause) and @first; *execs gets the executions searched.
 */
enum litmus_goal_end litmus_goal_search(const struct litmus_opts *o,
					const struct target *tg,
					struct pr_run_options *ro,
					struct pr_schedule *rec, double deadline,
					struct pr_run_result *first, char *trace,
					size_t tracelen, uint64_t *failed,
					uint64_t *other, uint64_t *execs);

/*
 * One test by execution graphs under @model (enum graph_model;
 * litmus_graph.c): prints as the run engine does; returns EXIT_NOFAIL,
 * EXIT_FOUND (a disagreement) or EXIT_BADINPUT.
 */
int litmus_graph_test(const struct litmus_opts *o, const char *path,
		      int model);

#endif /* PAGERACE_CLI_LITMUS_GOAL_H */
