/*
 * cp_grow.c - see cp_grow.h.
 */
#include "cp_grow.h"

#include <stdint.h>
#include <stdlib.h>

#include "cp_bigmem.h"

/*
 * The room after @cap: doubled (from @first) until it holds @need,
 * stopping at @limit; 0 when @need is over @limit.
 */
static uint64_t grow_room(uint64_t cap, uint64_t need, uint64_t limit,
			  uint64_t first)
{
	uint64_t n = cap ? cap : first / 2;

	if (need > limit)
		return 0;
	do
		n = n > limit / 2 ? limit : n * 2;
	while (n < need);
	return n;
}

/* cp_grow() with the room stopping at @limit elements, doubling from
 * @first. */
static int grow(void **arr, size_t elem, uint64_t *cap, uint64_t need,
		uint64_t limit, uint64_t first)
{
	uint64_t n;
	void *p;

	if (need <= *cap)
		return 0;
	n = grow_room(*cap, need, limit, first);
	if (!n || n > SIZE_MAX / elem)
		return -1;
	p = cp_big_realloc(*arr, n * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = n;
	return 0;
}

int cp_grow(void **arr, size_t elem, uint64_t *cap, uint64_t need)
{
	return grow(arr, elem, cap, need, UINT64_MAX, 64);
}

/* cp_grow32() doubling from @first. */
static int grow32(void **arr, size_t elem, uint32_t *cap, uint64_t need,
		  uint64_t first)
{
	uint64_t c = *cap;

	if (grow(arr, elem, &c, need, UINT32_MAX, first))
		return -1;
	*cap = (uint32_t)c;
	return 0;
}

int cp_grow32(void **arr, size_t elem, uint32_t *cap, uint64_t need)
{
	return grow32(arr, elem, cap, need, 64);
}

int cp_grow32_short(void **arr, size_t elem, uint32_t *cap, uint64_t need)
{
	return grow32(arr, elem, cap, need, 4);
}

/* Bytes of a reservation the helper faults in ahead of its writer. */
#define GROW_AHEAD ((uint64_t)4 << 20)

/* Element @need - 1 of the reservation @arr (elements of @elem bytes) is
 * the next written: when it starts a step of GROW_AHEAD bytes, the
 * helper of cp_bigmem.h is asked for the step after. */
static void grow_ahead(void *arr, size_t elem, uint64_t need)
{
	uint64_t at = (need - 1) * elem, step = at / GROW_AHEAD;

	if (need > 1 && (at - elem) / GROW_AHEAD == step)
		return;
	cp_big_prefault(arr, (step + 1) * GROW_AHEAD, (step + 2) * GROW_AHEAD);
}

int cp_grow32_upto(void **arr, size_t elem, uint32_t *cap, uint64_t need,
		   uint64_t most)
{
	void *p;

	if (need <= *cap) {
		if (*cap == most && need)
			grow_ahead(*arr, elem, need);
		return 0;
	}
	if (*cap || need > most || most > UINT32_MAX ||
	    most > SIZE_MAX / elem)
		return cp_grow32(arr, elem, cap, need);
	p = cp_big_malloc_lazy(most * elem);
	if (!p)
		return cp_grow32(arr, elem, cap, need);
	free(*arr);		/* an array of no room may still be one */
	*arr = p;
	*cap = (uint32_t)most;
	grow_ahead(p, elem, need);
	return 0;
}
