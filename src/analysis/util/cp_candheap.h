/*
 * cp_candheap.h - the candidate heap of the k-path enumerations
 * (cp_kpaths.c in memory, cp_stream_kp.c streamed): a binary min-heap of
 * candidate paths on cost, each a parent path and a node of the path
 * graph, in an array the caller grows.  Equal costs come out in an order
 * fixed by the pushes, so that a run is repeatable.
 */
#ifndef CP_CANDHEAP_H
#define CP_CANDHEAP_H

#include <stdint.h>

struct cp_cand {
	uint64_t cost;		/* the critical path's length minus the
				 * path's */
	uint32_t par;		/* the parent path, or none */
	uint32_t a, b;		/* the path-graph node (the caller's) */
};

/* Move @h[@i] up to its place. */
static inline void cp_cand_up(struct cp_cand *h, uint32_t i)
{
	struct cp_cand x = h[i];

	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (h[p].cost <= x.cost)
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

/* Move @h[@i] of the @n down to its place. */
static inline void cp_cand_down(struct cp_cand *h, uint32_t n, uint32_t i)
{
	struct cp_cand x = h[i];

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

/* Take the cheapest of the *@n (at least one). */
static inline struct cp_cand cp_cand_pop(struct cp_cand *h, uint32_t *n)
{
	struct cp_cand top = h[0];

	h[0] = h[--*n];
	if (*n)
		cp_cand_down(h, *n, 0);
	return top;
}

#endif /* CP_CANDHEAP_H */
