/* tests/tap.h -- minimal TAP producer for pagerace's C tests.
 *
 *	plan(3);                       (or no plan: done_testing() prints it)
 *	ok(x == 1, "x is %d", x);      returns the condition
 *	diag("seed %u", seed);         "# ..." comment line
 *	skip("no ucontext");           an ok with a SKIP directive
 *	return done_testing();         0 iff all passed and the plan matched
 *
 * Output is flushed after every line so a crashing test still reports. */
#ifndef PAGERACE_TESTS_TAP_H
#define PAGERACE_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct tap_state { int planned; int run; int failed; };

static inline struct tap_state *tap_state(void)
{
	static struct tap_state st = { -1, 0, 0 };
	return &st;
}

static inline void plan(int n)
{
	tap_state()->planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

__attribute__((format(printf, 4, 5)))
static inline int tap_ok_at(int cond, const char *file, int line, const char *fmt, ...)
{
	struct tap_state *st = tap_state();
	va_list ap;

	st->run++;
	printf("%sok %d - ", cond ? "" : "not ", st->run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		st->failed++;
		printf("#   Failed test at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}
#define ok(cond, ...) tap_ok_at(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

__attribute__((format(printf, 1, 2)))
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline void skip(const char *why)
{
	printf("ok %d # SKIP %s\n", ++tap_state()->run, why);
	fflush(stdout);
}

__attribute__((noreturn))
static inline void bail_out(const char *why)
{
	printf("Bail out! %s\n", why);
	fflush(stdout);
	exit(1);
}

static inline int done_testing(void)
{
	struct tap_state *st = tap_state();

	if (st->planned < 0)
		printf("1..%d\n", st->run);
	else if (st->planned != st->run)
		diag("planned %d tests but ran %d", st->planned, st->run);
	fflush(stdout);
	return (st->failed || (st->planned >= 0 && st->planned != st->run)) ? 1 : 0;
}

#endif /* PAGERACE_TESTS_TAP_H */
