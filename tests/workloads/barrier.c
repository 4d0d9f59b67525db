/*
 * barrier.c - three threads, two barrier episodes.
 *
 * Every departure of an episode depends on every arrival of it, so each
 * episode lasts as long as its slowest member, and the critical path runs
 * through the slowest member of each episode.
 *
 *   episode 1: main "a" 10, T1 "b" 30, T2 "c" 20    -> max 30 (b)
 *   episode 2: main "a" 20, T1 "b" 10, T2 "c" 35    -> max 35 (c)
 *   after:     main "a" 5, after joining T1 and T2
 *
 * Critical path 30 + 35 + 5 = 70.  CP share: a 5, b 30, c 35.
 * Zeroing (each episode's max recomputed with the procedure at zero):
 *   a: 30 + 35 + 0 = 65 -> 5
 *   b: max(10,20) + max(20,35) + 5 = 60 -> 10
 *   c: max(10,30) + max(20,10) + 5 = 55 -> 15
 * CPU (all threads): a 35, b 40, c 55.  Useful: main 35, T1 40, T2 55.
 * Objects: the barrier, 6 waits, one PTHREAD_BARRIER_SERIAL_THREAD per
 * episode (checked by the program itself).
 */
#include "wl.h"

static pthread_barrier_t bar;
static int serials;

static void episode(const char *name, unsigned ms)
{
	int rc;

	wl_region(name, ms);
	rc = pthread_barrier_wait(&bar);
	if (rc == PTHREAD_BARRIER_SERIAL_THREAD) {
		__atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
	} else if (rc != 0) {
		fprintf(stderr, "pthread_barrier_wait = %d\n", rc);
		abort();
	}
}

static void *thread_1(void *arg)
{
	(void)arg;
	episode("b", 30);
	episode("b", 10);
	return NULL;
}

static void *thread_2(void *arg)
{
	(void)arg;
	episode("c", 20);
	episode("c", 35);
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;

	wl_init();
	WL_OK(pthread_barrier_init(&bar, NULL, 3));
	WL_OK(pthread_create(&t1, NULL, thread_1, NULL));
	WL_OK(pthread_create(&t2, NULL, thread_2, NULL));
	episode("a", 10);
	episode("a", 20);
	WL_OK(pthread_join(t1, NULL));
	WL_OK(pthread_join(t2, NULL));
	wl_region("a", 5);
	printf("barrier done, serial threads %d\n", serials);
	return serials == 2 ? 0 : 1;
}
