/*
 * cp_stream_prof.h - the streaming analysis's results (cp_stream.h) as a
 * profile without the graph (cp_profile.h), so that the streamed report
 * sets the CPU profile beside the critical-path profile as the in-memory
 * one does (cp_compare.h: the ranks, the marks, the headline).
 *
 * The totals, the procedures' figures (procs[i] from the stream's
 * procs[i], proc = i), the threads' and the objects': those not followed
 * have cp_unknown, and cp_bound is the most CP time any procedure not
 * followed can have.  tp and cpm are NULL.
 */
#ifndef CP_STREAM_PROF_H
#define CP_STREAM_PROF_H

#include "cp_profile.h"
#include "cp_stream.h"

/* @s (which must outlive @p: the names are its), the analysis of trace
 * @t (may be NULL; cp_profile.trace), as @p.  0, or -1 (out of memory).
 * Free with cp_stream_prof_free(). */
int cp_stream_prof_make(struct cp_profile *p, const struct cp_stream *s,
			const struct cp_trace *t);
void cp_stream_prof_free(struct cp_profile *p);

/* The objects of @s as a profile's, by id, into *@objs (free() it).
 * 0, or -1 (out of memory). */
int cp_stream_prof_objs(const struct cp_stream *s, struct cp_obj_prof **objs);

/*
 * cp_stream_opts.headline, @gprof the struct cp_gprof the report compares
 * with, or NULL: the procedure the headline will speak of (what it reads
 * is known before Slack is; cp_compare_headline_proc's, in memory), which
 * gets Slack beside the top ones; UINT32_MAX for none (or out of
 * memory).  *@busy: the headline says the CPU profile underrates it, so
 * Slack's walk measures the other threads' busy share over its
 * critical-path segments.
 */
uint32_t cp_stream_prof_headline(void *gprof, const struct cp_stream *s,
				 bool *busy);

#endif /* CP_STREAM_PROF_H */
