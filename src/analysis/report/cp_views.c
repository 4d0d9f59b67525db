/*
 * cp_views.c - program, thread, procedure and object views of a profile.
 *
 * IPS ([Yang87, §3.2]) measures a distributed program at several levels of
 * one hierarchy with one set of metrics (Table 3.2: T, T_cpu, T_wait,
 * response ratio R = T/T_cpu, parallelism P = T_cpu/T, utilization,
 * progress ratio PR = T_cpu/T_wait, calls C, message traffic), each level
 * refining the one above (Table 3.3).  Here the levels are program, thread
 * and procedure; messages become the dependencies between threads (a
 * release that another thread's acquire waited for), and each level also
 * gets its share of the critical path.
 *
 * The breakdowns below a level (a thread's procedures, a procedure's
 * threads, who released whom) come from one pass over the trace PAG's
 * edges, summed per (thread, calling context) and per (thread, object),
 * then folded into procedures as the profile does (exclusive: the
 * context's own procedure; inclusive: every distinct procedure on its
 * path): O(e) plus sorting what is printed.  A streamed report brings
 * its own, without their critical-path columns (cp_stream.h).
 */
#include "cp_views.h"

#include "cp_compare.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cp_grow.h"
#include "cp_hash.h"
#include "cp_report_out.h"
#include "cp_sampled_out.h"
#include "cp_search.h"
#include "cp_wall.h"
#include "cp_wbuf.h"

#define MAX_DEFAULT 30
#define SUB_ROWS 4		/* lines under one entry */

enum cp_view cp_view_parse(const char *name)
{
	static const struct {
		const char *name;
		enum cp_view v;
	} tab[] = {
		{ "program", CP_VIEW_PROGRAM }, { "thread", CP_VIEW_THREAD },
		{ "threads", CP_VIEW_THREAD },
		{ "procedure", CP_VIEW_PROCEDURE },
		{ "procedures", CP_VIEW_PROCEDURE },
		{ "object", CP_VIEW_OBJECT }, { "objects", CP_VIEW_OBJECT },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(name, tab[i].name))
			return tab[i].v;
	return CP_VIEW_NONE;
}

/* What the views share: the breakdowns, and the names by id. */
struct vd {
	const struct cp_profile *p;
	const struct cp_views_data *in;
	const char **pnames;	/* [npnames] a procedure's name by id */
	uint32_t npnames;
};

/*
 * The thread that released dependency @e: its tail's thread, or for a hub
 * (a barrier episode, an rwlock's read releases) the last to arrive at it.
 */
static uint32_t releaser(const struct cp_tracepag *tp, uint32_t e)
{
	const struct cp_pag *g = &tp->g;
	const struct cp_trace *t = tp->t;
	uint32_t hub = cp_pag_tail(g, e), tid, vi, best = CP_PAG_NONE, in, n;
	uint64_t bw = 0;

	if (cp_tracepag_src(tp, e) != CP_PAG_NONE)
		return cp_tracepag_src(tp, e);
	n = cp_tracepag_hub_in(tp, hub, &in);
	for (uint32_t k = in; k < in + n; k++) {
		const struct cp_trace_thread *th;
		uint64_t w;

		if (!cp_tracepag_vertex(tp, cp_pag_tail(g, k), &tid, &vi))
			continue;
		th = &t->threads[tid];
		w = cp_thread_wall(th, vi);
		if (best == CP_PAG_NONE || w > bw) {
			best = tid;
			bw = w;
		}
	}
	return best;
}

int cp_views_graph_build(struct cp_views_graph *g, const struct cp_profile *p)
{
	const struct cp_tracepag *tp = p->tp;
	const struct cp_pag *gr = &tp->g;
	uint8_t *oncp = calloc(gr->ne ? gr->ne : 1, 1);
	struct cp_views_data *d = &g->d;

	memset(g, 0, sizeof(*g));
	d->tproc = &g->tproc;
	d->waits = &g->waits;
	d->deps = &g->deps;
	d->cp_known = true;
	if (!oncp)
		return -1;
	for (uint32_t i = 0; i < p->cpm->npath; i++)
		oncp[p->cpm->path[i]] = 1;
	for (uint32_t e = 0; e < gr->ne; e++) {
		uint64_t *v;
		uint32_t src, dst = cp_tracepag_thread(tp, e);

		switch (tp->e_kind[e]) {
		case CP_TE_USEFUL:
			if (!gr->w[e])
				break;
			v = cp_pairs_at(&g->ctx, dst, cp_tracepag_cct(tp, e));
			if (!v)
				goto err;
			v[0] += gr->w[e];
			if (oncp[e])
				v[1] += gr->w[e];
			break;
		case CP_TE_WAIT:
			v = cp_pairs_at(&g->waits, dst, cp_tracepag_obj(tp, e));
			if (!v)
				goto err;
			v[0]++;
			v[1] += cp_tracepag_wait(tp, e);
			break;
		case CP_TE_DEP:
			src = releaser(tp, e);
			if (src == dst)
				break;
			if (!(v = cp_pairs_at(&g->deps, src, dst)))
				goto err;
			v[0]++;
			d->ndeps++;
			if (oncp[e]) {
				v[1]++;
				d->ncpdeps++;
			}
			break;
		default:
			break;
		}
	}
	/* fold contexts into procedures, in the profile's mode */
	for (uint32_t k = 0; k < g->ctx.n; k++) {
		const struct cp_cct_node *n = &tp->cct[g->ctx.b[k]];
		uint32_t tid = g->ctx.a[k];

		if (p->exclusive || !g->ctx.b[k]) {
			uint64_t *v = cp_pairs_at(&g->tproc, tid, n->proc);

			if (!v)
				goto err;
			v[0] += g->ctx.v[k][0];
			v[1] += g->ctx.v[k][1];
			continue;
		}
		for (uint32_t i = 0; i < n->incl_n; i++) {
			uint64_t *v = cp_pairs_at(&g->tproc, tid,
					tp->incl_pool[n->incl_off + i]);

			if (!v)
				goto err;
			v[0] += g->ctx.v[k][0];
			v[1] += g->ctx.v[k][1];
		}
	}
	free(oncp);
	return 0;
err:
	free(oncp);
	return -1;
}

void cp_views_graph_free(struct cp_views_graph *g)
{
	cp_pairs_free(&g->ctx);
	cp_pairs_free(&g->waits);
	cp_pairs_free(&g->deps);
	cp_pairs_free(&g->tproc);
}

/* The procedures' names by id, from the profile (a graph's names for
 * ids it does not list). */
static int vd_names(struct vd *d)
{
	const struct cp_profile *p = d->p;
	uint32_t n = p->tp ? p->tp->nprocs : 0;

	for (uint32_t i = 0; i < p->nprocs; i++)
		if (p->procs[i].proc != CP_PAG_NONE &&
		    p->procs[i].proc >= n)
			n = p->procs[i].proc + 1;
	d->pnames = calloc(n ? n : 1, sizeof(*d->pnames));
	if (!d->pnames)
		return -1;
	d->npnames = n;
	for (uint32_t i = 0; p->tp && i < p->tp->nprocs; i++)
		d->pnames[i] = cp_tracepag_proc_name(p->tp, i);
	for (uint32_t i = 0; i < p->nprocs; i++)
		if (p->procs[i].proc != CP_PAG_NONE)
			d->pnames[p->procs[i].proc] = p->procs[i].name;
	return 0;
}

struct pick {
	uint64_t v;
	uint32_t k;
};

static int cmp_pick(const void *p, const void *q)
{
	const struct pick *x = p, *y = q;

	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return x->k < y->k ? -1 : 1;
}

/*
 * Indices of @x's entries whose key (b if @by_b, else a) is @key, sorted
 * by v[@col] descending (column 1: nonzero ones only), into @out; returns
 * the count, or 0 when memory runs out.
 */
static uint32_t select_sorted(const struct cp_pairs *x, bool by_b, uint32_t key,
			      int col, uint32_t *out)
{
	struct pick *pk = malloc((x->n + 1) * sizeof(*pk));
	uint32_t n = 0;

	if (!pk)
		return 0;
	for (uint32_t k = 0; k < x->n; k++)
		if ((by_b ? x->b[k] : x->a[k]) == key &&
		    (x->v[k][col] || col == 0)) {
			pk[n].v = x->v[k][col];
			pk[n].k = k;
			n++;
		}
	qsort(pk, n, sizeof(*pk), cmp_pick);
	for (uint32_t i = 0; i < n; i++)
		out[i] = pk[i].k;
	free(pk);
	return n;
}

static const char *pname(const struct vd *d, uint32_t proc)
{
	if (proc == CP_PAG_NONE)
		return "(outside procedures)";
	return proc < d->npnames && d->pnames[proc] ? d->pnames[proc]
						     : "(none)";
}

static const char *tname(const struct cp_profile *p, uint32_t tid,
			 char *buf, size_t len)
{
	const char *n = tid < p->nthreads_all ? p->threads[tid].name : NULL;

	if (tid == CP_PAG_NONE)
		snprintf(buf, len, "(unknown)");
	else
		snprintf(buf, len, "T%" PRIu32 "%s%s", tid, n && *n ? " " : "",
			 n ? n : "");
	return buf;
}

/* The kind of object @obj (the profile's objects are by id). */
static unsigned okind(const struct cp_profile *p, uint32_t obj)
{
	size_t k = cp_find_id(p->objs, p->nobjs, sizeof(*p->objs),
			      offsetof(struct cp_obj_prof, obj), obj);

	return k < p->nobjs ? p->objs[k].kind : 0;
}

static const char *oname(const struct cp_profile *p, uint32_t obj,
			 char *buf, size_t len)
{
	if (!obj)
		snprintf(buf, len, "join");
	else
		snprintf(buf, len, "%s#%" PRIu32,
			 cp_obj_kind_name(okind(p, obj)), obj);
	return buf;
}

/* "X" formatted, or "-" when @known is false. */
static const char *fmt_known(char *buf, size_t len, uint64_t ns, bool known)
{
	if (!known) {
		snprintf(buf, len, "-");
		return buf;
	}
	return cp_fmt_ns(buf, len, ns);
}

static void program(FILE *f, const struct vd *d)
{
	const struct cp_profile *p = d->p;
	char a[32];
	uint64_t syncs = 0;

	for (uint32_t i = 0; i < p->nobjs; i++)
		syncs += p->objs[i].ops;
	fprintf(f, "Program (IPS program level, [Yang87, Table 3.2])\n");
	fprintf(f, "  %-36s %" PRIu32 "\n", "threads (N_p)", p->nthreads);
	fprintf(f, "  %-36s %s\n", "elapsed (T)",
		cp_fmt_ns(a, sizeof(a), p->elapsed_ns));
	fprintf(f, "  %-36s %s  (%s clock)\n", "useful CPU time (T_cpu)",
		cp_fmt_ns(a, sizeof(a), p->useful_ns),
		p->trace && p->trace->clock == CP_CLOCK_CPU ? "cpu" : "wall");
	fprintf(f, "  %-36s %s\n", "waiting (T_wait)",
		cp_fmt_ns(a, sizeof(a), p->wait_ns));
	fprintf(f, "  %-36s %.2f\n", "response ratio (R = T / T_cpu)",
		p->useful_ns ? (double)p->elapsed_ns / (double)p->useful_ns
			     : 0.0);
	fprintf(f, "  %-36s %.2f\n", "parallelism (P = T_cpu / T)",
		p->parallelism);
	fprintf(f, "  %-36s %.1f%%\n", "utilization (P / N_p)",
		p->nthreads ? 100.0 * p->parallelism / p->nthreads : 0.0);
	if (p->wait_ns)
		fprintf(f, "  %-36s %.2f\n", "progress ratio (T_cpu / T_wait)",
			(double)p->useful_ns / (double)p->wait_ns);
	else
		fprintf(f, "  %-36s -  (no waiting)\n",
			"progress ratio (T_cpu / T_wait)");
	fprintf(f, "  %-36s %s  (%.1f%% of elapsed)\n", "critical path",
		cp_fmt_ns(a, sizeof(a), p->cp_len),
		cp_pct(p->cp_len, p->elapsed_ns));
	fprintf(f, "  %-36s %.2f\n", "maximum parallelism (T_cpu / CP)",
		p->max_parallelism);
	fprintf(f, "  %-36s %" PRIu64 "\n", "procedure calls (C)", p->calls);
	fprintf(f, "  %-36s %" PRIu64 " operations on %" PRIu32 " object%s\n",
		"synchronization", syncs, p->nobjs, p->nobjs == 1 ? "" : "s");
	if (d->in->cp_known)
		fprintf(f, "  %-36s %" PRIu64 " (%" PRIu64 " on the critical "
			"path)\n", "dependencies between threads",
			d->in->ndeps, d->in->ncpdeps);
	else
		fprintf(f, "  %-36s %" PRIu64 "\n",
			"dependencies between threads", d->in->ndeps);
}

/* "  waited on: ..." and the like: up to SUB_ROWS entries of @x under
 * @label, sorted as select_sorted() sorts them; @row prints one. */
static void sub_list(FILE *f, const struct vd *d, const char *label,
		     const struct cp_pairs *x, bool by_b, uint32_t key,
		     int col, uint32_t *idx,
		     void (*row)(FILE *f, const struct vd *d,
				 const struct cp_pairs *x, uint32_t k))
{
	uint32_t n = select_sorted(x, by_b, key, col, idx);

	if (!n)
		return;
	fprintf(f, "    %s", label);
	for (uint32_t k = 0; k < n && k < SUB_ROWS; k++) {
		fprintf(f, "%s ", k ? "," : "");
		row(f, d, x, idx[k]);
	}
	fprintf(f, "%s\n", n > SUB_ROWS ? ", ..." : "");
}

static void row_proc(FILE *f, const struct vd *d, const struct cp_pairs *x,
		     uint32_t k)
{
	char a[32];

	fprintf(f, "%s %s", pname(d, x->b[k]),
		cp_fmt_ns(a, sizeof(a), x->v[k][d->in->cp_known ? 1 : 0]));
}

static void row_wait(FILE *f, const struct vd *d, const struct cp_pairs *x,
		     uint32_t k)
{
	char a[32], on[64];

	fprintf(f, "%s %s (%" PRIu64 "x)",
		oname(d->p, x->b[k], on, sizeof(on)),
		cp_fmt_ns(a, sizeof(a), x->v[k][1]), x->v[k][0]);
}

static void row_dep(FILE *f, const struct vd *d, const struct cp_pairs *x,
		    uint32_t k)
{
	char nm[96];

	fprintf(f, "%s %" PRIu64 "x", tname(d->p, x->a[k], nm, sizeof(nm)),
		x->v[k][0]);
	if (d->in->cp_known && x->v[k][1])
		fprintf(f, " (%" PRIu64 " on the CP)", x->v[k][1]);
}

static int thread_view(FILE *f, const struct vd *d, uint32_t max)
{
	const struct cp_profile *p = d->p;
	const struct cp_views_data *in = d->in;
	uint32_t cap = in->tproc->n + in->waits->n + in->deps->n + 1;
	uint32_t *idx = malloc(cap * sizeof(*idx)), shown = 0;
	char a[32], b[32], c[32], nm[96];

	if (!idx)
		return -1;
	fprintf(f, "Threads (IPS process level: each thread, its procedures "
		"on the critical path,\nwhat it waited on and which threads "
		"released it)\n");
	for (uint32_t i = 0; i < p->nthreads_all && shown < max; i++) {
		const struct cp_thread_prof *th = &p->threads[i];

		if (!th->nv)
			continue;
		shown++;
		fprintf(f, "\n  %s\n", tname(p, th->tid, nm, sizeof(nm)));
		fprintf(f, "    elapsed %s, useful %s, waiting %s: utilization "
			"%.0f%%", cp_fmt_ns(a, sizeof(a), th->elapsed_ns),
			cp_fmt_ns(b, sizeof(b), th->useful_ns),
			cp_fmt_ns(c, sizeof(c), th->wait_ns),
			cp_pct(th->useful_ns, th->elapsed_ns));
		if (th->wait_ns)
			fprintf(f, ", progress ratio %.2f",
				(double)th->useful_ns / (double)th->wait_ns);
		if (th->cp_unknown)
			fprintf(f, "\n    on the critical path - (not "
				"followed), %" PRIu64 " calls\n", th->calls);
		else
			fprintf(f, "\n    on the critical path %s (%.1f%% of "
				"it), %" PRIu64 " calls\n",
				cp_fmt_ns(a, sizeof(a), th->cp_ns),
				cp_pct(th->cp_ns, p->cp_len), th->calls);
		/* streamed: no thread's procedures on the CP, their CPU */
		sub_list(f, d, in->cp_known ? "its procedures on the CP:" :
			 "its procedures (CPU):", in->tproc, false, th->tid,
			 in->cp_known ? 1 : 0, idx, row_proc);
		sub_list(f, d, "waited on:", in->waits, false, th->tid, 1, idx,
			 row_wait);
		sub_list(f, d, "released by:", in->deps, true, th->tid, 0, idx,
			 row_dep);
	}
	if (shown < p->nthreads)
		fprintf(f, "\n  ... %u more threads (--top 0 shows all)\n",
			p->nthreads - shown);
	free(idx);
	return 0;
}

static int procedure_view(FILE *f, const struct vd *d, uint32_t max)
{
	const struct cp_profile *p = d->p;
	const struct cp_pairs *tproc = d->in->tproc;
	uint32_t *idx = malloc((tproc->n + 1) * sizeof(*idx)), shown = 0;
	char a[32], b[32], nm[96];

	if (!idx)
		return -1;
	fprintf(f, "Procedures (IPS procedure level, %s: each procedure and "
		"the threads it ran in)\n", p->exclusive ? "exclusive" :
		"inclusive");
	if (!p->nprocs && p->trace) {
		fprintf(f, "\n");
		cp_sampled_out_none_text(f, p->trace);
	}
	for (uint32_t i = 0; i < p->nprocs && shown < max; i++) {
		const struct cp_proc_prof *pp = &p->procs[i];
		uint32_t n;

		if (!pp->cpu_ns && !pp->calls)
			continue;
		shown++;
		fprintf(f, "\n  %s\n    CPU %s (%.1f%%), critical path ",
			pp->name, cp_fmt_ns(a, sizeof(a), pp->cpu_ns),
			cp_pct(pp->cpu_ns, p->useful_ns));
		if (pp->cp_unknown)
			fprintf(f, "- (not followed), ");
		else
			fprintf(f, "%s (%.1f%%), ",
				cp_fmt_ns(b, sizeof(b), pp->cp_ns),
				cp_pct(pp->cp_ns, p->cp_len));
		if (p->sampled && pp->cp_unknown)
			fprintf(f, "%" PRIu64 " samples", pp->samples);
		else if (p->sampled)
			fprintf(f, "%" PRIu64 " samples (%" PRIu64 " on the "
				"CP)%s", pp->samples, pp->cp_samples,
				cp_compare_thin(p, pp) ? ", thin" : "");
		else
			fprintf(f, "%" PRIu64 " calls", pp->calls);
		if (pp->computed)
			fprintf(f, ", zeroing saves %s",
				cp_fmt_ns(a, sizeof(a), pp->zero_ns));
		fprintf(f, "\n");
		n = select_sorted(tproc, true, pp->proc, 0, idx);
		for (uint32_t k = 0; k < n && k < SUB_ROWS; k++) {
			const uint64_t *v = tproc->v[idx[k]];

			fprintf(f, "    %-20s CPU %10s   on the CP %10s\n",
				tname(p, tproc->a[idx[k]], nm, sizeof(nm)),
				cp_fmt_ns(a, sizeof(a), v[0]),
				fmt_known(b, sizeof(b), v[1],
					  d->in->cp_known));
		}
		if (n > SUB_ROWS)
			fprintf(f, "    ... and %u more threads\n",
				n - SUB_ROWS);
	}
	if (shown < p->nprocs)
		fprintf(f, "\n  (procedures beyond the first %u not shown; "
			"--top 0 shows all)\n", shown);
	free(idx);
	return 0;
}

/* qsort of pointers by cp_profile_obj_cmp(). */
static int cmp_obj(const void *x, const void *y)
{
	return cp_profile_obj_cmp(*(const struct cp_obj_prof *const *)x,
				  *(const struct cp_obj_prof *const *)y);
}

static int cmp_wait(const void *x, const void *y)
{
	const struct cp_obj_prof *a = *(const struct cp_obj_prof *const *)x;
	const struct cp_obj_prof *b = *(const struct cp_obj_prof *const *)y;

	if (a->wait_ns != b->wait_ns)
		return a->wait_ns > b->wait_ns ? -1 : 1;
	return a->obj < b->obj ? -1 : 1;
}

/* One row of the objects on the critical path. */
static void object_row(FILE *f, const struct cp_obj_prof *o)
{
	char on[64], b[32], a[32], c[32], d1[32], d2[32], d3[32], site[CP_REPORT_SITE_LEN];
	bool lock = cp_profile_is_lock(o->kind);

	snprintf(on, sizeof(on), "%s#%u", cp_obj_kind_name(o->kind), o->obj);
	if (cp_obj_kind_has_addr(o->kind))
		snprintf(b, sizeof(b), "0x%" PRIx64, o->addr);
	else
		snprintf(b, sizeof(b), "-");
	fprintf(f, "  %-14s %-18s %8" PRIu64 " %7" PRIu64 " %10s %10s "
		"%10s %10s %6" PRIu64 " %10s  %s%s\n", on, b, o->ops, o->waits,
		cp_fmt_ns(a, sizeof(a), o->wait_ns),
		cp_fmt_ns(c, sizeof(c), o->waits ? o->wait_ns / o->waits : 0),
		lock ? cp_fmt_ns(d1, sizeof(d1), o->held_ns) : "-",
		lock ? cp_fmt_ns(d2, sizeof(d2), o->cp_held_ns) : "-",
		o->cp_cross, cp_fmt_ns(d3, sizeof(d3), o->gain_ns),
		cp_report_out_site(&o->site, site, sizeof(site)),
		o->untracked ? "  (untracked)" : "");
}

/* The objects of one kind that were used, and what they cost. */
struct kind_sum {
	uint64_t n, oncp, waits, wait_ns;
	uint64_t unknown;	/* (streamed) not followed: on the CP or not */
};

/* The "By kind" lines of the object view, one per kind used. */
static void by_kind(FILE *f, const struct kind_sum *kind)
{
	char a[32];

	fprintf(f, "\n  By kind:\n");
	for (unsigned k = 1; k <= CP_OBJ_KIND_MAX; k++) {
		if (!kind[k].n)
			continue;
		fprintf(f, "    %-8s %7" PRIu64 " %s%s, %" PRIu64 " on the "
			"critical path", cp_obj_kind_name(k), kind[k].n,
			k == CP_OBJ_ITEM ? "work-queue item" : "object",
			kind[k].n == 1 ? "" : "s", kind[k].oncp);
		if (kind[k].unknown)
			fprintf(f, " (%" PRIu64 " not followed)",
				kind[k].unknown);
		fprintf(f, "; %" PRIu64 " waits, %s waiting\n", kind[k].waits,
			cp_fmt_ns(a, sizeof(a), kind[k].wait_ns));
	}
}

static int object_view(FILE *f, const struct vd *d, uint32_t max)
{
	const struct cp_profile *p = d->p;
	const struct cp_obj_prof **v = malloc((p->nobjs + 1) * sizeof(*v));
	const struct cp_obj_prof **w = malloc((p->nobjs + 1) * sizeof(*w));
	struct kind_sum kind[CP_OBJ_KIND_MAX + 1];
	uint32_t n = 0, nw = 0, rest = 0, unknown = 0;
	uint64_t rest_wait = 0, unknown_wait = 0;
	char a[32], b[32];

	if (!v || !w) {
		free(v);
		free(w);
		return -1;
	}
	memset(kind, 0, sizeof(kind));
	for (uint32_t i = 0; i < p->nobjs; i++) {
		const struct cp_obj_prof *o = &p->objs[i];
		bool cp = o->cp_cross || o->cp_held_ns;
		unsigned k = o->kind <= CP_OBJ_KIND_MAX ? o->kind : 0;

		if (!o->ops && !o->waits)
			continue;
		kind[k].n++;
		kind[k].oncp += cp;
		kind[k].waits += o->waits;
		kind[k].wait_ns += o->wait_ns;
		if (o->cp_unknown) {
			kind[k].unknown++;
			unknown++;
			unknown_wait += o->wait_ns;
		} else if (cp && o->kind != CP_OBJ_ITEM) {
			v[n++] = o;
		} else if (!cp) {
			rest++;
			rest_wait += o->wait_ns;
			if (o->wait_ns && o->kind != CP_OBJ_ITEM)
				w[nw++] = o;
		}
	}
	qsort(v, n, sizeof(*v), cmp_obj);
	qsort(w, nw, sizeof(*w), cmp_wait);
	fprintf(f, "Synchronization objects on the critical path (the path "
		"crosses between threads\nthrough them or runs while holding "
		"them), by time held on the path and path gain\n\n");
	if (!n) {
		fprintf(f, "  none%s: the critical path stays within threads, "
			"or passes only thread create/join.\n",
			unknown ? " of those followed" : "");
	} else {
		fprintf(f, "  %-14s %-18s %8s %7s %10s %10s %10s %10s %6s "
			"%10s  %s\n", "object", "address", "ops", "waits",
			"waited", "mean wait", "held", "held on CP", "CP x",
			"path gain", "first used in");
	}
	for (uint32_t i = 0; i < n && i < max; i++)
		object_row(f, v[i]);
	if (n > max)
		fprintf(f, "  ... %u more (--top 0 shows all)\n", n - max);
	if (rest)
		fprintf(f, "\n  Not on the critical path: %u object%s; threads "
			"waited %s on them in all%s\n", rest,
			rest == 1 ? "" : "s",
			cp_fmt_ns(a, sizeof(a), rest_wait),
			nw ? ", most on:" : ".");
	for (uint32_t i = 0; i < nw && i < SUB_ROWS; i++)
		fprintf(f, "    %s#%u  %" PRIu64 " waits, %s (mean %s)\n",
			cp_obj_kind_name(w[i]->kind), w[i]->obj, w[i]->waits,
			cp_fmt_ns(a, sizeof(a), w[i]->wait_ns),
			cp_fmt_ns(b, sizeof(b), w[i]->waits ?
				  w[i]->wait_ns / w[i]->waits : 0));
	if (unknown)
		fprintf(f, "\n  Not followed (their CP figures are known for "
			"the objects most held and\n  waited for only): %u "
			"object%s; threads waited %s on them in all.\n",
			unknown, unknown == 1 ? "" : "s",
			cp_fmt_ns(a, sizeof(a), unknown_wait));
	by_kind(f, kind);
	free(v);
	free(w);
	return 0;
}

int cp_views_print_data(FILE *f, const struct cp_profile *p,
			const struct cp_views_data *in, enum cp_view v,
			uint32_t max)
{
	struct vd d = { .p = p, .in = in };
	int ret = 0;

	if (!max)
		max = MAX_DEFAULT;
	if (vd_names(&d))
		return -1;
	switch (v) {
	case CP_VIEW_PROGRAM:
		program(f, &d);
		break;
	case CP_VIEW_THREAD:
		ret = thread_view(f, &d, max);
		break;
	case CP_VIEW_PROCEDURE:
		ret = procedure_view(f, &d, max);
		break;
	case CP_VIEW_OBJECT:
		ret = object_view(f, &d, max);
		break;
	default:
		break;
	}
	free(d.pnames);
	return ret;
}

int cp_views_print(FILE *f, const struct cp_profile *p, enum cp_view v,
		   uint32_t max)
{
	struct cp_views_graph g;
	int ret = -1;

	if (!cp_views_graph_build(&g, p))
		ret = cp_views_print_data(f, p, &g.d, v, max);
	cp_views_graph_free(&g);
	return ret;
}
