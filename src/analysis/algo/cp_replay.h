/*
 * cp_replay.h - the what-if replay: a discrete-event simulation of a
 * trace's threads with each calling context's useful time scaled, locks,
 * rwlocks and semaphore tokens granted in the new order of requests, the
 * other dependencies as recorded (cp_replay.c explains the model: ideal
 * machine, tries, fewer processors, wake-up latency).
 *
 * Concurrency: reads the trace PAG only; each call owns its state, so
 * calls may run concurrently.
 */
#ifndef CP_REPLAY_H
#define CP_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "cp_tracepag.h"

struct cp_replay_result {
	uint64_t length;	/* simulated run time, ns */
	bool deadlock;		/* the new order deadlocked for good */
	uint64_t reordered;	/* lock grants in another order than
				 * recorded */
	uint64_t forced;	/* acquires let through as recorded
				 * (cp_replay.c, "Tries") */
};

/*
 * Replay @tp with @cct_factor[tp->ncct] scaling each calling context's
 * useful time, on @cpus processors (0: one per thread), paying the
 * recorded wake-up latencies if @wake.  Returns 0 with @r filled, or -1
 * (out of memory).
 */
int cp_replay_run(const struct cp_tracepag *tp, const double *cct_factor,
		  uint32_t cpus, bool wake, struct cp_replay_result *r);

#endif /* CP_REPLAY_H */
