/*
 * cp_whatif.c - what-if: the fixed-graph prediction, and the two
 * predictions of a trace side by side (the replay is cp_replay.c).
 *
 * Fixed graph ([Alexander94, §VI]): multiply the useful segments by their
 * factor and run the forward pass again; O(v + e).  A segment's factor is
 * the product of the factors of the distinct scaled procedures on its
 * calling context, or with @exclusive its innermost procedure's.
 */
#include "cp_whatif.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_cpm.h"
#include "cp_par.h"
#include "cp_replay.h"

uint64_t cp_whatif_scaled_w(uint64_t w, double f)
{
	double d = (double)w * f;

	return d >= 1.8e19 ? (uint64_t)1.8e19 : (uint64_t)llround(d);
}

int cp_whatif_check_range(const char *path, uint64_t useful_ns,
			  uint64_t scaled_ns, uint64_t other_ns,
			  const struct cp_whatif_scale *sc, uint32_t nsc,
			  char *err, size_t errlen)
{
	long double fmax = 1, bound = (long double)other_ns;

	for (uint32_t i = 0; i < nsc; i++)
		if (sc[i].factor > 1)
			fmax *= sc[i].factor;
	if (scaled_ns <= useful_ns)
		bound += (long double)(useful_ns - scaled_ns) +
			 (long double)scaled_ns * fmax;
	else	/* cannot be: the scaled part is part of the useful time */
		bound = INFINITY;
	if (bound <= (long double)UINT64_MAX)
		return 0;
	snprintf(err, errlen, "%s: scaled so, the times could add up past "
		 "2^64-1 ns (timestamps far apart in a damaged trace)", path);
	return -1;
}

/* Fixed-graph length with per-edge weights @w.  Its scratch, and
 * fixed_part()'s weights, go back to the system when done rather than
 * to cp_bigmem's cache: the replay that follows asks for other sizes,
 * and kept they would sit beside it at the HTML page's peak (on 10^7
 * events, 6 % above the build before; not kept, no higher), for little
 * time saved on huge pages. */
static int fixed_length(const struct cp_pag *g, const uint64_t *w,
			uint64_t *len)
{
	uint64_t *scratch = cp_big_malloc(((size_t)g->nv + 1) *
					  sizeof(*scratch));

	if (!scratch)
		return -1;
	*len = cp_cpm_longest(g, w, scratch);
	free(scratch);
	return 0;
}

static int check_factors(const struct cp_whatif_scale *sc, uint32_t nsc,
			 const char *path, char *err, size_t errlen)
{
	for (uint32_t i = 0; i < nsc; i++)
		if (!(sc[i].factor >= 0.0) || !isfinite(sc[i].factor)) {
			snprintf(err, errlen, "%s: bad factor %g for %s", path,
				 sc[i].factor, sc[i].name);
			return -1;
		}
	return 0;
}

/*
 * @f[@n]: for each of @names (procedures or labels), the product of the
 * factors of the scalings @sc that name it (1 if none does).  Returns the
 * index of a scaling that names none of them, or -1.
 */
static int name_factors(char *const *names, uint32_t n,
			const struct cp_whatif_scale *sc, uint32_t nsc,
			double *f)
{
	for (uint32_t k = 0; k < n; k++)
		f[k] = 1.0;
	for (uint32_t i = 0; i < nsc; i++) {
		uint32_t k;

		for (k = 0; k < n; k++)
			if (!strcmp(names[k], sc[i].name))
				break;
		if (k == n)
			return (int)i;
		f[k] *= sc[i].factor;
	}
	return -1;
}

/* "out of memory" into @err, for @tp. */
static void out_of_memory(const struct cp_tracepag *tp, char *err,
			  size_t errlen)
{
	snprintf(err, errlen, "%s: out of memory in what-if", tp->t->path);
}

/* A factor of 1 for each calling context of @tp (nothing scaled), or NULL
 * when memory runs out; the caller frees it. */
static double *unscaled_factors(const struct cp_tracepag *tp)
{
	double *ones = malloc(tp->ncct * sizeof(*ones));

	for (uint32_t n = 0; ones && n < tp->ncct; n++)
		ones[n] = 1.0;
	return ones;
}

/*
 * The factor of each calling context of @tp into @cf[ncct] from the
 * scalings @sc (see the head of the file).  0, or -1 with @err: a name
 * that is no procedure of the trace, or out of memory.
 */
static int cct_factors(const struct cp_tracepag *tp,
		       const struct cp_whatif_scale *sc, uint32_t nsc,
		       bool exclusive, double *cf, char *err, size_t errlen)
{
	double *pf = malloc((tp->nprocs ? tp->nprocs : 1) * sizeof(*pf));
	int bad;

	if (!pf) {
		out_of_memory(tp, err, errlen);
		return -1;
	}
	bad = name_factors(tp->procs, tp->nprocs, sc, nsc, pf);
	if (bad >= 0) {
		snprintf(err, errlen, "%s: no procedure named '%s' in the trace",
			 tp->t->path, sc[bad].name);
		free(pf);
		return -1;
	}
	cf[0] = 1.0;
	for (uint32_t n = 1; n < tp->ncct; n++) {
		const struct cp_cct_node *c = &tp->cct[n];

		if (exclusive) {
			cf[n] = pf[c->proc];
			continue;
		}
		cf[n] = 1.0;
		for (uint32_t i = 0; i < c->incl_n; i++)
			cf[n] *= pf[tp->incl_pool[c->incl_off + i]];
	}
	free(pf);
	return 0;
}

/* @w: the useful edges of @tp scaled by their context's factor @cf;
 * returns the useful time scaled. */
static uint64_t scale_edges(const struct cp_tracepag *tp, const double *cf,
			    uint64_t *w)
{
	const struct cp_pag *g = &tp->g;
	uint64_t scaled = 0;

	for (uint32_t e = 0; e < g->ne; e++) {
		double f;

		w[e] = g->w[e];
		if (tp->e_kind[e] != CP_TE_USEFUL)
			continue;
		f = cf[cp_tracepag_cct(tp, e)];
		if (f == 1.0)
			continue;
		scaled += g->w[e];
		w[e] = cp_whatif_scaled_w(g->w[e], f);
	}
	return scaled;
}

void cp_whatif_set_replay(struct cp_whatif_result *r,
			  const struct cp_replay_result *before,
			  const struct cp_replay_result *after)
{
	r->length_before_sim = before->length;
	r->forced_before = before->forced;
	r->length_after = after->length;
	r->reordered = after->reordered;
	r->forced = after->forced;
	if (before->deadlock || after->deadlock) {
		r->deadlock = true;
		r->length_before_sim = r->length_before;
		r->length_after = r->length_after_fixed;
	} else {
		r->simulated = true;
	}
}

/* One replay of cp_whatif_trace, for cp_par_two. */
struct replay_job {
	const struct cp_tracepag *tp;
	const double *f;
	uint32_t cpus;
	bool wake;
	struct cp_replay_result r;
	int ret;
};

static void replay_job_run(void *arg)
{
	struct replay_job *j = arg;

	j->ret = cp_replay_run(j->tp, j->f, j->cpus, j->wake, &j->r);
}

/*
 * The replay unscaled (@ones) and scaled (@cf) into @r, on both cores
 * (each replay only reads the graph).  0, or -1 (out of memory).
 */
static int replay_both(const struct cp_tracepag *tp, const double *ones,
		       const double *cf, uint32_t cpus, bool wake,
		       struct cp_whatif_result *r)
{
	struct replay_job a = { .tp = tp, .f = ones, .cpus = cpus,
				.wake = wake },
			  b = { .tp = tp, .f = cf, .cpus = cpus,
				.wake = wake };

	cp_par_two(tp->g.nv, replay_job_run, &a, replay_job_run, &b);
	if (a.ret || b.ret)
		return -1;
	cp_whatif_set_replay(r, &a.r, &b.r);
	return 0;
}

/*
 * The fixed-graph part of one prediction into @r, and its factors into
 * @cf[ncct]: the scaled time, the length after and, with @before, the
 * length before.  0, or -1 with @err.
 */
static int fixed_part(const struct cp_tracepag *tp,
		      const struct cp_whatif_scale *sc, uint32_t nsc,
		      bool exclusive, bool before, double *cf,
		      struct cp_whatif_result *r, char *err, size_t errlen)
{
	const struct cp_pag *g = &tp->g;
	uint64_t *w = cp_big_malloc(((size_t)g->ne + 1) * sizeof(*w));
	int ret = -1;

	if (!w) {
		out_of_memory(tp, err, errlen);
		return -1;
	}
	if (cct_factors(tp, sc, nsc, exclusive, cf, err, errlen))
		goto out;
	r->scaled_ns = scale_edges(tp, cf, w);
	if (cp_whatif_check_range(tp->t->path, tp->useful_ns, r->scaled_ns,
				  tp->wait_ns, sc, nsc, err, errlen))
		goto out;
	if ((before && fixed_length(g, g->w, &r->length_before)) ||
	    fixed_length(g, w, &r->length_after_fixed))
		out_of_memory(tp, err, errlen);
	else
		ret = 0;
out:
	free(w);
	return ret;
}

int cp_whatif_trace(const struct cp_tracepag *tp,
		    const struct cp_whatif_scale *sc, uint32_t nsc,
		    bool exclusive, uint32_t cpus, bool wake,
		    struct cp_whatif_result *r, char *err, size_t errlen)
{
	double *cf = NULL, *ones = NULL;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (check_factors(sc, nsc, tp->t->path, err, errlen))
		return -1;
	cf = malloc(tp->ncct * sizeof(*cf));
	ones = unscaled_factors(tp);
	if (!cf || !ones) {
		out_of_memory(tp, err, errlen);
		goto out;
	}
	if (fixed_part(tp, sc, nsc, exclusive, true, cf, r, err, errlen))
		goto out;
	r->cpus = cpus;
	r->wake = wake;
	if (replay_both(tp, ones, cf, cpus, wake, r))
		out_of_memory(tp, err, errlen);
	else
		ret = 0;
out:
	free(cf);
	free(ones);
	return ret;
}

/*
 * The work of cp_whatif_trace_each, job by job: job 0 is what every
 * prediction shares (the fixed graph's length and the replay, nothing
 * scaled), job i the rest of prediction i - 1.  Two workers take the next
 * job in turn; each job writes only its own slot.
 */
struct each {
	const struct cp_tracepag *tp;
	const struct cp_whatif_scale *sc;
	uint32_t n;
	bool exclusive;
	uint32_t cpus;
	bool wake;
	struct cp_whatif_result *r;
	int *ret;
	struct cp_replay_result *after;	/* [n] the scaled replays */
	uint64_t length_before;
	struct cp_replay_result before;	/* the unscaled replay */
	int base_ret;
	_Atomic uint32_t next;		/* the next job to take */
};

static int each_base(struct each *x)
{
	double *ones = unscaled_factors(x->tp);
	int ret = -1;

	if (!ones)
		return -1;
	if (!fixed_length(&x->tp->g, x->tp->g.w, &x->length_before) &&
	    !cp_replay_run(x->tp, ones, x->cpus, x->wake, &x->before))
		ret = 0;
	free(ones);
	return ret;
}

/* Prediction @i but for what it shares with the others. */
static int each_one(struct each *x, uint32_t i)
{
	const struct cp_tracepag *tp = x->tp;
	double *cf = malloc(tp->ncct * sizeof(*cf));
	struct cp_whatif_result *r = &x->r[i];
	char err[256];
	int ret = -1;

	if (!cf)
		return -1;
	/* the length before is the base's: set once both are done */
	if (!check_factors(&x->sc[i], 1, tp->t->path, err, sizeof(err)) &&
	    !fixed_part(tp, &x->sc[i], 1, x->exclusive, false, cf, r, err,
			sizeof(err)) &&
	    !cp_replay_run(tp, cf, x->cpus, x->wake, &x->after[i]))
		ret = 0;
	free(cf);
	return ret;
}

static void each_worker(void *arg)
{
	struct each *x = arg;
	uint32_t j;

	while ((j = atomic_fetch_add(&x->next, 1)) <= x->n) {
		if (j == 0)
			x->base_ret = each_base(x);
		else
			x->ret[j - 1] = each_one(x, j - 1);
	}
}

int cp_whatif_trace_each(const struct cp_tracepag *tp,
			 const struct cp_whatif_scale *sc, uint32_t n,
			 bool exclusive, uint32_t cpus, bool wake,
			 struct cp_whatif_result *r, int *ret)
{
	struct each x = {
		.tp = tp, .sc = sc, .n = n, .exclusive = exclusive,
		.cpus = cpus, .wake = wake, .r = r, .ret = ret,
	};

	if (!n)
		return 0;
	x.after = calloc(n, sizeof(*x.after));
	if (!x.after)
		return -1;
	memset(r, 0, sizeof(*r) * n);
	atomic_init(&x.next, 0);
	cp_par_two((size_t)tp->g.nv, each_worker, &x, each_worker, &x);
	for (uint32_t i = 0; i < n && !x.base_ret; i++) {
		if (ret[i])
			continue;
		r[i].length_before = x.length_before;
		r[i].cpus = cpus;
		r[i].wake = wake;
		cp_whatif_set_replay(&r[i], &x.before, &x.after[i]);
	}
	free(x.after);
	return x.base_ret;
}

int cp_whatif_pag(const struct cp_pag *g, const struct cp_whatif_scale *sc,
		  uint32_t nsc, struct cp_whatif_result *r, char *err,
		  size_t errlen)
{
	double *lf = NULL;
	uint64_t *w = NULL, total = 0;
	int ret = -1, bad;

	memset(r, 0, sizeof(*r));
	if (check_factors(sc, nsc, "graph", err, errlen))
		return -1;
	lf = malloc((g->nlabels ? g->nlabels : 1) * sizeof(*lf));
	w = malloc(((size_t)g->ne + 1) * sizeof(*w));
	if (!lf || !w) {
		snprintf(err, errlen, "out of memory in what-if");
		goto out;
	}
	bad = name_factors(g->labels, g->nlabels, sc, nsc, lf);
	if (bad >= 0) {
		snprintf(err, errlen, "no edge labelled '%s' in the graph",
			 sc[bad].name);
		goto out;
	}
	for (uint32_t e = 0; e < g->ne; e++) {
		w[e] = g->w[e];
		total += g->w[e];	/* the reader's bound: no wrap */
		if (g->label[e] == CP_PAG_NONE || lf[g->label[e]] == 1.0)
			continue;
		r->scaled_ns += g->w[e];
		w[e] = cp_whatif_scaled_w(g->w[e], lf[g->label[e]]);
	}
	if (cp_whatif_check_range("graph", total, r->scaled_ns, 0, sc, nsc,
				  err, errlen))
		goto out;
	if (fixed_length(g, g->w, &r->length_before) ||
	    fixed_length(g, w, &r->length_after_fixed)) {
		snprintf(err, errlen, "out of memory in what-if");
		goto out;
	}
	r->length_before_sim = r->length_before;
	r->length_after = r->length_after_fixed;
	ret = 0;
out:
	free(lf);
	free(w);
	return ret;
}
