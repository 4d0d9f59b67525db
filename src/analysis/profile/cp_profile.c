/*
 * cp_profile.c - critical-path profile of a trace PAG.
 *
 * One CPM pass (cp_cpm.c, or the caller's) gives the critical path, edge
 * by edge.  CPU and CP time are summed per calling-context node in one
 * sweep over the edges, then folded into procedures: exclusively by each
 * node's own procedure, inclusively by every distinct procedure on the
 * node's path from the root (a recursive procedure counts once), so the
 * per-edge cost does not depend on stack depth.
 *
 * Zeroing, Slack and MBM take edge groups (struct cp_groups) as classes,
 * the edges' calling-context nodes (cp_tracepag.e_cct): a node's groups
 * are its own procedure (exclusive) or the distinct procedures on its path
 * from the root (inclusive), limited to procedures that have CP time and
 * are among the @top asked for: a procedure without CP time has
 * zeroing, Slack and MBM 0 without computing them (each is at most the CP
 * time: the critical path itself keeps its length minus the procedure's
 * share).  Zeroing and Slack run block by block between the critical
 * path's cut vertices (cp_cuts.c, found once for both), side by side on
 * the two cores: per block, a longest-path pass for all procedures with
 * CP time there (cp_zero.c) and a walk with a heap per such procedure
 * (cp_slack.c); MBM costs the k-path
 * search once (cp_kpaths.c, [Alexander94, §III.D]) plus the paths' lengths.
 *
 * Per object: waits and their duration come from the wait edges; time held
 * (locks only) from a walk of each thread's acquire/release events; CP
 * crossings are the dependency edges of the critical path.
 */
#include "cp_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_bits.h"
#include "cp_cuts.h"
#include "cp_grow.h"
#include "cp_kpaths.h"
#include "cp_mbm.h"
#include "cp_par.h"
#include "cp_samples.h"
#include "cp_slack.h"
#include "cp_wall.h"
#include "cp_zero.h"

static void progress(const struct cp_profile_opts *o, const char *phase,
		     double f)
{
	if (o && o->progress)
		o->progress(o->progress_ctx, phase, f);
}

static int cmp_proc(const void *a, const void *b)
{
	const struct cp_proc_prof *x = a, *y = b;

	if (x->cp_ns != y->cp_ns)
		return x->cp_ns > y->cp_ns ? -1 : 1;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

int cp_profile_obj_cmp(const struct cp_obj_prof *a,
		       const struct cp_obj_prof *b)
{
	uint64_t ka = a->cp_held_ns + a->gain_ns,
		 kb = b->cp_held_ns + b->gain_ns;

	if (ka != kb)
		return ka > kb ? -1 : 1;
	if (a->cp_cross != b->cp_cross)
		return a->cp_cross > b->cp_cross ? -1 : 1;
	if (a->wait_ns != b->wait_ns)
		return a->wait_ns > b->wait_ns ? -1 : 1;
	return a->obj < b->obj ? -1 : a->obj > b->obj;
}

/* Held time per lock: walk each thread's acquires and releases. */
static int object_holds(struct cp_profile *p, const uint64_t *oncp,
			uint32_t *objslot)
{
	const struct cp_tracepag *tp = p->tp;
	const struct cp_trace *t = tp->t;
	uint32_t *held = NULL, nheld, cap = 0;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		const struct cp_trace_thread *th = &t->threads[tid];

		nheld = 0;
		for (uint32_t i = 0; i < th->nv; i++) {
			const struct cp_tvert *v = &th->v[i];
			unsigned k = cp_tvert_kind(v);

			if (i > 0 && nheld) {
				uint32_t e = tp->segbase[tid] + i - 1;
				uint64_t w = tp->g.w[e];

				for (uint32_t h = 0; h < nheld; h++) {
					struct cp_obj_prof *op =
						&p->objs[objslot[held[h]]];

					op->held_ns += w;
					if (cp_bit_get(oncp, e))
						op->cp_held_ns += w;
				}
			}
			/* an untracked lock's releases are not recorded */
			if (!v->obj || !cp_profile_is_lock(t->objs[v->obj].kind) ||
			    t->objs[v->obj].untracked)
				continue;
			if (k == CP_EV_CONSUME) {
				uint32_t h;

				for (h = 0; h < nheld && held[h] != v->obj; h++)
					;
				if (h < nheld)
					continue;	/* recursive mutex */
				if (cp_grow32((void **)&held, sizeof(*held),
					      &cap, (uint64_t)nheld + 1)) {
					free(held);
					return -1;
				}
				held[nheld++] = v->obj;
			} else if (k == CP_EV_PUBLISH) {
				for (uint32_t h = 0; h < nheld; h++)
					if (held[h] == v->obj) {
						held[h] = held[--nheld];
						break;
					}
			}
		}
	}
	free(held);
	return 0;
}

static int objects(struct cp_profile *p, const uint64_t *oncp)
{
	const struct cp_tracepag *tp = p->tp;
	const struct cp_trace *t = tp->t;
	uint32_t *slot = calloc(t->nobjs ? t->nobjs : 1, sizeof(*slot));
	uint64_t *ops = calloc(t->nobjs ? t->nobjs : 1, sizeof(*ops));
	int ret = -1;

	if (!slot || !ops)
		goto out;
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		const struct cp_trace_thread *th = &t->threads[tid];

		for (uint32_t i = 0; i < th->nv; i++) {
			unsigned k = cp_tvert_kind(&th->v[i]);
			uint32_t o = th->v[i].obj;

			if (o)
				ops[o] += cp_obj_counts_op(t->objs[o].kind, k);
		}
	}
	p->nobjs = 0;
	for (uint32_t o = 1; o < t->nobjs; o++)
		if (t->objs[o].kind)
			p->nobjs++;
	p->objs = cp_big_calloc(p->nobjs ? p->nobjs : 1, sizeof(*p->objs));
	if (!p->objs)
		goto out;
	p->nobjs = 0;
	for (uint32_t o = 1; o < t->nobjs; o++) {
		struct cp_obj_prof *op;

		if (!t->objs[o].kind)
			continue;
		slot[o] = p->nobjs;
		op = &p->objs[p->nobjs++];
		op->obj = o;
		op->kind = t->objs[o].kind;
		op->untracked = t->objs[o].untracked;
		op->addr = t->objs[o].addr;
		op->site = t->objs[o].site;
		op->ops = ops[o];
	}
	for (uint32_t e = 0; e < tp->g.ne; e++) {
		uint32_t o = cp_tracepag_obj(tp, e);

		if (!o || !t->objs[o].kind)
			continue;
		if (tp->e_kind[e] == CP_TE_WAIT) {
			p->objs[slot[o]].waits++;
			p->objs[slot[o]].wait_ns += cp_tracepag_wait(tp, e);
		} else if (tp->e_kind[e] == CP_TE_DEP) {
			uint32_t h = tp->g.head[e], tid = cp_tracepag_thread(tp, e);
			uint32_t vi = h - tp->vbase[tid];
			uint64_t own = 0;
			uint64_t dep = p->cpm->et[cp_pag_tail(&tp->g, e)];

			if (cp_bit_get(oncp, e))
				p->objs[slot[o]].cp_cross++;
			if (vi > 0) {
				uint32_t s = tp->segbase[tid] + vi - 1;

				own = p->cpm->et[cp_pag_tail(&tp->g, s)] +
				      tp->g.w[s];
			}
			if (dep > own)
				p->objs[slot[o]].gain_ns += dep - own;
		}
	}
	ret = object_holds(p, oncp, slot);
out:
	free(slot);
	free(ops);
	return ret;
}

static void threads(struct cp_profile *p, const uint64_t *oncp)
{
	const struct cp_tracepag *tp = p->tp;
	const struct cp_trace *t = tp->t;
	uint64_t first = UINT64_MAX, last = 0;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		const struct cp_trace_thread *th = &t->threads[tid];
		struct cp_thread_prof *pt = &p->threads[tid];
		uint64_t w0, w1;

		pt->tid = tid;
		pt->name = th->name;
		pt->nv = th->nv;
		if (!th->nv)
			continue;
		p->nthreads++;
		w0 = cp_thread_wall(th, 0);
		w1 = cp_thread_wall(th, th->nv - 1);
		pt->elapsed_ns = w1 - w0;
		if (w0 < first)
			first = w0;
		if (w1 > last)
			last = w1;
		pt->len_ns = p->cpm->et[tp->vbase[tid] + th->nv - 1];
		for (uint32_t i = 1; i < th->nv; i++) {
			uint32_t e = tp->segbase[tid] + i - 1;

			/* the wait as cp_tracepag_wait gives it, from the
			 * thread's own vertices (no search for the thread) */
			if (tp->e_kind[e] == CP_TE_WAIT) {
				pt->wait_ns += th->v[i].ts - th->v[i - 1].ts;
			} else {
				pt->useful_ns += tp->g.w[e];
				if (cp_bit_get(oncp, e))
					pt->cp_ns += tp->g.w[e];
			}
		}
	}
	p->elapsed_ns = last > first ? last - first : 0;
}

/*
 * Sampled procedures: the samples per calling-context node (@nsm), and
 * those that fell in a critical segment (@ncpsm).  A sample's node is the
 * one current right after its own switch (cp_sample.ctx_v), so a sample
 * counts for its own stack even when its neighbours' midpoints leave it no
 * time.  Returns 0, or -1 for samples the graph does not match.
 */
static int samples(struct cp_profile *p, const uint64_t *oncp, uint64_t *nsm,
		   uint64_t *ncpsm)
{
	const struct cp_tracepag *tp = p->tp;
	const struct cp_samples *s = tp->t->samples;

	if (!s || !s->active)
		return 0;
	p->sampled = true;
	for (uint64_t k = 0; k < s->n; k++) {
		const struct cp_sample *sm = &s->s[k];
		uint32_t nv = tp->t->threads[sm->tid].nv, e;

		if (!sm->used)
			continue;
		if (sm->ctx_v + 1 >= nv || !sm->pos_v || sm->pos_v >= nv)
			return -1;
		e = tp->segbase[sm->tid] + sm->ctx_v;
		nsm[cp_tracepag_cct(tp, e)]++;
		p->samples++;
		p->threads[sm->tid].samples++;
		if (cp_bit_get(oncp, tp->segbase[sm->tid] + sm->pos_v - 1)) {
			ncpsm[cp_tracepag_cct(tp, e)]++;
			p->cp_samples++;
		}
	}
	return 0;
}

/*
 * Procedure calls per calling-context node (@ncalls), thread and trace: the
 * segment right after an ENTER/REGION_BEGIN runs in the context it opened
 * (sampled procedures: the switches are no calls).
 */
static void count_calls(struct cp_profile *p, uint64_t *ncalls)
{
	const struct cp_tracepag *tp = p->tp;
	const struct cp_trace *t = tp->t;

	for (uint32_t tid = 0; tid < t->nthreads && !p->sampled; tid++) {
		const struct cp_trace_thread *th = &t->threads[tid];

		for (uint32_t i = 0; i + 1 < th->nv; i++) {
			unsigned k = cp_tvert_kind(&th->v[i]);

			if (k == CP_EV_ENTER || k == CP_EV_REGION_BEGIN) {
				ncalls[cp_tracepag_cct(tp, tp->segbase[tid] +
							   i)]++;
				p->threads[tid].calls++;
				p->calls++;
			}
		}
	}
}

/* Each procedure's shown figures: its exclusive or inclusive ones. */
static void pick_view(struct cp_profile *p)
{
	for (uint32_t pr = 0; pr < p->tp->nprocs; pr++) {
		struct cp_proc_prof *pp = &p->procs[pr];

		pp->cpu_ns = p->exclusive ? pp->cpu_excl_ns : pp->cpu_incl_ns;
		pp->cp_ns = p->exclusive ? pp->cp_excl_ns : pp->cp_incl_ns;
		pp->samples = p->exclusive ? pp->samples_excl
					   : pp->samples_incl;
		pp->cp_samples = p->exclusive ? pp->cp_samples_excl
					      : pp->cp_samples_incl;
	}
}

/*
 * CPU and CP time per procedure, inclusive and exclusive; procedure calls
 * per procedure and thread; samples per procedure when sampled.
 */
static int procedures(struct cp_profile *p, const uint64_t *oncp)
{
	const struct cp_tracepag *tp = p->tp;
	uint64_t *ncpu = calloc(tp->ncct, sizeof(*ncpu));
	uint64_t *ncp = calloc(tp->ncct, sizeof(*ncp));
	uint64_t *ncalls = calloc(tp->ncct, sizeof(*ncalls));
	uint64_t *nsm = calloc(tp->ncct, sizeof(*nsm));
	uint64_t *ncpsm = calloc(tp->ncct, sizeof(*ncpsm));
	int ret = -1;

	p->procs = calloc(tp->nprocs ? tp->nprocs : 1, sizeof(*p->procs));
	if (!ncpu || !ncp || !ncalls || !nsm || !ncpsm || !p->procs)
		goto out;
	for (uint32_t e = 0; e < tp->g.ne; e++) {
		if (tp->e_kind[e] != CP_TE_USEFUL)
			continue;
		ncpu[cp_tracepag_cct(tp, e)] += tp->g.w[e];
		if (cp_bit_get(oncp, e))
			ncp[cp_tracepag_cct(tp, e)] += tp->g.w[e];
	}
	if (samples(p, oncp, nsm, ncpsm))
		goto out;
	count_calls(p, ncalls);
	for (uint32_t pr = 0; pr < tp->nprocs; pr++) {
		p->procs[pr].proc = pr;
		p->procs[pr].name = tp->procs[pr];
	}
	for (uint32_t n = 1; n < tp->ncct; n++) {
		const struct cp_cct_node *c = &tp->cct[n];
		struct cp_proc_prof *pp = &p->procs[c->proc];

		pp->cpu_excl_ns += ncpu[n];
		pp->cp_excl_ns += ncp[n];
		pp->calls += ncalls[n];
		pp->samples_excl += nsm[n];
		pp->cp_samples_excl += ncpsm[n];
		for (uint32_t i = 0; i < c->incl_n; i++) {
			struct cp_proc_prof *q =
				&p->procs[tp->incl_pool[c->incl_off + i]];

			q->cpu_incl_ns += ncpu[n];
			q->cp_incl_ns += ncp[n];
			q->samples_incl += nsm[n];
			q->cp_samples_incl += ncpsm[n];
		}
	}
	pick_view(p);
	p->nprocs = tp->nprocs;
	ret = 0;
out:
	free(ncpu);
	free(ncp);
	free(ncalls);
	free(nsm);
	free(ncpsm);
	return ret;
}

/*
 * The groups of calling-context node @n: its own procedure (@exclusive)
 * or every distinct procedure on its path from the root, as *@ids.
 */
static uint32_t node_procs(const struct cp_tracepag *tp, uint32_t n,
			   bool exclusive, const uint32_t **ids)
{
	const struct cp_cct_node *c = &tp->cct[n];

	if (exclusive) {
		*ids = &c->proc;
		return n ? 1 : 0;
	}
	/* no pool when no node has a procedure: no offset from NULL */
	*ids = tp->incl_pool ? tp->incl_pool + c->incl_off : NULL;
	return c->incl_n;
}

/*
 * Groups as classes: a class per calling-context node
 * (cp_tracepag.e_cct), its groups the selected procedures among its own
 * (exclusive) or those on the node's path from the root (inclusive).
 * Edges outside any procedure are in node 0, which has none; edges that
 * are not useful time weigh zero, so their groups change nothing.  Filled
 * into *@offp / *@idsp.
 */
static int node_groups(const struct cp_tracepag *tp, const bool *sel,
		       bool exclusive, uint32_t **offp, uint32_t **idsp)
{
	uint32_t *off = malloc(((size_t)tp->ncct + 1) * sizeof(*off));
	uint32_t *ids = NULL, k = 0, np;
	const uint32_t *pr;

	if (!off)
		return -1;
	for (uint32_t n = 0; n < tp->ncct; n++) {
		off[n] = k;
		np = node_procs(tp, n, exclusive, &pr);
		for (uint32_t i = 0; i < np; i++)
			k += sel[pr[i]];
	}
	off[tp->ncct] = k;
	ids = malloc(((size_t)k + 1) * sizeof(*ids));
	if (!ids) {
		free(off);
		return -1;
	}
	k = 0;
	for (uint32_t n = 0; n < tp->ncct; n++) {
		np = node_procs(tp, n, exclusive, &pr);
		for (uint32_t i = 0; i < np; i++)
			if (sel[pr[i]])
				ids[k++] = pr[i];
	}
	*offp = off;
	*idsp = ids;
	return 0;
}

/*
 * Select in @sel the @ntop procedures of most CP time that have some;
 * returns how many, or -1 when out of memory.
 */
static int64_t select_top(const struct cp_profile *p, uint32_t ntop,
			  bool *sel)
{
	uint32_t np = p->tp->nprocs, nsel = 0;
	struct cp_proc_prof *sorted = malloc((np ? np : 1) * sizeof(*sorted));

	if (!sorted)
		return -1;
	memcpy(sorted, p->procs, np * sizeof(*sorted));
	qsort(sorted, np, sizeof(*sorted), cmp_proc);
	for (uint32_t i = 0; i < np && i < ntop; i++)
		if (sorted[i].cp_ns) {
			sel[sorted[i].proc] = true;
			nsel++;
		}
	free(sorted);
	return nsel;
}

/* Zeroing, then help with Slack's walks, or Slack, as a cp_par_two
 * job. */
struct block_job {
	const struct cp_cuts *k;
	const struct cp_groups *gr;
	const bool *only;
	uint64_t *out;
	struct cp_slack_help *help;
	bool zero;
	int ret;
};

static void block_job_run(void *arg)
{
	struct block_job *j = arg;

	if (!j->zero) {
		j->ret = cp_slack_blocks_help(j->k, j->gr, j->only, j->out,
					      j->help);
		return;
	}
	j->ret = cp_zero_blocks(j->k, j->gr, j->only, j->out);
	if (cp_slack_help_run(j->help))
		j->ret = -1;
}

/*
 * Zeroing (new lengths into @zlen) beside Slack (into @slack), on both
 * cores when the graph is large (cp_par.h): they only read the cuts and
 * the graph, each keeps its own scratch.  Zeroing mostly ends first; its
 * thread then takes half of the lanes of Slack's walk (cp_slack.h).  On
 * one core Slack runs first, so there is nothing left to help with.  0,
 * or -1 when memory ran out.
 */
static int zero_and_slack(const struct cp_cuts *k, const struct cp_groups *gr,
			  const bool *sel, uint64_t *zlen, uint64_t *slack)
{
	const struct cp_pag *g = k->c->g;
	struct cp_slack_help *help = cp_slack_help_new();
	struct block_job zj = { k, gr, sel, zlen, help, true, 0 };
	struct block_job sj = { k, gr, sel, slack, help, false, 0 };

	if (!help)
		return -1;
	cp_par_two((size_t)g->nv + g->ne, block_job_run, &sj, block_job_run,
		   &zj);
	cp_slack_help_free(help);
	return zj.ret || sj.ret ? -1 : 0;
}

/* Zeroing, Slack and MBM of the selected procedures, the near-critical
 * paths @kp found (freed here). */
static int metrics(struct cp_profile *p, const struct cp_profile_opts *o,
		   struct cp_kpaths *kp)
{
	const struct cp_tracepag *tp = p->tp;
	uint32_t np = tp->nprocs, ntop = o && o->top ? o->top : np;
	bool *sel = calloc(np ? np : 1, sizeof(*sel));
	uint64_t *zlen = calloc(np ? np : 1, sizeof(*zlen));
	uint64_t *slack = calloc(np ? np : 1, sizeof(*slack));
	uint64_t *mbm = calloc(np ? np : 1, sizeof(*mbm));
	uint32_t *off = NULL, *ids = NULL;
	int64_t nsel;
	struct cp_groups gr = { .n = np };
	struct cp_cuts cuts;
	bool cuts_ok = false;
	int ret = -1;

	if (!sel || !zlen || !slack || !mbm)
		goto out;
	nsel = select_top(p, ntop, sel);
	if (nsel < 0)
		goto out;
	if (o && o->also) {
		uint32_t pr = o->also(o->also_ctx, p);

		if (pr < np && p->procs[pr].cp_ns && !sel[pr]) {
			sel[pr] = true;
			nsel++;
		}
	}
	if (node_groups(tp, sel, p->exclusive, &off, &ids))
		goto out;
	gr.cls = tp->e_cct;
	gr.ncls = tp->ncct;
	gr.ncls_e = tp->nseg;
	gr.off = off;
	gr.ids = ids;
	/* the paths' memory, freed, serves the cuts (cp_bigmem) */
	p->npaths = kp->n;
	if (cp_mbm_compute(kp, &gr, mbm))
		goto out;
	cp_kpaths_free(kp);
	if (nsel) {
		if (cp_cuts_find(&cuts, p->cpm))
			goto out;
		cuts_ok = true;
		progress(o, "zeroing and slack", 0.0);
		if (zero_and_slack(&cuts, &gr, sel, zlen, slack))
			goto out;
	}
	for (uint32_t pr = 0; pr < np; pr++) {
		struct cp_proc_prof *pp = &p->procs[pr];

		if (!sel[pr])
			continue;
		pp->computed = true;
		pp->zero_ns = p->cp_len - zlen[pr];
		pp->slack_ns = slack[pr];
		pp->mbm_ns = mbm[pr];
	}
	ret = 0;
out:
	cp_kpaths_free(kp);	/* the paths, if an error came first (a
				 * freed one is empty) */
	if (cuts_ok)
		cp_cuts_free(&cuts);
	free(sel);
	free(zlen);
	free(slack);
	free(mbm);
	free(off);
	free(ids);
	return ret;
}

/* The near-critical paths' search, as a cp_par_two job. */
struct paths_job {
	const struct cp_cpm *cpm;
	uint32_t k;
	struct cp_kpaths *kp;
	int ret;
};

static void paths_job_run(void *arg)
{
	struct paths_job *j = arg;

	j->ret = cp_kpaths_find(j->kp, j->cpm, j->k);
}

/* The threads', procedures' and objects' figures, as a cp_par_two job
 * beside the search (both only read the graph and the CPM). */
struct profile_job {
	struct cp_profile *p;
	const uint64_t *oncp;
	int ret;
};

static void profile_job_run(void *arg)
{
	struct profile_job *j = arg;

	threads(j->p, j->oncp);
	j->ret = procedures(j->p, j->oncp) || objects(j->p, j->oncp);
}

int cp_profile_compute(struct cp_profile *p, const struct cp_tracepag *tp,
		       const struct cp_profile_opts *o, char *err,
		       size_t errlen)
{
	uint64_t *oncp = NULL;
	struct profile_job pj;
	struct paths_job kj;
	struct cp_kpaths kp;

	memset(p, 0, sizeof(*p));
	p->tp = tp;
	p->trace = tp->t;
	p->exclusive = o && o->exclusive;
	p->k = o && o->k ? o->k : CP_PROFILE_K_DEFAULT;
	p->online_len = tp->t->online_len_ns;
	p->nthreads_all = tp->t->nthreads;
	progress(o, "critical path", 0.0);
	if (o && o->cpm) {
		p->cpm = o->cpm;
	} else {
		if (cp_cpm_run(&p->own_cpm, &tp->g, NULL))
			goto err_mem;
		p->cpm = &p->own_cpm;
	}
	p->cp_len = p->cpm->length;
	oncp = cp_big_calloc(cp_bits_words(tp->g.ne), sizeof(*oncp));
	p->threads = cp_big_calloc(p->nthreads_all, sizeof(*p->threads));
	if (!oncp || !p->threads)
		goto err_mem;
	for (uint32_t i = 0; i < p->cpm->npath; i++)
		cp_bit_set(oncp, p->cpm->path[i]);
	progress(o, "profile and near-critical paths", 0.0);
	kj = (struct paths_job){ .cpm = p->cpm, .k = p->k, .kp = &kp };
	pj = (struct profile_job){ .p = p, .oncp = oncp };
	/* the search on this thread: it reuses the blocks this thread's
	 * earlier phases freed (cp_bigmem keeps them per thread) */
	cp_par_two((size_t)tp->g.nv + tp->g.ne, profile_job_run, &pj,
		   paths_job_run, &kj);
	if (kj.ret || pj.ret) {
		cp_kpaths_free(&kp);	/* empty if the search failed */
		goto err_mem;
	}
	p->useful_ns = tp->useful_ns;
	p->wait_ns = tp->wait_ns;
	p->parallelism = p->elapsed_ns ?
		(double)p->useful_ns / (double)p->elapsed_ns : 0.0;
	p->max_parallelism = p->cp_len ?
		(double)p->useful_ns / (double)p->cp_len : 0.0;
	cp_big_free(oncp);	/* before the metrics' larger scratch */
	oncp = NULL;
	if (metrics(p, o, &kp))
		goto err_mem;
	qsort(p->procs, p->nprocs, sizeof(*p->procs), cmp_proc);
	return 0;
err_mem:
	snprintf(err, errlen, "%s: out of memory computing the profile",
		 tp->t->path);
	cp_big_free(oncp);
	cp_profile_free(p);
	return -1;
}

void cp_profile_free(struct cp_profile *p)
{
	cp_cpm_free(&p->own_cpm);
	free(p->procs);
	free(p->threads);
	free(p->objs);
	memset(p, 0, sizeof(*p));
}
