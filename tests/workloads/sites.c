/*
 * sites.c - objects first used at known places, for where-first-used
 * (CP_BLOCK_SITE_STACKS): each object's first operation is a call on a line
 * marked with a SITE comment naming the function it is in, so that the
 * report's "site" of the object must name that function and line.
 *
 *   gm      a global mutex, first locked by main in lock_global (once)
 *   q->lk   a mutex inside a heap struct, first locked by T in queue_push
 *           (and then by main: twice)
 *   table   a global rwlock, first read-locked by T in read_table
 *   meet    a barrier, whose first use is its pthread_barrier_init in
 *           main (the tracer learns its count there)
 *
 * In trace mode a site also names the calls that led to it: each first
 * use's caller is a call marked "CALLER site-function from function".
 *
 * With the arguments "lib PATH", it only dlopen()s the shared object PATH
 * (smp_plugin.c) and has its plugin_lock() take a mutex of its own: that
 * object's first use is in the library, which stays loaded.
 *
 * The functions are noinline so that each is a frame of its own.  Timing
 * plays no part.
 */
#include <dlfcn.h>
#include <string.h>

#include "wl.h"

struct queue {
	int items;
	pthread_mutex_t lk;
};

static pthread_mutex_t gm = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t table = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t meet;
static int shared;

__attribute__((noinline)) static void lock_global(void)
{
	WL_OK(pthread_mutex_lock(&gm));	/* SITE lock_global */
	shared++;
	WL_OK(pthread_mutex_unlock(&gm));
}

__attribute__((noinline)) static void queue_push(struct queue *q)
{
	WL_OK(pthread_mutex_lock(&q->lk));	/* SITE queue_push */
	q->items++;
	WL_OK(pthread_mutex_unlock(&q->lk));
}

__attribute__((noinline)) static int read_table(void)
{
	int v;

	WL_OK(pthread_rwlock_rdlock(&table));	/* SITE read_table */
	v = shared;
	WL_OK(pthread_rwlock_unlock(&table));
	return v;
}

__attribute__((noinline)) static void rendezvous(void)
{
	int rc = pthread_barrier_wait(&meet);

	if (rc && rc != PTHREAD_BARRIER_SERIAL_THREAD)
		abort();
}

static void *thread_t(void *arg)
{
	struct queue *q = arg;

	queue_push(q);	/* CALLER queue_push from thread_t */
	(void)read_table();	/* CALLER read_table from thread_t */
	rendezvous();
	return NULL;
}

/* Mode lib: one mutex, first used in the library at @path. */
static int lib_lock(const char *path)
{
	static pthread_mutex_t lm = PTHREAD_MUTEX_INITIALIZER;
	void (*lock)(pthread_mutex_t *);
	void *h = dlopen(path, RTLD_NOW);

	if (!h || !(*(void **)&lock = dlsym(h, "plugin_lock"))) {
		fprintf(stderr, "sites: %s\n", dlerror());
		return 1;
	}
	lock(&lm);
	printf("sites lib done\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct queue *q;
	pthread_t t;

	wl_init();
	if (argc == 3 && !strcmp(argv[1], "lib"))
		return lib_lock(argv[2]);
	q = calloc(1, sizeof(*q));
	if (!q)
		abort();
	WL_OK(pthread_mutex_init(&q->lk, NULL));
	WL_OK(pthread_barrier_init(&meet, NULL, 2));	/* SITE main */
	lock_global();	/* CALLER lock_global from main */
	WL_OK(pthread_create(&t, NULL, thread_t, q));
	rendezvous();
	WL_OK(pthread_join(t, NULL));
	queue_push(q);
	printf("sites done %d %d\n", q->items, read_table());
	free(q);
	return 0;
}
