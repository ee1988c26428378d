/* SPDX-License-Identifier: MIT */
/*
 * spin_livelock.c - naive two-flag mutual exclusion.
 *
 * Each CPU raises its flag, then spins while the other's is up.  If both
 * raise their flags before either looks, both spin forever and nobody
 * stores again: a livelock.  The fixed version is Peterson's algorithm,
 * whose turn variable breaks the tie.
 */
#include "programs/programs.h"

static int flag[2], turn, in_cs;

static void critical_section(int self)
{
	PR_RMW(&in_cs, "in_cs");
	if (__atomic_fetch_add(&in_cs, 1, __ATOMIC_SEQ_CST) != 0)
		pr_fail("mutual-exclusion", &in_cs,
			"cpu%d entered the critical section while it was taken",
			self);
	PR_RMW(&in_cs, "in_cs");
	__atomic_fetch_sub(&in_cs, 1, __ATOMIC_SEQ_CST);
}

static void naive(void *arg)
{
	int self = (int)(long)arg, other = !self;

	PR_STORE(&flag[self], "flag");
	flag[self] = 1;
	for (;;) {
		PR_LOAD(&flag[other], "flag");
		if (!flag[other])
			break;
		PR_SPIN(&flag[other], "flag");
	}
	critical_section(self);
	PR_STORE(&flag[self], "flag");
	flag[self] = 0;
}

static void peterson(void *arg)
{
	int self = (int)(long)arg, other = !self;

	PR_STORE(&flag[self], "flag");
	flag[self] = 1;
	PR_STORE(&turn, "turn");
	turn = other;
	for (;;) {
		PR_LOAD(&flag[other], "flag");
		if (!flag[other])
			break;
		PR_LOAD(&turn, "turn");
		if (turn != other)
			break;
		PR_SPIN(&turn, "turn");
	}
	critical_section(self);
	PR_STORE(&flag[self], "flag");
	flag[self] = 0;
}

static void setup(void *arg)
{
	pr_fn body = (pr_fn)arg;

	flag[0] = flag[1] = turn = in_cs = 0;
	pr_name_object(&flag[0], "flag[0]");
	pr_name_object(&flag[1], "flag[1]");
	pr_name_object(&turn, "turn");
	pr_name_object(&in_cs, "in_cs");
	pr_spawn("cpu0", body, (void *)0L, 0);
	pr_spawn("cpu1", body, (void *)1L, 0);
}

const struct pr_program pr_prog_spin_livelock = {
	.name = "spin-livelock",
	.summary = "two CPUs raise flags then spin on each other (livelock)",
	.setup = setup, .arg = (void *)naive,
};

const struct pr_program pr_prog_spin_livelock_fixed = {
	.name = "spin-livelock-fixed",
	.summary = "the same with Peterson's turn variable",
	.setup = setup, .arg = (void *)peterson,
};
