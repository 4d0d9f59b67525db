/*
 * cp_cpm.c - the critical path method ([Alexander94, §II.C], after the AOE
 * network method of operations research).
 *
 * Activities are edges.  The forward pass visits vertices in topological
 * order and pushes early finish times along out-edges:
 *
 *	et[v] = max over in-edges e of et[tail(e)] + d(e)	(0 at a root)
 *
 * so ES(e) = et[tail], EF(e) = ES + d, and the CP length L is the largest
 * et (reached at a leaf).  The backward pass visits vertices in reverse
 * order and pulls late start times from out-edges:
 *
 *	lt[v] = min over out-edges e of lt[head(e)] - d(e)	(L at a leaf)
 *
 * so LF(e) = lt[head], LS = LF - d.  Total slack LS - ES is the delay e
 * tolerates without moving the end; free slack ES(successors) - EF the
 * delay that moves no successor's early start, where the successors of an
 * edge into a leaf are the end of the project at L.  All leaves end at L,
 * all roots start at 0: a PAG with several sources and sinks is the seed's
 * single-source network with a virtual start and end.
 *
 * Keeping the four times per vertex instead of per edge halves the memory
 * (16 bytes per vertex, none per edge) and is exact: every out-edge of v
 * has the same ES and every in-edge the same LF.
 *
 * Invariants after a run: et[v] <= lt[v] for every v; an edge has total
 * slack 0 iff it lies on some longest root-to-leaf path; the chosen path
 * has length L and every edge on it has total slack 0.
 *
 * Complexity O(v+e) time: each edge is looked at once per pass, plus one
 * walk back along the chosen path.  The backward pass computes each
 * vertex's height (longest path to a leaf) instead, lt = L - height, so it
 * needs no L and runs on a second core beside the forward pass.  The walk
 * back needs each vertex's lowest-numbered in-edge whose EF is the
 * vertex's earliest time: the forward pass keeps it as it pushes (a
 * larger EF replaces it, an equal one of lower id too), 4 bytes per vertex
 * for the run instead of an in-adjacency kept with the graph.
 */
#include "cp_cpm.h"
#include "cp_debug.h"

#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_par.h"

static const bool cp_cpm_debug = CP_DEBUG;

static void cp_cpm_assert(const struct cp_cpm *c)
{
	const struct cp_pag *g = c->g;
	uint64_t sum = 0;

	if (!cp_cpm_debug)
		return;
	for (uint32_t v = 0; v < g->nv; v++)
		if (c->et[v] > c->lt[v])
			abort();
	for (uint32_t i = 0; i < c->npath; i++) {
		if (cp_cpm_total_slack(c, c->path[i]) != 0)
			abort();
		sum += c->w[c->path[i]];
	}
	if (sum != c->length)
		abort();
}

/*
 * The forward pass: @et as cp_cpm_longest's; with @pred, pred[v] = the
 * lowest-numbered in-edge of v whose EF is et[v] (NONE at a root).
 * Inlined into its two callers, so the pass without @pred tests nothing.
 */
static inline __attribute__((always_inline)) uint64_t
cpm_forward(const struct cp_pag *g, const uint64_t *w, uint64_t *et,
	    uint32_t *pred)
{
	const uint32_t *out_off = g->out_off, *out_e = g->out_e;
	const uint32_t *head = g->head;
	uint64_t len = 0;

	memset(et, 0, sizeof(*et) * g->nv);
	if (pred)
		memset(pred, 0xff, sizeof(*pred) * g->nv);
	for (uint32_t i = 0; i < g->nv; i++) {
		uint32_t v = g->topo[i];
		uint64_t t = et[v];

		if (t > len)
			len = t;
		for (uint32_t j = out_off[v]; j < out_off[v + 1]; j++) {
			uint32_t e = out_e[j], h = head[e];
			uint64_t f = t + w[e];

			if (f > et[h]) {
				et[h] = f;
				if (pred)
					pred[h] = e;
			} else if (pred && f == et[h] && e < pred[h]) {
				pred[h] = e;
			}
		}
	}
	return len;
}

uint64_t cp_cpm_longest(const struct cp_pag *g, const uint64_t *w,
			uint64_t *et)
{
	return cpm_forward(g, w ? w : g->w, et, NULL);
}

/*
 * The backward pass, run without the length: @h[v] = the longest path
 * from v to a leaf (0 at a leaf), so that lt[v] = L - h[v], which is the
 * seed's min over out-edges of lt[head] - d with lt = L at the leaves,
 * exactly (every h[v] <= L).  Free of L, it runs beside the forward pass.
 */
static void cpm_heights(const struct cp_pag *g, const uint64_t *w,
			uint64_t *h)
{
	const uint32_t *out_off = g->out_off, *out_e = g->out_e;
	const uint32_t *head = g->head;

	for (uint32_t i = g->nv; i > 0; i--) {
		uint32_t v = g->topo[i - 1];
		uint64_t t = 0;

		for (uint32_t j = out_off[v]; j < out_off[v + 1]; j++) {
			uint32_t e = out_e[j];
			uint64_t s = h[head[e]] + w[e];

			if (s > t)
				t = s;
		}
		h[v] = t;
	}
}

/* The two passes as cp_par_two jobs. */
struct cpm_pass {
	struct cp_cpm *c;
	uint32_t *pred;		/* [nv] the forward pass's */
};

static void cpm_forward_job(void *p)
{
	struct cpm_pass *pass = p;
	struct cp_cpm *c = pass->c;

	c->length = cpm_forward(c->g, c->w, c->et, pass->pred);
}

static void cpm_heights_job(void *p)
{
	struct cp_cpm *c = ((struct cpm_pass *)p)->c;

	cpm_heights(c->g, c->w, c->lt);
}

/*
 * One walk back from @end along @pred: the critical path into c->path,
 * root to leaf.  Returns 0, -1 when memory runs out.
 */
static int cpm_walk_back(struct cp_cpm *c, const uint32_t *pred,
			 uint32_t end)
{
	const struct cp_pag *g = c->g;
	uint32_t n = 0, v, e;

	for (v = end; v != CP_PAG_NONE && pred[v] != CP_PAG_NONE;
	     v = cp_pag_tail(g, pred[v]))
		n++;
	c->path = cp_big_malloc(sizeof(*c->path) * ((size_t)n + 1));
	if (!c->path)
		return -1;
	c->npath = n;
	for (v = end; n > 0; v = cp_pag_tail(g, e)) {
		e = pred[v];
		c->path[--n] = e;
	}
	return 0;
}

int cp_cpm_run(struct cp_cpm *c, const struct cp_pag *g, const uint64_t *w)
{
	uint32_t end = CP_PAG_NONE, v;
	struct cpm_pass pass = { .c = c };

	memset(c, 0, sizeof(*c));
	c->g = g;
	c->w = w ? w : g->w;
	/* the predecessors first: they fit the block the graph's finish
	 * freed, which a larger request would give back unused */
	pass.pred = cp_big_malloc(sizeof(*pass.pred) * ((size_t)g->nv + 1));
	c->et = cp_big_malloc(sizeof(*c->et) * ((size_t)g->nv + 1));
	c->lt = cp_big_malloc(sizeof(*c->lt) * ((size_t)g->nv + 1));
	if (!c->et || !c->lt || !pass.pred)
		goto err_mem;
	/* forward and backward passes side by side (cp_par.h) */
	cp_par_two((size_t)g->nv + g->ne, cpm_heights_job, &pass,
		   cpm_forward_job, &pass);
	for (v = 0; v < g->nv; v++)
		c->lt[v] = c->length - c->lt[v];

	for (v = 0; v < g->nv; v++) {
		if (g->out_off[v] == g->out_off[v + 1] &&
		    c->et[v] == c->length) {
			end = v;
			break;
		}
	}
	if (cpm_walk_back(c, pass.pred, end))
		goto err_mem;
	cp_big_free(pass.pred);	/* scratch the next phases may reuse */
	cp_cpm_assert(c);
	return 0;

err_mem:
	cp_big_free(pass.pred);
	cp_cpm_free(c);
	return -1;
}

void cp_cpm_drop_et(struct cp_cpm *c)
{
	cp_big_free(c->et);
	c->et = NULL;
}

void cp_cpm_free(struct cp_cpm *c)
{
	cp_big_free(c->et);
	cp_big_free(c->lt);
	cp_big_free(c->path);
	c->et = c->lt = NULL;
	c->path = NULL;
	c->npath = 0;
	c->length = 0;
}

void cp_cpm_group_time(const struct cp_cpm *c, const struct cp_groups *gr,
		       uint64_t *cp_time)
{
	memset(cp_time, 0, sizeof(*cp_time) * gr->n);
	for (uint32_t i = 0; i < c->npath; i++) {
		uint32_t e = c->path[i];
		const uint32_t *ids;
		uint32_t n = cp_groups_of(gr, e, &ids);

		for (uint32_t j = 0; j < n; j++)
			if (ids[j] < gr->n)
				cp_time[ids[j]] += c->w[e];
	}
}
