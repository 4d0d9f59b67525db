/*
 * cp_kpaths.h - the k longest root-to-leaf paths of a PAG in order,
 * O(e + v log v) after the critical path method and O(k log k) for the k
 * paths (Eppstein's sidetrack enumeration; the essay is in cp_kpaths.c).
 *
 * Paths are kept implicitly: path i is the first pcnt edges of its parent
 * path, one deviation edge, then the least-slack continuation to a leaf
 * (the critical-path tree's best continuation).  A path without a parent
 * (the critical path, and paths that start at another root) is its first
 * edge and that edge's continuation.  cp_kpaths_edges() spells a path out
 * edge by edge; nothing else needs to.  Paths have at least one edge
 * (isolated vertices are not paths).
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
	/* the implicit form (read by cp_mbm.c, the printers) */
	uint32_t *parent;	/* [n] path this one deviates from, or NONE */
	uint32_t *pcnt;		/* [n] edges shared with the parent */
	uint32_t *dev;		/* [n] the deviation edge (no parent: the
				 * path's first edge) */
	uint32_t *next;		/* [nv] least-slack out-edge of v, or NONE */
	uint32_t *join;		/* [nv] first vertex from v on along next[]
				 * that lies on path 0, or NONE */
	uint32_t *glen;		/* [nv] edges from v to its leaf along
				 * next[] */
};

/*
 * Find the @k longest root-to-leaf paths of the graph @c was run on, longest
 * first (ties in an unspecified but deterministic order).  Path 0 is the
 * least-slack path from the lowest-numbered root of latest start 0.
 * Returns 0, or -1 when memory runs out (@kp is then empty).  @c must
 * outlive @kp.  Free with cp_kpaths_free().
 */
int cp_kpaths_find(struct cp_kpaths *kp, const struct cp_cpm *c, uint32_t k);

/*
 * Write the edges of path @i (root to leaf) into @buf, which has room for
 * @kp->nedges[@i] ids; returns that count.  O(path length).
 */
uint32_t cp_kpaths_edges(const struct cp_kpaths *kp, uint32_t i,
			 uint32_t *buf);

/*
 * Path @i as pieces, root to leaf: piece j is edge @pc[j].first followed
 * by its continuation along next[], @pc[j].n edges in all (the last
 * piece's continuation ends at a leaf).  A path has one piece for itself
 * and one for each path it descends from, so @pc needs room for at most
 * i + 1.  Returns the number of pieces.  O(number of pieces): a reader
 * that needs only part of a path (where it differs from path 0) walks
 * the pieces and skips the rest, where spelling it would cost its whole
 * length.
 */
struct cp_kpaths_piece {
	uint32_t first;		/* the piece's first edge */
	uint32_t n;		/* its edges, the first included */
};
uint32_t cp_kpaths_pieces(const struct cp_kpaths *kp, uint32_t i,
			  struct cp_kpaths_piece *pc);

/*
 * Where path @i leaves the path it deviates from: the tail vertex of its
 * deviation edge, or CP_PAG_NONE for a path without a parent.  O(1).
 */
uint32_t cp_kpaths_departs(const struct cp_kpaths *kp, uint32_t i);

/*
 * Where path @i, after its deviation edge, first meets path 0 again (and
 * follows it to the end): the first vertex from the deviation's head on
 * that lies on path 0, or CP_PAG_NONE when it ends at another leaf; for
 * path 0, its root.  O(1).
 */
uint32_t cp_kpaths_rejoins(const struct cp_kpaths *kp, uint32_t i);

/*
 * The edge index, on path 0, from which path @i follows path 0 to the end
 * (where cp_kpaths_rejoins() is), or CP_PAG_NONE.  O(1).
 */
uint32_t cp_kpaths_rejoins_at(const struct cp_kpaths *kp, uint32_t i);

/* Release what cp_kpaths_find() allocated. */
void cp_kpaths_free(struct cp_kpaths *kp);

#endif /* CP_KPATHS_H */
