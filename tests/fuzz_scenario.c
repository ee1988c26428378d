/* tests/fuzz_scenario.c -- libFuzzer target for the scenario front end:
 * the parser, and the interpreter that runs what it accepts.  Seed
 * corpus: the shipped scenarios (scenarios/NAME.scn).
 *
 * Any input must either parse or be rejected with a positioned, non-empty
 * message; never crash or leak.  A scenario that parses (and passes the
 * static checks, as explore requires) then runs a few times (random or
 * dpor, by the input's length) under its own variant and memory model,
 * and no run may end in a contained crash: the model reports its bugs as
 * verdicts of their own (kasan's use-after-free, null-deref, bad-lookup,
 * ...), so a "crash" verdict -- a fault runtime/crash.c caught, in the
 * model or in the harness during a run -- would be pagerace's own fault
 * shown to the user as a finding about the seeds.  The scenario
 * sources are compiled with -fsanitize=fuzzer,address; the model and
 * runtime link uninstrumented from libpagerace.a. */
#include "scenario/scenario.h"
#include "fuzz_run.h"

#define FUZZ_RUNS	8	/* runs per input that parses */
#define FUZZ_STEPS	20000	/* a longer run is a livelock */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scn_error e;
	struct scenario *s;
	struct pr_program prog;
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
			fuzz_found("fuzz_scenario", data, size,
				   "error without a position", buf);
		return 0;
	}
	scenario_apply_variant(s);
	scenario_program(s, &prog);
	/* Half the inputs under dpor: its tree and race analysis run too. */
	fuzz_run("fuzz_scenario", data, size, &prog,
		 size % 2 ? "dpor" : "random", 1, FUZZ_RUNS, FUZZ_STEPS,
		 s->has_memory ? s->memory : PR_MEM_SC);
	scenario_free(s);
	return 0;
}
