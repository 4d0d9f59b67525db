/*
 * cp_compare.h - the CPU profile beside the critical-path profile, per
 * procedure, as in [Hollingsworth98]'s Figs. 12 and 13: gprof's self time (or,
 * without gprof data, cpthread's own per-procedure CPU time) next to CP
 * time, CP zeroing, Slack and MBM, the rows where the two rankings
 * disagree marked, and one sentence that says what the table means.
 *
 * Built from a finished profile (and optionally gprof's flat profile),
 * read-only afterwards; the profile and gprof data must outlive it.
 */
#ifndef CP_COMPARE_H
#define CP_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cp_emit.h"
#include "cp_gprof.h"
#include "cp_profile.h"

#define CP_COMPARE_NORANK UINT32_MAX

struct cp_cmp_row {
	const struct cp_proc_prof *pp;	/* cpthread's figures, or NULL for a
					 * procedure gprof alone saw */
	const struct cp_gprof_entry *gp;	/* gprof's, or NULL */
	const char *name;
	uint64_t cpu_ns;	/* the CPU column: gprof self time when there
				 * is gprof data, else cpthread's CPU time */
	double cpu_pct;		/* of the CPU total */
	double cp_pct;		/* CP time, % of the CP length */
	uint32_t cpu_rank;	/* 1-based rank by cpu_ns; NORANK if 0 */
	uint32_t cp_rank;	/* 1-based rank by CP time; NORANK if 0 */
	int disagree;		/* +1: CP ranks it higher than CPU does,
				 * -1: lower, 0: they agree */
};

struct cp_compare {
	const struct cp_profile *p;
	const struct cp_gprof *gp;	/* NULL: no gprof data */
	struct cp_cmp_row *rows;	/* [n] by CP time, then CPU */
	uint32_t n;
	uint64_t cpu_total_ns;	/* denominator of cpu_pct */
	char headline[512];	/* one line: what the table means */
	char note[512];		/* gprof's thread limit, when it matters,
				 * else "" */
	uint32_t hl_row;	/* row the headline is about, or NORANK */
	double hl_busy;		/* other threads' busy fraction while that
				 * row's procedure was on the CP (0..1), or
				 * -1 when not computed */
};

/*
 * Join @p's procedures with @gp's (may be NULL), rank both columns, mark
 * disagreements, write the headline and the note.  Returns 0 or -1 (out of
 * memory).  Free with cp_compare_free().  Reads @p and @gp only; the
 * result is read-only, so the functions below may run concurrently.
 */
int cp_compare_build(struct cp_compare *c, const struct cp_profile *p,
		     const struct cp_gprof *gp);
void cp_compare_free(struct cp_compare *c);

/*
 * Sampled procedures: does @pp rest on too few samples to trust, fewer
 * than CP_SAMPLES_THIN behind its CPU figure or, when it has CP time,
 * behind its CP figures?  False for instrumented procedures.
 */
bool cp_compare_thin(const struct cp_profile *p, const struct cp_proc_prof *pp);

/* The row of procedure @name, or NULL.  O(n). */
const struct cp_cmp_row *cp_compare_find(const struct cp_compare *c,
					 const char *name);

/*
 * The comparison table as text: headline, note, one row per procedure
 * (at most @max rows, 0: all) with both rankings' marks and a legend.
 */
void cp_compare_print(FILE *f, const struct cp_compare *c, uint32_t max);

/*
 * JSON members of procedure @name inside its object: "gprof_ns" and
 * "gprof_pct" (self; null when gprof has no such procedure),
 * "gprof_total_ns" and "gprof_total_pct" (self + children from gprof's
 * call graph; null without one), "cpu_rank",
 * "cp_rank" and "rank_disagree".  Nothing without gprof data except the
 * ranks.
 */
void cp_compare_emit_proc(struct cp_emit *e, const struct cp_compare *c,
			  const char *name);

/* JSON members of the report's top level: "headline" and, with gprof
 * data, "gprof": {"exe", "gmon", "total_ns", "sample_ns", "note",
 * "only_gprof": [{"name", "gprof_ns", "gprof_pct", "calls"}]}, the last
 * for procedures the trace has no figures for. */
void cp_compare_emit_summary(struct cp_emit *e, const struct cp_compare *c);

#endif /* CP_COMPARE_H */
