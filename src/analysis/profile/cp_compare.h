/*
 * cp_compare.h - the CPU profile beside the critical-path profile, per
 * procedure, as in [Hollingsworth98]'s Figs. 12 and 13: gprof's self time (or,
 * without gprof data, cpthread's own per-procedure CPU time) next to CP
 * time, CP zeroing, Slack and MBM, the rows where the two rankings
 * disagree marked, and what the one sentence that says what the table
 * means should say (the finding; cp_compare_out.h words it).
 *
 * Built from a finished profile (and optionally gprof's flat profile),
 * read-only afterwards; the profile and gprof data must outlive it.
 */
#ifndef CP_COMPARE_H
#define CP_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

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

/* What the headline says, in order of preference. */
enum cp_cmp_finding {
	CP_CMP_NOTHING,		/* no row to speak of: no headline */
	CP_CMP_NO_PROCS,	/* the trace has no procedures */
	CP_CMP_UNDERRATED,	/* hl_row: CP share >= 1.5 x its CPU share;
				 * hl_busy says what the others did */
	CP_CMP_OVERRATED,	/* hl_row: CPU share >= 1.5 x its CP share */
	CP_CMP_RANKS_DIFFER,	/* hl_row: the most striking rank mark */
	CP_CMP_ALIKE,		/* both rank alike; hl_row leads the CP */
	CP_CMP_THIN,		/* sampled procedures, none of them on
				 * enough samples to say one of the above */
};

struct cp_compare {
	const struct cp_profile *p;
	const struct cp_gprof *gp;	/* NULL: no gprof data */
	struct cp_cmp_row *rows;	/* [n] by CP time, then CPU */
	uint32_t n;
	uint64_t cpu_total_ns;	/* denominator of cpu_pct */
	enum cp_cmp_finding finding;	/* what the headline says */
	uint32_t hl_row;	/* row the headline is about, or NORANK */
	double hl_busy;		/* other threads' busy fraction while that
				 * row's procedure was on the CP (0..1), or
				 * -1 when not computed */
	/* what the note on gprof's figures says (all false: no note) */
	bool gprof_no_time;	/* gprof recorded no time at all */
	bool gprof_self_vs_incl;	/* its self time beside inclusive
					 * columns: cpthread's CPU ranked */
	bool gprof_undersampled;	/* threads ran at once: its one timer
					 * under-samples them */
};

/*
 * Join @p's procedures with @gp's (may be NULL), rank both columns, mark
 * disagreements, find what the headline and the note say.  Returns 0 or
 * -1 (out of
 * memory).  Free with cp_compare_free().  Reads @p and @gp only; the
 * result is read-only, so the functions below may run concurrently.
 */
int cp_compare_build(struct cp_compare *c, const struct cp_profile *p,
		     const struct cp_gprof *gp);
void cp_compare_free(struct cp_compare *c);

/*
 * What the headline of cp_compare_build(@p, @gp) will say, found from
 * the CPU and CP figures alone (not the busy share, nor zeroing, Slack
 * and MBM, which may not be computed yet), and the procedure it speaks
 * of (its pp->proc) in *@proc, UINT32_MAX for none: so that its figures
 * can be computed before the headline quotes them.  CP_CMP_NOTHING also
 * when memory runs out.
 */
enum cp_cmp_finding cp_compare_headline_of(const struct cp_profile *p,
					   const struct cp_gprof *gp,
					   uint32_t *proc);

/* The same procedure as a cp_profile_opts.also (@gprof: the struct
 * cp_gprof the report compares with, or NULL): the report's headline
 * quotes its zeroing even when it is not among the --top ones. */
uint32_t cp_compare_headline_proc(void *gprof, const struct cp_profile *p);

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
 * The CPU figure the ranks use: gprof's self time when there is gprof
 * data and the profile is exclusive, else cpthread's CPU time.
 */
bool cp_compare_ranks_gprof(const struct cp_compare *c);
/* Row @r's share of that CPU figure, in percent. */
double cp_compare_rank_cpu_pct(const struct cp_compare *c,
			       const struct cp_cmp_row *r);

#endif /* CP_COMPARE_H */
