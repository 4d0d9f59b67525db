/*
 * cp_wall.h - the wall-clock time of a trace vertex: its recorded wall
 * time when the trace has one (a cpu-clock trace), else its timestamp
 * (the wall clock was the trace's clock).  The one place this choice is
 * made; it belongs beside struct cp_trace_thread (cp_trace.h).
 *
 * Concurrency: reads the trace only.
 */
#ifndef CP_WALL_H
#define CP_WALL_H

#include <stdint.h>

#include "cp_trace.h"

/* Wall-clock ns of vertex @vi of thread @th (vi < th->nv). */
static inline uint64_t cp_thread_wall(const struct cp_trace_thread *th,
				      uint32_t vi)
{
	return th->wall ? th->wall[vi] : th->v[vi].ts;
}

/* Wall-clock ns of vertex @vi of thread @tid of @t. */
static inline uint64_t cp_trace_wall(const struct cp_trace *t, uint32_t tid,
				     uint32_t vi)
{
	return cp_thread_wall(&t->threads[tid], vi);
}

#endif /* CP_WALL_H */
