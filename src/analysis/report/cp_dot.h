/*
 * cp_dot.h - a small program activity graph as Graphviz dot: vertices
 * (events), edges with their weights, the critical path in bold red; for
 * a trace, one cluster per thread with time running left to right.
 *
 * Only small graphs draw legibly (and dot's layout is superlinear), so
 * above a size limit the writer refuses with a message saying why and
 * what to use instead.
 */
#ifndef CP_DOT_H
#define CP_DOT_H

#include <stdint.h>
#include <stdio.h>

#include "cp_cpm.h"
#include "cp_tracepag.h"

#define CP_DOT_MAX_EDGES 2000	/* default limit */

struct cp_dot_opts {
	uint32_t max_edges;	/* refuse above this; 0: CP_DOT_MAX_EDGES */
	const struct cp_tracepag *tp;	/* the graph is this trace's PAG:
					 * name events, cluster threads */
};

/*
 * Whether @g is small enough for limit @max_edges (0: the default):
 * returns 0, or -1 with the one-line reason (how big, what to do) in @err.
 */
int cp_dot_check(const struct cp_pag *g, uint32_t max_edges, char *err,
		 size_t errlen);

/*
 * Write @g (finished; @c is its CPM) as a dot digraph.  Returns 0, or -1
 * with a one-line reason in @err: the graph is above the limit (nothing
 * written), a write error.  Only reads @g, @c and @o->tp.
 */
int cp_dot_write(FILE *f, const struct cp_pag *g, const struct cp_cpm *c,
		 const struct cp_dot_opts *o, char *err, size_t errlen);

#endif /* CP_DOT_H */
