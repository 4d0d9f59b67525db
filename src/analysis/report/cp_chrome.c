/*
 * cp_chrome.c - Chrome trace-event JSON of a trace.
 *
 * The format (Google's "Trace Event Format" document) is a JSON object
 * with a "traceEvents" array.  Only complete events ("ph":"X", ts and dur
 * in microseconds) are used for slices: they nest by containment, so the
 * file needs no ordering and no B/E pairing, and the viewers sort them.
 * Timestamps are the wall clock (under the cpu clock too: a timeline is
 * about when things happened), printed with three decimals, i.e. to the
 * nanosecond.
 *
 * Procedure slices come from the calling contexts of the segments: moving
 * from context A to context B at a vertex closes A's frames up to their
 * lowest common ancestor and opens B's below it, the same frames ENTER,
 * LEAVE and the regions opened and closed (cp_tracepag.c decided the
 * contexts).  A wait segment becomes a "wait" slice under them, a segment
 * of the critical path a "critical path" slice (consecutive ones in one
 * context merged), the innermost level of its thread.
 *
 * Arrows: a flow event pair ("s" on the publishing thread, "f" with
 * "bp":"e" on the consuming one) per dependency edge between two threads.
 * Flow events bind to the slice that encloses them; the critical path's
 * arrows start a nanosecond before the release and end a nanosecond after
 * the acquire, so they bind to the "critical path" slices themselves and
 * the path can be followed slice to arrow to slice.  A dependency through
 * a hub (a barrier episode, an rwlock's read releases) is drawn from the
 * hub's latest arrival, or from the critical path's one when the path
 * goes through it.
 *
 * Cost: one pass over every thread's segments, one over the dependency
 * edges, one over the critical path: O(v + e + depth changes).
 */
#include "cp_chrome.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cp_grow.h"
#include "cp_report_out.h"
#include "cp_wall.h"
#include "cp_wbuf.h"

struct frame {
	uint32_t node;		/* CCT node */
	uint64_t start;		/* wall time it was entered */
};

struct ctx {
	struct cp_wbuf *w;
	const struct cp_tracepag *tp;
	const struct cp_trace *t;
	const uint8_t *oncp;
	char **pname;		/* [nprocs] JSON-quoted procedure names */
	uint64_t t0;		/* wall time shown as 0 */
	uint64_t pid;
	bool first;		/* no event written yet */
	uint64_t flow_id;
	/* window and aggregation (cp_chrome.h) */
	bool windowed;
	uint64_t wa, wb;	/* the window, absolute wall ns */
	uint64_t min;		/* min_slice_ns, 0: no aggregation */
	uint64_t *bnd;		/* boundaries of a thread's procedure */
	uint32_t nbnd, capbnd;	/* slices shown (aggregated form) */
	uint64_t *last_flow;	/* [2 * nthreads] last arrow kept, by
				 * consumer thread and kind */
	bool oom;
};

static const char *pname(const struct ctx *x, uint32_t node)
{
	uint32_t p;

	if (node == CP_PAG_NONE)
		return "\"(several)\"";
	p = x->tp->cct[node].proc;

	return p < x->tp->nprocs ? x->pname[p] : "\"(no procedure)\"";
}

/* Start an event: the separator and the common fields. */
static void ev_begin(struct ctx *x, const char *ph, uint32_t tid,
		     uint64_t ts)
{
	struct cp_wbuf *w = x->w;

	cp_wbuf_str(w, x->first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
	x->first = false;
	cp_wbuf_str(w, ph);
	cp_wbuf_str(w, "\",\"pid\":");
	cp_wbuf_u64(w, x->pid);
	cp_wbuf_str(w, ",\"tid\":");
	cp_wbuf_u64(w, tid);
	cp_wbuf_str(w, ",\"ts\":");
	cp_wbuf_us(w, ts - x->t0);
}

/* A complete slice [a, b) named by the JSON text @qname; the caller
 * closes it with "}" after any extra members. */
static void slice(struct ctx *x, uint32_t tid, uint64_t a, uint64_t b,
		  const char *cat, const char *qname)
{
	struct cp_wbuf *w = x->w;

	ev_begin(x, "X", tid, a);
	cp_wbuf_str(w, ",\"dur\":");
	cp_wbuf_us(w, b - a);
	cp_wbuf_str(w, ",\"cat\":\"");
	cp_wbuf_str(w, cat);
	cp_wbuf_str(w, "\",\"name\":");
	cp_wbuf_str(w, qname);
}

static void meta(struct ctx *x, uint32_t tid, const char *what,
		 const char *key, const char *sval, int64_t ival)
{
	struct cp_wbuf *w = x->w;

	cp_wbuf_str(w, x->first ? "\n{\"ph\":\"M\",\"pid\":"
				: ",\n{\"ph\":\"M\",\"pid\":");
	x->first = false;
	cp_wbuf_u64(w, x->pid);
	cp_wbuf_str(w, ",\"tid\":");
	cp_wbuf_u64(w, tid);
	cp_wbuf_str(w, ",\"name\":\"");
	cp_wbuf_str(w, what);
	cp_wbuf_str(w, "\",\"args\":{\"");
	cp_wbuf_str(w, key);
	cp_wbuf_str(w, "\":");
	if (sval)
		cp_wbuf_json(w, sval);
	else
		cp_wbuf_i64(w, ival);
	cp_wbuf_str(w, "}}");
}

/*
 * Cut [*a, *b] to the window; false when it lies outside.  A slice of no
 * duration stays when its instant is inside.
 */
static bool clip(const struct ctx *x, uint64_t *a, uint64_t *b)
{
	if (!x->windowed)
		return true;
	if (*a >= x->wb || *b < x->wa || (*b == x->wa && *a < *b))
		return false;
	if (*a < x->wa)
		*a = x->wa;
	if (*b > x->wb)
		*b = x->wb;
	return true;
}

/* Remember a boundary of a procedure slice shown (aggregated form). */
static void add_bnd(struct ctx *x, uint64_t t)
{
	if (cp_grow32((void **)&x->bnd, sizeof(*x->bnd), &x->capbnd,
		      (uint64_t)x->nbnd + 1)) {
		x->oom = true;
		return;
	}
	x->bnd[x->nbnd++] = t;
}

static void proc_slice(struct ctx *x, uint32_t tid, const struct frame *fr,
		       uint64_t end)
{
	uint64_t a = fr->start, b = end;

	if (!clip(x, &a, &b) || (x->min && b - a < x->min))
		return;
	if (x->min) {
		add_bnd(x, a);
		add_bnd(x, b);
	}
	slice(x, tid, a, b, "procedure", pname(x, fr->node));
	cp_wbuf_c(x->w, '}');
}

/*
 * A stretch of the critical path of @nseg segments [@a, @b), in one
 * context @node (NONE: several); @w is its weight (the CP time, which
 * under the cpu clock differs from the wall-clock duration).  Cut to the
 * window, the weight in proportion.
 */
static void cp_slice(struct ctx *x, uint32_t tid, uint32_t node, uint64_t a,
		     uint64_t b, uint64_t w, uint32_t nseg)
{
	uint64_t ca = a, cb = b;

	if (!clip(x, &ca, &cb))
		return;
	if ((ca != a || cb != b) && b > a)
		w = (uint64_t)((unsigned __int128)w * (cb - ca) / (b - a));
	slice(x, tid, ca, cb, "critical_path", "\"critical path\"");
	cp_wbuf_str(x->w, ",\"cname\":\"terrible\",\"args\":{\"procedure\":");
	cp_wbuf_str(x->w, pname(x, node));
	cp_wbuf_str(x->w, ",\"cp_ns\":");
	cp_wbuf_u64(x->w, w);
	if (nseg > 1) {
		cp_wbuf_str(x->w, ",\"segments\":");
		cp_wbuf_u64(x->w, nseg);
	}
	cp_wbuf_str(x->w, "}}");
}

static int cmp_u64(const void *p, const void *q)
{
	uint64_t a = *(const uint64_t *)p, b = *(const uint64_t *)q;

	return a < b ? -1 : a > b;
}

/*
 * The aggregated form's critical-path slices of thread @tid: segments
 * closer than x->min merge unless a procedure slice shown begins or ends
 * strictly inside the merged stretch (x->bnd), so they still nest.
 */
static void cp_runs_merged(struct ctx *x, uint32_t tid)
{
	const struct cp_tracepag *tp = x->tp;
	const struct cp_trace_thread *th = &x->t->threads[tid];
	uint64_t ra = 0, rb = 0, rw = 0;
	uint32_t rn = 0, nseg = 0, j = 0;

	if (x->nbnd > 1)	/* qsort(NULL, 0, ...) is undefined */
		qsort(x->bnd, x->nbnd, sizeof(*x->bnd), cmp_u64);
	for (uint32_t i = 1; i < th->nv; i++) {
		uint32_t e = tp->segbase[tid] + i - 1;
		uint64_t a = cp_trace_wall(x->t, tid, i - 1);
		uint64_t b = cp_trace_wall(x->t, tid, i), w = tp->g.w[e], a0 = a;
		uint64_t b0 = b;

		if (!x->oncp[e] || tp->e_kind[e] != CP_TE_USEFUL || b <= a ||
		    !clip(x, &a, &b) || a == b)
			continue;
		if (a != a0 || b != b0)	/* cut by the window: in proportion */
			w = (uint64_t)((unsigned __int128)w * (b - a) /
				       (b0 - a0));
		if (nseg && a - rb < x->min &&
		    (j >= x->nbnd || x->bnd[j] >= b)) {
			rb = b;
			rw += w;
			nseg++;
			if (rn != cp_tracepag_cct(tp, e))
				rn = CP_PAG_NONE;
			continue;
		}
		if (nseg)
			cp_slice(x, tid, rn, ra, rb, rw, nseg);
		while (j < x->nbnd && x->bnd[j] <= a)
			j++;
		ra = a;
		rb = b;
		rw = w;
		rn = cp_tracepag_cct(tp, e);
		nseg = 1;
	}
	if (nseg)
		cp_slice(x, tid, rn, ra, rb, rw, nseg);
}

static void obj_name(const struct cp_trace *t, uint32_t obj, char *buf,
		     size_t len)
{
	if (obj)
		snprintf(buf, len, "%s#%" PRIu32,
			 cp_obj_kind_name(t->objs[obj].kind), obj);
	else
		snprintf(buf, len, "join");
}

/*
 * Thread @tid moves from calling context @prev to @target at @a: close
 * the procedure slices below their lowest common ancestor, open those
 * above it.  @stk[0..@depth) is the open stack; returns its new depth.
 */
static uint32_t switch_context(struct ctx *x, uint32_t tid,
			       struct frame *stk, uint32_t *tmp,
			       uint32_t depth, uint32_t prev, uint32_t target,
			       uint64_t a)
{
	const struct cp_cct_node *cct = x->tp->cct;
	uint32_t a_n = prev, b_n = target, n = 0;

	while (cct[a_n].depth > cct[b_n].depth)
		a_n = cct[a_n].parent;
	while (cct[b_n].depth > cct[a_n].depth)
		b_n = cct[b_n].parent;
	while (a_n != b_n) {
		a_n = cct[a_n].parent;
		b_n = cct[b_n].parent;
	}
	while (depth > cct[a_n].depth) {
		depth--;
		proc_slice(x, tid, &stk[depth], a);
	}
	for (uint32_t v = target; v != a_n; v = cct[v].parent)
		tmp[n++] = v;
	while (n--) {
		stk[depth].node = tmp[n];
		stk[depth].start = a;
		depth++;
	}
	return depth;
}

/* The wait of edge @e of thread @tid, [@a, @b), unless clipped or too
 * short to show. */
static void wait_slice(struct ctx *x, uint32_t tid, uint32_t e, uint64_t a,
		       uint64_t b)
{
	const struct cp_tracepag *tp = x->tp;
	uint64_t ca = a, cb = b;
	char name[96], q[128];

	if (!clip(x, &ca, &cb) || (x->min && cb - ca < x->min))
		return;
	obj_name(x->t, cp_tracepag_obj(tp, e), name, sizeof(name));
	snprintf(q, sizeof(q), "\"wait %s\"", name);
	slice(x, tid, ca, cb, "wait", q);
	cp_wbuf_str(x->w, ",\"cname\":\"grey\",\"args\":{\"object\":");
	cp_wbuf_json(x->w, name);
	if (cp_tracepag_obj(tp, e)) {
		const struct cp_trace_obj *o =
			&x->t->objs[cp_tracepag_obj(tp, e)];
		char site[CP_REPORT_SITE_LEN];

		if (cp_obj_kind_has_addr(o->kind)) {
			cp_wbuf_str(x->w, ",\"address\":\"");
			cp_wbuf_printf(x->w, "0x%" PRIx64, o->addr);
			cp_wbuf_c(x->w, '"');
		}
		if (o->site.pc) {
			cp_wbuf_str(x->w, ",\"first_used_in\":");
			cp_wbuf_json(x->w, cp_report_out_site(&o->site, site,
							      sizeof(site)));
		}
	}
	cp_wbuf_str(x->w, "}}");
}

/* Slices of thread @tid: life, procedures, waits, critical path. */
static void thread_slices(struct ctx *x, uint32_t tid, struct frame *stk,
			  uint32_t *tmp)
{
	const struct cp_tracepag *tp = x->tp;
	const struct cp_trace_thread *th = &x->t->threads[tid];
	uint32_t depth = 0, prev = 0;
	uint32_t run_node = 0;
	uint64_t run_a = 0, run_b = 0, run_w = 0, end;
	bool run = false;
	char name[96];

	uint64_t la = cp_trace_wall(x->t, tid, 0);
	uint64_t lb = cp_trace_wall(x->t, tid, th->nv - 1);

	snprintf(name, sizeof(name), "T%" PRIu32 "%s%s", tid,
		 th->name && *th->name ? " " : "", th->name ? th->name : "");
	lb++;
	if (clip(x, &la, &lb)) {
		slice(x, tid, la, lb, "thread", "\"thread\"");
		cp_wbuf_str(x->w, ",\"args\":{\"thread\":");
		cp_wbuf_json(x->w, name);
		cp_wbuf_str(x->w, "}}");
	}
	x->nbnd = 0;
	for (uint32_t i = 1; i < th->nv; i++) {
		uint32_t e = tp->segbase[tid] + i - 1;
		uint32_t target = cp_tracepag_cct(tp, e);
		uint64_t a = cp_trace_wall(x->t, tid, i - 1);
		uint64_t b = cp_trace_wall(x->t, tid, i);

		if (target != prev) {
			depth = switch_context(x, tid, stk, tmp, depth, prev,
					       target, a);
			prev = target;
		}
		if (x->windowed && a >= x->wb)
			break;		/* nothing further is shown */
		if (tp->e_kind[e] == CP_TE_WAIT && b > a)
			wait_slice(x, tid, e, a, b);
		if (!x->min && x->oncp[e] && tp->e_kind[e] == CP_TE_USEFUL &&
		    b > a) {
			if (run && run_node == target && run_b == a) {
				run_b = b;
				run_w += tp->g.w[e];
			} else {
				if (run)
					cp_slice(x, tid, run_node, run_a, run_b,
						 run_w, 1);
				run = true;
				run_node = target;
				run_a = a;
				run_b = b;
				run_w = tp->g.w[e];
			}
		}
	}
	if (run)
		cp_slice(x, tid, run_node, run_a, run_b, run_w, 1);
	end = cp_trace_wall(x->t, tid, th->nv - 1);
	while (depth) {
		depth--;
		proc_slice(x, tid, &stk[depth], end);
	}
	if (x->min)
		cp_runs_merged(x, tid);
}

/* The publishing end (thread, vertex) of dependency edge @e. */
static bool dep_tail(const struct ctx *x, uint32_t e, uint32_t *tid,
		     uint32_t *vi)
{
	const struct cp_tracepag *tp = x->tp;
	const struct cp_pag *g = &tp->g;
	uint32_t tail = cp_pag_tail(g, e), best = CP_PAG_NONE, first, n;
	uint64_t bw = 0;

	if (cp_tracepag_vertex(tp, tail, tid, vi))
		return true;
	/* a hub: its latest arrival, or the one on the critical path */
	n = cp_tracepag_hub_in(tp, tail, &first);
	for (uint32_t in = first; in < first + n; in++) {
		uint32_t t2, v2;
		uint64_t wt;

		if (!cp_tracepag_vertex(tp, cp_pag_tail(g, in), &t2, &v2))
			continue;
		wt = cp_trace_wall(x->t, t2, v2);
		if (x->oncp[in] || best == CP_PAG_NONE || wt > bw) {
			best = in;
			bw = wt;
			*tid = t2;
			*vi = v2;
			if (x->oncp[in])
				break;
		}
	}
	return best != CP_PAG_NONE;
}

/* One end of flow x->flow_id: phase @ph at @tid, @ts; @bp its binding
 * point member ("" or ",\"bp\":..."), @cat, the quoted name @q. */
static void flow_event(struct ctx *x, const char *ph, uint32_t tid,
		       uint64_t ts, const char *bp, const char *cat,
		       const char *q)
{
	ev_begin(x, ph, tid, ts);
	cp_wbuf_str(x->w, bp);
	cp_wbuf_str(x->w, ",\"id\":");
	cp_wbuf_u64(x->w, x->flow_id);
	cp_wbuf_str(x->w, ",\"cat\":\"");
	cp_wbuf_str(x->w, cat);
	cp_wbuf_str(x->w, "\",\"name\":");
	cp_wbuf_str(x->w, q);
	cp_wbuf_c(x->w, '}');
}

static void flows(struct ctx *x, const struct cp_chrome_opts *o)
{
	const struct cp_tracepag *tp = x->tp;
	const struct cp_pag *g = &tp->g;
	char name[64], q[80];

	for (uint32_t e = 0; e < g->ne; e++) {
		uint32_t ct = cp_tracepag_thread(tp, e), cv, pt, pv;
		uint64_t t1, t2;
		bool cp = x->oncp[e];
		const char *cat = cp ? "critical_path" : "dependency";

		if (tp->e_kind[e] != CP_TE_DEP || (!cp && o && o->no_flows))
			continue;
		cv = g->head[e] - tp->vbase[ct];
		if (!dep_tail(x, e, &pt, &pv) || pt == ct)
			continue;
		t1 = cp_trace_wall(x->t, pt, pv);
		t2 = cp_trace_wall(x->t, ct, cv);
		if (x->windowed && (t1 < x->wa || t2 >= x->wb))
			continue;
		if (x->min) {
			uint64_t *last = &x->last_flow[2 * ct + cp];

			if (*last && t2 < *last + x->min)
				continue;
			*last = t2;
		}
		if (cp) {
			if (pv > 0 && t1 > cp_trace_wall(x->t, pt, 0))
				t1--;
			t2++;	/* inside the consumer's next slice */
			snprintf(q, sizeof(q), "\"critical path\"");
		} else if (cp_tracepag_obj(tp, e)) {
			obj_name(x->t, cp_tracepag_obj(tp, e), name, sizeof(name));
			snprintf(q, sizeof(q), "\"%s\"", name);
		} else {
			snprintf(q, sizeof(q), "\"%s\"",
				 cp_tvert_kind(&x->t->threads[ct].v[cv]) ==
				 CP_EV_THREAD_START ? "create" : "join");
		}
		x->flow_id++;
		flow_event(x, "s", pt, t1, "", cat, q);
		flow_event(x, "f", ct, t2, ",\"bp\":\"e\"", cat, q);
	}
}

/* A stretch of the critical path's track: thread @tid (NONE: several)
 * in context @node (NONE: several). */
static void cp_track_slice(struct ctx *x, uint32_t tid, uint32_t node,
			   uint64_t a, uint64_t b)
{
	if (!clip(x, &a, &b))
		return;
	slice(x, CP_CHROME_CP_TID, a, b, "critical_path", pname(x, node));
	if (tid == CP_PAG_NONE) {
		cp_wbuf_str(x->w, ",\"args\":{\"thread\":\"(several)\"}}");
		return;
	}
	cp_wbuf_str(x->w, ",\"args\":{\"thread\":\"T");
	cp_wbuf_u64(x->w, tid);
	cp_wbuf_str(x->w, "\"}}");
}

/* The critical path's own track: its procedures in time order. */
static void cp_track(struct ctx *x, const struct cp_cpm *c)
{
	const struct cp_tracepag *tp = x->tp;
	uint32_t rt = 0, rn = 0;
	uint64_t ra = 0, rb = 0;
	bool run = false;

	for (uint32_t i = 0; i < c->npath; i++) {
		uint32_t e = c->path[i], tid, vi;
		uint64_t a, b;

		if (tp->e_kind[e] != CP_TE_USEFUL || !tp->g.w[e] ||
		    !cp_tracepag_vertex(tp, tp->g.head[e], &tid, &vi) || !vi)
			continue;
		a = cp_trace_wall(x->t, tid, vi - 1);
		b = cp_trace_wall(x->t, tid, vi);
		if (run && tid == rt && cp_tracepag_cct(tp, e) == rn &&
		    a == rb) {
			rb = b;
			continue;
		}
		if (run && x->min && a >= rb && a - rb < x->min) {
			rb = b;		/* aggregated: merge what is close */
			if (tid != rt)
				rt = CP_PAG_NONE;
			if (cp_tracepag_cct(tp, e) != rn)
				rn = CP_PAG_NONE;
			continue;
		}
		if (run)
			cp_track_slice(x, rt, rn, ra, rb);
		run = true;
		rt = tid;
		rn = cp_tracepag_cct(tp, e);
		ra = a;
		rb = b;
	}
	if (run)
		cp_track_slice(x, rt, rn, ra, rb);
}

/* JSON-quoted copies of the procedure names. */
static char **quote_names(const struct cp_tracepag *tp)
{
	char **q = calloc(tp->nprocs ? tp->nprocs : 1, sizeof(*q));

	if (!q)
		return NULL;
	for (uint32_t p = 0; p < tp->nprocs; p++) {
		q[p] = cp_json_quote(tp->procs[p]);
		if (!q[p]) {
			for (uint32_t i = 0; i < p; i++)
				free(q[i]);
			free(q);
			return NULL;
		}
	}
	return q;
}

/* The time origin, the --window and the smallest slice kept. */
static void window(struct ctx *x, const struct cp_chrome_opts *o)
{
	const struct cp_trace *t = x->t;

	x->t0 = UINT64_MAX;
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		if (t->threads[tid].nv && cp_trace_wall(t, tid, 0) < x->t0)
			x->t0 = cp_trace_wall(t, tid, 0);
	if (x->t0 == UINT64_MAX)
		x->t0 = 0;
	if (o && (o->from_ns || o->to_ns)) {
		x->windowed = true;
		x->wa = x->t0 + o->from_ns;
		x->wb = o->to_ns ? x->t0 + o->to_ns : UINT64_MAX;
	}
	if (o && o->min_slice_ns == CP_CHROME_MIN_AUTO) {
		uint64_t end = 0, wa = x->windowed ? x->wa : x->t0, wb;

		for (uint32_t tid = 0; tid < t->nthreads; tid++)
			if (t->threads[tid].nv &&
			    cp_trace_wall(t, tid, t->threads[tid].nv - 1) > end)
				end = cp_trace_wall(t, tid,
						    t->threads[tid].nv - 1);
		wb = x->windowed && x->wb < end ? x->wb : end;
		x->min = wb > wa ? (wb - wa) / CP_CHROME_MIN_DIV : 0;
	} else if (o) {
		x->min = o->min_slice_ns;
	}
}

/* "otherData" and the process's and the critical path's names. */
static void header(struct ctx *x, const struct cp_cpm *c,
		   const struct cp_chrome_opts *o)
{
	const struct cp_trace *t = x->t;
	const char *exe = cp_trace_info(t, "exe"), *base;
	char pn[300];

	cp_wbuf_str(x->w, "{\"displayTimeUnit\":\"ns\",\"otherData\":{"
		    "\"tool\":\"cpthread\",\"trace\":");
	cp_wbuf_json(x->w, t->path ? t->path : "");
	cp_wbuf_str(x->w, ",\"clock\":");
	cp_wbuf_str(x->w, t->clock == CP_CLOCK_CPU ? "\"cpu\"" : "\"wall\"");
	cp_wbuf_str(x->w, ",\"critical_path_ns\":");
	cp_wbuf_u64(x->w, c->length);
	cp_wbuf_str(x->w, ",\"threads\":");
	cp_wbuf_u64(x->w, t->nthreads);
	if (x->windowed) {
		cp_wbuf_str(x->w, ",\"window_ns\":[");
		cp_wbuf_u64(x->w, o->from_ns);
		cp_wbuf_c(x->w, ',');
		if (o->to_ns)
			cp_wbuf_u64(x->w, o->to_ns);
		else
			cp_wbuf_str(x->w, "null");
		cp_wbuf_c(x->w, ']');
	}
	if (x->min) {
		cp_wbuf_str(x->w, ",\"min_slice_ns\":");
		cp_wbuf_u64(x->w, x->min);
	}
	cp_wbuf_str(x->w, "},\"traceEvents\":[");

	base = exe ? strrchr(exe, '/') : NULL;
	snprintf(pn, sizeof(pn), "%s (pid %" PRIu64 ")",
		 base ? base + 1 : exe ? exe : "program", t->pid);
	meta(x, 0, "process_name", "name", pn, 0);
	meta(x, CP_CHROME_CP_TID, "thread_name", "name", "critical path", 0);
	meta(x, CP_CHROME_CP_TID, "thread_sort_index", "sort_index", NULL,
	     -1);
}

/* Each thread's name, place and slices (@stk, @tmp: scratch, deepest
 * calling context + 1). */
static void threads(struct ctx *x, const struct cp_chrome_opts *o,
		    struct frame *stk, uint32_t *tmp)
{
	const struct cp_trace *t = x->t;
	char pn[300];

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		const struct cp_trace_thread *th = &t->threads[tid];

		if (!th->nv)
			continue;
		snprintf(pn, sizeof(pn), "T%" PRIu32 "%s%s", tid,
			 th->name && *th->name ? " " : "",
			 th->name ? th->name : "");
		meta(x, tid, "thread_name", "name", pn, 0);
		meta(x, tid, "thread_sort_index", "sort_index", NULL, tid);
		thread_slices(x, tid, stk, tmp);
		if (o && o->progress)
			o->progress(o->progress_ctx, "writing the timeline",
				    (double)(tid + 1) / t->nthreads);
	}
}

int cp_chrome_write(FILE *f, const struct cp_tracepag *tp,
		    const struct cp_cpm *c, const struct cp_chrome_opts *o,
		    char *err, size_t errlen)
{
	const struct cp_trace *t = tp->t;
	struct ctx x = { .tp = tp, .t = t, .first = true };
	struct frame *stk = NULL;
	uint32_t *tmp = NULL, maxdepth = 0;
	uint8_t *oncp = NULL;
	int ret = -1;

	for (uint32_t n = 0; n < tp->ncct; n++)
		if (tp->cct[n].depth > maxdepth)
			maxdepth = tp->cct[n].depth;
	stk = malloc(((size_t)maxdepth + 1) * sizeof(*stk));
	tmp = malloc(((size_t)maxdepth + 1) * sizeof(*tmp));
	oncp = calloc(tp->g.ne ? tp->g.ne : 1, 1);
	x.w = malloc(sizeof(*x.w));
	x.pname = quote_names(tp);
	if (!stk || !tmp || !oncp || !x.w || !x.pname) {
		snprintf(err, errlen, "out of memory writing the Chrome trace");
		goto out;
	}
	for (uint32_t i = 0; i < c->npath; i++)
		oncp[c->path[i]] = 1;
	x.oncp = oncp;
	x.pid = t->pid ? t->pid : 1;
	window(&x, o);
	if (x.min) {
		x.last_flow = calloc(2 * (size_t)t->nthreads + 1,
				     sizeof(*x.last_flow));
		if (!x.last_flow) {
			snprintf(err, errlen,
				 "out of memory writing the Chrome trace");
			goto out;
		}
	}

	cp_wbuf_init(x.w, f);
	header(&x, c, o);
	threads(&x, o, stk, tmp);
	if (x.oom) {
		snprintf(err, errlen, "out of memory writing the Chrome trace");
		cp_wbuf_close(x.w);
		goto out;
	}
	flows(&x, o);
	cp_track(&x, c);
	cp_wbuf_str(x.w, "\n]}\n");
	if (cp_wbuf_close(x.w)) {
		snprintf(err, errlen, "write error on the Chrome trace");
		goto out;
	}
	ret = 0;
out:
	if (x.pname)
		for (uint32_t p = 0; p < tp->nprocs; p++)
			free(x.pname[p]);
	free(x.pname);
	free(x.w);
	free(x.bnd);
	free(x.last_flow);
	free(stk);
	free(tmp);
	free(oncp);
	return ret;
}
