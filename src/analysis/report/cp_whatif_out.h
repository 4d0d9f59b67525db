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
#include "cp_whatif.h"

/*
 * Write result @r of scaling @sc[0..@nsc) (@exclusive: exclusive time
 * was scaled) in @in to @f, as JSON if @json, else as text.
 */
void cp_whatif_out(FILE *f, const struct cp_input *in,
		   const struct cp_whatif_scale *sc, uint32_t nsc,
		   bool exclusive, const struct cp_whatif_result *r, bool json);

#endif /* CP_WHATIF_OUT_H */
