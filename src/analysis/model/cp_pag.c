/*
 * cp_pag.c - the program activity graph ([Alexander94, §II], [YangMiller88,
 * §3]).
 *
 * Storage is flat and per edge: four parallel arrays (tail, head, weight,
 * label) grown by doubling, so adding an edge is an amortised O(1) append
 * with no allocation of its own.  Labels are interned in a string map of
 * their indices (cp_hash.h), so equal text gives the same id.
 *
 * cp_pag_finish() builds the compressed out-adjacency (CSR) with two
 * counting passes, edge ids in increasing order within a vertex, beside
 * the in-degrees, then a topological order by Kahn's algorithm (FIFO of
 * vertices whose in-degree dropped to zero; those of in-degree zero at the
 * start are the roots, a bit each).  When fewer than nv vertices come out,
 * the rest contain a cycle; one edge on it is found by walking backwards
 * through in-edges (an in-adjacency made for that walk only) among the
 * leftover vertices until a vertex repeats.  Everything is O(v+e) time;
 * memory is 20 bytes per edge while building plus 4 more after finish,
 * and 8 bytes and a bit per vertex (4 more of scratch while finishing).
 *
 * The text reader is cp_pagtext.c.
 */
#include "cp_pag.h"
#include "cp_debug.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_grow.h"
#include "cp_hash.h"
#include "cp_par.h"

/* Reallocate *@arr to exactly @ncap items of @size bytes. */
static int resize(void **arr, uint32_t *cap, uint64_t ncap, size_t size)
{
	void *p = cp_big_realloc(*arr, ncap * size);

	if (!p)
		return -1;
	*arr = p;
	*cap = (uint32_t)ncap;
	return 0;
}

int cp_pag_grow(void **arr, uint32_t *cap, uint32_t need, size_t size)
{
	/* ids stop below CP_PAG_NONE, the "no vertex/edge" value */
	if (need >= CP_PAG_NONE)
		return -1;
	return cp_grow32(arr, size, cap, need);
}

void cp_pag_init(struct cp_pag *g)
{
	memset(g, 0, sizeof(*g));
}

static void pag_free_adjacency(struct cp_pag *g)
{
	free(g->out_off);
	free(g->out_e);
	free(g->root);
	free(g->topo);
	g->out_off = g->out_e = g->topo = NULL;
	g->root = NULL;
	g->finished = false;
}

void cp_pag_free(struct cp_pag *g)
{
	pag_free_adjacency(g);
	free(g->tail);
	free(g->head);
	free(g->w);
	free(g->label);
	if (g->vname) {
		for (uint32_t v = 0; v < g->nv; v++)
			free(g->vname[v]);
		free(g->vname);
	}
	for (uint32_t i = 0; i < g->nlabels; i++)
		free(g->labels[i]);
	free(g->labels);
	if (g->label_index)
		cp_smap_free(g->label_index);
	free(g->label_index);
	cp_pag_init(g);
}

/*
 * Vertex ids are dense, so only the count matters; vname (text PAGs) is
 * grown by the reader, which knows the names.  Returns CP_PAG_NONE when the
 * id space is exhausted.
 */
uint32_t cp_pag_add_vertex(struct cp_pag *g)
{
	if (g->nv >= UINT32_MAX - 1)
		return CP_PAG_NONE;
	if (g->nv >= g->cap_v)
		g->cap_v = g->cap_v ? (g->cap_v > UINT32_MAX / 2 ?
				       UINT32_MAX - 1 : g->cap_v * 2) : 16;
	return g->nv++;
}

int cp_pag_reserve(struct cp_pag *g, uint32_t ne, uint32_t nchain)
{
	uint32_t cap, ntail = ne - (nchain < ne ? nchain : ne);

	if (ne <= g->cap_e)
		return 0;
	if (ntail > g->cap_tail &&
	    resize((void **)&g->tail, &g->cap_tail, ntail, sizeof(*g->tail)))
		return -1;
	if (resize((void **)&g->head, &cap, ne, sizeof(*g->head)) ||
	    resize((void **)&g->w, &cap, ne, sizeof(*g->w)) ||
	    ((g->label || !g->ne) &&
	     resize((void **)&g->label, &cap, ne, sizeof(*g->label))))
		return -1;
	g->cap_e = cap;
	return 0;
}

uint32_t cp_pag_add_edge(struct cp_pag *g, uint32_t tail, uint32_t head,
			 uint64_t w, uint32_t label)
{
	uint32_t e = g->ne, cap;

	if (tail >= g->nv || head >= g->nv || e >= UINT32_MAX - 1 ||
	    (!g->label && e > 0 && label != CP_PAG_NONE))
		return CP_PAG_NONE;
	if (!cp_pag_extends_chain(g, e, tail, head) &&
	    cp_pag_grow((void **)&g->tail, &g->cap_tail, e - g->nchain + 1,
			sizeof(*g->tail)))
		return CP_PAG_NONE;
	if (e >= g->cap_e) {
		cap = g->cap_e;
		if (cp_pag_grow((void **)&g->head, &cap, e + 1,
				sizeof(*g->head)))
			return CP_PAG_NONE;
		cap = g->cap_e;
		if (cp_pag_grow((void **)&g->w, &cap, e + 1,
				sizeof(*g->w)))
			return CP_PAG_NONE;
		cap = g->cap_e;
		/* a graph begun without labels stays without them */
		if ((g->label || e == 0) &&
		    cp_pag_grow((void **)&g->label, &cap, e + 1,
				sizeof(*g->label)))
			return CP_PAG_NONE;
		g->cap_e = cap;
	}
	if (g->finished)
		pag_free_adjacency(g);
	cp_pag_put_edge(g, e, tail, head, w);
	if (g->label)
		g->label[e] = label;
	return e;
}

uint32_t cp_pag_intern(struct cp_pag *g, const char *text)
{
	struct cp_smap *h = g->label_index;
	uint32_t id;
	char *copy;

	if (!h) {
		h = calloc(1, sizeof(*h));
		if (!h)
			return CP_PAG_NONE;
		g->label_index = h;
	}
	id = cp_smap_get(h, g->labels, text);
	if (id != CP_HASH_NONE)
		return id;
	if (cp_pag_grow((void **)&g->labels, &g->cap_labels, g->nlabels + 1,
			sizeof(*g->labels)))
		return CP_PAG_NONE;
	copy = strdup(text);
	if (!copy)
		return CP_PAG_NONE;
	id = g->nlabels;
	g->labels[id] = copy;
	if (cp_smap_add(h, g->labels, id)) {
		free(copy);
		return CP_PAG_NONE;
	}
	g->nlabels++;
	return id;
}

const char *cp_pag_edge_name(const struct cp_pag *g, uint32_t e, char *buf,
			     size_t len)
{
	uint32_t t = cp_pag_tail(g, e), h = g->head[e];

	if (g->label && g->label[e] != CP_PAG_NONE && g->label[e] < g->nlabels)
		return g->labels[g->label[e]];
	if (g->vname && g->vname[t] && g->vname[h])
		snprintf(buf, len, "%s->%s", g->vname[t], g->vname[h]);
	else
		snprintf(buf, len, "%" PRIu32 "->%" PRIu32, t, h);
	return buf;
}

/* Edge @e's key for csr_build: its tail or its head. */
static inline uint32_t csr_key(const struct cp_pag *g, bool by_tail,
			       uint32_t e)
{
	return by_tail ? cp_pag_tail(g, e) : g->head[e];
}

/* Counting sort of @g's edge ids by tail (@by_tail) or head into
 * @off[nv+1] / @list[ne]. */
static void csr_build(const struct cp_pag *g, bool by_tail, uint32_t *off,
		      uint32_t *list)
{
	uint32_t nv = g->nv, ne = g->ne;

	memset(off, 0, sizeof(*off) * ((size_t)nv + 1));
	for (uint32_t e = 0; e < ne; e++)
		off[csr_key(g, by_tail, e) + 1]++;
	for (uint32_t v = 0; v < nv; v++)
		off[v + 1] += off[v];
	/* off[v] is used as the fill cursor, then restored from off[v+1]. */
	for (uint32_t e = 0; e < ne; e++)
		list[off[csr_key(g, by_tail, e)]++] = e;
	for (uint32_t v = nv; v > 0; v--)
		off[v] = off[v - 1];
	off[0] = 0;
}

/* The out-adjacency's csr_build as a cp_par_two job. */
struct csr_job {
	const struct cp_pag *g;
	uint32_t *off, *list;
};

static void csr_job_run(void *p)
{
	struct csr_job *j = p;

	csr_build(j->g, true, j->off, j->list);
}

/* In-degrees of a graph's vertices, as a cp_par_two job. */
struct deg_job {
	const struct cp_pag *g;
	uint32_t *deg;		/* [nv] */
};

static void deg_job_run(void *p)
{
	struct deg_job *j = p;

	memset(j->deg, 0, sizeof(*j->deg) * j->g->nv);
	for (uint32_t e = 0; e < j->g->ne; e++)
		j->deg[j->g->head[e]]++;
}

/*
 * An edge on a cycle among the vertices Kahn's algorithm left (@deg[v] >
 * 0): each keeps an in-edge from another leftover vertex, so walking such
 * edges backwards must repeat a vertex.  @deg marks the walk (UINT32_MAX:
 * visited).  Returns the edge, or CP_PAG_NONE when memory runs out.
 */
static uint32_t cycle_edge(const struct cp_pag *g, uint32_t *deg)
{
	uint32_t *off = malloc(sizeof(*off) * ((size_t)g->nv + 1));
	uint32_t *list = malloc(sizeof(*list) * ((size_t)g->ne + 1));
	uint32_t v = 0, e = CP_PAG_NONE;

	if (!off || !list)
		goto out;
	csr_build(g, false, off, list);
	while (deg[v] == 0)
		v++;
	while (deg[v] != UINT32_MAX) {
		deg[v] = UINT32_MAX;
		for (uint32_t i = off[v]; i < off[v + 1]; i++) {
			uint32_t t = cp_pag_tail(g, list[i]);

			if (deg[t] != 0) {
				e = list[i];
				v = t;
				break;
			}
		}
	}
out:
	free(off);
	free(list);
	return e;
}

int cp_pag_finish_cycle(struct cp_pag *g, uint32_t *cyc)
{
	uint32_t nv = g->nv, ne = g->ne, qh = 0, qt = 0;
	uint32_t *deg = NULL;
	struct csr_job out;
	struct deg_job in;

	pag_free_adjacency(g);
	g->out_off = cp_big_malloc(sizeof(uint32_t) * ((size_t)nv + 1));
	g->out_e = cp_big_malloc(sizeof(uint32_t) * ((size_t)ne + 1));
	g->root = calloc(cp_bits_words(nv), sizeof(*g->root));
	g->topo = cp_big_malloc(sizeof(uint32_t) * ((size_t)nv + 1));
	deg = cp_big_malloc(sizeof(uint32_t) * ((size_t)nv + 1));
	if (!g->out_off || !g->out_e || !g->root || !g->topo || !deg)
		goto err_mem;
	/* out-adjacency beside the in-degrees (cp_par.h) */
	out = (struct csr_job){ g, g->out_off, g->out_e };
	in = (struct deg_job){ g, deg };
	cp_par_two((size_t)nv + ne, deg_job_run, &in, csr_job_run, &out);

	for (uint32_t v = 0; v < nv; v++) {
		if (deg[v] == 0) {
			g->topo[qt++] = v;
			cp_bit_set(g->root, v);
		}
	}
	while (qh < qt) {
		uint32_t v = g->topo[qh++];

		for (uint32_t i = g->out_off[v]; i < g->out_off[v + 1]; i++) {
			uint32_t h = g->head[g->out_e[i]];

			if (--deg[h] == 0)
				g->topo[qt++] = h;
		}
	}
	if (qt < nv) {
		*cyc = cycle_edge(g, deg);
		free(deg);
		pag_free_adjacency(g);
		return *cyc == CP_PAG_NONE ? -1 : 1;
	}
	cp_big_free(deg);	/* scratch the next phases may reuse */
	g->finished = true;
	return 0;

err_mem:
	free(deg);
	pag_free_adjacency(g);
	return -1;
}

static const bool cp_pag_debug = CP_DEBUG;

/* Invariants of a finished graph: every edge goes forward in topo[]. */
static void cp_pag_assert(const struct cp_pag *g)
{
	uint32_t *rank;

	if (!cp_pag_debug || !g->finished)
		return;
	rank = malloc(sizeof(*rank) * ((size_t)g->nv + 1));
	if (!rank)
		return;
	for (uint32_t i = 0; i < g->nv; i++)
		rank[g->topo[i]] = i;
	for (uint32_t e = 0; e < g->ne; e++)
		if (rank[cp_pag_tail(g, e)] >= rank[g->head[e]])
			abort();
	if (g->out_off[g->nv] != g->ne)
		abort();
	free(rank);
}

int cp_pag_finish(struct cp_pag *g, char *err, size_t errlen)
{
	uint32_t cyc = CP_PAG_NONE;
	char buf[64];
	int r = cp_pag_finish_cycle(g, &cyc);

	if (r < 0)
		snprintf(err, errlen, "out of memory finishing a graph of "
			 "%" PRIu32 " edges", g->ne);
	else if (r > 0)
		snprintf(err, errlen, "the graph has a cycle through edge %s",
			 cp_pag_edge_name(g, cyc, buf, sizeof(buf)));
	else
		cp_pag_assert(g);
	return r ? -1 : 0;
}
