/*
 * cp_sampled_out.h - what a sampled trace's samples gave (cp_sampled.h)
 * in the report: the sampling summary and the hottest source lines, as
 * text and as JSON.
 *
 * Concurrency: the trace is only read.
 */
#ifndef CP_SAMPLED_OUT_H
#define CP_SAMPLED_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cp_emit.h"
#include "cp_trace.h"

/*
 * Text: the sampling summary and the @max hottest source lines, for the
 * report; for a trace whose samples were not used, a note saying how to
 * use them; a blank line after either.
 */
void cp_sampled_out_text(FILE *f, const struct cp_trace *t, uint32_t max);

/*
 * Why @t (may be NULL) has no procedure activity, and what would give it
 * some, as a clause in @buf (returned): the sampler ran but took no
 * sample, or was off, or the procedures were asked from instrumentation
 * and the samples were not used.
 */
const char *cp_sampled_out_none(const struct cp_trace *t, char *buf,
				size_t len);

/* The same as the report's paragraph, "No procedure activity in this
 * trace: ...", wrapped and indented by two. */
void cp_sampled_out_none_text(FILE *f, const struct cp_trace *t);

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
