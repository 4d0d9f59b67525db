/*
 * cp_stream_objs.c - the out-of-core pass's per-object figures
 * (cp_stream.c), equal to cp_profile.c's struct cp_obj_prof.
 *
 * Local sums, made as each thread's vertices go by: operations
 * (cp_obj_counts_op), waits and the time waited (a wait segment into a
 * vertex of the object), the time held (a lock's useful time between a
 * thread's CONSUME and its PUBLISH; a recursive acquire counts once; an
 * untracked lock none), and the path gain (at a CONSUME with a range, by
 * how much the longest path through its dependency, the longest record
 * of the range, exceeds the thread's own path to it).
 *
 * What depends on the critical path rides along it as lanes of the path
 * records, like a procedure's share: for each followed object its time
 * held on the path (a thread's pending useful time is spread over the
 * followed locks it holds when the held set or the record changes, as
 * over the procedures on its stack) and its CP edges (a CONSUME whose
 * dependency is strictly longer than the thread's own path takes the
 * dependency's record and adds 1: the in-memory CPM takes the segment,
 * the lower edge id, on a tie).  A thread's time on the critical path is
 * one more such lane per followed thread.  The survey chooses the
 * CP_STREAM_TRACK objects with the most time held plus waited and the
 * CP_STREAM_TRACK threads with the most useful time.
 *
 * Object kinds come from the OBJ_DEF and OBJ_UNTRACK metadata the
 * survey's cursors pass over (the first definition kept).
 */
#include "cp_stream_int.h"

#include <stddef.h>
#include <stdlib.h>

#include "cp_bigmem.h"
#include "cp_grow.h"
#include "cp_search.h"

/* (survey) An OBJ_DEF or OBJ_UNTRACK a cursor passed over; @ctx the
 * struct sp. */
void cp_stream_meta(void *ctx, const struct cp_trd_ev *ev)
{
	struct sp *p = ctx;
	struct sobj *o;

	/* the reader drops an id past the event count (cp_tracechk.c),
	 * and the cursors make its uses inert */
	if (!ev->a || ev->a >= UINT32_MAX || ev->a > p->ix->t.nevents)
		return;
	o = cp_stream_obj_at(p, (uint32_t)ev->a);
	if (!o) {
		p->nomem = true;
		return;
	}
	if ((ev->op & CP_EV_KIND_MASK) == CP_EV_OBJ_UNTRACK) {
		o->untracked = true;
	} else if (!o->defined && ev->b <= CP_OBJ_KIND_MAX) {
		o->defined = true;
		o->kind = (uint8_t)ev->b;
		o->addr = ev->c;
	}
}

/* Charge the useful time since @t's held set last changed to the locks
 * it holds, and spread its pending time over the followed ones. */
static void charge_held(struct sp *p, struct sth *t)
{
	struct sth_stk *k = t->k;

	cp_stream_flush(p, t);
	for (uint32_t i = 0; i < k->nheld; i++)
		p->obj[k->held[i]].held_ns += t->useful - k->hmark;
	k->hmark = t->useful;
}

/* @t acquires (@acq) or releases lock @id.  0, or -1 (memory). */
static int hold(struct sp *p, struct sth *t, uint32_t id, bool acq)
{
	struct sth_stk *k = t->k;
	uint32_t h;

	for (h = 0; h < k->nheld && k->held[h] != id; h++)
		;
	if (acq && h < k->nheld)
		return 0;	/* recursive */
	if (!acq && h == k->nheld)
		return 0;
	charge_held(p, t);
	if (!acq) {
		k->held[h] = k->held[--k->nheld];
		return 0;
	}
	if (cp_grow32((void **)&k->held, sizeof(*k->held), &k->cap_held,
		      (uint64_t)k->nheld + 1))
		return -1;
	k->held[k->nheld++] = id;
	return 0;
}

/*
 * Vertex @v of @t, of an object, processed: its operation, its wait (@dt
 * if it ends a wait segment, @waited), its lock acquire or release.
 * 0, or -1 (memory).
 */
int cp_stream_obj_vertex(struct sp *p, struct sth *t,
			 const struct cp_tev *v, bool waited, uint64_t dt)
{
	unsigned k = cp_tev_kind(v);
	struct sobj *o = cp_stream_obj_at(p, v->obj);

	if (!o)
		return -1;
	o->ops += o->kind && cp_obj_counts_op(o->kind, k);
	if (waited) {
		o->waits++;
		o->wait_ns += dt;
	}
	if (!cp_obj_kind_is_lock(o->kind) || o->untracked ||
	    (k != CP_EV_CONSUME && k != CP_EV_PUBLISH))
		return 0;
	return hold(p, t, v->obj, k == CP_EV_CONSUME);
}

/* @t's last vertex is processed: its held time is charged (a thread
 * that processed none has no stacks, and holds nothing). */
void cp_stream_obj_end(struct sp *p, struct sth *t)
{
	if (!t->k)
		return;
	charge_held(p, t);
	t->k->nheld = 0;
}

/*
 * (records) A CONSUME of @o by @t merged its range's records; @own was
 * @t's path before: the path gain, and a CP edge when the dependency is
 * the longer.
 */
void cp_stream_obj_consumed(struct sp *p, struct sth *t, struct sobj *o,
			    uint64_t own)
{
	if (t->len <= own)
		return;
	o->gain_ns += t->len - own;
	if (p->nob && o->lane != NONE)
		t->vec[cp_stream_cross(p, o->lane)]++;
}

static int by_key(const void *a, const void *b)
{
	const struct cp_stream_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->id < y->id ? -1 : 1;
}

uint32_t cp_stream_pick(const struct sp *p, struct cp_stream_key *ord,
			uint32_t n)
{
	if (n)
		qsort(ord, n, sizeof(*ord), by_key);
	return n < p->track ? n : p->track;
}

/*
 * (after the survey) The lanes: the objects with the most time held plus
 * waited, the threads with the most useful time.  0, or -1 (memory).
 */
int cp_stream_choose_lanes(struct sp *p)
{
	struct cp_stream *s = p->s;
	uint32_t n = p->nobj > p->nt ? p->nobj : p->nt, k = 0;
	struct cp_stream_key *ord = malloc((n ? n : 1) * sizeof(*ord));

	p->ttrk = malloc((p->nt ? p->nt : 1) * sizeof(*p->ttrk));
	if (!ord || !p->ttrk) {
		free(ord);
		return -1;
	}
	for (uint32_t i = 0; i < p->nobj; i++) {
		struct sobj *o = &p->obj[i];

		o->lane = NONE;
		if (o->defined && o->kind)
			ord[k++] = (struct cp_stream_key){
				o->held_ns + o->wait_ns, i };
	}
	p->nob = cp_stream_pick(p, ord, k);
	for (uint32_t j = 0; j < p->nob; j++)
		p->obj[ord[j].id].lane = j;
	k = 0;
	for (uint32_t tid = 0; tid < p->nt; tid++) {
		p->ttrk[tid] = NONE;
		if (s->threads[tid].nv)
			ord[k++] = (struct cp_stream_key){
				s->threads[tid].useful_ns, tid };
	}
	p->ntt = cp_stream_pick(p, ord, k);
	for (uint32_t m = 0; m < p->ntt; m++) {
		p->ttrk[ord[m].id] = m;
		s->threads[ord[m].id].tracked = true;
	}
	s->nthreads_tracked = p->ntt;
	free(ord);
	return 0;
}

/*
 * The objects' figures into s->objs (every object defined with a kind,
 * by id), the followed ones' CP lanes from the record @vec of the thread
 * that ends the critical path (NULL: none).  0, or -1 (memory).
 */
int cp_stream_obj_results(struct sp *p, const uint64_t *vec)
{
	struct cp_stream *s = p->s;
	struct cp_site *pool;
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->nobj; i++)
		n += p->obj[i].defined && p->obj[i].kind;
	s->objs = cp_big_malloc((n ? n : 1) * sizeof(*s->objs));
	if (!s->objs)
		return -1;
	for (uint32_t i = 0; i < p->nobj; i++) {
		const struct sobj *o = &p->obj[i];
		struct cp_stream_obj *so;

		if (!o->defined || !o->kind)
			continue;
		so = &s->objs[s->nobjs++];
		*so = (struct cp_stream_obj){
			.obj = i, .kind = o->kind, .untracked = o->untracked,
			.addr = o->addr, .ops = o->ops, .waits = o->waits,
			.wait_ns = o->wait_ns, .held_ns = o->held_ns,
			.gain_ns = o->gain_ns, .tracked = o->lane != NONE,
		};
		if (o->lane == NONE || !vec)
			continue;
		so->cp_held_ns = vec[cp_stream_held(p, o->lane)];
		so->cp_cross = vec[cp_stream_cross(p, o->lane)];
	}
	s->nobjs_tracked = p->nob;
	/* the first site of each object, as the reader keeps it; s->objs
	 * is by id */
	if (p->ix->r.nsites &&
	    !(pool = s->site_callers = cp_trd_site_pool(&p->ix->r)))
		return -1;
	for (size_t i = 0; i < p->ix->r.nsites; i++) {
		size_t k = cp_find_id(s->objs, s->nobjs, sizeof(*s->objs),
				      offsetof(struct cp_stream_obj, obj),
				      p->ix->r.sites[i].obj);

		if (k < s->nobjs)
			cp_trd_site_apply(&p->ix->r, &s->objs[k].site,
					  &p->ix->r.sites[i], pool);
	}
	return 0;
}
