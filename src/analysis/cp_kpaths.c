/*
 * cp_kpaths.c - the k longest root-to-leaf paths by best-first search on
 * slack (Alexander, Reese & Harden, seed 000 §III.D).
 *
 * The CPM turns the longest-paths problem into a shortest-paths one.  Give
 * a partial path the cost FS_sum + TS(e): the free slack summed over its
 * edges so far plus the total slack of the edge it continues with.  That
 * sum telescopes to L minus the length of the longest root-to-leaf path
 * that starts with the partial path and e, so every complete path costs
 * exactly L minus its length, and from any vertex the out-edge of least
 * total slack continues a path without raising its cost.
 *
 * The search (the seed's traversePath / evaluatePath):
 *  - every out-edge of every root is a candidate partial path;
 *  - the cheapest candidate is popped and completed by following the
 *    least-slack out-edge (next[v]) down to a leaf: that is the next
 *    longest path;
 *  - along that completion, every other out-edge e of a vertex v becomes a
 *    candidate of cost  cost(path) + delta(e),  where
 *    delta(e) = TS(e) - min TS out of v = lt[head] - d(e) - lt[v] >= 0
 *    (the seed's FS_sum + TS, written with vertex slacks).
 * Each path is generated exactly once: it is its parent's first pcnt edges,
 * its own deviation edge, and the least-slack completion, and later
 * deviations lie strictly after earlier ones.
 *
 * Linear memory (the seed's point): only the k best candidates can matter,
 * so the candidate pool is bounded.  It is a binary min-heap; when it grows
 * past 2*need + 16 entries (need = k - paths found) the need cheapest are
 * kept by selection and their largest cost becomes a threshold.  From then
 * on the pool always holds at least need candidates of cost <= threshold,
 * so a candidate (and all its descendants, which cost no less) of cost >=
 * threshold can never be among the answers; the threshold only falls.
 * Pruning costs O(pool) per (pool/2) insertions: O(1) amortised, and the
 * pool is O(k).  Paths are stored as the seed's path descriptors (parent,
 * shared prefix length, deviation edge): O(1) each, spelled out on demand.
 *
 * Two refinements over the seed, which leave the worst case unchanged:
 * minsd[v], the least delta of any side edge along the least-slack
 * completion from v, lets a completion stop as soon as cost + minsd[v] >=
 * threshold (nothing further down can produce a useful candidate); and
 * skip pointers by delta class (sk[l][v]: the first vertex from v on with
 * a side edge of delta below 1, 64, 4096, or any) let it jump over
 * vertices that cannot offer a candidate under the current threshold:
 * most of a thread's chain, and in tie-heavy graphs nearly everything.
 *
 * Complexity: each completion walks at most e edges: O(k·e) time, the
 * seed's bound; heap operations add O(log k) per kept candidate.  Memory:
 * 32 bytes per vertex (next, minsd, glen, 4 skip levels), 24 bytes per
 * pool slot (at most 2k + 16) and 20 bytes per path: O(k + e).
 */
#include "cp_kpaths.h"
#include "cp_debug.h"

#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"

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
		    (kp->parent[i] >= i || kp->pcnt[i] == 0 ||
		     kp->pcnt[i] >= kp->nedges[kp->parent[i]]))
			abort();
	}
}

struct cand {
	uint64_t cost;		/* L minus the best completion's length */
	uint32_t parent;	/* path it deviates from, or NONE */
	uint32_t pcnt;		/* edges shared with the parent */
	uint32_t dev;		/* the deviation edge */
};

struct pool {
	struct cand *c;		/* binary min-heap on cost */
	uint32_t n, cap;
	uint64_t threshold;	/* candidates costing this or more: useless */
};

static void heap_up(struct cand *h, uint32_t i)
{
	struct cand x = h[i];

	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (h[p].cost <= x.cost)
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

static void heap_down(struct cand *h, uint32_t n, uint32_t i)
{
	struct cand x = h[i];

	for (;;) {
		uint32_t l = 2 * i + 1, m;

		if (l >= n)
			break;
		m = l + 1 < n && h[l + 1].cost < h[l].cost ? l + 1 : l;
		if (h[m].cost >= x.cost)
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = x;
}

static void swap_cand(struct cand *a, struct cand *b)
{
	struct cand t = *a;

	*a = *b;
	*b = t;
}

/*
 * Reorder @c[0..n) so that its @keep cheapest come first: quickselect with
 * a three-way partition, so runs of equal costs (common: zero-weight
 * dependency edges make many ties) cost nothing extra.
 */
static void select_cheapest(struct cand *c, uint32_t n, uint32_t keep)
{
	int64_t lo = 0, hi = (int64_t)n - 1, t = (int64_t)keep - 1;

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2, lt = lo, i = lo, gt = hi;
		uint64_t piv;

		if (c[mid].cost < c[lo].cost)
			swap_cand(&c[mid], &c[lo]);
		if (c[hi].cost < c[lo].cost)
			swap_cand(&c[hi], &c[lo]);
		if (c[hi].cost < c[mid].cost)
			swap_cand(&c[hi], &c[mid]);
		piv = c[mid].cost;
		while (i <= gt) {
			if (c[i].cost < piv)
				swap_cand(&c[lt++], &c[i++]);
			else if (c[i].cost > piv)
				swap_cand(&c[i], &c[gt--]);
			else
				i++;
		}
		/* [lo, lt) < piv, [lt, gt] == piv, (gt, hi] > piv */
		if (t < lt)
			hi = lt - 1;
		else if (t > gt)
			lo = gt + 1;
		else
			return;
	}
}

/* Keep only the @need cheapest candidates and lower the threshold. */
static void pool_prune(struct pool *p, uint32_t need)
{
	uint64_t max = 0;

	if (p->n <= need)
		return;
	if (need == 0) {
		p->n = 0;
		p->threshold = 0;
		return;
	}
	select_cheapest(p->c, p->n, need);
	p->n = need;
	for (uint32_t i = 0; i < need; i++)
		if (p->c[i].cost > max)
			max = p->c[i].cost;
	if (max < p->threshold)
		p->threshold = max;
	for (uint32_t i = need / 2; i > 0; i--)
		heap_down(p->c, p->n, i - 1);
}

/* Offer a candidate; returns -1 when memory runs out. */
static int pool_offer(struct pool *p, uint32_t need, uint64_t cost,
		      uint32_t parent, uint32_t pcnt, uint32_t dev)
{
	uint64_t limit = 2 * (uint64_t)need + 16;

	if (cost >= p->threshold)
		return 0;
	if (p->n >= limit)
		pool_prune(p, need);
	if (cost >= p->threshold)
		return 0;
	if (p->n == p->cap) {
		uint64_t ncap = p->cap ? 2 * (uint64_t)p->cap : 64;
		struct cand *nc;

		if (ncap > limit)
			ncap = limit;
		if (ncap <= p->n)
			ncap = (uint64_t)p->n + 1;
		nc = realloc(p->c, sizeof(*nc) * ncap);
		if (!nc)
			return -1;
		p->c = nc;
		p->cap = (uint32_t)ncap;
	}
	p->c[p->n] = (struct cand){ cost, parent, pcnt, dev };
	heap_up(p->c, p->n++);
	return 0;
}

static struct cand pool_pop(struct pool *p)
{
	struct cand top = p->c[0];

	p->c[0] = p->c[--p->n];
	if (p->n)
		heap_down(p->c, p->n, 0);
	return top;
}

/* Room for @n paths in @kp. */
static int paths_reserve(struct cp_kpaths *kp, uint32_t *cap, uint32_t n)
{
	uint64_t ncap;
	void *a, *b, *c, *d, *e;

	if (n <= *cap)
		return 0;
	ncap = *cap ? 2 * (uint64_t)*cap : 64;
	if (ncap > UINT32_MAX)
		ncap = UINT32_MAX;
	a = realloc(kp->len, sizeof(*kp->len) * ncap);
	if (a)
		kp->len = a;
	b = realloc(kp->nedges, sizeof(*kp->nedges) * ncap);
	if (b)
		kp->nedges = b;
	c = realloc(kp->parent, sizeof(*kp->parent) * ncap);
	if (c)
		kp->parent = c;
	d = realloc(kp->pcnt, sizeof(*kp->pcnt) * ncap);
	if (d)
		kp->pcnt = d;
	e = realloc(kp->dev, sizeof(*kp->dev) * ncap);
	if (e)
		kp->dev = e;
	if (!a || !b || !c || !d || !e)
		return -1;
	*cap = (uint32_t)ncap;
	return 0;
}

/*
 * Skip levels: sk[l][v] is the first vertex from v on along next[] whose
 * least side-edge delta is below skip_cut[l] (NONE if there is none).  A
 * completion that can only use deltas below b follows the level with the
 * smallest cut >= b, so it never stops at a vertex that cannot offer a
 * useful candidate.  Near-critical paths of traced programs tie a lot, so
 * b is usually tiny and the zero level skips almost everything.
 */
#define KP_LEVELS 4
static const uint64_t skip_cut[KP_LEVELS] = { 1, 64, 4096, UINT64_MAX };

/*
 * next[], minsd[], glen[] and the skip levels, in reverse topological
 * order.  delta of an out-edge of v is lt[head] - d - lt[v]; next[v] is
 * the lowest-numbered edge of delta 0.
 */
static void kp_prepare(const struct cp_cpm *c, uint32_t *next,
		       uint64_t *minsd, uint32_t *glen, uint32_t **sk)
{
	const struct cp_pag *g = c->g;

	for (uint32_t i = g->nv; i > 0; i--) {
		uint32_t v = g->topo[i - 1], best = CP_PAG_NONE;
		uint64_t lv = c->lt[v], side = UINT64_MAX;

		for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			uint32_t e = g->out_e[j];
			uint64_t delta = c->lt[g->head[e]] - c->w[e] - lv;

			if (delta == 0 && best == CP_PAG_NONE)
				best = e;
			else if (delta < side)
				side = delta;
		}
		next[v] = best;
		if (best == CP_PAG_NONE) {
			minsd[v] = UINT64_MAX;
			glen[v] = 0;
			for (int l = 0; l < KP_LEVELS; l++)
				sk[l][v] = CP_PAG_NONE;
		} else {
			uint32_t h = g->head[best];

			minsd[v] = side < minsd[h] ? side : minsd[h];
			glen[v] = glen[h] + 1;
			for (int l = 0; l < KP_LEVELS; l++)
				sk[l][v] = side < skip_cut[l] ? v : sk[l][h];
		}
	}
}

int cp_kpaths_find(struct cp_kpaths *kp, const struct cp_cpm *c, uint32_t k)
{
	const struct cp_pag *g = c->g;
	struct pool pool = { .threshold = UINT64_MAX };
	uint64_t *minsd = NULL;
	uint32_t *glen = NULL, *sk[KP_LEVELS] = { NULL }, cap = 0;

	memset(kp, 0, sizeof(*kp));
	kp->g = g;
	kp->w = c->w;
	kp->cp_length = c->length;
	kp->next = cp_big_malloc(sizeof(*kp->next) * ((size_t)g->nv + 1));
	minsd = cp_big_malloc(sizeof(*minsd) * ((size_t)g->nv + 1));
	glen = cp_big_malloc(sizeof(*glen) * ((size_t)g->nv + 1));
	if (!kp->next || !minsd || !glen)
		goto err_mem;
	for (int l = 0; l < KP_LEVELS; l++) {
		sk[l] = cp_big_malloc(sizeof(**sk) * ((size_t)g->nv + 1));
		if (!sk[l])
			goto err_mem;
	}
	kp_prepare(c, kp->next, minsd, glen, sk);

	/* the root edges: cost = L - (d + L - lt[head]) */
	for (uint32_t v = 0; v < g->nv && k > 0; v++) {
		if (g->in_off[v] != g->in_off[v + 1])
			continue;
		for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			uint32_t e = g->out_e[j];

			if (pool_offer(&pool, k, c->lt[g->head[e]] - c->w[e],
				       CP_PAG_NONE, 0, e))
				goto err_mem;
		}
	}

	while (kp->n < k && pool.n > 0) {
		struct cand p = pool_pop(&pool);
		uint32_t id = kp->n, need, v, h0;

		if (paths_reserve(kp, &cap, id + 1))
			goto err_mem;
		h0 = g->head[p.dev];
		kp->len[id] = c->length - p.cost;
		kp->parent[id] = p.parent;
		kp->pcnt[id] = p.pcnt;
		kp->dev[id] = p.dev;
		kp->nedges[id] = p.pcnt + 1 + glen[h0];
		kp->n++;
		need = k - kp->n;
		if (need == 0)
			break;
		/*
		 * Complete the path, offering its side edges: visit only the
		 * vertices that have one cheap enough (skip levels), stop
		 * when none further down can beat the threshold (minsd).  The
		 * side edge at v replaces the path's edge pcnt+1 + glen[h0] -
		 * glen[v].
		 */
		for (v = h0;;) {
			uint64_t b;
			uint32_t nx, pos;
			int l = 0;

			if (p.cost >= pool.threshold)
				break;
			b = pool.threshold - p.cost;
			while (skip_cut[l] < b)
				l++;
			v = sk[l][v];
			if (v == CP_PAG_NONE ||
			    p.cost + minsd[v] >= pool.threshold)
				break;
			nx = kp->next[v];
			pos = p.pcnt + 1 + glen[h0] - glen[v];
			for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1];
			     j++) {
				uint32_t e = g->out_e[j];
				uint64_t delta;

				if (e == nx)
					continue;
				delta = c->lt[g->head[e]] - c->w[e] - c->lt[v];
				if (pool_offer(&pool, need, p.cost + delta, id,
					       pos, e))
					goto err_mem;
			}
			v = g->head[nx];
		}
	}
	free(pool.c);
	cp_big_free(minsd);
	cp_big_free(glen);
	for (int l = 0; l < KP_LEVELS; l++)
		cp_big_free(sk[l]);
	cp_kpaths_assert(kp);
	return 0;

err_mem:
	free(pool.c);
	cp_big_free(minsd);
	cp_big_free(glen);
	for (int l = 0; l < KP_LEVELS; l++)
		cp_big_free(sk[l]);
	cp_kpaths_free(kp);
	return -1;
}

uint32_t cp_kpaths_edges(const struct cp_kpaths *kp, uint32_t i,
			 uint32_t *buf)
{
	const uint32_t *head = kp->g->head;
	uint32_t limit = kp->nedges[i], n = limit;

	/* fill back to front: own tail first, then the parent's prefix */
	for (uint32_t j = i; j != CP_PAG_NONE; j = kp->parent[j]) {
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

void cp_kpaths_free(struct cp_kpaths *kp)
{
	free(kp->len);
	free(kp->nedges);
	free(kp->parent);
	free(kp->pcnt);
	free(kp->dev);
	cp_big_free(kp->next);
	memset(kp, 0, sizeof(*kp));
}
