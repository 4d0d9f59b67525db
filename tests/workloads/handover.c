/*
 * handover.c - a lock handed over without contention: the second
 * acquire finds the lock free, yet it still depends on the first release
 * (the n-th acquire after the (n-1)-th release, waited or not).
 *
 * T waits on a silent (untracked) semaphore U that main posts after its
 * unlock, so T's own path stays short and its acquire never waits.
 *
 *   main: lock L; create T; "a" 25; unlock L; post U; "c" 20; join T
 *   T:    "b" 5; wait U (silent); lock L (free); "d" 35; unlock L
 *
 * Paths: a -> (L) -> d = 60; a c = 45; b d = 40.
 * Critical path 60.  CP share: a 25, d 35, b 0, c 0.
 * Zeroing: a -> max(b d, c) = 40: 20;  d -> a c = 45: 15;  b, c -> 0.
 * Useful: main 45, T 40.  Objects: L, 2 acquires, none contended.
 *
 * Argument: the lock and how T takes it: "mutex" (pthread_mutex_lock),
 * "trylock" (pthread_mutex_trylock), "spin" (pthread_spin_lock), "rwlock"
 * (pthread_rwlock_wrlock by both), "inner" (a mutex, with the regions
 * open around the lock calls instead of between them:
 *
 *   main: lock L; create T; begin "a"; 25; unlock L; end "a"; post U; ...
 *   T:    "b" 5; wait U; begin "d"; lock L (free); 35; unlock L; end "d"
 *
 * same graph, but the regions' time reaches the path only through the
 * lock events that fall inside them), "copy" (a mutex, but L starts as a
 * byte copy of another mutex D that main locked and unlocked three times
 * first: L carries whatever the tracer left in D's bytes, yet is an
 * object of its own.  Objects: L with 2 acquires, D with 3; a D record
 * taken for L would cut the edge a -> d and the path would be 45).
 */
#include <stdbool.h>

#include "wl.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t d = PTHREAD_MUTEX_INITIALIZER;	/* "copy" */
static pthread_spinlock_t s;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t u;
static const char *how;

static void take(int by_thread)
{
	if (strcmp(how, "spin") == 0)
		WL_OK(pthread_spin_lock(&s));
	else if (strcmp(how, "rwlock") == 0)
		WL_OK(pthread_rwlock_wrlock(&rw));
	else if (by_thread && strcmp(how, "trylock") == 0)
		WL_OK(pthread_mutex_trylock(&m));
	else
		WL_OK(pthread_mutex_lock(&m));
}

static void give(void)
{
	if (strcmp(how, "spin") == 0)
		WL_OK(pthread_spin_unlock(&s));
	else if (strcmp(how, "rwlock") == 0)
		WL_OK(pthread_rwlock_unlock(&rw));
	else
		WL_OK(pthread_mutex_unlock(&m));
}

static bool inner(void)
{
	return strcmp(how, "inner") == 0;
}

/* @name's time, @ms, between take() and give() (in that order when
 * @take_first), inside the region or around it as inner() says. */
static void hold(const char *name, unsigned ms, bool take_first)
{
	if (!inner()) {
		if (take_first)
			take(1);
		wl_region(name, ms);
		give();
		return;
	}
	WL_ANNOTATE(cpthread_region_begin, name);
	if (take_first)
		take(1);
	wl_burn(ms);
	give();
	WL_ANNOTATE(cpthread_region_end, name);
}

static void *thread_t(void *arg)
{
	(void)arg;
	wl_region("b", 5);
	wl_sem_wait(&u);
	hold("d", 35, true);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	wl_init();
	how = argc > 1 ? argv[1] : "mutex";
	WL_OK(pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE));
	wl_silent_init(&u);
	if (strcmp(how, "copy") == 0) {
		for (int i = 0; i < 3; i++) {
			WL_OK(pthread_mutex_lock(&d));
			WL_OK(pthread_mutex_unlock(&d));
		}
		memcpy(&m, &d, sizeof(m));
	}
	take(0);
	WL_OK(pthread_create(&t, NULL, thread_t, NULL));
	hold("a", 25, false);
	WL_OK(sem_post(&u));
	wl_region("c", 20);
	WL_OK(pthread_join(t, NULL));
	printf("handover %s done\n", how);
	return 0;
}
