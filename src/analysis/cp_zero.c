/*
 * cp_zero.c - logical zeroing (Hollingsworth, seed 002 §2.2 and Fig. 4;
 * seed 003 Fig. 5 compares it with CP time and Slack).
 *
 * Zeroing group i asks for the longest root-to-leaf path when every edge
 * of i weighs zero and the graph is otherwise unchanged (so a reordering of
 * lock acquisitions is not modelled: that is the simulated what-if's job).
 * Let C be the critical path cp_cpm_run chose and d_i(C) the time of i on
 * it.  Zeroing only lowers weights, so the new length is at most L; and C
 * itself keeps L - d_i(C).  Hence a group with d_i(C) = 0 keeps length L
 * and needs no pass.  Every other group needs one forward pass over the
 * whole graph with its edges read as zero: O(v+e) time, v words of
 * scratch, no copy of the weights.  The single-group form gets its own
 * loop (one compare per edge); the several-groups-per-edge form scans the
 * edge's short id list.
 *
 * Bounds that hold and are asserted in the tests:
 *	max(L - d_i(C), longest path avoiding i) <= zeroed <= L.
 */
#include "cp_zero.h"

#include <stdlib.h>
#include <string.h>

static uint64_t zero_pass_single(const struct cp_cpm *c, const uint32_t *of,
				 uint32_t gid, uint64_t *et)
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
			uint64_t f = of[e] == gid ? t : t + w[e];

			if (f > et[head[e]])
				et[head[e]] = f;
		}
	}
	return len;
}

static uint64_t zero_pass_multi(const struct cp_cpm *c,
				const struct cp_groups *gr, uint32_t gid,
				uint64_t *et)
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
			uint64_t f = cp_groups_has(gr, e, gid) ? t : t + w[e];

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
		return zero_pass_single(c, gr->of, gid, scratch);
	return zero_pass_multi(c, gr, gid, scratch);
}

int cp_zero_all(const struct cp_cpm *c, const struct cp_groups *gr,
		const bool *only, uint64_t *newlen)
{
	uint64_t *cp_time, *et;

	cp_time = malloc(sizeof(*cp_time) * ((size_t)gr->n + 1));
	et = malloc(sizeof(*et) * ((size_t)c->g->nv + 1));
	if (!cp_time || !et) {
		free(cp_time);
		free(et);
		return -1;
	}
	cp_cpm_group_time(c, gr, cp_time);
	for (uint32_t i = 0; i < gr->n; i++) {
		if (cp_time[i] == 0 || (only && !only[i]))
			newlen[i] = c->length;
		else
			newlen[i] = cp_zero_group(c, gr, i, et);
	}
	free(cp_time);
	free(et);
	return 0;
}
