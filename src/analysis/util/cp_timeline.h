/*
 * cp_timeline.h - the HTML report's timeline as numbers: the run's wall
 * clock cut into W columns, and for each thread the time each column of
 * it spent in each procedure (or outside procedures, or waiting), and for
 * each column the thread the critical path runs on longest there.
 *
 * Two producers fill it alike: the graph's walk of each thread's segments
 * and of the critical path (cp_html.c), and the out-of-core pass, which
 * meets the segments in its forward pass and the critical path in
 * Slack's walk back (cp_stream.h).  Times are whole nanoseconds, so the
 * sums do not depend on the order the pieces come in, and both producers
 * give the same picture.
 *
 * Memory: O(W) for the critical path, and per thread one cell per
 * (column, procedure) it spent time in: at most the thread's segments,
 * and for a thread of a long run at most W times the procedures a column
 * holds, whatever the number of events.
 *
 * Concurrency: none; one owner.
 */
#ifndef CP_TIMELINE_H
#define CP_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

/* Keys beside procedure ids. */
#define CP_TL_NOPROC	UINT32_MAX		/* outside procedures */
#define CP_TL_WAIT	(UINT32_MAX - 1)	/* waiting */
#define CP_TL_NONE	UINT32_MAX		/* no thread (cp_best) */

/* The time one column of a thread spent under one key. */
struct cp_tl_cell {
	uint32_t col;
	uint32_t key;		/* a procedure id, CP_TL_NOPROC, CP_TL_WAIT */
	uint64_t ns;
};

struct cp_tl_row {
	bool any;		/* the thread has a vertex */
	uint64_t first, last;	/* wall clock of its first and last */
	struct cp_tl_cell *c;	/* by column, ascending */
	uint32_t n, cap;
};

struct cp_timeline {
	uint64_t t0, t1;	/* the wall clock shown */
	uint32_t width;		/* columns */
	uint32_t nrows;		/* threads, by tid */
	struct cp_tl_row *rows;
	/* per column: the thread of the longest stretch of the critical
	 * path in it (CP_TL_NONE: none), and the stretch being summed */
	uint32_t *cp_best, *cp_run;
	uint64_t *cp_best_ns, *cp_run_ns;
	bool has_cp;		/* the critical path was given */
	bool nomem;		/* a cell could not be added */
};

/* An empty timeline of @nrows threads over [@t0, @t1] in @width
 * columns.  0, or -1 when memory runs out. */
int cp_timeline_init(struct cp_timeline *tl, uint32_t nrows, uint64_t t0,
		     uint64_t t1, uint32_t width);
void cp_timeline_free(struct cp_timeline *tl);

/* The wall clock where column @c starts (@c == width: t1). */
uint64_t cp_timeline_col_start(const struct cp_timeline *tl, uint32_t c);

/* Thread @tid's vertex at wall clock @wall: its row's extent. */
void cp_timeline_vertex(struct cp_timeline *tl, uint32_t tid, uint64_t wall);

/* Thread @tid spent [@a, @b) under @key.  Its segments come in time order.
 * Out of memory: tl->nomem. */
void cp_timeline_seg(struct cp_timeline *tl, uint32_t tid, uint64_t a,
		     uint64_t b, uint32_t key);

/* Forget every row's cells (a pass that runs again). */
void cp_timeline_clear_rows(struct cp_timeline *tl);

/* The critical path's useful segment [@a, @b) on thread @tid.  The
 * segments come last first (the walk back); a column's longest stretch of
 * one thread wins, of equal ones the earliest. */
void cp_timeline_cp(struct cp_timeline *tl, uint32_t tid, uint64_t a,
		    uint64_t b);

/* Rename every procedure key k < @nren to @ren[k] (ids renumbered). */
void cp_timeline_rename(struct cp_timeline *tl, const uint32_t *ren,
			uint32_t nren);

#endif /* CP_TIMELINE_H */
