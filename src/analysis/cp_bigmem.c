/*
 * cp_bigmem.c - large arrays on transparent huge pages (see cp_bigmem.h).
 *
 * glibc serves a block of 2 MiB or more from its own mmap (or from the
 * top of the heap); either way the pages are anonymous memory that
 * madvise() may mark.  Only whole 2 MiB-aligned ranges inside the block
 * are advised: the advice applies to the mapping, and a range shared with
 * a neighbouring block would change that block's pages too (harmlessly,
 * but not on purpose).  calloc is done as malloc + advice + memset, so
 * that the zeroing is the first touch; glibc's calloc would skip it for a
 * fresh mapping, but may also zero heap memory before the advice.
 */
#define _DEFAULT_SOURCE
#include "cp_bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CP_BIGMEM_HUGE ((size_t)2 << 20)

static void advise(void *p, size_t n)
{
	uintptr_t lo = ((uintptr_t)p + CP_BIGMEM_HUGE - 1) &
		       ~(uintptr_t)(CP_BIGMEM_HUGE - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(CP_BIGMEM_HUGE - 1);

	if (p && n >= CP_BIGMEM_HUGE && hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

void *cp_big_malloc(size_t n)
{
	void *p = malloc(n);

	advise(p, n);
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
	void *q = realloc(p, n);

	advise(q, n);
	return q;
}
