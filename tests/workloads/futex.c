/*
 * futex.c - a thread that waits on a futex for main to finish "a".
 * Times in ms; regions in quotes.
 *
 *   main: create T; wait R; "a" 100; flag = 1; FUTEX_WAKE; "c" 10; join T
 *   T:    post R; FUTEX_WAIT until flag (~100); "d" 20
 *
 * (Semaphore R makes main start "a" only once T runs, so that T waits
 * for all of it however late a busy machine starts T.)
 *
 * With argument "libc" the futex calls go through syscall(3), which the
 * tracer wraps: T's wake depends on main's wake.
 *   Paths: a -> d = 120, a -> c = 110.  CP 120: a 100, d 20, c 0.
 *   Zeroing: a 100, d 10, c 0.  Useful: main 110, T 20.
 * With argument "raw" they are system call instructions, as hand-written
 * futex code (or a runtime library) makes them: nothing sees the wait.
 * Under the wall clock the tracer then counts T's ~100 ms of blocking as
 * useful time, and the report must say that thread 1 waited about
 * 100 ms outside any traced call; under the cpu clock the blocking costs
 * nothing and nothing is said.
 * With argument "yield" T makes no futex call at all: it polls the flag
 * with sched_yield between polls, as a spin-wait of the program's own
 * (or libstdc++'s before it blocks) does.  Under either clock T is busy
 * those ~100 ms, which the tracer counts as useful time; the report must
 * say that thread 1 spun about 100 ms, at least 30.
 * With argument "spin_after" T runs "d" 20 first and then polls, with
 * sched_yield, a flag nobody sets, until main has run "a" 100 and the
 * process exits under it (as a pool's workers spin between jobs: OpenBLAS's
 * do).  T is running when the process ends, so its ~80 ms of polling
 * after its last event are useful time (about 100 in all), and the
 * report must say that thread 1 spun them.  With "blocked_after" T runs
 * "d" 20 and then waits on a semaphore nobody posts: blocked in a traced
 * wait when the process ends, its last ~80 ms are waiting, not useful.
 */
#include "wl.h"

#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int flag;
static sem_t ready;
static int raw, yield, spin_after, blocked_after;
static sem_t never;

/* futex(2) on @word, by the instruction itself when @raw. */
static long futex(atomic_int *word, int op, int val)
{
#if defined(__x86_64__)
	if (raw) {
		long ret;
		register long r10 __asm__("r10") = 0;

		__asm__ volatile("syscall" : "=a"(ret)
				 : "0"((long)SYS_futex), "D"(word), "S"(op),
				   "d"(val), "r"(r10)
				 : "rcx", "r11", "memory");
		return ret;
	}
#else
#error "futex.c: the raw variant needs the system call instruction"
#endif
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

static void *thread_t(void *arg)
{
	(void)arg;
	WL_OK(sem_post(&ready));
	if (spin_after || blocked_after) {
		wl_region("d", 20);
		for (;;) {
			if (spin_after)
				sched_yield();
			else
				sem_wait(&never);
		}
	}
	while (!atomic_load(&flag)) {
		if (yield)
			sched_yield();
		else
			futex(&flag, FUTEX_WAIT_PRIVATE, 0);
	}
	wl_region("d", 20);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	wl_init();
	if (argc < 2 || (strcmp(argv[1], "raw") && strcmp(argv[1], "libc") &&
			 strcmp(argv[1], "yield") &&
			 strcmp(argv[1], "spin_after") &&
			 strcmp(argv[1], "blocked_after")))
		return 2;
	raw = strcmp(argv[1], "raw") == 0;
	yield = strcmp(argv[1], "yield") == 0;
	spin_after = strcmp(argv[1], "spin_after") == 0;
	blocked_after = strcmp(argv[1], "blocked_after") == 0;
	WL_OK(sem_init(&ready, 0, 0));
	WL_OK(sem_init(&never, 0, 0));
	WL_OK(pthread_create(&t, NULL, thread_t, NULL));
	WL_OK(sem_wait(&ready));
	wl_region("a", 100);
	if (spin_after || blocked_after) {
		printf("futex done\n");
		fflush(stdout);
		exit(0);	/* T still polling */
	}
	atomic_store(&flag, 1);
	if (!yield)
		futex(&flag, FUTEX_WAKE_PRIVATE, 1);
	wl_region("c", 10);
	WL_OK(pthread_join(t, NULL));
	printf("futex done\n");
	return 0;
}
