/* SPDX-License-Identifier: MIT */
/*
 * peek.c - what a pending load would read, for strategies that steer a
 * run towards an outcome (the litmus witness sampler, cli/litmus.c):
 * looks only, never changes the model's state or reports an effect, so
 * a run that asks takes exactly the steps of one that does not.
 *
 * Kept apart from buffer.c, flush.c and stale.c (the hot paths).
 */
#include "memory/internal.h"
#include "memory/loctable.h"
#include "memory/memory.h"
#include "runtime/tsan.h"

/*
 * The @k-th older value (k >= 1) @ctx's pending load of @addr may read
 * (stale.c's books), in *@val; -1 when it may not read it.
 */
PR_NO_TSAN static int stale_peek(int ctx, const void *addr, size_t size,
				 int k, uint64_t *val)
{
	struct loc *e;

	if (k < 1 || k > stale_count(ctx, addr))
		return -1;
	e = loc_find(addr, 0);
	if (!e || e->size != size || k >= e->n)
		return -1;
	*val = e->val[k];
	return 0;
}

PR_NO_TSAN int pr_mem_peek(int ctx, const void *addr, size_t size, int k,
			   uint64_t *val)
{
	const struct buffer *b;
	int hit = -1;

	*val = 0;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return -1;
	if (k > 0)
		return mem_stale ? stale_peek(ctx, addr, size, k, val) : -1;
	if (mem_model != PR_MEM_SC && ctx >= 0 && ctx < PR_MAX_CTX) {
		/* Its own newest store to those bytes (store forwarding). */
		b = &mem_buf[ctx];
		for (unsigned m = b->used; m; m &= m - 1) {
			int s = __builtin_ctz(m);

			if (mem_overlap(b->e[s].addr, b->e[s].size, addr, size) &&
			    (hit < 0 || b->e[s].seq > b->e[hit].seq))
				hit = s;
		}
		if (hit >= 0) {
			if (b->e[hit].addr != addr || b->e[hit].size != size)
				return -1;	/* in part: it waits first */
			mem_copy(val, &b->e[hit].val, size);
			return 0;
		}
	}
	mem_copy(val, addr, size);
	return 0;
}

PR_NO_TSAN int pr_mem_peek_flush(int ctx, int slot, uint64_t *val)
{
	const struct buffer *b;

	*val = 0;
	if (ctx < 0 || ctx >= PR_MAX_CTX || slot < 0 || slot >= PR_MEM_SLOTS)
		return -1;
	b = &mem_buf[ctx];
	if (!(b->used & (1u << slot)))
		return -1;
	mem_copy(val, &b->e[slot].val, b->e[slot].size);
	return 0;
}
