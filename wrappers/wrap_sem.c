/*
 * wrap_sem.c - sem_*: the k-th successful wait depends on the post that
 * provided its token (posts queue in order; initial tokens are free).
 */
#include "wrap_common.h"

CP_EXPORT int sem_post(sem_t *s)
{
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;
	uint64_t seq = 0;
	int rc, err;

	if (!t)
		return CP_REAL(sem_post)(s);
	r = sync_rec(t, s, CP_OBJ_SEM);
	if (r)
		seq = cp_online_sem_post(t, r);
	rc = CP_REAL(sem_post)(s);
	err = errno;
	if (rc != 0 && r)
		cp_online_sem_post_failed(t, r, seq);
	cp_leave();
	errno = err;
	return rc;
}

/* Try first; wait only when no token is there (EAGAIN). */
#define SEM_TRY(s) CP_REAL(sem_trywait)(s)
#define SEM_BUSY (rc != 0 && errno == EAGAIN)

CP_EXPORT int sem_wait(sem_t *s)
{
	CP_WRAP_ACQUIRE(s, CP_OBJ_SEM, SEM_TRY(s), SEM_BUSY,
			CP_REAL(sem_wait)(s), rc == 0, CP_SEM_ACQUIRED);
}

CP_EXPORT int sem_timedwait(sem_t *s, const struct timespec *abst)
{
	CP_WRAP_ACQUIRE(s, CP_OBJ_SEM, -1, true,
			CP_REAL(sem_timedwait)(s, abst), rc == 0,
			CP_SEM_ACQUIRED);
}

CP_EXPORT int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *abst)
{
	CP_WRAP_ACQUIRE(s, CP_OBJ_SEM, -1, true,
			CP_REAL(sem_clockwait)(s, clk, abst), rc == 0,
			CP_SEM_ACQUIRED);
}

CP_EXPORT int sem_trywait(sem_t *s)
{
	CP_WRAP_TRY(s, CP_OBJ_SEM, SEM_TRY(s), rc == 0, CP_SEM_ACQUIRED);
}

/* The record learns the initial tokens here. */
CP_EXPORT int sem_init(sem_t *s, int pshared, unsigned value)
{
	int rc = CP_REAL(sem_init)(s, pshared, value);
	int err = errno;
	struct cp_thread *t;

	if (rc == 0 && (t = cp_enter())) {
		cp_objrec_forget(s, CP_NS_SYNC);
		cp_objrec_get(t, s, CP_NS_SYNC, CP_OBJ_SEM, value);
		cp_leave();
	}
	errno = err;
	return rc;
}

CP_EXPORT int sem_destroy(sem_t *s)
{
	int rc = CP_REAL(sem_destroy)(s);
	int err = errno;

	if (rc == 0)
		forget_sync(s);
	errno = err;
	return rc;
}
