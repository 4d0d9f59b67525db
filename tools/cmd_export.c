/*
 * cmd_export.c - `cpt export TRACE --format chrome|folded|dot`: the trace
 * in the formats other tools draw.
 *
 *   chrome  Chrome trace-event JSON (Perfetto, chrome://tracing): a track
 *           per thread, procedures, waits, dependency arrows, the critical
 *           path marked and followed on a track of its own (cp_chrome.c)
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
	uint32_t max_edges;	/* dot */
};

/* Value of option argv[*i] (--opt V or --opt=V); NULL with c->err. */
static const char *optval(struct cpt_ctx *c, int argc, char **argv, int *i,
			  const char *opt)
{
	size_t n = strlen(opt);

	if (!strncmp(argv[*i], opt, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (*i + 1 >= argc) {
		snprintf(c->err, sizeof(c->err), "%s needs a value", opt);
		return NULL;
	}
	return argv[++*i];
}

static bool is_opt(const char *a, const char *opt)
{
	size_t n = strlen(opt);

	return !strncmp(a, opt, n) && (a[n] == '\0' || a[n] == '=');
}

static int parse(struct cpt_ctx *c, int argc, char **argv, struct xopts *o,
		 const char **path)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int r;

		if (is_opt(a, "--format")) {
			if (!(v = optval(c, argc, argv, &i, "--format")))
				return -1;
			if (!strcmp(v, "chrome")) {
				o->fmt = X_CHROME;
			} else if (!strcmp(v, "folded")) {
				o->fmt = X_FOLDED;
			} else if (!strcmp(v, "dot")) {
				o->fmt = X_DOT;
			} else {
				snprintf(c->err, sizeof(c->err),
					 "unknown export format '%s' (chrome, "
					 "folded or dot)", v);
				return -1;
			}
			o->fmt_given = true;
		} else if (is_opt(a, "--weight")) {
			if (!(v = optval(c, argc, argv, &i, "--weight")))
				return -1;
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
		} else if (is_opt(a, "--max-edges")) {
			if (!(v = optval(c, argc, argv, &i, "--max-edges")) ||
			    cpt_parse_u32(c, "--max-edges", v, &o->max_edges))
				return -1;
		} else if (!strcmp(a, "--threads")) {
			o->threads = true;
		} else if (!strcmp(a, "--no-flows")) {
			o->no_flows = true;
		} else if ((r = cpt_common_opt(c, argc, argv, &i)) != 0) {
			if (r < 0)
				return -1;
		} else if (a[0] == '-' && a[1]) {
			snprintf(c->err, sizeof(c->err), "unknown option '%s'",
				 a);
			return -1;
		} else if (*path) {
			snprintf(c->err, sizeof(c->err),
				 "one input only ('%s' and '%s')", *path, a);
			return -1;
		} else {
			*path = a;
		}
	}
	if (!*path) {
		snprintf(c->err, sizeof(c->err), "no trace given");
		return -1;
	}
	if (!o->fmt_given) {
		snprintf(c->err, sizeof(c->err),
			 "--format chrome, folded or dot is required");
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
	struct xopts o = { .fmt = X_CHROME, .weight = CP_FOLDED_CP };
	const char *path = NULL;
	struct cpt_input in;
	struct cp_cpm cpm;
	enum cpt_status st;
	int r = -1;

	if (parse(c, argc, argv, &o, &path))
		return CPT_USAGE;
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
		struct cp_chrome_opts co = { .no_flows = o.no_flows };
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
	cpt_input_free(&in);
	return st;
}
