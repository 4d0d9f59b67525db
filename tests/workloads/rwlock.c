/*
 * rwlock.c - readers after a writer, a writer after both readers.
 *
 * main holds L for writing before the readers exist, so both read
 * acquires follow main's write release.  The writer W asks for L only
 * after both readers hold it (semaphore "ready", posted by each reader
 * once it holds L), so its write acquire follows both read releases.  R2
 * releases last in wall time but holds the shorter path: it waits for R1
 * on a silent (untracked) semaphore U before unlocking.  A write acquire
 * that took only the latest read release would miss R1's longer path.
 *
 *   main: wrlock L; create R1 R2 W; "w0" 20; unlock L; join all
 *   R1:   rdlock L; post ready; "r1" 30; unlock L; post U
 *   R2:   rdlock L; post ready; "r2" 15; wait U (silent); unlock L
 *   W:    wait ready x2; wrlock L; "w1" 25; unlock L
 *
 * Paths: w0 r1 w1 = 75; w0 r2 w1 = 60; r1 w1 = 55; r2 w1 = 40.
 * Critical path 75.  CP share: w0 20, r1 30, w1 25, r2 0.
 * Zeroing: w0 -> max(r1 w1, r2 w1) = 55: 20;  r1 -> w0 r2 w1 = 60: 15;
 *          w1 -> w0 r1 = 50: 25;  r2 -> 75: 0.
 * Useful time: main 20, R1 30, R2 15, W 25.
 * Objects: L, 4 acquires (2 write, 2 read).
 */
#include "wl.h"

static pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
static sem_t ready, u;

static void *reader1(void *arg)
{
	(void)arg;
	WL_OK(pthread_rwlock_rdlock(&l));
	WL_OK(sem_post(&ready));
	wl_region("r1", 30);
	WL_OK(pthread_rwlock_unlock(&l));
	WL_OK(sem_post(&u));
	return NULL;
}

static void *reader2(void *arg)
{
	(void)arg;
	WL_OK(pthread_rwlock_rdlock(&l));
	WL_OK(sem_post(&ready));
	wl_region("r2", 15);
	wl_sem_wait(&u);
	WL_OK(pthread_rwlock_unlock(&l));
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	wl_sem_wait(&ready);
	wl_sem_wait(&ready);
	WL_OK(pthread_rwlock_wrlock(&l));
	wl_region("w1", 25);
	WL_OK(pthread_rwlock_unlock(&l));
	return NULL;
}

int main(void)
{
	pthread_t r1, r2, w;

	wl_init();
	WL_OK(sem_init(&ready, 0, 0));
	wl_silent_init(&u);
	WL_OK(pthread_rwlock_wrlock(&l));
	WL_OK(pthread_create(&r1, NULL, reader1, NULL));
	WL_OK(pthread_create(&r2, NULL, reader2, NULL));
	WL_OK(pthread_create(&w, NULL, writer, NULL));
	wl_region("w0", 20);
	WL_OK(pthread_rwlock_unlock(&l));
	WL_OK(pthread_join(r1, NULL));
	WL_OK(pthread_join(r2, NULL));
	WL_OK(pthread_join(w, NULL));
	printf("rwlock done\n");
	return 0;
}
