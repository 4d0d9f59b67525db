/*
 * life_pexit.c - main ends with pthread_exit(NULL) while workers still
 * run.  Worker A (pthread_create) joins main (legal: main is joinable),
 * sleeps 100 ms so that the process lives on without main for a while,
 * prints, and wakes worker B through a pipe.  B was made with C11's
 * thrd_create, which glibc does not route through the pthread_create
 * symbol, and it calls no pthread function: a tracer may not know it.  B
 * sleeps 100 ms more, prints and returns.  The process must then end with
 * status 0, as POSIX has it when the last thread ends (as if by exit(0)),
 * with both lines on stdout.  A tracer whose own threads outlive the
 * program's keeps the process alive for ever; one that ends it when the
 * threads it knows have ended cuts B short.
 */
#include "wl.h"

#include <threads.h>
#include <unistd.h>

static pthread_t main_thread;
static int wake[2];

static void *worker_a(void *arg)
{
	WL_OK(pthread_join(main_thread, NULL));
	usleep(100000);
	printf("worker A done after main\n");
	if (write(wake[1], "x", 1) != 1)
		abort();
	return arg;
}

static int worker_b(void *arg)
{
	char c;

	(void)arg;
	if (read(wake[0], &c, 1) != 1)
		abort();
	usleep(100000);
	printf("worker B (C11) done after A\n");
	return 0;
}

int main(void)
{
	pthread_t a;
	thrd_t b;

	wl_init();
	main_thread = pthread_self();
	if (pipe(wake) != 0 || thrd_create(&b, worker_b, NULL) != thrd_success)
		abort();
	WL_OK(pthread_create(&a, NULL, worker_a, NULL));
	printf("main leaves\n");
	pthread_exit(NULL);
}
