/*
 * cp_whatif_out.c - the what-if prediction of `cpt whatif` as text and
 * JSON (cp_whatif_out.h), in memory or streamed: the streaming mode's is
 * the same document, or, when the replay could not be given, the same
 * without the simulation, which it says in a note.
 */
#include "cp_whatif_out.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cp_out.h"
#include "cp_report_keys.h"
#include "cp_sampled.h"
#include "cp_wbuf.h"

/* "-5 ns (-12.5%)" */
static void change(char *buf, size_t len, uint64_t before, uint64_t after,
		   bool ns)
{
	char nb[32];
	uint64_t d = after > before ? after - before : before - after;
	double pct = before ? 100.0 * ((double)after - (double)before) /
				      (double)before : 0.0;

	if (ns)
		cp_fmt_ns(nb, sizeof(nb), d);
	else
		snprintf(nb, sizeof(nb), "%" PRIu64, d);
	snprintf(buf, len, "%s%s (%+.1f%%)", after < before ? "-" : "+", nb,
		 pct);
}

/*
 * A difference worth a sentence: more than 1 % of the recorded critical
 * path.  Smaller ones are the replay's rounding and timing noise, and a
 * note about them would only make the reader doubt the figures.
 */
static bool worth_noting(double diff, uint64_t recorded)
{
	return fabs(diff) > 0.01 * (double)recorded;
}

/*
 * Why the simulation's baseline is not the recorded critical path, when
 * that matters: the replay grants each lock and semaphore token to the
 * thread that asks first on the ideal machine, the run did not always.
 */
static void note_baseline(FILE *f, const char *replay,
			  const struct cp_whatif_result *r)
{
	double d = (double)r->length_before_sim - (double)r->length_before;

	fprintf(f,
		"  The simulated change starts from the unchanged replay, %s:\n"
		"  %.1f%% %s than the recorded critical path, because the replay\n"
		"  hands each lock or semaphore token to the thread that asks first\n"
		"  (every thread on a processor of its own) and the run did not\n"
		"  always.  Compare the simulated new run time with the replay; the\n"
		"  fixed-graph prediction keeps the recorded order.\n",
		replay, 100.0 * fabs(d) / (double)r->length_before,
		d < 0 ? "shorter" : "longer");
}

/* The samples scaling @i of @sc rests on: @ns's (streamed), else the
 * graph's; UINT64_MAX when the procedures are not sampled. */
static uint64_t nsamples(const struct cp_input *in, const uint64_t *ns,
			 const struct cp_whatif_scale *sc, uint32_t i,
			 bool exclusive)
{
	if (ns)
		return ns[i];
	if (!in->is_trace || !in->tp.t)
		return UINT64_MAX;
	return cp_sampled_count(&in->tp, sc[i].name, exclusive);
}

/* Sampled procedures: say which scaled ones rest on too few samples
 * (@ns: a streamed trace's counts, NULL: the graph's). */
static void text_thin_notes(FILE *f, const struct cp_input *in,
			    const uint64_t *ns,
			    const struct cp_whatif_scale *sc, uint32_t nsc,
			    bool exclusive)
{
	for (uint32_t i = 0; i < nsc; i++) {
		uint64_t n = nsamples(in, ns, sc, i, exclusive);

		if (n < CP_SAMPLES_THIN)
			fprintf(f, "  note: %s rests on %" PRIu64
				" sample%s: too few to trust this "
				"prediction.\n", sc[i].name, n,
				n == 1 ? "" : "s");
	}
}

/* A length: ns of a trace's clock, or a plain graph's weight. */
static const char *fmt_len(char *a, size_t n, uint64_t v, bool ns)
{
	if (ns)
		return cp_fmt_ns(a, n, v);
	snprintf(a, n, "%" PRIu64, v);
	return a;
}

/* The notes under the figures: what the reader needs to trust them. */
static void text_notes(FILE *f, const struct cp_input *in,
		       const struct cp_whatif_result *r, const char *snote)
{
	char a[32];
	bool ns = in->is_trace;
	bool model = r->cpus || r->wake;
	double dsim, dfix;

	dsim = (double)r->length_after - (double)r->length_before_sim;
	dfix = (double)r->length_after_fixed - (double)r->length_before;
	if (r->simulated && !model &&
	    worth_noting((double)r->length_before_sim -
			 (double)r->length_before, r->length_before))
		note_baseline(f, fmt_len(a, sizeof(a), r->length_before_sim,
					 ns), r);
	if (r->simulated && r->reordered &&
	    worth_noting(dsim - dfix, r->length_before))
		fprintf(f,
			"  The two predicted changes differ: in the simulation %" PRIu64 "\n"
			"  lock acquisition%s happen%s in another order than in the\n"
			"  recording, which the fixed graph cannot see and the simulation\n"
			"  takes into account.\n",
			r->reordered, r->reordered == 1 ? "" : "s",
			r->reordered == 1 ? "s" : "");
	if (r->simulated && r->forced)
		fprintf(f,
			"  %" PRIu64 " acquisition%s that did not wait in the recording (perhaps a\n"
			"  trylock or trywait) found %s lock or token taken in the new order\n"
			"  with nothing else left to run, and %s let through as recorded.\n",
			r->forced, r->forced == 1 ? "" : "s",
			r->forced == 1 ? "its" : "their",
			r->forced == 1 ? "was" : "were");
	if (r->deadlock)
		fprintf(f,
			"  the simulation deadlocked in the new order; only the fixed-graph\n"
			"  prediction is given.\n");
	if (!in->is_trace)
		fprintf(f,
			"  (a plain graph has no events to replay: fixed-graph prediction only)\n");
	if (snote)
		fprintf(f,
			"  (streaming analysis: the fixed-graph prediction only; no replay,\n"
			"  because %s)\n", snote);
	if (!r->scaled_ns)
		fprintf(f,
			"  the scaled procedures took no useful time in this run.\n");
}

static void text_whatif(FILE *f, const struct cp_input *in,
		       const struct cp_whatif_scale *sc, uint32_t nsc,
		       const struct cp_whatif_result *r, const char *snote)
{
	char a[32], b[64];
	bool ns = in->is_trace;
	bool model = r->cpus || r->wake;

	fprintf(f, "what if, in %s:", in->path);
	for (uint32_t i = 0; i < nsc; i++)
		fprintf(f, "%s %s x %g", i ? "," : "", sc[i].name,
			sc[i].factor);
	fprintf(f, "\n\n");
	cp_out_salvage_print(f, in);
	fprintf(f, "  %-28s %12s\n", "critical path, as recorded",
		fmt_len(a, sizeof(a), r->length_before, ns));
	if (r->simulated) {
		/* the baseline of the simulated change, when it is not the
		 * line above */
		change(b, sizeof(b), r->length_before_sim, r->length_after,
		       ns);
		if (model || r->length_before_sim != r->length_before)
			fprintf(f, "  %-28s %12s\n", "simulated, unchanged",
				fmt_len(a, sizeof(a), r->length_before_sim,
					ns));
		fprintf(f, "  %-28s %12s   %s\n", "simulated new run time",
			fmt_len(a, sizeof(a), r->length_after, ns), b);
		if (r->cpus)
			fprintf(f, "  (simulated on %u processor%s shared "
				"by the threads)\n", r->cpus,
				r->cpus == 1 ? "" : "s");
		if (r->wake)
			fprintf(f, "  (each woken thread paying the "
				"wake-up latency it had in the recording)\n");
	}
	change(b, sizeof(b), r->length_before, r->length_after_fixed, ns);
	fprintf(f, "  %-28s %12s   %s\n", "fixed-graph prediction",
		fmt_len(a, sizeof(a), r->length_after_fixed, ns), b);
	fprintf(f, "\n");
	text_notes(f, in, r, snote);
}

/* The simulation's keys (not when the replay was not given). */
static void json_sim(struct cp_emit *e, const struct cp_whatif_result *r)
{
	cp_emit_u64(e, CP_KEY_LENGTH_BEFORE_SIM, r->length_before_sim);
	cp_emit_bool(e, CP_KEY_DEADLOCK, r->deadlock);
	cp_emit_u64(e, CP_KEY_REORDERED, r->reordered);
	cp_emit_u64(e, CP_KEY_FORCED, r->forced);
	cp_emit_u64(e, CP_KEY_CPUS, r->cpus);
	cp_emit_bool(e, CP_KEY_WAKE, r->wake);
}

static void json_whatif(FILE *f, const struct cp_input *in,
		       const struct cp_whatif_scale *sc, uint32_t nsc,
		       bool exclusive, const struct cp_whatif_result *r,
		       const char *snote, const uint64_t *ns)
{
	struct cp_emit e;
	char note[300];

	cp_out_json_begin(&e, f);
	cp_emit_obj_begin(&e, NULL);
	if (snote) {
		snprintf(note, sizeof(note), "streaming analysis: the "
			 "fixed-graph prediction only; no replay, because %s",
			 snote);
		cp_emit_str(&e, CP_KEY_MODE, "stream");
		cp_emit_arr_begin(&e, CP_KEY_NOTES);
		cp_emit_str(&e, NULL, note);
		cp_emit_arr_end(&e);
	}
	cp_out_salvage_emit(&e, in);
	cp_emit_u64(&e, CP_KEY_LENGTH_BEFORE, r->length_before);
	cp_emit_u64(&e, CP_KEY_LENGTH_AFTER, r->length_after);
	cp_emit_u64(&e, CP_KEY_LENGTH_AFTER_FIXED, r->length_after_fixed);
	cp_emit_bool(&e, CP_KEY_SIMULATED, r->simulated);
	cp_emit_u64(&e, CP_KEY_SCALED_NS, r->scaled_ns);
	if (!snote)
		json_sim(&e, r);
	if (nsc && nsamples(in, ns, sc, 0, exclusive) != UINT64_MAX) {
		/* sampled procedures: what each scaling rests on */
		cp_emit_obj_begin(&e, "samples");
		for (uint32_t i = 0; i < nsc; i++)
			cp_emit_u64(&e, sc[i].name,
				    nsamples(in, ns, sc, i, exclusive));
		cp_emit_obj_end(&e);
	}
	cp_emit_obj_end(&e);
	cp_out_json_end(&e);
}

void cp_whatif_out(FILE *f, const struct cp_input *in,
		   const struct cp_whatif_scale *sc, uint32_t nsc,
		   bool exclusive, const struct cp_whatif_result *r, bool json)
{
	if (json) {
		json_whatif(f, in, sc, nsc, exclusive, r, NULL, NULL);
	} else {
		text_whatif(f, in, sc, nsc, r, NULL);
		text_thin_notes(f, in, NULL, sc, nsc, exclusive);
	}
}

void cp_whatif_out_stream(FILE *f, const struct cp_tindex *ix,
			  const struct cp_whatif_scale *sc, uint32_t nsc,
			  bool exclusive, const struct cp_whatif_result *r,
			  const char *no_replay, const uint64_t *nsamples,
			  bool json)
{
	/* the trace's header and salvage as an input: no graph */
	struct cp_input in = { .path = ix->t.path, .is_trace = true };

	in.t = ix->t;
	if (json) {
		json_whatif(f, &in, sc, nsc, exclusive, r, no_replay,
			    nsamples);
	} else {
		text_whatif(f, &in, sc, nsc, r, no_replay);
		if (nsamples)
			text_thin_notes(f, &in, nsamples, sc, nsc, exclusive);
	}
}
