/*
 * cmd_report.c - `cpt report TRACE|PAG`: the critical-path report.
 *
 * First what a user needs to decide where to look: CP length, maximum
 * parallelism and the IPS summary; then the procedure table (CPU time, CP
 * time, CP zeroing, Slack and MBM, each with its percentage, by CP time),
 * then threads and objects.  The JSON form uses the interface contract's
 * keys ("clock", "threads", "elapsed_ns", "cpu_ns", "critical_path":
 * {"length_ns", "procedures": [{"name", "cp_ns", "cp_zero_ns", "cpu_ns",
 * "slack_ns", "mbm_ns"}]}) plus the details.  A plain-text PAG gets the
 * same table by edge label.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cp_compare.h"
#include "cp_gprof.h"
#include "cp_html.h"
#include "cp_kpaths.h"
#include "cp_mbm.h"
#include "cp_profile.h"
#include "cp_sampled.h"
#include "cp_samples.h"
#include "cp_slack.h"
#include "cp_views.h"
#include "cp_zero.h"
#include "cpt.h"
#include "cpt_input.h"

#define TEXT_ROWS 40		/* procedure rows shown by default */
#define TEXT_OBJ_ROWS 20
#define TOP_DEFAULT 20		/* procedures with zeroing/Slack/MBM */
#define HOT_LINES 10		/* sampled: hottest source lines shown */

struct ropts {
	uint32_t k;
	uint32_t top;		/* 0: all */
	bool top_given;
	bool exclusive;
	const char *gprof, *exe;	/* --gprof GMON --exe PROGRAM */
	enum cp_view by;		/* --by: one level of the hierarchy */
};

/* One row of the procedure (or label) table. */
struct row {
	const char *name;
	uint64_t cpu, cp, zero, slack, mbm, calls;
	bool computed;
};

static void cell(FILE *f, bool ns, uint64_t v, uint64_t whole, bool show)
{
	char a[32], p[16];

	if (!show) {
		fprintf(f, " %10s %6s", "-", "");
		return;
	}
	if (ns)
		cpt_fmt_ns(a, sizeof(a), v);
	else
		snprintf(a, sizeof(a), "%" PRIu64, v);
	fprintf(f, " %10s %6s", a, cpt_fmt_pct(p, sizeof(p),
					       cp_pct(v, whole)));
}

static void table(FILE *f, const struct row *rows, uint32_t n, uint32_t max,
		  uint64_t cpu_total, uint64_t cp_len, bool ns, bool calls,
		  const char *what, const char *first)
{
	int w = 9;
	uint32_t shown = n < max ? n : max;

	for (uint32_t i = 0; i < shown; i++) {
		int l = (int)strlen(rows[i].name);

		if (l > w)
			w = l;
	}
	if (w > 40)
		w = 40;
	fprintf(f, "  %-*s %10s %6s %10s %6s %10s %6s %10s %6s %10s %6s%s\n",
		w, what, first, "%", "CP time", "%", "CP zero", "%", "Slack",
		"%", "MBM", "%", calls ? "   calls" : "");
	for (uint32_t i = 0; i < shown; i++) {
		const struct row *r = &rows[i];

		if ((int)strlen(r->name) > w)
			fprintf(f, "  %.*s...", w - 3, r->name);
		else
			fprintf(f, "  %-*s", w, r->name);
		cell(f, ns, r->cpu, cpu_total, true);
		cell(f, ns, r->cp, cp_len, true);
		cell(f, ns, r->zero, cp_len, r->computed || !r->cp);
		cell(f, ns, r->slack, cp_len, r->computed || !r->cp);
		cell(f, ns, r->mbm, cp_len, r->computed || !r->cp);
		if (calls)
			fprintf(f, " %7" PRIu64, r->calls);
		fprintf(f, "\n");
	}
	if (n > shown)
		fprintf(f, "  ... %u more (--top 0 shows all)\n", n - shown);
}

/* The sentence that says what the table means. */
static void headline(FILE *f, const struct row *rows, uint32_t n,
		     uint64_t cpu_total, uint64_t cp_len)
{
	uint32_t best = UINT32_MAX;
	double gap = 0;

	/* the procedure whose CP share most exceeds its CPU share */
	for (uint32_t i = 0; i < n; i++) {
		double d = cp_pct(rows[i].cp, cp_len) -
			   cp_pct(rows[i].cpu, cpu_total);

		/* a procedure that spans the whole path (main, a thread's
		 * start routine) tells nothing */
		if (rows[i].cp && rows[i].cp < cp_len / 20 * 19 &&
		    d > gap + 1e-9) {
			gap = d;
			best = i;
		}
	}
	if (best == UINT32_MAX || gap < 5.0)
		return;
	fprintf(f, "  %s: %.0f%% of the CPU time, %.0f%% of the critical path: "
		"it runs while other threads wait",
		rows[best].name, cp_pct(rows[best].cpu, cpu_total),
		cp_pct(rows[best].cp, cp_len));
	if (rows[best].computed && rows[best].zero * 2 < rows[best].cp)
		fprintf(f, ";\n  but another path is nearly as long: making it "
			"free would save %.0f%% (CP zeroing)",
			cp_pct(rows[best].zero, cp_len));
	fprintf(f, ".\n\n");
}

/* ---- traces -------------------------------------------------------- */

static bool is_lock_kind(unsigned k)
{
	return k == CP_OBJ_MUTEX || k == CP_OBJ_SPIN || k == CP_OBJ_RWLOCK;
}

static int cmp_obj(const void *a, const void *b)
{
	const struct cp_obj_prof *x = a, *y = b;
	uint64_t kx = x->cp_held_ns + x->gain_ns,
		 ky = y->cp_held_ns + y->gain_ns;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	return x->obj < y->obj ? -1 : x->obj > y->obj;
}

/* INFO keys of the runtime's notes on waits it could not see
 * (cp_unseen.h), repeated by the report. */
static const char *const runtime_notes[] = {
	"note.unexplained", "note.library",
};

static void trace_text(struct cpt_ctx *c, const struct cpt_input *in,
		       const struct cp_profile *p, const struct ropts *o,
		       struct row *rows, uint32_t nrows,
		       const struct cp_compare *cmp)
{
	FILE *f = c->out;
	const struct cp_trace *t = &in->t;
	char a[32], b[32], d[32];
	uint32_t max = o->top_given ? (o->top ? o->top : UINT32_MAX)
				    : TEXT_ROWS;
	struct cp_obj_prof *objs;
	uint32_t nobj = 0;

	fprintf(f, "cpthread report: %s  (clock %s, %u threads, %" PRIu64
		" events)\n\n", in->path,
		t->clock == CP_CLOCK_CPU ? "cpu" : "wall", p->nthreads,
		t->nevents);
	cpt_input_print_salvage(f, in);
	fprintf(f, "  critical path   %12s", cpt_fmt_ns(a, sizeof(a), p->cp_len));
	if (p->online_len && p->online_len != p->cp_len)
		fprintf(f, "   (online: %s)", cpt_fmt_ns(b, sizeof(b),
							 p->online_len));
	fprintf(f, "\n  elapsed         %12s   useful (CPU) %s   waiting %s\n",
		cpt_fmt_ns(a, sizeof(a), p->elapsed_ns),
		cpt_fmt_ns(b, sizeof(b), p->useful_ns),
		cpt_fmt_ns(d, sizeof(d), p->wait_ns));
	fprintf(f, "  parallelism     %12.2f   maximum parallelism %.2f"
		"  (useful time / critical path)\n\n", p->parallelism,
		p->max_parallelism);
	if (t->has_startstop)
		fprintf(f, "  note: the program started/stopped the computation; "
			"this report covers the whole run.\n\n");
	for (size_t i = 0; i < sizeof(runtime_notes) /
	     sizeof(runtime_notes[0]); i++) {
		const char *v = cp_trace_info(t, runtime_notes[i]);

		if (v && *v)
			fprintf(f, "  note: %s\n\n", v);
	}
	if (cmp && (nrows || cmp->gp)) {
		/* CPU (gprof) vs critical path: cp_compare.c */
		cp_compare_print(f, cmp, max);
		fprintf(f, "\n");
		cp_sampled_print(f, t, HOT_LINES);
		if (t->samples && t->samples->decoded)
			fprintf(f, "\n");
	} else if (!nrows) {
		fprintf(f, "  No procedure activity in this trace: trace with "
			"the sampler on (the default\n  in trace mode), build "
			"with -finstrument-functions, or mark regions with\n"
			"  cpthread_region_begin/end to get a procedure "
			"table.\n\n");
	} else {
		fprintf(f, "Procedures (%s, by CP time; %% of CPU time, and of "
			"the critical path;\nMBM over the %u longest paths)\n",
			p->exclusive ? "exclusive" : "inclusive", p->npaths);
		headline(f, rows, nrows, p->useful_ns, p->cp_len);
		table(f, rows, nrows, max, p->useful_ns, p->cp_len, true, true,
		      "procedure", "CPU time");
		for (uint32_t i = 0; i < nrows; i++)
			if (rows[i].cp && !rows[i].computed) {
				fprintf(f, "  (zeroing, Slack and MBM of the %u "
					"procedures with the most CP time; "
					"--top N for more, --top 0 for all)\n",
					o->top_given ? o->top : TOP_DEFAULT);
				break;
			}
		fprintf(f, "\n");
	}
	fprintf(f, "Threads\n  %-6s %-12s %11s %11s %11s %11s %6s %13s %8s\n",
		"thread", "name", "elapsed", "useful", "waiting", "CP time",
		"CP %", "longest path", p->sampled ? "samples" : "calls");
	for (uint32_t i = 0; i < p->nthreads_all; i++) {
		const struct cp_thread_prof *th = &p->threads[i];
		char e1[32], e2[32], e3[32], e4[32], e5[32], pc[16], tn[16];

		if (!th->nv)
			continue;
		snprintf(tn, sizeof(tn), "T%u", th->tid);
		fprintf(f, "  %-6s %-12.12s %11s %11s %11s %11s %6s %13s %8" PRIu64 "\n",
			tn, th->name ? th->name : "",
			cpt_fmt_ns(e1, sizeof(e1), th->elapsed_ns),
			cpt_fmt_ns(e2, sizeof(e2), th->useful_ns),
			cpt_fmt_ns(e3, sizeof(e3), th->wait_ns),
			cpt_fmt_ns(e4, sizeof(e4), th->cp_ns),
			cpt_fmt_pct(pc, sizeof(pc),
				    cp_pct(th->cp_ns, p->cp_len)),
			cpt_fmt_ns(e5, sizeof(e5), th->len_ns),
			p->sampled ? th->samples : th->calls);
	}
	objs = malloc((p->nobjs + 1) * sizeof(*objs));
	if (objs) {
		struct cp_obj_prof items = { .kind = CP_OBJ_ITEM };
		uint32_t nitems = 0;

		/* work-queue items are many and alike: one row for all */
		for (uint32_t i = 0; i < p->nobjs; i++) {
			const struct cp_obj_prof *ob = &p->objs[i];

			if (!ob->ops)
				continue;
			if (ob->kind != CP_OBJ_ITEM) {
				objs[nobj++] = *ob;
				continue;
			}
			nitems++;
			items.ops += ob->ops;
			items.waits += ob->waits;
			items.wait_ns += ob->wait_ns;
			items.cp_cross += ob->cp_cross;
			items.gain_ns += ob->gain_ns;
		}
		if (nitems) {
			items.obj = nitems;	/* shown as "items (N)" */
			objs[nobj++] = items;
		}
		qsort(objs, nobj, sizeof(*objs), cmp_obj);
	}
	fprintf(f, "\nObjects");
	if (!nobj)
		fprintf(f, ": no synchronization seen.\n");
	else
		fprintf(f, " (by CP time held plus path gain)\n  %-12s %-8s %8s %7s %11s %11s %11s %9s %11s\n",
			"object", "kind", "ops", "waits", "waited", "held",
			"CP held", "CP edges", "path gain");
	for (uint32_t i = 0; i < nobj && i < (o->top_given && !o->top ?
			UINT32_MAX : TEXT_OBJ_ROWS); i++) {
		const struct cp_obj_prof *ob = &objs[i];
		char on[32], e1[32], e2[32], e3[32], e4[32];

		if (ob->kind == CP_OBJ_ITEM)
			snprintf(on, sizeof(on), "items (%u)", ob->obj);
		else
			snprintf(on, sizeof(on), "%s#%u",
				 cp_obj_kind_name(ob->kind), ob->obj);
		fprintf(f, "  %-12s %-8s %8" PRIu64 " %7" PRIu64 " %11s %11s %11s %9" PRIu64 " %11s%s\n",
			on, cp_obj_kind_name(ob->kind), ob->ops, ob->waits,
			cpt_fmt_ns(e1, sizeof(e1), ob->wait_ns),
			is_lock_kind(ob->kind) && !ob->untracked ?
				cpt_fmt_ns(e2, sizeof(e2), ob->held_ns) : "-",
			is_lock_kind(ob->kind) && !ob->untracked ?
				cpt_fmt_ns(e3, sizeof(e3), ob->cp_held_ns) : "-",
			ob->cp_cross, cpt_fmt_ns(e4, sizeof(e4), ob->gain_ns),
			ob->untracked ? "  (untracked)" : "");
	}
	if (nobj > TEXT_OBJ_ROWS && !(o->top_given && !o->top))
		fprintf(f, "  ... %u more (--top 0 shows all)\n",
			nobj - TEXT_OBJ_ROWS);
	free(objs);
}

static void emit_pct(struct cp_emit *e, const char *key, uint64_t v,
		     uint64_t whole)
{
	cp_emit_f64(e, key, cp_pct(v, whole));
}

static void trace_json(struct cpt_ctx *c, const struct cpt_input *in,
		       const struct cp_profile *p,
		       const struct cp_compare *cmp)
{
	const struct cp_trace *t = &in->t;
	struct cp_emit e;
	char nm[32];

	cpt_json_begin(c, &e);
	cp_emit_obj_begin(&e, NULL);
	cp_emit_str(&e, "trace", in->path);
	if (cmp)	/* headline, gprof */
		cp_compare_emit_summary(&e, cmp);
	cp_emit_str(&e, "clock", t->clock == CP_CLOCK_CPU ? "cpu" : "wall");
	cp_emit_str(&e, "procedures_from", p->sampled ? "samples" :
		    "instrumentation");
	cp_sampled_emit(&e, t, HOT_LINES);
	cp_emit_u64(&e, "threads", p->nthreads);
	cp_emit_u64(&e, "events", t->nevents);
	cpt_input_emit_salvage(&e, in);
	cp_emit_u64(&e, "elapsed_ns", p->elapsed_ns);
	cp_emit_u64(&e, "cpu_ns", p->useful_ns);
	cp_emit_u64(&e, "wait_ns", p->wait_ns);
	cp_emit_f64(&e, "parallelism", p->parallelism);
	cp_emit_f64(&e, "max_parallelism", p->max_parallelism);
	cp_emit_arr_begin(&e, "notes");
	for (size_t i = 0; i < sizeof(runtime_notes) /
	     sizeof(runtime_notes[0]); i++) {
		const char *v = cp_trace_info(t, runtime_notes[i]);

		if (v && *v)
			cp_emit_str(&e, NULL, v);
	}
	cp_emit_arr_end(&e);
	cp_emit_obj_begin(&e, "critical_path");
	cp_emit_u64(&e, "length_ns", p->cp_len);
	cp_emit_u64(&e, "online_length_ns", p->online_len);
	cp_emit_str(&e, "mode", p->exclusive ? "exclusive" : "inclusive");
	cp_emit_u64(&e, "k", p->k);
	cp_emit_u64(&e, "paths", p->npaths);
	cp_emit_arr_begin(&e, "procedures");
	for (uint32_t i = 0; i < p->nprocs; i++) {
		const struct cp_proc_prof *pp = &p->procs[i];
		bool known = pp->computed || !pp->cp_ns;

		cp_emit_obj_begin(&e, NULL);
		cp_emit_str(&e, "name", pp->name);
		if (cmp)	/* gprof_ns, gprof_pct, ranks */
			cp_compare_emit_proc(&e, cmp, pp->name);
		cp_emit_u64(&e, "cp_ns", pp->cp_ns);
		emit_pct(&e, "cp_pct", pp->cp_ns, p->cp_len);
		if (known) {
			cp_emit_u64(&e, "cp_zero_ns", pp->zero_ns);
			emit_pct(&e, "cp_zero_pct", pp->zero_ns, p->cp_len);
			cp_emit_u64(&e, "slack_ns", pp->slack_ns);
			emit_pct(&e, "slack_pct", pp->slack_ns, p->cp_len);
			cp_emit_u64(&e, "mbm_ns", pp->mbm_ns);
			emit_pct(&e, "mbm_pct", pp->mbm_ns, p->cp_len);
		} else {
			cp_emit_null(&e, "cp_zero_ns");
			cp_emit_null(&e, "cp_zero_pct");
			cp_emit_null(&e, "slack_ns");
			cp_emit_null(&e, "slack_pct");
			cp_emit_null(&e, "mbm_ns");
			cp_emit_null(&e, "mbm_pct");
		}
		cp_emit_u64(&e, "cpu_ns", pp->cpu_ns);
		emit_pct(&e, "cpu_pct", pp->cpu_ns, p->useful_ns);
		cp_emit_u64(&e, "calls", pp->calls);
		cp_emit_u64(&e, "cpu_incl_ns", pp->cpu_incl_ns);
		cp_emit_u64(&e, "cpu_excl_ns", pp->cpu_excl_ns);
		cp_emit_u64(&e, "cp_incl_ns", pp->cp_incl_ns);
		cp_emit_u64(&e, "cp_excl_ns", pp->cp_excl_ns);
		if (p->sampled) {
			cp_emit_u64(&e, "samples", pp->samples);
			cp_emit_u64(&e, "cp_samples", pp->cp_samples);
			cp_emit_bool(&e, "thin", cp_compare_thin(p, pp));
		}
		cp_emit_obj_end(&e);
	}
	cp_emit_arr_end(&e);
	cp_emit_obj_end(&e);
	cp_emit_arr_begin(&e, "threads_detail");
	for (uint32_t i = 0; i < p->nthreads_all; i++) {
		const struct cp_thread_prof *th = &p->threads[i];

		if (!th->nv)
			continue;
		cp_emit_obj_begin(&e, NULL);
		cp_emit_u64(&e, "tid", th->tid);
		if (in->t.threads[th->tid].parent == UINT32_MAX)
			cp_emit_null(&e, "parent");
		else
			cp_emit_u64(&e, "parent",
				    in->t.threads[th->tid].parent);
		cp_emit_str(&e, "name", th->name);
		cp_emit_bool(&e, "exited",
			     in->t.threads[th->tid].exit_v != UINT32_MAX);
		cp_emit_u64(&e, "elapsed_ns", th->elapsed_ns);
		cp_emit_u64(&e, "useful_ns", th->useful_ns);
		cp_emit_u64(&e, "wait_ns", th->wait_ns);
		cp_emit_u64(&e, "cp_ns", th->cp_ns);
		emit_pct(&e, "cp_pct", th->cp_ns, p->cp_len);
		cp_emit_u64(&e, "len_ns", th->len_ns);
		cp_emit_f64(&e, "utilization", th->elapsed_ns ?
			    (double)th->useful_ns / (double)th->elapsed_ns : 0);
		cp_emit_u64(&e, "calls", th->calls);
		if (p->sampled)
			cp_emit_u64(&e, "samples", th->samples);
		cp_emit_obj_end(&e);
	}
	cp_emit_arr_end(&e);
	cp_emit_arr_begin(&e, "objects");
	for (uint32_t i = 0; i < p->nobjs; i++) {
		const struct cp_obj_prof *ob = &p->objs[i];

		if (!ob->ops)
			continue;
		cp_emit_obj_begin(&e, NULL);
		cp_emit_u64(&e, "id", ob->obj);
		cp_emit_str(&e, "kind", cp_obj_kind_name(ob->kind));
		snprintf(nm, sizeof(nm), "0x%" PRIx64, ob->addr);
		cp_emit_str(&e, "address", nm);
		cp_emit_bool(&e, "untracked", ob->untracked);
		cp_emit_u64(&e, "ops", ob->ops);
		cp_emit_u64(&e, "contended", ob->waits);
		cp_emit_u64(&e, "wait_ns", ob->wait_ns);
		cp_emit_u64(&e, "cp_gain_ns", ob->gain_ns);
		cp_emit_u64(&e, "held_ns", ob->held_ns);
		cp_emit_u64(&e, "cp_held_ns", ob->cp_held_ns);
		cp_emit_u64(&e, "cp_edges", ob->cp_cross);
		cp_emit_obj_end(&e);
	}
	cp_emit_arr_end(&e);
	cp_emit_obj_end(&e);
	cp_emit_end(&e);
}

static enum cpt_status report_trace(struct cpt_ctx *c, struct cpt_input *in,
				    const struct ropts *o)
{
	struct cp_profile_opts po = {
		.exclusive = o->exclusive, .k = o->k,
		.top = o->top_given ? o->top : TOP_DEFAULT,
		.progress = cpt_progress, .progress_ctx = c,
	};
	struct cp_profile p;
	struct row *rows;
	uint32_t nrows = 0;
	enum cpt_status st;
	struct cp_gprof gp = { .n = 0 };
	struct cp_compare cmp;
	bool have_cmp;

	if (o->gprof && cp_gprof_run(&gp, NULL, o->exe, o->gprof, c->err,
				     sizeof(c->err)))
		return CPT_BAD_INPUT;
	if (cp_profile_compute(&p, &in->tp, &po, c->err, sizeof(c->err))) {
		cp_gprof_free(&gp);
		return CPT_BAD_INPUT;
	}
	have_cmp = !cp_compare_build(&cmp, &p, o->gprof ? &gp : NULL);
	rows = calloc(p.nprocs ? p.nprocs : 1, sizeof(*rows));
	if (!rows) {
		snprintf(c->err, sizeof(c->err), "%s: out of memory", in->path);
		cp_profile_free(&p);
		return CPT_BAD_INPUT;
	}
	for (uint32_t i = 0; i < p.nprocs; i++) {
		const struct cp_proc_prof *pp = &p.procs[i];

		if (!pp->cpu_ns && !pp->cp_ns && !pp->calls)
			continue;
		rows[nrows++] = (struct row){
			.name = pp->name, .cpu = pp->cpu_ns, .cp = pp->cp_ns,
			.zero = pp->zero_ns, .slack = pp->slack_ns,
			.mbm = pp->mbm_ns, .calls = pp->calls,
			.computed = pp->computed,
		};
	}
	st = cpt_open_out(c);
	if (st == CPT_OK) {
		cpt_progress_done(c);
		if (c->format == CPT_HTML) {
			struct cp_html_opts ho = { .title = in->path };

			if (!have_cmp || cp_html_write(c->out, &p, &cmp, &ho,
						       c->err, sizeof(c->err)))
				st = CPT_BAD_INPUT;
		} else if (c->format == CPT_JSON) {
			trace_json(c, in, &p, have_cmp ? &cmp : NULL);
		} else if (o->by) {
			if (cp_views_print(c->out, &p, o->by, o->top_given ?
					   (o->top ? o->top : UINT32_MAX) : 0))
				st = CPT_BAD_INPUT;
		} else {
			trace_text(c, in, &p, o, rows, nrows,
				   have_cmp ? &cmp : NULL);
		}
		if (st != CPT_OK && !c->err[0])
			snprintf(c->err, sizeof(c->err), "%s: out of memory",
				 in->path);
	}
	if (have_cmp)
		cp_compare_free(&cmp);
	cp_gprof_free(&gp);
	free(rows);
	cp_profile_free(&p);
	return st;
}

/* ---- plain PAGs: the same table by edge label ---------------------- */

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->cp != y->cp)
		return x->cp > y->cp ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu > y->cpu ? -1 : 1;
	return strcmp(x->name, y->name);
}

static enum cpt_status report_pag(struct cpt_ctx *c, struct cpt_input *in,
				  const struct ropts *o)
{
	const struct cp_pag *g = in->g;
	uint32_t nl = g->nlabels;
	struct cp_groups gr = { .n = nl, .of = g->label };
	struct cp_cpm cpm;
	struct cp_kpaths kp;
	uint64_t *cp = calloc(nl + 1, sizeof(*cp)), *zl = calloc(nl + 1, 8);
	uint64_t *sl = calloc(nl + 1, 8), *mb = calloc(nl + 1, 8);
	uint64_t total = 0;
	struct row *rows = calloc(nl + 1, sizeof(*rows));
	enum cpt_status st = CPT_BAD_INPUT;
	bool cpm_ok = false, kp_ok = false;

	snprintf(c->err, sizeof(c->err), "%s: out of memory", in->path);
	if (!cp || !zl || !sl || !mb || !rows)
		goto out;
	if (cp_cpm_run(&cpm, g, NULL))
		goto out;
	cpm_ok = true;
	cp_cpm_group_time(&cpm, &gr, cp);
	if (cp_zero_all(&cpm, &gr, NULL, zl) ||
	    cp_slack_all(&cpm, &gr, NULL, sl))
		goto out;
	if (cp_kpaths_find(&kp, &cpm, o->k ? o->k : 100))
		goto out;
	kp_ok = true;
	if (cp_mbm_compute(&kp, &gr, mb))
		goto out;
	for (uint32_t l = 0; l < nl; l++) {
		rows[l].name = g->labels[l];
		rows[l].cp = cp[l];
		rows[l].zero = cpm.length - zl[l];
		rows[l].slack = sl[l];
		rows[l].mbm = mb[l];
		rows[l].computed = true;
	}
	for (uint32_t e = 0; e < g->ne; e++) {
		total += g->w[e];
		if (g->label[e] != CP_PAG_NONE)
			rows[g->label[e]].cpu += g->w[e];
	}
	qsort(rows, nl, sizeof(*rows), cmp_row);
	st = cpt_open_out(c);
	if (st != CPT_OK)
		goto out;
	cpt_progress_done(c);
	if (c->format == CPT_JSON) {
		struct cp_emit e;

		cpt_json_begin(c, &e);
		cp_emit_obj_begin(&e, NULL);
		cp_emit_str(&e, "graph", in->path);
		cp_emit_u64(&e, "vertices", g->nv);
		cp_emit_u64(&e, "edges", g->ne);
		cp_emit_u64(&e, "cpu_ns", total);
		cp_emit_f64(&e, "max_parallelism", cpm.length ?
			    (double)total / (double)cpm.length : 0);
		cp_emit_obj_begin(&e, "critical_path");
		cp_emit_u64(&e, "length_ns", cpm.length);
		cp_emit_u64(&e, "paths", kp.n);
		cp_emit_arr_begin(&e, "procedures");
		for (uint32_t l = 0; l < nl; l++) {
			cp_emit_obj_begin(&e, NULL);
			cp_emit_str(&e, "name", rows[l].name);
			cp_emit_u64(&e, "cp_ns", rows[l].cp);
			cp_emit_u64(&e, "cp_zero_ns", rows[l].zero);
			cp_emit_u64(&e, "cpu_ns", rows[l].cpu);
			cp_emit_u64(&e, "slack_ns", rows[l].slack);
			cp_emit_u64(&e, "mbm_ns", rows[l].mbm);
			cp_emit_obj_end(&e);
		}
		cp_emit_arr_end(&e);
		cp_emit_obj_end(&e);
		cp_emit_obj_end(&e);
		cp_emit_end(&e);
	} else {
		FILE *f = c->out;

		fprintf(f, "cpthread report: %s  (graph: %u vertices, %u edges)\n\n",
			in->path, g->nv, g->ne);
		fprintf(f, "  critical path   %12" PRIu64 "\n", cpm.length);
		fprintf(f, "  total weight    %12" PRIu64 "   maximum parallelism %.2f\n\n",
			total, cpm.length ? (double)total / (double)cpm.length
					  : 0.0);
		if (nl) {
			fprintf(f, "Edges by label (by CP time; %% of total "
				"weight, and of the critical path;\nMBM over "
				"the %u longest paths)\n", kp.n);
			table(f, rows, nl, o->top_given && o->top ? o->top :
			      (o->top_given ? UINT32_MAX : TEXT_ROWS), total,
			      cpm.length, false, false, "label", "weight");
		} else {
			fprintf(f, "  (no edge has a label: nothing to group "
				"by)\n");
		}
	}
	st = CPT_OK;
out:
	if (kp_ok)
		cp_kpaths_free(&kp);
	if (cpm_ok)
		cp_cpm_free(&cpm);
	free(cp);
	free(zl);
	free(sl);
	free(mb);
	free(rows);
	return st;
}

enum cpt_status cpt_cmd_report(struct cpt_ctx *c, int argc, char **argv)
{
	struct ropts o = { .k = 0 };
	const char *path = NULL;
	struct cpt_input in;
	enum cpt_status st;

	for (int i = 1; i < argc; i++) {
		int r = cpt_common_opt(c, argc, argv, &i);
		const char *a = argv[i];

		if (r < 0)
			return CPT_USAGE;
		if (r)
			continue;
		if (!strcmp(a, "--gprof") || !strcmp(a, "--exe") ||
		    !strcmp(a, "--by")) {
			if (i + 1 >= argc) {
				snprintf(c->err, sizeof(c->err),
					 "%s needs a value", a);
				return CPT_USAGE;
			}
			i++;
			if (!strcmp(a, "--gprof")) {
				o.gprof = argv[i];
			} else if (!strcmp(a, "--exe")) {
				o.exe = argv[i];
			} else if (!(o.by = cp_view_parse(argv[i]))) {
				snprintf(c->err, sizeof(c->err),
					 "--by program, thread, procedure or "
					 "object, not '%s'", argv[i]);
				return CPT_USAGE;
			}
		} else if (!strcmp(a, "--exclusive")) {
			o.exclusive = true;
		} else if (!strcmp(a, "--inclusive")) {
			o.exclusive = false;
		} else if (!strcmp(a, "--k") || !strcmp(a, "-k") ||
			   !strcmp(a, "--top")) {
			if (i + 1 >= argc) {
				snprintf(c->err, sizeof(c->err),
					 "%s needs a value", a);
				return CPT_USAGE;
			}
			i++;
			if (!strcmp(a, "--top")) {
				o.top_given = true;
				if (strcmp(argv[i], "0") &&
				    cpt_parse_u32(c, a, argv[i], &o.top))
					return CPT_USAGE;
			} else if (cpt_parse_u32(c, a, argv[i], &o.k)) {
				return CPT_USAGE;
			}
		} else if (a[0] == '-' && a[1]) {
			snprintf(c->err, sizeof(c->err), "unknown option '%s'",
				 a);
			return CPT_USAGE;
		} else if (path) {
			snprintf(c->err, sizeof(c->err),
				 "one input only ('%s' and '%s')", path, a);
			return CPT_USAGE;
		} else {
			path = a;
		}
	}
	if (!path) {
		snprintf(c->err, sizeof(c->err), "no trace given");
		return CPT_USAGE;
	}
	if (!o.gprof != !o.exe) {
		snprintf(c->err, sizeof(c->err), "--gprof GMON and --exe "
			 "PROGRAM (its -pg build) go together");
		return CPT_USAGE;
	}
	st = cpt_input_load(c, path, &in);
	if (st)
		return st;
	if (!in.is_trace && (o.gprof || o.by || c->format == CPT_HTML)) {
		snprintf(c->err, sizeof(c->err), "%s: --gprof, --by and "
			 "--format html need a trace, not a plain PAG", path);
		cpt_input_free(&in);
		return CPT_USAGE;
	}
	st = in.is_trace ? report_trace(c, &in, &o) : report_pag(c, &in, &o);
	cpt_input_free(&in);
	return st;
}
