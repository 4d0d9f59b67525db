/*
 * cp_mbm.c - the Maximum Benefit Metric (Alexander, Reese & Harden, seed
 * 000 §VI).
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
 * Computation, one pass over the paths in order (slack_j nondecreasing):
 *  - each path is spelled out and its per-group times summed into acc[]
 *    (touched groups listed, so clearing costs what the path cost);
 *  - a touched group i takes the term acc[i] + slack_j;
 *  - an untouched group's term is slack_j itself, and since slacks only
 *    grow, only the first path without i matters.  Groups absent from P_1
 *    get 0 at once (slack_1 = 0); the others sit in a list of groups on
 *    every path so far, which only shrinks, and leave it, taking slack_j,
 *    at the first path that misses them.
 * Time O(sum of path lengths + groups): the O(k·e) of the search.  Memory
 * 16 bytes per group and one path buffer.
 */
#include "cp_mbm.h"

#include <stdlib.h>
#include <string.h>

int cp_mbm_compute(const struct cp_kpaths *kp, const struct cp_groups *gr,
		   uint64_t *mbm)
{
	uint32_t ng = gr->n, maxlen = 0, ninall = 0;
	uint32_t *buf = NULL, *stamp = NULL, *touched = NULL, *inall = NULL;
	uint64_t *acc = NULL;

	memset(mbm, 0, sizeof(*mbm) * ng);
	if (kp->n == 0 || ng == 0)
		return 0;
	for (uint32_t j = 0; j < kp->n; j++)
		if (kp->nedges[j] > maxlen)
			maxlen = kp->nedges[j];
	buf = malloc(sizeof(*buf) * ((size_t)maxlen + 1));
	stamp = calloc((size_t)ng + 1, sizeof(*stamp));
	touched = malloc(sizeof(*touched) * ((size_t)ng + 1));
	inall = malloc(sizeof(*inall) * ((size_t)ng + 1));
	acc = calloc((size_t)ng + 1, sizeof(*acc));
	if (!buf || !stamp || !touched || !inall || !acc)
		goto err_mem;

	for (uint32_t j = 0; j < kp->n; j++) {
		uint32_t n = cp_kpaths_edges(kp, j, buf), nt = 0, keep = 0;
		uint64_t slack = kp->cp_length - kp->len[j];

		for (uint32_t x = 0; x < n; x++) {
			const uint32_t *ids;
			uint32_t e = buf[x], m = cp_groups_of(gr, e, &ids);

			for (uint32_t y = 0; y < m; y++) {
				uint32_t i = ids[y];

				if (i >= ng)
					continue;
				if (stamp[i] != j + 1) {
					stamp[i] = j + 1;
					acc[i] = 0;
					touched[nt++] = i;
				}
				acc[i] += kp->w[e];
			}
		}
		if (j == 0) {
			/* absent from the CP: 0; present: start the list */
			for (uint32_t x = 0; x < nt; x++) {
				mbm[touched[x]] = UINT64_MAX;
				inall[ninall++] = touched[x];
			}
		} else {
			for (uint32_t x = 0; x < ninall; x++) {
				uint32_t i = inall[x];

				if (stamp[i] == j + 1) {
					inall[keep++] = i;
				} else if (slack < mbm[i]) {
					mbm[i] = slack;
				}
			}
			ninall = keep;
		}
		for (uint32_t x = 0; x < nt; x++) {
			uint32_t i = touched[x];
			uint64_t term = acc[i] + slack;

			if (term < mbm[i])
				mbm[i] = term;
		}
	}
	free(buf);
	free(stamp);
	free(touched);
	free(inall);
	free(acc);
	return 0;

err_mem:
	free(buf);
	free(stamp);
	free(touched);
	free(inall);
	free(acc);
	return -1;
}
