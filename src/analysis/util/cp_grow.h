/*
 * cp_grow.h - the analyzer's growable arrays: one rule for making room in
 * an array that is appended to (capacity doubling from 64 elements, or
 * from 4 for the many arrays of which most stay short).
 *
 * The array is a plain pointer and a capacity beside it, both the
 * caller's; the memory comes from cp_big_realloc (cp_bigmem.h), so a
 * large array lands on huge pages, and is released with free() or
 * cp_big_free().  Not thread-safe: one caller per array.
 */
#ifndef CP_GROW_H
#define CP_GROW_H

#include <stddef.h>
#include <stdint.h>

/*
 * Make room for @need elements of @elem bytes in *@arr, whose room is
 * *@cap elements: when @need is larger, the room doubles (from 64) until
 * it holds @need, and *@arr and *@cap are updated.  Returns 0, or -1 when
 * out of memory or the size overflows (*@arr and *@cap unchanged, the
 * old array still valid).
 */
int cp_grow(void **arr, size_t elem, uint64_t *cap, uint64_t need);

/* cp_grow() for a 32-bit capacity: -1 also when @need exceeds UINT32_MAX
 * (the room stops at UINT32_MAX elements). */
int cp_grow32(void **arr, size_t elem, uint32_t *cap, uint64_t need);

/* cp_grow32() doubling from 4 elements: for arrays one per thread, say,
 * of which most stay short (a thread per task). */
int cp_grow32_short(void **arr, size_t elem, uint32_t *cap, uint64_t need);

/*
 * cp_grow32() for an array known to stay within @most elements: its first
 * room is all @most of them, reserved without being touched
 * (cp_big_malloc_lazy), so it never moves nor copies and only the pages
 * written cost memory; past @most (or if the reservation fails) it
 * doubles as cp_grow32().  For a large array grown one element at a
 * time, whose doubling copies and fresh pages were a fifth of a pass
 * (the streamed k paths' heaps).  Within the reservation, each 4 MiB
 * step written has the next faulted in on the other core
 * (cp_big_prefault()): call it with @need one past the element about to
 * be written, as each append does.
 */
int cp_grow32_upto(void **arr, size_t elem, uint32_t *cap, uint64_t need,
		   uint64_t most);

#endif /* CP_GROW_H */
