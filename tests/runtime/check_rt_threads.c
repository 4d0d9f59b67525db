/*
 * check_rt_threads.c - the online algorithm driven by real threads at once
 * through the same hooks, in the same order, as the wrappers call them
 * (wrappers/wrap_*.c): a mutex taken by the general and by the lean path,
 * an rwlock, a barrier, a condition variable and a semaphore, their
 * records found through each thread's map and the shared object table,
 * and short-lived mutexes whose records are deleted and recycled.
 *
 * What it checks: the last release of a mutex publishes the longest path
 * any thread held at its own last release (paths only grow along the
 * lock's order); every acquire is counted once; the semaphore's token
 * count balances.  What it is for as much: the ThreadSanitizer build
 * (ctest -L tsan) runs it, and this is where the runtime's concurrency
 * lives without a preloaded library in front of TSan's interceptors (see
 * scripts/test.sh).
 */
#include <check.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <string.h>

#include "cp_alloc.h"
#include "cp_clock.h"
#include "cp_items.h"
#include "cp_objrec.h"
#include "cp_online.h"
#include "cp_runtime.h"
#include "cp_thread.h"
#include "cp_trace_format.h"

#define NT 4			/* threads */
#define NITER 2000		/* rounds per thread */
#define NBAR 20			/* barrier every NITER / NBAR rounds */

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t bar;
static pthread_mutex_t cmtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cnd = PTHREAD_COND_INITIALIZER;
static sem_t sem;
static unsigned shared_counter;	/* under rw (write) */
static unsigned tickets;	/* under cmtx */

struct worker {
	pthread_t id;
	unsigned idx;
	struct cp_thread *t;
	uint64_t last_release_len;	/* path length at its last unlock */
};

static struct worker w[NT];

static void setup(void)
{
	ck_assert_int_eq(cp_alloc_init(), 0);
	ck_assert_int_eq(cp_objrec_init(), 0);
	cp_items_init();
	cp_clock_init();
	cp_rt.nsel = 0;
	atomic_store(&cp_rt.gen, 1);
	ck_assert_int_eq(pthread_barrier_init(&bar, NULL, NT), 0);
	ck_assert_int_eq(sem_init(&sem, 0, 0), 0);
	shared_counter = 0;
	tickets = 0;
	for (unsigned i = 0; i < NT; i++) {
		w[i].idx = i;
		w[i].t = cp_thread_new(NULL);
		ck_assert_msg(w[i].t, "no thread state");
	}
}

static void teardown(void)
{
	pthread_barrier_destroy(&bar);
	sem_destroy(&sem);
}

/* wrap_mutex.c's general path: try, else wait around the real lock. */
static void mutex_lock_general(struct cp_thread *t, pthread_mutex_t *m)
{
	struct cp_objrec *r;
	struct cp_wait wt;

	cp_objrec_prefetch(t, m, CP_NS_SYNC);
	if (pthread_mutex_trylock(m) == 0) {
		r = cp_objrec_get(t, m, CP_NS_SYNC, CP_OBJ_MUTEX, 0);
		ck_assert_ptr_nonnull(r);
		cp_online_lock_acquired(t, r, NULL, false);
		return;
	}
	r = cp_objrec_get(t, m, CP_NS_SYNC, CP_OBJ_MUTEX, 0);
	ck_assert_ptr_nonnull(r);
	cp_online_wait_begin(t, r, &wt);
	pthread_mutex_lock(m);
	cp_online_lock_acquired(t, r, &wt, false);
}

/* CP_LEAN_ACQUIRE: the lean path when the record is mapped and the
 * trylock succeeds, the general one otherwise. */
static void mutex_lock_lean(struct cp_thread *t, pthread_mutex_t *m)
{
	struct cp_objrec *r = cp_online_lean_rec(t, m, CP_OBJ_MUTEX, NULL);

	if (r && pthread_mutex_trylock(m) == 0) {
		cp_online_lean_acquired(t, r);
		return;
	}
	mutex_lock_general(t, m);
}

static void mutex_unlock(struct cp_thread *t, pthread_mutex_t *m, bool lean)
{
	struct cp_objrec *r = lean ? cp_online_lean_rec(t, m, CP_OBJ_MUTEX, NULL)
				   : NULL;

	if (r) {
		cp_online_lean_release(t, r);
	} else {
		r = cp_objrec_get(t, m, CP_NS_SYNC, CP_OBJ_MUTEX, 0);
		ck_assert_ptr_nonnull(r);
		cp_online_lock_release(t, r);
	}
	pthread_mutex_unlock(m);
}

static void rw_round(struct cp_thread *t, bool writer)
{
	struct cp_objrec *r = cp_objrec_get(t, &rw, CP_NS_SYNC, CP_OBJ_RWLOCK,
					    0);
	struct cp_wait wt;

	ck_assert_ptr_nonnull(r);
	cp_online_wait_begin(t, r, &wt);
	if (writer)
		pthread_rwlock_wrlock(&rw);
	else
		pthread_rwlock_rdlock(&rw);
	cp_online_lock_acquired(t, r, &wt, !writer);
	if (writer)
		shared_counter++;
	cp_online_lock_release(t, r);
	pthread_rwlock_unlock(&rw);
}

static void barrier_round(struct cp_thread *t)
{
	struct cp_objrec *r = cp_objrec_get(t, &bar, CP_NS_SYNC,
					    CP_OBJ_BARRIER, NT);
	struct cp_wait wt;
	int rc;

	ck_assert_ptr_nonnull(r);
	cp_online_barrier_arrive(t, r, &wt);
	rc = pthread_barrier_wait(&bar);
	cp_online_barrier_depart(t, r, &wt, rc);
}

/* One thread posts a ticket and signals; each thread takes one back. */
static void cond_round(struct cp_thread *t)
{
	struct cp_objrec *cr = cp_objrec_get(t, &cnd, CP_NS_SYNC,
					     CP_OBJ_COND, 0);
	struct cp_objrec *mr;
	struct cp_wait wt;

	ck_assert_ptr_nonnull(cr);
	mutex_lock_general(t, &cmtx);
	tickets++;
	cp_online_cond_signal(t, cr);
	pthread_cond_signal(&cnd);
	mutex_unlock(t, &cmtx, false);

	mutex_lock_general(t, &cmtx);
	mr = cp_objrec_get(t, &cmtx, CP_NS_SYNC, CP_OBJ_MUTEX, 0);
	while (tickets == 0) {
		cp_online_cond_wait_begin(t, cr, mr, &wt);
		pthread_cond_wait(&cnd, &cmtx);
		cp_online_cond_wait_end(t, cr, mr, &wt, 0);
	}
	tickets--;
	mutex_unlock(t, &cmtx, false);
}

static void sem_round(struct cp_thread *t)
{
	struct cp_objrec *r = cp_objrec_get(t, &sem, CP_NS_SYNC, CP_OBJ_SEM,
					    0);
	struct cp_wait wt;

	ck_assert_ptr_nonnull(r);
	cp_online_sem_post(t, r);
	sem_post(&sem);
	if (sem_trywait(&sem) == 0) {
		cp_online_sem_acquired(t, r, NULL);
		return;
	}
	cp_online_wait_begin(t, r, &wt);
	sem_wait(&sem);
	cp_online_sem_acquired(t, r, &wt);
}

/*
 * A short-lived mutex (pthread_mutex_init ... destroy, as a program's
 * per-task lock): its record is made, mapped, deleted and freed after a
 * grace period while the other threads look theirs up; the slots of the
 * array are reused, so a recycled record meets a stale map entry.
 */
static pthread_mutex_t temp[NT][2];

static void temp_round(struct cp_thread *t, unsigned idx, unsigned k)
{
	pthread_mutex_t *m = &temp[idx][k % 2];

	pthread_mutex_init(m, NULL);
	cp_objrec_forget(m, CP_NS_SYNC);
	mutex_lock_general(t, m);
	mutex_unlock(t, m, false);
	mutex_lock_lean(t, m);
	mutex_unlock(t, m, true);
	cp_objrec_forget(m, CP_NS_SYNC);
	pthread_mutex_destroy(m);
}

static void *worker_main(void *arg)
{
	struct worker *me = arg;
	struct cp_thread *t = me->t;

	cp_thread_bind(t);
	for (unsigned k = 0; k < NITER; k++) {
		bool lean = (k + me->idx) % 2;

		if (lean)
			mutex_lock_lean(t, &mtx);
		else
			mutex_lock_general(t, &mtx);
		mutex_unlock(t, &mtx, lean);
		if (k == NITER - 1) {
			/* the path this thread published last */
			pthread_mutex_lock(&mtx);
			me->last_release_len = t->path->len;
			pthread_mutex_unlock(&mtx);
		}
		rw_round(t, k % 4 == me->idx % 4);
		if (k % (NITER / NBAR) == 0)
			barrier_round(t);
		if (k % 8 == 0)
			cond_round(t);
		sem_round(t);
		if (k % 4 == 0)
			temp_round(t, me->idx, k);
	}
	return NULL;
}

START_TEST(test_threads_hooks_at_once)
{
	struct cp_objrec *r;
	uint64_t longest = 0;
	int val;

	for (unsigned i = 0; i < NT; i++)
		ck_assert_int_eq(pthread_create(&w[i].id, NULL, worker_main,
						&w[i]), 0);
	for (unsigned i = 0; i < NT; i++) {
		ck_assert_int_eq(pthread_join(w[i].id, NULL), 0);
		if (w[i].last_release_len > longest)
			longest = w[i].last_release_len;
	}
	r = cp_objrec_get(w[0].t, &mtx, CP_NS_SYNC, CP_OBJ_MUTEX, 0);
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(r->main.len == longest, "last publish %" PRIu64
		      " ns, longest final path %" PRIu64 " ns", r->main.len,
		      longest);
	ck_assert_msg(r->ops == (uint64_t)NT * NITER, "%" PRIu64 " acquires "
		      "counted of %u", r->ops, NT * NITER);
	ck_assert_msg(shared_counter == NT * NITER / 4, "%u writes of %u",
		      shared_counter, NT * NITER / 4);
	ck_assert_int_eq(sem_getvalue(&sem, &val), 0);
	ck_assert_msg(val == 0 && tickets == 0, "%d tokens, %u tickets left",
		      val, tickets);
}
END_TEST

static Suite *threads_suite(void)
{
	Suite *s = suite_create("rt_threads");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_threads_hooks_at_once);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(threads_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
