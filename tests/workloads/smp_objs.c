/*
 * smp_objs.c - threads that make, use and destroy a synchronization object
 * at every step, for the sampler's test that the tracer's own work stays
 * out of the program's stacks: each new object makes the tracer record it
 * (liburcu's hash table) and where it was first used (libgcc's unwinder),
 * so CPU-time samples land there often.  The program calls neither
 * library, nor any clock (nor, its symbols bound at start, the loader).
 *
 *   smp_objs [STEPS] [THREADS]     (default 100000 steps, 2 threads)
 */
#include "wl.h"

static unsigned long steps = 100000;

/* Not static: a profile names it. */
void step(void);

__attribute__((noinline)) void step(void)
{
	pthread_mutex_t *m = malloc(sizeof(*m));
	pthread_cond_t *c = malloc(sizeof(*c));

	if (!m || !c)
		abort();
	WL_OK(pthread_mutex_init(m, NULL));
	WL_OK(pthread_cond_init(c, NULL));
	WL_OK(pthread_mutex_lock(m));
	WL_OK(pthread_cond_signal(c));
	WL_OK(pthread_mutex_unlock(m));
	WL_OK(pthread_cond_destroy(c));
	WL_OK(pthread_mutex_destroy(m));
	free(c);
	free(m);
}

static void *run(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; i < steps; i++)
		step();
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
	pthread_t t[16];

	if (argc > 1)
		steps = strtoul(argv[1], NULL, 10);
	if (n < 1 || n > 16) {
		fprintf(stderr, "usage: %s [STEPS] [THREADS<=16]\n", argv[0]);
		return 2;
	}
	for (unsigned i = 0; i < n; i++)
		WL_OK(pthread_create(&t[i], NULL, run, NULL));
	for (unsigned i = 0; i < n; i++)
		WL_OK(pthread_join(t[i], NULL));
	printf("%lu steps in %u threads\n", steps, n);
	return 0;
}
