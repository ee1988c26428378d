/* tests/fuzz_run.h -- what the libFuzzer targets of the two front ends
 * (fuzz_scenario.c, fuzz_litmus.c) share: report a finding with its
 * input, and run a parsed program a few times, failing on a contained
 * crash.  Header-only: each target is one program of its own. */
#ifndef PAGERACE_TESTS_FUZZ_RUN_H
#define PAGERACE_TESTS_FUZZ_RUN_H

#include "memory/memory.h"
#include "runtime/run.h"
#include "strategy/strategy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A finding of target @who.  The input goes to stderr first: the
 * runtime's crash containment (runtime/crash.c) has replaced libFuzzer's
 * signal handlers by the time a program runs, so libFuzzer writes no
 * crash file.
 */
static inline void fuzz_found(const char *who, const uint8_t *data,
			      size_t size, const char *what, const char *detail)
{
	fprintf(stderr, "%s: %s: %s\n--- input (%zu bytes) ---\n", who, what,
		detail, size);
	fwrite(data, 1, size, stderr);
	fprintf(stderr, "\n--- end of input ---\n");
	abort();
}

/*
 * Run @prog up to @runs times under strategy @strategy (dpor without a
 * bound, or a sampler from @seed) and memory @model, each run at most
 * @max_steps steps.  A run ending in a contained fault ("crash") is
 * pagerace's own, not the input's: whatever a scenario or a litmus test
 * does must become a verdict of its own (kasan, null-deref,
 * litmus-bad-pointer, ...), so that is a finding.
 */
static inline void fuzz_run(const char *who, const uint8_t *data, size_t size,
			    const struct pr_program *prog, const char *strategy,
			    uint64_t seed, uint64_t runs, uint64_t max_steps,
			    int model)
{
	struct pr_strategy_params params;
	struct pr_run_options ro;
	struct pr_schedule rec;
	struct pr_strategy *strat;

	memset(&params, 0, sizeof(params));
	params.preemption_bound = -1;
	strat = pr_strategy_create(strategy, &params);
	if (!strat)
		abort();
	pr_mem_select(model);
	pr_run_options_default(&ro);
	ro.max_steps = max_steps;
	pr_schedule_init(&rec);
	for (uint64_t run = 0; run < runs; run++) {
		struct pr_run_result res;

		/* A systematic strategy may finish early; a sampler has no end. */
		if (strat->ops->exhausted && strat->ops->exhausted(strat))
			break;
		pr_run_once(prog, strat, &ro, seed, run, &rec, &res);
		if (res.failed && !strcmp(res.verdict.kind, "crash"))
			fuzz_found(who, data, size, "crash in a run",
				   res.verdict.msg);
	}
	pr_schedule_free(&rec);
	strat->ops->destroy(strat);
	pr_mem_select(PR_MEM_SC);
}

#endif /* PAGERACE_TESTS_FUZZ_RUN_H */
