/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the commands of the pagerace program.
 *
 * Exit status, for every command: 0 no failure, 1 failure found or
 * reproduced, 2 bad input or a replay that diverged.
 */
#ifndef PAGERACE_CLI_H
#define PAGERACE_CLI_H

#include <stdio.h>
#include "runtime/run.h"

#define EXIT_NOFAIL	0
#define EXIT_FOUND	1
#define EXIT_BADINPUT	2

int cmd_explore(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_minimize(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_stress(int argc, char **argv);
int cmd_litmus(int argc, char **argv);

/*
 * What a command runs: a built-in program, or a scenario file (then @scn
 * is the parsed scenario, @text its bytes, embedded in traces, and @prog
 * points at @scn_prog).  @short_name names trace files: the program name,
 * or the scenario file's base name without its extension.
 */
struct scenario;
struct litmus;
struct target {
	const struct pr_program *prog;
	const char *name;
	char short_name[64];
	struct scenario *scn;
	struct litmus *lit;	/* a litmus test (FILE.litmus), or NULL */
	char *text;
	size_t text_len;
	struct pr_program scn_prog;
	char path[4096];	/* a scenario found on the search path */
};

/*
 * Resolve @name: a built-in program, else a scenario file: a path, or a
 * name on the scenario search path (scnpath.h; then @t->name is the path
 * found).  On
 * failure print why ("FILE:LINE:COL: error: ..." for a bad scenario) and
 * return -1.
 */
int target_resolve(const char *name, struct target *t);
/*
 * A scenario from text embedded in a trace (@name is the path it was
 * recorded from).  Says on stderr when the file at @name differs from
 * @text or is gone: the embedded text is what runs.  An error in it is
 * reported at the trace @trace's line (@first: the line of the text's
 * first line).
 */
int target_from_text(const char *name, const char *text, const char *trace,
		     unsigned long first, struct target *t);
void target_release(struct target *t);

/*
 * replay.c, for the commands that re-execute traces (replay, show,
 * minimize): read the trace at @path, resolve its program, restore its run
 * options and model variant.  On failure prints why and returns -1 (@t is
 * then empty).
 */
struct pr_trace;
struct pr_event_log;
int replay_load(const char *path, struct pr_trace *t, struct target *tg,
		struct pr_run_options *ro);
/*
 * After a divergence: a plain trace replayed by pagerace-tsan may stop
 * earlier on a data race; say so and name the plain command.
 */
void replay_flavour_note(const char *path, const struct pr_trace *t);
/*
 * Did a replay end with the recorded verdict: its kind, step, context,
 * object, site and message (the message says what the detector saw; the
 * source position, which moves with edits, is not compared)?
 */
int replay_same_verdict(const struct pr_verdict *a, const struct pr_verdict *b);
/* "pc-lookup-reuse (no-recheck, protocol v2)": a trace's program. */
void replay_title(const struct pr_trace *t, char *buf, size_t len);
/* The rich text report of an instrumented replay (report/report.h). */
void replay_print_report(FILE *f, const struct pr_trace *t,
			 const struct pr_event_log *log,
			 const struct pr_run_result *res);

/*
 * memory.c: --memory's argument (sc, tso, weak) into *@model, or say why
 * not (as "@cmd: error: ...") and return -1; and select a model for the
 * runs to come, refusing (-1, said) what this build cannot run.
 */
int cli_memory_parse(const char *arg, const char *cmd, int *model);
int cli_memory_select(int model, const char *cmd);

/* argv[0] as the user typed it, for printing replay commands. */
extern const char *pr_argv0;

/* Parse a whole unsigned number; 0 on success. */
int parse_u64(const char *s, uint64_t *out);

#endif /* PAGERACE_CLI_H */
