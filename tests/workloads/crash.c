/*
 * crash.c - a lock-heavy run that does not end by exit().
 *
 * Usage: wl_crash MODE [N]
 * Two workers hammer one mutex.  Worker A locks and unlocks it N times
 * (default 20000) and returns; worker B never stops.  Main joins A, so by
 * then A's 2N lock events at least have been recorded (and A's buffer
 * written at its exit), and then the process ends while B is still in
 * its loop:
 *   segv   a store through a null pointer (SIGSEGV from the kernel)
 *   abort  abort() (SIGABRT)
 *   term   raise(SIGTERM)
 *   exit0  _exit(0)
 *   kill   pause() until the parent sends SIGKILL
 *   count  the benchmark's mode (tests/bench/bench_crash.c): A never
 *          stops either, and each worker counts its acquisitions in the
 *          file WL_COUNTER (two u64, mapped shared) right after each
 *          lock returns, so that what the trace must hold survives a kill
 *   handler  installs its own SIGSEGV handler (SA_SIGINFO, after the
 *          tracer's), checks that sigaction() and signal() report it
 *          back, then faults: the handler says "handled" and calls
 *          abort(), so the run ends by SIGABRT
 * Nothing is written on stdout; "A done" goes to stderr before the end.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wl.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long counter;
static uint64_t *counts;	/* mode count: acquisitions of A and B */
static int a_done;		/* worker A has returned (atomic) */

/* Count acquisition number @k of worker @w (mode count). */
static void count_acquire(int w, uint64_t k)
{
	if (counts)
		__atomic_store_n(&counts[w], k, __ATOMIC_RELAXED);
}

static void *worker_a(void *arg)
{
	unsigned long n = (unsigned long)(uintptr_t)arg;

	for (unsigned long i = 0; i < n; i++) {
		WL_OK(pthread_mutex_lock(&m));
		count_acquire(0, i + 1);
		counter++;
		WL_OK(pthread_mutex_unlock(&m));
	}
	__atomic_store_n(&a_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	static const char msg[] = "handled\n";

	(void)sig;
	(void)si;
	(void)uc;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	abort();
}

/* Install on_segv and check that the dispositions read back are ours. */
static void install_handler(void)
{
	struct sigaction sa, old;
	void (*prev)(int);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	WL_OK(sigaction(SIGSEGV, &sa, NULL));
	WL_OK(sigaction(SIGSEGV, NULL, &old));
	if (old.sa_sigaction != on_segv || !(old.sa_flags & SA_SIGINFO))
		fprintf(stderr, "sigaction reports another SIGSEGV handler\n");
	prev = signal(SIGUSR1, SIG_IGN);
	if (prev != SIG_DFL)
		fprintf(stderr, "signal reports another SIGUSR1 handler\n");
	prev = signal(SIGTERM, SIG_DFL);
	if (prev != SIG_DFL)
		fprintf(stderr, "signal reports another SIGTERM handler\n");
	prev = signal(SIGTERM, SIG_IGN);
	if (prev != SIG_DFL || signal(SIGTERM, SIG_DFL) != SIG_IGN)
		fprintf(stderr, "signal misreports SIGTERM\n");
}

/*
 * B hammers the mutex until the process ends.  Outside the benchmark's
 * count mode it rests 1 ms after every 4096 acquisitions once A is done,
 * so that the second a killed run lasts writes a trace of a bounded size
 * (unrestrained, a fast machine recorded 49 million events in it).
 */
static void *worker_b(void *arg)
{
	(void)arg;
	for (uint64_t k = 1;; k++) {
		WL_OK(pthread_mutex_lock(&m));
		count_acquire(1, k);
		counter++;
		WL_OK(pthread_mutex_unlock(&m));
		if (!counts && k % 4096 == 0 &&
		    __atomic_load_n(&a_done, __ATOMIC_ACQUIRE))
			usleep(1000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000;
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t a, b;

	wl_init();
	if (!strcmp(mode, "count")) {
		const char *path = getenv("WL_COUNTER");
		int fd = path ? open(path, O_RDWR) : -1;

		counts = fd < 0 ? MAP_FAILED :
			 mmap(NULL, 2 * sizeof(*counts), PROT_READ |
			      PROT_WRITE, MAP_SHARED, fd, 0);
		if (counts == MAP_FAILED) {
			perror("WL_COUNTER");
			return 2;
		}
		n = (unsigned long)-1;
	}
	WL_OK(pthread_create(&a, NULL, worker_a, (void *)(uintptr_t)n));
	WL_OK(pthread_create(&b, NULL, worker_b, NULL));
	WL_OK(pthread_join(a, NULL));
	fprintf(stderr, "A done\n");
	if (!strcmp(mode, "handler"))
		install_handler();
	if (!strcmp(mode, "segv") || !strcmp(mode, "handler"))
		*(volatile int *)(uintptr_t)argc /* 1 or more */ = 0;
	else if (!strcmp(mode, "abort"))
		abort();
	else if (!strcmp(mode, "term"))
		raise(SIGTERM);
	else if (!strcmp(mode, "exit0"))
		_exit(0);
	else if (!strcmp(mode, "kill"))
		for (;;)
			pause();
	fprintf(stderr, "usage: wl_crash segv|abort|term|exit0|kill|count|"
		"handler [N]\n");
	return 2;
}
