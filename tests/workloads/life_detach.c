/*
 * life_detach.c - threads still starting when the program exits: main
 * creates N detached threads and N joinable ones it never joins, all of
 * which block for good, and returns at once.  Some have not run yet when
 * exit() begins (how many depends on the scheduler; on two busy cores,
 * most of the last ones).  The tracer must still account for every
 * thread it created: the report counts 2N + 1 threads and the trace reads.
 */
#include "wl.h"

#define N 100

static sem_t never;

static void *blocked(void *arg)
{
	wl_sem_wait(&never);
	return arg;
}

int main(void)
{
	pthread_attr_t attr;
	pthread_t t;

	wl_init();
	WL_OK(sem_init(&never, 0, 0));
	WL_OK(pthread_attr_init(&attr));
	WL_OK(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED));
	for (int i = 0; i < N; i++) {
		WL_OK(pthread_create(&t, &attr, blocked, NULL));
		WL_OK(pthread_create(&t, NULL, blocked, NULL));
	}
	printf("created %d detached and %d joinable threads\n", N, N);
	return 0;
}
