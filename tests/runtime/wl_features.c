/*
 * wl_features.c - workloads for the runtime's features beyond the edge
 * rules: intermediate samples, start/stop of the computation, exclusive
 * procedure time, and a what-if that reorders a lock.  Burns follow wl.h
 * (thread CPU time under CPTHREAD_CLOCK=cpu).  Usage: wl_features MODE [F]
 *
 *   sample     2 threads, 8 phases of 10 ms separated by a barrier, and an
 *              explicit cpthread_sample() after each phase on thread 0.
 *              CP = 80 ms; samples grow and never exceed it.
 *   stop       region "a" 30 ms, cpthread_stop(), region "b" 30 ms.
 *              Reported CP = 30 ms, a = 30, b = 0, "stopped": true.
 *   restart    region "a" 20 ms, cpthread_start(), region "b" 40 ms.
 *              CP = 40 ms, a = 0, b = 40.
 *   nested     outer() burns 10 ms, then calls inner(), which burns 30.
 *              Inclusive: outer 40, inner 30.  CPTHREAD_EXCLUSIVE=1:
 *              outer 10, inner 30.  CP = 40.
 *   lockorder F  (doc/examples.md §4, doubled) thread 1: t1_work
 *              80*F ms, lock L, 20 ms, unlock; thread 2: t2_work 60 ms,
 *              lock L, 20 ms, unlock.  F = 1: T2 holds L 60..80, T1 80..100,
 *              CP = 100.  F = 0.5: T1 40..60, T2 waits, 60..80: CP = 80.
 *              Reweighting the F = 1 graph keeps T2 first and predicts 100.
 *              The order on the ideal machine (the thread that finishes
 *              its work first takes L first) is made certain on a busy
 *              machine too: the second thread waits, before locking, on a
 *              silent semaphore (untracked: no edge, see wl.h) that the
 *              first posts while it holds L.
 */
#include "wl.h"

static pthread_barrier_t bar;
static pthread_mutex_t lock_l = PTHREAD_MUTEX_INITIALIZER;
static sem_t order;
static double factor = 1.0;

static void *sample_main(void *arg)
{
	long me = (long)arg;

	for (int i = 0; i < 8; i++) {
		wl_burn(10);
		pthread_barrier_wait(&bar);
		if (me == 0)
			cpthread_sample();
	}
	return NULL;
}

__attribute__((noinline)) void inner(void);
__attribute__((noinline)) void outer(void);

void inner(void)
{
	wl_burn(30);
}

void outer(void)
{
	wl_burn(10);
	inner();
}

__attribute__((noinline)) void t1_work(void);
__attribute__((noinline)) void t2_work(void);

void t1_work(void)
{
	wl_burn((unsigned)(80 * factor));
}

void t2_work(void)
{
	wl_burn(60);
}

static void *lock_main(void *arg)
{
	long me = (long)arg;

	long first = 80 * factor < 60 ? 1 : 2;

	if (me == 1)
		t1_work();
	else
		t2_work();
	if (me != first)
		wl_sem_wait(&order);
	WL_OK(pthread_mutex_lock(&lock_l));
	if (me == first)
		WL_OK(sem_post(&order));
	wl_burn(20);
	WL_OK(pthread_mutex_unlock(&lock_l));
	return NULL;
}

static void two_threads(void *(*fn)(void *), long first)
{
	pthread_t t[2];

	for (long i = 0; i < 2; i++)
		WL_OK(pthread_create(&t[i], NULL, fn, (void *)(first + i)));
	for (int i = 0; i < 2; i++)
		WL_OK(pthread_join(t[i], NULL));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	wl_init();
	if (argc > 2)
		factor = atof(argv[2]);
	if (!strcmp(mode, "sample")) {
		WL_OK(pthread_barrier_init(&bar, NULL, 2));
		two_threads(sample_main, 0);
	} else if (!strcmp(mode, "stop")) {
		wl_region("a", 30);
		cpthread_stop();
		wl_region("b", 30);
	} else if (!strcmp(mode, "restart")) {
		wl_region("a", 20);
		cpthread_start();
		wl_region("b", 40);
	} else if (!strcmp(mode, "nested")) {
		outer();
	} else if (!strcmp(mode, "lockorder")) {
		wl_silent_init(&order);
		two_threads(lock_main, 1);
	} else {
		fprintf(stderr, "usage: %s sample|stop|restart|nested|"
			"lockorder [F]\n", argv[0]);
		return 2;
	}
	printf("done %s\n", mode);
	return 0;
}
