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

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cp_pairs.h"
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
 * The breakdowns below the levels, by pair of ids.  From the graph
 * (cp_views_print) every column is known; from the streaming pass
 * (cp_stream.h) the critical path's columns are not, and @cp_known is
 * false.  Procedure ids are those of the profile's procs[].proc,
 * CP_PAG_NONE for time outside any procedure.
 */
struct cp_views_data {
	const struct cp_pairs *tproc;	/* (tid, proc): CPU, CP (in the
					 * profile's mode) */
	const struct cp_pairs *waits;	/* (tid, obj): waits, time waited */
	const struct cp_pairs *deps;	/* (releasing tid, released tid):
					 * dependencies, on the CP */
	uint64_t ndeps, ncpdeps;	/* dependencies between threads, and
					 * on the CP */
	bool cp_known;		/* the CP columns and ncpdeps are known */
};

/* The breakdowns of a profile made from a graph (every column), and the
 * sums they come from. */
struct cp_views_graph {
	struct cp_views_data d;
	struct cp_pairs ctx;	/* (tid, calling context): CPU, CP */
	struct cp_pairs waits, deps, tproc;
};

/* Sum @p's graph into @g.  0, or -1 when memory runs out; free with
 * cp_views_graph_free() either way. */
int cp_views_graph_build(struct cp_views_graph *g, const struct cp_profile *p);
void cp_views_graph_free(struct cp_views_graph *g);

/*
 * Print view @v of @p (made from a graph) as text, at most @max rows per
 * list (0: 30).  Returns 0, or -1 when memory runs out (with what was
 * printed so far).  Only reads @p.
 */
int cp_views_print(FILE *f, const struct cp_profile *p, enum cp_view v,
		   uint32_t max);

/*
 * The same for a profile whose breakdowns come as @d (the streamed one,
 * cp_stream_prof.h: threads and objects not followed have cp_unknown and
 * print their CP figures as "-").
 */
int cp_views_print_data(FILE *f, const struct cp_profile *p,
			const struct cp_views_data *d, enum cp_view v,
			uint32_t max);

#endif /* CP_VIEWS_H */
