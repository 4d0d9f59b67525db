/*
 * cp_views.h - the hierarchical views of a profile ([Yang87], IPS: the
 * program, process and procedure levels of Tables 3.2 and 3.3, with the
 * critical path added at each level), and the per-object view: which
 * locks, barriers, condition variables, semaphores and work-queue items
 * the critical path runs through, and how long threads waited on each.
 *
 *   program    the whole run: threads, elapsed, CPU, waiting, response
 *              ratio, parallelism, utilization, progress ratio, CP length,
 *              maximum parallelism, calls, synchronization counts
 *   thread     per thread the same metrics, then its procedures on the
 *              critical path, what it waited on, and who released it
 *   procedure  per procedure CPU and CP time, then the threads it ran in
 *   object     objects on the critical path (or waited on), by CP
 *              relevance, and a summary per kind
 */
#ifndef CP_VIEWS_H
#define CP_VIEWS_H

#include <stdint.h>
#include <stdio.h>

#include "cp_profile.h"

enum cp_view {
	CP_VIEW_NONE = 0,
	CP_VIEW_PROGRAM,
	CP_VIEW_THREAD,
	CP_VIEW_PROCEDURE,
	CP_VIEW_OBJECT,
};

/* The view named @name ("program", "thread", "procedure", "object"; the
 * plurals too), or CP_VIEW_NONE. */
enum cp_view cp_view_parse(const char *name);

/*
 * Print view @v of @p as text, at most @max rows per list (0: 30).
 * Returns 0, or -1 when memory runs out (with what was printed so far).
 * Only reads @p.
 */
int cp_views_print(FILE *f, const struct cp_profile *p, enum cp_view v,
		   uint32_t max);

#endif /* CP_VIEWS_H */
