/*
 * cp_html.h - the self-contained HTML report: one file with inline CSS,
 * JavaScript and SVG, nothing fetched from the network, that opens in any
 * browser.
 *
 * It shows, in reading order: the one-sentence headline, the summary
 * (critical path, elapsed, CPU, waiting, parallelism), a timeline of the
 * threads with the critical path drawn over it, the CPU-vs-critical-path
 * table (gprof's column when there is gprof data), threads, the
 * synchronization objects on the critical path, the near-critical paths
 * and the what-if of the top procedures (fixed graph and simulation).
 * A streamed profile gets the same page from its streamed timeline,
 * paths and what-if.
 *
 * The page's script marks its own success: when it ran without an
 * exception it appends <div id="cpt-js-ok"> (with data-rows, the table's
 * rows, and data-rects, the timeline's), else <div id="cpt-js-error">,
 * so a headless browser's DOM dump tells whether the page works.
 */
#ifndef CP_HTML_H
#define CP_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "cp_compare.h"
#include "cp_kpaths.h"
#include "cp_profile.h"
#include "cp_stream.h"
#include "cp_timeline.h"
#include "cp_whatif_top.h"

/* Near-critical paths the report shows, unless the caller wants more. */
#define CP_HTML_KPATHS 10

/* The timeline's width in pixels, one column each (its columns, asked
 * of cp_profile_timeline() or cp_stream_opts.timeline). */
#define CP_HTML_WIDTH 1000

/*
 * What the report shows, computed by the caller; only read: a profile of
 * the graph (p->tp) with its near-critical paths, or a streamed one
 * (cp_stream_prof.h, no graph) with the trace's index and its paths.
 */
struct cp_html_in {
	const struct cp_profile *p;	/* of a trace */
	const struct cp_compare *c;	/* built from p */
	const struct cp_kpaths *kp;	/* (graph) p's near-critical paths */
	const struct cp_whatif_top *wt;	/* p's top procedures' what-if
					 * (cp_whatif_top_run, streamed
					 * cp_whatif_top_stream) */
	const struct cp_timeline *tl;	/* p's timeline, keyed by p's
					 * procedure ids (graph:
					 * cp_profile_timeline(), streamed:
					 * cp_stream.tl) */
	const struct cp_trace *t;	/* (streamed) the index's trace */
	const struct cp_stream *s;	/* (streamed) its paths */
};

struct cp_html_opts {
	const char *title;	/* the trace's name, shown in the header */
	uint32_t max_rows;	/* procedure rows, 0: 60 */
};

/*
 * Write the report of @in to @f.  Returns 0, or -1 with a reason in @err
 * (out of memory, write error).
 */
int cp_html_write(FILE *f, const struct cp_html_in *in,
		  const struct cp_html_opts *o, char *err, size_t errlen);

#endif /* CP_HTML_H */
