/* SPDX-License-Identifier: MIT */
/*
 * main.c - command dispatch.
 */
#include "config.h"
#include "cli/cli.h"
#include "programs/programs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pr_argv0 = "pagerace";

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "explore", cmd_explore, "run a program under a strategy, save failing traces" },
	{ "replay", cmd_replay, "re-execute a saved trace exactly and confirm its verdict" },
	{ "list", cmd_list, "list the built-in programs" },
	{ "show", cmd_show, "replay a trace and print its report (text, chrome, html)" },
	{ "minimize", cmd_minimize, "shrink a failing trace: fewest preemptions, then steps" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: %s COMMAND [OPTIONS] [ARGS]\n\n"
		"pagerace: deterministic concurrency stress and race replay.\n\n"
		"Commands:\n", pr_argv0);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'%s COMMAND --help' describes a command.  Exit status: 0 no failure,\n"
		"1 failure found or reproduced, 2 bad input or divergence.\n",
		pr_argv0);
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int target_resolve(const char *name, struct target *t)
{
	t->prog = pr_program_find(name);
	t->name = name;
	if (!t->prog) {
		fprintf(stderr, "%s: error: unknown program '%s' (see '%s list')\n",
			pr_argv0, name, pr_argv0);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 0 && argv[0])
		pr_argv0 = argv[0];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		usage(stderr);
		return EXIT_BADINPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_NOFAIL;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("pagerace %s\n", PACKAGE_VERSION);
		return EXIT_NOFAIL;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "%s: error: unknown command '%s'\n", pr_argv0, argv[1]);
	usage(stderr);
	return EXIT_BADINPUT;
}
