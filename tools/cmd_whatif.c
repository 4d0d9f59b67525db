/*
 * cmd_whatif.c - `cpt whatif TRACE|PAG --scale NAME=FACTOR ...`: the
 * predicted run time if procedures (trace) or labelled edges (PAG) took
 * FACTOR times as long, by simulation and on the fixed graph.  --cpus N
 * simulates N processors shared by the threads (for a program that ran
 * more threads than cores, traced with the cpu clock); --wake has every
 * woken thread pay the wake-up latency it had in the recording.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp_sampled.h"
#include "cp_whatif.h"
#include "cpt.h"
#include "cpt_input.h"

#define MAX_SCALES 64

static int parse_scale(struct cpt_ctx *c, char *arg,
		       struct cp_whatif_scale *sc)
{
	char *eq = strrchr(arg, '='), *end;
	double f;

	if (!eq || eq == arg || !eq[1]) {
		snprintf(c->err, sizeof(c->err),
			 "--scale wants NAME=FACTOR, not '%s'", arg);
		return -1;
	}
	errno = 0;
	f = strtod(eq + 1, &end);
	if (errno || *end || !isfinite(f) || f < 0) {
		snprintf(c->err, sizeof(c->err),
			 "--scale %s: FACTOR must be a number >= 0", arg);
		return -1;
	}
	*eq = '\0';
	sc->name = arg;
	sc->factor = f;
	return 0;
}

/* --cpus N: 1 .. 4096 processors. */
static int parse_cpus(struct cpt_ctx *c, const char *arg, uint32_t *cpus)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || end == arg || n < 1 || n > 4096) {
		snprintf(c->err, sizeof(c->err),
			 "--cpus wants a number of processors from 1 to 4096, "
			 "not '%s'", arg);
		return -1;
	}
	*cpus = (uint32_t)n;
	return 0;
}

/* "-5 ns (-12.5%)" */
static void change(char *buf, size_t len, uint64_t before, uint64_t after,
		   bool ns)
{
	char nb[32];
	uint64_t d = after > before ? after - before : before - after;
	double pct = before ? 100.0 * ((double)after - (double)before) /
				      (double)before : 0.0;

	if (ns)
		cpt_fmt_ns(nb, sizeof(nb), d);
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
static void note_baseline(struct cpt_ctx *c, const char *replay,
			  const struct cp_whatif_result *r)
{
	double d = (double)r->length_before_sim - (double)r->length_before;

	fprintf(c->out,
		"  The simulated change starts from the unchanged replay, %s:\n"
		"  %.1f%% %s than the recorded critical path, because the replay\n"
		"  hands each lock or semaphore token to the thread that asks first\n"
		"  (every thread on a processor of its own) and the run did not\n"
		"  always.  Compare the simulated new run time with the replay; the\n"
		"  fixed-graph prediction keeps the recorded order.\n",
		replay, 100.0 * fabs(d) / (double)r->length_before,
		d < 0 ? "shorter" : "longer");
}

/* Sampled procedures: say which scaled ones rest on too few samples. */
static void thin_notes(struct cpt_ctx *c, const struct cpt_input *in,
		       const struct cp_whatif_scale *sc, uint32_t nsc,
		       bool exclusive)
{
	for (uint32_t i = 0; in->is_trace && i < nsc; i++) {
		uint64_t n = cp_sampled_count(&in->tp, sc[i].name, exclusive);

		if (n < CP_SAMPLES_THIN)
			fprintf(c->out, "  note: %s rests on %" PRIu64
				" sample%s: too few to trust this "
				"prediction.\n", sc[i].name, n,
				n == 1 ? "" : "s");
	}
}

static void print_text(struct cpt_ctx *c, const struct cpt_input *in,
		       const struct cp_whatif_scale *sc, uint32_t nsc,
		       const struct cp_whatif_result *r)
{
	char a[32], b[64];
	bool ns = in->is_trace;
	bool model = r->cpus || r->wake;
	double dsim, dfix;

#define FMT(v) (ns ? cpt_fmt_ns(a, sizeof(a), (v)) :			\
		(snprintf(a, sizeof(a), "%" PRIu64, (uint64_t)(v)), a))

	fprintf(c->out, "what if, in %s:", in->path);
	for (uint32_t i = 0; i < nsc; i++)
		fprintf(c->out, "%s %s x %g", i ? "," : "", sc[i].name,
			sc[i].factor);
	fprintf(c->out, "\n\n");
	cpt_input_print_salvage(c->out, in);
	fprintf(c->out, "  %-28s %12s\n", "critical path, as recorded",
		FMT(r->length_before));
	if (r->simulated) {
		/* the baseline of the simulated change, when it is not the
		 * line above */
		change(b, sizeof(b), r->length_before_sim, r->length_after,
		       ns);
		if (model || r->length_before_sim != r->length_before)
			fprintf(c->out, "  %-28s %12s\n",
				"simulated, unchanged",
				FMT(r->length_before_sim));
		fprintf(c->out, "  %-28s %12s   %s\n", "simulated new run time",
			FMT(r->length_after), b);
		if (r->cpus)
			fprintf(c->out, "  (simulated on %u processor%s shared "
				"by the threads)\n", r->cpus,
				r->cpus == 1 ? "" : "s");
		if (r->wake)
			fprintf(c->out, "  (each woken thread paying the "
				"wake-up latency it had in the recording)\n");
	}
	change(b, sizeof(b), r->length_before, r->length_after_fixed, ns);
	fprintf(c->out, "  %-28s %12s   %s\n", "fixed-graph prediction",
		FMT(r->length_after_fixed), b);
	fprintf(c->out, "\n");
	dsim = (double)r->length_after - (double)r->length_before_sim;
	dfix = (double)r->length_after_fixed - (double)r->length_before;
	if (r->simulated && !model &&
	    worth_noting((double)r->length_before_sim -
			 (double)r->length_before, r->length_before))
		note_baseline(c, FMT(r->length_before_sim), r);
	if (r->simulated && r->reordered &&
	    worth_noting(dsim - dfix, r->length_before))
		fprintf(c->out,
			"  The two predicted changes differ: in the simulation %" PRIu64 "\n"
			"  lock acquisition%s happen%s in another order than in the\n"
			"  recording, which the fixed graph cannot see and the simulation\n"
			"  takes into account.\n",
			r->reordered, r->reordered == 1 ? "" : "s",
			r->reordered == 1 ? "s" : "");
	if (r->simulated && r->forced)
		fprintf(c->out,
			"  %" PRIu64 " acquisition%s that did not wait in the recording (perhaps a\n"
			"  trylock or trywait) found %s lock or token taken in the new order\n"
			"  with nothing else left to run, and %s let through as recorded.\n",
			r->forced, r->forced == 1 ? "" : "s",
			r->forced == 1 ? "its" : "their",
			r->forced == 1 ? "was" : "were");
	if (r->deadlock)
		fprintf(c->out,
			"  the simulation deadlocked in the new order; only the fixed-graph\n"
			"  prediction is given.\n");
	if (!in->is_trace)
		fprintf(c->out,
			"  (a plain graph has no events to replay: fixed-graph prediction only)\n");
	if (!r->scaled_ns)
		fprintf(c->out,
			"  the scaled procedures took no useful time in this run.\n");
#undef FMT
}

static void print_json(struct cpt_ctx *c, const struct cpt_input *in,
		       const struct cp_whatif_scale *sc, uint32_t nsc,
		       bool exclusive, const struct cp_whatif_result *r)
{
	struct cp_emit e;

	cpt_json_begin(c, &e);
	cp_emit_obj_begin(&e, NULL);
	cpt_input_emit_salvage(&e, in);
	cp_emit_u64(&e, "length_before", r->length_before);
	cp_emit_u64(&e, "length_after", r->length_after);
	cp_emit_u64(&e, "length_after_fixed", r->length_after_fixed);
	cp_emit_u64(&e, "length_before_sim", r->length_before_sim);
	cp_emit_bool(&e, "simulated", r->simulated);
	cp_emit_bool(&e, "deadlock", r->deadlock);
	cp_emit_u64(&e, "reordered", r->reordered);
	cp_emit_u64(&e, "forced", r->forced);
	cp_emit_u64(&e, "scaled_ns", r->scaled_ns);
	cp_emit_u64(&e, "cpus", r->cpus);
	cp_emit_bool(&e, "wake", r->wake);
	if (in->is_trace && nsc &&
	    cp_sampled_count(&in->tp, sc[0].name, exclusive) != UINT64_MAX) {
		/* sampled procedures: what each scaling rests on */
		cp_emit_obj_begin(&e, "samples");
		for (uint32_t i = 0; i < nsc; i++)
			cp_emit_u64(&e, sc[i].name,
				    cp_sampled_count(&in->tp, sc[i].name,
						     exclusive));
		cp_emit_obj_end(&e);
	}
	cp_emit_obj_end(&e);
	cp_emit_end(&e);
}

enum cpt_status cpt_cmd_whatif(struct cpt_ctx *c, int argc, char **argv)
{
	struct cp_whatif_scale sc[MAX_SCALES];
	struct cp_whatif_result r;
	struct cpt_input in;
	const char *path = NULL;
	uint32_t nsc = 0, cpus = 0;
	bool exclusive = false, wake = false;
	enum cpt_status st;
	int ret;

	for (int i = 1; i < argc; i++) {
		int o = cpt_common_opt(c, argc, argv, &i);
		char *val = NULL;

		if (o < 0)
			return CPT_USAGE;
		if (o)
			continue;
		if (!strcmp(argv[i], "--scale") || !strcmp(argv[i], "-s")) {
			if (i + 1 >= argc) {
				snprintf(c->err, sizeof(c->err),
					 "%s needs NAME=FACTOR", argv[i]);
				return CPT_USAGE;
			}
			val = argv[++i];
		} else if (!strncmp(argv[i], "--scale=", 8)) {
			val = argv[i] + 8;
		} else if (!strcmp(argv[i], "--exclusive")) {
			exclusive = true;
			continue;
		} else if (!strcmp(argv[i], "--wake")) {
			wake = true;
			continue;
		} else if (!strcmp(argv[i], "--cpus") ||
			   !strncmp(argv[i], "--cpus=", 7)) {
			const char *n = argv[i][6] ? argv[i] + 7 : argv[++i];

			if (!n) {
				snprintf(c->err, sizeof(c->err),
					 "--cpus needs a number");
				return CPT_USAGE;
			}
			if (parse_cpus(c, n, &cpus))
				return CPT_USAGE;
			continue;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			snprintf(c->err, sizeof(c->err), "unknown option '%s'",
				 argv[i]);
			return CPT_USAGE;
		} else if (path) {
			snprintf(c->err, sizeof(c->err),
				 "one input only ('%s' and '%s')", path,
				 argv[i]);
			return CPT_USAGE;
		} else {
			path = argv[i];
			continue;
		}
		if (nsc == MAX_SCALES) {
			snprintf(c->err, sizeof(c->err),
				 "at most %d --scale options", MAX_SCALES);
			return CPT_USAGE;
		}
		if (parse_scale(c, val, &sc[nsc++]))
			return CPT_USAGE;
	}
	if (!path || !nsc) {
		snprintf(c->err, sizeof(c->err), "%s",
			 path ? "no --scale NAME=FACTOR given"
			      : "no trace or graph given");
		return CPT_USAGE;
	}
	st = cpt_input_load(c, path, &in);
	if (st)
		return st;
	if ((cpus || wake) && !in.is_trace) {
		snprintf(c->err, sizeof(c->err),
			 "%s: %s needs a trace (a plain graph has no "
			 "events to replay)", path, cpus ? "--cpus" : "--wake");
		cpt_input_free(&in);
		return CPT_USAGE;
	}
	cpt_progress(c, "simulating", 0.0);
	if (in.is_trace)
		ret = cp_whatif_trace(&in.tp, sc, nsc, exclusive, cpus, wake,
				      &r, c->err, sizeof(c->err));
	else
		ret = cp_whatif_pag(in.g, sc, nsc, &r, c->err, sizeof(c->err));
	if (ret) {
		if (!in.is_trace) {
			/* name the file in the message */
			char tmp[sizeof(c->err)];

			snprintf(tmp, sizeof(tmp), "%s", c->err);
			snprintf(c->err, sizeof(c->err), "%s: %.900s", path,
				 tmp);
		}
		cpt_input_free(&in);
		return CPT_BAD_INPUT;
	}
	st = cpt_open_out(c);
	if (st == CPT_OK) {
		cpt_progress_done(c);
		if (c->format == CPT_JSON) {
			print_json(c, &in, sc, nsc, exclusive, &r);
		} else {
			print_text(c, &in, sc, nsc, &r);
			thin_notes(c, &in, sc, nsc, exclusive);
		}
	}
	cpt_input_free(&in);
	return st;
}
