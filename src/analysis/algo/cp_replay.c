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
 *   barrier, cond, item, untracked objects
 *                 the recorded dependency: a CONSUME waits for the
 *                 simulated time of the PUBLISHes it consumed (a barrier's
 *                 departure for every arrival of its episode, a wake for the
 *                 signal it consumed, a dequeue for the item's enqueue).
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
 */
#include "cp_replay.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_debug.h"
#include "cp_die.h"
#include "cp_wall.h"

/* Debug invariants: type-checked always, run when this is true. */
static const bool cp_replay_debug = CP_DEBUG;

#define NONE UINT32_MAX
#define NEVER UINT64_MAX

enum { ST_IDLE, ST_READY, ST_BLOCKED, ST_DONE };

struct hent {
	uint64_t key;
	uint64_t tie;
	uint32_t tid;
};

struct sthread {
	uint32_t cur;		/* next vertex */
	uint8_t state;
	bool granted;		/* a lock or token was handed over */
	bool forced;		/* its acquire is let through (see Tries) */
	uint64_t arrive;	/* arrival time at vertex cur */
	uint64_t grant;		/* time of the hand-over */
	uint64_t last;		/* time of the latest vertex */
	uint64_t exit;		/* time of THREAD_EXIT, NEVER before */
	uint32_t next;		/* next in a waiting list */
	uint32_t joiners;	/* list of threads joining this one */
};

/* A thread holding read shares of an rwlock. */
struct sreader {
	uint32_t tid;
	uint32_t depth;		/* recursive read holds */
};

struct sobj {
	uint32_t holder;	/* lock holder (rwlock: the writer), NONE */
	uint32_t depth;		/* recursive holds */
	uint64_t last_seq;	/* recorded seq of the latest release */
	uint64_t last_wseq;	/* rwlock: same, latest write release */
	uint64_t tokens;	/* semaphore */
	uint64_t debt;		/* semaphore: tokens lent (forced waits) */
	uint32_t waiters;	/* list of threads waiting for it */
	uint8_t mode;		/* MODE_* */
	uint32_t nrd, cap_rd;	/* rwlock: threads holding read shares */
	struct sreader *rd;	/* [nrd] */
};

enum { MODE_REPLAY, MODE_LOCK, MODE_SEM, MODE_RW };

struct sim {
	const struct cp_tracepag *tp;
	const struct cp_trace *t;
	const double *f;
	bool wake;		/* pay the recorded wake-up latencies */
	struct sthread *th;
	struct sobj *ob;
	uint64_t *pub_time;	/* [npub] simulated time of each PUBLISH */
	uint32_t *pub_wait;	/* [npub] list of threads waiting for it */
	struct hent *heap;
	uint32_t nheap;
	uint64_t end;
	uint64_t reordered;
	uint64_t forced;	/* acquires let through (see Tries) */
	/* P processors (see "Fewer processors"): the running segments */
	uint64_t *run_start, *run_end;	/* [nrun] */
	size_t nrun, cap_run;
	bool oom;
};

/* Heap tie-break: the recorded wall time of the thread's next vertex. */
static uint64_t tie_of(const struct sim *s, uint32_t tid)
{
	return cp_trace_wall(s->t, tid, s->th[tid].cur);
}

static bool hless(const struct hent *a, const struct hent *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	if (a->tie != b->tie)
		return a->tie < b->tie;
	return a->tid < b->tid;
}

static void hpush(struct sim *s, uint32_t tid, uint64_t key)
{
	struct hent e = { .key = key, .tie = tie_of(s, tid), .tid = tid };
	uint32_t i = s->nheap++;

	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (!hless(&e, &s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = e;
	s->th[tid].state = ST_READY;
}

static struct hent hpop(struct sim *s)
{
	struct hent top = s->heap[0], e = s->heap[--s->nheap];
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

/* Simulated duration of the segment into vertex @i of thread @tid. */
static uint64_t seg_dur(const struct sim *s, uint32_t tid, uint32_t i)
{
	const struct cp_tracepag *tp = s->tp;
	uint32_t e = tp->segbase[tid] + i - 1;
	double d;

	if (tp->e_kind[e] != CP_TE_USEFUL)
		return 0;
	if (s->f[tp->e_cct[e]] == 1.0)
		return tp->g.w[e];
	d = (double)tp->g.w[e] * s->f[tp->e_cct[e]];
	return d >= 1.8e19 ? (uint64_t)1.8e19 : (uint64_t)llround(d);
}

/* Wake every thread on list @head at time @now. */
static void wake_list(struct sim *s, uint32_t head, uint64_t now)
{
	while (head != NONE) {
		uint32_t nx = s->th[head].next;

		s->th[head].next = NONE;
		hpush(s, head, now > s->th[head].arrive ? now
							 : s->th[head].arrive);
		head = nx;
	}
}

static void block_on(struct sim *s, uint32_t *list, uint32_t tid)
{
	s->th[tid].state = ST_BLOCKED;
	s->th[tid].next = *list;
	*list = tid;
}

/*
 * Hand a lock or token to the earliest waiter of @o at @now: the lowest
 * (arrival, recorded time, tid).  Returns the thread or NONE.
 */
static uint32_t pick_waiter(struct sim *s, struct sobj *o)
{
	uint32_t best = NONE, prev_best = NONE, prev = NONE;
	uint64_t bt = 0;

	for (uint32_t w = o->waiters; w != NONE; prev = w, w = s->th[w].next) {
		uint64_t tie = tie_of(s, w);

		if (best == NONE || s->th[w].arrive < s->th[best].arrive ||
		    (s->th[w].arrive == s->th[best].arrive &&
		     (tie < bt || (tie == bt && w < best)))) {
			best = w;
			bt = tie;
			prev_best = prev;
		}
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

static void grant(struct sim *s, uint32_t tid, uint64_t now)
{
	struct sthread *st = &s->th[tid];

	st->granted = true;
	st->grant = now;
	hpush(s, tid, now > st->arrive ? now : st->arrive);
}

/* The recorded seq an acquire consumed (0: none). */
static uint64_t consumed(const struct cp_tvert *v)
{
	return v->cnt ? v->arg + v->cnt - 1 : 0;
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
 * The recorded wake-up latency of thread @tid's vertex @i, a CONSUME (see
 * "Wake-up latency"): 0 unless the replay pays latencies and the vertex
 * waited in the recording.
 */
static uint64_t consume_latency(const struct sim *s, uint32_t tid,
				uint32_t i)
{
	const struct cp_trace *t = s->t;
	const struct cp_tvert *v = &t->threads[tid].v[i];
	const struct cp_trace_pub *pb;
	uint64_t dep = 0;

	if (!s->wake || !cp_tvert_waits(v) || !v->cnt)
		return 0;
	pb = cp_trace_find_pub(t, v->obj, v->arg, v->cnt);
	if (!pb)
		return 0;
	for (uint32_t c = 0; c < v->cnt; c++) {
		uint64_t w = cp_trace_wall(t, pb[c].tid, pb[c].vi);

		if (w > dep)
			dep = w;
	}
	return latency_after(t, tid, i, dep);
}

/* The same for a JOIN of child @c. */
static uint64_t join_latency(const struct sim *s, uint32_t tid, uint32_t i,
			     uint32_t c)
{
	const struct cp_trace *t = s->t;
	uint32_t nv = t->threads[c].nv;

	if (!s->wake || !cp_tvert_waits(&t->threads[tid].v[i]) || !nv ||
	    cp_tvert_kind(&t->threads[c].v[nv - 1]) != CP_EV_THREAD_EXIT)
		return 0;
	return latency_after(t, tid, i, cp_trace_wall(t, c, nv - 1));
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

/* The vertex thread @tid is at (blocked or arriving). */
static const struct cp_tvert *cur_vert(const struct sim *s, uint32_t tid)
{
	return &s->t->threads[tid].v[s->th[tid].cur];
}

/* @tid's entry among @o's readers, or NULL. */
static struct sreader *rw_reader(struct sobj *o, uint32_t tid)
{
	for (uint32_t i = 0; i < o->nrd; i++)
		if (o->rd[i].tid == tid)
			return &o->rd[i];
	return NULL;
}

/* Give @tid one more read share of @o.  Returns 0 or -1 (out of memory,
 * the share is then not counted: the simulation stays safe, only less
 * exact). */
static int rw_add_reader(struct sobj *o, uint32_t tid)
{
	struct sreader *r = rw_reader(o, tid), *nr;

	if (r) {
		r->depth++;
		return 0;
	}
	if (o->nrd == o->cap_rd) {
		uint32_t cap = o->cap_rd ? 2 * o->cap_rd : 4;

		nr = realloc(o->rd, cap * sizeof(*nr));
		if (!nr)
			return -1;
		o->rd = nr;
		o->cap_rd = cap;
	}
	o->rd[o->nrd].tid = tid;
	o->rd[o->nrd++].depth = 1;
	return 0;
}

/* Count a grant of the rwlock made in another order than recorded. */
static void rw_count_order(struct sim *s, const struct sobj *o,
			   const struct cp_tvert *v)
{
	s->reordered += consumed(v) != (cp_tvert_shared(v) ? o->last_wseq
							    : o->last_seq);
}

/*
 * Hand a free or read-held rwlock over at @now, in order of simulated
 * request: the earliest waiter, and when that is a reader every waiting
 * reader.  A writer goes only when nobody holds the lock.
 */
static void rw_dispatch(struct sim *s, struct sobj *o, uint64_t now)
{
	uint32_t w, prev, next;
	const struct cp_tvert *v;

	if (o->holder != NONE || o->waiters == NONE)
		return;
	w = pick_waiter(s, o);
	v = cur_vert(s, w);
	if (!cp_tvert_shared(v)) {
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
	rw_add_reader(o, w);
	rw_count_order(s, o, v);
	grant(s, w, now);
	/* every other waiting reader comes in with it */
	prev = NONE;
	for (w = o->waiters; w != NONE; w = next) {
		next = s->th[w].next;
		v = cur_vert(s, w);
		if (!cp_tvert_shared(v)) {
			prev = w;
			continue;
		}
		if (prev == NONE)
			o->waiters = next;
		else
			s->th[prev].next = next;
		s->th[w].next = NONE;
		rw_add_reader(o, w);
		rw_count_order(s, o, v);
		grant(s, w, now);
	}
}

/*
 * Thread @tid arrives at an rwlock CONSUME @v of @o.  Returns true if it
 * got the lock, false if it must wait.
 */
static bool rw_acquire(struct sim *s, struct sobj *o, uint32_t tid,
		       const struct cp_tvert *v)
{
	if (cp_tvert_shared(v)) {
		if (rw_reader(o, tid) || o->holder == NONE) {
			if (!rw_reader(o, tid))
				rw_count_order(s, o, v);
			rw_add_reader(o, tid);
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
static void rw_release(struct sim *s, struct sobj *o, uint32_t tid,
		       uint64_t seq, uint64_t now)
{
	struct sreader *r;

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

/*
 * How each rwlock is simulated (@rw[obj] = RW_*), in one pass over the
 * CONSUMEs.  An rwlock with a SHARED CONSUME is simulated.  One without is
 * taken for write-only, and simulated, only if its CONSUMEs form a lock
 * chain: each takes at most one release, no release is taken twice, at
 * most one takes none.  Reads in a trace written before the flag break
 * that as soon as two of them take the same write release, or a write
 * follows a read; such an rwlock is replayed.  @seen: [npub] scratch.
 */
enum { RW_CHAIN, RW_SHARED, RW_BROKEN };

static void rw_classify(const struct cp_trace *t, uint8_t *rw, uint8_t *seen,
			uint8_t *none)
{
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		for (uint32_t i = 0; i < t->threads[tid].nv; i++) {
			const struct cp_tvert *v = &t->threads[tid].v[i];
			const struct cp_trace_pub *pb;
			uint32_t o = v->obj;

			if (!o || cp_tvert_kind(v) != CP_EV_CONSUME ||
			    t->objs[o].kind != CP_OBJ_RWLOCK)
				continue;
			if (cp_tvert_shared(v))
				rw[o] = RW_SHARED;
			if (rw[o] != RW_CHAIN)
				continue;
			if (v->cnt > 1 || (!v->cnt && none[o]++)) {
				rw[o] = RW_BROKEN;
				continue;
			}
			if (!v->cnt)
				continue;
			pb = cp_trace_find_pub(t, o, v->arg, 1);
			if (seen[pb - t->pub]++)
				rw[o] = RW_BROKEN;
		}
}

/*
 * A thread woken by a hand-over (st->granted): its acquire happens at the
 * grant, after its wake-up latency.  Returns true, with the time in *@at,
 * if it was; false if the thread must still acquire.
 */
static bool take_grant(struct sim *s, uint32_t tid, uint64_t *at)
{
	struct sthread *st = &s->th[tid];

	if (!st->granted)
		return false;
	st->granted = false;
	*at = resume_at(*at, st->grant, consume_latency(s, tid, st->cur));
	return true;
}

/* Acquire simulated object @o (lock, semaphore, rwlock) for @tid at
 * once if it is free; false if the thread must wait for it. */
static bool try_acquire(struct sim *s, struct sobj *o, uint32_t tid,
			const struct cp_tvert *v)
{
	switch (o->mode) {
	case MODE_RW:
		return rw_acquire(s, o, tid, v);
	case MODE_LOCK:
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
	default:	/* MODE_SEM */
		if (!o->tokens)
			return false;
		o->tokens--;
		return true;
	}
}

/*
 * A CONSUME that follows its recorded dependency: it happens once every
 * PUBLISH it consumed has, after its wake-up latency.  False when it
 * blocks on one that has not happened yet.
 */
static bool wait_recorded(struct sim *s, uint32_t tid,
			  const struct cp_tvert *v, uint64_t *at)
{
	const struct cp_trace *t = s->t;
	const struct cp_trace_pub *pb;
	uint64_t dep = 0;

	if (!v->cnt)
		return true;
	pb = cp_trace_find_pub(t, v->obj, v->arg, v->cnt);
	for (uint32_t c = 0; c < v->cnt; c++) {
		uint32_t pi = (uint32_t)(pb + c - t->pub);

		if (s->pub_time[pi] == NEVER) {
			block_on(s, &s->pub_wait[pi], tid);
			return false;
		}
		if (s->pub_time[pi] > dep)
			dep = s->pub_time[pi];
	}
	*at = resume_at(*at, dep, consume_latency(s, tid, s->th[tid].cur));
	return true;
}

/* Vertex cur of @tid, a CONSUME, at *@at; false when the thread blocks. */
static bool step_consume(struct sim *s, uint32_t tid,
			 const struct cp_tvert *v, uint64_t *at)
{
	struct sthread *st = &s->th[tid];
	struct sobj *o = v->obj ? &s->ob[v->obj] : NULL;

	if (st->forced) {
		/* as recorded: its dependencies */
		st->forced = false;
		if (o->mode == MODE_SEM)
			o->debt++;
	} else if (o && o->mode != MODE_REPLAY) {
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
static void release(struct sim *s, struct sobj *o, uint32_t tid,
		    const struct cp_tvert *v, uint64_t at)
{
	uint32_t w;

	if (o->mode == MODE_LOCK && o->holder == tid && --o->depth == 0) {
		o->holder = NONE;
		o->last_seq = v->arg;
		w = pick_waiter(s, o);
		if (w != NONE) {
			const struct cp_tvert *wv =
				&s->t->threads[w].v[s->th[w].cur];

			o->holder = w;
			o->depth = 1;
			s->reordered += consumed(wv) != o->last_seq;
			grant(s, w, at);
		}
	} else if (o->mode == MODE_RW) {
		rw_release(s, o, tid, v->arg, at);
	} else if (o->mode == MODE_SEM) {
		w = o->debt ? NONE : pick_waiter(s, o);
		if (o->debt)
			o->debt--;
		else if (w != NONE)
			grant(s, w, at);
		else
			o->tokens++;
	}
}

/*
 * Try to make vertex th[tid].cur happen.  Returns true when it did (its
 * time is th[tid].last), false when the thread blocked.
 */
static bool step(struct sim *s, uint32_t tid)
{
	const struct cp_trace *t = s->t;
	struct sthread *st = &s->th[tid];
	const struct cp_tvert *v = &t->threads[tid].v[st->cur];
	uint64_t at = st->arrive;
	struct sobj *o = v->obj ? &s->ob[v->obj] : NULL;
	const struct cp_trace_pub *pb;
	uint32_t c, w;

	switch (cp_tvert_kind(v)) {
	case CP_EV_CONSUME:
		if (!step_consume(s, tid, v, &at))
			return false;
		break;
	case CP_EV_PUBLISH:
		pb = cp_trace_find_pub(t, v->obj, v->arg, 1);
		if (pb) {
			uint32_t pi = (uint32_t)(pb - t->pub);

			s->pub_time[pi] = at;
			w = s->pub_wait[pi];
			s->pub_wait[pi] = NONE;
			wake_list(s, w, at);
		}
		if (o)
			release(s, o, tid, v, at);
		break;
	case CP_EV_THREAD_JOIN:
		c = (uint32_t)v->arg;
		if (s->th[c].exit == NEVER) {
			block_on(s, &s->th[c].joiners, tid);
			return false;
		}
		at = resume_at(at, s->th[c].exit,
			       join_latency(s, tid, st->cur, c));
		break;
	case CP_EV_THREAD_EXIT:
		st->exit = at;
		w = st->joiners;
		st->joiners = NONE;
		wake_list(s, w, at);
		break;
	case CP_EV_THREAD_CREATE:
		c = (uint32_t)v->arg;
		if (t->threads[c].nv && s->th[c].state == ST_IDLE) {
			s->th[c].arrive = at;
			if (s->wake)
				s->th[c].arrive += after(cp_trace_wall(t, c, 0),
						cp_trace_wall(t, tid, st->cur));
			hpush(s, c, s->th[c].arrive);
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
 * rwlock is written or read, never both.
 */
static void cp_replay_assert(const struct sim *s)
{
	if (!cp_replay_debug)
		return;
	for (uint32_t i = 1; i < s->nheap; i++)
		if (hless(&s->heap[i], &s->heap[(i - 1) / 2]))
			cp_die("what-if: heap out of order");
	for (uint32_t i = 0; i < s->nheap; i++) {
		if (s->th[s->heap[i].tid].state != ST_READY)
			cp_die("what-if: a thread in the heap is not ready");
		for (uint32_t j = i + 1; j < s->nheap; j++)
			if (s->heap[i].tid == s->heap[j].tid)
				cp_die("what-if: a thread twice in the heap");
	}
	for (uint32_t o = 1; o < s->t->nobjs; o++) {
		if (s->ob[o].holder != NONE &&
		    s->ob[o].holder >= s->t->nthreads)
			cp_die("what-if: lock held by no thread");
		if (s->ob[o].holder != NONE && s->ob[o].nrd)
			cp_die("what-if: rwlock written and read at once");
		for (uint32_t i = 0; i < s->ob[o].nrd; i++)
			if (!s->ob[o].rd[i].depth)
				cp_die("what-if: reader without a share");
	}
}

/*
 * Nothing is runnable but threads are blocked: let the earliest blocked
 * acquire that did not wait in the recording through (see Tries).
 * Returns false if there is none.
 */
static bool force_one(struct sim *s)
{
	const struct cp_trace *t = s->t;
	uint32_t best = NONE, *link;
	uint64_t bt = 0, btie = 0;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		const struct cp_tvert *v;
		const struct cp_trace_pub *pb;
		uint64_t ready = s->th[tid].arrive, tie;
		uint8_t mode;
		bool ok = true;

		if (s->th[tid].state != ST_BLOCKED || !t->threads[tid].nv)
			continue;
		v = cur_vert(s, tid);
		if (cp_tvert_kind(v) != CP_EV_CONSUME || cp_tvert_waits(v) ||
		    !v->obj)
			continue;
		mode = s->ob[v->obj].mode;
		if (mode != MODE_LOCK && mode != MODE_SEM && mode != MODE_RW)
			continue;
		pb = v->cnt ? cp_trace_find_pub(t, v->obj, v->arg, v->cnt)
			    : NULL;
		for (uint32_t c = 0; pb && c < v->cnt; c++) {
			uint64_t pt = s->pub_time[pb + c - t->pub];

			if (pt == NEVER)
				ok = false;
			else if (pt > ready)
				ready = pt;
		}
		tie = tie_of(s, tid);
		if (ok && (best == NONE || ready < bt ||
			   (ready == bt && tie < btie)))
			best = tid, bt = ready, btie = tie;
	}
	if (best == NONE)
		return false;
	link = &s->ob[cur_vert(s, best)->obj].waiters;
	while (*link != best)
		link = &s->th[*link].next;
	*link = s->th[best].next;
	s->th[best].next = NONE;
	s->th[best].forced = true;
	s->forced++;
	hpush(s, best, bt);
	return true;
}

/* Keep [@from, @to) as a running segment (P processors only). */
static void note_running(struct sim *s, uint64_t from, uint64_t to)
{
	if (s->nrun == s->cap_run) {
		size_t cap = 2 * s->cap_run;
		uint64_t *a = realloc(s->run_start, cap * sizeof(*a));

		if (a)
			s->run_start = a;
		a = a ? realloc(s->run_end, cap * sizeof(*a)) : NULL;
		if (!a) {
			s->oom = true;
			return;
		}
		s->run_end = a;
		s->cap_run = cap;
	}
	s->run_start[s->nrun] = from;
	s->run_end[s->nrun++] = to;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The real time at which the replay's clock reads @end on @cpus
 * processors: the integral over the clock of max(1, running / cpus).
 */
static uint64_t shared_time(struct sim *s, uint64_t end, uint32_t cpus)
{
	size_t i = 0, j = 0;
	uint64_t prev = 0, n = 0;
	double real = 0;

	qsort(s->run_start, s->nrun, sizeof(uint64_t), cmp_u64);
	qsort(s->run_end, s->nrun, sizeof(uint64_t), cmp_u64);
	while (i < s->nrun || j < s->nrun) {
		/* ends first at a tie: a segment that ends where another
		 * starts does not overlap it */
		bool is_end = j < s->nrun &&
			      (i == s->nrun ||
			       s->run_end[j] <= s->run_start[i]);
		uint64_t at = is_end ? s->run_end[j] : s->run_start[i];

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

static void run(struct sim *s)
{
	const struct cp_trace *t = s->t;

	while (s->nheap) {
		struct hent h = hpop(s);
		uint32_t tid = h.tid;
		struct sthread *st = &s->th[tid];
		uint32_t nv = t->threads[tid].nv;

		cp_replay_assert(s);
		st->state = ST_BLOCKED;	/* until step says otherwise */
		/* run the thread while it needs no other thread: a vertex
		 * that happens is followed by the next arrival */
		for (;;) {
			if (!step(s, tid))
				break;
			if (++st->cur >= nv) {
				st->state = ST_DONE;
				break;
			}
			st->arrive = st->last + seg_dur(s, tid, st->cur);
			if (s->cap_run && st->arrive > st->last)
				note_running(s, st->last, st->arrive);
			/* yield when another thread is due earlier */
			if (s->nheap && s->heap[0].key < st->arrive) {
				hpush(s, tid, st->arrive);
				break;
			}
			if (s->nheap && s->heap[0].key == st->arrive) {
				hpush(s, tid, st->arrive);
				break;
			}
		}
	}
}

/*
 * How each object is replayed (MODE_*), and a semaphore's tokens at the
 * start: its initial value, or the waits that took an initial token in
 * the recording if more (@cnt0, zeroed, [nobjs]).  @rwk: rw_classify().
 */
static void init_objects(struct sim *s, uint64_t *cnt0, const uint8_t *rwk)
{
	const struct cp_trace *t = s->t;

	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		for (uint32_t i = 0; i < t->threads[tid].nv; i++) {
			const struct cp_tvert *v = &t->threads[tid].v[i];

			if (cp_tvert_kind(v) == CP_EV_CONSUME && v->obj &&
			    !v->cnt)
				cnt0[v->obj]++;
		}
	for (uint32_t o = 1; o < t->nobjs; o++) {
		const struct cp_trace_obj *to = &t->objs[o];
		struct sobj *so = &s->ob[o];

		so->holder = NONE;
		so->waiters = NONE;
		so->mode = MODE_REPLAY;
		if (to->untracked)
			continue;
		if (to->kind == CP_OBJ_MUTEX || to->kind == CP_OBJ_SPIN) {
			so->mode = MODE_LOCK;
		} else if (to->kind == CP_OBJ_SEM) {
			so->mode = MODE_SEM;
			so->tokens = to->extra > cnt0[o] ? to->extra : cnt0[o];
		} else if (to->kind == CP_OBJ_RWLOCK && rwk[o] != RW_BROKEN) {
			so->mode = MODE_RW;
		}
	}
}

int cp_replay_run(const struct cp_tracepag *tp, const double *cct_factor,
		  uint32_t cpus, bool wake, struct cp_replay_result *r)
{
	const struct cp_trace *t = tp->t;
	struct sim s;
	uint64_t *cnt0 = NULL;
	uint8_t *seen = NULL, *rwk = NULL, *none = NULL;
	int ret = -1;

	memset(&s, 0, sizeof(s));
	s.tp = tp;
	s.t = t;
	s.f = cct_factor;
	s.wake = wake;
	s.th = calloc(t->nthreads, sizeof(*s.th));
	s.ob = calloc(t->nobjs ? t->nobjs : 1, sizeof(*s.ob));
	s.pub_time = malloc((t->npub ? t->npub : 1) * sizeof(*s.pub_time));
	s.pub_wait = malloc((t->npub ? t->npub : 1) * sizeof(*s.pub_wait));
	s.heap = malloc(t->nthreads * sizeof(*s.heap));
	cnt0 = calloc(t->nobjs ? t->nobjs : 1, sizeof(*cnt0));
	rwk = calloc(t->nobjs ? t->nobjs : 1, 1);
	none = calloc(t->nobjs ? t->nobjs : 1, 1);
	seen = calloc(t->npub ? t->npub : 1, 1);
	if (!s.th || !s.ob || !s.pub_time || !s.pub_wait || !s.heap || !cnt0 ||
	    !rwk || !none || !seen)
		goto out;
	if (cpus && cpus < t->nthreads) {
		s.cap_run = 1024;
		s.run_start = malloc(s.cap_run * sizeof(*s.run_start));
		s.run_end = malloc(s.cap_run * sizeof(*s.run_end));
		if (!s.run_start || !s.run_end)
			goto out;
	}
	for (uint64_t i = 0; i < t->npub; i++) {
		s.pub_time[i] = NEVER;
		s.pub_wait[i] = NONE;
	}
	rw_classify(t, rwk, seen, none);
	init_objects(&s, cnt0, rwk);
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		s.th[tid].exit = NEVER;
		s.th[tid].next = NONE;
		s.th[tid].joiners = NONE;
		if (t->threads[tid].nv && t->threads[tid].parent == NONE)
			hpush(&s, tid, 0);
	}
	do
		run(&s);
	while (force_one(&s));
	r->deadlock = false;
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		if (t->threads[tid].nv && s.th[tid].state != ST_DONE)
			r->deadlock = true;
	if (s.oom)
		goto out;
	r->length = s.cap_run ? shared_time(&s, s.end, cpus) : s.end;
	r->reordered = s.reordered;
	r->forced = s.forced;
	ret = 0;
out:
	free(s.run_start);
	free(s.run_end);
	for (uint32_t o = 1; s.ob && o < t->nobjs; o++)
		free(s.ob[o].rd);
	free(seen);
	free(rwk);
	free(none);
	free(s.th);
	free(s.ob);
	free(s.pub_time);
	free(s.pub_wait);
	free(s.heap);
	free(cnt0);
	return ret;
}
