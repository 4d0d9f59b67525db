/*
 * cpt_input.c - load what a graph verb analyses: a trace (read, validated,
 * turned into its PAG) or a plain-text PAG, told apart by the trace magic.
 */
#include "cpt_input.h"

#include <stdio.h>
#include <string.h>

#include "cp_sampled.h"

enum cpt_status cpt_input_load(struct cpt_ctx *c, const char *path,
			       struct cpt_input *in)
{
	memset(in, 0, sizeof(*in));
	in->path = path;
	cpt_progress(c, "reading", 0.0);
	if (cpt_is_trace(path)) {
		struct cp_sampled_opts so = {
			.src = (enum cp_procsrc)c->procs,
			.debug_path = c->debuginfo,
		};

		if (cp_trace_read(&in->t, path, c->err, sizeof(c->err)))
			return CPT_BAD_INPUT;
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

void cpt_input_free(struct cpt_input *in)
{
	if (in->is_trace) {
		cp_tracepag_free(&in->tp);
		cp_trace_free(&in->t);
	} else if (in->g) {
		cp_pag_free(&in->pag);
	}
	memset(in, 0, sizeof(*in));
}

const char *cpt_input_edge_name(const struct cpt_input *in, uint32_t e,
				char *buf, size_t len)
{
	if (in->is_trace)
		return cp_tracepag_edge_name(&in->tp, e, buf, len);
	return cp_pag_edge_name(in->g, e, buf, len);
}

const char *cpt_input_vertex_name(const struct cpt_input *in, uint32_t v,
				  char *buf, size_t len)
{
	uint32_t tid, vi;

	if (!in->is_trace) {
		if (in->g->vname && in->g->vname[v])
			return in->g->vname[v];
		snprintf(buf, len, "%u", v);
	} else if (cp_tracepag_vertex(&in->tp, v, &tid, &vi)) {
		snprintf(buf, len, "T%u event %u", tid, vi);
	} else if (v == in->tp.source) {
		snprintf(buf, len, "start");
	} else if (v == in->tp.sink) {
		snprintf(buf, len, "end");
	} else {
		snprintf(buf, len, "hub %u", v);
	}
	return buf;
}
