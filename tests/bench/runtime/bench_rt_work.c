/*
 * bench_rt_work.c - the workloads of the runtime benchmark (see
 * bench_runtime.py, which runs them bare and under the tracer and
 * compares).  Each mode prints "name value" lines on stdout.
 *
 *   micro      ns per operation: uncontended mutex/spin/rwlock pairs,
 *              contended mutex pairs, barrier waits, cond signal/wait and
 *              sem post/wait round trips between two threads
 *   calibrate  ns per unit of work (one thread, no locks)
 *   lockheavy UNITS  two threads, 1,000,000 iterations each of UNITS of
 *              work then a lock/unlock pair of one of 16 mutexes picked at
 *              random; elapsed s (bench_runtime.py picks UNITS for ~1 us
 *              an iteration: a million lock acquisitions per second per
 *              thread, and a harsher ~0.25 us)
 *   barrierheavy  two threads, phases of ~50 us of work between barriers;
 *              elapsed s
 * The work is done in small named functions so that a binary built with
 * -finstrument-functions has procedures to select (work_a .. work_h).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static volatile double sink;

#define WORK(name, k)							\
	__attribute__((noinline)) void name(int n);			\
	__attribute__((noinline)) void name(int n)			\
	{								\
		double x = k;						\
		for (int i = 0; i < n; i++)				\
			x = x * 1.0000001 + 0.5;			\
		sink += x;						\
	}
WORK(work_a, 1) WORK(work_b, 2) WORK(work_c, 3) WORK(work_d, 4)
WORK(work_e, 5) WORK(work_f, 6) WORK(work_g, 7) WORK(work_h, 8)

static void (*const works[8])(int) = {
	work_a, work_b, work_c, work_d, work_e, work_f, work_g, work_h,
};

/* ---- micro ------------------------------------------------------------ */

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t spn;
static pthread_rwlock_t rwl = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t bar;
static pthread_cond_t cnd = PTHREAD_COND_INITIALIZER;
static sem_t sem_a, sem_b;
static long turn;
static long iters;

static double uncontended(int which, long n)
{
	double t0 = now_s();

	for (long i = 0; i < n; i++) {
		switch (which) {
		case 0:
			pthread_mutex_lock(&mtx);
			pthread_mutex_unlock(&mtx);
			break;
		case 1:
			pthread_spin_lock(&spn);
			pthread_spin_unlock(&spn);
			break;
		default:
			pthread_rwlock_wrlock(&rwl);
			pthread_rwlock_unlock(&rwl);
			break;
		}
	}
	return (now_s() - t0) / (double)n * 1e9;
}

static void *contend_main(void *arg)
{
	(void)arg;
	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(&mtx);
		sink += 1;
		pthread_mutex_unlock(&mtx);
	}
	return NULL;
}

static void *barrier_main(void *arg)
{
	(void)arg;
	for (long i = 0; i < iters; i++)
		pthread_barrier_wait(&bar);
	return NULL;
}

/* Two threads take turns through one mutex + cond: a round trip is one
 * signal/wait in each direction. */
static void *cond_main(void *arg)
{
	long me = (long)arg;

	pthread_mutex_lock(&mtx);
	for (long i = 0; i < iters; i++) {
		while (turn != me)
			pthread_cond_wait(&cnd, &mtx);
		turn = 1 - me;
		pthread_cond_broadcast(&cnd);
	}
	pthread_mutex_unlock(&mtx);
	return NULL;
}

static void *sem_main(void *arg)
{
	long me = (long)arg;

	for (long i = 0; i < iters; i++) {
		if (me == 0) {
			sem_post(&sem_a);
			sem_wait(&sem_b);
		} else {
			sem_wait(&sem_a);
			sem_post(&sem_b);
		}
	}
	return NULL;
}

static double pair_run(void *(*fn)(void *), long n)
{
	pthread_t t[2];
	double t0;

	iters = n;
	turn = 0;
	t0 = now_s();
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, fn, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return (now_s() - t0) / (double)n * 1e9;
}

static void micro(void)
{
	pthread_spin_init(&spn, 0);
	pthread_barrier_init(&bar, NULL, 2);
	sem_init(&sem_a, 0, 0);
	sem_init(&sem_b, 0, 0);
	printf("mutex_pair_ns %.2f\n", uncontended(0, 20000000));
	printf("spin_pair_ns %.2f\n", uncontended(1, 20000000));
	printf("rwlock_pair_ns %.2f\n", uncontended(2, 10000000));
	printf("mutex_contended_pair_ns %.2f\n", pair_run(contend_main, 2000000));
	printf("barrier_wait_ns %.2f\n", pair_run(barrier_main, 200000));
	printf("cond_roundtrip_ns %.2f\n", pair_run(cond_main, 100000));
	printf("sem_roundtrip_ns %.2f\n", pair_run(sem_main, 200000));
}

/* ---- programs --------------------------------------------------------- */

static pthread_mutex_t locks[16];

static int lock_units = 400;

/* Work spread over the eight procedures, then a lock. */
static void *lockheavy_main(void *arg)
{
	unsigned seed = (unsigned)(long)arg;

	for (long i = 0; i < iters; i++) {
		pthread_mutex_t *l = &locks[(seed = seed * 1103515245u + 12345u)
					    >> 28];

		works[i & 7](lock_units);
		pthread_mutex_lock(l);
		sink += 1;
		pthread_mutex_unlock(l);
	}
	return NULL;
}

static void *barrierheavy_main(void *arg)
{
	(void)arg;
	for (long i = 0; i < iters; i++) {
		for (int k = 0; k < 8; k++)
			works[k](700);
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

static double program(void *(*fn)(void *), long n)
{
	pthread_t t[2];
	double t0 = now_s();

	iters = n;
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, fn, (void *)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return now_s() - t0;
}

/* ns per unit of work, best of five rounds of 20 ms of the thread's CPU
 * time (elapsed time on a loaded machine counts other tenants' turns and
 * would make the lock programs far harsher than their nominal period). */
static double calibrate(void)
{
	double best = 1e9;

	for (int r = 0; r < 5; r++) {
		double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);

		for (int i = 0; i < 4000; i++)
			works[i & 7](1000);
		double ns = (clock_s(CLOCK_THREAD_CPUTIME_ID) - t0) / 4000 /
			    1000 * 1e9;

		if (ns < best)
			best = ns;
	}
	return best;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "micro";

	for (int i = 0; i < 16; i++)
		pthread_mutex_init(&locks[i], NULL);
	pthread_barrier_init(&bar, NULL, 2);
	if (!strcmp(mode, "micro"))
		micro();
	else if (!strcmp(mode, "calibrate"))
		printf("unit_ns %.4f\n", calibrate());
	else if (!strcmp(mode, "lockheavy")) {
		if (argc > 2)
			lock_units = atoi(argv[2]);
		printf("elapsed_s %.6f\n", program(lockheavy_main, 1000000));
	}
	else if (!strcmp(mode, "barrierheavy"))
		printf("elapsed_s %.6f\n", program(barrierheavy_main, 20000));
	else {
		fprintf(stderr, "usage: %s micro|calibrate|lockheavy [UNITS]|"
			"barrierheavy\n", argv[0]);
		return 2;
	}
	return 0;
}
