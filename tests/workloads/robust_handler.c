/*
 * robust_handler.c - a signal handler of the program's that calls the
 * tracer while threads are being created: a SIGALRM every 50 us posts a
 * semaphore (sem_post is async-signal-safe), while main creates and joins
 * 300 threads one after the other.  A handler that runs in a new thread
 * before the tracer has bound that thread's state must not make the
 * thread a second one: the report counts main and its 300 threads.
 */
#include "wl.h"

#include <signal.h>
#include <sys/time.h>

static sem_t posted;

static void on_alarm(int sig)
{
	(void)sig;
	sem_post(&posted);
}

static void *child(void *arg)
{
	return arg;
}

int main(void)
{
	struct sigaction sa;
	struct itimerval every = { { 0, 50 }, { 0, 50 } }, off = { 0 };

	WL_OK(sem_init(&posted, 0, 0));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) ||
	    setitimer(ITIMER_REAL, &every, NULL))
		return 2;
	for (int i = 0; i < 300; i++) {
		pthread_t t;

		WL_OK(pthread_create(&t, NULL, child, NULL));
		WL_OK(pthread_join(t, NULL));
	}
	setitimer(ITIMER_REAL, &off, NULL);
	printf("threads 300\n");
	return 0;
}
