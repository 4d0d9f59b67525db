/*
 * cp_par.c - two halves of a pass on two threads (cp_par.h).
 */
#include "cp_par.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "cp_bigmem.h"

static _Atomic size_t threshold = CP_PAR_MIN_WORK;

struct job {
	void (*fn)(void *);
	void *arg;
};

static void *run_job(void *p)
{
	struct job *j = p;

	j->fn(j->arg);
	cp_big_release();	/* what the job freed into this thread */
	return NULL;
}

bool cp_par_splits(size_t work)
{
	return work >= atomic_load(&threshold);
}

void cp_par_two(size_t work, void (*fn)(void *), void *arg,
		void (*fn2)(void *), void *arg2)
{
	struct job j = { .fn = fn, .arg = arg };
	pthread_t th;

	if (!cp_par_splits(work) ||
	    pthread_create(&th, NULL, run_job, &j)) {
		fn(arg);
		fn2(arg2);
		return;
	}
	fn2(arg2);
	pthread_join(th, NULL);
}

size_t cp_par_set_threshold(size_t work)
{
	return atomic_exchange(&threshold, work);
}
