/* SPDX-License-Identifier: MIT */
/*
 * ops.c - `pagerace ops`: the operation registry, as scenario bodies see
 * it (name, arguments, result, what it does).
 */
#include "cli/cli.h"
#include "scenario/scenario.h"

#include <stdio.h>
#include <string.h>

int cmd_ops(int argc, char **argv)
{
	const struct scn_op *op;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: %s ops\n\nList the operations a scenario body may call "
		       "(see pagerace-scenario(5)).\n", pr_argv0);
		return EXIT_NOFAIL;
	}
	if (argc > 1) {
		fprintf(stderr, "%s ops: error: no arguments expected\n", pr_argv0);
		return EXIT_BADINPUT;
	}
	printf("Operations (rN = OP ARGS; MAPPING is m0..m3 or swap, INDEX 0-%d,\n"
	       "COUNT 1-%d, PAGE a register or a name from init):\n\n",
	       SCN_MAX_INDEX, SCN_MAX_GANG);
	for (size_t i = 0; (op = scn_op_at(i)); i++) {
		char sig[96];

		snprintf(sig, sizeof(sig), "%s%s%s%s", op->result != SCN_T_NONE ? "r = " : "",
			 op->name, op->nargs ? " " : "", op->argnames);
		printf("  %-44s -> %s%s\n      %s\n", sig, scn_type_name(op->result),
		       op->file_only ? "  (m0..m3 only)" : "", op->doc);
	}
	printf("\nAlso in a body: 'loop N { ... }' and 'assert COND [\"text\"]'.\n");
	return EXIT_NOFAIL;
}
