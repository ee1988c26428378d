/* SPDX-License-Identifier: MIT */
/*
 * rng.h - the only source of randomness: xoshiro256** seeded through
 * splitmix64 from (seed, run index), so a run can be re-created alone.
 */
#ifndef PAGERACE_RUNTIME_RNG_H
#define PAGERACE_RUNTIME_RNG_H

#include "runtime/tsan.h"
#include <stdint.h>

struct pr_rng {
	uint64_t s[4];
};

PR_NO_TSAN static inline uint64_t pr_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* @stream separates independent uses of one (seed, run) pair. */
PR_NO_TSAN static inline void pr_rng_seed(struct pr_rng *r, uint64_t seed, uint64_t run,
			       uint64_t stream)
{
	uint64_t x = seed ^ pr_splitmix64(&run) ^ (stream * 0xd1b54a32d192ed03ULL);

	for (int i = 0; i < 4; i++)
		r->s[i] = pr_splitmix64(&x);
}

PR_NO_TSAN static inline uint64_t pr_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

PR_NO_TSAN static inline uint64_t pr_rng_next(struct pr_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = pr_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = pr_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n), n >= 1, without modulo bias (Lemire). */
PR_NO_TSAN static inline uint64_t pr_rng_below(struct pr_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)pr_rng_next(r) * n;
	uint64_t lo = (uint64_t)m;

	if (lo < n) {
		uint64_t t = -n % n;

		while (lo < t) {
			m = (unsigned __int128)pr_rng_next(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

#endif /* PAGERACE_RUNTIME_RNG_H */
