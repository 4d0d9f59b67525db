/*
 * life_tls.c - thread-specific data destructors that lock.  N threads
 * each set a value under a key whose destructor locks a mutex, counts,
 * and unlocks; some return, some call pthread_exit, some are cancelled
 * while sleeping.  After every join the count must be N and the mutex
 * free.  The destructors run while the tracer's thread-exit path and
 * liburcu's run: every lock must still work.
 */
#include "wl.h"

#include <unistd.h>

#define N 24

static pthread_key_t key;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static sem_t ready;
static unsigned destroyed;

static void destructor(void *v)
{
	WL_OK(pthread_mutex_lock(&m));
	destroyed++;
	WL_OK(pthread_mutex_unlock(&m));
	(void)v;
}

static void *worker(void *arg)
{
	long i = (long)arg;

	WL_OK(pthread_setspecific(key, arg ? arg : (void *)&key));
	WL_OK(pthread_mutex_lock(&m));
	WL_OK(pthread_mutex_unlock(&m));
	switch (i % 3) {
	case 0:
		return arg;
	case 1:
		pthread_exit(arg);
	default:
		WL_OK(sem_post(&ready));
		for (;;)
			usleep(1000);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[N];
	int rc;

	wl_init();
	WL_OK(sem_init(&ready, 0, 0));
	WL_OK(pthread_key_create(&key, destructor));
	for (long i = 0; i < N; i++)
		WL_OK(pthread_create(&t[i], NULL, worker, (void *)i));
	/* every sleeper has posted before any is cancelled: a post may
	 * come from another sleeper than the one cancelled next */
	for (int i = 0; i < N; i++)
		if (i % 3 == 2)
			wl_sem_wait(&ready);
	for (int i = 0; i < N; i++)
		if (i % 3 == 2)
			WL_OK(pthread_cancel(t[i]));
	for (int i = 0; i < N; i++)
		WL_OK(pthread_join(t[i], NULL));
	rc = pthread_mutex_trylock(&m);
	printf("threads %d, destructors %u, mutex free %d\n", N, destroyed,
	       rc == 0);
	return destroyed == N && rc == 0 ? 0 : 1;
}
