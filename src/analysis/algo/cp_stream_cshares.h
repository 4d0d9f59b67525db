/*
 * cp_stream_cshares.h - C's shares ahead, for the streamed Slack walks
 * (cp_stream_slack.c): each lane's share of the critical path C's edges,
 * summed by blocks of file positions, found by a walk of the scratch file
 * (cp_stream_slfile.h) that follows C alone.  Internal to the out-of-core
 * pass.
 *
 * Why.  A segment pushed at a lane walk's position now, alive until
 * position u, can lower a lane's d only at C's vertices in [now, u], and
 * at each of them d is at most the d of now plus the lane's shares of
 * the C edges met since (the walk's on_c() adds a vertex's share, or
 * takes less).  A segment of no less value than that is never the least
 * that counts, and the walk's push() leaves it out: the staircases then
 * hold the few that may count (a molecular dynamics program with a lock
 * per cell: one push in 8 to 55 of those it made without).  The shares
 * are kept by blocks of positions, summed, within a fixed room, so that
 * the bound for [now, u] (the blocks that hold it) is two reads.
 *
 * The walk of C alone runs on one core at the start of one lane walk's
 * job (cp_stream_cs_fill()) while the other lane walk starts on the other
 * core and reads the rows as they are published: an atomic count, and a
 * row not yet published bounds nothing.  Memory: 16 MB at most.
 */
#ifndef CP_STREAM_CSHARES_H
#define CP_STREAM_CSHARES_H

#include <stdatomic.h>
#include <stdint.h>

#include "cp_stream_int.h"

/* The shares, and the walk that finds them while it runs. */
struct cp_stream_cs {
	uint64_t *cum;		/* [(nb + 1) x nc]: column c's shares at C's
				 * vertices before block b, at [b * nc + c] */
	uint64_t nb;		/* blocks */
	uint32_t nc;		/* a column per lane of the two walks, then
				 * one of C's edges whole (any lane's share
				 * of an edge is at most its weight), for the
				 * lanes that lead others (regroup()) */
	unsigned shift;		/* a block is 2^shift positions */
	/* rows [0, ready] are found: the walk of C alone
	 * (cp_stream_cs_fill()) runs on one core at the start of its lanes'
	 * walk while the other walk starts on the other, and passes it on
	 * its way */
	_Atomic uint64_t ready;
	struct cs_walk *c;	/* that walk's state until it is done */
};

/* Column @c's shares at C's vertices in positions [@now, @until] or
 * more (the blocks that hold them); UINT64_MAX while not all found. */
static inline uint64_t cp_stream_cs_span(struct cp_stream_cs *cs,
					 uint32_t c, uint64_t now,
					 uint64_t until)
{
	uint64_t lo = now >> cs->shift, hi = (until >> cs->shift) + 1;

	if (hi > cs->nb)
		hi = cs->nb;
	if (lo >= hi)
		return 0;
	if (hi > atomic_load_explicit(&cs->ready, memory_order_acquire))
		return UINT64_MAX;	/* not found yet */
	return cs->cum[hi * cs->nc + c] - cs->cum[lo * cs->nc + c];
}

/*
 * C's shares ahead for the @n[h] lanes @k[h] of the two walks, their
 * columns in that order, to be found by cp_stream_cs_fill(); NULL when
 * the room cannot be had (the walks then go without them: the results
 * are the same).  After the records pass, with p->sl's file written.
 * Free with cp_stream_cs_free().
 */
struct cp_stream_cs *cp_stream_cs_new(struct sp *p,
				      const uint32_t (*k)[CP_STREAM_TRACK],
				      const uint32_t *n);

/* Find @cs's shares, publishing the rows as they are found. */
void cp_stream_cs_fill(struct cp_stream_cs *cs);

/* Free @cs (NULL: nothing). */
void cp_stream_cs_free(struct cp_stream_cs *cs);

#endif /* CP_STREAM_CSHARES_H */
