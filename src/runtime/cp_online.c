/*
 * cp_online.c - the online critical-path algorithm of [Hollingsworth98] (Fig.
 * 2, Fig. 4, §4) adapted to shared memory.
 *
 * Each thread carries a path value (cp_path.h): the longest path ending at
 * its latest event, the share of each selected procedure on it, and the
 * zeroing deficits.  Each object carries a record of what a thread that
 * comes to depend on it must take over.  A release-like event first folds
 * the thread's useful time since its previous event into its path
 * (advance), then publishes the path into the record; an acquire-like
 * event merges the record into the thread's path and restarts the thread's
 * clock after the wait.  The dependency edges, per primitive:
 *
 *   mutex, spin   acquire n  <- release n-1 (record = last release)
 *   rwlock        read acquire <- last write release; write acquire <- last
 *                 write release and every read release since (rpath)
 *   barrier       departures of episode e <- every arrival of episode e
 *                 (two slots by parity: episode e+2 cannot begin before
 *                 every thread has left episode e)
 *   cond          wake <- latest signal/broadcast made after the wait
 *                 began, then the mutex re-acquire <- its last release
 *   semaphore     k-th successful wait <- the post that made its token
 *                 (FIFO of posts; initial tokens depend on nothing)
 *   item          dequeue of X <- latest enqueue of X ([Hollingsworth98, Fig. 11]);
 *                 the record lives while X is in flight (cp_items.h)
 *   thread        child start <- create; join <- child's exit
 *   signal        take <- the latest publish (replace), or every publish
 *                 since the last reset (merge): call_once, OpenMP fork,
 *                 join and task completion
 *
 * Cost: an uncontended acquire reads no clock unless the record can
 * lengthen the thread's path (another thread's release of a longer path,
 * or any foreign record when procedures are selected); a release reads the
 * clock once.  Merging is O(1) without selected procedures and O(nsel)
 * with them ([Hollingsworth98]: constant per event).
 *
 * In trace mode every hook also records its event (cp_tracebuf.h) with the
 * very timestamps used here, so the offline graph gives the same answer.
 */
#include "cp_online.h"

#include <errno.h>
#include <string.h>

#include "cp_alloc.h"
#include "cp_items.h"
#include "cp_procs.h"
#include "cp_report.h"
#include "cp_strhash.h"
#include "cp_trace_format.h"
#include "cp_tracebuf.h"

static inline uint32_t cur_gen(void)
{
	return atomic_load_explicit(&cp_rt.gen, memory_order_relaxed);
}

static inline uint64_t wall_of(struct cp_thread *t)
{
	return cp_rt.clock == CP_CLOCK_CPU ? t->wall_now : UINT64_MAX;
}

/* Read the clock and fold the time since the previous event in. */
static inline uint64_t step(struct cp_thread *t)
{
	uint64_t now = cp_thread_now(t);

	cp_thread_advance(t, now);
	return now;
}

/* ---- trace events ---------------------------------------------------- */

static void ev_obj(struct cp_thread *t, unsigned op, uint64_t now,
		   uint32_t obj)
{
	uint8_t *p = cp_tb_vertex(t->tb, op, now, wall_of(t));

	p = cp_uv_put(p, obj);
	cp_tb_commit(t->tb, p);
}

static void ev_publish(struct cp_thread *t, uint64_t now, uint32_t obj,
		       uint64_t seq)
{
	cp_tb_publish(t->tb, now, wall_of(t), obj, seq);
}

static void ev_consume(struct cp_thread *t, unsigned fl, uint64_t now,
		       uint32_t obj, uint64_t lo, uint64_t n)
{
	cp_tb_consume(t->tb, fl, now, wall_of(t), obj, lo, n);
}

static void ev_plain(struct cp_thread *t, unsigned op, uint64_t now)
{
	cp_tb_commit(t->tb, cp_tb_vertex(t->tb, op, now, wall_of(t)));
}

/* ---- shared pieces --------------------------------------------------- */

static inline bool untracked(const struct cp_objrec *r)
{
	return atomic_load_explicit(&r->untracked, memory_order_relaxed);
}

static inline void add_stat(uint64_t *field, uint64_t v)
{
	__atomic_fetch_add(field, v, __ATOMIC_RELAXED);
}

/* End of a wait begun at w->t0; returns the clock after it. */
static uint64_t end_wait(struct cp_thread *t, struct cp_objrec *r,
			 struct cp_wait *w)
{
	uint64_t now = cp_thread_now(t);
	uint64_t waited = t->wall_now > w->wall0 ? t->wall_now - w->wall0 : 0;

	cp_thread_waited(t, now, waited);
	if (r) {
		add_stat(&r->contended, 1);
		add_stat(&r->wait_ns, waited);
	}
	return now;
}

/* ---- locks ----------------------------------------------------------- */

void cp_online_lean_take(struct cp_thread *t, struct cp_objrec *r)
{
	cp_online_lean_advance(t);
	/* cp_online_take() without vectors; @r is a mutex's or spin lock's
	 * (the lean look-ups check), whose lock protects gain_ns */
	r->gain_ns += cp_path_merge(t->path, &r->main, 0,
				    atomic_load_explicit(&cp_rt.gen,
							 memory_order_relaxed));
}

void cp_online_lean_take_far(struct cp_thread *t, struct cp_objrec *r)
{
	cp_online_lean_advance_procs(t);
	cp_online_take(t, r, &r->main);
}

void cp_online_wait_begin(struct cp_thread *t, struct cp_objrec *r,
			  struct cp_wait *w)
{
	w->t0 = step(t);
	w->wall0 = t->wall_now;
	if (t->tb)
		ev_obj(t, CP_EV_REQUEST, w->t0, r ? r->id : 0);
}

/* An acquire (@hold) or an rwlock's observation (cp_online_rw_observe). */
static void acquired(struct cp_thread *t, struct cp_objrec *r,
		     struct cp_wait *w, bool shared, bool hold)
{
	const struct cp_path *src = &r->main;
	bool rw = r->kind == CP_OBJ_RWLOCK;
	uint64_t now;

	if (rw)
		add_stat(&r->ops, 1);
	else
		r->ops++;
	if (rw && !shared && hold)
		r->u.rw.writer = t->tid;

	if (w) {
		now = end_wait(t, r, w);
	} else if (!t->tb) {
		/* Fast path: skip the clock when the record cannot matter. */
		uint32_t g = cur_gen();

		if (untracked(r) || t->gen != g)
			return;
		if (!cp_online_may_take(t, src, g) &&
		    (!rw || shared || r->u.rw.rpath->gen != g))
			return;
		now = step(t);
	} else {
		now = step(t);
	}

	if (untracked(r)) {
		if (t->tb)
			ev_consume(t, w ? CP_EVF_WAIT : 0, now, r->id, 0, 0);
		return;
	}
	cp_online_take(t, r, src);
	if (rw && !shared) {
		/* a writer holds the lock alone; an observer may not, and
		 * read releases merge into rpath under the record's lock */
		if (!hold)
			cp_lock_acquire(&r->lk);
		cp_online_take(t, r, r->u.rw.rpath);
		if (!hold)
			cp_lock_release(&r->lk);
	}
	if (t->tb) {
		uint64_t lo, n;

		if (!rw) {
			lo = r->seq;
			n = r->seq != 0;
		} else if (shared) {
			lo = r->u.rw.wseq;
			n = lo != 0;
		} else {
			lo = r->u.rw.wseq ? r->u.rw.wseq : 1;
			n = r->seq >= lo ? r->seq - lo + 1 : 0;
		}
		ev_consume(t, (w ? CP_EVF_WAIT : 0) |
			   (rw && shared ? CP_EVF_SHARED : 0), now, r->id, lo, n);
	}
}

void cp_online_lock_acquired(struct cp_thread *t, struct cp_objrec *r,
			     struct cp_wait *w, bool shared)
{
	acquired(t, r, w, shared, true);
}

void cp_online_rw_observe(struct cp_thread *t, struct cp_objrec *r,
			  struct cp_wait *w, bool all)
{
	acquired(t, r, w, !all, false);
}

void cp_online_failed(struct cp_thread *t, struct cp_objrec *r,
		      struct cp_wait *w)
{
	uint64_t now;

	if (!w && !t->tb)
		return;
	now = w ? end_wait(t, r, w) : step(t);
	if (t->tb)
		cp_tb_commit(t->tb, cp_uv_put(cp_tb_vertex(t->tb, CP_EV_FAIL |
			(w ? CP_EVF_WAIT : 0), now, wall_of(t)), r ? r->id : 0));
}

/* Publish the (already advanced) path into a lock record at @now.  An
 * rwlock's release is a write release when @write is 1, a read release
 * when 0, and when -1 if the thread is the one its acquire recorded as
 * the writer. */
static void release_at(struct cp_thread *t, struct cp_objrec *r, uint64_t now,
		       int write)
{
	uint64_t seq;

	if (untracked(r))
		return;
	if (r->kind != CP_OBJ_RWLOCK) {
		seq = ++r->seq;
		cp_path_copy(&r->main, t->path, cp_rt.nsel);
	} else if (write > 0 || (write < 0 && r->u.rw.writer == t->tid)) {
		cp_lock_acquire(&r->lk);
		seq = ++r->seq;
		r->u.rw.wseq = seq;
		r->u.rw.writer = UINT32_MAX;
		cp_path_copy(&r->main, t->path, cp_rt.nsel);
		r->u.rw.rpath->gen = 0;
		cp_lock_release(&r->lk);
	} else {
		cp_lock_acquire(&r->lk);
		seq = ++r->seq;
		cp_path_merge(r->u.rw.rpath, t->path, cp_rt.nsel, cur_gen());
		if (r->u.rw.rpath->gen != cur_gen()) {
			cp_path_copy(r->u.rw.rpath, t->path, cp_rt.nsel);
			r->u.rw.rpath->owner = CP_PATH_MIXED;
		}
		cp_lock_release(&r->lk);
	}
	if (t->tb)
		ev_publish(t, now, r->id, seq);
}

void cp_online_lock_release(struct cp_thread *t, struct cp_objrec *r)
{
	/* An untracked lock (a queue's own) publishes nothing, in either
	 * mode: no event, so no clock either, unless a new generation is
	 * due (the thread restarts at its first event after it). */
	if (untracked(r) && t->gen == cur_gen())
		return;
	release_at(t, r, step(t), -1);
}

void cp_online_rw_release(struct cp_thread *t, struct cp_objrec *r,
			  bool write)
{
	if (untracked(r) && t->gen == cur_gen())
		return;
	release_at(t, r, step(t), write);
}

/* ---- barriers -------------------------------------------------------- */

void cp_online_barrier_arrive(struct cp_thread *t, struct cp_objrec *r,
			      struct cp_wait *w)
{
	uint32_t count = r->u.barrier.count;
	uint64_t k;
	struct cp_path *slot;

	w->t0 = step(t);
	w->wall0 = t->wall_now;
	cp_lock_acquire(&r->lk);
	k = ++r->u.barrier.arrivals;
	r->ops++;
	w->episode = (k - 1) / count;
	slot = r->u.barrier.slot[w->episode & 1];
	if ((k - 1) % count == 0) {
		cp_path_copy(slot, t->path, cp_rt.nsel);
		if (t->gen != cur_gen())
			slot->gen = 0;
	} else {
		cp_path_merge(slot, t->path, cp_rt.nsel, cur_gen());
		slot->owner = CP_PATH_MIXED;
	}
	cp_lock_release(&r->lk);
	if (t->tb) {
		if (untracked(r))
			ev_obj(t, CP_EV_REQUEST, w->t0, r->id);
		else
			ev_publish(t, w->t0, r->id, k);
	}
}

void cp_online_barrier_depart(struct cp_thread *t, struct cp_objrec *r,
			      struct cp_wait *w, int rc)
{
	uint32_t count = r->u.barrier.count;
	uint64_t now = end_wait(t, r, w);

	if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD) {
		if (t->tb)
			cp_tb_commit(t->tb, cp_uv_put(cp_tb_vertex(t->tb,
				CP_EV_FAIL | CP_EVF_WAIT, now, wall_of(t)), r->id));
		return;
	}
	if (untracked(r)) {
		if (t->tb)
			ev_consume(t, CP_EVF_WAIT, now, r->id, 0, 0);
		return;
	}
	cp_online_take(t, r, r->u.barrier.slot[w->episode & 1]);
	if (t->tb)
		ev_consume(t, CP_EVF_WAIT, now, r->id, w->episode * count + 1, count);
}

/* ---- condition variables --------------------------------------------- */

void cp_online_cond_wait_begin(struct cp_thread *t, struct cp_objrec *c,
			       struct cp_objrec *m, struct cp_wait *w)
{
	w->t0 = step(t);
	w->wall0 = t->wall_now;
	release_at(t, m, w->t0, -1);
	cp_lock_acquire(&c->lk);
	w->seq0 = c->seq;
	cp_lock_release(&c->lk);
	if (t->tb && untracked(m))
		ev_obj(t, CP_EV_REQUEST, w->t0, c->id);
}

void cp_online_cond_wait_end(struct cp_thread *t, struct cp_objrec *c,
			     struct cp_objrec *m, struct cp_wait *w, int rc)
{
	uint64_t now = end_wait(t, c, w);
	uint64_t seq = 0;

	add_stat(&c->ops, 1);
	if (rc == 0 && !untracked(c)) {
		cp_lock_acquire(&c->lk);
		if (c->seq > w->seq0) {
			seq = c->seq;
			cp_online_take(t, c, &c->main);
		}
		cp_lock_release(&c->lk);
	}
	if (t->tb) {
		if (rc == 0)
			ev_consume(t, CP_EVF_WAIT, now, c->id, seq, seq != 0);
		else
			cp_tb_commit(t->tb, cp_uv_put(cp_tb_vertex(t->tb,
				CP_EV_FAIL | CP_EVF_WAIT, now, wall_of(t)), c->id));
	}
	if (rc != 0 && rc != ETIMEDOUT && rc != ECANCELED)
		return;		/* the mutex was not re-acquired */
	/* glibc re-locked the mutex internally: the acquire edge. */
	m->ops++;
	if (!untracked(m)) {
		cp_online_take(t, m, &m->main);
		if (t->tb)
			ev_consume(t, 0, now, m->id, m->seq, m->seq != 0);
	}
}

void cp_online_cond_signal(struct cp_thread *t, struct cp_objrec *c)
{
	uint64_t now = step(t), seq;

	if (untracked(c))
		return;
	cp_lock_acquire(&c->lk);
	seq = ++c->seq;
	cp_path_copy(&c->main, t->path, cp_rt.nsel);
	cp_lock_release(&c->lk);
	if (t->tb)
		ev_publish(t, now, c->id, seq);
}

/* ---- semaphores ------------------------------------------------------ */

/* The FIFO holds entries of 8 + path bytes; at most CP_SEM_MAX tokens are
 * remembered (beyond that the oldest is dropped: a lost edge, never a
 * false one). */
#define CP_SEM_MAX (1u << 16)

static size_t sem_entry(void)
{
	return sizeof(uint64_t) + cp_path_size(cp_rt.nsel);
}

static uint8_t *sem_at(struct cp_objrec *r, uint32_t i)
{
	return r->u.sem.fifo +
	       (size_t)((r->u.sem.head + i) % r->u.sem.cap) * sem_entry();
}

static int sem_grow(struct cp_objrec *r)
{
	uint32_t cap = r->u.sem.cap ? r->u.sem.cap * 2 : 16;
	size_t es = sem_entry();
	uint8_t *nf = cp_zalloc((size_t)cap * es);

	if (!nf)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->u.sem.count; i++)
		memcpy(nf + (size_t)i * es, sem_at(r, i), es);
	cp_free(r->u.sem.fifo);
	r->u.sem.fifo = nf;
	r->u.sem.head = 0;
	r->u.sem.cap = cap;
	return 0;
}

uint64_t cp_online_sem_post(struct cp_thread *t, struct cp_objrec *r)
{
	uint64_t now = step(t), seq;

	if (untracked(r))
		return 0;
	cp_lock_acquire(&r->lk);
	seq = ++r->seq;
	r->ops++;
	if (r->u.sem.count == CP_SEM_MAX) {
		r->u.sem.head = (r->u.sem.head + 1) % r->u.sem.cap;
		r->u.sem.count--;
	}
	if (r->u.sem.count < r->u.sem.cap || sem_grow(r) == 0) {
		uint8_t *e = sem_at(r, r->u.sem.count++);

		memcpy(e, &seq, sizeof(seq));
		cp_path_copy((struct cp_path *)(e + sizeof(seq)), t->path,
			     cp_rt.nsel);
	}
	cp_lock_release(&r->lk);
	if (t->tb)
		ev_publish(t, now, r->id, seq);
	return seq;
}

void cp_online_sem_post_failed(struct cp_thread *t, struct cp_objrec *r,
			       uint64_t seq)
{
	(void)t;
	if (!seq)
		return;
	cp_lock_acquire(&r->lk);
	if (r->u.sem.count) {
		uint64_t last;

		memcpy(&last, sem_at(r, r->u.sem.count - 1), sizeof(last));
		if (last == seq)
			r->u.sem.count--;
	}
	cp_lock_release(&r->lk);
}

void cp_online_sem_acquired(struct cp_thread *t, struct cp_objrec *r,
			    struct cp_wait *w)
{
	uint64_t now = w ? end_wait(t, r, w) : step(t);
	uint64_t seq = 0;

	if (untracked(r)) {
		if (t->tb)
			ev_consume(t, w ? CP_EVF_WAIT : 0, now, r->id, 0, 0);
		return;
	}
	cp_lock_acquire(&r->lk);
	r->ops++;
	if (r->u.sem.free_tokens) {
		r->u.sem.free_tokens--;
	} else if (r->u.sem.count) {
		uint8_t *e = sem_at(r, 0);

		memcpy(&seq, e, sizeof(seq));
		cp_online_take(t, r, (struct cp_path *)(e + sizeof(seq)));
		r->u.sem.head = (r->u.sem.head + 1) % r->u.sem.cap;
		r->u.sem.count--;
	}
	cp_lock_release(&r->lk);
	if (t->tb)
		ev_consume(t, w ? CP_EVF_WAIT : 0, now, r->id, seq, seq != 0);
}

/* ---- work-queue items ------------------------------------------------ */

void cp_online_enqueue(struct cp_thread *t, const void *item)
{
	uint64_t now = step(t);
	struct cp_item_ev ev;

	if (cp_items_enqueue(t, item, &ev) != 0)
		return;		/* out of memory: not tracked */
	if (t->tb)
		ev_publish(t, now, ev.id, ev.seq);
}

void cp_online_dequeue(struct cp_thread *t, const void *item)
{
	uint64_t now = step(t);
	struct cp_item_ev ev;

	if (cp_items_dequeue(t, item, cur_gen(), &ev) != 0) {
		if (t->tb)
			ev_consume(t, 0, now, 0, 0, 0);
		return;
	}
	if (t->tb)
		ev_consume(t, 0, now, ev.id, ev.seq, 1);
}

/* ---- signals --------------------------------------------------------- */

void cp_online_signal(struct cp_thread *t, struct cp_objrec *r, bool merge)
{
	uint64_t now = step(t), seq;
	uint32_t g = cur_gen();

	cp_lock_acquire(&r->lk);
	seq = ++r->seq;
	r->ops++;
	if (!merge) {
		r->u.signal.base = seq - 1;
		cp_path_copy(&r->main, t->path, cp_rt.nsel);
	} else if (r->main.gen == g && r->seq - 1 > r->u.signal.base) {
		cp_path_merge(&r->main, t->path, cp_rt.nsel, g);
	} else {
		cp_path_copy(&r->main, t->path, cp_rt.nsel);
		r->main.owner = CP_PATH_MIXED;
	}
	cp_lock_release(&r->lk);
	if (t->tb)
		ev_publish(t, now, r->id, seq);
}

void cp_online_signal_take(struct cp_thread *t, struct cp_objrec *r,
			   struct cp_wait *w, bool reset)
{
	uint64_t now = w ? end_wait(t, r, w) : step(t);
	uint64_t lo = 0, n = 0;

	cp_lock_acquire(&r->lk);
	if (r->seq > r->u.signal.base) {
		lo = r->u.signal.base + 1;
		n = r->seq - r->u.signal.base;
		cp_online_take(t, r, &r->main);
	}
	if (reset) {
		r->u.signal.base = r->seq;
		r->main.gen = 0;
	}
	cp_lock_release(&r->lk);
	if (t->tb)
		ev_consume(t, w ? CP_EVF_WAIT : 0, now, r->id, lo, n);
}

bool cp_online_signal_pending(struct cp_objrec *r)
{
	bool pending;

	cp_lock_acquire(&r->lk);
	pending = r->seq > r->u.signal.base;
	cp_lock_release(&r->lk);
	return pending;
}

void cp_online_signal_reset(struct cp_objrec *r)
{
	cp_lock_acquire(&r->lk);
	r->u.signal.base = r->seq;
	r->main.gen = 0;
	cp_lock_release(&r->lk);
}

void cp_online_task_start(struct cp_thread *t, const void *item,
			  struct cp_wait *w)
{
	uint64_t now = w ? end_wait(t, NULL, w) : step(t);
	unsigned fl = w ? CP_EVF_WAIT : 0;
	struct cp_item_ev ev;

	if (cp_items_dequeue(t, item, cur_gen(), &ev) != 0) {
		if (t->tb)
			ev_consume(t, fl, now, 0, 0, 0);
		return;
	}
	if (t->tb)
		ev_consume(t, fl, now, ev.id, ev.seq, 1);
}

void cp_online_wait_restart(struct cp_thread *t, struct cp_wait *w)
{
	w->t0 = t->last;
	w->wall0 = t->wall_now;
}

/* ---- threads --------------------------------------------------------- */

struct cp_thread *cp_online_create_begin(struct cp_thread *t)
{
	struct cp_thread *child;

	step(t);
	child = cp_thread_new(t);
	/* the child's kernel counters start at its clone, just after: its
	 * wait for a first processor is part of its life */
	if (child)
		child->start_wall = t->wall_now;
	return child;
}

void cp_online_create_end(struct cp_thread *t, struct cp_thread *child,
			  int rc, pthread_t id)
{
	if (rc != 0)
		return;		/* the caller frees the unused child */
	if (t->tb) {
		uint8_t *p = cp_tb_vertex(t->tb, CP_EV_THREAD_CREATE, t->last,
					  wall_of(t));

		cp_tb_commit(t->tb, cp_uv_put(p, child->tid));
	}
	cp_thread_publish(child, id);
}

void cp_online_thread_start(struct cp_thread *child)
{
	cp_thread_bind(child);
	if (child->tb) {
		uint8_t *p = cp_tb_vertex(child->tb, CP_EV_THREAD_START,
					  child->last, wall_of(child));

		cp_tb_commit(child->tb, cp_uv_put(p, child->parent == UINT32_MAX ?
						   0 : (uint64_t)child->parent + 1));
	}
}

void cp_online_join_begin(struct cp_thread *t, struct cp_wait *w)
{
	cp_online_wait_begin(t, NULL, w);
}

void cp_online_join_end(struct cp_thread *t, struct cp_wait *w, int rc,
			struct cp_thread *child)
{
	uint64_t now = end_wait(t, NULL, w);

	if (rc == 0 && child) {
		cp_thread_unlink_id(child);
		cp_path_merge(t->path, child->path, cp_rt.nsel, cur_gen());
		if (t->tb) {
			uint8_t *p = cp_tb_vertex(t->tb, CP_EV_THREAD_JOIN |
						  CP_EVF_WAIT, now, wall_of(t));

			cp_tb_commit(t->tb, cp_uv_put(p, child->tid));
		}
	} else if (t->tb) {
		cp_tb_commit(t->tb, cp_uv_put(cp_tb_vertex(t->tb, CP_EV_FAIL |
			CP_EVF_WAIT, now, wall_of(t)), 0));
	}
}

/* ---- procedures ------------------------------------------------------ */

static void activate(struct cp_thread *t, int idx)
{
	if (t->depth[idx]++ == 0)
		t->active[t->nactive++] = (uint8_t)idx;
}

static void deactivate(struct cp_thread *t, int idx)
{
	if (t->depth[idx] == 0 || --t->depth[idx] != 0)
		return;
	for (uint32_t k = 0; k < t->nactive; k++) {
		if (t->active[k] == idx) {
			t->active[k] = t->active[--t->nactive];
			break;
		}
	}
}

/*
 * Exclusive mode keeps a shadow stack of the thread's frames, procedures
 * and regions alike, as cpt's calling contexts do: LEAVE closes the
 * innermost procedure and whatever regions opened inside it, REGION_END
 * the innermost open region of its name and whatever opened inside that;
 * a close with nothing to close changes nothing (cpt makes it inert).  An
 * entry is a procedure's selection index (-1: not selected) or, for a
 * region, SHADOW_REGION(tag): tag is the selection index of a selected
 * region, else CP_MAX_FUNCS + a hash of its name (two unselected regions
 * nested inside each other with the same hash can close the wrong one).
 * Past CP_SHADOW_MAX frames only the count is kept.
 */
#define SHADOW_REGION(tag)	((int16_t)(-2 - (int)(tag)))
#define SHADOW_TAGS		30000

static bool shadow_is_region(int16_t e)
{
	return e <= -2;
}

/* The selected procedure or region entry @e stands for, or -1. */
static int shadow_sel(int16_t e)
{
	if (!shadow_is_region(e))
		return e;
	return -2 - e < CP_MAX_FUNCS ? -2 - e : -1;
}

/* The selection index of the innermost frame, or -1. */
static int shadow_top(const struct cp_thread *t)
{
	if (t->shadow_n == 0 || t->shadow_n > CP_SHADOW_MAX)
		return -1;
	return shadow_sel(t->shadow[t->shadow_n - 1]);
}

static void shadow_push(struct cp_thread *t, int16_t e)
{
	if (t->shadow_n < CP_SHADOW_MAX)
		t->shadow[t->shadow_n] = e;
	t->shadow_n++;
}

/*
 * Pop to and including the innermost entry that is @want (a region's
 * entry), or the innermost procedure when @want is 0.  Returns false,
 * popping nothing, when there is none.
 */
static bool shadow_close(struct cp_thread *t, int16_t want)
{
	uint32_t j;

	if (t->shadow_n > CP_SHADOW_MAX) {	/* past the kept frames */
		t->shadow_n--;
		return true;
	}
	for (j = t->shadow_n; j > 0; j--) {
		int16_t e = t->shadow[j - 1];

		if (want ? e == want : !shadow_is_region(e))
			break;
	}
	if (!j)
		return false;
	t->shadow_n = j - 1;
	return true;
}

/* The shadow entry of region @name, selected as @idx (or -1). */
static int16_t region_entry(const char *name, int idx)
{
	if (idx >= 0)
		return SHADOW_REGION(idx);
	return SHADOW_REGION(CP_MAX_FUNCS + cp_hash_str(name) % SHADOW_TAGS);
}

/* Exclusive mode: only the innermost frame, if selected, is active. */
static void exclusive_set(struct cp_thread *t, int idx)
{
	t->nactive = 0;
	if (idx >= 0) {
		t->active[0] = (uint8_t)idx;
		t->nactive = 1;
	}
}

/*
 * Exclusive mode: open (@open) or close frame @e on the shadow stack;
 * @e is 0 for closing the innermost procedure.  The path advances when
 * the innermost selected frame changes or the thread is traced.  Returns
 * false, with no step taken, when nothing changed that matters; else
 * true with *@now the step's time.
 */
static bool exclusive_frame(struct cp_thread *t, int16_t e, bool open,
			    uint64_t *now)
{
	int top = shadow_top(t);

	if (open)
		shadow_push(t, e);
	else if (!shadow_close(t, e) && !t->tb)
		return false;
	if (top < 0 && shadow_top(t) < 0 && !t->tb)
		return false;
	*now = step(t);
	exclusive_set(t, shadow_top(t));
	return true;
}

void cp_online_proc_enter(struct cp_thread *t, uintptr_t fn)
{
	int idx = cp_procs_by_addr(fn);
	uint64_t now;

	if (cp_rt.cfg.exclusive) {
		if (!exclusive_frame(t, (int16_t)idx, true, &now))
			return;
	} else {
		if (idx < 0 && !t->tb)
			return;
		now = step(t);
		if (idx >= 0)
			activate(t, idx);
	}
	if (t->tb) {
		uint8_t *p = cp_tb_vertex(t->tb, CP_EV_ENTER, now, wall_of(t));

		p = cp_sv_put(p, (int64_t)fn - t->tb->prev_fn);
		t->tb->prev_fn = (int64_t)fn;
		cp_tb_commit(t->tb, p);
	}
}

void cp_online_proc_leave(struct cp_thread *t, uintptr_t fn)
{
	int idx = cp_procs_by_addr(fn);
	uint64_t now;

	if (cp_rt.cfg.exclusive) {
		if (!exclusive_frame(t, 0, false, &now))
			return;
	} else {
		if (idx < 0 && !t->tb)
			return;
		now = step(t);
		if (idx >= 0)
			deactivate(t, idx);
	}
	if (t->tb)
		ev_plain(t, CP_EV_LEAVE, now);
}

void cp_online_region(struct cp_thread *t, const char *name, bool begin)
{
	int idx = cp_procs_by_name(name);
	uint64_t now;

	if (idx >= 0)
		atomic_store(&cp_procs_region_seen[idx], true);
	if (cp_rt.cfg.exclusive) {
		if (!exclusive_frame(t, region_entry(name, idx), begin, &now))
			return;
	} else {
		if (idx < 0 && !t->tb)
			return;
		now = step(t);
		if (idx >= 0 && begin)
			activate(t, idx);
		else if (idx >= 0)
			deactivate(t, idx);
	}
	if (t->tb) {
		uint8_t *p = cp_tb_vertex(t->tb, begin ? CP_EV_REGION_BEGIN :
					  CP_EV_REGION_END, now, wall_of(t));

		cp_tb_commit(t->tb, cp_uv_put(p, cp_trace_string_id(name)));
	}
}

/* ---- start / stop / sample ------------------------------------------- */

void cp_online_start(struct cp_thread *t)
{
	uint64_t now = cp_thread_now(t);

	cp_report_unfreeze();
	atomic_fetch_add(&cp_rt.gen, 1);
	cp_thread_restart(t, now);
	if (t->tb)
		ev_plain(t, CP_EV_CP_START, now);
}

void cp_online_stop(struct cp_thread *t)
{
	uint64_t now = step(t);

	cp_report_freeze(t);
	if (t->tb)
		ev_plain(t, CP_EV_CP_STOP, now);
}

void cp_online_sample(struct cp_thread *t)
{
	uint64_t now = step(t);

	cp_report_sample(t);
	if (t->tb)
		ev_plain(t, CP_EV_SAMPLE, now);
}
