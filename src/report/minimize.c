/* SPDX-License-Identifier: MIT */
/*
 * minimize.c - delta debugging over a schedule's decisions (minimize.h).
 *
 * Three moves, repeated until a round changes nothing or the run budget
 * is spent:
 *  0. shift a segment's steps into the same context's next (or previous)
 *     segment, so one switch goes but no context loses work;
 *  1. drop segments: chunks of n/2, n/4, ... 1 consecutive segments, as in
 *     ddmin's complement step -- a dropped switch is a preemption the
 *     failure may not need;
 *  2. move switches earlier: cut a segment to 1, 2, 4, ... or one fewer
 *     steps -- the other context starts sooner, so the run is shorter.
 * A candidate is adopted when it keeps the failure and is smaller; what
 * is adopted is the schedule the guided run really took, never the
 * proposal, so every later proposal starts from a feasible schedule.
 */
#include "report/minimize.h"
#include "strategy/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct minimizer {
	const struct pr_program *prog;
	const struct pr_run_options *ro;
	uint64_t seed, run, max_runs;
	const struct pr_verdict *want;
	struct pr_schedule best, rec, cand;
	struct pr_run_result best_res, res;
	struct pr_min_stats *st;
	int (*stop)(void);	/* the caller's "stop now" (Ctrl-C), or NULL */
	int oom;
};

/* No more candidates: the run budget is spent, memory ran out, or the
 * caller says stop (st->stopped: the result is the smallest so far). */
static int done(struct minimizer *m)
{
	if (m->stop && !m->st->stopped && m->stop())
		m->st->stopped = 1;
	return m->st->runs >= m->max_runs || m->oom || m->st->stopped;
}

int pr_same_failure(const struct pr_run_result *res,
		    const struct pr_verdict *want)
{
	return res->failed && !res->diverged &&
	       !strcmp(res->verdict.kind, want->kind) &&
	       !strcmp(res->verdict.site, want->site) &&
	       !strcmp(res->verdict.obj, want->obj);
}

/* Fewer preemptions, then fewer steps, then fewer segments. */
static int smaller(const struct pr_run_result *a, size_t an,
		   const struct pr_run_result *b, size_t bn)
{
	if (a->preemptions != b->preemptions)
		return a->preemptions < b->preemptions;
	if (a->steps != b->steps)
		return a->steps < b->steps;
	return an < bn;
}

static int copy_schedule(struct pr_schedule *dst, const struct pr_segment *seg,
			 size_t n)
{
	if (n > dst->cap) {
		struct pr_segment *s = realloc(dst->seg, n * sizeof(*s));

		if (!s)
			return -1;
		dst->seg = s;
		dst->cap = n;
	}
	if (n)
		memcpy(dst->seg, seg, n * sizeof(*seg));
	dst->n = n;
	return 0;
}

/* Run the proposal in m->cand; adopt it if it keeps the failure and wins. */
static int try_candidate(struct minimizer *m)
{
	struct pr_strategy *g;

	if (done(m))
		return 0;
	g = pr_guided_create(m->cand.seg, m->cand.n);
	if (!g) {
		m->oom = 1;
		return 0;
	}
	pr_run_once(m->prog, g, m->ro, m->seed, m->run, &m->rec, &m->res);
	g->ops->destroy(g);
	m->st->runs++;
	if (!pr_same_failure(&m->res, m->want) ||
	    !smaller(&m->res, m->rec.n, &m->best_res, m->best.n))
		return 0;
	if (copy_schedule(&m->best, m->rec.seg, m->rec.n)) {
		m->oom = 1;
		return 0;
	}
	m->best_res = m->res;
	return 1;
}

/* Move 1: drop chunks of segments, largest chunks first. */
static int drop_segments(struct minimizer *m)
{
	int any = 0;
	size_t chunk = m->best.n / 2 ? m->best.n / 2 : 1;

	for (;;) {
		int improved = 0;

		for (size_t start = 0; start < m->best.n;) {
			size_t end = start + chunk < m->best.n ?
				     start + chunk : m->best.n;

			if (done(m))
				return any;
			/* cand = best[0, start) + best[end, n) */
			if (copy_schedule(&m->cand, m->best.seg, m->best.n)) {
				m->oom = 1;
				return any;
			}
			memmove(m->cand.seg + start, m->cand.seg + end,
				(m->best.n - end) * sizeof(*m->cand.seg));
			m->cand.n -= end - start;
			if (m->cand.n && try_candidate(m)) {
				improved = any = 1;
				continue;	/* same start, new schedule */
			}
			start += chunk;
		}
		if (!improved) {
			if (chunk == 1)
				return any;
			chunk /= 2;
		}
	}
}

/*
 * Move 0: drop one switch but keep every context's work: segment i's
 * steps go to the same context's next segment (deferred) or previous one
 * (advanced).  Unlike a plain drop, the other contexts still find that
 * context as far along as before at their later turns.
 */
static int shift_segments(struct minimizer *m)
{
	int any = 0;

	for (size_t i = 0; i < m->best.n;) {
		int adopted = 0;

		for (int dir = 1; dir >= -1 && !adopted; dir -= 2) {
			long j = (long)i + dir;

			while (j >= 0 && (size_t)j < m->best.n &&
			       m->best.seg[j].code != m->best.seg[i].code)
				j += dir;
			if (j < 0 || (size_t)j >= m->best.n)
				continue;
			if (done(m))
				return any;
			if (copy_schedule(&m->cand, m->best.seg, m->best.n)) {
				m->oom = 1;
				return any;
			}
			m->cand.seg[j].steps += m->cand.seg[i].steps;
			memmove(m->cand.seg + i, m->cand.seg + i + 1,
				(m->cand.n - i - 1) * sizeof(*m->cand.seg));
			m->cand.n--;
			adopted = try_candidate(m);
		}
		if (adopted)
			any = 1;	/* same i: the schedule changed under it */
		else
			i++;
	}
	return any;
}

/* 1, 2, 4, ... then @steps - 1, then @steps (done). */
static uint32_t next_length(uint32_t s, uint32_t steps)
{
	if (s >= steps - 1)
		return steps;
	if (s <= (steps - 1) / 2)
		return s * 2 < steps - 1 ? s * 2 : steps - 1;
	return steps - 1;
}

/* Move 2: end each segment earlier (1, 2, 4, ... steps, or one fewer). */
static int earlier_switches(struct minimizer *m)
{
	int any = 0;

	for (size_t i = 0; i + 1 < m->best.n; i++) {
		uint32_t steps = m->best.seg[i].steps;

		for (uint32_t s = 1; s < steps; s = next_length(s, steps)) {
			if (done(m))
				return any;
			if (copy_schedule(&m->cand, m->best.seg, m->best.n)) {
				m->oom = 1;
				return any;
			}
			m->cand.seg[i].steps = s;
			if (try_candidate(m)) {
				any = 1;
				break;
			}
		}
	}
	return any;
}

int pr_minimize(const struct pr_program *prog, const struct pr_run_options *ro,
		uint64_t seed, uint64_t run, const struct pr_schedule *sched,
		const struct pr_verdict *want, uint64_t max_runs, int (*stop)(void),
		struct pr_schedule *out, struct pr_run_result *res,
		struct pr_min_stats *st, char *err, size_t errlen)
{
	struct minimizer m;
	struct pr_strategy *g;
	int rc = -1;

	memset(&m, 0, sizeof(m));
	memset(st, 0, sizeof(*st));
	m.prog = prog;
	m.ro = ro;
	m.seed = seed;
	m.run = run;
	m.max_runs = max_runs ? max_runs : 20000;
	m.stop = stop;
	m.want = want;
	m.st = st;
	pr_schedule_init(&m.best);
	pr_schedule_init(&m.rec);
	pr_schedule_init(&m.cand);
	pr_schedule_init(out);

	/* The starting point: the schedule as given, followed leniently. */
	g = pr_guided_create(sched->seg, sched->n);
	if (!g) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	pr_run_once(prog, g, ro, seed, run, &m.best, &m.best_res);
	g->ops->destroy(g);
	st->runs = 1;
	if (!pr_same_failure(&m.best_res, want)) {
		snprintf(err, errlen, "the schedule does not reproduce %s at %s on %s",
			 want->kind, want->site[0] ? want->site : "the end",
			 want->obj);
		goto out;
	}
	st->preemptions[0] = m.best_res.preemptions;
	st->steps[0] = m.best_res.steps;
	st->segments[0] = m.best.n;

	for (int round = 0; round < 8; round++) {
		int changed = shift_segments(&m);

		changed |= drop_segments(&m);
		changed |= earlier_switches(&m);
		if (!changed || done(&m))
			break;
	}
	if (m.oom) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	*out = m.best;
	pr_schedule_init(&m.best);
	*res = m.best_res;
	st->preemptions[1] = res->preemptions;
	st->steps[1] = res->steps;
	st->segments[1] = out->n;
	rc = 0;
out:
	pr_schedule_free(&m.best);
	pr_schedule_free(&m.rec);
	pr_schedule_free(&m.cand);
	return rc;
}
