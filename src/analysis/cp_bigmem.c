/*
 * cp_bigmem.c - large arrays on transparent huge pages (see cp_bigmem.h).
 *
 * A block of 2 MiB or more is allocated 2 MiB-aligned and rounded up to
 * whole huge pages, then advised as a whole: glibc would place a plain
 * malloc'd block anywhere, and the 4 KiB-paged head and tail of an
 * unaligned 4 MB array (up to two huge pages' worth) fault as often as a
 * fully 4 KiB-paged one of that size.  Growing copies into a fresh
 * aligned block (a realloc'd one would lose the alignment).  calloc is
 * malloc + advice + memset, so that the zeroing is the first touch.
 * Everything is released with plain free().
 */
#define _DEFAULT_SOURCE
#include "cp_bigmem.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CP_BIGMEM_HUGE ((size_t)2 << 20)

void *cp_big_malloc(size_t n)
{
	size_t round = (n + CP_BIGMEM_HUGE - 1) & ~(CP_BIGMEM_HUGE - 1);
	void *p;

	if (n < CP_BIGMEM_HUGE || round < n)
		return malloc(n);
	if (posix_memalign(&p, CP_BIGMEM_HUGE, round))
		return NULL;
	(void)madvise(p, round, MADV_HUGEPAGE);
	return p;
}

void *cp_big_calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	if (n * size < CP_BIGMEM_HUGE)
		return calloc(n, size);
	p = cp_big_malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void *cp_big_realloc(void *p, size_t n)
{
	size_t old = p ? malloc_usable_size(p) : 0;
	void *q;

	if (n < CP_BIGMEM_HUGE)
		return realloc(p, n);
	q = cp_big_malloc(n);
	if (!q)
		return NULL;
	if (p)
		memcpy(q, p, old < n ? old : n);
	free(p);
	return q;
}
