/*
 * c11.c - the mutex hand-over of mutex.c written with C11 <threads.h>.
 *
 * main locks M before T exists, so T's acquire is the second acquire of M
 * and depends on main's release.  Times in ms; regions in quotes.
 *
 *   main: lock M; create T; "a" 30; unlock M; "c" 20; join T
 *   T:    "b" 10; lock M (waits ~20); "d" 40; unlock M
 *
 * Paths from start to end:
 *   a -> (M) -> d = 70     a -> c = 50     b -> d = 50
 * Critical path 70.  CP share: a 30, d 40, b 0, c 0.
 * Zeroing: a: 70 -> 20, d: 70 -> 20, b and c: 0.
 * Useful time: main 50, T 50.  Objects: M, 2 acquires.
 *
 * Variants (one argument):
 *   timed      T takes M with mtx_timedlock (a far deadline).
 *   recursive  M is a recursive mutex that main locks twice and unlocks
 *              twice: only the outer unlock hands the lock over, and the
 *              inner one publishes the same path.  M: 3 acquires.
 *   cond       main holds no lock during "a"; at its end it sets a flag
 *              under M and signals C, which T waits for (cnd_wait), so
 *              T's wake depends on the signal: the same graph.  Both
 *              threads also pass a call_once whose function main runs.
 * T's int result comes back through thrd_join, and thrd_exit ends it.
 */
#include "wl.h"

#include <threads.h>

#define C11_OK(call) WL_OK((call) == thrd_success ? 0 : -1)

static mtx_t m;
static cnd_t c;
static once_flag once = ONCE_FLAG_INIT;
static int once_runs, flag;
static const char *variant = "";

static void once_fn(void)
{
	once_runs++;
}

static int thread_t(void *arg)
{
	(void)arg;
	wl_region("b", 10);
	if (strcmp(variant, "timed") == 0) {
		struct timespec ts;

		timespec_get(&ts, TIME_UTC);
		ts.tv_sec += 60;
		C11_OK(mtx_timedlock(&m, &ts));
	} else {
		C11_OK(mtx_lock(&m));
	}
	if (strcmp(variant, "cond") == 0) {
		while (!flag)
			C11_OK(cnd_wait(&c, &m));
		call_once(&once, once_fn);
	}
	wl_region("d", 40);
	C11_OK(mtx_unlock(&m));
	thrd_exit(7);
}

int main(int argc, char **argv)
{
	int recursive, cond, res = 0;
	thrd_t t;

	wl_init();
	if (argc > 1)
		variant = argv[1];
	recursive = strcmp(variant, "recursive") == 0;
	cond = strcmp(variant, "cond") == 0;
	C11_OK(mtx_init(&m, recursive ? mtx_plain | mtx_recursive :
			mtx_timed));
	C11_OK(cnd_init(&c));
	if (cond)
		call_once(&once, once_fn);
	else
		C11_OK(mtx_lock(&m));
	if (recursive)
		C11_OK(mtx_lock(&m));
	C11_OK(thrd_create(&t, thread_t, NULL));
	wl_region("a", 30);
	if (recursive)
		C11_OK(mtx_unlock(&m));
	if (cond) {
		C11_OK(mtx_lock(&m));
		flag = 1;
		C11_OK(cnd_signal(&c));
	}
	C11_OK(mtx_unlock(&m));
	wl_region("c", 20);
	C11_OK(thrd_join(t, &res));
	if (res != 7 || (cond && once_runs != 1)) {
		fprintf(stderr, "c11: thread result %d, once ran %d times\n",
			res, once_runs);
		return 1;
	}
	cnd_destroy(&c);
	mtx_destroy(&m);
	printf("c11 done\n");
	return 0;
}
