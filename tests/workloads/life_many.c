/*
 * life_many.c - 10,000 threads over a run, 1,000 alive at once: ten
 * rounds, each creating 1,000 threads that all meet main at a barrier
 * (so all of them are alive together), take a mutex, and are joined.
 * Small stacks keep the footprint modest.  Prints the count of threads
 * that ran and the mutex-protected counter.
 */
#include "wl.h"

#define ROUNDS 10
#define ALIVE 1000

static pthread_barrier_t bar;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static unsigned long counter;

static void *worker(void *arg)
{
	int rc = pthread_barrier_wait(&bar);

	if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD)
		abort();
	WL_OK(pthread_mutex_lock(&m));
	counter++;
	WL_OK(pthread_mutex_unlock(&m));
	return arg;
}

int main(void)
{
	static pthread_t t[ALIVE];
	pthread_attr_t attr;
	int rc;

	wl_init();
	WL_OK(pthread_attr_init(&attr));
	WL_OK(pthread_attr_setstacksize(&attr, 64 * 1024));
	WL_OK(pthread_barrier_init(&bar, NULL, ALIVE + 1));
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < ALIVE; i++)
			WL_OK(pthread_create(&t[i], &attr, worker, NULL));
		rc = pthread_barrier_wait(&bar);
		if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD)
			abort();
		for (int i = 0; i < ALIVE; i++)
			WL_OK(pthread_join(t[i], NULL));
	}
	WL_OK(pthread_barrier_destroy(&bar));
	WL_OK(pthread_attr_destroy(&attr));
	printf("threads %d, alive at once %d, counter %lu\n", ROUNDS * ALIVE,
	       ALIVE, counter);
	return counter == ROUNDS * ALIVE ? 0 : 1;
}
