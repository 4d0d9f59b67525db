/*
 * wrap_rwlock.c - pthread_rwlock_*: a read acquire depends on the last
 * write release; a write acquire on the last write release and every read
 * release since.  rdlock/wrlock try first and wait only when busy; the
 * timed variants go straight to the real call (@trylock = EBUSY), so their
 * argument checks are exactly glibc's.
 */
#include "wrap_common.h"

#define RD_TRY(l) CP_REAL(pthread_rwlock_tryrdlock)(l)
#define WR_TRY(l) CP_REAL(pthread_rwlock_trywrlock)(l)

CP_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	CP_WRAP_ACQUIRE(l, CP_OBJ_RWLOCK, RD_TRY(l), rc == EBUSY,
			CP_REAL(pthread_rwlock_rdlock)(l), rc == 0,
			CP_RDLOCK_ACQUIRED);
}

CP_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	CP_WRAP_ACQUIRE(l, CP_OBJ_RWLOCK, WR_TRY(l), rc == EBUSY,
			CP_REAL(pthread_rwlock_wrlock)(l), rc == 0,
			CP_LOCK_ACQUIRED);
}

CP_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l,
					 const struct timespec *abst)
{
	CP_WRAP_ACQUIRE(l, CP_OBJ_RWLOCK, EBUSY, true,
			CP_REAL(pthread_rwlock_timedrdlock)(l, abst), rc == 0,
			CP_RDLOCK_ACQUIRED);
}

CP_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l,
					 const struct timespec *abst)
{
	CP_WRAP_ACQUIRE(l, CP_OBJ_RWLOCK, EBUSY, true,
			CP_REAL(pthread_rwlock_timedwrlock)(l, abst), rc == 0,
			CP_LOCK_ACQUIRED);
}

CP_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t c,
					 const struct timespec *abst)
{
	CP_WRAP_ACQUIRE(l, CP_OBJ_RWLOCK, EBUSY, true,
			CP_REAL(pthread_rwlock_clockrdlock)(l, c, abst),
			rc == 0, CP_RDLOCK_ACQUIRED);
}

CP_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t c,
					 const struct timespec *abst)
{
	CP_WRAP_ACQUIRE(l, CP_OBJ_RWLOCK, EBUSY, true,
			CP_REAL(pthread_rwlock_clockwrlock)(l, c, abst),
			rc == 0, CP_LOCK_ACQUIRED);
}

CP_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	CP_WRAP_TRY(l, CP_OBJ_RWLOCK, RD_TRY(l), rc == 0, CP_RDLOCK_ACQUIRED);
}

CP_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	CP_WRAP_TRY(l, CP_OBJ_RWLOCK, WR_TRY(l), rc == 0, CP_LOCK_ACQUIRED);
}

CP_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;

	if (!t)
		return CP_REAL(pthread_rwlock_unlock)(l);
	r = sync_rec(t, l, CP_OBJ_RWLOCK);
	if (r)
		cp_online_lock_release(t, r);
	cp_leave();
	return CP_REAL(pthread_rwlock_unlock)(l);
}

CP_EXPORT int pthread_rwlock_init(pthread_rwlock_t *l,
				  const pthread_rwlockattr_t *attr)
{
	int rc = CP_REAL(pthread_rwlock_init)(l, attr);

	if (rc == 0)
		forget_sync(l);
	return rc;
}

CP_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *l)
{
	int rc = CP_REAL(pthread_rwlock_destroy)(l);

	if (rc == 0)
		forget_sync(l);
	return rc;
}
