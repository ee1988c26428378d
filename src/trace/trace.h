/* SPDX-License-Identifier: MIT */
/*
 * trace.h - the trace file: everything needed to replay one run exactly
 * (program, strategy and its parameters, seed, run index, run options) and
 * what that run did (its verdict and its schedule).
 *
 * The format is versioned, line-oriented text, specified line by line in
 * doc/trace-format.md.  The writer's output is a pure function of the
 * struct: equal traces give byte-identical files.  The reader is strict and
 * total: any input either parses or yields "FILE:LINE:COL: error: MESSAGE";
 * it never crashes, and its memory stays proportional to the input.
 *
 * This module knows runtime types only; it never prints.
 */
#ifndef PAGERACE_TRACE_H
#define PAGERACE_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "runtime/run.h"
#include "strategy/strategy.h"

/*
 * Written: 4 when the run read an older value under weak (stale-read
 * segments "r<N>"), 3 when it used a memory model other than sc (a
 * memory line, flush segments "m<N>"), else 2 (flavour and check lines),
 * so an sc trace is byte for byte what it always was, and so is a tso or
 * weak trace without stale reads.  Read: 1 to 4; a version 1 trace has
 * no flavour (PR_TRACE_FLAVOUR_UNKNOWN) and no check, and versions 1 and
 * 2 ran under sc.  A version 3 weak trace replays as it ran: its loads
 * read the newest value, as a load does unless a decision says otherwise.
 */
#define PR_TRACE_FORMAT		4
#define PR_TRACE_FORMAT_MIN	1
#define PR_TRACE_FORMAT_SC	2	/* what an sc trace is written as */
#define PR_TRACE_FORMAT_MEM	3	/* tso or weak without stale reads */

/* The memory models a trace names (memory/memory.h's numbering). */
enum { PR_TRACE_MEM_SC = 0, PR_TRACE_MEM_TSO, PR_TRACE_MEM_WEAK,
       PR_TRACE_MEM_NR };
/* "sc", "tso", "weak"; NULL out of range. */
const char *pr_trace_memory_name(int memory);

/* Which binary made the trace (pagerace or pagerace-tsan). */
enum pr_trace_flavour {
	PR_TRACE_FLAVOUR_UNKNOWN,	/* a version 1 trace */
	PR_TRACE_PLAIN,
	PR_TRACE_TSAN,
};
/* "plain", "tsan" ("unknown"); and the flavour of this build. */
const char *pr_trace_flavour_name(int flavour);
int pr_trace_build_flavour(void);

/*
 * The trace's check (doc/trace-format.md): 64-bit FNV-1a over @len bytes
 * of @buf, continuing from @h (start with PR_TRACE_HASH_INIT).
 */
#define PR_TRACE_HASH_INIT	0xcbf29ce484222325ull
uint64_t pr_trace_hash(uint64_t h, const char *buf, size_t len);

/* Limits, enforced by reader and writer alike (errors, never truncation). */
#define PR_TRACE_MAX_LINE	65536		/* bytes per line, without '\n' */
#define PR_TRACE_MAX_FILE	(1u << 30)	/* bytes per file */
#define PR_TRACE_MAX_SEGMENTS	(1u << 24)
#define PR_TRACE_MAX_SITES	(1u << 20)
#define PR_TRACE_MAX_OPTIONS	256
#define PR_TRACE_MAX_TEXT_LINES	(1u << 20)	/* lines of program-text */
#define PR_TRACE_SEGS_PER_LINE	16		/* writer's choice only */

/* Largest choice code: an injection id is an int8_t, so at most 127. */
#define PR_TRACE_MAX_CODE	(PR_CHOICE_EVENT + 127)
/* Flushes (format 3): PR_CHOICE_MEM + ctx * PR_MEM_SLOTS + slot. */
#define PR_TRACE_MAX_MEM	(PR_MAX_CTX * PR_MEM_SLOTS - 1)
/* Stale reads (format 4): PR_CHOICE_READ + ctx * PR_MEM_READS + k - 1. */
#define PR_TRACE_MAX_READ	(PR_MAX_CTX * PR_MEM_READS - 1)
_Static_assert(PR_CHOICE_MEM + PR_TRACE_MAX_MEM < PR_CHOICE_READ,
	       "stale-read codes come after flush codes");
_Static_assert(PR_TRACE_MAX_CODE < PR_CHOICE_MEM, "flush codes come last");

/* An extensible run setting, e.g. "max-steps" = "100000". */
struct pr_trace_option {
	char *key;	/* [A-Za-z0-9._-]+ */
	char *value;	/* any bytes but NUL */
};

/*
 * A trace owns every pointer in it: pr_trace_free() frees the strings, the
 * options, the site table and sched.seg.  To write a schedule borrowed from
 * elsewhere, clear t->sched (pr_schedule_init) before pr_trace_free().
 */
struct pr_trace {
	int format;			/* read: 1 or 2; written: PR_TRACE_FORMAT */
	int flavour;			/* enum pr_trace_flavour; init: this build's */
	int memory;			/* PR_TRACE_MEM_*; versions 1, 2: sc */
	char *pagerace_version;		/* writer's; NULL: PACKAGE_VERSION */
	char *program;			/* built-in program name or scenario path */
	char *program_text;		/* embedded scenario text, or NULL */
	unsigned long program_text_line; /* read: the file's line of its
					  * first line ("| ..."); 0: none */
	char *strategy;			/* "random", "pct" */
	struct pr_strategy_params params;
	uint64_t seed, run;
	struct pr_trace_option *opts;	/* sorted by key, keys unique */
	size_t nopts;
	struct pr_run_result result;
	/*
	 * Recorded schedules carry seg.end; read ones carry seg.end_label,
	 * pointing into @sites (end == NULL).  A segment without an end
	 * site (label "-" or empty, see pr_segment_end_label) is written
	 * without one and read back with end_label == NULL.
	 */
	struct pr_schedule sched;
	char **sites;			/* read traces: the site table */
	size_t nsites;
};

void pr_trace_init(struct pr_trace *t);
void pr_trace_free(struct pr_trace *t);

/* The value of option @key, or NULL if absent. */
const char *pr_trace_option(const struct pr_trace *t, const char *key);
/*
 * Set option @key to @value (both copied), replacing any previous value.
 * Returns 0, or -1 with errno EINVAL (bad key, too many options) or ENOMEM.
 */
int pr_trace_set_option(struct pr_trace *t, const char *key,
			const char *value);

/*
 * Can @t be written (and read back identically)?  Checks strings, ranges,
 * choice codes, zero-step segments and the limits.  0, or -1 with a message
 * in @err.
 */
int pr_trace_check(const struct pr_trace *t, char *err, size_t errlen);

/*
 * Write @t to @path whole, as util/outfile.h writes every output file: a
 * regular file via "@path.tmp.<pid>", fsync, rename; a symlink's target;
 * a device or FIFO written through.  On failure nothing is left behind and
 * @err says why ("PATH: what", no "error:" prefix: the caller adds its
 * own).  Returns 0 or -1.
 */
int pr_trace_write(const char *path, const struct pr_trace *t, char *err,
		   size_t errlen);

/*
 * Write @t as a new trace named @path (a buffer of @pathlen bytes): never
 * replacing a file, as pr_outfile_write_new() does.  A name held by a
 * different file gets the next free "-2", "-3", ... before ".trace"; one
 * held by the identical trace is reused.  @path then names the file that
 * holds @t.  Returns 0 or -1 with @err as pr_trace_write().
 */
int pr_trace_write_new(char *path, size_t pathlen, const struct pr_trace *t,
		       char *err, size_t errlen);

/*
 * The same text to a stream.  Returns 0, or -1 (errno EINVAL if
 * pr_trace_check() fails, in which case nothing is written; EIO if the
 * stream reports an error).
 */
int pr_trace_fprint(FILE *f, const struct pr_trace *t);

/*
 * Read a trace into @t (which need not be initialised).  Returns 0, or -1
 * with "FILE:LINE:COL: error: MESSAGE" in @err (columns are 1-based byte
 * offsets of the offending token) and @t left empty as after
 * pr_trace_init().
 */
int pr_trace_read(const char *path, struct pr_trace *t, char *err,
		  size_t errlen);
/* The same from memory; @name is used in messages. @buf needs no NUL. */
int pr_trace_parse(const char *name, const char *buf, size_t len,
		   struct pr_trace *t, char *err, size_t errlen);

#endif /* PAGERACE_TRACE_H */
