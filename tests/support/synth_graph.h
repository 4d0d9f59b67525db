/*
 * synth_graph.h - a synthetic trace (trace_synth.h) read back and turned
 * into its program activity graph, asserting with Check: the fixture of
 * the analyzer's unit suites.  Call from a Check test (it aborts the test
 * on failure); single-threaded.
 */
#ifndef SYNTH_GRAPH_H
#define SYNTH_GRAPH_H

#include "cp_trace.h"
#include "cp_tracepag.h"
#include "trace_synth.h"

/*
 * Encode @s, parse it into @t (named "syn.cpt") and build its graph into
 * @tp; fails the running test with the reader's message on an error.
 * The caller owns @t and @tp (synth_graph_free, or each module's _free).
 */
void synth_graph_load(struct synth *s, struct cp_trace *t,
		      struct cp_tracepag *tp);

/* Free what synth_graph_load filled. */
void synth_graph_free(struct cp_trace *t, struct cp_tracepag *tp);

#endif /* SYNTH_GRAPH_H */
