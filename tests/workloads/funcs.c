/*
 * funcs.c - procedures seen through -finstrument-functions (inclusive
 * time) and a region around them.  Built with -finstrument-functions.
 *
 *   main: create T; region "phase" { work_a() }; post S; work_d(); join T
 *   T:    work_c(); wait S; work_b()
 *   work_a = burn 20 + work_b();  work_b = burn 15;  work_c = burn 25;
 *   work_d = burn 5.
 *
 * T's wait ends when main posts S, at main's path 35; T ends at 50; main
 * alone reaches 40.
 * Critical path 50 = work_a (35, of which work_b 15) + work_b 15 on T.
 * CP share (inclusive): work_a 35, work_b 30, phase 35, work_c 0,
 * work_d 0.
 * Zeroing (all the procedure's inclusive time at zero):
 *   work_a, phase -> max(work_c + work_b, work_d) = 40: 10
 *   work_b -> max(20 + work_d, max(work_c, 20) + 0) = 25: 25
 *   work_c, work_d -> 50: 0
 * CPU: work_a 35, work_b 30, work_c 25, work_d 5, phase 35.
 * Useful: main 40, T 40.
 */
#include "wl.h"

static sem_t s;

__attribute__((noipa)) void work_b(void);
__attribute__((noipa)) void work_a(void);
__attribute__((noipa)) void work_c(void);
__attribute__((noipa)) void work_d(void);

__attribute__((noipa)) void work_b(void)
{
	wl_burn(15);
}

__attribute__((noipa)) void work_a(void)
{
	wl_burn(20);
	work_b();
}

__attribute__((noipa)) void work_c(void)
{
	wl_burn(25);
}

__attribute__((noipa)) void work_d(void)
{
	wl_burn(5);
}

static void *thread_t(void *arg)
{
	(void)arg;
	work_c();
	wl_sem_wait(&s);
	work_b();
	return NULL;
}

int main(void)
{
	pthread_t t;

	wl_init();
	WL_OK(sem_init(&s, 0, 0));
	WL_OK(pthread_create(&t, NULL, thread_t, NULL));
	WL_ANNOTATE(cpthread_region_begin, "phase");
	work_a();
	WL_ANNOTATE(cpthread_region_end, "phase");
	WL_OK(sem_post(&s));
	work_d();
	WL_OK(pthread_join(t, NULL));
	printf("funcs done\n");
	return 0;
}
