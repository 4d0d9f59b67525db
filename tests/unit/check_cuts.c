/*
 * check_cuts.c - the critical path's cut vertices against their definition
 * (cp_cuts.c), checked by brute-force reachability on random graphs:
 * barrier-synchronised PAGs with zero-weight and weighted edges across
 * barriers, PAG-shaped thread chains and unstructured DAGs; and the
 * scratch window zeroing and Slack lay over a block.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_cuts.h"
#include "cp_slack.h"
#include "cp_zero.h"
#include "cp_testgraph.h"

/* reach[v * words + u / 64] bit u: v reaches u (itself included) */
static uint64_t *closure(const struct cp_pag *g, uint32_t *words)
{
	uint32_t nw = g->nv / 64 + 1;
	uint64_t *r = calloc((size_t)g->nv * nw, sizeof(*r));

	for (uint32_t p = g->nv; p-- > 0;) {
		uint32_t v = g->topo[p];

		r[(size_t)v * nw + v / 64] |= 1ULL << (v % 64);
		for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			uint32_t h = g->head[g->out_e[j]];

			for (uint32_t x = 0; x < nw; x++)
				r[(size_t)v * nw + x] |= r[(size_t)h * nw + x];
		}
	}
	*words = nw;
	return r;
}

/* Whether position @p satisfies the definition, by brute force. */
static bool is_cut(const struct cp_cuts *k, const uint64_t *r, uint32_t nw,
		   uint32_t p)
{
	const struct cp_pag *g = k->c->g;
	uint32_t c = g->topo[p];

	if (k->pos[c] == CP_PAG_NONE)
		return false;
	for (uint32_t q = 0; q < g->nv; q++) {
		uint32_t u = g->topo[q];

		if (q < p && !(r[(size_t)u * nw + c / 64] >> (c % 64) & 1))
			return false;
		if (q > p && !(r[(size_t)c * nw + u / 64] >> (u % 64) & 1))
			return false;
	}
	for (uint32_t e = 0; e < g->ne; e++)
		if (k->rank[cp_pag_tail(g, e)] < p && k->rank[g->head[e]] > p &&
		    k->c->w[e])
			return false;
	return true;
}

/* Every cut found and none missed; returns the number of blocks. */
static uint32_t check_graph(const struct cp_pag *g, const char *what,
			    int round)
{
	struct cp_cpm c;
	struct cp_cuts k;
	uint64_t *r, sum = 0;
	uint32_t nw, b = 1, nb;

	ck_assert_int_eq(cp_cpm_run(&c, g, NULL), 0);
	ck_assert_int_eq(cp_cuts_find(&k, &c), 0);
	r = closure(g, &nw);
	for (uint32_t p = 1; p + 1 < g->nv; p++) {
		bool want = is_cut(&k, r, nw, p);
		bool got = b < k.nb && k.vfirst[b] == p;

		TG_CHECK(want == got, "%s round %d: position %u (vertex %u) "
			 "is %sa cut, cp_cuts_find says %s", what, round, p,
			 g->topo[p], want ? "" : "not ", got ? "yes" : "no");
		if (got) {
			TG_CHECK(k.pfirst[b] == k.pos[g->topo[p]],
				 "%s round %d: block %u starts at CP edge %u,"
				 " its cut is CP vertex %u", what, round, b,
				 k.pfirst[b], k.pos[g->topo[p]]);
			b++;
		}
	}
	TG_CHECK(k.vfirst[0] == 0 && k.vfirst[k.nb] == g->nv - 1 &&
		 k.pfirst[0] == 0 && k.pfirst[k.nb] == c.npath,
		 "%s round %d: blocks span %u..%u (CP %u..%u), want 0..%u "
		 "(0..%u)", what, round, k.vfirst[0], k.vfirst[k.nb],
		 k.pfirst[0], k.pfirst[k.nb], g->nv - 1, c.npath);
	for (uint32_t x = 0; x < k.nb; x++)
		sum += cp_cuts_len(&k, x);
	TG_CHECK(sum == c.length, "%s round %d: block lengths add up to %"
		 PRIu64 ", CP %" PRIu64, what, round, sum, c.length);
	nb = k.nb;
	free(r);
	cp_cuts_free(&k);
	cp_cpm_free(&c);
	return nb;
}

START_TEST(test_cuts_match_definition)
{
	uint32_t blocks = 0;

	for (int round = 0; round < 300; round++) {
		struct cp_pag g;

		tg_seed(52000 + round);
		switch (round % 3) {
		case 0:
			ck_assert_int_eq(tg_barriers(&g, 1 + tg_below(4),
						     1 + tg_below(6),
						     1 + tg_below(6), 3, 3,
						     tg_below(4), tg_below(4),
						     tg_below(2)), 0);
			break;
		case 1:
			ck_assert_int_eq(tg_pagshape(&g, 1 + tg_below(3),
						     1 + tg_below(8),
						     tg_below(6), 4, 3), 0);
			break;
		default:
			ck_assert_int_eq(tg_random(&g, 2 + tg_below(12),
						   1 + tg_below(20), 4, 3), 0);
		}
		blocks += check_graph(&g, "random", round) - 1;
		cp_pag_free(&g);
	}
	ck_assert_msg(blocks > 300, "only %u cuts in 300 graphs: the test "
		      "checks little", blocks);
}
END_TEST

/*
 * Zero-weight edges over a barrier leave it a cut; every barrier hub of a
 * PAG without weighted edges over barriers is one.
 */
START_TEST(test_cuts_barrier_hubs)
{
	for (int round = 0; round < 100; round++) {
		struct cp_pag g;
		uint32_t nph = 2 + tg_below(6), nb;

		tg_seed(53000 + round);
		ck_assert_int_eq(tg_barriers(&g, 2 + tg_below(4), nph,
					     1 + tg_below(8), 3, 3,
					     tg_below(6), tg_below(12), 0), 0);
		nb = check_graph(&g, "barriers", round);
		TG_CHECK(nb >= nph, "round %d: %u phases, only %u blocks",
			 round, nph, nb);
		cp_pag_free(&g);
	}
}
END_TEST

/* A weighted edge over barriers makes them no cuts. */
START_TEST(test_cuts_weighted_edge_over_barrier)
{
	struct cp_pag g;
	struct cp_cpm c;
	struct cp_cuts k;
	char err[128];

	/* s -1-> a -0-> hub -0-> b -1-> t, and s -1-> x -1-> t, a -w-> b */
	for (uint64_t w = 0; w < 2; w++) {
		uint32_t hub = 0;

		cp_pag_init(&g);
		for (int i = 0; i < 6; i++)
			cp_pag_add_vertex(&g);	/* s a hub b t x */
		cp_pag_add_edge(&g, 0, 1, 1, CP_PAG_NONE);
		cp_pag_add_edge(&g, 1, 2, 0, CP_PAG_NONE);
		cp_pag_add_edge(&g, 2, 3, 0, CP_PAG_NONE);
		cp_pag_add_edge(&g, 3, 4, 1, CP_PAG_NONE);
		cp_pag_add_edge(&g, 0, 5, 1, CP_PAG_NONE);
		cp_pag_add_edge(&g, 5, 2, 1, CP_PAG_NONE);
		cp_pag_add_edge(&g, 1, 3, w, CP_PAG_NONE);
		ck_assert_int_eq(cp_pag_finish(&g, err, sizeof(err)), 0);
		ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
		ck_assert_int_eq(cp_cuts_find(&k, &c), 0);
		for (uint32_t b = 1; b < k.nb; b++)
			hub += k.vfirst[b] == k.rank[2];
		ck_assert_msg(hub == !w, "edge a->b of weight %" PRIu64
			      ": the hub is %sa cut", w, hub ? "" : "not ");
		cp_cuts_free(&k);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
}
END_TEST

/*
 * The scratch window (cp_cuts_win): a chain v0 -> .. -> v9 of unit edges
 * (group 0) and one edge v0 -> v9 of weight 1 (no group), so one block
 * of ten positions whose spans are nine 1s and one 9.  Rows + far slots
 * is least at two rows (2 + 1, against 1 + 10, 4 + 1, 8 + 1, 16 + 0), the
 * long edge being far; zeroing and Slack must see what it carries: the
 * chain zeroed leaves the long edge's 1 (zeroed length 1, not 0), and the
 * chain can lose 8 of its 9 while it stays critical (Slack 8, not 9).
 */
START_TEST(test_cuts_window_far_edge)
{
	uint32_t of[10];
	struct cp_groups gr = { .n = 1, .of = of };
	struct cp_cuts_win win = { .rows = 0 };
	uint64_t zl, sl;
	struct cp_pag g;
	struct cp_cpm c;
	struct cp_cuts k;
	char err[128];

	cp_pag_init(&g);
	for (int i = 0; i < 10; i++)
		cp_pag_add_vertex(&g);
	for (uint32_t i = 0; i < 9; i++) {
		cp_pag_add_edge(&g, i, i + 1, 1, CP_PAG_NONE);
		of[i] = 0;
	}
	cp_pag_add_edge(&g, 0, 9, 1, CP_PAG_NONE);
	of[9] = CP_PAG_NONE;
	ck_assert_int_eq(cp_pag_finish(&g, err, sizeof(err)), 0);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	ck_assert_int_eq(cp_cuts_find(&k, &c), 0);
	ck_assert_uint_eq(k.nb, 1);
	ck_assert_int_eq(cp_cuts_win_plan(&k, 0, &win), 0);
	ck_assert_msg(win.rows == 2 && win.nfar == 1 &&
		      win.far[0] == (uint64_t)9 << 32,
		      "window: %u rows, %u far", win.rows, win.nfar);
	ck_assert_int_eq(cp_zero_blocks(&k, &gr, NULL, &zl), 0);
	ck_assert_int_eq(cp_slack_blocks(&k, &gr, NULL, &sl), 0);
	ck_assert_msg(zl == 1 && sl == 8, "zeroed %" PRIu64 ", slack %"
		      PRIu64, zl, sl);
	cp_cuts_win_free(&win);
	cp_cuts_free(&k);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}
END_TEST

static Suite *cuts_suite(void)
{
	Suite *s = suite_create("cuts");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cuts_match_definition);
	tcase_add_test(tc, test_cuts_barrier_hubs);
	tcase_add_test(tc, test_cuts_weighted_edge_over_barrier);
	tcase_add_test(tc, test_cuts_window_far_edge);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cuts_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
