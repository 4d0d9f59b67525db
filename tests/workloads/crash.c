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
 *   hexit  _exit(0) in a handler of SIGUSR1, which the program raises
 *   lone   the same, before any thread is started (and with N ignored):
 *          one thread, no synchronization
 *   kill   kill(getpid(), SIGKILL): the end nothing can intercept,
 *          sent by the program itself once A is joined, so that what the
 *          trace holds does not depend on how loaded the machine is (a
 *          kill from outside after a fixed delay once came before any
 *          block was written); worker B ends after 10N acquisitions
 *   killdef  as kill, but worker B takes the mutex first (defining it
 *          in its trace buffer), then spins without recording anything
 *          until the end, so its buffer is never written: A's events on
 *          the mutex must still be usable (A defines it again)
 *   count  the benchmark's mode (tests/bench/bench_crash.c): A never
 *          stops either, and each worker counts its acquisitions in the
 *          file WL_COUNTER (two u64, mapped shared) right after each
 *          lock returns, so that what the trace must hold survives a kill
 *   handler  installs its own SIGSEGV handler (SA_SIGINFO, after the
 *          tracer's), checks that sigaction() and signal() report it
 *          back, then faults: the handler says "handled" and calls
 *          abort(), so the run ends by SIGABRT
 *   sysv, xsysv, sigset, bsd  install a SIGSEGV handler with
 *          sysv_signal, __sysv_signal (signal() under -std=c11), sigset
 *          or bsd_signal (glibc's older calls), then fault: the handler
 *          says "handled", restores the default (sysv_signal's handler is
 *          reset before it runs; the others call the same function with
 *          SIG_DFL) and returns, so the store faults again and the run
 *          dies of SIGSEGV.  Mode sigset also checks that sigignore()
 *          is read back by sigaction().
 *   quick  registers an at_quick_exit handler (it says "quick handler")
 *          and ends by quick_exit(3)
 * Nothing is written on stdout; "A done" goes to stderr before the end.
 */
#include "wl.h"	/* first: _GNU_SOURCE for sysv_signal, sighandler_t */

#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

/* glibc exports it, <signal.h> declares it only for old X/Open levels */
sighandler_t bsd_signal(int sig, sighandler_t handler);

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long counter;
static uint64_t *counts;	/* mode count: acquisitions of A and B */

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

/* sigset, deprecated in glibc's header (the call under test). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static sighandler_t (*const old_sigset)(int, sighandler_t) = sigset;
static int (*const old_sigignore)(int) = sigignore;
#pragma GCC diagnostic pop

/* Mode sysv, sigset or bsd: the function that set the handler. */
static sighandler_t (*set_disp)(int, sighandler_t);

static void say(const char *msg)
{
	if (write(2, msg, strlen(msg)) < 0)
		_exit(3);
}

static void on_segv_once(int sig)
{
	say("handled\n");
	if (set_disp != sysv_signal && set_disp != __sysv_signal)
		set_disp(sig, SIG_DFL);
}

/* Install on_segv_once with @set and check what sigaction reads back. */
static void install_old_style(sighandler_t (*set)(int, sighandler_t))
{
	bool sysv = set == sysv_signal || set == __sysv_signal;
	struct sigaction old;
	bool once;

	set_disp = set;
	if (set(SIGSEGV, on_segv_once) != SIG_DFL)
		say("previous SIGSEGV handler not the default\n");
	WL_OK(sigaction(SIGSEGV, NULL, &old));
	once = old.sa_flags & SA_RESETHAND;
	if (old.sa_handler != on_segv_once || once != sysv)
		say("sigaction reports another SIGSEGV handler\n");
}

static void on_usr1_exit(int sig)
{
	(void)sig;
	_exit(0);
}

/* Modes hexit and lone: _exit in a signal handler (one the tracer does
 * not take over). */
static void exit_in_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1_exit;
	sigemptyset(&sa.sa_mask);
	WL_OK(sigaction(SIGUSR1, &sa, NULL));
	raise(SIGUSR1);
}

static void on_quick_exit(void)
{
	say("quick handler\n");
}

static atomic_int b_took;	/* mode killdef: B has taken the mutex */

/* Mode killdef's worker B: one acquisition, then nothing it records. */
static void *worker_b_first(void *arg)
{
	(void)arg;
	WL_OK(pthread_mutex_lock(&m));
	counter++;
	WL_OK(pthread_mutex_unlock(&m));
	atomic_store(&b_took, 1);
	for (;;)	/* until the kill; no end if it never comes: the
			 * harness's timeout ends the run */
		sched_yield();
	return NULL;
}

static void *worker_b(void *arg)
{
	uint64_t limit = (uintptr_t)arg;	/* 0: no end */

	for (uint64_t k = 1; !limit || k <= limit; k++) {
		WL_OK(pthread_mutex_lock(&m));
		count_acquire(1, k);
		counter++;
		WL_OK(pthread_mutex_unlock(&m));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000;
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t a, b;

	wl_init();
	if (!strcmp(mode, "lone"))
		exit_in_handler();
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
	if (!strcmp(mode, "killdef")) {
		WL_OK(pthread_create(&b, NULL, worker_b_first, NULL));
		while (!atomic_load(&b_took))
			sched_yield();
		WL_OK(pthread_create(&a, NULL, worker_a,
				     (void *)(uintptr_t)n));
	} else {
		WL_OK(pthread_create(&a, NULL, worker_a,
				     (void *)(uintptr_t)n));
		WL_OK(pthread_create(&b, NULL, worker_b,
				     !strcmp(mode, "kill") ?
				     (void *)(uintptr_t)(10 * n) : NULL));
	}
	WL_OK(pthread_join(a, NULL));
	fprintf(stderr, "A done\n");
	if (!strcmp(mode, "handler"))
		install_handler();
	else if (!strcmp(mode, "sysv"))
		install_old_style(sysv_signal);
	else if (!strcmp(mode, "bsd"))
		install_old_style(bsd_signal);
	else if (!strcmp(mode, "xsysv"))
		install_old_style(__sysv_signal);
	else if (!strcmp(mode, "sigset")) {
		struct sigaction old;

		install_old_style(old_sigset);
		WL_OK(old_sigignore(SIGHUP));
		WL_OK(sigaction(SIGHUP, NULL, &old));
		if (old.sa_handler != SIG_IGN)
			say("sigaction does not report sigignore's SIGHUP\n");
	}
	if (!strcmp(mode, "segv") || !strcmp(mode, "handler") ||
	    set_disp)
		*(volatile int *)(uintptr_t)argc /* 1 or more */ = 0;
	else if (!strcmp(mode, "quick")) {
		WL_OK(at_quick_exit(on_quick_exit));
		quick_exit(3);
	}
	else if (!strcmp(mode, "abort"))
		abort();
	else if (!strcmp(mode, "term"))
		raise(SIGTERM);
	else if (!strcmp(mode, "exit0"))
		_exit(0);
	else if (!strcmp(mode, "hexit"))
		exit_in_handler();
	else if (!strcmp(mode, "kill") || !strcmp(mode, "killdef"))
		kill(getpid(), SIGKILL);
	fprintf(stderr, "usage: wl_crash segv|abort|term|exit0|hexit|lone|"
		"kill|killdef|count|handler|sysv|xsysv|sigset|bsd|quick "
		"[N]\n");
	return 2;
}
