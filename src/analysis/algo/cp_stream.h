/*
 * cp_stream.h - the out-of-core analysis of a trace: the critical path,
 * per-thread, per-procedure and per-object figures computed by a forward
 * pass over the file's events in dependency order, in memory bounded by
 * threads x objects x followed lanes instead of events (cp_stream.c
 * explains the algorithm and the bound).
 *
 * It gives what a forward pass can, each equal to the in-memory profile's
 * (cp_profile.h) to the nanosecond when the critical path is unique: the
 * critical path's length; elapsed, useful and wait time, calls and
 * longest path per thread; every procedure's useful time and calls
 * (procedures from ENTER/LEAVE and regions, or from CPU-time samples as
 * cp_sampled.h lays them, with their sample counts and hot lines); per
 * object its operations, waits, time waited, time held and path gain;
 * and, riding along the path as lanes of the path records for the
 * CP_STREAM_TRACK procedures with the most useful time, the
 * CP_STREAM_TRACK objects most held and waited for and the
 * CP_STREAM_TRACK threads with the most useful time: a procedure's time
 * on the critical path and CP zeroing, an object's time held on the
 * critical path and CP edges, a thread's time on the critical path.
 * Given a what-if scaling, the fixed-graph prediction (cp_whatif.h: the
 * longest path with the scaled procedures' segments reweighted, equal to
 * cp_whatif_trace's length_after_fixed).  Given k, the k longest paths'
 * lengths, each as its parent and one deviation (cp_stream_kp.c), not
 * spelled edge by edge, and over them the followed procedures' MBM.
 * Given slack, their Slack, by a walk back over a scratch file the
 * records pass writes (cp_stream_slfile.c, cp_stream_slack.c).  Not the
 * what-if replay (cp_stream_replay.h does it in passes of its own).
 *
 * Concurrency: one call owns its state; it reads the index's mapping.
 */
#ifndef CP_STREAM_H
#define CP_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp_pairs.h"
#include "cp_tcursor.h"
#include "cp_timeline.h"
#include "cp_whatif.h"

/* Procedures whose CP share and zeroing are followed (the runtime's),
 * and as many objects and threads for their CP figures. */
#define CP_STREAM_TRACK	64

/* Heap nodes of the k paths' sidetracks kept before the cheaper ones
 * only are; never more than twice as many (24 bytes each, and 48 a
 * sidetrack, of which there are fewer). */
#define CP_STREAM_KP_NODES	(1u << 21)

/* Bytes an event that Slack's scratch file is taken to need before the
 * pass (12.6-16.4 measured, doc/measurements/2026-12-01-stream-lean.md):
 * a directory with less room free gets no file, rather than being
 * filled up. */
#define CP_STREAM_SL_EVENT_BYTES	16u

struct cp_stream_thread {
	uint32_t tid;
	const char *name;	/* from the trace, or NULL */
	uint64_t nv;		/* vertices */
	uint64_t elapsed_ns;	/* wall time from its first to last vertex */
	uint64_t useful_ns;
	uint64_t wait_ns;
	uint64_t len_ns;	/* longest path ending at its last vertex */
	uint64_t calls;		/* ENTERs / REGION_BEGINs */
	bool tracked;		/* its CP time is followed */
	uint64_t cp_ns;		/* tracked: its useful time on the CP */
	uint64_t samples;	/* sampled procedures: its samples placed */
	uint32_t parent;	/* its THREAD_START's creator, or UINT32_MAX */
	bool exited;		/* its last vertex is a THREAD_EXIT */
};

/* A synchronization object (defined by OBJ_DEF, of a kind): the figures
 * of cp_profile.h's struct cp_obj_prof. */
struct cp_stream_obj {
	uint32_t obj;
	uint8_t kind;		/* enum cp_obj_kind */
	bool untracked;
	uint64_t addr;
	uint64_t ops;		/* as cp_obj_prof */
	uint64_t waits, wait_ns;
	uint64_t held_ns;	/* locks */
	uint64_t gain_ns;
	bool tracked;		/* its CP figures are followed */
	uint64_t cp_held_ns;	/* tracked: time held on the CP */
	uint64_t cp_cross;	/* tracked: CP edges through it */
	struct cp_site site;	/* where the program first used it (its
				 * name: the caller's, cp_sampled_name_site) */
};

struct cp_stream_proc {
	char *name;
	uint32_t id;		/* its index during the pass (before procs
				 * were sorted) */
	uint64_t calls;		/* ENTERs / REGION_BEGINs */
	uint64_t cpu_ns;	/* useful time, all threads (inclusive or
				 * exclusive: cp_stream.exclusive) */
	uint64_t cpu_incl_ns, cpu_excl_ns;	/* both, whatever the mode */
	bool tracked;		/* one of the CP_STREAM_TRACK followed */
	uint64_t cp_ns;		/* tracked: its time on the CP */
	uint64_t cp_incl_ns;	/* tracked: inclusive of callees (inclusive
				 * mode: cp_ns) */
	uint64_t cp_excl_ns;	/* tracked: exclusive of callees (exclusive
				 * mode: cp_ns) */
	uint64_t zero_ns;	/* tracked: CP zeroing */
	double busy;		/* (cp_stream_opts.headline's, busy) the
				 * other threads' busy share while it was
				 * on the CP (cp_compare.h's hl_busy), 0..1;
				 * -1: not measured */
	uint64_t samples;	/* sampled: the samples its CPU time rests
				 * on (cp_profile.h's, in the mode) */
	uint64_t cp_samples;	/* sampled, tracked: those on the CP */
	bool top;		/* tracked, and among cp_stream_opts.top's
				 * or the headline's, or of no CP time */
	bool has_slack;		/* top, cp_stream_opts.slack given and
				 * its file written */
	uint64_t slack_ns;	/* its Slack (cp_slack.h's metric) */
	bool has_mbm;		/* tracked, cp_stream_opts.mbm_k given */
	uint64_t mbm_ns;	/* its MBM over the mbm_paths longest paths
				 * (cp_mbm.h's metric) */
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
	struct cp_stream_obj *objs;	/* [nobjs] by id */
	struct cp_site *site_callers;	/* the pool of their sites' callers */
	uint32_t nobjs;
	uint32_t nobjs_tracked;
	uint32_t nthreads_tracked;
	bool has_samples;	/* the trace has CPU-time samples */
	bool sampled;		/* the procedures come from them
				 * (cp_sampled.h's model; ix->t.samples is
				 * then active, its counters filled) */
	uint64_t samples;	/* sampled: the samples placed */
	uint64_t cp_samples;	/* ... and of them in critical segments */
	/* the bound, measured */
	uint64_t records;	/* publish records made */
	uint64_t live_max;	/* most publish records alive at once */
	uint64_t threads_live_max;	/* most threads whose lanes were held
					 * at once (records passes) */
	uint64_t thin_records;	/* records made without the share lanes no
				 * merge would read (cp_stream_rec.c) */
	uint32_t thin_reruns;	/* records passes run again whole: a merge
				 * met a record without the lanes it took */
	uint64_t nrepairs;	/* dependencies the pass had to drop */
	/* what-if (cp_stream_opts.scale given) */
	uint64_t scaled_len;	/* fixed-graph prediction: the longest path
				 * with the scaled segments reweighted */
	uint64_t scaled_ns;	/* useful time the scaling touched */
	/* what-if lanes (cp_stream_opts.lanes), each as scaled_len and
	 * scaled_ns above; lane_known[i] false: the trace has no procedure
	 * of lane i's name (its figures are the unscaled ones) */
	uint32_t nlanes;
	uint64_t *lane_len;
	uint64_t *lane_ns;
	bool *lane_known;
	/* the k longest paths (cp_stream_opts.kpaths), longest first: the
	 * first npaths, each exact; paths_cut when more were asked and
	 * the sidetracks kept could not show which come next */
	struct cp_stream_path *paths;
	uint32_t npaths;
	uint32_t paths_asked;	/* k */
	bool paths_cut;
	uint64_t paths_bound;	/* sidetracks up to this much shorter
				 * than the longer path were all kept
				 * (UINT64_MAX: every one) */
	uint32_t mbm_paths;	/* paths the MBM is over (cp_stream_opts.
				 * mbm_k, fewer when there are fewer or the
				 * paths are cut) */
	/* Slack (cp_stream_opts.slack) */
	bool slack_asked;	/* cp_stream_opts.slack was given */
	int slack_err;		/* errno of its file when it failed, or 0 */
	const char *slack_dir;	/* the directory of its file
				 * (cp_spill_dir()) */
	bool slack_in_memory;	/* that directory is held in memory */
	uint64_t slack_need;	/* ENOSPC before the pass: the file would
				 * take about this much, */
	uint64_t slack_avail;	/* and the directory has this much free */
	uint64_t slack_bytes;	/* its file's size */
	uint64_t slack_walked;	/* vertices the walk back read */
	uint32_t paths_passes;	/* paths passes run (more than one: the
				 * paths came out cut, the room grew) */
	uint64_t kp_room;	/* the heaps' room in the last: nodes past
				 * which only cheaper sidetracks are kept */
	uint64_t kp_kept;	/* sidetracks kept */
	uint64_t kp_nodes;	/* heap nodes made for them */
	/* (cp_stream_opts.views) the breakdowns of cp_views.h, without their
	 * CP columns: per (thread, procedure: its index in procs, or
	 * UINT32_MAX for time outside any) the CPU time in the mode; per
	 * (thread, object, 0 for a join) the waits and time waited; per
	 * (releasing thread, released thread) the dependencies, v_ndeps in
	 * all (the releaser of several publishes consumed together: the
	 * last to publish, as cp_views.c takes it) */
	struct cp_pairs v_tproc, v_waits, v_deps;
	uint64_t v_ndeps;
	/* (sampled) the samples' stacks the procedures came from
	 * (cp_stream_opts.symbolize's, by sample), for later passes over
	 * the same index (whose samples are then symbolized) */
	uint32_t *sid;
	/* (cp_stream_opts.timeline) the timeline, keyed by the index of
	 * procs (tl.width 0: not asked); tl.has_cp false when Slack's file
	 * could not be written (slack_err), so the critical path is not in
	 * it */
	struct cp_timeline tl;
};

/*
 * The k longest paths, streamed (cp_stream_opts.kpaths; cp_stream_kp.c):
 * each path is its parent (a longer one, listed before it) with one
 * dependency taken differently, its deviation: walking back from the
 * end, the path follows its parent's down to vertex (to_tid, to_ns) and
 * arrives there from (from_tid, from_ns), which the parent does not.
 * Times are wall clock from the run's first vertex.
 */
enum cp_stream_dev_kind {
	CP_SDEV_OBJECT,		/* from_tid's PUBLISH of obj, consumed at to */
	CP_SDEV_PROGRAM,	/* to_tid's own vertex before, where the
				 * parent takes obj's hand-over instead */
	CP_SDEV_JOIN,		/* from_tid's end, joined at to */
	CP_SDEV_GROUP,		/* from_tid's PUBLISH of obj into a group
				 * of obj's publishes consumed together
				 * (to_tid UINT32_MAX, to_ns the time the
				 * group formed) */
	CP_SDEV_END,		/* the path ends at from_tid's last vertex
				 * (to_tid UINT32_MAX, to_ns 0) */
};

/* cp_stream_dev.obj_kind of an object the trace does not define */
#define CP_SDEV_NOKIND	0xff

struct cp_stream_dev {
	uint8_t kind;		/* enum cp_stream_dev_kind */
	uint8_t obj_kind;	/* its enum cp_obj_kind, or CP_SDEV_NOKIND */
	uint32_t obj;		/* OBJECT, PROGRAM, GROUP: the object */
	uint32_t from_tid, to_tid;
	uint64_t from_ns, to_ns;
};

struct cp_stream_path {
	uint64_t len;
	uint32_t parent;	/* UINT32_MAX for the critical path */
	struct cp_stream_dev dev;	/* none for the critical path */
};

/* Where procedures come from: cp_sampled.h's enum cp_procsrc, by value. */
enum cp_stream_src {
	CP_STREAM_SRC_AUTO = 0,		/* instrumented when the trace has
					 * ENTER/LEAVE or regions, else
					 * sampled when it has samples */
	CP_STREAM_SRC_INSTRUMENTED = 1,
	CP_STREAM_SRC_SAMPLED = 2,	/* procedure events dropped */
};

struct cp_stream_opts {
	bool exclusive;		/* procedure times exclusive of callees
				 * (the innermost frame's), else inclusive */
	/* what-if: scale every useful segment as cp_whatif_trace's fixed
	 * graph does (the product of the factors of the distinct scaled
	 * procedures on its stack; exclusive: its innermost procedure's),
	 * followed as one more value per path record; NULL: none.  Factors
	 * are >= 0; a name may come twice (the factors multiply). */
	const struct cp_whatif_scale *scale;
	uint32_t nscale;
	/* what-if of several scalings at once, with @scale NULL: each of
	 * the @nlanes a procedure and its factor, followed in a lane of its
	 * own, its prediction into cp_stream.lane_len (the same as a pass
	 * with that one scaling would give) */
	const struct cp_whatif_scale *lanes;
	uint32_t nlanes;
	/* sampled procedures: which source (enum cp_stream_src), and the
	 * symbolizer of the samples' stacks (cp_sampled_symbolize's
	 * contract, @ctx first); NULL: the samples are not used */
	int src;
	int (*symbolize)(void *ctx, struct cp_trace *t, uint32_t **sid,
			 char *err, size_t errlen);
	void *symbolize_ctx;
	/* the lengths only (the critical path's, the threads' and, given a
	 * scaling, the fixed-graph prediction): no procedure, object or
	 * thread lanes, so no CP figures of theirs.  `cpt whatif` needs no
	 * more; its records are then one value instead of up to a few
	 * hundred. */
	bool lengths_only;
	/* the k longest paths: 0, none; else up to this many into
	 * cp_stream.paths, the heap nodes of their sidetracks held near
	 * kpaths_nodes (0: CP_STREAM_KP_NODES, or 64 k when more) by
	 * keeping only the
	 * cheaper ones once there are more (cp_stream_kp.c) */
	uint32_t kpaths;
	uint64_t kpaths_nodes;
	/* when the paths come out cut, the paths pass again with 8 times
	 * the room, up to this many nodes (0: never) */
	uint64_t kpaths_nodes_max;
	/* the tracked procedures' MBM over the mbm_k longest paths (which
	 * then come into cp_stream.paths too; kpaths is ignored): the
	 * paths are found by one more pass, and the records pass takes
	 * the share lanes at their sidetracks (cp_stream_kp.c); 1: the CP
	 * time, with no pass more; 0: none */
	uint32_t mbm_k;
	/* (tests) MBM's paths pass marks no record as read, so that the
	 * records pass meets one without its lanes and runs again whole */
	bool thin_unmarked;
	/* the tracked procedures' Slack: the records pass writes every
	 * vertex's in-edges to a file in cp_spill_dir() (13-16 bytes an
	 * event, unlinked at once; none when the directory has less room
	 * than CP_STREAM_SL_EVENT_BYTES an event) read back from its end
	 * (cp_stream_slack.c) */
	bool slack;
	/* the bytes an event the room check takes the file to need (0:
	 * CP_STREAM_SL_EVENT_BYTES) */
	uint64_t slack_event_bytes;
	/* the procedures given Slack (cp_stream_proc.top), as in memory
	 * (cpt report --top): the @top tracked ones of most CP time
	 * (0: all), and the one the headline speaks of.  Slack's walk
	 * follows their lanes only; the others' zeroing and MBM come free
	 * with the records pass */
	uint32_t top;
	/* the procedure the headline speaks of, asked for once the figures
	 * are known but Slack (cp_stream.procs not yet in order): its index
	 * there, or UINT32_MAX for none; *@busy set when the headline wants
	 * the other threads' busy share while it was on the critical path
	 * (cp_stream_proc.busy), which the walk measures with slack.  NULL:
	 * none */
	uint32_t (*headline)(void *ctx, const struct cp_stream *s,
			     bool *busy);
	void *headline_ctx;
	/* called every 2^20 vertices with a phase name and 0..1 done */
	void (*progress)(void *ctx, const char *phase, double frac);
	void *progress_ctx;
	/* the views' breakdowns (cp_stream.v_tproc, v_waits, v_deps) */
	bool views;
	/* the HTML report's timeline in this many columns (cp_stream.tl;
	 * 0: none): each thread's segments as the last records pass meets
	 * them, and the critical path from Slack's file, walked back to
	 * the path's start (the file is then written, Slack asked or not) */
	uint32_t timeline;
};

/* What the streamed analyses return when a scaled name is no procedure
 * of the trace (a reader of the whole trace would find none either). */
#define CP_STREAM_NO_PROC (-2)

/*
 * Analyse the trace indexed by @ix in two passes over its events (a
 * survey, then the path records) with the options @o (NULL: inclusive,
 * no progress).  Returns 0 with @s filled, or with "PATH: reason" in @err
 * -1 (out of memory) or CP_STREAM_NO_PROC.  Free with cp_stream_free().
 * Runs on the calling thread.
 */
int cp_stream_run(struct cp_stream *s, struct cp_tindex *ix,
		  const struct cp_stream_opts *o, char *err, size_t errlen);
/* Free what @s owns (the procedure names included). */
void cp_stream_free(struct cp_stream *s);

#endif /* CP_STREAM_H */
