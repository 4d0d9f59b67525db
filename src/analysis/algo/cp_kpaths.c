/*
 * cp_kpaths.c - the k longest root-to-leaf paths by sidetrack enumeration
 * (Eppstein, "Finding the k shortest paths", SIAM J. Comput. 28(2), 1998),
 * on the slacks of the critical path method ([Alexander94, §III.D] states the
 * problem and an O(k·e) best-first search; this file answers it in
 * O(e + v log v + k log k)).
 *
 * In a DAG the longest paths are the shortest ones on negated weights, and
 * the CPM has already done the single-source part: lt[v] is the latest time
 * of v, so L - lt[v] is the longest path from v to a leaf.  Give every
 * out-edge e = (u, x) its delta
 *
 *	delta(e) = lt[x] - d(e) - lt[u] >= 0,
 *
 * what taking e costs against the best continuation from u.  The out-edge
 * of least delta (0; the lowest-numbered one on ties) is next[u]; the
 * next[] edges form a forest, the critical-path tree, and following it from
 * any vertex gives that vertex's longest continuation.  Every other edge is
 * a sidetrack.  A root-to-leaf path is its root, then a sequence of
 * sidetracks each taken somewhere on the tree continuation of the previous
 * one's head, the tree in between; its length is L - lt[root] - the sum of
 * its sidetracks' deltas.  Roots are sidetracks of a virtual source too,
 * of delta lt[root]; the root path 0 starts from (the lowest-numbered root
 * of delta 0) is the source's tree edge.  So the k longest paths are the
 * k cheapest sidetrack sequences.
 *
 * Eppstein's structure, as built here:
 *  - out-heap of u: u's sidetracks, an array heap-ordered by delta (children
 *    of position i at 2i+1 and 2i+2), in side[] after their count, only
 *    for the vertices that have any (a heap node and a candidate name the
 *    out-heap by where its count is, so no array per vertex maps to it);
 *  - H(u): a heap of the vertices on u's tree continuation that have a
 *    sidetrack, keyed by their least delta.  H(u) is H(head of next[u]) with
 *    u inserted: a persistent leftist heap, so inserting copies only the
 *    right spine (at most log2 of the size) and every H(u) shares the rest.
 *    Built in reverse topological order.
 * The path graph: a node is a heap node of some H (standing for its
 * vertex's least sidetrack), an out-heap position >= 1, or a position of
 * the root heap (the other roots, heap-ordered by lt).  Its children are
 * its heap children: the heap node's two children in H and positions 1 and
 * 2 of its vertex's out-heap; an out-heap position's two children; a root
 * position's two.  None is cheaper than its parent.
 *
 * Enumeration: path q = (its parent path p, a path-graph node N) costs
 * cost(p) + delta(N).  When q is taken from the candidate heap, it offers
 *  - (p, M) for every child M of N, at cost(q) - delta(N) + delta(M): q
 *    with its last sidetrack replaced by the next cheapest ones;
 *  - (q, root of H(x)), x the head of q's last sidetrack, at cost(q) +
 *    its key: q with one more sidetrack.
 * Path 0 (no sidetrack) offers the root of H(root) and root position 0.
 * Every sidetrack sequence is reached exactly once, along nondecreasing
 * costs, so the paths come out longest first.  Each taken path offers at
 * most five candidates: O(k log k) with a binary heap.
 *
 * The implicit form is this one: path q is p's first pcnt edges, its own
 * sidetrack (the deviation), and the tree continuation; pcnt is p's
 * prefix length plus the distance along the tree from p's deviation head
 * to the sidetrack's tail (glen[], edges from a vertex to its leaf).
 * Paths from another root have no parent: their "deviation" is the root's
 * tree edge.
 *
 * Pruning: path 0 and the k-1 cheapest single turns off it (a sidetrack
 * at one of its vertices, then the tree) are k distinct paths, so the
 * k-th path costs at most the k-1-th smallest delta B of the sidetracks
 * along path 0; a sidetrack (or root) dearer than B is on none of the k
 * paths and stays out of the heaps.  For small k this leaves out nearly
 * every sidetrack; for k beyond path 0's sidetracks, none.
 *
 * Complexity: out-heaps O(e) (heapify), H O(v log v) time and at most
 * log2 v + 1 heap nodes of 24 bytes per vertex with a sidetrack within the
 * bound (on random keys close to that: about 200 bytes per edge on a
 * random DAG when nothing is pruned), the enumeration O(k log k) and 24
 * bytes per candidate (at most 5k), 20 bytes per path.  Memory kept with the
 * result: next[], join[] and glen[], 12 bytes per vertex; join[] is made
 * after the enumeration in the block H's roots had, so that the search
 * touches three arrays per vertex, not five (fresh pages cost a clear).
 */
#include "cp_kpaths.h"
#include "cp_debug.h"

#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_candheap.h"
#include "cp_grow.h"

static const bool cp_kpaths_debug = CP_DEBUG;

/* Invariants of a result: lengths nonincreasing, descriptors in range. */
static void cp_kpaths_assert(const struct cp_kpaths *kp)
{
	if (!cp_kpaths_debug)
		return;
	for (uint32_t i = 0; i < kp->n; i++) {
		if (i > 0 && kp->len[i] > kp->len[i - 1])
			abort();
		if (kp->dev[i] >= kp->g->ne || kp->len[i] > kp->cp_length)
			abort();
		if (kp->parent[i] != CP_PAG_NONE &&
		    (kp->parent[i] >= i ||
		     kp->pcnt[i] >= kp->nedges[kp->parent[i]]))
			abort();
		if (kp->parent[i] == CP_PAG_NONE && kp->pcnt[i] != 0)
			abort();
	}
}

/* A node of the persistent leftist heaps H(v). */
struct hnode {
	uint64_t key;		/* least delta of v's sidetracks */
	uint32_t oh;		/* v's out-heap: its count in side[] */
	uint32_t l, r;		/* children, or NONE */
	uint32_t rank;		/* null-path length: 1 + rank(r) */
};

struct hpool {
	struct hnode *n;
	uint32_t len, cap;
};

/* Kinds of path-graph nodes, in cand.b (otherwise an out-heap position). */
#define KP_HEAP UINT32_MAX		/* cand.a: a heap node; otherwise
					 * cand.a is an out-heap (its
					 * count's place in side[]) */
#define KP_ROOT (UINT32_MAX - 1)	/* cand.a: a root-heap position */
#define KP_NONE (UINT32_MAX - 2)	/* path 0 */


/* Everything the search reads. */
struct kp_state {
	const struct cp_cpm *c;
	const struct cp_pag *g;
	uint32_t *glen;		/* [nv] tree edges from v to its leaf
				 * (kp->glen, kept with the result) */
	uint32_t *hroot;	/* [nv] H(v), or NONE */
	uint32_t *side;		/* [ne] out-heaps: a count, then that
				 * many sidetracks, heaped */
	uint32_t *rootv;	/* [nroot] roots but path 0's, heaped by lt */
	uint32_t nroot, r0;
	struct hpool hp;
	struct cp_cand *cand;	/* binary min-heap on cost; a and b the
				 * path-graph node (see KP_*) */
	uint32_t ncand, capcand;
};

/* delta(e) of an out-edge @e of @u (its tail, one random read less). */
static inline uint64_t delta_at(const struct cp_cpm *c, uint32_t e,
				uint32_t u)
{
	return c->lt[c->g->head[e]] - c->w[e] - c->lt[u];
}

static inline uint64_t delta_of(const struct cp_cpm *c, uint32_t e)
{
	return delta_at(c, e, cp_pag_tail(c->g, e));
}

static inline uint32_t rank_of(const struct hpool *hp, uint32_t x)
{
	return x == CP_PAG_NONE ? 0 : hp->n[x].rank;
}

static uint32_t hp_alloc(struct hpool *hp)
{
	/* node ids stay below CP_PAG_NONE, the null link */
	if (hp->len >= CP_PAG_NONE - 1 ||
	    cp_grow32((void **)&hp->n, sizeof(*hp->n), &hp->cap,
		      (uint64_t)hp->len + 1))
		return CP_PAG_NONE;
	return hp->len++;
}

/*
 * Persistent insert of the fresh single node @b into heap @a: copies the
 * nodes of @a's right spine above @b's place.  Returns the new root, or
 * NONE when memory runs out (@b is never NONE, so the answer is not
 * ambiguous unless it failed).
 */
static uint32_t hp_insert(struct hpool *hp, uint32_t a, uint32_t b)
{
	uint32_t x, r;

	if (a == CP_PAG_NONE)
		return b;
	if (hp->n[b].key < hp->n[a].key) {
		hp->n[b].l = a;		/* rank(a) >= 1 > rank(NONE) */
		return b;
	}
	r = hp_insert(hp, hp->n[a].r, b);
	if (r == CP_PAG_NONE)
		return CP_PAG_NONE;
	x = hp_alloc(hp);
	if (x == CP_PAG_NONE)
		return CP_PAG_NONE;
	hp->n[x] = hp->n[a];
	hp->n[x].r = r;
	if (rank_of(hp, hp->n[x].l) < rank_of(hp, r)) {
		hp->n[x].r = hp->n[x].l;
		hp->n[x].l = r;
	}
	hp->n[x].rank = rank_of(hp, hp->n[x].r) + 1;
	return x;
}

/* Sift @a[i] down in the @n-element min-heap @a of edges by delta. */
static void side_down(const struct cp_cpm *c, uint32_t *a, uint32_t n,
		      uint32_t i)
{
	uint32_t x = a[i];
	uint64_t dx = delta_of(c, x);

	for (;;) {
		uint32_t l = 2 * i + 1, m;

		if (l >= n)
			break;
		m = l + 1 < n && delta_of(c, a[l + 1]) < delta_of(c, a[l]) ?
			l + 1 : l;
		if (delta_of(c, a[m]) >= dx)
			break;
		a[i] = a[m];
		i = m;
	}
	a[i] = x;
}

/* Sift @a[i] down in the min-heap of root vertices by lt. */
static void root_down(const uint64_t *lt, uint32_t *a, uint32_t n,
		      uint32_t i)
{
	uint32_t x = a[i];

	for (;;) {
		uint32_t l = 2 * i + 1, m;

		if (l >= n)
			break;
		m = l + 1 < n && lt[a[l + 1]] < lt[a[l]] ? l + 1 : l;
		if (lt[a[m]] >= lt[x])
			break;
		a[i] = a[m];
		i = m;
	}
	a[i] = x;
}

/*
 * Put @x into the max-heap @h of @n < @cap values, or in place of its
 * largest when full and @x is less: @h keeps the @cap least values seen.
 * Returns the new count.
 */
static uint32_t least_put(uint64_t *h, uint32_t n, uint32_t cap, uint64_t x)
{
	uint32_t i;

	if (n < cap) {
		for (i = n++; i > 0 && h[(i - 1) / 2] < x; i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = x;
		return n;
	}
	if (x >= h[0])
		return n;
	for (i = 0;;) {
		uint32_t l = 2 * i + 1, m;

		if (l >= n)
			break;
		m = l + 1 < n && h[l + 1] > h[l] ? l + 1 : l;
		if (h[m] <= x)
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = x;
	return n;
}

/*
 * A bound on the cost of the k-th path: path 0 and, for every sidetrack e
 * at a vertex of path 0, path 0 turned off along e, are k distinct paths
 * when there are k-1 such sidetracks; the k-1-th smallest delta among them
 * is then no less than the k-th path's cost, and a sidetrack dearer than
 * that is on none of the k paths.  UINT64_MAX when there are fewer (or on
 * out-of-memory, which only loses the pruning).  One walk along path 0,
 * keeping the k-1 least deltas in a max-heap: O(k) memory.
 */
static uint64_t kp_bound(const struct kp_state *s, uint32_t k)
{
	const struct cp_cpm *c = s->c;
	const struct cp_pag *g = s->g;
	uint64_t *h, bound = UINT64_MAX;
	uint32_t n = 0, v = s->r0, nx;

	if (k <= 1)
		return 0;
	if (k - 1 > g->ne)
		return UINT64_MAX;	/* fewer sidetracks than that */
	h = malloc(sizeof(*h) * (k - 1));
	if (!h)
		return UINT64_MAX;
	do {
		/* the tree edge is the first of delta 0 (next[v]) */
		nx = CP_PAG_NONE;
		for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			uint64_t d = delta_at(c, g->out_e[j], v);

			if (d == 0 && nx == CP_PAG_NONE)
				nx = g->out_e[j];
			else
				n = least_put(h, n, k - 1, d);
		}
		if (nx != CP_PAG_NONE)
			v = g->head[nx];
	} while (nx != CP_PAG_NONE);
	if (n == k - 1)
		bound = h[0];
	free(h);
	return bound;
}

/*
 * In one look at @v's out-edges: its tree edge, the first of delta 0,
 * into *@nx (NONE at a leaf), and its out-heap: the other out-edges within
 * @bound, heaped, into side[*@at + 1 ..] after their count at side[*@at],
 * *@at then moved past them.  Returns the count's place, or NONE when @v
 * has no such sidetrack (nothing written).  A non-leaf vertex has a tree
 * edge that is no sidetrack, so counts and sidetracks fit in side[ne].
 */
static uint32_t kp_outheap(struct kp_state *s, uint32_t v, uint32_t *nx,
			   uint64_t bound, uint32_t *at)
{
	const struct cp_pag *g = s->g;
	uint32_t oh = *at, n = 0;
	uint32_t *heap = s->side + oh + 1;

	*nx = CP_PAG_NONE;
	for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
		uint32_t e = g->out_e[j];
		uint64_t d = delta_at(s->c, e, v);

		if (d == 0 && *nx == CP_PAG_NONE)
			*nx = e;
		else if (d <= bound)
			heap[n++] = e;
	}
	if (n == 0)
		return CP_PAG_NONE;
	s->side[oh] = n;
	for (uint32_t i = n / 2; i > 0; i--)
		side_down(s->c, heap, n, i - 1);
	*at = oh + 1 + n;
	return oh;
}

/*
 * next[], the root heap, the bound for @k paths, the out-heaps (the
 * sidetracks within the bound), glen[] and H(v).  Returns 0, or -1 when
 * memory runs out.
 */
static int kp_prepare(struct kp_state *s, uint32_t *next, uint32_t k)
{
	const struct cp_cpm *c = s->c;
	const struct cp_pag *g = s->g;
	uint64_t bound;
	uint32_t at = 0;

	/* roots with an out-edge; path 0 starts at the first of delta 0 */
	s->r0 = CP_PAG_NONE;
	for (uint32_t v = 0; v < g->nv && s->r0 == CP_PAG_NONE; v++)
		if (cp_pag_is_root(g, v) &&
		    g->out_off[v] != g->out_off[v + 1] && c->lt[v] == 0)
			s->r0 = v;
	if (s->r0 == CP_PAG_NONE)
		return 0;	/* no edge */
	bound = kp_bound(s, k);
	s->nroot = 0;
	for (uint32_t v = 0; v < g->nv; v++)
		if (v != s->r0 && cp_pag_is_root(g, v) &&
		    g->out_off[v] != g->out_off[v + 1] && c->lt[v] <= bound)
			s->rootv[s->nroot++] = v;
	for (uint32_t i = s->nroot / 2; i > 0; i--)
		root_down(c->lt, s->rootv, s->nroot, i - 1);

	for (uint32_t i = g->nv; i > 0; i--) {
		uint32_t v = g->topo[i - 1], h, b, oh;

		oh = kp_outheap(s, v, &next[v], bound, &at);
		if (next[v] == CP_PAG_NONE) {
			s->glen[v] = 0;
			s->hroot[v] = CP_PAG_NONE;
			continue;
		}
		h = g->head[next[v]];
		s->glen[v] = s->glen[h] + 1;
		s->hroot[v] = s->hroot[h];
		if (oh == CP_PAG_NONE)
			continue;
		b = hp_alloc(&s->hp);
		if (b == CP_PAG_NONE)
			return -1;
		s->hp.n[b] = (struct hnode){
			.key = delta_at(c, s->side[oh + 1], v), .oh = oh,
			.l = CP_PAG_NONE, .r = CP_PAG_NONE, .rank = 1 };
		s->hroot[v] = hp_insert(&s->hp, s->hroot[h], b);
		if (s->hroot[v] == CP_PAG_NONE)
			return -1;
	}
	return 0;
}

/* join[v]: the first vertex from v on along next[] that is on path 0. */
static void kp_join(const struct cp_pag *g, const uint32_t *next,
		    uint32_t r0, uint32_t *join)
{
	memset(join, 0xff, sizeof(*join) * g->nv);
	for (uint32_t v = r0; v != CP_PAG_NONE;) {
		join[v] = v;
		v = next[v] == CP_PAG_NONE ? CP_PAG_NONE : g->head[next[v]];
	}
	for (uint32_t i = g->nv; i > 0; i--) {
		uint32_t v = g->topo[i - 1];

		if (join[v] != v)
			join[v] = next[v] == CP_PAG_NONE ? CP_PAG_NONE :
				  join[g->head[next[v]]];
	}
}

/* Offer a candidate; returns -1 when memory runs out. */
static int offer(struct kp_state *s, uint64_t cost, uint32_t par,
		 uint32_t a, uint32_t b)
{
	if (cp_grow32((void **)&s->cand, sizeof(*s->cand), &s->capcand,
		      (uint64_t)s->ncand + 1))
		return -1;
	s->cand[s->ncand] = (struct cp_cand){ cost, par, a, b };
	cp_cand_up(s->cand, s->ncand++);
	return 0;
}

static struct cp_cand pop(struct kp_state *s)
{
	return cp_cand_pop(s->cand, &s->ncand);
}

/* Room for @n paths in @kp. */
static int paths_reserve(struct cp_kpaths *kp, uint32_t *cap, uint32_t n)
{
	/* the five arrays grow alike from the same room; one that grew
	 * before another failed is merely larger than *@cap */
	uint32_t c[5] = { *cap, *cap, *cap, *cap, *cap };

	if (cp_grow32((void **)&kp->len, sizeof(*kp->len), &c[0], n) ||
	    cp_grow32((void **)&kp->nedges, sizeof(*kp->nedges), &c[1], n) ||
	    cp_grow32((void **)&kp->parent, sizeof(*kp->parent), &c[2], n) ||
	    cp_grow32((void **)&kp->pcnt, sizeof(*kp->pcnt), &c[3], n) ||
	    cp_grow32((void **)&kp->dev, sizeof(*kp->dev), &c[4], n))
		return -1;
	*cap = c[0];
	return 0;
}

/*
 * Record candidate @p as path kp->n and offer its children.  Returns 0, or
 * -1 when memory runs out.
 */
static int take(struct kp_state *s, struct cp_kpaths *kp, struct cp_cand p)
{
	const struct cp_cpm *c = s->c;
	const struct cp_pag *g = s->g;
	const uint64_t *lt = c->lt;
	uint32_t id = kp->n, x, e, h, lo, hi;
	uint64_t base;

	kp->len[id] = c->length - p.cost;
	if (p.b == KP_NONE || p.b == KP_ROOT) {
		uint32_t r = p.b == KP_NONE ? s->r0 : s->rootv[p.a];

		kp->parent[id] = CP_PAG_NONE;
		kp->pcnt[id] = 0;
		kp->dev[id] = kp->next[r];
		kp->nedges[id] = s->glen[r];
		h = r;
		if (p.b == KP_NONE) {
			if (s->nroot &&
			    offer(s, lt[s->rootv[0]], CP_PAG_NONE, 0, KP_ROOT))
				return -1;
		} else {
			base = p.cost - lt[r];
			for (x = 2 * p.a + 1; x <= 2 * p.a + 2; x++)
				if (x < s->nroot &&
				    offer(s, base + lt[s->rootv[x]],
					  CP_PAG_NONE, x, KP_ROOT))
					return -1;
		}
	} else {
		uint32_t par = p.par, oh, t, ph;
		const uint32_t *heap;

		if (p.b == KP_HEAP) {
			const struct hnode *hn = &s->hp.n[p.a];

			oh = hn->oh;
			heap = s->side + oh + 1;
			e = heap[0];
			base = p.cost - hn->key;
			if (hn->l != CP_PAG_NONE &&
			    offer(s, base + s->hp.n[hn->l].key, par, hn->l,
				  KP_HEAP))
				return -1;
			if (hn->r != CP_PAG_NONE &&
			    offer(s, base + s->hp.n[hn->r].key, par, hn->r,
				  KP_HEAP))
				return -1;
			lo = 1;
		} else {
			oh = p.a;
			heap = s->side + oh + 1;
			e = heap[p.b];
			base = p.cost - delta_of(c, e);
			lo = 2 * p.b + 1;
		}
		hi = s->side[oh];
		for (x = lo; x <= lo + 1 && x < hi; x++)
			if (offer(s, base + delta_of(c, heap[x]), par, oh, x))
				return -1;
		t = cp_pag_tail(g, e);
		ph = g->head[kp->dev[par]];
		kp->parent[id] = par;
		kp->pcnt[id] = kp->pcnt[par] + 1 + s->glen[ph] - s->glen[t];
		kp->dev[id] = e;
		h = g->head[e];
		kp->nedges[id] = kp->pcnt[id] + 1 + s->glen[h];
	}
	kp->n++;
	x = s->hroot[h];
	if (x != CP_PAG_NONE &&
	    offer(s, p.cost + s->hp.n[x].key, id, x, KP_HEAP))
		return -1;
	return 0;
}

/* Free the search's scratch (not the paths). */
static void kp_state_free(struct kp_state *s)
{
	free(s->cand);
	cp_big_free(s->hp.n);
	cp_big_free(s->hroot);
	cp_big_free(s->rootv);
	cp_big_free(s->side);
}

int cp_kpaths_find(struct cp_kpaths *kp, const struct cp_cpm *c, uint32_t k)
{
	const struct cp_pag *g = c->g;
	struct kp_state s = { .c = c, .g = g };
	size_t nv1 = (size_t)g->nv + 1;
	uint32_t cap = 0;

	memset(kp, 0, sizeof(*kp));
	kp->g = g;
	kp->w = c->w;
	kp->cp_length = c->length;
	kp->next = cp_big_malloc(sizeof(*kp->next) * nv1);
	kp->glen = s.glen = cp_big_malloc(sizeof(*s.glen) * nv1);
	s.hroot = cp_big_malloc(sizeof(*s.hroot) * nv1);
	s.rootv = cp_big_malloc_lazy(sizeof(*s.rootv) * nv1);
	s.side = cp_big_malloc_lazy(sizeof(*s.side) * ((size_t)g->ne + 1));
	if (!kp->next || !s.glen || !s.hroot || !s.rootv || !s.side)
		goto err_mem;
	if (kp_prepare(&s, kp->next, k))
		goto err_mem;
	/* no edge (no root) or k = 0: no path */
	if (s.r0 != CP_PAG_NONE && k > 0 &&
	    (paths_reserve(kp, &cap, 1) ||
	     take(&s, kp, (struct cp_cand){ 0, CP_PAG_NONE, 0, KP_NONE })))
		goto err_mem;
	while (kp->n > 0 && kp->n < k && s.ncand > 0) {
		if (paths_reserve(kp, &cap, kp->n + 1) ||
		    take(&s, kp, pop(&s)))
			goto err_mem;
	}
	/* H is done with: its roots' block becomes join[] */
	kp->join = s.hroot;
	s.hroot = NULL;
	kp_state_free(&s);
	if (kp->n > 0)
		kp_join(g, kp->next, s.r0, kp->join);
	cp_kpaths_assert(kp);
	return 0;

err_mem:
	kp_state_free(&s);
	cp_kpaths_free(kp);
	return -1;
}

uint32_t cp_kpaths_edges(const struct cp_kpaths *kp, uint32_t i,
			 uint32_t *buf)
{
	const uint32_t *head = kp->g->head;
	uint32_t limit = kp->nedges[i], n = limit;

	/* fill back to front: own tail first, then the parent's prefix */
	for (uint32_t j = i; j != CP_PAG_NONE && limit > 0;
	     j = kp->parent[j]) {
		uint32_t p = kp->pcnt[j], e = kp->dev[j], q = p + 1;
		uint32_t v = head[e];

		buf[p] = e;
		while (q < limit) {
			e = kp->next[v];
			buf[q++] = e;
			v = head[e];
		}
		limit = p;
	}
	return n;
}

uint32_t cp_kpaths_pieces(const struct cp_kpaths *kp, uint32_t i,
			  struct cp_kpaths_piece *pc)
{
	uint32_t limit = kp->nedges[i], n = 0;

	/* the chain of parents gives the pieces leaf first */
	for (uint32_t j = i; j != CP_PAG_NONE && limit > 0;
	     j = kp->parent[j]) {
		pc[n++] = (struct cp_kpaths_piece){ kp->dev[j],
						    limit - kp->pcnt[j] };
		limit = kp->pcnt[j];
	}
	for (uint32_t a = 0, b = n; a + 1 < b; a++, b--) {
		struct cp_kpaths_piece x = pc[a];

		pc[a] = pc[b - 1];
		pc[b - 1] = x;
	}
	return n;
}

uint32_t cp_kpaths_departs(const struct cp_kpaths *kp, uint32_t i)
{
	if (kp->parent[i] == CP_PAG_NONE)
		return CP_PAG_NONE;
	return cp_pag_tail(kp->g, kp->dev[i]);
}

uint32_t cp_kpaths_rejoins(const struct cp_kpaths *kp, uint32_t i)
{
	if (i == 0)
		/* path 0 is itself */
		return cp_pag_tail(kp->g, kp->dev[0]);
	return kp->join[kp->g->head[kp->dev[i]]];
}

uint32_t cp_kpaths_rejoins_at(const struct cp_kpaths *kp, uint32_t i)
{
	uint32_t j = cp_kpaths_rejoins(kp, i);

	return j == CP_PAG_NONE ? CP_PAG_NONE : kp->nedges[0] - kp->glen[j];
}

void cp_kpaths_free(struct cp_kpaths *kp)
{
	free(kp->len);
	free(kp->nedges);
	free(kp->parent);
	free(kp->pcnt);
	free(kp->dev);
	cp_big_free(kp->next);
	cp_big_free(kp->join);
	cp_big_free(kp->glen);
	memset(kp, 0, sizeof(*kp));
}
