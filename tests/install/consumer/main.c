/* A program that uses cpthread the way a user's build would. */
#include <cpthread.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *worker(void *arg)
{
	(void)arg;
	cpthread_region_begin("count");
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&m);
		counter++;
		pthread_mutex_unlock(&m);
	}
	cpthread_region_end("count");
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("counter=%ld\n", counter);
	return counter == 2000 ? 0 : 1;
}
