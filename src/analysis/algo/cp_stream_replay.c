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
 * factor; with sampled procedures, the stacks of the samples, switched
 * at their midpoints on the thread's useful time as cp_stream_samp.c and
 * cp_sampled.c's rewrite do, the survey placing the samples in arrays of
 * its own), and the simulated time of a PUBLISH lives in a record keyed by
 * (object, sequence) from the moment it happens (or a CONSUME waits for
 * it) until no CONSUME can still need it.  The simulation is
 * cp_replay.c's own (cp_rsim_*, cp_replay_int.h), fed through its
 * cp_rsim_ops: the same heap keys, hand-overs, tries and forced acquires,
 * so it gives the same figures to the nanosecond.
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
 * main thread blocked in its last joins, holds nothing back.)  Hence once
 * a PUBLISH of o with a sequence f and a key below the low-water mark has
 * been simulated, no CONSUME will still ask for a sequence of o at or
 * below f - lag - 1, and their records are freed.  Records sit in a ring
 * per object, indexed by sequence (the survey checked they are 1..n); a
 * sweep, which looks at every thread and every object holding records,
 * applies the rule once there are as many more records alive since the
 * last as there were then, and at least as many as threads (amortized
 * O(1) per record: with a thread per task, a sweep every 1024 records
 * was a fifth of the replay's time at 200,001 threads).
 *
 * Memory: O(threads + objects + live records), about 440 bytes a thread
 * in each replay plus a cursor for each thread alive (sim_reopen); the
 * survey's threads are freed before the replays.  The live records are the
 * publishes of each object within its lag, plus those the simulation runs
 * ahead of the recorded order (a thread whose segments shrink runs ahead
 * of the others' recorded positions).  cp_sreplay.live_max measures it.
 * The survey keeps a bit per write release of an rwlock whose CONSUMEs
 * are not SHARED (to tell a write-only rwlock's lock chain from reads in
 * an old trace), and nothing else per event; with sampled procedures,
 * 17 bytes per sample (a small fraction of the events).
 *
 * Not here: the replay on fewer processors (it sorts every running
 * segment) and the recorded wake-up latencies (a CONSUME's latency needs
 * the wall time of the PUBLISH it consumed in the recording, which the
 * simulation may not have reached); `cpt whatif` runs those in memory.
 *
 * Cost: the survey, then the unscaled and the scaled replay on two
 * threads (cp_par_two), each O(v log T) plus O(waiters) per release;
 * cp_stream_whatif_run runs the fixed graph's two passes beside them.
 * Several scalings at once (cp_stream_whatif_each, the HTML page's top
 * procedures) share the survey and the unscaled replay, and the fixed
 * graph follows them all in one pass, a lane each: for n scalings, n + 4
 * passes over the events instead of 5n.
 */
#include "cp_stream_replay.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_grow.h"
#include "cp_hash.h"
#include "cp_par.h"
#include "cp_prefetch.h"
#include "cp_replay_int.h"
#include "cp_samples.h"
#include "cp_stream_int.h"

#define NEVER CP_RSIM_NEVER

/* ---- the threads, in both passes ---------------------------------- */

struct rth {
	struct sth s;		/* cursor, s.nx the next vertex, s.key its
				 * thread's wall clock so far (max),
				 * procedure stack and factor
				 * (cp_stream_procs.c) */
	uint64_t wall;		/* recorded wall time of s.nx */
	uint64_t prev_ts;	/* time of the vertex before s.nx */
	bool has;		/* s.nx holds a vertex not yet processed */
};

/* Decode @t's next vertex into t->nx, its wall time into *@wall; t->key
 * the thread's wall clock so far.  False at its end. */
static bool next_event(const struct cp_tindex *ix, struct sth *t,
		       uint64_t *wall)
{
	uint64_t w;

	if (!cp_tcursor_next(t->cur, &t->nx, &w))
		return false;
	t->nvi++;
	*wall = ix->t.flags & CP_TRACE_HAS_WALL ? w : t->nx.ts;
	if (*wall > t->key)
		t->key = *wall;
	return true;
}

/* The same for a replay's thread, past the procedure events if @drop. */
static bool advance(const struct cp_tindex *ix, struct rth *th, bool drop)
{
	do
		th->has = next_event(ix, &th->s, &th->wall);
	while (th->has && drop && cp_stream_is_proc(cp_tev_kind(&th->s.nx)));
	return th->has;
}

/* Give @t a cursor at the first event of thread @tid, reading through
 * @ahead (cp_tcursor_ahead_new: a pass opens its threads in about the
 * order their first blocks lie in the file).  false: out of memory. */
static bool sth_open(struct sth *t, struct cp_tindex *ix, uint32_t tid,
		     struct cp_tpf_win *ahead)
{
	t->cur = malloc(sizeof(*t->cur));
	if (!t->cur)
		return false;
	cp_tcursor_init(t->cur, ix, tid, false);
	t->cur->ahead = ahead;
	return true;
}

/* Free what @t holds: its cursor and its stack (made at its first
 * stack change, cp_stream_frames()). */
static void sth_free(struct sth *t)
{
	if (t->cur)
		cp_tcursor_fini(t->cur);
	free(t->cur);
	t->cur = NULL;
	cp_stream_stk_free(t);
	free(t->vec);
	t->vec = NULL;
}

/* ---- the survey --------------------------------------------------- */

enum { RW_CHAIN, RW_SHARED, RW_BROKEN };

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
	struct sp sp;		/* the threads (sp.th, sp.heap: the merge
				 * by key, cp_stream_heap_*) and the
				 * procedure names (cp_stream_calls) */
	struct cp_stream names;	/* its procedure table */
	struct vth *vt;		/* [nt] */
	uint32_t nt;
	struct cp_tpf_win *ahead;	/* the cursors read through it */
	struct vobj *ob;
	uint64_t nobj;		/* entries at @ob */
	bool oom;
	bool dirty;		/* something the reader would repair */
	char why[160];
	/* sampled procedures (cp_stream_samp.c's model, in arrays of this
	 * pass's own: the fixed graph's pass uses the samples' at once) */
	const uint32_t *sid;	/* [sm->n] a sample's stack, NULL: none */
	bool drop;		/* procedure events are dropped (forced) */
	bool saw_procs;		/* a procedure event: instrumented */
	bool smp;		/* the samples' stacks are the procedures */
	bool *sused;		/* [sm->n] the sample is used */
	uint64_t *su;		/* [sm->n] a used sample's useful time */
	uint64_t *sM;		/* [sm->n] where its stack becomes current */
	uint32_t *sfull;	/* a stack's procs, as sm->stk by stk_off */
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
static void rw_note(struct srv *v, struct vobj *o, const struct cp_tev *c)
{
	uint64_t w = c->arg / 64, nw = o->ntaken;

	if (o->defined && o->kind != CP_OBJ_RWLOCK)
		return;
	if (cp_tev_shared(c))
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
static void survey_obj(struct srv *v, const struct cp_tev *x)
{
	unsigned kind = cp_tev_kind(x);
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
		o->shared |= cp_tev_shared(x);
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
static bool bad_nesting(const struct sth *t, const struct cp_tev *x)
{
	unsigned kind = cp_tev_kind(x);
	uint64_t tag = kind == CP_EV_REGION_END ? x->arg + 1 : 0;

	if (kind != CP_EV_LEAVE && kind != CP_EV_REGION_END)
		return false;
	for (uint64_t j = t->k ? t->k->depth : 0; j > 0; j--)
		if (t->k->fr[j - 1].tag == tag)
			return false;
	return true;
}

/* The thread side of vertex @x, the @i-th of @tid: links and nesting. */
static void survey_thread(struct srv *v, uint32_t tid, uint64_t i,
			  const struct cp_tev *x)
{
	unsigned kind = cp_tev_kind(x);
	struct vth *t = &v->vt[tid];
	uint64_t c = x->arg;

	t->any = true;
	if (kind == CP_EV_CONSUME)
		t->last_c = i + 1;
	if (t->exited)
		dirty(v, "thread %" PRIu32 " has events after THREAD_EXIT",
		      tid);
	if (bad_nesting(&v->sp.th[tid], x))
		dirty(v, "an unmatched LEAVE or REGION_END in thread %" PRIu32,
		      tid);
	if (kind == CP_EV_THREAD_EXIT)
		t->exited = true;
	if (!i && kind != CP_EV_THREAD_START)
		dirty(v, "thread %" PRIu32 " does not begin with THREAD_START",
		      tid);
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

/*
 * (sampled) Place @tid's samples up to its vertex @x on its useful time
 * (cp_stream_smp_place's rule) and count the segment into @x.
 */
static void survey_place(struct srv *v, uint32_t tid, struct sth *t,
			 const struct cp_tev *x)
{
	const struct cp_samples *sm = v->ix->t.samples;
	bool useful = t->any && !cp_tev_waits(x);

	for (; t->sk < sm->thr_off[tid + 1]; t->sk++) {
		const struct cp_sample *p = &sm->s[t->sk];
		uint64_t at = v->ix->t.clock == CP_CLOCK_CPU ? p->cpu : p->wall;

		if (at > x->ts)
			break;
		v->sused[t->sk] = useful;
		if (useful)
			v->su[t->sk] = t->useful + (at - t->prev_ts);
	}
	if (useful)
		t->useful += x->ts - t->prev_ts;
	t->prev_ts = x->ts;
	t->any = true;
}

/* Survey @t's vertex t->nx, the thread @tid's, not a dropped one. */
static void survey_vertex(struct srv *v, uint32_t tid, struct sth *t)
{
	survey_thread(v, tid, t->nvi - 1, &t->nx);
	if (v->sid)
		survey_place(v, tid, t, &t->nx);
	if (t->nx.obj)
		survey_obj(v, &t->nx);
	if (cp_stream_calls(&v->sp, t, &t->nx))
		v->oom = true;
}

/* Survey @tid's events while it comes first in the merge. */
static void survey_run(struct srv *v, uint32_t tid)
{
	struct sth *t = &v->sp.th[tid];
	uint64_t wall;

	do {
		bool proc = cp_stream_is_proc(cp_tev_kind(&t->nx));

		v->saw_procs |= proc;
		if (!(proc && v->drop))
			survey_vertex(v, tid, t);
		if (!next_event(v->ix, t, &wall)) {
			sth_free(t);
			return;
		}
	} while (!v->oom && (!v->sp.nheap ||
			     !cp_stream_before(&v->sp, v->sp.heap[0], tid)));
	cp_stream_heap_push(&v->sp, tid);
}

/* The survey's threads: their states, cursors, merge and read window.
 * The replays keep their own (sim_init), so these go as soon as the
 * survey ends: with a thread per task, 300 bytes a thread that would
 * otherwise stay beside the two replays' and the fixed graph pass's. */
static void srv_free_threads(struct srv *v)
{
	for (uint32_t tid = 0; v->sp.th && tid < v->nt; tid++)
		sth_free(&v->sp.th[tid]);
	free(v->sp.th);
	free(v->sp.heap);
	v->sp.th = NULL;
	v->sp.heap = NULL;
	v->sp.nheap = 0;
	cp_tcursor_ahead_free(v->ahead);
	v->ahead = NULL;
}

/* The survey (see the head of the file).  0, or -1 (memory). */
static int survey(struct srv *v)
{
	uint32_t nt = v->nt ? v->nt : 1;
	uint64_t wall;

	v->sp.th = calloc(nt, sizeof(*v->sp.th));
	v->sp.heap = malloc(nt * sizeof(*v->sp.heap));
	v->vt = calloc(nt, sizeof(*v->vt));
	v->ahead = cp_tcursor_ahead_new();
	if (!v->sp.th || !v->sp.heap || !v->vt || !v->ahead)
		return -1;
	v->sp.nt = v->nt;
	if (v->sid) {
		uint64_t n = v->ix->t.samples->n;

		v->sused = calloc(n, sizeof(*v->sused));
		v->su = calloc(n, sizeof(*v->su));
		if (!v->sused || !v->su)
			return -1;
	}
	for (uint32_t tid = 0; tid < v->nt; tid++) {
		struct sth *t = &v->sp.th[tid];

		v->vt[tid].parent = v->vt[tid].creator = NONE;
		if (!sth_open(t, v->ix, tid, v->ahead))
			return -1;
		t->cur->meta = on_meta;
		t->cur->meta_ctx = v;
		t->fac = 1.0;
		t->sk = v->sid ? v->ix->t.samples->thr_off[tid] : 0;
		if (next_event(v->ix, t, &wall)) {
			cp_stream_heap_push(&v->sp, tid);
			/* its block waits in the window or the file until the
			 * merge comes to it, not in memory */
			cp_tcursor_park(t->cur);
		}
	}
	while (v->sp.nheap && !v->oom)
		survey_run(v, cp_stream_heap_pop(&v->sp));
	if (v->oom)
		return -1;
	survey_check(v);
	srv_free_threads(v);
	return 0;
}

static void srv_free(struct srv *v)
{
	srv_free_threads(v);
	for (uint64_t i = 0; i < v->nobj; i++)
		free(v->ob[i].taken);
	free(v->ob);
	free(v->vt);
	free(v->sp.pname);
	free(v->sp.trk);
	free(v->sp.pf);
	free(v->sused);
	free(v->su);
	free(v->sM);
	free(v->sfull);
	cp_smap_free(&v->sp.names);
	cp_map2_free(&v->sp.procmap);
	cp_stream_free(&v->names);
}

/*
 * (sampled, after the survey) The procedures of the used samples' stacks
 * interned, each stack's as procedure ids (v->sfull), and where each
 * used sample's stack becomes current (v->sM: the midpoint with the
 * previous one, the first's 0, as cp_stream_samp.c).  0, or -1 (memory).
 */
static int samp_setup(struct srv *v)
{
	const struct cp_samples *sm = v->ix->t.samples;
	uint64_t nfr = sm->stk_off[sm->nstacks];
	uint32_t *id = malloc((sm->nnames ? sm->nnames : 1) * sizeof(*id));
	int ret = -1;

	v->sM = calloc(sm->n, sizeof(*v->sM));
	v->sfull = malloc((nfr ? nfr : 1) * sizeof(*v->sfull));
	if (!id || !v->sM || !v->sfull)
		goto out;
	for (uint32_t i = 0; i < sm->nnames; i++)
		id[i] = NONE;
	for (uint64_t k = 0; k < sm->n; k++)
		for (uint64_t j = sm->stk_off[v->sid[k]]; v->sused[k] &&
		     j < sm->stk_off[v->sid[k] + 1]; j++)
			if (id[sm->stk[j]] == NONE &&
			    (id[sm->stk[j]] = cp_stream_intern(&v->sp,
					sm->names[sm->stk[j]])) == NONE)
				goto out;
	for (uint64_t j = 0; j < nfr; j++)
		v->sfull[j] = id[sm->stk[j]];
	for (uint32_t tid = 0; tid < v->nt; tid++) {
		uint64_t prev = UINT64_MAX;

		for (uint64_t k = sm->thr_off[tid]; k < sm->thr_off[tid + 1];
		     k++) {
			uint64_t up, uk;

			if (!v->sused[k])
				continue;
			up = prev == UINT64_MAX ? 0 : v->su[prev];
			uk = v->su[k];
			v->sM[k] = prev == UINT64_MAX ? 0 :
				   up / 2 + uk / 2 + (up % 2 + uk % 2) / 2;
			prev = k;
		}
	}
	v->smp = true;
	ret = 0;
out:
	free(id);
	return ret;
}

/* ---- the replay --------------------------------------------------- */

/* A PUBLISH's record (cp_rpub first: the simulation's view of it). */
struct prec {
	struct cp_rpub p;
	uint64_t key;		/* the publishing thread's key then */
	bool used;		/* the slot holds a record */
};

/* An object's records: a ring over the sequences [base, top). */
struct rwin {
	uint64_t lag;		/* the survey's */
	uint64_t fmax;		/* highest sequence published below the
				 * low-water mark */
	struct prec *slot;	/* [cap], by seq % cap */
	uint64_t base, top, cap;
};

struct sim {
	/* the two replays' sims lie side by side (replay_both()) */
	_Alignas(CP_PAR_APART) struct cp_rsim rs;	/* the simulation
							 * (cp_replay_int.h) */
	const struct srv *v;
	struct cp_tindex *ix;
	struct sp sp;		/* cp_stream_calls in records mode: the
				 * factor of each thread's context */
	struct rth *th;		/* [nt] cursors and stacks */
	struct cp_tpf_win *ahead;	/* the cursors read through it */
	struct rwin *win;	/* [nobj] */
	uint32_t *active;	/* objects whose window holds records */
	uint64_t nactive, cap_active;
	uint64_t live, next_sweep;	/* records alive; sweep at */
	uint64_t records, live_max;
	int ret;		/* (cp_par_two) 0, or -1 (memory) */
	struct cp_replay_result r;
};

/*
 * Make @obj's window (sequences dense from 1: the survey checked) hold
 * @seq, doubling it from two records.  0, or -1 (memory).  A program
 * that makes an object per task has one or two records alive in each:
 * windows of 16 (512 bytes an object, in each replay) were most of a
 * streamed what-if's memory on 1.4 million objects.
 */
static int win_grow(struct sim *s, uint32_t obj, uint64_t seq)
{
	struct rwin *o = &s->win[obj];
	uint64_t need = seq - o->base + 1, cap = o->cap ? o->cap : 2;
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

/* cp_rsim_ops.pub: the record of @obj's @seq from its window. */
static struct cp_rpub *rec_get(struct cp_rsim *rs, uint32_t obj,
			       uint64_t seq, bool make)
{
	struct sim *s = rs->ctx;
	struct rwin *o = &s->win[obj];
	struct prec *p;

	if (seq < o->base || (seq >= o->top && !make))
		return NULL;
	if (seq >= o->top && win_grow(s, obj, seq)) {
		rs->oom = true;
		return NULL;
	}
	p = &o->slot[seq & (o->cap - 1)];
	/* An object's records are made and read in the order of their
	 * sequences, but the ring of a simulation that drifts from the
	 * recorded order holds ~10^6 of them: fetched 8 ahead, the next ones
	 * are mostly in cache (doc/measurements/2026-11-30-whatif-passes.md) */
	cp_prefetch_write(&o->slot[(seq + 8) & (o->cap - 1)]);
	if (p->used || !make)
		return p->used ? &p->p : NULL;
	*p = (struct prec){ .p = { .time = NEVER, .waiters = NONE },
			    .used = true };
	s->records++;
	if (++s->live > s->live_max)
		s->live_max = s->live;
	return &p->p;
}

/* cp_rsim_ops.published: the record keeps its publisher's key. */
static void rec_published(struct cp_rsim *rs, uint32_t tid,
			  struct cp_rpub *p)
{
	const struct sim *s = rs->ctx;

	((struct prec *)p)->key = s->th[tid].s.key;
}

/* @o's records below the rule's bound freed (see Freeing). */
static void win_trim(struct sim *s, struct rwin *o, uint64_t lwm)
{
	uint64_t q, lo = o->fmax >= o->base ? o->fmax + 1 : o->base;

	/* the highest such sequence, above fmax (which only grows: the
	 * records up to it need no second look) */
	for (q = o->top; q-- > lo;) {
		const struct prec *p = &o->slot[q & (o->cap - 1)];

		if (p->used && p->p.time != NEVER && p->key < lwm) {
			o->fmax = q;
			break;
		}
	}
	for (q = o->base; q < o->top && q + o->lag + 1 <= o->fmax; q++) {
		struct prec *p = &o->slot[q & (o->cap - 1)];

		if (p->used && p->p.waiters != NONE)
			break;	/* cannot be: a consumer is waiting */
		s->live -= p->used;
		p->used = false;
	}
	o->base = q;
}

/* Records to make before the next sweep, @live alive now (Freeing). */
static uint64_t sweep_gap(const struct sim *s, uint64_t live)
{
	uint64_t g = live > 1024 ? live : 1024;

	return g > s->rs.nt ? g : s->rs.nt;
}

/* Free the records no CONSUME can need any more (see Freeing). */
static void sweep(struct sim *s)
{
	uint64_t lwm = NEVER, n = 0;

	for (uint32_t tid = 0; tid < s->rs.nt; tid++)
		if (s->th[tid].has && s->th[tid].s.key < lwm &&
		    s->th[tid].s.nvi <= s->v->vt[tid].last_c)
			lwm = s->th[tid].s.key;
	for (uint64_t i = 0; i < s->nactive; i++) {
		struct rwin *o = &s->win[s->active[i]];

		win_trim(s, o, lwm);
		if (o->base < o->top)
			s->active[n++] = s->active[i];
	}
	s->nactive = n;
	s->next_sweep = s->live + sweep_gap(s, s->live);
}

/* A piece of @d ns of a useful segment scaled by @fac (seg_dur's). */
static uint64_t piece(uint64_t d, double fac)
{
	return fac == 1.0 ? d : cp_whatif_scaled_w(d, fac);
}

/*
 * (sampled) The simulated length of @t's useful segment of @dt ns: its
 * pieces between the stack switches in it (the samples' midpoints where
 * the stack changes, cp_stream_smp_segment's), each scaled and rounded
 * for the stack current over it, as the in-memory replay's segments
 * between the CP_TV_STACK vertices cp_sampled.c inserts.
 */
static uint64_t sim_pieces(struct sim *s, uint32_t tid, struct sth *t,
			   uint64_t dt)
{
	const struct srv *v = s->v;
	const struct cp_samples *sm = s->ix->t.samples;
	uint64_t pos = t->useful, end = pos + dt, sum = 0;

	for (; t->sk < sm->thr_off[tid + 1]; t->sk++) {
		uint32_t st = v->sid[t->sk];

		if (!v->sused[t->sk])
			continue;
		if (v->sM[t->sk] >= end)
			break;
		if (st == t->stack)	/* no switch: no piece */
			continue;
		sum += piece(v->sM[t->sk] - pos, t->fac);
		pos = v->sM[t->sk];
		t->stack = st;
		if (cp_stream_set_stack(&s->sp, t, v->sfull + sm->stk_off[st],
					(uint32_t)(sm->stk_off[st + 1] -
						   sm->stk_off[st])))
			s->rs.oom = true;
	}
	t->useful = end;
	return sum + piece(end - pos, t->fac);
}

/*
 * A thread that does not start the run (its creator's CREATE starts it)
 * has its first vertex read at sim_init and its cursor closed there: a
 * program that makes a thread per task has few threads alive at once,
 * and a cursor each for all the others was 190 bytes a thread in each
 * replay.  When the thread has run that vertex, its cursor is opened
 * again and reads it again, leaving @th as sim_init's advance did (the
 * thread was not touched between: its key and index are counted anew
 * from 0).  false: out of memory, or the file did not give the vertex
 * again.
 */
static bool sim_reopen(struct sim *s, uint32_t tid, struct rth *th)
{
	struct cp_tev first = th->s.nx;
	uint64_t wall = th->wall, key = th->s.key, nvi = th->s.nvi;

	th->s.key = 0;
	th->s.nvi = 0;
	if (!sth_open(&th->s, s->ix, tid, s->ahead))
		return false;
	return advance(s->ix, th, s->v->drop) && th->wall == wall &&
	       th->s.key == key && th->s.nvi == nvi &&
	       th->s.nx.ts == first.ts && th->s.nx.arg == first.arg &&
	       th->s.nx.obj == first.obj && th->s.nx.cnt == first.cnt &&
	       th->s.nx.op == first.op;
}

/*
 * cp_rsim_ops.next: after @tid's vertex happened, its stack change, then
 * the next vertex and the arrival there (the segment into it, scaled by
 * the context's factor).  False at the thread's end.
 */
static bool sim_next(struct cp_rsim *rs, uint32_t tid)
{
	struct sim *s = rs->ctx;
	struct rth *th = &s->th[tid];
	struct cp_rth *st = &rs->th[tid];
	uint64_t dt;

	if (cp_stream_calls(&s->sp, &th->s, &th->s.nx))
		rs->oom = true;
	th->prev_ts = th->s.nx.ts;
	if (!th->s.cur && !sim_reopen(s, tid, th)) {
		rs->oom = true;
		return false;
	}
	if (!advance(s->ix, th, s->v->drop)) {
		sth_free(&th->s);
		return false;
	}
	dt = th->s.nx.ts - th->prev_ts;
	if (cp_tev_waits(&th->s.nx))
		dt = 0;
	else if (s->v->smp)
		dt = sim_pieces(s, tid, &th->s, dt);
	else if (th->s.fac != 1.0)
		dt = cp_whatif_scaled_w(dt, th->s.fac);
	st->tie = th->wall;
	st->arrive = st->last + dt;
	if (s->live >= s->next_sweep)
		sweep(s);
	return true;
}

static const struct cp_rsim_ops sim_ops = {
	.pub = rec_get,
	.next = sim_next,
	.published = rec_published,
};

/* Threads, objects and roots of one replay.  0, or -1 (memory). */
static int sim_init(struct sim *s)
{
	const struct srv *v = s->v;
	struct cp_rsim *rs = &s->rs;
	uint32_t nt = v->nt ? v->nt : 1;

	rs->ops = &sim_ops;
	rs->ctx = s;
	rs->nt = v->nt;
	rs->nobj = (uint32_t)v->nobj;
	rs->th = calloc(nt, sizeof(*rs->th));
	rs->heap = malloc(nt * sizeof(*rs->heap));
	rs->ob = calloc(v->nobj ? v->nobj : 1, sizeof(*rs->ob));
	s->th = calloc(nt, sizeof(*s->th));
	s->win = calloc(v->nobj ? v->nobj : 1, sizeof(*s->win));
	s->ahead = cp_tcursor_ahead_new();
	if (!rs->th || !rs->heap || !rs->ob || !s->th || !s->win ||
	    !s->ahead)
		return -1;
	for (uint64_t id = 0; id < v->nobj; id++) {
		const struct vobj *vo = &v->ob[id];

		cp_rsim_obj_init(&rs->ob[id], vo->kind, vo->untracked,
				 vo->extra, vo->cnt0, vo->rw == RW_BROKEN);
		s->win[id].lag = vo->lag;
	}
	s->next_sweep = sweep_gap(s, 0);
	for (uint32_t tid = 0; tid < v->nt; tid++) {
		struct rth *th = &s->th[tid];
		struct cp_rth *st = &rs->th[tid];

		st->exit = NEVER;
		st->next = st->joiners = NONE;
		th->s.fac = 1.0;
		th->s.stack = NONE;
		th->s.sk = v->smp ? s->ix->t.samples->thr_off[tid] : 0;
		if (!sth_open(&th->s, s->ix, tid, s->ahead))
			return -1;
		if (!advance(s->ix, th, s->v->drop))
			continue;
		st->v = &th->s.nx;
		st->tie = th->wall;
		if (v->vt[tid].parent == NONE) {
			cp_rsim_push(rs, tid, 0);
		} else {	/* until it has run that vertex: sim_reopen */
			cp_tcursor_fini(th->s.cur);
			free(th->s.cur);
			th->s.cur = NULL;
		}
	}
	return 0;
}

static void sim_free(struct sim *s)
{
	for (uint32_t tid = 0; s->th && tid < s->rs.nt; tid++)
		sth_free(&s->th[tid].s);
	cp_tcursor_ahead_free(s->ahead);
	for (uint64_t id = 0; s->win && id < s->rs.nobj; id++)
		free(s->win[id].slot);
	cp_rsim_free_objs(&s->rs);
	free(s->rs.th);
	free(s->rs.heap);
	free(s->rs.ob);
	free(s->th);
	free(s->win);
	free(s->active);
}

/* One replay (cp_par_two's job): s->r, s->ret. */
static void sim_job(void *arg)
{
	struct sim *s = arg;

	s->ret = -1;
	if (!sim_init(s) && !cp_rsim_run(&s->rs, &s->r))
		s->ret = 0;
}

/* ---- the run ------------------------------------------------------ */

/* The records-mode stack's table of the replays (every procedure
 * untracked), made once after the survey.  0, or -1 (memory). */
static int factors_init(struct srv *v)
{
	uint32_t n = v->names.nprocs ? v->names.nprocs : 1;

	v->sp.trk = malloc(n * sizeof(*v->sp.trk));
	if (!v->sp.trk)
		return -1;
	for (uint32_t i = 0; i < v->names.nprocs; i++)
		v->sp.trk[i] = NONE;
	return 0;
}

/* Each procedure's factor from @sc into *@pf (the survey interned the
 * names; @sc NULL: all 1).  0, or -1 (memory) or CP_STREAM_NO_PROC with
 * @err. */
static int factors(struct srv *v, const struct cp_whatif_scale *sc,
		   uint32_t nsc, double **pf, char *err, size_t errlen)
{
	uint32_t n = v->names.nprocs ? v->names.nprocs : 1;

	*pf = malloc(n * sizeof(**pf));
	if (!*pf) {
		snprintf(err, errlen, "%s: out of memory in the streaming "
			 "replay", v->ix->t.path);
		return -1;
	}
	for (uint32_t i = 0; i < v->names.nprocs; i++)
		(*pf)[i] = 1.0;
	for (uint32_t i = 0; i < nsc; i++) {
		uint32_t id = cp_smap_get(&v->sp.names, v->sp.pname,
					  sc[i].name);

		if (id == CP_HASH_NONE) {
			snprintf(err, errlen, "%s: no procedure named '%s' in "
				 "the trace", v->ix->t.path, sc[i].name);
			return CP_STREAM_NO_PROC;
		}
		(*pf)[id] *= sc[i].factor;
	}
	return 0;
}

/* Make @s a replay of the survey @v with the procedure factors @pf. */
static void sim_prepare(struct sim *s, const struct srv *v, double *pf)
{
	memset(s, 0, sizeof(*s));
	s->v = v;
	s->ix = v->ix;
	s->sp = v->sp;		/* the procedure tables, read only */
	s->sp.th = NULL;
	s->sp.heap = NULL;
	s->sp.records = true;
	s->sp.nlane = 1;
	s->sp.pf = pf;
}

/* Both replays on two threads, from the survey @v. 0, or -1 (memory). */
static int replay_both(struct srv *v, double *ones, double *pf,
		       struct cp_sreplay *out)
{
	struct sim sim[2];
	int ret = -1;

	sim_prepare(&sim[0], v, ones);
	sim_prepare(&sim[1], v, pf);
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
			 bool exclusive, const uint32_t *sid, bool drop_procs,
			 struct cp_sreplay *out, char *err, size_t errlen)
{
	struct srv v = { .ix = ix, .nt = ix->t.nthreads,
			 .sid = ix->t.samples && ix->t.samples->n ? sid :
				NULL };

	v.drop = v.sid && drop_procs;
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
	if (v.sid && (v.drop || !v.saw_procs) && samp_setup(&v))
		goto err_mem;
	if (factors_init(&v))
		goto err_mem;
	ret = factors(&v, sc, nsc, &pf, err, errlen);
	if (!ret)
		ret = factors(&v, NULL, 0, &ones, err, errlen);
	if (ret)
		goto out;
	if (replay_both(&v, ones, pf, out))
		goto err_mem;
	out->clean = true;
	ret = 0;
	goto out;
err_mem:
	ret = -1;
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
	const uint32_t *sid;	/* the samples' stacks, NULL: none */
	bool drop;		/* the samples' forced */
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
				      h->so->exclusive, h->sid, h->drop,
				      h->rp, h->err, sizeof(h->err));
}

int cp_stream_sid_copy(void *ctx, struct cp_trace *t, uint32_t **sid,
		       char *err, size_t errlen)
{
	size_t n = t->samples->n;

	*sid = malloc((n ? n : 1) * sizeof(**sid));
	if (!*sid) {
		snprintf(err, errlen, "%s: out of memory symbolizing the "
			 "samples", t->path);
		return -1;
	}
	memcpy(*sid, ctx, n * sizeof(**sid));
	return 0;
}

/* Whether the procedures of a what-if with @so on @ix are the samples'
 * stacks: it has samples, and asks for them or finds no instrumented
 * procedure. */
static bool samples_take_over(struct cp_tindex *ix,
			      const struct cp_stream_opts *so)
{
	return ix->t.samples && ix->t.samples->n &&
	       (so->src == CP_STREAM_SRC_SAMPLED ||
		(so->src == CP_STREAM_SRC_AUTO &&
		 !cp_stream_procs_instrumented(ix)));
}

int cp_stream_whatif_run(struct cp_tindex *ix, const struct cp_stream_opts *so,
			 struct cp_stream *s, struct cp_sreplay *rp,
			 char *err, size_t errlen)
{
	struct cp_stream_opts fo = *so;
	struct half a = { .ix = ix, .so = &fo, .s = s },
		    b = { .ix = ix, .so = so, .rp = rp };
	uint32_t *sid = NULL;

	/* samples taking over: symbolized once, here (it fills the shared
	 * ix->t.samples), their stacks then given to both passes */
	if (so->symbolize && samples_take_over(ix, so)) {
		if (so->symbolize(so->symbolize_ctx, &ix->t, &sid, err,
				  errlen))
			return -1;
		fo.symbolize = cp_stream_sid_copy;
		fo.symbolize_ctx = sid;
		b.sid = sid;
		b.drop = so->src == CP_STREAM_SRC_SAMPLED;
	}
	cp_par_two(ix->t.nevents, fixed_job, &a, replay_job, &b);
	free(sid);
	if (!a.ret && !b.ret)
		return 0;
	snprintf(err, errlen, "%s", a.ret ? a.err : b.err);
	if (!a.ret)
		cp_stream_free(s);
	return a.ret ? a.ret : b.ret;
}

bool cp_stream_procs_instrumented(struct cp_tindex *ix)
{
	bool samples = false;

	for (size_t i = 0; i < ix->r.nblks && !samples; i++)
		samples = ix->r.blks[i].type == CP_BLOCK_SAMPLES;
	return !samples || ix->first_procs;
}

/* The what-if result @r of the fixed graph's pass @s, its prediction
 * @len touching @ns of useful time, and the replays @rp. */
static void whatif_result(const struct cp_stream *s, uint64_t len,
			  uint64_t ns, const struct cp_sreplay *rp,
			  struct cp_whatif_result *r)
{
	memset(r, 0, sizeof(*r));
	r->length_before = s->cp_len;
	r->length_after_fixed = len;
	r->length_after = len;
	r->scaled_ns = ns;
	if (rp->clean && !s->nrepairs)
		cp_whatif_set_replay(r, &rp->before, &rp->after);
}

void cp_stream_whatif_result(const struct cp_stream *s,
			     const struct cp_sreplay *rp,
			     struct cp_whatif_result *r)
{
	whatif_result(s, s->scaled_len, s->scaled_ns, rp, r);
}

/*
 * The work of cp_stream_whatif_each, as jobs two workers take in turn:
 * the survey; the unscaled replay and one replay per scaling (each
 * after the survey, which they all share); the fixed graph's pass, one
 * for all the scalings, each in a lane of its own (cp_stream_opts.lanes).
 */
struct each {
	struct cp_tindex *ix;
	const struct cp_stream_opts *o;	/* the fixed passes', unscaled */
	const struct cp_whatif_scale *sc;
	uint32_t n;
	struct srv v;		/* the survey */
	pthread_mutex_t mu;
	pthread_cond_t surveyed_cv;
	bool surveyed;
	int vret;		/* the survey's: 0, or -1 (memory) */
	double *ones;		/* unscaled factors */
	double **pf;		/* [n] scaling i's factors */
	int *pret;		/* [n] factors()' return for scaling i */
	struct cp_replay_result base;	/* the unscaled replay */
	int base_ret;
	struct cp_sreplay *rp;	/* [n] scaling i's replay (after) */
	int *rret;		/* [n] its return */
	struct cp_stream s;	/* the fixed graph's pass, lane i scaling i */
	int fret;		/* its return */
	_Atomic uint32_t next_r;	/* next replay: 0 unscaled, i + 1 */
	_Atomic bool fixed_taken;
};

static void each_survey(struct each *x)
{
	struct srv *v = &x->v;
	char err[256];
	int ret = survey(v) ? -1 : 0;

	if (!ret && !v->dirty) {
		if ((v->sid && (v->drop || !v->saw_procs) && samp_setup(v)) ||
		    factors_init(v) ||
		    factors(v, NULL, 0, &x->ones, err, sizeof(err)))
			ret = -1;
		for (uint32_t i = 0; !ret && i < x->n; i++)
			x->pret[i] = factors(v, &x->sc[i], 1, &x->pf[i], err,
					     sizeof(err));
	}
	pthread_mutex_lock(&x->mu);
	x->vret = ret;
	x->surveyed = true;
	pthread_cond_broadcast(&x->surveyed_cv);
	pthread_mutex_unlock(&x->mu);
}

/* One replay alone (@pf its factors): its figures into @r, its records'
 * counts into @rp when given, its state freed before the next. */
static int sim_one(const struct srv *v, double *pf,
		   struct cp_replay_result *r, struct cp_sreplay *rp)
{
	struct sim s;
	int ret;

	sim_prepare(&s, v, pf);
	sim_job(&s);
	ret = s.ret;
	if (!ret) {
		*r = s.r;
		if (rp) {
			rp->records = s.records;
			rp->live_max = s.live_max;
		}
	}
	sim_free(&s);
	return ret;
}

/* Replay @j (0: unscaled; i + 1: scaling i), once the survey is done. */
static void each_replay(struct each *x, uint32_t j)
{
	pthread_mutex_lock(&x->mu);
	while (!x->surveyed)
		pthread_cond_wait(&x->surveyed_cv, &x->mu);
	pthread_mutex_unlock(&x->mu);
	if (x->vret || x->v.dirty)
		return;
	if (j == 0)
		x->base_ret = sim_one(&x->v, x->ones, &x->base, NULL);
	else if (!x->pret[j - 1])
		x->rret[j - 1] = sim_one(&x->v, x->pf[j - 1],
					 &x->rp[j - 1].after, &x->rp[j - 1]);
}

/* The fixed graph's pass, unless the other worker took it. */
static void each_fixed(struct each *x)
{
	struct cp_stream_opts o = *x->o;
	char err[256];

	if (atomic_exchange(&x->fixed_taken, true))
		return;
	o.lanes = x->sc;
	o.nlanes = x->n;
	x->fret = cp_stream_run(&x->s, x->ix, &o, err, sizeof(err));
}

/* A worker: the survey (@surveys) or the fixed graph's pass first, then
 * replays while any is left, then the fixed graph's pass if the other
 * worker has not taken it. */
static void each_work(struct each *x, bool surveys)
{
	uint32_t j;

	if (surveys)
		each_survey(x);
	else
		each_fixed(x);
	while ((j = atomic_fetch_add(&x->next_r, 1)) <= x->n)
		each_replay(x, j);
	each_fixed(x);
}

static void each_replays_first(void *arg)
{
	each_work(arg, true);
}

static void each_fixed_first(void *arg)
{
	each_work(arg, false);
}

/* Scaling @i's result into @r; returns what cp_stream_whatif_run would
 * (the fixed graph's failure first). */
static int each_result(struct each *x, uint32_t i, struct cp_whatif_result *r)
{
	const struct cp_stream *s = &x->s;
	struct cp_sreplay *rp = &x->rp[i];
	int ret = x->fret ? x->fret : !s->lane_known[i] ? CP_STREAM_NO_PROC :
		  x->vret ? -1 : x->v.dirty ? 0 : x->pret[i] ? x->pret[i] :
		  x->base_ret ? x->base_ret : x->rret[i];

	if (ret)
		return ret;
	rp->before = x->base;
	rp->clean = !x->v.dirty;
	if (x->v.dirty)
		snprintf(rp->why, sizeof(rp->why), "%s", x->v.why);
	whatif_result(s, s->lane_len[i], s->lane_ns[i], rp, r);
	return 0;
}

int cp_stream_whatif_each(struct cp_tindex *ix,
			  const struct cp_stream_opts *so, const uint32_t *sid0,
			  const struct cp_whatif_scale *sc, uint32_t n,
			  struct cp_whatif_result *r, int *ret)
{
	/* what cpt whatif --stream asks: the lengths only */
	struct cp_stream_opts o = {
		.exclusive = so->exclusive, .src = so->src,
		.symbolize = so->symbolize,
		.symbolize_ctx = so->symbolize_ctx,
		.progress = so->progress, .progress_ctx = so->progress_ctx,
		.lengths_only = true, .nscale = 1,
	};
	struct each x = { .ix = ix, .o = &o, .sc = sc, .n = n,
			  .v = { .ix = ix, .nt = ix->t.nthreads } };
	bool take_over = samples_take_over(ix, so);
	uint32_t *sid = NULL;
	char err[256];
	int rc = -1;

	if (!n)
		return 0;
	/* the samples' stacks, if they take over: given, or symbolized
	 * once here */
	if (sid0) {
		o.symbolize = cp_stream_sid_copy;
		o.symbolize_ctx = (void *)sid0;
	} else if (so->symbolize && take_over) {
		if (so->symbolize(so->symbolize_ctx, &ix->t, &sid, err,
				  sizeof(err)))
			return -1;
		o.symbolize = cp_stream_sid_copy;
		o.symbolize_ctx = sid;
	}
	/* the replays' stacks as cp_stream_whatif_run's: the samples' when
	 * they take over and were symbolized */
	if (take_over && o.symbolize == cp_stream_sid_copy) {
		x.v.sid = o.symbolize_ctx;
		x.v.drop = so->src == CP_STREAM_SRC_SAMPLED;
	}
	x.v.sp = (struct sp){ .ix = ix, .s = &x.v.names,
			      .excl = so->exclusive, .freel = NONE };
	x.pf = calloc(n, sizeof(*x.pf));
	x.pret = calloc(n, sizeof(*x.pret));
	x.rp = calloc(n, sizeof(*x.rp));
	x.rret = calloc(n, sizeof(*x.rret));
	if (!x.pf || !x.pret || !x.rp || !x.rret)
		goto out;
	pthread_mutex_init(&x.mu, NULL);
	pthread_cond_init(&x.surveyed_cv, NULL);
	atomic_init(&x.next_r, 0);
	atomic_init(&x.fixed_taken, false);
	/* run alone (a small trace), the first job surveys before any
	 * replay waits for it */
	cp_par_two(ix->t.nevents, each_replays_first, &x, each_fixed_first,
		   &x);
	pthread_cond_destroy(&x.surveyed_cv);
	pthread_mutex_destroy(&x.mu);
	for (uint32_t i = 0; i < n; i++)
		ret[i] = each_result(&x, i, &r[i]);
	if (!x.fret)
		cp_stream_free(&x.s);
	rc = 0;
out:
	for (uint32_t i = 0; x.pf && i < n; i++)
		free(x.pf[i]);
	free(x.pf);
	free(x.pret);
	free(x.rp);
	free(x.rret);
	free(x.ones);
	srv_free(&x.v);
	free(sid);
	return rc;
}
