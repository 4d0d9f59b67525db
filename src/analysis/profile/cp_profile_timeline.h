/*
 * cp_profile_timeline.h - the timeline (cp_timeline.h) of a profile
 * computed on the graph: what the HTML report draws in memory, and what
 * the streamed timeline (cp_stream_opts.timeline) is checked against.
 *
 * Concurrency: the profile is only read.
 */
#ifndef CP_PROFILE_TIMELINE_H
#define CP_PROFILE_TIMELINE_H

#include <stdint.h>

#include "cp_profile.h"
#include "cp_timeline.h"

/*
 * The timeline of @p (a profile of a graph: p->tp) in @width columns over
 * the wall clock from the first vertex to the last: each thread's
 * segments keyed by the innermost procedure of each (the graph's
 * procedure ids; waits and time outside procedures apart), and the
 * critical path's useful edges, last first as a walk back meets them.
 * 0, or -1 when memory runs out.  Free with cp_timeline_free().
 */
int cp_profile_timeline(struct cp_timeline *tl, const struct cp_profile *p,
			uint32_t width);

#endif /* CP_PROFILE_TIMELINE_H */
