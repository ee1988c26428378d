/* SPDX-License-Identifier: MIT */
/*
 * interrupt.c - stop cleanly on SIGINT and SIGTERM (interrupt.h).
 */
#include "config.h"
#include "cli/interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	if (!caught)
		caught = sig;
}

void interrupt_catch(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* The second one is the default action: "stop now". */
	sa.sa_flags = SA_RESTART | SA_RESETHAND;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/*
		 * A signal ignored on entry stays ignored: a shell starts a
		 * background command (cmd &) with SIGINT ignored so that
		 * Ctrl-C does not reach it, and nohup-like wrappers do the
		 * same; catching it would undo their decision.
		 */
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int interrupt_pending(void)
{
	return caught;
}

const char *interrupt_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}
