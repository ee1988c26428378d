/* tests/fuzz_litmus.c -- libFuzzer target for the litmus front end: the
 * parser, and the interpreter that runs what it accepts.  Seed corpus:
 * tests/litmus/ (the tests written for pagerace).
 *
 * Any input must either be rejected with a positioned, non-empty message
 * ("FILE:LINE:COL: error: ...") or parse; a test that parses is then run
 * a few times (dpor executions or random runs) on pagerace's kernel
 * primitives, under sc, tso or weak (chosen by the input's length),
 * and must run without a crash: herd7's dialect lets a test index,
 * divide and dereference what it likes, and the interpreter must turn
 * each into a failure or an error, never into undefined behaviour in
 * pagerace itself.  The
 * litmus sources are compiled with -fsanitize=fuzzer,address; the
 * runtime they run on links uninstrumented from libpagerace.a.
 */
#include "litmus/litmus.h"
#include "fuzz_run.h"

#define FUZZ_EXECUTIONS	32	/* per input: a few races reversed */
#define FUZZ_STEPS	4000	/* a longer run is a livelock */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lit_error e;
	struct litmus *l;
	struct pr_program prog;
	char buf[1024];

	memset(&e, 0, sizeof(e));
	l = litmus_parse("fuzz.litmus", (const char *)data, size, &e);
	if (!l) {
		lit_error_format(&e, buf, sizeof(buf));
		if (!e.msg[0] || (size <= LIT_MAX_FILE && (e.line < 1 || e.col < 1)) ||
		    strncmp(buf, "fuzz.litmus:", 12) || !strstr(buf, ": error: "))
			fuzz_found("fuzz_litmus", data, size,
				   "error without a position", buf);
		return 0;
	}
	litmus_program(l, &prog);
	litmus_outcomes_reset(l);
	/* By the input's length: dpor or random runs, under sc, tso or weak. */
	fuzz_run("fuzz_litmus", data, size, &prog, size % 2 ? "random" : "dpor",
		 1, FUZZ_EXECUTIONS, FUZZ_STEPS, (int)(size / 2 % 3));
	litmus_free(l);
	return 0;
}
