/*
 * cp_stream_procs.c - the out-of-core pass's procedure stacks
 * (cp_stream.c): calling contexts, the tracked procedures' shares.
 *
 * Net is kept as d[i] = len - net[i], which a segment changes exactly as
 * it changes share[i]; so a segment costs O(1) (its time is added to a
 * pending sum) and the pending time is spread over the procedures on the
 * stack only when the stack or the record changes: O(tracked) per ENTER,
 * LEAVE, PUBLISH and merge.
 *
 * The other mode.  Beside the mode's shares, each tracked procedure's CP
 * time in the other mode is one more lane (the comparison's own-time
 * test, and the JSON's cp_incl_ns and cp_excl_ns): inclusive, the
 * innermost frame's procedure; exclusive, those on the stack (either way
 * sth.oth).  The pending time is spread before they change.
 *
 * What-if.  The fixed-graph prediction (cp_whatif.c) reweighs each useful
 * segment by a factor of its calling context and takes the longest path
 * again: one more lane of the record, the scaled length L, which a
 * segment of w grows by cp_whatif_scaled_w(w, factor) (rounded per
 * segment, as the graph's edges are) and a merge takes the max of.  The
 * factor is the thread's: an ENTER of a procedure not yet on the stack
 * multiplies it by the procedure's (left to right from 1.0, the product
 * cp_whatif.c forms over the context's distinct procedures; exclusive:
 * the innermost's alone), and every frame keeps the factor before it for
 * its LEAVE.
 */
#include "cp_stream_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_grow.h"
#include "cp_hash.h"
#include "cp_symbolize.h"

/* ---- a running thread's stacks ------------------------------------ */

int cp_stream_stk_new(struct sth *t, uint32_t ntr)
{
	size_t n = ntr ? ntr : 1;

	t->k = calloc(1, sizeof(*t->k) + 2 * n * sizeof(uint32_t));
	if (!t->k)
		return -1;
	t->k->act = (uint32_t *)(t->k + 1);
	t->k->oth = t->k->act + n;
	return 0;
}

/* @t's stacks, made at its first stack change if it has none yet (a
 * streaming replay's thread); NULL when out of memory. */
static struct sth_stk *stk_of(struct sth *t, uint32_t ntr)
{
	return t->k || !cp_stream_stk_new(t, ntr) ? t->k : NULL;
}

void cp_stream_stk_free(struct sth *t)
{
	if (!t->k)
		return;
	free(t->k->fr);
	free(t->k->cnt);
	free(t->k->held);
	free(t->k);
	t->k = NULL;
}

/* ---- procedures ---------------------------------------------------- */

uint32_t cp_stream_intern(struct sp *p, const char *name)
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
static uint32_t proc_of(struct sp *p, const struct cp_tev *v)
{
	bool region = cp_tev_kind(v) == CP_EV_REGION_BEGIN;
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
	id = cp_stream_intern(p, dm ? dm : name);
	free(dm);
	if (id == NONE || cp_map2_put(&p->procmap, v->arg, region, id))
		return NONE;
	return id;
}

/* ---- pending time (net kept as d) -------------------------------- */

/* Spread @t's pending useful time over its lanes: the tracked
 * procedures on its stack (share and d = len - net), the followed locks
 * it holds (time held on the path) and its own CP time. */
void cp_stream_flush(struct sp *p, struct sth *t)
{
	const struct sth_stk *k = t->k;
	uint64_t w = t->pending;

	if (!w)
		return;
	/* (time is pending only on a thread that runs, which has k) */
	for (uint32_t i = 0; i < k->nact; i++) {
		t->vec[k->act[i]] += w;
		t->vec[cp_stream_d(p, k->act[i])] += w;
	}
	for (uint32_t i = 0; i < k->nheld; i++) {
		uint32_t l = p->obj[k->held[i]].lane;

		if (l != NONE)
			t->vec[cp_stream_held(p, l)] += w;
	}
	if (t->tlane)
		t->vec[cp_stream_tcp(p, t->tlane - 1)] += w;
	for (uint32_t i = 0; i < k->noth; i++)
		t->vec[cp_stream_cpx(p, k->oth[i])] += w;
	t->pending = 0;
}

/* ---- calling contexts ---------------------------------------------- */

/*
 * Exclusive times: the stack's top is about to change.  The survey charges
 * the time since it last changed to the top's procedure (in either mode:
 * it gives both CPU times); the records pass spreads the pending time over
 * the top, the only procedure followed.
 */
static void excl_charge(struct sp *p, struct sth *t)
{
	struct sth_stk *k = t->k;

	if (p->records) {
		cp_stream_flush(p, t);
	} else {
		uint32_t top = k->depth ? k->fr[k->depth - 1].proc : NONE;

		if (top != NONE)
			p->s->procs[top].cpu_excl_ns += t->useful - k->mark;
		/* the views: inclusive times come as the frames close */
		if (p->views && (p->excl || top == NONE))
			cp_stream_view_cpu(p, (uint32_t)(t - p->th), top,
					   t->useful - k->mark);
		k->mark = t->useful;
	}
}

/* The tracked index of @t's innermost frame, or NONE. */
static uint32_t top_tracked(const struct sp *p, const struct sth *t)
{
	const struct sth_stk *k = t->k;

	return k->depth ? p->trk[k->fr[k->depth - 1].proc] : NONE;
}

/*
 * (records, inclusive, p->ncx) The stack's top is now @k (NONE: none
 * tracked), t->k->oth's one entry: the time pending under the old top is
 * spread first, as its exclusive CP lane holds it.
 */
static void incl_top(struct sp *p, struct sth *t, uint32_t k)
{
	struct sth_stk *s = t->k;

	if (k != (s->noth ? s->oth[0] : NONE)) {
		cp_stream_flush(p, t);
		s->oth[0] = k;
		s->noth = k != NONE;
	}
}

/* Exclusive times, records pass: the stack's top changed. */
static void excl_top(struct sp *p, struct sth *t)
{
	struct sth_stk *k = t->k;

	k->nact = 0;
	if (k->depth && p->trk[k->fr[k->depth - 1].proc] != NONE)
		k->act[k->nact++] = p->trk[k->fr[k->depth - 1].proc];
}

/* Open a frame of @proc (@tag as struct frame) on @t.  0, or -1. */
static int push(struct sp *p, struct sth *t, uint64_t tag, uint32_t proc)
{
	struct sth_stk *k = t->k;
	struct frame *f;
	uint32_t c = k->cap_cnt;

	if (cp_grow((void **)&k->fr, sizeof(*k->fr), &k->cap_fr,
		    k->depth + 1) ||
	    cp_grow32((void **)&k->cnt, sizeof(*k->cnt), &c, proc + 1ull))
		return -1;
	if (c > k->cap_cnt)
		memset(k->cnt + k->cap_cnt, 0,
		       (c - k->cap_cnt) * sizeof(*k->cnt));
	k->cap_cnt = c;
	if (p->excl || !p->records)
		excl_charge(p, t);
	f = &k->fr[k->depth++];
	f->tag = tag;
	f->proc = proc;
	f->first = k->cnt[proc]++ == 0;
	f->u0 = t->useful;
	f->f0 = t->fac;
	if (p->pf && p->records && p->excl)
		t->fac = p->pf[proc];
	else if (p->pf && p->records && f->first)
		t->fac *= p->pf[proc];
	if (!p->records) {
		p->s->procs[proc].calls++;
		if (p->s->threads)	/* (the streaming replay has none) */
			p->s->threads[t - p->th].calls++;
	}
	if (p->excl && p->records) {
		/* (the pending time was spread by excl_charge) */
		if (p->ncx && f->first && p->trk[proc] != NONE)
			k->oth[k->noth++] = p->trk[proc];
		excl_top(p, t);
		return 0;
	}
	if (!p->records)
		return 0;
	if (p->ncx)
		incl_top(p, t, p->trk[proc]);
	if (f->first && p->trk[proc] != NONE) {
		cp_stream_flush(p, t);
		k->act[k->nact++] = p->trk[proc];
	}
	return 0;
}

/* Close @t's innermost frame. */
void cp_stream_pop(struct sp *p, struct sth *t)
{
	struct sth_stk *s = t->k;
	const struct frame *f;
	uint32_t k;

	if (p->excl || !p->records)
		excl_charge(p, t);
	f = &s->fr[--s->depth];
	s->cnt[f->proc]--;
	t->fac = f->f0;
	if (!p->records) {
		if (f->first)
			p->s->procs[f->proc].cpu_incl_ns += t->useful - f->u0;
		if (f->first && p->views && !p->excl)
			cp_stream_view_cpu(p, (uint32_t)(t - p->th), f->proc,
					   t->useful - f->u0);
		return;
	}
	if (p->excl) {
		k = p->trk[f->proc];
		for (uint32_t i = 0; p->ncx && f->first && k != NONE &&
		     i < s->noth; i++)
			if (s->oth[i] == k) {
				s->oth[i] = s->oth[--s->noth];
				break;
			}
		excl_top(p, t);
		return;
	}
	if (p->ncx)
		incl_top(p, t, top_tracked(p, t));
	if (!f->first)
		return;
	k = p->trk[f->proc];
	if (k == NONE)
		return;
	cp_stream_flush(p, t);
	for (uint32_t i = 0; i < s->nact; i++)
		if (s->act[i] == k) {
			s->act[i] = s->act[--s->nact];
			break;
		}
}

/*
 * The stack change of vertex @v, as cp_tracepag.c's thread_segments: LEAVE
 * closes the innermost ENTER and the regions opened inside it, REGION_END
 * its region and what was opened inside; either closes everything when
 * there is nothing to match.  0, or -1 (memory).
 */
int cp_stream_frames(struct sp *p, struct sth *t, const struct cp_tev *v)
{
	const struct sth_stk *k = stk_of(t, p->ntr);
	unsigned kind = cp_tev_kind(v);
	uint64_t j, tag;
	uint32_t proc;

	if (!k)
		return -1;

	switch (kind) {
	case CP_EV_ENTER:
	case CP_EV_REGION_BEGIN:
		proc = proc_of(p, v);
		tag = kind == CP_EV_ENTER ? 0 : v->arg + 1;
		return proc == NONE ? -1 : push(p, t, tag, proc);
	case CP_EV_LEAVE:
		for (j = k->depth; j > 0 && k->fr[j - 1].tag; j--)
			;
		break;
	case CP_EV_REGION_END:
		for (j = k->depth; j > 0 && k->fr[j - 1].tag != v->arg + 1;
		     j--)
			;
		break;
	default:
		return 0;
	}
	j = j ? j - 1 : 0;
	while (k->depth > j)
		cp_stream_pop(p, t);
	return 0;
}

/*
 * (sampled) @t's stack becomes @proc[0 .. @n) (outermost first): the
 * frames past the common prefix are closed, the new ones opened, as a
 * CP_TV_STACK vertex moves the calling context.  0, or -1 (memory).
 */
int cp_stream_set_stack(struct sp *p, struct sth *t, const uint32_t *proc,
			uint32_t n)
{
	const struct sth_stk *k = stk_of(t, p->ntr);
	uint64_t c = 0;

	if (!k)
		return -1;
	while (c < k->depth && c < n && k->fr[c].proc == proc[c])
		c++;
	while (k->depth > c)
		cp_stream_pop(p, t);
	for (; c < n; c++)
		if (push(p, t, 0, proc[c]))
			return -1;
	return 0;
}

/* ---- the what-if lane --------------------------------------------- */

/*
 * (what-if lanes) Lane @l's factor on @t now: the lane's scaling names
 * one procedure, so the product of the distinct scaled procedures'
 * factors on the stack (the single lane's t->fac) is its factor while
 * the procedure is on the stack (exclusive: innermost), else 1, the
 * same double.
 */
static double lane_factor(const struct sp *p, const struct sth *t,
			  uint32_t l)
{
	const struct sth_stk *k = t->k;
	uint32_t q = p->lq[l];

	if (!k || q == NONE)
		return 1.0;
	if (p->excl)
		return k->depth && k->fr[k->depth - 1].proc == q ?
		       p->lanes[l].factor : 1.0;
	return q < k->cap_cnt && k->cnt[q] ? p->lanes[l].factor : 1.0;
}

/* (what-if lanes) cp_stream_lane_add for each lane. */
static void lanes_add(struct sp *p, struct sth *t, uint64_t dt)
{
	uint64_t *l = &t->vec[cp_stream_whatif(p)];

	for (uint32_t i = 0; i < p->nlane; i++) {
		double f = lane_factor(p, t, i);

		if (f == 1.0) {
			l[i] += dt;
			continue;
		}
		l[i] += cp_whatif_scaled_w(dt, f);
		p->s->lane_ns[i] += dt;
	}
}

/* (records, what-if) A useful segment of @dt ns on @t: the scaled
 * length grows by it reweighted (cp_whatif_scaled_w, as the fixed graph's
 * edge does). */
void cp_stream_lane_add(struct sp *p, struct sth *t, uint64_t dt)
{
	uint64_t *l = &t->vec[cp_stream_whatif(p)];

	if (p->lq) {
		lanes_add(p, t, dt);
		return;
	}
	if (t->fac == 1.0) {
		*l += dt;
		return;
	}
	*l += cp_whatif_scaled_w(dt, t->fac);
	p->s->scaled_ns += dt;
}
