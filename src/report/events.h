/* SPDX-License-Identifier: MIT */
/*
 * events.h - replay instrumentation: the event log of one run.
 *
 * Exploration records decisions only.  To explain a run, the report
 * replays its schedule with a single-stepping replay strategy and this
 * recorder installed as the runtime's step and decision observer: every
 * step becomes an event with its context (and whether it ran in an
 * interrupt handler), yield point, object, the object's value before the
 * access and at that context's next step, the read-side and interrupt
 * state, and the raw return addresses of a libunwind backtrace.  Nothing
 * is symbolised or named here beyond what must be read while the run is
 * live (object names, values); backtraces are symbolised only for what a
 * report shows (backtrace.h).
 */
#ifndef PAGERACE_REPORT_EVENTS_H
#define PAGERACE_REPORT_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/run.h"

#define PR_EV_MAX_IPS	32	/* raw frames kept per event */
#define PR_EV_NAME	48
#define PR_EV_VALUE	56

/* Event kinds beyond the yield-point kinds (enum pr_kind). */
enum {
	PR_EV_EXIT = PR_K_NR,	/* the context finished */
	PR_EV_IRET,		/* an interrupt handler returned */
	/* lifetime notes (log->life, lifetime.c), not steps of their own */
	PR_EV_ALLOC,		/* a pool object was allocated */
	PR_EV_FREE,		/* ... freed */
	PR_EV_RCU_QUEUE,	/* ... queued by call_rcu for freeing */
};

struct pr_event {
	uint64_t step;
	int ctx;
	int inject;		/* the handler running on ctx, -1: none */
	int kind;		/* enum pr_kind or PR_EV_* */
	const struct pr_site *site;	/* NULL for PR_EV_* */
	char label[128];	/* func:kind[:tag] */
	char obj[PR_EV_NAME];	/* object name, "-" for none */
	char before[PR_EV_VALUE];	/* value at the yield point, "" unknown */
	char after[PR_EV_VALUE];	/* at ctx's next step, "" unknown */
	unsigned char in_rcu;	/* inside rcu_read_lock */
	unsigned char irqs_off;	/* interrupts disabled */
	unsigned char preempted;	/* ctx was preempted right after it */
	const void *addr;	/* the object, while the run's memory lives */
	int nip;
	uintptr_t ip[PR_EV_MAX_IPS];
};

/* A decision of the run, as the decision observer saw it. */
struct pr_switch {
	uint64_t step;		/* steps taken before the choice runs */
	int from;		/* context that ran, -1 at the start */
	int to;			/* context chosen */
	int inject;		/* injection delivered, -1: none */
	int preempted;		/* @from was still runnable */
};

/*
 * What a store buffer did in a tso or weak run (memory/memory.h), one
 * note per store, flush and load that met a buffered store.
 */
struct pr_mem_note {
	int kind;		/* PR_ME_STORE, _FLUSH, _FORWARD, _STALE */
	int ctx;		/* the CPU whose buffer holds the store */
	int reader;		/* FORWARD, STALE: the loading CPU */
	unsigned size;
	uint64_t val;		/* the store's value */
	uint64_t seen;		/* STALE: what the reader got */
	uint64_t store_step;	/* when the store was made */
	uint64_t step;		/* when this happened */
	char obj[PR_EV_NAME];
	char val_s[PR_EV_VALUE];	/* @val and @seen as reports show */
	char seen_s[PR_EV_VALUE];	/* them (pr_event_format_value) */
};

struct pr_event_log {
	struct pr_event *ev;
	size_t n, cap;
	int memory;		/* the run's model: memory/memory.h's enum */
	struct pr_mem_note *mem;	/* in step order; none under sc */
	size_t nmem, memcap;
	struct pr_switch *sw;
	size_t nsw, swcap;
	/*
	 * Allocations, frees and call_rcu of pool objects, in order: each
	 * an event with the step (and context) during which it happened,
	 * ctx -1 for the program's set-up, and a backtrace.
	 */
	struct pr_event *life;
	size_t nlife, lifecap;
	int nctx;
	char ctx_name[PR_MAX_CTX][32];
	int ninj;
	char inj_name[PR_MAX_INJECT][32];
	int oom;		/* an allocation failed: the log is short */
};

/*
 * Run @prog once under a single-stepping replay of @sched, recording every
 * step into @log.  @also (may be NULL) is called at every step too (replay
 * --log); when @break_at is not 0, SIGTRAP is raised just before step
 * @break_at runs.  The result goes to @res, the recorded schedule to @rec
 * (may be NULL).  Returns pr_run_once's value.
 */
int pr_events_replay(struct pr_event_log *log, const struct pr_program *prog,
		     const struct pr_schedule *sched,
		     const struct pr_run_options *ro, uint64_t seed,
		     uint64_t run, pr_step_observer also, uint64_t break_at,
		     struct pr_schedule *rec, struct pr_run_result *res);

void pr_event_log_init(struct pr_event_log *log);
void pr_event_log_free(struct pr_event_log *log);

/*
 * The @size bytes at @addr as a report shows them: a number, "&page#1"
 * for an address the namer knows, never a raw pointer.
 */
void pr_event_format_value(const void *addr, unsigned size, char *buf,
			   size_t len);

/* "page#1._count" -> "page#1": the object an access belongs to. */
void pr_event_base(const char *obj, char *buf, size_t len);

#endif /* PAGERACE_REPORT_EVENTS_H */
