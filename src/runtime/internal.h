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

/* sched.c: a ThreadSanitizer report arrived (tsan.c); note where. */
struct pr_tsan_report;
void pr_tsan_noted(struct pr_tsan_report *r);

/*
 * stress.c: free-running mode.  pr_stress_on is set while stress
 * iterations run (written only with every worker parked); each worker
 * thread's pr_stress_self is its context id, -1 on the main thread.
 */
#include <stdint.h>
struct pr_site;
extern int pr_stress_on;
extern __thread int pr_stress_self;
void pr_stress_yield_slow(const struct pr_site *site, const void *obj);
void pr_stress_spin(const struct pr_site *site, const void *obj);
void pr_stress_block(const struct pr_site *site, const void *waitq);
void pr_stress_wake(const void *waitq);
uint64_t pr_stress_step(void);
__attribute__((noreturn)) void pr_stress_fail(const char *kind,
					      const void *obj, const char *msg);
__attribute__((noreturn)) void pr_stress_crash(const char *what);

/* sched.c, for stress.c: the contexts a program's setup creates. */
struct pr_program;
struct pr_run_options;
struct pr_run_result;
void pr_sched_stress_setup(const struct pr_program *prog,
			   const struct pr_run_options *opts,
			   struct pr_run_result *res);
void pr_sched_ctx_body(int ctx, void (**fn)(void *), void **arg,
		       unsigned int *flags);
int pr_sched_stress_event(int ctx, unsigned int pick);
int pr_sched_ctx_has_events(int ctx);
void pr_sched_ctx_reset(int ctx);

#endif /* PAGERACE_RUNTIME_INTERNAL_H */
