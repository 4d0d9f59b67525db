/*
 * sigwait.c - a thread that waits for a signal main sends once "a" is
 * done.  Times in ms; regions in quotes.
 *
 *   main: block SIGUSR1; create T; wait R; "a" 100; send SIGUSR1;
 *         "c" 10; join T
 *   T:    post R; wait for SIGUSR1 (~100); "d" 20
 *
 * (T inherits the blocked SIGUSR1, so the signal stays pending until T
 * waits for it, however late a busy machine runs T.)  The argument names
 * the wait and the send:
 *   sigwait       sigwait, sent by pthread_kill
 *   sigwaitinfo   sigwaitinfo, sent by kill to the process (main has it
 *                 blocked: T takes it)
 *   sigtimedwait  sigtimedwait with a 60 s timeout, sent by sigqueue
 *   sigsuspend    sigsuspend letting SIGUSR1 through to a handler, in a
 *                 loop until the handler has run, sent by pthread_kill
 * T's wake depends on main's send.
 *   Paths: a -> d = 120, a -> c = 110.  CP 120: a 100, d 20, c 0.
 *   Zeroing: a 100, d 10, c 0.  Useful: main 110, T 20.
 */
#include "wl.h"

#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

static sem_t ready;
static sigset_t usr1;
static const char *mode;
static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled = 1;
}

static void *thread_t(void *arg)
{
	siginfo_t si;
	int sig = 0;

	(void)arg;
	WL_OK(sem_post(&ready));
	if (!strcmp(mode, "sigwait")) {
		WL_OK(sigwait(&usr1, &sig));
	} else if (!strcmp(mode, "sigwaitinfo")) {
		sig = sigwaitinfo(&usr1, &si);
	} else if (!strcmp(mode, "sigtimedwait")) {
		struct timespec ts = { 60, 0 };

		sig = sigtimedwait(&usr1, &si, &ts);
	} else {
		sigset_t let;

		WL_OK(pthread_sigmask(SIG_BLOCK, NULL, &let));
		sigdelset(&let, SIGUSR1);
		while (!handled)
			sigsuspend(&let);
		sig = SIGUSR1;
	}
	if (sig != SIGUSR1) {
		fprintf(stderr, "sigwait: %s returned %d\n", mode, sig);
		exit(1);
	}
	wl_region("d", 20);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t t;

	wl_init();
	mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "sigwait") && strcmp(mode, "sigwaitinfo") &&
	    strcmp(mode, "sigtimedwait") && strcmp(mode, "sigsuspend"))
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	WL_OK(sigaction(SIGUSR1, &sa, NULL));
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	WL_OK(pthread_sigmask(SIG_BLOCK, &usr1, NULL));
	WL_OK(sem_init(&ready, 0, 0));
	WL_OK(pthread_create(&t, NULL, thread_t, NULL));
	WL_OK(sem_wait(&ready));
	wl_region("a", 100);
	if (!strcmp(mode, "sigwaitinfo")) {
		WL_OK(kill(getpid(), SIGUSR1));
	} else if (!strcmp(mode, "sigtimedwait")) {
		union sigval v = { .sival_int = 7 };

		WL_OK(sigqueue(getpid(), SIGUSR1, v));
	} else {
		WL_OK(pthread_kill(t, SIGUSR1));
	}
	wl_region("c", 10);
	WL_OK(pthread_join(t, NULL));
	printf("sigwait done\n");
	return 0;
}
