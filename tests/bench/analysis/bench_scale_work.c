/*
 * bench_scale_work.c - the traced program of the analyzer's scaling
 * benchmark (bench_scale.py): two threads, ITERS iterations each of a
 * little work and a lock/unlock pair of one of 16 mutexes picked at random,
 * so a traced run writes about 2 events per iteration per thread (the
 * acquire and the release), 4 * ITERS in all.  Not a test.
 *
 * usage: bench_scale_work ITERS [UNITS]   (UNITS of work per iteration,
 *        default 20: a lock-heavy run, as in the measurements)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t locks[16];
static volatile double sink;
static long iters;
static int units = 20;

static __attribute__((noinline)) void work(int n)
{
	double x = 1;

	for (int i = 0; i < n; i++)
		x = x * 1.0000001 + 0.5;
	sink += x;
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(long)arg;

	for (long i = 0; i < iters; i++) {
		seed = seed * 1103515245u + 12345u;
		work(units);
		pthread_mutex_lock(&locks[seed >> 28]);
		sink += 1;
		pthread_mutex_unlock(&locks[seed >> 28]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc < 2 || (iters = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: %s ITERS [UNITS]\n", argv[0]);
		return 2;
	}
	if (argc > 2)
		units = atoi(argv[2]);
	for (int i = 0; i < 16; i++)
		pthread_mutex_init(&locks[i], NULL);
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
