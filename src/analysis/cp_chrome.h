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

struct cp_chrome_opts {
	bool no_flows;		/* leave out the non-critical arrows */
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
 * path's procedures in time order.  Returns 0, or -1 with a reason in
 * @err.  Only reads @tp and @c: any number of writers may share them.
 */
int cp_chrome_write(FILE *f, const struct cp_tracepag *tp,
		    const struct cp_cpm *c, const struct cp_chrome_opts *o,
		    char *err, size_t errlen);

#endif /* CP_CHROME_H */
