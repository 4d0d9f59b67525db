/*
 * cp_stream.h - the out-of-core analysis of a trace: the critical path,
 * per-thread times and per-procedure CP share and zeroing computed by a
 * forward pass over the file's events in dependency order, in memory
 * bounded by threads x objects x tracked procedures instead of events
 * (cp_stream.c explains the algorithm and the bound).
 *
 * It gives what a forward pass can: the critical path's length (equal to
 * the in-memory CPM's to the nanosecond), elapsed, useful and wait time
 * per thread, every procedure's inclusive useful time and calls, and for
 * the CP_STREAM_TRACK procedures with the most useful time their
 * inclusive time on the critical path and CP zeroing.  Not Slack, the k
 * longest paths, MBM, what-if, per-object figures or sampled stacks: they
 * need the graph (or a backward pass) that this mode does not keep.
 *
 * Concurrency: one call owns its state; it reads the index's mapping.
 */
#ifndef CP_STREAM_H
#define CP_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp_tcursor.h"

/* Procedures whose CP share and zeroing are followed (the runtime's). */
#define CP_STREAM_TRACK	64

struct cp_stream_thread {
	uint32_t tid;
	const char *name;	/* from the trace, or NULL */
	uint64_t nv;		/* vertices */
	uint64_t elapsed_ns;	/* wall time from its first to last vertex */
	uint64_t useful_ns;
	uint64_t wait_ns;
	uint64_t len_ns;	/* longest path ending at its last vertex */
};

struct cp_stream_proc {
	char *name;
	uint64_t calls;		/* ENTERs / REGION_BEGINs */
	uint64_t cpu_ns;	/* useful time, all threads (inclusive or
				 * exclusive: cp_stream.exclusive) */
	bool tracked;		/* one of the CP_STREAM_TRACK followed */
	uint64_t cp_ns;		/* tracked: its time on the CP */
	uint64_t zero_ns;	/* tracked: CP zeroing */
};

struct cp_stream {
	bool exclusive;		/* procedure figures exclusive of callees */
	uint64_t cp_len;	/* critical path length */
	uint64_t online_len;	/* the runtime's value from the trace */
	uint64_t elapsed_ns;	/* wall time of the run */
	uint64_t useful_ns, wait_ns;
	uint64_t nvertices;
	uint32_t nthreads;	/* threads that ran */
	uint32_t cp_tid;	/* the thread whose last vertex ends the CP */
	struct cp_stream_thread *threads;	/* [nthreads_all] by tid */
	uint32_t nthreads_all;
	struct cp_stream_proc *procs;	/* [nprocs] by CP time, then CPU */
	uint32_t nprocs;
	uint32_t ntracked;
	/* the bound, measured */
	uint64_t records;	/* publish records made */
	uint64_t live_max;	/* most publish records alive at once */
	uint64_t nrepairs;	/* dependencies the pass had to drop */
};

struct cp_stream_opts {
	bool exclusive;		/* procedure times exclusive of callees
				 * (the innermost frame's), else inclusive */
	/* called every 2^20 vertices with a phase name and 0..1 done */
	void (*progress)(void *ctx, const char *phase, double frac);
	void *progress_ctx;
};

/*
 * Analyse the trace indexed by @ix in two passes over its events (a
 * survey, then the path records) with the options @o (NULL: inclusive,
 * no progress).  Returns 0 with @s filled, or -1 with "PATH: reason" in
 * @err (out of memory).  Free with cp_stream_free().  Runs on the calling
 * thread.
 */
int cp_stream_run(struct cp_stream *s, struct cp_tindex *ix,
		  const struct cp_stream_opts *o, char *err, size_t errlen);
/* Free what @s owns (the procedure names included). */
void cp_stream_free(struct cp_stream *s);

#endif /* CP_STREAM_H */
