/*
 * spin.c - a spin-lock hand-over; the waiter spins, and spinning is
 * waiting, not useful time, under both clocks.
 *
 *   main: lock S; create T; "a" 25; unlock S; "c" 25; join T
 *   T:    "b" 5; lock S (spins ~20); "d" 35; unlock S
 *
 * Paths:  a -> (S) -> d = 60     a -> c = 50     b -> d = 40
 * Critical path 60.  CP share: a 25, d 35, b 0, c 0.
 * Zeroing:
 *   a: max(d, c, b+d) = 40 -> 20     d: max(a, a+c, b) = 50 -> 10
 *   b: 60 -> 0                       c: 60 -> 0
 * Useful time: main 50, T 40 (the ~20 ms of spinning is not useful, even
 * though it burns CPU).  Objects: S, 2 acquires.
 */
#include "wl.h"

static pthread_spinlock_t s;

static void *thread_t(void *arg)
{
	(void)arg;
	wl_region("b", 5);
	WL_OK(pthread_spin_lock(&s));
	wl_region("d", 35);
	WL_OK(pthread_spin_unlock(&s));
	return NULL;
}

int main(void)
{
	pthread_t t;

	wl_init();
	WL_OK(pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE));
	WL_OK(pthread_spin_lock(&s));
	WL_OK(pthread_create(&t, NULL, thread_t, NULL));
	wl_region("a", 25);
	WL_OK(pthread_spin_unlock(&s));
	wl_region("c", 25);
	WL_OK(pthread_join(t, NULL));
	printf("spin done\n");
	return 0;
}
