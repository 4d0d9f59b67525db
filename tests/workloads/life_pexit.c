/*
 * life_pexit.c - main ends with pthread_exit(NULL) while a worker still
 * runs.  The worker joins main (legal: main is joinable), sleeps 100 ms
 * so that the process lives on without main for a while, prints and
 * returns; the process must then end with status 0, as POSIX has it when
 * the last thread ends (as if by exit(0)), with the worker's line on
 * stdout.  A tracer whose own threads outlive the program's keeps the
 * process alive for ever.
 */
#include "wl.h"

#include <unistd.h>

static pthread_t main_thread;

static void *worker(void *arg)
{
	WL_OK(pthread_join(main_thread, NULL));
	usleep(100000);
	printf("worker done after main\n");
	return arg;
}

int main(void)
{
	pthread_t t;

	wl_init();
	main_thread = pthread_self();
	WL_OK(pthread_create(&t, NULL, worker, NULL));
	printf("main leaves\n");
	pthread_exit(NULL);
}
