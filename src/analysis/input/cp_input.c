/*
 * cp_input.c - a loaded trace or text PAG: freeing it and naming its
 * edges and vertices.
 */
#include "cp_input.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void cp_input_repairs_line(char *buf, size_t len, const struct cp_trace *t)
{
	snprintf(buf, len, "%" PRIu64 " inconsistent piece%s dropped or "
		 "repaired; the first: %s", t->nrepairs,
		 t->nrepairs == 1 ? "" : "s", t->repair_why);
}

void cp_input_free(struct cp_input *in)
{
	if (in->is_trace) {
		cp_tracepag_free(&in->tp);
		cp_trace_free(&in->t);
	} else if (in->g) {
		cp_pag_free(&in->pag);
	}
	memset(in, 0, sizeof(*in));
}

const char *cp_input_edge_name(const struct cp_input *in, uint32_t e,
			       char *buf, size_t len)
{
	if (in->is_trace)
		return cp_tracepag_edge_name(&in->tp, e, buf, len);
	return cp_pag_edge_name(in->g, e, buf, len);
}

const char *cp_input_vertex_name(const struct cp_input *in, uint32_t v,
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
