/*
 * cp_stream_cshares.c - C's shares ahead (cp_stream_cshares.h): a walk of
 * the streamed Slack's scratch file that follows the critical path C
 * alone, back from its end, and sums each lane's share of C's edges by
 * blocks of positions.  It parses a record only where C's next vertex is
 * (at the position C's edge into it gave) or where the record says its
 * thread's mask, so it costs 10-15 ns a record.
 */
#include "cp_stream_cshares.h"

#include <stdlib.h>
#include <string.h>

#include "cp_debug.h"
#include "cp_die.h"
#include "cp_spill.h"
#include "cp_stream_slfile.h"
#include "cp_varint.h"

/* Debug invariants: type-checked always, run when this is true. */
static const bool cp_stream_cs_debug = CP_DEBUG;

/* The room the shares take: 16 MiB at most, in blocks of 256 positions or
 * more (a finer bound left out few more segments, on the traces tried). */
#define CS_BYTES ((size_t)16 << 20)
#define CS_SHIFT 8

/* The walk that follows C alone: where it goes on (as struct walk's
 * ptr, ptr_id, cf) and each thread's mask, learnt back as there.  The
 * shares of C's edges are summed by runs: the C edges of one mask (a
 * thread's run on C) into dt, the runs of one block into own, the blocks
 * into cs->cum. */
struct cs_walk {
	struct cp_stream_cs *cs;
	const struct sp *p;
	uint64_t N;
	int ptr;
	uint32_t ptr_id;
	uint64_t cf;
	uint64_t *tmask;	/* [nt] */
	uint64_t mask, dt;	/* the run: its mask, its C time */
	uint64_t blk;		/* the block summed into own */
	uint32_t k[CP_STREAM_TRACK * 2];	/* a column's tracked index */
	uint64_t own[CP_STREAM_TRACK * 2 + 1];
	uint64_t rem[CP_STREAM_TRACK * 2];	/* a column's CP time left
						 * past block blk */
	uint32_t nrem;		/* columns with CP time left */
};

/* The run of C edges under one mask ends: its time goes to the columns
 * of the lanes it holds. */
static void cs_run_end(struct cs_walk *c)
{
	uint32_t nl = c->cs->nc - 1;

	for (uint32_t l = 0; l < nl; l++)
		if (c->mask >> c->k[l] & 1)
			c->own[l] += c->dt;
	c->own[nl] += c->dt;
	c->dt = 0;
}

/* A C edge of @dt under @mask. */
static void cs_share(struct cs_walk *c, uint64_t mask, uint64_t dt)
{
	if (mask != c->mask) {
		cs_run_end(c);
		c->mask = mask;
	}
	c->dt += dt;
}

/* The shares summed into own are block blk's: rows blk + 1 .. @b take
 * the sums to there (the blocks between have no C vertex), and they
 * come out of the CP time the lanes have left.  The walks may read them
 * once published (cs_publish()). */
static void cs_block_end(struct cs_walk *c, uint64_t b)
{
	struct cp_stream_cs *cs = c->cs;
	uint32_t nc = cs->nc;
	const uint64_t *prev = cs->cum + c->blk * nc;
	uint64_t *row = cs->cum + (c->blk + 1) * nc;

	cs_run_end(c);
	for (uint32_t l = 0; l < nc; l++) {
		row[l] = prev[l] + c->own[l];
		if (l + 1 < nc && c->rem[l]) {
			c->rem[l] -= c->own[l] < c->rem[l] ? c->own[l] :
							     c->rem[l];
			c->nrem -= !c->rem[l];
		}
		c->own[l] = 0;
	}
	for (uint64_t r = c->blk + 2; r <= b; r++)
		memcpy(cs->cum + r * nc, row, nc * sizeof(*row));
}

/* Rows [0, @b] are found. */
static void cs_publish(struct cp_stream_cs *cs, uint64_t b)
{
	atomic_store_explicit(&cs->ready, b, memory_order_release);
}

/* The C edge from a vertex of thread @tid into C's next vertex, at @nf
 * (on_c() takes its shares there, in that vertex's block): its shares by
 * the @npc pieces at @pc (the record ends at @e), or else of @wt under
 * the thread's mask.  0, or -2 (a piece the pass did not write). */
static int cs_along(struct cs_walk *c, uint32_t tid, uint64_t nf,
		    uint64_t wt, const uint8_t *pc, uint64_t npc,
		    const uint8_t *e)
{
	uint64_t b = (c->N - 1 - nf) >> c->cs->shift, mk, dt;

	if (b < c->blk)
		return -2;	/* C goes back in the file */
	if (b != c->blk) {
		cs_block_end(c, b);
		cs_publish(c->cs, b);
		c->blk = b;
	}
	if (!pc) {
		cs_share(c, c->tmask[tid], wt);
		return 0;
	}
	for (uint64_t i = 0; i < npc; i++) {
		if (cp_uv_get(&pc, e, &mk) || cp_uv_get(&pc, e, &dt))
			return -2;
		cs_share(c, mk, dt);
	}
	return 0;
}

#define GET(v)	do { if (cp_uv_get(&q, e, &(v))) return -2; } while (0)

/*
 * The record [@q, @e) at @f: if C's next vertex (the record at c->cf, as
 * walk_one() finds it), its shares, and where C goes on; else only its
 * thread's mask, when it says it.  0, or -2 (a record the pass did not
 * write, or C not where it should be).
 */
static int cs_record(struct cs_walk *c, const uint8_t *q, const uint8_t *e,
		     uint64_t f)
{
	struct cp_stream_slf_rec h;
	uint64_t x;
	bool at;

	if (q >= e || (f != c->cf && !(*q & F_PIECES)))
		return 0;
	if (f != c->cf) {	/* it only says its thread's mask */
		if (cp_stream_slf_start(q, e, &h, &q) || h.id >= c->p->nt)
			return -2;
		c->tmask[h.id] = h.mask0;
		return 0;
	}
	if (cp_stream_slf_head(q, e, &h) ||
	    (!(h.flags & F_VIRT) && h.id >= c->p->nt) ||
	    h.dprev > f)
		return -2;
	at = c->ptr == (h.flags & F_VIRT ? PTR_SLOT : PTR_THREAD) &&
	     c->ptr_id == h.id;
	for (uint64_t n = h.npub; n; n--) {
		if (cp_uv_get(&h.pub, e, &x))
			return -2;
		at |= c->ptr == PTR_SLOT && c->ptr_id == x;
	}
	if (!at)
		return -2;
	c->ptr = PTR_NONE;
	if (!h.win && !(h.flags & (F_VIRT | F_FIRST))) {
		c->ptr = PTR_THREAD;
		c->ptr_id = (uint32_t)h.id;
		c->cf = f - h.dprev;
		if (cs_along(c, (uint32_t)h.id, c->cf, h.wt, h.pc, h.npc, e))
			return -2;
	}
	if (h.flags & F_PIECES)
		c->tmask[h.id] = h.mask0;
	q = h.in;
	for (uint64_t j = 0; j < h.win; j++) {
		uint64_t id, egap, dpos;

		GET(id);
		GET(egap);
		GET(dpos);
		if (j + 1 == h.win) {
			if (dpos > f)
				return -2;
			c->ptr = id & 1 ? PTR_THREAD : PTR_SLOT;
			c->ptr_id = (uint32_t)(id >> 1);
			c->cf = f - dpos;
		}
	}
	return 0;
}

#undef GET

/* Has the walk more to find: C goes on, and some lane's CP time is not
 * all summed (in the blocks before the one summed now)? */
static bool cs_on(const struct cs_walk *c)
{
	return c->ptr != PTR_NONE && c->nrem;
}

/* Follow C back through the file until the lanes' CP time is all found
 * (@c set up by cp_stream_cs_new()), publishing the rows as it goes, and
 * all of them then (the lanes have no share of C's edges further back).  Where
 * the file does not give them all (it disagrees, or a read failed), the
 * rows published stay, and the others are never read. */
static void cs_run(struct cs_walk *c)
{
	const struct cp_spill *sp = &c->p->sl->sp;
	uint8_t *buf = NULL;
	size_t cap = 0;
	uint64_t f = c->N - 1;
	int ret = 0;
	bool io = false;

	for (uint32_t i = sp->nchunk; i-- > 0 && cs_on(c) && !ret;) {
		const uint8_t *b, *e;
		uint32_t n = 0;

		if (cp_spill_read(sp, i, &buf, &cap)) {
			io = true;
			break;
		}
		b = buf;
		e = b + sp->chunk[i].len;
		while (e > b && cs_on(c) && !ret) {
			uint64_t l;
			const uint8_t *be = cp_stream_slf_len(b, e, &l);

			if (!be || l > (uint64_t)(be - b) ||
			    ++n > sp->chunk[i].nrec || f == UINT64_MAX)
				ret = -2;
			else
				ret = cs_record(c, be - l, be, f--);
			e = be ? be - l : e;
		}
	}
	if (cp_stream_cs_debug && ret)
		cp_die("stream: the walk of C alone lost it");
	free(buf);
	if (io || ret)
		return;
	cs_block_end(c, c->cs->nb);
	if (!c->nrem)
		cs_publish(c->cs, c->cs->nb);
	else if (cp_stream_cs_debug)
		cp_die("stream: the walk of C alone lost it");
}

static void cs_walk_free(struct cp_stream_cs *cs)
{
	if (cs->c)
		free(cs->c->tmask);
	free(cs->c);
	cs->c = NULL;
}

struct cp_stream_cs *cp_stream_cs_new(struct sp *p,
				      const uint32_t (*k)[CP_STREAM_TRACK],
				      const uint32_t *n)
{
	struct cp_stream_cs *cs;
	struct cs_walk *c;
	uint64_t L, N = p->sl->nsteps;
	uint32_t cpt = cp_stream_cp_end(p, &L), nc = n[0] + n[1] + 1;

	if (cpt == NONE || nc == 1 || !N)
		return NULL;
	cs = calloc(1, sizeof(*cs));
	if (!cs)
		return NULL;
	cs->nc = nc;
	cs->shift = CS_SHIFT;
	while (((N - 1) >> cs->shift) + 2 > CS_BYTES / (8 * (size_t)nc))
		cs->shift++;
	cs->nb = ((N - 1) >> cs->shift) + 1;
	cs->cum = calloc((cs->nb + 1) * nc, sizeof(*cs->cum));
	cs->c = c = calloc(1, sizeof(*c));
	if (c)
		c->tmask = malloc((p->nt ? p->nt : 1) * sizeof(*c->tmask));
	if (!cs->cum || !c || !c->tmask) {
		cp_stream_cs_free(cs);
		return NULL;
	}
	*c = (struct cs_walk){ .cs = cs, .p = p, .N = N, .ptr = PTR_THREAD,
			       .ptr_id = cpt, .cf = p->sl->lastf[cpt],
			       .tmask = c->tmask };
	memcpy(c->tmask, p->sl->endmask, p->nt * sizeof(*c->tmask));
	for (uint32_t h = 0, l = 0; h < 2; h++)
		for (uint32_t i = 0; i < n[h]; i++, l++) {
			c->k[l] = k[h][i];
			c->rem[l] = p->th[cpt].vec[k[h][i]];
			c->nrem += c->rem[l] > 0;
		}
	return cs;
}

void cp_stream_cs_fill(struct cp_stream_cs *cs)
{
	cs_run(cs->c);
	cs_walk_free(cs);
}

void cp_stream_cs_free(struct cp_stream_cs *cs)
{
	if (!cs)
		return;
	cs_walk_free(cs);
	free(cs->cum);
	free(cs);
}
