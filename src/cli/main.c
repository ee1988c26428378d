/* SPDX-License-Identifier: MIT */
/*
 * main.c - command dispatch.
 */
#include "config.h"
#include "cli/cli.h"
#include "cli/scnpath.h"
#include "programs/programs.h"
#include "litmus/litmus.h"
#include "scenario/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	{ "check", cmd_check, "validate scenario files without running them" },
	{ "ops", cmd_ops, "list the operations scenario bodies may call" },
	{ "stress", cmd_stress, "run the CPUs as real threads, repeatedly: outcome histogram" },
	{ "litmus", cmd_litmus, "run LKMM litmus tests exhaustively, check their Result:" },
	{ "merge", cmd_merge, "combine the --json summaries of explore --shard I/N" },
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

/* Parse @text as scenario @name into @t; prints the error on failure. */
/*
 * An error in text embedded in a trace is where the trace holds it: the
 * trace's name, its line (@first is the line of the text's first line)
 * and the column past the "| " that starts each embedded line.
 */
static void embedded_position(char *file, size_t filelen, int *line, int *col,
			      char *text, size_t textlen,
			      const char *trace, unsigned long first)
{
	char shown[256];

	if (!trace)
		return;
	snprintf(file, filelen, "%s", trace);
	if (*line > 0) {
		*line += (int)first - 1;
		*col += 2;
		snprintf(shown, sizeof(shown), "| %s", text);
		snprintf(text, textlen, "%s", shown);
	}
}

static int target_scenario(const char *name, char *text, size_t len,
			   const char *trace, unsigned long first,
			   struct target *t)
{
	struct scn_error e;
	char msg[1024];
	const char *b = strrchr(name, '/');
	size_t n, nl = strlen(name);

	/* A litmus test (litmus/litmus.h) runs as a program of its own. */
	if (nl > 7 && !strcmp(name + nl - 7, ".litmus")) {
		struct lit_error le;

		t->lit = litmus_parse(name, text, len, &le);
		if (!t->lit) {
			embedded_position(le.file, sizeof(le.file), &le.line,
					  &le.col, le.text, sizeof(le.text),
					  trace, first);
			lit_error_format(&le, msg, sizeof(msg));
			fputs(msg, stderr);
			free(text);
			return -1;
		}
		litmus_program(t->lit, &t->scn_prog);
	} else {
		t->scn = scenario_parse(name, text, len, &e);
	}
	if (!t->scn && !t->lit) {
		embedded_position(e.file, sizeof(e.file), &e.line, &e.col,
				  e.text, sizeof(e.text), trace, first);
		scn_error_format(&e, msg, sizeof(msg));
		fputs(msg, stderr);
		free(text);
		return -1;
	}
	t->text = text;
	t->text_len = len;
	if (t->scn)
		scenario_program(t->scn, &t->scn_prog);
	t->prog = &t->scn_prog;
	b = b ? b + 1 : name;
	n = strcspn(b, ".");
	if (n >= sizeof(t->short_name))
		n = sizeof(t->short_name) - 1;
	memcpy(t->short_name, b, n);
	t->short_name[n] = '\0';
	return 0;
}

int target_resolve(const char *name, struct target *t)
{
	struct scn_error e;
	char msg[1024], *text;
	size_t len;

	memset(t, 0, sizeof(*t));
	t->name = name;
	t->prog = pr_program_find(name);
	if (t->prog) {
		snprintf(t->short_name, sizeof(t->short_name), "%s", name);
		return 0;
	}
	/* A path, else a scenario of the search path (scnpath.h). */
	if (scnpath_find(name, t->path, sizeof(t->path))) {
		if (!strchr(name, '/')) {
			char dirs[2048];

			scnpath_describe(dirs, sizeof(dirs));
			fprintf(stderr, "%s: error: unknown program or scenario '%s' (see '%s list'; scenarios are looked for in %s)\n",
				pr_argv0, name, pr_argv0, dirs);
			return -1;
		}
	} else {
		name = t->name = t->path;
	}
	text = scenario_read_file(name, &len, &e);
	if (!text) {
		scn_error_format(&e, msg, sizeof(msg));
		fputs(msg, stderr);
		return -1;
	}
	return target_scenario(name, text, len, NULL, 0, t);
}

int target_from_text(const char *name, const char *text, const char *trace,
		     unsigned long first, struct target *t)
{
	struct scn_error e;
	size_t len = strlen(text), dlen;
	char *copy = strdup(text), *disk;

	memset(t, 0, sizeof(*t));
	t->name = name;
	if (!copy) {
		fprintf(stderr, "%s: error: out of memory\n", pr_argv0);
		return -1;
	}
	disk = scenario_read_file(name, &dlen, &e);
	if (!disk)
		fprintf(stderr, "%s: note: %s is gone; replaying the scenario text embedded in the trace\n",
			pr_argv0, name);
	else if (dlen != len || memcmp(disk, text, len))
		fprintf(stderr, "%s: note: %s differs from the scenario text embedded in the trace; replaying the embedded text\n",
			pr_argv0, name);
	free(disk);
	return target_scenario(name, copy, len, trace, first, t);
}

void target_release(struct target *t)
{
	scenario_free(t->scn);
	litmus_free(t->lit);
	free(t->text);
	t->scn = NULL;
	t->lit = NULL;
	t->text = NULL;
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
