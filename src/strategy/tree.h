/* SPDX-License-Identifier: MIT */
/*
 * tree.h - the exploration tree of the systematic strategies (dfs, dpor).
 *
 * Stateless search: every execution runs from the start.  The tree keeps
 * the path of the current execution, one node per decision; the next
 * execution replays the path down to a node with a choice still to take,
 * takes it, and goes on with new nodes below.  Each decision lets the
 * chosen process take exactly one step (budget 1), so a node is a state
 * and its event the step taken from it.
 *
 * What differs between dfs and dpor -- which choices a new node must
 * explore, which sleep -- is the policy's (struct pr_tree_policy).
 */
#ifndef PAGERACE_STRATEGY_TREE_H
#define PAGERACE_STRATEGY_TREE_H

#include <stddef.h>
#include "strategy/dependence.h"

#define PR_NO_PROC	0xff

struct pr_tnode {
	pr_procset enabled;	/* processes that can take a step here */
	pr_procset backtrack;	/* must be explored from here */
	pr_procset done;	/* explored, or under exploration */
	pr_procset sleep;	/* dpor: known to lead nowhere new */
	pr_procset psleep;	/* bounded dpor: new only as a block (dpor.c) */
	uint8_t chosen;		/* the process whose step follows */
	uint8_t cur;		/* the context that ran last, if it can go on */
	uint8_t top;		/* a branching node of a split search's top */
	uint8_t ntop;		/* top nodes on the path above this one */
	uint8_t cont;		/* bounded dpor: took a psleep process, or
				 * continues the block of one, so the child
				 * must let it go on (dpor.c) */
	/*
	 * Stale reads (weak): the chosen context's load may return one of
	 * @nver values (1: only the newest); @ver is the one this path
	 * takes, 0 the newest.  Every one is explored before another
	 * choice; such a choice is put to sleep (next_branch) only when
	 * every version's step touched the same (@vdiff clear: @vsig is the
	 * first version's step's footprint, pr_event_footprint).
	 */
	uint8_t ver, nver, vdiff;
	/*
	 * Unbounded dpor: the branches an observer asked for (a pair of
	 * bumps e_a < e_b reversed, dpor_reverse.c), and the processes of
	 * those e_b: below this node on such a branch, the sleepers there
	 * wake at a bump of a process in @tickfrom (bounded: at any bump,
	 * everywhere).
	 */
	pr_procset tickwake, tickfrom;
	uint64_t vsig;
	uint32_t preemptions;	/* on the path before this decision */
	/*
	 * Bounded dpor, while cont is set: the steps the psleep process's
	 * block must commute with, node[ps..pm) (pm: where it was taken).
	 */
	uint32_t ps, pm;
	size_t sleep_off;	/* dpor: the sleeping processes' steps, */
	uint32_t sleep_n;	/*  tree.sleepers[sleep_off..+sleep_n) */
	uint32_t pool_end;	/* tree.pool's steps of this node and above */
	struct pr_event ev;	/* the step taken from here */
};

struct pr_tree;

/* Tests: 1 never puts a step with older values to read to sleep. */
extern int pr_tree_stale_wake;

struct pr_tree_policy {
	/*
	 * A new node @n at depth @d (its parent, if any, is d - 1 and its
	 * event complete): set n->backtrack (and n->sleep) and return the
	 * process to take first, or PR_NO_PROC if every choice is known to
	 * be redundant (the run is then abandoned).
	 */
	int (*first)(struct pr_tree *t, size_t d);
	/*
	 * Node @nd's choice moves on from @old (explored) to nd->chosen: the
	 * cost change to record with old's step as a sleeper there, or
	 * INT8_MAX to record no sleeper.  NULL: every sleeper is plain
	 * (unbounded dpor; dfs records them but never reads them).
	 */
	int (*sleep_cost)(const struct pr_tree *t, const struct pr_tnode *nd,
			  int old);
	/* After a complete or abandoned execution of t->n nodes. */
	void (*analyse)(struct pr_tree *t);
	/*
	 * Is older value @ver of node @k's load redundant: reached with
	 * the same outcome by an execution that reads it as the newest?
	 * NULL: every older value is explored.
	 */
	int (*stale_redundant)(struct pr_tree *t, size_t k, int ver);
};

struct pr_tree {
	const struct pr_tree_policy *policy;
	char *error;		/* the strategy's, for divergences */
	size_t errlen;
	int bound;		/* preemption bound; -1: none */
	/*
	 * A split search (--shard I/N): the first `split` nodes with more
	 * than one enabled choice on every path are the top; each choice at
	 * the last of them, and each execution that ends before reaching it,
	 * is a leaf; leaves are numbered in the order the search meets them,
	 * the same in every shard, and shard I explores those numbered I
	 * modulo N.  Top nodes explore every choice they allow and put
	 * nothing to sleep, so the top is the same in every shard whatever
	 * the leaves below found.
	 */
	unsigned shard, shards;	/* shards 0: not split */
	unsigned split;
	int full_top;		/* the policy's top nodes explore all enabled */
	int effects;		/* record steps' effects (dpor; off while a
				 * prefix is replayed: pr_tree_pick) */
	uint64_t leaf;		/* leaves met */
	int foreign;		/* this execution is another shard's */
	uint64_t foreign_runs;

	struct pr_tnode *node;	/* the current execution's path */
	size_t n, cap;
	size_t prefix;		/* nodes to replay; the branch is the last */
	size_t pos;		/* decisions taken in this execution */
	size_t fresh;		/* first node new in this execution */
	/*
	 * dpor's sleep sets' steps, as indices into pool: a node's sleepers
	 * are mostly its parent's carried down, and copying each step (240
	 * bytes) at each new node was most of what a long run wrote.  pool
	 * holds the steps put to sleep (next_branch), a node's after its
	 * ancestors' (truncating to a node frees its descendants' too).
	 */
	uint32_t *sleepers;
	struct pr_event *pool;
	size_t npool, cappool;
	int8_t *sleepcost;	/* bounded dpor: each sleeper's cost change
				 * (dpor.c), parallel to sleepers */
	uint32_t *sleeporig;	/* and the node it was explored from */
	pr_procset *sleeptw;	/* unbounded dpor: the processes at whose
				 * bumps of the memory time the sleeper wakes
				 * (dpor_reverse.c, tickfrom) */
	size_t nsleepers, capsleepers;

	uint8_t target[PR_MAX_PROCS];	/* an injection's context */
	int code_of[PR_MAX_PROCS];	/* a process's choice code */
	pr_procset memprocs;	/* processes that are store-buffer flushes
				 * (never an injection's: interrupts_of) */
	/*
	 * A flush's process (dependence.h): proc + 1 by its code's offset
	 * from PR_CHOICE_MEM, 0 until first met; given from PR_MAX_PROCS - 1
	 * down.  The search replays its prefixes, so first-met order, and so
	 * the numbering, is the same in every execution.
	 */
	uint8_t mem_proc[PR_MAX_CTX * PR_MEM_SLOTS];
	int stretch;		/* the last pick granted replayed steps (tree.c) */
	int mem_procs;		/* given so far */
	/*
	 * dpor_first's order (pr_dpor_prefer), and while the policy's
	 * first() runs, the decision's choices and each process's index.
	 */
	pr_choice_score prefer;
	void *prefer_arg;
	const struct pr_choices *cs;
	int idx_of[PR_MAX_PROCS];
	int abandoned;		/* this execution */
	int exhausted;
	int bound_cut;
	uint64_t executions, blocked, max_depth;
};

void pr_tree_init(struct pr_tree *t, const struct pr_tree_policy *policy,
		  int bound, char *error, size_t errlen);
void pr_tree_free(struct pr_tree *t);
void pr_tree_begin_run(struct pr_tree *t);
int pr_tree_pick(struct pr_tree *t, const struct pr_choices *cs,
		 int64_t *budget);
void pr_tree_end_run(struct pr_tree *t);
void pr_tree_coverage(const struct pr_tree *t, struct pr_coverage *c);
/* Explore only shard @shard of @shards (before the first run). */
void pr_tree_split(struct pr_tree *t, unsigned shard, unsigned shards);

/*
 * The injections enabled at @nd that interrupt the context process @p
 * runs on.  Delivering an interrupt depends on every step of its context
 * (dependence.c, rule 4), and an interrupt need never be delivered, so no
 * later step of an execution races with the delivery it did not make:
 * a node taking a step of context c must explore c's interrupts too, or
 * no execution would ever deliver them there (c's first step excepted:
 * it commutes with deliveries, dependence.c).
 */
pr_procset pr_tree_interrupts_of(const struct pr_tree *t,
				 const struct pr_tnode *nd, int p);

/*
 * The choices node @nd may take within the preemption bound: all enabled,
 * or only the running context once the path holds bound preemptions
 * (and then notes that the bound cut something).
 */
pr_procset pr_tree_allowed(struct pr_tree *t, const struct pr_tnode *nd);

/* For policies: room for @n more sleeping steps; NULL if out of memory. */
uint32_t *pr_tree_sleepers_reserve(struct pr_tree *t, size_t n);

/* Sleeper @k's step. */
static inline const struct pr_event *pr_tree_sleeper(const struct pr_tree *t,
						     size_t k)
{
	return &t->pool[t->sleepers[k]];
}

/*
 * Node @nd (at depth @d) takes psleep process @p: it must start a block
 * (dpor.c, "Sleeping blocks"); set nd->cont, ps and pm.
 */
void pr_tree_take_psleeper(struct pr_tree *t, struct pr_tnode *nd, size_t d,
			   int p);

static inline int pr_proc_lowest(pr_procset s)
{
	return s ? __builtin_ctzll(s) : PR_NO_PROC;
}

#endif /* PAGERACE_STRATEGY_TREE_H */
