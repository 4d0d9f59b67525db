/*
 * smp_plugin.c - a shared object that smp_preserve dlopen()s in mode
 * "dlopen": samples taken in it must find it in the trace's module map;
 * and sites in mode "lib": a mutex first used in it must be named by this
 * module and an offset inside plugin_lock.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

void plugin_burn(unsigned ms);
void plugin_lock(pthread_mutex_t *m);

static volatile unsigned sink;

static uint64_t cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin for @ms of the thread's CPU time. */
__attribute__((noinline)) void plugin_burn(unsigned ms)
{
	uint64_t end = cpu_now() + (uint64_t)ms * 1000000u;

	do {
		for (unsigned i = 0; i < 20000; i++)
			sink += i;
	} while (cpu_now() < end);
}

/* Lock and unlock @m: its first use, when the caller has not used it. */
__attribute__((noinline)) void plugin_lock(pthread_mutex_t *m)
{
	if (pthread_mutex_lock(m) || pthread_mutex_unlock(m))
		abort();
}
