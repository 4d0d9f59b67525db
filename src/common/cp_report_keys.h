/*
 * cp_report_keys.h - the keys of the JSON report, defined once.
 *
 * The runtime writes this report at exit (CPTHREAD_REPORT) and `cpt
 * report --format json` writes the same document from a trace, so a
 * consumer reads either with one parser.  Every key of that contract is
 * spelled here and nowhere else; writers pass these macros to the
 * cp_emit_*() calls.  Times are nanoseconds of the run's clock (wall, or
 * CPU time under CPTHREAD_CLOCK=cpu) unless the comment says otherwise;
 * percentages are 0..100.  Header only, no state.
 */
#ifndef CP_REPORT_KEYS_H
#define CP_REPORT_KEYS_H

/*
 * Top level, who wrote the report and how the run was measured: tool
 * ("cpthread"), version (the writer's), mode ("online" or "trace"), clock
 * ("wall" or "cpu"), pid and exe (the traced process and the path of its
 * executable).
 */
#define CP_KEY_TOOL		"tool"
#define CP_KEY_VERSION		"version"
#define CP_KEY_MODE		"mode"
#define CP_KEY_CLOCK		"clock"
#define CP_KEY_PID		"pid"
#define CP_KEY_EXE		"exe"

/*
 * "sampling", an object: the call-stack sampler's mechanism ("perf",
 * "timer" or "off"), hz (samples per CPU second, 0 when off) and samples
 * (how many were taken; at the top level "samples" is the array of path
 * samples below).
 */
#define CP_KEY_SAMPLING		"sampling"
#define CP_KEY_MECHANISM	"mechanism"
#define CP_KEY_HZ		"hz"
#define CP_KEY_SAMPLES		"samples"

/*
 * Top level, totals of the run: threads (ever run), elapsed_ns (wall
 * time from start to the report), cpu_ns (useful time of all threads),
 * wait_ns (time blocked in traced waits), parallelism (cpu_ns /
 * elapsed_ns), max_parallelism (cpu_ns / the critical path's length),
 * stopped (cpthread_stop() ended the computation early).
 */
#define CP_KEY_THREADS		"threads"
#define CP_KEY_ELAPSED_NS	"elapsed_ns"
#define CP_KEY_CPU_NS		"cpu_ns"
#define CP_KEY_WAIT_NS		"wait_ns"
#define CP_KEY_PARALLELISM	"parallelism"
#define CP_KEY_MAX_PARALLELISM	"max_parallelism"
#define CP_KEY_STOPPED		"stopped"

/*
 * "critical_path", an object: length_ns and "procedures", one object per
 * selected procedure or region: name, cp_ns (its time on the path),
 * cp_zero_ns (how much shorter the path is with its time zeroed), cpu_ns
 * (its useful time on all threads), cp_pct and cp_zero_pct (of
 * length_ns), cpu_pct (of all useful time), source (how its time was
 * found: "function", "region", "function (sampled)", ...), samples.
 */
#define CP_KEY_CRITICAL_PATH	"critical_path"
#define CP_KEY_LENGTH_NS	"length_ns"
#define CP_KEY_PROCEDURES	"procedures"
#define CP_KEY_NAME		"name"
#define CP_KEY_CP_NS		"cp_ns"
#define CP_KEY_CP_ZERO_NS	"cp_zero_ns"
#define CP_KEY_CP_PCT		"cp_pct"
#define CP_KEY_CP_ZERO_PCT	"cp_zero_pct"
#define CP_KEY_CPU_PCT		"cpu_pct"
#define CP_KEY_SOURCE		"source"

/*
 * "threads_detail", an array of one object per thread: tid (the tracer's
 * thread number, from 0), name (the name the program gave it with
 * pthread_setname_np or prctl; "main" or "" when it kept the process's),
 * parent (its creator's tid, null for the first),
 * len_ns (its path at its last event), useful_ns, wait_ns,
 * unexplained_wait_ns (time blocked outside any traced call, wall clock
 * only), child_wait_ns (time blocked waiting for child processes, wall
 * clock only; counted as useful), outside_wait_ns (time blocked in
 * poll, select, epoll or a channel's read that nothing in the process
 * ended, wall clock only; counted as useful), spin_ns (time between sched_yield calls
 * with no traced call between them: spin-waiting; counted as useful),
 * exited (it ended before the report).
 */
#define CP_KEY_THREADS_DETAIL	"threads_detail"
#define CP_KEY_TID		"tid"
#define CP_KEY_PARENT		"parent"
#define CP_KEY_LEN_NS		"len_ns"
#define CP_KEY_USEFUL_NS	"useful_ns"
#define CP_KEY_UNEXPLAINED_WAIT_NS "unexplained_wait_ns"
#define CP_KEY_CHILD_WAIT_NS	"child_wait_ns"
#define CP_KEY_OUTSIDE_WAIT_NS	"outside_wait_ns"
#define CP_KEY_SPIN_NS		"spin_ns"
#define CP_KEY_EXITED		"exited"

/*
 * "objects", an array of the most waited-on synchronization objects, live
 * or destroyed: id (the trace's object id, from 1), kind ("mutex",
 * "cond", ...), address ("0x..." in the traced process), ops (operations
 * on it), contended (those that waited), wait_ns, cp_gain_ns (path length
 * its edges added), untracked (no record: the object table was full),
 * site (where the program first used it: {pc, function}, or null).
 * objects_total: objects ever seen.  "objects_destroyed", an array of one
 * object per kind: kind, objects (how many were destroyed) and the totals
 * ops, contended, wait_ns and cp_gain_ns of those.
 */
#define CP_KEY_OBJECTS		"objects"
#define CP_KEY_ID		"id"
#define CP_KEY_KIND		"kind"
#define CP_KEY_ADDRESS		"address"
#define CP_KEY_OPS		"ops"
#define CP_KEY_CONTENDED	"contended"
#define CP_KEY_CP_GAIN_NS	"cp_gain_ns"
#define CP_KEY_UNTRACKED	"untracked"
#define CP_KEY_OBJECTS_TOTAL	"objects_total"
#define CP_KEY_OBJECTS_DESTROYED "objects_destroyed"

/*
 * "samples", an array of the global path over time (CPTHREAD_SAMPLE_MS,
 * cpthread_sample()): t_ns (wall ns since the start), length_ns, and
 * "procedures" with name, cp_ns and cp_zero_ns.  "notes": an array of
 * plain sentences for the cases where the figures say little.
 */
#define CP_KEY_T_NS		"t_ns"
#define CP_KEY_NOTES		"notes"

/*
 * Written by `cpt report --format json` only (the offline analysis knows
 * more than the online one):
 * top level: trace (the trace file's path) or graph (a plain PAG's path)
 * with its vertices and edges, events (decoded), procedures_from
 * ("samples", "hooks" or "none");
 * in "critical_path": online_length_ns (what the runtime computed while
 * the program ran), k and paths (the near-critical paths asked for and
 * found);
 * per procedure: slack_ns and mbm_ns with their _pct (of length_ns),
 * calls, cpu_incl_ns / cpu_excl_ns and cp_incl_ns / cp_excl_ns (with and
 * without callees), cp_samples (samples on the path) and thin (too few
 * samples for the figures to mean much);
 * per thread: utilization (useful_ns / its elapsed_ns);
 * per object: held_ns, cp_held_ns (held on the path) and cp_edges (path
 * crossings through it), and site: where the program first used it, an
 * object with pc ("0x...", the code address in the call), function, file
 * and line (null when unknown), or null when the trace has no site for it.
 */
#define CP_KEY_TRACE		"trace"
#define CP_KEY_GRAPH		"graph"
#define CP_KEY_VERTICES		"vertices"
#define CP_KEY_EDGES		"edges"
#define CP_KEY_EVENTS		"events"
#define CP_KEY_PROCEDURES_FROM	"procedures_from"
#define CP_KEY_ONLINE_LENGTH_NS	"online_length_ns"
#define CP_KEY_K		"k"
#define CP_KEY_PATHS		"paths"
#define CP_KEY_SLACK_NS		"slack_ns"
#define CP_KEY_SLACK_PCT	"slack_pct"
#define CP_KEY_MBM_NS		"mbm_ns"
#define CP_KEY_MBM_PCT		"mbm_pct"
#define CP_KEY_CALLS		"calls"
#define CP_KEY_CPU_INCL_NS	"cpu_incl_ns"
#define CP_KEY_CPU_EXCL_NS	"cpu_excl_ns"
#define CP_KEY_CP_INCL_NS	"cp_incl_ns"
#define CP_KEY_CP_EXCL_NS	"cp_excl_ns"
#define CP_KEY_CP_SAMPLES	"cp_samples"
#define CP_KEY_THIN		"thin"
#define CP_KEY_UTILIZATION	"utilization"
#define CP_KEY_HELD_NS		"held_ns"
#define CP_KEY_CP_HELD_NS	"cp_held_ns"
#define CP_KEY_CP_EDGES		"cp_edges"
#define CP_KEY_SITE		"site"
#define CP_KEY_PC		"pc"
#define CP_KEY_FUNCTION		"function"
#define CP_KEY_FILE		"file"
#define CP_KEY_LINE		"line"
#define CP_KEY_CALLERS		"callers"
#define CP_KEY_MODULE		"module"
#define CP_KEY_OFFSET		"offset"

/*
 * Written by `cpt report` in streaming mode only (cp_stream.h), where the
 * top-level mode is "stream": per procedure, tracked (its cp_ns and
 * cp_zero_ns were followed; false: only cpu_ns and calls are known);
 * "stream", an object: tracked_max (how many procedures are followed),
 * records (publish records made), live_records_max (most alive at
 * once, the memory bound), live_threads_max (most threads whose path
 * lanes were held at once), thin_records (records made without the
 * share lanes no merge read), records_again (records passes run again
 * with every record whole: 0 unless a record left thin was read),
 * slack_file_bytes (Slack's scratch file) and slack_walked (the
 * vertices its walk back read).  What this mode cannot give is said in
 * notes.
 */
#define CP_KEY_TRACKED		"tracked"
#define CP_KEY_STREAM		"stream"
#define CP_KEY_TRACKED_MAX	"tracked_max"
#define CP_KEY_RECORDS		"records"
#define CP_KEY_LIVE_RECORDS_MAX	"live_records_max"
#define CP_KEY_LIVE_THREADS_MAX	"live_threads_max"
#define CP_KEY_THIN_RECORDS	"thin_records"
#define CP_KEY_RECORDS_AGAIN	"records_again"
#define CP_KEY_SLACK_FILE_BYTES	"slack_file_bytes"
#define CP_KEY_SLACK_WALKED	"slack_walked"

/*
 * Written by `cpt whatif --format json` (cp_whatif_out.h), times in ns of
 * the trace's clock (a plain PAG: its weights): length_before (the
 * recorded critical path), length_after (the prediction: the simulated
 * one, else the fixed graph's), length_after_fixed (the fixed-graph
 * prediction), length_before_sim (the replay with nothing scaled),
 * simulated, deadlock, reordered (lock grants in another order than
 * recorded), forced, scaled_ns (useful time the scaling touched), cpus,
 * wake, and "samples" (a sampled procedure's samples, per scaling).  In
 * streaming mode (mode "stream", cpt whatif --stream) only the
 * fixed-graph keys, with notes saying why.
 */
#define CP_KEY_LENGTH_BEFORE	"length_before"
#define CP_KEY_LENGTH_AFTER	"length_after"
#define CP_KEY_LENGTH_AFTER_FIXED "length_after_fixed"
#define CP_KEY_LENGTH_BEFORE_SIM "length_before_sim"
#define CP_KEY_SIMULATED	"simulated"
#define CP_KEY_DEADLOCK		"deadlock"
#define CP_KEY_REORDERED	"reordered"
#define CP_KEY_FORCED		"forced"
#define CP_KEY_SCALED_NS	"scaled_ns"
#define CP_KEY_CPUS		"cpus"
#define CP_KEY_WAKE		"wake"

#endif /* CP_REPORT_KEYS_H */
