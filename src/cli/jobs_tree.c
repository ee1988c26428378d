/* SPDX-License-Identifier: MIT */
/*
 * jobs_tree.c - `explore -s dfs|dpor --jobs N`: the search split into N
 * parts (--shard I/N, doc/systematic.md), each explored by a forked
 * worker, and reported as one.
 *
 * Each worker runs explore_loop() as shard I of N with its stdout on a
 * pipe, so the failures it prints (and the traces it saves, named by
 * shard) are its own; it leaves its counts and coverage in a shared page.
 * The parent prints the workers' output in shard order once all are done
 * -- never interleaved, whatever the timing -- and then one summary whose
 * statement covers the whole tree, as `pagerace merge` would give.
 */
#include "config.h"
#include "cli/explore.h"
#include "scenario/scenario.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

struct part {
	uint64_t done, failures, first_run;
	int stopped, has_first, rc;
	struct pr_coverage cov;
	struct pr_run_result first;
	char first_path[4096];
	/* The scenario's outcome counts, then its unclassified runs. */
	uint64_t seen[SCN_MAX_OUTCOMES + 1];
};

struct out {
	char *buf;
	size_t n, cap;
	int fd;
};

static void worker(struct explore_state *st, unsigned i, struct part *p, int fd)
{
	struct explore_opts *o = &st->o;

	if (dup2(fd, STDOUT_FILENO) < 0)
		_exit(EXIT_BADINPUT);
	close(fd);
	st->strat->ops->destroy(st->strat);
	o->params.shard = o->shard = i;
	o->params.shards = o->shards = o->jobs;
	o->jobs = 1;
	st->tty = 0;
	st->strat = pr_strategy_create(o->strategy, &o->params);
	if (!st->strat)
		_exit(EXIT_BADINPUT);
	p->rc = explore_loop(st);
	fflush(stdout);
	p->done = st->done;
	p->failures = st->failures;
	p->stopped = st->stopped;
	p->has_first = st->failures != 0;
	p->first = st->first;
	p->first_run = st->first_run;
	memcpy(p->first_path, st->first_path, sizeof(p->first_path));
	if (st->tg.scn) {
		for (int k = 0; k < st->tg.scn->noutcomes; k++)
			p->seen[k] = st->tg.scn->outcome[k].seen;
		p->seen[SCN_MAX_OUTCOMES] = st->tg.scn->unclassified;
	}
	st->strat->ops->coverage(st->strat, &p->cov);
	_exit(0);
}

/* Read every worker's output to its end. */
static int drain(struct out *o, unsigned n)
{
	struct pollfd *pfd = calloc(n, sizeof(*pfd));
	unsigned open_fds = n;

	if (!pfd)
		return -1;
	while (open_fds) {
		for (unsigned i = 0; i < n; i++) {
			pfd[i].fd = o[i].fd;
			pfd[i].events = POLLIN;
		}
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			free(pfd);
			return -1;
		}
		for (unsigned i = 0; i < n; i++) {
			ssize_t r;

			if (o[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP)))
				continue;
			if (o[i].n + 4096 > o[i].cap) {
				size_t c = o[i].cap ? 2 * o[i].cap : 8192;
				char *b = realloc(o[i].buf, c);

				if (!b) {
					free(pfd);
					return -1;
				}
				o[i].buf = b;
				o[i].cap = c;
			}
			r = read(o[i].fd, o[i].buf + o[i].n, 4096);
			if (r > 0) {
				o[i].n += (size_t)r;
			} else if (r == 0 || errno != EINTR) {
				close(o[i].fd);
				o[i].fd = -1;
				open_fds--;
			}
		}
	}
	free(pfd);
	return 0;
}

int explore_jobs_tree(struct explore_state *st)
{
	unsigned n = st->o.jobs;
	struct scenario *scn = st->tg.scn;
	struct part *parts;
	struct out *outs = calloc(n, sizeof(*outs));
	pid_t *pids = calloc(n, sizeof(*pids));
	int rc = EXIT_NOFAIL;

	parts = mmap(NULL, n * sizeof(*parts), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (parts == MAP_FAILED || !outs || !pids) {
		fprintf(stderr, "%s explore: error: cannot set up %u jobs: %s\n",
			pr_argv0, n, strerror(errno));
		free(outs);
		free(pids);
		return EXIT_BADINPUT;
	}
	memset(parts, 0, n * sizeof(*parts));
	fflush(stdout);
	fflush(stderr);
	pr_run_before_fork();	/* else pagerace-tsan's workers see no race */
	for (unsigned i = 0; i < n; i++) {
		int fds[2];

		if (pipe(fds) != 0 || (pids[i] = fork()) < 0) {
			fprintf(stderr, "%s explore: error: cannot start job %u: %s\n",
				pr_argv0, i, strerror(errno));
			rc = EXIT_BADINPUT;
			n = i;
			break;
		}
		if (pids[i] == 0) {
			close(fds[0]);
			for (unsigned j = 0; j < i; j++)
				close(outs[j].fd);
			worker(st, i, &parts[i], fds[1]);
		}
		close(fds[1]);
		outs[i].fd = fds[0];
	}
	if (drain(outs, n))
		rc = EXIT_BADINPUT;
	st->done = st->failures = 0;
	if (scn) {
		/* The workers counted every outcome; the parent ran nothing. */
		for (int k = 0; k < scn->noutcomes; k++)
			scn->outcome[k].seen = 0;
		scn->unclassified = 0;
	}
	memset(&st->merged, 0, sizeof(st->merged));
	st->merged.complete = 1;
	st->merged.bound = st->o.params.has_bound ? st->o.params.preemption_bound : -1;
	st->merged.shard = st->merged.shards = n;
	for (unsigned i = 0; i < n; i++) {
		int status;
		struct part *p = &parts[i];

		waitpid(pids[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "%s explore: error: job %u died\n",
				pr_argv0, i);
			rc = EXIT_BADINPUT;
			p->cov.complete = 0;
		}
		fwrite(outs[i].buf, 1, outs[i].n, stdout);
		free(outs[i].buf);
		st->done += p->done;
		st->failures += p->failures;
		for (int k = 0; scn && k < scn->noutcomes; k++)
			scn->outcome[k].seen += p->seen[k];
		if (scn)
			scn->unclassified += p->seen[SCN_MAX_OUTCOMES];
		st->merged.executions += p->cov.executions;
		st->merged.blocked += p->cov.blocked;
		st->merged.complete &= p->cov.complete;
		st->merged.bound_cut |= p->cov.bound_cut;
		if (!p->cov.complete && !st->stopped)
			st->stopped = p->stopped;
		if (p->has_first && !st->first_path[0]) {
			st->first = p->first;
			st->first_run = p->first_run;
			memcpy(st->first_path, p->first_path,
			       sizeof(st->first_path));
		}
		if (p->rc == EXIT_BADINPUT)
			rc = EXIT_BADINPUT;
		else if (p->rc == EXIT_FOUND && rc == EXIT_NOFAIL)
			rc = EXIT_FOUND;
	}
	st->has_merged = 1;
	munmap(parts, n * sizeof(*parts));
	free(outs);
	free(pids);
	return rc;
}
