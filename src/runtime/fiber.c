/* SPDX-License-Identifier: MIT */
/*
 * fiber.c - stacks and the portable half of the context switch.
 */
#include "runtime/fiber.h"
#include "runtime/tsan.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

PR_NO_TSAN static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (size_t)p : 4096;
}

PR_NO_TSAN int pr_fiber_alloc(struct pr_fiber *f, size_t size)
{
	size_t pg = page_size();
	void *m;

	memset(f, 0, sizeof(*f));
	size = (size + pg - 1) & ~(pg - 1);
	m = mmap(NULL, size + pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	/* Stacks grow down: the guard page sits at the lowest address. */
	if (mprotect(m, pg, PROT_NONE) != 0) {
		munmap(m, size + pg);
		return -1;
	}
	f->stack = m;
	f->size = size + pg;
#if PR_TSAN_ENABLED
	f->tsan = __tsan_create_fiber(0);
#endif
	return 0;
}

#if PR_TSAN_ENABLED
void __tsan_ignore_thread_begin(void);	/* clang 14 exports them, no header */
void __tsan_ignore_thread_end(void);
void AnnotateIgnoreSyncBegin(const char *file, int line);
void AnnotateIgnoreSyncEnd(const char *file, int line);

/*
 * Ignores belong to the TSan fiber: set them on it.  A fiber destroyed
 * with ignores on makes ThreadSanitizer die ("finished with ignores
 * enabled"), so they are ended before every destroy.
 */
PR_NO_TSAN static void tsan_set_blind(struct pr_fiber *f, int on)
{
	void *cur = __tsan_get_current_fiber();

	if (!f->tsan || f->tsan_blind == on)
		return;
	__tsan_switch_to_fiber(f->tsan, __tsan_switch_to_fiber_no_sync);
	if (on) {
		__tsan_ignore_thread_begin();
		AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
	} else {
		AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
		__tsan_ignore_thread_end();
	}
	__tsan_switch_to_fiber(cur, __tsan_switch_to_fiber_no_sync);
	f->tsan_blind = on;
}
#endif

PR_NO_TSAN void pr_fiber_tsan_blind(struct pr_fiber *f)
{
#if PR_TSAN_ENABLED
	tsan_set_blind(f, 1);
#else
	(void)f;
#endif
}

PR_NO_TSAN void pr_fiber_release(struct pr_fiber *f)
{
	if (f->stack)
		munmap(f->stack, f->size);
	f->stack = NULL;
#if PR_TSAN_ENABLED
	tsan_set_blind(f, 0);
	if (f->tsan)
		__tsan_destroy_fiber(f->tsan);
	f->tsan = NULL;
#endif
}

PR_NO_TSAN void pr_fiber_tsan_renew(struct pr_fiber *f)
{
#if PR_TSAN_ENABLED
	tsan_set_blind(f, 0);
	if (f->tsan)
		__tsan_destroy_fiber(f->tsan);
	f->tsan = __tsan_create_fiber(0);
#else
	(void)f;
#endif
}

PR_NO_TSAN void pr_fiber_tsan_drop(struct pr_fiber *f)
{
#if PR_TSAN_ENABLED
	tsan_set_blind(f, 0);
	if (f->tsan)
		__tsan_destroy_fiber(f->tsan);
	f->tsan = NULL;
#else
	(void)f;
#endif
}

PR_NO_TSAN void pr_fiber_tsan_main(struct pr_fiber *main)
{
#if PR_TSAN_ENABLED
	if (!main->tsan)
		main->tsan = __tsan_get_current_fiber();
#else
	(void)main;
#endif
}

PR_NO_TSAN void pr_fiber_tsan_name(struct pr_fiber *f, const char *name)
{
#if PR_TSAN_ENABLED
	if (f->tsan)
		__tsan_set_fiber_name(f->tsan, name);
#else
	(void)f;
	(void)name;
#endif
}

PR_NO_TSAN void pr_fiber_tsan_enter(struct pr_fiber *f)
{
#if PR_TSAN_ENABLED
	if (f->tsan)
		__tsan_switch_to_fiber(f->tsan, __tsan_switch_to_fiber_no_sync);
#else
	(void)f;
#endif
}

/*
 * AddressSanitizer, when code built with it runs on our stacks (the
 * libFuzzer targets in tests/ link instrumented sources with this
 * uninstrumented runtime): a run that ends in a failure leaves its
 * contexts' frames on their stacks, redzones poisoned, and the next run
 * starts new frames over them, where ASan's own bookkeeping (the
 * sigaltstack call in __asan_handle_no_return) then writes into stale
 * poison and reports it.  A stack a context starts on is fresh: unpoison
 * it.  Weak: in every other build the symbol is absent and this is one
 * test of a null pointer per context started.
 */
extern void __asan_unpoison_memory_region(void const volatile *addr,
					  size_t size) __attribute__((weak));

PR_NO_TSAN void pr_fiber_fresh_stack(struct pr_fiber *f)
{
	if (__asan_unpoison_memory_region)
		__asan_unpoison_memory_region(f->stack, f->size);
}

#ifndef PR_FIBER_UCONTEXT

void pr_fiber_swap(void **save_sp, void *new_sp);

PR_NO_TSAN void pr_fiber_prepare(struct pr_fiber *f, void (*entry)(void))
{
	uintptr_t top = ((uintptr_t)f->stack + f->size) & ~(uintptr_t)15;
	void **sp = (void **)top;

	pr_fiber_fresh_stack(f);

	/*
	 * After pr_fiber_swap pops six registers and returns into @entry,
	 * %rsp must be 8 mod 16, as at any function entry.  The zero return
	 * address above @entry ends every backtrace taken on this stack.
	 */
	*--sp = NULL;
	*--sp = (void *)entry;
	for (int i = 0; i < 6; i++)
		*--sp = NULL;
	f->sp = sp;
}

/*
 * pagerace-tsan: announce the switch right before it, without a
 * happens-before edge (no_sync): the scheduler's choice of who runs next
 * is not synchronisation the model has.
 */
PR_NO_TSAN void pr_fiber_switch(struct pr_fiber *from, struct pr_fiber *to)
{
	if (PR_TSAN_ENABLED)	/* a no-op call in the plain build: none */
		pr_fiber_tsan_enter(to);
	pr_fiber_swap(&from->sp, to->sp);
}

#endif /* !PR_FIBER_UCONTEXT */
