/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the commands of the pagerace program.
 *
 * Exit status, for every command: 0 no failure, 1 failure found or
 * reproduced, 2 bad input or a replay that diverged.
 */
#ifndef PAGERACE_CLI_H
#define PAGERACE_CLI_H

#include "runtime/run.h"

#define EXIT_NOFAIL	0
#define EXIT_FOUND	1
#define EXIT_BADINPUT	2

int cmd_explore(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_list(int argc, char **argv);

/* What a command runs: a built-in program (scenario files come later). */
struct target {
	const struct pr_program *prog;
	const char *name;
};

/* Resolve @name; on failure print why and return -1. */
int target_resolve(const char *name, struct target *t);

/* argv[0] as the user typed it, for printing replay commands. */
extern const char *pr_argv0;

/* Parse a whole unsigned number; 0 on success. */
int parse_u64(const char *s, uint64_t *out);

#endif /* PAGERACE_CLI_H */
