/* SPDX-License-Identifier: MIT */
/*
 * merge.h - what merge.c (combining shards, `pagerace merge`) shares with
 * merge_read.c (reading and checking one shard's JSON summary).
 */
#ifndef PAGERACE_CLI_MERGE_H
#define PAGERACE_CLI_MERGE_H

#include <jansson.h>
#include "cli/explore.h"
#include "scenario/scenario.h"

/* One summary as read (its strings point into @root). */
struct shard_in {
	const char *file;
	json_t *root;
	struct explore_summary s;
	char knobs[512];
	struct summary_failure *failed;
	struct summary_outcome outcomes[SCN_MAX_OUTCOMES];
};

/*
 * Read the explore --json summary at @path into @in: every key known to
 * its schema version, nothing else, and consistent.  Returns 0, or -1
 * (said on stderr as "merge: error: FILE: ...").  The caller frees
 * @in->failed and json_decref()s @in->root, also after a failure.
 */
int merge_load(const char *path, struct shard_in *in);

#endif /* PAGERACE_CLI_MERGE_H */
