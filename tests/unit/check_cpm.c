/*
 * check_cpm.c - the critical path method against the worked example of
 * doc/examples.md §1 and against brute force (every root-to-leaf path
 * enumerated) on random DAGs and multigraphs.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_cpm.h"
#include "cp_testgraph.h"

#define EXAMPLE CP_TEST_DATA_DIR "/cpm-multigraph.pag"

static void read_example(struct cp_pag *g)
{
	char err[256];
	int r = cp_pag_read_text(g, EXAMPLE, err, sizeof(err));

	TG_CHECK(r == 0, "reading %s: %d (%s)", EXAMPLE, r, err);
}

START_TEST(test_cpm_example_table)
{
	static const struct {
		const char *name;
		uint64_t d, es, ef, ls, lf, ts, fs;
	} row[] = {
		{ "A", 3, 0, 3, 1, 4, 1, 0 },	{ "B", 2, 0, 2, 0, 2, 0, 0 },
		{ "C", 4, 3, 7, 4, 8, 1, 0 },	{ "D", 4, 2, 6, 4, 8, 2, 1 },
		{ "E", 3, 2, 5, 2, 5, 0, 0 },	{ "F", 2, 7, 9, 8, 10, 1, 1 },
		{ "G", 5, 5, 10, 5, 10, 0, 0 }, { "H", 1, 3, 4, 4, 5, 1, 1 },
		{ "D2", 5, 2, 7, 3, 8, 1, 0 },
	};
	struct cp_pag g;
	struct cp_cpm c;

	read_example(&g);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	TG_CHECK(c.length == 10, "CP length %" PRIu64 ", want 10",
		 c.length);
	for (size_t i = 0; i < sizeof(row) / sizeof(row[0]); i++) {
		uint32_t e = tg_edge(&g, row[i].name);

		TG_CHECK(e != CP_PAG_NONE, "edge %s missing", row[i].name);
		TG_CHECK(c.w[e] == row[i].d && cp_cpm_es(&c, e) == row[i].es &&
			 cp_cpm_ef(&c, e) == row[i].ef &&
			 cp_cpm_ls(&c, e) == row[i].ls &&
			 cp_cpm_lf(&c, e) == row[i].lf &&
			 cp_cpm_total_slack(&c, e) == row[i].ts &&
			 cp_cpm_free_slack(&c, e) == row[i].fs,
			 "edge %s: d %" PRIu64 " ES %" PRIu64
			 " EF %" PRIu64
			 " LS %" PRIu64 " LF %" PRIu64 " TS %" PRIu64
			 " FS %" PRIu64 ", want %" PRIu64 " %" PRIu64
			 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			 " %" PRIu64, row[i].name, c.w[e],
			 cp_cpm_es(&c, e), cp_cpm_ef(&c, e),
			 cp_cpm_ls(&c, e), cp_cpm_lf(&c, e),
			 cp_cpm_total_slack(&c, e),
			 cp_cpm_free_slack(&c, e), row[i].d, row[i].es,
			 row[i].ef, row[i].ls, row[i].lf, row[i].ts,
			 row[i].fs);
	}
	cp_cpm_free(&c);
	cp_pag_free(&g);
}
END_TEST

START_TEST(test_cpm_example_path)
{
	static const char *want[] = { "B", "E", "G" };
	struct cp_pag g;
	struct cp_cpm c;
	struct cp_groups gr;
	uint64_t *cpt;

	read_example(&g);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	TG_CHECK(c.npath == 3, "CP has %u edges, want 3", c.npath);
	for (uint32_t i = 0; i < 3; i++) {
		char buf[64];
		const char *got = cp_pag_edge_name(&g, c.path[i], buf,
						   sizeof(buf));

		TG_CHECK(strcmp(got, want[i]) == 0,
			 "CP edge %u is %s, want %s", i, got, want[i]);
	}
	gr = (struct cp_groups){ .n = g.nlabels, .of = g.label };
	cpt = calloc(g.nlabels, sizeof(*cpt));
	cp_cpm_group_time(&c, &gr, cpt);
	for (uint32_t i = 0; i < g.nlabels; i++) {
		const char *l = g.labels[i];
		uint64_t want_t = !strcmp(l, "B") ? 2 : !strcmp(l, "E") ? 3 :
				  !strcmp(l, "G") ? 5 : 0;

		TG_CHECK(cpt[i] == want_t, "CP time of %s %" PRIu64
			 ", want %" PRIu64, l, cpt[i], want_t);
	}
	free(cpt);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}
END_TEST

/* Longest path through each edge, by enumeration. */
static void brute_through(const struct cp_pag *g, const struct tg_paths *p,
			  uint64_t *thr, bool *seen)
{
	memset(thr, 0, sizeof(*thr) * g->ne);
	memset(seen, 0, sizeof(*seen) * g->ne);
	for (uint32_t i = 0; i < p->n; i++) {
		for (uint32_t j = p->off[i]; j < p->off[i + 1]; j++) {
			uint32_t e = p->e[j];

			if (!seen[e] || p->len[i] > thr[e])
				thr[e] = p->len[i];
			seen[e] = true;
		}
	}
}

/* Check @c against enumeration, with weights @w (NULL: g's). */
static void check_against_brute(const struct cp_pag *g, const uint64_t *w,
				int round)
{
	struct tg_paths p;
	struct cp_cpm c;
	uint64_t *thr = malloc(sizeof(*thr) * g->ne), *et, L, sum = 0;
	bool *seen = malloc(sizeof(*seen) * g->ne);
	const uint64_t *ww = w ? w : g->w;

	tg_enumerate(g, w, &p);
	L = tg_max_len(&p);
	ck_assert_int_eq(cp_cpm_run(&c, g, w), 0);
	TG_CHECK(c.length == L, "round %d: CP %" PRIu64 ", brute %" PRIu64,
		 round, c.length, L);
	et = malloc(sizeof(*et) * g->nv);
	TG_CHECK(cp_cpm_longest(g, w, et) == L,
		 "round %d: forward-only length differs", round);
	free(et);
	brute_through(g, &p, thr, seen);
	for (uint32_t e = 0; e < g->ne; e++) {
		uint32_t h = g->head[e];
		uint64_t fs_want, next = UINT64_MAX;

		TG_CHECK(seen[e], "round %d: edge %u on no path", round, e);
		TG_CHECK(cp_cpm_total_slack(&c, e) == L - thr[e],
			 "round %d: edge %u total slack %" PRIu64
			 ", want L %" PRIu64 " - longest through %" PRIu64,
			 round, e, cp_cpm_total_slack(&c, e), L, thr[e]);
		TG_CHECK(cp_cpm_ls(&c, e) - cp_cpm_es(&c, e) ==
			 cp_cpm_total_slack(&c, e) &&
			 cp_cpm_ef(&c, e) - cp_cpm_es(&c, e) == ww[e],
			 "round %d: edge %u inconsistent times", round, e);
		/* free slack: earliest ES of a successor (end: L) - EF */
		for (uint32_t j = g->out_off[h]; j < g->out_off[h + 1]; j++) {
			uint64_t es = cp_cpm_es(&c, g->out_e[j]);

			if (es < next)
				next = es;
		}
		if (next == UINT64_MAX)
			next = L;
		fs_want = next - cp_cpm_ef(&c, e);
		TG_CHECK(cp_cpm_free_slack(&c, e) == fs_want,
			 "round %d: edge %u free slack %" PRIu64
			 ", want %" PRIu64, round, e,
			 cp_cpm_free_slack(&c, e), fs_want);
		TG_CHECK(cp_cpm_free_slack(&c, e) <=
			 cp_cpm_total_slack(&c, e),
			 "round %d: edge %u free slack above total", round,
			 e);
	}
	/* the chosen path: root to leaf, consecutive, length L, slack 0 */
	if (c.npath > 0) {
		uint32_t r = cp_pag_tail(g, c.path[0]);
		uint32_t l = g->head[c.path[c.npath - 1]];

		TG_CHECK(cp_pag_is_root(g, r) &&
			 g->out_off[l] == g->out_off[l + 1],
			 "round %d: CP is not root to leaf", round);
	}
	for (uint32_t i = 0; i < c.npath; i++) {
		uint32_t e = c.path[i];

		sum += ww[e];
		TG_CHECK(i == 0 || cp_pag_tail(g, e) == g->head[c.path[i - 1]],
			 "round %d: CP edge %u does not follow", round, i);
		TG_CHECK(cp_cpm_total_slack(&c, e) == 0,
			 "round %d: CP edge %u has slack", round, i);
	}
	TG_CHECK(sum == L, "round %d: CP edges sum to %" PRIu64
		 ", want %" PRIu64, round, sum, L);
	cp_cpm_free(&c);
	tg_paths_free(&p);
	free(thr);
	free(seen);
}

START_TEST(test_cpm_random_brute_force)
{
	for (int round = 0; round < 400; round++) {
		struct cp_pag g;
		uint32_t nv, ne;

		tg_seed(1000 + round);
		nv = 2 + tg_below(11);
		ne = 1 + tg_below(3 * nv);
		ck_assert_int_eq(tg_random(&g, nv, ne, round % 3 ? 20 : 2, 3),
				 0);
		check_against_brute(&g, NULL, round);
		cp_pag_free(&g);
	}
}
END_TEST

START_TEST(test_cpm_weight_override)
{
	for (int round = 0; round < 100; round++) {
		struct cp_pag g;
		uint64_t *w;

		tg_seed(5000 + round);
		ck_assert_int_eq(tg_random(&g, 8, 16, 30, 2), 0);
		w = malloc(sizeof(*w) * g.ne);
		for (uint32_t e = 0; e < g.ne; e++)
			w[e] = tg_below(4) == 0 ? 0 : tg_below(100);
		check_against_brute(&g, w, round);
		free(w);
		cp_pag_free(&g);
	}
}
END_TEST

START_TEST(test_cpm_isolated_and_single)
{
	struct cp_pag g;
	struct cp_cpm c;
	char err[128];

	cp_pag_init(&g);
	for (int i = 0; i < 4; i++)
		cp_pag_add_vertex(&g);
	cp_pag_add_edge(&g, 2, 1, 7, CP_PAG_NONE);
	ck_assert_int_eq(cp_pag_finish(&g, err, sizeof(err)), 0);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	TG_CHECK(c.length == 7 && c.npath == 1 && c.path[0] == 0,
		 "length %" PRIu64 " npath %u", c.length, c.npath);
	/* isolated vertices 0 and 3: start 0, latest L */
	TG_CHECK(c.et[0] == 0 && c.lt[0] == 7 && c.et[3] == 0,
		 "isolated: et %" PRIu64 " lt %" PRIu64, c.et[0], c.lt[0]);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}
END_TEST

START_TEST(test_cpm_deterministic_ties)
{
	/* two equal paths: the lowest-numbered leaf, lowest in-edge wins */
	struct cp_pag g;
	struct cp_cpm c;
	char err[128];

	cp_pag_init(&g);
	for (int i = 0; i < 4; i++)
		cp_pag_add_vertex(&g);
	cp_pag_add_edge(&g, 0, 3, 5, CP_PAG_NONE);	/* e0 */
	cp_pag_add_edge(&g, 0, 2, 5, CP_PAG_NONE);	/* e1 */
	cp_pag_add_edge(&g, 1, 3, 5, CP_PAG_NONE);	/* e2 */
	ck_assert_int_eq(cp_pag_finish(&g, err, sizeof(err)), 0);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	TG_CHECK(c.npath == 1 && c.path[0] == 1,
		 "path [%u] = e%u, want e1 (leaf 2 before leaf 3)",
		 c.npath, c.npath ? c.path[0] : 99);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}
END_TEST

/*
 * The walk back takes a vertex's lowest-numbered in-edge of greatest EF,
 * also when a higher-numbered one reaches it first in topological order
 * (roots 0 and 1 come in that order, so e1 from vertex 0 is pushed
 * before e0 from vertex 1), and when the EF is 0 (weights @w).
 */
static void lowest_in_edge(uint64_t w)
{
	struct cp_pag g;
	struct cp_cpm c;
	char err[128];

	cp_pag_init(&g);
	for (int i = 0; i < 3; i++)
		cp_pag_add_vertex(&g);
	cp_pag_add_edge(&g, 1, 2, w, CP_PAG_NONE);	/* e0 */
	cp_pag_add_edge(&g, 0, 2, w, CP_PAG_NONE);	/* e1 */
	ck_assert_int_eq(cp_pag_finish(&g, err, sizeof(err)), 0);
	ck_assert_uint_eq(g.topo[0], 0);
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	TG_CHECK(c.length == w && c.npath == 1 && c.path[0] == 0,
		 "weight %llu: length %llu, path [%u] = e%u, want e0",
		 (unsigned long long)w, (unsigned long long)c.length,
		 c.npath, c.npath ? c.path[0] : 99);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}

START_TEST(test_cpm_walk_back_lowest_in_edge)
{
	lowest_in_edge(5);
	lowest_in_edge(0);
}
END_TEST

static Suite *cpm_suite(void)
{
	Suite *s = suite_create("cpm");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cpm_example_table);
	tcase_add_test(tc, test_cpm_example_path);
	tcase_add_test(tc, test_cpm_random_brute_force);
	tcase_add_test(tc, test_cpm_weight_override);
	tcase_add_test(tc, test_cpm_isolated_and_single);
	tcase_add_test(tc, test_cpm_deterministic_ties);
	tcase_add_test(tc, test_cpm_walk_back_lowest_in_edge);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cpm_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
