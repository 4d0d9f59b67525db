/*
 * sem.c - a counting semaphore S with one initial token and two posts.
 *
 * The k-th successful wait depends on the post that provided its token,
 * posts served first in, first out after the initial tokens, which depend
 * on nothing.  main's post of S comes before P's: P posts only after a
 * wait on "order", which main posts after its own post of S.  C makes its
 * three waits only after both posts were made: it first waits on a silent
 * (untracked) semaphore U that P posts last, so C's own path stays short
 * (10) while the tokens pile up.
 *
 *   main: create P C; "m1" 30; post S (#1, path 30); post order; "m2" 10
 *   P:    "p" 50; wait order; post S (#2, path 50); post U
 *   C:    "c1" 10; wait U (silent); wait S (initial token: path stays 10);
 *         "c2" 10; wait S (#1: 30); "c3" 10; wait S (#2: 50); "c4" 15
 *
 * Paths: p c4 = 65; m1 c3 c4 = 55; c1 c2 c3 c4 = 45; m1 m2 = 40.
 * Critical path 65.  CP share: p 50, c4 15, others 0.
 * Zeroing: p -> 55: 10;  c4 -> max(p, m1 c3, m1 m2) = 50: 15;
 *          m1, m2, c1, c2, c3 -> 65: 0.
 * A wait that took the latest post instead of the post that provided
 * its token would give 85; one that ignored the initial token (k-th wait
 * after the k-th post) would give 75.
 * Useful: main 40, P 50, C 45.  Objects: S, 2 posts and 3 waits.
 */
#include "wl.h"

static sem_t s, order, u;

static void *producer(void *arg)
{
	(void)arg;
	wl_region("p", 50);
	wl_sem_wait(&order);
	WL_OK(sem_post(&s));
	WL_OK(sem_post(&u));
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	wl_region("c1", 10);
	wl_sem_wait(&u);
	wl_sem_wait(&s);
	wl_region("c2", 10);
	wl_sem_wait(&s);
	wl_region("c3", 10);
	wl_sem_wait(&s);
	wl_region("c4", 15);
	return NULL;
}

int main(void)
{
	pthread_t p, c;

	wl_init();
	WL_OK(sem_init(&s, 0, 1));
	WL_OK(sem_init(&order, 0, 0));
	wl_silent_init(&u);
	WL_OK(pthread_create(&p, NULL, producer, NULL));
	WL_OK(pthread_create(&c, NULL, consumer, NULL));
	wl_region("m1", 30);
	WL_OK(sem_post(&s));
	WL_OK(sem_post(&order));
	wl_region("m2", 10);
	WL_OK(pthread_join(p, NULL));
	WL_OK(pthread_join(c, NULL));
	printf("sem done\n");
	return 0;
}
