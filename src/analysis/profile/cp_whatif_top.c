/*
 * cp_whatif_top.c - the what-if of the top procedures (cp_whatif_top.h):
 * one cp_whatif_trace() each, O(top) replays of the trace.
 */
#include "cp_whatif_top.h"

#include <stdlib.h>
#include <string.h>

#define TOP_DEFAULT	5
#define FACTOR_DEFAULT	0.5

int cp_whatif_top_run(struct cp_whatif_top *w, const struct cp_profile *p,
		      uint32_t top, double factor)
{
	char err[256];

	memset(w, 0, sizeof(*w));
	w->factor = factor > 0 ? factor : FACTOR_DEFAULT;
	if (!top)
		top = TOP_DEFAULT;
	w->rows = calloc(top, sizeof(*w->rows));
	if (!w->rows)
		return -1;
	for (uint32_t i = 0; i < p->nprocs && w->n < top; i++) {
		const struct cp_proc_prof *pp = &p->procs[i];
		struct cp_whatif_scale sc = { .name = pp->name,
					      .factor = w->factor };
		struct cp_whatif_top_row *row = &w->rows[w->n];

		/* the whole path (main, start routines) says nothing */
		if (!pp->cp_ns || pp->cp_ns >= p->cp_len / 20 * 19)
			continue;
		if (cp_whatif_trace(p->tp, &sc, 1, p->exclusive, 0, false,
				    &row->r, err, sizeof(err)))
			continue;
		row->pp = pp;
		w->n++;
	}
	return 0;
}

void cp_whatif_top_free(struct cp_whatif_top *w)
{
	free(w->rows);
	memset(w, 0, sizeof(*w));
}
