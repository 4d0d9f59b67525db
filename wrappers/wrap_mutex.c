/*
 * wrap_mutex.c - pthread_mutex_*: acquire n depends on release n-1.
 *
 * Every acquire tries the lock first; only when it is busy does the
 * wrapper record a wait and call the blocking function.  Return values
 * and errno are the real call's.
 */
#include "wrap_common.h"

static inline bool acquired(int rc)
{
	return rc == 0 || rc == EOWNERDEAD;
}

/*
 * Trylock first (when @try_first); on EBUSY wait in @blocking.  The timed
 * variants go straight to the real call, which validates its timeout
 * before anything else, so even their EINVAL cases stay exactly the same.
 */
#define MUTEX_ACQUIRE(m, blocking, try_first)					\
	do {								\
		struct cp_thread *t = cp_enter();			\
		struct cp_objrec *r;					\
		struct cp_wait w;					\
		int rc, err;						\
									\
		if (!t || !(r = sync_rec(t, m, CP_OBJ_MUTEX))) {	\
			if (t)						\
				cp_leave();				\
			return blocking;				\
		}							\
		rc = try_first ? CP_REAL(pthread_mutex_trylock)(m) : EBUSY; \
		if (rc != EBUSY) {					\
			if (acquired(rc))				\
				cp_online_lock_acquired(t, r, NULL, false); \
			cp_leave();					\
			return rc;					\
		}							\
		cp_online_wait_begin(t, r, &w);				\
		cp_pause();						\
		rc = blocking;						\
		err = errno;						\
		cp_resume();						\
		if (acquired(rc))					\
			cp_online_lock_acquired(t, r, &w, false);	\
		else							\
			cp_online_failed(t, r, &w);			\
		cp_leave();						\
		errno = err;						\
		return rc;						\
	} while (0)

CP_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	MUTEX_ACQUIRE(m, CP_REAL(pthread_mutex_lock)(m), true);
}

CP_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m,
				      const struct timespec *abst)
{
	MUTEX_ACQUIRE(m, CP_REAL(pthread_mutex_timedlock)(m, abst), false);
}

CP_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
				      const struct timespec *abst)
{
	MUTEX_ACQUIRE(m, CP_REAL(pthread_mutex_clocklock)(m, clk, abst), false);
}

/* A successful trylock is an acquire without a wait. */
CP_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;
	int rc;

	if (!t)
		return CP_REAL(pthread_mutex_trylock)(m);
	rc = CP_REAL(pthread_mutex_trylock)(m);
	r = sync_rec(t, m, CP_OBJ_MUTEX);
	if (r) {
		if (acquired(rc))
			cp_online_lock_acquired(t, r, NULL, false);
		else
			cp_online_failed(t, r, NULL);
	}
	cp_leave();
	return rc;
}

/*
 * Release: publish the path, then unlock.  Only the owner publishes: an
 * unlock that will fail with EPERM (error-checking mutex held by another
 * thread) must not write the record the owner is protecting.  glibc keeps
 * the owner's kernel thread id in the mutex.
 */
CP_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;

	if (!t)
		return CP_REAL(pthread_mutex_unlock)(m);
	r = sync_rec(t, m, CP_OBJ_MUTEX);
	if (r && m->__data.__owner == t->ostid)
		cp_online_lock_release(t, r);
	cp_leave();
	return CP_REAL(pthread_mutex_unlock)(m);
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
