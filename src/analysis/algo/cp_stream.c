/*
 * cp_stream.c - the out-of-core analysis (cp_stream.h): the runtime's
 * online algorithm ([Hollingsworth98, §2.2-2.4], doc/design.md §3) replayed
 * offline over the trace file, which is its own spill.
 *
 * The graph.  cp_tracepag.c draws, per thread, a segment into each vertex
 * weighing its dt (zero when the vertex has CP_EVF_WAIT), and zero-weight
 * dependencies PUBLISH(obj, seq) -> every CONSUME whose range holds seq
 * (through a hub for ranges of two or more: the same lengths),
 * THREAD_CREATE -> the child's THREAD_START, the child's last vertex ->
 * THREAD_JOIN, source -> first vertices, last vertices -> sink.  The
 * longest path ending at a vertex is then the max over its in-edges, and
 * the critical path the max over the threads' last vertices.
 *
 * The pass.  Each thread has a cursor (cp_tcursor.h) and a path record:
 * len (longest path ending at its current vertex), share[i] (the time of
 * tracked procedure i on that path, inclusive: a segment counts for every
 * procedure on the stack, once; exclusive: for the innermost frame's) and
 * net[i] (the longest path ending there with procedure i's segments
 * weighing zero).  A thread advances vertex by
 * vertex: a useful segment of w adds w to len, to share[i] of the
 * procedures on its stack and to net[i] of the others; a wait adds
 * nothing.  A vertex with dependencies runs only once they have been
 * processed: a CONSUME's PUBLISHes, a THREAD_START's CREATE, a JOIN's
 * child's end.  It then merges the records they left: len and share from
 * the longer (ties: the thread's own), net element-wise max.  A PUBLISH
 * leaves a copy of the thread's record for (obj, seq); a CREATE one for
 * the child; a thread's end its final record for its joiners.  So every
 * vertex gets the in-memory CPM's longest path; the critical path's share
 * vector is that of the thread whose last vertex is longest (exact when
 * the critical path is unique), and CP zeroing of i is the length minus
 * the max of the threads' final net[i].
 *
 * Net is kept as d[i] = len - net[i], which a segment changes exactly as
 * it changes share[i]; so a segment costs O(1) (its time is added to a
 * pending sum) and the pending time is spread over the procedures on the
 * stack only when the stack or the record changes: O(tracked) per ENTER,
 * LEAVE, PUBLISH and merge.
 *
 * The schedule.  Runnable threads wait in a heap by the wall clock of
 * their next vertex (then tid), so the pass follows the recorded order and
 * a consumer runs soon after its producer; a thread runs until it blocks
 * or passes the heap's top.  A blocked thread is looked at again when the
 * object or thread it waits for moves.  If every thread left is blocked,
 * the trace does not hold what they wait for (a cut or damaged trace: a
 * CONSUME whose PUBLISH was lost, a START nobody created): a census pass,
 * made then and only then, finds the sequences and creations the file
 * holds (a bit per sequence), and the vertices waiting for others depend
 * on nothing, as the reader's salvage makes them; if none is, the
 * dependencies form a cycle and the earliest blocked vertex goes.
 *
 * Freeing publish records.  A record of (obj, seq) is dead once no later
 * CONSUME holds seq.  Counting the consumers of every sequence would cost
 * memory per publish, so a first pass (the survey, which also totals the
 * procedures' times to choose the tracked ones) runs the same schedule
 * without records and measures, per object, the largest lag of a CONSUME:
 * the object's highest sequence published so far minus the CONSUME's low
 * end.  The schedule depends only on the trace, so the second pass sees
 * the same order, and a record whose seq + lag is below the object's
 * highest published sequence can never be consumed again: it is freed.
 * Both passes decide "runnable?" from the same set of sequences published
 * (a watermark per object and the few published above it out of order),
 * so they block and run the same vertices; the records a CONSUME merges
 * are still there, since its low end is at least the object's highest
 * sequence then minus the lag (a cp_die says otherwise).
 * Mutexes, spins, items and semaphores whose waiter keeps up have lag 0
 * or 1 (one record per object alive); condition broadcasts lag by the
 * waiters that consume one signal, a barrier by its count (its departures
 * consume the episode's range), an rwlock by the unlocks since its last
 * write unlock (folded, below); a semaphore posted far ahead of its waits
 * keeps the tokens outstanding, as the program did.
 *
 * Folding.  An rwlock's write lock consumes its last write unlock and
 * every read unlock since, however many: the lag rule would keep a record
 * per read between two writes.  The survey also checks, per object, that
 * every CONSUME lands (its low end) on lo_max, the highest landing so far,
 * or on m + 1, the first sequence after the highest published when the
 * previous CONSUME ran, and that every range of two or more ends at the
 * highest published (mutexes, spins and rwlocks do; barriers, broadcasts
 * and semaphores need not).  Then every later landing is lo_max, m + 1 or
 * a sequence not yet published, and every range holds all that was
 * published since its landing: a record below lo_max is dead, and those
 * in (lo_max, m] and above m + 1 are only ever consumed all together, so
 * each group is folded into one record (agg1, agg2: len and share of the
 * longest, net element-wise max), and lo_max and m + 1 keep their own.
 *
 * Memory is O(threads x tracked + objects x (lag + 1) x tracked), none of
 * it per event; cp_stream.live_max measures it (a cut trace adds the
 * census, a bit per sequence published).
 *
 * Cost: two passes over the events, O(1) per vertex plus O(log threads)
 * per switch of thread and O(tracked) per record operation.
 */
#include "cp_stream.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_debug.h"
#include "cp_die.h"
#include "cp_grow.h"
#include "cp_hash.h"
#include "cp_symbolize.h"

/* Debug invariants: type-checked always, run when this is true. */
static const bool cp_stream_debug = CP_DEBUG;

#define NONE UINT32_MAX

enum { ST_READY, ST_BLOCKED, ST_DONE };

/* A procedure or region open on a thread's stack. */
struct frame {
	uint64_t tag;		/* 0: ENTER; region id + 1: a region */
	uint32_t proc;
	bool first;		/* the procedure was not on the stack yet */
	uint64_t u0;		/* (survey) the thread's useful time then */
};

/* A thread of the pass. */
struct sth {
	struct cp_tcursor cur;
	struct cp_tvert nx;	/* the next vertex, not yet processed */
	uint64_t key;		/* its wall clock: the heap key */
	uint64_t nvi;		/* its index in the thread */
	uint8_t state;
	bool any;		/* a vertex was processed */
	uint64_t prev_ts, first_wall, last_wall;
	uint64_t len;		/* longest path ending at the last vertex */
	uint64_t pending;	/* useful time not spread over share/d yet */
	uint64_t useful;	/* all useful time so far */
	uint64_t mark;		/* (survey, exclusive) useful time when the
				 * stack's top last changed */
	uint64_t *vec;		/* [2 * ntr]: share[], then d[] */
	struct frame *fr;
	uint64_t depth, cap_fr;
	uint32_t *cnt;		/* [cap_cnt] frames open per procedure */
	uint32_t cap_cnt;
	uint32_t *act;		/* [nact] tracked indices on the stack */
	uint32_t nact;
	bool created;		/* its creator's CREATE was processed */
	uint32_t create_rec;	/* the record it left (records pass) */
	uint32_t wait_obj;	/* what it is blocked on: object, or NONE */
	uint32_t wait_c;	/* a CONSUME's sequences before lo + wait_c
				 * were found (they stay) */
};

/* An object of the pass. */
struct sobj {
	uint64_t smax;		/* highest sequence published so far */
	uint64_t lag;		/* (from the survey) largest CONSUME lag */
	uint64_t w;		/* (survey) 1..w are all published */
	uint64_t *pend;		/* (survey) published sequences above w */
	uint32_t npend, cap_pend;
	uint32_t *ring;		/* (records) records in publish order */
	uint32_t cap, head, n;
	uint64_t *bits;		/* (census) sequences the file publishes */
	uint64_t nbits;		/* words at @bits */
	bool nofold;		/* (from the survey) its CONSUMEs break the
				 * folding rule ("Folding") */
	uint64_t lo_max;	/* highest CONSUME low end so far */
	uint64_t m;		/* smax when the last CONSUME ran */
	uint32_t agg1;		/* (records) 1 + the record folding every
				 * sequence in (lo_max, m], or 0 */
	uint32_t agg2;		/* (records) the same for those above
				 * m + 1 */
};

/* One run: both passes' state. */
struct sp {
	struct cp_tindex *ix;
	struct cp_stream *s;
	bool records;		/* second pass: keep path records */
	bool hasw;
	uint32_t nt;
	struct sth *th;		/* [nt] */
	struct sobj *obj;
	uint32_t nobj;
	uint32_t *heap, nheap;
	uint32_t *blocked, nblocked;
	/* procedures: names interned as cp_tracepag.c does */
	char **pname;
	uint32_t cap_procs;
	struct cp_smap names;
	struct cp_map2 procmap;	/* (addr, 0) / (region id, 1) -> proc */
	uint32_t ntr;		/* tracked procedures */
	uint32_t *trk;		/* [nprocs] tracked index, or NONE */
	/* publish records */
	uint64_t *rlen, *rseq;	/* [nrec] a record's len and sequence */
	uint64_t *rvec;		/* [nrec * 2 * ntr] its share[], d[] */
	uint32_t *rnext;	/* [nrec] next free record */
	uint32_t nrec, caprec, freel;
	uint64_t live;		/* records alive */
	uint64_t done;		/* vertices processed in this pass */
	bool *made;		/* (census) [nt] a CREATE of the thread */
	bool excl;		/* exclusive procedure times */
	void (*progress)(void *ctx, const char *phase, double frac);
	void *progress_ctx;
};

/* ---- procedures ---------------------------------------------------- */

/* Procedure id of @name, interned; NONE when out of memory. */
static uint32_t intern(struct sp *p, const char *name)
{
	struct cp_stream *s = p->s;
	uint32_t id = cp_smap_get(&p->names, p->pname, name);
	uint32_t cap = p->cap_procs;

	if (id != CP_HASH_NONE)
		return id;
	if (cp_grow32((void **)&p->pname, sizeof(*p->pname), &cap,
		      s->nprocs + 1))
		return NONE;
	cap = p->cap_procs;
	if (cp_grow32((void **)&s->procs, sizeof(*s->procs), &cap,
		      s->nprocs + 1))
		return NONE;
	p->cap_procs = cap;
	id = s->nprocs;
	p->pname[id] = strdup(name);
	if (!p->pname[id])
		return NONE;
	s->procs[id] = (struct cp_stream_proc){ .name = p->pname[id] };
	s->nprocs++;
	if (cp_smap_add(&p->names, p->pname, id))
		return NONE;
	return id;
}

/*
 * The procedure an ENTER or REGION_BEGIN opens, named as cp_tracepag.c
 * names it from the trace's own tables (SYMBOLS, demangled; STRINGS).
 * NONE when out of memory.
 */
static uint32_t proc_of(struct sp *p, const struct cp_tvert *v)
{
	bool region = cp_tvert_kind(v) == CP_EV_REGION_BEGIN;
	uint32_t id = cp_map2_get(&p->procmap, v->arg, region);
	const char *name;
	char buf[40], *dm = NULL;

	if (id != CP_HASH_NONE)
		return id;
	if (region) {
		name = cp_trace_string(&p->ix->t, (uint32_t)v->arg);
		if (!name) {
			snprintf(buf, sizeof(buf), "region %" PRIu64, v->arg);
			name = buf;
		}
	} else {
		name = cp_trace_sym_name(&p->ix->t, v->arg, buf, sizeof(buf));
		dm = cp_symbolize_demangle(name);
	}
	id = intern(p, dm ? dm : name);
	free(dm);
	if (id == NONE || cp_map2_put(&p->procmap, v->arg, region, id))
		return NONE;
	return id;
}

/* ---- path records ------------------------------------------------- */

/* Spread @t's pending useful time over the tracked procedures on its
 * stack: their share and d (= len - net) grow by it. */
static void flush(struct sp *p, struct sth *t)
{
	uint64_t w = t->pending;

	for (uint32_t i = 0; w && i < t->nact; i++) {
		t->vec[t->act[i]] += w;
		t->vec[p->ntr + t->act[i]] += w;
	}
	t->pending = 0;
}

/*
 * Merge into the record @len, @vec (of @n tracked procedures) the record
 * @len2, @vec2 of a dependency edge of weight zero: len and share from the
 * longer (ties: the first's own), net element-wise max.  merge(): into
 * thread @t (flushed).
 */
static void merge_into(uint32_t n, uint64_t *len, uint64_t *vec,
		       uint64_t len2, const uint64_t *vec2)
{
	uint64_t nl = len2 > *len ? len2 : *len;

	for (uint32_t k = 0; k < n; k++) {
		uint64_t a = *len - vec[n + k], b = len2 - vec2[n + k];

		vec[n + k] = nl - (a > b ? a : b);
	}
	if (len2 > *len && n)
		memcpy(vec, vec2, n * sizeof(*vec));
	*len = nl;
}

static void merge(struct sp *p, struct sth *t, uint64_t len,
		  const uint64_t *vec)
{
	merge_into(p->ntr, &t->len, t->vec, len, vec);
}

/* A copy of @t's record (flushed), for sequence @seq; NONE: no memory. */
static uint32_t rec_new(struct sp *p, const struct sth *t, uint64_t seq)
{
	size_t vn = 2 * (size_t)p->ntr;
	uint32_t r = p->freel;

	if (r != NONE) {
		p->freel = p->rnext[r];
	} else {
		uint32_t c = p->caprec, c2 = c, c3 = c, c4 = c;

		if (cp_grow32((void **)&p->rlen, 8, &c, p->nrec + 1) ||
		    cp_grow32((void **)&p->rseq, 8, &c2, p->nrec + 1) ||
		    cp_grow32((void **)&p->rnext, 4, &c3, p->nrec + 1) ||
		    cp_grow32((void **)&p->rvec, 8 * (vn ? vn : 1), &c4,
			      p->nrec + 1))
			return NONE;
		p->caprec = c;
		r = p->nrec++;
	}
	p->rlen[r] = t->len;
	p->rseq[r] = seq;
	if (vn)
		memcpy(p->rvec + r * vn, t->vec, vn * sizeof(*t->vec));
	p->s->records++;
	if (++p->live > p->s->live_max)
		p->s->live_max = p->live;
	return r;
}

static void rec_free(struct sp *p, uint32_t r)
{
	p->rnext[r] = p->freel;
	p->freel = r;
	p->live--;
}

/* Merge record @r into record @a and free it. */
static void rec_fold(struct sp *p, uint32_t a, uint32_t r)
{
	size_t vn = 2 * (size_t)p->ntr;

	merge_into(p->ntr, &p->rlen[a], p->rvec + a * vn, p->rlen[r],
		   p->rvec + r * vn);
	rec_free(p, r);
}

/* Merge record @r into @t and, if @drop, free it. */
static void rec_merge(struct sp *p, struct sth *t, uint32_t r, bool drop)
{
	merge(p, t, p->rlen[r], p->rvec + r * 2 * (size_t)p->ntr);
	if (drop)
		rec_free(p, r);
}

/* ---- objects ------------------------------------------------------- */

/* Object @id's state, the table grown to hold it; NULL: no memory. */
static struct sobj *obj_at(struct sp *p, uint32_t id)
{
	if (id >= p->nobj) {
		uint32_t n = p->nobj ? p->nobj : 16;
		struct sobj *o;

		while (n <= id)
			n = n > UINT32_MAX / 2 ? UINT32_MAX : 2 * n;
		o = realloc(p->obj, (size_t)n * sizeof(*o));
		if (!o)
			return NULL;
		memset(o + p->nobj, 0, (size_t)(n - p->nobj) * sizeof(*o));
		p->obj = o;
		p->nobj = n;
	}
	return &p->obj[id];
}

/* The record of @seq among @o's, or NONE. */
static uint32_t rec_find(const struct sp *p, const struct sobj *o,
			 uint64_t seq)
{
	uint64_t s0;

	if (!o->n)
		return NONE;
	s0 = p->rseq[o->ring[o->head]];
	if (seq >= s0 && seq - s0 < o->n) {
		uint32_t r = o->ring[(o->head + (seq - s0)) % o->cap];

		if (p->rseq[r] == seq)
			return r;
	}
	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t r = o->ring[(o->head + i) % o->cap];

		if (p->rseq[r] == seq)
			return r;
	}
	return NONE;
}

/* Append record @r to @o's ring.  0, or -1 (memory). */
static int ring_push(struct sobj *o, uint32_t r)
{
	if (o->n == o->cap) {
		uint32_t nc = o->cap ? 2 * o->cap : 4;
		uint32_t *nr = malloc(nc * sizeof(*nr));

		if (!nr)
			return -1;
		for (uint32_t i = 0; i < o->n; i++)
			nr[i] = o->ring[(o->head + i) % o->cap];
		free(o->ring);
		o->ring = nr;
		o->cap = nc;
		o->head = 0;
	}
	o->ring[(o->head + o->n++) % o->cap] = r;
	return 0;
}

/*
 * Free @o's records that no later CONSUME can hold: seq + lag below the
 * highest sequence published (cp_stream.c, "Freeing publish records").
 * Records published out of order wait behind the oldest, which is late
 * but never early.
 */
static void ring_trim(struct sp *p, struct sobj *o)
{
	while (o->n && p->rseq[o->ring[o->head]] + o->lag < o->smax) {
		rec_free(p, o->ring[o->head]);
		o->head = (o->head + 1) % o->cap;
		o->n--;
	}
}

/* (survey) Has @o's sequence @seq been published? */
static bool seen(const struct sobj *o, uint64_t seq)
{
	if (seq <= o->w)
		return true;
	for (uint32_t i = 0; i < o->npend; i++)
		if (o->pend[i] == seq)
			return true;
	return false;
}

/* (survey) Note that @o's @seq is published.  0, or -1 (memory). */
static int see(struct sobj *o, uint64_t seq)
{
	if (seq != o->w + 1) {
		if (cp_grow32((void **)&o->pend, sizeof(*o->pend),
			      &o->cap_pend, o->npend + 1))
			return -1;
		o->pend[o->npend++] = seq;
		return 0;
	}
	o->w++;
	for (uint32_t i = 0; i < o->npend; i++) {
		if (o->pend[i] != o->w + 1)
			continue;
		o->pend[i--] = o->pend[--o->npend];
		o->w++;
		i = UINT32_MAX;	/* look again from the start */
	}
	return 0;
}

/* ---- calling contexts ---------------------------------------------- */

/*
 * Exclusive times: the stack's top is about to change.  The survey charges
 * the time since it last changed to the top's procedure; the records pass
 * spreads the pending time over the top, the only procedure followed.
 */
static void excl_charge(struct sp *p, struct sth *t)
{
	if (p->records) {
		flush(p, t);
	} else {
		if (t->depth)
			p->s->procs[t->fr[t->depth - 1].proc].cpu_ns +=
				t->useful - t->mark;
		t->mark = t->useful;
	}
}

/* Exclusive times, records pass: the stack's top changed. */
static void excl_top(struct sp *p, struct sth *t)
{
	t->nact = 0;
	if (t->depth && p->trk[t->fr[t->depth - 1].proc] != NONE)
		t->act[t->nact++] = p->trk[t->fr[t->depth - 1].proc];
}

/* Open a frame of @proc (@tag as struct frame) on @t.  0, or -1. */
static int push(struct sp *p, struct sth *t, uint64_t tag, uint32_t proc)
{
	struct frame *f;
	uint32_t c = t->cap_cnt;

	if (cp_grow((void **)&t->fr, sizeof(*t->fr), &t->cap_fr,
		    t->depth + 1) ||
	    cp_grow32((void **)&t->cnt, sizeof(*t->cnt), &c, proc + 1ull))
		return -1;
	if (c > t->cap_cnt)
		memset(t->cnt + t->cap_cnt, 0,
		       (c - t->cap_cnt) * sizeof(*t->cnt));
	t->cap_cnt = c;
	if (p->excl)
		excl_charge(p, t);
	f = &t->fr[t->depth++];
	f->tag = tag;
	f->proc = proc;
	f->first = t->cnt[proc]++ == 0;
	f->u0 = t->useful;
	if (!p->records)
		p->s->procs[proc].calls++;
	if (p->excl && p->records) {
		excl_top(p, t);
	} else if (!p->excl && p->records && f->first &&
		   p->trk[proc] != NONE) {
		flush(p, t);
		t->act[t->nact++] = p->trk[proc];
	}
	return 0;
}

/* Close @t's innermost frame. */
static void pop(struct sp *p, struct sth *t)
{
	const struct frame *f;
	uint32_t k;

	if (p->excl)
		excl_charge(p, t);
	f = &t->fr[--t->depth];
	t->cnt[f->proc]--;
	if (p->excl) {
		if (p->records)
			excl_top(p, t);
		return;
	}
	if (!f->first)
		return;
	if (!p->records) {
		p->s->procs[f->proc].cpu_ns += t->useful - f->u0;
		return;
	}
	k = p->trk[f->proc];
	if (k == NONE)
		return;
	flush(p, t);
	for (uint32_t i = 0; i < t->nact; i++)
		if (t->act[i] == k) {
			t->act[i] = t->act[--t->nact];
			break;
		}
}

/*
 * The stack change of vertex @v, as cp_tracepag.c's thread_segments: LEAVE
 * closes the innermost ENTER and the regions opened inside it, REGION_END
 * its region and what was opened inside; either closes everything when
 * there is nothing to match.  0, or -1 (memory).
 */
static int calls(struct sp *p, struct sth *t, const struct cp_tvert *v)
{
	unsigned kind = cp_tvert_kind(v);
	uint64_t j, tag;
	uint32_t proc;

	switch (kind) {
	case CP_EV_ENTER:
	case CP_EV_REGION_BEGIN:
		proc = proc_of(p, v);
		tag = kind == CP_EV_ENTER ? 0 : v->arg + 1;
		return proc == NONE ? -1 : push(p, t, tag, proc);
	case CP_EV_LEAVE:
		for (j = t->depth; j > 0 && t->fr[j - 1].tag; j--)
			;
		break;
	case CP_EV_REGION_END:
		for (j = t->depth; j > 0 && t->fr[j - 1].tag != v->arg + 1; j--)
			;
		break;
	default:
		return 0;
	}
	j = j ? j - 1 : 0;
	while (t->depth > j)
		pop(p, t);
	return 0;
}

/* ---- the schedule --------------------------------------------------- */

/* Does thread @a run before thread @b (next vertex's wall clock, tid)? */
static bool before(const struct sp *p, uint32_t a, uint32_t b)
{
	const struct sth *x = &p->th[a], *y = &p->th[b];

	return x->key != y->key ? x->key < y->key : a < b;
}

static void heap_push(struct sp *p, uint32_t tid)
{
	uint32_t i = p->nheap++;

	while (i && before(p, tid, p->heap[(i - 1) / 2])) {
		p->heap[i] = p->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	p->heap[i] = tid;
}

static uint32_t heap_pop(struct sp *p)
{
	uint32_t top = p->heap[0], last = p->heap[--p->nheap], i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= p->nheap)
			break;
		if (c + 1 < p->nheap && before(p, p->heap[c + 1], p->heap[c]))
			c++;
		if (!before(p, p->heap[c], last))
			break;
		p->heap[i] = p->heap[c];
		i = c;
	}
	if (p->nheap)
		p->heap[i] = last;
	return top;
}

/*
 * Have the dependencies of @t's next vertex been processed?  If not,
 * t->wait_obj says what will change that: the object, or NONE (a thread's
 * creation or end).
 */
static bool ready(struct sp *p, struct sth *t)
{
	const struct cp_tvert *v = &t->nx;
	uint32_t c;

	switch (cp_tvert_kind(v)) {
	case CP_EV_CONSUME:
		t->wait_obj = v->obj;
		for (c = t->wait_c; c < v->cnt; c++) {
			const struct sobj *o = v->obj < p->nobj ?
					       &p->obj[v->obj] : NULL;

			if (!o || !seen(o, v->arg + c)) {
				t->wait_c = c;
				return false;
			}
		}
		return true;
	case CP_EV_THREAD_START:
		t->wait_obj = NONE;
		return !v->arg || v->arg - 1 >= p->nt || t->created;
	case CP_EV_THREAD_JOIN:
		t->wait_obj = NONE;
		return v->arg >= p->nt || p->th[v->arg].state == ST_DONE ||
		       &p->th[v->arg] == t;
	default:
		return true;
	}
}

/* Threads blocked on @obj (NONE: on a thread) whose vertex is now ready
 * go back to the heap. */
static void wake(struct sp *p, uint32_t obj)
{
	for (uint32_t i = 0; i < p->nblocked; i++) {
		uint32_t tid = p->blocked[i];
		struct sth *t = &p->th[tid];

		if (t->wait_obj != obj || !ready(p, t))
			continue;
		p->blocked[i--] = p->blocked[--p->nblocked];
		t->state = ST_READY;
		heap_push(p, tid);
	}
}

/* ---- the census (damaged traces only) ------------------------------ */

/* Note that @obj's @seq is published in the file.  0, or -1 (memory). */
static int census_pub(struct sp *p, uint32_t obj, uint64_t seq)
{
	struct sobj *o = obj_at(p, obj);
	uint64_t w = seq >> 6, n;
	uint64_t *b;

	if (!o)
		return -1;
	if (w >= o->nbits) {
		for (n = o->nbits ? o->nbits : 1; n <= w; n *= 2)
			;
		b = realloc(o->bits, n * sizeof(*b));
		if (!b)
			return -1;
		memset(b + o->nbits, 0, (n - o->nbits) * sizeof(*b));
		o->bits = b;
		o->nbits = n;
	}
	o->bits[w] |= 1ull << (seq & 63);
	return 0;
}

/* Does the file publish @obj's @seq (census)? */
static bool census_has(const struct sp *p, uint32_t obj, uint64_t seq)
{
	const struct sobj *o = obj < p->nobj ? &p->obj[obj] : NULL;

	return o && (seq >> 6) < o->nbits &&
	       ((o->bits[seq >> 6] >> (seq & 63)) & 1);
}

/*
 * The census: which sequences and thread creations the whole file holds,
 * read in a pass of its own the first time every thread left is blocked
 * (a damaged or cut trace; a whole one never blocks for good).  A bit per
 * sequence up to each object's highest, a flag per thread.  0, or -1.
 */
static int census(struct sp *p)
{
	struct cp_tcursor c;
	struct cp_tvert v;
	uint64_t wall;

	p->made = calloc(p->nt ? p->nt : 1, sizeof(*p->made));
	if (!p->made)
		return -1;
	for (uint32_t tid = 0; tid < p->nt; tid++) {
		cp_tcursor_init(&c, p->ix, tid, false);
		while (cp_tcursor_next(&c, &v, &wall)) {
			unsigned k = cp_tvert_kind(&v);

			if (k == CP_EV_PUBLISH && census_pub(p, v.obj, v.arg)) {
				cp_tcursor_fini(&c);
				return -1;
			}
			if (k == CP_EV_THREAD_CREATE && v.arg < p->nt)
				p->made[v.arg] = true;
		}
		cp_tcursor_fini(&c);
	}
	return 0;
}

/* Does @tid's next vertex wait for what the file does not hold? */
static bool missing(const struct sp *p, uint32_t tid)
{
	const struct cp_tvert *v = &p->th[tid].nx;

	switch (cp_tvert_kind(v)) {
	case CP_EV_CONSUME:
		for (uint32_t c = 0; c < v->cnt; c++)
			if (!census_has(p, v->obj, v->arg + c))
				return true;
		return false;
	case CP_EV_THREAD_START:
		return !p->made[tid];
	default:
		return false;
	}
}

/* Blocked thread @i (index in p->blocked) goes on with its vertex made to
 * depend on nothing (cp_trd_inert), counted once. */
static void force(struct sp *p, uint32_t i)
{
	uint32_t tid = p->blocked[i];

	p->blocked[i] = p->blocked[--p->nblocked];
	cp_trd_inert(&p->th[tid].nx);
	p->th[tid].state = ST_READY;
	heap_push(p, tid);
	if (!p->records)
		p->s->nrepairs++;
}

/*
 * Every thread left is blocked: the trace does not hold what they wait
 * for (the reader's salvage: a CONSUME whose PUBLISH was lost, a START
 * nobody created, depends on nothing), found by the census; or its
 * dependencies form a cycle, and the earliest blocked vertex goes.  The
 * same in both passes.  0, or -1 (memory).
 */
static int unstick(struct sp *p)
{
	uint32_t best = 0, n = p->nblocked;

	if (!p->made && census(p))
		return -1;
	for (uint32_t i = 0; i < p->nblocked; i++)
		if (missing(p, p->blocked[i]))
			force(p, i--);
	if (p->nblocked < n)
		return 0;
	for (uint32_t i = 1; i < p->nblocked; i++)
		if (before(p, p->blocked[i], p->blocked[best]))
			best = i;
	force(p, best);
	return 0;
}

/*
 * The pass's invariants at its end: every thread done, nothing blocked,
 * every live record in some object's ring or a create record, net never
 * above len.  Dies on a violation; a no-op unless debugging.
 */
static void cp_stream_assert(const struct sp *p)
{
	uint64_t held = 0;

	if (!cp_stream_debug)
		return;
	if (p->nheap || p->nblocked)
		cp_die("stream: threads left");
	for (uint32_t i = 0; i < p->nobj; i++)
		held += p->obj[i].n + (p->obj[i].agg1 != 0) +
			(p->obj[i].agg2 != 0);
	for (uint32_t tid = 0; tid < p->nt; tid++) {
		const struct sth *t = &p->th[tid];

		if (t->state != ST_DONE)
			cp_die("stream: a thread did not end");
		held += t->create_rec != NONE;
		for (uint32_t k = 0; k < p->ntr; k++)
			if (t->vec[p->ntr + k] > t->len)
				cp_die("stream: net above len");
	}
	if (held != p->live)
		cp_die("stream: records lost");
}

/* ---- folding ------------------------------------------------------ */

/*
 * Where sequence @q of @o is folded: agg1 for (lo_max, m], agg2 above
 * m + 1; NULL when it has a record of its own (lo_max, m + 1; any
 * sequence of an object that does not fold).
 */
static uint32_t *fold_slot(struct sobj *o, uint64_t q)
{
	if (o->nofold || q <= o->lo_max || q == o->m + 1)
		return NULL;
	return q <= o->m ? &o->agg1 : &o->agg2;
}

/*
 * Merge into @t (flushed) the records of @o's sequences lo .. lo+cnt-1:
 * each one's own, or once the aggregate of those folded.  The freeing
 * and folding rules keep every one a CONSUME can still hold.
 */
static void consume_records(struct sp *p, struct sth *t, struct sobj *o,
			    uint64_t lo, uint32_t cnt)
{
	bool done1 = false, done2 = false;

	for (uint32_t i = 0; i < cnt; i++) {
		uint64_t q = lo + i;
		uint32_t *agg = fold_slot(o, q), r;
		bool *done = agg == &o->agg1 ? &done1 : &done2;

		if (agg) {
			if (!*agg)
				cp_die("stream: a folded record is missing");
			if (!*done)
				rec_merge(p, t, *agg - 1, false);
			*done = true;
			continue;
		}
		r = rec_find(p, o, q);
		if (r == NONE)
			cp_die("stream: a consumed record was freed");
		rec_merge(p, t, r, false);
	}
}

/*
 * Records pass, after a CONSUME of @o (lo_max and m moved): free the
 * records below lo_max and fold those in (lo_max, m] into the aggregate.
 */
static void fold(struct sp *p, struct sobj *o)
{
	uint32_t keep = 0;

	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t r = o->ring[(o->head + i) % o->cap];
		uint64_t q = p->rseq[r];

		if (q < o->lo_max) {
			rec_free(p, r);
		} else if (q > o->lo_max && q <= o->m && !o->agg1) {
			o->agg1 = r + 1;
		} else if (q > o->lo_max && q <= o->m) {
			rec_fold(p, o->agg1 - 1, r);
		} else {
			o->ring[(o->head + keep++) % o->cap] = r;
		}
	}
	o->n = keep;
}

/*
 * A CONSUME of @o with low end @lo and @cnt sequences ran (o->smax is the
 * highest published then).  The survey measures its lag and checks the
 * folding rule; both passes move lo_max and m; the records pass folds.
 */
static void consumed(struct sp *p, struct sobj *o, uint64_t lo, uint32_t cnt)
{
	if (!p->records) {
		if (o->smax - lo > o->lag)
			o->lag = o->smax - lo;
		if ((lo != o->lo_max && lo != o->m + 1) ||
		    (cnt > 1 && lo + cnt - 1 != o->smax))
			o->nofold = true;
	}
	if (p->records && !o->nofold) {
		if (lo > o->lo_max && o->agg1)	/* all below lo now */
			rec_free(p, o->agg1 - 1);
		if (lo > o->lo_max)
			o->agg1 = 0;
		if (!o->agg1) {
			o->agg1 = o->agg2;
		} else if (o->agg2) {
			rec_fold(p, o->agg1 - 1, o->agg2 - 1);
		}
		o->agg2 = 0;
	}
	if (lo > o->lo_max)
		o->lo_max = lo;
	o->m = o->smax;
	if (p->records && !o->nofold)
		fold(p, o);
}

/* ---- the pass ------------------------------------------------------ */

/* Decode @t's next vertex; false at the thread's end. */
static bool advance(struct sp *p, struct sth *t)
{
	uint64_t wall;

	if (!cp_tcursor_next(&t->cur, &t->nx, &wall))
		return false;
	t->wait_c = 0;
	t->key = p->hasw ? wall : t->nx.ts;
	t->nvi++;
	return true;
}

/* The dependency edges into @v: merge what they left (records pass).
 * @tid is @t's. */
static void deps(struct sp *p, uint32_t tid, struct sth *t,
		 const struct cp_tvert *v)
{
	uint32_t c = (uint32_t)v->arg;

	switch (cp_tvert_kind(v)) {
	case CP_EV_CONSUME:
		flush(p, t);
		consume_records(p, t, &p->obj[v->obj], v->arg, v->cnt);
		break;
	case CP_EV_THREAD_START:
		if (t->create_rec != NONE) {
			flush(p, t);
			rec_merge(p, t, t->create_rec, true);
			t->create_rec = NONE;
		}
		break;
	case CP_EV_THREAD_JOIN:
		if (v->arg < p->nt && c != tid) {
			flush(p, t);
			merge(p, t, p->th[c].len, p->th[c].vec);
		}
		break;
	default:
		break;
	}
}

/* PUBLISH: the survey notes the sequence, the records pass leaves a
 * record and frees the dead ones.  0, or -1 (memory). */
static int publish(struct sp *p, struct sth *t, const struct cp_tvert *v)
{
	struct sobj *o = obj_at(p, v->obj);
	uint32_t r;

	if (!o)
		return -1;
	if (v->arg > o->smax)
		o->smax = v->arg;
	if (see(o, v->arg))
		return -1;
	if (p->records) {
		flush(p, t);
		uint32_t *agg = fold_slot(o, v->arg);

		if (!o->nofold && v->arg < o->lo_max) {
			/* no CONSUME will hold it ("Folding") */
		} else if (agg && *agg) {
			merge_into(p->ntr, &p->rlen[*agg - 1],
				   p->rvec + (*agg - 1) * 2 * (size_t)p->ntr,
				   t->len, t->vec);
		} else {
			r = rec_new(p, t, v->arg);
			if (r == NONE)
				return -1;
			if (agg)
				*agg = r + 1;
			else if (ring_push(o, r))
				return -1;
			ring_trim(p, o);
		}
	}
	wake(p, v->obj);
	return 0;
}

/* CREATE of thread @c: leave it @t's record.  0, or -1 (memory). */
static int create(struct sp *p, struct sth *t, uint32_t c)
{
	struct sth *ch = &p->th[c];

	ch->created = true;
	if (p->records) {
		if (ch->create_rec != NONE)
			rec_free(p, ch->create_rec);
		flush(p, t);
		ch->create_rec = rec_new(p, t, 0);
		if (ch->create_rec == NONE)
			return -1;
	}
	wake(p, NONE);
	return 0;
}

/* Process @t's next vertex (ready) and decode the one after; the return
 * is advance()'s, or -1 when out of memory. */
static int step(struct sp *p, uint32_t tid, struct sth *t)
{
	struct cp_stream_thread *st = &p->s->threads[tid];
	const struct cp_tvert *v = &t->nx;

	if (t->any) {
		uint64_t dt = v->ts - t->prev_ts;

		if (cp_tvert_waits(v)) {
			st->wait_ns += p->records ? 0 : dt;
		} else {
			t->len += dt;
			t->pending += dt;
			t->useful += dt;
		}
	} else {
		t->first_wall = t->key;
	}
	t->any = true;
	t->prev_ts = v->ts;
	t->last_wall = t->key;
	if (p->progress && !(++p->done & ((1u << 20) - 1)))
		p->progress(p->progress_ctx, "streaming",
			    ((double)p->done / (double)(p->ix->t.nevents + 1) +
			     p->records) / 2);
	if (p->records)
		deps(p, tid, t, v);
	if (cp_tvert_kind(v) == CP_EV_CONSUME && v->cnt)
		consumed(p, &p->obj[v->obj], v->arg, v->cnt);
	if (cp_tvert_kind(v) == CP_EV_PUBLISH && publish(p, t, v))
		return -1;
	if (cp_tvert_kind(v) == CP_EV_THREAD_CREATE && v->arg < p->nt &&
	    v->arg != tid && create(p, t, (uint32_t)v->arg))
		return -1;
	if (calls(p, t, v))
		return -1;
	return advance(p, t);
}

/* @t has no more vertices: close its frames, keep its record for its
 * joiners. */
static void done(struct sp *p, uint32_t tid, struct sth *t)
{
	struct cp_stream_thread *st = &p->s->threads[tid];

	while (t->depth)
		pop(p, t);
	flush(p, t);
	cp_tcursor_fini(&t->cur);
	t->state = ST_DONE;
	st->tid = tid;
	st->name = p->ix->t.threads[tid].name;
	if (!p->records) {
		st->nv = t->nvi;
		st->useful_ns = t->useful;
		st->elapsed_ns = t->any ? t->last_wall - t->first_wall : 0;
	} else {
		st->len_ns = t->len;
	}
	wake(p, NONE);
}

/* Run @tid until it blocks, ends or passes the heap's top.  0, or -1. */
static int run_thread(struct sp *p, uint32_t tid)
{
	struct sth *t = &p->th[tid];
	int more = 1;

	for (;;) {
		if (!more) {
			done(p, tid, t);
			return 0;
		}
		if (!ready(p, t)) {
			if (cp_tvert_kind(&t->nx) == CP_EV_THREAD_START)
				cp_tcursor_park(&t->cur);
			t->state = ST_BLOCKED;
			p->blocked[p->nblocked++] = tid;
			return 0;
		}
		more = step(p, tid, t);
		if (more < 0)
			return -1;
		if (more && p->nheap && before(p, p->heap[0], tid)) {
			heap_push(p, tid);
			return 0;
		}
	}
}

/* Set up one pass over every thread's events.  0, or -1 (memory). */
static int pass_init(struct sp *p)
{
	size_t vn = 2 * (size_t)p->ntr;

	for (uint32_t tid = 0; tid < p->nt; tid++) {
		struct sth *t = &p->th[tid];

		cp_tcursor_fini(&t->cur);
		free(t->fr);
		free(t->cnt);
		free(t->vec);
		free(t->act);
		memset(t, 0, sizeof(*t));
		t->create_rec = NONE;
		t->vec = calloc(vn ? vn : 1, sizeof(*t->vec));
		t->act = calloc(p->ntr ? p->ntr : 1, sizeof(*t->act));
		if (!t->vec || !t->act)
			return -1;
		cp_tcursor_init(&t->cur, p->ix, tid, !p->records);
	}
	for (uint32_t i = 0; i < p->nobj; i++) {
		struct sobj *o = &p->obj[i];

		o->smax = o->w = o->lo_max = o->m = 0;
		o->npend = o->n = o->head = o->agg1 = o->agg2 = 0;
	}
	p->nheap = p->nblocked = 0;
	p->done = 0;
	for (uint32_t tid = 0; tid < p->nt; tid++) {
		struct sth *t = &p->th[tid];

		if (advance(p, t))
			heap_push(p, tid);
		else
			done(p, tid, t);
	}
	return 0;
}

/* One pass: the survey, or (p->records) the path records. */
static int run_pass(struct sp *p)
{
	if (pass_init(p))
		return -1;
	while (p->nheap || p->nblocked) {
		if (!p->nheap) {
			if (unstick(p))
				return -1;
			continue;
		}
		if (run_thread(p, heap_pop(p)))
			return -1;
	}
	return 0;
}

/* A procedure's useful time and id, sorted to choose the tracked. */
struct pick {
	uint64_t cpu_ns;
	uint32_t id;
};

static int by_cpu(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return x->id < y->id ? -1 : 1;
}

/* The CP_STREAM_TRACK procedures with the most useful time (survey).
 * 0, or -1 (memory). */
static int choose_tracked(struct sp *p)
{
	struct cp_stream *s = p->s;
	uint32_t n = s->nprocs ? s->nprocs : 1;
	struct pick *ord = malloc(n * sizeof(*ord));

	p->trk = malloc(n * sizeof(*p->trk));
	if (!ord || !p->trk) {
		free(ord);
		return -1;
	}
	for (uint32_t i = 0; i < s->nprocs; i++) {
		ord[i] = (struct pick){ s->procs[i].cpu_ns, i };
		p->trk[i] = NONE;
	}
	if (s->nprocs)
		qsort(ord, s->nprocs, sizeof(*ord), by_cpu);
	p->ntr = s->nprocs < CP_STREAM_TRACK ? s->nprocs : CP_STREAM_TRACK;
	for (uint32_t k = 0; k < p->ntr; k++) {
		p->trk[ord[k].id] = k;
		s->procs[ord[k].id].tracked = true;
	}
	s->ntracked = p->ntr;
	free(ord);
	return 0;
}

/* Output order of procedures: by CP time, then CPU time, then name. */
static int by_cp(const void *a, const void *b)
{
	const struct cp_stream_proc *x = a, *y = b;

	if (x->cp_ns != y->cp_ns)
		return x->cp_ns > y->cp_ns ? -1 : 1;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Totals, the critical path and the tracked procedures' figures from the
 * threads' final records. */
static void finish(struct sp *p)
{
	struct cp_stream *s = p->s;
	uint64_t first = UINT64_MAX, last = 0;
	bool found = false;

	for (uint32_t tid = 0; tid < p->nt; tid++) {
		const struct sth *t = &p->th[tid];

		s->useful_ns += s->threads[tid].useful_ns;
		s->wait_ns += s->threads[tid].wait_ns;
		s->nvertices += s->threads[tid].nv;
		if (!t->any)
			continue;
		s->nthreads++;
		if (!found || t->len > s->cp_len) {
			s->cp_len = t->len;
			s->cp_tid = tid;
			found = true;
		}
		if (t->first_wall < first)
			first = t->first_wall;
		if (t->last_wall > last)
			last = t->last_wall;
	}
	s->elapsed_ns = last > first ? last - first : 0;
	for (uint32_t i = 0; found && i < s->nprocs; i++) {
		uint32_t k = p->trk[i];
		uint64_t best = 0;

		if (k == NONE)
			continue;
		for (uint32_t tid = 0; tid < p->nt; tid++) {
			const struct sth *t = &p->th[tid];

			if (t->any && t->len - t->vec[p->ntr + k] > best)
				best = t->len - t->vec[p->ntr + k];
		}
		s->procs[i].cp_ns = p->th[s->cp_tid].vec[k];
		s->procs[i].zero_ns = s->cp_len - best;
	}
	if (s->nprocs)
		qsort(s->procs, s->nprocs, sizeof(*s->procs), by_cp);
}

/* The pass's own memory (the results stay in cp_stream). */
static void sp_free(struct sp *p)
{
	for (uint32_t tid = 0; p->th && tid < p->nt; tid++) {
		cp_tcursor_fini(&p->th[tid].cur);
		free(p->th[tid].fr);
		free(p->th[tid].cnt);
		free(p->th[tid].vec);
		free(p->th[tid].act);
	}
	for (uint32_t i = 0; i < p->nobj; i++) {
		free(p->obj[i].pend);
		free(p->obj[i].ring);
		free(p->obj[i].bits);
	}
	free(p->th);
	free(p->made);
	free(p->obj);
	free(p->heap);
	free(p->blocked);
	free(p->pname);
	free(p->trk);
	free(p->rlen);
	free(p->rseq);
	free(p->rnext);
	free(p->rvec);
	cp_smap_free(&p->names);
	cp_map2_free(&p->procmap);
}

int cp_stream_run(struct cp_stream *s, struct cp_tindex *ix,
		  const struct cp_stream_opts *o, char *err, size_t errlen)
{
	uint32_t nt = ix->t.nthreads;
	struct sp p = {
		.ix = ix, .s = s, .nt = nt, .freel = NONE,
		.excl = o && o->exclusive,
		.progress = o ? o->progress : NULL,
		.progress_ctx = o ? o->progress_ctx : NULL,
		.hasw = (ix->t.flags & CP_TRACE_HAS_WALL) != 0,
	};

	memset(s, 0, sizeof(*s));
	s->exclusive = p.excl;
	s->online_len = ix->t.online_len_ns;
	s->nthreads_all = nt;
	s->threads = calloc(nt ? nt : 1, sizeof(*s->threads));
	p.th = calloc(nt ? nt : 1, sizeof(*p.th));
	p.heap = malloc((nt ? nt : 1) * sizeof(*p.heap));
	p.blocked = malloc((nt ? nt : 1) * sizeof(*p.blocked));
	if (!s->threads || !p.th || !p.heap || !p.blocked)
		goto err_mem;
	if (run_pass(&p) || choose_tracked(&p))
		goto err_mem;
	p.records = true;
	if (run_pass(&p))
		goto err_mem;
	cp_stream_assert(&p);
	finish(&p);
	sp_free(&p);
	return 0;
err_mem:
	snprintf(err, errlen, "%s: out of memory in the streaming analysis",
		 ix->t.path);
	sp_free(&p);
	cp_stream_free(s);
	return -1;
}

void cp_stream_free(struct cp_stream *s)
{
	for (uint32_t i = 0; s->procs && i < s->nprocs; i++)
		free(s->procs[i].name);
	free(s->procs);
	free(s->threads);
	memset(s, 0, sizeof(*s));
}
