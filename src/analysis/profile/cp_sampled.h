/*
 * cp_sampled.h - sampled call stacks as a trace's procedure activity.
 *
 * After reading a trace with samples, cp_sampled_apply() symbolizes every
 * sample's stack (cp_symbolize.h) and rewrites each thread's timeline so
 * that the procedure activity the samples imply is written in the trace
 * as calling contexts: at each switch point a CP_TV_STACK vertex names the
 * stack the thread runs in from there on, which cp_tracepag.c turns into
 * the calling-context-tree node instrumentation would have reached, so CP
 * and CPU time, zeroing, Slack, MBM, the views, what-if and the flame
 * graphs work on real call stacks unchanged.  See cp_sampled.c for the
 * model.
 *
 * The trace is changed in place, before anything else reads it; read-only
 * afterwards as before.
 */
#ifndef CP_SAMPLED_H
#define CP_SAMPLED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "cp_trace.h"

/* Where a trace's procedure activity comes from. */
enum cp_procsrc {
	CP_PROCS_AUTO = 0,	/* instrumented when the trace has ENTER,
				 * LEAVE or region events, else sampled */
	CP_PROCS_INSTRUMENTED,	/* ENTER/LEAVE and regions, no samples */
	CP_PROCS_SAMPLED,	/* the samples; ENTER/LEAVE and regions are
				 * dropped */
};

/* "instrumented" / "sampled" -> the value, or -1. */
int cp_procsrc_parse(const char *s);

struct cp_sampled_opts {
	enum cp_procsrc src;
	const char *debug_path;	/* debuginfo roots (colon-separated),
				 * NULL: /usr/lib/debug */
};

/* A source line where samples stopped (the leaf frame's). */
struct cp_hotline {
	const char *func;
	const char *file;	/* NULL: no line information */
	uint32_t line;
	uint64_t samples;	/* samples whose leaf is here */
	uint64_t cpu_ns;	/* CPU time they stand for (their weights) */
};

/*
 * Make @t's samples its procedure activity if @o says so (CP_PROCS_AUTO:
 * when @t has samples and no instrumented procedures).  Returns 1 when it
 * did, 0 when the trace keeps its instrumented procedures (or has none and
 * no samples; with a module map, the symbolizer is still opened, so that
 * ENTER addresses the runtime's SYMBOLS miss get names), -1 with "FILE: reason" in @err: sampled procedures asked
 * for a trace without samples, out of memory.  Reader context, before any
 * other use of @t.
 */
int cp_sampled_apply(struct cp_trace *t, const struct cp_sampled_opts *o,
		     char *err, size_t errlen);

/*
 * Name the site @s (its pc set) where an object was first used: of the
 * call's inline chain, the innermost frame outside the system's headers
 * (std::mutex::lock inlined into the program's function names that
 * function and its line), else the outermost; its callers the same way.
 * Opens @t's symbolizer on
 * its module map (@debug_path as cp_sampled_opts') unless open; the names
 * belong to it.  @s stays unnamed when the trace has no module map.
 * Returns 0, or -1 when the symbolizer cannot start.  Reader context.
 */
int cp_sampled_name_site(struct cp_trace *t, const char *debug_path,
			 struct cp_site *s);

/*
 * Symbolize @t's samples without rewriting its threads (the out-of-core
 * analysis lays them on the timeline itself): the distinct stacks
 * (t->samples->names, stk, stk_off), the hot lines, and each sample's
 * stack id into *@sid ([t->samples->n], malloc'ed, the caller frees).
 * @debug_path as cp_sampled_opts'.  Returns 0, or -1 with "FILE: reason"
 * in @err.  Reader context.
 */
int cp_sampled_symbolize(struct cp_trace *t, const char *debug_path,
			 uint32_t **sid, char *err, size_t errlen);

/*
 * The hottest source lines of a sampled trace, most samples first: fills
 * *@out with at most @max entries owned by @t; returns their number (0
 * when the procedures are not sampled).
 */
uint32_t cp_sampled_hotlines(const struct cp_trace *t, uint32_t max,
			     const struct cp_hotline **out);

/*
 * One warning line per kind of sample that could not be used (thread
 * without events, time running backwards, outside the thread's life,
 * inside a wait: the last two are expected in small numbers and only
 * mentioned when they are more than a tenth) and per module without a
 * file, each "PREFIX: FILE: ..." on @f.  Nothing unless the procedures
 * are sampled.
 */
void cp_sampled_warn(FILE *f, const char *prefix, const struct cp_trace *t);

struct cp_tracepag;

/*
 * The samples that procedure @name's time in @tp rests on: those whose
 * stack holds it (@exclusive: as its innermost function).  UINT64_MAX
 * when @tp's procedures are not sampled or it has no such procedure.
 * Read-only.
 */
uint64_t cp_sampled_count(const struct cp_tracepag *tp, const char *name,
			  bool exclusive);

/* Below this many samples a figure is flagged as too thin to trust. */
#define CP_SAMPLES_THIN 10

#endif /* CP_SAMPLED_H */
