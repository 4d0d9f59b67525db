/*
 * cp_pairs.h - sums by pair of ids: a table from (a, b) to two counters,
 * grown as pairs come, for breakdowns such as a thread's time per
 * procedure or its waits per object (cp_views.h), which the graph's walk
 * and the streaming pass both fill.
 *
 * Concurrency: none; one owner.
 */
#ifndef CP_PAIRS_H
#define CP_PAIRS_H

#include <stdint.h>

#include "cp_hash.h"

struct cp_pairs {
	struct cp_map2 map;	/* (a, b) -> index */
	uint64_t (*v)[2];	/* [n] the sums */
	uint32_t *a, *b;	/* [n] the keys */
	uint32_t n, cap;
};

/* The sums of (@a, @b), made zero the first time; NULL when memory runs
 * out.  The pointer holds until the next call. */
uint64_t *cp_pairs_at(struct cp_pairs *x, uint32_t a, uint32_t b);

/* Rename every key b to @ren[b] (b < @nren; others stay): the ids were
 * renumbered.  0, or -1 when memory runs out (@x then unchanged). */
int cp_pairs_rename_b(struct cp_pairs *x, const uint32_t *ren, uint32_t nren);

void cp_pairs_free(struct cp_pairs *x);

#endif /* CP_PAIRS_H */
