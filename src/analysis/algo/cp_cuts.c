/*
 * cp_cuts.c - cut vertices of the critical path, and the blocks between
 * them, for logical zeroing (cp_zero.c) and Slack (cp_slack.c).
 *
 * Why.  Both metrics are asked for the top procedures of a report, and
 * each used to cost a pass over the whole graph per procedure.  Pruning by
 * total slack (an edge of total slack TS lies only on paths of length at
 * most L - TS, so the zeroed longest path of group i lies among the edges
 * with TS <= L - zeroed length) does not help on traces: a barrier taken
 * by every thread bounds the slack of everything before it, and on the
 * generated SPLASH-style traces and a real raytrace run every edge has a
 * total slack below even the exact zeroing benefit of every top-20
 * procedure.  Barriers give something better: a point every path goes
 * through, where a longest path can be cut in two.
 *
 * Definition.  A vertex c at topological position p is a cut when
 *  (a) c lies on C (cp_cpm_run's critical path);
 *  (b) every vertex before p reaches c;
 *  (c) c reaches every vertex after p;
 *  (d) every edge that passes over c (tail before p, head after p) weighs
 *      zero.
 * Such edges are real in trace PAGs: a mutex released before a barrier
 * and next acquired after it, a semaphore token, a reused item address.
 * (b) rules out a leaf before c, (c) a root after it.
 *
 * Local tests.  (b) holds iff every vertex u before p has an out-edge whose
 * head is at a position <= p.  If: by induction from p - 1 down, such an
 * edge leads to c or to a vertex between u and c that reaches c.  Only
 * if: u's path to c leaves u by an edge to a position <= p.  Likewise (c)
 * holds iff every vertex after p has an in-edge whose tail is at a
 * position >= p.  (d) holds iff no vertex before p has an out-edge of
 * positive weight to a position after p.  So one forward pass over the
 * out-edges (the earliest head and the farthest positive-weight head of
 * every earlier vertex; the latest tail of every in-edge on the way) and
 * one backward sweep over the positions find every cut: O(v+e), no
 * reachability search.
 *
 * Zeroing adds up over blocks.  Let w' <= w be any weights that keep the
 * edges passing over cuts at zero (zeroing a group does: it only sets
 * weights to zero).  A root-to-leaf path P that passes over a cut c by an
 * edge (a,b) can be rerouted a -> c -> b, by (b) and (c), without getting
 * shorter under w' (w'(a,b) = 0).  So the longest path under w' may be
 * taken through every cut, and it is the sum over blocks of the longest
 * path from a block's first cut to its last (from any root for the first
 * block, to any leaf for the last) with the block's own edges.  Under w
 * that block length is the length of C within the block; a group without
 * CP time in a block cannot shorten it (C's part keeps its length), so
 * only blocks where the group has CP time need a pass.
 *
 * Slack adds up over blocks.  Slack is the largest X = x(C) with 0 <= x
 * <= w on the group's C edges such that x(C \ P) <= L - len(P) for every
 * root-to-leaf path P (cp_slack.c).  For P through a cut c, with P' its
 * part up to c and P'' the rest, the constraint reads
 *	x(C' \ P') + x(C'' \ P'') <= (et[c] - len(P')) + (L - et[c] - len(P''))
 * (C' and C'' the parts of C), which holds for all such P iff the two
 * halves hold separately (take P'' = C'' and P' = C').  For P passing over
 * c by (a,b): let P1 = P up to a, a path R from a to c, then C''.  Its
 * constraint gives x(C' \ (P' u R)) <= et[c] - len(P') - len(R), where P'
 * is P up to a; as x <= w, x(C' n R) <= len(R), so x(C' \ P') <= et[c] -
 * len(P'): the first half for P.  Symmetrically for the second half, and
 * the sum is P's constraint.  So the constraints of paths passing over a
 * cut are implied by those of paths through it, the problem splits at
 * every cut, and Slack is the sum of the blocks' Slacks, each one the same
 * problem on the block (whose roots and leaves are its cuts: by (b) and
 * (c) every block vertex is reached from the first and reaches the last
 * within the block, and the CPM's et and lt are the block's own).
 *
 * Blocks share their cut vertex: block b spans positions vfirst[b] ..
 * vfirst[b+1], the first block starts at 0 and the last ends at nv - 1
 * whether or not those are cuts.  Memory: rank and position on C of every
 * vertex (8 bytes per vertex), which the metrics need anyway, plus 8
 * bytes per block.  The metrics walk a block's out-edges through the
 * graph's own adjacency (topo, out_off, out_e) and the rank of each
 * head.  A copy of the adjacency laid out by position was tried: it
 * made the passes no faster than the rank lookups they replace (every
 * thread's vertices are consecutive ids, so the lookups stream too), and
 * cost 4 bytes per vertex and 8 per edge at the report's peak.
 */
#include "cp_cuts.h"
#include "cp_debug.h"

#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"

static const bool cp_cuts_debug = CP_DEBUG;

/* Blocks in order, each starting at a vertex of C, and C cut in order. */
static void cp_cuts_assert(const struct cp_cuts *k)
{
	const struct cp_cpm *c = k->c;

	if (!cp_cuts_debug || k->nb == 0)
		return;
	if (k->vfirst[0] != 0 || k->vfirst[k->nb] != c->g->nv - 1 ||
	    k->pfirst[0] != 0 || k->pfirst[k->nb] != c->npath)
		abort();
	for (uint32_t b = 1; b < k->nb; b++)
		if (k->vfirst[b] <= k->vfirst[b - 1] ||
		    k->pfirst[b] < k->pfirst[b - 1] ||
		    k->pos[c->g->topo[k->vfirst[b]]] != k->pfirst[b])
			abort();
}

int cp_cuts_find(struct cp_cuts *k, const struct cp_cpm *c)
{
	const struct cp_pag *g = c->g;
	uint32_t *late = NULL, hi = 0, nb = 1, lo = UINT32_MAX;
	uint8_t *cut = NULL;

	memset(k, 0, sizeof(*k));
	k->c = c;
	if (g->nv == 0)
		return 0;
	k->rank = cp_big_malloc(sizeof(*k->rank) * ((size_t)g->nv + 1));
	k->pos = cp_big_malloc(sizeof(*k->pos) * ((size_t)g->nv + 1));
	late = cp_big_calloc((size_t)g->nv + 1, sizeof(*late));
	cut = cp_big_malloc((size_t)g->nv + 1);
	if (!k->rank || !k->pos || !late || !cut)
		goto err_mem;
	for (uint32_t p = 0; p < g->nv; p++)
		k->rank[g->topo[p]] = p;
	memset(k->pos, 0xff, sizeof(*k->pos) * g->nv);
	if (c->npath > 0) {
		k->pos[cp_pag_tail(g, c->path[0])] = 0;
		for (uint32_t q = 0; q < c->npath; q++)
			k->pos[g->head[c->path[q]]] = q + 1;
	}
	/*
	 * Forward: (a), (b) and (d), hi being the farthest position an
	 * earlier vertex needs; late[r] - 1 the latest in-edge tail of the
	 * vertex at r (0: a root).
	 */
	for (uint32_t p = 0; p < g->nv; p++) {
		uint32_t v = g->topo[p], near = UINT32_MAX;

		cut[p] = hi <= p && p > 0 && p + 1 < g->nv &&
			 k->pos[v] != CP_PAG_NONE;
		for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			uint32_t e = g->out_e[j], r = k->rank[g->head[e]];

			late[r] = p + 1;	/* tails come in order */
			if (r < near)
				near = r;
			if (c->w[e] && r > hi)
				hi = r;
		}
		if (near > hi)
			hi = near;	/* a leaf: no cut after it */
	}
	/* backward: (c), lo being the least latest-tail + 1 after p */
	for (uint32_t p = g->nv; p-- > 0;) {
		cut[p] = cut[p] && lo >= p + 1;
		nb += cut[p];
		if (late[p] < lo)
			lo = late[p];
	}
	k->vfirst = malloc(sizeof(*k->vfirst) * ((size_t)nb + 1));
	k->pfirst = malloc(sizeof(*k->pfirst) * ((size_t)nb + 1));
	if (!k->vfirst || !k->pfirst)
		goto err_mem;
	k->nb = 1;
	k->vfirst[0] = 0;
	k->pfirst[0] = 0;
	for (uint32_t p = 0; p < g->nv; p++) {
		if (!cut[p])
			continue;
		k->vfirst[k->nb] = p;
		k->pfirst[k->nb++] = k->pos[g->topo[p]];
	}
	k->vfirst[nb] = g->nv - 1;
	k->pfirst[nb] = c->npath;
	/* back to the system, not kept (cp_bigmem): zeroing and Slack, which
	 * come next, take no block of this size */
	free(late);
	free(cut);
	cp_cuts_assert(k);
	return 0;

err_mem:
	cp_big_free(late);
	cp_big_free(cut);
	cp_cuts_free(k);
	return -1;
}

void cp_cuts_free(struct cp_cuts *k)
{
	free(k->vfirst);
	free(k->pfirst);
	cp_big_free(k->rank);
	cp_big_free(k->pos);
	memset(k, 0, sizeof(*k));
}

uint32_t cp_cuts_groups(const struct cp_cuts *k, const struct cp_groups *gr,
			const bool *only, uint32_t b, uint32_t *mark,
			uint32_t *in)
{
	const struct cp_cpm *c = k->c;
	uint32_t ng = 0;

	for (uint32_t q = k->pfirst[b]; q < k->pfirst[b + 1]; q++) {
		uint32_t e = c->path[q], n;
		const uint32_t *ids;

		n = c->w[e] ? cp_groups_of(gr, e, &ids) : 0;
		for (uint32_t x = 0; x < n; x++) {
			uint32_t i = ids[x];

			if (i >= gr->n || (only && !only[i]) ||
			    mark[i] == b + 1)
				continue;
			mark[i] = b + 1;
			in[ng++] = i;
		}
	}
	return ng;
}

int cp_cuts_run(const struct cp_cpm *c,
		int (*fn)(const struct cp_cuts *k, const struct cp_groups *gr,
			  const bool *only, uint64_t *out),
		const struct cp_groups *gr, const bool *only, uint64_t *out)
{
	struct cp_cuts k;
	int ret;

	if (cp_cuts_find(&k, c))
		return -1;
	ret = fn(&k, gr, only, out);
	cp_cuts_free(&k);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Bits needed for @x (0 for 0). */
static unsigned bit_len(uint32_t x)
{
	return x ? 32 - (unsigned)__builtin_clz(x) : 0;
}

/*
 * Window rows: with n[i] the block's edges of span bit length i, 2^b rows
 * leave the edges of span >= 2^b (bit length > b) far; take the b of least
 * 2^b + far, no more than the block needs.
 */
static uint32_t win_rows(const uint64_t *n, uint32_t size)
{
	uint64_t far = 0, best = UINT64_MAX;
	unsigned top = bit_len(size), bb = top;

	for (unsigned i = 0; i <= 32; i++)
		far += n[i];
	for (unsigned b = 0; b <= top && b < 32; b++) {
		far -= n[b];	/* bit length b: span < 2^b */
		if (((uint64_t)1 << b) + far < best) {
			best = ((uint64_t)1 << b) + far;
			bb = b;
		}
	}
	return (uint32_t)1 << (bb < 32 ? bb : 31);
}

int cp_cuts_win_plan(const struct cp_cuts *k, uint32_t b,
		     struct cp_cuts_win *w)
{
	const struct cp_pag *g = k->c->g;
	uint32_t p0 = k->vfirst[b], p1 = cp_cuts_vlast(k, b), nf = 0;
	uint64_t n[33] = { 0 };

	for (uint32_t p = p0; p < p1; p++) {
		uint32_t v = g->topo[p];

		for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			uint32_t r = cp_cuts_head(k, g->out_e[j]);

			if (r <= p1)
				n[bit_len(r - p)]++;
		}
	}
	w->rows = win_rows(n, p1 - p0 + 1);
	w->nfar = 0;
	for (unsigned i = bit_len(w->rows); i <= 32; i++)
		nf += (uint32_t)n[i];
	if (nf > w->cap) {
		uint64_t *f = realloc(w->far, sizeof(*f) * nf);

		if (!f)
			return -1;
		w->far = f;
		w->cap = nf;
	}
	for (uint32_t p = p0; p < p1; p++) {
		uint32_t v = g->topo[p];

		for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			uint32_t r = cp_cuts_head(k, g->out_e[j]);

			if (r <= p1 && cp_cuts_win_far(w, p, r)) {
				w->far[w->nfar] = (uint64_t)r << 32 | w->nfar;
				w->nfar++;
			}
		}
	}
	if (w->nfar)	/* far may still be NULL: qsort wants a pointer */
		qsort(w->far, w->nfar, sizeof(*w->far), cmp_u64);
	return 0;
}

void cp_cuts_win_free(struct cp_cuts_win *w)
{
	free(w->far);
	memset(w, 0, sizeof(*w));
}
