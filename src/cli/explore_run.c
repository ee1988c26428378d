/* SPDX-License-Identifier: MIT */
/*
 * explore_run.c - the runs of one exploration process (explore.h):
 * explore_loop runs a range of runs, explore_failure reports a failing
 * one and saves its trace, explore_progress draws the progress line.
 * The command (explore.c) and the job runners (jobs.c, jobs_tree.c) call
 * these; nothing here calls back into either.
 */
#include "config.h"
#include "cli/cli.h"
#include "cli/explore.h"
#include "cli/interrupt.h"
#include "memory/memory.h"
#include "model/variant.h"
#include "report/verdict.h"
#include "scenario/scenario.h"
#include "trace/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

double explore_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The variant's knobs, comma-separated in the registry's order, into
 * @knobs (truncated at @size); returns 0 when no knob is on.
 */
size_t explore_format_knobs(char *knobs, size_t size)
{
	size_t off = 0;

	knobs[0] = '\0';
	for (unsigned i = 0; i < variant_nr_knobs(); i++) {
		enum pr_knob k = variant_knob_at(i);

		if ((variant.knobs & k) && off < size)
			off += (size_t)snprintf(knobs + off, size - off,
						"%s%s", off ? "," : "",
						variant_knob_name(k));
	}
	return off;
}

/* The model's variant travels with the trace, so replay can restore it. */
static void variant_to_options(struct pr_trace *t)
{
	char knobs[512], num[16];

	pr_trace_set_option(t, "protocol", variant_protocol_name(variant.protocol));
	pr_trace_set_option(t, "knobs",
			    explore_format_knobs(knobs, sizeof(knobs)) ? knobs : "none");
	snprintf(num, sizeof(num), "%u", variant.radix_map_shift);
	pr_trace_set_option(t, "radix-shift", num);
}

static int save_trace(const struct target *tg, const struct explore_opts *o,
		      uint64_t run, const struct pr_run_result *res,
		      struct pr_schedule *rec, char *path, size_t pathlen)
{
	struct pr_trace t;
	char err[512], num[32];
	int rc, fresh = 0;

	if (o->output && path[0] == '\0') {
		snprintf(path, pathlen, "%s", o->output);
	} else {
		if (mkdir(o->trace_dir, 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "%s explore: error: %s: cannot create the trace folder: %s\n",
				pr_argv0, o->trace_dir, strerror(errno));
			return -1;
		}
		char what[64], model[48] = "";

		/*
		 * The name says what a run depends on besides the program:
		 * the memory model (when not sc), the flavour (when TSan),
		 * the seed or the systematic search, and the run.  Protocol,
		 * knobs and the rest live in the trace; a name another trace
		 * already holds gets a "-2" suffix (pr_trace_write_new).
		 */
		if (o->memory != PR_MEM_SC)
			snprintf(model, sizeof(model), "-%s", pr_mem_name(o->memory));
		if (pr_trace_build_flavour() == PR_TRACE_TSAN)
			strncat(model, "-tsan", sizeof(model) - strlen(model) - 1);
		/* A systematic search has no seed; its shards number alike. */
		if (explore_systematic(o->strategy) && o->shards)
			snprintf(what, sizeof(what), "%s-shard%uof%u", o->strategy,
				 o->shard, o->shards);
		else if (explore_systematic(o->strategy))
			snprintf(what, sizeof(what), "%s", o->strategy);
		else
			snprintf(what, sizeof(what), "seed%llu",
				 (unsigned long long)o->seed);
		snprintf(path, pathlen, "%s/%s%s-%s-run%llu.trace", o->trace_dir,
			 tg->short_name, model, what, (unsigned long long)run);
		fresh = 1;
	}
	pr_trace_init(&t);
	t.program = (char *)tg->name;
	t.program_text = tg->text;	/* NULL for a built-in program */
	t.strategy = (char *)o->strategy;
	t.params = o->params;
	t.seed = o->seed;
	t.run = run;
	t.result = *res;
	t.sched = *rec;
	t.memory = o->memory;
	snprintf(num, sizeof(num), "%llu", (unsigned long long)o->run.max_steps);
	pr_trace_set_option(&t, "max-steps", num);
	variant_to_options(&t);
	/* -o names the file to write; a trace folder's files are never replaced. */
	rc = fresh ? pr_trace_write_new(path, pathlen, &t, err, sizeof(err))
		   : pr_trace_write(path, &t, err, sizeof(err));
	/* The strings and the schedule are borrowed: only free the options. */
	t.program = t.strategy = t.program_text = NULL;
	pr_schedule_init(&t.sched);
	pr_trace_free(&t);
	if (rc) {
		fprintf(stderr, "%s explore: error: %s\n", pr_argv0, err);
		return -1;
	}
	return 0;
}

/* "1h02m", "3m05s", "42s": a duration for the progress line. */
static const char *duration(double secs, char *buf, size_t len)
{
	uint64_t t = secs > 0 ? (uint64_t)(secs + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%" PRIu64 "h%02um", t / 3600,
			 (unsigned)(t % 3600 / 60));
	else if (t >= 60)
		snprintf(buf, len, "%um%02us", (unsigned)(t / 60),
			 (unsigned)(t % 60));
	else
		snprintf(buf, len, "%us", (unsigned)t);
	return buf;
}

/*
 * The progress line on a terminal: with a known number of runs, the
 * total, the percentage done and an estimate of the time left (from the
 * rate so far); under --time, the time spent of the budget.
 */
void explore_progress(struct explore_state *st)
{
	char fails[48], a[32], b[32];
	double elapsed, rate;

	if (!st->tty)
		return;
	elapsed = explore_now() - st->t0;
	if (elapsed - st->last_progress < 0.25)
		return;
	st->last_progress = elapsed;
	rate = elapsed > 0 ? st->done / elapsed : 0.0;
	plural(st->failures, "failure", fails, sizeof(fails));
	if (st->o.time_budget > 0)
		fprintf(stderr, "\r%s: %llu runs, %.0f runs/s, %s, %s elapsed of %s   ",
			st->tg.name, (unsigned long long)st->done, rate, fails,
			duration(elapsed, a, sizeof(a)),
			duration(st->o.time_budget, b, sizeof(b)));
	else
		fprintf(stderr, "\r%s: %llu/%llu runs (%.0f%%), %.0f runs/s, %s, ETA %s   ",
			st->tg.name, (unsigned long long)st->done,
			(unsigned long long)st->len,
			st->len ? 100.0 * st->done / st->len : 100.0, rate, fails,
			rate > 0 ? duration((st->len - st->done) / rate, a, sizeof(a))
				 : "?");
}

/* Keep @res's record for the summary's list of failing runs. */
static int remember_failure(struct explore_state *st, uint64_t run,
			    const struct pr_run_result *res, const char *path)
{
	struct summary_failure *f;

	f = realloc(st->failed, (st->nfailed + 1) * sizeof(*f));
	if (!f)
		return -1;
	st->failed = f;
	f += st->nfailed;
	memset(f, 0, sizeof(*f));
	f->run = run;
	f->step = res->verdict.step;
	snprintf(f->kind, sizeof(f->kind), "%s", res->verdict.kind);
	f->message = strdup(res->verdict.msg);
	f->trace = strdup(path);
	if (!f->message || !f->trace) {
		free(f->message);
		free(f->trace);
		return -1;
	}
	st->nfailed++;
	return 0;
}

int explore_failure(struct explore_state *st, uint64_t run,
		    const struct pr_run_result *res, struct pr_schedule *rec)
{
	char path[4096] = "", nth[32];
	int saved;

	/*
	 * A body misused what it holds (scn_runtime_error, "LINE:COL: ..."):
	 * bad input, reported where it is, never a race and never a trace.
	 */
	if (!strcmp(res->verdict.kind, SCN_ERROR_KIND)) {
		const char *m = res->verdict.msg, *sep = strstr(m, ": ");

		if (st->tty)
			fputc('\n', stderr);
		fprintf(stderr, "%s:%.*s: error: %s (run %llu)\n", st->tg.name,
			sep ? (int)(sep - m) : 0, m, sep ? sep + 2 : m,
			(unsigned long long)run);
		return -1;
	}
	st->failures++;
	if (st->tty)
		fputc('\n', stderr);
	/* The verdict first: it is news even if the trace cannot be saved. */
	if (!st->o.json) {
		printf("%s: FAILED at run #%llu (the %s; seed %llu, strategy %s)\n",
		       st->tg.name, (unsigned long long)run,
		       ordinal(run + 1, nth, sizeof(nth)),
		       (unsigned long long)st->o.seed, st->o.strategy);
		pr_report_verdict(stdout, res, rec->n);
		fflush(stdout);
	}
	saved = !save_trace(&st->tg, &st->o, run, res, rec, path, sizeof(path));
	if (!saved)
		return -1;
	if (!st->o.json)
		printf("  trace:    %s\n  replay:   %s replay %s\n",
		       path, pr_argv0, path);
	if (st->failures == 1) {
		st->first = *res;
		st->first_run = run;
		snprintf(st->first_path, sizeof(st->first_path), "%s", path);
	}
	if (remember_failure(st, run, res, path)) {
		fprintf(stderr, "%s explore: error: out of memory\n", pr_argv0);
		return -1;
	}
	return 0;
}

/* Explore [st->lo, st->lo + st->len) in this process. */
int explore_loop(struct explore_state *st)
{
	struct pr_schedule rec;
	struct pr_run_result res;
	int rc = EXIT_NOFAIL;

	pr_schedule_init(&rec);
	for (uint64_t run = st->lo; ; run++) {
		if (interrupt_pending()) {
			st->stopped = STOP_INTERRUPT;
			break;
		}
		if (st->strat->ops->exhausted &&
		    st->strat->ops->exhausted(st->strat))
			break;
		if (st->o.time_budget > 0) {
			if ((st->done & 255) == 0 &&
			    explore_now() - st->t0 >= st->o.time_budget) {
				st->stopped = STOP_TIME;
				break;
			}
		} else if (st->done == st->len) {
			st->stopped = STOP_BUDGET;
			break;
		}
		if (pr_run_once(st->tg.prog, st->strat, &st->o.run, st->o.seed,
				run, &rec, &res)) {
			st->done++;
			if (explore_failure(st, run, &res, &rec)) {
				rc = EXIT_BADINPUT;
				break;
			}
			rc = EXIT_FOUND;
			if (!st->o.keep_going) {
				st->stopped = STOP_FAILURE;
				break;
			}
			continue;
		}
		st->done++;
		if (res.abandoned)
			st->blocked++;
		if ((st->done & 1023) == 0)
			explore_progress(st);
	}
	pr_schedule_free(&rec);
	return rc;
}
