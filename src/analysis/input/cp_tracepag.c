/*
 * cp_tracepag.c - build the program activity graph of a trace.
 *
 * The PAG of [YangMiller88, §3] with the shared-memory edges of
 * [Hollingsworth98, Fig. 10] (locks: the n-th acquire depends on the (n-1)-th
 * release; barriers: every departure of an episode depends on every arrival of
 * it) and the item edges of Fig. 11, all expressed in the trace by the one
 * PUBLISH/CONSUME scheme of cp_trace_format.h, so this file knows no primitive:
 * a CONSUME of (obj, lo, cnt) depends on the PUBLISHes of obj with seq in [lo,
 * lo+cnt).  The runtime already decided which release an acquire depends on;
 * the graph only draws it.
 *
 * Invariants: vertex ids of thread tid are vbase[tid] .. vbase[tid+1]-1 in
 * program order, so a thread's segment edges run from lower to higher ids;
 * every vertex lies on a source-to-sink path (each thread's first vertex
 * has an edge from the source or from its creator, its last one an edge to
 * the sink), so the CPM's roots and leaves are exactly source and sink and
 * the longest path is the critical path of the run.  The longest path
 * ending at a vertex equals the online algorithm's `len` at that event
 * ([Hollingsworth98, Fig. 2]): same timestamps, same max at every merge.
 *
 * Segment attribution: the edge into vertex i belongs to the calling
 * context current after vertex i-1, i.e. the one the thread ran in during
 * the interval.  LEAVE closes the innermost ENTER and whatever regions were
 * opened inside it; REGION_END closes its region and whatever was opened
 * inside it (the reader checked both have something to close).
 *
 * Cost: one pass over the vertices, O(v + e) time with hash lookups per
 * ENTER (address -> procedure, cached) and per new calling context; 5
 * bytes of attributes per edge (kind, CCT node) on top of the graph's own
 * 16, and 12 per hub.
 */
#include "cp_tracepag.h"
#include "cp_debug.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_grow.h"
#include "cp_die.h"
#include "cp_hash.h"
#include "cp_samples.h"
#include "cp_symbolize.h"

/* Debug invariants: type-checked always, run when this is true. */
static const bool cp_tracepag_debug = CP_DEBUG;

struct frame {
	uint64_t tag;		/* 0: ENTER; region id + 1: a region */
	uint32_t node;		/* CCT node opened by the frame */
};

struct bld {
	bool bad_edge;			/* an edge to no vertex was asked */
	bool too_long;			/* the useful times overflow */
	uint32_t bad_tail, bad_head;	/* its ends, for the message */
	struct cp_tracepag *tp;
	uint32_t cap_e;			/* room in e_kind */
	uint32_t cap_cct_e;		/* room in e_cct */
	uint32_t cap_procs, cap_cct, cap_pool, npool;
	struct cp_map2 procmap;		/* (addr, 0) / (string id, 1) /
					 * (sampled name, 2) -> proc */
	struct cp_map2 stackmap;	/* (sampled stack, 0) -> CCT node */
	struct cp_smap names;		/* proc name -> proc */
	struct cp_map2 cctmap;		/* (parent, proc) -> node */
	struct cp_map2 hubs;		/* (obj << 32 | cnt, lo) -> hub index */
	uint32_t hub0;			/* vertex id of hub 0 */
	struct frame *stack;
	uint64_t cap_stack;
};

/*
 * The graph's invariants: a thread's segment into vertex i is edge
 * segbase + i - 1 from vertex i-1 to i, every edge's attributes agree
 * with its kind, and a hub's in-edges are the range hubs[] gives.  Dies on a violation; a cheap no-op unless debugging.
 */
static void cp_tracepag_assert(const struct cp_tracepag *tp)
{
	const struct cp_pag *g = &tp->g;

	if (!cp_tracepag_debug)
		return;
	for (uint32_t tid = 0; tid < tp->t->nthreads; tid++) {
		uint32_t nv = tp->t->threads[tid].nv;

		for (uint32_t i = 1; i < nv; i++) {
			uint32_t e = tp->segbase[tid] + i - 1;

			if (cp_pag_tail(g, e) != tp->vbase[tid] + i - 1 ||
			    g->head[e] != tp->vbase[tid] + i ||
			    tp->e_kind[e] > CP_TE_WAIT ||
			    cp_tracepag_thread(tp, e) != tid)
				cp_die("trace PAG: segment out of place");
		}
	}
	for (uint32_t e = 0; e < g->ne; e++) {
		if (tp->e_kind[e] > CP_TE_AUX ||
		    (tp->e_kind[e] != CP_TE_USEFUL && g->w[e]) ||
		    cp_tracepag_cct(tp, e) >= tp->ncct ||
		    (e >= tp->nseg && tp->e_kind[e] <= CP_TE_WAIT))
			cp_die("trace PAG: edge attributes disagree");
		/* a hub's in-edges are its range, its out-edges after it */
		if (g->head[e] > tp->sink &&
		    e - tp->hubs[g->head[e] - tp->sink - 1].in >=
		    tp->hubs[g->head[e] - tp->sink - 1].nin)
			cp_die("trace PAG: a hub's in-edge out of its range");
	}
	for (uint32_t h = 0; h < tp->nhub; h++)
		for (uint32_t i = 0; i < tp->hubs[h].nin; i++)
			if (g->head[tp->hubs[h].in + i] != tp->sink + 1 + h)
				cp_die("trace PAG: a hub's range holds another "
				       "edge");
}

/* Grow the per-edge attributes to hold @need edges; 0 or -1 (memory). */
static int grow_attrs(struct bld *b, uint32_t need)
{
	struct cp_tracepag *tp = b->tp;
	uint32_t c = b->cap_e;

	if (cp_grow32((void **)&tp->e_kind, 1, &c, need))
		return -1;
	b->cap_e = c;
	return 0;
}

/*
 * Debug invariant: the thread, object and source the builder meant for
 * edge @e are those the accessors derive from its ends.  Dies on a
 * mismatch; a no-op unless debugging.
 */
static void cp_tracepag_edge_check(const struct cp_tracepag *tp, uint32_t e,
				   uint32_t thread, uint32_t obj, uint32_t src)
{
	if (!cp_tracepag_debug || tp->e_kind[e] <= CP_TE_WAIT)
		return;		/* a segment (nseg still counts them) */
	if (cp_tracepag_thread(tp, e) != thread ||
	    cp_tracepag_obj(tp, e) != obj || cp_tracepag_src(tp, e) != src)
		cp_die("trace PAG: an edge's ends disagree with its attributes");
}

/* Add an edge with its attributes; returns 0 or -1 (memory). */
static int edge(struct bld *b, uint32_t tail, uint32_t head, uint64_t w,
		uint8_t kind, uint32_t thread, uint32_t cct, uint32_t obj,
		uint32_t src)
{
	struct cp_tracepag *tp = b->tp;
	struct cp_pag *g = &tp->g;
	uint32_t e = g->ne;

	/* the reader promises every reference resolves; a trace it repaired
	 * must still never make the graph index outside itself */
	if (__builtin_expect(tail >= g->nv || head >= g->nv, 0)) {
		b->bad_edge = true;
		b->bad_tail = tail;
		b->bad_head = head;
		return -1;
	}
	/* reserve_edges() sized every array: write them directly */
	if (__builtin_expect(cp_pag_has_room(g, e, tail, head) &&
			     e < b->cap_e, 1)) {
		cp_pag_put_edge(g, e, tail, head, w);
	} else {
		e = cp_pag_add_edge(g, tail, head, w, CP_PAG_NONE);
		if (e == CP_PAG_NONE)
			return -1;
	}
	if (e >= b->cap_e && grow_attrs(b, e + 1))
		return -1;
	tp->e_kind[e] = kind;
	/* the segments come first; every other edge's context is the root */
	if (kind <= CP_TE_WAIT) {
		if (e >= b->cap_cct_e &&
		    cp_grow32((void **)&tp->e_cct, 4, &b->cap_cct_e, e + 1))
			return -1;
		tp->e_cct[e] = cct;
	}
	/* thread, object and source follow from the ends (cp_tracepag.h) */
	cp_tracepag_edge_check(tp, e, thread, obj, src);
	return 0;
}

/* Procedure id of @name, interned. */
static uint32_t intern_proc(struct bld *b, const char *name)
{
	struct cp_tracepag *tp = b->tp;
	uint32_t id = cp_smap_get(&b->names, tp->procs, name);

	if (id != CP_HASH_NONE)
		return id;
	if (cp_grow32((void **)&tp->procs, sizeof(char *), &b->cap_procs,
		     tp->nprocs + 1))
		return CP_HASH_NONE;
	id = tp->nprocs;
	tp->procs[id] = strdup(name);
	if (!tp->procs[id])
		return CP_HASH_NONE;
	tp->nprocs++;
	if (cp_smap_add(&b->names, tp->procs, id))
		return CP_HASH_NONE;
	return id;
}

/*
 * Name of the function entered at @addr: the runtime's SYMBOLS, else,
 * when the trace has a module map, the symbolizer's (the function that
 * holds the address, not what was inlined at its start), else "0x...".
 */
static const char *entered(const struct cp_trace *t, uint64_t addr,
			   char *buf, size_t len)
{
	const char *name = cp_trace_sym_name(t, addr, buf, len);
	const struct cp_symframe *f;
	uint32_t n;

	if (name != buf || !t->samples || !t->samples->sym)
		return name;
	n = cp_symbolize(t->samples->sym, addr, &f);
	return n ? f[n - 1].name : name;
}

static uint32_t proc_of_addr(struct bld *b, uint64_t addr)
{
	uint32_t p = cp_map2_get(&b->procmap, addr, 0);
	const char *name;
	char buf[32], *dm;

	if (p != CP_HASH_NONE)
		return p;
	name = entered(b->tp->t, addr, buf, sizeof(buf));
	dm = cp_symbolize_demangle(name);	/* C++ names as g++ prints */
	p = intern_proc(b, dm ? dm : name);
	free(dm);
	if (p == CP_HASH_NONE || cp_map2_put(&b->procmap, addr, 0, p))
		return CP_HASH_NONE;
	return p;
}

static uint32_t proc_of_region(struct bld *b, uint64_t id)
{
	uint32_t p = cp_map2_get(&b->procmap, id, 1);
	const char *name;

	if (p != CP_HASH_NONE)
		return p;
	name = cp_trace_string(b->tp->t, (uint32_t)id);
	p = intern_proc(b, name ? name : "(region)");
	if (p == CP_HASH_NONE || cp_map2_put(&b->procmap, id, 1, p))
		return CP_HASH_NONE;
	return p;
}

/* Procedure of sampled function name @i (cp_samples.names[i]). */
static uint32_t proc_of_sampled(struct bld *b, uint32_t i)
{
	uint32_t p = cp_map2_get(&b->procmap, i, 2);

	if (p != CP_HASH_NONE)
		return p;
	p = intern_proc(b, b->tp->t->samples->names[i]);
	if (p == CP_HASH_NONE || cp_map2_put(&b->procmap, i, 2, p))
		return CP_HASH_NONE;
	return p;
}

static uint32_t cct_child(struct bld *b, uint32_t parent, uint32_t proc);

/* The CCT node of sampled stack @id: its functions' path from the root. */
static uint32_t node_of_stack(struct bld *b, uint64_t id)
{
	const struct cp_samples *s = b->tp->t->samples;
	uint32_t n = cp_map2_get(&b->stackmap, id, 0);

	if (n != CP_HASH_NONE)
		return n;
	if (!s || id >= s->nstacks)
		return CP_HASH_NONE;	/* cp_sampled.c wrote them all */
	n = 0;
	for (uint64_t i = s->stk_off[id]; i < s->stk_off[id + 1]; i++) {
		uint32_t p = proc_of_sampled(b, s->stk[i]);

		if (p == CP_HASH_NONE)
			return CP_HASH_NONE;
		n = cct_child(b, n, p);
		if (n == CP_HASH_NONE)
			return CP_HASH_NONE;
	}
	if (cp_map2_put(&b->stackmap, id, 0, n))
		return CP_HASH_NONE;
	return n;
}

/* The CCT child of @parent for procedure @proc, created on first use. */
static uint32_t cct_child(struct bld *b, uint32_t parent, uint32_t proc)
{
	struct cp_tracepag *tp = b->tp;
	uint32_t n = cp_map2_get(&b->cctmap, parent, proc);
	struct cp_cct_node *pn, *nn;
	bool seen = false;

	if (n != CP_HASH_NONE)
		return n;
	if (cp_grow32((void **)&tp->cct, sizeof(*tp->cct), &b->cap_cct,
		     tp->ncct + 1))
		return CP_HASH_NONE;
	n = tp->ncct++;
	pn = &tp->cct[parent];
	nn = &tp->cct[n];
	nn->parent = parent;
	nn->proc = proc;
	nn->depth = pn->depth + 1;
	for (uint32_t i = 0; i < pn->incl_n; i++)
		if (tp->incl_pool[pn->incl_off + i] == proc)
			seen = true;
	if (seen) {
		/* recursion: the same distinct procedures as the parent */
		nn->incl_off = pn->incl_off;
		nn->incl_n = pn->incl_n;
	} else {
		uint32_t need = b->npool + pn->incl_n + 1;

		if (cp_grow32((void **)&tp->incl_pool, 4, &b->cap_pool, need))
			return CP_HASH_NONE;
		pn = &tp->cct[parent];	/* (cct did not move, pool did) */
		memcpy(tp->incl_pool + b->npool, tp->incl_pool + pn->incl_off,
		       pn->incl_n * sizeof(uint32_t));
		tp->incl_pool[b->npool + pn->incl_n] = proc;
		nn->incl_off = b->npool;
		nn->incl_n = pn->incl_n + 1;
		b->npool = need;
	}
	if (cp_map2_put(&b->cctmap, parent, proc, n))
		return CP_HASH_NONE;
	return n;
}

static int push(struct bld *b, size_t *depth, uint64_t tag, uint32_t node)
{
	if (cp_grow((void **)&b->stack, sizeof(*b->stack), &b->cap_stack,
		    *depth + 1))
		return -1;
	b->stack[*depth].tag = tag;
	b->stack[*depth].node = node;
	(*depth)++;
	return 0;
}

/* Segment edges and calling contexts of thread @tid. */
static int thread_segments(struct bld *b, uint32_t tid)
{
	struct cp_tracepag *tp = b->tp;
	const struct cp_trace_thread *th = &tp->t->threads[tid];
	uint32_t vb = tp->vbase[tid], ctx = 0;
	size_t depth = 0, j;

	tp->segbase[tid] = tp->g.ne;
	for (uint32_t i = 0; i < th->nv; i++) {
		const struct cp_tvert *v = &th->v[i];
		const struct cp_targ *a = &th->a[i];
		unsigned kind = cp_tvert_kind(v);
		uint32_t p;

		if (i > 0) {
			uint64_t dt = v->ts - th->v[i - 1].ts;
			bool wait = cp_tvert_waits(v);

			if (edge(b, vb + i - 1, vb + i, wait ? 0 : dt,
				 wait ? CP_TE_WAIT : CP_TE_USEFUL, tid, ctx,
				 wait ? v->obj : 0, CP_PAG_NONE))
				return -1;
			tp->nseg++;
			/* every path is at most the sum of the weights, the
			 * useful times (cp_cpm.h): it must fit in 64 bits */
			if (wait) {
				tp->wait_ns += dt;
			} else if (__builtin_add_overflow(tp->useful_ns, dt,
							  &tp->useful_ns)) {
				b->too_long = true;
				return -1;
			}
		}
		switch (kind) {
		case CP_EV_ENTER:
		case CP_EV_REGION_BEGIN:
			p = kind == CP_EV_ENTER ? proc_of_addr(b, a->arg)
						: proc_of_region(b, a->arg);
			if (p == CP_HASH_NONE)
				return -1;
			ctx = cct_child(b, ctx, p);
			if (ctx == CP_HASH_NONE ||
			    push(b, &depth,
				 kind == CP_EV_ENTER ? 0 : a->arg + 1, ctx))
				return -1;
			break;
		case CP_EV_LEAVE:
			for (j = depth; j > 0 && b->stack[j - 1].tag; j--)
				;
			depth = j ? j - 1 : 0;
			ctx = depth ? b->stack[depth - 1].node : 0;
			break;
		case CP_EV_REGION_END:
			for (j = depth;
			     j > 0 && b->stack[j - 1].tag != a->arg + 1; j--)
				;
			depth = j ? j - 1 : 0;
			ctx = depth ? b->stack[depth - 1].node : 0;
			break;
		case CP_TV_STACK:
			/* sampled: no ENTER frames, the stack is the context */
			ctx = node_of_stack(b, a->arg);
			if (ctx == CP_HASH_NONE)
				return -1;
			depth = 0;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* Dependency edges into the vertices of thread @tid. */
static int thread_deps(struct bld *b, uint32_t tid)
{
	struct cp_tracepag *tp = b->tp;
	const struct cp_trace *t = tp->t;
	const struct cp_trace_thread *th = &t->threads[tid];
	uint32_t vb = tp->vbase[tid];

	for (uint32_t i = 0; i < th->nv; i++) {
		const struct cp_tvert *v = &th->v[i];
		const struct cp_targ *a = &th->a[i];
		const struct cp_trace_pub *pb;
		uint32_t hub, c;

		cp_trace_pub_prefetch(t, th, i + CP_TRACE_PUB_AHEAD,
				      CP_EV_CONSUME);
		switch (cp_tvert_kind(v)) {
		case CP_EV_CONSUME:
			if (!a->cnt)
				break;
			pb = cp_trace_find_pub(t, v->obj, a->arg, a->cnt);
			if (!pb)
				return -1;	/* the reader checked */
			if (a->cnt == 1) {
				if (edge(b, tp->vbase[pb->tid] + pb->vi, vb + i,
					 0, CP_TE_DEP, tid, 0, v->obj,
					 pb->tid))
					return -1;
				tp->ndep++;
				break;
			}
			hub = cp_map2_get(&b->hubs,
					  (uint64_t)v->obj << 32 | a->cnt,
					  a->arg);
			if (hub == CP_HASH_NONE)
				return -1;	/* count_edges made them all */
			if (!tp->hubs[hub].nin) {
				tp->hubs[hub] = (struct cp_tracepag_hub){
					v->obj, tp->g.ne, a->cnt };
				hub += b->hub0;
				for (c = 0; c < a->cnt; c++)
					if (edge(b, tp->vbase[pb[c].tid] +
						 pb[c].vi, hub, 0, CP_TE_AUX,
						 CP_PAG_NONE, 0, v->obj,
						 pb[c].tid))
						return -1;
			} else {
				hub += b->hub0;
			}
			if (edge(b, hub, vb + i, 0, CP_TE_DEP, tid, 0, v->obj,
				 CP_PAG_NONE))
				return -1;
			tp->ndep++;
			break;
		case CP_EV_THREAD_JOIN:
			c = (uint32_t)a->arg;
			if (edge(b, tp->vbase[c] + t->threads[c].exit_v, vb + i,
				 0, CP_TE_DEP, tid, 0, 0, c))
				return -1;
			tp->ndep++;
			break;
		case CP_EV_THREAD_START:
			if (th->parent == CP_PAG_NONE) {
				if (edge(b, tp->source, vb + i, 0, CP_TE_AUX,
					 CP_PAG_NONE, 0, 0, CP_PAG_NONE))
					return -1;
				break;
			}
			if (edge(b, tp->vbase[th->parent] + th->create_v,
				 vb + i, 0, CP_TE_DEP, tid, 0, 0,
				 th->parent))
				return -1;
			tp->ndep++;
			break;
		default:
			break;
		}
	}
	if (th->nv && edge(b, vb + th->nv - 1, tp->sink, 0, CP_TE_AUX,
			   CP_PAG_NONE, 0, 0, CP_PAG_NONE))
		return -1;
	return 0;
}

/*
 * Count the edges the graph will have and number the hubs (one per
 * distinct CONSUME range of two or more), so that every array is
 * allocated once at its final size.
 */
static int count_edges(struct bld *b, uint64_t *nedges)
{
	const struct cp_trace *t = b->tp->t;
	uint64_t n = 0;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		const struct cp_trace_thread *th = &t->threads[tid];

		if (!th->nv)
			continue;
		n += th->nv - 1 + 2;	/* segments, source or create, sink */
		for (uint32_t i = 0; i < th->nv; i++) {
			const struct cp_tvert *v = &th->v[i];
			const struct cp_targ *a = &th->a[i];
			uint64_t key;

			if (cp_tvert_kind(v) == CP_EV_THREAD_JOIN) {
				n++;
				continue;
			}
			if (cp_tvert_kind(v) != CP_EV_CONSUME || !a->cnt)
				continue;
			n++;
			if (a->cnt == 1)
				continue;
			key = (uint64_t)v->obj << 32 | a->cnt;
			if (cp_map2_get(&b->hubs, key, a->arg) != CP_HASH_NONE)
				continue;
			if (cp_map2_put(&b->hubs, key, a->arg, b->tp->nhub++))
				return -1;
			n += a->cnt;
		}
	}
	*nedges = n;
	return 0;
}

/* Free the builder's scratch (the graph it built is @b->tp's). */
static void bld_free(struct bld *b)
{
	free(b->stack);
	cp_map2_free(&b->procmap);
	cp_map2_free(&b->stackmap);
	cp_map2_free(&b->cctmap);
	cp_map2_free(&b->hubs);
	cp_smap_free(&b->names);
}

/*
 * Allocate the graph's edge arrays (struct cp_pag's own, grown by
 * cp_pag_add_edge only when full) and ours at the final size: doubling
 * copies and page faults were half the build time.
 */
static int reserve_edges(struct bld *b, uint32_t n)
{
	struct cp_tracepag *tp = b->tp;
	struct cp_pag *g = &tp->g;
	uint32_t nseg = 0;

	/* the segments come first: chain edges, without a tail (cp_pag.h) */
	for (uint32_t tid = 0; tid < tp->t->nthreads; tid++)
		if (tp->t->threads[tid].nv)
			nseg += tp->t->threads[tid].nv - 1;
	if (!n)
		n = 1;
	g->cap_tail = n > nseg ? n - nseg : 1;
	b->cap_cct_e = nseg ? nseg : 1;
	g->tail = cp_big_malloc((size_t)g->cap_tail * sizeof(*g->tail));
	g->head = cp_big_malloc((size_t)n * sizeof(*g->head));
	g->w = cp_big_malloc((size_t)n * sizeof(*g->w));
	tp->e_kind = cp_big_malloc((size_t)n);
	tp->e_cct = cp_big_malloc((size_t)b->cap_cct_e * 4);
	if (!g->tail || !g->head || !g->w || !tp->e_kind || !tp->e_cct)
		return -1;
	g->cap_e = n;
	b->cap_e = n;
	return 0;
}

int cp_tracepag_build(struct cp_tracepag *tp, const struct cp_trace *t,
		      char *err, size_t errlen)
{
	uint64_t nedges;
	struct bld b;
	char why[256];
	uint64_t nv = 0;

	memset(tp, 0, sizeof(*tp));
	memset(&b, 0, sizeof(b));
	b.tp = tp;
	cp_pag_init(&tp->g);
	tp->t = t;
	if (t->nvertices + 2 >= UINT32_MAX) {
		snprintf(err, errlen, "%s: too many events for one graph",
			 t->path);
		return -1;
	}
	tp->vbase = malloc((t->nthreads + 1) * sizeof(*tp->vbase));
	tp->segbase = malloc((t->nthreads + 1) * sizeof(*tp->segbase));
	tp->cct = malloc(64 * sizeof(*tp->cct));
	if (!tp->vbase || !tp->segbase || !tp->cct)
		goto err_mem;
	b.cap_cct = 64;
	tp->cct[0] = (struct cp_cct_node){ .parent = CP_PAG_NONE,
					   .proc = CP_PAG_NONE };
	tp->ncct = 1;
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		tp->vbase[tid] = (uint32_t)nv;
		nv += t->threads[tid].nv;
	}
	tp->vbase[t->nthreads] = (uint32_t)nv;
	if (count_edges(&b, &nedges))
		goto err_mem;
	if (nedges >= UINT32_MAX - 1 || nv + 2 + tp->nhub >= UINT32_MAX - 1) {
		snprintf(err, errlen, "%s: too many events for one graph",
			 t->path);
		goto err;
	}
	tp->hubs = calloc(tp->nhub ? tp->nhub : 1, sizeof(*tp->hubs));
	if (!tp->hubs || reserve_edges(&b, (uint32_t)nedges))
		goto err_mem;
	b.hub0 = (uint32_t)nv + 2;
	for (uint64_t i = 0; i < nv + 2 + tp->nhub; i++)
		cp_pag_add_vertex(&tp->g);
	tp->source = (uint32_t)nv;
	tp->sink = (uint32_t)nv + 1;
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		if (thread_segments(&b, tid))
			goto err_mem;
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		if (thread_deps(&b, tid))
			goto err_mem;
	if (cp_pag_finish(&tp->g, why, sizeof(why))) {
		snprintf(err, errlen, "%s: the trace's dependencies form a cycle (%s)",
			 t->path, why);
		goto err;
	}
	bld_free(&b);
	cp_tracepag_assert(tp);
	return 0;
err_mem:
	if (b.too_long)
		snprintf(err, errlen, "%s: %s", t->path, CP_TRACE_TOO_LONG);
	else if (b.bad_edge)
		snprintf(err, errlen, "%s: an event depends on one the trace "
			 "does not hold (edge %" PRIu32 " -> %" PRIu32 " of %"
			 PRIu32 " vertices)", t->path, b.bad_tail,
			 b.bad_head, tp->g.nv);
	else
		snprintf(err, errlen, "%s: out of memory building the graph",
			 t->path);
err:
	bld_free(&b);
	cp_tracepag_free(tp);
	return -1;
}

void cp_tracepag_free(struct cp_tracepag *tp)
{
	cp_pag_free(&tp->g);
	free(tp->vbase);
	free(tp->segbase);
	free(tp->e_kind);
	free(tp->e_cct);
	free(tp->hubs);
	for (uint32_t i = 0; i < tp->nprocs; i++)
		free(tp->procs[i]);
	free(tp->procs);
	free(tp->cct);
	free(tp->incl_pool);
	memset(tp, 0, sizeof(*tp));
}

bool cp_tracepag_vertex(const struct cp_tracepag *tp, uint32_t v,
			uint32_t *tid, uint32_t *vi)
{
	if (v >= tp->vbase[tp->t->nthreads])
		return false;
	*tid = cp_tracepag_owner(tp->vbase, tp->t->nthreads, v);
	*vi = v - tp->vbase[*tid];
	return true;
}

const char *cp_tracepag_edge_name(const struct cp_tracepag *tp, uint32_t e,
				  char *buf, size_t len)
{
	const struct cp_pag *g = &tp->g;
	uint32_t obj = cp_tracepag_obj(tp, e), th = cp_tracepag_thread(tp, e);
	uint32_t src = cp_tracepag_src(tp, e), pr = cp_tracepag_proc(tp, e);
	const char *okind = obj ? cp_obj_kind_name(tp->t->objs[obj].kind)
				: "";
	uint32_t tid, vi;

	switch (tp->e_kind[e]) {
	case CP_TE_USEFUL:
		if (pr == CP_PAG_NONE)
			snprintf(buf, len, "T%" PRIu32, th);
		else
			snprintf(buf, len, "T%" PRIu32 " %s", th,
				 cp_tracepag_proc_name(tp, pr));
		break;
	case CP_TE_WAIT:
		if (obj)
			snprintf(buf, len, "T%" PRIu32 " wait %s#%" PRIu32, th,
				 okind, obj);
		else
			snprintf(buf, len, "T%" PRIu32 " wait", th);
		break;
	case CP_TE_DEP:
		if (cp_tracepag_vertex(tp, g->head[e], &tid, &vi) &&
		    cp_tvert_kind(&tp->t->threads[tid].v[vi]) ==
		    CP_EV_THREAD_START)
			snprintf(buf, len, "create T%" PRIu32 "->T%" PRIu32,
				 src, th);
		else if (!obj)
			snprintf(buf, len, "exit T%" PRIu32 "->T%" PRIu32 " join",
				 src, th);
		else if (src != CP_PAG_NONE)
			snprintf(buf, len, "%s#%" PRIu32 " T%" PRIu32 "->T%" PRIu32,
				 okind, obj, src, th);
		else
			snprintf(buf, len, "%s#%" PRIu32 " ->T%" PRIu32, okind,
				 obj, th);
		break;
	default:
		if (cp_pag_tail(g, e) == tp->source)
			snprintf(buf, len, "start");
		else if (g->head[e] == tp->sink)
			snprintf(buf, len, "end");
		else
			snprintf(buf, len, "%s#%" PRIu32 " T%" PRIu32 "->", okind,
				 obj, src);
		break;
	}
	return buf;
}
