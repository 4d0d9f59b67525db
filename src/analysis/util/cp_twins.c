/*
 * cp_twins.c - families of members with the same items (cp_twins.h).
 */
#include "cp_twins.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int cp_twins_reset(struct cp_twins *t, uint32_t n)
{
	if (n > t->cap) {
		uint32_t *rep = malloc(sizeof(*rep) * n);
		struct cp_twins_m *m = malloc(sizeof(*m) * 2 * (size_t)n);

		if (!rep || !m) {
			free(rep);
			free(m);
			return -1;
		}
		cp_twins_free(t);
		t->rep = rep;
		t->m = m;
		t->sorted = m + n;
		t->cap = n;
	}
	t->n = n;
	for (uint32_t j = 0; j < n; j++) {
		t->rep[j] = j;
		t->m[j] = (struct cp_twins_m){ .j = j, .seen = UINT32_MAX };
	}
	return 0;
}

void cp_twins_free(struct cp_twins *t)
{
	free(t->rep);
	free(t->m);
	memset(t, 0, sizeof(*t));
}

/* By count, then hash, then index: a family's run starts with its least
 * member. */
static int by_items(const void *a, const void *b)
{
	const struct cp_twins_m *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return x->j < y->j ? -1 : x->j > y->j;
}

static atomic_uint_fast64_t total;

uint32_t cp_twins_done(const struct cp_twins *t)
{
	uint32_t n = 0;

	for (uint32_t j = 0; j < t->n; j++)
		n += t->rep[j] != j;
	atomic_fetch_add(&total, n);
	return n;
}

uint64_t cp_twins_total(void)
{
	return atomic_load(&total);
}

uint32_t cp_twins_match(struct cp_twins *t)
{
	uint32_t own = 0;

	if (!t->n)
		return 0;
	memcpy(t->sorted, t->m, sizeof(*t->m) * t->n);
	qsort(t->sorted, t->n, sizeof(*t->sorted), by_items);
	for (uint32_t i = 0, r = 0; i < t->n; i++) {
		const struct cp_twins_m *x = &t->sorted[i];

		if (x->n != t->sorted[r].n || x->h != t->sorted[r].h)
			r = i;
		t->rep[x->j] = t->sorted[r].j;
		own += r == i;
	}
	return own;
}
