/*
 * robust_alloc.c - a program with an allocator of its own that takes a
 * pthread mutex on every call, as jemalloc does (redis links it): the
 * tracer must neither crash it nor change what it does.  The dynamic
 * loader calls the program's malloc too, and did so from inside the
 * tracer's start-up (a failed look-up of a function the program does
 * not have allocates the loader's message), whose mutex wrapper needed
 * the start-up to be done: the tracer recursed until the stack ran out.
 *
 * Three threads count to 3000 under a mutex, each allocating as it goes;
 * prints "robust_alloc: 3000 n" (n: the allocations, the same traced and
 * bare only in that it is not 0) and exits 0.
 */
#include "wl.h"

#include <malloc.h>
#include <stdatomic.h>

#define ARENA (64u << 20)

static _Alignas(16) unsigned char arena[ARENA];
static size_t used;
static atomic_ulong allocations;
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;

/* A bump allocator: a 16-byte header holds the block's size. */
static void *take(size_t n)
{
	unsigned char *p = NULL;

	pthread_mutex_lock(&alloc_lock);
	n = (n + 31) & ~(size_t)15;
	if (n <= ARENA - used) {
		p = arena + used;
		used += n;
	}
	pthread_mutex_unlock(&alloc_lock);
	if (!p)
		return NULL;
	atomic_fetch_add(&allocations, 1);
	*(size_t *)p = n - 16;
	return p + 16;
}

void *malloc(size_t n)
{
	return take(n);
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t k, size_t n)
{
	void *p = k && n > SIZE_MAX / k ? NULL : take(k * n);

	if (p)
		memset(p, 0, k * n);
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p = take(n);
	size_t had = old ? *(size_t *)((unsigned char *)old - 16) : 0;

	if (p && old)
		memcpy(p, old, had < n ? had : n);
	return p;
}

void *memalign(size_t align, size_t n)
{
	unsigned char *p = take(n + align);
	uintptr_t a = (uintptr_t)p;

	if (!p || align <= 16)
		return p;
	a = (a + align - 1) & ~(uintptr_t)(align - 1);
	*(size_t *)(a - 16) = n;
	return (void *)a;
}

void *aligned_alloc(size_t align, size_t n)
{
	return memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p = memalign(align, n);

	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static int count;

static void *run(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		char *p = malloc(64);

		if (!p)
			abort();
		snprintf(p, 64, "%d", i);
		WL_OK(pthread_mutex_lock(&count_lock));
		count += p[0] != 0;
		WL_OK(pthread_mutex_unlock(&count_lock));
		free(p);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		WL_OK(pthread_create(&t[i], NULL, run, NULL));
	for (int i = 0; i < 3; i++)
		WL_OK(pthread_join(t[i], NULL));
	printf("robust_alloc: %d %s\n", count,
	       atomic_load(&allocations) ? "n" : "0");
	return 0;
}
