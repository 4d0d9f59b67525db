/*
 * life_cancel.c - pthread_cancel of a traced thread, four ways.
 *
 * sleeper: locks and unlocks a mutex once, says so, then sleeps in a
 * loop; main cancels and joins it (PTHREAD_CANCELED).  cond: a thread
 * waits on a condition variable for a predicate that never holds, with a
 * cleanup handler that unlocks the mutex and counts; main cancels it
 * once it is waiting (or about to: a pending cancel acts at the wait),
 * joins it, and the mutex must be free again.  testcancel: a thread locks
 * and unlocks a mutex in a loop, with a pthread_testcancel() every
 * 100,000 rounds; main cancels it after its first 50,000: the thread ends
 * at a testcancel, with the mutex free (in trace mode the tracer writes
 * its events from inside those calls meanwhile, and write() is a
 * cancellation point the program did not ask for).  main: after a lock and
 * unlock, main starts a thread that cancels main while main sleeps, joins
 * it, prints the results and returns: the last thread ends, so the
 * process ends with status 0.  Each way the thread ends
 * through cancellation with the tracer's state and liburcu's registration
 * live: a tracer whose exit path takes a traced lock there deadlocks.
 * Output is fixed: nothing depends on timing.
 */
#include "wl.h"

#include <unistd.h>

static pthread_t main_thread;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static sem_t ready;
static int cleanups;

static void *sleeper(void *arg)
{
	WL_OK(pthread_mutex_lock(&m));
	WL_OK(pthread_mutex_unlock(&m));
	WL_OK(sem_post(&ready));
	for (;;)
		usleep(1000);
	return arg;
}

static void unlock_cleanup(void *mx)
{
	cleanups++;
	WL_OK(pthread_mutex_unlock(mx));
}

static void *cond_waiter(void *arg)
{
	WL_OK(pthread_mutex_lock(&m));
	WL_OK(sem_post(&ready));
	pthread_cleanup_push(unlock_cleanup, &m);
	for (;;)
		WL_OK(pthread_cond_wait(&c, &m));
	pthread_cleanup_pop(1);
	return arg;
}

static void cancel(const char *what, void *(*fn)(void *))
{
	pthread_t t;
	void *ret = NULL;
	int rc;

	WL_OK(pthread_create(&t, NULL, fn, NULL));
	wl_sem_wait(&ready);
	WL_OK(pthread_cancel(t));
	WL_OK(pthread_join(t, &ret));
	rc = pthread_mutex_trylock(&m);
	printf("%s: canceled=%d, mutex free %d\n", what,
	       ret == PTHREAD_CANCELED, rc == 0);
	if (rc == 0)
		WL_OK(pthread_mutex_unlock(&m));
}

static void *locker(void *arg)
{
	for (unsigned long i = 1;; i++) {
		WL_OK(pthread_mutex_lock(&m));
		WL_OK(pthread_mutex_unlock(&m));
		if (i == 50000)
			WL_OK(sem_post(&ready));
		if (i % 100000 == 0)
			pthread_testcancel();
	}
	return arg;
}

static void *main_canceller(void *arg)
{
	void *ret = NULL;
	int rc;

	WL_OK(pthread_cancel(main_thread));
	WL_OK(pthread_join(main_thread, &ret));
	printf("main: canceled=%d\n", ret == PTHREAD_CANCELED);
	rc = pthread_mutex_trylock(&m);
	printf("cleanup handlers %d, mutex free %d\n", cleanups, rc == 0);
	if (rc == 0)
		WL_OK(pthread_mutex_unlock(&m));
	return arg;
}

int main(void)
{
	pthread_t t;

	wl_init();
	WL_OK(sem_init(&ready, 0, 0));
	main_thread = pthread_self();
	cancel("sleeper", sleeper);
	cancel("cond", cond_waiter);
	cancel("testcancel", locker);
	WL_OK(pthread_mutex_lock(&m));
	WL_OK(pthread_mutex_unlock(&m));
	WL_OK(pthread_create(&t, NULL, main_canceller, NULL));
	pthread_cleanup_push(wl_unwound, NULL);
	for (;;)
		usleep(1000);
	pthread_cleanup_pop(0);
	return 0;
}
