/*
 * cpt_input.c - load what a graph verb analyses: a trace (read, validated,
 * turned into its PAG) or a plain-text PAG, told apart by the trace magic.
 */
#include "cpt_input.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cp_budget.h"
#include "cp_sampled.h"
#include "cp_stream.h"

/* Traces of this many events or more are told the mode chosen, on a
 * terminal or when the estimate is over half the budget (a script's
 * stderr stays as it was unless memory is tight). */
#define CPT_BUDGET_SAY_EVENTS	1000000u

int cpt_input_budget(struct cpt_ctx *c, const char *path,
		     struct cp_budget_est *est, char *why, size_t whylen)
{
	uint64_t budget = c->memory ? c->memory : cp_budget_default();
	char need[32], have[32];

	if (cp_budget_estimate(path, c->use, c->npaths, est, c->err,
			       sizeof(c->err)))
		return -1;
	cp_budget_fmt(need, sizeof(need), est->peak_bytes);
	cp_budget_fmt(have, sizeof(have), budget);
	if (est->peak_bytes > budget) {
		snprintf(why, whylen, "%" PRIu64 " events need about %s in "
			 "memory, over the budget of %s", est->nevents, need,
			 have);
		return 1;
	}
	snprintf(why, whylen, "%" PRIu64 " events, about %s, within the "
		 "budget of %s", est->nevents, need, have);
	return est->nevents >= CPT_BUDGET_SAY_EVENTS &&
	       (isatty(STDERR_FILENO) || est->peak_bytes > budget / 2) ? 2 : 0;
}

int cpt_choose_stream(struct cpt_ctx *c, const char *path, bool forced,
		      const char *bad, const char *gives)
{
	struct cp_budget_est est;
	char why[200];
	int fit;

	if (forced) {
		if (bad) {
			snprintf(c->err, sizeof(c->err), "--stream cannot "
				 "give %s", bad);
			return -1;
		}
		fprintf(stderr, "cpt: %s: streaming analysis (--stream; %s)\n",
			path, gives);
		return 1;
	}
	fit = cpt_input_budget(c, path, &est, why, sizeof(why));
	if (fit < 0)
		return -1;
	if (fit == 1 && bad) {
		snprintf(c->err, sizeof(c->err), "%s: %s, and the streaming "
			 "analysis cannot give %s (--memory SIZE)", path, why,
			 bad);
		return -1;
	}
	if (fit == 1)
		fprintf(stderr, "cpt: %s: %s: streaming analysis (%s)\n", path,
			why, gives);
	else if (fit == 2)
		fprintf(stderr, "cpt: %s: in memory: %s\n", path, why);
	c->budget_checked = true;
	return fit == 1;
}

/*
 * --strict, streamed: a partial or repaired trace is refused as the
 * loader refuses it: before the pass (@s NULL) what the framing found,
 * after it what the pass repaired too.  0, or -1 with c->err.
 */
static int stream_strict(struct cpt_ctx *c, const char *path,
			 const struct cp_tindex *ix, const struct cp_stream *s)
{
	if (!c->strict)
		return 0;
	if (ix->t.partial)
		snprintf(c->err, sizeof(c->err), "%s: partial trace: %s "
			 "(--strict)", path, ix->t.partial_why);
	else if (ix->t.nrepairs)
		snprintf(c->err, sizeof(c->err), "%s: %s (--strict)", path,
			 ix->t.repair_why);
	else if (s && s->nrepairs)
		snprintf(c->err, sizeof(c->err), "%s: %" PRIu64 " dependencies"
			 " on events the trace does not hold (--strict)", path,
			 s->nrepairs);
	else
		return 0;
	return -1;
}

/* The streaming analysis's symbolizer (cp_stream_opts): @ctx the context,
 * whose --debuginfo-path it takes. */
static int stream_symbolize(void *ctx, struct cp_trace *t, uint32_t **sid,
			    char *err, size_t errlen)
{
	const struct cpt_ctx *c = ctx;

	return cp_sampled_symbolize(t, c->debuginfo, sid, err, errlen);
}

void cpt_stream_opts_init(struct cpt_ctx *c, struct cp_stream_opts *so)
{
	so->progress = cpt_progress;
	so->progress_ctx = c;
	so->src = c->procs;
	so->symbolize = stream_symbolize;
	so->symbolize_ctx = c;
	/* the k paths' heaps (cpt paths, the report's MBM): a quarter of
	 * --memory when given, at 2 nodes (24 bytes) and 2 sidetracks (48)
	 * a unit; else their default room, grown when the paths come out
	 * cut up to a quarter of the default budget */
	if (c->memory)
		so->kpaths_nodes = c->memory / 4 / 144 > 4096 ?
				   c->memory / 4 / 144 : 4096;
	else
		so->kpaths_nodes_max = cp_budget_default() / 4 / 144;
}

/* cpt_stream_run's pass: cp_stream_run. */
static int plain_pass(void *ctx, struct cp_stream *s, struct cp_tindex *ix,
		      const struct cp_stream_opts *so, char *err,
		      size_t errlen)
{
	(void)ctx;
	return cp_stream_run(s, ix, so, err, errlen);
}

enum cpt_status cpt_stream_run(struct cpt_ctx *c, const char *path,
			       struct cp_stream_opts *so,
			       struct cp_tindex *ix, struct cp_stream *s)
{
	return cpt_stream_run_pass(c, path, so, ix, s, plain_pass, NULL);
}

enum cpt_status cpt_stream_run_pass(struct cpt_ctx *c, const char *path,
				    struct cp_stream_opts *so,
				    struct cp_tindex *ix, struct cp_stream *s,
				    cpt_pass_fn pass, void *pass_ctx)
{
	cpt_stream_opts_init(c, so);
	cpt_progress(c, "streaming", 0.0);
	if (cp_tindex_open(ix, path, c->err, sizeof(c->err)))
		return CPT_BAD_INPUT;
	if (stream_strict(c, path, ix, NULL)) {
		cp_tindex_close(ix);
		return CPT_BAD_INPUT;
	}
	if (ix->t.partial)
		fprintf(stderr, "cpt: %s: partial trace: %s\n", path,
			ix->t.partial_why);
	if (pass(pass_ctx, s, ix, so, c->err, sizeof(c->err))) {
		cp_tindex_close(ix);
		return CPT_BAD_INPUT;
	}
	cp_sampled_warn(stderr, "cpt: warning", &ix->t);
	if (ix->t.nrepairs) {	/* what salvage did, as in memory */
		char line[400];

		cp_input_repairs_line(line, sizeof(line), &ix->t);
		fprintf(stderr, "cpt: %s: %s\n", path, line);
	}
	if (s->nrepairs)
		fprintf(stderr, "cpt: %s: %" PRIu64 " dependencies on events "
			"the trace does not hold taken to depend on nothing\n",
			path, s->nrepairs);
	/* where the objects were first used, named as in memory */
	for (uint32_t i = 0; i < s->nobjs; i++) {
		struct cp_stream_obj *o = &s->objs[i];

		if (o->site.pc && cp_sampled_name_site(&ix->t, c->debuginfo,
						       &o->site))
			break;	/* no symbolizer: addresses stay bare */
	}
	if (stream_strict(c, path, ix, s) || cpt_open_out(c) != CPT_OK) {
		cpt_stream_close(ix, s);
		return CPT_BAD_INPUT;
	}
	cpt_progress_done(c);
	return CPT_OK;
}

void cpt_stream_close(struct cp_tindex *ix, struct cp_stream *s)
{
	cp_stream_free(s);
	cp_tindex_close(ix);
}

/*
 * The trace at @path against the memory budget: refuse, with the
 * estimate and the budget in one line, what would not fit (the verbs
 * that have no streaming mode); for a large trace say on stderr that it
 * is analysed in memory and why (CPT_BUDGET_SAY_EVENTS).
 */
static enum cpt_status check_budget(struct cpt_ctx *c, const char *path)
{
	struct cp_budget_est est;
	char why[200];
	int fit;

	if (c->budget_checked)
		return CPT_OK;
	fit = cpt_input_budget(c, path, &est, why, sizeof(why));
	if (fit < 0)
		return CPT_BAD_INPUT;
	if (fit == 1) {
		snprintf(c->err, sizeof(c->err), "%s: %s (--memory SIZE; "
			 "`cpt report`, `cpt whatif` and `cpt paths` can "
			 "stream it)", path,
			 why);
		return CPT_BAD_INPUT;
	}
	if (fit == 2)
		fprintf(stderr, "cpt: %s: in memory: %s\n", path, why);
	return CPT_OK;
}

enum cpt_status cpt_input_load(struct cpt_ctx *c, const char *path,
			       struct cp_input *in)
{
	memset(in, 0, sizeof(*in));
	in->path = path;
	cpt_progress(c, "reading", 0.0);
	if (cpt_is_trace(path)) {
		struct cp_sampled_opts so = {
			.src = (enum cp_procsrc)c->procs,
			.debug_path = c->debuginfo,
		};
		enum cpt_status st = check_budget(c, path);

		if (st != CPT_OK)
			return st;

		if (cp_trace_read_flags(&in->t, path,
					c->strict ? CP_TRACE_STRICT : 0,
					c->err, sizeof(c->err)))
			return CPT_BAD_INPUT;
		/* what salvage did, one line each (--strict refuses it) */
		if (in->t.partial)
			fprintf(stderr, "cpt: %s: partial trace: %s\n", path,
				in->t.partial_why);
		if (in->t.nrepairs) {
			char line[400];

			cp_input_repairs_line(line, sizeof(line), &in->t);
			fprintf(stderr, "cpt: %s: %s\n", path, line);
		}
		cpt_progress(c, "symbolizing", 0.0);
		if (cp_sampled_apply(&in->t, &so, c->err,
				     sizeof(c->err)) < 0) {
			cp_trace_free(&in->t);
			return CPT_BAD_INPUT;
		}
		cpt_progress_done(c);
		cp_sampled_warn(stderr, "cpt: warning", &in->t);
		cpt_progress(c, "building the graph", 0.0);
		if (cp_tracepag_build(&in->tp, &in->t, c->err,
				      sizeof(c->err))) {
			cp_trace_free(&in->t);
			return CPT_BAD_INPUT;
		}
		in->is_trace = true;
		in->g = &in->tp.g;
		return CPT_OK;
	}
	if (cp_pag_read_text(&in->pag, path, c->err, sizeof(c->err)))
		return CPT_BAD_INPUT;
	in->g = &in->pag;
	return CPT_OK;
}
