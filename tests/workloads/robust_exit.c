/*
 * robust_exit.c - exit() called from a thread other than main while the
 * other threads run: one blocked for good on a semaphore, one taking and
 * releasing a mutex in a loop, and main blocked in pthread_join.  The
 * process must end with the status exit() gave and the output it
 * printed, and the tracer must not hang or crash at that exit.
 */
#include "wl.h"

static sem_t never;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long spins;

static void *blocked(void *arg)
{
	(void)arg;
	wl_sem_wait(&never);
	return NULL;
}

static void *busy(void *arg)
{
	(void)arg;
	for (;;) {
		WL_OK(pthread_mutex_lock(&m));
		spins++;
		WL_OK(pthread_mutex_unlock(&m));
	}
	return NULL;
}

static void *leaver(void *arg)
{
	(void)arg;
	wl_burn(20);
	printf("exiting from a thread\n");
	exit(3);
}

int main(void)
{
	pthread_t t[3];

	wl_init();
	WL_OK(sem_init(&never, 0, 0));
	WL_OK(pthread_create(&t[0], NULL, blocked, NULL));
	WL_OK(pthread_create(&t[1], NULL, busy, NULL));
	WL_OK(pthread_create(&t[2], NULL, leaver, NULL));
	WL_OK(pthread_join(t[0], NULL));
	printf("not reached\n");
	return 0;
}
