/*
 * cp_report.h - the result of the online computation: samples during the
 * run, the frozen result of cpthread_stop(), and the exit report (stderr
 * summary and JSON, whose keys are cp_report_keys.h's).
 *
 * Samples and the frozen result live in the private arena under the
 * report's own lock; out of memory, a sample or freeze is dropped (the
 * report then has fewer samples, or covers the whole run).  Lengths are
 * ns of cp_rt.clock.
 */
#ifndef CP_REPORT_H
#define CP_REPORT_H

#include "cp_path.h"
#include "cp_thread.h"

/*
 * The global critical path now: the merge of every thread's path (exited
 * threads' final paths; live threads' paths as of their latest event,
 * read racily; @caller advanced to now first).  @out has room for
 * cp_path_size(nsel).  Guard raised on the caller.
 */
void cp_report_global(struct cp_thread *caller, struct cp_path *out);
/* Append a sample (CPTHREAD_SAMPLE_MS, cpthread_sample): the global path
 * now, @caller advanced first.  Any thread, guard raised. */
void cp_report_sample(struct cp_thread *caller);
/* cpthread_stop(): freeze the result now; cpthread_start(): drop it.  Any
 * thread, guard raised. */
void cp_report_freeze(struct cp_thread *caller);
void cp_report_unfreeze(void);
/*
 * Exit: final result, stderr summary, JSON report.  Once; @caller (the
 * exiting thread) has already been advanced to its last event.  False,
 * with nothing written, for a descendant process (cp_rt.descendant) that
 * ran one thread and met no object: a script's commands under cpt run
 * would otherwise each leave a report of nothing.
 */
bool cp_report_write(struct cp_thread *caller);
/* Reset after fork in the child, single-threaded (the parent's samples
 * are left behind). */
void cp_report_reset(void);
/* The final critical-path length, ns (0 before cp_report_write).  Exit
 * path. */
uint64_t cp_report_length(void);

#endif /* CP_REPORT_H */
