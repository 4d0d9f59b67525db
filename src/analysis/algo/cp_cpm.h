/*
 * cp_cpm.h - the critical path method on a finished PAG ([Alexander94, §II.C]):
 * early/late start and finish of every edge, total and free slack, the
 * critical path length and one critical path, edge by edge.
 *
 * Paths run root to leaf: every vertex without in-edges is a start, every
 * vertex without out-edges an end (a PAG may have several of each).  The
 * project starts at time 0 at every root and ends at the CP length at every
 * leaf.  Times are kept per vertex (the ES of all out-edges of v is the
 * earliest time of v, the LF of all in-edges its latest time); the per-edge
 * values are the inline accessors below.  Sums of weights must fit in 64
 * bits.
 *
 * Concurrency: the graph is only read; any number of runs may share it.
 */
#ifndef CP_CPM_H
#define CP_CPM_H

#include "cp_pag.h"

struct cp_cpm {
	const struct cp_pag *g;
	const uint64_t *w;	/* [ne] weights used: the override or g->w */
	uint64_t length;	/* critical path length */
	uint64_t *et;		/* [nv] earliest time of v: ES of out-edges */
	uint64_t *lt;		/* [nv] latest time of v: LF of in-edges */
	uint32_t *path;		/* [npath] one critical path, root to leaf */
	uint32_t npath;
};

/*
 * Forward and backward pass over @g (finished) with weights @w (NULL: the
 * graph's own), then one critical path: it ends at the lowest-numbered leaf
 * of latest finish and walks back, at each vertex through the
 * lowest-numbered in-edge whose EF equals the vertex's earliest time.  O(v+e)
 * time, 2 words per vertex.  Returns 0, or -1 when memory runs out (@c is
 * then empty).  @w must outlive @c.  Free with cp_cpm_free().
 */
int cp_cpm_run(struct cp_cpm *c, const struct cp_pag *g, const uint64_t *w);

/*
 * Free @c's earliest times for a caller that reads only the latest times,
 * the length and the path from here on (k paths and MBM do): their block
 * then serves what comes next (cp_bigmem.h).  cp_cpm_es(), _ef(),
 * _total_slack() and _free_slack() must not be called on @c after it.
 */
void cp_cpm_drop_et(struct cp_cpm *c);

/* Release what cp_cpm_run() allocated; @c may be run again. */
void cp_cpm_free(struct cp_cpm *c);

/*
 * Forward pass only: fills @et[nv] (caller's scratch) with the earliest
 * time of every vertex and returns the longest root-to-leaf path length.
 * For callers that only need lengths (what-if on a fixed graph).
 */
uint64_t cp_cpm_longest(const struct cp_pag *g, const uint64_t *w,
			uint64_t *et);

/*
 * Time of every group on the chosen critical path: @cp_time[i] = sum of the
 * weights of the critical path's edges that belong to group i (with several
 * groups per edge, the edge counts for each).  @cp_time has @gr->n slots.
 */
void cp_cpm_group_time(const struct cp_cpm *c, const struct cp_groups *gr,
		       uint64_t *cp_time);

/* Per-edge values of the CPM table ([Alexander94, Fig. 1]). */
static inline uint64_t cp_cpm_es(const struct cp_cpm *c, uint32_t e)
{
	return c->et[cp_pag_tail(c->g, e)];
}

static inline uint64_t cp_cpm_ef(const struct cp_cpm *c, uint32_t e)
{
	return c->et[cp_pag_tail(c->g, e)] + c->w[e];
}

static inline uint64_t cp_cpm_lf(const struct cp_cpm *c, uint32_t e)
{
	return c->lt[c->g->head[e]];
}

static inline uint64_t cp_cpm_ls(const struct cp_cpm *c, uint32_t e)
{
	return c->lt[c->g->head[e]] - c->w[e];
}

/* Total slack: how long @e may be delayed without delaying the end. */
static inline uint64_t cp_cpm_total_slack(const struct cp_cpm *c, uint32_t e)
{
	return cp_cpm_lf(c, e) - cp_cpm_ef(c, e);
}

/*
 * Free slack: how long @e may be delayed without delaying the early start
 * of any successor; for an edge into a leaf, the successor is the end.
 */
static inline uint64_t cp_cpm_free_slack(const struct cp_cpm *c, uint32_t e)
{
	const struct cp_pag *g = c->g;
	uint32_t h = g->head[e];
	uint64_t next = g->out_off[h] == g->out_off[h + 1] ? c->length
							   : c->et[h];

	return next - cp_cpm_ef(c, e);
}

#endif /* CP_CPM_H */
