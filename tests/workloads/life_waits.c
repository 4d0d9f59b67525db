/*
 * life_waits.c - threads cancelled inside each wait that is a
 * cancellation point: pthread_cond_wait, pthread_cond_timedwait (its
 * deadline an hour away), cnd_wait (C11), sem_wait, pthread_join (of a
 * thread that itself waits on the condition for ever) and sigwait.
 *
 * Each victim posts a silent semaphore (no edge) and blocks; main waits
 * for every post, burns 60 ms, then cancels the victims (the joiner
 * before the thread it joins) and joins each one.  By construction a
 * victim does no work: its useful time is what it takes to start, post
 * and enter its wait (microseconds, a few ms on a busy 2-core machine),
 * and it waits until main cancels it, about 60 ms later.  A tracer that
 * loses the wait when the cancellation unwinds the call counts those
 * 60 ms as the victim's work, and the critical path then runs through
 * the victim instead of main.
 *
 * Output is fixed: each victim ends cancelled, and the mutex is free.
 */
#include "wl.h"

#include <signal.h>
#include <threads.h>

#define BURN_MS 60

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static mtx_t cm;
static cnd_t cc;
static sem_t ready, never;
static pthread_t joinee;

static void unlock(void *mx)
{
	WL_OK(pthread_mutex_unlock(mx));
}

static void c11_unlock(void *mx)
{
	mtx_unlock(mx);
}

static void *cond_waiter(void *arg)
{
	WL_OK(pthread_mutex_lock(&m));
	WL_OK(sem_post(&ready));
	pthread_cleanup_push(unlock, &m);
	for (;;)
		WL_OK(pthread_cond_wait(&c, &m));
	pthread_cleanup_pop(1);
	return arg;
}

static void *timed_waiter(void *arg)
{
	struct timespec ts;

	WL_OK(clock_gettime(CLOCK_REALTIME, &ts));
	ts.tv_sec += 3600;
	WL_OK(pthread_mutex_lock(&m));
	WL_OK(sem_post(&ready));
	pthread_cleanup_push(unlock, &m);
	for (;;)
		WL_OK(pthread_cond_timedwait(&c, &m, &ts));
	pthread_cleanup_pop(1);
	return arg;
}

static void *c11_waiter(void *arg)
{
	if (mtx_lock(&cm) != thrd_success)
		abort();
	WL_OK(sem_post(&ready));
	pthread_cleanup_push(c11_unlock, &cm);
	for (;;)
		if (cnd_wait(&cc, &cm) != thrd_success)
			abort();
	pthread_cleanup_pop(1);
	return arg;
}

static void *sem_waiter(void *arg)
{
	WL_OK(sem_post(&ready));
	for (;;)
		wl_sem_wait(&never);
	return arg;
}

static void *joiner(void *arg)
{
	WL_OK(sem_post(&ready));
	WL_OK(pthread_join(joinee, NULL));
	abort();		/* the joinee never ends first */
	return arg;
}

static void *sig_waiter(void *arg)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	WL_OK(sem_post(&ready));
	for (;;)
		WL_OK(sigwait(&set, &sig));
	return arg;
}

static const struct {
	const char *name;
	void *(*fn)(void *);
} victims[] = {
	{ "cond", cond_waiter }, { "timedwait", timed_waiter },
	{ "cnd_wait", c11_waiter }, { "sem", sem_waiter },
	{ "join", joiner }, { "sigwait", sig_waiter },
};

/* Victim @arg (its index; -1: the joinee), cancelled as wl.h says. */
static void *victim(void *arg)
{
	intptr_t i = (intptr_t)arg;
	void *ret;

	pthread_cleanup_push(wl_unwound, NULL);
	ret = i < 0 ? cond_waiter(NULL) : victims[i].fn(NULL);
	pthread_cleanup_pop(0);
	return ret;
}

int main(void)
{
	enum { N = sizeof(victims) / sizeof(victims[0]) };
	pthread_t t[N];
	sigset_t set;
	void *ret;

	wl_init();
	wl_silent_init(&ready);
	WL_OK(sem_init(&never, 0, 0));
	if (mtx_init(&cm, mtx_plain) != thrd_success ||
	    cnd_init(&cc) != thrd_success)
		abort();
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	WL_OK(pthread_sigmask(SIG_BLOCK, &set, NULL));	/* inherited */
	WL_OK(pthread_create(&joinee, NULL, victim, (void *)(intptr_t)-1));
	wl_sem_wait(&ready);
	for (int i = 0; i < N; i++)
		WL_OK(pthread_create(&t[i], NULL, victim, (void *)(intptr_t)i));
	for (int i = 0; i < N; i++)
		wl_sem_wait(&ready);
	wl_burn(BURN_MS);
	for (int i = 0; i < N; i++) {
		WL_OK(pthread_cancel(t[i]));
		WL_OK(pthread_join(t[i], &ret));
		printf("%s: canceled=%d\n", victims[i].name,
		       ret == PTHREAD_CANCELED);
	}
	WL_OK(pthread_cancel(joinee));
	WL_OK(pthread_join(joinee, &ret));
	printf("joinee: canceled=%d\n", ret == PTHREAD_CANCELED);
	printf("mutex free %d\n", pthread_mutex_trylock(&m) == 0);
	return 0;
}
