/*
 * cp_mbm.c - the Maximum Benefit Metric ([Alexander94, §VI]).
 *
 * The Critical Path Metric ranks an activity by its time on the CP, but
 * shortening it only pays until a near-critical path that lacks it takes
 * over.  Over the k longest paths P_1 (= CP) .. P_k,
 *
 *	MBM_k(i) = min over j of ( d(i on P_j) + slack_j ),
 *	slack_j  = d(CP) - d(P_j),
 *
 * bounds what making i free can buy: P_j still lasts d(P_j) - d(i on P_j)
 * afterwards, so the run cannot get shorter than that, and the benefit is
 * at most d(CP) - d(P_j) + d(i on P_j).  It is a bound from the k paths
 * seen only; a path beyond P_k may bind earlier.
 *
 * A group absent from P_1 has MBM 0 (slack_1 = 0), so only the groups S of
 * P_1 are tracked.  Spelling every path out would cost the sum of the path
 * lengths (k times the CP's edge count on a PAG).  Instead we use the
 * search's own structure: path j is its parent's first pcnt edges, its
 * deviation edge, then the least-slack continuation; the parent continues
 * from the same vertex u by its least-slack edge.  So
 *
 *	d(i on P_j) = d(i on parent) - d(i on next[u], then next[] on)
 *				     + d(i on dev_j, then next[] on),
 *
 * and the two continuations run along the least-slack forest until they
 * meet, after which they coincide.  Walking both in step by topological
 * rank (always advancing the one behind) finds the meeting vertex and
 * visits only the edges where the paths differ.  A depth-first walk over
 * the tree of paths (paths deviating at a root hang under P_1, with P_1's
 * own first edge as the replaced part) keeps one vector d(i on current
 * path) for i in S, applying each path's difference on the way down and
 * undoing it on the way up, and takes each path's terms.
 *
 * Time O(sum over paths of the edges where a path differs from its parent,
 * plus k·|S|): far less than the seed's O(k·e) when near-critical paths
 * rejoin quickly.  On a trace they often do not: a path that leaves C into
 * another thread may run beside it to the end, and every deviation then
 * walks both continuations to their leaves (an instrumented ray tracer:
 * 72 % of its report in this walk).  So the walk has a budget, a few times
 * the vertices; past it, the differences come from the continuations'
 * whole sums instead,
 *
 *	d(i on e, then next[] on) = d(i on e) + suf_i(head of e),
 *
 * whose common part cancels wherever the two meet.  suf_i(v), the time of
 * i from v to its leaf along next[], is wanted only at the heads of the
 * deviations and of the edges they replace: one depth-first pass over the
 * least-slack forest (each vertex hangs under the head of its next edge)
 * carries the vector of S down from the leaves and copies it at those
 * vertices.  That is O(v·(groups per edge) + k·|S|) time whatever the
 * paths, and 20 bytes per vertex plus 2k·|S| words.  Both ways add and
 * subtract the same weights modulo 2^64: the same figures exactly.
 * Memory of the walk: 4 bytes per vertex (ranks), 8 per group, 16 per
 * path.
 */
#include "cp_mbm.h"

#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"

/* Edges a walk may take, per vertex of the graph, before the forest's
 * pass takes over. */
#define CP_MBM_WALK_BUDGET 4

struct mbm_walk {
	const struct cp_kpaths *kp;
	const struct cp_groups *gr;
	const uint32_t *rank;	/* topological rank of each vertex */
	const uint32_t *slot;	/* group -> index in vec, or NONE */
	uint64_t *vec;		/* d(i on the current path), i in S */
	uint64_t budget;	/* continuation edges the walk may still take */
	/* the forest's pass (budget spent): suf at the heads of path j's
	 * deviation, suf + 2j * ns, and of the edge it replaces, + ns */
	const uint64_t *suf;
	uint32_t ns;
};

/* vec += sign * (group weights of edge e) */
static void mbm_edge(struct mbm_walk *mw, uint32_t e, int sign)
{
	const uint32_t *ids;
	uint32_t n = cp_groups_of(mw->gr, e, &ids);
	uint64_t w = mw->kp->w[e];

	for (uint32_t x = 0; x < n; x++) {
		uint32_t s = ids[x] < mw->gr->n ? mw->slot[ids[x]]
						: CP_PAG_NONE;

		if (s == CP_PAG_NONE)
			continue;
		if (sign > 0)
			mw->vec[s] += w;	/* wraps back: unsigned */
		else
			mw->vec[s] -= w;
	}
}

/*
 * vec += sign * (d(f, then next[] on) - ...) : remove the continuation
 * starting with edge @out, add the one starting with edge @in, walking
 * only until they meet; each step spends one of the walk's budget.
 */
static void mbm_diff(struct mbm_walk *mw, uint32_t out, uint32_t in,
		     int sign)
{
	const struct cp_pag *g = mw->kp->g;
	const uint32_t *next = mw->kp->next;
	uint32_t a = g->head[out], b = g->head[in];

	mbm_edge(mw, out, -sign);
	mbm_edge(mw, in, sign);
	while (a != b) {
		bool adv_a;

		if (next[a] == CP_PAG_NONE && next[b] == CP_PAG_NONE)
			break;		/* different leaves */
		if (next[a] == CP_PAG_NONE)
			adv_a = false;
		else if (next[b] == CP_PAG_NONE)
			adv_a = true;
		else
			adv_a = mw->rank[a] < mw->rank[b];
		if (adv_a) {
			mbm_edge(mw, next[a], -sign);
			a = g->head[next[a]];
		} else {
			mbm_edge(mw, next[b], sign);
			b = g->head[next[b]];
		}
		mw->budget -= mw->budget > 0;
	}
}

/* The same difference for path @j from the continuations' sums (the
 * forest's pass has run). */
static void mbm_diff_suf(struct mbm_walk *mw, uint32_t out, uint32_t j,
			 int sign)
{
	const uint64_t *in_suf = mw->suf + 2 * (size_t)j * mw->ns;
	const uint64_t *out_suf = in_suf + mw->ns;

	mbm_edge(mw, out, -sign);
	mbm_edge(mw, mw->kp->dev[j], sign);
	for (uint32_t s = 0; s < mw->ns; s++) {
		if (sign > 0)
			mw->vec[s] += in_suf[s] - out_suf[s];
		else
			mw->vec[s] -= in_suf[s] - out_suf[s];
	}
}

/* The edge of path @j's parent that @j's deviation replaces. */
static uint32_t mbm_replaced(const struct cp_kpaths *kp, uint32_t j)
{
	if (kp->parent[j] == CP_PAG_NONE)
		return kp->dev[0];	/* a root deviation: vs P_1's start */
	return kp->next[cp_pag_tail(kp->g, kp->dev[j])];
}

/*
 * S: the groups on P_1 (the critical path), each given a slot: @slot[g]
 * (CP_PAG_NONE for groups off it, [ng]), @sgroup[slot] its group and
 * @vec[slot] its time on P_1 (zeroed).  Returns |S|.
 */
static uint32_t groups_of_p1(const struct cp_kpaths *kp,
			     const struct cp_groups *gr, uint32_t *slot,
			     uint32_t *sgroup, uint64_t *vec)
{
	const struct cp_pag *g = kp->g;
	uint32_t e = kp->dev[0], v = g->head[e], ns = 0;

	memset(slot, 0xff, sizeof(*slot) * gr->n);
	for (;;) {
		const uint32_t *ids;
		uint32_t m = cp_groups_of(gr, e, &ids);

		for (uint32_t x = 0; x < m; x++) {
			uint32_t i = ids[x];

			if (i >= gr->n)
				continue;
			if (slot[i] == CP_PAG_NONE) {
				slot[i] = ns;
				sgroup[ns++] = i;
			}
			vec[slot[i]] += kp->w[e];
		}
		e = kp->next[v];
		if (e == CP_PAG_NONE)
			break;
		v = g->head[e];
	}
	return ns;
}

/*
 * The tree of paths as children lists: the children of p are
 * @child[@coff[p] .. @coff[p + 1]); root deviations hang under P_1.
 * @coff [n + 2] zeroed, @child [n].
 */
static void children(const struct cp_kpaths *kp, uint32_t *coff,
		     uint32_t *child)
{
	uint32_t n = kp->n;

	for (uint32_t j = 1; j < n; j++) {
		uint32_t p = kp->parent[j] == CP_PAG_NONE ? 0 : kp->parent[j];

		coff[p + 2]++;
	}
	for (uint32_t j = 0; j < n; j++)
		coff[j + 2] += coff[j + 1];
	for (uint32_t j = 1; j < n; j++) {
		uint32_t p = kp->parent[j] == CP_PAG_NONE ? 0 : kp->parent[j];

		child[coff[p + 1]++] = j;
	}
}

/*
 * The forest's pass (see the head of this file): into @mw->suf, 2 n x ns
 * words, suf of S at the head of each path j's deviation (row 2j) and of
 * the edge it replaces (row 2j + 1).  0, or -1 (memory).
 */
static int mbm_suffixes(struct mbm_walk *mw)
{
	const struct cp_kpaths *kp = mw->kp;
	const struct cp_pag *g = kp->g;
	const uint32_t *next = kp->next;
	uint32_t nv = g->nv, n = kp->n, ns = mw->ns;
	uint32_t *off, *kid, *qfirst, *qnext, *stack;
	uint64_t *suf, *run;
	struct mbm_walk dw = *mw;
	int ret = -1;

	if (nv >= 0x80000000u)
		return -1;	/* the stack marks leaving with bit 31 */
	off = calloc((size_t)nv + 2, sizeof(*off));
	kid = cp_big_malloc(sizeof(*kid) * ((size_t)nv + 1));
	qfirst = cp_big_malloc(sizeof(*qfirst) * ((size_t)nv + 1));
	qnext = malloc(sizeof(*qnext) * (2 * (size_t)n + 1));
	stack = cp_big_malloc(sizeof(*stack) * (2 * (size_t)nv + 1));
	suf = calloc(2 * (size_t)n * ns + 1, sizeof(*suf));
	run = calloc((size_t)ns + 1, sizeof(*run));
	if (!off || !kid || !qfirst || !qnext || !stack || !suf || !run)
		goto out;
	/* the vertices asked about, each with its list of rows */
	memset(qfirst, 0xff, sizeof(*qfirst) * nv);
	for (uint32_t j = 1; j < n; j++) {
		uint32_t at[2] = { g->head[kp->dev[j]],
				   g->head[mbm_replaced(kp, j)] };

		for (uint32_t x = 0; x < 2; x++) {
			qnext[2 * j + x] = qfirst[at[x]];
			qfirst[at[x]] = 2 * j + x;
		}
	}
	/* the forest: v hangs under the head of next[v]; kid[off[u] ..
	 * off[u + 1]) are u's */
	for (uint32_t v = 0; v < nv; v++)
		if (next[v] != CP_PAG_NONE)
			off[g->head[next[v]] + 2]++;
	for (uint32_t u = 0; u < nv; u++)
		off[u + 2] += off[u + 1];
	for (uint32_t v = 0; v < nv; v++)
		if (next[v] != CP_PAG_NONE)
			kid[off[g->head[next[v]] + 1]++] = v;
	/* down from each root (a vertex without next[]), run = suf of the
	 * vertex entered; leaving undoes its edge */
	dw.vec = run;
	for (uint32_t r = 0; r < nv; r++) {
		uint32_t sp = 0;

		if (next[r] != CP_PAG_NONE)
			continue;
		stack[sp++] = r;
		while (sp > 0) {
			uint32_t top = stack[--sp], v = top & 0x7fffffffu;

			if (top & 0x80000000u) {
				mbm_edge(&dw, next[v], -1);
				continue;
			}
			if (next[v] != CP_PAG_NONE) {
				mbm_edge(&dw, next[v], +1);
				stack[sp++] = v | 0x80000000u;
			}
			for (uint32_t q = qfirst[v]; q != CP_PAG_NONE;
			     q = qnext[q])
				memcpy(suf + (size_t)q * ns, run,
				       sizeof(*run) * ns);
			for (uint32_t x = off[v]; x < off[v + 1]; x++)
				stack[sp++] = kid[x];
		}
	}
	mw->suf = suf;
	suf = NULL;
	ret = 0;
out:
	free(off);
	cp_big_free(kid);
	cp_big_free(qfirst);
	free(qnext);
	cp_big_free(stack);
	free(suf);
	free(run);
	return ret;
}

/* Apply path @j's difference from its parent to the vector (@sign -1:
 * take it back), by the walk or by the continuations' sums. */
static void mbm_step(struct mbm_walk *mw, uint32_t j, int sign)
{
	uint32_t out = mbm_replaced(mw->kp, j);

	if (mw->suf)
		mbm_diff_suf(mw, out, j, sign);
	else
		mbm_diff(mw, out, mw->kp->dev[j], sign);
}

int cp_mbm_compute(const struct cp_kpaths *kp, const struct cp_groups *gr,
		   uint64_t *mbm)
{
	return cp_mbm_compute_budget(kp, gr, mbm,
				     CP_MBM_WALK_BUDGET *
				     ((uint64_t)kp->g->nv + 1));
}

int cp_mbm_compute_budget(const struct cp_kpaths *kp,
			  const struct cp_groups *gr, uint64_t *mbm,
			  uint64_t budget)
{
	const struct cp_pag *g = kp->g;
	uint32_t ng = gr->n, n = kp->n, ns = 0, sp = 0;
	uint32_t *rank = NULL, *slot = NULL, *coff = NULL, *child = NULL;
	uint32_t *stack = NULL, *sgroup = NULL;
	uint64_t *vec = NULL;
	struct mbm_walk mw = { 0 };
	int ret = -1;

	memset(mbm, 0, sizeof(*mbm) * ng);
	if (n == 0 || ng == 0)
		return 0;
	if (n >= 0x80000000u)
		return -1;	/* the walk's stack marks leaving with bit 31 */
	rank = cp_big_malloc(sizeof(*rank) * ((size_t)g->nv + 1));
	slot = malloc(sizeof(*slot) * ((size_t)ng + 1));
	sgroup = malloc(sizeof(*sgroup) * ((size_t)ng + 1));
	vec = calloc((size_t)ng + 1, sizeof(*vec));
	coff = calloc((size_t)n + 2, sizeof(*coff));
	child = malloc(sizeof(*child) * ((size_t)n + 1));
	stack = malloc(sizeof(*stack) * (2 * (size_t)n + 1));
	if (!rank || !slot || !sgroup || !vec || !coff || !child || !stack)
		goto out;
	for (uint32_t i = 0; i < g->nv; i++)
		rank[g->topo[i]] = i;

	ns = groups_of_p1(kp, gr, slot, sgroup, vec);
	for (uint32_t s = 0; s < ns; s++)
		mbm[sgroup[s]] = vec[s];	/* the term of P_1 */

	children(kp, coff, child);

	mw = (struct mbm_walk){ .kp = kp, .gr = gr, .rank = rank,
				.slot = slot, .vec = vec, .budget = budget,
				.ns = ns };
	/* stack entries: j = enter j, j | 1<<31 = leave j */
	for (uint32_t x = coff[0]; x < coff[1]; x++)
		stack[sp++] = child[x];
	while (sp > 0) {
		uint32_t top = stack[--sp], j = top & 0x7fffffffu;
		uint64_t slack;

		/* the walk's budget spent: the sums from here on */
		if (!mw.suf && !mw.budget && mbm_suffixes(&mw))
			goto out;
		if (top & 0x80000000u) {
			mbm_step(&mw, j, -1);
			continue;
		}
		mbm_step(&mw, j, +1);
		slack = kp->cp_length - kp->len[j];
		for (uint32_t s = 0; s < ns; s++) {
			uint64_t term = vec[s] + slack;

			if (term < mbm[sgroup[s]])
				mbm[sgroup[s]] = term;
		}
		stack[sp++] = j | 0x80000000u;
		for (uint32_t x = coff[j]; x < coff[j + 1]; x++)
			stack[sp++] = child[x];
	}
	ret = 0;
out:
	free((uint64_t *)mw.suf);
	cp_big_free(rank);
	free(slot);
	free(sgroup);
	free(vec);
	free(coff);
	free(child);
	free(stack);
	return ret;
}
