/*
 * wrap_c11.c - C11 <threads.h>: thrd_*, mtx_*, cnd_*, call_once.
 *
 * glibc implements them on its internal pthread functions, so the pthread
 * wrappers never see them.  The types are glibc's pthread types under
 * other names (thrd_t is a pthread_t, mtx_t a pthread_mutex_t, cnd_t a
 * pthread_cond_t), so the edges are the pthread ones, on the same
 * records: a program may mix both APIs on one object.  Every wrapper
 * returns exactly what the real C11 call returned (thrd_success,
 * thrd_busy, thrd_timedout, thrd_nomem, thrd_error) and leaves errno as
 * it left it.
 */
#include "wrap_common.h"

#include "cp_alloc.h"

/* ---- threads ---------------------------------------------------------- */

struct c11_start {
	thrd_start_t fn;
	void *arg;
};

/* A C11 start routine under pthread_create: its int result becomes the
 * pthread result that thrd_join converts back, as glibc's own does. */
static void *c11_start(void *p)
{
	struct c11_start s = *(struct c11_start *)p;

	cp_tls.guard++;
	cp_free(p);
	cp_tls.guard--;
	return (void *)(intptr_t)s.fn(s.arg);
}

/* glibc's mapping of a pthread error to a C11 result. */
static int c11_result(int err)
{
	switch (err) {
	case 0:
		return thrd_success;
	case ENOMEM:
		return thrd_nomem;
	case ETIMEDOUT:
		return thrd_timedout;
	case EBUSY:
		return thrd_busy;
	default:
		return thrd_error;
	}
}

/*
 * Traced, the thread is made by the pthread_create wrapper, whose
 * trampoline owns its life (start edge, exit through return or
 * thrd_exit); untraced, by the real thrd_create.
 */
CP_EXPORT int thrd_create(thrd_t *th, thrd_start_t fn, void *arg)
{
	struct cp_thread *t = cp_enter();
	struct c11_start *s;
	int err = errno;

	if (!t)
		return CP_REAL_OPT(thrd_create)(th, fn, arg);
	s = cp_zalloc(sizeof(*s));
	cp_leave();
	errno = err;
	if (!s)
		return CP_REAL_OPT(thrd_create)(th, fn, arg);
	s->fn = fn;
	s->arg = arg;
	err = pthread_create(th, NULL, c11_start, s);
	if (err != 0) {
		cp_tls.guard++;
		cp_free(s);
		cp_tls.guard--;
	}
	return c11_result(err);
}

/* The join depends on the thread's last event. */
CP_EXPORT int thrd_join(thrd_t th, int *res)
{
	struct cp_thread *t = cp_enter(), *child;
	struct cp_wait w;
	struct cp_cancel cc;
	int rc, err;

	if (!t)
		return CP_REAL_OPT(thrd_join)(th, res);
	child = cp_thread_by_id(th);	/* before the id can be reused */
	cp_online_join_begin(t, &w);
	cc = (struct cp_cancel){ .end = cp_cancel_join, .t = t, .w = &w };
	CP_CANCELLABLE(&cc, rc = CP_REAL_OPT(thrd_join)(th, res), err = errno);
	cp_online_join_end(t, &w, rc == thrd_success ? 0 : EINVAL, child);
	cp_leave();
	errno = err;
	return rc;
}

/* glibc's thrd_exit is pthread_exit of the int: the wrapper ends the
 * thread's path there. */
CP_EXPORT void thrd_exit(int res)
{
	pthread_exit((void *)(intptr_t)res);
}

/* No edge: a detached thread is never joined. */
CP_EXPORT int thrd_detach(thrd_t th)
{
	return CP_REAL_OPT(thrd_detach)(th);
}

/* ---- mutexes ---------------------------------------------------------- */

#define C11_OK (rc == thrd_success)
#define C11_TRY(m) CP_REAL_OPT(mtx_trylock)(m)

/* The general lock; @tried: the lean path's trylock result, or -1. */
__attribute__((noinline))
static int c11_mtx_lock(mtx_t *m, int tried)
{
	CP_WRAP_ACQUIRE(m, CP_OBJ_MUTEX, tried >= 0 ? tried : C11_TRY(m),
			rc == thrd_busy, CP_REAL_OPT(mtx_lock)(m), C11_OK,
			CP_LOCK_ACQUIRED);
}

/* acquire n depends on release n-1; recursive re-locks take the thread's
 * own path. */
CP_EXPORT int mtx_lock(mtx_t *m)
{
	CP_LEAN_ACQUIRE(m, CP_OBJ_MUTEX, mtx_trylock, c11_mtx_lock);
}

CP_EXPORT int mtx_timedlock(mtx_t *restrict m,
			    const struct timespec *restrict abst)
{
	CP_WRAP_ACQUIRE(m, CP_OBJ_MUTEX, thrd_busy, true,
			CP_REAL_OPT(mtx_timedlock)(m, abst), C11_OK,
			CP_LOCK_ACQUIRED);
}

CP_EXPORT int mtx_trylock(mtx_t *m)
{
	CP_WRAP_TRY(m, CP_OBJ_MUTEX, C11_TRY(m), C11_OK, CP_LOCK_ACQUIRED);
}

__attribute__((noinline))
static int c11_mtx_unlock(mtx_t *m)
{
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;

	if (!t)
		return CP_REAL_OPT(mtx_unlock)(m);
	r = sync_rec(t, m, CP_OBJ_MUTEX);
	if (r && CP_MUTEX_OWNED(m, t))
		cp_online_lock_release(t, r);
	cp_leave();
	return CP_REAL_OPT(mtx_unlock)(m);
}

/* Release: publish the owner's path, then unlock. */
CP_EXPORT int mtx_unlock(mtx_t *m)
{
	CP_LEAN_RELEASE(m, CP_OBJ_MUTEX, CP_MUTEX_OWNED(m, t), mtx_unlock,
			c11_mtx_unlock);
}

CP_EXPORT int mtx_init(mtx_t *m, int type)
{
	int rc = CP_REAL_OPT(mtx_init)(m, type);
	int err = errno;

	if (rc == thrd_success)
		forget_sync(m);
	errno = err;
	return rc;
}

CP_EXPORT void mtx_destroy(mtx_t *m)
{
	int err;

	CP_REAL_OPT(mtx_destroy)(m);
	err = errno;
	forget_sync(m);
	errno = err;
}

/* ---- condition variables ---------------------------------------------- */

/* The hooks' view of a C11 wait result (pthread convention). */
#define C11_WAIT_RC (rc == thrd_success ? 0 :				\
		     rc == thrd_timedout ? ETIMEDOUT : EINVAL)

CP_EXPORT int cnd_wait(cnd_t *c, mtx_t *m)
{
	CP_WRAP_COND_WAIT(c, m, CP_REAL_OPT(cnd_wait)(c, m), C11_WAIT_RC);
}

CP_EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m,
			    const struct timespec *restrict abst)
{
	CP_WRAP_COND_WAIT(c, m, CP_REAL_OPT(cnd_timedwait)(c, m, abst),
			  C11_WAIT_RC);
}

/* Signal and broadcast publish the signaller's path, then signal. */
CP_EXPORT int cnd_signal(cnd_t *c)
{
	cp_wrap_signal(c);
	return CP_REAL_OPT(cnd_signal)(c);
}

CP_EXPORT int cnd_broadcast(cnd_t *c)
{
	cp_wrap_signal(c);
	return CP_REAL_OPT(cnd_broadcast)(c);
}

CP_EXPORT int cnd_init(cnd_t *c)
{
	int rc = CP_REAL_OPT(cnd_init)(c);
	int err = errno;

	if (rc == thrd_success)
		forget_sync(c);
	errno = err;
	return rc;
}

CP_EXPORT void cnd_destroy(cnd_t *c)
{
	int err;

	CP_REAL_OPT(cnd_destroy)(c);
	err = errno;
	forget_sync(c);
	errno = err;
}

/* ---- call_once -------------------------------------------------------- */

/*
 * Every return from call_once depends on the end of the one call of the
 * function: the thread that runs it publishes at its end (a signal record
 * of the flag, replaced), every caller takes it on return.  glibc calls
 * the function without an argument, so which flag it completes is passed
 * in a thread variable, saved around a nested call_once.
 */
struct c11_once {
	void (*fn)(void);
	once_flag *flag;
	struct cp_wait *w;	/* the caller's wait, begun again after fn */
};

static __thread struct c11_once c11_once_cur
	__attribute__((tls_model("initial-exec")));

static void c11_once_run(void)
{
	struct c11_once o = c11_once_cur;
	struct cp_thread *t;
	struct cp_objrec *r;

	o.fn();
	t = cp_enter();
	if (!t)
		return;
	r = cp_objrec_get(t, o.flag, CP_NS_MODEL, CP_OBJ_COND, 0);
	if (r)
		cp_online_signal(t, r, false);
	cp_online_wait_restart(t, o.w);
	cp_leave();
}

CP_EXPORT void call_once(once_flag *flag, void (*fn)(void))
{
	struct cp_thread *t = cp_enter();
	struct c11_once saved = c11_once_cur;
	struct cp_objrec *r;
	struct cp_wait w;
	int err;

	if (!t) {
		CP_REAL_OPT(call_once)(flag, fn);
		return;
	}
	cp_online_wait_begin(t, NULL, &w);
	c11_once_cur.fn = fn;
	c11_once_cur.flag = flag;
	c11_once_cur.w = &w;
	cp_pause();
	CP_REAL_OPT(call_once)(flag, c11_once_run);
	err = errno;
	cp_resume();
	c11_once_cur = saved;
	r = cp_objrec_get(t, flag, CP_NS_MODEL, CP_OBJ_COND, 0);
	if (r)
		cp_online_signal_take(t, r, &w, false);
	cp_leave();
	errno = err;
}
