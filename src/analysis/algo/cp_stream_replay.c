/*
 * cp_stream_replay.c - the what-if replay out of core
 * (cp_stream_replay.h).
 *
 * cp_replay.c's simulation looks at little of the trace at a time: each
 * thread's next vertex (its kind, object, sequences, flags, time and wall
 * time), the segment into it, and the simulated time of the PUBLISHes a
 * CONSUME names.  So it runs over the file as it is: every thread reads
 * its events through a cursor (cp_tcursor.h) as the simulation reaches
 * them, its calling context (for a segment's factor) is kept by the
 * streaming pass's procedure stack (cp_stream_calls, the fixed graph's
 * factor), and the simulated time of a PUBLISH lives in a record keyed by
 * (object, sequence) from the moment it happens (or a CONSUME waits for
 * it) until no CONSUME can still need it.  The simulation's code is
 * cp_replay.c's, step for step: the same heap keys, hand-overs, tries and
 * forced acquires, so it gives the same figures to the nanosecond.
 *
 * The survey.  A first pass over the events, merged in order of their
 * running wall clock (each thread's maximum wall time so far: its "key"),
 * gathers what the simulation needs of the whole trace before it starts,
 * as cp_replay.c's first loops do: each object's definition (OBJ_DEF and
 * OBJ_UNTRACK, which the cursor hands over), a semaphore's waits that took
 * an initial token, how each rwlock is simulated (rw_classify), each
 * thread's parent; it interns the procedures and finds what the in-memory
 * reader would repair (an undefined object, a CONSUME of a sequence
 * nobody publishes, a broken thread link or nesting).  This pass repairs
 * nothing: a trace that needs it is reported unclean and not replayed.
 * And it measures each object's lag: the largest (highest sequence
 * published so far) - (low end) of a CONSUME, in the survey's order.
 *
 * Freeing.  If a CONSUME c of sequence s of object o comes before the
 * PUBLISH p of s + lag + 1 in the survey's order (it does: else the
 * highest sequence at c would be at least s + lag + 1, over the lag), then
 * key(c) <= key(p).  In the simulation, every vertex a thread has not
 * processed has a key at least its current vertex's (keys never fall), so
 * every CONSUME with a key below the least current key of the threads
 * that have a CONSUME left (the survey notes each thread's last), the
 * low-water mark, has been processed.  (A thread left with none, as a
 * main thread blocked in its last joins, holds nothing back.)  Hence once a PUBLISH of
 * o with a sequence f and a key below the low-water mark has been
 * simulated, no CONSUME will still ask for a sequence of o at or below
 * f - lag - 1, and their records are freed.  A sweep applies the rule
 * when the records have doubled since the last one (amortized O(1) per
 * record).
 *
 * Memory: O(threads + objects + live records); the live records are the
 * publishes of each object within its lag, plus those the simulation runs
 * ahead of the recorded order (a thread whose segments shrink runs ahead
 * of the others' recorded positions).  cp_sreplay.live_max measures it.
 * The survey keeps a bit per write release of an rwlock whose CONSUMEs
 * are not SHARED (to tell a write-only rwlock's lock chain from reads in
 * an old trace), and nothing else per event.
 *
 * Not here: the replay on fewer processors (it sorts every running
 * segment) and the recorded wake-up latencies (a CONSUME's latency needs
 * the wall time of the PUBLISH it consumed in the recording, which the
 * simulation may not have reached); `cpt whatif` runs those in memory.
 *
 * Cost: the survey, then the unscaled and the scaled replay on two
 * threads (cp_par_two), each O(v log T) plus O(waiters) per release.
 */
#include "cp_stream_replay.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_die.h"
#include "cp_grow.h"
#include "cp_hash.h"
#include "cp_par.h"
#include "cp_stream_int.h"

#define NEVER UINT64_MAX

/* ---- the threads, in both passes ---------------------------------- */

enum { RS_IDLE, RS_READY, RS_BLOCKED, RS_DONE };

struct rth {
	struct sth s;		/* cursor, s.nx the next vertex, procedure
				 * stack and factor (cp_stream_procs.c) */
	uint64_t wall;		/* recorded wall time of s.nx: heap tie */
	uint64_t key;		/* the thread's wall clock so far, max */
	uint64_t prev_ts;	/* time of the vertex before s.nx */
	bool has;		/* s.nx holds a vertex not yet processed */
	/* (replay) cp_replay.c's struct sthread */
	uint8_t state;
	bool granted;		/* a lock or token was handed over */
	bool forced;		/* its acquire is let through */
	uint64_t arrive, grant, last, exit;
	uint32_t next;		/* next in a waiting list */
	uint32_t joiners;	/* threads joining this one */
};

/* Decode @th's next vertex into s.nx; false at its end. */
static bool advance(const struct cp_tindex *ix, struct rth *th)
{
	uint64_t w;

	th->has = cp_tcursor_next(&th->s.cur, &th->s.nx, &w);
	if (!th->has)
		return false;
	th->s.nvi++;
	th->wall = ix->t.flags & CP_TRACE_HAS_WALL ? w : th->s.nx.ts;
	if (th->wall > th->key)
		th->key = th->wall;
	return true;
}

static void rth_free(struct rth *th)
{
	cp_tcursor_fini(&th->s.cur);
	free(th->s.fr);
	free(th->s.cnt);
	free(th->s.vec);
	free(th->s.act);
	th->s.fr = NULL;
	th->s.cnt = NULL;
	th->s.vec = NULL;
	th->s.act = NULL;
}

/* ---- the survey --------------------------------------------------- */

enum { RW_CHAIN, RW_SHARED, RW_BROKEN };
enum { MODE_REPLAY, MODE_LOCK, MODE_SEM, MODE_RW };

/* An object as the survey finds it. */
struct vobj {
	uint64_t smax;		/* highest sequence published so far */
	uint64_t lag;		/* largest smax - low end of a CONSUME */
	uint64_t cnt0;		/* CONSUMEs of no sequence */
	uint64_t npub;		/* PUBLISHes */
	uint64_t maxc;		/* highest sequence a CONSUME takes */
	uint64_t extra, addr;	/* OBJ_DEF's */
	uint64_t *taken;	/* (rwlock chain) sequences taken, bits */
	uint64_t ntaken;	/* words at @taken */
	uint8_t kind, rw;	/* OBJ_DEF's kind; RW_* */
	bool defined, untracked;
	bool used;		/* a vertex names it */
	bool synced;		/* a PUBLISH or CONSUME names it */
	bool shared;		/* a SHARED CONSUME names it */
	bool none;		/* (rwlock chain) a CONSUME took nothing */
};

/* A thread as the survey finds it. */
struct vth {
	uint32_t parent;	/* from THREAD_START, NONE: a root */
	uint32_t creator;	/* the thread whose CREATE names it */
	bool exited;		/* its THREAD_EXIT seen */
	bool joined;		/* a JOIN names it */
	bool any;		/* it has a vertex */
	uint64_t last_c;	/* 1 + index of its last CONSUME, 0: none */
};

struct srv {
	struct cp_tindex *ix;
	struct sp sp;		/* procedure interning (cp_stream_calls) */
	struct cp_stream names;	/* its procedure table */
	struct rth *th;		/* [nt] */
	struct vth *vt;		/* [nt] */
	uint32_t nt;
	uint32_t *heap, nheap;	/* threads by (key, tid) */
	struct vobj *ob;
	uint64_t nobj;		/* entries at @ob */
	bool oom;
	bool dirty;		/* something the reader would repair */
	char why[160];
};

__attribute__((format(printf, 2, 3)))
static void dirty(struct srv *v, const char *fmt, ...)
{
	va_list ap;

	if (v->dirty)
		return;
	v->dirty = true;
	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
}

/* Object @id's survey state, the table grown; NULL: no memory. */
static struct vobj *vobj_at(struct srv *v, uint64_t id)
{
	uint64_t cap = v->nobj;

	if (id < v->nobj)
		return &v->ob[id];
	if (cp_grow((void **)&v->ob, sizeof(*v->ob), &cap, id + 1)) {
		v->oom = true;
		return NULL;
	}
	memset(v->ob + v->nobj, 0, (cap - v->nobj) * sizeof(*v->ob));
	v->nobj = cap;
	return &v->ob[id];
}

/* OBJ_DEF and OBJ_UNTRACK, as the reader takes them (cp_tracechk.c). */
static void on_meta(void *ctx, const struct cp_trd_ev *ev)
{
	struct srv *v = ctx;
	unsigned k = ev->op & CP_EV_KIND_MASK;
	struct vobj *o;

	if (k != CP_EV_OBJ_DEF && k != CP_EV_OBJ_UNTRACK)
		return;
	if (ev->a == 0 || ev->a >= UINT32_MAX ||
	    (k == CP_EV_OBJ_DEF && (ev->b > CP_OBJ_KIND_MAX ||
				    ev->a > v->ix->r.total_ev))) {
		dirty(v, "object definition %" PRIu64 " dropped", ev->a);
		return;
	}
	o = vobj_at(v, ev->a);
	if (!o)
		return;
	if (k == CP_EV_OBJ_UNTRACK) {
		o->untracked = true;
	} else if (o->defined && (o->kind != ev->b || o->extra != ev->dt ||
				  o->addr != ev->c)) {
		dirty(v, "object %" PRIu64 " defined twice, differently",
		      ev->a);
	} else {
		o->defined = true;
		o->kind = (uint8_t)ev->b;
		o->extra = ev->dt;
		o->addr = ev->c;
	}
}

/* rw_classify (cp_replay.c) for one CONSUME of @o, a possible rwlock. */
static void rw_note(struct srv *v, struct vobj *o, const struct cp_tvert *c)
{
	uint64_t w = c->arg / 64, nw = o->ntaken;

	if (o->defined && o->kind != CP_OBJ_RWLOCK)
		return;
	if (cp_tvert_shared(c))
		o->rw = RW_SHARED;
	if (o->rw == RW_CHAIN && c->cnt > 1)
		o->rw = RW_BROKEN;
	else if (o->rw == RW_CHAIN && !c->cnt && o->none)
		o->rw = RW_BROKEN;
	else if (o->rw == RW_CHAIN && !c->cnt)
		o->none = true;
	else if (o->rw == RW_CHAIN && w >= (1ull << 32))
		dirty(v, "sequence %" PRIu64 " out of range", c->arg);
	else if (o->rw == RW_CHAIN && w >= nw &&
		 cp_grow((void **)&o->taken, sizeof(*o->taken), &nw, w + 1))
		v->oom = true;
	else if (o->rw == RW_CHAIN) {
		if (nw > o->ntaken)
			memset(o->taken + o->ntaken, 0,
			       (nw - o->ntaken) * sizeof(*o->taken));
		o->ntaken = nw;
		if (o->taken[w] & (1ull << (c->arg % 64)))
			o->rw = RW_BROKEN;
		o->taken[w] |= 1ull << (c->arg % 64);
	}
	if (o->rw != RW_CHAIN) {
		free(o->taken);
		o->taken = NULL;
		o->ntaken = 0;
	}
}

/* The object side of vertex @x: lag, tokens, rwlocks, publishes. */
static void survey_obj(struct srv *v, const struct cp_tvert *x)
{
	unsigned kind = cp_tvert_kind(x);
	struct vobj *o = vobj_at(v, x->obj);

	if (!o)
		return;
	o->used = true;
	if (kind == CP_EV_PUBLISH) {
		o->synced = true;
		o->npub++;
		if (x->arg > o->smax)
			o->smax = x->arg;
	} else if (kind == CP_EV_CONSUME) {
		o->synced = true;
		o->shared |= cp_tvert_shared(x);
		if (!x->cnt) {
			o->cnt0++;
		} else {
			if (o->smax > x->arg && o->smax - x->arg > o->lag)
				o->lag = o->smax - x->arg;
			if (x->arg + x->cnt - 1 > o->maxc)
				o->maxc = x->arg + x->cnt - 1;
		}
		rw_note(v, o, x);
	}
}

/* Would the reader's nesting check repair vertex @x of @t (a LEAVE or
 * REGION_END with nothing to close)? */
static bool bad_nesting(const struct sth *t, const struct cp_tvert *x)
{
	unsigned kind = cp_tvert_kind(x);
	uint64_t tag = kind == CP_EV_REGION_END ? x->arg + 1 : 0;

	if (kind != CP_EV_LEAVE && kind != CP_EV_REGION_END)
		return false;
	for (uint64_t j = t->depth; j > 0; j--)
		if (t->fr[j - 1].tag == tag)
			return false;
	return true;
}

/* The thread side of vertex @x, the @i-th of @tid: links and nesting. */
static void survey_thread(struct srv *v, uint32_t tid, uint64_t i,
			  const struct cp_tvert *x)
{
	unsigned kind = cp_tvert_kind(x);
	struct vth *t = &v->vt[tid];
	uint64_t c = x->arg;

	t->any = true;
	if (kind == CP_EV_CONSUME)
		t->last_c = i + 1;
	if (t->exited)
		dirty(v, "thread %" PRIu32 " has events after THREAD_EXIT",
		      tid);
	if (bad_nesting(&v->th[tid].s, x))
		dirty(v, "an unmatched LEAVE or REGION_END in thread %" PRIu32,
		      tid);
	if (kind == CP_EV_THREAD_EXIT)
		t->exited = true;
	if (kind == CP_EV_THREAD_START && (i || (c && (c - 1 >= v->nt ||
						       c - 1 == tid))))
		dirty(v, "a bad THREAD_START in thread %" PRIu32, tid);
	else if (kind == CP_EV_THREAD_START && c)
		t->parent = (uint32_t)(c - 1);
	if ((kind == CP_EV_THREAD_CREATE || kind == CP_EV_THREAD_JOIN) &&
	    (c >= v->nt || c == tid)) {
		dirty(v, "a CREATE or JOIN of an unknown thread in thread %"
		      PRIu32, tid);
	} else if (kind == CP_EV_THREAD_CREATE) {
		if (v->vt[c].creator != NONE)
			dirty(v, "thread %" PRIu64 " created twice", c);
		v->vt[c].creator = tid;
	} else if (kind == CP_EV_THREAD_JOIN) {
		v->vt[c].joined = true;
	}
}

/* What the reader would repair, over the whole trace (the survey's end). */
static void survey_check(struct srv *v)
{
	for (uint64_t id = 1; id < v->nobj; id++) {
		const struct vobj *o = &v->ob[id];

		if ((o->used && !o->defined) || (o->untracked && !o->defined))
			dirty(v, "object %" PRIu64 " is not defined", id);
		else if (o->synced && !o->kind)
			dirty(v, "object %" PRIu64 " has no kind", id);
		else if (o->shared && o->kind != CP_OBJ_RWLOCK)
			dirty(v, "a SHARED CONSUME of object %" PRIu64
			      ", not an rwlock", id);
		else if (o->npub != o->smax || o->maxc > o->smax)
			dirty(v, "object %" PRIu64 "'s sequences are not "
			      "1..n, all published", id);
	}
	for (uint32_t tid = 0; tid < v->nt; tid++) {
		const struct vth *t = &v->vt[tid];

		if (t->any && t->parent != t->creator)
			dirty(v, "thread %" PRIu32 "'s parent has no CREATE "
			      "of it", tid);
		if (t->joined && !t->exited)
			dirty(v, "thread %" PRIu32 " is joined but has no "
			      "THREAD_EXIT", tid);
	}
}

static bool vless(const struct srv *v, uint32_t a, uint32_t b)
{
	if (v->th[a].key != v->th[b].key)
		return v->th[a].key < v->th[b].key;
	return a < b;
}

static void vpush(struct srv *v, uint32_t tid)
{
	uint32_t i = v->nheap++;

	while (i > 0 && vless(v, tid, v->heap[(i - 1) / 2])) {
		v->heap[i] = v->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	v->heap[i] = tid;
}

static uint32_t vpop(struct srv *v)
{
	uint32_t top = v->heap[0], e = v->heap[--v->nheap], i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= v->nheap)
			break;
		if (c + 1 < v->nheap && vless(v, v->heap[c + 1], v->heap[c]))
			c++;
		if (!vless(v, v->heap[c], e))
			break;
		v->heap[i] = v->heap[c];
		i = c;
	}
	if (v->nheap)
		v->heap[i] = e;
	return top;
}

/* Survey @tid's events while it comes first in the merge. */
static void survey_run(struct srv *v, uint32_t tid)
{
	struct rth *th = &v->th[tid];

	do {
		const struct cp_tvert *x = &th->s.nx;

		survey_thread(v, tid, th->s.nvi - 1, x);
		if (x->obj)
			survey_obj(v, x);
		if (cp_stream_calls(&v->sp, &th->s, x))
			v->oom = true;
		if (!advance(v->ix, th)) {
			rth_free(th);
			return;
		}
	} while (!v->oom && (!v->nheap || !vless(v, v->heap[0], tid)));
	vpush(v, tid);
}

/* The survey (see the head of the file).  0, or -1 (memory). */
static int survey(struct srv *v)
{
	uint32_t nt = v->nt ? v->nt : 1;

	v->th = calloc(nt, sizeof(*v->th));
	v->vt = calloc(nt, sizeof(*v->vt));
	v->heap = malloc(nt * sizeof(*v->heap));
	if (!v->th || !v->vt || !v->heap)
		return -1;
	for (uint32_t tid = 0; tid < v->nt; tid++) {
		struct rth *th = &v->th[tid];

		v->vt[tid].parent = v->vt[tid].creator = NONE;
		cp_tcursor_init(&th->s.cur, v->ix, tid, false);
		th->s.cur.meta = on_meta;
		th->s.cur.meta_ctx = v;
		th->s.fac = 1.0;
		if (advance(v->ix, th))
			vpush(v, tid);
	}
	while (v->nheap && !v->oom)
		survey_run(v, vpop(v));
	if (v->oom)
		return -1;
	survey_check(v);
	return 0;
}

static void srv_free(struct srv *v)
{
	for (uint32_t tid = 0; v->th && tid < v->nt; tid++)
		rth_free(&v->th[tid]);
	for (uint64_t i = 0; i < v->nobj; i++)
		free(v->ob[i].taken);
	free(v->ob);
	free(v->th);
	free(v->vt);
	free(v->heap);
	free(v->sp.pname);
	free(v->sp.trk);
	free(v->sp.pf);
	cp_smap_free(&v->sp.names);
	cp_map2_free(&v->sp.procmap);
	cp_stream_free(&v->names);
}

/* ---- the replay --------------------------------------------------- */

struct hent {
	uint64_t key;
	uint64_t tie;
	uint32_t tid;
};

/* A thread holding read shares of an rwlock. */
struct sreader {
	uint32_t tid;
	uint32_t depth;
};

/* cp_replay.c's struct sobj, and the freeing rule's state. */
struct robj {
	uint32_t holder;
	uint32_t depth;
	uint64_t last_seq, last_wseq;
	uint64_t tokens, debt;
	uint32_t waiters;
	uint8_t mode;
	uint32_t nrd, cap_rd;
	struct sreader *rd;
	uint64_t lag;		/* the survey's */
	uint64_t fmax;		/* highest sequence published below the
				 * low-water mark */
	struct prec *slot;	/* [cap] records of [base, top), by seq */
	uint64_t base, top, cap;
};

/* A PUBLISH's record: its simulated time, or the CONSUMEs waiting. */
struct prec {
	uint64_t time;		/* NEVER: not simulated yet */
	uint64_t key;		/* the publishing thread's key then */
	uint32_t waiters;	/* threads waiting for it */
	bool used;		/* the slot holds a record */
};

struct sim {
	const struct srv *v;
	struct cp_tindex *ix;
	struct sp sp;		/* cp_stream_calls in records mode: the
				 * factor of each thread's context */
	struct rth *th;
	uint32_t nt;
	struct robj *ob;
	uint64_t nobj;
	uint32_t *active;	/* objects whose window holds records */
	uint64_t nactive, cap_active;
	uint64_t live, next_sweep;	/* records alive; sweep at */
	struct hent *heap;
	uint32_t nheap;
	uint64_t end, reordered, forced;
	uint64_t records, live_max;
	bool oom;
	int ret;		/* (cp_par_two) 0, or -1 (memory) */
	struct cp_replay_result r;
};

/*
 * Make @o's window (sequences dense from 1: the survey checked) hold
 * @seq: a ring of a power of two slots over [base, top).  0, or -1.
 */
static int win_grow(struct sim *s, uint32_t obj, struct robj *o,
		    uint64_t seq)
{
	uint64_t need = seq - o->base + 1, cap = o->cap ? o->cap : 16;
	struct prec *ns;

	if (o->base == o->top && cp_grow((void **)&s->active,
			sizeof(*s->active), &s->cap_active, s->nactive + 1))
		return -1;
	if (o->base == o->top)	/* it joins the sweep's list */
		s->active[s->nactive++] = obj;
	if (need > o->cap) {
		while (cap < need)
			cap *= 2;
		ns = calloc(cap, sizeof(*ns));
		if (!ns)
			return -1;
		for (uint64_t q = o->base; q < o->top; q++)
			ns[q & (cap - 1)] = o->slot[q & (o->cap - 1)];
		free(o->slot);
		o->slot = ns;
		o->cap = cap;
	}
	for (uint64_t q = o->top; q <= seq; q++)
		o->slot[q & (o->cap - 1)].used = false;
	o->top = seq + 1;
	return 0;
}

/*
 * The record of @obj's @seq; made, unpublished, if @make; NULL if there
 * is none (or it was freed: no CONSUME can ask for it) or no memory
 * (s->oom).
 */
static struct prec *rec_get(struct sim *s, uint32_t obj, uint64_t seq,
			    bool make)
{
	struct robj *o = &s->ob[obj];
	struct prec *p;

	if (seq < o->base || (seq >= o->top && !make))
		return NULL;
	if (seq >= o->top && win_grow(s, obj, o, seq)) {
		s->oom = true;
		return NULL;
	}
	p = &o->slot[seq & (o->cap - 1)];
	if (p->used || !make)
		return p->used ? p : NULL;
	*p = (struct prec){ .time = NEVER, .waiters = NONE, .used = true };
	s->records++;
	if (++s->live > s->live_max)
		s->live_max = s->live;
	return p;
}

/* @o's records below the rule's bound freed (see Freeing). */
static void win_trim(struct sim *s, struct robj *o, uint64_t lwm)
{
	uint64_t q;

	for (q = o->base; q < o->top; q++) {
		const struct prec *p = &o->slot[q & (o->cap - 1)];

		if (p->used && p->time != NEVER && p->key < lwm && q > o->fmax)
			o->fmax = q;
	}
	for (q = o->base; q < o->top && q + o->lag + 1 <= o->fmax; q++) {
		struct prec *p = &o->slot[q & (o->cap - 1)];

		if (p->used && p->waiters != NONE)
			break;	/* cannot be: a consumer is waiting */
		s->live -= p->used;
		p->used = false;
	}
	o->base = q;
}

/* Free the records no CONSUME can need any more (see Freeing). */
static void sweep(struct sim *s)
{
	uint64_t lwm = NEVER, n = 0;

	for (uint32_t tid = 0; tid < s->nt; tid++)
		if (s->th[tid].has && s->th[tid].key < lwm &&
		    s->th[tid].s.nvi <= s->v->vt[tid].last_c)
			lwm = s->th[tid].key;
	for (uint64_t i = 0; i < s->nactive; i++) {
		struct robj *o = &s->ob[s->active[i]];

		win_trim(s, o, lwm);
		if (o->base < o->top)
			s->active[n++] = s->active[i];
	}
	s->nactive = n;
	s->next_sweep = 2 * s->live > 1024 ? 2 * s->live : 1024;
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
	struct hent e = { .key = key, .tie = s->th[tid].wall, .tid = tid };
	uint32_t i = s->nheap++;

	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (!hless(&e, &s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = e;
	s->th[tid].state = RS_READY;
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
	s->th[tid].state = RS_BLOCKED;
	s->th[tid].next = *list;
	*list = tid;
}

/* The earliest waiter of @o by (arrival, recorded time, tid), taken off
 * its list; NONE if there is none. */
static uint32_t pick_waiter(struct sim *s, struct robj *o)
{
	uint32_t best = NONE, prev_best = NONE, prev = NONE;

	for (uint32_t w = o->waiters; w != NONE; prev = w, w = s->th[w].next) {
		const struct rth *a = &s->th[w], *b;

		if (best == NONE) {
			best = w;
			prev_best = prev;
			continue;
		}
		b = &s->th[best];
		if (a->arrive < b->arrive ||
		    (a->arrive == b->arrive &&
		     (a->wall < b->wall || (a->wall == b->wall && w < best)))) {
			best = w;
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
	struct rth *st = &s->th[tid];

	st->granted = true;
	st->grant = now;
	hpush(s, tid, now > st->arrive ? now : st->arrive);
}

static uint64_t consumed(const struct cp_tvert *v)
{
	return v->cnt ? v->arg + v->cnt - 1 : 0;
}

/* ---- rwlocks (cp_replay.c's) ---- */

static struct sreader *rw_reader(struct robj *o, uint32_t tid)
{
	for (uint32_t i = 0; i < o->nrd; i++)
		if (o->rd[i].tid == tid)
			return &o->rd[i];
	return NULL;
}

static void rw_add_reader(struct sim *s, struct robj *o, uint32_t tid)
{
	struct sreader *r = rw_reader(o, tid);

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

static void rw_count_order(struct sim *s, const struct robj *o,
			   const struct cp_tvert *v)
{
	s->reordered += consumed(v) != (cp_tvert_shared(v) ? o->last_wseq
							    : o->last_seq);
}

static void rw_dispatch(struct sim *s, struct robj *o, uint64_t now)
{
	uint32_t w, prev, next;
	const struct cp_tvert *v;

	if (o->holder != NONE || o->waiters == NONE)
		return;
	w = pick_waiter(s, o);
	v = &s->th[w].s.nx;
	if (!cp_tvert_shared(v)) {
		if (o->nrd) {
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
	prev = NONE;
	for (w = o->waiters; w != NONE; w = next) {
		next = s->th[w].next;
		v = &s->th[w].s.nx;
		if (!cp_tvert_shared(v)) {
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

static bool rw_acquire(struct sim *s, struct robj *o, uint32_t tid,
		       const struct cp_tvert *v)
{
	if (cp_tvert_shared(v)) {
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

static void rw_release(struct sim *s, struct robj *o, uint32_t tid,
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
		return;
	}
	rw_dispatch(s, o, now);
}

/* ---- one vertex (cp_replay.c's step) ---- */

static bool try_acquire(struct sim *s, struct robj *o, uint32_t tid,
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
	default:
		if (!o->tokens)
			return false;
		o->tokens--;
		return true;
	}
}

/* A CONSUME that follows its recorded dependency: at the latest of its
 * PUBLISHes; false when it blocks on one not simulated yet. */
static bool wait_recorded(struct sim *s, uint32_t tid,
			  const struct cp_tvert *v, uint64_t *at)
{
	uint64_t dep = 0;

	for (uint32_t c = 0; c < v->cnt; c++) {
		struct prec *r = rec_get(s, v->obj, v->arg + c, true);

		if (!r && !s->oom)
			cp_die("stream replay: a record freed too early");
		if (!r)
			return false;
		if (r->time == NEVER) {
			block_on(s, &r->waiters, tid);
			return false;
		}
		if (r->time > dep)
			dep = r->time;
	}
	if (dep > *at)
		*at = dep;
	return true;
}

static bool step_consume(struct sim *s, uint32_t tid,
			 const struct cp_tvert *v, uint64_t *at)
{
	struct rth *st = &s->th[tid];
	struct robj *o = v->obj ? &s->ob[v->obj] : NULL;

	if (st->forced) {
		st->forced = false;
		if (o->mode == MODE_SEM)
			o->debt++;
	} else if (o && o->mode != MODE_REPLAY) {
		if (st->granted) {
			st->granted = false;
			if (st->grant > *at)
				*at = st->grant;
			return true;
		}
		if (try_acquire(s, o, tid, v))
			return true;
		block_on(s, &o->waiters, tid);
		return false;
	}
	return wait_recorded(s, tid, v, at);
}

static void release(struct sim *s, struct robj *o, uint32_t tid,
		    const struct cp_tvert *v, uint64_t at)
{
	uint32_t w;

	if (o->mode == MODE_LOCK && o->holder == tid && --o->depth == 0) {
		o->holder = NONE;
		o->last_seq = v->arg;
		w = pick_waiter(s, o);
		if (w != NONE) {
			o->holder = w;
			o->depth = 1;
			s->reordered += consumed(&s->th[w].s.nx) != o->last_seq;
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

/* A PUBLISH of @tid at @at: its record, its waiters, the release. */
static void publish(struct sim *s, uint32_t tid, const struct cp_tvert *v,
		    uint64_t at)
{
	struct prec *r = rec_get(s, v->obj, v->arg, true);
	uint32_t w;

	if (r) {	/* none: freed, nobody can need it */
		r->time = at;
		r->key = s->th[tid].key;
		w = r->waiters;
		r->waiters = NONE;
		wake_list(s, w, at);
	}
	release(s, &s->ob[v->obj], tid, v, at);
}

/* Make @tid's vertex s.nx happen; false when the thread blocks. */
static bool step(struct sim *s, uint32_t tid)
{
	struct rth *st = &s->th[tid];
	const struct cp_tvert *v = &st->s.nx;
	uint64_t at = st->arrive;
	uint32_t c, w;

	switch (cp_tvert_kind(v)) {
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
		if (s->th[c].exit > at)
			at = s->th[c].exit;
		break;
	case CP_EV_THREAD_EXIT:
		st->exit = at;
		w = st->joiners;
		st->joiners = NONE;
		wake_list(s, w, at);
		break;
	case CP_EV_THREAD_CREATE:
		c = (uint32_t)v->arg;
		if (s->th[c].has && s->th[c].state == RS_IDLE) {
			s->th[c].arrive = at;
			hpush(s, c, at);
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
 * After @th's vertex happened: its stack change, then the next vertex
 * and the arrival there (the segment into it, scaled by the context's
 * factor).  False at the thread's end.
 */
static bool next_vertex(struct sim *s, struct rth *th)
{
	uint64_t dt;

	if (cp_stream_calls(&s->sp, &th->s, &th->s.nx))
		s->oom = true;
	th->prev_ts = th->s.nx.ts;
	if (!advance(s->ix, th)) {
		rth_free(th);
		return false;
	}
	dt = th->s.nx.ts - th->prev_ts;
	if (cp_tvert_waits(&th->s.nx))
		dt = 0;
	else if (th->s.fac != 1.0)
		dt = cp_whatif_scaled_w(dt, th->s.fac);
	th->arrive = th->last + dt;
	return true;
}

/* Let the earliest blocked acquire that did not wait in the recording
 * through (cp_replay.c, Tries); false if there is none. */
static bool force_one(struct sim *s)
{
	uint32_t best = NONE, *link;
	uint64_t bt = 0, btie = 0;

	for (uint32_t tid = 0; tid < s->nt; tid++) {
		const struct rth *th = &s->th[tid];
		const struct cp_tvert *v = &th->s.nx;
		uint64_t ready = th->arrive;
		uint8_t mode;
		bool ok = true;

		if (th->state != RS_BLOCKED || !th->has ||
		    cp_tvert_kind(v) != CP_EV_CONSUME || cp_tvert_waits(v) ||
		    !v->obj)
			continue;
		mode = s->ob[v->obj].mode;
		if (mode == MODE_REPLAY)
			continue;
		for (uint32_t c = 0; c < v->cnt && ok; c++) {
			const struct prec *r = rec_get(s, v->obj, v->arg + c,
						       false);

			if (!r || r->time == NEVER)
				ok = false;
			else if (r->time > ready)
				ready = r->time;
		}
		if (ok && (best == NONE || ready < bt ||
			   (ready == bt && th->wall < btie)))
			best = tid, bt = ready, btie = th->wall;
	}
	if (best == NONE)
		return false;
	link = &s->ob[s->th[best].s.nx.obj].waiters;
	while (*link != best)
		link = &s->th[*link].next;
	*link = s->th[best].next;
	s->th[best].next = NONE;
	s->th[best].forced = true;
	s->forced++;
	hpush(s, best, bt);
	return true;
}

/* Run @tid while it needs no other thread (cp_replay.c's run). */
static void run_thread(struct sim *s, uint32_t tid)
{
	struct rth *st = &s->th[tid];

	st->state = RS_BLOCKED;
	for (;;) {
		if (!step(s, tid) || s->oom)
			break;
		if (!next_vertex(s, st)) {
			st->state = RS_DONE;
			break;
		}
		if (s->live >= s->next_sweep)
			sweep(s);
		if (s->nheap && s->heap[0].key <= st->arrive) {
			hpush(s, tid, st->arrive);
			break;
		}
	}
}

/* Threads, objects and roots of one replay.  0, or -1 (memory). */
static int sim_init(struct sim *s)
{
	const struct srv *v = s->v;

	s->th = calloc(s->nt ? s->nt : 1, sizeof(*s->th));
	s->heap = malloc((s->nt ? s->nt : 1) * sizeof(*s->heap));
	s->ob = calloc(v->nobj ? v->nobj : 1, sizeof(*s->ob));
	if (!s->th || !s->heap || !s->ob)
		return -1;
	s->nobj = v->nobj;
	for (uint64_t id = 0; id < v->nobj; id++) {
		const struct vobj *vo = &v->ob[id];
		struct robj *o = &s->ob[id];

		o->holder = o->waiters = NONE;
		o->lag = vo->lag;
		if (vo->untracked)
			o->mode = MODE_REPLAY;
		else if (vo->kind == CP_OBJ_MUTEX || vo->kind == CP_OBJ_SPIN)
			o->mode = MODE_LOCK;
		else if (vo->kind == CP_OBJ_SEM)
			o->mode = MODE_SEM;
		else if (vo->kind == CP_OBJ_RWLOCK && vo->rw != RW_BROKEN)
			o->mode = MODE_RW;
		if (o->mode == MODE_SEM)
			o->tokens = vo->extra > vo->cnt0 ? vo->extra : vo->cnt0;
	}
	s->next_sweep = 1024;
	for (uint32_t tid = 0; tid < s->nt; tid++) {
		struct rth *th = &s->th[tid];

		th->exit = NEVER;
		th->next = th->joiners = NONE;
		th->s.fac = 1.0;
		cp_tcursor_init(&th->s.cur, s->ix, tid, false);
		if (!advance(s->ix, th))
			continue;
		if (v->vt[tid].parent == NONE)
			hpush(s, tid, 0);
		else
			cp_tcursor_park(&th->s.cur);
	}
	return 0;
}

static void sim_free(struct sim *s)
{
	for (uint32_t tid = 0; s->th && tid < s->nt; tid++)
		rth_free(&s->th[tid]);
	for (uint64_t id = 0; s->ob && id < s->nobj; id++) {
		free(s->ob[id].rd);
		free(s->ob[id].slot);
	}
	free(s->th);
	free(s->heap);
	free(s->ob);
	free(s->active);
}

/* One replay (cp_par_two's job): s->r, s->ret. */
static void sim_job(void *arg)
{
	struct sim *s = arg;

	s->ret = -1;
	if (sim_init(s))
		return;
	do
		while (s->nheap && !s->oom)
			run_thread(s, hpop(s).tid);
	while (!s->oom && force_one(s));
	if (s->oom)
		return;
	s->r.deadlock = false;
	for (uint32_t tid = 0; tid < s->nt; tid++)
		if (s->th[tid].has)
			s->r.deadlock = true;
	s->r.length = s->end;
	s->r.reordered = s->reordered;
	s->r.forced = s->forced;
	s->ret = 0;
}

/* ---- the run ------------------------------------------------------ */

/* Each procedure's factor from @sc (the survey interned the names) and
 * the records-mode stack of both replays.  0, or -1 with @err. */
static int factors(struct srv *v, const struct cp_whatif_scale *sc,
		   uint32_t nsc, double **pf, char *err, size_t errlen)
{
	uint32_t n = v->names.nprocs ? v->names.nprocs : 1;

	*pf = malloc(n * sizeof(**pf));
	v->sp.trk = malloc(n * sizeof(*v->sp.trk));
	if (!*pf || !v->sp.trk) {
		snprintf(err, errlen, "%s: out of memory in the streaming "
			 "replay", v->ix->t.path);
		return -1;
	}
	for (uint32_t i = 0; i < v->names.nprocs; i++) {
		(*pf)[i] = 1.0;
		v->sp.trk[i] = NONE;
	}
	for (uint32_t i = 0; i < nsc; i++) {
		uint32_t id = cp_smap_get(&v->sp.names, v->sp.pname,
					  sc[i].name);

		if (id == CP_HASH_NONE) {
			snprintf(err, errlen, "%s: no procedure named '%s' in "
				 "the trace", v->ix->t.path, sc[i].name);
			return -1;
		}
		(*pf)[id] *= sc[i].factor;
	}
	return 0;
}

/* Both replays on two threads, from the survey @v. 0, or -1 (memory). */
static int replay_both(struct srv *v, double *ones, double *pf,
		       struct cp_sreplay *out)
{
	struct sim sim[2];
	int ret = -1;

	memset(sim, 0, sizeof(sim));
	for (int k = 0; k < 2; k++) {
		sim[k].v = v;
		sim[k].ix = v->ix;
		sim[k].nt = v->nt;
		sim[k].sp = v->sp;	/* the procedure tables, read only */
		sim[k].sp.records = true;
		sim[k].sp.nlane = 1;
		sim[k].sp.pf = k ? pf : ones;
	}
	cp_par_two(v->ix->t.nevents, sim_job, &sim[0], sim_job, &sim[1]);
	if (!sim[0].ret && !sim[1].ret) {
		out->before = sim[0].r;
		out->after = sim[1].r;
		out->records = sim[1].records;
		out->live_max = sim[1].live_max;
		ret = 0;
	}
	sim_free(&sim[0]);
	sim_free(&sim[1]);
	return ret;
}

int cp_stream_replay_run(struct cp_tindex *ix,
			 const struct cp_whatif_scale *sc, uint32_t nsc,
			 bool exclusive, struct cp_sreplay *out, char *err,
			 size_t errlen)
{
	struct srv v = { .ix = ix, .nt = ix->t.nthreads };
	double *pf = NULL, *ones = NULL;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	v.sp = (struct sp){ .ix = ix, .s = &v.names, .excl = exclusive,
			    .freel = NONE };
	if (survey(&v))
		goto err_mem;
	if (v.dirty) {
		snprintf(out->why, sizeof(out->why), "%s", v.why);
		ret = 0;
		goto out;
	}
	if (factors(&v, sc, nsc, &pf, err, errlen))
		goto out;
	ones = malloc((v.names.nprocs ? v.names.nprocs : 1) * sizeof(*ones));
	if (!ones)
		goto err_mem;
	for (uint32_t i = 0; i < v.names.nprocs; i++)
		ones[i] = 1.0;
	if (replay_both(&v, ones, pf, out))
		goto err_mem;
	out->clean = true;
	ret = 0;
	goto out;
err_mem:
	snprintf(err, errlen, "%s: out of memory in the streaming replay",
		 ix->t.path);
out:
	free(pf);
	free(ones);
	srv_free(&v);
	return ret;
}

/* ---- with the fixed graph ----------------------------------------- */

/* One half of cp_stream_whatif_run: a pass and its result. */
struct half {
	struct cp_tindex *ix;
	const struct cp_stream_opts *so;
	struct cp_stream *s;
	struct cp_sreplay *rp;
	int ret;
	char err[256];
};

static void fixed_job(void *arg)
{
	struct half *h = arg;

	h->ret = cp_stream_run(h->s, h->ix, h->so, h->err, sizeof(h->err));
}

static void replay_job(void *arg)
{
	struct half *h = arg;

	h->ret = cp_stream_replay_run(h->ix, h->so->scale, h->so->nscale,
				      h->so->exclusive, h->rp, h->err,
				      sizeof(h->err));
}

int cp_stream_whatif_run(struct cp_tindex *ix, const struct cp_stream_opts *so,
			 struct cp_stream *s, struct cp_sreplay *rp,
			 char *err, size_t errlen)
{
	struct half a = { .ix = ix, .so = so, .s = s },
		    b = { .ix = ix, .so = so, .rp = rp };

	cp_par_two(ix->t.nevents, fixed_job, &a, replay_job, &b);
	if (!a.ret && !b.ret)
		return 0;
	snprintf(err, errlen, "%s", a.ret ? a.err : b.err);
	if (!a.ret)
		cp_stream_free(s);
	return -1;
}
