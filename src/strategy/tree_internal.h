/* SPDX-License-Identifier: MIT */
/*
 * tree_internal.h - what tree.c (the walk down: pr_tree_pick) and
 * tree_end.c (the end of an execution: the next branch) share, and no
 * strategy needs.
 */
#ifndef PAGERACE_STRATEGY_TREE_INTERNAL_H
#define PAGERACE_STRATEGY_TREE_INTERNAL_H

#include "strategy/tree.h"

#include <stddef.h>

/*
 * Entering leaf number t->leaf: ours?  Not ours: the run ends here, and
 * is not counted (its owner runs it).
 */
int pr_tree_leaf_is_foreign(struct pr_tree *t);
/* Grow array *@p of *@cap elements of @elem bytes to hold @want. */
int pr_tree_grow(void **p, size_t *cap, size_t want, size_t elem);
/*
 * Node @nd's step is over: does it touch what the node's other versions
 * (older values its load may read) touched?  (tree.c)
 */
void pr_tree_note_version(struct pr_tnode *nd);

#endif /* PAGERACE_STRATEGY_TREE_INTERNAL_H */
