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

#include "cp_stream.h"

/* The sentence that says what streaming mode leaves out. */
extern const char cp_stream_out_missing[];

/*
 * The text report of @s for the trace indexed by @ix on @f: summary,
 * procedures (at most @top rows, 0: all) and threads.  Returns 0, or -1
 * when out of memory.
 */
int cp_stream_out_text(FILE *f, const struct cp_tindex *ix,
		       const struct cp_stream *s, uint32_t top);
/* The JSON report of @s on @f. */
void cp_stream_out_json(FILE *f, const struct cp_tindex *ix,
			const struct cp_stream *s);

#endif /* CP_STREAM_OUT_H */
