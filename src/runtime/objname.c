/* SPDX-License-Identifier: MIT */
/*
 * objname.c - stable names for objects.
 *
 * Reports and traces must not mention addresses (they move with ASLR), so
 * programs name their objects.  The table is scanned linearly and only on
 * slow paths (verdicts, reports); pointers are compared, never hashed.
 */
#include "runtime/tsan.h"
#include "runtime/context.h"
#include "runtime/internal.h"

#include <stdio.h>
#include <string.h>

#define PR_MAX_NAMES 256

static struct {
	const void *obj;
	char name[48];
} names[PR_MAX_NAMES];
static int nr_names;
static pr_obj_resolver resolver;

PR_NO_TSAN void pr_objname_reset(void)
{
	nr_names = 0;
}

PR_NO_TSAN void pr_name_object(const void *obj, const char *name)
{
	for (int i = 0; i < nr_names; i++)
		if (names[i].obj == obj) {
			snprintf(names[i].name, sizeof(names[i].name), "%s", name);
			return;
		}
	if (nr_names == PR_MAX_NAMES)
		return;		/* unnamed objects are reported as "?" */
	names[nr_names].obj = obj;
	snprintf(names[nr_names].name, sizeof(names[nr_names].name), "%s", name);
	nr_names++;
}

PR_NO_TSAN void pr_set_obj_resolver(pr_obj_resolver fn)
{
	resolver = fn;
}

PR_NO_TSAN pr_obj_resolver pr_get_obj_resolver(void)
{
	return resolver;
}

PR_NO_TSAN const char *pr_obj_name(const void *obj, char *buf, unsigned len)
{
	if (!obj) {
		snprintf(buf, len, "-");
		return buf;
	}
	for (int i = 0; i < nr_names; i++)
		if (names[i].obj == obj) {
			snprintf(buf, len, "%s", names[i].name);
			return buf;
		}
	if (resolver && resolver(obj, buf, len))
		return buf;
	snprintf(buf, len, "?");
	return buf;
}
