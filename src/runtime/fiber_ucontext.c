/* SPDX-License-Identifier: MIT */
/*
 * fiber_ucontext.c - the portable context switch for hosts without a
 * hand-written one.  About twenty times slower than fiber_x86_64.S
 * (swapcontext saves the signal mask with a system call), but correct.
 */
#include "runtime/fiber.h"
#include "runtime/tsan.h"

#ifdef PR_FIBER_UCONTEXT

PR_NO_TSAN void pr_fiber_prepare(struct pr_fiber *f, void (*entry)(void))
{
	size_t guard = 4096;

	pr_fiber_fresh_stack(f);
	getcontext(&f->uc);
	f->uc.uc_stack.ss_sp = (char *)f->stack + guard;
	f->uc.uc_stack.ss_size = f->size - guard;
	f->uc.uc_link = NULL;
	makecontext(&f->uc, entry, 0);
}

PR_NO_TSAN void pr_fiber_switch(struct pr_fiber *from, struct pr_fiber *to)
{
	pr_fiber_tsan_enter(to);
	swapcontext(&from->uc, &to->uc);
}

#endif /* PR_FIBER_UCONTEXT */
