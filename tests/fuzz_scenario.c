/* tests/fuzz_scenario.c -- libFuzzer target for the scenario parser.
 * Seed corpus: the shipped scenarios (scenarios/NAME.scn).  Any input must
 * either parse or be rejected with a positioned, non-empty message; never
 * crash or leak. */
#include "scenario/scenario.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scn_error e;
	struct scenario *s;
	char buf[1024];

	s = scenario_parse("fuzz.scn", (const char *)data, size, &e);
	if (!s) {
		if (!e.msg[0] || (size <= SCN_MAX_FILE && (e.line < 1 || e.col < 1)))
			abort();
		scn_error_format(&e, buf, sizeof(buf));
	}
	scenario_free(s);
	return 0;
}
