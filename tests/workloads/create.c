/*
 * create.c - thread creation and join edges, nested two deep.
 *
 * A child's first event depends on its creation; a join depends on the
 * child's last event.  A joins B with pthread_timedjoin_np (a far
 * deadline) and B ends with pthread_exit, so both paths of each are
 * covered.
 *
 *   main: "m1" 20; create A; "m2" 15; join A; "m3" 5
 *   A:    "a" 30; create B; "a2" 10; timedjoin B
 *   B:    "b" 25; pthread_exit
 *
 * A starts with path 20, creates B at 50; B ends at 75; A joins at 75;
 * main (35 on its own) joins A at 75 and ends at 80.
 * Critical path 80.  CP share: m1 20, a 30, b 25, m3 5, m2 0, a2 0.
 * Zeroing:
 *   m1 -> 60: 20      a -> max(m1 b, m1 a2, m1 m2) + m3 = 50: 30
 *   b -> max(m1 a a2, m1 m2) + m3 = 65: 15      m3 -> 75: 5
 *   m2, a2 -> 80: 0
 * Useful: main 40, A 40, B 25.  Threads: 3.
 */
#include "wl.h"

static void *thread_b(void *arg)
{
	(void)arg;
	wl_region("b", 25);
	pthread_exit(NULL);
}

static void *thread_a(void *arg)
{
	pthread_t b;
	struct timespec ts;

	(void)arg;
	wl_region("a", 30);
	WL_OK(pthread_create(&b, NULL, thread_b, NULL));
	wl_region("a2", 10);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 60;
	WL_OK(pthread_timedjoin_np(b, NULL, &ts));
	return NULL;
}

int main(void)
{
	pthread_t a;

	wl_init();
	wl_region("m1", 20);
	WL_OK(pthread_create(&a, NULL, thread_a, NULL));
	wl_region("m2", 15);
	WL_OK(pthread_join(a, NULL));
	wl_region("m3", 5);
	printf("create done\n");
	return 0;
}
