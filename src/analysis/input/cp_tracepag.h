/*
 * cp_tracepag.h - the program activity graph of a trace ([YangMiller88,
 * §3], [Hollingsworth98, Figs. 10 and 11]), with per-edge attributes for
 * the profiles.
 *
 * Vertices: every vertex event of every thread (ids vbase[tid] + index),
 * then a source, a sink, and one hub per shared CONSUME range.  Edges:
 *   - segments between consecutive vertices of a thread, weighing the
 *     useful time dt, or zero with the wait recorded aside when the later
 *     vertex has CP_EVF_WAIT;
 *   - zero-weight dependencies: PUBLISH(obj, seq) -> every CONSUME whose
 *     range holds seq (ranges of two or more go through one hub vertex per
 *     distinct range, so a barrier episode of n threads costs 2n edges, not
 *     n^2; paths and lengths are those of the direct edges);
 *     THREAD_CREATE -> the child's THREAD_START; the child's THREAD_EXIT ->
 *     THREAD_JOIN;
 *   - source -> the first vertex of each thread without a parent, the last
 *     vertex of every thread -> sink.
 * Work-queue items appear as the runtime recorded them: the dequeue of an
 * item consumes its enqueue, and an untracked queue lock consumes nothing.
 *
 * Procedures: a calling-context tree (CCT) built from ENTER/LEAVE and
 * REGION_BEGIN/END (a region is a procedure named by its string, so a region
 * "foo" and a function foo are one procedure), or from sampled call stacks
 * (CP_TV_STACK vertices, cp_sampled.h: the context is the stack's path).
 * Every segment edge carries the CCT node that was current during it.
 *
 * Built once, read-only afterwards.
 */
#ifndef CP_TRACEPAG_H
#define CP_TRACEPAG_H

#include "cp_pag.h"
#include "cp_search.h"
#include "cp_trace.h"

enum cp_tedge_kind {
	CP_TE_USEFUL = 0,	/* segment of useful time */
	CP_TE_WAIT = 1,		/* segment spent waiting (weight 0) */
	CP_TE_DEP = 2,		/* dependency between threads */
	CP_TE_AUX = 3,		/* source, sink, hub in-edges */
};

/* A hub vertex (a CONSUME range of two or more publishes). */
struct cp_tracepag_hub {
	uint32_t obj;		/* the object its range is of */
	uint32_t in;		/* its in-edges: edges in .. in + nin - 1, */
	uint32_t nin;		/* one per publish of the range, in order */
};

/* A calling-context tree node; node 0 is the root (no procedure). */
struct cp_cct_node {
	uint32_t parent;	/* CP_PAG_NONE for the root */
	uint32_t proc;		/* procedure id, CP_PAG_NONE for the root */
	uint32_t depth;		/* root 0 */
	uint32_t incl_off;	/* distinct procedures on the path from the */
	uint32_t incl_n;	/* root: cp_tracepag.incl_pool[incl_off..] */
};

struct cp_tracepag {
	struct cp_pag g;
	const struct cp_trace *t;
	uint32_t source, sink;
	uint32_t *vbase;	/* [nthreads+1] first vertex id of a thread */
	uint32_t *segbase;	/* [nthreads] edge id of a thread's first
				 * segment: the segment into vertex i (i >= 1)
				 * is edge segbase[tid] + i - 1 */

	/*
	 * Per edge, indexed by edge id: only the kind and the calling
	 * context.  Segments are edges 0 .. nseg-1 (thread by thread, from
	 * segbase), so a segment's thread, object and procedure follow from
	 * its id, its vertex and its CCT node; a dependency's from its ends
	 * (its head is the consuming vertex, its tail the publishing one or
	 * a hub) and a hub's object from hubs[].  Read them through the
	 * accessors below (cp_tracepag_thread, _obj, _src, _proc).
	 */
	uint8_t *e_kind;	/* [ne] enum cp_tedge_kind */
	uint32_t *e_cct;	/* [nseg] CCT node of a segment (the others'
				 * is the root): cp_tracepag_cct() */
	struct cp_tracepag_hub *hubs;	/* [nhub] hub vertex sink + 1 + h */

	/* procedures and calling contexts */
	char **procs;		/* [nprocs] names, interned */
	uint32_t nprocs;
	struct cp_cct_node *cct;
	uint32_t ncct;
	uint32_t *incl_pool;	/* procedure lists of the CCT nodes */

	uint64_t useful_ns;	/* sum of useful segments */
	uint64_t wait_ns;	/* sum of waits */
	uint32_t nseg;		/* segment edges */
	uint32_t ndep;		/* dependency edges */
	uint32_t nhub;		/* hub vertices */
};

/*
 * Build the graph of @t (which must outlive @tp) and finish it.  Returns 0,
 * or -1 with "FILE: reason" in @err (a dependency cycle: the trace
 * contradicts itself; out of memory).
 */
int cp_tracepag_build(struct cp_tracepag *tp, const struct cp_trace *t,
		      char *err, size_t errlen);
void cp_tracepag_free(struct cp_tracepag *tp);

/*
 * The in-edges of vertex @v if it is a hub: edges *@first .. *@first + the
 * count returned - 1; 0 for any other vertex (the graph keeps no
 * in-adjacency, cp_pag.h).
 */
static inline uint32_t cp_tracepag_hub_in(const struct cp_tracepag *tp,
					  uint32_t v, uint32_t *first)
{
	*first = 0;
	if (v <= tp->sink || v >= tp->g.nv)
		return 0;
	*first = tp->hubs[v - tp->sink - 1].in;
	return tp->hubs[v - tp->sink - 1].nin;
}

/* Thread and vertex index of graph vertex @v; false for source/sink/hub. */
bool cp_tracepag_vertex(const struct cp_tracepag *tp, uint32_t v,
			uint32_t *tid, uint32_t *vi);

/*
 * Readable name of edge @e ("T1 worker", "T1" outside any procedure,
 * "T1 wait mutex#3", "mutex#3 T0->T1", "create T0->T1", "exit T1->T0
 * join", "start", "end") written into @buf; returns @buf.
 */
const char *cp_tracepag_edge_name(const struct cp_tracepag *tp, uint32_t e,
				  char *buf, size_t len);

/*
 * The thread whose range starts last at or before @x in @base[0 ..
 * @n-1] (ascending: vbase or segbase): threads whose range is empty share
 * their successor's start, so the last one is the one that holds @x.
 */
static inline uint32_t cp_tracepag_owner(const uint32_t *base, uint32_t n,
					 uint32_t x)
{
	return cp_count_upto(base, n, x) - 1;
}

/* Thread of segment @e (< nseg). */
static inline uint32_t cp_tracepag_seg_thread(const struct cp_tracepag *tp,
					      uint32_t e)
{
	return cp_tracepag_owner(tp->segbase, tp->t->nthreads, e);
}

/* The vertex a segment @e of thread @tid leads into (index >= 1). */
static inline const struct cp_tvert *
cp_tracepag_seg_vert(const struct cp_tracepag *tp, uint32_t tid, uint32_t e)
{
	return tp->t->threads[tid].v + (e - tp->segbase[tid]) + 1;
}

/* Whether vertex @v is a thread's (not the source, sink or a hub). */
static inline bool cp_tracepag_is_tvertex(const struct cp_tracepag *tp,
					  uint32_t v)
{
	return v < tp->source;
}

/* Thread of edge @e: a segment's own; for a dependency the consuming
 * thread (its head's); CP_PAG_NONE for aux edges. */
static inline uint32_t cp_tracepag_thread(const struct cp_tracepag *tp,
					  uint32_t e)
{
	if (e < tp->nseg)
		return cp_tracepag_seg_thread(tp, e);
	if (tp->e_kind[e] != CP_TE_DEP)
		return CP_PAG_NONE;
	return cp_tracepag_owner(tp->vbase, tp->t->nthreads, tp->g.head[e]);
}

/* Object of edge @e: what a wait segment waited for, what a dependency
 * into a CONSUME or a hub's in-edge went through; 0 for none. */
static inline uint32_t cp_tracepag_obj(const struct cp_tracepag *tp,
				       uint32_t e)
{
	const struct cp_tvert *v;
	uint32_t h, tid;

	if (e < tp->nseg) {
		if (tp->e_kind[e] != CP_TE_WAIT)
			return 0;
		tid = cp_tracepag_seg_thread(tp, e);
		return cp_tracepag_seg_vert(tp, tid, e)->obj;
	}
	h = tp->g.head[e];	/* not read for segments: a miss an edge */
	if (tp->e_kind[e] != CP_TE_DEP)
		return h > tp->sink ? tp->hubs[h - tp->sink - 1].obj : 0;
	tid = cp_tracepag_owner(tp->vbase, tp->t->nthreads, h);
	v = &tp->t->threads[tid].v[h - tp->vbase[tid]];
	return cp_tvert_kind(v) == CP_EV_CONSUME ? v->obj : 0;
}

/* Thread of a dependency's tail (publisher, creator, exiting child) or of
 * a hub's in-edge, or CP_PAG_NONE (segments, a hub's out-edge, source and
 * sink edges). */
static inline uint32_t cp_tracepag_src(const struct cp_tracepag *tp,
				       uint32_t e)
{
	uint32_t t = cp_pag_tail(&tp->g, e);

	if (e < tp->nseg || !cp_tracepag_is_tvertex(tp, t) ||
	    tp->g.head[e] == tp->sink)
		return CP_PAG_NONE;
	return cp_tracepag_owner(tp->vbase, tp->t->nthreads, t);
}

/* CCT node of edge @e: a segment's, the root (0) for any other edge. */
static inline uint32_t cp_tracepag_cct(const struct cp_tracepag *tp,
				       uint32_t e)
{
	return e < tp->nseg ? tp->e_cct[e] : 0;
}

/* Innermost procedure of segment @e, CP_PAG_NONE outside any procedure
 * and for edges that are not segments (their CCT node is the root). */
static inline uint32_t cp_tracepag_proc(const struct cp_tracepag *tp,
					uint32_t e)
{
	return tp->cct[cp_tracepag_cct(tp, e)].proc;
}

/*
 * Wait duration of edge @e: for a CP_TE_WAIT segment, the time between
 * its two vertices (its weight is 0); 0 for any other edge.  Read from the
 * trace, so the graph keeps no per-edge array for it.
 */
static inline uint64_t cp_tracepag_wait(const struct cp_tracepag *tp,
					uint32_t e)
{
	const struct cp_tvert *v;

	if (tp->e_kind[e] != CP_TE_WAIT)
		return 0;
	v = cp_tracepag_seg_vert(tp, cp_tracepag_seg_thread(tp, e), e);
	return v[0].ts - v[-1].ts;
}

/* Name of procedure @p, "(none)" for CP_PAG_NONE. */
static inline const char *cp_tracepag_proc_name(const struct cp_tracepag *tp,
						uint32_t p)
{
	return p < tp->nprocs ? tp->procs[p] : "(none)";
}

#endif /* CP_TRACEPAG_H */
