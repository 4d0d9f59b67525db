/*
 * cpt_input.h - a trace or a plain-text PAG, loaded for a graph verb.
 */
#ifndef CPT_INPUT_H
#define CPT_INPUT_H

#include <stdio.h>

#include "cp_emit.h"
#include "cp_pag.h"
#include "cp_trace.h"
#include "cp_tracepag.h"
#include "cpt.h"

struct cpt_input {
	const char *path;
	bool is_trace;
	struct cp_trace t;		/* trace input */
	struct cp_tracepag tp;
	struct cp_pag pag;		/* text PAG input */
	const struct cp_pag *g;		/* the graph either way */
};

/* Load @path; CPT_BAD_INPUT with "FILE: reason" in c->err on failure. */
enum cpt_status cpt_input_load(struct cpt_ctx *c, const char *path,
			       struct cpt_input *in);
void cpt_input_free(struct cpt_input *in);
/*
 * What salvage did to a trace input (cp_trace.h): as report lines ("  PARTIAL:
 * ...", "  REPAIRED: ...", nothing for a whole trace or a PAG) on @f, and as
 * JSON members "partial", "partial_reason", "repairs", "first_repair".
 * The one place these words and keys are chosen.
 */
void cpt_input_print_salvage(FILE *f, const struct cpt_input *in);
void cpt_input_emit_salvage(struct cp_emit *e, const struct cpt_input *in);
/* Printable name of edge @e (trace: "T1 work", PAG: its label). */
const char *cpt_input_edge_name(const struct cpt_input *in, uint32_t e,
				char *buf, size_t len);

/* Printable name of vertex @v (trace: "T1 event 42", "start", "end", "hub
 * 7"; PAG: its name). */
const char *cpt_input_vertex_name(const struct cpt_input *in, uint32_t v,
				  char *buf, size_t len);

#endif /* CPT_INPUT_H */
