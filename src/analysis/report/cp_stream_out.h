/*
 * cp_stream_out.h - the report of the out-of-core analysis (cp_stream.h)
 * as text or JSON, with the keys of the in-memory report where the
 * figures are the same (cp_report_keys.h) and one sentence for what the
 * mode cannot give.
 *
 * Concurrency: reads its arguments only; one writer per FILE.
 */
#ifndef CP_STREAM_OUT_H
#define CP_STREAM_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "cp_report_out.h"
#include "cp_stream.h"

/* The sentence that says what streaming mode always leaves out. */
extern const char cp_stream_out_missing[];

/*
 * The text report of @s for the trace indexed by @ix on @f: summary and
 * notes, procedures, threads and objects (rows as @o says, cp_report_out.h).
 * Returns 0, or -1 when out of memory.
 */
int cp_stream_out_text(FILE *f, const struct cp_tindex *ix,
		       const struct cp_stream *s,
		       const struct cp_report_opts *o);
/* The JSON report of @s on @f.  0, or -1 when out of memory. */
int cp_stream_out_json(FILE *f, const struct cp_tindex *ix,
		       const struct cp_stream *s);

#endif /* CP_STREAM_OUT_H */
