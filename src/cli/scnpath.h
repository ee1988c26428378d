/* SPDX-License-Identifier: MIT */
/*
 * scnpath.h - where a scenario named on the command line is found.
 *
 * "pagerace explore spec-irq" or "pagerace check spec-irq.scn" from any
 * directory: the argument is taken as a path first; if there is no such
 * file and it has no '/', it is looked up, as NAME and as NAME.scn, in
 * these folders, in order:
 *   1. each folder of $PAGERACE_SCENARIOS (colon-separated), the user's;
 *   2. for a binary run from the build tree it was built in (src/pagerace),
 *      the source tree's scenarios/;
 *   3. the installed library, PKGDATADIR/scenarios (make install);
 *   4. EXEDIR/../share/pagerace/scenarios, the library beside a binary
 *      installed elsewhere than its configured prefix (DESTDIR, a copy).
 */
#ifndef PAGERACE_CLI_SCNPATH_H
#define PAGERACE_CLI_SCNPATH_H

#include <stddef.h>

/*
 * The scenario file @arg names: @arg itself if it exists, else the first
 * match in the search folders.  0 and the path in @out, or -1.
 */
int scnpath_find(const char *arg, char *out, size_t outlen);

/* Call @fn for each search folder, in order (existing or not). */
void scnpath_each_dir(void (*fn)(const char *dir, void *arg), void *arg);

/* The search folders as "A:B:C", for error messages. */
void scnpath_describe(char *out, size_t outlen);

#endif /* PAGERACE_CLI_SCNPATH_H */
