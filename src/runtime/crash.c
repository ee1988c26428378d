/* SPDX-License-Identifier: MIT */
/*
 * crash.c - crash containment.
 *
 * A fault inside simulated code (a NULL dereference, a stack overflow into
 * a guard page, a failed assert) is a finding, not the end of the
 * exploration: the handler turns it into the run's verdict and jumps back
 * to the run loop, so the schedule that caused it is saved.  It runs on
 * its own stack because the faulting one may be the overflowed one.
 */
#define _GNU_SOURCE
#include "runtime/tsan.h"
#include "runtime/context.h"
#include "runtime/internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long crashes;	/* contained so far; see pr_crash_count */

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };

PR_NO_TSAN static const char *describe(int sig, int code)
{
	switch (sig) {
	case SIGSEGV:
		return code == SEGV_ACCERR ? "SIGSEGV: access to protected memory"
					   : "SIGSEGV: access to unmapped memory";
	case SIGBUS:	return "SIGBUS: bus error";
	case SIGABRT:	return "SIGABRT: abort (failed assertion?)";
	case SIGFPE:	return "SIGFPE: arithmetic exception";
	case SIGILL:	return "SIGILL: illegal instruction";
	}
	return "unknown signal";
}

PR_NO_TSAN static void crash_handler(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	if (!pr_crash_in_run()) {
		/* Not ours to contain: die as the signal intends. */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	crashes++;
	/*
	 * The kernel blocked @sig for the handler, and we leave by
	 * siglongjmp to a sigsetjmp that did not save the mask (saving it
	 * costs a system call per run): unblock it here, so the next run's
	 * crash is contained too.
	 */
	{
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
	}
	/* No addresses in the verdict: they differ from run to run. */
	pr_crash_verdict(describe(sig, info ? info->si_code : 0));
}

PR_NO_TSAN unsigned long pr_crash_count(void)
{
	return crashes;
}

PR_NO_TSAN void pr_crash_install(void)
{
	static int installed;
	static char altstack[64 * 1024];
	struct sigaction sa;
	stack_t ss;

	if (installed)
		return;
	installed = 1;
	memset(&ss, 0, sizeof(ss));
	ss.ss_sp = altstack;
	ss.ss_size = sizeof(altstack);
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = crash_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		sigaction(crash_signals[i], &sa, NULL);
}
