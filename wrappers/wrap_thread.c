/*
 * wrap_thread.c - pthread_create / join / exit.  The child's first event
 * depends on the create; a join depends on the child's last event.
 *
 * pthread_create goes through a trampoline that owns the thread's life:
 * it binds the state the parent prepared (a copy of the parent's path),
 * runs the start routine, and ends the thread's path in one cleanup
 * handler that return, pthread_exit and cancellation all pass through
 * before any thread-specific data destructor runs (cp_runtime.c says why
 * that order matters).
 *
 * A join names its thread by the runtime's state for it, looked up before
 * the real join: once joined, the pthread_t may name a new thread.
 */
#include "wrap_common.h"
#include "wrap_sigmask.h"

#include "cp_alloc.h"
#include "cp_sampler.h"

struct cp_start {
	void *(*fn)(void *);
	void *arg;
	struct cp_thread *child;
	bool sig_held;		/* the creator's view of the sampler signal */
	sigset_t mask;		/* the creator's signal mask (the child is
				 * born with every signal blocked) */
};



/* The thread's last event; the guard stays raised from then on. */
static void trampoline_exit(void *child)
{
	cp_tls.guard++;
	if (cp_rt.tracing)
		cp_thread_exit(child);
	cp_tls.guard--;
}

/* Start routine of every traced thread: the sampler's unwinder ends a
 * stack at its frame (cp_sampler.c). */
void *cp_trampoline(void *p)
{
	struct cp_start s;
	void *ret;

	cp_tls.guard++;
	s = *(struct cp_start *)p;
	cp_free(p);
	cp_signal_inherit(s.sig_held);
	if (cp_rt.tracing) {	/* else the process is exiting */
		cp_online_thread_start(s.child);
		cp_runtime_bind_exit(s.child);
	}
	cp_tls.guard--;
	/* the thread's state is bound: the program's handlers may run */
	CP_REAL(pthread_sigmask)(SIG_SETMASK, &s.mask, NULL);

	pthread_cleanup_push(trampoline_exit, s.child);
	ret = s.fn(s.arg);
	pthread_cleanup_pop(1);
	return ret;
}

/*
 * A thread created from inside the tracer (the worker thread liburcu-cds
 * starts for the hash table, at start-up) is the tracer's own: it runs with the
 * guard raised and every signal blocked for life (wrap_sigmask.c), and is
 * never traced.
 */
static void *cp_internal_trampoline(void *p)
{
	struct cp_start s;
	void *ret;

	cp_tls.guard = 1;
	cp_signal_internal();
	s = *(struct cp_start *)p;
	cp_free(p);
	cp_runtime_internal_thread(true);
	ret = s.fn(s.arg);
	cp_runtime_internal_thread(false);
	return ret;
}

static int create_internal(pthread_t *th, const pthread_attr_t *attr,
			   void *(*fn)(void *), void *arg)
{
	struct cp_start *s = cp_zalloc(sizeof(*s));
	sigset_t mask;
	int rc;

	if (!s)
		return CP_REAL(pthread_create)(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	/* born with every signal blocked: none reaches it before its
	 * trampoline runs */
	cp_signal_block_all(&mask);
	rc = CP_REAL(pthread_create)(th, attr, cp_internal_trampoline, s);
	CP_REAL(pthread_sigmask)(SIG_SETMASK, &mask, NULL);
	if (rc != 0)
		cp_free(s);
	return rc;
}

CP_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr,
			     void *(*fn)(void *), void *arg)
{
	struct cp_thread *t;
	struct cp_thread *child;
	struct cp_start *s;
	int detach = PTHREAD_CREATE_JOINABLE;
	sigset_t mask;
	int rc, err;

	if (cp_tls.guard)
		return create_internal(th, attr, fn, arg);
	t = cp_enter();
	if (!t)
		return CP_REAL(pthread_create)(th, attr, fn, arg);
	child = cp_online_create_begin(t);
	s = cp_zalloc(sizeof(*s));
	if (!child || !s) {
		cp_thread_free(child);
		cp_free(s);
		cp_leave();
		return CP_REAL(pthread_create)(th, attr, fn, arg);
	}
	s->fn = fn;
	s->arg = arg;
	s->child = child;
	if (attr)
		pthread_attr_getdetachstate(attr, &detach);
	child->detached = detach == PTHREAD_CREATE_DETACHED;
	cp_runtime_thread_coming();
	s->sig_held = cp_signal_held();
	/*
	 * The child is born with every signal blocked, its trampoline
	 * restoring the creator's mask once the child's state is bound: a
	 * handler of the program's run before that (glibc unblocks the new
	 * thread's signals before it calls the start routine) found no
	 * state and adopted the thread as a second one, whose record the
	 * join then named (a SIGALRM handler calling sem_post, 200 us apart,
	 * did so in 1 run of 6).
	 */
	cp_signal_block_all(&mask);
	s->mask = mask;
	cp_pause();
	rc = CP_REAL(pthread_create)(th, attr, cp_trampoline, s);
	err = errno;
	CP_REAL(pthread_sigmask)(SIG_SETMASK, &mask, NULL);
	cp_resume();
	cp_online_create_end(t, child, rc, rc == 0 ? *th : 0);
	if (rc != 0) {
		cp_runtime_thread_failed();
		cp_free(s);
		cp_thread_free(child);
	}
	cp_leave();
	errno = err;
	return rc;
}

#define JOIN(th, real_call)						\
	do {								\
		struct cp_thread *t = cp_enter(), *child;		\
		struct cp_wait w;					\
		struct cp_cancel cc;					\
		int rc, err;						\
									\
		if (!t)							\
			return real_call;				\
		child = cp_thread_by_id(th);				\
		cp_online_join_begin(t, &w);				\
		cc = (struct cp_cancel){ .end = cp_cancel_join, .t = t,	\
					 .w = &w };			\
		CP_CANCELLABLE(&cc, rc = real_call, err = errno);	\
		cp_online_join_end(t, &w, rc, child);			\
		cp_leave();						\
		errno = err;						\
		return rc;						\
	} while (0)

CP_EXPORT int pthread_join(pthread_t th, void **ret)
{
	JOIN(th, CP_REAL(pthread_join)(th, ret));
}

CP_EXPORT int pthread_tryjoin_np(pthread_t th, void **ret)
{
	JOIN(th, CP_REAL(pthread_tryjoin_np)(th, ret));
}

CP_EXPORT int pthread_timedjoin_np(pthread_t th, void **ret,
				   const struct timespec *abst)
{
	JOIN(th, CP_REAL(pthread_timedjoin_np)(th, ret, abst));
}

CP_EXPORT void pthread_exit(void *ret)
{
	struct cp_thread *t = cp_enter();

	if (t) {
		cp_thread_exit(t);
		cp_leave();
	}
	CP_REAL(pthread_exit)(ret);
	__builtin_unreachable();
}
