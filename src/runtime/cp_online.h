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
