/*
 * smp_cp.c - procedures found by sampling an uninstrumented -O2 build.
 *
 * Built -O2 -g without -finstrument-functions and without frame pointers
 * (tests/workloads/CMakeLists.txt).  Times are ms of the thread's CPU
 * time (run it under CPTHREAD_CLOCK=cpu).  Thread A runs h(), which calls
 * f() to burn 120, then arrives at a barrier; thread B burns 40 in g(),
 * meets A at the barrier, then runs f 40 and g 20 (60, with no event in
 * between: one interval that sampling must split 2:1).  Main creates both
 * and joins them.
 *
 * One f and one g after the barrier, not many short turns of each: a
 * sampled share is off by at most a period where each run of a function
 * begins and ends, and turns whose length is a multiple of the period
 * put every error on the same side (ten turns of f 4 + g 2 sampled every
 * 1.2 ms, as under ASan, gave g 24 of its 20 ms).
 *
 * Critical path 120 + 60 = 180 (plus main's few instructions).
 * CP share: f 120 + 40 = 160, h 120 (inclusive: f runs inside h), g 20.
 * Zeroing (the path recomputed with the procedure's time at zero):
 *   f: max(0, 40) + 20 = 60 -> 120
 *   h: max(0, 40) + 60 = 100 -> 80
 *   g: max(120, 0) + 40 = 160 -> 20
 * CPU: f 160, h 120, g 60.
 */
#include "wl.h"

#define NOINL __attribute__((noinline, noclone))

/* Not static: the tests find them by name in the symbol table. */
void f(unsigned ms);
void g(unsigned ms);
void h(unsigned ms);

static pthread_barrier_t bar;
static volatile unsigned sink;

static int by_value(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * Spin for @ms of the thread's CPU time in three kinds of code, so that
 * samples land in the program, in libc (qsort, which calls back into the
 * program) and in the vDSO (clock_gettime of CLOCK_MONOTONIC), all three
 * to be unwound back to the caller.
 */
static NOINL void spin(unsigned ms)
{
	uint64_t end = wl_now(CLOCK_THREAD_CPUTIME_ID) +
		       (uint64_t)ms * 1000000u;
	struct timespec ts;
	int v[512];

	do {
		for (unsigned i = 0; i < 20000; i++)
			sink += i;
		for (unsigned i = 0; i < 512; i++)
			v[i] = (int)((i * 7919u) % 512u);
		qsort(v, 512, sizeof(v[0]), by_value);
		for (unsigned i = 0; i < 300; i++)
			clock_gettime(CLOCK_MONOTONIC, &ts);
		sink += (unsigned)v[1] + (unsigned)ts.tv_nsec;
	} while (wl_now(CLOCK_THREAD_CPUTIME_ID) < end);
}

NOINL void f(unsigned ms)
{
	spin(ms);
	sink++;
}

NOINL void h(unsigned ms)
{
	f(ms);
	sink++;		/* no tail call: h stays on the stack */
}

NOINL void g(unsigned ms)
{
	spin(ms);
	sink++;
}

static void *thread_a(void *arg)
{
	(void)arg;
	h(120);
	pthread_barrier_wait(&bar);
	return NULL;
}

static void *thread_b(void *arg)
{
	(void)arg;
	g(40);
	pthread_barrier_wait(&bar);
	f(40);
	g(20);
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	wl_init();
	WL_OK(pthread_barrier_init(&bar, NULL, 2));
	WL_OK(pthread_create(&a, NULL, thread_a, NULL));
	WL_OK(pthread_create(&b, NULL, thread_b, NULL));
	WL_OK(pthread_join(a, NULL));
	WL_OK(pthread_join(b, NULL));
	pthread_barrier_destroy(&bar);
	return 0;
}
