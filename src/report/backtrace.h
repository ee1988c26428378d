/* SPDX-License-Identifier: MIT */
/*
 * backtrace.h - symbolise the raw backtraces of the event log.
 *
 * Capture is unw_backtrace() in events.c (tens of nanoseconds); turning
 * addresses into "function (file:line)" is slow, so it is done once per
 * report, for the events the report shows, in one batch: the unique
 * return addresses are handed to binutils' addr2line (which knows DWARF
 * line tables and inlining), and the answers are cached.  Without
 * addr2line, or for code without debug information, frames fall back to
 * dladdr()'s symbol names, and the innermost model frame always comes
 * from the yield point itself, so a report still names the function and
 * line of every access.
 *
 * A printed backtrace holds model frames only: the runtime and report
 * frames above the yield point and the fiber entry below the context's
 * body are cut, and no address is ever printed, so reports are identical
 * from run to run despite ASLR.
 */
#ifndef PAGERACE_REPORT_BACKTRACE_H
#define PAGERACE_REPORT_BACKTRACE_H

#include <stdint.h>
#include <stdio.h>
#include "report/events.h"

struct pr_frame {
	char func[64];
	char file[96];		/* "src/model/filemap.c", "" if unknown */
	int line;
};

struct pr_symtab;

struct pr_symtab *pr_symtab_new(void);
void pr_symtab_free(struct pr_symtab *st);

/* Queue @e's addresses for the next pr_symtab_resolve(). */
void pr_symtab_add(struct pr_symtab *st, const struct pr_event *e);
/* Symbolise everything queued (one addr2line process). */
void pr_symtab_resolve(struct pr_symtab *st);

/*
 * The model frames of event @e, innermost first, at most @max.  Returns
 * how many were stored.  Addresses not yet resolved are resolved alone.
 */
int pr_backtrace_frames(struct pr_symtab *st, const struct pr_event *e,
			struct pr_frame *out, int max);

/* Print them, one "@indent func (file:line)" line each. */
void pr_backtrace_print(FILE *f, struct pr_symtab *st,
			const struct pr_event *e, const char *indent);

#endif /* PAGERACE_REPORT_BACKTRACE_H */
