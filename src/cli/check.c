/* SPDX-License-Identifier: MIT */
/*
 * check.c - `pagerace check FILE...`: parse and validate scenario files
 * without running them.  Every error is "FILE:LINE:COL: error: MESSAGE",
 * then the line and a caret; exit 2 if any file has one.
 */
#include "cli/cli.h"
#include "cli/scnpath.h"
#include "scenario/scenario.h"
#include "memory/memory.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_usage(FILE *f)
{
	fprintf(f,
"usage: %s check [-q] FILE...\n"
"\n"
"Parse and validate each scenario file (see pagerace-scenario(5)) without\n"
"running it.  Errors are FILE:LINE:COL: error: MESSAGE with the line and a\n"
"caret; an unknown name is answered with the nearest valid one.\n"
"\n"
"  -q, --quiet   print errors only\n"
"  -h, --help    this text\n"
"\n"
"Exit status: 0 every file is valid, 2 a file has an error.\n", pr_argv0);
}

static const struct option long_opts[] = {
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void summary(const struct scenario *s)
{
	printf("%s: ok: %s, %d cpu%s, %d irq%s, protocol %s", s->file, s->name,
	       s->nr_cpus, s->nr_cpus == 1 ? "" : "s", s->nirqs,
	       s->nirqs == 1 ? "" : "s", variant_protocol_name(s->variant.protocol));
	for (unsigned i = 0; i < variant_nr_knobs(); i++)
		if (s->variant.knobs & variant_knob_at(i))
			printf(", knob %s", variant_knob_name(variant_knob_at(i)));
	if (s->has_memory)
		printf(", memory %s", pr_mem_name(s->memory));
	if (s->expect[0])
		printf(", expect %s", s->expect);
	else if (s->expect_pass)
		printf(", expect pass");
	printf("\n");
}

int cmd_check(int argc, char **argv)
{
	int c, quiet = 0, rc = EXIT_NOFAIL;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "qh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = 1;
			break;
		case 'h':
			check_usage(stdout);
			return EXIT_NOFAIL;
		default:
			fprintf(stderr, "%s check: error: unknown option '%s'\n",
				pr_argv0, argv[optind - 1]);
			return EXIT_BADINPUT;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s check: error: which scenario files?\n", pr_argv0);
		return EXIT_BADINPUT;
	}
	for (int i = optind; i < argc; i++) {
		struct scn_error e;
		struct scenario *s;
		char msg[1024], *text;
		size_t len;

		char path[4096];

		/* A path, or a shipped scenario's name (scnpath.h). */
		scnpath_find(argv[i], path, sizeof(path));
		text = scenario_read_file(path, &len, &e);
		s = text ? scenario_parse(path, text, len, &e) : NULL;
		free(text);
		if (!s) {
			scn_error_format(&e, msg, sizeof(msg));
			fputs(msg, stderr);
			rc = EXIT_BADINPUT;
			continue;
		}
		if (!quiet)
			summary(s);
		scenario_free(s);
	}
	return rc;
}
