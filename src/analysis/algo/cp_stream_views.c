/*
 * cp_stream_views.c - the breakdowns of the views (cp_views.h) from the
 * out-of-core pass (cp_stream.h), without their critical-path columns:
 * what the graph's walk sums per edge, summed per vertex as the pass
 * meets them.
 *
 * CPU time per (thread, procedure) and waits per (thread, object) are the
 * survey's, taken where it totals the procedures' and objects' own
 * figures.  Who released whom needs the publisher of each record a
 * CONSUME merges: the last records pass keeps beside each record the
 * thread that made it and its wall clock then; a record folding several
 * publishes (an rwlock's read unlocks, a barrier's arrivals) keeps the
 * last of them, which is the releaser cp_views.c takes for a hub.
 */
#include "cp_stream_int.h"


#include "cp_grow.h"

void cp_stream_view_cpu(struct sp *p, uint32_t tid, uint32_t proc,
			uint64_t w)
{
	uint64_t *v;

	if (!w)
		return;
	v = cp_pairs_at(&p->s->v_tproc, tid, proc);
	if (!v)
		p->nomem = true;
	else
		v[0] += w;
}

void cp_stream_view_wait(struct sp *p, uint32_t tid, uint32_t obj,
			 uint64_t w)
{
	uint64_t *v = cp_pairs_at(&p->s->v_waits, tid, obj);

	if (!v) {
		p->nomem = true;
		return;
	}
	v[0]++;
	v[1] += w;
}

void cp_stream_view_dep(struct sp *p, uint32_t rel, uint32_t tid)
{
	uint64_t *v;

	if (rel == NONE || rel == tid)
		return;
	v = cp_pairs_at(&p->s->v_deps, rel, tid);
	if (!v) {
		p->nomem = true;
		return;
	}
	v[0]++;
	p->s->v_ndeps++;
}

void cp_stream_view_rec(struct sp *p, uint32_t r, struct cp_kp_end pub)
{
	if (cp_grow32((void **)&p->rpub, sizeof(*p->rpub), &p->cap_rpub,
		      (uint64_t)r + 1)) {
		p->nomem = true;
		return;
	}
	p->rpub[r] = pub;
}

void cp_stream_view_fold(struct sp *p, uint32_t a, struct cp_kp_end pub)
{
	/* ties: the earlier publish, as the graph's hub lists them */
	if (a < p->cap_rpub && pub.tid != NONE && pub.wall > p->rpub[a].wall)
		p->rpub[a] = pub;
}

void cp_stream_view_take(struct sp *p, uint32_t r)
{
	struct cp_kp_end pub = cp_stream_view_pub(p, r);

	if (pub.tid != NONE && (p->vpub.tid == NONE ||
				pub.wall > p->vpub.wall))
		p->vpub = pub;
}
