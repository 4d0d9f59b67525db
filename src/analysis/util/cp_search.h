/*
 * cp_search.h - binary search over a sorted array of 32-bit values.
 */
#ifndef CP_SEARCH_H
#define CP_SEARCH_H

#include <stdint.h>

/* How many of the @n values of @a (ascending) are at most @x: the index
 * of the first one above it. */
static inline uint32_t cp_count_upto(const uint32_t *a, uint32_t n,
				     uint32_t x)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (a[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif /* CP_SEARCH_H */
