/*
 * check_zero.c - logical zeroing against doc/examples.md §3 and against
 * recomputation on random graphs, with one group per edge and with several
 * (inclusive) groups per edge or per class of edges; on barrier-
 * synchronised graphs, where it runs block by block between the critical
 * path's cuts.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_twins.h"
#include "cp_zero.h"
#include "cp_testgraph.h"

/*
 * README §2/§3: P1 = A 6 + C 4 (10), P2 = B 5 + C 4 (9), P3 = A 6 + D 2
 * (8), each its own root-to-leaf path out of s.
 */
static void build_three_paths(struct cp_pag *g)
{
	uint32_t A, B, C, D;
	char err[128];

	cp_pag_init(g);
	for (int i = 0; i < 7; i++)
		cp_pag_add_vertex(g);	/* s=0 a=1 b=2 c=3 t1..t3=4..6 */
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

/* A label and the CP length expected with it zeroed. */
struct want_len {
	const char *name;
	uint64_t newlen;
};

/* Zeroing of @g's labels, in interning order, against @want[@n]. */
static void expect_lengths(struct cp_pag *g, const struct cp_cpm *c,
			   const struct want_len *want, uint32_t n)
{
	struct cp_groups gr = { .n = g->nlabels, .of = g->label };
	uint64_t *newlen = calloc(g->nlabels + 1, sizeof(*newlen));

	ck_assert_int_eq(cp_zero_all(c, &gr, NULL, newlen), 0);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_msg(strcmp(g->labels[i], want[i].name) == 0 &&
			      newlen[i] == want[i].newlen,
			      "zeroing %s: CP %" PRIu64 ", want %" PRIu64,
			      g->labels[i], newlen[i], want[i].newlen);
	free(newlen);
}

START_TEST(test_zero_example_three_paths)
{
	static const struct want_len want[] = {
		{ "A", 9 }, { "B", 10 }, { "C", 8 }, { "D", 10 }
	};
	struct cp_pag g;
	struct cp_cpm c;

	build_three_paths(&g);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	expect_lengths(&g, &c, want, 4);
	/* zeroing(A) = 1, zeroing(C) = 2 as the README states */
	ck_assert_msg(c.length - want[0].newlen == 1 &&
		      c.length - want[2].newlen == 2,
		      "zeroing benefits A %" PRIu64 " C %" PRIu64,
		      c.length - want[0].newlen, c.length - want[2].newlen);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}
END_TEST

/*
 * Longest path with group @gid's edges at zero, recomputed from scratch on
 * the whole graph: by enumerating every path (small graphs), or by one
 * plain forward pass (@pass).
 */
static uint64_t recompute(const struct cp_pag *g, const uint64_t *w,
			  const struct cp_groups *gr, uint32_t gid, bool pass)
{
	uint64_t *z = malloc(sizeof(*z) * (g->ne + 1));
	uint64_t *et = malloc(sizeof(*et) * (g->nv + 1)), len;
	struct tg_paths p;

	for (uint32_t e = 0; e < g->ne; e++)
		z[e] = cp_groups_has(gr, e, gid) ? 0 : w[e];
	if (pass) {
		len = cp_cpm_longest(g, z, et);
	} else {
		tg_enumerate(g, z, &p);
		len = tg_max_len(&p);
		tg_paths_free(&p);
	}
	free(z);
	free(et);
	return len;
}

START_TEST(test_zero_random_single_group)
{
	for (int round = 0; round < 300; round++) {
		struct cp_pag g;
		struct cp_cpm c;
		struct cp_groups gr;
		uint64_t newlen[4];
		bool only[4] = { true, false, true, true };

		tg_seed(4000 + round);
		ck_assert_int_eq(tg_random(&g, 3 + tg_below(10),
					   2 + tg_below(25), 12, 4), 0);
		ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
		gr = (struct cp_groups){ .n = 4, .of = g.label };
		ck_assert_int_eq(cp_zero_all(&c, &gr, NULL, newlen), 0);
		for (uint32_t i = 0; i < 4; i++) {
			uint64_t want = recompute(&g, g.w, &gr, i, false);

			TG_CHECK(newlen[i] == want, "round %d: zeroing g%u: %"
				 PRIu64 ", recomputed %" PRIu64, round, i,
				 newlen[i], want);
		}
		ck_assert_int_eq(cp_zero_all(&c, &gr, only, newlen), 0);
		TG_CHECK(newlen[1] == c.length, "round %d: skipped group got "
			 "%" PRIu64, round, newlen[1]);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
}
END_TEST

START_TEST(test_zero_random_inclusive_groups)
{
	for (int round = 0; round < 300; round++) {
		struct cp_pag g;
		struct cp_cpm c;
		struct cp_groups gr;
		uint32_t *off, *ids, n = 0;
		uint64_t newlen[5], *w;

		tg_seed(6000 + round);
		ck_assert_int_eq(tg_random(&g, 3 + tg_below(9),
					   2 + tg_below(22), 10, 0), 0);
		off = malloc(sizeof(*off) * (g.ne + 1));
		ids = malloc(sizeof(*ids) * (5 * g.ne + 1));
		w = malloc(sizeof(*w) * g.ne);
		for (uint32_t e = 0; e < g.ne; e++) {
			off[e] = n;
			for (uint32_t i = 0; i < 5; i++)
				if (tg_below(3) == 0)
					ids[n++] = i;
			w[e] = tg_below(15);
		}
		off[g.ne] = n;
		gr = (struct cp_groups){ .n = 5, .off = off, .ids = ids };
		ck_assert_int_eq(cp_cpm_run(&c, &g, w), 0);
		ck_assert_int_eq(cp_zero_all(&c, &gr, NULL, newlen), 0);
		for (uint32_t i = 0; i < 5; i++) {
			uint64_t want = recompute(&g, w, &gr, i, false);

			TG_CHECK(newlen[i] == want, "round %d: zeroing %u "
				 "(inclusive): %" PRIu64 ", recomputed %"
				 PRIu64, round, i, newlen[i], want);
		}
		free(off);
		free(ids);
		free(w);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
}
END_TEST

/*
 * s -0-> a -10(Q)-> c -5(P)-> m and a -0-> u -10(R)-> m: every path before
 * c reaches c and nothing weighted passes over it, but c does not reach u,
 * so c is no cut: were it one, the block after it would start u at c's
 * time 10 (zeroing Q would find 5, zeroing P 20).
 */
START_TEST(test_zero_vertex_not_reached_from_cut)
{
	static const struct want_len want[] = {
		{ "Q", 10 }, { "P", 10 }, { "R", 15 }
	};
	struct cp_pag g;
	struct cp_cpm c;
	char err[128];

	cp_pag_init(&g);
	for (int i = 0; i < 5; i++)
		cp_pag_add_vertex(&g);	/* s=0 a=1 c=2 u=3 m=4 */
	cp_pag_add_edge(&g, 0, 1, 0, CP_PAG_NONE);
	cp_pag_add_edge(&g, 1, 2, 10, cp_pag_intern(&g, "Q"));
	cp_pag_add_edge(&g, 1, 3, 0, CP_PAG_NONE);
	cp_pag_add_edge(&g, 2, 4, 5, cp_pag_intern(&g, "P"));
	cp_pag_add_edge(&g, 3, 4, 10, cp_pag_intern(&g, "R"));
	ck_assert_int_eq(cp_pag_finish(&g, err, sizeof(err)), 0);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	expect_lengths(&g, &c, want, 3);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}
END_TEST

/*
 * Zeroing block by block (cp_cuts.c) on barrier-synchronised graphs, tie
 * heavy (weights 0..1 in a third of the rounds), with zero-weight and
 * weighted edges over barriers, against an unpruned pass over the whole
 * graph with the group's weights zeroed; groups one per edge, per class
 * and per edge (several).  Label 0 carries thread 0, so zeroing it moves
 * the critical path to other threads: counted, and required often.
 */
START_TEST(test_zero_blocks_barrier_graphs)
{
	uint32_t cut = 0, moved = 0;

	for (int round = 0; round < 400; round++) {
		struct cp_pag g;
		struct cp_cpm c;
		struct cp_cuts k;
		struct cp_groups forms[3];
		uint64_t newlen[4], cpt[4];
		bool only[4] = { true, false, true, true };

		tg_seed(54000 + round);
		ck_assert_int_eq(tg_barriers(&g, 1 + tg_below(5),
					     1 + tg_below(8), 1 + tg_below(10),
					     round % 3 ? 3 : 1, 4, tg_below(8),
					     tg_below(10), round % 4 ? 0 :
					     1 + tg_below(2)), 0);
		ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
		ck_assert_int_eq(cp_cuts_find(&k, &c), 0);
		cut += k.nb > 2;
		forms[0] = (struct cp_groups){ .n = 4, .of = g.label };
		tg_classes(&g, 4, 6, &forms[1], &forms[2]);
		for (int f = 0; f < 3; f++) {
			ck_assert_int_eq(cp_zero_all(&c, &forms[f], NULL,
						     newlen), 0);
			cp_cpm_group_time(&c, &forms[f], cpt);
			for (uint32_t i = 0; i < 4; i++) {
				/* the class form against the spelled-out
				 * lists it stands for */
				uint64_t want = recompute(&g, g.w,
							  &forms[f == 1 ? 2 :
								 f], i, true);

				TG_CHECK(newlen[i] == want, "round %d form %d"
					 " (%u blocks): zeroing g%u: %" PRIu64
					 ", recomputed %" PRIu64, round, f,
					 k.nb, i, newlen[i], want);
				moved += c.length - newlen[i] < cpt[i];
			}
			ck_assert_int_eq(cp_zero_blocks(&k, &forms[f], only,
							newlen), 0);
			TG_CHECK(newlen[1] == c.length, "round %d: skipped "
				 "group got %" PRIu64 ", CP %" PRIu64, round,
				 newlen[1], c.length);
		}
		tg_groups_free(&forms[1], &forms[2]);
		cp_cuts_free(&k);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
	ck_assert_msg(cut > 200 && moved > 500, "%u of 400 graphs with two "
		      "cuts or more, %u zeroings where another path took over:"
		      " the test checks little", cut, moved);
}
END_TEST

/*
 * Twins: groups that own the same edges zero alike, and only the first is
 * zeroed (cp_zero.c).  Six groups over classes of edges: g2 has g0's
 * classes, g4 g1's; g3 as many classes as g0, shifted by one (a twin by
 * count alone would take g0's length); g5 at random.  Spelled by class
 * and by edge, with every group asked or all but g0 (g2 must then be
 * zeroed itself).  Each length against the recomputation.
 */
START_TEST(test_zero_twin_groups)
{
	uint64_t twins = cp_twins_total();
	uint32_t differ = 0;

	for (int round = 0; round < 200; round++) {
		enum { NG = 6 };
		struct cp_pag g;
		struct cp_cpm c;
		uint32_t ncls, *cls, *coff, *cids, *eoff, *eids, k = 0;
		bool in0[16], only[NG] = { round % 2 == 0, 1, 1, 1, 1, 1 };
		uint64_t newlen[NG], *w;

		tg_seed(7000 + round);
		ck_assert_int_eq(tg_random(&g, 3 + tg_below(9),
					   2 + tg_below(22), 10, 0), 0);
		ncls = 2 + tg_below(7);
		cls = malloc(sizeof(*cls) * (g.ne + 1));
		coff = malloc(sizeof(*coff) * (ncls + 1));
		cids = malloc(sizeof(*cids) * (ncls * NG + 1));
		eoff = malloc(sizeof(*eoff) * (g.ne + 1));
		eids = malloc(sizeof(*eids) * (g.ne * NG + 1));
		w = malloc(sizeof(*w) * (g.ne + 1));
		for (uint32_t q = 0; q < ncls; q++)
			in0[q] = tg_below(3) == 0;
		for (uint32_t q = 0; q < ncls; q++) {
			bool in1 = tg_below(3) == 0;

			coff[q] = k;
			if (in0[q])
				cids[k++] = 0;
			if (in1)
				cids[k++] = 1;
			if (in0[q])
				cids[k++] = 2;
			if (in0[(q + ncls - 1) % ncls])
				cids[k++] = 3;
			if (in1)
				cids[k++] = 4;
			if (tg_below(3) == 0)
				cids[k++] = 5;
		}
		coff[ncls] = k;
		k = 0;
		for (uint32_t e = 0; e < g.ne; e++) {
			cls[e] = tg_below(ncls);
			w[e] = tg_below(15);
			eoff[e] = k;
			for (uint32_t j = coff[cls[e]]; j < coff[cls[e] + 1];
			     j++)
				eids[k++] = cids[j];
		}
		eoff[g.ne] = k;
		ck_assert_int_eq(cp_cpm_run(&c, &g, w), 0);
		for (int form = 0; form < 2; form++) {
			struct cp_groups gr = form ?
				(struct cp_groups){ .n = NG, .off = eoff,
						    .ids = eids } :
				(struct cp_groups){ .n = NG, .cls = cls,
						    .ncls = ncls,
						    .ncls_e = g.ne,
						    .off = coff, .ids = cids };

			ck_assert_int_eq(cp_zero_all(&c, &gr, only, newlen),
					 0);
			for (uint32_t i = 0; i < NG; i++) {
				uint64_t want = only[i] ?
					recompute(&g, w, &gr, i, false) :
					c.length;

				TG_CHECK(newlen[i] == want, "round %d form "
					 "%d: zeroing g%u %" PRIu64
					 ", recomputed %" PRIu64, round,
					 form, i, newlen[i], want);
			}
		}
		differ += newlen[3] != newlen[2];
		free(cls);
		free(coff);
		free(cids);
		free(eoff);
		free(eids);
		free(w);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
	ck_assert_msg(cp_twins_total() - twins >= 400,
		      "only %" PRIu64 " groups left to a twin",
		      cp_twins_total() - twins);
	ck_assert_msg(differ >= 20, "g3 zeroed as g0 in all but %u rounds: "
		      "the test checks little", differ);
}
END_TEST

static Suite *zero_suite(void)
{
	Suite *s = suite_create("zero");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_zero_example_three_paths);
	tcase_add_test(tc, test_zero_random_single_group);
	tcase_add_test(tc, test_zero_random_inclusive_groups);
	tcase_add_test(tc, test_zero_vertex_not_reached_from_cut);
	tcase_add_test(tc, test_zero_blocks_barrier_graphs);
	tcase_add_test(tc, test_zero_twin_groups);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(zero_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
