/*
 * cp_pag.h - the program activity graph: a weighted directed acyclic
 * multigraph, activities on edges ([Alexander94, §II], [YangMiller88, §3]).
 *
 * Two producers fill it: the text PAG reader (cp_pagtext.c:
 * cp_pag_read_text, "e TAIL HEAD WEIGHT [LABEL]" lines) and the trace PAG
 * builder (cp_tracepag.c), which adds per-edge attributes of its own in
 * parallel arrays indexed by edge id.  Every algorithm (CPM, k paths,
 * zeroing, MBM, Slack) works on this structure only.
 *
 * Build protocol: cp_pag_init, any number of cp_pag_add_vertex /
 * cp_pag_add_edge, then cp_pag_finish, which checks acyclicity, computes a
 * topological order, the out-adjacency and which vertices are roots.  No
 * algorithm walks in-edges, so the graph keeps none: 4 bytes per vertex
 * and per edge less, a trace's graph being the analysis's largest
 * structure.  After finish the graph is read-only and may be shared by
 * concurrent readers.
 */
#ifndef CP_PAG_H
#define CP_PAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cp_bits.h"

#define CP_PAG_NONE UINT32_MAX

struct cp_pag {
	uint32_t nv;		/* vertices */
	uint32_t ne;		/* edges */
	uint32_t cap_v, cap_e;	/* allocated room while building */
	/*
	 * Chain edges: while every edge added so far runs from vertex h - 1
	 * to h, the graph keeps no tail for it (a trace's segments, which
	 * come first and join consecutive vertices of a thread, are most of
	 * its edges).  Edges 0 .. nchain-1 are such edges; the first that is
	 * not closes the chain for good.  Read tails with cp_pag_tail().
	 */
	uint32_t nchain;
	bool chain_closed;
	uint32_t cap_tail;	/* room in tail[] */
	uint32_t *tail;		/* [ne - nchain] the tail of nchain + i */
	uint32_t *head;		/* [ne] head vertex of each edge */
	uint64_t *w;		/* [ne] weight (ns for traces) */
	uint32_t *label;	/* [ne] index into labels[], or CP_PAG_NONE;
				 * NULL in a graph whose first edges came
				 * without an array for it (the trace PAG,
				 * which labels nothing) */
	char **vname;		/* [nv] vertex names of text PAGs, or NULL */

	/* label strings, interned: equal text => equal index */
	char **labels;
	uint32_t nlabels, cap_labels;
	void *label_index;	/* private hash for interning */

	/* filled by cp_pag_finish() */
	uint32_t *out_off;	/* [nv+1] out-edges of v: out_e[out_off[v]..] */
	uint32_t *out_e;	/* [ne] edge ids grouped by tail */
	uint64_t *root;		/* [nv/64+1] bit v: v has no in-edge */
	uint32_t *topo;		/* [nv] vertices in topological order */
	bool finished;
};

/* Tail vertex of edge @e. */
static inline uint32_t cp_pag_tail(const struct cp_pag *g, uint32_t e)
{
	return e < g->nchain ? g->head[e] - 1 : g->tail[e - g->nchain];
}

/* Whether edge @e (== g->ne) from @tail to @head would be a chain edge. */
static inline bool cp_pag_extends_chain(const struct cp_pag *g, uint32_t e,
					uint32_t tail, uint32_t head)
{
	return !g->chain_closed && e == g->nchain && head == tail + 1;
}

/*
 * Store edge @e (== g->ne, room for it reserved in every array: e <
 * cap_e, and e - nchain < cap_tail unless it extends the chain) from
 * @tail to @head of weight @w; the label is the caller's.  For builders
 * that write the arrays themselves (cp_tracepag.c).
 */
static inline void cp_pag_put_edge(struct cp_pag *g, uint32_t e,
				   uint32_t tail, uint32_t head, uint64_t w)
{
	if (cp_pag_extends_chain(g, e, tail, head)) {
		g->nchain++;
	} else {
		g->chain_closed = true;
		g->tail[e - g->nchain] = tail;
	}
	g->head[e] = head;
	g->w[e] = w;
	g->ne = e + 1;
}

/* Whether cp_pag_put_edge may store edge @e (== g->ne) from @tail to
 * @head without growing an array. */
static inline bool cp_pag_has_room(const struct cp_pag *g, uint32_t e,
				   uint32_t tail, uint32_t head)
{
	return e < g->cap_e && (cp_pag_extends_chain(g, e, tail, head) ||
				e - g->nchain < g->cap_tail);
}

/* Whether vertex @v of a finished graph has no in-edge (a root). */
static inline bool cp_pag_is_root(const struct cp_pag *g, uint32_t v)
{
	return cp_bit_get(g->root, v);
}

/* Start an empty graph. */
void cp_pag_init(struct cp_pag *g);
/* Free everything the graph owns; @g may be initialised again. */
void cp_pag_free(struct cp_pag *g);
/* Add a vertex; returns its id (ids are 0, 1, 2, ... in order). */
uint32_t cp_pag_add_vertex(struct cp_pag *g);
/* Add edge tail->head of weight @w, label id @label (or CP_PAG_NONE);
 * returns its id (0, 1, 2, ...).  Returns CP_PAG_NONE on out-of-memory,
 * when @tail or @head is not a vertex yet, or for a label in a graph
 * without a label array.  Adding to a finished graph
 * drops its adjacency: cp_pag_finish() must run again. */
uint32_t cp_pag_add_edge(struct cp_pag *g, uint32_t tail, uint32_t head,
			 uint64_t w, uint32_t label);
/*
 * Make room for @ne edges in all, the first @nchain of them chain edges
 * (0 when unknown), so that a builder that knows its size (the trace
 * reader) grows the edge arrays once instead of by doubling, which halves
 * the peak memory of a build.  Returns 0, -1 on OOM.
 */
int cp_pag_reserve(struct cp_pag *g, uint32_t ne, uint32_t nchain);
/* Intern @text as a label; returns its id, CP_PAG_NONE on out-of-memory. */
uint32_t cp_pag_intern(struct cp_pag *g, const char *text);
/* Printable name of edge @e: its label, or "TAIL->HEAD" (vertex names when
 * known, else ids) written into @buf. */
const char *cp_pag_edge_name(const struct cp_pag *g, uint32_t e, char *buf,
			     size_t len);
/*
 * Finish building: out-adjacency, roots and a topological order.  Returns
 * 0, or -1
 * with a one-line reason in @err when the graph has a cycle (or memory ran
 * out).
 */
int cp_pag_finish(struct cp_pag *g, char *err, size_t errlen);

/*
 * For builders (cp_pagtext.c): cp_pag_finish, with the failure given as
 * data: returns 0, 1 with *@cyc set to an edge on a cycle, -1 when memory
 * runs out.
 */
int cp_pag_finish_cycle(struct cp_pag *g, uint32_t *cyc);

/*
 * Grow the array *@arr of @size-byte items (indexed by a 32-bit id) to
 * hold @need, doubling; *@cap is its capacity.  Returns 0, or -1 when out
 * of memory or past the id space (*@arr kept).
 */
int cp_pag_grow(void **arr, uint32_t *cap, uint32_t need, size_t size);

/*
 * Read a plain-text PAG (cp_pagtext.c): lines "e TAIL HEAD WEIGHT [LABEL]", '#' comments
 * and blank lines ignored; TAIL and HEAD are names; WEIGHT a non-negative
 * integer, the weights of a file adding up to at most 2^64-1.  @g is
 * initialised by the call (vertex names in g->vname, labels
 * interned).  Returns 0 with @g finished, or -1 with "FILE:LINE: reason" in
 * @err (malformed line, cycle: the line of one of its edges, empty graph)
 * and @g left empty.
 */
int cp_pag_read_text(struct cp_pag *g, const char *path, char *err,
		     size_t errlen);

/*
 * The same from the open stream @f (read to its end, not closed); @path
 * names it in messages.  The fuzz targets feed memory through fmemopen.
 */
int cp_pag_read_stream(struct cp_pag *g, FILE *f, const char *path,
		       char *err, size_t errlen);

/*
 * Activity groups of edges: which procedure (thread, object, label) an
 * edge's time belongs to, for the per-activity metrics (CP share, zeroing,
 * Slack, MBM).  Three forms:
 *  - one group per edge: @of[e] is the group id of edge e, or CP_PAG_NONE
 *    (for a text PAG, @of = g->label and @n = g->nlabels);
 *  - several groups per edge (inclusive procedure time: every procedure on
 *    the call stack owns the segment): @of == NULL, @cls == NULL and the
 *    groups of edge e are @ids[@off[e] .. @off[e+1]), distinct ids, in any
 *    order;
 *  - several groups per class of edges (a class per calling context):
 *    @cls[e] is edge e's class (0 .. @ncls-1) for e below @ncls_e, class
 *    0 for the edges after (a trace's segments come first, the other
 *    edges have the root context), and the groups of class k are
 *    @ids[@off[k] .. @off[k+1]).
 * Group ids are 0 .. @n-1.  The arrays belong to the caller and must stay
 * valid while an algorithm uses them.
 */
struct cp_groups {
	uint32_t n;		/* number of groups */
	const uint32_t *of;	/* [ne] one group per edge, or NULL */
	const uint32_t *cls;	/* [ncls_e] class of each edge, or NULL */
	uint32_t ncls;		/* number of classes, with @cls */
	uint32_t ncls_e;	/* edges with a class in @cls */
	const uint32_t *off;	/* CSR offsets: [ne+1] per edge, or per
				 * class when @cls is set */
	const uint32_t *ids;	/* CSR group ids */
};

/* The class of edge @e in @gr (which has @cls). */
static inline uint32_t cp_groups_cls(const struct cp_groups *gr, uint32_t e)
{
	return e < gr->ncls_e ? gr->cls[e] : 0;
}

/* The groups of edge @e: returns their count, *@ids points at them. */
static inline uint32_t cp_groups_of(const struct cp_groups *gr, uint32_t e,
				    const uint32_t **ids)
{
	if (gr->of) {
		*ids = &gr->of[e];
		return gr->of[e] == CP_PAG_NONE ? 0 : 1;
	}
	if (gr->cls)
		e = cp_groups_cls(gr, e);
	*ids = gr->ids + gr->off[e];
	return gr->off[e + 1] - gr->off[e];
}

/* Whether edge @e belongs to group @gid. */
static inline bool cp_groups_has(const struct cp_groups *gr, uint32_t e,
				 uint32_t gid)
{
	const uint32_t *ids;
	uint32_t n = cp_groups_of(gr, e, &ids);

	for (uint32_t i = 0; i < n; i++)
		if (ids[i] == gid)
			return true;
	return false;
}

#endif /* CP_PAG_H */
