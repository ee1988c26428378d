/* SPDX-License-Identifier: MIT */
/*
 * scnpath.c - the scenario search path (scnpath.h).
 */
#include "config.h"
#include "cli/scnpath.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PR_SCENARIO_DIR		/* set by the Makefile from pkgdatadir */
#define PR_SCENARIO_DIR "/usr/local/share/pagerace/scenarios"
#endif

/*
 * The source tree's scenarios/ for a binary that runs from the build tree
 * it was built in (src/pagerace, not installed): "" otherwise.
 */
static void source_tree(char *out, size_t outlen)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	out[0] = '\0';
#if defined(PR_BUILD_BINDIR) && defined(PR_SOURCE_SCENARIOS)
	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = '\0';
	if (!strcmp(exe, PR_BUILD_BINDIR))
		snprintf(out, outlen, "%s", PR_SOURCE_SCENARIOS);
#else
	(void)n;
	(void)slash;
	(void)exe;
	(void)outlen;
#endif
}

/* EXEDIR/../share/pagerace/scenarios, or "" if the binary is unknown. */
static void beside_binary(char *out, size_t outlen)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	out[0] = '\0';
	if (n <= 0)
		return;
	exe[n] = '\0';
	/* PREFIX/bin/pagerace -> PREFIX/share/pagerace/scenarios */
	for (int i = 0; i < 2; i++) {
		slash = strrchr(exe, '/');
		if (!slash)
			return;
		*slash = '\0';
	}
	snprintf(out, outlen, "%s/share/" PACKAGE "/scenarios", exe);
}

void scnpath_each_dir(void (*fn)(const char *dir, void *arg), void *arg)
{
	const char *env = getenv("PAGERACE_SCENARIOS");
	char dir[PATH_MAX + 64];

	while (env && *env) {
		size_t n = strcspn(env, ":");

		if (n && n < sizeof(dir)) {
			memcpy(dir, env, n);
			dir[n] = '\0';
			fn(dir, arg);
		}
		env += n;
		if (*env == ':')
			env++;
	}
	source_tree(dir, sizeof(dir));
	if (dir[0])
		fn(dir, arg);
	fn(PR_SCENARIO_DIR, arg);
	beside_binary(dir, sizeof(dir));
	if (dir[0])
		fn(dir, arg);
}

static int is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

struct find {
	const char *name;
	char *out;
	size_t outlen;
	int found;
};

static void try_dir(const char *dir, void *arg)
{
	struct find *f = arg;
	size_t n = strlen(f->name);
	int has_ext = n > 4 && !strcmp(f->name + n - 4, ".scn");

	if (f->found)
		return;
	snprintf(f->out, f->outlen, "%s/%s", dir, f->name);
	if (is_file(f->out)) {
		f->found = 1;
		return;
	}
	if (!has_ext) {
		snprintf(f->out, f->outlen, "%s/%s.scn", dir, f->name);
		f->found = is_file(f->out);
	}
}

int scnpath_find(const char *arg, char *out, size_t outlen)
{
	struct find f = { arg, out, outlen, 0 };

	if (!access(arg, F_OK) || strchr(arg, '/')) {
		snprintf(out, outlen, "%s", arg);
		return access(arg, F_OK) ? -1 : 0;
	}
	scnpath_each_dir(try_dir, &f);
	if (!f.found)
		snprintf(out, outlen, "%s", arg);
	return f.found ? 0 : -1;
}

struct describe {
	char *out;
	size_t outlen, off;
};

static void add_dir(const char *dir, void *arg)
{
	struct describe *d = arg;

	if (d->off < d->outlen)
		d->off += (size_t)snprintf(d->out + d->off, d->outlen - d->off,
					   "%s%s", d->off ? ":" : "", dir);
}

void scnpath_describe(char *out, size_t outlen)
{
	struct describe d = { out, outlen, 0 };

	out[0] = '\0';
	scnpath_each_dir(add_dir, &d);
}
