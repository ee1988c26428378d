/* SPDX-License-Identifier: MIT */
/*
 * outfile.h - how every command writes an output file (-o, traces).
 *
 * A regular file (or a name that does not exist yet) gets the whole
 * output or nothing: it is written to "TARGET.tmp.PID" beside it, synced
 * and renamed over TARGET, so a reader never sees half a trace.  A
 * symbolic link is followed: its target is replaced, the link stays.  A
 * character device or a FIFO (/dev/null, /dev/stdout, a pipe) is written
 * through, since renaming over it would replace the device node with a
 * regular file.  Anything else (a directory, a socket, a block device) is
 * refused with an error saying so.
 *
 * The temporary's name ends in ".tmp.PID" so pr_outfile_clean_stale() can
 * remove those of processes that died before renaming them (SIGKILL).
 */
#ifndef PAGERACE_UTIL_OUTFILE_H
#define PAGERACE_UTIL_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Write @path with @fill(f, @arg), which returns 0 or -1 with a message in
 * @msg (@msglen bytes).  Returns 0, or -1 with "PATH: what went wrong" in
 * @err (no "error:" prefix: the caller adds its own).
 */
int pr_outfile_write(const char *path,
		     int (*fill)(FILE *f, void *arg, char *msg, size_t msglen),
		     void *arg, char *err, size_t errlen);

/*
 * Write a new file named @path (a buffer of @pathlen bytes ending in
 * @ext, e.g. ".trace"): never replace one.  The whole output goes to a
 * temporary first, then is linked to the name, which fails rather than
 * replace what another run or process put there.  If the name is taken
 * by a regular file with the very same bytes (the same run made again:
 * output is deterministic), that file is the result; if by anything
 * else, the next free "STEM-2EXT", "STEM-3EXT", ... is used.  On success
 * @path holds the name that holds the output.  Returns 0, or -1 with
 * "PATH: what went wrong" in @err.
 */
int pr_outfile_write_new(char *path, size_t pathlen, const char *ext,
			 int (*fill)(FILE *f, void *arg, char *msg, size_t msglen),
			 void *arg, char *err, size_t errlen);

/*
 * Is @out the same file as @in (one inode, past symbolic links)?  A
 * command refuses to write its output over one of its inputs.
 */
int pr_outfile_is(const char *out, const char *in);

/*
 * Remove "*.trace.tmp.PID" files in directory @dir whose process PID no longer
 * exists (left by a process killed while writing).  Returns how many were
 * removed; a missing directory is 0.
 */
int pr_outfile_clean_stale(const char *dir);

#endif /* PAGERACE_UTIL_OUTFILE_H */
