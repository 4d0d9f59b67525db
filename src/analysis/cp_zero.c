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
 * cp_zero_all() runs CP_ZERO_LANES groups per pass: one earliest time per
 * group and vertex, side by side.  A pass is bound by the indirect reads
 * of the graph (topological order, CSR, heads, weights), which the lanes
 * share; the lanes themselves are a short loop.  Four lanes take 32 bytes
 * per vertex, what the k-path search that follows in a report takes
 * anyway, and cut the time per group by about 2.3x on trace PAGs (8 lanes:
 * 3x, for twice the memory).
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

#define CP_ZERO_LANES 4

/*
 * One forward pass for up to CP_ZERO_LANES groups at once: et[v * LANES +
 * l] is the earliest time of v with the edges of the group in lane l read
 * as zero (@lane_of: lane of each group, >= @nl for none); @len[l] the
 * longest path.
 */
static void zero_pass_lanes(const struct cp_cpm *c, const struct cp_groups *gr,
			    const uint32_t *lane_of, uint32_t nl,
			    uint64_t *et, uint64_t *len)
{
	const struct cp_pag *g = c->g;
	const uint32_t *out_off = g->out_off, *out_e = g->out_e;
	const uint32_t *head = g->head;
	const uint64_t *w = c->w;

	memset(et, 0, sizeof(*et) * CP_ZERO_LANES * g->nv);
	memset(len, 0, sizeof(*len) * CP_ZERO_LANES);
	for (uint32_t i = 0; i < g->nv; i++) {
		uint32_t v = g->topo[i];
		const uint64_t *tv = et + (size_t)v * CP_ZERO_LANES;

		for (uint32_t l = 0; l < CP_ZERO_LANES; l++)
			if (tv[l] > len[l])
				len[l] = tv[l];
		for (uint32_t j = out_off[v]; j < out_off[v + 1]; j++) {
			uint32_t e = out_e[j];
			uint64_t *th = et + (size_t)head[e] * CP_ZERO_LANES;
			uint64_t we = w[e], add[CP_ZERO_LANES];
			const uint32_t *ids;
			uint32_t n = we ? cp_groups_of(gr, e, &ids) : 0;

			for (uint32_t l = 0; l < CP_ZERO_LANES; l++)
				add[l] = we;
			for (uint32_t k = 0; k < n; k++)
				if (lane_of[ids[k]] < nl)
					add[lane_of[ids[k]]] = 0;
			for (uint32_t l = 0; l < CP_ZERO_LANES; l++) {
				uint64_t f = tv[l] + add[l];

				th[l] = f > th[l] ? f : th[l];
			}
		}
	}
}

int cp_zero_all(const struct cp_cpm *c, const struct cp_groups *gr,
		const bool *only, uint64_t *newlen)
{
	uint64_t *cp_time, *et, len[CP_ZERO_LANES];
	uint32_t *lane_of, gid[CP_ZERO_LANES], nl = 0;

	cp_time = malloc(sizeof(*cp_time) * ((size_t)gr->n + 1));
	lane_of = malloc(sizeof(*lane_of) * ((size_t)gr->n + 1));
	et = malloc(sizeof(*et) * CP_ZERO_LANES * ((size_t)c->g->nv + 1));
	if (!cp_time || !lane_of || !et) {
		free(cp_time);
		free(lane_of);
		free(et);
		return -1;
	}
	cp_cpm_group_time(c, gr, cp_time);
	memset(lane_of, 0xff, sizeof(*lane_of) * gr->n);
	for (uint32_t i = 0; i <= gr->n; i++) {
		if (i < gr->n) {
			newlen[i] = c->length;
			if (cp_time[i] == 0 || (only && !only[i]))
				continue;
			lane_of[i] = nl;
			gid[nl++] = i;
		}
		if (nl == CP_ZERO_LANES || (i == gr->n && nl)) {
			zero_pass_lanes(c, gr, lane_of, nl, et, len);
			for (uint32_t l = 0; l < nl; l++) {
				newlen[gid[l]] = len[l];
				lane_of[gid[l]] = CP_PAG_NONE;
			}
			nl = 0;
		}
	}
	free(cp_time);
	free(lane_of);
	free(et);
	return 0;
}
