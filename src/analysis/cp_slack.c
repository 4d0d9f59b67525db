/*
 * cp_slack.c - the Slack metric (Hollingsworth & Miller, "Slack: A New
 * Performance Metric for Parallel Programs", 1994: seed 003).
 *
 * Our reading of the paper.  Critical path time is an upper bound on what
 * tuning a procedure can buy: shorten it and another, slightly shorter path
 * may become critical.  Slack is the matching lower bound: how much of the
 * procedure's time on the critical path can be removed while that path
 * stays critical, i.e. while the run shortens by exactly as much.  The paper
 * computes it in three phases:
 *  1. the critical path C (here: cp_cpm_run's choice);
 *  2. a forward pass that finds the slack segments: an off-C path that
 *     leaves C at a split node s and rejoins it at a merge node m, with
 *     potential slack = (length of C from s to m) - (length of the off path);
 *  3. a walk along C from its start with, per procedure, a table of active
 *     segments: entering a split activates the segment with its potential
 *     slack, leaving its merge retires it; at each call of the procedure on
 *     C the procedure's Slack grows by the least remaining slack of its
 *     active segments (we also cap it by the call's duration: a call cannot
 *     shrink below zero), and that amount is taken from each of them.
 * A path that starts off C at another root splits from a virtual start, one
 * that ends at another leaf merges into a virtual end.
 *
 * Phase 3 is the greedy solution of a small linear program.  Let x_p be the
 * reduction of the p-th edge of C (only the procedure's edges, at most
 * their weight) and X(p) = x_0 + .. + x_{p-1}.  C stays critical iff every
 * path P keeps len'(P) <= L - X(n), i.e. x(C \ P) <= L - len(P); C \ P is
 * covered by P's segments and L - len(P) is the sum of their potential
 * slacks, so the constraints are exactly  X(m) - X(s) <= ps(s,m)  for every
 * segment.  Interval constraints like these are solved optimally by filling
 * from the left (exchange argument: moving reduction to an earlier edge
 * never breaks a segment that the later edge's segments did not), so the
 * walk computes the largest guaranteed reduction.
 *
 * Where we differ from the paper's phase 2.  Its messages keep only the
 * longer of two off-path arrivals at an off-C merge and record the other
 * as a segment ending at the second split, which can understate the slack
 * of overlapping segments.  We compute the walk exactly, per procedure i:
 * with d(q) = X(q) chosen so far,
 *
 *	d(q) = min( d(q-1) + [edge q-1 of C is i's] w,
 *		    min over segments s < q <= m of d(s) + ps(s,m) ).
 *
 * The segment minimum needs no enumeration of (s,m) pairs.  Give every C
 * vertex c_s the reduced time et - d(s) and every other vertex v the
 * longest-path time A(v) from those (one forward pass); a segment crossing
 * q has an edge (v,v') that crosses the topological cut before c_q, and
 *
 *	d(s) + ps(s,m) >= lt[v'] - w(v,v') - A(v),
 *
 * with equality for the best segment through that edge (lt from the CPM is
 * the latest time of v' in the unreduced graph: the segments' suffixes lie
 * after c_q and are not yet reduced).  So the walk is one pass over the
 * vertices in topological order with a min-heap of the edges that leave
 * C's processed part: an edge enters when its tail is processed with value
 * lt[head] - w - A(tail) and expires when the pass moves beyond its head;
 * at each C vertex the heap's minimum is the least remaining segment slack,
 * in the paper's terms.  Virtual edges start -> off-C root (value lt[r])
 * and off-C leaf -> end (value L - A(leaf), never expiring) model the
 * virtual start and end.  (Kahn's order puts every root first, so the
 * start edges only matter for other topological orders; the end edges
 * matter always: a leaf may come early in the order.)  An edge of value
 * >= d_i(C) can never bind (d never exceeds it) and is not pushed; after
 * i's last edge on C, d cannot change and the pass stops.  slack_walk()
 * describes two more savings.
 *
 * Complexity per procedure with CP time: O((v + e) log e) time; 20 bytes
 * of workspace per vertex, 4 per CP edge, and a heap of at most twice the
 * edges alive at once (16 bytes each: O(e) only in the worst case; it is
 * compacted, see seg_push).  A procedure without CP time costs nothing.
 * In practice the walk is one pass over the graph plus a few heap
 * operations on a small, cache-resident heap per pushed edge: on trace
 * PAGs ~20-30 ns per edge and procedure.  Slack <= zeroing benefit <= CP
 * time.
 */
#include "cp_slack.h"

#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"

struct seg {
	uint64_t val;		/* d(s) + ps: slack left + d(q-1) */
	uint32_t until;		/* expires after this topological rank */
};

struct cp_slack_ws {
	const struct cp_cuts *k;
	struct cp_cuts own;	/* the cuts, when the workspace found them */
	uint32_t *roots;	/* [nroots] roots not on C */
	uint32_t nroots;
	uint32_t *nxt;		/* [npath+1] next position of the group's
				 * CP edges (per walk) */
	uint64_t *a;		/* [nv] reduced arrival time A, by rank */
	struct seg *heap;	/* min-heap on val */
	uint32_t n, cap;
};

/* A workspace on the cuts @k (NULL: find them, for @c). */
static struct cp_slack_ws *ws_new(const struct cp_cpm *c,
				  const struct cp_cuts *k)
{
	const struct cp_pag *g = c->g;
	struct cp_slack_ws *ws = calloc(1, sizeof(*ws));

	if (!ws)
		return NULL;
	if (!k) {
		if (cp_cuts_find(&ws->own, c)) {
			free(ws);
			return NULL;
		}
		k = &ws->own;
	}
	ws->k = k;
	ws->roots = malloc(sizeof(*ws->roots) * ((size_t)g->nv + 1));
	ws->a = cp_big_malloc(sizeof(*ws->a) * ((size_t)g->nv + 1));
	ws->nxt = malloc(sizeof(*ws->nxt) * ((size_t)c->npath + 1));
	if (!ws->roots || !ws->a || !ws->nxt) {
		cp_slack_ws_free(ws);
		return NULL;
	}
	for (uint32_t v = 0; v < g->nv; v++)
		if (k->pos[v] == CP_PAG_NONE &&
		    g->in_off[v] == g->in_off[v + 1])
			ws->roots[ws->nroots++] = v;
	return ws;
}

struct cp_slack_ws *cp_slack_ws_new(const struct cp_cpm *c)
{
	return ws_new(c, NULL);
}

void cp_slack_ws_free(struct cp_slack_ws *ws)
{
	if (!ws)
		return;
	cp_cuts_free(&ws->own);
	free(ws->roots);
	free(ws->a);
	free(ws->nxt);
	free(ws->heap);
	free(ws);
}

/*
 * The segment heap is 4-ary: four 16-byte children fill one cache line,
 * and the tree is half as deep as a binary one.  Entries are deleted
 * lazily: an expired one goes when it reaches the top.  Those below the
 * top would pile up (on a trace PAG, tens of thousands of entries of which
 * a few dozen are alive), so a full heap is first compacted: expired
 * entries dropped, the rest re-heapified in O(n).  It only grows when more
 * than half of it is alive, which keeps it within twice the live entries
 * and costs O(1) amortized per push.
 */
static void seg_sift_down(struct seg *h, uint32_t n, uint32_t i,
			  struct seg x)
{
	for (;;) {
		uint32_t f = 4 * i + 1, m = f, end = f + 4 < n ? f + 4 : n;

		if (f >= n)
			break;
		for (uint32_t j = f + 1; j < end; j++)
			if (h[j].val < h[m].val)
				m = j;
		if (h[m].val >= x.val)
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = x;
}

/* Drop the entries that expired before topological rank @now; heapify. */
static void seg_compact(struct cp_slack_ws *ws, uint32_t now)
{
	struct seg *h = ws->heap;
	uint32_t n = 0;

	for (uint32_t i = 0; i < ws->n; i++)
		if (h[i].until >= now)
			h[n++] = h[i];
	ws->n = n;
	for (uint32_t i = n > 1 ? (n - 2) / 4 + 1 : 0; i-- > 0;)
		seg_sift_down(h, n, i, h[i]);
}

/* Push (@val, @until) at topological rank @now; -1 on OOM. */
static int seg_push(struct cp_slack_ws *ws, uint64_t val, uint32_t until,
		    uint32_t now)
{
	struct seg *h;
	uint32_t i;

	if (ws->n == ws->cap) {
		uint32_t ncap = ws->cap ? ws->cap * 2 : 256;

		if (ws->cap)
			seg_compact(ws, now);
		if (2 * ws->n > ws->cap || !ws->cap) {
			h = realloc(ws->heap, sizeof(*h) * ncap);
			if (!h)
				return -1;
			ws->heap = h;
			ws->cap = ncap;
		}
	}
	h = ws->heap;
	for (i = ws->n++; i > 0;) {
		uint32_t p = (i - 1) / 4;

		if (h[p].val <= val)
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = (struct seg){ val, until };
	return 0;
}

static void seg_pop(struct cp_slack_ws *ws)
{
	struct seg x = ws->heap[--ws->n];

	if (ws->n)
		seg_sift_down(ws->heap, ws->n, 0, x);
}

/*
 * The walk for group @gid in block @b, where its CP time is @cpt > 0 and
 * its CP edges lie between positions @first and @last of C (ws->nxt set
 * over them).  Stores the block's Slack in *@out; -1 on OOM.
 *
 * d starts at 0 in every block: the block's problem is the whole graph's
 * shifted by the d reached at its first cut, and every value below (A,
 * the heap's) shifts with it.  A(v) is pushed along the block's edges
 * into ws->a, indexed by topological rank; edges that pass over the
 * block's last cut are left out (cp_cuts.c: they never bind).  Before
 * c_{first+1} nothing is reduced: d = 0 and A(v) = et[v].  Only a query at
 * a C vertex whose incoming C edge is the group's can change d: at any
 * other the heap minimum is at least d (a segment that was alive at the
 * previous query bounded d there; one that splits there has value d +
 * ps).  So an edge is pushed only if it is still alive at the next query
 * that counts (ws->nxt finds it; most thread segments start and end
 * between two of them), and only if its value is below d + rem, rem being
 * the group's CP time in the block not yet passed: d can grow by no more
 * than that, so a larger value can never be the minimum that counts.
 */
static int slack_walk(struct cp_slack_ws *ws, const struct cp_groups *gr,
		      uint32_t gid, uint32_t b, uint64_t cpt, uint32_t first,
		      uint32_t last, uint64_t *out)
{
	const struct cp_cuts *k = ws->k;
	const struct cp_cpm *c = k->c;
	const struct cp_pag *g = c->g;
	const uint64_t *w = c->w;
	const uint32_t *rank = k->rank, *pos = k->pos;
	uint64_t d = 0, rem = cpt, *a = ws->a;
	uint32_t p0 = k->vfirst[b], p1 = cp_cuts_vlast(k, b);
	uint32_t stop = rank[g->head[c->path[last]]];
	uint32_t nextq = rank[g->head[c->path[first]]];

	ws->n = 0;
	for (uint32_t i = 0; b == 0 && i < ws->nroots; i++) {
		uint32_t r = ws->roots[i];

		if (c->lt[r] < rem && rank[r] >= nextq &&
		    seg_push(ws, c->lt[r], rank[r], 0))
			return -1;
	}
	memset(a + p0, 0, sizeof(*a) * ((size_t)stop - p0 + 1));
	for (uint32_t p = p0;; p++) {
		uint32_t v = g->topo[p], q = pos[v];
		uint32_t cpe = CP_PAG_NONE;
		uint64_t av = a[p];

		if (q != CP_PAG_NONE) {
			if (q > first) {
				uint32_t e = c->path[q - 1];
				uint64_t cand = d;

				if (cp_groups_has(gr, e, gid)) {
					cand += w[e];
					rem -= w[e];
				}
				while (ws->n && ws->heap[0].until < p)
					seg_pop(ws);
				if (ws->n && ws->heap[0].val < cand)
					cand = ws->heap[0].val;
				d = cand;
			}
			if (p == stop)
				break;
			if (q >= first)
				nextq = ws->nxt[q] == CP_PAG_NONE ? UINT32_MAX :
					rank[g->head[c->path[ws->nxt[q]]]];
			av = c->et[v] - d;
			cpe = q < c->npath ? c->path[q] : CP_PAG_NONE;
		} else if (g->out_off[v] == g->out_off[v + 1] &&
			   c->length - av < d + rem &&
			   seg_push(ws, c->length - av, UINT32_MAX, p)) {
			return -1;
		}
		for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			uint32_t e = g->out_e[j], h = g->head[e], r = rank[h];
			uint64_t val;

			if (r > p1)
				continue;	/* passes over the last cut */
			if (av + w[e] > a[r])
				a[r] = av + w[e];
			if (e == cpe || r < nextq)
				continue;
			val = c->lt[h] - w[e] - av;
			if (val < d + rem && seg_push(ws, val, r, p))
				return -1;
		}
	}
	*out = d;
	return 0;
}

/*
 * The CP time of group @gid in block @b; its first and last CP edge there
 * in *@first, *@last, and ws->nxt over the block.
 */
static uint64_t block_span(struct cp_slack_ws *ws, const struct cp_groups *gr,
			   uint32_t gid, uint32_t b, uint32_t *first,
			   uint32_t *last)
{
	const struct cp_cuts *k = ws->k;
	const struct cp_cpm *c = k->c;
	uint64_t cpt = 0;

	*first = *last = CP_PAG_NONE;
	ws->nxt[k->pfirst[b + 1]] = CP_PAG_NONE;
	for (uint32_t q = k->pfirst[b + 1]; q-- > k->pfirst[b];) {
		uint32_t e = c->path[q];

		if (c->w[e] && cp_groups_has(gr, e, gid)) {
			cpt += c->w[e];
			*first = q;
			if (*last == CP_PAG_NONE)
				*last = q;
			ws->nxt[q] = q;
		} else {
			ws->nxt[q] = ws->nxt[q + 1];
		}
	}
	return cpt;
}

/* Add group @gid's Slack in block @b to *@sum; -1 on OOM. */
static int slack_block(struct cp_slack_ws *ws, const struct cp_groups *gr,
		       uint32_t gid, uint32_t b, uint64_t *sum)
{
	uint32_t first, last;
	uint64_t cpt = block_span(ws, gr, gid, b, &first, &last), d = 0;

	if (cpt && slack_walk(ws, gr, gid, b, cpt, first, last, &d))
		return -1;
	*sum += d;
	return 0;
}

uint64_t cp_slack_group(struct cp_slack_ws *ws, const struct cp_groups *gr,
			uint32_t gid)
{
	uint64_t sum = 0;

	for (uint32_t b = 0; b < ws->k->nb; b++)
		if (slack_block(ws, gr, gid, b, &sum))
			return UINT64_MAX;
	return sum;
}

int cp_slack_blocks(const struct cp_cuts *k, const struct cp_groups *gr,
		    const bool *only, uint64_t *slack)
{
	struct cp_slack_ws *ws = NULL;
	uint32_t *mark, *in;

	memset(slack, 0, sizeof(*slack) * gr->n);
	if (k->c->npath == 0)
		return 0;
	mark = calloc((size_t)gr->n + 1, sizeof(*mark));
	in = malloc(sizeof(*in) * ((size_t)gr->n + 1));
	if (!mark || !in)
		goto err_mem;
	ws = ws_new(k->c, k);
	if (!ws)
		goto err_mem;
	for (uint32_t b = 0; b < k->nb; b++) {
		uint32_t ng = cp_cuts_groups(k, gr, only, b, mark, in);

		for (uint32_t x = 0; x < ng; x++)
			if (slack_block(ws, gr, in[x], b, &slack[in[x]]))
				goto err_mem;
	}
	cp_slack_ws_free(ws);
	free(mark);
	free(in);
	return 0;

err_mem:
	cp_slack_ws_free(ws);
	free(mark);
	free(in);
	return -1;
}

int cp_slack_all(const struct cp_cpm *c, const struct cp_groups *gr,
		 const bool *only, uint64_t *slack)
{
	struct cp_cuts k;
	int ret;

	if (cp_cuts_find(&k, c))
		return -1;
	ret = cp_slack_blocks(&k, gr, only, slack);
	cp_cuts_free(&k);
	return ret;
}
