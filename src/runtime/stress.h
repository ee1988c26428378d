/* SPDX-License-Identifier: MIT */
/*
 * stress.h - free-running mode (stress.c): a program's contexts run as
 * real threads, in parallel, iteration after iteration.
 *
 *	pr_stress_begin(prog, &opts);
 *	for (i = 0; ...; i++)
 *		pr_stress_iteration(i, &res);	   setup, run, join, finish
 *	pr_stress_end();
 *
 * Not reentrant, one program at a time; deterministic runs must not be
 * mixed in between begin and end.
 */
#ifndef PAGERACE_RUNTIME_STRESS_H
#define PAGERACE_RUNTIME_STRESS_H

#include <stdint.h>
#include "runtime/run.h"

struct pr_stress_options {
	uint64_t seed;		/* jitter and interrupt timing */
	unsigned int jitter_us;	/* 0: yield points are no-ops */
	unsigned int timeout_ms;	/* an iteration longer than this: livelock/deadlock */
};

void pr_stress_begin(const struct pr_program *prog,
		     const struct pr_stress_options *opts);
/* One iteration; returns res->failed.  The verdict's step is 0. */
int pr_stress_iteration(uint64_t iter, struct pr_run_result *res);
void pr_stress_end(void);

#endif /* PAGERACE_RUNTIME_STRESS_H */
