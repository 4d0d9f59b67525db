/*
 * cp_stream_samp.c - the out-of-core pass's sampled procedures
 * (cp_stream.c): cp_sampled.c's model without rewriting the threads.
 *
 * In memory (cp_sampled.c) a thread's used samples are laid on its useful
 * time, waits cut out: sample k at useful time u_k; its stack is current
 * from the midpoint M_k of (u_{k-1}, u_k) (the first's from the thread's
 * start) to the next one's, and a CP_TV_STACK vertex inserted at each
 * switch splits the segment that holds it.  Every figure follows from
 * these points in useful-time coordinates, so the streaming pass needs
 * no vertex of its own:
 *   - the survey places each sample as the thread's vertices go by (the
 *     segment (e1, e2] that holds its clock position x: outside the
 *     thread's life, in a wait, or used at u = useful time at e1 + x -
 *     e1), which needs the samples of each thread in order (cp_samples
 *     indexes them) and nothing ahead;
 *   - after the survey the samples are symbolized (the caller's
 *     cp_sampled_symbolize) and the M_k computed: a stack's CPU time is
 *     the length of its intervals [M_k, M_{k+1}) (the last to the
 *     thread's total useful time), per procedure inclusive (the stack's
 *     distinct procedures) or exclusive (its innermost), and its samples
 *     are counted the same way;
 *   - the records pass, at each useful segment (U, U + dt], switches the
 *     thread's stack (cp_stream_set_stack) at every M_k in [U, U + dt)
 *     where the stack changes (where memory inserts a vertex), each piece
 *     of the segment counted for the stack current over it as the split
 *     segments are (the what-if lane rounds piece by piece), and counts
 *     the samples with u in the segment on a share-like lane per tracked
 *     procedure, which the path carries as it carries CP time: the CP
 *     samples (a sample counts on the path when the segment it fell in
 *     does), and on one more lane all the samples so counted.
 * Memory: three words per sample (the samples are in memory already,
 * a small fraction of the events at any sampling rate).
 */
#include "cp_stream_int.h"

#include <stdio.h>
#include <stdlib.h>

#include "cp_samples.h"

/* The sample's position on the thread's clock (cp_sampled.c's). */
static uint64_t sample_x(const struct sp *p, const struct cp_sample *sm)
{
	return p->ix->t.clock == CP_CLOCK_CPU ? sm->cpu : sm->wall;
}

void cp_stream_smp_place(struct sp *p, uint32_t tid, struct sth *t,
			 const struct cp_tev *v)
{
	struct cp_samples *sm = p->sm;
	uint64_t k1 = sm->thr_off[tid + 1];

	for (; t->sk < k1; t->sk++) {
		struct cp_sample *s = &sm->s[t->sk];
		uint64_t x = sample_x(p, s);

		if (x > v->ts)
			break;
		s->used = false;
		if (!t->any) {
			sm->outside++;
		} else if (cp_tev_waits(v)) {
			sm->in_wait++;
		} else {
			s->used = true;
			sm->used++;
			sm->used_weight += s->weight;
			p->su[t->sk] = t->useful + (x - t->prev_ts);
		}
	}
}

void cp_stream_smp_end(struct sp *p, uint32_t tid)
{
	struct cp_samples *sm = p->sm;
	struct sth *t = &p->th[tid];

	for (; t->sk < sm->thr_off[tid + 1]; t->sk++) {
		sm->s[t->sk].used = false;
		sm->outside++;
	}
}

/*
 * Intern into @id[name] the names of the stacks of used samples (NONE for
 * the others): the procedures are those, as the calling contexts in
 * memory are those a switch reaches.  0, or -1 (memory).
 */
static int used_names(struct sp *p, uint32_t *id)
{
	const struct cp_samples *sm = p->sm;

	for (uint32_t i = 0; i < sm->nnames; i++)
		id[i] = NONE;
	for (uint64_t k = 0; k < sm->n; k++) {
		uint32_t st = p->sid[k];

		for (uint64_t j = sm->stk_off[st]; sm->s[k].used &&
		     j < sm->stk_off[st + 1]; j++) {
			uint32_t nm = sm->stk[j];

			if (id[nm] == NONE &&
			    (id[nm] = cp_stream_intern(p, sm->names[nm])) ==
			    NONE)
				return -1;
		}
	}
	return 0;
}

/* The procedures of every stack of used samples as stream procedure ids:
 * all of them (sfull), the distinct ones (inclusive) and the innermost
 * (exclusive).  0, or -1 (memory). */
static int stack_procs(struct sp *p)
{
	const struct cp_samples *sm = p->sm;
	uint32_t *id = malloc((sm->nnames ? sm->nnames : 1) * sizeof(*id));
	uint64_t k = 0;

	p->sfull = malloc((sm->stk_off[sm->nstacks] + 1) * sizeof(*p->sfull));
	p->sdoff = malloc(((size_t)sm->nstacks + 1) * sizeof(*p->sdoff));
	p->sdist = malloc((sm->stk_off[sm->nstacks] + 1) * sizeof(*p->sdist));
	p->sinner = malloc((sm->nstacks ? sm->nstacks : 1) *
			   sizeof(*p->sinner));
	if (!id || !p->sfull || !p->sdoff || !p->sdist || !p->sinner ||
	    used_names(p, id)) {
		free(id);
		return -1;
	}
	for (uint32_t i = 0; i < sm->nstacks; i++) {
		uint64_t a = sm->stk_off[i], b = sm->stk_off[i + 1];

		p->sdoff[i] = (uint32_t)k;
		p->sinner[i] = a < b ? id[sm->stk[b - 1]] : NONE;
		for (uint64_t j = a; j < b; j++) {
			uint32_t q = id[sm->stk[j]], d;

			p->sfull[j] = q;
			for (d = p->sdoff[i]; d < k && p->sdist[d] != q; d++)
				;
			if (d == k && q != NONE)
				p->sdist[k++] = q;
		}
	}
	p->sdoff[sm->nstacks] = (uint32_t)k;
	free(id);
	return 0;
}

/* Add @w to the samples (@samples: those of the mode) or CPU time
 * (both: inclusive and exclusive; the views' in the mode, thread @tid's)
 * of the procedures of stack @st. */
static void per_proc(struct sp *p, uint32_t tid, uint32_t st, uint64_t w,
		     bool samples)
{
	struct cp_stream *s = p->s;

	if (p->views && !samples) {
		if (p->excl || p->sdoff[st] == p->sdoff[st + 1])
			cp_stream_view_cpu(p, tid, p->excl ? p->sinner[st]
							   : NONE, w);
		else
			for (uint32_t d = p->sdoff[st]; d < p->sdoff[st + 1];
			     d++)
				cp_stream_view_cpu(p, tid, p->sdist[d], w);
	}
	if (p->sinner[st] != NONE) {
		if (!samples)
			s->procs[p->sinner[st]].cpu_excl_ns += w;
		else if (p->excl)
			s->procs[p->sinner[st]].samples += w;
	}
	for (uint32_t d = p->sdoff[st]; d < p->sdoff[st + 1]; d++)
		if (!samples)
			s->procs[p->sdist[d]].cpu_incl_ns += w;
		else if (!p->excl)
			s->procs[p->sdist[d]].samples += w;
}

/* Thread @tid's switch points (p->sM), CPU time and samples per
 * procedure. */
static void thread_stacks(struct sp *p, uint32_t tid)
{
	const struct cp_samples *sm = p->sm;
	uint64_t prev = UINT64_MAX;

	for (uint64_t k = sm->thr_off[tid]; k < sm->thr_off[tid + 1]; k++) {
		uint64_t up, uk;

		if (!sm->s[k].used)
			continue;
		p->s->threads[tid].samples++;
		per_proc(p, tid, p->sid[k], 1, true);
		if (prev == UINT64_MAX) {
			p->sM[k] = 0;
		} else {
			up = p->su[prev];
			uk = p->su[k];
			p->sM[k] = up / 2 + uk / 2 + (up % 2 + uk % 2) / 2;
			per_proc(p, tid, p->sid[prev],
				 p->sM[k] - p->sM[prev], false);
		}
		prev = k;
	}
	if (prev != UINT64_MAX)
		per_proc(p, tid, p->sid[prev],
			 p->s->threads[tid].useful_ns - p->sM[prev], false);
	else if (p->views)	/* no sample: all outside procedures */
		cp_stream_view_cpu(p, tid, NONE, p->s->threads[tid].useful_ns);
}

bool cp_stream_smp_early(const struct sp *p, const struct cp_stream_opts *o,
			 struct cp_stream_sym *y)
{
	*y = (struct cp_stream_sym){ .o = o, .t = &p->ix->t };
	return o->src != CP_STREAM_SRC_INSTRUMENTED && o->symbolize &&
	       p->sm && p->sm->n;
}

void cp_stream_smp_sym_run(void *arg)
{
	struct cp_stream_sym *y = arg;

	y->ret = y->o->symbolize(y->o->symbolize_ctx, y->t, &y->sid, y->err,
				 sizeof(y->err));
	y->ran = true;
}

int cp_stream_smp_setup(struct sp *p, const struct cp_stream_opts *o,
			struct cp_stream_sym *y, char *err, size_t errlen)
{
	const char *path = p->ix->t.path;
	bool ran = y && y->ran;

	if (ran) {	/* its stacks are taken or dropped here */
		p->sid = y->sid;
		y->sid = NULL;
		y->ran = false;
	}
	if (o->src == CP_STREAM_SRC_INSTRUMENTED || !o->symbolize ||
	    (o->src == CP_STREAM_SRC_AUTO &&
	     (p->saw_procs || !p->sm || !p->sm->n))) {
		free(p->sid);
		p->sid = NULL;
		return 0;
	}
	if (!p->sm || !p->sm->n) {
		snprintf(err, errlen, "%s: no samples in the trace to take "
			 "the procedures from", path);
		return -1;
	}
	if (ran && y->ret) {
		snprintf(err, errlen, "%s", y->err);
		return -1;
	}
	if (!ran &&
	    o->symbolize(o->symbolize_ctx, &p->ix->t, &p->sid, err, errlen))
		return -1;
	p->sM = calloc(p->sm->n, sizeof(*p->sM));
	if (!p->sM || stack_procs(p)) {
		snprintf(err, errlen, "%s: out of memory in the streaming "
			 "analysis", path);
		return -1;
	}
	/* the views' CPU times: the samples', not the survey's (which
	 * dropped the procedure events) */
	cp_pairs_free(&p->s->v_tproc);
	for (uint32_t tid = 0; tid < p->nt; tid++)
		thread_stacks(p, tid);
	if (p->nomem) {
		snprintf(err, errlen, "%s: out of memory in the streaming "
			 "analysis", path);
		return -1;
	}
	p->smp = true;
	p->sm->active = true;
	p->s->sampled = true;
	p->s->samples = p->sm->used;
	return 0;
}

/* cp_stream_smp_segment(); @sl: p->sl is set, a constant in each of the
 * two copies (as cp_stream.c's step()). */
static inline __attribute__((always_inline)) int
segment_as(struct sp *p, uint32_t tid, struct sth *t, uint64_t dt,
	   const bool sl)
{
	const struct cp_samples *sm = p->sm;
	uint64_t k1 = sm->thr_off[tid + 1], pos = t->useful, end = pos + dt;

	for (; t->sk < k1; t->sk++) {
		uint32_t st = p->sid[t->sk];

		if (!sm->s[t->sk].used)
			continue;
		if (p->sM[t->sk] >= end)
			break;
		if (st == t->stack)	/* no switch: the segment stays whole */
			continue;
		t->stack = st;
		t->pending += p->sM[t->sk] - pos;
		if (p->nlane)
			cp_stream_lane_add(p, t, p->sM[t->sk] - pos);
		if (sl)
			cp_stream_sl_piece(p, t, p->sM[t->sk] - pos);
		if (p->tl_rows)
			cp_stream_tl_piece(p, tid, t, p->sM[t->sk] - pos);
		pos = p->sM[t->sk];
		if (cp_stream_set_stack(p, t, p->sfull + sm->stk_off[st],
					(uint32_t)(sm->stk_off[st + 1] -
						   sm->stk_off[st])))
			return -1;
	}
	t->pending += end - pos;
	if (p->nlane)
		cp_stream_lane_add(p, t, end - pos);
	if (sl)
		cp_stream_sl_piece(p, t, end - pos);
	if (p->tl_rows)
		cp_stream_tl_piece(p, tid, t, end - pos);
	for (; t->sc < k1; t->sc++) {
		uint32_t st = p->sid[t->sc];

		if (!sm->s[t->sc].used)
			continue;
		if (p->su[t->sc] > end)
			break;
		t->vec[cp_stream_cps(p, p->ntr)]++;	/* all of them */
		if (p->excl && p->sinner[st] != NONE &&
		    p->trk[p->sinner[st]] != NONE)
			t->vec[cp_stream_cps(p, p->trk[p->sinner[st]])]++;
		for (uint32_t d = p->sdoff[st]; !p->excl &&
		     d < p->sdoff[st + 1]; d++)
			if (p->trk[p->sdist[d]] != NONE)
				t->vec[cp_stream_cps(p, p->trk[p->sdist[d]])]++;
	}
	return 0;
}

int cp_stream_smp_segment(struct sp *p, uint32_t tid, struct sth *t,
			  uint64_t dt)
{
	return p->sl ? segment_as(p, tid, t, dt, true) :
		       segment_as(p, tid, t, dt, false);
}

void cp_stream_smp_results(struct sp *p, const uint64_t *vec)
{
	struct cp_stream *s = p->s;

	if (p->smp && vec)
		s->cp_samples = vec[cp_stream_cps(p, p->ntr)];
	for (uint32_t i = 0; p->smp && vec && i < s->nprocs; i++)
		if (p->trk[i] != NONE)
			s->procs[i].cp_samples = vec[cp_stream_cps(p,
								  p->trk[i])];
}
