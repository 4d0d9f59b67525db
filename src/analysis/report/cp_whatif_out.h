/*
 * cp_whatif_out.h - the what-if prediction of `cpt whatif`
 * (cp_whatif.h) as text or JSON: the recorded critical path, the
 * simulated and the fixed-graph predictions with their changes, and the
 * notes a user needs to trust them (a replay baseline that differs,
 * reordered or forced acquisitions, a deadlock, procedures resting on too
 * few samples).
 *
 * Concurrency: everything is only read.
 */
#ifndef CP_WHATIF_OUT_H
#define CP_WHATIF_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cp_input.h"
#include "cp_stream.h"
#include "cp_whatif.h"

/*
 * Write result @r of scaling @sc[0..@nsc) (@exclusive: exclusive time
 * was scaled) in @in to @f, as JSON if @json, else as text.
 */
void cp_whatif_out(FILE *f, const struct cp_input *in,
		   const struct cp_whatif_scale *sc, uint32_t nsc,
		   bool exclusive, const struct cp_whatif_result *r, bool json);

/*
 * The streaming what-if of the trace indexed by @ix: result @r of
 * scaling @sc[0..@nsc) (@exclusive as above), the fixed graph's figures
 * from cp_stream_run and the simulation's from cp_stream_replay_run.
 * With the replay (@no_replay NULL) the document is cp_whatif_out's, byte
 * for byte; without it, the recorded critical path and the fixed-graph
 * prediction, and a note that ends "no replay, because @no_replay".
 * @nsamples[0..@nsc) (NULL: the procedures are not sampled) are the
 * samples each scaled procedure rests on (cp_stream_proc.samples).
 */
void cp_whatif_out_stream(FILE *f, const struct cp_tindex *ix,
			  const struct cp_whatif_scale *sc, uint32_t nsc,
			  bool exclusive, const struct cp_whatif_result *r,
			  const char *no_replay, const uint64_t *nsamples,
			  bool json);

#endif /* CP_WHATIF_OUT_H */
