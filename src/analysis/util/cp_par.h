/*
 * cp_par.h - two pieces of analysis work on both cores.
 *
 * The development and CI machines have two cores; the analyzer's passes
 * that split into two independent halves (the forward and backward passes
 * of the critical path method, the out- and in-adjacency of a graph) run
 * one half on a helper thread and the other on the caller.  Work below a
 * threshold runs on the caller only: a thread costs tens of microseconds,
 * and the small graphs of the tests stay single-threaded unless a test
 * lowers the threshold.  The results never depend on the schedule: the
 * two halves write disjoint memory.
 */
#ifndef CP_PAR_H
#define CP_PAR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Run @fn(@arg) and @fn2(@arg2), which must not touch the same memory,
 * and return when both are done: on two threads when @work (a size in
 * whatever unit the caller's passes count, vertices plus edges for a
 * graph) is at least the threshold and a thread can be created, else one
 * after the other on the caller.  Any thread.
 */
void cp_par_two(size_t work, void (*fn)(void *), void *arg,
		void (*fn2)(void *), void *arg2);

/*
 * Whether cp_par_two(@work, ...) runs its jobs on two threads (unless no
 * thread can be created): for work worth doing only beside another.
 */
bool cp_par_splits(size_t work);

/*
 * Set the threshold of cp_par_two (default CP_PAR_MIN_WORK); 0 makes every
 * call use two threads, SIZE_MAX none.  Returns the previous value.  For
 * tests and benchmarks; call before the analysis starts.
 */
size_t cp_par_set_threshold(size_t work);

#define CP_PAR_MIN_WORK	(1u << 18)

/*
 * The two jobs must not share a cache line either, for speed: a line one
 * core writes is taken from the other at every write, and two jobs'
 * states side by side (an array of two on the caller's stack, two small
 * mallocs in a row) each written at every step ran up to twice as slow.
 * A job's state that its job writes as it runs is aligned to, and its
 * small arrays rounded up to, this many bytes: two lines, the unit the
 * adjacent-line prefetcher fetches.
 */
#define CP_PAR_APART	128

#endif /* CP_PAR_H */
