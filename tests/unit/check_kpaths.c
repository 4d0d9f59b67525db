/*
 * check_kpaths.c - the k longest paths (best-first search on slack)
 * against the worked example of examples/README.md §1 and against full
 * enumeration on random multigraphs.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_kpaths.h"
#include "cp_testgraph.h"

#define EXAMPLE CP_TEST_DATA_DIR "/cpm-multigraph.pag"

/* Spell path @i as "B E G" into @out. */
static void path_names(const struct cp_kpaths *kp, uint32_t i, char *out,
		       size_t len)
{
	uint32_t *buf = malloc(sizeof(*buf) * (kp->nedges[i] + 1));
	uint32_t n = cp_kpaths_edges(kp, i, buf);
	size_t at = 0;

	out[0] = '\0';
	for (uint32_t j = 0; j < n; j++) {
		char nb[64];

		at += snprintf(out + at, len - at, "%s%s", j ? " " : "",
			       cp_pag_edge_name(kp->g, buf[j], nb,
						sizeof(nb)));
	}
	free(buf);
}

START_TEST(test_kpaths_example_all_five)
{
	/* README §1: 10 B E G; 9 B D2 F; 9 A H G; 9 A C F; 8 B D F */
	static const char *want[] = { "B E G", "B D2 F", "A H G", "A C F",
				      "B D F" };
	static const uint64_t wlen[] = { 10, 9, 9, 9, 8 };
	bool used[5] = { false };
	struct cp_pag g;
	struct cp_cpm c;
	struct cp_kpaths kp;
	char err[256];

	TG_CHECK(cp_pag_read_text(&g, EXAMPLE, err, sizeof(err)) == 0,
		 "%s", err);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	ck_assert_int_eq(cp_kpaths_find(&kp, &c, 100), 0);
	TG_CHECK(kp.n == 5, "found %u paths, want 5", kp.n);
	for (uint32_t i = 0; i < kp.n; i++) {
		char got[128];
		int match = -1;

		path_names(&kp, i, got, sizeof(got));
		for (int j = 0; j < 5; j++)
			if (!used[j] && strcmp(got, want[j]) == 0)
				match = j;
		TG_CHECK(match >= 0, "path %u \"%s\" (length %" PRIu64
			 ") is not expected or repeated", i, got,
			 kp.len[i]);
		used[match] = true;
		TG_CHECK(kp.len[i] == wlen[i] && wlen[match] == wlen[i],
			 "path %u \"%s\" length %" PRIu64 ", want %"
			 PRIu64, i, got, kp.len[i], wlen[i]);
	}
	TG_CHECK(strcmp(want[0], "B E G") == 0 && used[0], "CP first");
	cp_kpaths_free(&kp);
	/* k = 2: the CP and one of the 9s */
	ck_assert_int_eq(cp_kpaths_find(&kp, &c, 2), 0);
	TG_CHECK(kp.n == 2 && kp.len[0] == 10 && kp.len[1] == 9,
		 "k=2: %u paths, %" PRIu64 " %" PRIu64, kp.n, kp.len[0],
		 kp.n > 1 ? kp.len[1] : 0);
	cp_kpaths_free(&kp);
	ck_assert_int_eq(cp_kpaths_find(&kp, &c, 0), 0);
	TG_CHECK(kp.n == 0, "k=0 found %u", kp.n);
	cp_kpaths_free(&kp);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}
END_TEST

/*
 * The returned paths: real root-to-leaf paths of the stated length, all
 * distinct, lengths nonincreasing and equal to the top of the enumeration.
 */
static void check_k(const struct cp_pag *g, const struct cp_cpm *c,
		    const struct tg_paths *all, const uint64_t *sorted,
		    uint32_t k, int round)
{
	struct cp_kpaths kp;
	uint32_t want_n = k < all->n ? k : all->n;
	uint32_t **seen;

	ck_assert_int_eq(cp_kpaths_find(&kp, c, k), 0);
	TG_CHECK(kp.n == want_n, "round %d k %u: %u paths, want %u",
		 round, k, kp.n, want_n);
	seen = calloc(kp.n + 1, sizeof(*seen));
	for (uint32_t i = 0; i < kp.n; i++) {
		uint32_t *buf = malloc(sizeof(*buf) * (kp.nedges[i] + 1));
		uint32_t n = cp_kpaths_edges(&kp, i, buf), r, l;
		uint64_t sum = 0;

		TG_CHECK(kp.len[i] == sorted[i],
			 "round %d k %u: path %u length %" PRIu64
			 ", enumeration says %" PRIu64, round, k, i,
			 kp.len[i], sorted[i]);
		TG_CHECK(n >= 1, "round %d: empty path %u", round, i);
		r = g->tail[buf[0]];
		l = g->head[buf[n - 1]];
		TG_CHECK(g->in_off[r] == g->in_off[r + 1] &&
			 g->out_off[l] == g->out_off[l + 1],
			 "round %d k %u: path %u not root to leaf", round,
			 k, i);
		for (uint32_t j = 0; j < n; j++) {
			TG_CHECK(buf[j] < g->ne, "round %d: bad edge id",
				 round);
			TG_CHECK(j == 0 || g->tail[buf[j]] ==
					 g->head[buf[j - 1]],
				 "round %d k %u: path %u breaks at %u",
				 round, k, i, j);
			sum += c->w[buf[j]];
		}
		TG_CHECK(sum == kp.len[i], "round %d k %u: path %u edges "
			 "sum to %" PRIu64 ", stated %" PRIu64, round, k,
			 i,
			 sum, kp.len[i]);
		for (uint32_t j = 0; j < i; j++) {
			bool same = kp.nedges[j] == n &&
				    memcmp(seen[j], buf, n * sizeof(*buf)) == 0;

			TG_CHECK(!same, "round %d k %u: paths %u and %u "
				 "are the same", round, k, j, i);
		}
		seen[i] = buf;
	}
	for (uint32_t i = 0; i < kp.n; i++)
		free(seen[i]);
	free(seen);
	cp_kpaths_free(&kp);
}

START_TEST(test_kpaths_random_against_enumeration)
{
	for (int round = 0; round < 300; round++) {
		struct cp_pag g;
		struct cp_cpm c;
		struct tg_paths all;
		uint64_t *sorted;
		uint32_t nv, ne;
		static const uint32_t ks[] = { 1, 2, 3, 5, 8, 20, 1000000 };

		tg_seed(7000 + round);
		nv = 2 + tg_below(12);
		ne = 1 + tg_below(3 * nv);
		ck_assert_int_eq(tg_random(&g, nv, ne, round % 4 ? 9 : 1, 2),
				 0);
		ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
		tg_enumerate(&g, NULL, &all);
		sorted = malloc(sizeof(*sorted) * (all.n + 1));
		memcpy(sorted, all.len, sizeof(*sorted) * all.n);
		qsort(sorted, all.n, sizeof(*sorted), tg_cmp_desc);
		for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
			check_k(&g, &c, &all, sorted, ks[i], round);
		check_k(&g, &c, &all, sorted, all.n, round);
		free(sorted);
		tg_paths_free(&all);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
}
END_TEST

START_TEST(test_kpaths_many_paths_pruned_pool)
{
	/*
	 * Denser graphs with thousands of paths and small k: the candidate
	 * pool is pruned many times; the answers must still be the top k.
	 */
	for (int round = 0; round < 40; round++) {
		struct cp_pag g;
		struct cp_cpm c;
		struct tg_paths all;
		uint64_t *sorted;

		tg_seed(9100 + round);
		ck_assert_int_eq(tg_random(&g, 16, 60, round % 3 == 0 ? 3 :
					   round % 3 == 1 ? 50 : 20000, 2),
				 0);
		ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
		tg_enumerate(&g, NULL, &all);
		sorted = malloc(sizeof(*sorted) * (all.n + 1));
		memcpy(sorted, all.len, sizeof(*sorted) * all.n);
		qsort(sorted, all.n, sizeof(*sorted), tg_cmp_desc);
		check_k(&g, &c, &all, sorted, 1, round);
		check_k(&g, &c, &all, sorted, 7, round);
		check_k(&g, &c, &all, sorted, 100, round);
		check_k(&g, &c, &all, sorted, all.n / 2 + 1, round);
		free(sorted);
		tg_paths_free(&all);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
}
END_TEST

START_TEST(test_kpaths_pag_shaped)
{
	/* thread chains with zero-weight cross edges: many tied paths */
	for (int round = 0; round < 60; round++) {
		struct cp_pag g;
		struct cp_cpm c;
		struct tg_paths all;
		uint64_t *sorted;

		tg_seed(9500 + round);
		ck_assert_int_eq(tg_pagshape(&g, 2 + tg_below(3),
					     2 + tg_below(8), tg_below(12),
					     round % 3 ? 20 : 1, 2), 0);
		ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
		tg_enumerate(&g, NULL, &all);
		sorted = malloc(sizeof(*sorted) * (all.n + 1));
		memcpy(sorted, all.len, sizeof(*sorted) * all.n);
		qsort(sorted, all.n, sizeof(*sorted), tg_cmp_desc);
		check_k(&g, &c, &all, sorted, 1, round);
		check_k(&g, &c, &all, sorted, 10, round);
		check_k(&g, &c, &all, sorted, all.n, round);
		free(sorted);
		tg_paths_free(&all);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
}
END_TEST

START_TEST(test_kpaths_weight_override)
{
	for (int round = 0; round < 60; round++) {
		struct cp_pag g;
		struct cp_cpm c;
		struct tg_paths all;
		uint64_t *sorted, *w;

		tg_seed(9900 + round);
		ck_assert_int_eq(tg_random(&g, 9, 20, 9, 2), 0);
		w = malloc(sizeof(*w) * g.ne);
		for (uint32_t e = 0; e < g.ne; e++)
			w[e] = tg_below(30);
		ck_assert_int_eq(cp_cpm_run(&c, &g, w), 0);
		tg_enumerate(&g, w, &all);
		sorted = malloc(sizeof(*sorted) * (all.n + 1));
		memcpy(sorted, all.len, sizeof(*sorted) * all.n);
		qsort(sorted, all.n, sizeof(*sorted), tg_cmp_desc);
		check_k(&g, &c, &all, sorted, 4, round);
		check_k(&g, &c, &all, sorted, all.n, round);
		free(sorted);
		free(w);
		tg_paths_free(&all);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
}
END_TEST

static Suite *kpaths_suite(void)
{
	Suite *s = suite_create("kpaths");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_kpaths_example_all_five);
	tcase_add_test(tc, test_kpaths_random_against_enumeration);
	tcase_add_test(tc, test_kpaths_many_paths_pruned_pool);
	tcase_add_test(tc, test_kpaths_pag_shaped);
	tcase_add_test(tc, test_kpaths_weight_override);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kpaths_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
