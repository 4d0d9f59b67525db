/*
 * cp_stream_prof.c - a profile without the graph from the streaming
 * analysis (cp_stream_prof.h).
 *
 * The followed procedures have every figure the in-memory profile gives
 * in the mode asked for, and their CP time exclusive of callees beside
 * it (the headline's test of who holds its CP time itself).  The others
 * have their CPU time and calls only; a procedure's CP time is part of
 * its CPU time, so theirs is at most the largest CPU time among them.
 */
#include "cp_stream_prof.h"

#include "cp_compare.h"

#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"

static void proc_of(struct cp_proc_prof *pp, const struct cp_stream_proc *sp,
		    uint32_t id)
{
	*pp = (struct cp_proc_prof){
		.proc = id, .name = sp->name, .calls = sp->calls,
		.cpu_ns = sp->cpu_ns, .cpu_incl_ns = sp->cpu_incl_ns,
		.cpu_excl_ns = sp->cpu_excl_ns, .samples = sp->samples,
		.cp_unknown = !sp->tracked, .busy = sp->busy,
	};
	if (!sp->tracked)
		return;
	pp->cp_ns = sp->cp_ns;
	pp->cp_incl_ns = sp->cp_incl_ns;
	pp->cp_excl_ns = sp->cp_excl_ns;
	pp->cp_samples = sp->cp_samples;
	pp->zero_ns = sp->zero_ns;
	pp->slack_ns = sp->slack_ns;
	pp->mbm_ns = sp->mbm_ns;
	/* as in memory: the procedures given Slack (cp_stream_opts.top),
	 * none of one with no CP time (all 0) */
	pp->computed = sp->cp_ns > 0 && sp->top;
}

int cp_stream_prof_objs(const struct cp_stream *s, struct cp_obj_prof **objs)
{
	*objs = cp_big_malloc((s->nobjs ? s->nobjs : 1) * sizeof(**objs));
	if (!*objs)
		return -1;
	for (uint32_t i = 0; i < s->nobjs; i++) {
		const struct cp_stream_obj *o = &s->objs[i];

		(*objs)[i] = (struct cp_obj_prof){
			.obj = o->obj, .kind = o->kind,
			.untracked = o->untracked, .addr = o->addr,
			.ops = o->ops, .waits = o->waits,
			.wait_ns = o->wait_ns, .held_ns = o->held_ns,
			.cp_held_ns = o->cp_held_ns, .cp_cross = o->cp_cross,
			.gain_ns = o->gain_ns, .site = o->site,
			.cp_unknown = !o->tracked,
		};
	}
	return 0;
}

/* The threads of @s as a profile's, by id, into *@threads, their calls
 * added up into *@calls.  0, or -1 (out of memory). */
static int threads_of(const struct cp_stream *s,
		      struct cp_thread_prof **threads, uint64_t *calls)
{
	*threads = cp_big_calloc(s->nthreads_all ? s->nthreads_all : 1,
				 sizeof(**threads));
	if (!*threads)
		return -1;
	*calls = 0;
	for (uint32_t i = 0; i < s->nthreads_all; i++) {
		const struct cp_stream_thread *st = &s->threads[i];

		(*threads)[i] = (struct cp_thread_prof){
			.tid = i, .name = st->name,
			.elapsed_ns = st->elapsed_ns,
			.useful_ns = st->useful_ns, .wait_ns = st->wait_ns,
			.cp_ns = st->tracked ? st->cp_ns : 0,
			.len_ns = st->len_ns, .calls = st->calls,
			.samples = st->samples,
			.nv = st->nv > UINT32_MAX ? UINT32_MAX :
			      (uint32_t)st->nv,
			.cp_unknown = !st->tracked,
		};
		*calls += st->calls;
	}
	return 0;
}

/* cp_stream_prof_make(), the threads' and objects' rows only when @rows
 * (the headline reads neither: a thread per task makes them large). */
static int prof_make(struct cp_profile *p, const struct cp_stream *s,
		     const struct cp_trace *t, bool rows)
{
	bool any_slack = false;

	memset(p, 0, sizeof(*p));
	p->trace = t;
	p->procs = calloc(s->nprocs ? s->nprocs : 1, sizeof(*p->procs));
	if (!p->procs ||
	    (rows && (threads_of(s, &p->threads, &p->calls) ||
		      cp_stream_prof_objs(s, &p->objs)))) {
		cp_stream_prof_free(p);
		return -1;
	}
	p->nthreads_all = rows ? s->nthreads_all : 0;
	p->nobjs = rows ? s->nobjs : 0;
	p->nprocs = s->nprocs;
	for (uint32_t i = 0; i < s->nprocs; i++) {
		const struct cp_stream_proc *sp = &s->procs[i];

		proc_of(&p->procs[i], sp, i);
		any_slack |= sp->has_slack;
		if (!sp->tracked && sp->cpu_ns > p->cp_bound)
			p->cp_bound = sp->cpu_ns;
	}
	p->slack_missing = !any_slack;
	p->exclusive = s->exclusive;
	p->k = s->paths_asked;
	p->npaths = s->mbm_paths;
	p->cp_len = s->cp_len;
	p->online_len = s->online_len;
	p->elapsed_ns = s->elapsed_ns;
	p->useful_ns = s->useful_ns;
	p->wait_ns = s->wait_ns;
	p->parallelism = s->elapsed_ns ?
		(double)s->useful_ns / (double)s->elapsed_ns : 0;
	p->max_parallelism = s->cp_len ?
		(double)s->useful_ns / (double)s->cp_len : 0;
	p->nthreads = s->nthreads;
	p->sampled = s->sampled;
	p->samples = s->samples;
	p->cp_samples = s->cp_samples;
	return 0;
}

int cp_stream_prof_make(struct cp_profile *p, const struct cp_stream *s,
			const struct cp_trace *t)
{
	return prof_make(p, s, t, true);
}

void cp_stream_prof_free(struct cp_profile *p)
{
	free(p->procs);
	free(p->threads);
	free(p->objs);
	memset(p, 0, sizeof(*p));
}

uint32_t cp_stream_prof_headline(void *gprof, const struct cp_stream *s,
				 bool *busy)
{
	struct cp_profile p;
	uint32_t r = UINT32_MAX;

	*busy = false;
	if (prof_make(&p, s, NULL, false) == 0)
		*busy = cp_compare_headline_of(&p, gprof, &r) ==
			CP_CMP_UNDERRATED && r != UINT32_MAX;
	cp_stream_prof_free(&p);
	return r;
}
