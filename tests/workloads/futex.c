/*
 * futex.c - a thread that waits where no wrapper sees it: on a raw futex
 * system call, for main to finish "a".  Times in ms.
 *
 *   main: create T; wait R; "a" 100; flag = 1; FUTEX_WAKE; "c" 10; join T
 *   T:    post R; FUTEX_WAIT until flag (blocked ~100, unseen); "d" 10
 *
 * (Semaphore R makes main start "a" only once T runs, so that T blocks
 * for all of it however late a busy machine starts T.)
 *
 * Under the wall clock the tracer counts T's ~100 ms of blocking as useful
 * time (it saw no wait), so the report must say that thread 1 waited
 * about 100 ms outside any traced call.  Under the cpu clock the blocking
 * costs nothing and nothing is said.
 */
#include "wl.h"

#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int flag;
static sem_t ready;

static void *thread_t(void *arg)
{
	(void)arg;
	WL_OK(sem_post(&ready));
	while (!atomic_load(&flag))
		syscall(SYS_futex, &flag, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	wl_region("d", 10);
	return NULL;
}

int main(void)
{
	pthread_t t;

	wl_init();
	WL_OK(sem_init(&ready, 0, 0));
	WL_OK(pthread_create(&t, NULL, thread_t, NULL));
	WL_OK(sem_wait(&ready));
	wl_region("a", 100);
	atomic_store(&flag, 1);
	syscall(SYS_futex, &flag, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	wl_region("c", 10);
	WL_OK(pthread_join(t, NULL));
	printf("futex done\n");
	return 0;
}
