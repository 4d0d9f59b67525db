/*
 * cp_stream_timeline.c - the HTML report's timeline (cp_timeline.h) from
 * the out-of-core pass: what the graph's walk of each thread's segments
 * gives, drawn as the last records pass meets the segments.
 *
 * A segment into a vertex with the wait flag is waiting; any other is
 * the innermost procedure's on the thread's stack (outside procedures
 * when the stack is empty), cut, for a sampled trace, where the stack
 * switches: cp_stream_smp_segment() hands each piece over before the
 * switch after it, placed on the wall clock as cp_sampled.c places the
 * switch vertices in memory.  The critical path is drawn by Slack's walk
 * back (cp_stream_slack.c), which passes C's useful segments last first.
 */
#include "cp_stream_int.h"

int cp_stream_tl_start(struct sp *p, uint32_t width)
{
	uint64_t t0 = UINT64_MAX, t1 = 0;

	for (uint32_t tid = 0; tid < p->nt; tid++) {
		const struct sth *t = &p->th[tid];

		if (!t->any)
			continue;
		if (t->first_wall < t0)
			t0 = t->first_wall;
		if (t->last_wall > t1)
			t1 = t->last_wall;
	}
	if (t0 > t1)
		t0 = t1 = 0;
	if (cp_timeline_init(&p->s->tl, p->nt, t0, t1, width))
		return -1;
	p->tl = &p->s->tl;
	for (uint32_t tid = 0; tid < p->nt; tid++)
		if (p->th[tid].any) {
			cp_timeline_vertex(p->tl, tid, p->th[tid].first_wall);
			cp_timeline_vertex(p->tl, tid, p->th[tid].last_wall);
		}
	return 0;
}

/* The key of @t's time now: its innermost procedure. */
static uint32_t innermost(const struct sth *t)
{
	const struct sth_stk *k = t->k;

	return k->depth ? k->fr[k->depth - 1].proc : CP_TL_NOPROC;
}

void cp_stream_tl_seg(struct sp *p, uint32_t tid, const struct sth *t,
		      bool waited, uint64_t dt)
{
	if (waited) {
		cp_timeline_seg(p->tl, tid, t->last_wall, t->key, CP_TL_WAIT);
		return;
	}
	p->tl_wa = t->last_wall;
	p->tl_wb = t->key;
	p->tl_wt = dt;
	p->tl_o = 0;
}

void cp_stream_tl_piece(struct sp *p, uint32_t tid, const struct sth *t,
			uint64_t dt)
{
	uint64_t a, b;

	if (!p->tl_wt) {	/* no useful time, some wall time */
		a = p->tl_wa;
		b = p->tl_wb;
	} else {
		a = cp_stream_wall_in(p->tl_wa, p->tl_wb, p->tl_wt, p->tl_o);
		b = cp_stream_wall_in(p->tl_wa, p->tl_wb, p->tl_wt,
				      p->tl_o + dt);
		p->tl_o += dt;
	}
	cp_timeline_seg(p->tl, tid, a, b, innermost(t));
}
