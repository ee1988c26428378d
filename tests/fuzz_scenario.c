/* tests/fuzz_scenario.c -- libFuzzer target for the scenario front end:
 * the parser, and the interpreter that runs what it accepts.  Seed
 * corpus: the shipped scenarios (scenarios/NAME.scn).
 *
 * Any input must either parse or be rejected with a positioned, non-empty
 * message; never crash or leak.  A scenario that parses (and passes the
 * static checks, as explore requires) then runs for a few random runs
 * under its own variant and memory model, and no run may end in a
 * contained crash: the model reports its bugs as verdicts of their own
 * (kasan's use-after-free, null-deref, bad-lookup, ...), so a "crash"
 * verdict -- a fault runtime/crash.c caught -- would be pagerace's own
 * fault shown to the user as a finding about the seeds.  The scenario
 * sources are compiled with -fsanitize=fuzzer,address; the model and
 * runtime link uninstrumented from libpagerace.a. */
#include "scenario/scenario.h"
#include "memory/memory.h"
#include "runtime/run.h"
#include "strategy/strategy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_RUNS	8	/* random runs per input that parses */
#define FUZZ_STEPS	20000	/* a longer run is a livelock */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A finding: the input goes to stderr (see tests/fuzz_litmus.c). */
static void found(const uint8_t *data, size_t size, const char *what,
		  const char *detail)
{
	fprintf(stderr, "fuzz_scenario: %s: %s\n--- input (%zu bytes) ---\n",
		what, detail, size);
	fwrite(data, 1, size, stderr);
	fprintf(stderr, "\n--- end of input ---\n");
	abort();
}

static void run_some(const uint8_t *data, size_t size, struct scenario *s)
{
	struct pr_strategy_params params;
	struct pr_run_options ro;
	struct pr_program prog;
	struct pr_schedule rec;
	struct pr_strategy *strat;

	memset(&params, 0, sizeof(params));
	strat = pr_strategy_create("random", &params);
	if (!strat)
		abort();
	scenario_apply_variant(s);
	pr_mem_select(s->has_memory ? s->memory : PR_MEM_SC);
	pr_run_options_default(&ro);
	ro.max_steps = FUZZ_STEPS;
	scenario_program(s, &prog);
	pr_schedule_init(&rec);
	for (uint64_t run = 0; run < FUZZ_RUNS; run++) {
		struct pr_run_result res;

		pr_run_once(&prog, strat, &ro, 1, run, &rec, &res);
		if (res.failed && !strcmp(res.verdict.kind, "crash"))
			found(data, size, "crash in a run", res.verdict.msg);
	}
	pr_schedule_free(&rec);
	strat->ops->destroy(strat);
	pr_mem_select(PR_MEM_SC);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scn_error e;
	struct scenario *s;
	char buf[1024];

	memset(&e, 0, sizeof(e));
	s = scenario_parse("fuzz.scn", (const char *)data, size, &e);
	if (s && scenario_lint(s, (const char *)data, size, &e)) {
		scenario_free(s);
		s = NULL;
	}
	if (!s) {
		scn_error_format(&e, buf, sizeof(buf));
		if (!e.msg[0] || (size <= SCN_MAX_FILE && (e.line < 1 || e.col < 1)))
			found(data, size, "error without a position", buf);
		return 0;
	}
	run_some(data, size, s);
	scenario_free(s);
	return 0;
}
