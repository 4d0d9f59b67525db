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
#include "cp_trace.h"

enum cp_tedge_kind {
	CP_TE_USEFUL = 0,	/* segment of useful time */
	CP_TE_WAIT = 1,		/* segment spent waiting (weight 0) */
	CP_TE_DEP = 2,		/* dependency between threads */
	CP_TE_AUX = 3,		/* source, sink, hub in-edges */
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

	/* per edge, indexed by edge id */
	uint8_t *e_kind;	/* enum cp_tedge_kind */
	uint32_t *e_thread;	/* thread of a segment; for a dependency the
				 * consuming thread; CP_PAG_NONE for aux */
	uint32_t *e_cct;	/* CCT node of a segment, 0 otherwise */
	uint32_t *e_obj;	/* object of a wait or dependency, else 0 */
	uint64_t *e_wait;	/* wait duration of a CP_TE_WAIT edge */
	uint32_t *e_src;	/* thread of a dependency's tail (publisher,
				 * creator, exiting child), else CP_PAG_NONE */

	/* procedures and calling contexts */
	char **procs;		/* [nprocs] names, interned */
	uint32_t nprocs;
	struct cp_cct_node *cct;
	uint32_t ncct;
	uint32_t *incl_pool;	/* procedure lists of the CCT nodes */
	uint32_t *e_proc;	/* [ne] innermost procedure of a segment,
				 * CP_PAG_NONE outside any or off segments */

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

/* Name of procedure @p, "(none)" for CP_PAG_NONE. */
static inline const char *cp_tracepag_proc_name(const struct cp_tracepag *tp,
						uint32_t p)
{
	return p < tp->nprocs ? tp->procs[p] : "(none)";
}

#endif /* CP_TRACEPAG_H */
