/*
 * cpt_harness.h - what the integration tests share: running a workload as
 * a child process with a chosen environment, reading its JSON report,
 * collecting every mismatch of a run into one assertion message, and
 * running again a run whose CPU-time figures came out disturbed.
 *
 * Paths come from compile definitions set by tests/integration's
 * CMakeLists.txt: CPT_WL_DIR (the workloads' build directory),
 * CPT_LIBCPTHREAD (libcpthread.so, for LD_PRELOAD), CPT_CPT (the cpt
 * analyzer, possibly not built yet), CPT_PRELOAD_RUNTIME (in a clang
 * sanitized build the shared ASan runtime, preloaded into every child so
 * that libcpthread.so can load into programs built without it; else "").
 */
#ifndef CPT_HARNESS_H
#define CPT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

/* How a workload is run: which build, and whether the tracer is there. */
enum cpt_variant {
	CPT_BARE,	/* plain build, no tracer */
	CPT_PRELOAD,	/* plain build, LD_PRELOAD=libcpthread.so */
	CPT_LINKED,	/* linked with libcpthread.so */
	CPT_STATIC,	/* linked with libcpthread.a */
};

const char *cpt_variant_name(enum cpt_variant v);

/* One finished child process. */
struct cpt_run {
	char dir[256];		/* private temporary directory, its cwd */
	char report_path[300];	/* dir/report.json unless overridden */
	char trace_path[300];	/* dir/trace.cpt */
	pid_t pid;
	int status;		/* as from waitpid */
	bool timed_out;
	double cpu_ms;		/* user + system time of the child */
	char *out, *err;	/* its stdout and stderr, NUL-terminated */
	json_t *report;		/* parsed report, NULL if unreadable */
	char report_error[512];	/* why report is NULL */
};

/*
 * Run workload @name (wl_<name>, wl_<name>_plain or wl_<name>_static as
 * @v requires) with arguments @args (NULL-terminated, may be NULL) and
 * the environment of this process minus every CPTHREAD_*, LD_PRELOAD and
 * WL_* variable, plus @env ("K=V" strings, NULL-terminated, may be NULL).
 * CPTHREAD_REPORT and CPTHREAD_TRACE default to files in the run's
 * directory unless @env sets them.  Waits at most @timeout_s seconds
 * (then kills it).  Returns 0, or -1 if the child could not be started
 * (message on stderr).  Free with cpt_run_free().
 */
int cpt_run_workload(struct cpt_run *r, const char *name, enum cpt_variant v,
		     const char *const *args, const char *const *env,
		     unsigned timeout_s);

/* Same with an explicit program path (cpt itself, for instance). */
int cpt_run_program(struct cpt_run *r, const char *path,
		    const char *const *args, const char *const *env,
		    unsigned timeout_s, bool tracer_files);

/* Load r->report from r->report_path (done by cpt_run_*; call again
 * after changing report_path).  0 or -1 with r->report_error set. */
int cpt_run_load_report(struct cpt_run *r);

/* Remove the run's directory (unless CPT_KEEP is set) and free it. */
void cpt_run_free(struct cpt_run *r);

/* Exit status, or 128 + signal, or -1 if it timed out. */
int cpt_run_exit_code(const struct cpt_run *r);

/* The object at dotted @path ("critical_path.length_ns") or NULL. */
json_t *cpt_json_path(json_t *root, const char *path);
/* Its number in ms (ns / 1e6), NAN when missing or not a number. */
double cpt_json_ms(json_t *root, const char *path);
/* The number at @path as is, NAN when missing. */
double cpt_json_num(json_t *root, const char *path);
/* critical_path.procedures[] entry named @name, or NULL. */
json_t *cpt_json_proc(json_t *report, const char *name);
/* threads_detail[] entry with tid @tid, or NULL. */
json_t *cpt_json_thread(json_t *report, unsigned tid);

/* Mismatches of one run, reported together. */
struct cpt_errs {
	char buf[16384];
	size_t len;
	int n;
};

void cpt_errs_init(struct cpt_errs *e);
__attribute__((format(printf, 2, 3)))
void cpt_errf(struct cpt_errs *e, const char *fmt, ...);
/* Record a mismatch unless |got - want| <= tol (all in ms). */
void cpt_check_ms(struct cpt_errs *e, const char *what, double want,
		  double got, double tol);

/*
 * Runs tried again.  Where a test's figures are CPU times, a run that
 * misses them is run again: on a VM a thread's CPU clock runs on while the
 * host has taken the CPU away, for seconds at a time, so a run can show
 * useful time its program never spent, through no fault of the tracer.
 * A retry cannot hide a wrong answer, which is wrong in every run: a
 * tracer that counts a wait as useful time disturbs every run, one that
 * charges a burn to the wrong procedure misses in every run, so the test
 * still fails every try and reports the last run (cpt_retry_checks) or
 * the least disturbed (cpt_wl_least_disturbed, cpt_workloads.h).  Each
 * test states its number of tries and why.
 */

/*
 * Run @once(@e, @ctx), @e freshly initialised each time, until a run
 * records no mismatch or @tries runs were made (at least one).  Returns
 * the number of runs made; @e holds the last run's mismatches, none if it
 * passed.  @once may end the test itself (a Check assertion) where a run
 * cannot be judged at all.
 */
int cpt_retry_checks(int tries, void (*once)(struct cpt_errs *e, void *ctx),
		     void *ctx, struct cpt_errs *e);

/*
 * Record in @e how run @r behaved unlike run @bare (the reference): a
 * timeout, another exit code, another stdout (its first differing line).
 * Returns the number of differences found.
 */
int cpt_diff_behaviour(struct cpt_errs *e, const struct cpt_run *bare,
		       const struct cpt_run *r);

/* Parse the JSON file @path; NULL with the reason in @err. */
json_t *cpt_json_load(const char *path, char *err, size_t n);

/* Count lines of @s (a final line without newline counts). */
unsigned cpt_count_lines(const char *s);
/* Link-time [*@lo, *@hi) of function @name in the ELF file @exe, from
 * nm; false when it has no such sized symbol. */
bool cpt_nm_range(const char *exe, const char *name, uint64_t *lo,
		  uint64_t *hi);

#endif /* CPT_HARNESS_H */
