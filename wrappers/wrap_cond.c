/*
 * wrap_cond.c - pthread_cond_*.  A wait is a release of the mutex, a wait
 * for a signal, and a re-acquire of the mutex that glibc performs inside
 * the call (without the wrapped lock), so the hooks account for both
 * edges: wake <- latest signal, re-acquire <- the mutex's last release.
 */
#include "wrap_common.h"

CP_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	CP_WRAP_COND_WAIT(c, m, CP_REAL(pthread_cond_wait)(c, m), rc);
}

CP_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				     const struct timespec *abst)
{
	CP_WRAP_COND_WAIT(c, m, CP_REAL(pthread_cond_timedwait)(c, m, abst),
			  rc);
}

CP_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
				     clockid_t clk, const struct timespec *abst)
{
	CP_WRAP_COND_WAIT(c, m,
			  CP_REAL(pthread_cond_clockwait)(c, m, clk, abst), rc);
}

/* Signal and broadcast publish the signaller's path, then signal. */
CP_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	cp_wrap_signal(c);
	return CP_REAL(pthread_cond_signal)(c);
}

CP_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	cp_wrap_signal(c);
	return CP_REAL(pthread_cond_broadcast)(c);
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
