#include "cp_alloc.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <stdlib.h>
#if !CP_ALLOC_LIBC
#include <jemalloc/jemalloc.h>
#endif

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

#if CP_ALLOC_LIBC
/*
 * The ThreadSanitizer build (CPTHREAD_TSAN) serves the tracer from the
 * process's allocator, which TSan replaces with its own: TSan then knows
 * every allocation of the tracer, and jemalloc's fork handlers (which
 * re-initialise mutexes TSan saw locked) stay out of the picture.
 */
int cp_alloc_init(void)
{
	return 0;
}

void *cp_zalloc(size_t size)
{
	return calloc(1, size ? size : 1);
}

void *cp_zalloc_aligned(size_t size, size_t align)
{
	size_t n = ((size ? size : 1) + align - 1) & ~(align - 1);
	void *p = aligned_alloc(align, n);

	if (p)
		memset(p, 0, n);
	return p;
}

void *cp_realloc(void *p, size_t size)
{
	return realloc(p, size ? size : 1);
}

void cp_free(void *p)
{
	free(p);
}

char *cp_strdup(const char *s)
{
	return strdup(s);
}
#else /* !CP_ALLOC_LIBC: a private jemalloc arena */
static unsigned cp_arena;
static int cp_arena_flags;	/* MALLOCX_ARENA(cp_arena) | no tcache */

int cp_alloc_init(void)
{
	unsigned arena;
	size_t sz = sizeof(arena);

	if (cp_arena_flags)
		return 0;
	if (mallctl("arenas.create", &arena, &sz, NULL, 0) != 0)
		return -ENOMEM;
	cp_arena = arena;
	cp_arena_flags = MALLOCX_ARENA(arena) | MALLOCX_TCACHE_NONE;
	return 0;
}

void *cp_zalloc(size_t size)
{
	return mallocx(size ? size : 1, cp_arena_flags | MALLOCX_ZERO);
}

void *cp_zalloc_aligned(size_t size, size_t align)
{
	return mallocx(size ? size : 1,
		       cp_arena_flags | MALLOCX_ZERO | MALLOCX_ALIGN(align));
}

void *cp_realloc(void *p, size_t size)
{
	if (!p)
		return cp_zalloc(size);
	return rallocx(p, size ? size : 1, cp_arena_flags);
}

void cp_free(void *p)
{
	if (p)
		dallocx(p, cp_arena_flags);
}

char *cp_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = mallocx(n, cp_arena_flags);

	if (d)
		memcpy(d, s, n);
	return d;
}
#endif /* CP_ALLOC_LIBC */

void *cp_zalloc_lines(size_t size)
{
	size_t lines = (size + CP_CACHE_LINE - 1) / CP_CACHE_LINE;

	return cp_zalloc_aligned((lines ? lines : 1) * CP_CACHE_LINE,
				 CP_CACHE_LINE);
}

void *cp_zalloc_populated(size_t size)
{
	void *p = cp_zalloc_aligned(size, 4096);
	int saved = errno;

	/* an older kernel says EINVAL: the pages then fault one by one */
	if (p)
		madvise(p, size, MADV_POPULATE_WRITE);
	errno = saved;
	return p;
}
