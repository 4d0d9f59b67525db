/*
 * cp_prefetch.h - start fetching a cache line the caller will soon use,
 * for the runtime's lock paths and the analysis' walks alike.
 *
 * Written as asm, not __builtin_prefetch: GCC treats a function whose only
 * effect is __builtin_prefetch as pure, and deletes calls of it once it is
 * inlined.  Neither ever faults; any thread.
 */
#ifndef CP_PREFETCH_H
#define CP_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

#include "cp_cacheline.h"

/* Start fetching the cache line at @p for writing. */
static inline void cp_prefetch_write(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("prefetchw %0" : : "m"(*(const char *)p));
#else
	__asm__ __volatile__("" : : "r"(p));
	__builtin_prefetch(p, 1);
#endif
}

/* Start fetching the cache line at @p for reading. */
static inline void cp_prefetch_read(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("prefetcht0 %0" : : "m"(*(const char *)p));
#else
	__asm__ __volatile__("" : : "r"(p));
	__builtin_prefetch(p, 0);
#endif
}

/* Start fetching for reading every cache line of the @n bytes at @p (a
 * struct that spans several); none when @n is 0. */
static inline void cp_prefetch_read_span(const void *p, size_t n)
{
	const char *c = (const char *)((uintptr_t)p &
				       ~(uintptr_t)(CP_CACHE_LINE - 1));

	for (; n && c < (const char *)p + n; c += CP_CACHE_LINE)
		cp_prefetch_read(c);
}

#endif /* CP_PREFETCH_H */
