/*
 * synth_graph.c - see synth_graph.h.
 */
#include "synth_graph.h"

#include <check.h>
#include <stdlib.h>

/* Encode @s and parse it into @t (the test fails on an error). */
static void parse(struct synth *s, struct cp_trace *t)
{
	uint8_t *buf;
	size_t len = synth_encode(s, &buf);
	char err[256] = "";

	ck_assert_msg(cp_trace_parse(t, "syn.cpt", buf, len, err,
				     sizeof(err)) == 0, "parse: %s", err);
	free(buf);
}

void synth_graph_load(struct synth *s, struct cp_trace *t,
		      struct cp_tracepag *tp)
{
	char err[256] = "";

	parse(s, t);
	ck_assert_msg(cp_tracepag_build(tp, t, err, sizeof(err)) == 0,
		      "build: %s", err);
}

void synth_graph_load_sampled(struct synth *s, struct cp_trace *t,
			      struct cp_tracepag *tp, enum cp_procsrc src)
{
	struct cp_sampled_opts so = { .src = src };
	char err[256] = "";

	parse(s, t);
	ck_assert_msg(cp_sampled_apply(t, &so, err, sizeof(err)) == 1,
		      "apply: %s", err);
	ck_assert_msg(cp_tracepag_build(tp, t, err, sizeof(err)) == 0,
		      "build: %s", err);
}

void synth_graph_free(struct cp_trace *t, struct cp_tracepag *tp)
{
	cp_tracepag_free(tp);
	cp_trace_free(t);
}

void synth_cpm_load(struct synth *s, struct synth_cpm *f)
{
	synth_graph_load(s, &f->t, &f->tp);
	ck_assert_msg(cp_cpm_run(&f->cpm, &f->tp.g, NULL) == 0, "cpm");
}

void synth_cpm_free(struct synth_cpm *f)
{
	cp_cpm_free(&f->cpm);
	synth_graph_free(&f->t, &f->tp);
}
