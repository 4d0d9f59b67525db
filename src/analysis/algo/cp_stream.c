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
 * Memory is O(threads x tracked + objects x (lag + 1) x tracked), none of
 * it per event; cp_stream.live_max measures it (a cut trace adds the
 * census, a bit per sequence published).
 *
 * Cost: two passes over the events, O(1) per vertex plus O(log threads)
 * per switch of thread and O(tracked) per record operation.
 *
 * More lanes ride in the records the same way, taken from the longer
 * path at a merge as shares are: a followed object's time held on the
 * path and CP edges, a followed thread's CP time (cp_stream_objs.c).
 *
 * The parts: the schedule and the census, cp_stream_sched.c; publish
 * records and the rules that free and fold them, cp_stream_rec.c; the
 * procedure stack (net kept as d, the what-if lane), cp_stream_procs.c;
 * objects and the followed objects' and threads' lanes,
 * cp_stream_objs.c; sampled procedures, cp_stream_samp.c; their shared
 * state, cp_stream_int.h.
 */
#include "cp_stream_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_bits.h"
#include "cp_debug.h"
#include "cp_die.h"
#include "cp_hash.h"
#include "cp_par.h"
#include "cp_prefetch.h"
#include "cp_samples.h"
#include "cp_stream_slfile.h"

/* Debug invariants: type-checked always, run when this is true. */
static const bool cp_stream_debug = CP_DEBUG;

/* ---- invariants ---------------------------------------------------- */

/* The first of the longest threads' paths, as cp_stream_cp_end() and
 * ended() find it; its length into *@len (0 when none). */
static uint32_t longest_scan(const struct sp *p, uint64_t *len)
{
	uint32_t cpt = NONE;

	*len = 0;
	for (uint32_t tid = 0; tid < p->nt; tid++)
		if (p->th[tid].any && (cpt == NONE || p->th[tid].len > *len)) {
			*len = p->th[tid].len;
			cpt = tid;
		}
	return cpt;
}

/*
 * The pass's invariants at its end: every thread done and its stacks
 * freed, nothing blocked, every live record in some object's ring or a
 * create record, net never above len, the critical path's end the one
 * ended() kept.  Dies on a violation; a no-op unless debugging.
 */
static void cp_stream_assert(const struct sp *p)
{
	uint64_t held = 0, len;

	if (!cp_stream_debug)
		return;
	if (p->nheap || p->nblocked || p->nunborn)
		cp_die("stream: threads left");
	for (uint32_t i = 0; i < p->nobj; i++)
		held += p->obj[i].n + (p->obj[i].agg1 != 0) +
			(p->obj[i].agg2 != 0) + (p->obj[i].hub != 0);
	for (uint32_t tid = 0; tid < p->nt; tid++) {
		const struct sth *t = &p->th[tid];

		if (t->state != ST_DONE)
			cp_die("stream: a thread did not end");
		if (t->k)
			cp_die("stream: a thread's stacks outlived it");
		held += t->create_rec != NONE;
		for (uint32_t k = 0; t->vec && k < p->ntr; k++)
			if (t->vec[cp_stream_d(p, k)] > t->len)
				cp_die("stream: net above len");
	}
	if (held != p->live)
		cp_die("stream: records lost");
	if (longest_scan(p, &len) != p->cbest)
		cp_die("stream: the critical path's end differs");
}

/* ---- the pass ------------------------------------------------------ */

/* @t's lanes (vec), made at its first vertex (a program can make
 * millions of threads one after another), or at its end when a JOIN
 * will merge them.  0, or -1 (memory). */
static int thread_lanes(struct sp *p, struct sth *t)
{
	size_t vn = p->vn;

	t->vec = calloc(vn ? vn : 1, sizeof(*t->vec));
	if (!t->vec)
		return -1;
	if (p->records && ++p->tlive > p->s->threads_live_max)
		p->s->threads_live_max = p->tlive;
	return 0;
}

/*
 * (records pass) Thread @tid's lanes go once it has ended, no JOIN of it
 * is left and it does not end the critical path so far: its zeroing and
 * what-if lanes were taken (done()), and its path merged into the sink's
 * (cp_stream_kp_end).
 */
static void thread_release(struct sp *p, uint32_t tid)
{
	struct sth *t = &p->th[tid];

	if (t->state != ST_DONE || t->joins_left || tid == p->cbest ||
	    !t->vec)
		return;
	free(t->vec);
	t->vec = NULL;
	p->tlive--;
}

/* Make @t's cursor, at its first read.  false: out of memory (then
 * p->nomem). */
static bool cursor_new(struct sp *p, struct sth *t)
{
	t->cur = malloc(sizeof(*t->cur));
	if (!t->cur) {
		p->nomem = true;
		return false;
	}
	cp_tcursor_init(t->cur, p->ix, (uint32_t)(t - p->th), !p->records);
	t->cur->pf = p->tpf;
	if (!p->records) {
		t->cur->meta = cp_stream_meta;
		t->cur->meta_ctx = p;
	}
	return true;
}

/* Free @t's cursor, if it has one. */
static void cursor_free(struct sth *t)
{
	if (!t->cur)
		return;
	cp_tcursor_fini(t->cur);
	free(t->cur);
	t->cur = NULL;
}

/* How far ahead in a thread's vertices (lookahead()) an object, a
 * CONSUME's ring and its record start to be fetched. */
enum { LA_OBJ = 12, LA_RING = 8, LA_REC = 4 };

/* The object vertex @v acts on (0: none); NULL. */
static inline const struct sobj *vertex_obj(const struct sp *p,
					    const struct cp_tev *v)
{
	return v && v->obj && v->obj < p->nobj ? &p->obj[v->obj] : NULL;
}

/* The object a CONSUME @v, if it is one, takes records of; NULL. */
static inline const struct sobj *consume_obj(const struct sp *p,
					     const struct cp_tev *v)
{
	return v && cp_tev_kind(v) == CP_EV_CONSUME && v->cnt ?
	       vertex_obj(p, v) : NULL;
}

/*
 * Start fetching what @t's vertices a few ahead will read: the object of
 * each (its 200 bytes: a pass reads fields all over them, and their first
 * line alone left a water trace's passes waiting on the others), and in
 * the passes that keep records, what a CONSUME merges.  A record consumed
 * long after it was published is out of the caches, and finding it is
 * three dependent loads (its object, the object's ring, the record's
 * lanes), so each is started a few vertices after the one before it, the
 * newest record of the ring taken for the one consumed (a lock's): every
 * field of the record the merge reads (its origin too, and its vertex in
 * Slack's file) and the lanes past the share-like ones.  Only hints:
 * nothing is read that may not be.
 */
static inline void lookahead(const struct sp *p, const struct sth *t)
{
	const struct sobj *o;

	if ((o = vertex_obj(p, cp_tcursor_peek(t->cur, LA_OBJ))))
		cp_prefetch_read_span(o, sizeof(*o));
	if (!p->records)
		return;
	if ((o = consume_obj(p, cp_tcursor_peek(t->cur, LA_RING))) && o->n)
		cp_prefetch_read(&o->ring[(o->head + o->n - 1) &
					  (o->cap - 1)]);
	if ((o = consume_obj(p, cp_tcursor_peek(t->cur, LA_REC))) && o->n) {
		uint32_t r = o->ring[(o->head + o->n - 1) & (o->cap - 1)];
		const uint64_t *d;

		if (r >= p->nrec)
			return;
		d = p->rvec + (size_t)r * p->vn + p->nsh;
		cp_prefetch_read(&p->rlen[r]);
		cp_prefetch_read(&p->rseq[r]);
		if (p->kp_k && r < p->cap_rkp) {
			cp_prefetch_read(&p->rhp[r]);
			cp_prefetch_read(&p->rend[r]);
		}
		if (p->org_on && r < p->cap_rorg)
			cp_prefetch_read(&p->rorg[r]);
		if (p->sl)
			cp_stream_sl_prefetch(p->sl, r);
		cp_prefetch_read_span(d, (p->vn - p->nsh) * sizeof(*d));
	}
}

/* Decode @t's next vertex; false at the thread's end (or when memory ran
 * out: p->nomem). */
static bool advance(struct sp *p, struct sth *t)
{
	uint64_t wall;

	if ((!t->cur && !cursor_new(p, t)) ||
	    !cp_tcursor_next(t->cur, &t->nx, &wall))
		return false;
	lookahead(p, t);
	t->wait_c = 0;
	t->key = p->hasw ? wall : t->nx.ts;
	t->nvi++;
	return true;
}

/* The dependency edges into @v: merge what they left (records pass).
 * @tid is @t's; @sl: p->sl is set (step_as()). */
static inline __attribute__((always_inline)) void
deps(struct sp *p, uint32_t tid, struct sth *t, const struct cp_tev *v,
     const bool sl)
{
	uint32_t c = (uint32_t)v->arg;
	uint64_t own = t->len;

	switch (cp_tev_kind(v)) {
	case CP_EV_CONSUME:
		if (!v->cnt)
			break;
		cp_stream_flush(p, t);
		p->vpub.tid = NONE;
		cp_stream_consume_records(p, t, &p->obj[v->obj], v->arg,
					  v->cnt);
		if (p->vw_deps)
			cp_stream_view_dep(p, p->vpub.tid, tid);
		cp_stream_obj_consumed(p, t, &p->obj[v->obj], own);
		break;
	case CP_EV_THREAD_START:
		if (t->create_rec != NONE) {
			uint32_t r = t->create_rec;

			cp_stream_flush(p, t);
			if (sl)
				cp_stream_sl_in_rec(p, r);
			if (p->kp_k) {	/* the creator's is its only in-edge */
				t->hp = p->rhp[r];
				t->kend = p->rend[r];
			}
			if (p->vw_deps)	/* its creator */
				cp_stream_view_dep(p,
					cp_stream_view_pub(p, r).tid, tid);
			cp_stream_org_read(p, t, r);
			cp_stream_merge(p, t, p->rlen[r],
					p->rvec + r * (size_t)p->vn);
			cp_stream_rec_free(p, r);
			t->create_rec = NONE;
		}
		break;
	case CP_EV_THREAD_JOIN:
		if (v->arg < p->nt && c != tid) {
			const struct sth *ch = &p->th[c];

			cp_stream_flush(p, t);
			if (sl)
				cp_stream_sl_in_join(p, c);
			if (!ch->vec)
				cp_die("stream: a joined thread's record was "
				       "freed");
			if (p->kp_k)
				cp_stream_kp_join(p, t, c);
			if (p->vw_deps)
				cp_stream_view_dep(p, c, tid);
			cp_stream_merge(p, t, ch->len, ch->vec);
			if (p->th[c].joins_left)
				p->th[c].joins_left--;
			thread_release(p, c);
		}
		break;
	default:
		break;
	}
}

/* PUBLISH: the survey notes the sequence, the records pass leaves a
 * record and frees the dead ones.  0, or -1 (memory).  @sl as deps(). */
static inline __attribute__((always_inline)) int
publish(struct sp *p, struct sth *t, const struct cp_tev *v, const bool sl)
{
	struct sobj *o = cp_stream_obj_at(p, v->obj);
	uint32_t r;

	if (!o)
		return -1;
	if (v->arg > o->smax)
		o->smax = v->arg;
	if (cp_stream_see(o, v->arg))
		return -1;
	if (p->records) {
		cp_stream_flush(p, t);
		uint32_t *agg = cp_stream_fold_slot(o, v->arg);

		if ((!o->nofold && v->arg < o->lo_max) ||
		    !cp_stream_rec_wanted(o, v->arg)) {
			/* no CONSUME holds it ("Folding" and "Freeing",
			 * cp_stream_rec.c) */
		} else if (agg && *agg) {
			if (p->kp_k)
				cp_stream_kp_group_thread(p, *agg - 1, t);
			if (sl)
				cp_stream_sl_group_thread(p, *agg - 1,
							  (uint32_t)(t - p->th));
			if (p->vw_deps)
				cp_stream_view_fold(p, *agg - 1,
					(struct cp_kp_end){
						(uint32_t)(t - p->th),
						t->key });
			cp_stream_org_into(p, *agg - 1, t->len, NONE);
			cp_stream_merge_into(p, &p->rlen[*agg - 1],
				p->rvec + (*agg - 1) * (size_t)p->vn,
				t->len, t->vec);
		} else {
			r = cp_stream_rec_new(p, t, v->arg);
			if (r == NONE)
				return -1;
			if (agg)
				*agg = r + 1;
			else if (cp_stream_ring_push(o, r))
				return -1;
			cp_stream_ring_trim(p, o);
		}
	}
	cp_stream_wake(p, v->obj, v->arg);
	return 0;
}

static void done(struct sp *p, uint32_t tid, struct sth *t);

/* Read the first vertex of @tid, left unread at the pass's start
 * (sth.unread).  false: it has none after all (the block could not be
 * read again); it is then done. */
static bool read_first(struct sp *p, uint32_t tid, struct sth *t)
{
	t->unread = false;
	if (advance(p, t))
		return true;
	done(p, tid, t);
	return false;
}

/* CREATE of thread @c: leave it @t's record.  0, or -1 (memory). */
static int create(struct sp *p, struct sth *t, uint32_t c)
{
	struct sth *ch = &p->th[c];

	ch->created = true;
	if (ch->state == ST_UNBORN) {
		p->nunborn--;
		if (!ch->unread || read_first(p, c, ch)) {
			ch->state = ST_READY;
			cp_stream_heap_push(p, c);
		}
	}
	if (p->records) {
		if (ch->create_rec != NONE)
			cp_stream_rec_free(p, ch->create_rec);
		cp_stream_flush(p, t);
		ch->create_rec = cp_stream_rec_new(p, t, 0);
		if (ch->create_rec == NONE)
			return -1;
	}
	cp_stream_wake(p, NONE, 0);
	return 0;
}

/* Process @t's next vertex (ready) and decode the one after; the return
 * is advance()'s, or -1 when out of memory.  @sl: p->sl is set, a
 * constant in each of step()'s two copies, so that the copy without
 * Slack's file has none of its calls (which cost the pass a tenth of its
 * time when only tested for). */
static inline __attribute__((always_inline)) int
step_as(struct sp *p, uint32_t tid, struct sth *t, const bool sl)
{
	struct cp_stream_thread *st = &p->s->threads[tid];
	const struct cp_tev *v = &t->nx;
	bool waited = false;
	uint64_t dt = 0;

	if (!t->vec && (thread_lanes(p, t) || cp_stream_stk_new(t, p->ntr)))
		return -1;
	if (cp_stream_is_proc(cp_tev_kind(v))) {
		if (p->drop_procs)	/* sampled: the samples say instead */
			return advance(p, t);
		p->saw_procs = true;
	}
	if (p->sm && !p->records)
		cp_stream_smp_place(p, tid, t, v);
	if (p->records && cp_tev_kind(v) == CP_EV_CONSUME && v->cnt >= 2 &&
	    v->obj < p->nobj && p->obj[v->obj].nofold) {
		/* its hub's sidetracks are made at this vertex */
		p->kp_now = t->key;
		p->kp_obj = v->obj;
		if (cp_stream_hub(p, &p->obj[v->obj], v->arg, v->cnt))
			return -1;
	}
	if (sl)
		cp_stream_sl_begin(p, tid, t);
	if (t->any) {
		dt = v->ts - t->prev_ts;
		waited = cp_tev_waits(v);
		if (p->tl_rows)
			cp_stream_tl_seg(p, tid, t, waited, dt);
		if (waited) {
			st->wait_ns += p->records ? 0 : dt;
			if (p->views && !p->records)
				cp_stream_view_wait(p, tid, v->obj, dt);
		} else {
			t->len += dt;
			if (p->smp && p->records) {
				if (cp_stream_smp_segment(p, tid, t, dt))
					return -1;
			} else {
				t->pending += dt;
				if (p->nlane && p->records)
					cp_stream_lane_add(p, t, dt);
				if (sl)
					cp_stream_sl_piece(p, t, dt);
				if (p->tl_rows)
					cp_stream_tl_piece(p, tid, t, dt);
			}
			t->useful += dt;
		}
	} else {
		t->first_wall = t->key;
	}
	if (!p->records) {
		unsigned k = cp_tev_kind(v);

		if (!t->any && k == CP_EV_THREAD_START && v->arg &&
		    v->arg - 1 < p->nt && v->arg - 1 != tid)
			st->parent = (uint32_t)(v->arg - 1);
		st->exited = k == CP_EV_THREAD_EXIT;
		/* as deps() takes them */
		if (k == CP_EV_THREAD_JOIN && v->arg < p->nt && v->arg != tid)
			p->njoin[v->arg]++;
	}
	if (p->kp_k && p->records) {
		/* where the path into this vertex comes from */
		t->kend = (struct cp_kp_end){ t->any ? tid : NONE,
					      t->last_wall };
		p->kp_now = t->key;
		p->kp_obj = v->obj;
	}
	t->any = true;
	t->prev_ts = v->ts;
	t->last_wall = t->key;
	if (p->progress && !(++p->done & ((1u << 20) - 1)))
		p->progress(p->progress_ctx, "streaming",
			    ((double)p->done / (double)(p->ix->t.nevents + 1) +
			     p->pass) / p->npass);
	if (p->records)
		deps(p, tid, t, v, sl);
	/* lengths only: no object's figures, only its records */
	if (v->obj && (p->track ? cp_stream_obj_vertex(p, t, v, waited, dt)
				: !cp_stream_obj_at(p, v->obj)))
		return -1;
	if (cp_tev_kind(v) == CP_EV_CONSUME && v->cnt)
		cp_stream_consumed(p, &p->obj[v->obj], v->arg, v->cnt);
	if (cp_tev_kind(v) == CP_EV_PUBLISH && publish(p, t, v, sl))
		return -1;
	if (cp_tev_kind(v) == CP_EV_THREAD_CREATE && v->arg < p->nt &&
	    v->arg != tid && create(p, t, (uint32_t)v->arg))
		return -1;
	/* a records pass with neither procedure nor what-if lanes has no
	 * use for the stacks */
	if ((p->ntr || p->nlane || !p->records || p->tl_rows) &&
	    cp_stream_calls(p, t, v))
		return -1;
	if (sl)
		cp_stream_sl_end_step(p, t);
	return advance(p, t);
}

static int step(struct sp *p, uint32_t tid, struct sth *t)
{
	return p->sl ? step_as(p, tid, t, true) : step_as(p, tid, t, false);
}

/*
 * (records pass) Thread @tid, which ran, has ended: what the figures and
 * the paths want of its lanes is taken now (the longest len - d[k] for
 * zeroing, the longest what-if lane, its path into the sink), and it may
 * end the critical path so far (p->cbest, the first of the longest as in
 * cp_stream_cp_end(), which keeps its lanes).
 */
static void ended(struct sp *p, uint32_t tid, const struct sth *t)
{
	uint32_t old = p->cbest;

	for (uint32_t k = 0; k < p->ntr; k++)
		if (t->len - t->vec[cp_stream_d(p, k)] > p->zbest[k])
			p->zbest[k] = t->len - t->vec[cp_stream_d(p, k)];
	for (uint32_t l = 0; l < p->nlane; l++)
		if (t->vec[cp_stream_whatif(p) + l] > p->lbest[l])
			p->lbest[l] = t->vec[cp_stream_whatif(p) + l];
	if (p->kp_k)
		cp_stream_kp_end(p, tid);
	if (old == NONE || t->len > p->th[old].len ||
	    (t->len == p->th[old].len && tid < old)) {
		p->cbest = tid;
		if (old != NONE)
			thread_release(p, old);
	}
	thread_release(p, tid);
}

/* @t has no more vertices: close its frames, keep its record for its
 * joiners. */
static void done(struct sp *p, uint32_t tid, struct sth *t)
{
	struct cp_stream_thread *st = &p->s->threads[tid];

	while (t->k && t->k->depth)
		cp_stream_pop(p, t);
	cp_stream_obj_end(p, t);
	cursor_free(t);
	t->state = ST_DONE;
	st->tid = tid;
	st->name = p->ix->t.threads[tid].name;
	if (!p->records) {
		/* the views: its time outside procedures after the last */
		if (p->views)
			cp_stream_view_cpu(p, tid, NONE, t->useful -
					   (t->k ? t->k->mark : 0));
		if (p->sm)
			cp_stream_smp_end(p, tid);
		st->nv = t->nvi;
		st->useful_ns = t->useful;
		st->elapsed_ns = t->any ? t->last_wall - t->first_wall : 0;
		free(t->vec);	/* the survey merges no lanes */
		t->vec = NULL;
	} else {
		st->len_ns = t->len;
		if (t->any)
			ended(p, tid, t);
		else if (t->joins_left && !t->vec && thread_lanes(p, t))
			p->nomem = true;	/* its joiners merge nothing */
	}
	/* only its lanes (vec) can be wanted after its end */
	cp_stream_stk_free(t);
	cp_stream_wake(p, NONE, 0);
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
		if (!cp_stream_ready(p, t)) {
			if (cp_tev_kind(&t->nx) == CP_EV_THREAD_START)
				cp_tcursor_park(t->cur);
			t->state = ST_BLOCKED;
			p->blocked[p->nblocked++] = tid;
			return 0;
		}
		more = step(p, tid, t);
		if (more < 0)
			return -1;
		if (more && p->nheap && cp_stream_before(p, p->heap[0], tid)) {
			cp_stream_heap_push(p, tid);
			return 0;
		}
	}
}

/* Set up one pass over every thread's events.  0, or -1 (memory). */
static int pass_init(struct sp *p)
{
	free(p->zbest);
	p->zbest = calloc(p->ntr ? p->ntr : 1, sizeof(*p->zbest));
	if (!p->records) {
		free(p->njoin);
		free(p->born);
		p->njoin = calloc(p->nt ? p->nt : 1, sizeof(*p->njoin));
		p->born = calloc(cp_bits_words(p->nt), sizeof(*p->born));
	}
	if (!p->zbest || !p->njoin || !p->born)
		return -1;
	p->cbest = NONE;
	if (p->nlane)
		memset(p->lbest, 0, p->nlane * sizeof(*p->lbest));
	p->tlive = 0;
	p->kp_any = false;
	for (uint32_t tid = 0; tid < p->nt; tid++) {
		struct sth *t = &p->th[tid];

		cursor_free(t);
		cp_stream_stk_free(t);
		free(t->vec);
		memset(t, 0, sizeof(*t));
		t->create_rec = NONE;
		t->hp = NONE;
		t->tlane = p->records && p->ntt && p->ttrk[tid] != NONE ?
			   p->ttrk[tid] + 1 : 0;
		t->sk = t->sc = p->sm ? p->sm->thr_off[tid] : 0;
		t->fac = 1.0;
		t->joins_left = p->records ? p->njoin[tid] : 0;
	}
	for (uint32_t i = 0; i < p->nobj; i++) {
		struct sobj *o = &p->obj[i];

		o->smax = o->w = o->lo_max = o->m = 0;
		o->npend = o->n = o->head = o->agg1 = o->agg2 = o->hub = 0;
		o->cleft = o->ncons;
		o->ops = o->waits = o->wait_ns = o->held_ns = o->gain_ns = 0;
	}
	p->nheap = p->nblocked = p->nunborn = 0;
	p->done = 0;
	p->kp_bound = UINT64_MAX;
	p->kp_limit = p->kp_cap;
	/* a thread that waits for its CREATE is read only then: the index
	 * tells most of them (cp_tindex.tstart), the survey finds the rest
	 * (p->born).  A program that makes a thread per task would else read
	 * every thread's first block here and again at its CREATE, and the
	 * blocks would not come from the prefetcher in file order */
	for (uint32_t tid = 0; tid < p->nt; tid++) {
		struct sth *t = &p->th[tid];

		if (cp_bit_get(p->records ? p->born : p->ix->tstart, tid)) {
			t->unread = true;
			t->wait_obj = NONE;
			t->state = ST_UNBORN;
			p->nunborn++;
			if (!p->records)
				cp_bit_set(p->born, tid);
		} else if (!advance(p, t)) {
			done(p, tid, t);
		} else if (cp_tev_kind(&t->nx) == CP_EV_THREAD_START &&
			   !cp_stream_ready(p, t)) {
			cp_tcursor_park(t->cur);
			t->state = ST_UNBORN;
			p->nunborn++;
			if (!p->records)
				cp_bit_set(p->born, tid);
		} else {
			cp_stream_heap_push(p, tid);
		}
	}
	return 0;
}

/* Every thread left is blocked or not created: those not created wait
 * with the blocked ones (a damaged trace lost their CREATE, which
 * cp_stream_unstick() finds out). */
static void unborn_to_blocked(struct sp *p)
{
	for (uint32_t tid = 0; p->nunborn && tid < p->nt; tid++) {
		struct sth *t = &p->th[tid];

		if (t->state != ST_UNBORN)
			continue;
		p->nunborn--;
		if (!t->unread || read_first(p, tid, t)) {
			t->state = ST_BLOCKED;
			p->blocked[p->nblocked++] = tid;
		}
	}
}

/* One pass: the survey, or (p->records) the path records. */
static int pass_loop(struct sp *p)
{
	if (pass_init(p))
		return -1;
	while (p->nheap || p->nblocked || p->nunborn) {
		if (!p->nheap) {
			unborn_to_blocked(p);
			if (cp_stream_unstick(p))
				return -1;
			continue;
		}
		if (run_thread(p, cp_stream_heap_pop(p)) || p->nomem)
			return -1;
		if (p->spoiled)		/* runs again whole (records_pass) */
			return 0;
	}
	return p->nomem ? -1 : 0;
}

/* The pass as a cp_par_two job: its result into p->pass_ret, then the
 * prefetcher's helper is told to return. */
static void pass_job(void *arg)
{
	struct sp *p = arg;

	p->pass_ret = pass_loop(p);
	if (p->tpf)
		cp_tpf_stop(p->tpf);
}

/*
 * One pass, with the blocks decoded ahead on the second core
 * (cp_tcursor.h's prefetcher) when the trace is large enough for
 * cp_par_two to use it; the results do not depend on it.  0, or -1.
 */
static int run_pass(struct sp *p)
{
	if (p->vw_deps) {	/* a paths pass may run again */
		cp_pairs_free(&p->s->v_deps);
		p->s->v_ndeps = 0;
	}
	p->tpf = cp_tpf_new(p->ix);
	cp_par_two(p->ix->t.nevents, pass_job, p, cp_tpf_run, p->tpf);
	cp_tpf_free(p->tpf);
	p->tpf = NULL;
	p->pass++;
	return p->pass_ret;
}

/* The survey as a cp_par_two job, its result in p->pass_ret. */
static void survey_job(void *arg)
{
	struct sp *p = arg;

	p->pass_ret = run_pass(p);
}

/* The survey, with the samples' stacks symbolized beside it on the other
 * core when they may be wanted (struct cp_stream_sym: @y); not after it,
 * where they may turn out unwanted.  0, or -1 (memory). */
static int survey(struct sp *p, const struct cp_stream_opts *o,
		  struct cp_stream_sym *y)
{
	if (!o || !cp_par_splits(p->ix->t.nevents) ||
	    !cp_stream_smp_early(p, o, y))
		return run_pass(p);
	cp_par_two(p->ix->t.nevents, survey_job, p, cp_stream_smp_sym_run, y);
	return p->pass_ret;
}

/* The CP_STREAM_TRACK procedures with the most useful time (survey).
 * 0, or -1 (memory). */
static int choose_tracked(struct sp *p)
{
	struct cp_stream *s = p->s;
	uint32_t n = s->nprocs ? s->nprocs : 1;
	struct cp_stream_key *ord = malloc(n * sizeof(*ord));

	p->trk = malloc(n * sizeof(*p->trk));
	if (!ord || !p->trk) {
		free(ord);
		return -1;
	}
	for (uint32_t i = 0; i < s->nprocs; i++) {
		ord[i] = (struct cp_stream_key){ s->procs[i].cpu_ns, i };
		p->trk[i] = NONE;
	}
	p->ntr = cp_stream_pick(p, ord, s->nprocs);
	for (uint32_t k = 0; k < p->ntr; k++) {
		p->trk[ord[k].id] = k;
		s->procs[ord[k].id].tracked = true;
	}
	s->ntracked = p->ntr;
	free(ord);
	return 0;
}

/* Has the trace indexed by @ix sampled call stacks (SAMPLES blocks)? */
static bool has_samples(const struct cp_tindex *ix)
{
	for (size_t i = 0; i < ix->r.nblks; i++)
		if (ix->r.blks[i].type == CP_BLOCK_SAMPLES)
			return true;
	return false;
}

/*
 * (what-if) Each procedure's factor: the product of the factors of the
 * scalings that name it, 1 if none does; the lanes of the records pass.
 * 0, or -1 (out of memory) or CP_STREAM_NO_PROC (a name the trace has no
 * procedure of) with "PATH: reason" in @err.
 */
static int scale_factors(struct sp *p, char *err, size_t errlen)
{
	struct cp_stream *s = p->s;

	p->pf = malloc((s->nprocs ? s->nprocs : 1) * sizeof(*p->pf));
	if (!p->pf) {
		snprintf(err, errlen, "%s: out of memory in the streaming "
			 "analysis", p->ix->t.path);
		return -1;
	}
	for (uint32_t i = 0; i < s->nprocs; i++)
		p->pf[i] = 1.0;
	for (uint32_t i = 0; i < p->nsc; i++) {
		uint32_t id = cp_smap_get(&p->names, p->pname, p->sc[i].name);

		if (id == CP_HASH_NONE) {
			snprintf(err, errlen, "%s: no procedure named '%s' in "
				 "the trace", p->ix->t.path, p->sc[i].name);
			return CP_STREAM_NO_PROC;
		}
		p->pf[id] *= p->sc[i].factor;
	}
	p->lbest = calloc(1, sizeof(*p->lbest));
	if (!p->lbest) {
		snprintf(err, errlen, "%s: out of memory in the streaming "
			 "analysis", p->ix->t.path);
		return -1;
	}
	p->nlane = 1;
	return 0;
}

/*
 * (what-if lanes) The @n lanes of the records passes: each one's
 * procedure (p->lq), and the results' arrays.  A name the trace has no
 * procedure of leaves its lane unscaled and says so
 * (cp_stream.lane_known).  0, or -1 (out of memory).
 */
static int lane_procs(struct sp *p, uint32_t n)
{
	struct cp_stream *s = p->s;

	p->lq = malloc(n * sizeof(*p->lq));
	p->lbest = calloc(n, sizeof(*p->lbest));
	s->lane_len = calloc(n, sizeof(*s->lane_len));
	s->lane_ns = calloc(n, sizeof(*s->lane_ns));
	s->lane_known = calloc(n, sizeof(*s->lane_known));
	if (!p->lq || !p->lbest || !s->lane_len || !s->lane_ns ||
	    !s->lane_known)
		return -1;
	s->nlanes = p->nlane = n;
	for (uint32_t l = 0; l < n; l++) {
		uint32_t id = cp_smap_get(&p->names, p->pname,
					  p->lanes[l].name);

		p->lq[l] = id == CP_HASH_NONE ? NONE : id;
		s->lane_known[l] = id != CP_HASH_NONE;
	}
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

uint32_t cp_stream_cp_end(const struct sp *p, uint64_t *len)
{
	/* every thread that ran has ended, each one weighed as it ended
	 * (a thread per task: no scan of hundreds of thousands) */
	*len = p->cbest != NONE ? p->th[p->cbest].len : 0;
	return p->cbest;
}

/* Totals, the critical path and the followed procedures', threads' and
 * objects' figures from the threads' final records, but Slack; the
 * procedures in the order of their ids still.  0, or -1 (memory). */
static int figures(struct sp *p)
{
	struct cp_stream *s = p->s;
	uint64_t first = UINT64_MAX, last = 0;
	uint32_t cpt = cp_stream_cp_end(p, &s->cp_len);
	bool found = cpt != NONE;

	s->cp_tid = found ? cpt : 0;
	for (uint32_t tid = 0; tid < p->nt; tid++) {
		const struct sth *t = &p->th[tid];

		s->useful_ns += s->threads[tid].useful_ns;
		s->wait_ns += s->threads[tid].wait_ns;
		s->nvertices += s->threads[tid].nv;
		if (!t->any)
			continue;
		s->nthreads++;
		if (t->first_wall < first)
			first = t->first_wall;
		if (t->last_wall > last)
			last = t->last_wall;
	}
	s->elapsed_ns = last > first ? last - first : 0;
	for (uint32_t i = 0; found && i < s->nprocs; i++) {
		uint32_t k = p->trk[i];

		if (k == NONE)
			continue;
		s->procs[i].cp_ns = p->th[s->cp_tid].vec[k];
		s->procs[i].cp_excl_ns = p->excl || !p->ncx ? s->procs[i].cp_ns :
					 p->th[s->cp_tid].vec[cp_stream_cpx(p, k)];
		s->procs[i].cp_incl_ns = !p->excl || !p->ncx ? s->procs[i].cp_ns :
					 p->th[s->cp_tid].vec[cp_stream_cpx(p, k)];
		s->procs[i].zero_ns = s->cp_len - p->zbest[k];
		if (p->mbm_k == 1) {
			s->procs[i].has_mbm = true;
			s->procs[i].mbm_ns = s->procs[i].cp_ns;
			s->mbm_paths = 1;
		}
	}
	if (p->nlane && !p->lq && p->lbest[0] > s->scaled_len)
		s->scaled_len = p->lbest[0];
	for (uint32_t l = 0; p->lq && l < p->nlane; l++)
		if (p->lbest[l] > s->lane_len[l])
			s->lane_len[l] = p->lbest[l];
	for (uint32_t tid = 0; found && tid < p->nt; tid++)
		if (p->ttrk[tid] != NONE)
			s->threads[tid].cp_ns = p->th[s->cp_tid].vec[
				cp_stream_tcp(p, p->ttrk[tid])];
	if (p->kp_capture && cp_stream_kp_finish(p))
		return -1;
	cp_stream_smp_results(p, found ? p->th[s->cp_tid].vec : NULL);
	for (uint32_t i = 0; i < s->nprocs; i++)
		s->procs[i].busy = -1;
	return cp_stream_obj_results(p, found ? p->th[s->cp_tid].vec : NULL);
}

/* The procedures given Slack (cp_stream_opts.top, and the headline's)
 * into cp_stream_proc.top and p->sl_lanes: cp_profile.c's choice in
 * memory, over the tracked ones.  0, or -1 (memory). */
static int choose_top(struct sp *p, const struct cp_stream_opts *o)
{
	struct cp_stream *s = p->s;
	struct cp_stream_proc *ord = malloc((s->nprocs ? s->nprocs : 1) *
					    sizeof(*ord));
	uint32_t n = 0, top = o && o->top ? o->top : UINT32_MAX;

	_Static_assert(CP_STREAM_TRACK <= 64, "a lane mask is 64 bits");
	if (!ord)
		return -1;
	p->hl = o && o->headline ?
		o->headline(o->headline_ctx, s, &p->hl_busy) : NONE;
	if (p->hl >= s->nprocs)
		p->hl = NONE;
	for (uint32_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].tracked) {
			ord[n] = s->procs[i];
			ord[n++].id = i;
		}
	qsort(ord, n, sizeof(*ord), by_cp);
	for (uint32_t j = 0; j < n; j++) {
		struct cp_stream_proc *pr = &s->procs[ord[j].id];

		pr->top = !pr->cp_ns || j < top || ord[j].id == p->hl;
		if (pr->top && pr->cp_ns)
			p->sl_lanes |= (uint64_t)1 << p->trk[ord[j].id];
	}
	free(ord);
	return 0;
}

/*
 * Slack's walk back (p->sl), with the C segments of the headline's
 * procedure and their busy share when it wants that; the top procedures'
 * Slack (when asked); the timeline's critical path (when asked).  0, or
 * -1 (memory).
 */
static int slack(struct sp *p)
{
	struct cp_stream *s = p->s;
	uint32_t i = p->hl_busy && s->slack_asked ? p->hl : NONE;

	p->busy_k = i != NONE ? p->trk[i] : NONE;
	if (cp_stream_sl_walk(p) ||
	    (p->busy_k != NONE && p->has_slack &&
	     cp_stream_busy_measure(p, &s->procs[i].busy)))
		return -1;
	for (uint32_t j = 0; j < s->nprocs; j++)
		if (s->procs[j].top) {
			s->procs[j].has_slack = p->has_slack;
			s->procs[j].slack_ns = p->slk[p->trk[j]];
		}
	return 0;
}

/*
 * The lanes the records carry, set aside while the MBM's paths pass runs
 * on the lengths alone: that pass wants only the lengths and the
 * sidetracks' heaps, and the capture pass after it, on the same schedule
 * (so the same merges, numbered alike), carries every lane.  Carrying
 * them twice cost a lock-heavy trace's report a tenth of its time, a
 * fine-grained one's more (doc/measurements/2026-12-01-stream-lean.md).
 * lanes_aside() takes them off (@a keeps them), lanes_back() puts them
 * back and drops the records' arrays, which were sized for no lanes.
 */
struct lanes_aside {
	uint32_t track, ntr, nob, ntt, ncs, ncx, nsh, vn;
	bool smp;
};

static void lanes_aside(struct sp *p, struct lanes_aside *a)
{
	*a = (struct lanes_aside){ p->track, p->ntr, p->nob, p->ntt, p->ncs,
				   p->ncx, p->nsh, p->vn, p->smp };
	p->track = p->ntr = p->nob = p->ntt = p->ncs = p->ncx = 0;
	p->nsh = 0;
	p->vn = p->nlane;
	p->smp = false;
}

static void lanes_back(struct sp *p, const struct lanes_aside *a)
{
	p->track = a->track;
	p->ntr = a->ntr;
	p->nob = a->nob;
	p->ntt = a->ntt;
	p->ncs = a->ncs;
	p->ncx = a->ncx;
	p->nsh = a->nsh;
	p->vn = a->vn;
	p->smp = a->smp;
	free(p->rlen);
	free(p->rseq);
	free(p->rnext);
	free(p->rvec);
	free(p->rorg);
	p->rlen = p->rseq = p->rvec = p->rorg = NULL;
	p->rnext = NULL;
	p->caprec = p->cap_rorg = 0;
}

/* The records start again for one more records pass. */
static void records_again(struct sp *p)
{
	p->s->records = p->s->live_max = p->s->threads_live_max = 0;
	p->nrec = p->live = 0;
	p->freel = NONE;
}

/* One more records pass: its records, the timeline's rows and Slack's
 * file start afresh.  0, or -1 (memory). */
static int pass_again(struct sp *p)
{
	p->npass++;
	records_again(p);
	if (p->tl_rows)
		cp_timeline_clear_rows(p->tl);
	if (p->sl) {
		cp_stream_sl_free(p);
		if (cp_stream_sl_start(p))
			return -1;
	}
	return 0;
}

/*
 * A records pass that builds the k paths' heaps, and the paths from it.
 * While they come out cut (the sidetracks kept cannot tell which come
 * next) and the heaps may have more room (up to p->kp_max nodes), the pass
 * again with 8 times the room, Slack's file (p->sl) made afresh: a
 * fine-grained program's paths can lie within nanoseconds of each other
 * among millions of detours, more than the default room holds.
 * 0, or -1 (memory).
 */
static int paths_pass(struct sp *p)
{
	uint64_t max = p->kp_max;

	for (;;) {
		p->s->kp_room = p->kp_cap;
		if (run_pass(p) || cp_stream_kp_finish(p))
			return -1;
		if (!p->s->paths_cut || p->kp_cap >= max)
			return 0;
		p->kp_cap = p->kp_cap < max / 8 ? p->kp_cap * 8 : max;
		p->s->paths_passes++;
		cp_stream_kp_again(p);
		if (pass_again(p))
			return -1;
	}
}

/* MBM's paths first, on the lengths alone; the records pass then takes
 * the lanes at their sidetracks ("MBM", cp_stream_kp.c), its records
 * thin where that pass saw their share lanes unread ("Thin records",
 * cp_stream_rec.c).  @unmarked: cp_stream_opts.thin_unmarked.  0, or -1
 * (memory). */
static int mbm_paths_first(struct sp *p, bool unmarked)
{
	struct lanes_aside la;
	bool thin = p->nsh > 0;	/* (ntr > 0 here) */
	int kp;

	lanes_aside(p, &la);
	p->org_on = p->thin_mark = thin;
	kp = paths_pass(p);
	p->org_on = p->thin_mark = false;
	lanes_back(p, &la);
	if (kp || cp_stream_kp_want(p))
		return -1;
	if (unmarked && p->thin_need)
		memset(p->thin_need, 0, p->cap_need * sizeof(*p->thin_need));
	p->org_on = p->thin = thin && !p->thin_nomem;
	records_again(p);
	return 0;
}

/*
 * The records pass (the paths pass when it finds the paths).  When its
 * records were thin and a merge met one without the lanes it took
 * (sp.spoiled), it runs again with every record whole.  0, or -1
 * (memory).
 */
static int records_pass(struct sp *p)
{
	if (p->kp_k && !p->kp_capture ? paths_pass(p) : run_pass(p))
		return -1;
	if (!p->spoiled)
		return 0;
	p->org_on = p->thin = p->spoiled = false;
	p->s->thin_reruns++;
	p->s->thin_records = p->s->scaled_ns = 0;
	if (p->s->lane_ns)
		memset(p->s->lane_ns, 0, p->nlane * sizeof(*p->s->lane_ns));
	p->kp_nmerge = 0;
	p->kp_wi = 0;
	return pass_again(p) ? -1 : run_pass(p);
}

/* The pass's own memory (the results stay in cp_stream). */
static void sp_free(struct sp *p)
{
	free(p->njoin);
	free(p->born);
	free(p->zbest);
	free(p->hubm);
	for (uint32_t tid = 0; p->th && tid < p->nt; tid++) {
		cursor_free(&p->th[tid]);
		cp_stream_stk_free(&p->th[tid]);
		free(p->th[tid].vec);
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
	free(p->ttrk);
	free(p->pf);
	free(p->lq);
	free(p->lbest);
	free(p->su);
	free(p->sM);
	free(p->sid);
	free(p->sfull);
	free(p->sdoff);
	free(p->sdist);
	free(p->sinner);
	free(p->rlen);
	free(p->rseq);
	free(p->rnext);
	free(p->rvec);
	free(p->rorg);
	free(p->thin_need);
	free(p->rpub);
	cp_stream_kp_free(p);
	cp_stream_sl_free(p);
	cp_smap_free(&p->names);
	cp_map2_free(&p->procmap);
	cp_map2_free(&p->far);
}

/* The procedures were sorted (their id is the old index): the views'
 * and the timeline's keys follow.  0, or -1 (memory). */
static int renumber(struct cp_stream *s)
{
	uint32_t *ren = malloc((s->nprocs ? s->nprocs : 1) * sizeof(*ren));
	int ret;

	if (!ren)
		return -1;
	for (uint32_t i = 0; i < s->nprocs; i++)
		ren[s->procs[i].id] = i;
	ret = cp_pairs_rename_b(&s->v_tproc, ren, s->nprocs);
	if (s->tl.width)
		cp_timeline_rename(&s->tl, ren, s->nprocs);
	free(ren);
	return ret;
}

/* After the survey: whether the threads' useful times add up past 64
 * bits, the bound of every path's length (CP_TRACE_TOO_LONG). */
static bool useful_overflows(const struct sp *p)
{
	uint64_t sum = 0;

	for (uint32_t tid = 0; tid < p->nt; tid++)
		if (__builtin_add_overflow(sum, p->th[tid].useful, &sum))
			return true;
	return false;
}

int cp_stream_run(struct cp_stream *s, struct cp_tindex *ix,
		  const struct cp_stream_opts *o, char *err, size_t errlen)
{
	uint32_t nt = ix->t.nthreads;
	struct cp_stream_sym y = { 0 };
	int ret = -1;
	struct sp p = {
		.ix = ix, .s = s, .nt = nt, .freel = NONE,
		.excl = o && o->exclusive,
		.track = o && o->lengths_only ? 0 : CP_STREAM_TRACK,
		.progress = o ? o->progress : NULL,
		.progress_ctx = o ? o->progress_ctx : NULL,
		.sc = o ? o->scale : NULL, .nsc = o ? o->nscale : 0,
		.lanes = o && !o->scale && o->nlanes ? o->lanes : NULL,
		.hasw = (ix->t.flags & CP_TRACE_HAS_WALL) != 0,
		.busy_k = NONE,
		.sl_event_bytes = o && o->slack_event_bytes ?
				  o->slack_event_bytes :
				  CP_STREAM_SL_EVENT_BYTES,
		.mbm_k = o ? o->mbm_k : 0,
		/* MBM over one path is the CP time: no paths needed */
		.kp_k = o ? (o->mbm_k > 1 ? o->mbm_k : o->kpaths) : 0,
		.views = o && o->views,
	};

	/* for the progress line: the walk back of Slack's file counts as
	 * one more */
	p.npass = (p.mbm_k > 1 ? 3 : 2) + (o && o->slack && p.track ? 1 : 0);
	p.kp_cap = o && o->kpaths_nodes ? o->kpaths_nodes :
		   64ull * p.kp_k > CP_STREAM_KP_NODES ? 64ull * p.kp_k :
		   CP_STREAM_KP_NODES;
	p.kp_max = o && o->kpaths_nodes_max > p.kp_cap ? o->kpaths_nodes_max :
		   p.kp_cap;
	memset(s, 0, sizeof(*s));
	s->paths_passes = p.kp_k ? 1 : 0;
	s->exclusive = p.excl;
	s->online_len = ix->t.online_len_ns;
	s->nthreads_all = nt;
	s->has_samples = has_samples(ix);
	p.sm = ix->t.samples && ix->t.samples->n ? ix->t.samples : NULL;
	p.drop_procs = o && o->src == CP_STREAM_SRC_SAMPLED;
	/* (huge pages: a program that runs a thread per task has millions) */
	s->threads = cp_big_calloc(nt ? nt : 1, sizeof(*s->threads));
	p.th = cp_big_calloc(nt ? nt : 1, sizeof(*p.th));
	p.heap = cp_big_malloc_lazy((nt ? nt : 1) * sizeof(*p.heap));
	p.blocked = cp_big_malloc_lazy((nt ? nt : 1) * sizeof(*p.blocked));
	if (p.sm)
		p.su = calloc(p.sm->n, sizeof(*p.su));
	if (!s->threads || !p.th || !p.heap || !p.blocked || (p.sm && !p.su))
		goto err_mem;
	for (uint32_t tid = 0; tid < nt; tid++)
		s->threads[tid].parent = UINT32_MAX;
	if (survey(&p, o, &y))
		goto err_mem;
	if (useful_overflows(&p)) {
		snprintf(err, errlen, "%s: %s", ix->t.path, CP_TRACE_TOO_LONG);
		goto err;
	}
	if (o && cp_stream_smp_setup(&p, o, &y, err, errlen))
		goto err;
	if (o && o->timeline && cp_stream_tl_start(&p, o->timeline))
		goto err_mem;
	for (uint32_t i = 0; i < s->nprocs; i++)
		s->procs[i].cpu_ns = p.excl ? s->procs[i].cpu_excl_ns :
				     s->procs[i].cpu_incl_ns;
	if (choose_tracked(&p) || cp_stream_choose_lanes(&p))
		goto err_mem;
	if (p.sc && (ret = scale_factors(&p, err, errlen)))
		goto err;
	if (!p.sc && p.lanes && lane_procs(&p, o->nlanes))
		goto err_mem;
	p.ncs = p.smp ? p.ntr + 1 : 0;
	p.ncx = p.ntr;
	p.nsh = p.ntr + 2 * p.nob + p.ntt + p.ncs + p.ncx;
	p.vn = p.nsh + p.ntr + p.nlane;
	p.records = true;
	if (!p.ntr) {	/* no procedure: no capture pass, and no walk back
			 * unless the timeline follows C */
		bool walk = p.npass > (p.mbm_k > 1 ? 3u : 2u);

		p.npass -= (p.mbm_k > 1) + (walk && !p.tl);
	}
	if (p.mbm_k > 1 && p.ntr && mbm_paths_first(&p, o->thin_unmarked))
		goto err_mem;
	p.vw_deps = p.views;
	p.tl_rows = p.tl != NULL;
	s->slack_asked = o && o->slack && p.track;
	/* the timeline's critical path comes from Slack's walk too; with
	 * no procedure followed Slack has no lane, and its file no use */
	if (((s->slack_asked && p.ntr) || p.tl) && cp_stream_sl_start(&p))
		goto err_mem;
	if (records_pass(&p))
		goto err_mem;
	if (p.tl && p.tl->nomem)	/* a row's cell could not be added */
		goto err_mem;
	cp_stream_assert(&p);
	if (figures(&p) || choose_top(&p, o) || (p.sl && slack(&p)))
		goto err_mem;
	cp_stream_sl_free(&p);
	for (uint32_t i = 0; i < s->nprocs; i++)
		s->procs[i].id = i;
	if (s->nprocs)
		qsort(s->procs, s->nprocs, sizeof(*s->procs), by_cp);
	if ((p.views || p.tl) && renumber(s))
		goto err_mem;
	if (p.smp) {	/* the samples' stacks, kept */
		s->sid = p.sid;
		p.sid = NULL;
	}
	sp_free(&p);
	return 0;
err_mem:
	snprintf(err, errlen, "%s: out of memory in the streaming analysis",
		 ix->t.path);
err:
	free(y.sid);	/* symbolized beside a survey that failed */
	sp_free(&p);
	cp_stream_free(s);
	return ret;
}

void cp_stream_free(struct cp_stream *s)
{
	for (uint32_t i = 0; s->procs && i < s->nprocs; i++)
		free(s->procs[i].name);
	free(s->procs);
	free(s->threads);
	free(s->objs);
	free(s->site_callers);
	free(s->paths);
	cp_pairs_free(&s->v_tproc);
	cp_pairs_free(&s->v_waits);
	cp_pairs_free(&s->v_deps);
	cp_timeline_free(&s->tl);
	free(s->sid);
	free(s->lane_len);
	free(s->lane_ns);
	free(s->lane_known);
	memset(s, 0, sizeof(*s));
}
