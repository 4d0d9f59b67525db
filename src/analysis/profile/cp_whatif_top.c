/*
 * cp_whatif_top.c - the what-if of the top procedures (cp_whatif_top.h):
 * one prediction each, sharing the replay with nothing scaled
 * (cp_whatif_trace_each): top + 1 replays of the trace, two at a time.
 */
#include "cp_whatif_top.h"

#include <stdlib.h>
#include <string.h>

#define TOP_DEFAULT	5
#define FACTOR_DEFAULT	0.5

/* Whether procedure @pp is worth a row: it holds part of the critical
 * path, not the whole of it (main, a thread's start routine). */
static bool worth_a_row(const struct cp_profile *p,
			const struct cp_proc_prof *pp)
{
	return pp->cp_ns && pp->cp_ns < p->cp_len / 20 * 19;
}

int cp_whatif_top_run(struct cp_whatif_top *w, const struct cp_profile *p,
		      uint32_t top, double factor)
{
	struct cp_whatif_scale *sc = NULL;
	struct cp_whatif_result *res = NULL;
	uint32_t *of = NULL, next = 0;
	int *ret = NULL, rc = -1;

	memset(w, 0, sizeof(*w));
	w->factor = factor > 0 ? factor : FACTOR_DEFAULT;
	if (!top)
		top = TOP_DEFAULT;
	w->rows = calloc(top, sizeof(*w->rows));
	sc = calloc(top, sizeof(*sc));
	res = calloc(top, sizeof(*res));
	of = calloc(top, sizeof(*of));
	ret = calloc(top, sizeof(*ret));
	if (!w->rows || !sc || !res || !of || !ret) {
		cp_whatif_top_free(w);
		goto out;
	}
	/* the next procedures worth a row, as many as rows are missing; a
	 * prediction that fails leaves its row to the next one */
	while (w->n < top) {
		uint32_t n = 0;

		for (; next < p->nprocs && w->n + n < top; next++) {
			if (!worth_a_row(p, &p->procs[next]))
				continue;
			sc[n] = (struct cp_whatif_scale){
				.name = p->procs[next].name,
				.factor = w->factor };
			of[n++] = next;
		}
		if (!n)
			break;
		if (cp_whatif_trace_each(p->tp, sc, n, p->exclusive, 0, false,
					 res, ret))
			break;	/* no replay at all: the rows so far */
		for (uint32_t i = 0; i < n; i++) {
			if (ret[i])
				continue;
			w->rows[w->n].pp = &p->procs[of[i]];
			w->rows[w->n++].r = res[i];
		}
	}
	rc = 0;
out:
	free(sc);
	free(res);
	free(of);
	free(ret);
	return rc;
}

void cp_whatif_top_free(struct cp_whatif_top *w)
{
	free(w->rows);
	memset(w, 0, sizeof(*w));
}
