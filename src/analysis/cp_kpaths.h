/*
 * cp_kpaths.h - the k longest root-to-leaf paths of a PAG by best-first
 * search on slack (seed 000 §III.D): O(k·e) time, O(k+e) memory.
 *
 * Paths are kept implicitly, as in the seed's path descriptors: path i is
 * the first pcnt edges of its parent path, one deviation edge, then the
 * minimum-slack continuation to a leaf.  cp_kpaths_edges() spells a path
 * out edge by edge.  Paths have at least one edge (isolated vertices are
 * not paths).
 *
 * Concurrency: the result is read-only once found; the graph and the CPM
 * result are only read.
 */
#ifndef CP_KPATHS_H
#define CP_KPATHS_H

#include "cp_cpm.h"

struct cp_kpaths {
	uint32_t n;		/* paths found: min(k, number of paths) */
	uint64_t *len;		/* [n] length of path i, nonincreasing */
	uint32_t *nedges;	/* [n] number of edges of path i */
	uint64_t cp_length;	/* the critical path length (= len[0]) */
	const struct cp_pag *g;
	const uint64_t *w;	/* the weights the CPM ran with */
	/* implicit representation (private) */
	uint32_t *parent;	/* [n] path this one deviates from, or NONE */
	uint32_t *pcnt;		/* [n] edges shared with the parent */
	uint32_t *dev;		/* [n] the deviation edge */
	uint32_t *next;		/* [nv] min-slack out-edge of v, or NONE */
};

/*
 * Find the @k longest root-to-leaf paths of the graph @c was run on, longest
 * first (ties in an unspecified but deterministic order).  Returns 0, or -1
 * when memory runs out (@kp is then empty).  @c must outlive @kp.  Free with
 * cp_kpaths_free().
 */
int cp_kpaths_find(struct cp_kpaths *kp, const struct cp_cpm *c, uint32_t k);

/*
 * Write the edges of path @i (root to leaf) into @buf, which has room for
 * @kp->nedges[@i] ids; returns that count.  O(path length).
 */
uint32_t cp_kpaths_edges(const struct cp_kpaths *kp, uint32_t i,
			 uint32_t *buf);

/* Release what cp_kpaths_find() allocated. */
void cp_kpaths_free(struct cp_kpaths *kp);

#endif /* CP_KPATHS_H */
