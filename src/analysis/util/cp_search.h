/*
 * cp_search.h - binary search over a sorted array of 32- or 64-bit
 * values, or of records by a 32-bit id.
 */
#ifndef CP_SEARCH_H
#define CP_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* How many of the @n values of @a (ascending) are below @x: the index of
 * the first one at least it. */
static inline uint32_t cp_count_below64(const uint64_t *a, uint32_t n,
					uint64_t x)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The index of the record whose 32-bit id is @id among the @n records of
 * @size bytes at @base, sorted by that id (at byte @off of each), or @n
 * when none has it: records such as objects listed by id.
 */
static inline size_t cp_find_id(const void *base, size_t n, size_t size,
				size_t off, uint32_t id)
{
	const char *b = base;
	size_t lo = 0, hi = n;
	uint32_t x;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&x, b + mid * size + off, sizeof(x));
		if (x < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n) {
		memcpy(&x, b + lo * size + off, sizeof(x));
		if (x == id)
			return lo;
	}
	return n;
}

#endif /* CP_SEARCH_H */
