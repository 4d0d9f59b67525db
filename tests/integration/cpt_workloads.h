/*
 * cpt_workloads.h - what the known-by-construction workloads must report:
 * the values derived by hand at the head of each tests/workloads/<prog>.c,
 * in one table shared by check_online (hand values against the online
 * report) and check_agree (online against offline).
 */
#ifndef CPT_WORKLOADS_H
#define CPT_WORKLOADS_H

#include <jansson.h>
#include <stdbool.h>

#include "../cpt_skip.h"	/* CPT_ASAN */
#include "cpt_harness.h"

#define MAX_PROCS 8
#define MAX_THREADS 6
#define MAX_OBJS 6
#define ANY 1000000

struct proc_want {
	const char *name;
	double cp, zero, cpu;		/* ms */
};

struct thread_want {
	int tid;			/* -1 ends the list */
	double len, useful;		/* ms */
};

struct object_want {
	const char *kind;		/* NULL ends the list */
	int ops_min, ops_max;		/* one tracked object of it */
};

struct workload {
	const char *prog;		/* tests/workloads/<prog>.c */
	const char *arg;		/* one argument or NULL */
	const char *funcs;		/* CPTHREAD_FUNCS */
	double cp;			/* critical path, ms */
	unsigned threads;
	double margin;			/* CP minus next longest path */
	struct proc_want procs[MAX_PROCS];
	struct thread_want thr[MAX_THREADS];
	struct object_want objs[MAX_OBJS];
};

/* chan.c: a pipe, an eventfd, a socket pair, each way of waiting, and a
 * pipe kept through a vfork child's closing it */
#define CPT_WL_NCHAN 11
extern const struct workload cpt_wl_chan[CPT_WL_NCHAN];
extern const struct workload cpt_wl_mutex;
extern const struct workload cpt_wl_mutex_timed;
extern const struct workload cpt_wl_spin;
extern const struct workload cpt_wl_rwlock;
extern const struct workload cpt_wl_barrier;
extern const struct workload cpt_wl_cond;
extern const struct workload cpt_wl_sem;
extern const struct workload cpt_wl_wq_lock;
extern const struct workload cpt_wl_wq_items;
extern const struct workload cpt_wl_wq_reuse;
extern const struct workload cpt_wl_create;
extern const struct workload cpt_wl_funcs;
extern const struct workload cpt_wl_handover_mutex;
extern const struct workload cpt_wl_handover_trylock;
extern const struct workload cpt_wl_handover_inner;
extern const struct workload cpt_wl_handover_copy;
extern const struct workload cpt_wl_handover_spin;
extern const struct workload cpt_wl_handover_rwlock;
extern const struct workload cpt_wl_c11;
extern const struct workload cpt_wl_c11_timed;
extern const struct workload cpt_wl_c11_recursive;
extern const struct workload cpt_wl_c11_cond;
extern const struct workload cpt_wl_omp_region;
extern const struct workload cpt_wl_omp_critical;
extern const struct workload cpt_wl_omp_tasks;
extern const struct workload cpt_wl_omp_depend;
extern const struct workload cpt_wl_omp_waitdep;
extern const struct workload cpt_wl_omp_nested;
extern const struct workload cpt_wl_omp_taskloop;
extern const struct workload cpt_wl_omp_shrink;
extern const struct workload cpt_wl_omp_ordered;
extern const struct workload cpt_wl_cxx_mutex;
extern const struct workload cpt_wl_cxx_shared;
extern const struct workload cpt_wl_cxx_cond;
extern const struct workload cpt_wl_cxx_latch;
extern const struct workload cpt_wl_cxx_barrier;
extern const struct workload cpt_wl_futex_libc;
extern const struct workload cpt_wl_sigwait;
extern const struct workload cpt_wl_sigwaitinfo;
extern const struct workload cpt_wl_sigtimedwait;
extern const struct workload cpt_wl_sigsuspend;

/* Every workload above, for tests that loop over all of them. */
extern const struct workload *const cpt_wl_all[];
extern const unsigned cpt_wl_count;

/*
 * What the hand model leaves out.  The burns are exact, but a run also
 * spends useful time outside them: creating and starting threads (a
 * fraction of a ms of CPU each, a page-table heavy system call),
 * the tracer's own events, and, under the wall clock, time a thread sat
 * preempted between two burns.  None of it is negative, so every path of
 * the run is at least as long as the hand model's and no figure can drift
 * from its hand value by more than the total: the disturbance.
 */

/* Sum of the hand-derived useful times of the workload's threads, ms. */
double cpt_wl_useful_total(const struct workload *w);

/* Useful time @report measured beyond @useful_ms of burns, ms (>= 0; 0
 * when @report is NULL or has no cpu_ns); cpt_wl_disturbance: beyond the
 * burns of @w. */
double cpt_disturbance(json_t *report, double useful_ms);
double cpt_wl_disturbance(const struct workload *w, json_t *report);

/*
 * Run @w (w->prog with w->arg, build @v, environment @env as for
 * cpt_run_workload()) up to @tries times and keep in @best the least
 * disturbed run (cpt_wl_disturbance), freeing the others.  Stop early once
 * @best is disturbed by at most @calm_ms, or at a run that failed (no
 * report, or a non-zero exit), which is kept for the caller to report.
 * cpt_harness.h says why runs are tried again.  @best is either zeroed
 * (memset, or freed by cpt_run_free()) or holds a run of an earlier call,
 * which the new runs compete with: a second call with another bound
 * extends the search.  Returns the number of runs made (0 if @best
 * already failed or met @calm_ms), or -1 if one could not be started
 * (message on stderr; @best then holds the best run before it, if any).
 * Free @best with cpt_run_free().
 */
int cpt_wl_least_disturbed(struct cpt_run *best, const struct workload *w,
			   enum cpt_variant v, const char *const *env,
			   int tries, double calm_ms);

/*
 * The most a cpu-clock run may be disturbed, ms: thread creation and the
 * tracer's events, CPT_WL_CPU_DIST_PER_THREAD per thread or
 * CPT_WL_CPU_DIST_SHARE of the hand model's useful time, whichever is
 * more (a loaded machine stretches the CPU time of a system call
 * several times).  More means the tracer counted as useful something that was
 * not: a wait, or a burn counted twice.
 */
#define CPT_WL_CPU_DIST_PER_THREAD 2.0
#define CPT_WL_CPU_DIST_SHARE 0.05
/* Under AddressSanitizer thread creation and every intercepted call cost
 * several times their CPU time, which the cpu clock counts as useful: the
 * limit doubles (a clean-clone run's sanitized stage measured 6.2 ms
 * against the plain limit of 6.0 on thread creation, twice in a row). */
#define CPT_WL_CPU_DIST_SCALE (CPT_ASAN ? 2.0 : 1.0)
double cpt_cpu_dist_limit(unsigned threads, double useful_ms);
double cpt_wl_cpu_dist_limit(const struct workload *w);

#endif /* CPT_WORKLOADS_H */
