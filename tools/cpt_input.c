/*
 * cpt_input.c - load what a graph verb analyses: a trace (read, validated,
 * turned into its PAG) or a plain-text PAG, told apart by the trace magic.
 */
#include "cpt_input.h"

#include <stdio.h>
#include <string.h>

#include "cp_sampled.h"

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
