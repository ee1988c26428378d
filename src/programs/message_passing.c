/* SPDX-License-Identifier: MIT */
/*
 * message_passing.c - a writer publishes two messages, each a payload
 * then a sequence number; a reader checks that the pair it read matches.
 *
 * The buggy reader reads the payload first, then the sequence, and takes
 * the sequence as the payload's version.  It is wrong when it reads the
 * first payload (after the writer's first store, before its third) and
 * the second sequence (after the writer's last store): the writer must be
 * preempted early, and the
 * reader between its two loads, so every failing schedule has at least
 * two preemptions.  (A reader that sees no payload or no sequence yet has
 * nothing to check.)  The fixed version is a seqlock: the writer makes seq
 * odd while it writes, the reader retries unless seq was even and
 * unchanged around its read of the payload.
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
	v = LOAD(&buf);
	s = LOAD(&seq);
	if (v != 0 && s > v)
		pr_fail("torn-read", &buf,
			"read payload %d, then seq %d: the payload is older than the seq",
			v, s);
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
	for (;;) {
		s1 = LOAD(&seq);
		v = LOAD(&buf);
		s2 = LOAD(&seq);
		if (!(s1 & 1) && s1 == s2)
			break;
		PR_SPIN(&seq, "seq");	/* wait for the writer to move on */
	}
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
	.summary = "a reader trusts payload and seq read apart (needs 2 preemptions)",
	.setup = setup, .arg = NULL,
};

const struct pr_program pr_prog_message_passing_fixed = {
	.name = "message-passing-fixed",
	.summary = "the same as a seqlock: odd while writing, reader retries",
	.setup = setup, .arg = (void *)1,
};
