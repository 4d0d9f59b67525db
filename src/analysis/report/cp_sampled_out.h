/*
 * cp_sampled_out.h - what a sampled trace's samples gave (cp_sampled.h)
 * in the report: the sampling summary and the hottest source lines, as
 * text and as JSON.
 *
 * Concurrency: the trace is only read.
 */
#ifndef CP_SAMPLED_OUT_H
#define CP_SAMPLED_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "cp_emit.h"
#include "cp_trace.h"

/*
 * Text: the sampling summary and the @max hottest source lines, for the
 * report; for a trace whose samples were not used, a note saying how to
 * use them.
 */
void cp_sampled_out_text(FILE *f, const struct cp_trace *t, uint32_t max);

/*
 * JSON: "sampling": {"samples", "used", "used_weight_ns", "in_wait",
 * "outside", "unknown_thread", "backwards", "truncated", "unwind_failed",
 * "modules", "modules_missing", "modules_without_debuginfo", "thin_below",
 * "hot_lines": [{"name", "file", "line", "samples", "cpu_ns"}]}, or
 * nothing unless sampled.
 */
void cp_sampled_out_emit(struct cp_emit *e, const struct cp_trace *t,
			 uint32_t max);

#endif /* CP_SAMPLED_OUT_H */
