/* SPDX-License-Identifier: MIT */
/*
 * memory.c - the --memory option (memory/memory.h) shared by the commands
 * that run programs.
 */
#include "cli/cli.h"
#include "memory/memory.h"
#include "runtime/tsan.h"

#include <stdio.h>

int cli_memory_parse(const char *arg, const char *cmd, int *model)
{
	int m = pr_mem_parse(arg);

	if (m < 0) {
		fprintf(stderr, "%s %s: error: unknown memory model '%s' "
			"(sc, tso, weak)\n", pr_argv0, cmd, arg);
		return -1;
	}
	*model = m;
	return 0;
}

int cli_memory_select(int model, const char *cmd)
{
	/*
	 * pagerace-tsan: a flush is a memcpy by the scheduler, out of
	 * ThreadSanitizer's sight, so the happens-before it reports would
	 * not be the model's.  Refused rather than half right.
	 */
	if (model != PR_MEM_SC && PR_TSAN_ENABLED) {
		fprintf(stderr, "%s %s: error: --memory %s is not supported by "
			"pagerace-tsan (ThreadSanitizer sees no store buffers); "
			"use pagerace, or --memory sc\n", pr_argv0, cmd,
			pr_mem_name(model));
		return -1;
	}
	pr_mem_select(model);
	return 0;
}
