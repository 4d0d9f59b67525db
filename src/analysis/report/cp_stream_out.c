/*
 * cp_stream_out.c - the streaming report (cp_stream_out.h).  The layout
 * follows cp_report_out.c's: a summary, the procedures by CP time, the
 * threads; figures the streaming pass does not compute are not printed
 * as zeros but named once, in the summary.
 */
#include "cp_stream_out.h"

#include <inttypes.h>

#include "cp_emit.h"
#include "cp_out.h"
#include "cp_profile.h"
#include "cp_report_keys.h"
#include "cp_wbuf.h"

const char cp_stream_out_missing[] =
	"streaming analysis: no Slack, MBM, k paths, what-if, per-object "
	"figures or sampled stacks (they need the whole graph in memory); "
	"CP time and zeroing for the most useful procedures only";

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

static void text_summary(FILE *f, const struct cp_tindex *ix,
			 const struct cp_stream *s)
{
	const struct cp_trace *t = &ix->t;
	char a[32], b[32], d[32];

	fprintf(f, "cpthread report: %s  (clock %s, %u threads, %" PRIu64
		" events, streaming)\n\n", t->path,
		t->clock == CP_CLOCK_CPU ? "cpu" : "wall", s->nthreads,
		t->nevents);
	if (t->partial)
		fprintf(f, "  PARTIAL: %s\n\n", t->partial_why);
	if (t->nrepairs || s->nrepairs)
		fprintf(f, "  REPAIRED: %" PRIu64 " damaged or inconsistent "
			"events or blocks%s%s\n\n", t->nrepairs + s->nrepairs,
			t->nrepairs ? "; first: " : "",
			t->nrepairs ? t->repair_why : "");
	fprintf(f, "  critical path   %12s",
		cp_fmt_ns(a, sizeof(a), s->cp_len));
	if (s->online_len && s->online_len != s->cp_len)
		fprintf(f, "   (online: %s)",
			cp_fmt_ns(b, sizeof(b), s->online_len));
	fprintf(f, "\n  elapsed         %12s   useful (CPU) %s   waiting %s\n",
		cp_fmt_ns(a, sizeof(a), s->elapsed_ns),
		cp_fmt_ns(b, sizeof(b), s->useful_ns),
		cp_fmt_ns(d, sizeof(d), s->wait_ns));
	fprintf(f, "  parallelism     %12.2f   maximum parallelism %.2f"
		"  (useful time / critical path)\n\n",
		ratio(s->useful_ns, s->elapsed_ns), ratio(s->useful_ns, s->cp_len));
	fprintf(f, "  note: %s (%u tracked of %u).\n\n", cp_stream_out_missing,
		s->ntracked, s->nprocs);
}

/* One row of the procedures table: "-" where the figure is not known. */
static void text_proc(FILE *f, const struct cp_stream *s,
		      const struct cp_stream_proc *pr)
{
	char e1[32] = "-", e2[32] = "-", e3[32], p1[16] = "-", p2[16] = "-",
	     p3[16];

	if (pr->tracked) {
		cp_fmt_ns(e1, sizeof(e1), pr->cp_ns);
		cp_fmt_ns(e2, sizeof(e2), pr->zero_ns);
		cp_fmt_pct(p1, sizeof(p1), cp_pct(pr->cp_ns, s->cp_len));
		cp_fmt_pct(p2, sizeof(p2), cp_pct(pr->zero_ns, s->cp_len));
	}
	cp_fmt_ns(e3, sizeof(e3), pr->cpu_ns);
	cp_fmt_pct(p3, sizeof(p3), cp_pct(pr->cpu_ns, s->useful_ns));
	fprintf(f, "  %-32.32s %11s %6s %11s %6s %11s %6s %8" PRIu64 "\n",
		pr->name, e1, p1, e2, p2, e3, p3, pr->calls);
}

static void text_procedures(FILE *f, const struct cp_stream *s, uint32_t top)
{
	uint32_t n = top && top < s->nprocs ? top : s->nprocs;

	if (!s->nprocs)
		return;
	fprintf(f, "Procedures (%s)\n  %-32s %11s %6s %11s %6s %11s "
		"%6s %8s\n", s->exclusive ? "exclusive" : "inclusive", "procedure", "CP time", "CP %", "CP zeroing", "%",
		"CPU time", "CPU %", "calls");
	for (uint32_t i = 0; i < n; i++)
		text_proc(f, s, &s->procs[i]);
	if (n < s->nprocs)
		fprintf(f, "  (%u more; --top 0 shows all)\n", s->nprocs - n);
	fprintf(f, "\n");
}

static void text_threads(FILE *f, const struct cp_stream *s)
{
	fprintf(f, "Threads\n  %-6s %-12s %11s %11s %11s %13s\n", "thread",
		"name", "elapsed", "useful", "waiting", "longest path");
	for (uint32_t i = 0; i < s->nthreads_all; i++) {
		const struct cp_stream_thread *th = &s->threads[i];
		char e1[32], e2[32], e3[32], e4[32], tn[16];

		if (!th->nv)
			continue;
		snprintf(tn, sizeof(tn), "T%u", th->tid);
		fprintf(f, "  %-6s %-12.12s %11s %11s %11s %13s\n", tn,
			th->name ? th->name : "",
			cp_fmt_ns(e1, sizeof(e1), th->elapsed_ns),
			cp_fmt_ns(e2, sizeof(e2), th->useful_ns),
			cp_fmt_ns(e3, sizeof(e3), th->wait_ns),
			cp_fmt_ns(e4, sizeof(e4), th->len_ns));
	}
}

int cp_stream_out_text(FILE *f, const struct cp_tindex *ix,
		       const struct cp_stream *s, uint32_t top)
{
	text_summary(f, ix, s);
	text_procedures(f, s, top);
	text_threads(f, s);
	return 0;
}

static void json_procedures(struct cp_emit *e, const struct cp_stream *s)
{
	cp_emit_arr_begin(e, CP_KEY_PROCEDURES);
	for (uint32_t i = 0; i < s->nprocs; i++) {
		const struct cp_stream_proc *pr = &s->procs[i];

		cp_emit_obj_begin(e, NULL);
		cp_emit_str(e, CP_KEY_NAME, pr->name);
		cp_emit_bool(e, CP_KEY_TRACKED, pr->tracked);
		if (pr->tracked) {
			cp_emit_u64(e, CP_KEY_CP_NS, pr->cp_ns);
			cp_emit_f64(e, CP_KEY_CP_PCT,
				    cp_pct(pr->cp_ns, s->cp_len));
			cp_emit_u64(e, CP_KEY_CP_ZERO_NS, pr->zero_ns);
			cp_emit_f64(e, CP_KEY_CP_ZERO_PCT,
				    cp_pct(pr->zero_ns, s->cp_len));
		}
		cp_emit_u64(e, CP_KEY_CPU_NS, pr->cpu_ns);
		cp_emit_f64(e, CP_KEY_CPU_PCT,
			    cp_pct(pr->cpu_ns, s->useful_ns));
		cp_emit_u64(e, CP_KEY_CALLS, pr->calls);
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
}

static void json_threads(struct cp_emit *e, const struct cp_stream *s)
{
	cp_emit_arr_begin(e, CP_KEY_THREADS_DETAIL);
	for (uint32_t i = 0; i < s->nthreads_all; i++) {
		const struct cp_stream_thread *th = &s->threads[i];

		if (!th->nv)
			continue;
		cp_emit_obj_begin(e, NULL);
		cp_emit_u64(e, CP_KEY_TID, th->tid);
		cp_emit_str(e, CP_KEY_NAME, th->name);
		cp_emit_u64(e, CP_KEY_ELAPSED_NS, th->elapsed_ns);
		cp_emit_u64(e, CP_KEY_USEFUL_NS, th->useful_ns);
		cp_emit_u64(e, CP_KEY_WAIT_NS, th->wait_ns);
		cp_emit_u64(e, CP_KEY_LEN_NS, th->len_ns);
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
}

void cp_stream_out_json(FILE *f, const struct cp_tindex *ix,
			const struct cp_stream *s)
{
	const struct cp_trace *t = &ix->t;
	struct cp_emit e;

	cp_out_json_begin(&e, f);
	cp_emit_obj_begin(&e, NULL);
	cp_emit_str(&e, CP_KEY_TRACE, t->path);
	cp_emit_str(&e, CP_KEY_MODE, "stream");
	cp_emit_str(&e, CP_KEY_CLOCK,
		    t->clock == CP_CLOCK_CPU ? "cpu" : "wall");
	cp_emit_u64(&e, CP_KEY_THREADS, s->nthreads);
	cp_emit_u64(&e, CP_KEY_EVENTS, t->nevents);
	cp_emit_u64(&e, CP_KEY_ELAPSED_NS, s->elapsed_ns);
	cp_emit_u64(&e, CP_KEY_CPU_NS, s->useful_ns);
	cp_emit_u64(&e, CP_KEY_WAIT_NS, s->wait_ns);
	cp_emit_arr_begin(&e, CP_KEY_NOTES);
	cp_emit_str(&e, NULL, cp_stream_out_missing);
	cp_emit_arr_end(&e);
	cp_emit_obj_begin(&e, CP_KEY_STREAM);
	cp_emit_u64(&e, CP_KEY_TRACKED_MAX, CP_STREAM_TRACK);
	cp_emit_u64(&e, CP_KEY_RECORDS, s->records);
	cp_emit_u64(&e, CP_KEY_LIVE_RECORDS_MAX, s->live_max);
	cp_emit_obj_end(&e);
	cp_emit_obj_begin(&e, CP_KEY_CRITICAL_PATH);
	cp_emit_u64(&e, CP_KEY_LENGTH_NS, s->cp_len);
	cp_emit_u64(&e, CP_KEY_ONLINE_LENGTH_NS, s->online_len);
	cp_emit_str(&e, CP_KEY_MODE, s->exclusive ? "exclusive" : "inclusive");
	json_procedures(&e, s);
	cp_emit_obj_end(&e);
	json_threads(&e, s);
	cp_emit_obj_end(&e);
	cp_emit_end(&e);
}
