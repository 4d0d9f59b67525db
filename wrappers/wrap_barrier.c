/*
 * wrap_barrier.c - pthread_barrier_*: every departure of episode n depends
 * on every arrival of episode n ([Hollingsworth98, Fig. 10b]).
 */
#include "wrap_common.h"

CP_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;
	struct cp_wait w;
	int rc, err;

	if (!t || !(r = sync_rec(t, b, CP_OBJ_BARRIER))) {
		if (t)
			cp_leave();
		return CP_REAL(pthread_barrier_wait)(b);
	}
	cp_online_barrier_arrive(t, r, &w);
	cp_pause();
	rc = CP_REAL(pthread_barrier_wait)(b);
	err = errno;
	cp_resume();
	cp_online_barrier_depart(t, r, &w, rc);
	cp_leave();
	errno = err;
	return rc;
}

/* The record learns the episode size here. */
CP_EXPORT int pthread_barrier_init(pthread_barrier_t *b,
				   const pthread_barrierattr_t *attr,
				   unsigned count)
{
	int rc = CP_REAL(pthread_barrier_init)(b, attr, count);
	struct cp_thread *t;

	if (rc == 0 && (t = cp_enter())) {
		cp_objrec_forget(b, CP_NS_SYNC);
		cp_objrec_get(t, b, CP_NS_SYNC, CP_OBJ_BARRIER, count);
		cp_leave();
	}
	return rc;
}

CP_EXPORT int pthread_barrier_destroy(pthread_barrier_t *b)
{
	int rc = CP_REAL(pthread_barrier_destroy)(b);

	if (rc == 0)
		forget_sync(b);
	return rc;
}
