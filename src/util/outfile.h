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
 * Remove "*.trace.tmp.PID" files in directory @dir whose process PID no longer
 * exists (left by a process killed while writing).  Returns how many were
 * removed; a missing directory is 0.
 */
int pr_outfile_clean_stale(const char *dir);

#endif /* PAGERACE_UTIL_OUTFILE_H */
