/* SPDX-License-Identifier: MIT */
/*
 * message_passing.c - a writer publishes two messages through a sequence
 * number; a reader checks that the payload matches the sequence it saw.
 *
 * The buggy reader reads seq, then buf, and trusts the pair.  It fails
 * only if it reads seq after the first publication and buf after the
 * second overwrite began: the writer must be preempted after publishing,
 * and the reader between its two loads, so at least two preemptions.
 * The fixed version is a seqlock: the writer makes seq odd while it
 * writes, the reader retries unless seq was even and unchanged.
 */
#include "programs/programs.h"

static int seq, buf;

static void store(int *p, int v, const struct pr_site *site)
{
	pr_yield_at(site, p, 1);
	*p = v;
}

static int load(int *p, const struct pr_site *site)
{
	pr_yield_at(site, p, 0);
	return *p;
}

#define STORE(p, v) do { PR__SITE(PR_K_STORE, #p); store(p, v, &pr__site); } while (0)
#define LOAD(p) ({ PR__SITE(PR_K_LOAD, #p); load(p, &pr__site); })

static void writer_racy(void *arg)
{
	(void)arg;
	STORE(&buf, 1);
	STORE(&seq, 1);
	STORE(&buf, 2);
	STORE(&seq, 2);
}

static void reader_racy(void *arg)
{
	int s, v;

	(void)arg;
	s = LOAD(&seq);
	if (s == 0)
		return;
	v = LOAD(&buf);
	if (v != s)
		pr_fail("torn-read", &buf, "read seq %d but payload %d", s, v);
}

static void writer_seqlock(void *arg)
{
	(void)arg;
	for (int m = 1; m <= 2; m++) {
		STORE(&seq, 2 * m - 1);		/* odd: write in progress */
		STORE(&buf, m);
		STORE(&seq, 2 * m);
	}
}

static void reader_seqlock(void *arg)
{
	int s1, s2, v;

	(void)arg;
	do {
		s1 = LOAD(&seq);
		v = LOAD(&buf);
		s2 = LOAD(&seq);
	} while ((s1 & 1) || s1 != s2);
	if (s1 != 0 && v != s1 / 2)
		pr_fail("torn-read", &buf, "read seq %d but payload %d", s1, v);
}

static void setup(void *arg)
{
	seq = buf = 0;
	pr_name_object(&seq, "seq");
	pr_name_object(&buf, "buf");
	if (arg) {
		pr_spawn("writer", writer_seqlock, NULL, 0);
		pr_spawn("reader", reader_seqlock, NULL, 0);
	} else {
		pr_spawn("writer", writer_racy, NULL, 0);
		pr_spawn("reader", reader_racy, NULL, 0);
	}
}

const struct pr_program pr_prog_message_passing = {
	.name = "message-passing",
	.summary = "a reader trusts seq and payload read apart (needs 2 preemptions)",
	.setup = setup, .arg = NULL,
};

const struct pr_program pr_prog_message_passing_fixed = {
	.name = "message-passing-fixed",
	.summary = "the same as a seqlock: odd while writing, reader retries",
	.setup = setup, .arg = (void *)1,
};
