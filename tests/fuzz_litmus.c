/* tests/fuzz_litmus.c -- libFuzzer target for the litmus front end: the
 * parser, and the interpreter that runs what it accepts.  Seed corpus:
 * tests/litmus/ (the tests written for pagerace).
 *
 * Any input must either be rejected with a positioned, non-empty message
 * ("FILE:LINE:COL: error: ...") or parse; a test that parses is then run
 * for a few dpor executions on pagerace's kernel primitives, under sc,
 * tso or weak (chosen by the input's length), and must run without a
 * crash: herd7's dialect lets a test index, divide and dereference what
 * it likes, and the interpreter must turn each into a failure or an
 * error, never into undefined behaviour in pagerace itself.  The
 * litmus sources are compiled with -fsanitize=fuzzer,address; the
 * runtime they run on links uninstrumented from libpagerace.a.
 */
#include "litmus/litmus.h"
#include "memory/memory.h"
#include "runtime/run.h"
#include "strategy/strategy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_EXECUTIONS	32	/* per input: a few races reversed */
#define FUZZ_STEPS	4000	/* a longer run is a livelock */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A finding.  The input goes to stderr first: the runtime's crash
 * containment (runtime/crash.c) has replaced libFuzzer's signal
 * handlers by the time a test runs, so libFuzzer writes no crash file.
 */
static void found(const uint8_t *data, size_t size, const char *what,
		  const char *detail)
{
	fprintf(stderr, "fuzz_litmus: %s: %s\n--- input (%zu bytes) ---\n",
		what, detail, size);
	fwrite(data, 1, size, stderr);
	fprintf(stderr, "\n--- end of input ---\n");
	abort();
}

static void run_some(const uint8_t *data, size_t size, struct litmus *l,
		     int model)
{
	struct pr_strategy_params params;
	struct pr_run_options ro;
	struct pr_program prog;
	struct pr_schedule rec;
	struct pr_strategy *strat;

	memset(&params, 0, sizeof(params));
	params.preemption_bound = -1;
	strat = pr_strategy_create("dpor", &params);
	if (!strat)
		abort();
	pr_mem_select(model);
	pr_run_options_default(&ro);
	ro.max_steps = FUZZ_STEPS;
	litmus_program(l, &prog);
	litmus_outcomes_reset(l);
	pr_schedule_init(&rec);
	for (uint64_t run = 0; run < FUZZ_EXECUTIONS &&
	     !strat->ops->exhausted(strat); run++) {
		struct pr_run_result res;

		pr_run_once(&prog, strat, &ro, 0, run, &rec, &res);
		/*
		 * A contained fault is the interpreter's, not the test's:
		 * whatever a test does must become its own verdict.
		 */
		if (res.failed && !strcmp(res.verdict.kind, "crash"))
			found(data, size, "crash in a run", res.verdict.msg);
	}
	pr_schedule_free(&rec);
	strat->ops->destroy(strat);
	pr_mem_select(PR_MEM_SC);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lit_error e;
	struct litmus *l;
	char buf[1024];

	memset(&e, 0, sizeof(e));
	l = litmus_parse("fuzz.litmus", (const char *)data, size, &e);
	if (!l) {
		lit_error_format(&e, buf, sizeof(buf));
		if (!e.msg[0] || (size <= LIT_MAX_FILE && (e.line < 1 || e.col < 1)) ||
		    strncmp(buf, "fuzz.litmus:", 12) || !strstr(buf, ": error: "))
			found(data, size, "error without a position", buf);
		return 0;
	}
	run_some(data, size, l, (int)(size % 3));
	litmus_free(l);
	return 0;
}
