/*
 * cp_stream_out.c - the streaming report (cp_stream_out.h).  The layout
 * follows cp_report_out.c's: a summary, the procedures by CP time, the
 * threads, the objects (cp_report_out.c's table); figures the streaming
 * pass does not compute are not printed as zeros but as "-" (JSON: left
 * out or null), and named in the notes.
 */
#include "cp_stream_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cp_budget.h"
#include "cp_compare_out.h"
#include "cp_emit.h"
#include "cp_out.h"
#include "cp_profile.h"
#include "cp_report_keys.h"
#include "cp_report_out.h"
#include "cp_sampled.h"
#include "cp_sampled_out.h"
#include "cp_stream_prof.h"
#include "cp_wbuf.h"

/* A scratch file held in memory (a tmpfs) this large gets a note: the
 * report's memory then includes it. */
#define SL_MEM_NOTE	(256ull << 20)

bool cp_stream_out_note(const struct cp_stream *s,
			const struct cp_compare *cmp, unsigned i, char *buf,
			size_t len)
{
	const char *what[] = { "CP time, zeroing, Slack, MBM and CP rank",
			       "CP held and CP edges", "CP time" };
	const char *whom[] = { "procedures with the most CPU time",
			       "objects most held and waited for",
			       "threads with the most CPU time" };
	uint32_t n[3] = { s->ntracked, s->nobjs_tracked, s->nthreads_tracked };
	uint32_t of[3] = { s->nprocs, s->nobjs, s->nthreads };

	/* the notes that apply, in order, @i counting them down */
	if (cmp->finding == CP_CMP_UNDERRATED && cmp->hl_busy < 0 &&
	    s->nthreads > 1 && i-- == 0) {
		snprintf(buf, len, "the headline does not say how busy the "
			 "other threads were while %s was on the critical "
			 "path: the streaming analysis measures it on Slack's "
			 "walk back and its scratch files",
			 cmp->rows[cmp->hl_row].name);
		return true;
	}
	if (!s->slack_asked && i-- == 0) {
		snprintf(buf, len, "no Slack (--no-slack)");
		return true;
	}
	if (s->slack_need && i-- == 0) {
		char a[32], b[32];

		snprintf(buf, len, "no Slack: its scratch file would take "
			 "about %s and %s has %s free ($TMPDIR names another "
			 "directory)",
			 cp_budget_fmt(a, sizeof(a), s->slack_need),
			 s->slack_dir, cp_budget_fmt(b, sizeof(b),
						     s->slack_avail));
		return true;
	}
	if (s->slack_err && !s->slack_need && i-- == 0) {
		/* (slack_dir is set before any failure: room_for_file) */
		snprintf(buf, len, "no Slack: its scratch file in %s failed: "
			 "%s ($TMPDIR names another directory)", s->slack_dir,
			 strerror(s->slack_err));
		return true;
	}
	if (s->slack_in_memory && s->slack_bytes >= SL_MEM_NOTE &&
	    i-- == 0) {
		char a[32];

		snprintf(buf, len, "Slack's scratch file, %s, was held in "
			 "memory: %s is a tmpfs ($TMPDIR can name a directory "
			 "on disk)", cp_budget_fmt(a, sizeof(a),
						   s->slack_bytes),
			 s->slack_dir);
		return true;
	}
	if (s->paths_cut && s->mbm_paths && i-- == 0) {
		snprintf(buf, len, "MBM over the %u longest paths only, of the "
			 "%u asked: the paths' heaps kept too few detours to "
			 "tell which come next (a larger --memory keeps more)",
			 s->mbm_paths, s->paths_asked);
		return true;
	}
	for (unsigned k = 0; k < 3; k++) {
		if (n[k] >= of[k] || i-- != 0)
			continue;
		snprintf(buf, len, "%s for the %u %s only (%u of %u)",
			 what[k], CP_STREAM_TRACK, whom[k], n[k], of[k]);
		return true;
	}
	return false;
}

#define HOT_LINES 10	/* sampled: hottest source lines shown */

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

static void text_summary(FILE *f, const struct cp_tindex *ix,
			 const struct cp_stream *s,
			 const struct cp_compare *cmp)
{
	const struct cp_trace *t = &ix->t;
	char a[32], b[320], d[32];

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
	cp_report_out_runtime_notes_text(f, t, s->useful_ns, s->elapsed_ns);
	for (unsigned i = 0; cp_stream_out_note(s, cmp, i, b, sizeof(b)); i++)
		fprintf(f, "  note: %s.\n", b);
	if (cp_stream_out_note(s, cmp, 0, b, sizeof(b)))
		fprintf(f, "\n");
}

int cp_stream_out_text(FILE *f, const struct cp_tindex *ix,
		       const struct cp_stream *s, const struct cp_compare *cmp,
		       const struct cp_report_opts *o)
{
	/* the threads and objects as the profile @cmp compares has them */
	const struct cp_profile *p = cmp->p;

	text_summary(f, ix, s, cmp);
	if (s->nprocs || cmp->gp) {
		cp_compare_out_text(f, cmp, o->top_given ?
				    (o->top ? o->top : UINT32_MAX) :
				    CP_REPORT_TEXT_ROWS);
		fprintf(f, "\n");
		cp_sampled_out_text(f, &ix->t, HOT_LINES);
	} else {
		cp_sampled_out_none_text(f, &ix->t);
		fprintf(f, "\n");
	}
	if (cp_report_out_threads_text(f, p->threads, p->nthreads_all,
				       s->sampled, s->cp_len))
		return -1;
	return cp_report_out_objects_text(f, p->objs, p->nobjs, o);
}

static void json_procedures(struct cp_emit *e, const struct cp_stream *s,
			    const struct cp_compare *cmp)
{
	const struct cp_profile *p = cmp->p;

	cp_emit_arr_begin(e, CP_KEY_PROCEDURES);
	for (uint32_t i = 0; i < s->nprocs; i++) {
		const struct cp_stream_proc *pr = &s->procs[i];

		cp_emit_obj_begin(e, NULL);
		cp_emit_str(e, CP_KEY_NAME, pr->name);
		cp_compare_out_emit_proc(e, cmp, pr->name);
		cp_emit_bool(e, CP_KEY_TRACKED, pr->tracked);
		if (pr->tracked) {
			cp_emit_u64(e, CP_KEY_CP_NS, pr->cp_ns);
			cp_emit_f64(e, CP_KEY_CP_PCT,
				    cp_pct(pr->cp_ns, s->cp_len));
			cp_emit_u64(e, CP_KEY_CP_ZERO_NS, pr->zero_ns);
			cp_emit_f64(e, CP_KEY_CP_ZERO_PCT,
				    cp_pct(pr->zero_ns, s->cp_len));
		}
		if (pr->has_slack) {
			cp_emit_u64(e, CP_KEY_SLACK_NS, pr->slack_ns);
			cp_emit_f64(e, CP_KEY_SLACK_PCT,
				    cp_pct(pr->slack_ns, s->cp_len));
		}
		if (pr->has_mbm) {
			cp_emit_u64(e, CP_KEY_MBM_NS, pr->mbm_ns);
			cp_emit_f64(e, CP_KEY_MBM_PCT,
				    cp_pct(pr->mbm_ns, s->cp_len));
		}
		cp_emit_u64(e, CP_KEY_CPU_NS, pr->cpu_ns);
		cp_emit_f64(e, CP_KEY_CPU_PCT,
			    cp_pct(pr->cpu_ns, s->useful_ns));
		cp_emit_u64(e, CP_KEY_CALLS, pr->calls);
		cp_emit_u64(e, CP_KEY_CPU_INCL_NS, pr->cpu_incl_ns);
		cp_emit_u64(e, CP_KEY_CPU_EXCL_NS, pr->cpu_excl_ns);
		if (pr->tracked) {
			cp_emit_u64(e, CP_KEY_CP_INCL_NS, pr->cp_incl_ns);
			cp_emit_u64(e, CP_KEY_CP_EXCL_NS, pr->cp_excl_ns);
		}
		if (s->sampled) {
			cp_emit_u64(e, CP_KEY_SAMPLES, pr->samples);
			if (pr->tracked)
				cp_emit_u64(e, CP_KEY_CP_SAMPLES,
					    pr->cp_samples);
			cp_emit_bool(e, CP_KEY_THIN,
				     cp_compare_thin(p, &p->procs[i]));
		}
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
		if (th->parent == UINT32_MAX)
			cp_emit_null(e, CP_KEY_PARENT);
		else
			cp_emit_u64(e, CP_KEY_PARENT, th->parent);
		cp_emit_str(e, CP_KEY_NAME, th->name);
		cp_emit_bool(e, CP_KEY_EXITED, th->exited);
		cp_emit_u64(e, CP_KEY_ELAPSED_NS, th->elapsed_ns);
		cp_emit_u64(e, CP_KEY_USEFUL_NS, th->useful_ns);
		cp_emit_u64(e, CP_KEY_WAIT_NS, th->wait_ns);
		cp_emit_bool(e, CP_KEY_TRACKED, th->tracked);
		if (th->tracked) {
			cp_emit_u64(e, CP_KEY_CP_NS, th->cp_ns);
			cp_emit_f64(e, CP_KEY_CP_PCT,
				    cp_pct(th->cp_ns, s->cp_len));
		}
		cp_emit_u64(e, CP_KEY_LEN_NS, th->len_ns);
		cp_emit_f64(e, CP_KEY_UTILIZATION, th->elapsed_ns ?
			    (double)th->useful_ns / (double)th->elapsed_ns : 0);
		cp_emit_u64(e, CP_KEY_CALLS, th->calls);
		if (s->sampled)
			cp_emit_u64(e, CP_KEY_SAMPLES, th->samples);
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
}

/* The salvage keys of the in-memory report (cp_out_salvage_emit): the
 * reader's repairs and the pass's dangling dependencies together. */
static void salvage_emit(struct cp_emit *e, const struct cp_tindex *ix,
			 const struct cp_stream *s)
{
	/* the trace's header and salvage as an input: no graph */
	struct cp_input in = { .path = ix->t.path, .is_trace = true };

	in.t = ix->t;
	if (s->nrepairs && !in.t.nrepairs)
		snprintf(in.t.repair_why, sizeof(in.t.repair_why), "%" PRIu64
			 " dependencies on events the trace does not hold "
			 "taken to depend on nothing", s->nrepairs);
	in.t.nrepairs += s->nrepairs;
	cp_out_salvage_emit(e, &in);
}

int cp_stream_out_json(FILE *f, const struct cp_tindex *ix,
		       const struct cp_stream *s, const struct cp_compare *cmp)
{
	const struct cp_trace *t = &ix->t;
	struct cp_obj_prof *objs;
	struct cp_emit e;
	char b[320];

	if (cp_stream_prof_objs(s, &objs))
		return -1;
	cp_out_json_begin(&e, f);
	cp_emit_obj_begin(&e, NULL);
	cp_emit_str(&e, CP_KEY_TRACE, t->path);
	cp_emit_str(&e, CP_KEY_MODE, "stream");
	cp_compare_out_emit_summary(&e, cmp);	/* headline, gprof */
	cp_emit_str(&e, CP_KEY_CLOCK,
		    t->clock == CP_CLOCK_CPU ? "cpu" : "wall");
	cp_emit_str(&e, CP_KEY_PROCEDURES_FROM, s->sampled ? "samples" :
		    "instrumentation");
	cp_sampled_out_emit(&e, t, HOT_LINES);
	cp_emit_u64(&e, CP_KEY_THREADS, s->nthreads);
	cp_emit_u64(&e, CP_KEY_EVENTS, t->nevents);
	salvage_emit(&e, ix, s);
	cp_emit_u64(&e, CP_KEY_ELAPSED_NS, s->elapsed_ns);
	cp_emit_u64(&e, CP_KEY_CPU_NS, s->useful_ns);
	cp_emit_u64(&e, CP_KEY_WAIT_NS, s->wait_ns);
	cp_emit_f64(&e, CP_KEY_PARALLELISM, ratio(s->useful_ns, s->elapsed_ns));
	cp_emit_f64(&e, CP_KEY_MAX_PARALLELISM, ratio(s->useful_ns, s->cp_len));
	cp_emit_arr_begin(&e, CP_KEY_NOTES);
	cp_report_out_runtime_notes_emit(&e, &ix->t, s->useful_ns,
					 s->elapsed_ns);
	for (unsigned i = 0; cp_stream_out_note(s, cmp, i, b, sizeof(b)); i++)
		cp_emit_str(&e, NULL, b);
	cp_emit_arr_end(&e);
	cp_emit_obj_begin(&e, CP_KEY_STREAM);
	cp_emit_u64(&e, CP_KEY_TRACKED_MAX, CP_STREAM_TRACK);
	cp_emit_u64(&e, CP_KEY_RECORDS, s->records);
	cp_emit_u64(&e, CP_KEY_LIVE_RECORDS_MAX, s->live_max);
	cp_emit_u64(&e, CP_KEY_LIVE_THREADS_MAX, s->threads_live_max);
	cp_emit_u64(&e, CP_KEY_THIN_RECORDS, s->thin_records);
	cp_emit_u64(&e, CP_KEY_RECORDS_AGAIN, s->thin_reruns);
	cp_emit_u64(&e, CP_KEY_SLACK_FILE_BYTES, s->slack_bytes);
	cp_emit_u64(&e, CP_KEY_SLACK_WALKED, s->slack_walked);
	cp_emit_obj_end(&e);
	cp_emit_obj_begin(&e, CP_KEY_CRITICAL_PATH);
	cp_emit_u64(&e, CP_KEY_LENGTH_NS, s->cp_len);
	cp_emit_u64(&e, CP_KEY_ONLINE_LENGTH_NS, s->online_len);
	cp_emit_str(&e, CP_KEY_MODE, s->exclusive ? "exclusive" : "inclusive");
	cp_emit_u64(&e, CP_KEY_PATHS, s->mbm_paths);
	json_procedures(&e, s, cmp);
	cp_emit_obj_end(&e);
	json_threads(&e, s);
	cp_report_out_objects_json(&e, objs, s->nobjs);
	cp_emit_obj_end(&e);
	cp_out_json_end(&e);
	free(objs);
	return 0;
}

int cp_stream_out_view(FILE *f, const struct cp_profile *p,
		       const struct cp_stream *s, enum cp_view v,
		       uint32_t max)
{
	const struct cp_views_data vd = {
		.tproc = &s->v_tproc, .waits = &s->v_waits,
		.deps = &s->v_deps, .ndeps = s->v_ndeps,
	};

	return cp_views_print_data(f, p, &vd, v, max);
}
