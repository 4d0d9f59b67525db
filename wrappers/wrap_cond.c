/*
 * wrap_cond.c - pthread_cond_*.  A wait is a release of the mutex, a wait
 * for a signal, and a re-acquire of the mutex that glibc performs inside
 * the call (without the wrapped lock), so the hooks account for both
 * edges: wake <- latest signal, re-acquire <- the mutex's last release.
 */
#include "wrap_common.h"

#define COND_WAIT(c, m, real_call)					\
	do {								\
		struct cp_thread *t = cp_enter();			\
		struct cp_objrec *cr = NULL, *mr = NULL;		\
		struct cp_wait w;					\
		int rc, err;						\
									\
		if (t) {						\
			cr = sync_rec(t, c, CP_OBJ_COND);		\
			mr = sync_rec(t, m, CP_OBJ_MUTEX);		\
		}							\
		if (!cr || !mr) {					\
			if (t)						\
				cp_leave();				\
			return real_call;				\
		}							\
		cp_online_cond_wait_begin(t, cr, mr, &w);		\
		cp_pause();						\
		rc = real_call;						\
		err = errno;						\
		cp_resume();						\
		cp_online_cond_wait_end(t, cr, mr, &w, rc);		\
		cp_leave();						\
		errno = err;						\
		return rc;						\
	} while (0)

CP_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	COND_WAIT(c, m, CP_REAL(pthread_cond_wait)(c, m));
}

CP_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				     const struct timespec *abst)
{
	COND_WAIT(c, m, CP_REAL(pthread_cond_timedwait)(c, m, abst));
}

CP_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
				     clockid_t clk, const struct timespec *abst)
{
	COND_WAIT(c, m, CP_REAL(pthread_cond_clockwait)(c, m, clk, abst));
}

/* Signal and broadcast publish the signaller's path, then signal. */
static int cond_signal(pthread_cond_t *c, int (*real)(pthread_cond_t *))
{
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;

	if (!t)
		return real(c);
	r = sync_rec(t, c, CP_OBJ_COND);
	if (r)
		cp_online_cond_signal(t, r);
	cp_leave();
	return real(c);
}

CP_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	return cond_signal(c, CP_REAL(pthread_cond_signal));
}

CP_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	return cond_signal(c, CP_REAL(pthread_cond_broadcast));
}

CP_EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
	int rc = CP_REAL(pthread_cond_init)(c, a);

	if (rc == 0)
		forget_sync(c);
	return rc;
}

CP_EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
	int rc = CP_REAL(pthread_cond_destroy)(c);

	if (rc == 0)
		forget_sync(c);
	return rc;
}
