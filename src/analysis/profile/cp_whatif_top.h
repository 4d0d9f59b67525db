/*
 * cp_whatif_top.h - the what-if of the procedures with the most time on
 * the critical path: each one's time scaled by one factor, predicted on
 * the fixed graph and by the replay (cp_whatif.h), for the HTML report.
 * Procedures that span the whole path (main, a thread's start routine)
 * are left out: scaling them says nothing.
 *
 * Concurrency: the profile and its graph are only read; the result
 * belongs to the caller.
 */
#ifndef CP_WHATIF_TOP_H
#define CP_WHATIF_TOP_H

#include <stdint.h>

#include "cp_profile.h"
#include "cp_stream.h"
#include "cp_whatif.h"

struct cp_whatif_top_row {
	const struct cp_proc_prof *pp;	/* the profile's procedure */
	struct cp_whatif_result r;	/* its prediction */
};

struct cp_whatif_top {
	double factor;			/* each procedure's time x this */
	uint32_t n;			/* rows */
	struct cp_whatif_top_row *rows;	/* by CP time, as the profile */
};

/*
 * Predict for the first @top procedures of @p by CP time (0: 5) that
 * hold part of the critical path but not all of it, each scaled by
 * @factor (0: 0.5).  A procedure the prediction fails for is skipped.
 * Returns 0, or -1 when memory runs out.  Free with cp_whatif_top_free().
 */
int cp_whatif_top_run(struct cp_whatif_top *w, const struct cp_profile *p,
		      uint32_t top, double factor);
/*
 * The same for @p streamed (cp_stream_prof.h) from the trace indexed by
 * @ix: the followed procedures only (the others' CP time is not known),
 * each predicted as cpt whatif --stream does (cp_stream_whatif_each,
 * with @so's procedures, mode and progress, and @sid, the stream's
 * samples' stacks): a fixed graph's and a replay's passes over the file
 * each.
 */
int cp_whatif_top_stream(struct cp_whatif_top *w, const struct cp_profile *p,
			 struct cp_tindex *ix, const struct cp_stream_opts *so,
			 const uint32_t *sid, uint32_t top, double factor);
void cp_whatif_top_free(struct cp_whatif_top *w);

#endif /* CP_WHATIF_TOP_H */
