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
 * needs no L and runs on a second core beside the forward pass.
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

uint64_t cp_cpm_longest(const struct cp_pag *g, const uint64_t *w,
			uint64_t *et)
{
	const uint32_t *out_off = g->out_off, *out_e = g->out_e;
	const uint32_t *head = g->head;
	uint64_t len = 0;

	if (!w)
		w = g->w;
	memset(et, 0, sizeof(*et) * g->nv);
	for (uint32_t i = 0; i < g->nv; i++) {
		uint32_t v = g->topo[i];
		uint64_t t = et[v];

		if (t > len)
			len = t;
		for (uint32_t j = out_off[v]; j < out_off[v + 1]; j++) {
			uint32_t e = out_e[j];
			uint64_t f = t + w[e];

			if (f > et[head[e]])
				et[head[e]] = f;
		}
	}
	return len;
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
};

static void cpm_forward_job(void *p)
{
	struct cp_cpm *c = ((struct cpm_pass *)p)->c;

	c->length = cp_cpm_longest(c->g, c->w, c->et);
}

static void cpm_heights_job(void *p)
{
	struct cp_cpm *c = ((struct cpm_pass *)p)->c;

	cpm_heights(c->g, c->w, c->lt);
}

/* The in-edge of @v that sets its earliest time, lowest id first. */
static uint32_t cpm_pred(const struct cp_cpm *c, uint32_t v)
{
	const struct cp_pag *g = c->g;

	for (uint32_t j = g->in_off[v]; j < g->in_off[v + 1]; j++) {
		uint32_t e = g->in_e[j];

		if (c->et[g->tail[e]] + c->w[e] == c->et[v])
			return e;
	}
	return CP_PAG_NONE;
}

int cp_cpm_run(struct cp_cpm *c, const struct cp_pag *g, const uint64_t *w)
{
	uint32_t end = CP_PAG_NONE, n = 0, v, e;
	struct cpm_pass pass = { .c = c };

	memset(c, 0, sizeof(*c));
	c->g = g;
	c->w = w ? w : g->w;
	c->et = cp_big_malloc(sizeof(*c->et) * ((size_t)g->nv + 1));
	c->lt = cp_big_malloc(sizeof(*c->lt) * ((size_t)g->nv + 1));
	if (!c->et || !c->lt)
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
	/* one walk back from the end (a path has fewer edges than the
	 * graph has vertices; the pages past it are never touched), then
	 * the edges put in order */
	c->path = cp_big_malloc(sizeof(*c->path) * ((size_t)g->nv + 1));
	if (!c->path)
		goto err_mem;
	for (v = end; v != CP_PAG_NONE && (e = cpm_pred(c, v)) != CP_PAG_NONE;
	     v = g->tail[e])
		c->path[n++] = e;
	c->npath = n;
	for (uint32_t i = 0; i < n / 2; i++) {
		e = c->path[i];
		c->path[i] = c->path[n - 1 - i];
		c->path[n - 1 - i] = e;
	}
	cp_cpm_assert(c);
	return 0;

err_mem:
	cp_cpm_free(c);
	return -1;
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
