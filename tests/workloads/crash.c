/*
 * crash.c - a lock-heavy run that does not end by exit().
 *
 * Usage: wl_crash MODE [N]
 * Two workers hammer one mutex.  Worker A locks and unlocks it N times
 * (default 20000) and returns; worker B never stops.  Main joins A, so by
 * then A's 2N lock events at least have been recorded (and A's buffer
 * written at its exit), and then the process ends while B is still in
 * its loop:
 *   segv   a store through a null pointer (SIGSEGV from the kernel)
 *   abort  abort() (SIGABRT)
 *   term   raise(SIGTERM)
 *   exit0  _exit(0)
 *   kill   pause() until the parent sends SIGKILL
 * Nothing is written on stdout; "A done" goes to stderr before the end.
 */
#include <signal.h>
#include <unistd.h>

#include "wl.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long counter;

static void *worker_a(void *arg)
{
	unsigned long n = (unsigned long)(uintptr_t)arg;

	for (unsigned long i = 0; i < n; i++) {
		WL_OK(pthread_mutex_lock(&m));
		counter++;
		WL_OK(pthread_mutex_unlock(&m));
	}
	return NULL;
}

static void *worker_b(void *arg)
{
	(void)arg;
	for (;;) {
		WL_OK(pthread_mutex_lock(&m));
		counter++;
		WL_OK(pthread_mutex_unlock(&m));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000;
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t a, b;

	wl_init();
	WL_OK(pthread_create(&a, NULL, worker_a, (void *)(uintptr_t)n));
	WL_OK(pthread_create(&b, NULL, worker_b, NULL));
	WL_OK(pthread_join(a, NULL));
	fprintf(stderr, "A done\n");
	if (!strcmp(mode, "segv"))
		*(volatile int *)(uintptr_t)argc /* 1 or more */ = 0;
	else if (!strcmp(mode, "abort"))
		abort();
	else if (!strcmp(mode, "term"))
		raise(SIGTERM);
	else if (!strcmp(mode, "exit0"))
		_exit(0);
	else if (!strcmp(mode, "kill"))
		for (;;)
			pause();
	fprintf(stderr, "usage: wl_crash segv|abort|term|exit0|kill [N]\n");
	return 2;
}
