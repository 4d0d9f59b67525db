/*
 * cp_chrome.h - a trace as Chrome trace-event JSON (the "JSON Array/Object
 * Format" that chrome://tracing, Perfetto's UI and speedscope open): a
 * track per thread with its procedures, its waits and its stretches of
 * the critical path, dependency arrows as flow events, and one extra track
 * that follows the critical path across threads.
 */
#ifndef CP_CHROME_H
#define CP_CHROME_H

#include <stdbool.h>
#include <stdio.h>

#include "cp_cpm.h"
#include "cp_tracepag.h"

/* Track (tid) of the critical-path summary row. */
#define CP_CHROME_CP_TID 1000000u

/* min_slice_ns: derive it from the window (its length / this divisor). */
#define CP_CHROME_MIN_AUTO UINT64_MAX
#define CP_CHROME_MIN_DIV 20000u

struct cp_chrome_opts {
	bool no_flows;		/* leave out the non-critical arrows */
	uint64_t from_ns;	/* window: from this long after the first */
	uint64_t to_ns;		/* event to this long after it (0: the end) */
	uint64_t min_slice_ns;	/* 0: every slice as recorded; else the
				 * aggregated form below; or MIN_AUTO */
	/* called now and then with a phase name and 0..1, or NULL */
	void (*progress)(void *ctx, const char *phase, double frac);
	void *progress_ctx;
};

/*
 * Write @tp (with @c, the CPM of its graph) to @f.  Events, all complete
 * ("X") slices placed on the wall clock in microseconds from the first
 * event:
 *   cat "thread"         the thread's life, T<tid>
 *   cat "procedure"      one slice per call (ENTER..LEAVE, regions)
 *   cat "wait"           "wait <kind>#<obj>": blocked in a sync operation
 *   cat "critical_path"  "critical path": the thread's segments on the CP
 * flow events ("s"/"f", cat "dependency", or "critical_path" for the
 * dependencies the critical path crosses), thread_name and process_name
 * metadata, and the track CP_CHROME_CP_TID ("critical path") with the
 * path's procedures in time order.
 *
 * A window (@o->from_ns, @o->to_ns) keeps what overlaps it, slices cut to
 * it (a cut critical-path slice's cp_ns in proportion), arrows with both
 * ends inside.  With @o->min_slice_ns = D > 0 the output is aggregated so
 * that its size is bounded by the window over D rather than by the events:
 * procedure and wait slices shorter than D are left out (their enclosing
 * slices remain: a subset of nested slices still nests); a thread's
 * critical-path segments closer than D merge into one "critical path"
 * slice (cp_ns the sum, "segments" their count, procedure "(several)"
 * when they differ) unless a procedure slice shown begins or ends between
 * them; the critical-path track merges likewise; and of the arrows into a
 * thread, one per D of each kind is kept.  @o NULL: no window, no
 * aggregation.  Returns 0, or -1 with a reason in @err.  Only reads @tp
 * and @c: any number of writers may share them.
 */
int cp_chrome_write(FILE *f, const struct cp_tracepag *tp,
		    const struct cp_cpm *c, const struct cp_chrome_opts *o,
		    char *err, size_t errlen);

#endif /* CP_CHROME_H */
