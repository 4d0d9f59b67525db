/*
 * bench_heap.h - heap accounting for the benchmarks: interposes the malloc
 * family of the process (malloc, calloc, realloc, posix_memalign, free) and
 * keeps the live heap bytes in heap_cur and their high-water mark in
 * heap_peak, exact and resettable per phase (unlike RSS).  Include it once,
 * from the benchmark's one source file; single-threaded use only.
 */
#ifndef BENCH_HEAP_H
#define BENCH_HEAP_H

#include <errno.h>
#include <malloc.h>
#include <stddef.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static long long heap_cur, heap_peak;

/* Count the block @p (NULL: nothing); returns @p. */
static void *heap_add(void *p)
{
	if (p) {
		heap_cur += (long long)malloc_usable_size(p);
		if (heap_cur > heap_peak)
			heap_peak = heap_cur;
	}
	return p;
}

void *malloc(size_t n)
{
	return heap_add(__libc_malloc(n));
}

void *calloc(size_t n, size_t m)
{
	return heap_add(__libc_calloc(n, m));
}

void *realloc(void *p, size_t n)
{
	long long old = p ? (long long)malloc_usable_size(p) : 0;
	void *q = __libc_realloc(p, n);

	if (q || n == 0) {
		heap_cur -= old;
		heap_add(q);
	}
	return q;
}

/* cp_bigmem.c allocates large arrays 2 MiB-aligned */
int posix_memalign(void **pp, size_t align, size_t n)
{
	void *p = heap_add(__libc_memalign(align, n));

	if (!p)
		return ENOMEM;
	*pp = p;
	return 0;
}

void free(void *p)
{
	if (p)
		heap_cur -= (long long)malloc_usable_size(p);
	__libc_free(p);
}

#endif /* BENCH_HEAP_H */
