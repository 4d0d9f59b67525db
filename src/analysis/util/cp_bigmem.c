/*
 * cp_bigmem.c - large arrays on transparent huge pages (see cp_bigmem.h).
 *
 * A block of 2 MiB or more is allocated 2 MiB-aligned and rounded up to
 * its size class (whole huge pages, and an eighth of the power of two at
 * or below the size: an array of 16 bytes per publish and one of 8 bytes
 * per vertex, a few per cent apart, are then one class), then advised as
 * a whole; pages past the size asked for are not touched, so the rounding
 * costs address space only: glibc would place a plain
 * malloc'd block anywhere, and the 4 KiB-paged head and tail of an
 * unaligned 4 MB array (up to two huge pages' worth) fault as often as a
 * fully 4 KiB-paged one of that size.  Growing copies into a fresh
 * aligned block (a realloc'd one would lose the alignment).  calloc is
 * malloc + advice + memset, so that the zeroing is the first touch.
 *
 * Fresh pages cost the kernel a clear (clear_page: a quarter of a report's
 * time on the development VM), so cp_big_free() keeps the last few large
 * blocks of the calling thread and cp_big_malloc() hands one back when it
 * fits: a report's phases allocate and free arrays of the same few sizes
 * (4 or 8 bytes per vertex or edge) one after the other.  A block is taken
 * if it has room and is at most twice the size asked for; the cache holds
 * CP_BIGMEM_KEEP blocks, the oldest going back to free() first.  When none
 * fits, the kept blocks smaller than the request go back (a phase of
 * larger arrays began: holding them would only raise the peak) and the
 * larger ones stay for the next request of their size (a report's byte per
 * edge between two phases of 4 bytes per vertex).
 */
#define _DEFAULT_SOURCE
#include "cp_bigmem.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CP_BIGMEM_HUGE ((size_t)2 << 20)
#define CP_BIGMEM_KEEP 8
#define CP_PREFAULT_STEP ((size_t)4 << 20)	/* bytes a step of the helper */
#define CP_PREFAULT_JOBS 16			/* blocks it may have queued */

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14's value; older headers */
#endif

/* The helper that faults fresh blocks in (above), shared by all threads. */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t work;	/* a job was queued */
	pthread_cond_t step;	/* a step ended */
	struct {
		char *p;
		size_t n, done;
	} job[CP_PREFAULT_JOBS];
	unsigned njobs;
	const char *busy;	/* the block of the step under way, or NULL */
	bool started, off;	/* off: the kernel refused, or no thread */
} pf = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.step = PTHREAD_COND_INITIALIZER,
};

/* Large blocks freed by this thread, oldest first. */
static _Thread_local struct {
	void *p;
	size_t size;
} kept[CP_BIGMEM_KEEP];
static _Thread_local unsigned nkept;

/* The size class of an @n-byte block (>= CP_BIGMEM_HUGE), or 0 past the
 * address space. */
static size_t big_class(size_t n)
{
	size_t step = CP_BIGMEM_HUGE;

	while (step < n / 16)
		step *= 2;
	if (n > SIZE_MAX - step)
		return 0;
	return (n + step - 1) & ~(step - 1);
}

/* The queued job least done, or njobs when none (pf.mu held). */
static unsigned pf_pick(void)
{
	unsigned best = pf.njobs;

	for (unsigned i = 0; i < pf.njobs; i++)
		if (best == pf.njobs ||
		    (double)pf.job[i].done / (double)pf.job[i].n <
		    (double)pf.job[best].done / (double)pf.job[best].n)
			best = i;
	return best;
}

/* Whether @p, of @size usable bytes, is one of the large blocks (2
 * MiB-aligned), not a block of malloc's own. */
static bool is_big(const void *p, size_t size)
{
	return size >= CP_BIGMEM_HUGE && (uintptr_t)p % CP_BIGMEM_HUGE == 0;
}

/* Drop job @i (pf.mu held). */
static void pf_drop(unsigned i)
{
	pf.job[i] = pf.job[--pf.njobs];
}

static void *pf_run(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pf.mu);
	for (;;) {
		unsigned i;
		char *at;
		size_t len;
		int rc;

		while (!pf.njobs)
			pthread_cond_wait(&pf.work, &pf.mu);
		i = pf_pick();
		at = pf.job[i].p + pf.job[i].done;
		len = pf.job[i].n - pf.job[i].done;
		len = len < CP_PREFAULT_STEP ? len : CP_PREFAULT_STEP;
		pf.busy = pf.job[i].p;
		pthread_mutex_unlock(&pf.mu);
		rc = madvise(at, len, MADV_POPULATE_WRITE);
		pthread_mutex_lock(&pf.mu);
		/* the job may have moved while the lock was free */
		for (i = 0; i < pf.njobs && pf.job[i].p != pf.busy; i++)
			;
		if (i < pf.njobs) {
			pf.job[i].done += len;
			if (pf.job[i].done >= pf.job[i].n)
				pf_drop(i);
		}
		pf.busy = NULL;
		pthread_cond_broadcast(&pf.step);
		if (rc && (errno == EINVAL || errno == ENOSYS)) {
			pf.off = true;	/* the advice is unknown here */
			pf.njobs = 0;
		}
	}
	return NULL;
}

/* fork() with the helper running: the child has no helper, so it starts
 * afresh (its copies of the parent's blocks are its own to fault in). */
static void pf_fork_prepare(void)
{
	pthread_mutex_lock(&pf.mu);
}

static void pf_fork_parent(void)
{
	pthread_mutex_unlock(&pf.mu);
}

static void pf_fork_child(void)
{
	pf.njobs = 0;
	pf.busy = NULL;
	pf.started = false;
	/* their waiters were the parent's threads */
	pthread_cond_init(&pf.work, NULL);
	pthread_cond_init(&pf.step, NULL);
	pthread_mutex_unlock(&pf.mu);
}

/* Hand the block @p to the helper, its bytes [@from, @to) to fault in; a
 * block it has already extends to @to. */
static void pf_queue(char *p, size_t from, size_t to)
{
	static bool atfork;
	pthread_attr_t attr;
	pthread_t th;

	pthread_mutex_lock(&pf.mu);
	if (!pf.started && !pf.off) {
		if (!atfork)
			atfork = pthread_atfork(pf_fork_prepare,
						pf_fork_parent,
						pf_fork_child) == 0;
		pf.started = true;
		pf.off = !atfork || pthread_attr_init(&attr) != 0;
		if (!pf.off) {
			(void)pthread_attr_setdetachstate(
				&attr, PTHREAD_CREATE_DETACHED);
			pf.off = pthread_create(&th, &attr, pf_run, NULL) != 0;
			pthread_attr_destroy(&attr);
		}
	}
	for (unsigned i = 0; !pf.off && i < pf.njobs; i++) {
		if (pf.job[i].p == p) {
			if (to > pf.job[i].n)
				pf.job[i].n = to;
			pthread_mutex_unlock(&pf.mu);
			return;
		}
	}
	if (!pf.off && pf.njobs < CP_PREFAULT_JOBS) {
		pf.job[pf.njobs].p = p;
		pf.job[pf.njobs].n = to;
		pf.job[pf.njobs++].done = from;
		pthread_cond_signal(&pf.work);
	}
	pthread_mutex_unlock(&pf.mu);
}

/* Withdraw @p from the helper before it is freed: drop its job, and wait
 * for a step in it to end. */
static void pf_withdraw(const char *p)
{
	pthread_mutex_lock(&pf.mu);
	for (unsigned i = 0; i < pf.njobs; i++)
		if (pf.job[i].p == p)
			pf_drop(i);
	while (pf.busy == p)
		pthread_cond_wait(&pf.step, &pf.mu);
	pthread_mutex_unlock(&pf.mu);
}

/* free() of a large block the helper may be on. */
static void big_release(void *p)
{
	pf_withdraw(p);
	free(p);
}

/* cp_big_malloc(); @prefault: a fresh large block goes to the helper. */
static void *big_alloc(size_t n, bool prefault)
{
	size_t round = n < CP_BIGMEM_HUGE ? 0 : big_class(n);
	unsigned best = CP_BIGMEM_KEEP;
	void *p;

	if (round < n)
		return malloc(n);
	for (unsigned i = 0; i < nkept; i++)
		if (kept[i].size >= round && kept[i].size / 2 <= round &&
		    (best == CP_BIGMEM_KEEP || kept[i].size < kept[best].size))
			best = i;
	if (best < CP_BIGMEM_KEEP) {
		p = kept[best].p;
		memmove(&kept[best], &kept[best + 1],
			sizeof(kept[0]) * (--nkept - best));
		return p;
	}
	/* none fits: give back those too small for it */
	for (unsigned i = nkept; i > 0; i--) {
		if (kept[i - 1].size < round) {
			big_release(kept[i - 1].p);
			memmove(&kept[i - 1], &kept[i],
				sizeof(kept[0]) * (--nkept - (i - 1)));
		}
	}
	if (posix_memalign(&p, CP_BIGMEM_HUGE, round))
		return NULL;
	(void)madvise(p, round, MADV_HUGEPAGE);
	if (prefault)
		pf_queue(p, 0, n);
	return p;
}

void *cp_big_malloc(size_t n)
{
	return big_alloc(n, true);
}

void *cp_big_malloc_lazy(size_t n)
{
	return big_alloc(n, false);
}

void cp_big_prefault(void *p, size_t from, size_t to)
{
	size_t size = cp_big_size(p);

	to = to < size ? to : size;
	if (from < to && is_big(p, size))
		pf_queue(p, from, to);
}

void cp_big_free(void *p)
{
	/* its whole huge pages: the allocator's slack past the class would
	 * make a block of twice a class too large for that class */
	size_t size = p ? malloc_usable_size(p) & ~(CP_BIGMEM_HUGE - 1) : 0;

	if (!is_big(p, size)) {
		free(p);
		return;
	}
	if (nkept == CP_BIGMEM_KEEP) {
		big_release(kept[0].p);
		memmove(&kept[0], &kept[1], sizeof(kept[0]) * --nkept);
	}
	kept[nkept].p = p;
	kept[nkept++].size = size;
}

void cp_big_release(void)
{
	while (nkept)
		big_release(kept[--nkept].p);
}

void *cp_big_calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	if (n * size < CP_BIGMEM_HUGE)
		return calloc(n, size);
	p = cp_big_malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

size_t cp_big_size(void *p)
{
	return p ? malloc_usable_size(p) : 0;
}

void *cp_big_realloc(void *p, size_t n)
{
	size_t old = cp_big_size(p);
	void *q;

	if (n < CP_BIGMEM_HUGE)
		return realloc(p, n);
	q = big_alloc(n, false);
	if (!q)
		return NULL;
	if (p)
		memcpy(q, p, old < n ? old : n);
	cp_big_free(p);
	return q;
}
