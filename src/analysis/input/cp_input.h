/*
 * cp_input.h - what a graph verb analyses: a trace (with the PAG built
 * from it) or a plain-text PAG, and the names of its edges and vertices.
 *
 * Loading (read, symbolize, build) is the caller's: tools/cpt_input.c does
 * it with progress and warnings.  Concurrency: one thread owns an input;
 * the name functions only read it.
 */
#ifndef CP_INPUT_H
#define CP_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp_pag.h"
#include "cp_trace.h"
#include "cp_tracepag.h"

struct cp_input {
	const char *path;	/* as given; not owned */
	bool is_trace;
	struct cp_trace t;	/* trace input */
	struct cp_tracepag tp;	/* its graph */
	struct cp_pag pag;	/* text PAG input */
	const struct cp_pag *g;	/* the graph either way; NULL until
				 * loaded */
};

/* Free what @in holds (a zeroed or half-loaded input too) and zero it. */
void cp_input_free(struct cp_input *in);

/*
 * Printable name of edge @e (trace: "T1 work", PAG: its label) in @buf
 * (or a string the graph owns); returns it.
 */
const char *cp_input_edge_name(const struct cp_input *in, uint32_t e,
			       char *buf, size_t len);

/*
 * Printable name of vertex @v (trace: "T1 event 42", "start", "end", "hub
 * 7"; PAG: its name or number); returns it.
 */
const char *cp_input_vertex_name(const struct cp_input *in, uint32_t v,
				 char *buf, size_t len);

/*
 * What salvage repaired in trace @t, as one line into @buf: "N
 * inconsistent pieces dropped or repaired; the first: ...".  The one place
 * these words are chosen (the warning on stderr and the report's line).
 */
void cp_input_repairs_line(char *buf, size_t len, const struct cp_trace *t);

#endif /* CP_INPUT_H */
