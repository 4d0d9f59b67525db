/*
 * wrap_mutex.c - pthread_mutex_*: acquire n depends on release n-1.
 *
 * lock tries the lock first; only when it is busy does the wrapper record
 * a wait and call the blocking function.  lock and unlock take the lean
 * paths of wrap_common.h first.  The timed variants go straight to the
 * real call.  Return values and errno are the real call's.
 */
#include "wrap_common.h"

/* Robust mutexes: EOWNERDEAD also hands the lock over. */
#define MUTEX_OK (rc == 0 || rc == EOWNERDEAD)
#define MUTEX_TRY(m) CP_REAL(pthread_mutex_trylock)(m)

/* The general lock; @tried: the lean path's trylock result, or -1.  Unless
 * the lock was busy, the lean path once more: the record anywhere in the
 * map, trace mode. */
__attribute__((noinline))
static int mutex_lock(pthread_mutex_t *m, int tried)
{
	if (tried <= 0)
		CP_LEAN_ACQUIRE_TRY(m, CP_OBJ_MUTEX, pthread_mutex_trylock,
				    true, tried);
	CP_WRAP_ACQUIRE(m, CP_OBJ_MUTEX, tried >= 0 ? tried : MUTEX_TRY(m),
			rc == EBUSY, CP_REAL(pthread_mutex_lock)(m), MUTEX_OK,
			CP_LOCK_ACQUIRED);
}

/*
 * A robust mutex is never tried first: glibc's trylock of one that is not
 * recoverable returns ENOTRECOVERABLE but leaves it so that the next lock
 * blocks for ever (glibc 2.36), where a plain lock returns
 * ENOTRECOVERABLE.  Its lock is recorded as a wait.  The kind bit is
 * glibc's PTHREAD_MUTEX_ROBUST_NORMAL_NP.
 */
#define MUTEX_ROBUST(m) (((m)->__data.__kind & 16) != 0)

CP_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	if (MUTEX_ROBUST(m))
		return mutex_lock(m, EBUSY);
	CP_LEAN_ACQUIRE(m, CP_OBJ_MUTEX, pthread_mutex_trylock, mutex_lock);
}

CP_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m,
				      const struct timespec *abst)
{
	CP_WRAP_ACQUIRE(m, CP_OBJ_MUTEX, EBUSY, true,
			CP_REAL(pthread_mutex_timedlock)(m, abst), MUTEX_OK,
			CP_LOCK_ACQUIRED);
}

CP_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
				      const struct timespec *abst)
{
	CP_WRAP_ACQUIRE(m, CP_OBJ_MUTEX, EBUSY, true,
			CP_REAL(pthread_mutex_clocklock)(m, clk, abst),
			MUTEX_OK, CP_LOCK_ACQUIRED);
}

/* A successful trylock is an acquire without a wait. */
CP_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	CP_WRAP_TRY(m, CP_OBJ_MUTEX, MUTEX_TRY(m), MUTEX_OK, CP_LOCK_ACQUIRED);
}

/* Release: publish the path (only the owner: CP_MUTEX_OWNED), then
 * unlock. */

__attribute__((noinline))
static int mutex_unlock(pthread_mutex_t *m)
{
	struct cp_thread *th;	/* not t, r: the lean try's names */
	struct cp_objrec *rec;

	CP_LEAN_RELEASE_TRY(m, CP_OBJ_MUTEX, CP_MUTEX_OWNED(m, t),
			    pthread_mutex_unlock, true);
	th = cp_enter();
	if (!th)
		return CP_REAL(pthread_mutex_unlock)(m);
	rec = sync_rec(th, m, CP_OBJ_MUTEX);
	if (rec && CP_MUTEX_OWNED(m, th))
		cp_online_lock_release(th, rec);
	cp_leave();
	return CP_REAL(pthread_mutex_unlock)(m);
}

CP_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	CP_LEAN_RELEASE(m, CP_OBJ_MUTEX, CP_MUTEX_OWNED(m, t),
			pthread_mutex_unlock, mutex_unlock);
}

CP_EXPORT int pthread_mutex_init(pthread_mutex_t *m,
				 const pthread_mutexattr_t *attr)
{
	int rc = CP_REAL(pthread_mutex_init)(m, attr);

	if (rc == 0)
		forget_sync(m);
	return rc;
}

CP_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
	int rc = CP_REAL(pthread_mutex_destroy)(m);

	if (rc == 0)
		forget_sync(m);
	return rc;
}
