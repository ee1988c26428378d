/* tests/fuzz_trace.c -- libFuzzer target for the trace reader
 * (pr_trace_parse) and for replay.  Seed corpus: traces/.
 *
 * Any input either parses or is rejected with "FILE:LINE:COL: error:".
 * A trace that parses is then replayed as `pagerace replay` and `show`
 * would: its program (built in, or the scenario or litmus text it
 * embeds), its memory model, its schedule followed step by step with
 * every step logged, and the text report rendered from the log.  A
 * trace is input from anybody ("reproducible by anyone"): an edited or
 * corrupted schedule must end in a divergence or in some verdict, never
 * in a contained crash or a fault in the reporter.  The trace reader is
 * compiled with -fsanitize=fuzzer,address; the rest links uninstrumented
 * from libpagerace.a. */
#include "trace/trace.h"
#include "litmus/litmus.h"
#include "report/events.h"
#include "report/report.h"
#include "scenario/scenario.h"
#include "programs/programs.h"
#include "fuzz_run.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_STEPS	20000	/* replay at most this many steps */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Replay @t and render its report; a contained crash is a finding. */
static void replay(const uint8_t *data, size_t size, struct pr_trace *t)
{
	static FILE *devnull;
	const struct pr_program *prog;
	struct pr_program own;
	struct scenario *scn = NULL;
	struct litmus *lit = NULL;
	struct pr_event_log log;
	struct pr_run_options ro;
	struct pr_run_result res;
	struct pr_report r;
	const char *dot = strrchr(t->program, '.');

	if (t->program_text && dot && !strcmp(dot, ".litmus")) {
		struct lit_error le;

		lit = litmus_parse(t->program, t->program_text,
				   strlen(t->program_text), &le);
		if (!lit)
			return;
		litmus_program(lit, &own);
		prog = &own;
	} else if (t->program_text) {
		struct scn_error se;
		size_t n = strlen(t->program_text);

		scn = scenario_parse(t->program, t->program_text, n, &se);
		if (scn && scenario_lint(scn, t->program_text, n, &se)) {
			scenario_free(scn);
			return;
		}
		if (!scn)
			return;
		scenario_apply_variant(scn);
		scenario_program(scn, &own);
		prog = &own;
	} else {
		prog = pr_program_find(t->program);
		if (!prog)
			return;
	}
	pr_run_options_default(&ro);
	ro.max_steps = FUZZ_STEPS;
	pr_mem_select(t->memory);
	pr_event_log_init(&log);
	pr_events_replay(&log, prog, &t->sched, &ro, t->seed, t->run, NULL, 0,
			 NULL, &res);
	if (res.failed && !strcmp(res.verdict.kind, "crash"))
		fuzz_found("fuzz_trace", data, size, "crash in a replay",
			   res.verdict.msg);
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (devnull && !pr_report_init(&r, &log, &res, t->program)) {
		pr_report_text(devnull, &r);
		pr_report_free(&r);
	}
	pr_event_log_free(&log);
	pr_mem_select(PR_MEM_SC);
	scenario_free(scn);
	litmus_free(lit);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_trace t;
	char err[1024];

	if (pr_trace_parse("fuzz.trace", (const char *)data, size, &t, err,
			   sizeof(err))) {
		if (strncmp(err, "fuzz.trace:", 11) || !strstr(err, ": error: "))
			fuzz_found("fuzz_trace", data, size,
				   "error without a position", err);
		return 0;
	}
	replay(data, size, &t);
	pr_trace_free(&t);
	return 0;
}
