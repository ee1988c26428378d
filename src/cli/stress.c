/* SPDX-License-Identifier: MIT */
/*
 * stress.c - `pagerace stress FILE`: run a scenario's (or a built-in
 * program's) CPUs as real threads, in parallel, over and over, and print
 * how the iterations ended as a histogram in the style of jcstress.
 *
 * Rows: for a scenario, its acceptable / interesting / forbidden outcomes
 * (with the iterations classified there), then every verdict kind seen
 * (forbidden: a detector fired); for a built-in program, "pass" and the
 * verdict kinds.  Under pagerace-tsan a ThreadSanitizer report is the
 * verdict "data-race" of the iteration that raced.  Nothing is recorded:
 * a stress failure has no schedule to replay; `pagerace explore` on the
 * same target is the way to a trace.
 */
#include "cli/cli.h"
#include "cli/interrupt.h"
#include "model/variant.h"
#include "runtime/stress.h"
#include "scenario/scenario.h"

#include <getopt.h>

#include "memory/memory.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void stress_usage(FILE *f)
{
	fprintf(f,
"usage: %s stress [OPTIONS] PROGRAM|SCENARIO\n"
"\n"
"Run the target's CPUs as real threads in parallel, repeatedly, with every\n"
"detector on, and print an outcome histogram (count, expectation,\n"
"description).  Yield points are no-ops (or random delays, --jitter);\n"
"interrupts run on their CPU's own thread at random yield points.  Under\n"
"pagerace-tsan this is the classic ThreadSanitizer run.  Nothing is\n"
"recorded: use explore to get a replayable trace.\n"
"\n"
"  -t, --time SECONDS      run iterations for this long (default 1; also\n"
"                          --duration)\n"
"  -n, --runs N            run exactly N iterations instead (also --count)\n"
"      --jitter USEC       random delay of 0..USEC microseconds at yield\n"
"                          points (default 0: none)\n"
"      --seed N            seed of the jitter and interrupt timing (1)\n"
"      --timeout MS        an iteration still waiting after MS milliseconds\n"
"                          is a livelock or deadlock (default 2000)\n"
"  -p, --protocol P        page-cache protocol: locked, v2, merged\n"
"  -K, --knob NAME         knob (repeatable, 'none': no knobs)\n"
"      --memory sc         the only model stress runs: the threads run on\n"
"                          the host's own memory (tso and weak need\n"
"                          explore's scheduler to make flushes decisions)\n"
"  -h, --help              this text\n"
"\n"
"Short options mean what they mean to explore (-t a time budget, -n a\n"
"count, -p, -K); the others are long only.\n"
"\n"
"Exit status: 0 every iteration acceptable, 1 a forbidden outcome or a\n"
"verdict was seen, 2 bad input, 130/143 interrupted by SIGINT/SIGTERM\n"
"(Ctrl-C: the histogram of the iterations done is printed).\n", pr_argv0);
}

enum { OPT_JITTER = 256, OPT_SEED, OPT_TIMEOUT, OPT_MEMORY };

static const struct option long_opts[] = {
	{ "time", required_argument, NULL, 't' },
	{ "duration", required_argument, NULL, 't' },
	{ "runs", required_argument, NULL, 'n' },
	{ "count", required_argument, NULL, 'n' },
	{ "jitter", required_argument, NULL, OPT_JITTER },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "protocol", required_argument, NULL, 'p' },
	{ "knob", required_argument, NULL, 'K' },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

#define MAX_KINDS 32

struct kind_row {
	char kind[32];
	uint64_t count;
	char first[PR_VERDICT_TEXT + 160];	/* the first one, described */
};

static struct kind_row kinds[MAX_KINDS];
static int nkinds;
static uint64_t passed;

static void count_verdict(const struct pr_verdict *v)
{
	struct kind_row *k = NULL;

	for (int i = 0; i < nkinds; i++)
		if (!strcmp(kinds[i].kind, v->kind))
			k = &kinds[i];
	if (!k) {
		if (nkinds == MAX_KINDS)
			k = &kinds[MAX_KINDS - 1];
		else
			k = &kinds[nkinds++];
		if (!k->count) {
			snprintf(k->kind, sizeof(k->kind), "%s", v->kind);
			snprintf(k->first, sizeof(k->first), "%s%s%s%s%s",
				 v->ctx_name[0] && strcmp(v->ctx_name, "-") ?
				 v->ctx_name : "end of run",
				 v->obj[0] && strcmp(v->obj, "-") ? " on " : "",
				 v->obj[0] && strcmp(v->obj, "-") ? v->obj : "",
				 ": ", v->msg);
		}
	}
	k->count++;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int bad(const char *opt, const char *arg)
{
	fprintf(stderr, "%s stress: error: %s needs a positive number, not '%s'\n",
		pr_argv0, opt, arg);
	return EXIT_BADINPUT;
}

int cmd_stress(int argc, char **argv)
{
	int set_memory = 0;
	struct pr_stress_options so = { .seed = 1, .jitter_us = 0,
					.timeout_ms = 2000 };
	struct pr_variant cli;
	struct target tg;
	struct pr_run_result res;
	struct timespec t0;
	uint64_t count = 0, duration = 1, iter, v;
	int set_protocol = 0, set_knobs = 0, c, forbidden = 0;
	static const char *const cls[] = { "ACCEPTABLE", "INTERESTING", "FORBIDDEN" };

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:n:p:K:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_u64(optarg, &duration) || !duration || duration > 86400)
				return bad("--duration", optarg);
			break;
		case 'n':
			if (parse_u64(optarg, &count) || !count)
				return bad("--count", optarg);
			break;
		case OPT_JITTER:
			if (parse_u64(optarg, &v) || v > 1000000)
				return bad("--jitter", optarg);
			so.jitter_us = (unsigned int)v;
			break;
		case OPT_SEED:
			if (parse_u64(optarg, &so.seed))
				return bad("--seed", optarg);
			break;
		case OPT_TIMEOUT:
			if (parse_u64(optarg, &v) || !v || v > 3600000)
				return bad("--timeout", optarg);
			so.timeout_ms = (unsigned int)v;
			break;
		case 'p':
			if (variant_protocol_parse(optarg, &variant.protocol)) {
				fprintf(stderr, "%s stress: error: unknown protocol '%s' (locked, v2, merged)\n",
					pr_argv0, optarg);
				return EXIT_BADINPUT;
			}
			set_protocol = 1;
			break;
		case 'K': {
			enum pr_knob k;

			if (!set_knobs)
				variant.knobs = 0;
			set_knobs = 1;
			if (!strcmp(optarg, "none"))
				break;
			if (variant_knob_parse(optarg, &k)) {
				fprintf(stderr, "%s stress: error: unknown knob '%s' (see doc/variants.md)\n",
					pr_argv0, optarg);
				return EXIT_BADINPUT;
			}
			variant.knobs |= k;
			break;
		}
		case OPT_MEMORY: {
			int m;

			if (cli_memory_parse(optarg, "stress", &m))
				return EXIT_BADINPUT;
			set_memory = 1;
			if (m != PR_MEM_SC) {
				fprintf(stderr, "%s stress: error: --memory %s: "
					"stress runs real threads on the host's "
					"memory; use explore --memory %s\n",
					pr_argv0, optarg, optarg);
				return EXIT_BADINPUT;
			}
			break;
		}
		case 'h':
			stress_usage(stdout);
			return EXIT_NOFAIL;
		default:
			stress_usage(stderr);
			return EXIT_BADINPUT;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s stress: error: expected one program or scenario file\n",
			pr_argv0);
		stress_usage(stderr);
		return EXIT_BADINPUT;
	}
	cli = variant;
	if (target_resolve(argv[optind], &tg))
		return EXIT_BADINPUT;
	/* --memory sc runs a scenario that asks for tso or weak on the host. */
	if (tg.scn && tg.scn->has_memory && tg.scn->memory != PR_MEM_SC &&
	    !set_memory) {
		fprintf(stderr, "%s stress: error: %s asks for memory %s; stress "
			"runs real threads on the host's memory (use explore, "
			"or --memory sc)\n", pr_argv0, tg.name,
			pr_mem_name(tg.scn->memory));
		target_release(&tg);
		return EXIT_BADINPUT;
	}
	if (tg.scn) {
		scenario_apply_variant(tg.scn);
		if (set_protocol)
			variant.protocol = cli.protocol;
		if (set_knobs)
			variant.knobs = cli.knobs;
		scenario_reset_stats(tg.scn);
	}

	interrupt_catch();
	pr_stress_begin(tg.prog, &so);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (iter = 0; (count ? iter < count : seconds_since(&t0) < (double)duration) &&
	     !interrupt_pending(); iter++) {
		if (pr_stress_iteration(iter, &res))
			count_verdict(&res.verdict);
		else
			passed++;
	}
	pr_stress_end();

	printf("%s: %llu iterations in %.2f s, %d threads, jitter %u us\n",
	       tg.name, (unsigned long long)iter, seconds_since(&t0),
	       pr_nr_ctx(), so.jitter_us);
	printf("  %10s  %-11s  %s\n", "count", "expectation", "outcome");
	if (tg.scn && tg.scn->noutcomes) {
		for (int i = 0; i < tg.scn->noutcomes; i++) {
			const struct scn_outcome *o = &tg.scn->outcome[i];
			uint64_t n = o->seen;

			if (o->cls == SCN_FORBIDDEN) {
				char tag[32];

				/* classify() fails "forbidden" with "line N: ..." */
				snprintf(tag, sizeof(tag), "line %d:", o->line);
				n = 0;
				for (int k = 0; k < nkinds; k++)
					if (!strcmp(kinds[k].kind, "forbidden") &&
					    strstr(kinds[k].first, tag))
						n = kinds[k].count;
			}
			printf("  %10llu  %-11s  %s\n", (unsigned long long)n,
			       cls[o->cls], o->desc);
		}
		if (tg.scn->unclassified)
			printf("  %10llu  %-11s  %s\n",
			       (unsigned long long)tg.scn->unclassified,
			       "ACCEPTABLE", "(no outcome listed matches)");
	} else {
		printf("  %10llu  %-11s  %s\n", (unsigned long long)passed,
		       "ACCEPTABLE", "pass");
	}
	for (int k = 0; k < nkinds; k++) {
		int expected = tg.scn && !strcmp(tg.scn->expect, kinds[k].kind);

		printf("  %10llu  %-11s  %s: %s\n",
		       (unsigned long long)kinds[k].count,
		       expected ? "EXPECTED" : "FORBIDDEN", kinds[k].kind,
		       kinds[k].first);
		forbidden = 1;
	}
	/* Ctrl-C: the histogram above is of the iterations done. */
	if (interrupt_pending())
		printf("%s: interrupted by %s after %llu iterations\n", tg.name,
		       interrupt_name(interrupt_pending()),
		       (unsigned long long)iter);
	target_release(&tg);
	if (interrupt_pending())
		return 128 + interrupt_pending();
	return forbidden ? EXIT_FOUND : EXIT_NOFAIL;
}
