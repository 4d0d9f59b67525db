/*
 * smp_mask.c - worker threads that start with every signal blocked, as
 * xz's do (it blocks them all around pthread_create), then spin on the
 * CPU; the masks the program sets must read back the same under the
 * tracer, whose sampler signal must still reach those workers.
 *
 *   smp_mask
 *
 * Prints, in a fixed order: each worker's mask as inherited, after it
 * unblocks the real-time signals (SIG_UNBLOCK) and after it blocks them
 * again (SIG_BLOCK, through sigprocmask); then main's mask once it has
 * restored the empty one.  A mask prints as one digit per signal 1..
 * SIGRTMAX (1: blocked).  Each worker spins WL_SPIN_MS ms of its CPU time
 * with every signal blocked, in spin_blocked().
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define WL_SPIN_MS 150
#define WL_WORKERS 2

static char seen[WL_WORKERS][3][80];

static void show(char *out, const sigset_t *s)
{
	int n = 0;

	for (int sig = 1; sig <= SIGRTMAX && n < 79; sig++)
		out[n++] = sigismember(s, sig) == 1 ? '1' : '0';
	out[n] = '\0';
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Not static: the profile names it. */
uint64_t spin_blocked(void);

__attribute__((noinline)) uint64_t spin_blocked(void)
{
	uint64_t end = cpu_ns() + WL_SPIN_MS * 1000000ull, x = 1;

	while (cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1;
	return x;
}

static void *worker(void *arg)
{
	char (*out)[80] = arg;
	sigset_t s, rt;

	pthread_sigmask(SIG_BLOCK, NULL, &s);
	show(out[0], &s);
	if (spin_blocked() == 0)	/* keeps the work; never true */
		out[0][0] = '?';
	sigemptyset(&rt);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(&rt, sig);
	pthread_sigmask(SIG_UNBLOCK, &rt, &s);
	pthread_sigmask(SIG_SETMASK, NULL, &s);
	show(out[1], &s);
	sigprocmask(SIG_BLOCK, &rt, NULL);
	sigprocmask(SIG_BLOCK, NULL, &s);
	show(out[2], &s);
	return NULL;
}

int main(void)
{
	pthread_t t[WL_WORKERS];
	sigset_t all, old;
	char mine[80];

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < WL_WORKERS; i++)
		if (pthread_create(&t[i], NULL, worker, seen[i]))
			return 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (int i = 0; i < WL_WORKERS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < WL_WORKERS; i++)
		printf("worker %d: inherited %s\nworker %d: unblocked %s\n"
		       "worker %d: blocked   %s\n", i, seen[i][0], i,
		       seen[i][1], i, seen[i][2]);
	sigprocmask(SIG_SETMASK, NULL, &old);
	show(mine, &old);
	printf("main: %s\n", mine);
	return 0;
}
