/*
 * wrap_spin.c - pthread_spin_*: acquire n depends on release n-1
 * ([Hollingsworth98] Fig. 10a).  Spinning is waiting: it weighs zero on the
 * path.
 */
#include "wrap_common.h"

/* The general lock; @tried: the lean path's trylock result, or -1 (unless
 * busy, the lean path once more, as for a mutex). */
__attribute__((noinline))
static int spin_lock(pthread_spinlock_t *s, int tried)
{
	if (tried <= 0)
		CP_LEAN_ACQUIRE_TRY(s, CP_OBJ_SPIN, pthread_spin_trylock,
				    true, tried);
	CP_WRAP_ACQUIRE((const void *)s, CP_OBJ_SPIN,
			tried >= 0 ? tried : CP_REAL(pthread_spin_trylock)(s),
			rc == EBUSY, CP_REAL(pthread_spin_lock)(s), rc == 0,
			CP_LOCK_ACQUIRED);
}

CP_EXPORT int pthread_spin_lock(pthread_spinlock_t *s)
{
	CP_LEAN_ACQUIRE(s, CP_OBJ_SPIN, pthread_spin_trylock, spin_lock);
}

CP_EXPORT int pthread_spin_trylock(pthread_spinlock_t *s)
{
	CP_WRAP_TRY((const void *)s, CP_OBJ_SPIN,
		    CP_REAL(pthread_spin_trylock)(s), rc == 0,
		    CP_LOCK_ACQUIRED);
}

/* Unlocking a spin lock one does not hold is undefined: the caller holds
 * it, and the lock protects the record. */
__attribute__((noinline))
static int spin_unlock(pthread_spinlock_t *s)
{
	struct cp_thread *th;	/* not t, r: the lean try's names */
	struct cp_objrec *rec;

	CP_LEAN_RELEASE_TRY(s, CP_OBJ_SPIN, true, pthread_spin_unlock,
			    true);
	th = cp_enter();
	if (!th)
		return CP_REAL(pthread_spin_unlock)(s);
	rec = sync_rec(th, (const void *)s, CP_OBJ_SPIN);
	if (rec)
		cp_online_lock_release(th, rec);
	cp_leave();
	return CP_REAL(pthread_spin_unlock)(s);
}

CP_EXPORT int pthread_spin_unlock(pthread_spinlock_t *s)
{
	CP_LEAN_RELEASE(s, CP_OBJ_SPIN, true, pthread_spin_unlock, spin_unlock);
}

CP_EXPORT int pthread_spin_init(pthread_spinlock_t *s, int pshared)
{
	int rc = CP_REAL(pthread_spin_init)(s, pshared);

	if (rc == 0)
		forget_sync((const void *)s);
	return rc;
}

CP_EXPORT int pthread_spin_destroy(pthread_spinlock_t *s)
{
	int rc = CP_REAL(pthread_spin_destroy)(s);

	if (rc == 0)
		forget_sync((const void *)s);
	return rc;
}
