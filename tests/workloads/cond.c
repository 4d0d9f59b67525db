/*
 * cond.c - a signal, then a broadcast, each made outside the mutex after
 * a burn, so that the wake's dependency on the signal carries a longer
 * path than the mutex re-acquire does.
 *
 * Phase 1 (signal): T1 waits on C1 under M1 for flag1.  main makes sure
 * T1 is waiting (a counter under M1), burns "m1" 30, sets flag1 under M1,
 * burns "m2" 20 outside it, then signals C1.  T1's wake depends on the
 * signal (path 50), its re-acquire of M1 only on main's unlock (30).
 * Phase 2 (broadcast): T2 and T3 wait on C2 under M2.  T1, woken, burns
 * "t1" 25, sets flag2 under M2, burns "t1b" 10, broadcasts C2.  T2 burns
 * "w2" 20, T3 burns "w3" 30.
 *
 *   m1 30 -> m2 20 -(signal)-> t1 25 -> t1b 10 -(broadcast)-> w3 30
 *
 * Critical path 115.  CP share: m1 30, m2 20, t1 25, t1b 10, w3 30, w2 0.
 * Zeroing:
 *   m1 -> 85: 30     m2 -> m1 t1 t1b w3 (via M1's re-acquire) = 95: 20
 *   t1 -> 90: 25     t1b -> 105: 10     w3 -> ... w2 = 105: 10
 *   w2 -> 115: 0
 * Without the cond edges the answer would be 85 (mutex edges only).
 * Useful: main 50, T1 35, T2 20, T3 30.
 */
#include "wl.h"

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c1 = PTHREAD_COND_INITIALIZER;
static pthread_cond_t c2 = PTHREAD_COND_INITIALIZER;
static int flag1, flag2, waiting1, waiting2;

/* Lock @m and return once *@count reached @n (waiters are in the wait). */
static void lock_when(pthread_mutex_t *m, int *count, int n)
{
	WL_OK(pthread_mutex_lock(m));
	while (*count < n) {
		WL_OK(pthread_mutex_unlock(m));
		sched_yield();
		WL_OK(pthread_mutex_lock(m));
	}
}

static void wait_flag(pthread_mutex_t *m, pthread_cond_t *c, int *flag,
		      int *waiting)
{
	WL_OK(pthread_mutex_lock(m));
	(*waiting)++;
	while (!*flag)
		WL_OK(pthread_cond_wait(c, m));
	WL_OK(pthread_mutex_unlock(m));
}

static void *thread_1(void *arg)
{
	(void)arg;
	wait_flag(&m1, &c1, &flag1, &waiting1);
	wl_region("t1", 25);
	lock_when(&m2, &waiting2, 2);
	flag2 = 1;
	WL_OK(pthread_mutex_unlock(&m2));
	wl_region("t1b", 10);
	WL_OK(pthread_cond_broadcast(&c2));
	return NULL;
}

static void *thread_w(void *arg)
{
	const char *name = arg;

	wait_flag(&m2, &c2, &flag2, &waiting2);
	wl_region(name, strcmp(name, "w2") == 0 ? 20 : 30);
	return NULL;
}

int main(void)
{
	pthread_t t1, t2, t3;

	wl_init();
	WL_OK(pthread_create(&t1, NULL, thread_1, NULL));
	WL_OK(pthread_create(&t2, NULL, thread_w, "w2"));
	WL_OK(pthread_create(&t3, NULL, thread_w, "w3"));
	wl_region("m1", 30);
	lock_when(&m1, &waiting1, 1);
	flag1 = 1;
	WL_OK(pthread_mutex_unlock(&m1));
	wl_region("m2", 20);
	WL_OK(pthread_cond_signal(&c1));
	WL_OK(pthread_join(t1, NULL));
	WL_OK(pthread_join(t2, NULL));
	WL_OK(pthread_join(t3, NULL));
	printf("cond done\n");
	return 0;
}
