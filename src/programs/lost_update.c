/* SPDX-License-Identifier: MIT */
/*
 * lost_update.c - two CPUs increment a shared counter.
 *
 * The buggy version loads and stores in two steps, so a preemption
 * between them loses the other CPU's increment; the fixed version
 * increments with one atomic read-modify-write.
 */
#include "programs/programs.h"

static int counter;

static void inc_racy(void *arg)
{
	int v;

	(void)arg;
	PR_LOAD(&counter, "counter");
	v = counter;
	PR_STORE(&counter, "counter");
	counter = v + 1;
}

static void inc_atomic(void *arg)
{
	(void)arg;
	PR_RMW(&counter, "counter");
	__atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
}

static void setup(void *arg)
{
	pr_fn body = (pr_fn)arg;

	counter = 0;
	pr_name_object(&counter, "counter");
	pr_spawn("cpu0", body, NULL, 0);
	pr_spawn("cpu1", body, NULL, 0);
}

static void finish(void *arg)
{
	(void)arg;
	if (counter != 2)
		pr_fail("lost-update", &counter,
			"counter is %d after two increments, expected 2",
			counter);
}

const struct pr_program pr_prog_lost_update = {
	.name = "lost-update",
	.summary = "two CPUs increment a counter with a load and a store (bug)",
	.setup = setup, .finish = finish, .arg = (void *)inc_racy,
};

const struct pr_program pr_prog_lost_update_fixed = {
	.name = "lost-update-fixed",
	.summary = "the same with an atomic increment",
	.setup = setup, .finish = finish, .arg = (void *)inc_atomic,
};
