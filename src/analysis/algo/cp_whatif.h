/*
 * cp_whatif.h - what if procedure X took f times as long?  Two predictions
 * ([Alexander94, §VI], [Hollingsworth98, §4.1]):
 *
 *   fixed graph   reweight the segments of the recorded PAG (X's share of
 *                 each) and take the longest path again: quick, but it
 *                 keeps every recorded dependency, so it cannot see a lock
 *                 being taken in another order;
 *   simulation    replay every thread's events with the new segment
 *                 durations, granting locks in order of simulated request
 *                 time (rwlocks: readers share, writers exclusive),
 *                 handing out semaphore tokens in simulated order, and
 *                 following the recorded dependencies of barriers,
 *                 condition variables, work-queue items and create/join.
 *
 * Both work in the PAG's model (an ideal machine with a processor per
 * thread, waits cost nothing), so with nothing scaled the fixed graph gives
 * the CP length and the simulation gives it too unless the recorded lock
 * order was not the order of the model's request times.  The simulation
 * (cp_replay.h) can also be given fewer processors than threads
 * (cp_replay.c, "Fewer processors"): for a program that runs more threads
 * than the machine has cores, from a trace taken with the cpu clock.  And
 * it can pay each recorded wake-up latency again (cp_replay.c, "Wake-up
 * latency"), so that the unscaled replay is the recorded run rather than
 * the ideal machine's.
 */
#ifndef CP_WHATIF_H
#define CP_WHATIF_H

#include <stdbool.h>
#include <stdint.h>

#include "cp_pag.h"
#include "cp_replay.h"
#include "cp_tracepag.h"

struct cp_whatif_scale {
	const char *name;	/* procedure (trace) or edge label (text PAG) */
	double factor;		/* >= 0 */
};

struct cp_whatif_result {
	uint64_t length_before;		/* CP length of the recorded graph */
	uint64_t length_after_fixed;	/* fixed-graph prediction */
	uint64_t length_before_sim;	/* simulation with nothing scaled */
	uint64_t length_after;		/* simulated prediction (the fixed-graph
					 * one when !simulated) */
	bool simulated;			/* false for a text PAG or a deadlock */
	bool deadlock;			/* the simulation could not finish
					 * (the new order would deadlock); the
					 * fixed-graph value is used */
	uint64_t reordered;		/* lock grants the simulation made in a
					 * different order than recorded */
	uint64_t forced;		/* acquires the simulation let through
					 * as recorded: tries that the new
					 * order would have made fail
					 * (cp_replay.c, "Tries") */
	uint64_t forced_before;		/* the same, unscaled replay */
	uint64_t scaled_ns;		/* useful time the scaling touched */
	uint32_t cpus;			/* processors simulated, 0: one
					 * per thread (the fixed graph:
					 * always) */
	bool wake;			/* the simulation paid the recorded
					 * wake-up latencies */
};

/*
 * Both predictions for a trace PAG.  A segment's factor is the product of
 * the factors of the distinct scaled procedures on its calling context
 * (@exclusive: the factor of its innermost procedure only).  @cpus: the
 * simulation's processors, 0 for one per thread; @wake: the simulation
 * pays the recorded wake-up latencies.  Returns 0, or -1 with
 * "NAME: reason" in @err: a name that is no procedure of the trace, a
 * negative factor, out of memory.
 */
int cp_whatif_trace(const struct cp_tracepag *tp,
		    const struct cp_whatif_scale *sc, uint32_t nsc,
		    bool exclusive, uint32_t cpus, bool wake,
		    struct cp_whatif_result *r, char *err, size_t errlen);

/*
 * cp_whatif_trace() for each of the @n scalings @sc[i] alone into @r[i],
 * with @ret[i] 0 or -1 (as cp_whatif_trace would fail: a name that is no
 * procedure, a scaling that could wrap, out of memory).  What every
 * prediction shares, the fixed graph's length and the replay with nothing
 * scaled, is computed once; the jobs run on both cores.  Returns 0, or -1
 * when the shared part ran out of memory (then no @r is filled).
 */
int cp_whatif_trace_each(const struct cp_tracepag *tp,
			 const struct cp_whatif_scale *sc, uint32_t n,
			 bool exclusive, uint32_t cpus, bool wake,
			 struct cp_whatif_result *r, int *ret);

/*
 * The simulation's figures of @r from the replay with nothing scaled
 * (@before) and with the scaling (@after); if either deadlocked, the
 * fixed-graph figures (length_before, length_after_fixed, set first)
 * stand in and r->deadlock says so.  The one rule for the in-memory and
 * the streaming replay (cp_stream_replay.h).
 */
void cp_whatif_set_replay(struct cp_whatif_result *r,
			  const struct cp_replay_result *before,
			  const struct cp_replay_result *after);

/*
 * A segment of @w ns scaled by @f, as the fixed graph weighs it: rounded
 * to the nearest ns, at most 1.8e19.  The one rule for cp_whatif.c and
 * the streaming pass (cp_stream.c), so both predict the same length.
 */
uint64_t cp_whatif_scaled_w(uint64_t w, double f);

/*
 * Refuse a scaling under which a prediction could wrap.  Every path and
 * every simulated time is at most the useful time @useful_ns, with the
 * part @scaled_ns the scaling touches multiplied by the product of @sc's
 * factors over 1 (no calling context's factor is larger), plus @other_ns
 * (the waits a replay may pay as latencies).  Returns 0 when that bound
 * fits in 2^64-1 ns, else -1 with "@path: reason" in @err.  Only a
 * damaged trace comes near (2^64 ns is 584 years).  The one check for
 * the in-memory and the streaming what-if.
 */
int cp_whatif_check_range(const char *path, uint64_t useful_ns,
			  uint64_t scaled_ns, uint64_t other_ns,
			  const struct cp_whatif_scale *sc, uint32_t nsc,
			  char *err, size_t errlen);

/*
 * Fixed-graph prediction for a plain PAG: edges whose label equals a
 * scaled name are scaled.  length_after = length_after_fixed.
 */
int cp_whatif_pag(const struct cp_pag *g, const struct cp_whatif_scale *sc,
		  uint32_t nsc, struct cp_whatif_result *r, char *err,
		  size_t errlen);

#endif /* CP_WHATIF_H */
