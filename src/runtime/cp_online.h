/*
 * cp_online.h - the online critical-path algorithm: one hook per
 * synchronization event, called by the wrappers with the guard raised on
 * the calling thread (cp_enter() returned @t).  The rules are in
 * cp_online.c; the wrappers only order hook, real call, hook.
 */
#ifndef CP_ONLINE_H
#define CP_ONLINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cp_objrec.h"
#include "cp_thread.h"
#include "cp_trace_format.h"

/* A wait in progress: begun by a *_begin hook, ended by the next hook. */
struct cp_wait {
	uint64_t t0;		/* clock when the wait began */
	uint64_t wall0;		/* wall clock then (waiting is reported in
				 * wall time under either clock) */
	uint64_t seq0;		/* cond: signals published before it */
	uint64_t episode;	/* barrier: episode of the arrival */
};

/* Locks: mutex, spin lock, rwlock (@shared: a read acquire). */
void cp_online_wait_begin(struct cp_thread *t, struct cp_objrec *r,
			  struct cp_wait *w);
/* Acquired; @w NULL when it did not wait. */
void cp_online_lock_acquired(struct cp_thread *t, struct cp_objrec *r,
			     struct cp_wait *w, bool shared);
/* A try/timed acquire failed (@w NULL: without waiting). */
void cp_online_failed(struct cp_thread *t, struct cp_objrec *r,
		      struct cp_wait *w);
/* Release; call before the real unlock, the lock still held. */
void cp_online_lock_release(struct cp_thread *t, struct cp_objrec *r);

/*
 * The common cases of the two above for a mutex or spin lock in online
 * mode without selected procedures, inlined into the wrappers: in a
 * program that works between its locks, every instruction the tracer adds
 * inside the critical section runs after the work has drained from the
 * pipeline, so the calls, the spills and the re-checks of the general
 * functions cost more there than in a tight loop.  Each returns false,
 * having changed nothing, when the general function must run instead.
 */
static inline bool cp_online_lock_fast_ok(const struct cp_thread *t,
					  const struct cp_objrec *r,
					  uint32_t gen)
{
	return !t->tb && cp_rt.nsel == 0 && t->gen == gen &&
	       (r->kind == CP_OBJ_MUTEX || r->kind == CP_OBJ_SPIN) &&
	       !atomic_load_explicit(&r->untracked, memory_order_relaxed);
}

/*
 * Whether taking @src (of generation @gen) can change the thread's path:
 * not its own earlier snapshot, and, without selected procedures (where a
 * merge is a max of lengths), only a longer one.  When it cannot, an
 * acquire that did not wait reads no clock.
 */
static inline bool cp_online_may_take(const struct cp_thread *t,
				      const struct cp_path *src, uint32_t gen)
{
	return src->gen == gen && src->owner != t->tid &&
	       (cp_rt.nsel != 0 || src->len > t->path->len);
}

/*
 * Acquired without a wait.  Nothing to take unless the record is another
 * thread's longer path of this generation; then the thread's path is
 * advanced to now and takes the record's length.
 */
static inline bool cp_online_lock_acquired_fast(struct cp_thread *t,
						struct cp_objrec *r)
{
	uint32_t g = atomic_load_explicit(&cp_rt.gen, memory_order_relaxed);
	struct cp_path *p = t->path;

	if (!cp_online_lock_fast_ok(t, r, g) || p->gen != g)
		return false;
	r->ops++;
	if (cp_online_may_take(t, &r->main, g)) {
		cp_thread_advance(t, cp_thread_now(t));
		if (r->main.len > p->len) {
			r->gain_ns += r->main.len - p->len;
			p->len = r->main.len;
		}
	}
	return true;
}

/* Release: advance the thread's path to now and publish it. */
static inline bool cp_online_lock_release_fast(struct cp_thread *t,
					       struct cp_objrec *r)
{
	uint32_t g = atomic_load_explicit(&cp_rt.gen, memory_order_relaxed);

	if (!cp_online_lock_fast_ok(t, r, g))
		return false;
	cp_thread_advance(t, cp_thread_now(t));
	r->seq++;
	r->main.len = t->path->len;
	r->main.owner = t->path->owner;
	r->main.gen = t->path->gen;
	return true;
}

/* Barrier: arrival before the real wait, departure after it. */
void cp_online_barrier_arrive(struct cp_thread *t, struct cp_objrec *r,
			      struct cp_wait *w);
void cp_online_barrier_depart(struct cp_thread *t, struct cp_objrec *r,
			      struct cp_wait *w, int rc);

/* Condition variables; @m is the mutex's record. */
void cp_online_cond_wait_begin(struct cp_thread *t, struct cp_objrec *c,
			       struct cp_objrec *m, struct cp_wait *w);
void cp_online_cond_wait_end(struct cp_thread *t, struct cp_objrec *c,
			     struct cp_objrec *m, struct cp_wait *w, int rc);
void cp_online_cond_signal(struct cp_thread *t, struct cp_objrec *c);

/* Semaphores. */
uint64_t cp_online_sem_post(struct cp_thread *t, struct cp_objrec *r);
void cp_online_sem_post_failed(struct cp_thread *t, struct cp_objrec *r,
			       uint64_t seq);
void cp_online_sem_acquired(struct cp_thread *t, struct cp_objrec *r,
			    struct cp_wait *w);

/* Work-queue items (cpthread_enqueue / cpthread_dequeue). */
void cp_online_enqueue(struct cp_thread *t, const void *item);
void cp_online_dequeue(struct cp_thread *t, const void *item);

/* Threads. */
struct cp_thread *cp_online_create_begin(struct cp_thread *t);
void cp_online_create_end(struct cp_thread *t, struct cp_thread *child,
			  int rc, pthread_t id);
void cp_online_thread_start(struct cp_thread *child);
void cp_online_join_begin(struct cp_thread *t, struct cp_wait *w);
void cp_online_join_end(struct cp_thread *t, struct cp_wait *w, int rc,
			pthread_t id);

/* Procedures: -finstrument-functions hooks and regions. */
void cp_online_proc_enter(struct cp_thread *t, uintptr_t fn);
void cp_online_proc_leave(struct cp_thread *t, uintptr_t fn);
void cp_online_region(struct cp_thread *t, const char *name, bool begin);

/* cpthread_start / cpthread_stop / cpthread_sample. */
void cp_online_start(struct cp_thread *t);
void cp_online_stop(struct cp_thread *t);
void cp_online_sample(struct cp_thread *t);

#endif /* CP_ONLINE_H */
