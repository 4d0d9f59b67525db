/*
 * check_zero.c - logical zeroing against examples/README.md §3 and against
 * recomputation on random graphs, with one group per edge and with several
 * (inclusive) groups per edge.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

START_TEST(test_zero_example_three_paths)
{
	static const struct {
		const char *name;
		uint64_t newlen;
	} want[] = { { "A", 9 }, { "B", 10 }, { "C", 8 }, { "D", 10 } };
	struct cp_pag g;
	struct cp_cpm c;
	struct cp_groups gr;
	uint64_t newlen[4];

	build_three_paths(&g);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	gr = (struct cp_groups){ .n = g.nlabels, .of = g.label };
	ck_assert_int_eq(cp_zero_all(&c, &gr, NULL, newlen), 0);
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_msg(strcmp(g.labels[i], want[i].name) == 0 &&
			      newlen[i] == want[i].newlen,
			      "zeroing %s: CP %" PRIu64 ", want %" PRIu64,
			      g.labels[i], newlen[i], want[i].newlen);
	/* zeroing(A) = 1, zeroing(C) = 2 as the README states */
	ck_assert_msg(c.length - newlen[0] == 1 && c.length - newlen[2] == 2,
		      "zeroing benefits A %" PRIu64 " C %" PRIu64,
		      c.length - newlen[0], c.length - newlen[2]);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}
END_TEST

static uint64_t recompute(const struct cp_pag *g, const uint64_t *w,
			  const struct cp_groups *gr, uint32_t gid)
{
	uint64_t *z = malloc(sizeof(*z) * (g->ne + 1));
	uint64_t len;
	struct tg_paths p;

	for (uint32_t e = 0; e < g->ne; e++)
		z[e] = cp_groups_has(gr, e, gid) ? 0 : w[e];
	/* by enumeration, independent of the CPM code */
	tg_enumerate(g, z, &p);
	len = tg_max_len(&p);
	tg_paths_free(&p);
	free(z);
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
			uint64_t want = recompute(&g, g.w, &gr, i);

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
			uint64_t want = recompute(&g, w, &gr, i);

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

static Suite *zero_suite(void)
{
	Suite *s = suite_create("zero");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_zero_example_three_paths);
	tcase_add_test(tc, test_zero_random_single_group);
	tcase_add_test(tc, test_zero_random_inclusive_groups);
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
