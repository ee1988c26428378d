/* SPDX-License-Identifier: MIT */
/*
 * null_deref.c - check-then-use of a pointer another CPU clears.
 *
 * The reader tests the shared pointer, then loads it again to use it; if
 * the clearer runs in between, the reader dereferences NULL and the
 * process takes a SIGSEGV, which the runtime contains and reports as this
 * run's crash.  The fixed reader loads the pointer once.
 */
#include "programs/programs.h"

struct object {
	int value;
};

static struct object the_object;
static struct object *volatile shared;
static volatile int seen;

static void reader_racy(void *arg)
{
	(void)arg;
	PR_LOAD(&shared, "shared");
	if (shared != NULL) {
		PR_LOAD(&shared, "shared");
		seen = shared->value;
	}
}

static void reader_once(void *arg)
{
	struct object *p;

	(void)arg;
	PR_LOAD(&shared, "shared");
	p = shared;
	if (p != NULL) {
		PR_LOAD(p, "value");
		seen = p->value;
	}
}

static void clearer(void *arg)
{
	(void)arg;
	PR_STORE(&shared, "shared");
	shared = NULL;
}

static void setup(void *arg)
{
	the_object.value = 42;
	shared = &the_object;
	seen = 0;
	pr_name_object((const void *)&shared, "shared");
	pr_name_object(&the_object, "object");
	pr_spawn("reader", arg ? reader_once : reader_racy, NULL, 0);
	pr_spawn("clearer", clearer, NULL, 0);
}

const struct pr_program pr_prog_null_deref = {
	.name = "null-deref",
	.summary = "a reader tests a pointer then loads it again (crash)",
	.setup = setup, .arg = NULL,
};

const struct pr_program pr_prog_null_deref_fixed = {
	.name = "null-deref-fixed",
	.summary = "the same reader loading the pointer once",
	.setup = setup, .arg = (void *)1,
};
