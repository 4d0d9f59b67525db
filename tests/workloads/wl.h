/*
 * wl.h - what the known-by-construction workloads share.
 *
 * Every workload burns measured amounts of time in a dependency pattern
 * fixed by its synchronization, so its critical path can be computed by
 * hand (the derivation heads each program).  The time unit is the
 * millisecond.
 *
 * Burning.  wl_burn() spins until a clock has advanced by the requested
 * amount.  The clock follows the tracer's: under CPTHREAD_CLOCK=cpu it is
 * the thread's CPU time, so the useful time the tracer measures is exact
 * however many threads share the two cores; otherwise it is
 * CLOCK_MONOTONIC, so a burn lasts the requested wall time even when the
 * thread is preempted (the tracer's wall clock then sees exactly that,
 * instead of a CPU burn stretched by whatever else runs on the machine).
 * WL_BURN=cpu|wall overrides the choice.
 *
 * Annotations.  A workload is built twice: linked with libcpthread, and
 * plain (-DWL_PLAIN) for LD_PRELOAD.  The plain build references the
 * cpthread_* annotations weakly, so they reach the preloaded library when
 * there is one and are skipped when the program runs bare.
 */
#ifndef WL_H
#define WL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpthread.h"

#define WL_NOINSTR __attribute__((no_instrument_function, unused))

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WL_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define WL_ASAN 1
#endif
#ifdef WL_ASAN
#include <sanitizer/asan_interface.h>
#endif

/*
 * A cleanup handler for a thread that is cancelled (pthread_cleanup_push
 * it around the cancellable part).  Under ASan: glibc unwinds a cancelled
 * thread back to its start with its internal longjmp, which ASan does not
 * intercept, so the redzones of the unwound frames stay poisoned, and
 * ASan's own thread teardown (a TSD destructor glibc then runs on that
 * stack) writes over them and reports a stack-buffer-overflow, bare as
 * well as traced.  Telling ASan here that those frames are gone, as its
 * longjmp interceptor would, keeps the sanitized run as true as the
 * plain one.  Nothing to do otherwise.
 */
static WL_NOINSTR void wl_unwound(void *arg)
{
	(void)arg;
#ifdef WL_ASAN
	__asan_handle_no_return();
#endif
}

#ifdef WL_PLAIN
#pragma weak cpthread_enqueue
#pragma weak cpthread_dequeue
#pragma weak cpthread_untrack
#pragma weak cpthread_region_begin
#pragma weak cpthread_region_end
/* Call an annotation if a tracer provides it. */
#define WL_ANNOTATE(fn, ...)				\
	do {						\
		if (fn)					\
			fn(__VA_ARGS__);		\
	} while (0)
#else
#define WL_ANNOTATE(fn, ...) fn(__VA_ARGS__)
#endif

/* Abort with the failing call's text when a pthread call returns non-0. */
#define WL_OK(call)							\
	do {								\
		int wl_rc_ = (call);					\
		if (wl_rc_ != 0) {					\
			fprintf(stderr, "%s:%d: %s = %d (%s)\n",	\
				__FILE__, __LINE__, #call, wl_rc_,	\
				strerror(wl_rc_ > 0 ? wl_rc_ : errno));	\
			abort();					\
		}							\
	} while (0)

static clockid_t wl_clock_id = CLOCK_MONOTONIC;

/* Pick the burn clock; call first thing in main. */
static WL_NOINSTR void wl_init(void)
{
	const char *b = getenv("WL_BURN");
	const char *c = getenv("CPTHREAD_CLOCK");

	if (b && strcmp(b, "cpu") == 0)
		wl_clock_id = CLOCK_THREAD_CPUTIME_ID;
	else if (b && strcmp(b, "wall") == 0)
		wl_clock_id = CLOCK_MONOTONIC;
	else if (c && strcmp(c, "cpu") == 0)
		wl_clock_id = CLOCK_THREAD_CPUTIME_ID;
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static WL_NOINSTR uint64_t wl_now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin until the burn clock has advanced by @ms milliseconds. */
static WL_NOINSTR void wl_burn(unsigned ms)
{
	uint64_t end = wl_now(wl_clock_id) + (uint64_t)ms * 1000000u;
	volatile unsigned sink = 0;

	do {
		for (unsigned i = 0; i < 200; i++)
			sink = sink + i;
	} while (wl_now(wl_clock_id) < end);
}

/* Burn @ms inside the region @name (a procedure for CPTHREAD_FUNCS). */
static WL_NOINSTR void wl_region(const char *name, unsigned ms)
{
	WL_ANNOTATE(cpthread_region_begin, name);
	wl_burn(ms);
	WL_ANNOTATE(cpthread_region_end, name);
}

/*
 * A silent semaphore: untracked, so waiting on it orders events without
 * creating a dependency edge (the waiter's path does not take over the
 * poster's).  The workloads use it to fix an order of events while
 * keeping a path shorter than the wall time elapsed.
 */
static WL_NOINSTR void wl_silent_init(sem_t *s)
{
	WL_OK(sem_init(s, 0, 0));
	WL_ANNOTATE(cpthread_untrack, s);
}

static WL_NOINSTR void wl_sem_wait(sem_t *s)
{
	while (sem_wait(s) != 0) {
		if (errno != EINTR) {
			perror("sem_wait");
			abort();
		}
	}
}

/* wl_two_threads' mutex, its count and the acquisitions per thread. */
static pthread_mutex_t wl_pair_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned long wl_pair_count;

static WL_NOINSTR void *wl_pair_worker(void *arg)
{
	for (int i = 0; i < *(const int *)arg; i++) {
		WL_OK(pthread_mutex_lock(&wl_pair_mutex));
		wl_pair_count++;
		WL_OK(pthread_mutex_unlock(&wl_pair_mutex));
	}
	return arg;
}

/* Two threads that take one mutex @n times each, created and joined:
 * the count they reach (2n).  For the robustness programs, whose point
 * is what they do around it. */
static WL_NOINSTR __attribute__((unused)) unsigned long
wl_two_threads(int n)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		WL_OK(pthread_create(&t[i], NULL, wl_pair_worker, &n));
	for (int i = 0; i < 2; i++)
		WL_OK(pthread_join(t[i], NULL));
	return wl_pair_count;
}

#endif /* WL_H */
