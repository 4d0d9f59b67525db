/*
 * cp_stream_replay.h - the what-if replay (cp_replay.h) out of core: the
 * same discrete-event simulation run over the trace file's events with a
 * cursor per thread (cp_tcursor.h), in memory bounded by threads, objects
 * and the publishes still awaited instead of events (cp_stream_replay.c
 * explains the rule that frees them).  It gives the in-memory replay's
 * figures to the nanosecond for the replay on one processor per thread
 * without wake-up latencies (cp_replay_run with cpus 0, !wake).
 *
 * Concurrency: one call owns its state and reads the index; two calls
 * may share an index (their cursors read with pread and note nothing).
 */
#ifndef CP_STREAM_REPLAY_H
#define CP_STREAM_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp_replay.h"
#include "cp_stream.h"
#include "cp_tcursor.h"
#include "cp_whatif.h"

struct cp_sreplay {
	struct cp_replay_result before;	/* nothing scaled */
	struct cp_replay_result after;	/* the scaling given */
	/* false: the trace holds something the in-memory reader repairs
	 * (an undefined object, a dependency on a sequence nobody
	 * publishes, ...), which this pass does not; @why says what, and
	 * the figures above are not given */
	bool clean;
	char why[160];
	/* the bound, measured (the scaled replay's) */
	uint64_t records;	/* publish records made */
	uint64_t live_max;	/* most publish records alive at once */
};

/*
 * Replay the trace indexed by @ix twice, unscaled and with @sc[0..@nsc)
 * (each useful segment times the product of the factors of the distinct
 * scaled procedures on its stack; @exclusive: its innermost procedure's),
 * as cp_whatif_trace() replays the in-memory trace.  Three passes over
 * the events: a survey, then both replays at once on two threads.
 * @sid (NULL: the procedures are the instrumented ones) is the stack of
 * each of ix->t.samples (cp_sampled_symbolize's, borrowed): when the
 * trace has no procedure event, or always if @drop_procs (its procedure
 * events then dropped), the procedures are then those of the samples'
 * stacks, switched at the midpoints of the samples on each
 * thread's useful time as cp_sampled.c's rewrite does, each piece of a
 * segment scaled and rounded on its own as the in-memory replay's.
 * Returns 0 with @out filled (see its @clean), or with "PATH: reason" in
 * @err -1 (out of memory) or CP_STREAM_NO_PROC (cp_stream.h).
 */
int cp_stream_replay_run(struct cp_tindex *ix,
			 const struct cp_whatif_scale *sc, uint32_t nsc,
			 bool exclusive, const uint32_t *sid, bool drop_procs,
			 struct cp_sreplay *out, char *err, size_t errlen);

/*
 * The whole streamed what-if of the trace indexed by @ix with the
 * scaling of @so: cp_stream_run (the fixed graph, into @s) and
 * cp_stream_replay_run (into @rp) at once, on two threads (the index is
 * shared: the fixed graph's first pass is the one that counts repairs in
 * ix->t).  Returns 0, or the first failure's return (cp_stream_run's)
 * with its "PATH: reason" in @err (@s then holds nothing).  Free @s with
 * cp_stream_free().
 */
int cp_stream_whatif_run(struct cp_tindex *ix, const struct cp_stream_opts *so,
			 struct cp_stream *s, struct cp_sreplay *rp,
			 char *err, size_t errlen);

/* The what-if result @r of the streamed fixed graph @s and replays @rp
 * (cp_stream_whatif_run's): the replay's figures only when it could be
 * given (a clean trace). */
void cp_stream_whatif_result(const struct cp_stream *s,
			     const struct cp_sreplay *rp,
			     struct cp_whatif_result *r);

/*
 * cp_stream_whatif_run() for each of the @n scalings @sc[i] alone (with
 * @so's procedures, mode, symbolizer and progress) into @r[i], with
 * @ret[i] its return, the same figures to the nanosecond.  The samples'
 * stacks, when they take over, are @sid (cp_stream.sid of a pass over
 * the same index, whose samples are then symbolized already), or, NULL,
 * symbolized once for all.  One fixed graph's pass follows every
 * scaling in a lane of its own (cp_stream_opts.lanes), and the replays
 * share one survey and one unscaled replay: a replay per scaling and
 * three more passes, on two threads.  Returns 0, or -1 when the
 * symbolizing failed or memory ran out before any pass (no @r filled).
 */
int cp_stream_whatif_each(struct cp_tindex *ix,
			  const struct cp_stream_opts *so, const uint32_t *sid,
			  const struct cp_whatif_scale *sc, uint32_t n,
			  struct cp_whatif_result *r, int *ret);

/* cp_stream_opts.symbolize that hands out a copy of stacks symbolized
 * before (@ctx: the samples' stack ids, ix->t.samples->n of them). */
int cp_stream_sid_copy(void *ctx, struct cp_trace *t, uint32_t **sid,
		       char *err, size_t errlen);

/*
 * Are the procedures of the trace indexed by @ix the instrumented ones
 * (ENTER/LEAVE, regions), as the in-memory reader takes them by default:
 * the trace has no sampled stacks, or some thread's first block holds an
 * ENTER or REGION_BEGIN (the index looked: cp_tindex.first_procs)?
 * False also when instrumented events come later only (the caller then
 * loads the trace).
 */
bool cp_stream_procs_instrumented(struct cp_tindex *ix);

#endif /* CP_STREAM_REPLAY_H */
