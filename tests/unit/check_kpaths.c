/*
 * check_kpaths.c - the k longest paths (sidetrack enumeration) against the
 * worked example tests/data/cpm-multigraph.pag, against full enumeration
 * on random multigraphs (ties and parallel edges included), and the
 * implicit form (parent, shared prefix, deviation, rejoin, pieces) against
 * the spelled paths.
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
	/* by hand: 10 B E G; 9 B D2 F; 9 A H G; 9 A C F; 8 B D F */
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
 * The implicit form of path @i (spelled in @buf; @seen holds the earlier
 * paths spelled): it shares exactly its first pcnt edges with its parent
 * and then takes its deviation edge; a path without a parent starts with
 * its deviation; departs and rejoins name the deviation's tail and the
 * first vertex from its head on that lies on path 0, after which the path
 * is path 0's suffix.
 */
/*
 * Path @i's pieces (cp_kpaths_pieces), each its first edge continued along
 * next[], spell the path @buf edge for edge, and there are at most i + 1.
 */
static void check_pieces(const struct cp_pag *g, const struct cp_kpaths *kp,
			 uint32_t i, const uint32_t *buf, int round)
{
	struct cp_kpaths_piece *pc = malloc(sizeof(*pc) * (i + 1));
	uint32_t npc = cp_kpaths_pieces(kp, i, pc), at = 0;

	TG_CHECK(npc >= 1 && npc <= i + 1, "round %d: path %u in %u pieces",
		 round, i, npc);
	for (uint32_t j = 0; j < npc; j++) {
		uint32_t e = pc[j].first;

		TG_CHECK(pc[j].n >= 1 && at + pc[j].n <= kp->nedges[i],
			 "round %d: path %u piece %u of %u edges at %u",
			 round, i, j, pc[j].n, at);
		for (uint32_t q = 0; q < pc[j].n; q++) {
			TG_CHECK(e == buf[at], "round %d: path %u piece %u "
				 "gives edge %u at %u, the path has %u", round,
				 i, j, e, at, buf[at]);
			at++;
			if (q + 1 < pc[j].n)
				e = kp->next[g->head[e]];
		}
	}
	TG_CHECK(at == kp->nedges[i], "round %d: path %u pieces cover %u of "
		 "%u edges", round, i, at, kp->nedges[i]);
	free(pc);
}

static void check_implicit(const struct cp_pag *g,
			   const struct cp_kpaths *kp, uint32_t i,
			   const uint32_t *buf, uint32_t *const *seen,
			   int round)
{
	uint32_t p = kp->parent[i], at = kp->pcnt[i], n = kp->nedges[i];
	uint32_t rj = cp_kpaths_rejoins(kp, i), ra;

	check_pieces(g, kp, i, buf, round);
	TG_CHECK(buf[at] == kp->dev[i], "round %d: path %u edge %u is %u, "
		 "deviation says %u", round, i, at, buf[at], kp->dev[i]);
	if (p == CP_PAG_NONE) {
		TG_CHECK(at == 0 && cp_kpaths_departs(kp, i) == CP_PAG_NONE,
			 "round %d: path %u without parent shares %u edges",
			 round, i, at);
	} else {
		TG_CHECK(p < i && at < kp->nedges[p], "round %d: path %u "
			 "parent %u shares %u", round, i, p, at);
		TG_CHECK(memcmp(seen[p], buf, at * sizeof(*buf)) == 0,
			 "round %d: path %u differs from its parent %u "
			 "before edge %u", round, i, p, at);
		TG_CHECK(seen[p][at] != buf[at], "round %d: path %u and its "
			 "parent %u share edge %u too", round, i, p, at);
		TG_CHECK(cp_kpaths_departs(kp, i) == cp_pag_tail(g, buf[at]),
			 "round %d: path %u departs at %u, not the deviation's"
			 " tail %u", round, i, cp_kpaths_departs(kp, i),
			 cp_pag_tail(g, buf[at]));
	}
	ra = cp_kpaths_rejoins_at(kp, i);
	if (i == 0) {
		TG_CHECK(rj == cp_pag_tail(g, buf[0]) && ra == 0,
			 "round %d: path 0 rejoins itself at %u (%u)", round,
			 rj, ra);
		return;
	}
	if (rj == CP_PAG_NONE) {
		/* it ends at another leaf than path 0's */
		TG_CHECK(ra == CP_PAG_NONE && g->head[buf[n - 1]] !=
			 g->head[seen[0][kp->nedges[0] - 1]], "round %d: path"
			 " %u never rejoins but ends at path 0's leaf",
			 round, i);
		return;
	}
	TG_CHECK(ra <= kp->nedges[0] && n - (kp->nedges[0] - ra) > at,
		 "round %d: path %u rejoins path 0 at edge %u", round, i, ra);
	TG_CHECK(memcmp(buf + n - (kp->nedges[0] - ra), seen[0] + ra,
			(kp->nedges[0] - ra) * sizeof(*buf)) == 0 &&
		 (ra == kp->nedges[0] ? g->head[seen[0][ra - 1]] :
		  cp_pag_tail(g, seen[0][ra])) == rj,
		 "round %d: path %u does not follow path 0 from vertex %u "
		 "(edge %u)", round, i, rj, ra);
	for (uint32_t j = at + 1; j < n - (kp->nedges[0] - ra); j++)
		for (uint32_t x = 0; x < kp->nedges[0]; x++)
			TG_CHECK(cp_pag_tail(g, buf[j]) !=
				 cp_pag_tail(g, seen[0][x]) &&
				 cp_pag_tail(g, buf[j]) != g->head[seen[0][x]],
				 "round %d: path %u meets path 0 at vertex %u "
				 "before its stated rejoin %u", round, i,
				 cp_pag_tail(g, buf[j]), rj);
}

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
		r = cp_pag_tail(g, buf[0]);
		l = g->head[buf[n - 1]];
		TG_CHECK(cp_pag_is_root(g, r) &&
			 g->out_off[l] == g->out_off[l + 1],
			 "round %d k %u: path %u not root to leaf", round,
			 k, i);
		for (uint32_t j = 0; j < n; j++) {
			TG_CHECK(buf[j] < g->ne, "round %d: bad edge id",
				 round);
			TG_CHECK(j == 0 || cp_pag_tail(g, buf[j]) ==
					 g->head[buf[j - 1]],
				 "round %d k %u: path %u breaks at %u",
				 round, k, i, j);
			sum += c->w[buf[j]];
		}
		TG_CHECK(sum == kp.len[i], "round %d k %u: path %u edges "
			 "sum to %" PRIu64 ", stated %" PRIu64, round, k,
			 i,
			 sum, kp.len[i]);
		check_implicit(g, &kp, i, buf, seen, round);
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

START_TEST(test_kpaths_parallel_ties)
{
	/*
	 * A chain of 5 hops, each three parallel edges weighing 5, 5 and 4:
	 * 3^5 = 243 paths, and C(5,j) 2^(5-j) of them have length 25 - j
	 * (j hops through the 4): 32, 80, 80, 40, 10, 1.  All 243 come out,
	 * distinct (check_k's checks), longest first, with those counts;
	 * and k = 100 stops inside the tie at 23.
	 */
	static const uint32_t want[6] = { 32, 80, 80, 40, 10, 1 };
	struct cp_pag g;
	struct cp_cpm c;
	struct cp_kpaths kp;
	struct tg_paths all;
	uint64_t *sorted;
	uint32_t got[6] = { 0 };
	char err[256];

	cp_pag_init(&g);
	for (int v = 0; v < 6; v++)
		cp_pag_add_vertex(&g);
	for (uint32_t v = 0; v < 5; v++) {
		cp_pag_add_edge(&g, v, v + 1, 5, CP_PAG_NONE);
		cp_pag_add_edge(&g, v, v + 1, 4, CP_PAG_NONE);
		cp_pag_add_edge(&g, v, v + 1, 5, CP_PAG_NONE);
	}
	TG_CHECK(cp_pag_finish(&g, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	ck_assert_int_eq(cp_kpaths_find(&kp, &c, 1000), 0);
	TG_CHECK(kp.n == 243, "found %u paths, want 243", kp.n);
	for (uint32_t i = 0; i < kp.n; i++) {
		TG_CHECK(kp.len[i] >= 20 && kp.len[i] <= 25 &&
			 kp.nedges[i] == 5, "path %u length %" PRIu64
			 " over %u edges", i, kp.len[i], kp.nedges[i]);
		got[25 - kp.len[i]]++;
	}
	for (int j = 0; j < 6; j++)
		TG_CHECK(got[j] == want[j], "%u paths of length %d, want %u",
			 got[j], 25 - j, want[j]);
	cp_kpaths_free(&kp);
	tg_enumerate(&g, NULL, &all);
	sorted = malloc(sizeof(*sorted) * (all.n + 1));
	memcpy(sorted, all.len, sizeof(*sorted) * all.n);
	qsort(sorted, all.n, sizeof(*sorted), tg_cmp_desc);
	check_k(&g, &c, &all, sorted, 100, 0);
	check_k(&g, &c, &all, sorted, 243, 0);
	free(sorted);
	tg_paths_free(&all);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}
END_TEST

START_TEST(test_kpaths_several_roots_and_isolated)
{
	/*
	 * Roots r0 (isolated), r1 -> x (3), r2 -> x (5), x -> y (1) and
	 * x -> z (2), r3 -> z (4): paths 7 (r2 x z), 6 (r2 x y), 5 (r1 x z),
	 * 4 (r1 x y), 4 (r3 z); the isolated vertex is no path.
	 */
	static const uint64_t want[] = { 7, 6, 5, 4, 4 };
	struct cp_pag g;
	struct cp_cpm c;
	struct cp_kpaths kp;
	char err[256];

	cp_pag_init(&g);
	for (int v = 0; v < 7; v++)
		cp_pag_add_vertex(&g);	/* r0 r1 r2 r3 x y z = 0..6 */
	cp_pag_add_edge(&g, 1, 4, 3, CP_PAG_NONE);
	cp_pag_add_edge(&g, 2, 4, 5, CP_PAG_NONE);
	cp_pag_add_edge(&g, 4, 5, 1, CP_PAG_NONE);
	cp_pag_add_edge(&g, 4, 6, 2, CP_PAG_NONE);
	cp_pag_add_edge(&g, 3, 6, 4, CP_PAG_NONE);
	TG_CHECK(cp_pag_finish(&g, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	ck_assert_int_eq(cp_kpaths_find(&kp, &c, 10), 0);
	TG_CHECK(kp.n == 5, "found %u paths, want 5", kp.n);
	for (uint32_t i = 0; i < kp.n; i++)
		TG_CHECK(kp.len[i] == want[i], "path %u length %" PRIu64
			 ", want %" PRIu64, i, kp.len[i], want[i]);
	/* path 0 starts at r2; the path from r3 has no parent and joins
	 * path 0 at z, its last vertex (edge 2 of path 0) */
	TG_CHECK(cp_pag_tail(&g, kp.dev[0]) == 2 &&
		 kp.parent[0] == CP_PAG_NONE,
		 "path 0 starts at %u", cp_pag_tail(&g, kp.dev[0]));
	for (uint32_t i = 1; i < kp.n; i++) {
		if (cp_pag_tail(&g, kp.dev[i]) != 3)
			continue;
		TG_CHECK(kp.parent[i] == CP_PAG_NONE &&
			 cp_kpaths_rejoins(&kp, i) == 6 &&
			 cp_kpaths_rejoins_at(&kp, i) == 2,
			 "path %u from r3: parent %u rejoins %u at %u", i,
			 kp.parent[i], cp_kpaths_rejoins(&kp, i),
			 cp_kpaths_rejoins_at(&kp, i));
	}
	cp_kpaths_free(&kp);
	cp_cpm_free(&c);
	cp_pag_free(&g);
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
	tcase_add_test(tc, test_kpaths_parallel_ties);
	tcase_add_test(tc, test_kpaths_several_roots_and_isolated);
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
