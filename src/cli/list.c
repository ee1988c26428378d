/* SPDX-License-Identifier: MIT */
/*
 * list.c - `pagerace list`: the built-in programs.
 */
#include "cli/cli.h"
#include "programs/programs.h"

#include <stdio.h>
#include <string.h>

int cmd_list(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s list\n\nList the built-in programs with a one-line summary.\n",
		       pr_argv0);
		return EXIT_NOFAIL;
	}
	if (argc > 1) {
		fprintf(stderr, "%s list: error: unexpected argument '%s'\n",
			pr_argv0, argv[1]);
		return EXIT_BADINPUT;
	}
	for (int i = 0; pr_programs[i]; i++)
		printf("%-24s %s\n", pr_programs[i]->name, pr_programs[i]->summary);
	return EXIT_NOFAIL;
}
