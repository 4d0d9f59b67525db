/*
 * cp_report_out.c - the critical-path report as text and JSON
 * (cp_report_out.h).
 *
 * Text: first what a user needs to decide where to look: CP length,
 * maximum parallelism and the IPS summary; then the procedure table (CPU
 * time, CP time, CP zeroing, Slack and MBM, each with its percentage, by
 * CP time), then threads and objects.  A plain-text PAG gets the same
 * table by edge label.
 */
#include "cp_report_out.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cp_compare_out.h"
#include "cp_cpus.h"
#include "cp_out.h"
#include "cp_report_keys.h"
#include "cp_sampled.h"
#include "cp_sampled_out.h"
#include "cp_samples.h"
#include "cp_wbuf.h"

#define TEXT_OBJ_ROWS 20
#define HOT_LINES 10		/* sampled: hottest source lines shown */

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
		cp_fmt_ns(a, sizeof(a), v);
	else
		snprintf(a, sizeof(a), "%" PRIu64, v);
	fprintf(f, " %10s %6s", a, cp_fmt_pct(p, sizeof(p),
					       cp_pct(v, whole)));
}

static void table(FILE *f, const struct row *rows, uint32_t n, uint32_t max,
		  uint64_t cpu_total, uint64_t cp_len, bool ns, bool calls,
		  const char *what, const char *first)
{
	int w = 9;
	uint32_t shown = n < max ? n : max;
	char nm[64];

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

		fprintf(f, "  %-*s", w, cp_out_fit(nm, sizeof(nm), r->name, w));
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

/* INFO keys of the runtime's notes on waits it could not see
 * (cp_unseen.h), repeated by the report. */
static const char *const runtime_notes[] = {
	"note.unexplained", "note.children", "note.outside", "note.spin",
	"note.library",
};

/* The note on useful time spent waiting for a processor (cp_cpus.h),
 * from the trace's INFO cpus, under the wall clock. */
static bool cpus_note(const struct cp_trace *t, uint64_t useful,
		      uint64_t elapsed, char *buf, size_t len)
{
	const char *v = cp_trace_info(t, "cpus");
	unsigned long n;
	char *end;

	if (t->clock != CP_CLOCK_WALL || !v || !*v)
		return false;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n > UINT32_MAX)
		return false;
	return cp_cpus_note(buf, len, useful, elapsed, (unsigned)n);
}

const char *cp_report_out_runtime_note(const struct cp_trace *t,
				       uint64_t useful_ns,
				       uint64_t elapsed_ns, unsigned i,
				       char *buf, size_t len)
{
	for (size_t k = 0; k < sizeof(runtime_notes) /
	     sizeof(runtime_notes[0]); k++) {
		const char *v = cp_trace_info(t, runtime_notes[k]);

		if (v && *v && i-- == 0)
			return v;
	}
	return i == 0 && cpus_note(t, useful_ns, elapsed_ns, buf, len) ?
	       buf : NULL;
}

void cp_report_out_runtime_notes_text(FILE *f, const struct cp_trace *t,
				      uint64_t useful_ns, uint64_t elapsed_ns)
{
	char buf[512];
	const char *v;

	for (unsigned i = 0; (v = cp_report_out_runtime_note(
				t, useful_ns, elapsed_ns, i, buf,
				sizeof(buf))); i++)
		fprintf(f, "  note: %s\n\n", v);
}

void cp_report_out_runtime_notes_emit(struct cp_emit *e,
				      const struct cp_trace *t,
				      uint64_t useful_ns, uint64_t elapsed_ns)
{
	char buf[512];
	const char *v;

	for (unsigned i = 0; (v = cp_report_out_runtime_note(
				t, useful_ns, elapsed_ns, i, buf,
				sizeof(buf))); i++)
		cp_emit_str(e, NULL, v);
}

/* The figures a user decides from: CP length, parallelism, notes. */
static void text_summary(FILE *f, const struct cp_input *in,
			 const struct cp_profile *p)
{
	const struct cp_trace *t = &in->t;
	char a[32], b[32], d[32];

	fprintf(f, "cpthread report: %s  (clock %s, %u threads, %" PRIu64
		" events)\n\n", in->path,
		t->clock == CP_CLOCK_CPU ? "cpu" : "wall", p->nthreads,
		t->nevents);
	cp_out_salvage_print(f, in);
	fprintf(f, "  critical path   %12s", cp_fmt_ns(a, sizeof(a), p->cp_len));
	if (p->online_len && p->online_len != p->cp_len)
		fprintf(f, "   (online: %s)", cp_fmt_ns(b, sizeof(b),
							 p->online_len));
	fprintf(f, "\n  elapsed         %12s   useful (CPU) %s   waiting %s\n",
		cp_fmt_ns(a, sizeof(a), p->elapsed_ns),
		cp_fmt_ns(b, sizeof(b), p->useful_ns),
		cp_fmt_ns(d, sizeof(d), p->wait_ns));
	fprintf(f, "  parallelism     %12.2f   maximum parallelism %.2f"
		"  (useful time / critical path)\n\n", p->parallelism,
		p->max_parallelism);
	if (t->has_startstop)
		fprintf(f, "  note: the program started/stopped the computation; "
			"this report covers the whole run.\n\n");
	cp_report_out_runtime_notes_text(f, t, p->useful_ns, p->elapsed_ns);
}

/* Procedures: the comparison with a CPU profile, or the table. */
static void text_procedures(FILE *f, const struct cp_input *in,
			    const struct cp_profile *p,
			    const struct cp_report_opts *o,
			    const struct row *rows, uint32_t nrows,
			    const struct cp_compare *cmp)
{
	const struct cp_trace *t = &in->t;
	uint32_t max = o->top_given ? (o->top ? o->top : UINT32_MAX)
				    : CP_REPORT_TEXT_ROWS;

	if (cmp && (nrows || cmp->gp)) {
		/* CPU (gprof) vs critical path: cp_compare.c */
		cp_compare_out_text(f, cmp, max);
		fprintf(f, "\n");
		cp_sampled_out_text(f, t, HOT_LINES);
	} else if (!nrows) {
		cp_sampled_out_none_text(f, t);
		fprintf(f, "\n");
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
					o->top_given ? o->top : CP_REPORT_TOP_DEFAULT);
				break;
			}
		fprintf(f, "\n");
	}
}

/* A thread's row: its CP figures "-" when they are not known. */
static void thread_row(FILE *f, const char *label, const char *name,
		       const char *elapsed, uint64_t useful, uint64_t wait,
		       bool cp_known, uint64_t cp, uint64_t cp_len,
		       uint64_t len, uint64_t count)
{
	char e2[32], e3[32], e4[32] = "-", e5[32], pc[16] = "-";

	if (cp_known) {
		cp_fmt_ns(e4, sizeof(e4), cp);
		cp_fmt_pct(pc, sizeof(pc), cp_pct(cp, cp_len));
	}
	fprintf(f, "  %-6s %-12.12s %11s %11s %11s %11s %6s %13s %8" PRIu64
		"\n", label, name, elapsed,
		cp_fmt_ns(e2, sizeof(e2), useful),
		cp_fmt_ns(e3, sizeof(e3), wait), e4, pc,
		cp_fmt_ns(e5, sizeof(e5), len), count);
}

/* The order of the threads for a row of their own: the most CP time
 * (not known: none), then CPU time, then the first made. */
static int cmp_thread_rank(const struct cp_thread_prof *x,
			   const struct cp_thread_prof *y)
{
	uint64_t cx = x->cp_unknown ? 0 : x->cp_ns;
	uint64_t cy = y->cp_unknown ? 0 : y->cp_ns;

	if (cx != cy)
		return cx < cy ? 1 : -1;
	if (x->useful_ns != y->useful_ns)
		return x->useful_ns < y->useful_ns ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Sift @v[@i] down the heap @v[@n] whose root ranks last
 * (cmp_thread_rank). */
static void rank_sift(const struct cp_thread_prof **v, uint32_t n,
		      uint32_t i)
{
	for (;;) {
		uint32_t c = 2 * i + 1, m = i;
		const struct cp_thread_prof *x;

		if (c < n && cmp_thread_rank(v[c], v[m]) > 0)
			m = c;
		if (c + 1 < n && cmp_thread_rank(v[c + 1], v[m]) > 0)
			m = c + 1;
		if (m == i)
			return;
		x = v[i];
		v[i] = v[m];
		v[m] = x;
		i = m;
	}
}

/* Which of the @n threads @th, @nran of which ran, get a row of their
 * own (@shown, zeroed): all that ran when they are CP_REPORT_THREAD_ROWS
 * at most, else the first CP_REPORT_THREAD_ROWS by cmp_thread_rank (kept
 * in a heap whose root is the last of them: a thread per task makes
 * hundreds of thousands to choose from). */
static void shown_threads(const struct cp_thread_prof *th, uint32_t n,
			 uint32_t nran, uint8_t *shown)
{
	enum { K = CP_REPORT_THREAD_ROWS };
	const struct cp_thread_prof *v[K];
	uint32_t k = 0;

	if (nran <= K) {
		for (uint32_t i = 0; i < n; i++)
			shown[i] = th[i].nv > 0;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct cp_thread_prof *x = &th[i];

		if (!x->nv)
			continue;
		if (k < K) {
			v[k++] = x;
			if (k == K)
				for (uint32_t j = K / 2; j-- > 0;)
					rank_sift(v, K, j);
		} else if (cmp_thread_rank(x, v[0]) < 0) {
			v[0] = x;
			rank_sift(v, K, 0);
		}
	}
	for (uint32_t i = 0; i < K; i++)
		shown[v[i] - th] = 1;
}

int cp_report_out_threads_text(FILE *f, const struct cp_thread_prof *th,
			       uint32_t n, bool sampled, uint64_t cp_len)
{
	uint8_t *shown = calloc(n ? n : 1, 1);
	uint32_t nran = 0, nother = 0;
	uint64_t useful = 0, wait = 0, cp = 0, len = 0, count = 0;
	bool cp_known = true;
	char el[32], tn[16], nm[16];

	for (uint32_t i = 0; i < n; i++)
		nran += th[i].nv > 0;
	if (!shown)
		return -1;
	shown_threads(th, n, nran, shown);
	fprintf(f, "Threads\n  %-6s %-12s %11s %11s %11s %11s %6s %13s %8s\n",
		"thread", "name", "elapsed", "useful", "waiting", "CP time",
		"CP %", "longest path", sampled ? "samples" : "calls");
	for (uint32_t i = 0; i < n; i++) {
		const struct cp_thread_prof *t = &th[i];
		uint64_t c = sampled ? t->samples : t->calls;

		if (!t->nv)
			continue;
		if (!shown[i]) {
			nother++;
			useful += t->useful_ns;
			wait += t->wait_ns;
			cp += t->cp_ns;
			cp_known &= !t->cp_unknown;
			len = t->len_ns > len ? t->len_ns : len;
			count += c;
			continue;
		}
		snprintf(tn, sizeof(tn), "T%u", t->tid);
		thread_row(f, tn, t->name ? t->name : "",
			   cp_fmt_ns(el, sizeof(el), t->elapsed_ns),
			   t->useful_ns, t->wait_ns, !t->cp_unknown, t->cp_ns,
			   cp_len, t->len_ns, c);
	}
	if (nother) {
		snprintf(nm, sizeof(nm), "%u more", nother);
		thread_row(f, "others", nm, "-", useful, wait, cp_known, cp,
			   cp_len, len, count);
		fprintf(f, "  others: the threads past the %u with the most CP "
			"time, then CPU time, added up\n  (longest path: the "
			"longest of theirs); the JSON report lists each "
			"thread.\n", CP_REPORT_THREAD_ROWS);
	}
	free(shown);
	return 0;
}

/* By the order of the objects table (cp_profile_obj_cmp); the rows are
 * pointers, not copies: a program that makes an object per task has
 * millions of objects, and the table prints a few. */
static int cmp_obj_row(const void *a, const void *b)
{
	return cp_profile_obj_cmp(*(const struct cp_obj_prof *const *)a,
				  *(const struct cp_obj_prof *const *)b);
}

/*
 * The objects of @objs[@n] that saw any operation into @rows (room for
 * n + 1), work-queue items, many and alike, as one row "items (N)" whose
 * figures go into *@items (CP figures unknown if any item's are); by CP
 * time held plus path gain.  Returns how many.
 */
static uint32_t collect_objects(const struct cp_obj_prof *objs, uint32_t n,
				const struct cp_obj_prof **rows,
				struct cp_obj_prof *items)
{
	uint32_t nitems = 0, nobj = 0;

	*items = (struct cp_obj_prof){ .kind = CP_OBJ_ITEM };
	for (uint32_t i = 0; i < n; i++) {
		const struct cp_obj_prof *ob = &objs[i];

		if (!ob->ops)
			continue;
		if (ob->kind != CP_OBJ_ITEM) {
			rows[nobj++] = ob;
			continue;
		}
		nitems++;
		items->ops += ob->ops;
		items->waits += ob->waits;
		items->wait_ns += ob->wait_ns;
		items->cp_cross += ob->cp_cross;
		items->gain_ns += ob->gain_ns;
		items->cp_unknown = items->cp_unknown || ob->cp_unknown;
	}
	if (nitems) {
		items->obj = nitems;	/* shown as "items (N)" */
		rows[nobj++] = items;
	}
	qsort(rows, nobj, sizeof(*rows), cmp_obj_row);
	return nobj;
}

/* One frame of a site, "function (file:line)", into @buf. */
static void site_text(const struct cp_site *s, char *buf, size_t len)
{
	const char *file = s->file, *slash;

	slash = file ? strrchr(file, '/') : NULL;
	if (slash)
		file = slash + 1;
	if (!s->fn)
		snprintf(buf, len, "0x%" PRIx64, s->pc);
	else if (file && s->line)
		snprintf(buf, len, "%s (%s:%" PRIu32 ")", s->fn, file,
			 s->line);
	else
		snprintf(buf, len, "%s", s->fn);
}

/* Whether @c is where the C library starts a process or a thread (the
 * caller of main or of a thread's function): naming it tells nothing. */
static bool entry_frame(const struct cp_site *c)
{
	static const char *const entries[] = {
		"__libc_start_call_main", "__libc_start_main",
		"__libc_start_main_impl", "start_thread", "clone", "clone3",
		"_start",
	};

	for (size_t i = 0; c->fn && i < sizeof(entries) / sizeof(*entries);
	     i++)
		if (!strcmp(c->fn, entries[i]))
			return true;
	return false;
}

const char *cp_report_out_site(const struct cp_site *s, char *buf,
			       size_t len)
{
	size_t n;

	if (!s->pc) {
		snprintf(buf, len, "-");
		return buf;
	}
	site_text(s, buf, len);
	n = strlen(buf);
	if (s->ncallers && !entry_frame(&s->callers[0]) && n + 6 < len) {
		memcpy(buf + n, " from ", 7);
		site_text(&s->callers[0], buf + n + 6, len - n - 6);
	}
	return buf;
}

int cp_report_out_objects_text(FILE *f, const struct cp_obj_prof *objs,
			       uint32_t n, const struct cp_report_opts *o)
{
	const struct cp_obj_prof **rows = malloc(((size_t)n + 1) *
						 sizeof(*rows));
	struct cp_obj_prof items;
	uint32_t nobj = rows ? collect_objects(objs, n, rows, &items) : 0;

	if (!rows)
		return -1;
	fprintf(f, "\nObjects");
	if (!nobj)
		fprintf(f, ": no synchronization seen.\n");
	else
		fprintf(f, " (by CP time held plus path gain)\n  %-12s %-8s %8s %7s %11s %11s %11s %9s %11s  %s\n",
			"object", "kind", "ops", "waits", "waited", "held",
			"CP held", "CP edges", "path gain", "first used in");
	for (uint32_t i = 0; i < nobj && i < (o->top_given && !o->top ?
			UINT32_MAX : TEXT_OBJ_ROWS); i++) {
		const struct cp_obj_prof *ob = rows[i];
		bool held = cp_profile_is_lock(ob->kind) && !ob->untracked;
		char on[32], e1[32], e2[32], e3[32], e4[32], ce[24] = "-";
		char site[CP_REPORT_SITE_LEN];

		if (ob->kind == CP_OBJ_ITEM)
			snprintf(on, sizeof(on), "items (%u)", ob->obj);
		else
			snprintf(on, sizeof(on), "%s#%u",
				 cp_obj_kind_name(ob->kind), ob->obj);
		if (!ob->cp_unknown)
			snprintf(ce, sizeof(ce), "%" PRIu64, ob->cp_cross);
		fprintf(f, "  %-12s %-8s %8" PRIu64 " %7" PRIu64 " %11s %11s %11s %9s %11s  %s%s\n",
			on, cp_obj_kind_name(ob->kind), ob->ops, ob->waits,
			cp_fmt_ns(e1, sizeof(e1), ob->wait_ns),
			held ? cp_fmt_ns(e2, sizeof(e2), ob->held_ns) : "-",
			held && !ob->cp_unknown ?
				cp_fmt_ns(e3, sizeof(e3), ob->cp_held_ns) : "-",
			ce, cp_fmt_ns(e4, sizeof(e4), ob->gain_ns),
			cp_report_out_site(&ob->site, site, sizeof(site)),
			ob->untracked ? "  (untracked)" : "");
	}
	if (nobj > TEXT_OBJ_ROWS && !(o->top_given && !o->top))
		fprintf(f, "  ... %u more (--top 0 shows all)\n",
			nobj - TEXT_OBJ_ROWS);
	free(rows);
	return 0;
}

/* Rows of the procedure table: procedures with any time or calls. */
static uint32_t proc_rows(const struct cp_profile *p, struct row *rows)
{
	uint32_t nrows = 0;

	for (uint32_t i = 0; i < p->nprocs; i++) {
		const struct cp_proc_prof *pp = &p->procs[i];

		if (!pp->cpu_ns && !pp->cp_ns && !pp->calls)
			continue;
		rows[nrows++] = (struct row){
			.name = pp->name, .cpu = pp->cpu_ns, .cp = pp->cp_ns,
			.zero = pp->zero_ns, .slack = pp->slack_ns,
			.mbm = pp->mbm_ns, .calls = pp->calls,
			.computed = pp->computed,
		};
	}
	return nrows;
}

int cp_report_out_text(FILE *f, const struct cp_input *in,
		       const struct cp_profile *p,
		       const struct cp_compare *cmp,
		       const struct cp_report_opts *o)
{
	struct row *rows = calloc(p->nprocs ? p->nprocs : 1, sizeof(*rows));
	uint32_t nrows;

	if (!rows)
		return -1;
	nrows = proc_rows(p, rows);
	text_summary(f, in, p);
	text_procedures(f, in, p, o, rows, nrows, cmp);
	free(rows);
	if (cp_report_out_threads_text(f, p->threads, p->nthreads_all,
				       p->sampled, p->cp_len))
		return -1;
	return cp_report_out_objects_text(f, p->objs, p->nobjs, o);
}

static void emit_pct(struct cp_emit *e, const char *key, uint64_t v,
		     uint64_t whole)
{
	cp_emit_f64(e, key, cp_pct(v, whole));
}

/* "procedures" of "critical_path": one object each, the contract's keys
 * first. */
static void json_procedures(struct cp_emit *e, const struct cp_profile *p,
			    const struct cp_compare *cmp)
{
	cp_emit_arr_begin(e, CP_KEY_PROCEDURES);
	for (uint32_t i = 0; i < p->nprocs; i++) {
		const struct cp_proc_prof *pp = &p->procs[i];
		bool known = pp->computed || !pp->cp_ns;

		cp_emit_obj_begin(e, NULL);
		cp_emit_str(e, CP_KEY_NAME, pp->name);
		if (cmp)	/* gprof_ns, gprof_pct, ranks */
			cp_compare_out_emit_proc(e, cmp, pp->name);
		cp_emit_u64(e, CP_KEY_CP_NS, pp->cp_ns);
		emit_pct(e, CP_KEY_CP_PCT, pp->cp_ns, p->cp_len);
		if (known) {
			cp_emit_u64(e, CP_KEY_CP_ZERO_NS, pp->zero_ns);
			emit_pct(e, CP_KEY_CP_ZERO_PCT, pp->zero_ns, p->cp_len);
			cp_emit_u64(e, CP_KEY_SLACK_NS, pp->slack_ns);
			emit_pct(e, CP_KEY_SLACK_PCT, pp->slack_ns, p->cp_len);
			cp_emit_u64(e, CP_KEY_MBM_NS, pp->mbm_ns);
			emit_pct(e, CP_KEY_MBM_PCT, pp->mbm_ns, p->cp_len);
		} else {
			cp_emit_null(e, CP_KEY_CP_ZERO_NS);
			cp_emit_null(e, CP_KEY_CP_ZERO_PCT);
			cp_emit_null(e, CP_KEY_SLACK_NS);
			cp_emit_null(e, CP_KEY_SLACK_PCT);
			cp_emit_null(e, CP_KEY_MBM_NS);
			cp_emit_null(e, CP_KEY_MBM_PCT);
		}
		cp_emit_u64(e, CP_KEY_CPU_NS, pp->cpu_ns);
		emit_pct(e, CP_KEY_CPU_PCT, pp->cpu_ns, p->useful_ns);
		cp_emit_u64(e, CP_KEY_CALLS, pp->calls);
		cp_emit_u64(e, CP_KEY_CPU_INCL_NS, pp->cpu_incl_ns);
		cp_emit_u64(e, CP_KEY_CPU_EXCL_NS, pp->cpu_excl_ns);
		cp_emit_u64(e, CP_KEY_CP_INCL_NS, pp->cp_incl_ns);
		cp_emit_u64(e, CP_KEY_CP_EXCL_NS, pp->cp_excl_ns);
		if (p->sampled) {
			cp_emit_u64(e, CP_KEY_SAMPLES, pp->samples);
			cp_emit_u64(e, CP_KEY_CP_SAMPLES, pp->cp_samples);
			cp_emit_bool(e, CP_KEY_THIN, cp_compare_thin(p, pp));
		}
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
}

/* "threads_detail": one object per thread that ran. */
static void json_threads(struct cp_emit *e, const struct cp_input *in,
			 const struct cp_profile *p)
{
	cp_emit_arr_begin(e, CP_KEY_THREADS_DETAIL);
	for (uint32_t i = 0; i < p->nthreads_all; i++) {
		const struct cp_thread_prof *th = &p->threads[i];

		if (!th->nv)
			continue;
		cp_emit_obj_begin(e, NULL);
		cp_emit_u64(e, CP_KEY_TID, th->tid);
		if (in->t.threads[th->tid].parent == UINT32_MAX)
			cp_emit_null(e, CP_KEY_PARENT);
		else
			cp_emit_u64(e, CP_KEY_PARENT,
				    in->t.threads[th->tid].parent);
		cp_emit_str(e, CP_KEY_NAME, th->name);
		cp_emit_bool(e, CP_KEY_EXITED,
			     in->t.threads[th->tid].exit_v != UINT32_MAX);
		cp_emit_u64(e, CP_KEY_ELAPSED_NS, th->elapsed_ns);
		cp_emit_u64(e, CP_KEY_USEFUL_NS, th->useful_ns);
		cp_emit_u64(e, CP_KEY_WAIT_NS, th->wait_ns);
		cp_emit_u64(e, CP_KEY_CP_NS, th->cp_ns);
		emit_pct(e, CP_KEY_CP_PCT, th->cp_ns, p->cp_len);
		cp_emit_u64(e, CP_KEY_LEN_NS, th->len_ns);
		cp_emit_f64(e, CP_KEY_UTILIZATION, th->elapsed_ns ?
			    (double)th->useful_ns / (double)th->elapsed_ns : 0);
		cp_emit_u64(e, CP_KEY_CALLS, th->calls);
		if (p->sampled)
			cp_emit_u64(e, CP_KEY_SAMPLES, th->samples);
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
}

/* The members of one frame of a site: pc, function, file, line. */
static void site_frame_json(struct cp_emit *e, const struct cp_site *s)
{
	char pc[24];

	snprintf(pc, sizeof(pc), "0x%" PRIx64, s->pc);
	cp_emit_str(e, CP_KEY_PC, pc);
	if (s->fn)
		cp_emit_str(e, CP_KEY_FUNCTION, s->fn);
	else
		cp_emit_null(e, CP_KEY_FUNCTION);
	if (s->file)
		cp_emit_str(e, CP_KEY_FILE, s->file);
	else
		cp_emit_null(e, CP_KEY_FILE);
	if (s->line)
		cp_emit_u64(e, CP_KEY_LINE, s->line);
	else
		cp_emit_null(e, CP_KEY_LINE);
}

/* An object's "site": where the program first used it, and the calls
 * that led there ("callers", innermost first), or null. */
static void site_json(struct cp_emit *e, const struct cp_site *s)
{
	if (!s->pc) {
		cp_emit_null(e, CP_KEY_SITE);
		return;
	}
	cp_emit_obj_begin(e, CP_KEY_SITE);
	site_frame_json(e, s);
	cp_emit_arr_begin(e, CP_KEY_CALLERS);
	for (uint32_t i = 0; i < s->ncallers; i++) {
		cp_emit_obj_begin(e, NULL);
		site_frame_json(e, &s->callers[i]);
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
	cp_emit_obj_end(e);
}

/*
 * The written "site" values of one objects list.  Objects that share a
 * site are common (a program that makes a mutex for each item has
 * millions of them, all made at one line), and a site with its callers
 * is most of an object's JSON: writing it out for each took a third of
 * the report of 1.4 million objects (666 MB of JSON).  So each site is
 * written once, at the objects' depth, and its text copied after.  The
 * slots are direct-mapped; a site that loses its slot is written again.
 */
#define SITE_SLOTS 256

struct site_text {
	struct cp_site key;
	char *text;		/* NULL: the slot is empty */
	size_t len;
};

/* Whether @a and @b are written the same: the same frame, the same
 * callers (the names and callers are shared, not copied). */
static bool same_site(const struct cp_site *a, const struct cp_site *b)
{
	return a->pc == b->pc && a->fn == b->fn && a->file == b->file &&
	       a->line == b->line && a->ncallers == b->ncallers &&
	       a->callers == b->callers;
}

/* Site @s as the member "site" of @e, from @slots (SITE_SLOTS, or NULL:
 * written as it is); a site not there yet is written into its slot. */
static void site_member(struct cp_emit *e, struct site_text *slots,
			const struct cp_site *s)
{
	struct site_text *sl;
	struct cp_emit v;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!s->pc || !slots) {
		site_json(e, s);
		return;
	}
	sl = &slots[(s->pc ^ (uintptr_t)s->callers >> 4) % SITE_SLOTS];
	if (!sl->text || !same_site(&sl->key, s)) {
		f = open_memstream(&text, &len);
		if (!f) {
			site_json(e, s);
			return;
		}
		cp_emit_init_value(&v, cp_emit_file_write, f, e);
		site_json(&v, s);
		if (fclose(f) != 0) {
			free(text);
			site_json(e, s);
			return;
		}
		free(sl->text);
		*sl = (struct site_text){ .key = *s, .text = text,
					  .len = len };
	}
	cp_emit_raw(e, CP_KEY_SITE, sl->text, sl->len);
}

void cp_report_out_objects_json(struct cp_emit *e,
				const struct cp_obj_prof *objs, uint32_t n)
{
	struct site_text *slots = n > 1 ? calloc(SITE_SLOTS, sizeof(*slots))
					: NULL;
	char nm[32];

	cp_emit_arr_begin(e, CP_KEY_OBJECTS);
	for (uint32_t i = 0; i < n; i++) {
		const struct cp_obj_prof *ob = &objs[i];

		if (!ob->ops)
			continue;
		cp_emit_obj_begin(e, NULL);
		cp_emit_u64(e, CP_KEY_ID, ob->obj);
		cp_emit_str(e, CP_KEY_KIND, cp_obj_kind_name(ob->kind));
		snprintf(nm, sizeof(nm), "0x%" PRIx64, ob->addr);
		if (cp_obj_kind_has_addr(ob->kind))
			cp_emit_str(e, CP_KEY_ADDRESS, nm);
		else
			cp_emit_null(e, CP_KEY_ADDRESS);
		cp_emit_bool(e, CP_KEY_UNTRACKED, ob->untracked);
		cp_emit_u64(e, CP_KEY_OPS, ob->ops);
		cp_emit_u64(e, CP_KEY_CONTENDED, ob->waits);
		cp_emit_u64(e, CP_KEY_WAIT_NS, ob->wait_ns);
		cp_emit_u64(e, CP_KEY_CP_GAIN_NS, ob->gain_ns);
		cp_emit_u64(e, CP_KEY_HELD_NS, ob->held_ns);
		if (!ob->cp_unknown) {
			cp_emit_u64(e, CP_KEY_CP_HELD_NS, ob->cp_held_ns);
			cp_emit_u64(e, CP_KEY_CP_EDGES, ob->cp_cross);
		} else {
			cp_emit_null(e, CP_KEY_CP_HELD_NS);
			cp_emit_null(e, CP_KEY_CP_EDGES);
		}
		site_member(e, slots, &ob->site);
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
	for (uint32_t i = 0; slots && i < SITE_SLOTS; i++)
		free(slots[i].text);
	free(slots);
}

void cp_report_out_json(FILE *f, const struct cp_input *in,
			const struct cp_profile *p,
			const struct cp_compare *cmp)
{
	const struct cp_trace *t = &in->t;
	struct cp_emit e;

	cp_out_json_begin(&e, f);
	cp_emit_obj_begin(&e, NULL);
	cp_emit_str(&e, CP_KEY_TRACE, in->path);
	if (cmp)	/* headline, gprof */
		cp_compare_out_emit_summary(&e, cmp);
	cp_emit_str(&e, CP_KEY_CLOCK,
		    t->clock == CP_CLOCK_CPU ? "cpu" : "wall");
	cp_emit_str(&e, CP_KEY_PROCEDURES_FROM, p->sampled ? "samples" :
		    "instrumentation");
	cp_sampled_out_emit(&e, t, HOT_LINES);
	cp_emit_u64(&e, CP_KEY_THREADS, p->nthreads);
	cp_emit_u64(&e, CP_KEY_EVENTS, t->nevents);
	cp_out_salvage_emit(&e, in);
	cp_emit_u64(&e, CP_KEY_ELAPSED_NS, p->elapsed_ns);
	cp_emit_u64(&e, CP_KEY_CPU_NS, p->useful_ns);
	cp_emit_u64(&e, CP_KEY_WAIT_NS, p->wait_ns);
	cp_emit_f64(&e, CP_KEY_PARALLELISM, p->parallelism);
	cp_emit_f64(&e, CP_KEY_MAX_PARALLELISM, p->max_parallelism);
	cp_emit_arr_begin(&e, CP_KEY_NOTES);
	cp_report_out_runtime_notes_emit(&e, t, p->useful_ns, p->elapsed_ns);
	cp_emit_arr_end(&e);
	cp_emit_obj_begin(&e, CP_KEY_CRITICAL_PATH);
	cp_emit_u64(&e, CP_KEY_LENGTH_NS, p->cp_len);
	cp_emit_u64(&e, CP_KEY_ONLINE_LENGTH_NS, p->online_len);
	cp_emit_str(&e, CP_KEY_MODE, p->exclusive ? "exclusive" : "inclusive");
	cp_emit_u64(&e, CP_KEY_K, p->k);
	cp_emit_u64(&e, CP_KEY_PATHS, p->npaths);
	json_procedures(&e, p, cmp);
	cp_emit_obj_end(&e);	/* critical_path */
	json_threads(&e, in, p);
	cp_report_out_objects_json(&e, p->objs, p->nobjs);
	cp_emit_obj_end(&e);
	cp_out_json_end(&e);
}

void cp_report_out_labels_json(FILE *f, const struct cp_input *in,
			       const struct cp_labels *lb)
{
	const struct cp_pag *g = in->g;
	struct cp_emit e;

	cp_out_json_begin(&e, f);
	cp_emit_obj_begin(&e, NULL);
	cp_emit_str(&e, CP_KEY_GRAPH, in->path);
	cp_emit_u64(&e, CP_KEY_VERTICES, g->nv);
	cp_emit_u64(&e, CP_KEY_EDGES, g->ne);
	cp_emit_u64(&e, CP_KEY_CPU_NS, lb->total);
	cp_emit_f64(&e, CP_KEY_MAX_PARALLELISM, lb->length ?
		    (double)lb->total / (double)lb->length : 0);
	cp_emit_obj_begin(&e, CP_KEY_CRITICAL_PATH);
	cp_emit_u64(&e, CP_KEY_LENGTH_NS, lb->length);
	cp_emit_u64(&e, CP_KEY_PATHS, lb->npaths);
	cp_emit_arr_begin(&e, CP_KEY_PROCEDURES);
	for (uint32_t l = 0; l < lb->n; l++) {
		const struct cp_label_prof *r = &lb->rows[l];

		cp_emit_obj_begin(&e, NULL);
		cp_emit_str(&e, CP_KEY_NAME, r->name);
		cp_emit_u64(&e, CP_KEY_CP_NS, r->cp_ns);
		cp_emit_u64(&e, CP_KEY_CP_ZERO_NS, r->zero_ns);
		cp_emit_u64(&e, CP_KEY_CPU_NS, r->weight);
		cp_emit_u64(&e, CP_KEY_SLACK_NS, r->slack_ns);
		cp_emit_u64(&e, CP_KEY_MBM_NS, r->mbm_ns);
		cp_emit_obj_end(&e);
	}
	cp_emit_arr_end(&e);
	cp_emit_obj_end(&e);
	cp_emit_obj_end(&e);
	cp_out_json_end(&e);
}

int cp_report_out_labels_text(FILE *f, const struct cp_input *in,
			      const struct cp_labels *lb,
			      const struct cp_report_opts *o)
{
	const struct cp_pag *g = in->g;
	struct row *rows;

	fprintf(f, "cpthread report: %s  (graph: %u vertices, %u edges)\n\n",
		in->path, g->nv, g->ne);
	fprintf(f, "  critical path   %12" PRIu64 "\n", lb->length);
	fprintf(f, "  total weight    %12" PRIu64 "   maximum parallelism %.2f\n\n",
		lb->total, lb->length ? (double)lb->total / (double)lb->length
				      : 0.0);
	if (!lb->n) {
		fprintf(f, "  (no edge has a label: nothing to group by)\n");
		return 0;
	}
	/* the table's rows: at most as many labels as the graph has */
	rows = calloc(lb->n, sizeof(*rows));
	if (!rows)
		return -1;
	for (uint32_t l = 0; l < lb->n; l++) {
		const struct cp_label_prof *r = &lb->rows[l];

		rows[l] = (struct row){
			.name = r->name, .cpu = r->weight, .cp = r->cp_ns,
			.zero = r->zero_ns, .slack = r->slack_ns,
			.mbm = r->mbm_ns, .computed = true,
		};
	}
	fprintf(f, "Edges by label (by CP time; %% of total weight, and of "
		"the critical path;\nMBM over the %u longest paths)\n",
		lb->npaths);
	table(f, rows, lb->n, o->top_given && o->top ? o->top :
	      (o->top_given ? UINT32_MAX : CP_REPORT_TEXT_ROWS), lb->total, lb->length,
	      false, false, "label", "weight");
	free(rows);
	return 0;
}
