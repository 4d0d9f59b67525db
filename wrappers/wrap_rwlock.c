/*
 * wrap_rwlock.c - pthread_rwlock_*: a read acquire depends on the last
 * write release; a write acquire on the last write release and every read
 * release since.  rdlock/wrlock try first and wait only when busy; the
 * timed variants go straight to the real call (@trylock = EBUSY), so their
 * argument checks are exactly glibc's.
 */
#include "wrap_common.h"

#define RW_ACQUIRE(l, shared, trylock, blocking)			\
	do {								\
		struct cp_thread *t = cp_enter();			\
		struct cp_objrec *r;					\
		struct cp_wait w;					\
		int rc, err;						\
									\
		if (!t || !(r = sync_rec(t, l, CP_OBJ_RWLOCK))) {	\
			if (t)						\
				cp_leave();				\
			return blocking;				\
		}							\
		rc = trylock;						\
		if (rc != EBUSY) {					\
			if (rc == 0)					\
				cp_online_lock_acquired(t, r, NULL, shared); \
			cp_leave();					\
			if (rc == 0)					\
				return 0;				\
			return blocking;				\
		}							\
		cp_online_wait_begin(t, r, &w);				\
		cp_pause();						\
		rc = blocking;						\
		err = errno;						\
		cp_resume();						\
		if (rc == 0)						\
			cp_online_lock_acquired(t, r, &w, shared);	\
		else							\
			cp_online_failed(t, r, &w);			\
		cp_leave();						\
		errno = err;						\
		return rc;						\
	} while (0)

#define RD_TRY(l) CP_REAL(pthread_rwlock_tryrdlock)(l)
#define WR_TRY(l) CP_REAL(pthread_rwlock_trywrlock)(l)

CP_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	RW_ACQUIRE(l, true, RD_TRY(l), CP_REAL(pthread_rwlock_rdlock)(l));
}

CP_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	RW_ACQUIRE(l, false, WR_TRY(l), CP_REAL(pthread_rwlock_wrlock)(l));
}

CP_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l,
					 const struct timespec *abst)
{
	RW_ACQUIRE(l, true, EBUSY,
		   CP_REAL(pthread_rwlock_timedrdlock)(l, abst));
}

CP_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l,
					 const struct timespec *abst)
{
	RW_ACQUIRE(l, false, EBUSY,
		   CP_REAL(pthread_rwlock_timedwrlock)(l, abst));
}

CP_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t c,
					 const struct timespec *abst)
{
	RW_ACQUIRE(l, true, EBUSY,
		   CP_REAL(pthread_rwlock_clockrdlock)(l, c, abst));
}

CP_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t c,
					 const struct timespec *abst)
{
	RW_ACQUIRE(l, false, EBUSY,
		   CP_REAL(pthread_rwlock_clockwrlock)(l, c, abst));
}

static int rw_try(pthread_rwlock_t *l, bool shared)
{
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;
	int rc;

	rc = shared ? RD_TRY(l) : WR_TRY(l);
	if (!t)
		return rc;
	r = sync_rec(t, l, CP_OBJ_RWLOCK);
	if (r) {
		if (rc == 0)
			cp_online_lock_acquired(t, r, NULL, shared);
		else
			cp_online_failed(t, r, NULL);
	}
	cp_leave();
	return rc;
}

CP_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	return rw_try(l, true);
}

CP_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	return rw_try(l, false);
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
