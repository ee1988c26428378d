/* SPDX-License-Identifier: MIT */
/*
 * litmus_graph.c - `pagerace litmus -m lkmm` (and `--engine graph` under
 * sc or tso): a test's executions as execution graphs, every one the
 * model allows, each once (litmus/graph.h), instead of runs on the
 * kernel layer.
 *
 * lkmm is the kernel's memory model exactly (memory/lkmm.c), so its
 * final-state set is herd7's and the Result: line is a strict oracle:
 * a Sometimes condition not reached is a disagreement too.  Under sc
 * and tso the graph engine is held to the same standard as the
 * runtime's models (stronger than LKMM: a Sometimes not reached is
 * no disagreement).  Nothing runs on the runtime, so there is no
 * schedule and no trace: a disagreement lists the final states.
 */
#include "cli/cli.h"
#include "cli/interrupt.h"
#include "cli/litmus_goal.h"
#include "litmus/graph.h"
#include "litmus/litmus.h"

#include <stdio.h>
#include <string.h>

static double deadline;	/* litmus_now() when -t ends the search; 0: none */

static int stop_requested(void)
{
	return interrupt_pending() != 0 ||
	       (deadline > 0 && litmus_now() >= deadline);
}

static const char *model_name(int model)
{
	return model == GRAPH_SC ? "sc" : model == GRAPH_TSO ? "tso" : "lkmm";
}

int litmus_graph_test(const struct litmus_opts *o, const char *path,
		      int model)
{
	struct target tg;
	struct litmus *l;
	struct lg_stats st;
	char err[256], cov[256];
	int complete, exact = model == GRAPH_LKMM, rc = EXIT_NOFAIL;
	double t0 = litmus_now(), ms;
	const char *verdict, *why = "";
	enum lit_expect x;

	if (target_resolve(path, &tg)) {
		if (o->brief)
			printf("%s\t-\tbad-input\t0\t-\t0\t-\t0\n", path);
		return EXIT_BADINPUT;
	}
	l = tg.lit;
	if (!l) {
		fprintf(stderr, "%s litmus: error: %s is not a litmus test "
			"(a .litmus file)\n", pr_argv0, path);
		target_release(&tg);
		return EXIT_BADINPUT;
	}
	litmus_outcomes_reset(l);
	deadline = o->time_budget > 0 ? t0 + o->time_budget : 0;
	if (lg_search(l, model, &st, stop_requested, &complete, err,
		      sizeof(err))) {
		if (o->brief)
			printf("%s\t%s\tunsupported-model\t0\t-\t0\t-\t%d\n",
			       path, litmus_result_text(l)[0] ?
			       litmus_result_text(l) : "-", litmus_nprocs(l));
		else
			fprintf(stderr, "%s: error: unsupported under memory "
				"%s: %s\n", path, model_name(model), err);
		target_release(&tg);
		return EXIT_BADINPUT;
	}
	ms = (litmus_now() - t0) * 1e3;
	x = litmus_expect(l);
	if (!complete) {
		verdict = "incomplete";
		why = "interrupted";
	} else if (litmus_datarace(l)) {
		/* "Sometimes DATARACE": the verdict is about the flag */
		verdict = !exact ? "no-oracle" : st.races ? "agree" : "disagree";
		why = st.races ? "data race flagged" : "no data race flagged";
	} else if (!strncmp(litmus_result_text(l), "DEADLOCK", 8)) {
		verdict = litmus_runs(l) == 0 && st.stuck ? "agree" :
			  exact ? "disagree" : "no-oracle";
		why = st.stuck ? "deadlocks" : "never deadlocks";
	} else if (x == LIT_EXPECT_NEVER) {
		verdict = litmus_hits(l) ? "disagree" : "agree";
		why = litmus_hits(l) ? "reached" : "never reached";
	} else if (x == LIT_EXPECT_ALWAYS) {
		verdict = litmus_hits(l) < litmus_runs(l) ? "disagree" : "agree";
		why = litmus_hits(l) < litmus_runs(l) ? "not always reached" :
		      "always reached";
	} else if (x == LIT_EXPECT_SOMETIMES) {
		verdict = litmus_hits(l) ? "agree" : exact ? "disagree" :
			  "unreached";
		why = litmus_hits(l) ? "reached" : "never reached";
	} else {
		verdict = "no-oracle";
		why = litmus_hits(l) ? "reached" : "not reached";
	}
	if (!strcmp(verdict, "disagree"))
		rc = EXIT_FOUND;
	snprintf(cov, sizeof(cov), "%s: %llu executions (graph: %llu paths, "
		 "%llu candidates), memory %s", complete ? "exhaustive" :
		 "incomplete", (unsigned long long)st.executions,
		 (unsigned long long)st.paths,
		 (unsigned long long)st.candidates, model_name(model));
	if (o->brief) {
		printf("%s\t%s\t%s\t%llu\t%s\t%.3f\t%s\t%d\n", path,
		       litmus_result_text(l)[0] ? litmus_result_text(l) : "-",
		       verdict, (unsigned long long)st.executions,
		       complete ? "exhaustive" : "incomplete", ms,
		       litmus_hits(l) ? "reached" : st.stuck ? "stuck" :
		       "not-reached", litmus_nprocs(l));
		goto out;
	}
	if (!o->quiet) {
		printf("litmus %s (%s): %d CPUs, memory %s\n", litmus_name(l),
		       path, litmus_nprocs(l), model_name(model));
		printf("  %s\n", cov);
		litmus_print_states(l);
		if (st.stuck)
			printf("  %llu path combination%s deadlock (no final "
			       "state)\n", (unsigned long long)st.stuck,
			       st.stuck == 1 ? "" : "s");
		if (st.repeats)
			printf("  %llu execution%s repeat a graph explored "
			       "before\n", (unsigned long long)st.repeats,
			       st.repeats == 1 ? "" : "s");
		if (st.races)
			printf("  %llu execution%s flagged data-race\n",
			       (unsigned long long)st.races,
			       st.races == 1 ? "" : "s");
		printf("  %s: %s in %llu of %llu executions\n",
		       litmus_cond_text(l), litmus_hits(l) ? "reached" :
		       "not reached", (unsigned long long)litmus_hits(l),
		       (unsigned long long)litmus_runs(l));
	}
	if (!strcmp(verdict, "agree"))
		printf("%s: agrees with Result: %s (%s)\n", path,
		       litmus_result_text(l), why);
	else if (!strcmp(verdict, "disagree"))
		printf("%s: DISAGREES with Result: %s: %s under %s\n", path,
		       litmus_result_text(l), why, model_name(model));
	else if (!strcmp(verdict, "unreached"))
		printf("%s: Result: Sometimes, not reached under %s (allowed by "
		       "LKMM: the outcome needs weaker ordering than the model "
		       "gives)\n", path, model_name(model));
	else if (!strcmp(verdict, "incomplete"))
		printf("%s: Result: %s, %s so far: inconclusive (%s)\n", path,
		       litmus_result_text(l), litmus_hits(l) ? "reached" :
		       "not reached", why);
	else
		printf("%s: %s (no oracle: %s)\n", path, why,
		       litmus_result_text(l)[0] ? litmus_result_text(l) :
		       "no Result: line");
out:
	target_release(&tg);
	return rc;
}
