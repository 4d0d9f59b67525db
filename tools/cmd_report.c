/*
 * cmd_report.c - `cpt report TRACE|PAG`: the critical-path report.
 *
 * Parses the options, loads the input, computes the profile (a trace) or
 * the measures by edge label (a plain PAG) and hands them to one renderer
 * of the report layer: cp_report_out.h (text, JSON), cp_views.h (--by),
 * cp_html.h (--format html).  A trace whose estimate is over the memory
 * budget (cp_budget.h), or any trace with --stream, is analysed out of
 * core instead (cp_stream.h, cp_stream_out.h), which stderr says in one
 * line.
 */
#include <stdlib.h>
#include <string.h>

#include "cp_compare.h"
#include "cp_gprof.h"
#include "cp_html.h"
#include "cp_kpaths.h"
#include "cp_labels.h"
#include "cp_profile.h"
#include "cp_profile_timeline.h"
#include "cp_report_out.h"
#include "cp_stream.h"
#include "cp_stream_out.h"
#include "cp_stream_prof.h"
#include "cp_views.h"
#include "cp_whatif_top.h"
#include "cpt.h"
#include "cpt_input.h"

struct ropts {
	uint32_t k;
	struct cp_report_opts out;	/* --top */
	bool exclusive;
	const char *gprof, *exe;	/* --gprof GMON --exe PROGRAM */
	enum cp_view by;		/* --by: one level of the hierarchy */
	bool stream;			/* --stream: out of core, always */
	bool no_slack;			/* --no-slack: out of core, none */
};

/* --format html: the near-critical paths and the top procedures' what-if,
 * then the page. */
static enum cpt_status render_html(struct cpt_ctx *c, struct cp_input *in,
				   const struct cp_profile *p,
				   const struct cp_compare *cmp)
{
	struct cp_html_opts ho = { .title = in->path };
	struct cp_kpaths kp;
	struct cp_whatif_top wt;
	struct cp_timeline tl;
	struct cp_html_in hi = { .p = p, .c = cmp, .kp = &kp, .wt = &wt,
				 .tl = &tl };
	enum cpt_status st = CPT_BAD_INPUT;

	cpt_progress(c, "near-critical paths for the page", 0.0);
	if (!cmp || cp_kpaths_find(&kp, p->cpm, CP_HTML_KPATHS)) {
		cpt_progress_done(c);
		return CPT_BAD_INPUT;
	}
	if (cp_profile_timeline(&tl, p, CP_HTML_WIDTH)) {
		cpt_progress_done(c);
		cp_kpaths_free(&kp);
		return CPT_BAD_INPUT;
	}
	cpt_progress(c, "what-if of the top procedures", 0.0);
	if (!cp_whatif_top_run(&wt, p, 0, 0)) {
		cpt_progress_done(c);
		if (!cp_html_write(c->out, &hi, &ho, c->err, sizeof(c->err)))
			st = CPT_OK;
		cp_whatif_top_free(&wt);
	}
	cpt_progress_done(c);
	cp_timeline_free(&tl);
	cp_kpaths_free(&kp);
	return st;
}

static enum cpt_status render_trace(struct cpt_ctx *c, struct cp_input *in,
				    const struct ropts *o,
				    const struct cp_profile *p,
				    const struct cp_compare *cmp)
{
	const struct cp_report_opts *ro = &o->out;

	if (c->format == CPT_HTML) {
		return render_html(c, in, p, cmp);
	} else if (c->format == CPT_JSON) {
		cp_report_out_json(c->out, in, p, cmp);
	} else if (o->by) {
		if (cp_views_print(c->out, p, o->by, ro->top_given ?
				   (ro->top ? ro->top : UINT32_MAX) : 0))
			return CPT_BAD_INPUT;
	} else if (cp_report_out_text(c->out, in, p, cmp, ro)) {
		return CPT_BAD_INPUT;
	}
	return CPT_OK;
}

static enum cpt_status report_trace(struct cpt_ctx *c, struct cp_input *in,
				    const struct ropts *o)
{
	struct cp_gprof gp = { .n = 0 };
	struct cp_profile_opts po = {
		.exclusive = o->exclusive, .k = o->k,
		.top = o->out.top_given ? o->out.top : CP_REPORT_TOP_DEFAULT,
		.also = cp_compare_headline_proc, .also_ctx = o->gprof ? &gp : NULL,
		.progress = cpt_progress, .progress_ctx = c,
	};
	struct cp_profile p;
	enum cpt_status st;
	struct cp_compare cmp;
	bool have_cmp;

	if (c->format != CPT_HTML)	/* only its what-if replays */
		cp_trace_drop_replay(&in->t);
	if (o->gprof && cp_gprof_run(&gp, NULL, o->exe, o->gprof, c->err,
				     sizeof(c->err)))
		return CPT_BAD_INPUT;
	if (cp_profile_compute(&p, &in->tp, &po, c->err, sizeof(c->err))) {
		cp_gprof_free(&gp);
		return CPT_BAD_INPUT;
	}
	have_cmp = !cp_compare_build(&cmp, &p, o->gprof ? &gp : NULL);
	st = cpt_open_out(c);
	if (st == CPT_OK) {
		cpt_progress_done(c);
		st = render_trace(c, in, o, &p, have_cmp ? &cmp : NULL);
		if (st != CPT_OK && !c->err[0])
			snprintf(c->err, sizeof(c->err), "%s: out of memory",
				 in->path);
	}
	if (have_cmp)
		cp_compare_free(&cmp);
	cp_gprof_free(&gp);
	cp_profile_free(&p);
	return st;
}

/* A plain PAG: the same table by edge label. */
static enum cpt_status report_pag(struct cpt_ctx *c, struct cp_input *in,
				  const struct ropts *o)
{
	struct cp_labels lb;
	enum cpt_status st;

	if (cp_labels_compute(&lb, in->g, o->k)) {
		snprintf(c->err, sizeof(c->err), "%s: out of memory",
			 in->path);
		return CPT_BAD_INPUT;
	}
	st = cpt_open_out(c);
	if (st == CPT_OK) {
		cpt_progress_done(c);
		if (c->format == CPT_JSON) {
			cp_report_out_labels_json(c->out, in, &lb);
		} else if (cp_report_out_labels_text(c->out, in, &lb,
						     &o->out)) {
			snprintf(c->err, sizeof(c->err), "%s: out of memory",
				 in->path);
			st = CPT_BAD_INPUT;
		}
	}
	cp_labels_free(&lb);
	return st;
}

enum {
	OPT_GPROF = CPT_OPT_OWN, OPT_EXE, OPT_BY, OPT_EXCLUSIVE,
	OPT_INCLUSIVE, OPT_TOP, OPT_STREAM, OPT_NO_SLACK,
};

static const struct option report_options[] = {
	CPT_COMMON_LONGOPTS,
	{ "gprof", required_argument, NULL, OPT_GPROF },
	{ "exe", required_argument, NULL, OPT_EXE },
	{ "by", required_argument, NULL, OPT_BY },
	{ "exclusive", no_argument, NULL, OPT_EXCLUSIVE },
	{ "inclusive", no_argument, NULL, OPT_INCLUSIVE },
	{ "k", required_argument, NULL, 'k' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "stream", no_argument, NULL, OPT_STREAM },
	{ "no-slack", no_argument, NULL, OPT_NO_SLACK },
	{ NULL, 0, NULL, 0 },
};

/* Options into @o; the input path into *@path.  -1 with c->err. */
static int parse(struct cpt_ctx *c, int argc, char **argv, struct ropts *o,
		 const char **path)
{
	int id;

	while ((id = cpt_getopt(c, argc, argv, ":o:k:", report_options)) !=
	       -1) {
		switch (id) {
		case OPT_GPROF:
			o->gprof = optarg;
			break;
		case OPT_EXE:
			o->exe = optarg;
			break;
		case OPT_BY:
			o->by = cp_view_parse(optarg);
			if (!o->by) {
				snprintf(c->err, sizeof(c->err),
					 "--by program, thread, procedure or "
					 "object, not '%s'", optarg);
				return -1;
			}
			break;
		case OPT_EXCLUSIVE:
		case OPT_INCLUSIVE:
			o->exclusive = id == OPT_EXCLUSIVE;
			break;
		case OPT_TOP:
			o->out.top_given = true;
			if (strcmp(optarg, "0") &&
			    cpt_parse_u32(c, "--top", optarg, &o->out.top))
				return -1;
			break;
		case 'k':
			if (cpt_parse_u32(c, "--k", optarg, &o->k))
				return -1;
			break;
		case OPT_STREAM:
			o->stream = true;
			break;
		case OPT_NO_SLACK:
			o->no_slack = true;
			break;
		default:
			return -1;
		}
	}
	*path = cpt_one_input(c, argc, argv, "no trace given");
	if (!*path)
		return -1;
	if (!o->gprof != !o->exe) {
		snprintf(c->err, sizeof(c->err), "--gprof GMON and --exe "
			 "PROGRAM (its -pg build) go together");
		return -1;
	}
	return 0;
}

/* --format html streamed: the top procedures' what-if (cpt whatif
 * --stream's passes for each), then the page. */
static enum cpt_status stream_html(struct cpt_ctx *c, struct cp_tindex *ix,
				   const struct cp_stream_opts *so,
				   const struct cp_stream *s,
				   const struct cp_profile *p,
				   const struct cp_compare *cmp)
{
	struct cp_whatif_top wt;
	struct cp_html_in hi = { .p = p, .c = cmp, .wt = &wt, .t = &ix->t,
				 .tl = &s->tl, .s = s };
	struct cp_html_opts ho = { .title = ix->t.path };
	enum cpt_status st = CPT_BAD_INPUT;

	cpt_progress(c, "what-if of the top procedures", 0.0);
	if (!cp_whatif_top_stream(&wt, p, ix, so, s->sid, 0, 0)) {
		cpt_progress_done(c);
		if (!cp_html_write(c->out, &hi, &ho, c->err, sizeof(c->err)))
			st = CPT_OK;
		cp_whatif_top_free(&wt);
	}
	cpt_progress_done(c);
	return st;
}

/* The out-of-core report of the trace @path. */
static enum cpt_status report_stream(struct cpt_ctx *c, const char *path,
				     const struct ropts *o)
{
	/* a view prints neither Slack nor MBM: no walk back, no paths */
	bool html = c->format == CPT_HTML;
	bool view = o->by && c->format == CPT_TEXT;
	struct cp_stream_opts so = {
		.exclusive = o->exclusive,
		.mbm_k = view ? 1 : o->k ? o->k : CP_PROFILE_K_DEFAULT,
		.slack = !o->no_slack && !view,
		.views = view,
		.timeline = html ? CP_HTML_WIDTH : 0,
	};
	struct cp_tindex ix;
	struct cp_stream s;
	struct cp_gprof gp = { .n = 0 };
	struct cp_profile p;
	struct cp_compare cmp;
	enum cpt_status st;

	if (o->gprof && cp_gprof_run(&gp, NULL, o->exe, o->gprof, c->err,
				     sizeof(c->err)))
		return CPT_BAD_INPUT;
	/* Slack for the procedures the rows show, as in memory */
	so.top = o->out.top_given ? o->out.top : CP_REPORT_TOP_DEFAULT;
	so.headline = cp_stream_prof_headline;
	so.headline_ctx = o->gprof ? &gp : NULL;
	st = cpt_stream_run(c, path, &so, &ix, &s);
	if (st) {
		cp_gprof_free(&gp);
		return st;
	}
	if (cp_stream_prof_make(&p, &s, &ix.t) ||
	    cp_compare_build(&cmp, &p, o->gprof ? &gp : NULL)) {
		cp_stream_prof_free(&p);
		st = CPT_BAD_INPUT;
	} else {
		uint32_t max = o->out.top_given ?
			       (o->out.top ? o->out.top : UINT32_MAX) : 0;

		if (html) {
			st = stream_html(c, &ix, &so, &s, &p, &cmp);
		} else if (view ? cp_stream_out_view(c->out, &p, &s, o->by,
						     max) :
			   c->format == CPT_JSON ?
			   cp_stream_out_json(c->out, &ix, &s, &cmp) :
			   cp_stream_out_text(c->out, &ix, &s, &cmp, &o->out)) {
			st = CPT_BAD_INPUT;
		}
		cp_compare_free(&cmp);
		cp_stream_prof_free(&p);
	}
	if (st && !c->err[0])
		snprintf(c->err, sizeof(c->err), "%s: out of memory writing "
			 "the report", path);
	cpt_stream_close(&ix, &s);
	cp_gprof_free(&gp);
	return st;
}

enum cpt_status cpt_cmd_report(struct cpt_ctx *c, int argc, char **argv)
{
	struct ropts o = { .k = 0 };
	const char *path;
	struct cp_input in;
	enum cpt_status st;
	int stream = 0;

	if (parse(c, argc, argv, &o, &path))
		return CPT_USAGE;
	/* a page adds the what-if of its top procedures */
	c->use = c->format == CPT_HTML ? CP_BUDGET_PAGE : CP_BUDGET_REPORT;
	c->npaths = o.k ? o.k : CP_PROFILE_K_DEFAULT;
	if (cpt_is_trace(path)) {
		stream = cpt_choose_stream(c, path, o.stream, NULL,
					   "CP figures of the procedures "
					   "with the most CPU time");
		if (stream < 0)
			return o.stream ? CPT_USAGE : CPT_BAD_INPUT;
		if (stream)
			return report_stream(c, path, &o);
	} else if (o.stream) {
		snprintf(c->err, sizeof(c->err), "%s: --stream needs a trace, "
			 "not a plain PAG", path);
		return CPT_USAGE;
	}
	st = cpt_input_load(c, path, &in);
	if (st)
		return st;
	if (!in.is_trace && (o.gprof || o.by || c->format == CPT_HTML)) {
		snprintf(c->err, sizeof(c->err), "%s: --gprof, --by and "
			 "--format html need a trace, not a plain PAG", path);
		cp_input_free(&in);
		return CPT_USAGE;
	}
	st = in.is_trace ? report_trace(c, &in, &o) : report_pag(c, &in, &o);
	cp_input_free(&in);
	return st;
}
