/* SPDX-License-Identifier: MIT */
/*
 * abba.c - two CPUs take two sleeping locks in opposite orders.
 *
 * cpu0 takes A then B, cpu1 takes B then A: if each gets its first lock
 * before the other's second, both sleep forever (AB-BA deadlock).  The
 * fixed version takes them in one global order.
 */
#include "programs/programs.h"

struct sleeplock {
	int held;
};

static struct sleeplock lock_a, lock_b;
static int fixed_order;

static void lock(struct sleeplock *l)
{
	for (;;) {
		PR_LOCK(l, "held");
		if (!l->held) {
			l->held = 1;
			return;
		}
		PR_BLOCK(l, "held");
	}
}

static void unlock(struct sleeplock *l)
{
	PR_UNLOCK(l, "held");
	l->held = 0;
	pr_wake(l);
}

static void take_both(struct sleeplock *first, struct sleeplock *second)
{
	lock(first);
	lock(second);
	unlock(second);
	unlock(first);
}

static void cpu0(void *arg)
{
	(void)arg;
	take_both(&lock_a, &lock_b);
}

static void cpu1(void *arg)
{
	(void)arg;
	if (fixed_order)
		take_both(&lock_a, &lock_b);
	else
		take_both(&lock_b, &lock_a);
}

static void setup(void *arg)
{
	fixed_order = arg != NULL;
	lock_a.held = lock_b.held = 0;
	pr_name_object(&lock_a, "lock_a");
	pr_name_object(&lock_b, "lock_b");
	pr_spawn("cpu0", cpu0, NULL, 0);
	pr_spawn("cpu1", cpu1, NULL, 0);
}

const struct pr_program pr_prog_abba = {
	.name = "abba",
	.summary = "two CPUs take two locks in opposite orders (deadlock)",
	.setup = setup, .arg = NULL,
};

const struct pr_program pr_prog_abba_fixed = {
	.name = "abba-fixed",
	.summary = "the same, both in the order A then B",
	.setup = setup, .arg = (void *)1,
};
