/*
 * cp_report_out.h - the critical-path report of `cpt report` as text and
 * JSON: for a trace, from its profile (cp_profile.h) and the comparison
 * with a CPU profile (cp_compare.h); for a plain-text PAG, from the
 * measures by edge label (cp_labels.h).
 *
 * The JSON form uses the interface contract's keys ("clock", "threads",
 * "elapsed_ns", "cpu_ns", "critical_path": {"length_ns", "procedures":
 * [{"name", "cp_ns", "cp_zero_ns", "cpu_ns", "slack_ns", "mbm_ns"}]}) plus
 * the details.
 *
 * Concurrency: everything is only read; one writer per FILE.
 */
#ifndef CP_REPORT_OUT_H
#define CP_REPORT_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cp_compare.h"
#include "cp_emit.h"
#include "cp_input.h"
#include "cp_labels.h"
#include "cp_profile.h"

/* Procedures given zeroing, Slack and MBM unless --top says otherwise. */
/* Procedure rows the text report shows unless --top says. */
#define CP_REPORT_TEXT_ROWS 40
#define CP_REPORT_TOP_DEFAULT 20

/* Threads the text report lists one by one (cp_report_out_threads_text). */
#define CP_REPORT_THREAD_ROWS 64

struct cp_report_opts {
	uint32_t top;		/* --top N: rows shown; 0 all */
	bool top_given;		/* else 40 procedures, 20 objects */
};

/*
 * The text report of trace @in: summary, procedures (or, with @cmp, the
 * comparison with the CPU profile), threads, objects.  @cmp may be NULL.
 * Returns 0, or -1 when memory runs out.
 */
int cp_report_out_text(FILE *f, const struct cp_input *in,
		       const struct cp_profile *p,
		       const struct cp_compare *cmp,
		       const struct cp_report_opts *o);
/*
 * The text report's Threads table of the @n threads @th (those that ran,
 * nv > 0), CP % of @cp_len, the samples column when @sampled, else calls;
 * CP figures not known (streamed, cp_unknown) as "-".  All of them, in
 * order, when they are CP_REPORT_THREAD_ROWS at most; else those of the
 * most CP time, then CPU time, in order, and one row for the others (a
 * program that makes a thread per task has hundreds of thousands; the
 * JSON report lists each one).  Returns 0, or -1 when memory runs out.
 */
int cp_report_out_threads_text(FILE *f, const struct cp_thread_prof *th,
			       uint32_t n, bool sampled, uint64_t cp_len);
/* The same as one JSON object.  @cmp may be NULL. */
void cp_report_out_json(FILE *f, const struct cp_input *in,
			const struct cp_profile *p,
			const struct cp_compare *cmp);

/*
 * The notes the runtime wrote into trace @t (INFO note.*: waiting it
 * could not explain, waits for child processes, spinning between
 * sched_yield calls, libraries that synchronize by themselves), and,
 * under the wall clock, the threads' wait for a processor when their
 * useful time @useful_ns exceeds what the processors the program could
 * run on (INFO cpus) give in @elapsed_ns; the in-memory and the streamed
 * report both give them: one by one (the @i-th from 0, NULL past the
 * last; @buf holds the processors' note), as the summary's text lines,
 * or as strings of the JSON array @e is writing.
 */
const char *cp_report_out_runtime_note(const struct cp_trace *t,
				       uint64_t useful_ns,
				       uint64_t elapsed_ns, unsigned i,
				       char *buf, size_t len);
void cp_report_out_runtime_notes_text(FILE *f, const struct cp_trace *t,
				      uint64_t useful_ns, uint64_t elapsed_ns);
void cp_report_out_runtime_notes_emit(struct cp_emit *e,
				      const struct cp_trace *t,
				      uint64_t useful_ns, uint64_t elapsed_ns);

/*
 * The objects table of @objs[@n] (the profile's, or the streaming
 * analysis's) as text on @f, by CP time held plus path gain; an object
 * with cp_unknown shows its CP held time and CP edges as "-".  Returns 0,
 * or -1 when out of memory.
 */
int cp_report_out_objects_text(FILE *f, const struct cp_obj_prof *objs,
			       uint32_t n, const struct cp_report_opts *o);
/* Site @s, "function (file:line)" with the file's last component, and
 * "from caller (file:line)" after it when the trace has its caller and
 * that is not the C library starting the process or the thread, into
 * @buf; "-" when the trace does not say. */
#define CP_REPORT_SITE_LEN	320	/* a buffer that holds them */
const char *cp_report_out_site(const struct cp_site *s, char *buf,
			       size_t len);
/* The same as the JSON array "objects" (id order; unknown CP figures
 * null) in the object @e is writing. */
void cp_report_out_objects_json(struct cp_emit *e,
				const struct cp_obj_prof *objs, uint32_t n);

/*
 * The report of a plain-text PAG @in by edge label, as text (0, or -1
 * when memory runs out) or as JSON.
 */
int cp_report_out_labels_text(FILE *f, const struct cp_input *in,
			      const struct cp_labels *lb,
			      const struct cp_report_opts *o);
void cp_report_out_labels_json(FILE *f, const struct cp_input *in,
			       const struct cp_labels *lb);

#endif /* CP_REPORT_OUT_H */
