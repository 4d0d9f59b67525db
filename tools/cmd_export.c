/*
 * cmd_export.c - `cpt export TRACE --format chrome|folded|dot`: the trace
 * in the formats other tools draw.
 *
 *   chrome  Chrome trace-event JSON (Perfetto, chrome://tracing): a track
 *           per thread, procedures, waits, dependency arrows, the critical
 *           path marked and followed on a track of its own (cp_chrome.c);
 *           --window FROM:TO keeps a stretch of the run, and what is
 *           shorter than --min-slice (default: the window / 20000; 0:
 *           everything) is merged or left out, so that a viewer opens it
 *   folded  folded stacks for flamegraph.pl / speedscope, weighted by time
 *           on the critical path, or by CPU time with --weight cpu
 *           (cp_folded.c)
 *   dot     Graphviz dot of a small graph, critical path in bold
 *           (cp_dot.c); also for plain-text PAGs
 *
 * Everything goes to standard output, or to the file named by -o.
 */
#include <stdlib.h>
#include <string.h>

#include "cp_chrome.h"
#include "cp_cpm.h"
#include "cp_dot.h"
#include "cp_folded.h"
#include "cpt.h"
#include "cpt_input.h"

enum xfmt { X_CHROME, X_FOLDED, X_DOT };

struct xopts {
	enum xfmt fmt;
	bool fmt_given;
	enum cp_folded_weight weight;
	bool weight_given;
	bool threads;		/* folded: thread as the root frame */
	bool no_flows;		/* chrome: critical arrows only */
	uint64_t from_ns, to_ns;	/* chrome: --window */
	uint64_t min_slice;	/* chrome: --min-slice, or MIN_AUTO */
	bool chrome_given;	/* a chrome-only option was given */
	uint32_t max_edges;	/* dot */
};

/* "T0:T1", either side may be empty (the start, the end). */
static int parse_window(struct cpt_ctx *c, const char *v, struct xopts *o)
{
	const char *colon = strchr(v, ':');
	char lo[64];
	size_t n;

	if (!colon || (size_t)(colon - v) >= sizeof(lo)) {
		snprintf(c->err, sizeof(c->err), "--window wants FROM:TO "
			 "(durations from the trace's start, e.g. 1s:1.5s or "
			 ":200ms), not '%s'", v);
		return -1;
	}
	n = (size_t)(colon - v);
	memcpy(lo, v, n);
	lo[n] = '\0';
	o->from_ns = 0;
	o->to_ns = 0;
	if ((n && cpt_parse_ns(c, "--window", lo, &o->from_ns)) ||
	    (colon[1] && cpt_parse_ns(c, "--window", colon + 1, &o->to_ns)))
		return -1;
	if (colon[1] && o->to_ns <= o->from_ns) {
		snprintf(c->err, sizeof(c->err),
			 "--window '%s' ends before it begins", v);
		return -1;
	}
	return 0;
}

enum {
	OPT_XFORMAT = CPT_OPT_OWN, OPT_WEIGHT, OPT_MAX_EDGES, OPT_WINDOW, OPT_MIN_SLICE,
	OPT_THREADS, OPT_NO_FLOWS,
};

/* The common options but --format, which names an export format here. */
static const struct option export_options[] = {
	{ "format", required_argument, NULL, OPT_XFORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "strict", no_argument, NULL, CPT_OPT_STRICT },
	{ "procedures", required_argument, NULL, CPT_OPT_PROCEDURES },
	{ "debuginfo-path", required_argument, NULL, CPT_OPT_DEBUGINFO },
	{ "memory", required_argument, NULL, CPT_OPT_MEMORY },
	{ "weight", required_argument, NULL, OPT_WEIGHT },
	{ "max-edges", required_argument, NULL, OPT_MAX_EDGES },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "min-slice", required_argument, NULL, OPT_MIN_SLICE },
	{ "threads", no_argument, NULL, OPT_THREADS },
	{ "no-flows", no_argument, NULL, OPT_NO_FLOWS },
	{ NULL, 0, NULL, 0 },
};

static int parse_format(struct cpt_ctx *c, const char *v, struct xopts *o)
{
	if (!strcmp(v, "chrome")) {
		o->fmt = X_CHROME;
	} else if (!strcmp(v, "folded")) {
		o->fmt = X_FOLDED;
	} else if (!strcmp(v, "dot")) {
		o->fmt = X_DOT;
	} else {
		snprintf(c->err, sizeof(c->err), "unknown export format '%s' "
			 "(chrome, folded or dot)", v);
		return -1;
	}
	o->fmt_given = true;
	return 0;
}

static int parse_weight(struct cpt_ctx *c, const char *v, struct xopts *o)
{
	if (!strcmp(v, "cp")) {
		o->weight = CP_FOLDED_CP;
	} else if (!strcmp(v, "cpu")) {
		o->weight = CP_FOLDED_CPU;
	} else {
		snprintf(c->err, sizeof(c->err),
			 "unknown weight '%s' (cp or cpu)", v);
		return -1;
	}
	o->weight_given = true;
	return 0;
}

/* One option @id with value @v into @o; 0, or -1 with c->err. */
static int apply(struct cpt_ctx *c, int id, const char *v, struct xopts *o)
{
	switch (id) {
	case OPT_XFORMAT:
		return parse_format(c, v, o);
	case OPT_WEIGHT:
		return parse_weight(c, v, o);
	case OPT_MAX_EDGES:
		return cpt_parse_u32(c, "--max-edges", v, &o->max_edges);
	case OPT_WINDOW:
		o->chrome_given = true;
		return parse_window(c, v, o);
	case OPT_MIN_SLICE:
		o->chrome_given = true;
		return cpt_parse_ns(c, "--min-slice", v, &o->min_slice);
	case OPT_THREADS:
		o->threads = true;
		return 0;
	case OPT_NO_FLOWS:
		o->no_flows = true;
		return 0;
	default:	/* '?' */
		return -1;
	}
}

static int parse(struct cpt_ctx *c, int argc, char **argv, struct xopts *o,
		 const char **path)
{
	int id;

	while ((id = cpt_getopt(c, argc, argv, ":o:", export_options)) != -1)
		if (apply(c, id, optarg, o))
			return -1;
	*path = cpt_one_input(c, argc, argv, "no trace given");
	if (!*path)
		return -1;
	if (!o->fmt_given) {
		snprintf(c->err, sizeof(c->err),
			 "--format chrome, folded or dot is required");
		return -1;
	}
	if (o->chrome_given && o->fmt != X_CHROME) {
		snprintf(c->err, sizeof(c->err),
			 "--window and --min-slice apply to --format chrome");
		return -1;
	}
	if ((o->weight_given || o->threads) && o->fmt != X_FOLDED) {
		snprintf(c->err, sizeof(c->err),
			 "--weight and --threads apply to --format folded");
		return -1;
	}
	return 0;
}

enum cpt_status cpt_cmd_export(struct cpt_ctx *c, int argc, char **argv)
{
	struct xopts o = { .fmt = X_CHROME, .weight = CP_FOLDED_CP,
			   .min_slice = CP_CHROME_MIN_AUTO };
	const char *path = NULL;
	struct cp_input in;
	struct cp_cpm cpm;
	enum cpt_status st;
	int r = -1;

	if (parse(c, argc, argv, &o, &path))
		return CPT_USAGE;
	c->use = CP_BUDGET_GRAPH;
	st = cpt_input_load(c, path, &in);
	if (st)
		return st;
	st = CPT_BAD_INPUT;
	if (!in.is_trace && o.fmt != X_DOT) {
		snprintf(c->err, sizeof(c->err),
			 "%s: a plain-text PAG has no threads or timeline: "
			 "only --format dot applies", path);
		goto out;
	}
	if (o.fmt == X_DOT &&
	    cp_dot_check(in.g, o.max_edges, c->err, sizeof(c->err)))
		goto out;
	cpt_progress(c, "critical path", 0.0);
	if (cp_cpm_run(&cpm, in.g, NULL)) {
		snprintf(c->err, sizeof(c->err), "%s: out of memory", path);
		goto out;
	}
	st = cpt_open_out(c);
	if (st == CPT_OK) {
		struct cp_folded_opts fo = { .weight = o.weight,
					     .threads = o.threads };
		struct cp_chrome_opts co = {
			.no_flows = o.no_flows, .from_ns = o.from_ns,
			.to_ns = o.to_ns, .min_slice_ns = o.min_slice,
			.progress = cpt_progress, .progress_ctx = c };
		struct cp_dot_opts dopt = { .max_edges = o.max_edges,
					    .tp = in.is_trace ? &in.tp : NULL };

		cpt_progress(c, "writing", 0.0);
		switch (o.fmt) {
		case X_CHROME:
			r = cp_chrome_write(c->out, &in.tp, &cpm, &co, c->err,
					    sizeof(c->err));
			break;
		case X_FOLDED:
			r = cp_folded_write(c->out, &in.tp, &cpm, &fo, c->err,
					    sizeof(c->err));
			break;
		case X_DOT:
			r = cp_dot_write(c->out, in.g, &cpm, &dopt, c->err,
					 sizeof(c->err));
			break;
		}
		if (r)
			st = CPT_BAD_INPUT;
	}
	cp_cpm_free(&cpm);
out:
	cp_input_free(&in);
	return st;
}
