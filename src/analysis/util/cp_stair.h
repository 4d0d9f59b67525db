/*
 * cp_stair.h - the least of a set of values that expire: a staircase.
 *
 * Values come with the position until which they are alive (an index that
 * only grows between queries: Slack's walk position, cp_slack.c); a query
 * asks for the least value alive at a position.  Only the values no other
 * one dominates are kept (a value of no less, alive no longer, can never
 * be the least alive while the other is), in e[lo .. n), sorted by expiry
 * and then, as none is dominated, by value as well, both strictly
 * increasing.  The alive ones are then a suffix, and the least alive is
 * that suffix's first: a query drops the expired entries from the front
 * and reads one.  A push finds its place by expiry (a scan from the front,
 * then a binary search) and is dropped if the entry there dominates it;
 * otherwise it takes the place of the entries it dominates: the run of
 * larger values just before it, and one of the same expiry.  The entries
 * on the shorter side of that place move (the array has room at both
 * ends).  Every entry goes in and out once; a push costs O(log n) to find
 * its place and O(n) at worst to move entries.
 *
 * Slack on a trace of 2*10^7 events with seven procedures: 8 entries on
 * average at a push, most pushes landing one or two entries from the
 * front, where a heap of every pushed value, deleting lazily, held a few
 * hundred.
 *
 * Concurrency: a staircase belongs to one thread at a time.
 */
#ifndef CP_STAIR_H
#define CP_STAIR_H

#include <stdint.h>

struct cp_stair_entry {
	uint64_t val;
	uint64_t until;		/* alive at positions <= until */
};

struct cp_stair {
	struct cp_stair_entry *e;
	uint32_t lo, n, cap;	/* the entries: e[lo .. n) */
};

/* An empty staircase is all zeros. */

/* The least value alive at @now (UINT64_MAX if none); @now never less
 * than at the last query or push. */
static inline uint64_t cp_stair_min(struct cp_stair *s, uint64_t now)
{
	while (s->lo < s->n && s->e[s->lo].until < now)
		s->lo++;
	return s->lo < s->n ? s->e[s->lo].val : UINT64_MAX;
}

/* Add @val, alive until @until, at position @now (<= @until); 0, or -1
 * when memory runs out (the staircase is as before). */
int cp_stair_push(struct cp_stair *s, uint64_t val, uint64_t until,
		  uint64_t now);

/* Forget every entry, keeping the array. */
static inline void cp_stair_clear(struct cp_stair *s)
{
	s->lo = s->n = 0;
}

/* Make @dst (empty, or holding an array it reuses) the same as @src.
 * 0, or -1 when memory runs out (@dst is then empty). */
int cp_stair_copy(struct cp_stair *dst, const struct cp_stair *src);

/* Free the array; the staircase is empty again. */
void cp_stair_free(struct cp_stair *s);

#endif /* CP_STAIR_H */
