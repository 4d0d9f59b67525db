/*
 * mutex.c - a mutex hand-over whose critical path is fixed by the lock.
 *
 * main locks M before T exists, so T's acquire is the second acquire of M
 * and depends on main's release (the n-th acquire after the (n-1)-th
 * release).  Times in ms; regions in quotes.
 *
 *   main: lock M; create T; "a" 30; unlock M; "c" 20; join T
 *   T:    "b" 10; lock M (waits ~20); "d" 40; unlock M
 *
 * Paths from start to end:
 *   a -> (M) -> d = 70     a -> c = 50     b -> d = 50
 * Critical path 70.  CP share: a 30, d 40, b 0, c 0.
 * Zeroing (longest path with the procedure's time zero):
 *   a: max(d, c, b+d) = 50 -> 20     d: max(a, a+c, b) = 50 -> 20
 *   b: 70 -> 0                       c: 70 -> 0
 * Useful time: main 50, T 50.  T waits 20 (wall clock).
 * Objects: M, 2 acquires.
 *
 * With argument "timed" T takes M with pthread_mutex_timedlock (a far
 * deadline) instead of pthread_mutex_lock: same graph.
 */
#include "wl.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int use_timed;

static void *thread_t(void *arg)
{
	(void)arg;
	wl_region("b", 10);
	if (use_timed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 60;
		WL_OK(pthread_mutex_timedlock(&m, &ts));
	} else {
		WL_OK(pthread_mutex_lock(&m));
	}
	wl_region("d", 40);
	WL_OK(pthread_mutex_unlock(&m));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	wl_init();
	use_timed = argc > 1 && strcmp(argv[1], "timed") == 0;
	WL_OK(pthread_mutex_lock(&m));
	WL_OK(pthread_create(&t, NULL, thread_t, NULL));
	wl_region("a", 30);
	WL_OK(pthread_mutex_unlock(&m));
	wl_region("c", 20);
	WL_OK(pthread_join(t, NULL));
	printf("mutex done\n");
	return 0;
}
