/*
 * cp_pairs.c - sums by pair of ids (cp_pairs.h).
 */
#include "cp_pairs.h"

#include <stdlib.h>
#include <string.h>

#include "cp_grow.h"

uint64_t *cp_pairs_at(struct cp_pairs *x, uint32_t a, uint32_t b)
{
	uint32_t k = cp_map2_get(&x->map, a, b);

	if (k == CP_HASH_NONE) {
		uint32_t c[3] = { x->cap, x->cap, x->cap };
		uint64_t need = (uint64_t)x->n + 1;

		if (cp_grow32((void **)&x->v, sizeof(*x->v), &c[0], need) ||
		    cp_grow32((void **)&x->a, sizeof(*x->a), &c[1], need) ||
		    cp_grow32((void **)&x->b, sizeof(*x->b), &c[2], need))
			return NULL;
		x->cap = c[0];	/* the three grow alike */
		if (cp_map2_put(&x->map, a, b, x->n))
			return NULL;
		k = x->n++;
		memset(x->v[k], 0, sizeof(x->v[k]));
		x->a[k] = a;
		x->b[k] = b;
	}
	return x->v[k];
}

int cp_pairs_rename_b(struct cp_pairs *x, const uint32_t *ren, uint32_t nren)
{
	struct cp_map2 m;

	cp_map2_init(&m);
	for (uint32_t k = 0; k < x->n; k++) {
		uint32_t b = x->b[k] < nren ? ren[x->b[k]] : x->b[k];

		if (cp_map2_put(&m, x->a[k], b, k)) {
			cp_map2_free(&m);
			return -1;
		}
	}
	for (uint32_t k = 0; k < x->n; k++)
		if (x->b[k] < nren)
			x->b[k] = ren[x->b[k]];
	cp_map2_free(&x->map);
	x->map = m;
	return 0;
}

void cp_pairs_free(struct cp_pairs *x)
{
	cp_map2_free(&x->map);
	free(x->v);
	free(x->a);
	free(x->b);
	memset(x, 0, sizeof(*x));
}
