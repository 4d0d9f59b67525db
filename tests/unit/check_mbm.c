/*
 * check_mbm.c - the Maximum Benefit Metric against doc/examples.md §2
 * and against its definition evaluated on enumerated paths, with groups
 * one per edge, several per edge and several per class of edges.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_mbm.h"
#include "cp_testgraph.h"

/* README §2: P1 = A 6 + C 4, P2 = B 5 + C 4, P3 = A 6 + D 2. */
static void build_three_paths(struct cp_pag *g)
{
	uint32_t A, B, C, D;
	char err[128];

	cp_pag_init(g);
	for (int i = 0; i < 7; i++)
		cp_pag_add_vertex(g);
	A = cp_pag_intern(g, "A");
	B = cp_pag_intern(g, "B");
	C = cp_pag_intern(g, "C");
	D = cp_pag_intern(g, "D");
	cp_pag_add_edge(g, 0, 1, 6, A);
	cp_pag_add_edge(g, 1, 4, 4, C);
	cp_pag_add_edge(g, 0, 2, 5, B);
	cp_pag_add_edge(g, 2, 5, 4, C);
	cp_pag_add_edge(g, 0, 3, 6, A);
	cp_pag_add_edge(g, 3, 6, 2, D);
	ck_assert_int_eq(cp_pag_finish(g, err, sizeof(err)), 0);
}

START_TEST(test_mbm_example_three_paths)
{
	/* labels in order A B C D; MBM_1 = CP time, MBM_2, MBM_3 */
	static const uint64_t want[4][4] = {
		{ 0, 0, 0, 0 },
		{ 6, 0, 4, 0 },		/* k = 1: A 6, C 4 */
		{ 1, 0, 4, 0 },		/* k = 2: A min(6, 0+1) */
		{ 1, 0, 2, 0 },		/* k = 3: C min(4, 5, 0+2) */
	};
	struct cp_pag g;
	struct cp_cpm c;
	struct cp_kpaths kp;
	struct cp_groups gr;

	build_three_paths(&g);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	gr = (struct cp_groups){ .n = g.nlabels, .of = g.label };
	for (uint32_t k = 1; k <= 3; k++) {
		uint64_t mbm[4];

		ck_assert_int_eq(cp_kpaths_find(&kp, &c, k), 0);
		ck_assert_int_eq(cp_mbm_compute(&kp, &gr, mbm), 0);
		for (uint32_t i = 0; i < 4; i++)
			ck_assert_msg(mbm[i] == want[k][i],
				      "MBM_%u(%s) = %" PRIu64 ", want %" PRIu64,
				      k, g.labels[i], mbm[i], want[k][i]);
		cp_kpaths_free(&kp);
	}
	cp_cpm_free(&c);
	cp_pag_free(&g);
}
END_TEST

/* MBM by its definition over paths given as edge lists. */
static void mbm_by_definition(const struct cp_groups *gr, const uint64_t *w,
			      uint32_t npaths, uint32_t **edges,
			      const uint32_t *nedges, const uint64_t *len,
			      uint64_t cp, uint64_t *out)
{
	for (uint32_t i = 0; i < gr->n; i++) {
		uint64_t best = UINT64_MAX;

		for (uint32_t j = 0; j < npaths; j++) {
			uint64_t di = 0, term;

			for (uint32_t x = 0; x < nedges[j]; x++)
				if (cp_groups_has(gr, edges[j][x], i))
					di += w[edges[j][x]];
			term = di + (cp - len[j]);
			if (term < best)
				best = term;
		}
		out[i] = npaths ? best : 0;
	}
}

/*
 * Random graphs, one or several groups per edge: MBM over the paths the
 * search returned equals the definition over those same paths, and with k
 * above the number of paths it equals the definition over all of them.
 */
static void random_round(int round, bool inclusive)
{
	struct cp_pag g;
	struct cp_cpm c;
	struct cp_kpaths kp;
	struct cp_groups gr, bycls = { 0 }, byedge = { 0 };
	uint32_t *off = NULL, *ids = NULL, n = 0;
	bool classes = inclusive && round % 2;
	static const uint32_t ks[] = { 1, 2, 3, 6, 1000000 };

	tg_seed((inclusive ? 20000 : 10000) + round);
	ck_assert_int_eq(tg_random(&g, 3 + tg_below(10), 2 + tg_below(25),
				   round % 3 ? 15 : 2, 4), 0);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	gr = (struct cp_groups){ .n = 4, .of = g.label };
	if (classes) {
		/* groups per class of edges */
		tg_classes(&g, 4, 6, &bycls, &byedge);
		gr = bycls;
	} else if (inclusive) {
		off = malloc(sizeof(*off) * (g.ne + 1));
		ids = malloc(sizeof(*ids) * (4 * g.ne + 1));
		for (uint32_t e = 0; e < g.ne; e++) {
			off[e] = n;
			for (uint32_t i = 0; i < 4; i++)
				if (tg_below(3) == 0)
					ids[n++] = i;
		}
		off[g.ne] = n;
		gr = (struct cp_groups){ .n = 4, .off = off, .ids = ids };
	}
	for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
		uint64_t got[4], want[4];
		uint32_t **edges;

		ck_assert_int_eq(cp_kpaths_find(&kp, &c, ks[ki]), 0);
		ck_assert_int_eq(cp_mbm_compute(&kp, &gr, got), 0);
		/* the forest's pass from the start, and after a few steps of
		 * the walk, give the same figures */
		for (uint64_t budget = 0; budget < 6; budget += 3) {
			uint64_t other[4];

			ck_assert_int_eq(cp_mbm_compute_budget(&kp, &gr, other,
							       budget), 0);
			for (uint32_t i = 0; i < 4; i++)
				TG_CHECK(other[i] == got[i], "round %d k %u "
					 "budget %" PRIu64 ": MBM(%u) = %"
					 PRIu64 ", the walk %" PRIu64, round,
					 ks[ki], budget, i, other[i], got[i]);
		}
		edges = calloc(kp.n + 1, sizeof(*edges));
		for (uint32_t j = 0; j < kp.n; j++) {
			edges[j] = malloc(sizeof(**edges) * (kp.nedges[j] + 1));
			cp_kpaths_edges(&kp, j, edges[j]);
		}
		/* the definition on the spelled-out lists when the
		 * classes stand for them */
		mbm_by_definition(classes ? &byedge : &gr, c.w, kp.n, edges,
				  kp.nedges, kp.len, c.length, want);
		for (uint32_t i = 0; i < 4; i++)
			TG_CHECK(got[i] == want[i], "round %d%s k %u: MBM(%u) "
				 "= %" PRIu64 ", definition %" PRIu64, round,
				 inclusive ? " inclusive" : "", ks[ki], i,
				 got[i], want[i]);
		if (ks[ki] == 1000000) {
			/* all paths: against the enumeration */
			struct tg_paths all;
			uint32_t **ae, *an;

			tg_enumerate(&g, NULL, &all);
			TG_CHECK(all.n == kp.n, "round %d: %u paths, found %u",
				 round, all.n, kp.n);
			ae = malloc(sizeof(*ae) * (all.n + 1));
			an = malloc(sizeof(*an) * (all.n + 1));
			for (uint32_t j = 0; j < all.n; j++) {
				ae[j] = all.e + all.off[j];
				an[j] = all.off[j + 1] - all.off[j];
			}
			mbm_by_definition(&gr, c.w, all.n, ae, an, all.len,
					  c.length, want);
			for (uint32_t i = 0; i < 4; i++)
				TG_CHECK(got[i] == want[i], "round %d: MBM_all"
					 "(%u) = %" PRIu64 ", enumeration %"
					 PRIu64, round, i, got[i], want[i]);
			free(ae);
			free(an);
			tg_paths_free(&all);
		}
		for (uint32_t j = 0; j < kp.n; j++)
			free(edges[j]);
		free(edges);
		cp_kpaths_free(&kp);
	}
	if (classes)
		tg_groups_free(&bycls, &byedge);
	free(off);
	free(ids);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}

START_TEST(test_mbm_random_definition)
{
	for (int round = 0; round < 300; round++)
		random_round(round, false);
}
END_TEST

START_TEST(test_mbm_random_inclusive_groups)
{
	for (int round = 0; round < 300; round++)
		random_round(round, true);
}
END_TEST

START_TEST(test_mbm_no_paths)
{
	struct cp_pag g;
	struct cp_cpm c;
	struct cp_kpaths kp;
	struct cp_groups gr = { .n = 2 };
	uint32_t of[1] = { 0 };
	uint64_t mbm[2] = { 7, 7 };
	char err[64];

	cp_pag_init(&g);
	cp_pag_add_vertex(&g);
	ck_assert_int_eq(cp_pag_finish(&g, err, sizeof(err)), 0);
	gr.of = of;
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	ck_assert_int_eq(cp_kpaths_find(&kp, &c, 5), 0);
	ck_assert_msg(kp.n == 0, "a lone vertex has %u paths", kp.n);
	ck_assert_int_eq(cp_mbm_compute(&kp, &gr, mbm), 0);
	ck_assert_msg(mbm[0] == 0 && mbm[1] == 0, "MBM %" PRIu64 " %" PRIu64,
		      mbm[0], mbm[1]);
	cp_kpaths_free(&kp);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}
END_TEST

static Suite *mbm_suite(void)
{
	Suite *s = suite_create("mbm");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_mbm_example_three_paths);
	tcase_add_test(tc, test_mbm_random_definition);
	tcase_add_test(tc, test_mbm_random_inclusive_groups);
	tcase_add_test(tc, test_mbm_no_paths);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(mbm_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
