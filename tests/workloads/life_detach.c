/*
 * life_detach.c - threads that have not started when the program exits:
 * main creates N detached threads and N joinable ones it never joins, all
 * of which would block for good, and returns at once.  Main and the
 * threads keep to the CPU main started on, where a new thread waits for
 * main's time slice to end, so some (often most) of them have not started
 * when exit() ends the process.  The tracer must still account for every
 * thread it created: the report counts 2N + 1 threads and the trace reads.
 */
#include "wl.h"

#define N 100

static sem_t never;

static void *blocked(void *arg)
{
	wl_sem_wait(&never);
	return arg;
}

int main(void)
{
	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_t joinable;
	cpu_set_t one;
	int cpu;

	wl_init();
	WL_OK(sem_init(&never, 0, 0));
	cpu = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	WL_OK(pthread_attr_init(&attr));
	WL_OK(pthread_attr_init(&joinable));
	WL_OK(pthread_attr_setaffinity_np(&attr, sizeof(one), &one));
	WL_OK(pthread_attr_setaffinity_np(&joinable, sizeof(one), &one));
	WL_OK(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED));
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		perror("sched_setaffinity");
	for (int i = 0; i < N; i++) {
		WL_OK(pthread_create(&t, &attr, blocked, NULL));
		WL_OK(pthread_create(&t, &joinable, blocked, NULL));
	}
	printf("created %d detached and %d joinable threads\n", N, N);
	return 0;
}
