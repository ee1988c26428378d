/* tests/fuzz_trace.c -- libFuzzer target for the trace reader
 * (pr_trace_parse).  Seed corpus: traces/.  Any input either parses, and
 * then prints and re-parses, or is rejected with "FILE:LINE:COL: error:". */
#include "trace/trace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_trace t;
	char err[1024];

	if (pr_trace_parse("fuzz.trace", (const char *)data, size, &t, err,
			   sizeof(err))) {
		if (strncmp(err, "fuzz.trace:", 11) || !strstr(err, ": error: "))
			abort();
		return 0;
	}
	pr_trace_free(&t);
	return 0;
}
