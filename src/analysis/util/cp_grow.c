/*
 * cp_grow.c - see cp_grow.h.
 */
#include "cp_grow.h"

#include <stdint.h>

#include "cp_bigmem.h"

/*
 * The room after @cap: doubled (from 64) until it holds @need, stopping
 * at @limit; 0 when @need is over @limit.
 */
static uint64_t grow_room(uint64_t cap, uint64_t need, uint64_t limit)
{
	uint64_t n = cap ? cap : 32;

	if (need > limit)
		return 0;
	do
		n = n > limit / 2 ? limit : n * 2;
	while (n < need);
	return n;
}

/* Reallocate *@arr to @n elements of @elem bytes; 0 or -1. */
static int grow_to(void **arr, size_t elem, uint64_t n)
{
	void *p;

	if (!n || n > SIZE_MAX / elem)
		return -1;
	p = cp_big_realloc(*arr, n * elem);
	if (!p)
		return -1;
	*arr = p;
	return 0;
}

int cp_grow(void **arr, size_t elem, uint64_t *cap, uint64_t need)
{
	uint64_t n;

	if (need <= *cap)
		return 0;
	n = grow_room(*cap, need, UINT64_MAX);
	if (grow_to(arr, elem, n))
		return -1;
	*cap = n;
	return 0;
}

int cp_grow32(void **arr, size_t elem, uint32_t *cap, uint64_t need)
{
	uint64_t n;

	if (need <= *cap)
		return 0;
	n = grow_room(*cap, need, UINT32_MAX);
	if (grow_to(arr, elem, n))
		return -1;
	*cap = (uint32_t)n;
	return 0;
}
