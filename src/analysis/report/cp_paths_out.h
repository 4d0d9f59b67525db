/*
 * cp_paths_out.h - the k longest root-to-leaf paths of `cpt paths`
 * (cp_kpaths.h), longest first, as text or JSON.
 *
 * Text: each path from its deviation on (its shared prefix named, not
 * repeated) to where it meets the critical path again (its rest named),
 * at most 40 items; the first nfull paths spelled edge by edge.  JSON:
 * the implicit form of cp_kpaths.h, one object a path ({"length",
 * "edge_count", "parent", "shared", "deviation", "departs", "rejoins",
 * "rejoins_cp_at"}), with "edges" for the first nfull paths only, so its
 * size grows with k, not k times the path length.
 *
 * Concurrency: the paths and the input are only read.
 */
#ifndef CP_PATHS_OUT_H
#define CP_PATHS_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cp_input.h"
#include "cp_kpaths.h"
#include "cp_stream.h"

struct cp_paths_opts {
	bool json;		/* JSON, else text */
	uint32_t nfull;		/* paths spelled in full, UINT32_MAX:
				 * all */
	/* progress while writing (may be NULL): the signature of
	 * cp_profile_opts' callback */
	void (*progress)(void *ctx, const char *phase, double frac);
	void *progress_ctx;
};

/*
 * Write the paths @kp of @in's graph to @f.  Returns 0, or -1 when memory
 * runs out (nothing written).
 */
int cp_paths_out(FILE *f, const struct cp_input *in,
		 const struct cp_kpaths *kp, const struct cp_paths_opts *o);

/* Room for cp_paths_stream_dev()'s phrase. */
#define CP_PATHS_DEV_LEN	256

/*
 * Streamed path @i (i >= 1) of @s after its length, as one phrase into
 * @buf: its parent and the deviation ("as #1 from T2 at 3.1 ms on;
 * reaches it from T0 at 2.9 ms through mutex#4").  Returns @buf.
 */
const char *cp_paths_stream_dev(char *buf, size_t len,
				const struct cp_stream *s, uint32_t i);

/*
 * The paths of the streamed analysis (cp_stream.h's paths, of the trace
 * @path) to @f, text or JSON.  Each is said as its parent from the
 * deviation on, and where it arrives there from instead: text, a line a
 * path; JSON, {"critical_path_length", "streamed": true, "paths_cut",
 * "sidetrack_bound", "paths": [{"length", "parent", "deviation": {"kind",
 * "object", "from_thread", "from_ns", "to_thread", "to_ns"}}]}.
 */
void cp_paths_stream_out(FILE *f, const char *path,
			 const struct cp_stream *s, uint32_t k, bool json);

#endif /* CP_PATHS_OUT_H */
