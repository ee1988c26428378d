/* SPDX-License-Identifier: MIT */
/*
 * internal.h - runtime functions shared between its own files only.
 */
#ifndef PAGERACE_RUNTIME_INTERNAL_H
#define PAGERACE_RUNTIME_INTERNAL_H

/* crash.c: contain SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL in a run. */
void pr_crash_install(void);

/* sched.c: turn a crash into the run's verdict; does not return. */
__attribute__((noreturn)) void pr_crash_verdict(const char *what);
int pr_crash_in_run(void);

/* objname.c: forget the names registered by the previous run. */
void pr_objname_reset(void);

#endif /* PAGERACE_RUNTIME_INTERNAL_H */
