/*
 * wrap_common.h - what every wrapper family includes.
 */
#ifndef WRAP_COMMON_H
#define WRAP_COMMON_H

#include <errno.h>

#include "cp_clock.h"
#include "cp_objrec.h"
#include "cp_online.h"
#include "cp_real.h"
#include "cp_runtime.h"
#include "cp_trace_format.h"

/*
 * Cancellation.  A thread cancelled inside a blocking call that is a
 * cancellation point (condition and semaphore waits, joins, sigwait, the
 * waits for a child) leaves it by unwinding, past the wrapper's end hook:
 * the wait never ended, and its time up to the thread's exit counted as
 * work (a worker cancelled while it waited for a job had the whole
 * critical path).  So such a wrapper runs the real call under
 * CP_CANCELLABLE: a cleanup handler around it runs @end, the wait's end
 * as a failed wait, with the guard raised again, when the call is
 * cancelled.  POSIX runs the handler with the mutex of a condition wait
 * re-acquired, as the end hook expects.
 */
struct cp_cancel {
	void (*end)(const struct cp_cancel *c);
	struct cp_thread *t;
	struct cp_wait *w;
	void *a, *b;		/* @end's objects */
	uint64_t t0;		/* or the time the call began */
};

static inline void cp_cancelled(void *arg)
{
	const struct cp_cancel *c = arg;

	cp_resume();
	c->end(c);
	cp_leave();
}

/* The statements ... (the real call) with the guard lowered, as
 * cp_pause(); ...; cp_resume(), and cancellable as above by @cc. */
#define CP_CANCELLABLE(cc, ...)						\
	do {								\
		pthread_cleanup_push(cp_cancelled, (cc));		\
		cp_pause();						\
		__VA_ARGS__;						\
		cp_resume();						\
		pthread_cleanup_pop(0);					\
	} while (0)

/*
 * A blocking call the tracer has no edge for, timed: @call run with the
 * guard lowered and cancellable, then @end (a struct cp_cancel's end,
 * @c->t0 the call's start on the wall clock) whether it returned or was
 * cancelled.  Returns @call's value with its errno.
 */
#define CP_WRAP_TIMED(type, call, end_fn)				\
	do {								\
		struct cp_thread *t = cp_enter();			\
		struct cp_cancel cc;					\
		type rc;						\
		int err;						\
									\
		if (!t)							\
			return call;					\
		cc = (struct cp_cancel){ .end = end_fn, .t = t,		\
					 .t0 = cp_clock_wall() };	\
		CP_CANCELLABLE(&cc, rc = call, err = errno);		\
		end_fn(&cc);						\
		cp_leave();						\
		errno = err;						\
		return rc;						\
	} while (0)

/* A wait cancelled, ended as a failed one: an acquire's (a semaphore's),
 * or a signal wait's (no object). */
static inline void cp_cancel_failed(const struct cp_cancel *c)
{
	cp_online_failed(c->t, c->a, c->w);
}

/* A join cancelled: a failed wait (the thread stays joinable). */
static inline void cp_cancel_join(const struct cp_cancel *c)
{
	cp_online_join_end(c->t, c->w, ECANCELED, NULL);
}

/* The record of a synchronization object, or NULL (out of memory). */
static inline struct cp_objrec *sync_rec(struct cp_thread *t, const void *o,
					 unsigned kind)
{
	return cp_objrec_get(t, o, CP_NS_SYNC, kind, 0);
}

/* Object (re)initialised or destroyed: its record starts fresh. */
static inline void forget_sync(const void *o)
{
	if (cp_enter()) {
		cp_objrec_forget(o, CP_NS_SYNC);
		cp_leave();
	}
}

/*
 * Where an object keeps its record hint (cp_objrec_peek_hint: two words),
 * or NULL.  glibc leaves a mutex's robust-list link (__list, two
 * pointers) unused unless the mutex is robust, so a plain one (not
 * robust, priority-inheriting, priority-protected or process-shared:
 * glibc's kind bits) carries its record's sealed address there.  The
 * lock's own line, which the try has just fetched, then names the
 * record: no map look-up, however many locks the program has.  The thread
 * holding the lock writes the hint when its acquire found the record
 * elsewhere (cp_wrap_hint_set); glibc never reads it; a re-initialised
 * mutex starts with none.  C11 mtx_t is glibc's pthread_mutex_t.
 */
#define CP_MUTEX_UNPLAIN 0xf0	/* robust 16, PI 32, PP 64, pshared 128 */

static inline uintptr_t *cp_wrap_hint(const void *obj, unsigned kind)
{
	pthread_mutex_t *m = (pthread_mutex_t *)obj;

	if (kind != CP_OBJ_MUTEX ||
	    (__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) &
	     CP_MUTEX_UNPLAIN))
		return NULL;
	return (uintptr_t *)(void *)&m->__data.__list;
}

static inline void cp_wrap_hint_set(const void *obj, unsigned kind,
				    struct cp_objrec *r)
{
	uintptr_t *h = cp_wrap_hint(obj, kind);

	if (h)
		cp_objrec_hint_write(h, r);
}

/*
 * The shape of every acquire that may block (mutex, spin lock, rwlock,
 * semaphore).  @try_call first: unless @busy (an expression of rc), its
 * result stands — an acquire without a wait, @on_ok(NULL), when @ok; any
 * other failure is left to @blocking_call to report exactly as the real
 * function does (it fails the same way without blocking).  When busy, a
 * wait is recorded around @blocking_call, then @on_ok(&w) or a failed
 * wait.  A timed variant passes EBUSY as @try_call to go straight to the
 * real call, whose argument checks then stay glibc's.  The object's record
 * is looked up after the try, its line fetched for writing first when the
 * try succeeded (one transfer, not a read and then an upgrade); a busy
 * lock's record is left alone, with the holder that will publish into
 * it.  Without a record (out of memory) the call is not traced.  @on_ok
 * names a macro of (w) that sees t and r.  Return value and errno are the
 * real calls'.
 */
#define CP_WRAP_ACQUIRE(obj, kind, try_call, busy, blocking_call, ok,	\
			on_ok)						\
	do {								\
		struct cp_thread *t = cp_enter();			\
		struct cp_objrec *r;					\
		struct cp_wait w;					\
		struct cp_cancel cc;					\
		int rc, err;						\
		bool waits;						\
									\
		if (!t)							\
			return blocking_call;				\
		err = errno;						\
		rc = try_call;						\
		waits = (busy);						\
		if (!waits)						\
			cp_objrec_prefetch(t, obj, CP_NS_SYNC);		\
		r = sync_rec(t, obj, kind);				\
		if (!waits) {						\
			if ((ok) && r) {				\
				on_ok(NULL);				\
				cp_wrap_hint_set((const void *)(obj),	\
						 kind, r);		\
			}						\
			cp_leave();					\
			errno = err;					\
			return (ok) ? rc : blocking_call;		\
		}							\
		errno = err;						\
		if (!r) {						\
			cp_leave();					\
			return blocking_call;				\
		}							\
		cp_online_wait_begin(t, r, &w);				\
		cc = (struct cp_cancel){ .end = cp_cancel_failed,	\
					 .t = t, .w = &w, .a = r };	\
		CP_CANCELLABLE(&cc, rc = blocking_call, err = errno);	\
		if (ok) {						\
			on_ok(&w);					\
			cp_wrap_hint_set((const void *)(obj), kind, r); \
		} else							\
			cp_online_failed(t, r, &w);			\
		cp_leave();						\
		errno = err;						\
		return rc;						\
	} while (0)

/* A try-only call: an acquire without a wait when @ok, else a failure. */
#define CP_WRAP_TRY(obj, kind, try_call, ok, on_ok)			\
	do {								\
		struct cp_thread *t = cp_enter();			\
		struct cp_objrec *r;					\
		int rc = try_call, err = errno;				\
									\
		if (!t)							\
			return rc;					\
		r = sync_rec(t, obj, kind);				\
		if (r) {						\
			if (ok) {					\
				on_ok(NULL);				\
				cp_wrap_hint_set((const void *)(obj),	\
						 kind, r);		\
			} else						\
				cp_online_failed(t, r, NULL);		\
		}							\
		cp_leave();						\
		errno = err;						\
		return rc;						\
	} while (0)

/* on_ok hooks for the macros above */
#define CP_LOCK_ACQUIRED(w) cp_online_lock_acquired(t, r, w, false)
#define CP_RDLOCK_ACQUIRED(w) cp_online_lock_acquired(t, r, w, true)
#define CP_SEM_ACQUIRED(w) cp_online_sem_acquired(t, r, w)

/*
 * The lean paths of a mutex or spin lock (cp_online.h), in front of the
 * general wrapper @general(obj, rc), which runs whenever they do not
 * apply, as if they had not been tried.  An acquire tries the lock with
 * @real_try unless @rc holds a result already (-1: not tried), and passes
 * the result on, so that a lock is not tried twice; it looks at the
 * record only after the try, so that a busy lock's record stays with the
 * thread that holds it and will publish into it (prefetching the record
 * before the try cost a hand-over more than it saved; once the try
 * succeeded, cp_objrec_check() fetches the record's line for
 * writing) and remembers it for the release (cp_objrec_hold: the release
 * then finds it without the map).  A release publishes when @owned (an
 * expression of t) and then calls @real_unlock.
 * Both name slots of cp_real, called without checking cp_real.ready: the
 * flags that let the lean paths run are set after the slots were
 * resolved (cp_real.c's constructor runs first).  A plain mutex names
 * its record itself (cp_wrap_hint), in the line the try fetches; for the
 * other locks a try made here is preceded by a fetch of the map's home
 * slot (cp_objrec_prefetch_home), the thread's own line, which then
 * arrives beside the lock's.  Inline (@far false), they look for the
 * record through the hint and in its home slot only (a release first in
 * the held slot) and serve online mode without procedures only; the
 * general wrapper, out of line, first runs them again (CP_LEAN_*_TRY,
 * @far true) with the whole map, procedures and in trace mode too, and
 * leaves the record it found in the hint.  Return values and errno are
 * the real calls': the lean code touches neither.
 */
#define CP_LEAN_ACQUIRE_TRY(obj, kind, real_try, far, rc)		\
	do {								\
		struct cp_thread *t = cp_enter_lean(far);		\
									\
		if (t) {						\
			struct cp_objrec *r = NULL;			\
									\
			if ((rc) < 0) {					\
				if (kind != CP_OBJ_MUTEX)		\
					cp_objrec_prefetch_home(t,	\
						cp_objrec_key(		\
						(const void *)(obj),	\
						CP_NS_SYNC));		\
				(rc) = cp_real.real_try(obj);		\
			}						\
			if ((rc) == 0)					\
				r = (far ? cp_online_lean_rec_far :	\
				     cp_online_lean_rec)		\
					(t, (const void *)(obj), kind,	\
					 cp_wrap_hint((const void *)(obj), \
						      kind));		\
			if (r && far)					\
				cp_wrap_hint_set((const void *)(obj),	\
						 kind, r);		\
			if (r) {					\
				cp_objrec_hold(t, (const void *)(obj),	\
					       CP_NS_SYNC, r);		\
				(far ? cp_online_lean_acquired_far :	\
				 cp_online_lean_acquired)(t, r);	\
				cp_leave();				\
				return 0;				\
			}						\
		}							\
		if (t)							\
			cp_leave();					\
	} while (0)

/*
 * The inline acquire checks the generation and notes the key in the held
 * slot before the try, so that nothing lives in registers over the real
 * call (none to save and restore): after it, the thread's state comes
 * back from its TLS slot and the key, and for the general wrapper the
 * object, from the held slot.  An acquire that takes the general path
 * after all clears the key again: the slot's record pointer is still the
 * previous acquire's (or NULL) and must not be paired with it.
 */
#define CP_LEAN_ACQUIRE(obj, kind, real_try, general)			\
	do {								\
		struct cp_thread *t = cp_enter_lean(false);		\
		struct cp_objrec *r;					\
		uintptr_t obj_key;					\
		int rc;							\
									\
		if (!t)							\
			return general(obj, -1);			\
		if (!cp_online_lean_ok(t)) {				\
			cp_leave();					\
			return general(obj, -1);			\
		}							\
		t->held.key = cp_objrec_key((const void *)(obj),	\
					    CP_NS_SYNC);		\
		if (kind != CP_OBJ_MUTEX)				\
			cp_objrec_prefetch_home(t, t->held.key);	\
		rc = cp_real.real_try(obj);				\
		t = cp_tls.self;					\
		if (rc == 0) {						\
			r = cp_objrec_peek_hint_home(t, cp_wrap_hint(	\
				cp_objrec_key_addr(t->held.key), kind),	\
				t->held.key, kind);			\
			if (r) {					\
				t->held.rec = r;			\
				cp_online_lean_acquired(t, r);		\
				cp_leave();				\
				return 0;				\
			}						\
		}							\
		obj_key = t->held.key;					\
		t->held.key = 0;					\
		cp_leave();						\
		return general((__typeof__(obj))			\
			       cp_objrec_key_addr(obj_key), rc);	\
	} while (0)

#define CP_LEAN_RELEASE_TRY(obj, kind, owned, real_unlock, far)	\
	do {								\
		struct cp_thread *t = cp_enter_lean(far);		\
									\
		if (t) {						\
			struct cp_objrec *r = (far ?			\
				cp_online_lean_rec_far :		\
				cp_online_lean_rec_held)		\
				(t, (const void *)(obj), kind,		\
				 cp_wrap_hint((const void *)(obj), kind)); \
									\
			if (r && (owned)) {				\
				(far ? cp_online_lean_release_far :	\
				 cp_online_lean_release)(t, r);		\
				cp_leave();				\
				return cp_real.real_unlock(obj);	\
			}						\
			cp_leave();					\
		}							\
	} while (0)

#define CP_LEAN_RELEASE(obj, kind, owned, real_unlock, general)	\
	do {								\
		CP_LEAN_RELEASE_TRY(obj, kind, owned, real_unlock, false); \
		return general(obj);					\
	} while (0)

/*
 * Whether @t holds mutex @m (a pthread_mutex_t, or a C11 mtx_t, which
 * glibc lays out the same): glibc keeps the owner's kernel thread id in
 * it.  Only the owner publishes at an unlock: one that will fail with
 * EPERM must not write the record the owner is protecting.
 */
#define CP_MUTEX_OWNED(m, t)						\
	(((const pthread_mutex_t *)(m))->__data.__owner == (t)->ostid)

/* The end of a condition wait, cancelled: the mutex is held again. */
static inline void cp_cancel_cond(const struct cp_cancel *c)
{
	cp_online_cond_wait_end(c->t, c->a, c->b, c->w, ECANCELED);
}

/*
 * A condition wait (pthread or C11): a release of the mutex, a wait for a
 * signal, and a re-acquire of the mutex that glibc performs inside the
 * call, without the wrapped lock.  @hook_rc maps the real result rc to
 * the pthread convention the hooks expect (0, ETIMEDOUT, other).  Return
 * value and errno are the real call's.
 */
#define CP_WRAP_COND_WAIT(c, m, real_call, hook_rc)			\
	do {								\
		struct cp_thread *t = cp_enter();			\
		struct cp_objrec *cr = NULL, *mr = NULL;		\
		struct cp_wait w;					\
		struct cp_cancel cc;					\
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
		cc = (struct cp_cancel){ .end = cp_cancel_cond, .t = t,	\
					 .w = &w, .a = cr, .b = mr };	\
		CP_CANCELLABLE(&cc, rc = real_call, err = errno);	\
		cp_online_cond_wait_end(t, cr, mr, &w, hook_rc);	\
		cp_leave();						\
		errno = err;						\
		return rc;						\
	} while (0)

/* Before a signal or broadcast of @c: publish the signaller's path. */
static inline void cp_wrap_signal(const void *c)
{
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;

	if (!t)
		return;
	r = sync_rec(t, c, CP_OBJ_COND);
	if (r)
		cp_online_cond_signal(t, r);
	cp_leave();
}

#endif /* WRAP_COMMON_H */
