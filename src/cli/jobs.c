/* SPDX-License-Identifier: MIT */
/*
 * jobs.c - `pagerace explore --jobs N`: N forked workers explore one range
 * of runs, and this process reports what they found as one process would.
 *
 * The range is cut into chunks of consecutive runs.  Workers claim chunks
 * from a shared counter (so a slow chunk does not idle the others), run
 * them, and send one message per chunk down their own pipe: the runs done,
 * the scenario outcome counts, and each failure with its verdict and
 * schedule.  The parent merges chunks strictly in chunk order, so it sees
 * failures in run order; it alone writes traces and prints.  Because a run
 * is a pure function of (program, strategy, parameters, seed, run index),
 * the output does not depend on N, on the chunk size or on timing.
 *
 * Stopping at the first failure: a worker that fails at run r lowers the
 * shared stop_at to r and ends its chunk there; every worker skips runs
 * above stop_at.  No run at or below the lowest failing run F is ever
 * skipped, so the chunks up to F's arrive whole, F's chunk ends at F, and
 * the parent ignores every chunk after it: the runs, outcomes and the
 * failure reported are those of a single process.
 */
#include "config.h"
#include "cli/explore.h"
#include "cli/interrupt.h"
#include "scenario/scenario.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CHUNK	1024

struct shared {
	_Atomic uint64_t next_chunk;	/* the next chunk to claim */
	_Atomic uint64_t stop_at;	/* lowest failing run offset so far */
	_Atomic int quit;		/* the parent gave up */
};

/* One chunk's message: this header, outcome counts, failure records. */
struct chunk_hdr {
	uint64_t size;			/* of the whole message */
	uint64_t chunk;
	uint64_t first;			/* the chunk's first run */
	uint64_t done;
	uint32_t nfail;
	uint32_t noutcomes;		/* then noutcomes + 1 uint64_t */
};

/* A failure record: this header, then nseg segments, each a struct
 * seg_rec and its NUL-terminated end label, then the chunk's outcome
 * counts up to and including this run (noutcomes + 1 uint64_t). */
struct fail_hdr {
	uint64_t run;
	struct pr_run_result res;
	uint64_t nseg;
};

struct seg_rec {
	uint32_t steps;
	uint16_t code;
	uint16_t label_len;		/* with the NUL */
};

struct buf {
	char *p;
	size_t n, cap;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void buf_put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->n + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p) {
			fprintf(stderr, "%s explore: error: out of memory\n",
				pr_argv0);
			_exit(EXIT_BADINPUT);
		}
		b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void put_failure(struct buf *b, uint64_t run,
			const struct pr_run_result *res,
			const struct pr_schedule *rec)
{
	struct fail_hdr fh;

	memset(&fh, 0, sizeof(fh));
	fh.run = run;
	fh.res = *res;
	fh.nseg = rec->n;
	buf_put(b, &fh, sizeof(fh));
	for (size_t i = 0; i < rec->n; i++) {
		char label[256];
		struct seg_rec sr;
		const char *l = pr_segment_end_label(&rec->seg[i], label,
						     sizeof(label));
		size_t len = strlen(l) + 1;

		if (len > UINT16_MAX)
			len = UINT16_MAX;
		sr.steps = rec->seg[i].steps;
		sr.code = rec->seg[i].code;
		sr.label_len = (uint16_t)len;
		buf_put(b, &sr, sizeof(sr));
		buf_put(b, l, len - 1);
		buf_put(b, "", 1);
	}
}

static uint64_t atomic_min(_Atomic uint64_t *p, uint64_t v)
{
	uint64_t cur = atomic_load(p);

	while (v < cur && !atomic_compare_exchange_weak(p, &cur, v))
		;
	return cur < v ? cur : v;
}

/* A worker: claim chunks, run them, send one message per chunk. */
static void worker(struct explore_state *st, struct shared *sh, int fd,
		   uint64_t csize)
{
	const struct explore_opts *o = &st->o;
	struct scenario *scn = st->tg.scn;
	int nout = scn ? scn->noutcomes : 0;
	uint64_t before[SCN_MAX_OUTCOMES + 1], delta;
	struct pr_schedule rec;
	struct pr_run_result res;
	struct buf b = { 0 };
	uint64_t ran = 0;

	pr_schedule_init(&rec);
	for (;;) {
		struct chunk_hdr h;
		uint64_t c, start, end;

		/* A signal stops this worker after its current run (the
		 * handler is inherited), and every worker via quit. */
		if (atomic_load(&sh->quit) || interrupt_pending())
			break;
		/* Retired (--worker-runs): the parent forks a fresh one. */
		if (o->worker_runs && ran >= o->worker_runs)
			break;
		if (o->time_budget > 0 && now() - st->t0 >= o->time_budget)
			break;
		c = atomic_fetch_add(&sh->next_chunk, 1);
		start = c * csize;
		if (o->time_budget <= 0 && start >= st->len)
			break;
		end = start + csize;
		if (o->time_budget <= 0 && end > st->len)
			end = st->len;
		memset(&h, 0, sizeof(h));
		h.chunk = c;
		h.first = st->lo + start;
		h.noutcomes = (uint32_t)nout;
		b.n = 0;
		buf_put(&b, &h, sizeof(h));
		for (int i = 0; i < nout; i++)
			before[i] = scn->outcome[i].seen;
		if (scn)
			before[nout] = scn->unclassified;
		for (uint64_t r = start; r < end; r++) {
			if ((!o->keep_going && r > atomic_load(&sh->stop_at)) ||
			    atomic_load(&sh->quit) || interrupt_pending())
				break;
			if (o->time_budget > 0 && ((r - start) & 63) == 63 &&
			    now() - st->t0 >= o->time_budget)
				break;
			h.done++;
			ran++;
			if (pr_run_once(st->tg.prog, st->strat, &o->run, o->seed,
					st->lo + r, &rec, &res)) {
				h.nfail++;
				put_failure(&b, st->lo + r, &res, &rec);
				/* The chunk's counts up to this run. */
				for (int i = 0; i <= nout && scn; i++) {
					delta = (i < nout ? scn->outcome[i].seen
							  : scn->unclassified) - before[i];
					buf_put(&b, &delta, sizeof(delta));
				}
				if (!o->keep_going) {
					atomic_min(&sh->stop_at, r);
					break;
				}
			}
		}
		/* The outcome counts go right after the header. */
		{
			struct buf tail = { 0 };

			buf_put(&tail, b.p + sizeof(h), b.n - sizeof(h));
			b.n = sizeof(h);
			for (int i = 0; i <= nout && scn; i++) {
				delta = (i < nout ? scn->outcome[i].seen
						  : scn->unclassified) - before[i];
				buf_put(&b, &delta, sizeof(delta));
			}
			if (tail.n)
				buf_put(&b, tail.p, tail.n);
			free(tail.p);
		}
		h.size = b.n;
		memcpy(b.p, &h, sizeof(h));
		if (write_all(fd, b.p, b.n))
			break;
	}
	free(b.p);
	pr_schedule_free(&rec);
}

/* ---- the parent ---------------------------------------------------------- */

struct msg {
	struct msg *next;
	uint64_t chunk;
	char *p;
	size_t n;
};

struct wk {
	pid_t pid;
	int fd;
	struct buf in;
};

/*
 * Fork worker @i of @n into @w[i], reading its messages from a pipe.  The
 * child closes the other workers' pipes, so that a worker's end of file
 * means that it has exited.
 */
static int spawn(struct explore_state *st, struct shared *sh, struct wk *w,
		 unsigned n, unsigned i, uint64_t csize)
{
	int p[2];

	if (pipe(p)) {
		fprintf(stderr, "%s explore: error: pipe: %s\n",
			pr_argv0, strerror(errno));
		return -1;
	}
	fflush(NULL);
	pr_run_before_fork();
	w[i].pid = fork();
	if (w[i].pid < 0) {
		fprintf(stderr, "%s explore: error: fork: %s\n",
			pr_argv0, strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (w[i].pid == 0) {
		close(p[0]);
		for (unsigned j = 0; j < n; j++)
			if (j != i && w[j].pid > 0 && w[j].fd >= 0)
				close(w[j].fd);
		worker(st, sh, p[1], csize);
		close(p[1]);
		_exit(0);
	}
	close(p[1]);
	w[i].fd = p[0];
	return 0;
}

/*
 * Worker @x has closed its pipe.  If it retired (--worker-runs) while runs
 * are left, reap it and fork its successor in the same slot; the chunk
 * counter is shared, so the successor claims the next chunk as its
 * predecessor would have.  Returns 1 if a successor runs, 0 if none is
 * needed, -1 if the worker died or the fork failed.
 */
static int replace(struct explore_state *st, struct shared *sh, struct wk *w,
		   unsigned n, unsigned i, uint64_t csize)
{
	const struct explore_opts *o = &st->o;
	int status;

	if (!o->worker_runs || atomic_load(&sh->quit) || interrupt_pending())
		return 0;
	if (o->time_budget > 0 ? now() - st->t0 >= o->time_budget
			       : atomic_load(&sh->next_chunk) * csize >= st->len)
		return 0;
	while (waitpid(w[i].pid, &status, 0) < 0 && errno == EINTR)
		;
	w[i].pid = 0;
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		fprintf(stderr, "%s explore: error: worker %u died%s\n",
			pr_argv0, i, WIFSIGNALED(status) ? " of a signal" : "");
		return -1;
	}
	return spawn(st, sh, w, n, i, csize) ? -1 : 1;
}

/* Add @v (mod 2^64: it may take back) to outcome @i, or unclassified. */
static void add_outcome(struct scenario *scn, uint32_t i, uint64_t v)
{
	if (i < (uint32_t)scn->noutcomes)
		scn->outcome[i].seen += v;
	else
		scn->unclassified += v;
}

/* Merge one chunk: counts, outcomes, failures in run order. */
static int merge_chunk(struct explore_state *st, const struct msg *m,
		       int *stopped)
{
	struct chunk_hdr h;
	struct scenario *scn = st->tg.scn;
	const char *p = m->p + sizeof(h), *end = m->p + m->n;
	uint64_t v, chunk_seen[SCN_MAX_OUTCOMES + 1], upto[SCN_MAX_OUTCOMES + 1];

	memcpy(&h, m->p, sizeof(h));
	if (scn && h.noutcomes != (uint32_t)scn->noutcomes)
		return -1;
	for (uint32_t i = 0; scn && i <= h.noutcomes; i++) {
		memcpy(&v, p, sizeof(v));
		p += sizeof(v);
		add_outcome(scn, i, v);
		chunk_seen[i] = v;
	}
	st->done += h.done;
	for (uint32_t f = 0; f < h.nfail; f++) {
		struct fail_hdr fh;
		struct pr_schedule sched;
		int rc;

		if ((size_t)(end - p) < sizeof(fh))
			return -1;
		memcpy(&fh, p, sizeof(fh));
		p += sizeof(fh);
		pr_schedule_init(&sched);
		sched.seg = calloc(fh.nseg ? fh.nseg : 1, sizeof(*sched.seg));
		if (!sched.seg)
			return -1;
		sched.n = sched.cap = fh.nseg;
		for (uint64_t i = 0; i < fh.nseg; i++) {
			struct seg_rec sr;

			if ((size_t)(end - p) < sizeof(sr)) {
				free(sched.seg);
				return -1;
			}
			memcpy(&sr, p, sizeof(sr));
			p += sizeof(sr);
			sched.seg[i].code = sr.code;
			sched.seg[i].steps = sr.steps;
			sched.seg[i].end_label = p;
			p += sr.label_len;
		}
		for (uint32_t i = 0; scn && i <= h.noutcomes; i++) {
			if ((size_t)(end - p) < sizeof(upto[i])) {
				free(sched.seg);
				return -1;
			}
			memcpy(&upto[i], p, sizeof(upto[i]));
			p += sizeof(upto[i]);
		}
		rc = explore_failure(st, fh.run, &fh.res, &sched);
		free(sched.seg);
		if (rc) {
			/*
			 * One process stops right after this run (its trace
			 * could not be saved): count the runs and outcomes
			 * alike, whatever else the chunk ran.
			 */
			st->done -= h.done - (fh.run - h.first + 1);
			for (uint32_t i = 0; scn && i <= h.noutcomes; i++)
				add_outcome(scn, i, upto[i] - chunk_seen[i]);
			return -2;
		}
		if (!st->o.keep_going) {
			*stopped = 1;
			break;
		}
	}
	return 0;
}

/* Split complete messages off worker @w's input into the pending list. */
static int take_messages(struct wk *w, struct msg **pending)
{
	size_t off = 0;

	while (w->in.n - off >= sizeof(struct chunk_hdr)) {
		struct chunk_hdr h;
		struct msg *m;

		memcpy(&h, w->in.p + off, sizeof(h));
		if (h.size < sizeof(h))
			return -1;
		if (w->in.n - off < h.size)
			break;
		m = malloc(sizeof(*m));
		if (!m || !(m->p = malloc(h.size))) {
			free(m);
			return -1;
		}
		memcpy(m->p, w->in.p + off, h.size);
		m->n = h.size;
		m->chunk = h.chunk;
		m->next = *pending;
		*pending = m;
		off += h.size;
	}
	memmove(w->in.p, w->in.p + off, w->in.n - off);
	w->in.n -= off;
	return 0;
}

int explore_jobs(struct explore_state *st)
{
	const struct explore_opts *o = &st->o;
	unsigned n = o->jobs;
	struct shared *sh;
	struct wk *w;
	struct pollfd *pfd;
	struct msg *pending = NULL;
	uint64_t csize, next = 0;
	unsigned open_fds = 0;
	int rc = EXIT_NOFAIL, stopped = 0, broken = 0;

	/* Small enough that every worker gets many chunks, at most 1024. */
	csize = o->time_budget > 0 ? MAX_CHUNK : st->len / ((uint64_t)n * 16);
	if (csize < 1)
		csize = 1;
	if (csize > MAX_CHUNK)
		csize = MAX_CHUNK;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	w = calloc(n, sizeof(*w));
	pfd = calloc(n, sizeof(*pfd));
	if (sh == MAP_FAILED || !w || !pfd) {
		fprintf(stderr, "%s explore: error: cannot set up %u jobs: %s\n",
			pr_argv0, n, strerror(errno));
		free(w);
		free(pfd);
		return EXIT_BADINPUT;
	}
	atomic_store(&sh->next_chunk, 0);
	atomic_store(&sh->stop_at, UINT64_MAX);
	atomic_store(&sh->quit, 0);
	for (unsigned i = 0; i < n; i++) {
		if (spawn(st, sh, w, n, i, csize)) {
			broken = 1;
			break;
		}
		open_fds++;
	}
	if (broken)
		atomic_store(&sh->quit, 1);

	while (open_fds) {
		unsigned np = 0;

		for (unsigned i = 0; i < n; i++)
			if (w[i].pid > 0 && w[i].fd >= 0) {
				pfd[np].fd = w[i].fd;
				pfd[np].events = POLLIN;
				np++;
			}
		if (interrupt_pending())
			atomic_store(&sh->quit, 1);
		/* Woken by a message, or by the signal (EINTR); the timeout
		 * covers a signal that came just before poll. */
		if (poll(pfd, np, 200) < 0) {
			if (errno == EINTR)
				continue;
			broken = 1;
			break;
		}
		for (unsigned k = 0; k < np; k++) {
			struct wk *x = NULL;
			char tmp[65536];
			ssize_t r;

			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			for (unsigned i = 0; i < n; i++)
				if (w[i].pid > 0 && w[i].fd == pfd[k].fd)
					x = &w[i];
			r = read(x->fd, tmp, sizeof(tmp));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				close(x->fd);
				x->fd = -1;
				open_fds--;
				if (x->in.n) {
					broken = 1;	/* a message cut short */
					continue;
				}
				switch (replace(st, sh, w, n,
						(unsigned)(x - w), csize)) {
				case 1:
					open_fds++;
					break;
				case -1:
					broken = 1;
					break;
				}
				continue;
			}
			buf_put(&x->in, tmp, (size_t)r);
			if (take_messages(x, &pending))
				broken = 1;
		}
		/* Merge every chunk that is next in order. */
		for (;;) {
			struct msg **pp = &pending, *m;
			int mrc;

			while (*pp && (*pp)->chunk != next)
				pp = &(*pp)->next;
			if (!(m = *pp))
				break;
			*pp = m->next;
			next++;
			mrc = stopped ? 0 : merge_chunk(st, m, &stopped);
			free(m->p);
			free(m);
			if (mrc == -2) {
				rc = EXIT_BADINPUT;
				stopped = 1;
			} else if (mrc) {
				broken = 1;
			}
			if (stopped)
				atomic_store(&sh->quit, 1);
		}
		if (broken) {
			atomic_store(&sh->quit, 1);
			break;
		}
		explore_progress(st);
	}

	for (unsigned i = 0; i < n; i++) {
		int status;

		if (w[i].pid <= 0)
			continue;
		if (w[i].fd >= 0)
			close(w[i].fd);
		if (broken)
			kill(w[i].pid, SIGKILL);
		while (waitpid(w[i].pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!broken && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			fprintf(stderr, "%s explore: error: worker %u (pid %ld) died%s\n",
				pr_argv0, i, (long)w[i].pid,
				WIFSIGNALED(status) ? " of a signal" : "");
			broken = 1;
		}
		free(w[i].in.p);
	}
	/* Every claimed chunk must have been merged (or follow the stop). */
	if (!broken && !stopped && (pending ||
	    (o->time_budget <= 0 && st->done != st->len &&
	     !interrupt_pending()))) {
		fprintf(stderr, "%s explore: error: workers lost runs (%llu of %llu merged)\n",
			pr_argv0, (unsigned long long)st->done,
			(unsigned long long)st->len);
		broken = 1;
	}
	if (broken && rc == EXIT_NOFAIL && !stopped)
		fprintf(stderr, "%s explore: error: a worker failed; the exploration is incomplete\n",
			pr_argv0);
	while (pending) {
		struct msg *m = pending;

		pending = m->next;
		free(m->p);
		free(m);
	}
	free(w);
	free(pfd);
	munmap(sh, sizeof(*sh));
	if (broken)
		return EXIT_BADINPUT;
	if (rc != EXIT_NOFAIL)
		return rc;
	return st->failures ? EXIT_FOUND : EXIT_NOFAIL;
}
