/*
 * robust_detach.c - detached threads, made both ways (attribute and
 * pthread_detach), some still running when main returns.  Each takes a
 * mutex and posts a semaphore; main waits for the posts, not for the
 * threads to end, then returns while the last ones may still be leaving.
 */
#include "wl.h"

#define N 40

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static sem_t s;
static unsigned long counter;

static void *worker(void *arg)
{
	WL_OK(pthread_mutex_lock(&m));
	counter++;
	WL_OK(pthread_mutex_unlock(&m));
	WL_OK(sem_post(&s));
	wl_burn(1);
	return arg;
}

int main(void)
{
	pthread_attr_t attr;
	pthread_t t;
	unsigned long seen;

	wl_init();
	WL_OK(sem_init(&s, 0, 0));
	WL_OK(pthread_attr_init(&attr));
	WL_OK(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED));
	for (int i = 0; i < N; i++) {
		if (i % 2) {
			WL_OK(pthread_create(&t, &attr, worker, NULL));
		} else {
			WL_OK(pthread_create(&t, NULL, worker, NULL));
			WL_OK(pthread_detach(t));
		}
	}
	for (int i = 0; i < N; i++)
		wl_sem_wait(&s);
	WL_OK(pthread_mutex_lock(&m));
	seen = counter;
	WL_OK(pthread_mutex_unlock(&m));
	printf("detached threads %d, counter %lu\n", N, seen);
	return seen == N ? 0 : 1;
}
