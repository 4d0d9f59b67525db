/*
 * cp_stair.h - the least of a set of values that expire: a staircase.
 *
 * Values come with the position until which they are alive (an index that
 * only grows between queries: Slack's walk position, cp_slack.c); a query
 * asks for the least value alive at a position.  Only the values no other
 * one dominates are kept (a value of no less, alive no longer, can never
 * be the least alive while the other is), sorted by expiry and then, as
 * none is dominated, by value as well, both strictly increasing.  The
 * alive ones are then a suffix, and the least alive is that suffix's
 * first: a query drops the expired entries from the front and reads one.
 * A push finds its place by expiry and is dropped if the entry there
 * dominates it; otherwise it takes the place of the entries it dominates:
 * the run of larger values just before it, and one of the same expiry.
 *
 * The entries lie in blocks of at most CP_STAIR_BLOCK, in order, each with
 * room at both ends: the front block, which the staircase holds, and a
 * directory of the others.  A push finds its block by a binary search of
 * the blocks' last entries and its place in the block as a one-block
 * staircase does (a scan from the front, then a binary search), and moves
 * the entries on the shorter side of that place in that block only; a
 * full block splits in two.  So a push costs O(log n) to find its place
 * and O(CP_STAIR_BLOCK + n / CP_STAIR_BLOCK) at worst to move entries and
 * directory slots; every entry goes in and out once.
 *
 * Sizes met: a trace of 2*10^7 lock events with seven procedures keeps 8
 * entries on average at a push, most pushes landing one or two from the
 * front (one block, as small as 64 entries); a molecular dynamics program
 * with a lock per cell keeps about one entry per cell alive (13,824 cells:
 * 2,600 on average, 13,825 at most), its pushes landing anywhere, which a
 * single array paid with 330 entries moved per push.
 *
 * Concurrency: a staircase belongs to one thread at a time.
 */
#ifndef CP_STAIR_H
#define CP_STAIR_H

#include <stdint.h>

/* The most entries a block holds. */
#define CP_STAIR_BLOCK 256u

struct cp_stair_entry {
	uint64_t val;
	uint64_t until;		/* alive at positions <= until */
};

/* A block: its entries e[lo .. n), room for cap. */
struct cp_stair_blk {
	struct cp_stair_entry *e;
	uint32_t lo, n, cap;
};

/* The front block, where most pushes land and every query looks, and the
 * blocks after it, d[dl .. nd), each holding entries; room for dcap. */
struct cp_stair {
	struct cp_stair_blk f;
	struct cp_stair_blk *d;
	uint32_t dl, nd, dcap;
};

/* An empty staircase is all zeros. */

/* The front block is empty and another follows: it takes the front
 * (cp_stair_min()). */
void cp_stair_next_block(struct cp_stair *s);

/* The least value alive at @now (UINT64_MAX if none); @now never less
 * than at the last query or push. */
static inline uint64_t cp_stair_min(struct cp_stair *s, uint64_t now)
{
	for (;;) {
		struct cp_stair_blk *b = &s->f;

		while (b->lo < b->n && b->e[b->lo].until < now)
			b->lo++;
		if (b->lo < b->n)
			return b->e[b->lo].val;
		if (s->dl == s->nd) {
			b->lo = b->n = 0;	/* kept for the next push */
			return UINT64_MAX;
		}
		cp_stair_next_block(s);
	}
}

/* Add @val, alive until @until, at position @now (<= @until); 0, or -1
 * when memory runs out (the staircase is as before). */
int cp_stair_push(struct cp_stair *s, uint64_t val, uint64_t until,
		  uint64_t now);

/* The entries kept (alive or not yet dropped). */
uint64_t cp_stair_size(const struct cp_stair *s);

/* Forget every entry, keeping one block's array. */
void cp_stair_clear(struct cp_stair *s);

/* Make @dst (empty, or holding arrays it reuses) the same as @src.
 * 0, or -1 when memory runs out (@dst is then empty). */
int cp_stair_copy(struct cp_stair *dst, const struct cp_stair *src);

/* Free the arrays; the staircase is empty again. */
void cp_stair_free(struct cp_stair *s);

#endif /* CP_STAIR_H */
