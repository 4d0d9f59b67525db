/*
 * cp_folded.h - folded stacks of a trace, the input of flamegraph.pl and
 * speedscope: one line per calling context, "frame;frame;frame WEIGHT",
 * root first, WEIGHT a positive integer (nanoseconds here).
 *
 * Weighted by time on the critical path (a critical-path flame graph: a
 * wide tower is one the run waited for), or by CPU (useful) time, the
 * ordinary flame graph, for comparison.
 */
#ifndef CP_FOLDED_H
#define CP_FOLDED_H

#include <stdbool.h>
#include <stdio.h>

#include "cp_cpm.h"
#include "cp_tracepag.h"

enum cp_folded_weight {
	CP_FOLDED_CP,		/* useful time on the critical path */
	CP_FOLDED_CPU,		/* all useful time */
};

struct cp_folded_opts {
	enum cp_folded_weight weight;
	bool threads;		/* first frame: the thread ("T1 name") */
};

/*
 * Write the folded stacks of @tp; @c is the CPM of @tp's graph (its
 * critical path gives the CP weights).  Time outside any procedure is the
 * frame "(no procedure)".  Contexts of zero weight are left out.  Returns
 * 0, or -1 with a reason in @err (out of memory, write error).  Only
 * reads @tp and @c.
 */
int cp_folded_write(FILE *f, const struct cp_tracepag *tp,
		    const struct cp_cpm *c, const struct cp_folded_opts *o,
		    char *err, size_t errlen);

#endif /* CP_FOLDED_H */
