/*
 * cp_profile_timeline.c - the timeline of the graph (cp_profile_timeline.h).
 */
#include "cp_profile_timeline.h"

#include "cp_wall.h"

int cp_profile_timeline(struct cp_timeline *tl, const struct cp_profile *p,
			uint32_t width)
{
	const struct cp_tracepag *tp = p->tp;
	const struct cp_trace *t = tp->t;
	const struct cp_cpm *cpm = p->cpm;
	uint64_t t0 = UINT64_MAX, t1 = 0;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		uint32_t nv = t->threads[tid].nv;

		if (!nv)
			continue;
		if (cp_trace_wall(t, tid, 0) < t0)
			t0 = cp_trace_wall(t, tid, 0);
		if (cp_trace_wall(t, tid, nv - 1) > t1)
			t1 = cp_trace_wall(t, tid, nv - 1);
	}
	if (t0 > t1)
		t0 = t1 = 0;
	if (cp_timeline_init(tl, t->nthreads, t0, t1, width))
		return -1;
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		uint32_t nv = t->threads[tid].nv;

		if (!nv)
			continue;
		cp_timeline_vertex(tl, tid, cp_trace_wall(t, tid, 0));
		cp_timeline_vertex(tl, tid, cp_trace_wall(t, tid, nv - 1));
		for (uint32_t vi = 1; vi < nv; vi++) {
			uint32_t e = tp->segbase[tid] + vi - 1;
			uint32_t pr = cp_tracepag_proc(tp, e);

			cp_timeline_seg(tl, tid, cp_trace_wall(t, tid, vi - 1),
					cp_trace_wall(t, tid, vi),
					tp->e_kind[e] == CP_TE_WAIT ?
					CP_TL_WAIT : pr == CP_PAG_NONE ?
					CP_TL_NOPROC : pr);
		}
	}
	for (uint32_t i = cpm->npath; i-- > 0;) {
		uint32_t e = cpm->path[i], tid, vi;

		if (tp->e_kind[e] != CP_TE_USEFUL || !tp->g.w[e] ||
		    !cp_tracepag_vertex(tp, tp->g.head[e], &tid, &vi) || !vi)
			continue;
		cp_timeline_cp(tl, tid, cp_trace_wall(t, tid, vi - 1),
			       cp_trace_wall(t, tid, vi));
	}
	tl->has_cp = true;
	if (tl->nomem) {
		cp_timeline_free(tl);
		return -1;
	}
	return 0;
}
