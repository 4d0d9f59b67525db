/*
 * bench_scale_work.c - the traced program of the analyzer's scaling
 * benchmark (bench_scale.py).  Not a test.  Three shapes of program, each
 * ITERS iterations of a little work and a lock/unlock pair of one of 16
 * shared mutexes picked at random:
 *
 *   locks    two threads, ITERS iterations each: about 2 events an
 *            iteration a thread (the acquire and the release), 4 * ITERS
 *            in all; a lock-heavy run, as in the measurements
 *   objects  the same, and each iteration also makes a mutex of its own,
 *            takes it twice and destroys it: millions of objects used a
 *            few times each, as an OpenMP program's tasks are (about 12
 *            events an iteration)
 *   threads  ITERS threads, four at a time, one after another, each one
 *            iteration: a program that makes a thread per task (about 7
 *            events a thread)
 *
 * usage: bench_scale_work [--shape locks|objects|threads] ITERS [UNITS]
 *        (UNITS of work an iteration, default 20)
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t locks[16];
static volatile double sink;
static long iters;
static int units = 20;
static int objects;	/* the objects shape */

static __attribute__((noinline)) void work(int n)
{
	double x = 1;

	for (int i = 0; i < n; i++)
		x = x * 1.0000001 + 0.5;
	sink += x;
}

/* One iteration of thread @seed's loop. */
static void step(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	work(units);
	pthread_mutex_lock(&locks[*seed >> 28]);
	sink += 1;
	pthread_mutex_unlock(&locks[*seed >> 28]);
	if (objects) {
		pthread_mutex_t own;

		pthread_mutex_init(&own, NULL);
		for (int k = 0; k < 2; k++) {
			pthread_mutex_lock(&own);
			sink += 1;
			pthread_mutex_unlock(&own);
		}
		pthread_mutex_destroy(&own);
	}
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(long)arg;

	for (long i = 0; i < iters; i++)
		step(&seed);
	return NULL;
}

static void *one_step(void *arg)
{
	unsigned seed = (unsigned)(long)arg;

	step(&seed);
	return NULL;
}

/* ITERS threads, four at a time.  0, or 1 when one cannot be made. */
static int threads_shape(void)
{
	for (long i = 0; i < iters; i += 4) {
		pthread_t t[4];
		int n = iters - i < 4 ? (int)(iters - i) : 4;

		for (int k = 0; k < n; k++)
			if (pthread_create(&t[k], NULL, one_step,
					   (void *)(i + k + 1)))
				return 1;
		for (int k = 0; k < n; k++)
			pthread_join(t[k], NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "shape", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *shape = "locks";
	pthread_t t[2];
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 's')
			goto usage;
		shape = optarg;
	}
	if (optind >= argc || (iters = atol(argv[optind])) <= 0 ||
	    (strcmp(shape, "locks") && strcmp(shape, "objects") &&
	     strcmp(shape, "threads")))
		goto usage;
	if (optind + 1 < argc)
		units = atoi(argv[optind + 1]);
	objects = !strcmp(shape, "objects");
	for (int i = 0; i < 16; i++)
		pthread_mutex_init(&locks[i], NULL);
	if (!strcmp(shape, "threads"))
		return threads_shape();
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
usage:
	fprintf(stderr, "usage: %s [--shape locks|objects|threads] ITERS "
		"[UNITS]\n", argv[0]);
	return 2;
}
