/* SPDX-License-Identifier: MIT */
/*
 * interrupt.h - SIGINT and SIGTERM during a long command: stop at the end
 * of the current run, report what was done, exit 128 + the signal.
 *
 * The handler only records the signal; the run loops (explore.c, and each
 * --jobs worker in jobs.c, which inherit the handler across fork) poll
 * interrupt_pending() between runs.  A run is never cut in half, so every
 * count printed is of whole runs, and no file is ever half written (output
 * files also hold the signals while their temporary exists, outfile.h).
 * A second signal of the same kind kills at once, as usual.  A signal
 * ignored when pagerace starts (a background command of a shell without
 * job control, nohup) stays ignored.
 */
#ifndef PAGERACE_CLI_INTERRUPT_H
#define PAGERACE_CLI_INTERRUPT_H

/* Catch SIGINT and SIGTERM from now on (unless ignored on entry). */
void interrupt_catch(void);
/* The signal caught (SIGINT, SIGTERM), or 0. */
int interrupt_pending(void);
/* "SIGINT", "SIGTERM". */
const char *interrupt_name(int sig);

#endif /* PAGERACE_CLI_INTERRUPT_H */
