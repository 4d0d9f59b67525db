/*
 * cp_alloc.h - the tracer's memory: a private jemalloc arena.
 *
 * libcpthread carries its own copy of jemalloc with every symbol local,
 * so nothing here touches the traced program's heap (glibc malloc).  No
 * code of the runtime calls plain malloc/free: use these.  Never free
 * memory that libc allocated (strdup, realpath(NULL)...) with cp_free.
 * The ThreadSanitizer build (-DCPTHREAD_TSAN=ON defines CP_ALLOC_LIBC)
 * sends the same calls to the process's allocator instead.
 *
 * Every call below may be made from any thread once cp_alloc_init() has
 * run, with the calling thread's guard raised (jemalloc's own locks must
 * not reach the wrappers); none from a signal handler.  Memory belongs to
 * whoever allocated it until cp_free(); sizes are in bytes.
 */
#ifndef CP_ALLOC_H
#define CP_ALLOC_H

#include <stddef.h>

#include "cp_cacheline.h"

/* Create the arena; 0 or -errno.  Called once at start-up (and in a
 * forked child, where the arena is inherited and kept). */
int cp_alloc_init(void);
/* Zeroed memory from the private arena, NULL when out of memory. */
void *cp_zalloc(size_t size);
/* Zeroed memory aligned to @align (a power of two). */
void *cp_zalloc_aligned(size_t size, size_t align);
/* Zeroed memory on cache lines of its own (aligned, size rounded up): for
 * data one thread writes while others write theirs (no false sharing). */
void *cp_zalloc_lines(size_t size);
/* Zeroed, page-aligned memory whose pages are faulted in at once (one
 * madvise instead of a page fault per page).  For slabs that will be
 * filled soon. */
void *cp_zalloc_populated(size_t size);
/* Resize like realloc (contents kept, new tail not zeroed); NULL when out
 * of memory, @p then still valid. */
void *cp_realloc(void *p, size_t size);
/* Give back memory of the arena (NULL is fine). */
void cp_free(void *p);
/* A copy of @s in the arena, NULL when out of memory. */
char *cp_strdup(const char *s);

#endif /* CP_ALLOC_H */
