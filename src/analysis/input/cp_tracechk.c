/*
 * cp_tracechk.c - step 3 of the trace reader: what only the whole file
 * can tell, checked after decoding (cp_trace.c has the overview and the
 * salvage rules): objects defined once, region names known, every thread
 * beginning with THREAD_START, every use of an object defined and every
 * CONSUME range published, publishes unique, thread create/start/join/exit
 * consistent, ENTER/LEAVE and region nesting.  Without CP_TRACE_STRICT
 * what breaks a rule is repaired or made inert and counted.
 *
 * The checks do not keep the file offset of every vertex: when one words
 * a message, cp_trd_vertex_offset decodes the vertex's thread again.
 *
 * The passes that look at each thread's vertices by themselves (their
 * uses, their CONSUMEs, their nesting) run on both cores first, as the
 * decoder's workers do (cp_tracedec.c): each worker has a copy of the
 * reader's state with @spec set, so the first note or failure only stops
 * it, and the pass then runs again on one thread, in thread order, which
 * notes and repairs exactly as before.  Every check returns at its note,
 * before it changes anything, so a stopped worker leaves nothing to undo.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_grow.h"
#include "cp_par.h"
#include "cp_trace_rd.h"

size_t cp_trd_vertex_offset(struct cp_trd *r, uint32_t tid, uint32_t vi)
{
	uint32_t seen = 0;

	for (size_t i = 0; i < r->nblks; i++) {
		const struct cp_trd_blk *b = &r->blks[i];
		const uint8_t *p, *end;

		if (b->type != CP_BLOCK_EVENTS || b->tid != tid)
			continue;
		p = r->buf + b->off + r->bsz + EVHEAD_SIZE;
		end = r->buf + b->off + r->bsz + b->size;
		for (uint32_t j = 0; j < b->nev; j++) {
			const uint8_t *at = p;
			struct cp_trd_ev ev;

			if (cp_trd_decode_event(&p, end, r->hasw, &ev))
				return (size_t)(at - r->buf);
			if ((ev.op & CP_EV_KIND_MASK) >= CP_EV_META_FIRST)
				continue;
			if (seen++ == vi)
				return (size_t)(at - r->buf);
		}
	}
	return 0;
}

#define VFAIL(r, tid, vi, ...) \
	cp_trd_fail((r), cp_trd_vertex_offset((r), (tid), (vi)), __VA_ARGS__)

int cp_trd_vnote(struct cp_trd *r, uint32_t tid, uint32_t vi,
		 const char *action, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	size_t off = 0;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!r->spec && (r->strict || !r->t->nrepairs))
		off = cp_trd_vertex_offset(r, tid, vi);
	return cp_trd_note(r, off, action, "%s", msg);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}


static int cmp_pub(const void *a, const void *b)
{
	const struct cp_trace_pub *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- per-thread passes on both cores ------------------------------ */

/* What a per-thread pass keeps of its own. */
struct pass_ctx {
	uint32_t *npub;		/* (uses) [nobjs] publishes of each object */
	uint64_t *stack;	/* (nesting) scratch, check_nesting's */
	uint64_t cap;
};

/* A pass over thread @tid's vertices: 0, or -1 (strict, no memory; a
 * speculative one at its first note). */
typedef int (*thread_pass_fn)(struct cp_trd *r, uint32_t tid,
			      struct pass_ctx *c);

/* One core's speculative run of a pass over threads [lo, hi). */
struct pass_job {
	_Alignas(CP_PAR_APART) struct cp_trd r;	/* (two side by side) */
	thread_pass_fn fn;
	uint32_t lo, hi;
	struct pass_ctx c;
};

static void pass_job_run(void *arg)
{
	struct pass_job *j = arg;

	for (uint32_t tid = j->lo; tid < j->hi && !j->r.bail; tid++)
		if (j->fn(&j->r, tid, &j->c))
			j->r.bail = true;
}

/* Each object's publishes, @npub[nobjs] plus @more (NULL: none), and
 * their total. */
static void set_npub(struct cp_trace *t, const uint32_t *npub,
		     const uint32_t *more)
{
	t->npub = 0;
	for (uint32_t o = 0; o < t->nobjs; o++) {
		t->objs[o].npub = npub[o] + (more ? more[o] : 0);
		t->npub += t->objs[o].npub;
	}
}

/*
 * @fn over every thread: speculatively on both cores (when the trace is
 * large enough for cp_par_two), then, if either met a note or failure or
 * ran out of memory, serially.  @count: @fn counts publishes into
 * c->npub, which then become the objects' (cp_trace_obj.npub).  0, or -1.
 */
static int thread_pass(struct cp_trd *r, thread_pass_fn fn, bool count)
{
	struct cp_trace *t = r->t;
	uint32_t mid = cp_trace_split_threads(t);
	struct pass_job j[2] = {
		{ .r = *r, .fn = fn, .lo = 0, .hi = mid },
		{ .r = *r, .fn = fn, .lo = mid, .hi = t->nthreads },
	};
	struct pass_ctx serial = { 0 };
	bool ok = true;
	int ret = 0;

	for (int k = 0; k < 2; k++) {
		j[k].r.spec = true;
		j[k].r.bail = false;
		if (count && !(j[k].c.npub = calloc(t->nobjs ? t->nobjs : 1,
						    sizeof(*j[k].c.npub))))
			ok = false;
	}
	if (ok) {
		cp_par_two(t->nvertices, pass_job_run, &j[1], pass_job_run,
			   &j[0]);
		ok = !j[0].r.bail && !j[1].r.bail;
	}
	if (ok && count)
		set_npub(t, j[0].c.npub, j[1].c.npub);
	for (int k = 0; k < 2; k++) {
		free(j[k].c.npub);
		free(j[k].c.stack);
	}
	if (ok)
		return 0;
	if (count && !(serial.npub = calloc(t->nobjs ? t->nobjs : 1,
					    sizeof(*serial.npub))))
		return cp_trd_fail(r, 0, "out of memory");
	for (uint32_t tid = 0; tid < t->nthreads && !ret; tid++)
		ret = fn(r, tid, &serial);
	if (!ret && count)
		set_npub(t, serial.npub, NULL);
	free(serial.npub);
	free(serial.stack);
	return ret;
}

static int check_objects(struct cp_trd *r)
{
	struct cp_trace *t = r->t;
	struct cp_site *pool;
	uint32_t maxid = 0;

	for (size_t i = 0; i < r->ndefs; i++) {
		if (r->defs[i].obj > r->total_ev) {
			if (cp_trd_note(r, r->defs[i].off, "dropped",
					"object id %" PRIu32 " out of range",
					r->defs[i].obj))
				return -1;
			r->defs[i].obj = 0;	/* dropped */
		}
		if (r->defs[i].obj > maxid)
			maxid = r->defs[i].obj;
	}
	t->nobjs = maxid + 1;
	t->objs = cp_big_calloc(t->nobjs, sizeof(*t->objs));
	if (!t->objs)
		return cp_trd_fail(r, 0, "out of memory");
	for (size_t i = 0; i < r->ndefs; i++) {
		const struct cp_trd_def *d = &r->defs[i];
		struct cp_trace_obj *o = &t->objs[d->obj];

		if (!d->obj)
			continue;
		if (o->defined && (o->kind != d->kind || o->addr != d->addr ||
				   o->extra != d->extra)) {
			if (cp_trd_note(r, d->off, "the first definition kept",
					"object %" PRIu32 " defined twice, differently",
					d->obj))
				return -1;
			continue;
		}
		o->defined = true;
		o->kind = d->kind;
		o->addr = d->addr;
		o->extra = d->extra;
	}
	for (size_t i = 0; i < r->nunt; i++) {
		uint32_t id = r->unt[i].obj;

		if (id >= t->nobjs || !t->objs[id].defined) {
			if (cp_trd_note(r, r->unt[i].off, "ignored",
					"OBJ_UNTRACK of undefined object %" PRIu32,
					id))
				return -1;
			continue;
		}
		t->objs[id].untracked = true;
	}
	/* a site of an object no event names is of no use: dropped */
	if (!r->nsites)
		return 0;
	if (!(pool = t->site_callers = cp_trd_site_pool(r)))
		return cp_trd_fail(r, 0, "out of memory");
	for (size_t i = 0; i < r->nsites; i++) {
		uint32_t id = r->sites[i].obj;

		if (id < t->nobjs && t->objs[id].defined)
			cp_trd_site_apply(r, &t->objs[id].site, &r->sites[i],
					  pool);
	}
	return 0;
}

/*
 * The uses of vertex @i of thread @tid: a region's string known (else the
 * file is refused: synth_strings named every one in salvage), its object
 * defined and of a kind that publishes, SHARED only on an rwlock.  Counts
 * the object's PUBLISHes into @npub.  0, or -1 (strict).
 */
static int check_vertex_uses(struct cp_trd *r, uint32_t tid, uint32_t i,
			     uint32_t *npub)
{
	struct cp_trace *t = r->t;
	struct cp_tvert *v = &t->threads[tid].v[i];
	struct cp_targ *a = &t->threads[tid].a[i];
	unsigned kind = cp_tvert_kind(v);
	struct cp_trace_str key = { .id = (uint32_t)a->arg };

	if ((kind == CP_EV_REGION_BEGIN || kind == CP_EV_REGION_END) &&
	    (!t->nstrs || !bsearch(&key, t->strs, t->nstrs, sizeof(key),
				   cp_trd_cmp_str)))
		return VFAIL(r, tid, i, "%s of undefined string %" PRIu64,
			     cp_trace_kind_name(kind), a->arg);
	if (!v->obj)
		return 0;
	if (v->obj >= t->nobjs || !t->objs[v->obj].defined) {
		if (cp_trd_vnote(r, tid, i, "made inert",
				 "%s of undefined object %" PRIu32,
				 cp_trace_kind_name(kind), v->obj))
			return -1;
		cp_trd_inert(v, a);
		return 0;
	}
	if ((kind == CP_EV_PUBLISH || kind == CP_EV_CONSUME) &&
	    !t->objs[v->obj].kind) {
		if (cp_trd_vnote(r, tid, i, "made inert",
				 "%s of object %" PRIu32 ", which has no kind",
				 cp_trace_kind_name(kind), v->obj))
			return -1;
		cp_trd_inert(v, a);
		return 0;
	}
	if (cp_tvert_shared(v) && t->objs[v->obj].kind != CP_OBJ_RWLOCK) {
		if (cp_trd_vnote(r, tid, i, "taken as exclusive",
				 "SHARED CONSUME of object %" PRIu32 ", a %s, not an rwlock",
				 v->obj,
				 cp_obj_kind_name(t->objs[v->obj].kind)))
			return -1;
		v->op &= (uint8_t)~CP_EVF_SHARED;
	}
	if (kind == CP_EV_PUBLISH)
		npub[v->obj]++;
	return 0;
}

/* The uses of thread @tid's vertices (a thread_pass_fn). */
static int thread_uses(struct cp_trd *r, uint32_t tid, struct pass_ctx *c)
{
	for (uint32_t i = 0; i < r->t->threads[tid].nv; i++)
		if (check_vertex_uses(r, tid, i, c->npub))
			return -1;
	return 0;
}

/*
 * Publishes grouped by object, sorted by seq.  Sequences are dense (1..n)
 * in every trace the runtime writes, so each goes straight to its slot;
 * an object with gaps (or, in salvage, a sequence published twice) is
 * marked sparse and placed by sort_sparse.
 */
static int place_publishes(struct cp_trd *r)
{
	struct cp_trace *t = r->t;
	uint64_t k = 0;

	if (t->npub > UINT32_MAX)
		return cp_trd_fail(r, 0, "too many PUBLISH events");
	t->pub = cp_big_malloc((t->npub ? t->npub : 1) * sizeof(*t->pub));
	if (!t->pub)
		return cp_trd_fail(r, 0, "out of memory");
	for (uint32_t o = 1; o < t->nobjs; o++) {
		t->objs[o].pub_off = (uint32_t)k;
		k += t->objs[o].npub;
	}
	for (uint64_t i = 0; i < t->npub; i++)
		t->pub[i].seq = 0;	/* empty slot */
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];

		for (uint32_t i = 0; i < th->nv; i++) {
			const struct cp_tvert *v = &th->v[i];
			const struct cp_targ *a = &th->a[i];
			struct cp_trace_obj *o;
			struct cp_trace_pub *pb;

			cp_trace_pub_prefetch(t, th, i + CP_TRACE_PUB_AHEAD,
					      CP_EV_PUBLISH);
			if (cp_tvert_kind(v) != CP_EV_PUBLISH)
				continue;
			o = &t->objs[v->obj];
			if (o->sparse)
				continue;
			if (a->arg > o->npub) {
				o->sparse = true;	/* sort_sparse */
				continue;
			}
			pb = &t->pub[o->pub_off + a->arg - 1];
			if (pb->seq && !r->strict) {
				o->sparse = true;	/* sort_sparse */
				continue;
			}
			if (pb->seq)
				return VFAIL(r, tid, i,
					     "object %" PRIu32 " publishes sequence %" PRIu64 " twice",
					     v->obj, a->arg);
			pb->seq = a->arg;
			pb->tid = tid;
			pb->vi = i;
		}
	}
	return 0;
}

/* The publishes of sparse objects, in file order per thread, then sorted
 * by seq; a sequence published twice is made inert but for the first.
 * Nothing to do, and no pass over the vertices, when no object is sparse
 * (every trace the runtime writes whole). */
static int sort_sparse(struct cp_trd *r)
{
	struct cp_trace *t = r->t;
	bool any = false;

	for (uint32_t o = 1; o < t->nobjs && !any; o++)
		any = t->objs[o].sparse;
	if (!any)
		return 0;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];

		for (uint32_t i = 0; i < th->nv; i++) {
			const struct cp_tvert *v = &th->v[i];
			const struct cp_targ *a = &th->a[i];
			struct cp_trace_obj *o;
			struct cp_trace_pub *pb;

			if (cp_tvert_kind(v) != CP_EV_PUBLISH ||
			    !t->objs[v->obj].sparse)
				continue;
			o = &t->objs[v->obj];
			if (!o->nfilled)
				for (uint32_t j = 0; j < o->npub; j++)
					t->pub[o->pub_off + j].seq = 0;
			pb = &t->pub[o->pub_off + o->nfilled++];
			pb->seq = a->arg;
			pb->tid = tid;
			pb->vi = i;
		}
	}
	for (uint32_t o = 1; o < t->nobjs; o++) {
		struct cp_trace_pub *pb = t->pub + t->objs[o].pub_off;
		uint32_t n = t->objs[o].npub;

		if (!t->objs[o].sparse)
			continue;
		qsort(pb, n, sizeof(*pb), cmp_pub);
		for (uint32_t i = 1, w = 1; i < n; i++) {
			if (pb[w - 1].seq != pb[i].seq) {
				pb[w++] = pb[i];
				continue;
			}
			if (cp_trd_vnote(r, pb[i].tid, pb[i].vi, "made inert",
					 "object %" PRIu32 " publishes sequence %" PRIu64 " twice",
					 o, pb[i].seq))
				return -1;
			cp_trd_inert(&t->threads[pb[i].tid].v[pb[i].vi],
				     &t->threads[pb[i].tid].a[pb[i].vi]);
			t->objs[o].npub--;
			t->npub--;
		}
	}
	return 0;
}

/* Every CONSUME range of thread @tid must be published; salvage: one
 * that is not depends on nothing (a thread_pass_fn). */
static int thread_consumes(struct cp_trd *r, uint32_t tid,
			   struct pass_ctx *c)
{
	struct cp_trace *t = r->t;
	struct cp_trace_thread *th = &t->threads[tid];

	(void)c;
	for (uint32_t i = 0; i < th->nv; i++) {
		struct cp_tvert *v = &th->v[i];
		struct cp_targ *a = &th->a[i];

		cp_trace_pub_prefetch(t, th, i + CP_TRACE_PUB_AHEAD,
				      CP_EV_CONSUME);
		if (cp_tvert_kind(v) != CP_EV_CONSUME || !a->cnt)
			continue;
		if (cp_trace_find_pub(t, v->obj, a->arg, a->cnt))
			continue;
		if (cp_trd_vnote(r, tid, i, "taken to depend on nothing",
				 "CONSUME of object %" PRIu32 " sequences %" PRIu64 "..%" PRIu64 " without a matching PUBLISH",
				 v->obj, a->arg, a->arg + a->cnt - 1))
			return -1;
		a->cnt = 0;
	}
	return 0;
}

/* The uses of objects, strings and publishes by every vertex. */
static int check_uses(struct cp_trd *r)
{
	if (thread_pass(r, thread_uses, true) || place_publishes(r) ||
	    sort_sparse(r) || thread_pass(r, thread_consumes, false))
		return -1;
	return 0;
}

/*
 * Salvage: region ids that no STRINGS block names (a partial trace lost
 * it) get the name "region N", so the regions are still told apart.
 */
static int synth_strings(struct cp_trd *r)
{
	struct cp_trace *t = r->t;
	uint32_t *ids = NULL, n = 0, cap = 0, k = 0;
	uint64_t cap_ids = 0;
	int ret = -1;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		const struct cp_trace_thread *th = &t->threads[tid];

		for (uint32_t i = 0; i < th->nv; i++) {
			const struct cp_tvert *v = &th->v[i];
			const struct cp_targ *a = &th->a[i];
			unsigned kind = cp_tvert_kind(v);

			if (kind != CP_EV_REGION_BEGIN &&
			    kind != CP_EV_REGION_END)
				continue;
			if (cp_trace_string(t, (uint32_t)a->arg))
				continue;
			if (cp_grow((void **)&ids, sizeof(*ids), &cap_ids,
					n + 1))
				goto out;
			ids[n++] = (uint32_t)a->arg;
		}
	}
	if (!n)
		return 0;
	qsort(ids, n, sizeof(*ids), cmp_u32);
	for (uint32_t i = 0; i < n; i++)
		if (!k || ids[k - 1] != ids[i])
			ids[k++] = ids[i];
	if (cp_trd_note(r, 0, "named by their ids",
			"%" PRIu32 " region names missing", k))
		goto out;
	cap = t->nstrs;
	t->synth = malloc((size_t)k * 24);
	if (!t->synth || cp_grow((void **)&t->strs, sizeof(*t->strs),
				     &(size_t){ cap }, t->nstrs + k))
		goto out;
	for (uint32_t i = 0; i < k; i++) {
		char *text = t->synth + (size_t)i * 24;

		snprintf(text, 24, "region %" PRIu32, ids[i]);
		t->strs[t->nstrs].id = ids[i];
		t->strs[t->nstrs++].text = text;
	}
	qsort(t->strs, t->nstrs, sizeof(*t->strs), cp_trd_cmp_str);
	ret = 0;
out:
	if (ret)
		cp_trd_fail(r, 0, "out of memory");
	free(ids);
	return ret;
}

/*
 * A thread whose events do not begin with THREAD_START (its first block
 * was lost) is dropped whole, before the uses are checked, so that no
 * other thread's CONSUME can point at its PUBLISHes.  0 or -1 (strict).
 */
static int drop_headless_threads(struct cp_trd *r)
{
	struct cp_trace *t = r->t;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];

		if (!th->nv || cp_tvert_kind(&th->v[0]) == CP_EV_THREAD_START)
			continue;
		if (cp_trd_vnote(r, tid, 0, "its events are dropped",
				 "thread %" PRIu32 " does not begin with THREAD_START",
				 tid))
			return -1;
		t->nvertices -= th->nv;
		th->nv = 0;
	}
	return 0;
}

/*
 * A thread created but never seen running (it had not started when the
 * process ended, or a partial trace lost its events) has no block: widen
 * the table to every tid a THREAD_CREATE names, within the sanity bound
 * on thread ids, so it is a thread without events rather than an unknown
 * one.
 */
static int cover_created(struct cp_trd *r)
{
	struct cp_trace *t = r->t;
	uint64_t bound = 4 * (uint64_t)r->nblks + t->nthreads + 64;
	uint32_t n = t->nthreads;
	struct cp_trace_thread *nt;

	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		for (uint32_t i = 0; i < t->threads[tid].nv; i++) {
			const struct cp_tvert *v = &t->threads[tid].v[i];
			const struct cp_targ *a = &t->threads[tid].a[i];

			if (cp_tvert_kind(v) == CP_EV_THREAD_CREATE &&
			    a->arg >= n && a->arg < bound)
				n = (uint32_t)a->arg + 1;
		}
	if (n == t->nthreads)
		return 0;
	nt = realloc(t->threads, n * sizeof(*nt));
	if (!nt)
		return cp_trd_fail(r, 0, "out of memory");
	memset(nt + t->nthreads, 0, (n - t->nthreads) * sizeof(*nt));
	t->threads = nt;
	t->nthreads = n;
	return 0;
}

/* THREAD_START of thread @tid at vertex @i: the first vertex, naming a
 * known parent (salvage: a second one is inert, an unknown parent none). */
static int link_start(struct cp_trd *r, uint32_t tid, uint32_t i)
{
	struct cp_trace *t = r->t;
	struct cp_trace_thread *th = &t->threads[tid];
	struct cp_tvert *v = &th->v[i];
	struct cp_targ *a = &th->a[i];

	if (i != 0) {
		if (cp_trd_vnote(r, tid, i, "made inert",
				 "second THREAD_START in thread %" PRIu32, tid))
			return -1;
		cp_trd_inert(v, a);
		return 0;
	}
	if (!a->arg)
		return 0;
	if (a->arg - 1 >= t->nthreads || a->arg - 1 == tid) {
		if (cp_trd_vnote(r, tid, i, "taken as parentless",
				 "thread %" PRIu32 " started by unknown thread %" PRIu64,
				 tid, a->arg - 1))
			return -1;
		a->arg = 0;
		return 0;
	}
	th->parent = (uint32_t)(a->arg - 1);
	return 0;
}

/* THREAD_CREATE or THREAD_JOIN of thread @tid at vertex @i: a known
 * other thread, created once (salvage: inert otherwise). */
static int link_child(struct cp_trd *r, uint32_t tid, uint32_t i)
{
	struct cp_trace *t = r->t;
	struct cp_tvert *v = &t->threads[tid].v[i];
	struct cp_targ *a = &t->threads[tid].a[i];
	bool create = cp_tvert_kind(v) == CP_EV_THREAD_CREATE;
	struct cp_trace_thread *c;

	if (a->arg >= t->nthreads || a->arg == tid) {
		if (cp_trd_vnote(r, tid, i, "made inert",
				 "%s of unknown thread %" PRIu64,
				 create ? "THREAD_CREATE" : "THREAD_JOIN",
				 a->arg))
			return -1;
		cp_trd_inert(v, a);
		return 0;
	}
	if (!create)
		return 0;
	c = &t->threads[a->arg];
	if (c->create_v != UINT32_MAX) {
		if (cp_trd_vnote(r, tid, i, "made inert",
				 "thread %" PRIu64 " created twice", a->arg))
			return -1;
		cp_trd_inert(v, a);
		return 0;
	}
	c->create_v = i;
	return 0;
}

/* Creates, starts and exits of every thread: parent, create_v, exit_v
 * (salvage: events after THREAD_EXIT make the exit inert). */
static int link_threads(struct cp_trd *r)
{
	struct cp_trace *t = r->t;
	bool any = false;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		t->threads[tid].tid = tid;
		t->threads[tid].parent = UINT32_MAX;
		t->threads[tid].create_v = UINT32_MAX;
		t->threads[tid].exit_v = UINT32_MAX;
	}
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];

		if (th->nv)
			any = true;
		for (uint32_t i = 0; i < th->nv; i++) {
			unsigned kind = cp_tvert_kind(&th->v[i]);
			int ret = 0;

			if (th->exit_v != UINT32_MAX) {
				if (cp_trd_vnote(r, tid, i, "made inert",
						 "thread %" PRIu32 " has events after THREAD_EXIT",
						 tid))
					return -1;
				cp_trd_inert(&th->v[th->exit_v],
					     &th->a[th->exit_v]);
				th->exit_v = UINT32_MAX;
			}
			if (kind == CP_EV_THREAD_START)
				ret = link_start(r, tid, i);
			else if (kind == CP_EV_THREAD_EXIT)
				th->exit_v = i;
			else if (kind == CP_EV_THREAD_CREATE ||
				 kind == CP_EV_THREAD_JOIN)
				ret = link_child(r, tid, i);
			if (ret)
				return -1;
		}
	}
	if (!any)
		return cp_trd_fail(r, 0, "no events in the trace");
	return 0;
}

/* A thread's parent must say it created it (salvage: parentless). */
static int check_parents(struct cp_trd *r)
{
	struct cp_trace *t = r->t;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];
		struct cp_trace_thread *p;

		if (!th->nv)
			continue;
		if (th->parent == UINT32_MAX) {
			if (th->create_v != UINT32_MAX &&
			    cp_trd_vnote(r, tid, 0, "taken as parentless",
					 "thread %" PRIu32 " was created but its THREAD_START names no parent",
					 tid))
				return -1;
			continue;
		}
		p = &t->threads[th->parent];
		if (th->create_v == UINT32_MAX || th->create_v >= p->nv ||
		    cp_tvert_kind(&p->v[th->create_v]) != CP_EV_THREAD_CREATE ||
		    p->a[th->create_v].arg != tid) {
			if (cp_trd_vnote(r, tid, 0, "taken as parentless",
					 "thread %" PRIu32 " started by thread %" PRIu32 ", which has no THREAD_CREATE of it",
					 tid, th->parent))
				return -1;
			th->parent = UINT32_MAX;
			th->a[0].arg = 0;
		}
	}
	return 0;
}

/* THREAD_JOIN at vertex @i of @tid needs the child's THREAD_EXIT
 * (salvage: the child's last event, or inert if it has none). */
static int check_join(struct cp_trd *r, uint32_t tid, uint32_t i)
{
	struct cp_tvert *v = &r->t->threads[tid].v[i];
	struct cp_targ *a = &r->t->threads[tid].a[i];
	struct cp_trace_thread *c = &r->t->threads[a->arg];

	/* (an exit seen before a later cut of the child's events counts as
	 * missing) */
	if (c->exit_v < c->nv)
		return 0;
	if (cp_trd_vnote(r, tid, i, c->nv ? "the child taken to end at its "
			 "last event" : "made inert",
			 "THREAD_JOIN of thread %" PRIu64 ", which has no THREAD_EXIT",
			 a->arg))
		return -1;
	if (c->nv)
		c->exit_v = c->nv - 1;
	else
		cp_trd_inert(v, a);
	return 0;
}

/*
 * Joins and the nesting of thread @tid: LEAVE closes the innermost ENTER,
 * REGION_END the innermost open region of its id, with whatever opened
 * inside (salvage: one with nothing to close is inert).  c->stack (of
 * c->cap entries: 0 for a procedure, id + 1 for a region) is scratch the
 * caller frees.  A thread_pass_fn.
 */
static int check_nesting(struct cp_trd *r, uint32_t tid, struct pass_ctx *c)
{
	struct cp_trace_thread *th = &r->t->threads[tid];
	uint64_t **stack = &c->stack, *cap = &c->cap;
	size_t depth = 0, j;

	for (uint32_t i = 0; i < th->nv; i++) {
		struct cp_tvert *v = &th->v[i];
		struct cp_targ *a = &th->a[i];
		unsigned kind = cp_tvert_kind(v);
		uint64_t tag = kind == CP_EV_REGION_END ? a->arg + 1 : 0;

		switch (kind) {
		case CP_EV_THREAD_JOIN:
			if (check_join(r, tid, i))
				return -1;
			break;
		case CP_EV_ENTER:
		case CP_EV_REGION_BEGIN:
			if (cp_grow((void **)stack, sizeof(**stack), cap,
					depth + 1))
				return cp_trd_fail(r, 0, "out of memory");
			/* 0: a procedure; id + 1: a region */
			(*stack)[depth++] = kind == CP_EV_ENTER ? 0 :
					    a->arg + 1;
			break;
		case CP_EV_LEAVE:
		case CP_EV_REGION_END:
			for (j = depth; j > 0 && (*stack)[j - 1] != tag; j--)
				;
			if (j) {
				depth = j - 1;
				break;
			}
			if (kind == CP_EV_LEAVE ?
			    cp_trd_vnote(r, tid, i, "made inert",
					 "LEAVE without ENTER in thread %" PRIu32,
					 tid) :
			    cp_trd_vnote(r, tid, i, "made inert",
					 "REGION_END of region %" PRIu64 " that is not open in thread %" PRIu32,
					 a->arg, tid))
				return -1;
			cp_trd_inert(v, a);
			break;
		default:
			break;
		}
	}
	return 0;
}

/* Thread links, parents, joins and nesting. */
static int check_threads(struct cp_trd *r)
{
	if (cover_created(r) || link_threads(r) || check_parents(r) ||
	    thread_pass(r, check_nesting, false))
		return -1;
	return 0;
}

int cp_trd_check(struct cp_trd *r)
{
	if (check_objects(r) || (!r->strict && synth_strings(r)) ||
	    drop_headless_threads(r) || check_uses(r) || check_threads(r))
		return -1;
	return 0;
}
