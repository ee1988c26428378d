/* SPDX-License-Identifier: MIT */
/*
 * variant.c - protocol and knob names (doc/variants.md describes them).
 */
#include "model/variant.h"

#include <string.h>

struct pr_variant variant = { PROTO_V2, 0, 2 };

static const char *const protocol_names[] = {
	[PROTO_LOCKED] = "locked",
	[PROTO_V2] = "v2",
	[PROTO_MERGED] = "merged",
};

static const struct {
	enum pr_knob knob;
	const char *name;
} knob_names[] = {
	{ KNOB_SPEC_FREE_CHECK, "spec-free-check" },
	{ KNOB_RADIX_RCU_FREE, "radix-rcu-free" },
	{ KNOB_SPEC_IRQ, "spec-irq" },
	{ KNOB_ADD_AFTER_INSERT, "add-after-insert" },
	{ KNOB_NO_FREEING_FLAG, "no-freeing-flag" },
	{ KNOB_NO_RECHECK, "no-recheck" },
	{ KNOB_LOCK_NO_RECHECK, "lock-no-recheck" },
	{ KNOB_RADIX_SINGLE_READ, "radix-single-read" },
	{ KNOB_RELEASE_NO_RECHECK, "release-no-recheck" },
	{ KNOB_GANG_EMPTY_EXIT, "gang-empty-exit" },
	{ KNOB_INSERT_RELEASE, "insert-release" },
	{ KNOB_SHRINK_STALE_SLOT, "shrink-stale-slot" },
	{ KNOB_DEREF_SLOT_PLAIN, "deref-slot-plain" },
	{ KNOB_EXTEND_NO_WMB, "extend-no-wmb" },
	{ KNOB_INSERT_NODE_NO_WMB, "insert-node-no-wmb" },
	{ KNOB_PREP_NO_MB, "prep-no-mb" },
	{ KNOB_TESTONE_NO_MB, "testone-no-mb" },
	{ KNOB_FREEING_MB, "freeing-mb" },
	{ KNOB_SPEC_RMB, "spec-rmb" },
};

#define NKNOBS (sizeof(knob_names) / sizeof(knob_names[0]))

int variant_protocol_parse(const char *name, enum pr_protocol *out)
{
	for (unsigned i = 0; i < 3; i++)
		if (!strcmp(name, protocol_names[i])) {
			*out = (enum pr_protocol)i;
			return 0;
		}
	return -1;
}

const char *variant_protocol_name(enum pr_protocol p)
{
	return (unsigned)p < 3 ? protocol_names[p] : "?";
}

int variant_knob_parse(const char *name, enum pr_knob *out)
{
	for (unsigned i = 0; i < NKNOBS; i++)
		if (!strcmp(name, knob_names[i].name)) {
			*out = knob_names[i].knob;
			return 0;
		}
	return -1;
}

const char *variant_knob_name(enum pr_knob k)
{
	for (unsigned i = 0; i < NKNOBS; i++)
		if (knob_names[i].knob == k)
			return knob_names[i].name;
	return "?";
}

unsigned int variant_nr_knobs(void)
{
	return NKNOBS;
}

enum pr_knob variant_knob_at(unsigned int i)
{
	return knob_names[i].knob;
}
