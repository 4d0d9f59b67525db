/*
 * cp_testgraph.h - random DAGs and multigraphs, and brute-force path
 * enumeration, for the graph-algorithm tests (check_pag, check_cpm,
 * check_kpaths, check_mbm, check_zero, check_slack).  Header-only, static.
 *
 * Random graphs: vertices get a random hidden order (so ids are not
 * topological), each edge joins an earlier vertex to a later one, parallel
 * edges allowed; several roots and leaves happen naturally.  A fixed-seed
 * generator (xorshift) keeps every run identical.
 */
#ifndef CP_TESTGRAPH_H
#define CP_TESTGRAPH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_pag.h"

/*
 * Check records every passing ck_assert (a write to its message file), which
 * costs a system call; loops that check millions of values use this, which
 * only reaches Check when the condition fails.
 */
#define TG_CHECK(cond, ...)                                                  \
	do {                                                                 \
		if (!(cond))                                                 \
			ck_abort_msg(__VA_ARGS__);                           \
	} while (0)

static uint64_t tg_state = 88172645463325252ULL;

static inline void tg_seed(uint64_t s)
{
	tg_state = s * 2654435761ULL + 1;
}

static inline uint64_t tg_rand(void)
{
	tg_state ^= tg_state << 13;
	tg_state ^= tg_state >> 7;
	tg_state ^= tg_state << 17;
	return tg_state;
}

static inline uint32_t tg_below(uint32_t n)
{
	return (uint32_t)(tg_rand() % n);
}

/* Intern labels "g0" .. "g<nlab-1>" in @g, so that label i has id i. */
static inline void tg_labels(struct cp_pag *g, uint32_t nlab)
{
	for (uint32_t i = 0; i < nlab; i++) {
		char name[16];

		snprintf(name, sizeof(name), "g%u", i);
		cp_pag_intern(g, name);
	}
}

/*
 * Random DAG multigraph: @nv vertices, @ne edges of weight 0..@maxw, label
 * of each edge one of @nlab labels "g0".."g<nlab-1>" (or none with
 * probability 1/(nlab+1)).  Finished.  Returns 0.
 */
static inline int tg_random(struct cp_pag *g, uint32_t nv, uint32_t ne,
			    uint64_t maxw, uint32_t nlab)
{
	uint32_t *ord = malloc(sizeof(*ord) * nv);
	char err[256];

	cp_pag_init(g);
	for (uint32_t v = 0; v < nv; v++) {
		cp_pag_add_vertex(g);
		ord[v] = v;
	}
	for (uint32_t v = nv; v > 1; v--) {
		uint32_t j = tg_below(v), t = ord[v - 1];

		ord[v - 1] = ord[j];
		ord[j] = t;
	}
	tg_labels(g, nlab);
	for (uint32_t i = 0; i < ne; i++) {
		uint32_t a = tg_below(nv - 1), b = a + 1 + tg_below(nv - 1 - a);
		uint32_t lab = tg_below(nlab + 1);

		cp_pag_add_edge(g, ord[a], ord[b], tg_rand() % (maxw + 1),
				lab == nlab ? CP_PAG_NONE : lab);
	}
	free(ord);
	return cp_pag_finish(g, err, sizeof(err));
}

/* All root-to-leaf paths (at least one edge), edge lists concatenated. */
struct tg_paths {
	uint32_t n;		/* paths */
	uint64_t *len;		/* [n] */
	uint32_t *off;		/* [n+1] */
	uint32_t *e;		/* edges */
	uint32_t cap, ecap;
};

static inline void tg_paths_add(struct tg_paths *p, const uint32_t *stk,
				uint32_t depth, uint64_t len)
{
	if (p->n + 1 >= p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->len = realloc(p->len, sizeof(*p->len) * p->cap);
		p->off = realloc(p->off, sizeof(*p->off) * (p->cap + 1));
	}
	if (p->n == 0)
		p->off[0] = 0;
	while (p->off[p->n] + depth > p->ecap) {
		p->ecap = p->ecap ? p->ecap * 2 : 256;
		p->e = realloc(p->e, sizeof(*p->e) * p->ecap);
	}
	memcpy(p->e + p->off[p->n], stk, sizeof(*stk) * depth);
	p->len[p->n] = len;
	p->off[p->n + 1] = p->off[p->n] + depth;
	p->n++;
}

static inline void tg_dfs(const struct cp_pag *g, const uint64_t *w,
			  uint32_t v, uint32_t *stk, uint32_t depth,
			  uint64_t len, struct tg_paths *p)
{
	if (g->out_off[v] == g->out_off[v + 1]) {
		if (depth > 0)
			tg_paths_add(p, stk, depth, len);
		return;
	}
	for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
		uint32_t e = g->out_e[j];

		stk[depth] = e;
		tg_dfs(g, w, g->head[e], stk, depth + 1, len + w[e], p);
	}
}

/* Enumerate every root-to-leaf path of @g under weights @w (NULL: g's). */
static inline void tg_enumerate(const struct cp_pag *g, const uint64_t *w,
				struct tg_paths *p)
{
	uint32_t *stk = malloc(sizeof(*stk) * (g->nv + 1));

	memset(p, 0, sizeof(*p));
	if (!w)
		w = g->w;
	for (uint32_t v = 0; v < g->nv; v++)
		if (cp_pag_is_root(g, v))
			tg_dfs(g, w, v, stk, 0, 0, p);
	free(stk);
}

static inline void tg_paths_free(struct tg_paths *p)
{
	free(p->len);
	free(p->off);
	free(p->e);
	memset(p, 0, sizeof(*p));
}

/* Longest path over the enumeration (0 with none). */
static inline uint64_t tg_max_len(const struct tg_paths *p)
{
	uint64_t m = 0;

	for (uint32_t i = 0; i < p->n; i++)
		if (p->len[i] > m)
			m = p->len[i];
	return m;
}

static inline int tg_cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Edge id of the edge labelled @name (first one), or CP_PAG_NONE. */
static inline uint32_t tg_edge(const struct cp_pag *g, const char *name)
{
	for (uint32_t e = 0; e < g->ne; e++)
		if (g->label[e] != CP_PAG_NONE &&
		    strcmp(g->labels[g->label[e]], name) == 0)
			return e;
	return CP_PAG_NONE;
}

/*
 * A PAG-shaped graph: @nt thread chains of @len events each (edges of
 * weight 0..@maxw, label one of @nlab or none), a start vertex feeding
 * every chain, an end vertex fed by every chain, and @ncross zero-weight
 * dependency edges from an event of one thread to a later-indexed event
 * of another (event i of any thread precedes event i+1 of any thread, so
 * the graph stays acyclic).  Finished.
 */
static inline int tg_pagshape(struct cp_pag *g, uint32_t nt, uint32_t len,
			      uint32_t ncross, uint64_t maxw, uint32_t nlab)
{
	uint32_t s, t;
	char err[256];

	cp_pag_init(g);
	tg_labels(g, nlab);
	s = cp_pag_add_vertex(g);
	for (uint32_t k = 0; k < nt * len; k++)
		cp_pag_add_vertex(g);	/* thread k / len, event k % len */
	t = cp_pag_add_vertex(g);
	for (uint32_t th = 0; th < nt; th++) {
		uint32_t base = 1 + th * len;

		cp_pag_add_edge(g, s, base, 0, CP_PAG_NONE);
		for (uint32_t i = 0; i + 1 < len; i++) {
			uint32_t lab = tg_below(nlab + 1);

			cp_pag_add_edge(g, base + i, base + i + 1,
					tg_rand() % (maxw + 1),
					lab == nlab ? CP_PAG_NONE : lab);
		}
		cp_pag_add_edge(g, base + len - 1, t, 0, CP_PAG_NONE);
	}
	for (uint32_t k = 0; k < ncross && nt > 1 && len > 1; k++) {
		uint32_t a = tg_below(nt), b = tg_below(nt - 1);
		uint32_t i = tg_below(len - 1);
		uint32_t j = i + 1 + tg_below(len - 1 - i);

		if (b >= a)
			b++;
		cp_pag_add_edge(g, 1 + a * len + i, 1 + b * len + j, 0,
				CP_PAG_NONE);
	}
	return cp_pag_finish(g, err, sizeof(err));
}

/* A random edge label: one of @nlab, or none one time in @nlab + 1. */
static inline uint32_t tg_label(uint32_t nlab)
{
	uint32_t lab = tg_below(nlab + 1);

	return lab == nlab ? CP_PAG_NONE : lab;
}

/*
 * A barrier-synchronised PAG, the shape the critical path's cuts come from
 * (cp_cuts.h): a start vertex, @nt thread chains over @nph phases of 1 ..
 * @len events per thread (edges of weight 0..@maxw, label one of @nlab or
 * none; thread 0's weigh @maxw more and half of them are label 0, so that
 * zeroing label 0 moves the critical path to other threads), every phase
 * but the last closed by a barrier (each thread -> hub -> each thread,
 * weight 0), an end vertex.  Within a phase, @ncross zero-weight
 * dependencies from an event of one thread to a later-indexed event of
 * another; across phases, @nskip zero-weight edges from an event to an
 * event of a later phase (a lock released before a barrier and taken after
 * it: the barrier stays a cut) and @nlong such edges of weight 1..@maxw+1
 * (the barriers they pass over are no cuts).  Finished.
 */
static inline int tg_barriers(struct cp_pag *g, uint32_t nt, uint32_t nph,
			      uint32_t len, uint64_t maxw, uint32_t nlab,
			      uint32_t ncross, uint32_t nskip, uint32_t nlong)
{
	uint32_t *first = malloc(sizeof(*first) * nt * nph);
	uint32_t *cnt = malloc(sizeof(*cnt) * nt * nph);
	uint32_t s, end, prev = CP_PAG_NONE;
	char err[256];

	cp_pag_init(g);
	tg_labels(g, nlab);
	s = cp_pag_add_vertex(g);
	for (uint32_t p = 0; p < nph; p++) {
		uint32_t hub = CP_PAG_NONE;

		for (uint32_t t = 0; t < nt; t++) {
			uint32_t n = 1 + tg_below(len), *x = &first[p * nt + t];

			*x = cp_pag_add_vertex(g);
			cnt[p * nt + t] = n;
			cp_pag_add_edge(g, p ? prev : s, *x, 0, CP_PAG_NONE);
			for (uint32_t i = 1; i < n; i++) {
				uint64_t w = tg_rand() % (maxw + 1);
				uint32_t lab = tg_label(nlab);

				if (t == 0) {
					w += maxw;
					lab = tg_below(2) ? 0 : lab;
				}
				cp_pag_add_vertex(g);
				cp_pag_add_edge(g, *x + i - 1, *x + i, w, lab);
			}
		}
		for (uint32_t k = 0; k < ncross && nt > 1; k++) {
			uint32_t a = tg_below(nt), b = tg_below(nt - 1), i, j;

			b += b >= a;
			i = tg_below(cnt[p * nt + a]);
			if (i + 1 >= cnt[p * nt + b])
				continue;
			j = i + 1 + tg_below(cnt[p * nt + b] - 1 - i);
			cp_pag_add_edge(g, first[p * nt + a] + i,
					first[p * nt + b] + j, 0, CP_PAG_NONE);
		}
		if (p + 1 < nph) {
			hub = cp_pag_add_vertex(g);
			for (uint32_t t = 0; t < nt; t++)
				cp_pag_add_edge(g, first[p * nt + t] +
						cnt[p * nt + t] - 1, hub, 0,
						CP_PAG_NONE);
		}
		prev = hub;
	}
	end = cp_pag_add_vertex(g);
	for (uint32_t t = 0; t < nt; t++)
		cp_pag_add_edge(g, first[(nph - 1) * nt + t] +
				cnt[(nph - 1) * nt + t] - 1, end, 0,
				CP_PAG_NONE);
	for (uint32_t k = 0; k < nskip + nlong && nph > 1; k++) {
		uint32_t p = tg_below(nph - 1), q, a, b;

		q = p + 1 + tg_below(nph - 1 - p);
		a = p * nt + tg_below(nt);
		b = q * nt + tg_below(nt);

		cp_pag_add_edge(g, first[a] + tg_below(cnt[a]),
				first[b] + tg_below(cnt[b]),
				k < nskip ? 0 : 1 + tg_rand() % (maxw + 1),
				k < nskip ? CP_PAG_NONE : tg_label(nlab));
	}
	free(first);
	free(cnt);
	return cp_pag_finish(g, err, sizeof(err));
}

/*
 * Random inclusive-style groups for the edges of @g, in both forms of
 * struct cp_groups that list several groups: a class of @ncls per edge
 * with each of @n groups in a class with probability 1/3 (@bycls), and
 * the same lists spelled out per edge (@byedge).  The last edges, up to a
 * quarter, are past @bycls's ncls_e: their class is 0, and the class
 * array holds another there, which no algorithm may read.  Free with
 * tg_groups_free().
 */
static inline void tg_classes(const struct cp_pag *g, uint32_t n,
			      uint32_t ncls, struct cp_groups *bycls,
			      struct cp_groups *byedge)
{
	uint32_t *cls = malloc(sizeof(*cls) * (g->ne + 1));
	uint32_t *coff = malloc(sizeof(*coff) * (ncls + 1));
	uint32_t *cids = malloc(sizeof(*cids) * (ncls * n + 1));
	uint32_t *eoff = malloc(sizeof(*eoff) * (g->ne + 1));
	uint32_t *eids = malloc(sizeof(*eids) * (g->ne * n + 1));
	uint32_t k = 0, ncls_e = g->ne - tg_below(g->ne / 4 + 1);

	for (uint32_t c = 0; c < ncls; c++) {
		coff[c] = k;
		for (uint32_t i = 0; i < n; i++)
			if (tg_below(3) == 0)
				cids[k++] = i;
	}
	coff[ncls] = k;
	k = 0;
	for (uint32_t e = 0; e < g->ne; e++) {
		uint32_t c = e < ncls_e ? tg_below(ncls) : 0;

		cls[e] = e < ncls_e || ncls < 2 ? c : 1 + tg_below(ncls - 1);
		eoff[e] = k;
		for (uint32_t j = coff[c]; j < coff[c + 1]; j++)
			eids[k++] = cids[j];
	}
	eoff[g->ne] = k;
	*bycls = (struct cp_groups){ .n = n, .cls = cls, .ncls = ncls,
				     .ncls_e = ncls_e, .off = coff,
				     .ids = cids };
	*byedge = (struct cp_groups){ .n = n, .off = eoff, .ids = eids };
}

static inline void tg_groups_free(struct cp_groups *bycls,
				  struct cp_groups *byedge)
{
	free((void *)bycls->cls);
	free((void *)bycls->off);
	free((void *)bycls->ids);
	free((void *)byedge->off);
	free((void *)byedge->ids);
}

#endif /* CP_TESTGRAPH_H */
