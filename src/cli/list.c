/* SPDX-License-Identifier: MIT */
/*
 * list.c - `pagerace list`: the built-in programs and the scenarios the
 * search path finds (scnpath.h); with an option, bare names one a line
 * for scripts and the bash completion.
 */
#include "config.h"
#include "cli/cli.h"
#include "cli/scnpath.h"
#include "model/variant.h"
#include "programs/programs.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCN	1024

struct scn_list {
	char *name[MAX_SCN];	/* file names, first folder wins */
	char *path[MAX_SCN];
	int n;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect(const char *dir, void *arg)
{
	struct scn_list *l = arg;
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found[MAX_SCN];
	int nf = 0;

	if (!d)
		return;
	while ((e = readdir(d)) && nf < MAX_SCN) {
		size_t n = strlen(e->d_name);

		if (n > 4 && !strcmp(e->d_name + n - 4, ".scn"))
			found[nf++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(found, (size_t)nf, sizeof(found[0]), cmp_str);
	for (int i = 0; i < nf; i++) {
		int dup = !found[i];

		for (int j = 0; j < l->n && !dup; j++)
			dup = !strcmp(l->name[j], found[i]);
		if (dup || l->n == MAX_SCN) {
			free(found[i]);
			continue;
		}
		l->name[l->n] = found[i];
		l->path[l->n] = malloc(strlen(dir) + strlen(found[i]) + 2);
		if (l->path[l->n])
			sprintf(l->path[l->n], "%s/%s", dir, found[i]);
		l->n++;
	}
}

/* A scenario's one-line summary: its first comment, after "NAME -- ". */
static void summary_of(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[512], *p, *dash;

	out[0] = '\0';
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && line[0] == '#') {
		line[strcspn(line, "\n")] = '\0';
		p = line + 1 + strspn(line + 1, " ");
		dash = strstr(p, " -- ");
		snprintf(out, len, "%s", dash ? dash + 4 : p);
	}
	fclose(f);
}

static void list_usage(FILE *f)
{
	fprintf(f,
"usage: %s list [--programs|--scenarios|--knobs|--protocols]\n"
"\n"
"List the built-in programs with a one-line summary, then the scenarios\n"
"that 'explore NAME' and 'check NAME' find from any directory: those of\n"
"$PAGERACE_SCENARIOS, then the installed library.  With an option, just\n"
"the names of one kind, one a line (for scripts and the bash completion).\n",
		pr_argv0);
}

int cmd_list(int argc, char **argv)
{
	struct scn_list l = { .n = 0 };
	const char *only = NULL;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		list_usage(stdout);
		return EXIT_NOFAIL;
	}
	if (argc > 1 && (!strcmp(argv[1], "--programs") ||
			 !strcmp(argv[1], "--scenarios") ||
			 !strcmp(argv[1], "--knobs") ||
			 !strcmp(argv[1], "--protocols")))
		only = argv[1] + 2;
	if (argc > 2 || (argc > 1 && !only)) {
		fprintf(stderr, "%s list: error: unexpected argument '%s'\n",
			pr_argv0, argv[only ? 2 : 1]);
		return EXIT_BADINPUT;
	}
	if (only && !strcmp(only, "knobs")) {
		for (unsigned i = 0; i < variant_nr_knobs(); i++)
			printf("%s\n", variant_knob_name(variant_knob_at(i)));
		return EXIT_NOFAIL;
	}
	if (only && !strcmp(only, "protocols")) {
		static const char *const p[] = { "locked", "v2", "merged" };

		for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
			enum pr_protocol v;

			/* only what the model accepts */
			if (!variant_protocol_parse(p[i], &v))
				printf("%s\n", p[i]);
		}
		return EXIT_NOFAIL;
	}
	for (int i = 0; pr_programs[i] && (!only || !strcmp(only, "programs")); i++)
		if (only)
			printf("%s\n", pr_programs[i]->name);
		else
			printf("%-24s %s\n", pr_programs[i]->name,
			       pr_programs[i]->summary);
	if (only && strcmp(only, "scenarios"))
		return EXIT_NOFAIL;
	scnpath_each_dir(collect, &l);
	if (!only && l.n)
		printf("\nscenarios (pagerace explore NAME):\n");
	for (int i = 0; i < l.n; i++) {
		char sum[256];

		if (only) {
			printf("%.*s\n", (int)strlen(l.name[i]) - 4, l.name[i]);
		} else {
			summary_of(l.path[i], sum, sizeof(sum));
			printf("%-24.*s %s\n", (int)strlen(l.name[i]) - 4,
			       l.name[i], sum);
		}
		free(l.name[i]);
		free(l.path[i]);
	}
	return EXIT_NOFAIL;
}
