/* SPDX-License-Identifier: MIT */
/*
 * litmus.c - `pagerace litmus [OPTIONS] FILE.litmus...`: run each test
 * exhaustively (dpor, or dfs, no preemption bound), print the final
 * states reached and whether the condition was, and check that against
 * the file's Result: line, herd7's verdict under the Linux-kernel memory
 * model (LKMM).
 *
 * Agreement.  pagerace's models are at least as strong as LKMM (sc and
 * tso are much stronger), so:
 *  - Never: the condition must never hold; a run where it does is a
 *    disagreement (pagerace allows what LKMM forbids: a bug in pagerace's
 *    kernel primitives or memory model), and its trace is saved;
 *  - Always: it must hold in every run; a run where it does not is a
 *    disagreement, with its trace;
 *  - Sometimes: reaching it shows pagerace covers that weakness; not
 *    reaching it is no disagreement ("not reached under sc (allowed by
 *    LKMM)"): the outcome needs more reordering than the model has.
 * A run that ends in another verdict (a deadlock, a bad pointer) is an
 * error of the test or of the kernel layer: reported, trace saved, exit 1.
 *
 * Exit status: 0 every test agrees, 1 a disagreement or an error, 2 bad
 * input (the worst over all files).
 *
 * SIGINT or SIGTERM (interrupt.h): the test under way stops at the end of
 * its current run and reports what its search reached, as an incomplete
 * one ("interrupted by SIGINT"); the tests after it are not run; a line
 * on stderr says how many were done; exit 128 + the signal.
 */
#include "cli/cli.h"
#include "cli/interrupt.h"
#include "cli/litmus_goal.h"
#include "litmus/litmus.h"
#include "memory/graph.h"
#include "memory/memory.h"
#include "model/variant.h"
#include "trace/trace.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define LITMUS_TRACE_DIR	"pagerace-traces"
#define GOAL_SOME_PROCS		5	/* see run_test */

static void litmus_usage(FILE *f)
{
	fprintf(f,
"usage: %s litmus [OPTIONS] FILE.litmus...\n"
"\n"
"Run each litmus test (herd7's C dialect: the Linux-kernel memory model's\n"
"tests) exhaustively on pagerace's kernel primitives, print the final\n"
"states reached, whether the condition is, and whether that agrees with\n"
"the file's Result: line (Never, Sometimes, Always).\n"
"\n"
"  -m, --memory MODEL      memory model: sc (default), tso, weak, or lkmm\n"
"                          (the kernel's model exactly, by execution graphs)\n"
"      --engine E          run (default under sc, tso, weak: the test's\n"
"                          runs on the kernel layer) or graph (under sc,\n"
"                          tso, lkmm: every execution graph the model\n"
"                          allows, each once)\n"
"  -s, --strategy S        dpor (default) or dfs; never a preemption bound\n"
"  -n, --max-executions N  stop a test after N executions (default 1000000;\n"
"                          0: no limit); it is then 'incomplete'\n"
"  -t, --time-budget SECS  stop a test after SECS seconds (default: none);\n"
"                          a search unfinished after a quarter of it (for\n"
"                          a Never or Sometimes test whose exists clause\n"
"                          fixes registers) goes on with the goal search\n"
"                          (--goal) to the end (Never) or half of it\n"
"                          (Sometimes); otherwise after three quarters\n"
"                          (half, for a Sometimes test); the rest goes to\n"
"                          sampled runs until the condition is reached:\n"
"                          under tso and weak random ones, and for a\n"
"                          Sometimes test under any model the witness\n"
"                          sampler, steered towards the values the exists\n"
"                          clause wants (its run is saved as a trace)\n"
"      --sometimes-budget SECS  with -t, a Sometimes test's whole budget\n"
"                          (when more than -t): the searches keep their\n"
"                          shares of -t, the witness sampler gets the rest\n"
"      --max-steps N       a run longer than N steps is a livelock\n"
"      --goal              decide only whether the exists clause can hold:\n"
"                          a search of the test cut where a register the\n"
"                          clause fixes gets a value it rejects (no final\n"
"                          states; a clause that fixes no register: the\n"
"                          whole search; --brief's executions are then\n"
"                          the goal search's)\n"
"      --trace-dir DIR     where disagreements' traces go (default\n"
"                          ./" LITMUS_TRACE_DIR ")\n"
"  -b, --brief             one tab-separated line per test: file, Result,\n"
"                          verdict, executions, coverage, milliseconds,\n"
"                          reached/not-reached (or the failure), CPUs\n"
"  -q, --quiet             print only each test's verdict line\n"
"  -h, --help              this text\n"
"\n"
"A disagreement (a Never condition reached, an Always one missed) saves\n"
"the run's trace, which '%s replay' and '%s show' explain.  A Sometimes\n"
"condition not reached is not one: the model is stronger than LKMM.\n"
"Exit status: 0 every test agrees, 1 a disagreement or a run that failed\n"
"otherwise, 2 bad input (file:line:col: error: unsupported ...),\n"
"130/143 interrupted by SIGINT/SIGTERM (Ctrl-C: the test under way\n"
"reports its search so far, the rest are not run).\n",
		pr_argv0, pr_argv0, pr_argv0);
}

enum { OPT_MAX_STEPS = 256, OPT_TRACE_DIR, OPT_GOAL, OPT_SOME_BUDGET,
       OPT_ENGINE };

static const struct option long_opts[] = {
	{ "memory", required_argument, NULL, 'm' },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "strategy", required_argument, NULL, 's' },
	{ "max-executions", required_argument, NULL, 'n' },
	{ "time-budget", required_argument, NULL, 't' },
	{ "sometimes-budget", required_argument, NULL, OPT_SOME_BUDGET },
	{ "max-steps", required_argument, NULL, OPT_MAX_STEPS },
	{ "trace-dir", required_argument, NULL, OPT_TRACE_DIR },
	{ "brief", no_argument, NULL, 'b' },
	{ "goal", no_argument, NULL, OPT_GOAL },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

void litmus_print_states(const struct litmus *l)
{
	printf("  final states (%zu; '*' satisfies the condition):\n",
	       litmus_noutcomes(l));
	for (size_t i = 0; i < litmus_noutcomes(l); i++) {
		char buf[1024];
		uint64_t n;
		int holds;

		litmus_outcome(l, i, buf, sizeof(buf), &n, &holds);
		printf("  %c %-50s %llu\n", holds ? '*' : ' ', buf,
		       (unsigned long long)n);
	}
}

double litmus_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The verdict of one test. */
enum verdict { V_AGREE, V_UNREACHED, V_DISAGREE, V_ERROR, V_INCOMPLETE,
	       V_NO_ORACLE, V_BADINPUT, V_TOO_BIG };

/* The last test's search was stopped by SIGINT or SIGTERM. */
static int cut_short;

static const char *const verdict_word[] = {
	"agree", "unreached", "disagree", "error", "incomplete", "no-oracle",
	"bad-input", "unsupported-model",
};

/*
 * The memory model's own limit (memory/): a systematic search has room
 * for so many store-buffer slots; a test with more CPUs cannot be
 * searched under tso or weak.  Not a failure of the test: unsupported.
 */
int litmus_model_too_big(const struct pr_run_result *res)
{
	return res->diverged &&
	       strstr(res->verdict.msg, "too many CPUs with store buffers");
}

int litmus_save_trace(const struct litmus_opts *o, const struct target *tg,
		      uint64_t run, const struct pr_run_result *res,
		      struct pr_schedule *rec, char *path, size_t pathlen)
{
	struct pr_trace t;
	char err[512], num[32];
	int rc;

	if (mkdir(o->trace_dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "%s litmus: error: %s: cannot create the trace "
			"folder: %s\n", pr_argv0, o->trace_dir, strerror(errno));
		return -1;
	}
	snprintf(path, pathlen, "%s/%s-%s%s-%s-run%llu.trace", o->trace_dir,
		 tg->short_name, o->memory,
		 pr_trace_build_flavour() == PR_TRACE_TSAN ? "-tsan" : "",
		 o->strategy, (unsigned long long)run);
	pr_trace_init(&t);
	t.program = (char *)tg->name;
	t.program_text = tg->text;
	t.strategy = (char *)o->strategy;
	t.params.preemption_bound = -1;
	t.run = run;
	t.memory = pr_mem_model();
	t.result = *res;
	t.sched = *rec;
	snprintf(num, sizeof(num), "%llu", (unsigned long long)o->max_steps);
	pr_trace_set_option(&t, "max-steps", num);
	pr_trace_set_option(&t, "protocol", variant_protocol_name(variant.protocol));
	pr_trace_set_option(&t, "knobs", "none");
	rc = pr_trace_write_new(path, pathlen, &t, err, sizeof(err));
	t.program = t.strategy = t.program_text = NULL;
	pr_schedule_init(&t.sched);
	pr_trace_free(&t);
	if (rc) {
		fprintf(stderr, "%s litmus: error: %s\n", pr_argv0, err);
		return -1;
	}
	return 0;
}

static const char *expect_name(enum lit_expect x)
{
	switch (x) {
	case LIT_EXPECT_NEVER: return "Never";
	case LIT_EXPECT_SOMETIMES: return "Sometimes";
	case LIT_EXPECT_ALWAYS: return "Always";
	default: return "-";
	}
}

static enum verdict run_test(const struct litmus_opts *o, const char *path)
{
	struct target tg;
	struct litmus *l;
	struct pr_strategy_params params;
	struct pr_strategy *strat;
	struct pr_run_options ro;
	struct pr_schedule rec;
	struct pr_coverage cov;
	struct pr_run_result first;
	char trace[4096] = "", cov_text[256];
	uint64_t run, failed = 0, other = 0, stuck = 0;
	int too_big = 0;
	double t0 = litmus_now(), t1;
	int complete, stop_time = 0, sampling, some, goal;
	double search_budget, budget;
	uint64_t sampled = 0;	/* 1 + the sampled run that reached it */
	enum litmus_goal_end gend = GOAL_NA;
	uint64_t gexecs = 0;	/* the goal search's executions */
	enum verdict v;

	if (target_resolve(path, &tg))
		return V_BADINPUT;
	l = tg.lit;
	if (!l) {
		fprintf(stderr, "%s litmus: error: %s is not a litmus test "
			"(a .litmus file)\n", pr_argv0, path);
		target_release(&tg);
		return V_BADINPUT;
	}
	memset(&params, 0, sizeof(params));
	params.preemption_bound = -1;
	strat = pr_strategy_create(o->strategy, &params);
	if (!strat) {
		fprintf(stderr, "%s litmus: error: out of memory\n", pr_argv0);
		target_release(&tg);
		return V_ERROR;
	}
	pr_run_options_default(&ro);
	if (o->max_steps)
		ro.max_steps = o->max_steps;
	pr_schedule_init(&rec);
	litmus_outcomes_reset(l);
	memset(&first, 0, sizeof(first));
	/*
	 * Sampling gets what the search leaves of the budget (litmus_sample()):
	 * a quarter, half of it for a Sometimes test (the witness sampler).
	 */
	some = litmus_expect(l) == LIT_EXPECT_SOMETIMES;
	sampling = o->time_budget > 0 && (some || strcmp(o->memory, "sc") != 0);
	/*
	 * The goal search (litmus_goal.c) gets the second half of the
	 * budget of a Never or Sometimes test whose exists clause fixes a
	 * register: after the search's first quarter, up to the end of the
	 * budget for a Never test (instead of random runs), up to half of
	 * it for a Sometimes test (the witness sampler the other half: it
	 * reaches rings of 6-19 CPUs that neither search finishes).  A
	 * Sometimes test of more than GOAL_SOME_PROCS processes keeps the
	 * witness sampler's half and the search's: measured on the corpus
	 * under weak (bench/RESULTS.md), the goal search wins rings of
	 * 3-5 processes and loses larger ones the sampler reaches.  A
	 * goal search that decides the condition ends the test: the rest of
	 * the budget is not spent (the final states listed are then those
	 * the search met).
	 */
	/*
	 * --sometimes-budget: a Sometimes test's extra time all goes to the
	 * witness sampler; the searches keep their shares of -t, so they
	 * decide what they decided without it.
	 */
	budget = some && o->some_budget > o->time_budget ? o->some_budget :
		 o->time_budget;
	goal = o->time_budget > 0 && !litmus_datarace(l) &&
	       ((some && litmus_nprocs(l) <= GOAL_SOME_PROCS) ||
		litmus_expect(l) == LIT_EXPECT_NEVER) && litmus_goal(l, 0);
	search_budget = goal ? o->time_budget / 4 :
			sampling && some ? o->time_budget / 2 :
			sampling ? o->time_budget * 3 / 4 : o->time_budget;
	run = 0;
	/* --goal: only the question the Result: line asks. */
	if (o->goal_only && litmus_goal(l, 0)) {
		gend = litmus_goal_search(o, &tg, &ro, &rec, o->time_budget > 0 ?
					  t0 + o->time_budget : 1e300, &first,
					  trace, sizeof(trace), &failed, &other,
					  &gexecs);
		goto searched;
	}
	for (; !strat->ops->exhausted(strat) && !failed && !other; run++) {
		struct pr_run_result res;

		if (o->max_execs && run >= o->max_execs)
			break;
		if (interrupt_pending())
			break;
		if (o->time_budget > 0 && (run & 15) == 0 &&
		    litmus_now() - t0 > search_budget) {
			stop_time = 1;
			break;
		}
		pr_run_once(tg.prog, strat, &ro, 0, run, &rec, &res);
		if (res.abandoned || !(res.failed || res.diverged))
			continue;
		if (litmus_model_too_big(&res)) {
			too_big = 1;
			first = res;
			break;
		}
		/*
		 * A run where some CPU can never go on (a lock never
		 * released, synchronize_rcu inside a reader) has no final
		 * state; herd7 has no such execution either.
		 */
		if (!strcmp(res.verdict.kind, "deadlock") ||
		    !strcmp(res.verdict.kind, "livelock")) {
			stuck++;
			continue;
		}
		if (!strncmp(res.verdict.kind, "litmus-never", 12) ||
		    !strncmp(res.verdict.kind, "litmus-always", 13))
			failed++;
		else
			other++;
		if (failed + other == 1) {
			first = res;
			if (litmus_save_trace(o, &tg, run, &res, &rec, trace,
				       sizeof(trace)))
				trace[0] = '\0';
		}
	}
	if (!strat->ops->exhausted(strat) && goal && gend == GOAL_NA &&
	    !failed && !other && !too_big && !(litmus_hits(l) && some) &&
	    !interrupt_pending()) {
		gend = litmus_goal_search(o, &tg, &ro, &rec, t0 +
					  (some ? o->time_budget / 2 :
					   o->time_budget), &first, trace,
					  sizeof(trace), &failed, &other,
					  &gexecs);
	}
searched:
	if (!strat->ops->exhausted(strat) && sampling && !failed && !other &&
	    !o->goal_only && !too_big && !interrupt_pending() &&
	    (!goal || (some && gend == GOAL_OPEN)) &&
	    !(litmus_hits(l) && litmus_expect(l) == LIT_EXPECT_SOMETIMES))
		sampled = litmus_sample(o, &tg, &ro, &rec,
					t0 + budget, &first, trace,
					sizeof(trace), &failed, &other, &stuck);
	t1 = litmus_now();
	strat->ops->coverage(strat, &cov);
	complete = !too_big && cov.complete && strat->ops->exhausted(strat);
	if (complete)
		snprintf(cov_text, sizeof(cov_text),
			 "exhaustive: %llu executions (%s), memory %s",
			 (unsigned long long)cov.executions, o->strategy, o->memory);
	else if (gend == GOAL_NONE || gend == GOAL_REACHED)
		snprintf(cov_text, sizeof(cov_text),
			 "%s by the goal search (%s, each process stopped at a "
			 "value the condition rejects: %llu executions, %s); "
			 "final-state search incomplete after %llu executions, "
			 "memory %s", gend == GOAL_NONE ?
			 "condition unreachable: decided" : "reached",
			 o->strategy, (unsigned long long)gexecs,
			 gend == GOAL_NONE ? "complete" : "stopped there",
			 (unsigned long long)cov.executions, o->memory);
	else if (sampled)
		snprintf(cov_text, sizeof(cov_text),
			 "reached by sampling (%s, run %llu); search "
			 "incomplete after %llu executions (%s), memory %s",
			 some ? "witness" : "random",
			 (unsigned long long)(sampled - 1),
			 (unsigned long long)cov.executions, o->strategy,
			 o->memory);
	else {
		cut_short = interrupt_pending() != 0;
		snprintf(cov_text, sizeof(cov_text),
			 "incomplete: stopped after %llu executions (%s; %s%s), "
			 "memory %s", (unsigned long long)cov.executions,
			 o->strategy, interrupt_pending() ? "interrupted by " :
			 stop_time ? "time budget" : "execution budget",
			 interrupt_pending() ?
			 interrupt_name(interrupt_pending()) : "", o->memory);
	}

	if (too_big)
		v = V_TOO_BIG;
	else if (failed)
		v = V_DISAGREE;
	else if (other && litmus_expect(l) == LIT_EXPECT_OTHER)
		v = V_NO_ORACLE;	/* "Flag srcu-bad-nesting": a verdict is the point */
	else if (other)
		v = V_ERROR;
	else if (!strncmp(litmus_result_text(l), "DEADLOCK", 8) && stuck)
		v = V_AGREE;
	else if (litmus_expect(l) == LIT_EXPECT_NONE ||
		 litmus_expect(l) == LIT_EXPECT_OTHER || litmus_datarace(l))
		v = V_NO_ORACLE;
	else if (!complete && gend != GOAL_NONE &&
		 !(litmus_hits(l) && litmus_expect(l) == LIT_EXPECT_SOMETIMES))
		v = V_INCOMPLETE;	/* a reached Sometimes is a witness */
	else if (litmus_expect(l) == LIT_EXPECT_SOMETIMES && !litmus_hits(l))
		v = V_UNREACHED;
	else
		v = V_AGREE;

	if (o->brief) {
		printf("%s\t%s\t%s\t%llu\t%s\t%.3f\t%s\t%d\n", path,
		       litmus_result_text(l)[0] ? litmus_result_text(l) : "-",
		       verdict_word[v], (unsigned long long)(o->goal_only &&
		       gend != GOAL_NA ? gexecs : cov.executions),
		       complete ? "exhaustive" : gend == GOAL_NONE ?
		       "goal-exhaustive" : "incomplete", (t1 - t0) * 1e3,
		       v == V_ERROR || v == V_DISAGREE || other ?
		       first.verdict.kind :
		       litmus_hits(l) ? "reached" : stuck ? "stuck" :
		       "not-reached", litmus_nprocs(l));
		goto out;
	}
	if (v == V_TOO_BIG) {
		fprintf(stderr, "%s: error: unsupported under memory %s: %s\n",
			path, o->memory, first.verdict.msg);
		goto out;
	}
	if (!o->quiet) {
		printf("litmus %s (%s): %d CPUs, memory %s\n", litmus_name(l),
		       path, litmus_nprocs(l), o->memory);
		printf("  %s\n", cov_text);
		litmus_print_states(l);
		if (stuck)
			printf("  %llu execution%s never finished (a deadlock: "
			       "no final state)\n", (unsigned long long)stuck,
			       stuck == 1 ? "" : "s");
		printf("  %s: %s in %llu of %llu executions\n",
		       litmus_cond_text(l), litmus_hits(l) ? "reached" : "not reached",
		       (unsigned long long)litmus_hits(l),
		       (unsigned long long)litmus_runs(l));
	}
	switch (v) {
	case V_AGREE:
		printf("%s: agrees with Result: %s (%s)\n", path,
		       litmus_result_text(l), stuck && !strncmp(
		       litmus_result_text(l), "DEADLOCK", 8) ? "deadlocks" :
		       litmus_hits(l) ? "reached" : "never reached");
		if ((sampled || gend == GOAL_REACHED) && trace[0])
			printf("  witness: %s\n  replay: %s replay %s\n", trace,
			       pr_argv0, trace);
		break;
	case V_UNREACHED:
		printf("%s: Result: Sometimes, not reached under %s (allowed by "
		       "LKMM: the outcome needs weaker ordering than the model "
		       "gives)\n", path, o->memory);
		break;
	case V_INCOMPLETE:
		printf("%s: Result: %s, %s so far: inconclusive (%s)\n", path,
		       expect_name(litmus_expect(l)),
		       litmus_hits(l) ? "reached" : "not reached",
		       interrupt_pending() ? "interrupted" :
		       "the budget ran out");
		break;
	case V_NO_ORACLE:
		printf("%s: %s (no oracle: %s)\n", path,
		       other ? first.verdict.kind :
		       litmus_hits(l) ? "reached" : "not reached",
		       litmus_result_text(l)[0] ? litmus_result_text(l) :
		       "no Result: line");
		break;
	case V_DISAGREE:
	case V_ERROR:
		printf("%s: %s with Result: %s: %s in %llu execution%s: %s\n",
		       path, v == V_DISAGREE ? "DISAGREES" : "ERROR",
		       litmus_result_text(l)[0] ? litmus_result_text(l) : "-",
		       first.verdict.kind,
		       (unsigned long long)(failed + other),
		       failed + other == 1 ? "" : "s", first.verdict.msg);
		if (trace[0])
			printf("  trace: %s\n  replay: %s replay %s\n", trace,
			       pr_argv0, trace);
		break;
	default:
		break;
	}
out:
	pr_schedule_free(&rec);
	strat->ops->destroy(strat);
	target_release(&tg);
	return v;
}

int cmd_litmus(int argc, char **argv)
{
	struct litmus_opts o = {
		.strategy = "dpor", .memory = "sc", .max_execs = 1000000,
		.trace_dir = LITMUS_TRACE_DIR,
	};
	struct pr_run_options ro;
	int c, i, rc = EXIT_NOFAIL, model = PR_MEM_SC, graph = -1, lkmm = 0;

	pr_run_options_default(&ro);
	o.max_steps = ro.max_steps;
	optind = 1;
	while ((c = getopt_long(argc, argv, "m:s:n:t:bqh", long_opts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'm':
			lkmm = !strcmp(optarg, "lkmm");
			if (lkmm) {
				o.memory = "lkmm";
				model = PR_MEM_SC;
				break;
			}
			if (cli_memory_parse(optarg, "litmus", &model))
				return EXIT_BADINPUT;
			o.memory = pr_mem_name(model);
			break;
		case 's':
			if (strcmp(optarg, "dpor") && strcmp(optarg, "dfs")) {
				fprintf(stderr, "%s litmus: error: strategy '%s': "
					"litmus explores exhaustively, with dpor "
					"or dfs\n", pr_argv0, optarg);
				return EXIT_BADINPUT;
			}
			o.strategy = optarg;
			break;
		case 'n':
			if (parse_u64(optarg, &o.max_execs)) {
				fprintf(stderr, "%s litmus: error: bad "
					"--max-executions '%s'\n", pr_argv0, optarg);
				return EXIT_BADINPUT;
			}
			break;
		case 't':
			errno = 0;
			o.time_budget = strtod(optarg, &end);
			if (errno || *end || !(o.time_budget > 0)) {
				fprintf(stderr, "%s litmus: error: bad "
					"--time-budget '%s'\n", pr_argv0, optarg);
				return EXIT_BADINPUT;
			}
			break;
		case OPT_SOME_BUDGET:
			errno = 0;
			o.some_budget = strtod(optarg, &end);
			if (errno || *end || !(o.some_budget > 0)) {
				fprintf(stderr, "%s litmus: error: bad "
					"--sometimes-budget '%s'\n", pr_argv0, optarg);
				return EXIT_BADINPUT;
			}
			break;
		case OPT_MAX_STEPS:
			if (parse_u64(optarg, &o.max_steps) || !o.max_steps) {
				fprintf(stderr, "%s litmus: error: bad "
					"--max-steps '%s'\n", pr_argv0, optarg);
				return EXIT_BADINPUT;
			}
			break;
		case OPT_TRACE_DIR:
			o.trace_dir = optarg;
			break;
		case OPT_ENGINE:
			if (strcmp(optarg, "run") && strcmp(optarg, "graph")) {
				fprintf(stderr, "%s litmus: error: engine '%s': "
					"run or graph\n", pr_argv0, optarg);
				return EXIT_BADINPUT;
			}
			graph = !strcmp(optarg, "graph");
			break;
		case OPT_GOAL:
			o.goal_only = 1;
			break;
		case 'b':
			o.brief = 1;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'h':
			litmus_usage(stdout);
			return EXIT_NOFAIL;
		default:
			litmus_usage(stderr);
			return EXIT_BADINPUT;
		}
	}
	if (lkmm && graph == 0) {
		fprintf(stderr, "%s litmus: error: memory lkmm has the graph "
			"engine only\n", pr_argv0);
		return EXIT_BADINPUT;
	}
	if (lkmm)
		graph = 1;
	if (graph == 1 && model == PR_MEM_WEAK) {
		fprintf(stderr, "%s litmus: error: memory weak has the run "
			"engine only (lkmm is the exact model)\n", pr_argv0);
		return EXIT_BADINPUT;
	}
	if (graph == 1)
		graph = lkmm ? GRAPH_LKMM : model == PR_MEM_TSO ? GRAPH_TSO :
			GRAPH_SC;
	else
		graph = -1;
	if (cli_memory_select(model, "litmus"))
		return EXIT_BADINPUT;
	if (optind >= argc) {
		fprintf(stderr, "%s litmus: error: no litmus file given\n",
			pr_argv0);
		litmus_usage(stderr);
		return EXIT_BADINPUT;
	}
	interrupt_catch();
	for (i = optind; i < argc && !interrupt_pending(); i++) {
		enum verdict v;
		int r;

		if (graph >= 0) {
			r = litmus_graph_test(&o, argv[i], graph);
			if (r == EXIT_BADINPUT || (r == EXIT_FOUND &&
						   rc == EXIT_NOFAIL))
				rc = r;
			continue;
		}
		v = run_test(&o, argv[i]);
		r = v == V_BADINPUT || v == V_TOO_BIG ? EXIT_BADINPUT :
		    v == V_DISAGREE || v == V_ERROR ? EXIT_FOUND : EXIT_NOFAIL;
		if (v == V_BADINPUT && o.brief)
			printf("%s\t-\tbad-input\t0\t-\t0\t-\t0\n", argv[i]);
		if (r == EXIT_BADINPUT || (r == EXIT_FOUND && rc == EXIT_NOFAIL))
			rc = r;
	}
	if (interrupt_pending()) {
		fflush(stdout);
		fprintf(stderr, "%s litmus: interrupted by %s: %d of %d test%s "
			"run%s\n", pr_argv0, interrupt_name(interrupt_pending()),
			i - optind, argc - optind, argc - optind == 1 ? "" : "s",
			cut_short ? ", the last one incomplete" : "");
		if (rc != EXIT_BADINPUT)
			rc = 128 + interrupt_pending();
	}
	return rc;
}
