/*
 * cp_cuts.h - the cut vertices of a critical path: vertices of the chosen
 * critical path C that every root-to-leaf path passes through, up to
 * zero-weight detours.  They split the topological order into blocks, and
 * per-group metrics that only lower weights on or around C (logical
 * zeroing, Slack) add up block by block: a group with no CP time in a
 * block leaves that block alone, and the rest of the work stays inside
 * blocks small enough to sit in cache.  A barrier that every thread takes
 * part in is such a cut.  See cp_cuts.c for the definition and proofs.
 *
 * Block b is the run of topological positions vfirst[b] .. vfirst[b+1]
 * (both ends included: the cut between two blocks belongs to both), with
 * the edges whose tail and head both lie in it; its critical path edges
 * are path[pfirst[b] .. pfirst[b+1]).  An edge that passes over a cut
 * (weight zero by definition) belongs to no block.
 *
 * Read-only once found; the graph and the CPM result are only read.
 */
#ifndef CP_CUTS_H
#define CP_CUTS_H

#include "cp_cpm.h"
#include "cp_prefetch.h"


struct cp_cuts {
	const struct cp_cpm *c;
	uint32_t nb;		/* blocks: 1 + cuts (0 for an empty graph) */
	uint32_t *vfirst;	/* [nb+1] first topological position of each
				 * block; vfirst[nb] = nv - 1 */
	uint32_t *pfirst;	/* [nb+1] index in c->path of each block's
				 * first CP edge; pfirst[nb] = npath */
	uint32_t *rank;		/* [nv] topological position of a vertex */
	uint32_t *pos;		/* [nv] position of a vertex on C (0 .. npath),
				 * or CP_PAG_NONE */
};

/* Topological position of the head of edge @e. */
static inline uint32_t cp_cuts_head(const struct cp_cuts *k, uint32_t e)
{
	return k->rank[k->c->g->head[e]];
}

/*
 * Find the cuts of @c's critical path.  O(v+e) time, 8 bytes per vertex.
 * Returns 0, or -1 when memory runs out (@k is then empty).  @c must
 * outlive @k.  Free with cp_cuts_free().
 */
int cp_cuts_find(struct cp_cuts *k, const struct cp_cpm *c);
void cp_cuts_free(struct cp_cuts *k);

/*
 * Find @c's cuts, run @fn on them (a per-group metric taking the cuts:
 * cp_zero_blocks, cp_slack_blocks) and free them; returns what @fn
 * returned, or -1 when memory runs out.
 */
int cp_cuts_run(const struct cp_cpm *c,
		int (*fn)(const struct cp_cuts *k, const struct cp_groups *gr,
			  const bool *only, uint64_t *out),
		const struct cp_groups *gr, const bool *only, uint64_t *out);

/*
 * A block's per-vertex scratch as a ring.  Zeroing and Slack push a value
 * per lane along every edge of a block, from the tail's topological
 * position to the head's, and read it when the pass reaches the head.  In
 * a trace PAG nearly every edge spans a few hundred positions at most
 * (Kahn's order advances the threads side by side), so the values live in
 * a ring of @rows rows (row (p - vfirst[b]) & (rows - 1) for position p,
 * cleared once read) and the few edges that span @rows positions or more
 * carry theirs in a far slot each, merged into the head's row when the
 * pass reaches it.  @rows minimises rows + far slots; a pass over the
 * block's vertices at positions p with their out-edges (in the graph's
 * out-edge order, heads at most the block's last position) numbers the far edges 0, 1, ... in
 * that order.  Results are those of a scratch row per vertex, bit for bit.
 */
struct cp_cuts_win {
	uint32_t rows;		/* ring rows: a power of two */
	uint32_t nfar;		/* far edges of the block */
	uint64_t *far;		/* [nfar] head position << 32 | far slot,
				 * ascending: the order heads are reached */
	uint32_t cap;		/* room in @far */
};

/*
 * Lay out the window of block @b of @k into @w (empty, or left by an
 * earlier call: its array is reused).  O(e_b + far log far).  Returns 0,
 * -1 when memory runs out.  Free with cp_cuts_win_free().
 */
int cp_cuts_win_plan(const struct cp_cuts *k, uint32_t b,
		     struct cp_cuts_win *w);
void cp_cuts_win_free(struct cp_cuts_win *w);

/* Is the edge from position @p to head position @r (in the block) far? */
static inline bool cp_cuts_win_far(const struct cp_cuts_win *w, uint32_t p,
				   uint32_t r)
{
	return r - p >= w->rows;
}

/*
 * Merge into @row, the ring row of the vertex at position @p, the far
 * slots (@far: @nl lanes each, after the ring) of the far edges whose head
 * is @p, element-wise max, from the @fi-th far edge of @w on; returns the
 * index of the first far edge past them.  A walk calls it at every
 * position, in order, with the index it returned last.
 */
static inline uint32_t cp_cuts_win_merge_far(const struct cp_cuts_win *w,
					     const uint64_t *far, uint32_t nl,
					     uint32_t p, uint32_t fi,
					     uint64_t *row)
{
	for (; fi < w->nfar && w->far[fi] >> 32 == p; fi++) {
		const uint64_t *fv = far + (size_t)(uint32_t)w->far[fi] * nl;

		for (uint32_t l = 0; l < nl; l++)
			row[l] = fv[l] > row[l] ? fv[l] : row[l];
	}
	return fi;
}

/* Positions a walk of the window looks ahead (cp_cuts_win_prefetch). */
#define CP_CUTS_AHEAD 8

/*
 * Start fetching, for writing, the ring rows of @w (@nl lanes a row from
 * @rows, block @b of @k) that the out-edges of the vertex at position @p
 * will update: a walk calls it CP_CUTS_AHEAD positions before it gets
 * there.  The rows are read and written in topological order but reached
 * through the edges' heads, at random within a window of up to 2^15 rows:
 * without it most updates waited for the row's first line.  Nothing
 * beyond the block's last position (@p past it: nothing at all).
 */
static inline void cp_cuts_win_prefetch(const struct cp_cuts *k,
					const struct cp_cuts_win *w,
					uint32_t b, uint32_t p, uint32_t p1,
					const uint64_t *rows, uint32_t nl)
{
	const struct cp_pag *g = k->c->g;
	uint32_t v, p0 = k->vfirst[b];

	if (p >= p1)
		return;
	v = g->topo[p];
	for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
		uint32_t r = cp_cuts_head(k, g->out_e[j]);
		const char *row;

		if (r > p1 || cp_cuts_win_far(w, p, r))
			continue;
		row = (const char *)(rows + (size_t)((r - p0) &
						     (w->rows - 1)) * nl);
		for (uint32_t at = 0; at < nl * 8; at += 64)
			cp_prefetch_write(row + at);
		cp_prefetch_write(row + nl * 8 - 1);
	}
}

/*
 * The stage before cp_cuts_win_prefetch, called CP_CUTS_AHEAD positions
 * earlier still: start fetching the topological positions of the heads
 * of the out-edges of the vertex at @p, which that one reads, and, unless
 * @per_head is NULL, the heads' entries in that per-vertex array of 8
 * bytes (Slack reads each head's latest time).  Slack's walk spent a
 * quarter of its time on those reads; zeroing's, with fewer per edge,
 * showed no gain from it.
 */
static inline void cp_cuts_heads_prefetch(const struct cp_cuts *k,
					  uint32_t p, uint32_t p1,
					  const uint64_t *per_head)
{
	const struct cp_pag *g = k->c->g;
	uint32_t v;

	if (p >= p1)
		return;
	v = g->topo[p];
	for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
		uint32_t h = g->head[g->out_e[j]];

		cp_prefetch_read(&k->rank[h]);
		if (per_head)
			cp_prefetch_read(&per_head[h]);
	}
}

/*
 * The groups of @gr with CP time in block @b (and @only[i] true, unless
 * @only is NULL), each once, into @in; returns their count.  @mark has a
 * slot per group, zero before the first call; a listed group is left
 * marked @b + 1, so ask each block once.
 */
uint32_t cp_cuts_groups(const struct cp_cuts *k, const struct cp_groups *gr,
			const bool *only, uint32_t b, uint32_t *mark,
			uint32_t *in);

/* Last topological position of block @b. */
static inline uint32_t cp_cuts_vlast(const struct cp_cuts *k, uint32_t b)
{
	return k->vfirst[b + 1];
}

/*
 * Length of C within block @b: from the earliest time of its first cut
 * (0 for the first block) to that of its last (the CP length for the
 * last block).
 */
static inline uint64_t cp_cuts_len(const struct cp_cuts *k, uint32_t b)
{
	const struct cp_cpm *c = k->c;
	const uint32_t *topo = c->g->topo;
	uint64_t hi = b + 1 == k->nb ? c->length :
		      c->et[topo[k->vfirst[b + 1]]];

	return hi - (b ? c->et[topo[k->vfirst[b]]] : 0);
}

#endif /* CP_CUTS_H */
