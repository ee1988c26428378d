/* SPDX-License-Identifier: MIT */
/*
 * backtrace.c - addresses to "function (file:line)" (backtrace.h).
 *
 * The cache maps each return address (minus one, so that it points into
 * the call instruction) to its chain of frames, innermost inlined function
 * first.  Only addresses inside the main executable are given to
 * addr2line, as offsets from its load bias (PIE or not); others are named
 * by dladdr() and are cut from printed backtraces anyway.
 */
#define _GNU_SOURCE
#include "report/backtrace.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct entry {
	uintptr_t ip;
	int state;		/* 0 queued, 1 resolved */
	int first, n;		/* frames[first .. first+n) */
};

struct pr_symtab {
	struct entry *e;
	size_t n, cap;
	struct pr_frame *fr;
	size_t nfr, frcap;
	int sorted;
};

/* The main executable: its load bias and mapped range. */
static struct {
	int known;
	uintptr_t bias, lo, hi;
} exe;

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	exe.bias = info->dlpi_addr;
	exe.lo = UINTPTR_MAX;
	exe.hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + p->p_vaddr < exe.lo)
			exe.lo = info->dlpi_addr + p->p_vaddr;
		if (info->dlpi_addr + p->p_vaddr + p->p_memsz > exe.hi)
			exe.hi = info->dlpi_addr + p->p_vaddr + p->p_memsz;
	}
	return 1;	/* the first object is the executable */
}

static void exe_find(void)
{
	if (!exe.known) {
		dl_iterate_phdr(phdr_cb, NULL);
		exe.known = 1;
	}
}

struct pr_symtab *pr_symtab_new(void)
{
	return calloc(1, sizeof(struct pr_symtab));
}

void pr_symtab_free(struct pr_symtab *st)
{
	if (!st)
		return;
	free(st->e);
	free(st->fr);
	free(st);
}

static int cmp_entry(const void *a, const void *b)
{
	uintptr_t x = ((const struct entry *)a)->ip;
	uintptr_t y = ((const struct entry *)b)->ip;

	return x < y ? -1 : x > y;
}

static void sort_unique(struct pr_symtab *st)
{
	size_t j = 0;

	if (st->sorted)
		return;
	qsort(st->e, st->n, sizeof(*st->e), cmp_entry);
	for (size_t i = 0; i < st->n; i++) {
		if (j && st->e[j - 1].ip == st->e[i].ip) {
			if (st->e[i].state)	/* keep the resolved one */
				st->e[j - 1] = st->e[i];
			continue;
		}
		st->e[j++] = st->e[i];
	}
	st->n = j;
	st->sorted = 1;
}

static struct entry *lookup(struct pr_symtab *st, uintptr_t ip)
{
	struct entry key = { .ip = ip };

	sort_unique(st);
	return bsearch(&key, st->e, st->n, sizeof(*st->e), cmp_entry);
}

static void add_ip(struct pr_symtab *st, uintptr_t ip)
{
	if (st->n == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 256;
		struct entry *e = realloc(st->e, cap * sizeof(*e));

		if (!e)
			return;
		st->e = e;
		st->cap = cap;
	}
	st->e[st->n++] = (struct entry){ .ip = ip };
	st->sorted = 0;
}

void pr_symtab_add(struct pr_symtab *st, const struct pr_event *e)
{
	for (int i = 0; i < e->nip; i++)
		if (e->ip[i])
			add_ip(st, e->ip[i] - 1);
}

static struct pr_frame *new_frame(struct pr_symtab *st)
{
	if (st->nfr == st->frcap) {
		size_t cap = st->frcap ? 2 * st->frcap : 512;
		struct pr_frame *f = realloc(st->fr, cap * sizeof(*f));

		if (!f)
			return NULL;
		st->fr = f;
		st->frcap = cap;
	}
	memset(&st->fr[st->nfr], 0, sizeof(*st->fr));
	return &st->fr[st->nfr++];
}

/* "/abs/build/../src/model/page.h" -> "src/model/page.h". */
static void short_path(const char *path, char *buf, size_t len)
{
	const char *best = NULL;
	static const char *const roots[] = { "src/", "tests/", "bench/" };

	for (size_t r = 0; r < sizeof(roots) / sizeof(roots[0]); r++)
		for (const char *p = path; (p = strstr(p, roots[r])); p++)
			if (p == path || p[-1] == '/')
				if (!best || p > best)
					best = p;
	snprintf(buf, len, "%s", best ? best : path);
}

/* dladdr's name, for addresses addr2line did not explain. */
static void fallback(struct pr_symtab *st, struct entry *en)
{
	struct pr_frame *f = new_frame(st);
	Dl_info info;

	en->state = 1;
	if (!f) {
		en->n = 0;
		return;
	}
	en->first = (int)(st->nfr - 1);
	en->n = 1;
	if (dladdr((void *)en->ip, &info) && info.dli_sname)
		snprintf(f->func, sizeof(f->func), "%s", info.dli_sname);
	else
		snprintf(f->func, sizeof(f->func), "??");
}

/* Run addr2line on the queued addresses; its output into @out. */
static char *run_addr2line(const char *prog, const char *exe_path,
			   struct entry **todo, size_t n, size_t *outlen)
{
	char **argv = calloc(n + 8, sizeof(char *));
	char *addrs = malloc(n * 24 + 1), *out = NULL;
	size_t cap = 0, len = 0;
	int pfd[2], status;
	pid_t pid;

	if (!argv || !addrs || pipe(pfd)) {
		free(argv);
		free(addrs);
		return NULL;
	}
	argv[0] = (char *)prog;
	argv[1] = (char *)"-a";
	argv[2] = (char *)"-f";
	argv[3] = (char *)"-i";
	argv[4] = (char *)"-e";
	argv[5] = (char *)exe_path;
	for (size_t i = 0; i < n; i++) {
		argv[6 + i] = addrs + i * 24;
		snprintf(argv[6 + i], 24, "0x%llx",
			 (unsigned long long)(todo[i]->ip - exe.bias));
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		dup2(pfd[1], 1);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 2);
		}
		close(pfd[0]);
		close(pfd[1]);
		execvp(prog, argv);
		_exit(127);
	}
	close(pfd[1]);
	if (pid > 0) {
		for (;;) {
			ssize_t r;

			if (len + 4096 + 1 > cap) {
				char *b = realloc(out, cap = 2 * cap + 8192);

				if (!b)
					break;
				out = b;
			}
			r = read(pfd[0], out + len, cap - len - 1);
			if (r <= 0)
				break;
			len += (size_t)r;
		}
		while (waitpid(pid, &status, 0) < 0)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			len = 0;
	}
	close(pfd[0]);
	free(argv);
	free(addrs);
	if (out)
		out[len] = '\0';
	*outlen = len;
	if (!len) {
		free(out);
		return NULL;
	}
	return out;
}

/* Parse "0xADDR\nfunc\nfile:line\n[func\nfile:line\n]..." in order. */
static void parse_addr2line(struct pr_symtab *st, struct entry **todo,
			    size_t n, char *out)
{
	size_t k = 0;
	struct entry *cur = NULL;
	char *save = NULL, *fn = NULL;

	for (char *line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "0x", 2) && !fn) {
			cur = k < n ? todo[k++] : NULL;
			if (cur) {
				cur->state = 1;
				cur->first = (int)st->nfr;
				cur->n = 0;
			}
			continue;
		}
		if (!fn) {
			fn = line;
			continue;
		}
		if (cur) {
			struct pr_frame *f = new_frame(st);
			char *colon = strrchr(line, ':'), *sp;

			if (f) {
				snprintf(f->func, sizeof(f->func), "%s", fn);
				if (colon) {
					*colon = '\0';
					f->line = atoi(colon + 1);
				}
				if ((sp = strstr(colon ? colon + 1 : line, " (")))
					*sp = '\0';
				if (strcmp(line, "??"))
					short_path(line, f->file, sizeof(f->file));
				cur->n++;
			}
		}
		fn = NULL;
	}
}

void pr_symtab_resolve(struct pr_symtab *st)
{
	struct entry **todo;
	char exe_path[4096], *out;
	size_t n = 0, len;
	ssize_t pl;

	sort_unique(st);
	exe_find();
	todo = calloc(st->n + 1, sizeof(*todo));
	if (!todo)
		return;
	for (size_t i = 0; i < st->n; i++) {
		struct entry *en = &st->e[i];

		if (en->state)
			continue;
		if (en->ip >= exe.lo && en->ip < exe.hi)
			todo[n++] = en;
		else
			fallback(st, en);
	}
	pl = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	if (n && pl > 0) {
		exe_path[pl] = '\0';
		/*
		 * LLVM's addr2line follows clang's DWARF 5 inlining chains,
		 * which binutils' may flatten; either gives the same answer
		 * from run to run on one machine.
		 */
		const char *tools[] = { getenv("PAGERACE_ADDR2LINE"),
					"llvm-addr2line", "addr2line" };

		out = NULL;
		for (size_t i = 0; i < 3 && !out; i++)
			if (tools[i] && *tools[i])
				out = run_addr2line(tools[i], exe_path, todo, n,
						    &len);
		if (out)
			parse_addr2line(st, todo, n, out);
		free(out);
	}
	for (size_t i = 0; i < n; i++)
		if (!todo[i]->state || !todo[i]->n)
			fallback(st, todo[i]);
	free(todo);
}

/*
 * Frames of the runtime and of this recorder.  Judged by name: a tool that
 * flattens inlining may put a model function at a line of yield.h.
 */
static int is_runtime(const struct pr_frame *f)
{
	static const char *const names[] = {
		"decide", "switch_to", "fiber_entry", "run_event",
		"on_step", "on_decision", "push_special", "??",
		"on_shadow", "kasan_set",	/* lifetime.c's notes */
	};

	if (!strncmp(f->file, "src/report/", 11) ||
	    !strncmp(f->func, "pr_", 3) || !strncmp(f->func, "unw_", 4) ||
	    !strncmp(f->func, "_U", 2))
		return 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(f->func, names[i]))
			return 1;
	return 0;
}

int pr_backtrace_frames(struct pr_symtab *st, const struct pr_event *e,
			struct pr_frame *out, int max)
{
	int n = 0, model = 0;

	if (max <= 0)
		return 0;
	/* The yield point itself is the innermost model frame. */
	if (e->site && e->site->line) {
		snprintf(out[0].func, sizeof(out[0].func), "%s", e->site->func);
		short_path(e->site->file, out[0].file, sizeof(out[0].file));
		out[0].line = e->site->line;
		n = 1;
	}
	for (int i = 0; i < e->nip && n < max; i++) {
		struct entry *en;

		if (!e->ip[i])
			break;
		en = lookup(st, e->ip[i] - 1);
		if (!en) {
			pr_symtab_add(st, e);
			pr_symtab_resolve(st);
			en = lookup(st, e->ip[i] - 1);
		}
		if (!en || !en->state)
			continue;
		if (en->state && !en->n)
			continue;
		for (int j = 0; j < en->n && n < max; j++) {
			const struct pr_frame *f = &st->fr[en->first + j];

			if (is_runtime(f)) {
				if (model)
					return n;	/* below the body */
				continue;
			}
			if (!model) {
				model = 1;
				/* The site frame again, from the debug info? */
				if (n == 1 && !strcmp(f->func, out[0].func))
					continue;
			}
			out[n] = *f;
			if (!strncmp(f->file, "src/runtime/", 12))
				out[n].file[0] = '\0';	/* a flattened inline */
			n++;
		}
	}
	return n;
}

void pr_backtrace_print(FILE *f, struct pr_symtab *st,
			const struct pr_event *e, const char *indent)
{
	struct pr_frame fr[PR_EV_MAX_IPS + 1];
	int n = pr_backtrace_frames(st, e, fr, PR_EV_MAX_IPS + 1);

	for (int i = 0; i < n; i++) {
		if (fr[i].file[0])
			fprintf(f, "%s%s (%s:%d)\n", indent, fr[i].func,
				fr[i].file, fr[i].line);
		else
			fprintf(f, "%s%s\n", indent, fr[i].func);
	}
}
