/*
 * cp_bigmem.h - the analysis' large arrays (per vertex, per edge) on
 * transparent huge pages.
 *
 * The graph layer allocates a few arrays of 4 to 32 bytes per vertex or
 * edge and touches each once from end to end.  With 4 KiB pages the first
 * touch faults once per page; on the development VM (paravirtualised, THP
 * in "madvise" mode) a fault costs about 11 us, so writing 64 MB of fresh
 * memory takes 0.18 s against 0.016 s on 2 MiB pages, and the faults were
 * a third of a `cpt report` of a 10^6-edge trace.  These helpers allocate
 * any block of 2 MiB or more 2 MiB-aligned and ask the kernel for huge
 * pages on it (madvise(MADV_HUGEPAGE)) before it is touched; smaller ones
 * come from plain malloc.  A fresh large block from cp_big_malloc() is
 * faulted in ahead of the caller by a helper thread, so that the kernel
 * clears its pages on the other core (cp_bigmem.c).  Release with
 * cp_big_free(), which keeps a few large blocks for the next allocations
 * of the thread (their pages are already cleared), or with plain free();
 * where huge pages are not available the advice is ignored and nothing
 * changes.  The cache is per thread: any thread may use these.
 */
#ifndef CP_BIGMEM_H
#define CP_BIGMEM_H

#include <stddef.h>

/*
 * malloc(@n), advised onto huge pages when large, for an array the caller
 * will write whole: a fresh large block's pages are faulted in ahead of
 * the caller by a helper thread (cp_bigmem.c).  NULL when out of memory.
 */
void *cp_big_malloc(size_t n);

/* The same for an array the caller may write only in part: its pages are
 * left to fault in as they are written, so the untouched ones cost none. */
void *cp_big_malloc_lazy(size_t n);

/* calloc(@n, @size) likewise: zeroed after the advice. */
void *cp_big_calloc(size_t n, size_t size);

/*
 * realloc(@p, @n) likewise: a large result is a fresh block holding a
 * copy (@p is freed).  @p may come from any of these or from malloc.
 */
void *cp_big_realloc(void *p, size_t n);

/*
 * Have the helper fault in bytes [@from, @to) of @p, a large block from
 * these that the caller writes in order (cp_big_malloc_lazy()), while it
 * writes the bytes before: the kernel then clears those fresh pages on
 * the other core.  Only a hint, which leaves the contents as they are:
 * nothing for a block under 2 MiB, or when the helper is off or has as
 * many blocks queued as it takes.
 */
void cp_big_prefault(void *p, size_t from, size_t to);

/*
 * The bytes usable at @p, from any of these or from malloc: at least what
 * was asked for, and a large block's whole size class (cp_bigmem.c), so
 * an array may grow into it in place.  0 for NULL.
 */
size_t cp_big_size(void *p);

/*
 * free(@p) for memory from any of these or from malloc: a large block is
 * kept for reuse by this thread (at most a few; the oldest is freed).
 */
void cp_big_free(void *p);

/*
 * Free the large blocks this thread keeps for reuse.  A thread that used
 * these and is about to exit calls it (cp_par.c's helper thread), or its
 * kept blocks would outlive it unreachable.
 */
void cp_big_release(void);

#endif /* CP_BIGMEM_H */
