/*
 * cp_replay.c - the what-if replay (cp_replay.h).
 *
 * A discrete-event replay of the trace on the PAG's ideal
 * machine (a processor per thread, waiting costs nothing).  Each thread
 * walks its recorded vertices; the segment into vertex i lasts its recorded
 * useful time times the factor of its calling context (0 for a wait), so
 * the thread *arrives* at vertex i at a_i = t_{i-1} + d_i, and the vertex
 * happens at t_i = max(a_i, whatever the vertex must wait for):
 *
 *   mutex, spin   a CONSUME is an acquire: it waits until the lock is free;
 *                 a release hands the lock to the waiter with the earliest
 *                 simulated request (ties: recorded order).  So a thread
 *                 that now arrives first takes the lock first ([Hollingsworth98]
 *                 §4.1 warns that a fixed graph cannot see this).
 *   rwlock        readers share, writers are exclusive (CP_EVF_SHARED
 *                 tells a read CONSUME from a write one).  A read is
 *                 granted while no writer holds the lock, as glibc's
 *                 default (reader-preferring) rwlock does, and at once to
 *                 a thread that already holds a read share (recursive
 *                 reads never deadlock); a write when nobody holds it and
 *                 nobody waits.  A release hands the lock over in order of
 *                 simulated request time: to the earliest waiter, and if
 *                 that is a reader, to every waiting reader with it.
 *   semaphore     tokens: max(initial value, waits that took an initial
 *                 token in the recording) to start with, one more per post;
 *                 a wait takes one or waits, posts go to the earliest
 *                 waiter.
 *   barrier, cond, item, untracked objects, ordered rwlocks
 *                 the recorded dependency: a CONSUME waits for the
 *                 simulated time of the PUBLISHes it consumed (a barrier's
 *                 departure for every arrival of its episode, a wake for the
 *                 signal it consumed, a dequeue for the item's enqueue, a
 *                 task's start for the tasks it depends on: an rwlock
 *                 defined CP_RWLOCK_ORDERED).
 *                 So are the rwlocks of traces written before
 *                 CP_EVF_SHARED existed, when they show reads: an rwlock
 *                 none of whose CONSUMEs is SHARED is taken for write-only
 *                 (and simulated) only if its CONSUMEs form a lock chain,
 *                 each taking a different single release.
 *   create/join   a child starts at its CREATE; a JOIN waits for the
 *                 child's THREAD_EXIT.
 *
 * Events are processed in order of simulated time from a binary heap of
 * runnable threads, key (time, recorded wall time of the vertex, tid), so
 * an unscaled replay follows the recorded order wherever times tie.
 *
 * Tries.  An acquire that did not wait in the recording (no CP_EVF_WAIT)
 * may have been a trylock or trywait, and the trace cannot tell it from an
 * uncontended lock or wait.  Simulated, it waits like a blocking acquire.
 * If the new order leaves a try without its lock or token, the program
 * would have taken its failure branch, which no trace holds; when that
 * leaves threads blocked with nothing runnable, the earliest such acquire
 * (whose recorded dependencies have happened) is let through as recorded,
 * at its arrival or its recorded dependency's time: a semaphore token is
 * borrowed (the next post repays it), a lock is passed without being taken
 * from its holder.  Each counts as `forced`.  A trywait that took a token
 * and posted it back is the common case: in the new order another thread
 * took the only token first.  If nothing can be let through (the new
 * order deadlocks for good), the prediction falls back to the fixed graph
 * and says so.
 *
 * Fewer processors.  The replay above gives every thread a processor.
 * Given P processors (and a trace taken with the cpu clock, whose useful
 * times are processor time), it models the kernel's fair scheduler as
 * processor sharing: while n threads run a useful segment, each runs at
 * min(1, P / n) of a processor.  Every running thread then does the same
 * work per unit of real time, so the replay is unchanged when its clock
 * is read as *work done by each running thread*: events happen in the
 * same order, and only the clock's conversion to real time differs.  The
 * replay keeps every running segment as an interval of that clock; a
 * sweep over their ends gives n at every instant and the real run time,
 * the integral of max(1, n / P).  With P at least the number of threads
 * this is the ideal machine.  What it leaves out: a time slice is not
 * infinitely small (a lock holder preempted keeps its lock), and a spin
 * wait burns a processor the model gives to nobody.
 *
 * Wake-up latency.  On the ideal machine a woken thread runs the moment
 * what it waited for happens.  On a real one it resumes later: the
 * kernel's wake-up, and on a full machine the wait for a core.  A barrier
 * episode, a lock hand-over, a condition variable's signal each pay it,
 * so the unscaled replay comes out shorter than the run it replays
 * (ocean: 0.92 of the elapsed time, its thousands of barrier episodes).
 * With @wake each vertex that waited in the recording keeps the latency it
 * had there: its wall time after the later of the wait's start (the
 * thread's previous vertex) and what it consumed (the latest publish of a
 * CONSUME, the child's THREAD_EXIT of a JOIN); and a child's first vertex
 * its wall time after its CREATE.  The replay pays it when the thread
 * waits in the replay too, after what it waited for; a vertex that finds
 * its dependency already there pays nothing, and one that did not wait in
 * the recording has no latency to pay.  A lock is the woken thread's from
 * its hand-over on, through the latency.  The unscaled replay then
 * reproduces the recorded run's elapsed time (within 1 % on the
 * splash-bench programs, where the ideal machine's is 0.92-1.00 of it),
 * and a prediction keeps the latencies as they were: it assumes the change
 * leaves how long a wake-up takes alone.
 *
 * Cost: O(v log T) for v vertices and T threads, plus O(waiters) per lock
 * release; memory O(T + objects + publishes); with P processors also
 * O(v log v) time and 16 bytes per useful segment.
 *
 * The simulation itself (cp_rsim_*, cp_replay_int.h) sees each thread's
 * current vertex only and asks its caller for the rest: the next vertex,
 * a publish's record, the latencies.  The in-memory replay below answers
 * from the trace's arrays; cp_stream_replay.c from the file.
 */
#include "cp_replay.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_debug.h"
#include "cp_die.h"
#include "cp_grow.h"
#include "cp_replay_int.h"
#include "cp_wall.h"

/* Debug invariants: type-checked always, run when this is true. */
static const bool cp_replay_debug = CP_DEBUG;

#define NONE CP_RSIM_NONE
#define NEVER CP_RSIM_NEVER

enum { RW_CHAIN, RW_SHARED, RW_BROKEN };

/* ---- the simulation ------------------------------------------------ */

static bool hless(const struct cp_rhent *a, const struct cp_rhent *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	if (a->tie != b->tie)
		return a->tie < b->tie;
	return a->tid < b->tid;
}

void cp_rsim_push(struct cp_rsim *s, uint32_t tid, uint64_t key)
{
	struct cp_rhent e = { .key = key, .tie = s->th[tid].tie, .tid = tid };
	uint32_t i = s->nheap++;

	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (!hless(&e, &s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = e;
	s->th[tid].state = CP_RS_READY;
}

static struct cp_rhent hpop(struct cp_rsim *s)
{
	struct cp_rhent top = s->heap[0], e = s->heap[--s->nheap];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && hless(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!hless(&s->heap[c], &e))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = e;
	return top;
}

/* Wake every thread on list @head at time @now. */
static void wake_list(struct cp_rsim *s, uint32_t head, uint64_t now)
{
	while (head != NONE) {
		uint32_t nx = s->th[head].next;

		s->th[head].next = NONE;
		cp_rsim_push(s, head, now > s->th[head].arrive ?
				      now : s->th[head].arrive);
		head = nx;
	}
}

static void block_on(struct cp_rsim *s, uint32_t *list, uint32_t tid)
{
	s->th[tid].state = CP_RS_BLOCKED;
	s->th[tid].next = *list;
	*list = tid;
}

/*
 * Hand a lock or token to the earliest waiter of @o at @now: the lowest
 * (arrival, recorded time, tid).  Returns the thread or NONE.
 */
static uint32_t pick_waiter(struct cp_rsim *s, struct cp_robj *o)
{
	uint32_t best = NONE, prev_best = NONE, prev = NONE;

	for (uint32_t w = o->waiters; w != NONE; prev = w, w = s->th[w].next) {
		const struct cp_rth *a = &s->th[w], *b;

		if (best != NONE) {
			b = &s->th[best];
			if (a->arrive > b->arrive ||
			    (a->arrive == b->arrive &&
			     (a->tie > b->tie ||
			      (a->tie == b->tie && w > best))))
				continue;
		}
		best = w;
		prev_best = prev;
	}
	if (best == NONE)
		return NONE;
	if (prev_best == NONE)
		o->waiters = s->th[best].next;
	else
		s->th[prev_best].next = s->th[best].next;
	s->th[best].next = NONE;
	return best;
}

static void grant(struct cp_rsim *s, uint32_t tid, uint64_t now)
{
	struct cp_rth *st = &s->th[tid];

	st->granted = true;
	st->grant = now;
	cp_rsim_push(s, tid, now > st->arrive ? now : st->arrive);
}

/* The recorded seq an acquire consumed (0: none). */
static uint64_t consumed(const struct cp_tev *v)
{
	return v->cnt ? v->arg + v->cnt - 1 : 0;
}

/*
 * When a waiting vertex happens: at @dep, what it waited for, plus its
 * latency if it had to wait for it (@arrive before @dep); else at
 * @arrive.
 */
static uint64_t resume_at(uint64_t arrive, uint64_t dep, uint64_t latency)
{
	return dep > arrive ? dep + latency : arrive;
}

/* ---- rwlocks ---- */

static struct cp_rreader *rw_reader(struct cp_robj *o, uint32_t tid)
{
	for (uint32_t i = 0; i < o->nrd; i++)
		if (o->rd[i].tid == tid)
			return &o->rd[i];
	return NULL;
}

/* Give @tid one more read share of @o (s->oom when out of memory). */
static void rw_add_reader(struct cp_rsim *s, struct cp_robj *o, uint32_t tid)
{
	struct cp_rreader *r = rw_reader(o, tid);

	if (r) {
		r->depth++;
		return;
	}
	if (cp_grow32((void **)&o->rd, sizeof(*o->rd), &o->cap_rd,
		      o->nrd + 1ull)) {
		s->oom = true;
		return;
	}
	o->rd[o->nrd].tid = tid;
	o->rd[o->nrd++].depth = 1;
}

/* Count a grant of the rwlock made in another order than recorded. */
static void rw_count_order(struct cp_rsim *s, const struct cp_robj *o,
			   const struct cp_tev *v)
{
	s->reordered += consumed(v) != (cp_tev_shared(v) ? o->last_wseq
							    : o->last_seq);
}

/*
 * Hand a free or read-held rwlock over at @now, in order of simulated
 * request: the earliest waiter, and when that is a reader every waiting
 * reader.  A writer goes only when nobody holds the lock.
 */
static void rw_dispatch(struct cp_rsim *s, struct cp_robj *o, uint64_t now)
{
	uint32_t w, prev, next;
	const struct cp_tev *v;

	if (o->holder != NONE || o->waiters == NONE)
		return;
	w = pick_waiter(s, o);
	v = s->th[w].v;
	if (!cp_tev_shared(v)) {
		if (o->nrd) {
			/* readers still in: it stays first in line */
			s->th[w].next = o->waiters;
			o->waiters = w;
			return;
		}
		o->holder = w;
		o->depth = 1;
		rw_count_order(s, o, v);
		grant(s, w, now);
		return;
	}
	rw_add_reader(s, o, w);
	rw_count_order(s, o, v);
	grant(s, w, now);
	/* every other waiting reader comes in with it */
	prev = NONE;
	for (w = o->waiters; w != NONE; w = next) {
		next = s->th[w].next;
		v = s->th[w].v;
		if (!cp_tev_shared(v)) {
			prev = w;
			continue;
		}
		if (prev == NONE)
			o->waiters = next;
		else
			s->th[prev].next = next;
		s->th[w].next = NONE;
		rw_add_reader(s, o, w);
		rw_count_order(s, o, v);
		grant(s, w, now);
	}
}

/*
 * Thread @tid arrives at an rwlock CONSUME @v of @o.  Returns true if it
 * got the lock, false if it must wait.
 */
static bool rw_acquire(struct cp_rsim *s, struct cp_robj *o, uint32_t tid,
		       const struct cp_tev *v)
{
	if (cp_tev_shared(v)) {
		if (rw_reader(o, tid) || o->holder == NONE) {
			if (!rw_reader(o, tid))
				rw_count_order(s, o, v);
			rw_add_reader(s, o, tid);
			return true;
		}
		return false;
	}
	if (o->holder == tid) {
		o->depth++;
		return true;
	}
	if (o->holder == NONE && o->nrd == 0 && o->waiters == NONE) {
		o->holder = tid;
		o->depth = 1;
		rw_count_order(s, o, v);
		return true;
	}
	return false;
}

/* Thread @tid releases @o (its PUBLISH of recorded seq @seq) at @now. */
static void rw_release(struct cp_rsim *s, struct cp_robj *o, uint32_t tid,
		       uint64_t seq, uint64_t now)
{
	struct cp_rreader *r;

	if (o->holder == tid) {
		if (--o->depth)
			return;
		o->holder = NONE;
		o->last_seq = seq;
		o->last_wseq = seq;
	} else if ((r = rw_reader(o, tid)) != NULL) {
		o->last_seq = seq;
		if (--r->depth)
			return;
		*r = o->rd[--o->nrd];
	} else {
		return;		/* not held in the simulation */
	}
	rw_dispatch(s, o, now);
}

/* ---- one vertex ---- */

/*
 * A thread woken by a hand-over (st->granted): its acquire happens at the
 * grant, after its wake-up latency.  Returns true, with the time in *@at,
 * if it was; false if the thread must still acquire.
 */
static bool take_grant(struct cp_rsim *s, uint32_t tid, uint64_t *at)
{
	struct cp_rth *st = &s->th[tid];

	if (!st->granted)
		return false;
	st->granted = false;
	*at = resume_at(*at, st->grant, s->ops->consume_latency ?
				s->ops->consume_latency(s, tid) : 0);
	return true;
}

/* Acquire simulated object @o (lock, semaphore, rwlock) for @tid at
 * once if it is free; false if the thread must wait for it. */
static bool try_acquire(struct cp_rsim *s, struct cp_robj *o, uint32_t tid,
			const struct cp_tev *v)
{
	switch (o->mode) {
	case CP_RMODE_RW:
		return rw_acquire(s, o, tid, v);
	case CP_RMODE_LOCK:
		if (o->holder == NONE) {
			o->holder = tid;
			o->depth = 1;
			s->reordered += consumed(v) != o->last_seq;
			return true;
		}
		if (o->holder != tid)
			return false;
		o->depth++;
		return true;
	default:	/* CP_RMODE_SEM */
		if (!o->tokens)
			return false;
		o->tokens--;
		return true;
	}
}

/*
 * A CONSUME that follows its recorded dependency: it happens once every
 * PUBLISH it consumed has, after its wake-up latency.  False when it
 * blocks on one that has not happened yet (or memory ran out).
 */
static bool wait_recorded(struct cp_rsim *s, uint32_t tid,
			  const struct cp_tev *v, uint64_t *at)
{
	uint64_t dep = 0;

	if (!v->cnt)
		return true;
	for (uint32_t c = 0; c < v->cnt; c++) {
		struct cp_rpub *p = s->ops->pub(s, v->obj, v->arg + c, true);

		if (!p && !s->oom)
			cp_die("what-if: a CONSUME's publish was let go");
		if (!p)
			return false;
		if (p->time == NEVER) {
			block_on(s, &p->waiters, tid);
			return false;
		}
		if (p->time > dep)
			dep = p->time;
	}
	*at = resume_at(*at, dep, s->ops->consume_latency ?
				  s->ops->consume_latency(s, tid) : 0);
	return true;
}

/* The current vertex of @tid, a CONSUME, at *@at; false when the thread
 * blocks. */
static bool step_consume(struct cp_rsim *s, uint32_t tid,
			 const struct cp_tev *v, uint64_t *at)
{
	struct cp_rth *st = &s->th[tid];
	struct cp_robj *o = v->obj ? &s->ob[v->obj] : NULL;

	if (st->forced) {
		/* as recorded: its dependencies */
		st->forced = false;
		if (o->mode == CP_RMODE_SEM)
			o->debt++;
	} else if (o && o->mode != CP_RMODE_REPLAY) {
		if (take_grant(s, tid, at) || try_acquire(s, o, tid, v))
			return true;
		block_on(s, &o->waiters, tid);
		return false;
	}
	return wait_recorded(s, tid, v, at);
}

/*
 * A PUBLISH of @tid on simulated object @o at @at: a lock's last release
 * hands it to the earliest waiter, an rwlock's release to the next
 * waiters, a semaphore post repays a lent token or goes to the earliest
 * waiter or to the count.
 */
static void release(struct cp_rsim *s, struct cp_robj *o, uint32_t tid,
		    const struct cp_tev *v, uint64_t at)
{
	uint32_t w;

	if (o->mode == CP_RMODE_LOCK && o->holder == tid && --o->depth == 0) {
		o->holder = NONE;
		o->last_seq = v->arg;
		w = pick_waiter(s, o);
		if (w != NONE) {
			o->holder = w;
			o->depth = 1;
			s->reordered += consumed(s->th[w].v) != o->last_seq;
			grant(s, w, at);
		}
	} else if (o->mode == CP_RMODE_RW) {
		rw_release(s, o, tid, v->arg, at);
	} else if (o->mode == CP_RMODE_SEM) {
		w = o->debt ? NONE : pick_waiter(s, o);
		if (o->debt)
			o->debt--;
		else if (w != NONE)
			grant(s, w, at);
		else
			o->tokens++;
	}
}

/* PUBLISH @v of @tid at @at: its time, its waiters, the release. */
static void publish(struct cp_rsim *s, uint32_t tid, const struct cp_tev *v,
		    uint64_t at)
{
	struct cp_rpub *p = s->ops->pub(s, v->obj, v->arg, true);
	uint32_t w;

	if (p) {	/* none: nobody can need it */
		p->time = at;
		if (s->ops->published)
			s->ops->published(s, tid, p);
		w = p->waiters;
		p->waiters = NONE;
		wake_list(s, w, at);
	}
	release(s, &s->ob[v->obj], tid, v, at);
}

/*
 * Try to make @tid's current vertex happen.  Returns true when it did
 * (its time is th[tid].last), false when the thread blocked.
 */
static bool step(struct cp_rsim *s, uint32_t tid)
{
	struct cp_rth *st = &s->th[tid];
	const struct cp_tev *v = st->v;
	uint64_t at = st->arrive;
	uint32_t c, w;

	switch (cp_tev_kind(v)) {
	case CP_EV_CONSUME:
		if (!step_consume(s, tid, v, &at))
			return false;
		break;
	case CP_EV_PUBLISH:
		if (v->obj)
			publish(s, tid, v, at);
		break;
	case CP_EV_THREAD_JOIN:
		c = (uint32_t)v->arg;
		if (s->th[c].exit == NEVER) {
			block_on(s, &s->th[c].joiners, tid);
			return false;
		}
		at = resume_at(at, s->th[c].exit, s->ops->join_latency ?
				   s->ops->join_latency(s, tid, c) : 0);
		break;
	case CP_EV_THREAD_EXIT:
		st->exit = at;
		w = st->joiners;
		st->joiners = NONE;
		wake_list(s, w, at);
		break;
	case CP_EV_THREAD_CREATE:
		c = (uint32_t)v->arg;
		if (s->th[c].v && s->th[c].state == CP_RS_IDLE) {
			s->th[c].arrive = at;
			if (s->ops->start_latency)
				s->th[c].arrive += s->ops->start_latency(s,
								tid, c);
			cp_rsim_push(s, c, s->th[c].arrive);
		}
		break;
	default:
		break;
	}
	st->last = at;
	if (at > s->end)
		s->end = at;
	return true;
}

/*
 * The simulation's invariants: the heap is ordered, holds each thread at
 * most once and only ready ones; a held lock's holder is a thread; an
 * rwlock is written or read, never both.  O(heap + objects), once every
 * heap + objects pops (amortized O(1) a pop): a thread met in the heap is
 * marked (its state flipped to CP_RS_SEEN and back), where comparing
 * every pair of entries at every pop made a debug build's what-if of 300
 * threads at a barrier take a minute.
 */
static void cp_replay_assert(struct cp_rsim *s)
{
	if (!cp_replay_debug ||
	    ++s->npop % ((uint64_t)s->nheap + s->nobj + 1))
		return;
	for (uint32_t i = 1; i < s->nheap; i++)
		if (hless(&s->heap[i], &s->heap[(i - 1) / 2]))
			cp_die("what-if: heap out of order");
	for (uint32_t i = 0; i < s->nheap; i++) {
		uint8_t *st = &s->th[s->heap[i].tid].state;

		if (*st == CP_RS_SEEN)
			cp_die("what-if: a thread twice in the heap");
		if (*st != CP_RS_READY)
			cp_die("what-if: a thread in the heap is not ready");
		*st = CP_RS_SEEN;
	}
	for (uint32_t i = 0; i < s->nheap; i++)
		s->th[s->heap[i].tid].state = CP_RS_READY;
	for (uint32_t o = 1; o < s->nobj; o++) {
		if (s->ob[o].holder != NONE && s->ob[o].holder >= s->nt)
			cp_die("what-if: lock held by no thread");
		if (s->ob[o].holder != NONE && s->ob[o].nrd)
			cp_die("what-if: rwlock written and read at once");
		for (uint32_t i = 0; i < s->ob[o].nrd; i++)
			if (!s->ob[o].rd[i].depth)
				cp_die("what-if: reader without a share");
	}
}

/*
 * When @tid's current vertex, a blocked acquire that did not wait in the
 * recording, could be let through (its recorded dependencies happened)
 * into *@ready; false if it is no such acquire or cannot.
 */
static bool forcible(struct cp_rsim *s, uint32_t tid, uint64_t *ready)
{
	const struct cp_rth *th = &s->th[tid];
	const struct cp_tev *v = th->v;

	if (th->state != CP_RS_BLOCKED || !v ||
	    cp_tev_kind(v) != CP_EV_CONSUME || cp_tev_waits(v) ||
	    !v->obj || s->ob[v->obj].mode == CP_RMODE_REPLAY)
		return false;
	*ready = th->arrive;
	for (uint32_t c = 0; c < v->cnt; c++) {
		const struct cp_rpub *p = s->ops->pub(s, v->obj, v->arg + c,
						      false);

		if (!p || p->time == NEVER)
			return false;
		if (p->time > *ready)
			*ready = p->time;
	}
	return true;
}

/*
 * Nothing is runnable but threads are blocked: let the earliest blocked
 * acquire that did not wait in the recording through (see Tries).
 * Returns false if there is none.
 */
static bool force_one(struct cp_rsim *s)
{
	uint32_t best = NONE, *link;
	uint64_t bt = 0, btie = 0, ready;

	for (uint32_t tid = 0; tid < s->nt; tid++)
		if (forcible(s, tid, &ready) &&
		    (best == NONE || ready < bt ||
		     (ready == bt && s->th[tid].tie < btie)))
			best = tid, bt = ready, btie = s->th[tid].tie;
	if (best == NONE)
		return false;
	link = &s->ob[s->th[best].v->obj].waiters;
	while (*link != best)
		link = &s->th[*link].next;
	*link = s->th[best].next;
	s->th[best].next = NONE;
	s->th[best].forced = true;
	s->forced++;
	cp_rsim_push(s, best, bt);
	return true;
}

/* Run the runnable threads, each while it needs no other thread: a
 * vertex that happens is followed by the next arrival. */
static void run(struct cp_rsim *s)
{
	while (s->nheap && !s->oom) {
		uint32_t tid = hpop(s).tid;
		struct cp_rth *st = &s->th[tid];

		cp_replay_assert(s);
		/* blocked until step says otherwise */
		st->state = CP_RS_BLOCKED;
		for (;;) {
			if (!step(s, tid) || s->oom)
				break;
			if (!s->ops->next(s, tid)) {
				st->v = NULL;
				st->state = CP_RS_DONE;
				break;
			}
			/* yield when another thread is due as early */
			if (s->nheap && s->heap[0].key <= st->arrive) {
				cp_rsim_push(s, tid, st->arrive);
				break;
			}
		}
	}
}

int cp_rsim_run(struct cp_rsim *s, struct cp_replay_result *r)
{
	do
		run(s);
	while (!s->oom && force_one(s));
	if (s->oom)
		return -1;
	r->deadlock = false;
	for (uint32_t tid = 0; tid < s->nt; tid++)
		if (s->th[tid].v)
			r->deadlock = true;
	r->length = s->end;
	r->reordered = s->reordered;
	r->forced = s->forced;
	return 0;
}

void cp_rsim_free_objs(struct cp_rsim *s)
{
	for (uint32_t o = 0; s->ob && o < s->nobj; o++)
		free(s->ob[o].rd);
}

/* ---- in memory ----------------------------------------------------- */

/* The in-memory replay's side: the trace, its publishes, P processors. */
struct mem {
	struct cp_rsim s;
	const struct cp_tracepag *tp;
	const struct cp_trace *t;
	const double *f;	/* [ncct] factors */
	bool wake;		/* pay the recorded wake-up latencies */
	uint32_t *cur;		/* [nt] each thread's current vertex */
	struct cp_rpub *pub;	/* [npub] by cp_trace.pub index */
	/* P processors (see "Fewer processors"): the running segments */
	uint64_t *run_start, *run_end;	/* [nrun] */
	size_t nrun, cap_run;
};

/* Simulated duration of the segment into vertex @i of thread @tid. */
static uint64_t seg_dur(const struct mem *m, uint32_t tid, uint32_t i)
{
	const struct cp_tracepag *tp = m->tp;
	uint32_t e = tp->segbase[tid] + i - 1;
	double d;

	if (tp->e_kind[e] != CP_TE_USEFUL)
		return 0;
	if (m->f[cp_tracepag_cct(tp, e)] == 1.0)
		return tp->g.w[e];
	d = (double)tp->g.w[e] * m->f[cp_tracepag_cct(tp, e)];
	return d >= 1.8e19 ? (uint64_t)1.8e19 : (uint64_t)llround(d);
}

static uint64_t after(uint64_t t, uint64_t t0)
{
	return t > t0 ? t - t0 : 0;
}

/*
 * Thread @tid's vertex @i, which waited in the recording for something
 * that happened at wall time @dep, resumed this long after both it waited
 * and that had happened (the wait began at the thread's previous vertex).
 */
static uint64_t latency_after(const struct cp_trace *t, uint32_t tid,
			      uint32_t i, uint64_t dep)
{
	if (i > 0 && cp_trace_wall(t, tid, i - 1) > dep)
		dep = cp_trace_wall(t, tid, i - 1);
	return after(cp_trace_wall(t, tid, i), dep);
}

/*
 * The recorded wake-up latency of @tid's current vertex, a CONSUME (see
 * "Wake-up latency"): 0 unless the replay pays latencies and the vertex
 * waited in the recording.
 */
static uint64_t consume_latency(struct cp_rsim *s, uint32_t tid)
{
	const struct mem *m = s->ctx;
	const struct cp_trace *t = m->t;
	const struct cp_tev *v = s->th[tid].v;
	const struct cp_trace_pub *pb;
	uint64_t dep = 0;

	if (!m->wake || !cp_tev_waits(v) || !v->cnt)
		return 0;
	pb = cp_trace_find_pub(t, v->obj, v->arg, v->cnt);
	if (!pb)
		return 0;
	for (uint32_t c = 0; c < v->cnt; c++) {
		uint64_t w = cp_trace_wall(t, pb[c].tid, pb[c].vi);

		if (w > dep)
			dep = w;
	}
	return latency_after(t, tid, m->cur[tid], dep);
}

/* The same for a JOIN of child @c. */
static uint64_t join_latency(struct cp_rsim *s, uint32_t tid, uint32_t c)
{
	const struct mem *m = s->ctx;
	const struct cp_trace *t = m->t;
	uint32_t nv = t->threads[c].nv;

	if (!m->wake || !cp_tev_waits(s->th[tid].v) || !nv ||
	    cp_tvert_kind(&t->threads[c].v[nv - 1]) != CP_EV_THREAD_EXIT)
		return 0;
	return latency_after(t, tid, m->cur[tid], cp_trace_wall(t, c, nv - 1));
}

/* A child @c's first vertex after @tid's CREATE of it. */
static uint64_t start_latency(struct cp_rsim *s, uint32_t tid, uint32_t c)
{
	const struct mem *m = s->ctx;

	if (!m->wake)
		return 0;
	return after(cp_trace_wall(m->t, c, 0),
		     cp_trace_wall(m->t, tid, m->cur[tid]));
}

static struct cp_rpub *mem_pub(struct cp_rsim *s, uint32_t obj, uint64_t seq,
			       bool make)
{
	const struct mem *m = s->ctx;
	const struct cp_trace_pub *pb = cp_trace_find_pub(m->t, obj, seq, 1);

	(void)make;	/* every publish has its slot */
	return pb ? &m->pub[pb - m->t->pub] : NULL;
}

/* Keep [@from, @to) as a running segment (P processors only). */
static void note_running(struct mem *m, uint64_t from, uint64_t to)
{
	if (m->nrun == m->cap_run) {
		uint64_t c0 = m->cap_run, c1 = m->cap_run;

		if (cp_grow((void **)&m->run_start, sizeof(*m->run_start),
			    &c0, (uint64_t)m->nrun + 1) ||
		    cp_grow((void **)&m->run_end, sizeof(*m->run_end), &c1,
			    (uint64_t)m->nrun + 1)) {
			m->s.oom = true;
			return;
		}
		m->cap_run = c0;
	}
	m->run_start[m->nrun] = from;
	m->run_end[m->nrun++] = to;
}

/* Point thread @tid at its vertex m->cur[tid]; false past its end. */
static bool mem_at(struct mem *m, uint32_t tid)
{
	struct cp_rth *st = &m->s.th[tid];
	const struct cp_trace_thread *th = &m->t->threads[tid];

	if (m->cur[tid] >= th->nv)
		return false;
	st->ev = cp_tev_of(&th->v[m->cur[tid]], &th->a[m->cur[tid]]);
	st->v = &st->ev;
	st->tie = cp_trace_wall(m->t, tid, m->cur[tid]);
	return true;
}

static bool mem_next(struct cp_rsim *s, uint32_t tid)
{
	struct mem *m = s->ctx;
	struct cp_rth *st = &s->th[tid];

	m->cur[tid]++;
	if (!mem_at(m, tid))
		return false;
	st->arrive = st->last + seg_dur(m, tid, m->cur[tid]);
	if (m->cap_run && st->arrive > st->last)
		note_running(m, st->last, st->arrive);
	return true;
}

static const struct cp_rsim_ops mem_ops = {
	.pub = mem_pub,
	.next = mem_next,
	.consume_latency = consume_latency,
	.join_latency = join_latency,
	.start_latency = start_latency,
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The real time at which the replay's clock reads @end on @cpus
 * processors: the integral over the clock of max(1, running / cpus).
 */
static uint64_t shared_time(struct mem *m, uint64_t end, uint32_t cpus)
{
	size_t i = 0, j = 0;
	uint64_t prev = 0, n = 0;
	double real = 0;

	qsort(m->run_start, m->nrun, sizeof(uint64_t), cmp_u64);
	qsort(m->run_end, m->nrun, sizeof(uint64_t), cmp_u64);
	while (i < m->nrun || j < m->nrun) {
		/* ends first at a tie: a segment that ends where another
		 * starts does not overlap it */
		bool is_end = j < m->nrun &&
			      (i == m->nrun ||
			       m->run_end[j] <= m->run_start[i]);
		uint64_t at = is_end ? m->run_end[j] : m->run_start[i];

		real += (double)(at - prev) *
			(n > cpus ? (double)n / cpus : 1.0);
		prev = at;
		if (is_end) {
			n--;
			j++;
		} else {
			n++;
			i++;
		}
	}
	/* nothing runs after the last end */
	real += (double)(end - prev);
	return real >= 1.8e19 ? (uint64_t)1.8e19 : (uint64_t)llround(real);
}

/*
 * How each rwlock is simulated (@rw[obj] = RW_*), in one pass over the
 * CONSUMEs.  An rwlock with a SHARED CONSUME is simulated.  One without is
 * taken for write-only, and simulated, only if its CONSUMEs form a lock
 * chain: each takes at most one release, no release is taken twice, at
 * most one takes none.  Reads in a trace written before the flag break
 * that as soon as two of them take the same write release, or a write
 * follows a read; such an rwlock is replayed.  @seen: [npub] scratch.
 */
static void rw_classify(const struct cp_trace *t, uint8_t *rw, uint8_t *seen,
			uint8_t *none)
{
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		for (uint32_t i = 0; i < t->threads[tid].nv; i++) {
			const struct cp_tvert *v = &t->threads[tid].v[i];
			const struct cp_targ *a = &t->threads[tid].a[i];
			const struct cp_trace_pub *pb;
			uint32_t o = v->obj;

			if (!o || cp_tvert_kind(v) != CP_EV_CONSUME ||
			    t->objs[o].kind != CP_OBJ_RWLOCK)
				continue;
			if (cp_tvert_shared(v))
				rw[o] = RW_SHARED;
			if (rw[o] != RW_CHAIN)
				continue;
			if (a->cnt > 1 || (!a->cnt && none[o]++)) {
				rw[o] = RW_BROKEN;
				continue;
			}
			if (!a->cnt)
				continue;
			pb = cp_trace_find_pub(t, o, a->arg, 1);
			if (seen[pb - t->pub]++)
				rw[o] = RW_BROKEN;
		}
}

/*
 * How each object is replayed (CP_RMODE_*), and a semaphore's tokens at
 * the start: its initial value, or the waits that took an initial token
 * in the recording if more (@cnt0, zeroed, [nobjs]).  @rwk: rw_classify().
 */
static void init_objects(struct mem *m, uint64_t *cnt0, const uint8_t *rwk)
{
	const struct cp_trace *t = m->t;

	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		for (uint32_t i = 0; i < t->threads[tid].nv; i++) {
			const struct cp_tvert *v = &t->threads[tid].v[i];

			if (cp_tvert_kind(v) == CP_EV_CONSUME && v->obj &&
			    !t->threads[tid].a[i].cnt)
				cnt0[v->obj]++;
		}
	for (uint32_t o = 1; o < t->nobjs; o++) {
		const struct cp_trace_obj *to = &t->objs[o];

		cp_rsim_obj_init(&m->s.ob[o], to->kind, to->untracked,
				 to->extra, cnt0[o], rwk[o] == RW_BROKEN);
	}
}

void cp_rsim_obj_init(struct cp_robj *o, uint8_t kind, bool untracked,
		      uint64_t extra, uint64_t cnt0, bool rw_broken)
{
	o->holder = NONE;
	o->waiters = NONE;
	o->mode = CP_RMODE_REPLAY;
	if (untracked)
		return;
	if (kind == CP_OBJ_MUTEX || kind == CP_OBJ_SPIN) {
		o->mode = CP_RMODE_LOCK;
	} else if (kind == CP_OBJ_SEM) {
		o->mode = CP_RMODE_SEM;
		o->tokens = extra > cnt0 ? extra : cnt0;
	} else if (kind == CP_OBJ_RWLOCK && !rw_broken &&
		   extra != CP_RWLOCK_ORDERED) {
		o->mode = CP_RMODE_RW;
	}
}

/* The simulation's arrays and the threads at their first vertex, the
 * roots runnable.  0, or -1 (memory). */
static int mem_init(struct mem *m, uint32_t cpus)
{
	const struct cp_trace *t = m->t;
	struct cp_rsim *s = &m->s;

	s->ops = &mem_ops;
	s->ctx = m;
	s->nt = t->nthreads;
	s->nobj = t->nobjs;
	s->th = calloc(t->nthreads ? t->nthreads : 1, sizeof(*s->th));
	s->ob = cp_big_calloc(t->nobjs ? t->nobjs : 1, sizeof(*s->ob));
	s->heap = malloc((t->nthreads ? t->nthreads : 1) * sizeof(*s->heap));
	m->cur = calloc(t->nthreads ? t->nthreads : 1, sizeof(*m->cur));
	m->pub = cp_big_malloc((t->npub ? t->npub : 1) * sizeof(*m->pub));
	if (!s->th || !s->ob || !s->heap || !m->cur || !m->pub)
		return -1;
	if (cpus && cpus < t->nthreads) {
		m->cap_run = 1024;
		m->run_start = malloc(m->cap_run * sizeof(*m->run_start));
		m->run_end = malloc(m->cap_run * sizeof(*m->run_end));
		if (!m->run_start || !m->run_end)
			return -1;
	}
	for (uint64_t i = 0; i < t->npub; i++)
		m->pub[i] = (struct cp_rpub){ .time = NEVER, .waiters = NONE };
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		s->th[tid].exit = NEVER;
		s->th[tid].next = NONE;
		s->th[tid].joiners = NONE;
		if (mem_at(m, tid) && t->threads[tid].parent == NONE)
			cp_rsim_push(s, tid, 0);
	}
	return 0;
}

int cp_replay_run(const struct cp_tracepag *tp, const double *cct_factor,
		  uint32_t cpus, bool wake, struct cp_replay_result *r)
{
	const struct cp_trace *t = tp->t;
	struct mem m = { .tp = tp, .t = t, .f = cct_factor, .wake = wake };
	uint64_t *cnt0 = cp_big_calloc(t->nobjs ? t->nobjs : 1, sizeof(*cnt0));
	uint8_t *rwk = cp_big_calloc(t->nobjs ? t->nobjs : 1, 1);
	uint8_t *none = cp_big_calloc(t->nobjs ? t->nobjs : 1, 1);
	uint8_t *seen = cp_big_calloc(t->npub ? t->npub : 1, 1);
	int ret = -1;

	if (!cnt0 || !rwk || !none || !seen || mem_init(&m, cpus))
		goto out;
	rw_classify(t, rwk, seen, none);
	init_objects(&m, cnt0, rwk);
	if (cp_rsim_run(&m.s, r))
		goto out;
	if (m.cap_run)
		r->length = shared_time(&m, m.s.end, cpus);
	ret = 0;
out:
	cp_rsim_free_objs(&m.s);
	free(m.run_start);
	free(m.run_end);
	free(m.s.th);
	cp_big_free(m.s.ob);
	free(m.s.heap);
	free(m.cur);
	cp_big_free(m.pub);
	cp_big_free(seen);
	cp_big_free(rwk);
	cp_big_free(none);
	cp_big_free(cnt0);
	return ret;
}
