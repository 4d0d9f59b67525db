/*
 * synth_graph.h - a synthetic trace (trace_synth.h) read back and turned
 * into its program activity graph, asserting with Check: the fixture of
 * the analyzer's unit suites.  Call from a Check test (it aborts the test
 * on failure); single-threaded.
 */
#ifndef SYNTH_GRAPH_H
#define SYNTH_GRAPH_H

#include "cp_cpm.h"
#include "cp_sampled.h"
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

/*
 * synth_graph_load() with the procedures taken from @s's samples
 * (cp_sampled_apply with @src, cp_sampled.h's: SAMPLED or AUTO on a
 * trace without procedure events; the test fails if they are not).
 */
void synth_graph_load_sampled(struct synth *s, struct cp_trace *t,
			      struct cp_tracepag *tp, enum cp_procsrc src);

/* Free what synth_graph_load filled. */
void synth_graph_free(struct cp_trace *t, struct cp_tracepag *tp);

/* A synthetic trace, its graph and the graph's critical path. */
struct synth_cpm {
	struct cp_trace t;
	struct cp_tracepag tp;
	struct cp_cpm cpm;
};

/* synth_graph_load() into @f, then the critical path method on its graph
 * (fails the running test if that fails).  Free with synth_cpm_free. */
void synth_cpm_load(struct synth *s, struct synth_cpm *f);

/* Free what synth_cpm_load filled. */
void synth_cpm_free(struct synth_cpm *f);

#endif /* SYNTH_GRAPH_H */
