/*
 * check_par.c - the passes that run on two threads (cp_par.h) give what
 * they give on one: a graph's adjacency and topological order, and the
 * critical path method's times, length and path, on random DAGs and
 * trace-shaped graphs, with the threshold at 0 (always two threads)
 * against SIZE_MAX (never).
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cp_cpm.h"
#include "cp_pag.h"
#include "cp_par.h"
#include "cp_testgraph.h"

/* Finish @g again and run the CPM with the threshold @thr into @c. */
static void finish_and_run(struct cp_pag *g, size_t thr, struct cp_cpm *c)
{
	char err[256];
	size_t old = cp_par_set_threshold(thr);

	ck_assert_msg(cp_pag_finish(g, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(cp_cpm_run(c, g, NULL) == 0, "cpm");
	cp_par_set_threshold(old);
}

#define SAME(a, b, n, what) \
	ck_assert_msg(!memcmp((a), (b), sizeof(*(a)) * (size_t)(n)), \
		      "%s differs between one and two threads", what)

/* One graph, both ways: everything the passes write must be equal. */
static void compare(struct cp_pag *g)
{
	uint32_t nv = g->nv, ne = g->ne;
	uint32_t *oo = malloc(sizeof(*oo) * (nv + 1));
	uint32_t *oe = malloc(sizeof(*oe) * (ne + 1));
	uint32_t *io = malloc(sizeof(*io) * (nv + 1));
	uint32_t *ie = malloc(sizeof(*ie) * (ne + 1));
	uint32_t *topo = malloc(sizeof(*topo) * (nv + 1));
	struct cp_cpm one, two;

	finish_and_run(g, SIZE_MAX, &one);
	memcpy(oo, g->out_off, sizeof(*oo) * (nv + 1));
	memcpy(oe, g->out_e, sizeof(*oe) * ne);
	memcpy(io, g->in_off, sizeof(*io) * (nv + 1));
	memcpy(ie, g->in_e, sizeof(*ie) * ne);
	memcpy(topo, g->topo, sizeof(*topo) * nv);
	finish_and_run(g, 0, &two);
	SAME(oo, g->out_off, nv + 1, "out_off");
	SAME(oe, g->out_e, ne, "out_e");
	SAME(io, g->in_off, nv + 1, "in_off");
	SAME(ie, g->in_e, ne, "in_e");
	SAME(topo, g->topo, nv, "topo");
	ck_assert_msg(one.length == two.length, "length %llu vs %llu",
		      (unsigned long long)one.length,
		      (unsigned long long)two.length);
	SAME(one.et, two.et, nv, "et");
	SAME(one.lt, two.lt, nv, "lt");
	ck_assert_msg(one.npath == two.npath, "path of %u vs %u edges",
		      one.npath, two.npath);
	SAME(one.path, two.path, one.npath, "path");
	cp_cpm_free(&one);
	cp_cpm_free(&two);
	free(oo);
	free(oe);
	free(io);
	free(ie);
	free(topo);
}

START_TEST(test_par_random_dags_agree)
{
	tg_seed(20261125);
	for (int i = 0; i < 40; i++) {
		struct cp_pag g;
		uint32_t nv = 2 + tg_below(3000), ne = 1 + tg_below(8000);

		ck_assert_int_eq(tg_random(&g, nv, ne, 1000, 4), 0);
		compare(&g);
		cp_pag_free(&g);
	}
}
END_TEST

START_TEST(test_par_trace_shapes_agree)
{
	tg_seed(7);
	for (int i = 0; i < 20; i++) {
		struct cp_pag g;

		ck_assert_int_eq(tg_pagshape(&g, 1 + tg_below(8),
					     2 + tg_below(2000),
					     tg_below(500), 50, 3), 0);
		compare(&g);
		cp_pag_free(&g);
	}
}
END_TEST

/* Latest times by the heights agree with the seed's backward pass,
 * computed here by hand on a diamond with a tail: lt = L - height. */
START_TEST(test_par_latest_times_by_hand)
{
	struct cp_pag g;
	struct cp_cpm c;
	char err[64];

	cp_pag_init(&g);
	for (int i = 0; i < 5; i++)
		cp_pag_add_vertex(&g);
	cp_pag_add_edge(&g, 0, 1, 3, CP_PAG_NONE);	/* 0 -3-> 1 -4-> 3 */
	cp_pag_add_edge(&g, 0, 2, 1, CP_PAG_NONE);	/* 0 -1-> 2 -2-> 3 */
	cp_pag_add_edge(&g, 1, 3, 4, CP_PAG_NONE);
	cp_pag_add_edge(&g, 2, 3, 2, CP_PAG_NONE);
	cp_pag_add_edge(&g, 2, 4, 1, CP_PAG_NONE);	/* leaf 4 at 2 */
	ck_assert(cp_pag_finish(&g, err, sizeof(err)) == 0);
	for (int k = 0; k < 2; k++) {
		size_t old = cp_par_set_threshold(k ? 0 : SIZE_MAX);
		static const uint64_t lt[5] = { 0, 3, 5, 7, 7 };

		ck_assert(cp_cpm_run(&c, &g, NULL) == 0);
		cp_par_set_threshold(old);
		ck_assert_msg(c.length == 7, "length %llu",
			      (unsigned long long)c.length);
		for (int v = 0; v < 5; v++)
			ck_assert_msg(c.lt[v] == lt[v], "lt[%d] = %llu, want %llu",
				      v, (unsigned long long)c.lt[v],
				      (unsigned long long)lt[v]);
		cp_cpm_free(&c);
	}
	cp_pag_free(&g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("par");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_par_random_dags_agree);
	tcase_add_test(tc, test_par_trace_shapes_agree);
	tcase_add_test(tc, test_par_latest_times_by_hand);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
