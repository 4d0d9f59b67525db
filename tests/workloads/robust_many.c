/*
 * robust_many.c - 3000 threads over the program's life, in 30 sequential
 * batches of 100; each takes a mutex and posts a semaphore once.  The
 * tracer must keep up (thread state recycled, no limit hit) and report
 * 3001 threads.
 */
#include "wl.h"

#define BATCHES 30
#define PER_BATCH 100

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static sem_t s;
static unsigned long counter;

static void *worker(void *arg)
{
	WL_OK(pthread_mutex_lock(&m));
	counter++;
	WL_OK(pthread_mutex_unlock(&m));
	WL_OK(sem_post(&s));
	return arg;
}

int main(void)
{
	pthread_t t[PER_BATCH];
	unsigned long waits = 0;

	wl_init();
	WL_OK(sem_init(&s, 0, 0));
	for (int b = 0; b < BATCHES; b++) {
		for (int i = 0; i < PER_BATCH; i++)
			WL_OK(pthread_create(&t[i], NULL, worker, NULL));
		for (int i = 0; i < PER_BATCH; i++) {
			wl_sem_wait(&s);
			waits++;
		}
		for (int i = 0; i < PER_BATCH; i++)
			WL_OK(pthread_join(t[i], NULL));
	}
	printf("threads %d, counter %lu, waits %lu\n", BATCHES * PER_BATCH,
	       counter, waits);
	return counter == BATCHES * PER_BATCH ? 0 : 1;
}
