/*
 * cp_zero.c - logical zeroing (Hollingsworth, [Hollingsworth98, §2.4] and Fig.
 * 4; [HollingsworthMiller94, Fig. 5] compares it with CP time and Slack).
 *
 * Zeroing group i asks for the longest root-to-leaf path when every edge
 * of i weighs zero and the graph is otherwise unchanged (so a reordering of
 * lock acquisitions is not modelled: that is the simulated what-if's job).
 * Let C be the critical path cp_cpm_run chose and d_i(C) the time of i on
 * it.  Zeroing only lowers weights, so the new length is at most L; and C
 * itself keeps L - d_i(C).  Hence a group with d_i(C) = 0 keeps length L
 * and needs no pass.
 *
 * The same holds block by block (cp_cuts.c): the zeroed length is the sum
 * over the blocks between C's cut vertices of the zeroed longest path
 * within each block, and a block where i has no CP time keeps its length.
 * So cp_zero_blocks() runs, per block, one forward pass over the block's
 * vertices for the groups with CP time there, all of them side by side
 * (one earliest time per group and vertex, up to CP_ZERO_LANES lanes, in
 * the block's window: cp_cuts_win keeps a ring of rows by topological
 * position and a slot per edge that spans more, so a trace's block needs
 * a few hundred rows, not one per vertex).  On a barrier-synchronised
 * trace a block is one phase between two barriers: a group costs nothing
 * in the phases where it is not on C, and the graph of a block is read
 * once for all groups while it sits in cache.  The scratch is capped at
 * CP_ZERO_WORDS words per vertex of the graph: a block whose window is as
 * large as the graph (a random DAG) walks four lanes per pass, so nl
 * groups cost nl/4 passes; a trace's window is small, so a pass takes up
 * to CP_ZERO_LANES groups.
 *
 * Cost: O(sum over blocks of (v_b + e_b) * groups with CP time in b), at
 * most the O((v+e) * groups) of a pass per group; memory the window's
 * rows and far slots times the lanes, at most 32 bytes per vertex, plus
 * the cuts'.  cp_zero_group() is the plain pass
 * over the whole graph for one group (no cuts, v words of scratch), kept
 * for callers that want one group and as the tests' unpruned reference.
 *
 * Bounds that hold and are asserted in the tests:
 *	max(L - d_i(C), longest path avoiding i) <= zeroed <= L.
 */
#include "cp_zero.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_bits.h"
#include "cp_twins.h"

/*
 * The longest path with group @gid's edges weighing zero: one forward pass
 * in topological order.  @single: @gr has one group per edge (gr->of),
 * tested directly; a constant at each call, so the test leaves the loop.
 */
static inline uint64_t zero_pass(const struct cp_cpm *c,
				 const struct cp_groups *gr, uint32_t gid,
				 uint64_t *et, bool single)
{
	const struct cp_pag *g = c->g;
	const uint32_t *out_off = g->out_off, *out_e = g->out_e;
	const uint32_t *head = g->head;
	const uint64_t *w = c->w;
	uint64_t len = 0;

	memset(et, 0, sizeof(*et) * g->nv);
	for (uint32_t i = 0; i < g->nv; i++) {
		uint32_t v = g->topo[i];
		uint64_t t = et[v];

		if (t > len)
			len = t;
		for (uint32_t j = out_off[v]; j < out_off[v + 1]; j++) {
			uint32_t e = out_e[j];
			bool zeroed = single ? gr->of[e] == gid
					     : cp_groups_has(gr, e, gid);
			uint64_t f = zeroed ? t : t + w[e];

			if (f > et[head[e]])
				et[head[e]] = f;
		}
	}
	return len;
}

uint64_t cp_zero_group(const struct cp_cpm *c, const struct cp_groups *gr,
		       uint32_t gid, uint64_t *scratch)
{
	if (gr->of)
		return zero_pass(c, gr, gid, scratch, true);
	return zero_pass(c, gr, gid, scratch, false);
}

#define CP_ZERO_LANES 32	/* most groups in one pass over a block */
#define CP_ZERO_WORDS 4		/* scratch words per vertex of the graph */

/*
 * The lanes of one pass: lane_of[i] the lane of group i (>= nl: none).
 * With groups per class, a class's mask is made the first time the pass
 * meets one of its edges (stamp[k] == pass): a block of one vertex, of
 * which a trace of serial phases has millions, must not cost a walk over
 * every class (sqlite3's CREATE INDEX: 7.2 M blocks, 65 % of the report).
 */
struct lanes {
	const uint32_t *lane_of;
	uint32_t nl;
	uint32_t *mask;		/* [ncls] per class, valid where stamped */
	uint32_t *stamp;	/* [ncls] the pass that made mask[k] */
	uint32_t pass;
};

/* The lanes to zero on edge @e, as a bit mask. */
static inline uint32_t edge_lanes(const struct cp_groups *gr, uint32_t e,
				  struct lanes *ln)
{
	const uint32_t *ids;
	uint32_t n, m = 0, k;

	if (gr->of) {
		k = gr->of[e];
		return k < gr->n && ln->lane_of[k] < ln->nl ?
			1u << ln->lane_of[k] : 0;
	}
	if (gr->cls) {
		k = cp_groups_cls(gr, e);
		if (ln->stamp[k] == ln->pass)
			return ln->mask[k];
		ids = gr->ids + gr->off[k];
		n = gr->off[k + 1] - gr->off[k];
	} else {
		n = cp_groups_of(gr, e, &ids);
	}
	for (uint32_t x = 0; x < n; x++)
		if (ids[x] < gr->n && ln->lane_of[ids[x]] < ln->nl)
			m |= 1u << ln->lane_of[ids[x]];
	if (gr->cls) {
		ln->mask[k] = m;
		ln->stamp[k] = ln->pass;
	}
	return m;
}

/*
 * One forward pass over block @b for the groups that have a lane in @ln,
 * with the scratch @et laid out by the window @w (cp_cuts.h):
 * the ring row of position p holds, lane by lane, the longest path from
 * the block's start to the vertex at p with lane l's group read as zero,
 * far slot s (after the ring) what far edge s brings to its head; @len[l]
 * the longest one in the block, i.e. to its last cut (or to a leaf in the
 * last block).
 */
static void zero_block(const struct cp_cuts *k, const struct cp_groups *gr,
		       uint32_t b, const struct cp_cuts_win *win,
		       struct lanes *ln, uint64_t *et, uint64_t *len)
{
	const struct cp_pag *g = k->c->g;
	const uint64_t *w = k->c->w;
	uint32_t p0 = k->vfirst[b], p1 = cp_cuts_vlast(k, b);
	uint32_t ring = win->rows - 1, nfar = 0, fi = 0, nl = ln->nl;
	uint64_t *far = et + (size_t)win->rows * nl;

	memset(et, 0, sizeof(*et) * nl * ((size_t)win->rows + win->nfar));
	memset(len, 0, sizeof(*len) * nl);
	for (uint32_t p = p0, v;; p++) {
		uint64_t *tv = et + (size_t)((p - p0) & ring) * nl;

		fi = cp_cuts_win_merge_far(win, far, nl, p, fi, tv);
		for (uint32_t l = 0; l < nl; l++)
			if (tv[l] > len[l])
				len[l] = tv[l];
		if (p == p1)
			break;	/* its out-edges belong to the next block */
		cp_cuts_win_prefetch(k, win, b, p + CP_CUTS_AHEAD, p1, et, nl);
		v = g->topo[p];
		for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			uint32_t e = g->out_e[j], r = cp_cuts_head(k, e), m;
			uint64_t *th, we = w[e];

			if (r > p1)
				continue;	/* passes over the last cut */
			if (cp_cuts_win_far(win, p, r))
				th = far + (size_t)nfar++ * nl;
			else
				th = et + (size_t)((r - p0) & ring) * nl;
			m = we ? edge_lanes(gr, e, ln) : 0;
			for (uint32_t l = 0; l < nl; l++) {
				uint64_t f = tv[l] + (m >> l & 1 ? 0 : we);

				th[l] = f > th[l] ? f : th[l];
			}
		}
		memset(tv, 0, sizeof(*tv) * nl);	/* row of p + rows */
	}
}

/*
 * Twins.  Groups that own the same weighted edges zero alike, in every
 * block (an edge of weight zero weighs zero zeroed too): an inclusive
 * profile gives a procedure all of whose time is in its one callee the
 * same weighted edges as that callee.  So only the first of each family
 * walks.  The items compared are the calling contexts with a weighted
 * edge that a group is on (@gr->cls: each edge has one context, so the
 * same such contexts make the same weighted edges), else the weighted
 * edges (cp_twins.h).
 *
 * zero_twins() puts which groups walk into *@walk (NULL: all those of @only; else a new
 * array of @gr->n), each group's twin it takes its length from into
 * @tw->rep, over the members @in[0 .. @ng), the groups of @only.  0, or
 * -1 (memory).
 */
static int zero_twins(const struct cp_cpm *c, const struct cp_groups *gr,
		      const bool *only, struct cp_twins *tw, uint32_t *in,
		      uint32_t *ng, bool **walk)
{
	uint32_t nit = gr->cls ? gr->ncls : c->g->ne, n = 0, *j_of;
	uint64_t *heavy;	/* bit it: item it has a weighted edge */

	*walk = NULL;
	*ng = 0;
	if (gr->of || gr->n < 2)	/* one group an edge: no twins */
		return 0;
	j_of = malloc(sizeof(*j_of) * gr->n);
	heavy = calloc(cp_bits_words(nit), sizeof(*heavy));
	if (!j_of || !heavy) {
		free(j_of);
		free(heavy);
		return -1;
	}
	for (uint32_t e = 0; e < c->g->ne; e++)
		if (c->w[e])
			cp_bit_set(heavy, gr->cls ? cp_groups_cls(gr, e) : e);
	for (uint32_t i = 0; i < gr->n; i++) {
		j_of[i] = only && !only[i] ? CP_PAG_NONE : n;
		if (j_of[i] != CP_PAG_NONE)
			in[n++] = i;
	}
	*ng = n;
	if (cp_twins_reset(tw, n)) {
		free(j_of);
		free(heavy);
		return -1;
	}
	for (uint32_t pass = 0; pass < 2; pass++) {
		if (pass == 1 && cp_twins_match(tw) == n)
			break;
		for (uint32_t it = 0; it < nit; it++) {
			const uint32_t *ids = gr->ids + gr->off[it];
			uint32_t m = cp_bit_get(heavy, it) ?
				     gr->off[it + 1] - gr->off[it] : 0;

			for (uint32_t step = pass; step <= 2 * pass; step++)
				cp_twins_item(tw, step, it, ids, m, j_of,
					      gr->n);
		}
	}
	free(j_of);
	free(heavy);
	if (!cp_twins_done(tw))
		return 0;
	*walk = calloc(gr->n, sizeof(**walk));
	if (!*walk)
		return -1;
	for (uint32_t j = 0; j < n; j++)
		(*walk)[in[j]] = tw->rep[j] == j;
	return 0;
}

int cp_zero_blocks(const struct cp_cuts *k, const struct cp_groups *gr,
		   const bool *only, uint64_t *newlen)
{
	const struct cp_cpm *c = k->c;
	size_t words = CP_ZERO_WORDS * ((size_t)c->g->nv + 1);
	size_t nmask = gr->cls && gr->ncls > gr->n ? gr->ncls : gr->n;
	uint64_t *gain, *et, len[CP_ZERO_LANES];
	uint32_t *lane_of, *mark, *in, *tin, ntin = 0;
	struct cp_twins tw = { .n = 0 };
	bool *walk = NULL;
	struct lanes ln = { .pass = 0 };
	struct cp_cuts_win win = { .rows = 0 };
	size_t room = 0;	/* words in et */
	int ret = -1;

	gain = calloc((size_t)gr->n + 1, sizeof(*gain));
	lane_of = malloc(sizeof(*lane_of) * ((size_t)gr->n + 1));
	mark = calloc((size_t)gr->n + 1, sizeof(*mark));
	in = malloc(sizeof(*in) * ((size_t)gr->n + 1));
	tin = malloc(sizeof(*tin) * ((size_t)gr->n + 1));
	ln.mask = malloc(sizeof(*ln.mask) * (nmask + 1));
	ln.stamp = calloc(nmask + 1, sizeof(*ln.stamp));
	ln.lane_of = lane_of;
	et = NULL;
	if (!gain || !lane_of || !mark || !in || !tin || !ln.mask ||
	    !ln.stamp || zero_twins(c, gr, only, &tw, tin, &ntin, &walk))
		goto out;
	memset(lane_of, 0xff, sizeof(*lane_of) * gr->n);
	for (uint32_t b = 0; b < k->nb; b++) {
		uint32_t ng = cp_cuts_groups(k, gr, walk ? walk : only, b,
					     mark, in), most;
		size_t size;

		if (!ng)
			continue;
		if (cp_cuts_win_plan(k, b, &win))
			goto out;
		size = (size_t)win.rows + win.nfar;
		most = words / size < CP_ZERO_LANES ? (uint32_t)(words / size)
						    : CP_ZERO_LANES;
		most = most ? most : 1;
		for (uint32_t s = 0; s < ng; s += most) {
			uint32_t nl = ng - s < most ? ng - s : most;

			if (nl * size > room) {
				cp_big_free(et);
				room = nl * size;
				et = cp_big_malloc(sizeof(*et) * room);
				if (!et)
					goto out;
			}
			for (uint32_t l = 0; l < nl; l++)
				lane_of[in[s + l]] = l;
			ln.nl = nl;
			if (!++ln.pass) {	/* stamps of 2^32 passes ago */
				memset(ln.stamp, 0, sizeof(*ln.stamp) * nmask);
				ln.pass = 1;
			}
			zero_block(k, gr, b, &win, &ln, et, len);
			for (uint32_t l = 0; l < nl; l++) {
				gain[in[s + l]] += cp_cuts_len(k, b) - len[l];
				lane_of[in[s + l]] = CP_PAG_NONE;
			}
		}
	}
	for (uint32_t j = 0; walk && j < ntin; j++)	/* the twins */
		gain[tin[j]] = gain[tin[tw.rep[j]]];
	for (uint32_t i = 0; i < gr->n; i++)
		newlen[i] = c->length - gain[i];
	ret = 0;
out:
	free(gain);
	free(tin);
	free(walk);
	cp_twins_free(&tw);
	free(lane_of);
	free(mark);
	free(in);
	free(ln.mask);
	free(ln.stamp);
	cp_big_free(et);
	cp_cuts_win_free(&win);
	return ret;
}

int cp_zero_all(const struct cp_cpm *c, const struct cp_groups *gr,
		const bool *only, uint64_t *newlen)
{
	return cp_cuts_run(c, cp_zero_blocks, gr, only, newlen);
}
