/*
 * cp_sampled.c - turn a thread's sampled stacks into procedure activity
 * on its timeline.
 *
 * Model (DESIGN.md, "Sampled attribution"; the estimate is perf's and
 * gprof's: a sample stands for the time around it).  A sample's position
 * on its thread's timeline is its wall timestamp under the wall clock and
 * its thread CPU time under the cpu clock: the clock the vertices carry.
 * It falls in the segment (e1, e2] of two consecutive vertices; a sample
 * outside the thread's life or inside a wait segment is counted and not
 * used (a wait weighs nothing, whatever was running in it).  The used
 * samples are then laid on the thread's *useful* time U, the timeline
 * with the waits cut out: sample k at U_k holds from the midpoint of
 * (U_{k-1}, U_k) to the midpoint of (U_k, U_{k+1}); the first from the
 * thread's start, the last to its end.  So a stack's time is where the
 * samples say it ran, a wait keeps the stack current before it (a thread
 * blocks inside its function, as with instrumentation), and a segment no
 * sample fell in takes the nearest samples' stacks.
 *
 * The change of stack at each switch point is written into the thread's
 * vertices as one CP_TV_STACK vertex (cp_trace.h) naming the new stack,
 * an entry of the trace's table of distinct stacks (cp_samples.stk:
 * function names, outermost first, inline frames included; a return
 * address, frames >= 1, is looked up minus 1).  cp_tracepag.c turns each
 * stack into its calling-context-tree node, the path of its functions from
 * the root, exactly the node instrumentation would have reached; inclusive
 * time then counts a recursive function once per stack (the node's
 * distinct procedures).  One vertex per switch, whatever the depth: a
 * sampled trace's graph grows by at most one vertex per sample.
 * Instrumented procedure events (ENTER, LEAVE, regions) are dropped when
 * the samples take over: the two do not nest.
 *
 * Vertex indices move; the reader's cross references (a thread's create
 * and exit vertex, every publish's vertex) are remapped.  A thread that
 * keeps every vertex (no procedure events) takes its switches in place,
 * its arrays moved up behind each, when their blocks have room for them
 * (cp_big_size; a large block has its size class's, and switches are at
 * most one per sample); its vertices' new indices follow from where the
 * switches went.  A thread that drops vertices is copied into new arrays
 * with a map from old index to new; one with neither is left alone.
 * Each used sample records the vertex after which its own stack is
 * current (ctx_v) and the one closing the segment it fell in (pos_v), so
 * that a profile can count the samples every figure rests on, on the
 * critical path and overall.
 *
 * Cost: O(samples * depth) symbolization lookups, cached per address,
 * and stack hashing; O(vertices + samples) rewrite.
 */
#include "cp_sampled.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_debug.h"
#include "cp_die.h"
#include "cp_grow.h"
#include "cp_hash.h"
#include "cp_par.h"
#include "cp_perfmap.h"
#include "cp_samples.h"
#include "cp_search.h"
#include "cp_symbolize.h"
#include "cp_tracepag.h"

static const bool cp_sampled_debug = CP_DEBUG;

int cp_procsrc_parse(const char *s)
{
	if (!strcmp(s, "instrumented"))
		return CP_PROCS_INSTRUMENTED;
	if (!strcmp(s, "sampled"))
		return CP_PROCS_SAMPLED;
	return -1;
}

/*
 * How a thread's vertices moved in the rewrite: through @map (as read ->
 * rewritten; kept indices only) when it dropped procedure events, else
 * each up by the switches inserted at or before it (@tj: the kept index
 * each of the @nsw switches precedes, nondecreasing).
 */
struct ap_moved {
	uint32_t *map;
	uint32_t *tj;
	uint32_t nsw;
};

/* Scratch of one cp_sampled_apply(). */
struct ap {
	struct cp_trace *t;
	struct cp_samples *s;
	struct cp_smap names;		/* name -> index in s->names */
	struct cp_map2 pcmap;		/* (pc, 0) -> offset in pcpool */
	uint32_t *pcpool;		/* count, then ids innermost first */
	uint32_t npcpool, cap_pcpool;
	struct cp_map2 stkmap;		/* (hash, length) -> stack id */
	uint64_t cap_stk;
	uint32_t cap_stacks;
	uint32_t *seq;			/* the stack being built */
	uint32_t nseq, cap_seq;
	uint32_t *sid;			/* [n] each sample's stack id */
	struct cp_map2 hotmap;		/* leaf line -> index in s->hot */
	uint32_t cap_hot;
	struct ap_moved *moved;		/* [nthreads] how vertices moved */
};

static uint32_t intern(struct ap *a, const char *name)
{
	struct cp_samples *s = a->s;
	uint32_t id = cp_smap_get(&a->names, s->names, name);

	if (id != CP_HASH_NONE)
		return id;
	if (cp_grow32((void **)&s->names, sizeof(*s->names), &s->cap_names,
		      (uint64_t)s->nnames + 1))
		return CP_HASH_NONE;
	id = s->nnames;
	s->names[id] = strdup(name);
	if (!s->names[id])
		return CP_HASH_NONE;
	s->nnames++;
	if (cp_smap_add(&a->names, s->names, id))
		return CP_HASH_NONE;
	return id;
}

/* Offset in pcpool of @pc's frames (count first); UINT32_MAX: memory. */
static uint32_t frames_of(struct ap *a, uint64_t pc)
{
	const struct cp_symframe *f;
	uint32_t off = cp_map2_get(&a->pcmap, pc, 0), n;

	if (off != CP_HASH_NONE)
		return off;
	n = cp_symbolize(a->s->sym, pc, &f);
	if (!n)
		return UINT32_MAX;
	off = a->npcpool;
	if (cp_grow32((void **)&a->pcpool, sizeof(*a->pcpool), &a->cap_pcpool,
		      (uint64_t)off + n + 1))
		return UINT32_MAX;
	a->pcpool[off] = n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = intern(a, f[i].name);

		if (id == CP_HASH_NONE)
			return UINT32_MAX;
		a->pcpool[off + 1 + i] = id;
	}
	a->npcpool = off + n + 1;
	if (cp_map2_put(&a->pcmap, pc, 0, off))
		return UINT32_MAX;
	return off;
}

/* Count a sample of @weight CPU ns whose leaf is @pc on its source line. */
static int hot(struct ap *a, uint64_t pc, uint64_t weight)
{
	struct cp_samples *s = a->s;
	const struct cp_symframe *f;
	uint64_t key;
	uint32_t i;

	if (!cp_symbolize(s->sym, pc, &f))
		return -1;
	key = cp_hash_str(f->name) * 31 + (f->file ? cp_hash_str(f->file)
						   : 0);
	i = cp_map2_get(&a->hotmap, key, f->line);
	if (i == CP_HASH_NONE) {
		if (cp_grow32((void **)&s->hot, sizeof(*s->hot), &a->cap_hot,
			      (uint64_t)s->nhot + 1))
			return -1;
		i = s->nhot++;
		s->hot[i] = (struct cp_hotline){
			.func = f->name, .file = f->file, .line = f->line,
		};
		if (cp_map2_put(&a->hotmap, key, f->line, i))
			return -1;
	}
	s->hot[i].samples++;
	s->hot[i].cpu_ns += weight;
	return 0;
}

/* The id of the stack a->seq[0 .. nseq), interned; UINT32_MAX: memory. */
static uint32_t intern_stack(struct ap *a)
{
	struct cp_samples *s = a->s;
	uint64_t h = 0x5bd1e995;
	uint32_t id;

	for (uint32_t i = 0; i < a->nseq; i++)
		h = cp_hash_mix(h, a->seq[i]);
	id = cp_map2_get(&a->stkmap, h, a->nseq);
	if (id != CP_HASH_NONE &&
	    s->stk_off[id + 1] - s->stk_off[id] == a->nseq &&
	    (!a->nseq || !memcmp(s->stk + s->stk_off[id], a->seq,
				 a->nseq * sizeof(*a->seq))))
		return id;
	/* new (or a hash collision: a second id for its sequence, which
	 * only costs a switch that changes nothing) */
	if (cp_grow32((void **)&s->stk_off, sizeof(*s->stk_off), &a->cap_stacks,
		      (uint64_t)s->nstacks + 2))
		return UINT32_MAX;
	if (cp_grow((void **)&s->stk, sizeof(*s->stk), &a->cap_stk,
		    (uint64_t)s->stk_off[s->nstacks] + a->nseq))
		return UINT32_MAX;
	id = s->nstacks++;
	if (a->nseq)
		memcpy(s->stk + s->stk_off[id], a->seq,
		       a->nseq * sizeof(*a->seq));
	s->stk_off[id + 1] = s->stk_off[id] + a->nseq;
	if (cp_map2_get(&a->stkmap, h, a->nseq) == CP_HASH_NONE &&
	    cp_map2_put(&a->stkmap, h, a->nseq, id))
		return UINT32_MAX;
	return id;
}

/* Every sample's stack: name indices outermost first, as a stack id. */
static int symbolize_all(struct ap *a)
{
	struct cp_samples *s = a->s;

	a->sid = malloc((s->n ? s->n : 1) * sizeof(*a->sid));
	s->stk_off = calloc(2, sizeof(*s->stk_off));
	if (!a->sid || !s->stk_off)
		return -1;
	a->cap_stacks = 2;
	a->nseq = 0;
	if (intern_stack(a) != 0)	/* the empty stack is stack 0 */
		return -1;
	for (uint64_t i = 0; i < s->n; i++) {
		const struct cp_sample *sm = &s->s[i];
		const uint64_t *pcs = cp_sample_pcs(s, sm);

		a->nseq = 0;
		if (sm->depth && hot(a, pcs[0], sm->weight))
			return -1;
		for (uint32_t d = sm->depth; d-- > 0;) {
			uint32_t off = frames_of(a, d ? pcs[d] - 1 : pcs[d]);
			uint32_t n;

			if (off == UINT32_MAX)
				return -1;
			n = a->pcpool[off];
			if (cp_grow32((void **)&a->seq, sizeof(*a->seq),
				      &a->cap_seq, (uint64_t)a->nseq + n))
				return -1;
			/* the inline chain is innermost first: reverse it */
			for (uint32_t j = n; j-- > 0;)
				a->seq[a->nseq++] = a->pcpool[off + 1 + j];
		}
		a->sid[i] = intern_stack(a);
		if (a->sid[i] == UINT32_MAX)
			return -1;
	}
	return 0;
}

static bool is_proc_event(unsigned k)
{
	return k == CP_EV_ENTER || k == CP_EV_LEAVE ||
	       k == CP_EV_REGION_BEGIN || k == CP_EV_REGION_END;
}

/* What placing a thread's samples counted (cp_samples' counters). */
struct rw_tally {
	uint64_t outside, in_wait, used, used_weight;
};

/* A stack switch of a thread's rewrite: stack @sid from clock @ts (wall
 * clock @wall) on. */
struct rw_sw {
	uint64_t ts, wall;
	uint32_t sid;
};

/*
 * One thread's rewrite (thread_rewrite): its kept vertices (all but the
 * procedure events), where each of its samples falls and the stack
 * switches.
 */
struct rw {
	struct ap *a;
	uint32_t tid;
	struct cp_trace_thread *th;
	bool hasw;			/* the thread has wall times */
	uint64_t k0, k1;		/* its samples: s->s[k0..k1) */
	uint32_t *keep, nk;		/* [nk] indices of kept vertices; NULL
					 * when every vertex is kept */
	uint64_t *u;			/* [k1-k0] a used sample's useful time */
	uint32_t *seg;			/* [k1-k0] its segment (kept j-1, j] */
	struct rw_sw *sw;		/* [nsw] the switches, in order */
	uint32_t *tj;			/* [nsw] the kept vertex each precedes */
	uint32_t nsw, cap_sw, cap_tj;
	struct rw_tally *n;		/* where rw_place counts */
};

/* Index of kept vertex @j in the thread as read. */
static uint32_t kept(const struct rw *w, uint32_t j)
{
	return w->keep ? w->keep[j] : j;
}

/* A walk along the kept vertices with the thread's useful time before
 * each: the samples come in time order, so no array of it is kept. */
struct rw_walk {
	uint32_t j;		/* a kept vertex */
	uint64_t ub;		/* useful time before it */
};

/* The useful time of segment (kept @j-1, kept @j]: none in a wait. */
static uint64_t seg_useful(const struct rw *w, uint32_t j)
{
	const struct cp_tvert *v = &w->th->v[kept(w, j)];

	return cp_tvert_waits(v) ? 0 : v->ts - w->th->v[kept(w, j - 1)].ts;
}

/* A walk at kept vertex 1 (@w has two kept vertices or more). */
static struct rw_walk walk_start(const struct rw *w)
{
	return (struct rw_walk){ .j = 1, .ub = seg_useful(w, 1) };
}

/* Move @c on to the next kept vertex. */
static void walk_next(const struct rw *w, struct rw_walk *c)
{
	c->j++;
	c->ub += seg_useful(w, c->j);
}

/* Index of kept vertex @j in the rewritten thread, whose @nsw switches
 * precede the kept vertices @tj (nondecreasing): j, plus the switches
 * placed before it or before an earlier kept vertex. */
static uint32_t out_of_kept(const uint32_t *tj, uint32_t nsw, uint32_t j)
{
	return j + cp_count_upto(tj, nsw, j);
}

/* The sample's time on the thread's clock. */
static uint64_t sample_x(const struct cp_trace *t, const struct cp_sample *sm)
{
	return t->clock == CP_CLOCK_CPU ? sm->cpu : sm->wall;
}

/* Allocate @w's arrays and find the kept vertices.  Returns 0 or -1 (out
 * of memory). */
static int rw_keep(struct rw *w, uint32_t ndrop)
{
	const struct cp_trace_thread *th = w->th;
	size_t nv = th->nv ? th->nv : 1, ns = w->k1 - w->k0 ? w->k1 - w->k0 : 1;

	w->nk = th->nv - ndrop;
	if (ndrop) {
		w->keep = cp_big_malloc(nv * sizeof(*w->keep));
		if (!w->keep)
			return -1;
		w->nk = 0;
		for (uint32_t i = 0; i < th->nv; i++)
			if (!is_proc_event(cp_tvert_kind(&th->v[i])))
				w->keep[w->nk++] = i;
	}
	w->u = malloc(ns * sizeof(*w->u));
	w->seg = malloc(ns * sizeof(*w->seg));
	if (!w->u || !w->seg)
		return -1;
	return 0;
}

/* Place the samples: segment j = (kept j-1, kept j]; a sample outside the
 * kept vertices or in a wait is counted and not used. */
static void rw_place(struct rw *w)
{
	const struct cp_trace_thread *th = w->th;
	struct cp_samples *s = w->a->s;
	struct rw_tally *n = w->n;
	struct rw_walk c = w->nk > 1 ? walk_start(w) : (struct rw_walk){ 0 };

	for (uint64_t k = w->k0; k < w->k1; k++) {
		struct cp_sample *sm = &s->s[k];
		uint64_t x = sample_x(w->a->t, sm);
		uint32_t lo;

		sm->used = false;
		if (w->nk < 2 || x <= th->v[kept(w, 0)].ts ||
		    x > th->v[kept(w, w->nk - 1)].ts) {
			n->outside++;
			continue;
		}
		while (th->v[kept(w, c.j)].ts < x)	/* first kept >= x */
			walk_next(w, &c);
		lo = c.j;
		if (cp_tvert_waits(&th->v[kept(w, lo)])) {
			n->in_wait++;
			continue;
		}
		sm->used = true;
		n->used++;
		n->used_weight += sm->weight;
		w->seg[k - w->k0] = lo;
		w->u[k - w->k0] = c.ub - seg_useful(w, lo) +
				  (x - th->v[kept(w, lo - 1)].ts);
	}
}

/*
 * Where the switch to used sample @k goes: the first used sample's at the
 * thread's first kept vertex, every other's at the midpoint of useful
 * time between it and the previous used sample @prev.  Sets *@ts and
 * returns the kept vertex it precedes.  @c is the search's position, from
 * kept vertex 1 (the midpoints only grow, so it moves on).
 */
static uint32_t switch_at(const struct rw *w, uint64_t prev, uint64_t k,
			  struct rw_walk *c, uint64_t *ts)
{
	const struct cp_trace_thread *th = w->th;
	uint64_t up, uk, m, ub0;
	uint32_t tj;

	if (prev == UINT64_MAX) {
		*ts = th->v[kept(w, 0)].ts;
		return 1;
	}
	up = w->u[prev - w->k0];
	uk = w->u[k - w->k0];
	m = up / 2 + uk / 2 + (up % 2 + uk % 2) / 2;
	while (c->j < w->nk - 1 && c->ub <= m)
		walk_next(w, c);
	tj = c->j;
	ub0 = c->ub - seg_useful(w, tj);	/* before kept tj - 1 */
	*ts = th->v[kept(w, tj - 1)].ts + (m > ub0 ? m - ub0 : 0);
	if (*ts > th->v[kept(w, tj)].ts)
		*ts = th->v[kept(w, tj)].ts;
	return tj;
}

/* The wall time at clock @ts inside the segment (@i0, @i1) of @th. */
static uint64_t wall_at(const struct cp_trace_thread *th, uint32_t i0,
			uint32_t i1, uint64_t ts)
{
	uint64_t t0 = th->v[i0].ts, t1 = th->v[i1].ts;
	uint64_t w0 = th->wall[i0], w1 = th->wall[i1];

	if (t1 <= t0 || w1 <= w0)
		return w0;
	return w0 + (uint64_t)((unsigned __int128)(w1 - w0) * (ts - t0) /
			       (t1 - t0));
}

/*
 * The switches, in the order of the used samples: one wherever the stack
 * changes.  Each used sample's stack is current right after the last
 * switch up to its own (ctx_v, in the rewritten numbering: the kept
 * vertices before its switch and the switches so far).  Returns 0 or -1
 * (out of memory).
 */
static int rw_plan(struct rw *w)
{
	const struct cp_trace_thread *th = w->th;
	struct cp_sample *smp = w->a->s->s;
	uint64_t prev = UINT64_MAX, ts;
	uint32_t cur = 0, tj;
	struct rw_walk c = w->nk > 1 ? walk_start(w) : (struct rw_walk){ 0 };

	for (uint64_t k = w->k0; k < w->k1; k++) {
		if (!smp[k].used)
			continue;
		tj = switch_at(w, prev, k, &c, &ts);
		if (w->a->sid[k] != cur) {
			if (cp_grow32((void **)&w->sw, sizeof(*w->sw),
				      &w->cap_sw, (uint64_t)w->nsw + 1) ||
			    cp_grow32((void **)&w->tj, sizeof(*w->tj),
				      &w->cap_tj, (uint64_t)w->nsw + 1))
				return -1;
			w->tj[w->nsw] = tj;
			w->sw[w->nsw++] = (struct rw_sw){
				.ts = ts, .sid = w->a->sid[k],
				.wall = w->hasw ? wall_at(th, kept(w, tj - 1),
							  kept(w, tj), ts) : 0,
			};
			cur = w->a->sid[k];
		}
		smp[k].ctx_v = tj - 1 + w->nsw;
		prev = k;
	}
	return 0;
}

/* Switch @s as a vertex (into @v, @a, @wall at @i). */
static void put_switch(const struct rw_sw *s, struct cp_tvert *v,
		       struct cp_targ *a, uint64_t *wall, uint32_t i)
{
	v[i] = (struct cp_tvert){ .ts = s->ts, .op = CP_TV_STACK };
	a[i] = (struct cp_targ){ .arg = s->sid };
	if (wall)
		wall[i] = s->wall;
}

/* Whether array @p of @each-byte entries has room for @n (true when
 * there is no array). */
static bool has_room(void *p, size_t each, uint64_t n)
{
	return !p || cp_big_size(p) / each >= n;
}

/*
 * Insert the switches in place: every vertex is kept and the thread's
 * arrays have room for them (cp_big_size).  From the last switch back,
 * the kept vertices after each move up by the switches before them.
 */
static void rw_insert(struct rw *w)
{
	struct cp_trace_thread *th = w->th;
	uint32_t end = th->nv;

	for (uint32_t s = w->nsw; s-- > 0;) {
		uint32_t tj = w->tj[s], n = end - tj;

		memmove(&th->v[tj + s + 1], &th->v[tj], n * sizeof(*th->v));
		memmove(&th->a[tj + s + 1], &th->a[tj], n * sizeof(*th->a));
		if (th->wall)
			memmove(&th->wall[tj + s + 1], &th->wall[tj],
				n * sizeof(*th->wall));
		put_switch(&w->sw[s], th->v, th->a, th->wall, tj + s);
		end = tj;
	}
	th->nv += w->nsw;
}

/*
 * Lay the kept vertices and the switches out into fresh arrays that
 * replace the thread's, and note where each kept vertex went in @map
 * ([nv as read]; only kept indices are set).  Returns 0 or -1 (memory).
 */
static int rw_copy(struct rw *w, uint32_t *map)
{
	struct cp_trace_thread *th = w->th;
	uint32_t n = w->nk + w->nsw, o = 0, s = 0;
	struct cp_tvert *v = cp_big_malloc(sizeof(*v) * (n ? n : 1));
	struct cp_targ *a = cp_big_malloc(sizeof(*a) * (n ? n : 1));
	uint64_t *wall = w->hasw ? cp_big_malloc(sizeof(*wall) * (n ? n : 1))
				 : NULL;

	if (!v || !a || (w->hasw && !wall)) {
		cp_big_free(v);
		cp_big_free(a);
		cp_big_free(wall);
		return -1;
	}
	for (uint32_t j = 0; j < w->nk; j++) {
		uint32_t i = kept(w, j);

		for (; s < w->nsw && w->tj[s] == j; s++)
			put_switch(&w->sw[s], v, a, wall, o++);
		if (map)
			map[i] = o;
		v[o] = th->v[i];
		a[o] = th->a[i];
		if (wall)
			wall[o] = th->wall[i];
		o++;
	}
	cp_big_free(th->v);
	cp_big_free(th->a);
	cp_big_free(th->wall);
	th->v = v;
	th->a = a;
	th->wall = wall;
	th->nv = n;
	return 0;
}

/* Each used sample's segment in the new numbering. */
static void rw_renumber(struct rw *w)
{
	for (uint64_t k = w->k0; k < w->k1; k++) {
		struct cp_sample *sm = &w->a->s->s[k];
		uint64_t x = sample_x(w->a->t, sm);
		uint32_t i;

		if (!sm->used)
			continue;
		i = out_of_kept(w->tj, w->nsw, w->seg[k - w->k0] - 1) + 1;
		while (w->th->v[i].ts < x)
			i++;
		sm->pos_v = i;
	}
}

/*
 * Rewrite thread @tid: drop procedure events, lay its samples on its
 * useful time and insert the switches; a thread with neither is left as
 * it is.  Leaves in a->moved[tid] how its vertices moved; counts into
 * @n.  Touches only the thread's own vertices, samples and entry of
 * a->moved, so threads may be rewritten concurrently.
 */
static int thread_rewrite(struct ap *a, uint32_t tid, struct rw_tally *n)
{
	struct cp_trace_thread *th = &a->t->threads[tid];
	struct ap_moved *mv = &a->moved[tid];
	struct rw w = {
		.a = a, .tid = tid, .th = th, .hasw = th->wall != NULL,
		.k0 = a->s->thr_off[tid], .k1 = a->s->thr_off[tid + 1], .n = n,
	};
	uint32_t ndrop = 0;
	int ret = -1;

	for (uint32_t i = 0; i < th->nv; i++)
		ndrop += is_proc_event(cp_tvert_kind(&th->v[i]));
	if (!ndrop && w.k0 == w.k1)
		return 0;
	if (rw_keep(&w, ndrop))
		goto out;
	rw_place(&w);
	if (rw_plan(&w))
		goto out;
	/* a vertex index stays below UINT32_MAX - 2 */
	if ((uint64_t)w.nk + w.nsw >= UINT32_MAX - 3)
		goto out;
	if (ndrop) {
		mv->map = cp_big_malloc(sizeof(*mv->map) * th->nv);
		if (!mv->map || rw_copy(&w, mv->map))
			goto out;
	} else if (has_room(th->v, sizeof(*th->v), th->nv + w.nsw) &&
		   has_room(th->a, sizeof(*th->a), th->nv + w.nsw) &&
		   has_room(th->wall, sizeof(*th->wall), th->nv + w.nsw)) {
		rw_insert(&w);
	} else if (rw_copy(&w, NULL)) {
		goto out;
	}
	rw_renumber(&w);
	mv->tj = w.tj;
	mv->nsw = w.nsw;
	w.tj = NULL;
	ret = 0;
out:
	free(w.tj);
	cp_big_free(w.keep);
	free(w.u);
	free(w.seg);
	free(w.sw);
	return ret;
}

/* The rewrite of threads [lo, hi), as a cp_par_two job. */
struct rw_job {
	_Alignas(CP_PAR_APART) struct ap *a;	/* (two side by side) */
	uint32_t lo, hi;
	struct rw_tally n;
	int ret;
};

static void rw_job_run(void *arg)
{
	struct rw_job *j = arg;

	for (uint32_t tid = j->lo; tid < j->hi && !j->ret; tid++)
		j->ret = thread_rewrite(j->a, tid, &j->n);
}

/*
 * Rewrite every thread, the threads split in two runs of about equal
 * vertices on the two cores (cp_par.h); the counters add up the same in
 * any order.  Returns 0 or -1 (out of memory).
 */
static int rewrite_all(struct ap *a)
{
	struct cp_trace *t = a->t;
	struct cp_samples *s = a->s;
	struct rw_job j1 = { .a = a }, j2 = { .a = a };
	uint32_t mid = cp_trace_split_threads(t);

	j1.hi = mid;
	j2.lo = mid;
	j2.hi = t->nthreads;
	cp_par_two(t->nvertices, rw_job_run, &j2, rw_job_run, &j1);
	s->outside += j1.n.outside + j2.n.outside;
	s->in_wait += j1.n.in_wait + j2.n.in_wait;
	s->used += j1.n.used + j2.n.used;
	s->used_weight += j1.n.used_weight + j2.n.used_weight;
	return j1.ret || j2.ret ? -1 : 0;
}

/* Where thread @tid's vertex @i (as read, a kept one) is now. */
static uint32_t moved_to(const struct ap *a, uint32_t tid, uint32_t i)
{
	const struct ap_moved *mv = &a->moved[tid];

	return mv->map ? mv->map[i] : out_of_kept(mv->tj, mv->nsw, i);
}

/* The publishes [lo, hi) in the new vertex numbering, as a cp_par_two
 * job: each reads a thread's map at random (one miss a publish). */
struct remap_job {
	const struct ap *a;
	uint64_t lo, hi;
};

static void remap_job_run(void *arg)
{
	const struct remap_job *j = arg;
	struct cp_trace_pub *pub = j->a->t->pub;

	for (uint64_t i = j->lo; i < j->hi; i++)
		if (pub[i].seq)
			pub[i].vi = moved_to(j->a, pub[i].tid, pub[i].vi);
}

/* The reader's cross references, in the new vertex numbering; the
 * publishes' on both cores (cp_par.h). */
static void remap(struct ap *a)
{
	struct cp_trace *t = a->t;
	struct remap_job j1 = { a, 0, t->npub / 2 },
			 j2 = { a, t->npub / 2, t->npub };

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];

		if (th->exit_v != UINT32_MAX)
			th->exit_v = moved_to(a, tid, th->exit_v);
		if (th->create_v != UINT32_MAX && th->parent != UINT32_MAX)
			th->create_v = moved_to(a, th->parent, th->create_v);
	}
	cp_par_two(t->npub, remap_job_run, &j2, remap_job_run, &j1);
}

/*
 * The rewritten trace's invariants: each thread's clocks never go back,
 * it still starts with THREAD_START, the remapped cross references land
 * on the events they name, every stack id exists and every used sample's
 * vertices are inside its thread.  O(vertices + publishes + samples),
 * but a publish's check reads its vertex at random: 0.4 s of a report of
 * 2*10^7 events, a third of what the rewrite then took, so checked in the
 * debug builds (cp_debug.h) as every module's invariants are; dies on a
 * violation.
 */
static void cp_sampled_assert(const struct cp_trace *t)
{
	const struct cp_samples *s = t->samples;

	if (!cp_sampled_debug)
		return;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		const struct cp_trace_thread *th = &t->threads[tid];

		if (th->nv && cp_tvert_kind(&th->v[0]) != CP_EV_THREAD_START)
			cp_die("sampled: thread does not start");
		for (uint32_t i = 1; i < th->nv; i++)
			if (th->v[i].ts < th->v[i - 1].ts ||
			    (th->wall && th->wall[i] < th->wall[i - 1]) ||
			    (cp_tvert_kind(&th->v[i]) == CP_TV_STACK &&
			     th->a[i].arg >= s->nstacks))
				cp_die("sampled: vertex out of order");
		if ((th->exit_v != UINT32_MAX &&
		     cp_tvert_kind(&th->v[th->exit_v]) != CP_EV_THREAD_EXIT) ||
		    (th->create_v != UINT32_MAX && th->parent != UINT32_MAX &&
		     cp_tvert_kind(&t->threads[th->parent].v[th->create_v]) !=
		     CP_EV_THREAD_CREATE))
			cp_die("sampled: thread life remapped wrong");
	}
	for (uint64_t i = 0; i < t->npub; i++)
		if (t->pub[i].seq &&
		    cp_tvert_kind(&t->threads[t->pub[i].tid].v[t->pub[i].vi]) !=
		    CP_EV_PUBLISH)
			cp_die("sampled: publish remapped wrong");
	for (uint64_t k = 0; k < s->n; k++) {
		const struct cp_sample *sm = &s->s[k];
		uint32_t nv = t->threads[sm->tid].nv;

		if (sm->used && (sm->ctx_v + 1 >= nv || !sm->pos_v ||
				 sm->pos_v >= nv))
			cp_die("sampled: sample outside its thread");
	}
}

static int cmp_hot(const void *x, const void *y)
{
	const struct cp_hotline *p = x, *q = y;

	if (p->cpu_ns != q->cpu_ns)
		return p->cpu_ns > q->cpu_ns ? -1 : 1;
	return strcmp(p->func, q->func);
}

/* Name of an address in no module: the trace's SYMBOLS, else the map of
 * JIT-compiled code the run left for perf, if any. */
static const char *trace_sym(void *ctx, uint64_t addr, char *buf, size_t len)
{
	const struct cp_trace *t = ctx;
	const char *name = t->nsyms ? cp_trace_sym_name(t, addr, buf, len)
				    : NULL, *jit;

	/* (cp_trace_sym_name writes the address into @buf when it has no
	 * symbol for it) */
	if ((!name || name == buf) && t->samples &&
	    (jit = cp_perfmap_find(t->samples->jit, addr)))
		name = jit;
	return name;
}

/*
 * Open @a's symbolizer (@debug_path, the trace's SYMBOLS for addresses in
 * no module) and symbolize every sample: the stacks, a->sid, the hot
 * lines by CPU time.  0, or -1 (the symbolizer's reason in @why, or out
 * of memory).
 */
static int symbolize(struct ap *a, const char *debug_path, char *why,
		     size_t whylen)
{
	if (!a->s->jit)
		a->s->jit = cp_perfmap_load(a->t->pid, a->t->start_realtime_ns);
	a->s->sym = cp_symbolize_open(a->s->mods, a->s->nmods, debug_path,
				      trace_sym, a->t, why, whylen);
	if (!a->s->sym || symbolize_all(a))
		return -1;
	if (a->s->nhot)
		qsort(a->s->hot, a->s->nhot, sizeof(*a->s->hot), cmp_hot);
	return 0;
}

/* The scratch of @a but the map and sid. */
static void ap_free(struct ap *a)
{
	free(a->seq);
	free(a->pcpool);
	cp_map2_free(&a->pcmap);
	cp_map2_free(&a->stkmap);
	cp_map2_free(&a->hotmap);
	cp_smap_free(&a->names);
}

/* Is @file one of the system's headers (a libstdc++ or libc inline)? */
static bool system_header(const char *file)
{
	return file && (!strncmp(file, "/usr/include/", 13) ||
			!strncmp(file, "/usr/lib/gcc/", 13));
}

/* Name @s by the frame of its pc's inline chain that names a site
 * (cp_sampled.h); unnamed when @sy cannot symbolize it. */
static void site_frame(struct cp_symbolizer *sy, struct cp_site *s)
{
	const struct cp_symframe *f;
	uint32_t n, k = 0;

	if (!s->pc || !(n = cp_symbolize(sy, s->pc, &f)))
		return;
	while (k + 1 < n && system_header(f[k].file))
		k++;
	s->fn = f[k].name;
	s->file = f[k].file;
	s->line = f[k].line;
}

/* Name @s and the calls that led to it. */
static void site_frames(struct cp_symbolizer *sy, struct cp_site *s)
{
	site_frame(sy, s);
	for (uint32_t i = 0; i < s->ncallers; i++)
		site_frame(sy, &s->callers[i]);
}

/* Name where each object of @t was first used. */
static void name_sites(struct cp_trace *t, struct cp_symbolizer *sy)
{
	for (uint32_t i = 0; i < t->nobjs; i++)
		site_frames(sy, &t->objs[i].site);
}

int cp_sampled_name_site(struct cp_trace *t, const char *debug_path,
			 struct cp_site *s)
{
	char why[256];

	if (!t->samples || !t->samples->nmods)
		return 0;
	if (!t->samples->sym)
		t->samples->sym = cp_symbolize_open(t->samples->mods,
						    t->samples->nmods,
						    debug_path, NULL, NULL,
						    why, sizeof(why));
	if (!t->samples->sym)
		return -1;
	site_frames(t->samples->sym, s);
	return 0;
}

static bool wants_samples(const struct cp_trace *t, enum cp_procsrc src)
{
	if (src != CP_PROCS_AUTO)
		return src == CP_PROCS_SAMPLED;
	if (!t->samples || !t->samples->n)
		return false;
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		for (uint32_t i = 0; i < t->threads[tid].nv; i++)
			if (is_proc_event(cp_tvert_kind(&t->threads[tid].v[i])))
				return false;
	return true;
}

int cp_sampled_apply(struct cp_trace *t, const struct cp_sampled_opts *o,
		     char *err, size_t errlen)
{
	struct ap a = { .t = t, .s = t->samples };
	char why[256];
	int ret = -1;

	why[0] = 0;
	if (!wants_samples(t, o ? o->src : CP_PROCS_AUTO)) {
		/* instrumented: the modules still name ENTER addresses the
		 * runtime's SYMBOLS do not hold (cp_tracepag.c) */
		if (!a.s || !a.s->nmods)
			return 0;
		a.s->sym = cp_symbolize_open(a.s->mods, a.s->nmods,
					     o ? o->debug_path : NULL, NULL,
					     NULL, why, sizeof(why));
		if (!a.s->sym)
			goto err;
		name_sites(t, a.s->sym);
		return 0;
	}
	if (!a.s || !a.s->n) {
		snprintf(err, errlen, "%s: no samples in the trace to take "
			 "the procedures from", t->path);
		return -1;
	}
	a.moved = calloc(t->nthreads, sizeof(*a.moved));
	if (!a.moved || symbolize(&a, o ? o->debug_path : NULL, why,
				sizeof(why)))
		goto err;
	name_sites(t, a.s->sym);
	if (rewrite_all(&a))
		goto err;
	remap(&a);
	t->nvertices = 0;
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		t->nvertices += t->threads[tid].nv;
	a.s->active = true;
	cp_sampled_assert(t);
	ret = 1;
	goto out;
err:
	/* a thread may be half rewritten: the trace is not usable */
	snprintf(err, errlen, "%s: %s symbolizing the samples", t->path,
		 why[0] ? why : "out of memory");
out:
	for (uint32_t tid = 0; a.moved && tid < t->nthreads; tid++) {
		cp_big_free(a.moved[tid].map);
		free(a.moved[tid].tj);
	}
	free(a.moved);
	free(a.sid);
	ap_free(&a);
	return ret;
}

int cp_sampled_symbolize(struct cp_trace *t, const char *debug_path,
			 uint32_t **sid, char *err, size_t errlen)
{
	struct ap a = { .t = t, .s = t->samples };
	char why[256];
	int ret = 0;

	why[0] = 0;
	*sid = NULL;
	if (!a.s || symbolize(&a, debug_path, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s symbolizing the samples", t->path,
			 why[0] ? why : a.s ? "out of memory" : "no samples");
		free(a.sid);
		ret = -1;
	} else {
		*sid = a.sid;
	}
	ap_free(&a);
	return ret;
}

uint32_t cp_sampled_hotlines(const struct cp_trace *t, uint32_t max,
			     const struct cp_hotline **out)
{
	if (!t->samples || !t->samples->active)
		return 0;
	*out = t->samples->hot;
	return t->samples->nhot < max ? t->samples->nhot : max;
}

void cp_sampled_warn(FILE *f, const char *prefix, const struct cp_trace *t)
{
	const struct cp_samples *s = t->samples;
	const struct cp_symbolize_stats *st;
	uint64_t all;

	if (!s || !s->active || !s->sym)
		return;
	all = s->decoded ? s->decoded : 1;
	if (s->unknown_thread)
		fprintf(f, "%s: %s: %" PRIu64 " samples of threads without "
			"events dropped\n", prefix, t->path, s->unknown_thread);
	if (s->backwards)
		fprintf(f, "%s: %s: %" PRIu64 " samples dropped: their time "
			"runs backwards in their thread\n", prefix, t->path,
			s->backwards);
	if (s->outside * 10 > all)
		fprintf(f, "%s: %s: %" PRIu64 " of %" PRIu64 " samples fall "
			"outside their thread's events, not used\n", prefix,
			t->path, s->outside, s->decoded);
	if (s->in_wait * 10 > all)
		fprintf(f, "%s: %s: %" PRIu64 " of %" PRIu64 " samples fall "
			"inside waits, not used\n", prefix, t->path, s->in_wait,
			s->decoded);
	if (s->unwind_failed * 10 > all)
		fprintf(f, "%s: %s: %" PRIu64 " of %" PRIu64 " stacks are "
			"incomplete (unwinding failed): inclusive times are "
			"low\n", prefix, t->path, s->unwind_failed, s->decoded);
	st = cp_symbolize_stats(s->sym);
	if (st->no_file_used)
		fprintf(f, "%s: %s: %u of the modules holding sampled code "
			"not found or changed since the run (%s%s): their "
			"code is named module+0xOFFSET\n", prefix, t->path,
			st->no_file_used,
			st->no_file_used > 1 ? "the first: " : "",
			st->first_no_file);
}

uint64_t cp_sampled_count(const struct cp_tracepag *tp, const char *name,
			  bool exclusive)
{
	const struct cp_samples *s = tp->t->samples;
	uint32_t p = CP_PAG_NONE;
	uint64_t n = 0;

	if (!s || !s->active)
		return UINT64_MAX;
	for (uint32_t i = 0; i < tp->nprocs && p == CP_PAG_NONE; i++)
		if (!strcmp(tp->procs[i], name))
			p = i;
	if (p == CP_PAG_NONE)
		return UINT64_MAX;
	for (uint64_t k = 0; k < s->n; k++) {
		const struct cp_sample *sm = &s->s[k];
		const struct cp_cct_node *c;

		if (!sm->used)
			continue;
		c = &tp->cct[cp_tracepag_cct(tp, tp->segbase[sm->tid] +
						 sm->ctx_v)];
		if (exclusive) {
			n += c->proc == p;
			continue;
		}
		for (uint32_t i = 0; i < c->incl_n; i++)
			if (tp->incl_pool[c->incl_off + i] == p) {
				n++;
				break;
			}
	}
	return n;
}
