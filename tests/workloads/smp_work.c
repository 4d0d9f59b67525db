/*
 * smp_work.c - fixed work at a chosen stack depth, for measuring what a
 * sample costs (tests/bench/sampler).  Not a correctness workload.
 *
 *   smp_work DEPTH MILLIONS [THREADS]
 *
 * Each thread recurses DEPTH calls deep, then runs MILLIONS million
 * iterations of a multiply-add chain: the same work whatever the tracer
 * does, so the CPU time added by sampling is the samples' cost.
 */
#include "wl.h"

#define NOINL __attribute__((noinline, noclone))

static unsigned depth;
static unsigned long millions;
static volatile uint64_t sink;

/* Not static: a profile names them. */
uint64_t work(unsigned long n);
uint64_t descend(unsigned d);

NOINL uint64_t work(unsigned long n)
{
	uint64_t x = 1;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

NOINL uint64_t descend(unsigned d)
{
	uint64_t x = d ? descend(d - 1) : work(millions * 1000000ul);

	sink += x;		/* no tail call: every level stays */
	return x + 1;
}

static void *run(void *arg)
{
	(void)arg;
	descend(depth);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 3 ? (unsigned)atoi(argv[3]) : 1;
	pthread_t t[64];

	if (argc < 3 || n < 1 || n > 64) {
		fprintf(stderr, "usage: %s DEPTH MILLIONS [THREADS]\n",
			argv[0]);
		return 2;
	}
	depth = (unsigned)atoi(argv[1]);
	millions = strtoul(argv[2], NULL, 10);
	for (unsigned i = 0; i < n; i++)
		WL_OK(pthread_create(&t[i], NULL, run, NULL));
	for (unsigned i = 0; i < n; i++)
		WL_OK(pthread_join(t[i], NULL));
	return 0;
}
