/*
 * cp_profile.h - the critical-path profile of a trace: per procedure
 * (inclusive or exclusive), per thread and per synchronization object,
 * with the IPS summaries ([Yang87, Table 3.2], [YangMiller88, §5]).
 *
 * Per procedure, side by side: CPU (useful) time, the procedure's time on
 * the critical path (CP), CP zeroing (how much shorter the CP gets if the
 * procedure took no time, [Hollingsworth98, §2.4]), Slack (the improvement
 * guaranteed, [HollingsworthMiller94]) and MBM over the k longest paths
 * ([Alexander94, §VI]). For every procedure Slack <= zeroing <= CP time and MBM
 * <= CP time.
 *
 * A profile is computed once from a finished trace PAG and is read-only;
 * cp_stream_prof.h makes one without the graph from the streaming
 * analysis, for the comparison with the CPU profile (cp_compare.h).
 */
#ifndef CP_PROFILE_H
#define CP_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "cp_cpm.h"
#include "cp_tracepag.h"

struct cp_proc_prof {
	uint32_t proc;		/* procedure id in the trace PAG */
	const char *name;
	uint64_t calls;		/* ENTERs / REGION_BEGINs */
	uint64_t cpu_ns;	/* useful time, in the profile's mode */
	uint64_t cp_ns;		/* time on the critical path, same mode */
	uint64_t zero_ns;	/* CP length - CP length with it zeroed */
	uint64_t slack_ns;	/* Slack metric */
	uint64_t mbm_ns;	/* MBM over the k paths */
	uint64_t cpu_incl_ns, cpu_excl_ns;
	uint64_t cp_incl_ns, cp_excl_ns;
	uint64_t samples;	/* sampled procedures: the samples its CPU
				 * time rests on, in the profile's mode */
	uint64_t cp_samples;	/* ... and its CP time (those in critical
				 * segments); below CP_SAMPLES_THIN: thin */
	uint64_t samples_incl, samples_excl;
	uint64_t cp_samples_incl, cp_samples_excl;
	bool computed;		/* zero/slack/mbm computed (else 0: no CP
				 * time, or beyond the top limit) */
	bool cp_unknown;	/* (streamed) not followed: no CP figure at
				 * all, cp_ns and cp_samples 0 */
	double busy;		/* (streamed) the other threads' busy share
				 * while it was on the CP, measured for the
				 * headline's procedure only; else -1 */
};

struct cp_thread_prof {
	uint32_t tid;
	const char *name;	/* from the trace, or NULL */
	uint64_t elapsed_ns;	/* wall time from its first to last event */
	uint64_t useful_ns;
	uint64_t wait_ns;
	uint64_t cp_ns;		/* useful time of this thread on the CP */
	uint64_t len_ns;	/* longest path ending at its last event */
	uint64_t calls;		/* procedure entries */
	uint64_t samples;	/* sampled: its samples placed */
	uint32_t nv;		/* vertices */
	bool cp_unknown;	/* (streamed) not followed: cp_ns 0, not
				 * known */
};

struct cp_obj_prof {
	uint32_t obj;
	uint8_t kind;		/* enum cp_obj_kind */
	bool untracked;
	uint64_t addr;
	uint64_t ops;		/* acquires (locks), wakes (cond), arrivals
				 * (barrier), posts and waits (sem), enqueues
				 * and dequeues (item): as the online report */
	uint64_t waits;		/* waits on it */
	uint64_t wait_ns;	/* time threads waited on it */
	uint64_t held_ns;	/* useful time spent holding it (locks) */
	uint64_t cp_held_ns;	/* ... of which on the critical path */
	uint64_t cp_cross;	/* CP edges that pass from thread to thread
				 * through it */
	uint64_t gain_ns;	/* how much longer the consumers' paths got
				 * by depending on it (the online report's
				 * cp_gain_ns) */
	struct cp_site site;	/* where the program first used it */
	bool cp_unknown;	/* (streamed) not followed: cp_held_ns and
				 * cp_cross 0, not known */
};

/* Near-critical paths MBM takes by default. */
#define CP_PROFILE_K_DEFAULT 100

struct cp_profile;

struct cp_profile_opts {
	bool exclusive;		/* procedure times exclusive of callees */
	uint32_t k;		/* paths for MBM, 0: CP_PROFILE_K_DEFAULT */
	uint32_t top;		/* zeroing/Slack/MBM for the first @top
				 * procedures by CP time; 0: all */
	/* and for the procedure this returns (its id), unless UINT32_MAX:
	 * called once the CPU and CP figures are in @p (the report asks
	 * for its headline's procedure, whose zeroing it quotes) */
	uint32_t (*also)(void *ctx, const struct cp_profile *p);
	void *also_ctx;
	const struct cp_cpm *cpm;	/* the trace PAG's CPM if the caller
					 * ran it (must outlive the profile);
					 * NULL: the profile runs its own */
	/* progress: called now and then with a phase name and 0..1 */
	void (*progress)(void *ctx, const char *phase, double frac);
	void *progress_ctx;
};

struct cp_profile {
	const struct cp_tracepag *tp;
	const struct cp_trace *trace;	/* the trace it was made from (the
					 * streamed profile's caller sets it) */
	const struct cp_cpm *cpm;	/* forward/backward pass of the trace
					 * PAG: the caller's or own_cpm */
	struct cp_cpm own_cpm;
	bool exclusive;
	uint32_t k;		/* paths asked for MBM */
	uint32_t npaths;	/* paths found */

	uint64_t cp_len;	/* critical path length */
	uint64_t online_len;	/* the runtime's value from the trace */
	uint64_t elapsed_ns;	/* wall time of the run */
	uint64_t useful_ns;	/* total useful (CPU) time */
	uint64_t wait_ns;	/* total waiting time */
	double parallelism;	/* useful / elapsed */
	double max_parallelism;	/* useful / CP length */
	uint32_t nthreads;	/* threads that ran */
	uint64_t calls;
	bool sampled;		/* procedures come from samples
				 * (cp_sampled.h): calls are unknown */
	uint64_t samples;	/* samples placed on the timeline */
	uint64_t cp_samples;	/* ... in critical segments */

	struct cp_proc_prof *procs;	/* [nprocs] by CP time, then CPU */
	uint32_t nprocs;
	struct cp_thread_prof *threads;	/* [nthreads_all] by tid */
	uint32_t nthreads_all;
	struct cp_obj_prof *objs;	/* [nobjs] objects with events, by id */
	uint32_t nobjs;

	/* A profile made from the streaming analysis (cp_stream_prof.h) has
	 * no graph (tp and cpm NULL); its procedures, threads and objects
	 * past the followed ones have cp_unknown. */
	uint64_t cp_bound;	/* the most CP time such a procedure can have
				 * (its CPU time bounds it); 0: none */
	bool slack_missing;	/* no Slack at all (--no-slack, or its
				 * scratch file failed) */
};

/*
 * Compute the profile of @tp (finished; must outlive @p).  Returns 0, or -1
 * with a reason in @err (out of memory).  Free with cp_profile_free().
 */
int cp_profile_compute(struct cp_profile *p, const struct cp_tracepag *tp,
		       const struct cp_profile_opts *o, char *err,
		       size_t errlen);
void cp_profile_free(struct cp_profile *p);

/* Percentage @part of @whole (0 when @whole is 0). */
/* Is an object of @kind (enum cp_obj_kind) a lock, with a held time? */
static inline bool cp_profile_is_lock(unsigned kind)
{
	return cp_obj_kind_is_lock(kind);
}

/*
 * The one order of objects in every output: by CP time held plus path
 * gain, then by critical-path crossings, then by time waited (all
 * descending), then by id.  qsort-style: <0 when @a comes first.
 */
int cp_profile_obj_cmp(const struct cp_obj_prof *a,
		       const struct cp_obj_prof *b);

static inline double cp_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

#endif /* CP_PROFILE_H */
