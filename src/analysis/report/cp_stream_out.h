/*
 * cp_stream_out.h - the report of the out-of-core analysis (cp_stream.h)
 * as text or JSON, with the keys of the in-memory report where the
 * figures are the same (cp_report_keys.h), the comparison with the CPU
 * profile as cp_compare_out.h writes it, and a note for each figure the
 * mode left out.
 *
 * Concurrency: reads its arguments only; one writer per FILE.
 */
#ifndef CP_STREAM_OUT_H
#define CP_STREAM_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cp_compare.h"
#include "cp_report_out.h"
#include "cp_stream.h"
#include "cp_views.h"

/*
 * The text report of @s for the trace indexed by @ix on @f: summary and
 * notes, procedures (@cmp: the comparison built on cp_stream_prof.h's
 * profile of @s, cp_compare_out.h's table), threads and objects (rows as
 * @o says, cp_report_out.h).
 * Returns 0, or -1 when out of memory.
 */
int cp_stream_out_text(FILE *f, const struct cp_tindex *ix,
		       const struct cp_stream *s, const struct cp_compare *cmp,
		       const struct cp_report_opts *o);
/* The JSON report of @s on @f.  0, or -1 when out of memory. */
int cp_stream_out_json(FILE *f, const struct cp_tindex *ix,
		       const struct cp_stream *s, const struct cp_compare *cmp);

/*
 * Note @i (from 0) of what @s leaves out, into @buf: the busy share the
 * headline could not measure (@cmp's finding needs it), Slack or MBM left
 * out, then one per kind of figure not followed for all (procedures' CP
 * time, zeroing and ranks, objects' CP held time and edges, threads' CP
 * time).  Returns false when there is no note @i.
 */
bool cp_stream_out_note(const struct cp_stream *s,
			const struct cp_compare *cmp, unsigned i, char *buf,
			size_t len);

/*
 * View @v of @s (made with cp_stream_opts.views) on @f, @p its profile
 * (cp_stream_prof.h), at most @max rows per list (0: the default), as
 * cp_views_print_data() prints it.  0, or -1 when out of memory.
 */
int cp_stream_out_view(FILE *f, const struct cp_profile *p,
		       const struct cp_stream *s, enum cp_view v,
		       uint32_t max);

#endif /* CP_STREAM_OUT_H */
