/*
 * cp_stream_slfile.h - the scratch file of the streamed Slack: what the
 * records pass (cp_stream.c) writes of each vertex's in-edges
 * (cp_stream_slfile.c), and the record readers that the Slack walks
 * (cp_stream_slack.c) and the walk of C alone (cp_stream_cshares.c)
 * share.  Internal to the out-of-core pass.
 *
 * Records.  A publish record is its publisher's vertex: the walk's
 * values (A, cp_stream_slack.c) flow from its consumers into the record's
 * slot (the record's index, whose lifetimes are disjoint intervals in
 * both directions), and the publisher's vertex takes the slot's value
 * when the walk reaches it.  A record that later publishes fold into
 * (cp_stream_rec.c's folding) is a chain of virtual vertices, one per
 * merge into it, each with two in-edges of weight zero: the path lengths
 * between any two real vertices are G's, so Slack's linear program, and
 * the Slack, are the same.  A hub (cp_stream_rec.c) is one
 * virtual vertex, written before the CONSUME that makes it, with the
 * range's records as its in-edges.
 *
 * The file.  One record per vertex (and per virtual one), written in the
 * pass's order, LEB128 values, most of them small differences:
 *	u8 flags		VIRT, FIRST (no thread in-edge), PIECES
 * a vertex:
 *	uv tid
 *	PIECES: uv mask before
 *	uv n, n x uv slot published here
 *	unless FIRST: uv w, uv et(x) - et(u) - w, uv f(x) - f(u),
 *		uv wall(x) - wall(u)
 *	PIECES: uv n, n x (uv mask, uv dt)
 * a virtual vertex:
 *	uv slot it is a version of, uv et(x)
 * both:
 *	uv winner (0: the thread edge, else 1 + input)
 *	uv n, n x (uv id << 1 | is-thread, uv et(x) - et(in), uv f(x) - f(in))
 * then the record's length, the bytes of its LEB128 last first, so that
 * the walk finds it from the record's end.  The walk keeps each thread's
 * et, wall clock and mask, learnt backwards: et(u) and wall(u) from the
 * next vertex, the mask of the procedures followed that are open (the
 * lanes a segment counts for) from where it changed (PIECES, with the
 * pieces a sampled segment is cut into by stack switches).  About 13
 * bytes an event on a lock-heavy trace.
 */
#ifndef CP_STREAM_SLFILE_H
#define CP_STREAM_SLFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "cp_prefetch.h"
#include "cp_spill.h"
#include "cp_varint.h"

/* A record's flags, its first byte. */
enum { F_VIRT = 1, F_FIRST = 2, F_PIECES = 4 };

/* Where C goes on as a walk follows it back: a thread's next vertex, or
 * a slot's record (with its id and position). */
enum { PTR_NONE, PTR_THREAD, PTR_SLOT };

struct sl_in;
struct sl_virt;

/* The writer's state (cp_stream_sl_start()), and what the walks take
 * from it: the file, its vertex count and each thread's last vertex. */
struct cp_stream_sl {
	struct cp_spill sp;
	uint64_t nsteps;	/* vertices written (f of the next) */
	/* the vertex being written */
	uint64_t f;
	uint32_t tid;
	bool first;
	uint64_t etprev, mask0;
	uint64_t *pmask, *pdt;	/* its segment's pieces */
	uint32_t npc, cap_pc;
	struct sl_in *in;
	uint32_t nin, cap_in;
	uint32_t *pub;		/* slots published at it */
	uint32_t npub, cap_pub;
	struct sl_virt *virt;
	uint32_t nvirt, cap_virt;
	/* per slot: the vertex its record is now */
	uint64_t *rpos;
	uint32_t cap_rpos;
	uint64_t wd;		/* its wall clock minus its thread's last */
	/* per thread: its last vertex, its et, mask and wall clock there */
	uint64_t *lastf, *endet, *endmask, *endwall;
	/* the headline's procedure's C segments (cp_stream_busy.c) */
	struct cp_spill iv;
};

/* Start fetching what cp_stream_sl_in_rec() will read of slot @r, its
 * vertex (the records pass's lookahead, cp_stream.c). */
static inline void cp_stream_sl_prefetch(const struct cp_stream_sl *sl,
					 uint32_t r)
{
	if (r < sl->cap_rpos)
		cp_prefetch_read(&sl->rpos[r]);
}

/* A record of the file as cp_stream_slf_start() and cp_stream_slf_head()
 * read it (the format above); the published slots, the pieces and the
 * inputs stay where they lie, for whoever reads them. */
struct cp_stream_slf_rec {
	uint8_t flags;
	uint64_t id;		/* a vertex's thread, a virtual vertex's slot */
	uint64_t et;		/* a virtual vertex's */
	uint64_t mask0, npub, wt, gap, dprev, wd, npc, win, nin;
	const uint8_t *pub, *pc, *in;
};

#define CP_SLF_GET(v) \
	do { if (cp_uv_get(&q, e, &(v))) return -2; } while (0)

/* The start of record [@q, @e) into @r, up to a vertex's published
 * slots (a virtual vertex has none); where the rest starts into *@rest.
 * 0, or -2 (not a record). */
static inline int cp_stream_slf_start(const uint8_t *q, const uint8_t *e,
				      struct cp_stream_slf_rec *r,
				      const uint8_t **rest)
{
	uint64_t x;

	if (q >= e)
		return -2;
	r->flags = *q++;
	r->et = r->mask0 = r->npub = 0;
	r->pub = q;
	CP_SLF_GET(r->id);
	if (r->flags & F_VIRT) {
		CP_SLF_GET(r->et);
	} else {
		if (r->flags & F_PIECES)
			CP_SLF_GET(r->mask0);
		CP_SLF_GET(r->npub);
		r->pub = q;
		for (uint64_t i = 0; i < r->npub; i++)
			CP_SLF_GET(x);
	}
	*rest = q;
	return 0;
}

/* All of record [@q, @e) into @r but its inputs, which start at r->in.
 * 0, or -2 (not a record the pass wrote). */
static inline int cp_stream_slf_head(const uint8_t *q, const uint8_t *e,
				     struct cp_stream_slf_rec *r)
{
	uint64_t x;

	if (cp_stream_slf_start(q, e, r, &q))
		return -2;
	r->wt = r->gap = r->dprev = r->wd = r->npc = 0;
	r->pc = NULL;
	if (!(r->flags & (F_VIRT | F_FIRST))) {
		CP_SLF_GET(r->wt);
		CP_SLF_GET(r->gap);
		CP_SLF_GET(r->dprev);
		CP_SLF_GET(r->wd);
	}
	if (r->flags & F_PIECES) {
		CP_SLF_GET(r->npc);
		r->pc = q;
		for (uint64_t i = 0; i < 2 * r->npc; i++)
			CP_SLF_GET(x);
	}
	CP_SLF_GET(r->win);
	CP_SLF_GET(r->nin);
	r->in = q;
	return r->win > r->nin || (r->flags & F_VIRT && !r->win) ? -2 : 0;
}

#undef CP_SLF_GET

/* The length of the record ending at @e, read back from its end past
 * @lo into *@n; the record's body ends where it returns (NULL: no
 * length there). */
static inline const uint8_t *cp_stream_slf_len(const uint8_t *lo,
						 const uint8_t *e,
						 uint64_t *n)
{
	uint64_t v = 0;

	for (unsigned shift = 0; e > lo && shift < 64; shift += 7) {
		uint8_t c = *--e;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*n = v;
			return e;
		}
	}
	return NULL;
}

#endif /* CP_STREAM_SLFILE_H */
