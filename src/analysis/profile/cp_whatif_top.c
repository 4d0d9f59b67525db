/*
 * cp_whatif_top.c - the what-if of the top procedures (cp_whatif_top.h):
 * one prediction each, sharing the replay with nothing scaled
 * (cp_whatif_trace_each): top + 1 replays of the trace, two at a time;
 * streamed, cpt whatif --stream's passes for each (cp_stream_whatif_each).
 */
#include "cp_whatif_top.h"

#include <stdlib.h>
#include <string.h>

#include "cp_stream_replay.h"

#define TOP_DEFAULT	5
#define FACTOR_DEFAULT	0.5

/* Whether procedure @pp is worth a row: it holds part of the critical
 * path, not the whole of it (main, a thread's start routine); its CP
 * time known (streamed: followed). */
static bool worth_a_row(const struct cp_profile *p,
			const struct cp_proc_prof *pp)
{
	return !pp->cp_unknown && pp->cp_ns && pp->cp_ns < p->cp_len / 20 * 19;
}

/* The predictions of the @n scalings @sc into @res, each's return in
 * @ret; -1 when none could be made. */
typedef int (*predict_fn)(void *ctx, const struct cp_whatif_scale *sc,
			  uint32_t n, struct cp_whatif_result *res, int *ret);

/* cp_whatif_top_run() with the predictions @predict makes. */
static int top_run(struct cp_whatif_top *w, const struct cp_profile *p,
		   uint32_t top, double factor, predict_fn predict, void *ctx)
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
		if (predict(ctx, sc, n, res, ret))
			break;	/* no prediction at all: the rows so far */
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

/* predict_fn on the graph of the profile @ctx, in its mode. */
static int predict_graph(void *ctx, const struct cp_whatif_scale *sc,
			 uint32_t n, struct cp_whatif_result *res, int *ret)
{
	const struct cp_profile *p = ctx;

	return cp_whatif_trace_each(p->tp, sc, n, p->exclusive, 0, false, res,
				    ret);
}

int cp_whatif_top_run(struct cp_whatif_top *w, const struct cp_profile *p,
		      uint32_t top, double factor)
{
	return top_run(w, p, top, factor, predict_graph, (void *)p);
}

struct stream_ctx {
	struct cp_tindex *ix;
	const struct cp_stream_opts *so;
	const uint32_t *sid;
};

static int predict_stream(void *ctx, const struct cp_whatif_scale *sc,
			  uint32_t n, struct cp_whatif_result *res, int *ret)
{
	struct stream_ctx *c = ctx;

	return cp_stream_whatif_each(c->ix, c->so, c->sid, sc, n, res, ret);
}

int cp_whatif_top_stream(struct cp_whatif_top *w, const struct cp_profile *p,
			 struct cp_tindex *ix, const struct cp_stream_opts *so,
			 const uint32_t *sid, uint32_t top, double factor)
{
	struct stream_ctx c = { ix, so, sid };

	return top_run(w, p, top, factor, predict_stream, &c);
}

void cp_whatif_top_free(struct cp_whatif_top *w)
{
	free(w->rows);
	memset(w, 0, sizeof(*w));
}
