/*
 * cp_online.h - the online critical-path algorithm: one hook per
 * synchronization event, called by the wrappers with the guard raised on
 * the calling thread (cp_enter() returned @t).  The rules are in
 * cp_online.c; the wrappers only order hook, real call, hook.
 *
 * Unless a comment says otherwise, every hook: runs on @t's own thread
 * with the guard raised; touches @r only as cp_objrec.h allows the
 * calling thread; cannot fail (a record the tracer could not make is
 * untracked, and its edges are lost, never invented); takes @rc, where it
 * has one, as the real call returned it.  Clock values are ns of
 * cp_rt.clock.
 */
#ifndef CP_ONLINE_H
#define CP_ONLINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cp_objrec.h"
#include "cp_thread.h"
#include "cp_trace_format.h"
#include "cp_tracebuf.h"

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
/*
 * A wait (@w, NULL: none) for what rwlock-kind record @r holds ended: take
 * its last write release and, when @all, the read releases since, as a
 * read or a write acquire would, without holding it (an OpenMP taskwait
 * with dependences).  Trace mode records the same CONSUME.
 */
void cp_online_rw_observe(struct cp_thread *t, struct cp_objrec *r,
			  struct cp_wait *w, bool all);
/*
 * The release of an rwlock-kind record that a thread may hold more than
 * once, for reading and writing (an OpenMP task dependence, which a task
 * run inside another on the same thread may name too): a write release
 * when @write, else a read release, whatever its acquires recorded.
 */
void cp_online_rw_release(struct cp_thread *t, struct cp_objrec *r,
			  bool write);
/* A try/timed acquire failed (@w NULL: without waiting). */
void cp_online_failed(struct cp_thread *t, struct cp_objrec *r,
		      struct cp_wait *w);
/* Release; call before the real unlock, the lock still held. */
void cp_online_lock_release(struct cp_thread *t, struct cp_objrec *r);

/*
 * Whether taking @src (of generation @gen, the thread's) can change the
 * thread's path: not its own earlier snapshot, nor one its path dominates
 * already (cp_path.h).  When it cannot, an acquire that did not wait
 * reads no clock: with procedures selected as without.
 */
static inline bool cp_online_may_take(const struct cp_thread *t,
				      const struct cp_path *src, uint32_t gen)
{
	return src->gen == gen && src->owner != t->tid &&
	       !cp_path_dominates(t->path, src, cp_rt.nsel);
}

/*
 * The lean paths of a mutex or spin lock (cp_rt.lean_locks: online mode,
 * the TSC clock, no procedure selected), for the common case: the lock
 * taken without a wait, its record in the thread's map.  A wrapper calls
 * cp_online_lean_rec() after a successful try, and when it returns a
 * record the two below instead of the general hooks; otherwise the
 * general wrapper runs, as if the lean path had not been tried.  The
 * general wrapper first tries them once more (cp_online_lean_rec_far, the
 * *_far hooks), also in trace mode and with procedures selected
 * (cp_rt.lean_far), where they record the events, with the timestamps,
 * and charge the procedures as the general hooks would.  Nothing of trace
 * mode or of procedures is inline: every instruction there costs online.
 *
 * Why they exist: in a program that works between its locks, the
 * processor runs the end of that work, the lock and the start of the next
 * work at the same time, as far as its reorder window reaches.  Every
 * instruction the tracer adds between the lock and the unlock shrinks that
 * overlap, and past the window's size each one costs its full latency: a
 * lock pair that cost 20 ns more in a tight loop cost 60 ns more there.
 * So these paths do one map probe and no re-checks, and call nothing but
 * the real functions (README.md, "What it costs", has the measurements).
 */

/* Whether @t's path is of the current generation (else the general path
 * starts a new one), checked before the look-up. */
static inline bool cp_online_lean_ok(const struct cp_thread *t)
{
	return t->gen == atomic_load_explicit(&cp_rt.gen, memory_order_relaxed);
}

/* The record for the lean path when the object's hint (@hint, NULL:
 * none; cp_objrec_peek_hint) names it or it sits in its home slot of the
 * thread's map (inline in every lock call; the look-ups refuse an
 * untracked record)... */
static inline struct cp_objrec *cp_online_lean_rec(
	const struct cp_thread *t, const void *obj, unsigned kind,
	const uintptr_t *hint)
{
	if (!cp_online_lean_ok(t))
		return NULL;
	return cp_objrec_peek_hint_home(t, hint, cp_objrec_key(obj, CP_NS_SYNC),
					kind);
}

/* ...or, for a release, the one its acquire remembered (cp_objrec_hold:
 * the lean acquires call it) first... */
static inline struct cp_objrec *cp_online_lean_rec_held(
	const struct cp_thread *t, const void *obj, unsigned kind,
	const uintptr_t *hint)
{
	if (!cp_online_lean_ok(t))
		return NULL;
	return cp_objrec_peek_held(t, obj, CP_NS_SYNC, kind, hint);
}

/* ...or anywhere in the map (in the general wrappers, before the general
 * path: a lock whose home slot another object took pays a call and a
 * probe, not the general path), the held slot and the hint first. */
static inline struct cp_objrec *cp_online_lean_rec_far(
	const struct cp_thread *t, const void *obj, unsigned kind,
	const uintptr_t *hint)
{
	uintptr_t key = cp_objrec_key(obj, CP_NS_SYNC);
	struct cp_objrec *r;

	if (!cp_online_lean_ok(t))
		return NULL;
	r = cp_objrec_peek_held_only(t, key, kind);
	if (!r)
		r = cp_objrec_peek_hint(t, hint, key, kind);
	if (r)
		return r;
	r = cp_objrec_peek(t, obj, CP_NS_SYNC, kind);
	if (r && atomic_load_explicit(&r->untracked, memory_order_relaxed))
		return NULL;
	return r;
}

/* cp_thread_advance() to now, without its generation check:
 * cp_online_lean_rec() settled it, nor procedures (none is selected
 * where the inline paths run).  Returns the ns advanced. */
static inline uint64_t cp_online_lean_advance(struct cp_thread *t)
{
	uint64_t now = cp_clock_wall_tsc();
	uint64_t d = now > t->last ? now - t->last : 0;

	t->wall_now = now;
	t->last = now;
	t->useful_ns += d;
	t->path->len += d;
	return d;
}

/* The same where procedures may be selected: those running are charged
 * too (one branch when none is).  Procedures found by sampling never take
 * the lean paths (cp_rt.lean_far is off then).  Returns now. */
static inline uint64_t cp_online_lean_advance_procs(struct cp_thread *t)
{
	uint64_t d = cp_online_lean_advance(t);

	if (t->nactive)
		cp_thread_charge_active(t, d);
	return t->last;
}

/* Merge @src (a path of @r) into the thread's path; what the path gained
 * counts to @r (a mutex or spin lock protects the figure, other kinds add
 * atomically). */
static inline void cp_online_take(struct cp_thread *t, struct cp_objrec *r,
				  const struct cp_path *src)
{
	uint64_t g = cp_path_merge(t->path, src, cp_rt.nsel,
				   atomic_load_explicit(&cp_rt.gen,
							memory_order_relaxed));

	if (!g)
		return;
	if (r->kind == CP_OBJ_MUTEX || r->kind == CP_OBJ_SPIN)
		r->gain_ns += g;
	else
		__atomic_fetch_add(&r->gain_ns, g, __ATOMIC_RELAXED);
}

/* Taking a longer path: out of line, it reads the clock.  The first for
 * the inline paths (no procedure selected), the second for the general
 * wrappers' second try. */
void cp_online_lean_take(struct cp_thread *t, struct cp_objrec *r);
void cp_online_lean_take_far(struct cp_thread *t, struct cp_objrec *r);

/* Acquired without a wait (@r from cp_online_lean_rec, the lock held; no
 * procedure selected: cp_rt.lean_locks). */
static inline void cp_online_lean_acquired(struct cp_thread *t,
					   struct cp_objrec *r)
{
	const struct cp_path *src = &r->main;

	r->ops++;
	if (src->gen == t->gen && src->owner != t->tid &&
	    !cp_path_dominates(t->path, src, 0))
		cp_online_lean_take(t, r);
}

/* Release, the lock still held: advance to now and publish the path (no
 * procedure selected: cp_rt.lean_locks). */
static inline void cp_online_lean_release(struct cp_thread *t,
					  struct cp_objrec *r)
{
	cp_online_lean_advance(t);
	r->seq++;
	cp_path_copy(&r->main, t->path, 0);
}

/*
 * The two above for the general wrappers' second try, with the
 * procedures' vectors when some are selected, and in trace mode with the
 * events (a thread without a buffer records none).  Inline there: two
 * calls a lock pair cost 15 ns in a program working between its locks.
 * The traced acquire is cp_online_lock_acquired() without a wait: the
 * clock read and the CONSUME event at every acquire; the release's
 * PUBLISH is made at the thread's wall_now.  Both events are staged
 * (cp_tb_stage), to be encoded later in a batch.
 */
static inline void cp_online_lean_acquired_far(struct cp_thread *t,
					       struct cp_objrec *r)
{
	uint64_t now;

	r->ops++;
	if (!cp_rt.trace || !t->tb) {
		if (cp_online_may_take(t, &r->main, t->gen))
			cp_online_lean_take_far(t, r);
		return;
	}
	now = cp_online_lean_advance_procs(t);
	cp_online_take(t, r, &r->main);
	cp_tb_stage(t->tb, CP_EV_CONSUME, now, r->id, r->seq);
}

static inline void cp_online_lean_release_far(struct cp_thread *t,
					      struct cp_objrec *r)
{
	cp_online_lean_advance_procs(t);
	r->seq++;
	cp_path_copy(&r->main, t->path, cp_rt.nsel);
	if (cp_rt.trace && t->tb)
		cp_tb_stage(t->tb, CP_EV_PUBLISH, t->wall_now, r->id, r->seq);
}

/* Barrier: arrival before the real wait, departure after it. */
void cp_online_barrier_arrive(struct cp_thread *t, struct cp_objrec *r,
			      struct cp_wait *w);
void cp_online_barrier_depart(struct cp_thread *t, struct cp_objrec *r,
			      struct cp_wait *w, int rc);

/* Condition variables; @m is the mutex's record.  The end's @rc: 0 (a
 * wake), ETIMEDOUT or ECANCELED (the thread cancelled in the wait: the
 * mutex re-acquired all the same), other (no re-acquire). */
void cp_online_cond_wait_begin(struct cp_thread *t, struct cp_objrec *c,
			       struct cp_objrec *m, struct cp_wait *w);
void cp_online_cond_wait_end(struct cp_thread *t, struct cp_objrec *c,
			     struct cp_objrec *m, struct cp_wait *w, int rc);
void cp_online_cond_signal(struct cp_thread *t, struct cp_objrec *c);

/* Semaphores.  sem_post publishes before the real post and returns the
 * sequence it published (0: untracked); sem_post_failed takes that @seq
 * back when the real post failed. */
uint64_t cp_online_sem_post(struct cp_thread *t, struct cp_objrec *r);
void cp_online_sem_post_failed(struct cp_thread *t, struct cp_objrec *r,
			       uint64_t seq);
void cp_online_sem_acquired(struct cp_thread *t, struct cp_objrec *r,
			    struct cp_wait *w);

/* Work-queue items (cpthread_enqueue / cpthread_dequeue). */
void cp_online_enqueue(struct cp_thread *t, const void *item);
void cp_online_dequeue(struct cp_thread *t, const void *item);

/*
 * Signals: one-to-many and many-to-one edges that no program object
 * carries (call_once's completion, an OpenMP region's fork and join, a
 * task's completion).  The record is a condition-kind record (@r->lk).
 * cp_online_signal publishes the thread's path: @merge false replaces
 * what the record holds (one release, many takers), true merges into it
 * (many releases, one taker).  cp_online_signal_take merges into the
 * thread every publish since the last take with @reset (all of them
 * without one; @w: the wait it ends, or NULL); @reset starts a new
 * collection.  Any thread, guard raised.
 */
void cp_online_signal(struct cp_thread *t, struct cp_objrec *r, bool merge);
void cp_online_signal_take(struct cp_thread *t, struct cp_objrec *r,
			   struct cp_wait *w, bool reset);
/* Drop what the record collected, without taking it. */
void cp_online_signal_reset(struct cp_objrec *r);
/* Whether a publish came since the record's last take with reset. */
bool cp_online_signal_pending(struct cp_objrec *r);

/*
 * Work that runs inside a wait (an OpenMP task run by a thread waiting at
 * a barrier): cp_online_task_start ends the wait @w (NULL: none) and takes
 * @item's enqueue, as cp_online_dequeue does; after the work,
 * cp_online_wait_restart begins @w again at the thread's latest event.
 * Calling thread, guard raised.
 */
void cp_online_task_start(struct cp_thread *t, const void *item,
			  struct cp_wait *w);
void cp_online_wait_restart(struct cp_thread *t, struct cp_wait *w);

/*
 * Threads.  create_end publishes the child (cp_thread_publish) once the
 * real create succeeded with @id.  A join names its thread by the state
 * cp_thread_by_id() gave before the real join (@child, NULL: a thread the
 * tracer does not know); a successful join depends on its final path.
 * create_begin returns the child's state (NULL out of memory: the child
 * then runs untraced); thread_start runs on the child, as its first
 * event.
 */
struct cp_thread *cp_online_create_begin(struct cp_thread *t);
void cp_online_create_end(struct cp_thread *t, struct cp_thread *child,
			  int rc, pthread_t id);
void cp_online_thread_start(struct cp_thread *child);
void cp_online_join_begin(struct cp_thread *t, struct cp_wait *w);
void cp_online_join_end(struct cp_thread *t, struct cp_wait *w, int rc,
			struct cp_thread *child);

/* Procedures: -finstrument-functions hooks and regions. */
void cp_online_proc_enter(struct cp_thread *t, uintptr_t fn);
void cp_online_proc_leave(struct cp_thread *t, uintptr_t fn);
void cp_online_region(struct cp_thread *t, const char *name, bool begin);

/* cpthread_start / cpthread_stop / cpthread_sample. */
void cp_online_start(struct cp_thread *t);
void cp_online_stop(struct cp_thread *t);
void cp_online_sample(struct cp_thread *t);

#endif /* CP_ONLINE_H */
