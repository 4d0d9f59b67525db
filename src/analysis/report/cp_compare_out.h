/*
 * cp_compare_out.h - the comparison of the CPU profile with the
 * critical-path profile (cp_compare.h) in words, as a text table and as
 * JSON members of the report.
 *
 * Concurrency: the comparison is only read.
 */
#ifndef CP_COMPARE_OUT_H
#define CP_COMPARE_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cp_compare.h"
#include "cp_emit.h"

/* The headline (one sentence: what the table means) into @buf; "" when
 * there is nothing to say. */
void cp_compare_out_headline(const struct cp_compare *c, char *buf,
			     size_t len);
/* The note on gprof's figures into @buf, or "" when there is none. */
void cp_compare_out_note(const struct cp_compare *c, char *buf, size_t len);

/*
 * The comparison table as text: headline, note, one row per procedure
 * (at most @max rows, 0: all) with both rankings' marks and a legend.
 */
void cp_compare_out_text(FILE *f, const struct cp_compare *c, uint32_t max);

/*
 * JSON members of procedure @name inside its object: "gprof_ns" and
 * "gprof_pct" (self; null when gprof has no such procedure),
 * "gprof_total_ns" and "gprof_total_pct" (self + children from gprof's
 * call graph; null without one), "cpu_rank", "cp_rank" and
 * "rank_disagree".  Nothing without gprof data except the ranks.
 */
void cp_compare_out_emit_proc(struct cp_emit *e, const struct cp_compare *c,
			      const char *name);

/* JSON members of the report's top level: "headline" and, with gprof
 * data, "gprof": {"exe", "gmon", "total_ns", "sample_ns", "note",
 * "only_gprof": [{"name", "gprof_ns", "gprof_pct", "calls"}]}, the last
 * for procedures the trace has no figures for. */
void cp_compare_out_emit_summary(struct cp_emit *e,
				 const struct cp_compare *c);

#endif /* CP_COMPARE_OUT_H */
