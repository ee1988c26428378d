/* SPDX-License-Identifier: MIT */
/*
 * trace.c - the trace's lifetime, options, flavour and check hash.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"
#include "runtime/tsan.h"
#include "trace/trace_parse.h"

void pr_trace_init(struct pr_trace *t)
{
	memset(t, 0, sizeof(*t));
	t->format = PR_TRACE_FORMAT;
	t->flavour = pr_trace_build_flavour();
	t->result.verdict.ctx = -1;
}

int pr_trace_build_flavour(void)
{
	return PR_TSAN_ENABLED ? PR_TRACE_TSAN : PR_TRACE_PLAIN;
}

const char *pr_trace_memory_name(int memory)
{
	static const char *const names[] = { "sc", "tso", "weak" };

	return memory >= 0 && memory < PR_TRACE_MEM_NR ? names[memory] : NULL;
}

const char *pr_trace_flavour_name(int flavour)
{
	return flavour == PR_TRACE_PLAIN ? "plain" :
	       flavour == PR_TRACE_TSAN ? "tsan" : "unknown";
}

uint64_t pr_trace_hash(uint64_t h, const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)buf[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

void pr_trace_free(struct pr_trace *t)
{
	free(t->pagerace_version);
	free(t->program);
	free(t->program_text);
	free(t->strategy);
	for (size_t i = 0; i < t->nopts; i++) {
		free(t->opts[i].key);
		free(t->opts[i].value);
	}
	free(t->opts);
	free(t->sched.seg);
	for (size_t i = 0; i < t->nsites; i++)
		free(t->sites[i]);
	free(t->sites);
	pr_trace_init(t);
}

const char *pr_trace_option(const struct pr_trace *t, const char *key)
{
	for (size_t i = 0; i < t->nopts; i++)
		if (!strcmp(t->opts[i].key, key))
			return t->opts[i].value;
	return NULL;
}

int tp_key_ok(const char *k, size_t n)
{
	if (!n || n > 128)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') ||
		      (k[i] >= 'A' && k[i] <= 'Z') ||
		      (k[i] >= '0' && k[i] <= '9') ||
		      k[i] == '.' || k[i] == '_' || k[i] == '-'))
			return 0;
	return 1;
}

int pr_trace_set_option(struct pr_trace *t, const char *key,
			const char *value)
{
	struct pr_trace_option *o;
	size_t i;
	char *v;

	if (!key || !value || !tp_key_ok(key, strlen(key))) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < t->nopts; i++) {
		int c = strcmp(t->opts[i].key, key);

		if (!c) {
			if (!(v = strdup(value)))
				return -1;
			free(t->opts[i].value);
			t->opts[i].value = v;
			return 0;
		}
		if (c > 0)
			break;
	}
	if (t->nopts >= PR_TRACE_MAX_OPTIONS) {
		errno = EINVAL;
		return -1;
	}
	o = realloc(t->opts, (t->nopts + 1) * sizeof(*o));
	if (!o)
		return -1;
	t->opts = o;
	memmove(o + i + 1, o + i, (t->nopts - i) * sizeof(*o));
	o[i].key = strdup(key);
	o[i].value = strdup(value);
	t->nopts++;
	if (!o[i].key || !o[i].value) {
		free(o[i].key);
		free(o[i].value);
		memmove(o + i, o + i + 1, (t->nopts - i - 1) * sizeof(*o));
		t->nopts--;
		errno = ENOMEM;
		return -1;
	}
	return 0;
}
