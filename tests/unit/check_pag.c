/*
 * check_pag.c - the PAG: building, adjacency, topological order, label
 * interning, and the text reader on good and malformed files.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_pag.h"
#include "cp_testgraph.h"

#define EXAMPLE CP_TEST_DATA_DIR "/cpm-multigraph.pag"

/* Write @text to a fresh temporary file; returns its path (static). */
static const char *tmpfile_with(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/check_pag.XXXXXX");
	fd = mkstemp(path);
	ck_assert_msg(fd >= 0, "mkstemp failed");
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

/* Structural invariants of a finished graph. */
static void check_structure(const struct cp_pag *g, int round)
{
	uint32_t *rank = malloc(sizeof(*rank) * (g->nv + 1));
	uint32_t *cnt = calloc(g->ne + 1, sizeof(*cnt));

	TG_CHECK(g->finished, "round %d: not finished", round);
	for (uint32_t v = 0; v < g->nv; v++)
		rank[v] = UINT32_MAX;
	for (uint32_t i = 0; i < g->nv; i++) {
		TG_CHECK(g->topo[i] < g->nv && rank[g->topo[i]] == UINT32_MAX,
			 "round %d: topo[%u] = %u repeated or out of range",
			 round, i, g->topo[i]);
		rank[g->topo[i]] = i;
	}
	for (uint32_t e = 0; e < g->ne; e++)
		TG_CHECK(rank[cp_pag_tail(g, e)] < rank[g->head[e]],
			 "round %d: edge %u %u->%u against the order (%u, %u)",
			 round, e, cp_pag_tail(g, e), g->head[e],
			 rank[cp_pag_tail(g, e)], rank[g->head[e]]);
	TG_CHECK(g->out_off[0] == 0 && g->out_off[g->nv] == g->ne,
		 "round %d: CSR bounds %u / %u", round, g->out_off[g->nv],
		 g->ne);
	for (uint32_t v = 0; v < g->nv; v++) {
		for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			uint32_t e = g->out_e[j];

			TG_CHECK(cp_pag_tail(g, e) == v, "round %d: out list "
				 "of %u holds edge %u of tail %u", round, v, e,
				 cp_pag_tail(g, e));
			TG_CHECK(j == g->out_off[v] || g->out_e[j - 1] < e,
				 "round %d: out list of %u not ascending",
				 round, v);
			cnt[e]++;
		}
	}
	for (uint32_t e = 0; e < g->ne; e++)
		TG_CHECK(cnt[e] == 1, "round %d: edge %u listed %u times",
			 round, e, cnt[e]);
	/* roots: the vertices no edge leads into (rank reused as a mark) */
	for (uint32_t v = 0; v < g->nv; v++)
		rank[v] = 0;
	for (uint32_t e = 0; e < g->ne; e++)
		rank[g->head[e]] = 1;
	for (uint32_t v = 0; v < g->nv; v++)
		TG_CHECK(cp_pag_is_root(g, v) == !rank[v],
			 "round %d: vertex %u %s a root", round, v,
			 rank[v] ? "marked" : "not marked");
	free(rank);
	free(cnt);
}

START_TEST(test_pag_read_example)
{
	struct cp_pag g;
	char err[256], buf[64];
	uint32_t d, d2;

	ck_assert_msg(cp_pag_read_text(&g, EXAMPLE, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_msg(g.nv == 6 && g.ne == 9 && g.nlabels == 9,
		      "nv %u ne %u labels %u, want 6 9 9", g.nv, g.ne,
		      g.nlabels);
	check_structure(&g, 0);
	d = tg_edge(&g, "D");
	d2 = tg_edge(&g, "D2");
	ck_assert_msg(d != CP_PAG_NONE && d2 != CP_PAG_NONE &&
		      cp_pag_tail(&g, d) == cp_pag_tail(&g, d2) &&
		      g.head[d] == g.head[d2],
		      "parallel edges D and D2 must join the same vertices");
	ck_assert_msg(strcmp(g.vname[cp_pag_tail(&g, d)], "b") == 0 &&
		      strcmp(g.vname[g.head[d]], "c") == 0 && g.w[d2] == 5,
		      "D2 is %s->%s weight %" PRIu64,
		      g.vname[cp_pag_tail(&g, d2)], g.vname[g.head[d2]],
		      g.w[d2]);
	ck_assert_str_eq(cp_pag_edge_name(&g, d, buf, sizeof(buf)), "D");
	cp_pag_free(&g);
}
END_TEST

START_TEST(test_pag_read_comments_and_unlabelled)
{
	const char *p = tmpfile_with("# header\n\n   \t\n"
				     "e x y 5 work   # trailing comment\n"
				     "e y z 0\n"
				     "  e   x   z   18446744073709551608  \n"
				     "e z w 2 work\n");
	struct cp_pag g;
	char err[256], buf[64];

	ck_assert_msg(cp_pag_read_text(&g, p, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_msg(g.nv == 4 && g.ne == 4 && g.nlabels == 1,
		      "nv %u ne %u labels %u", g.nv, g.ne, g.nlabels);
	ck_assert_msg(g.label[0] == g.label[3] && g.label[1] == CP_PAG_NONE,
		      "labels %u %u %u", g.label[0], g.label[3], g.label[1]);
	ck_assert_msg(g.w[2] == UINT64_MAX - 7, "largest weight read as %"
		      PRIu64, g.w[2]);
	ck_assert_str_eq(cp_pag_edge_name(&g, 1, buf, sizeof(buf)), "y->z");
	check_structure(&g, 0);
	cp_pag_free(&g);
	unlink(p);
}
END_TEST

/* Each malformed file must fail with "PATH:LINE: " and a reason. */
START_TEST(test_pag_read_malformed)
{
	static const struct {
		const char *text;
		int line;
		const char *reason;
	} bad[] = {
		{ "e a b 1\nx a b 1\n", 2, "expected" },
		{ "e a b\n", 1, "fields" },
		{ "e a b 1 L extra\n", 1, "fields" },
		{ "e a b -1\n", 1, "weight" },
		{ "e a b 1.5\n", 1, "weight" },
		{ "e a b 12x\n", 1, "weight" },
		{ "e a b 18446744073709551616\n", 1, "weight" },
		{ "e a b 18446744073709551615\ne b c 1\n", 2, "add up" },
		{ "# only a comment\n\n", 2, "no edges" },
		{ "", 0, "empty: not a cpthread trace" },
		{ "e a b 1\n\x01\x7f\xff\n", 2, "not a cpthread trace (it "
		  "does not begin with CPTTRACE) nor a graph in text form "
		  "(binary bytes" },
		{ "e a b 1\ne b c 1\ne c a 1\ne c d 1\n", 0, "cycle" },
		{ "e a a 0\n", 1, "cycle" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *p = tmpfile_with(bad[i].text);
		struct cp_pag g;
		char err[256], want[96];
		int r = cp_pag_read_text(&g, p, err, sizeof(err));

		ck_assert_msg(r == -1, "case %zu: read returned %d", i, r);
		if (bad[i].line > 0)
			snprintf(want, sizeof(want), "%s:%d: ", p, bad[i].line);
		else
			snprintf(want, sizeof(want), "%s:", p);
		ck_assert_msg(strncmp(err, want, strlen(want)) == 0,
			      "case %zu: message \"%s\" does not start with "
			      "\"%s\"", i, err, want);
		ck_assert_msg(strstr(err, bad[i].reason) != NULL,
			      "case %zu: message \"%s\" lacks \"%s\"", i, err,
			      bad[i].reason);
		ck_assert_msg(strchr(err, '\n') == NULL,
			      "case %zu: message has a newline", i);
		ck_assert_msg(g.ne == 0 && g.nv == 0 && g.tail == NULL,
			      "case %zu: graph not left empty", i);
		unlink(p);
	}
}
END_TEST

START_TEST(test_pag_read_cycle_names_its_line)
{
	/* the cycle b -> c -> b is on lines 3 and 4; line 1, 2 are fine */
	const char *p = tmpfile_with("e a b 1\ne a c 1\ne b c 1\ne c b 2\n");
	struct cp_pag g;
	char err[256], l3[80], l4[80];

	ck_assert_int_eq(cp_pag_read_text(&g, p, err, sizeof(err)), -1);
	snprintf(l3, sizeof(l3), "%s:3: ", p);
	snprintf(l4, sizeof(l4), "%s:4: ", p);
	ck_assert_msg(strncmp(err, l3, strlen(l3)) == 0 ||
		      strncmp(err, l4, strlen(l4)) == 0,
		      "cycle message \"%s\" names neither line 3 nor 4", err);
	unlink(p);
}
END_TEST

START_TEST(test_pag_read_missing_file)
{
	struct cp_pag g;
	char err[256];

	ck_assert_int_eq(cp_pag_read_text(&g, "/nonexistent/x.pag", err,
					  sizeof(err)), -1);
	ck_assert_msg(strstr(err, "/nonexistent/x.pag") == err,
		      "message \"%s\" does not name the file", err);
}
END_TEST

START_TEST(test_pag_intern_equal_text_equal_id)
{
	struct cp_pag g;
	uint32_t ids[500];

	cp_pag_init(&g);
	for (int i = 0; i < 500; i++) {
		char name[32];

		snprintf(name, sizeof(name), "proc_%d", i);
		ids[i] = cp_pag_intern(&g, name);
		ck_assert_msg(ids[i] == (uint32_t)i, "label %d got id %u", i,
			      ids[i]);
	}
	for (int i = 499; i >= 0; i--) {
		char name[32];

		snprintf(name, sizeof(name), "proc_%d", i);
		ck_assert_msg(cp_pag_intern(&g, name) == ids[i],
			      "re-interning %s gave %u, want %u", name,
			      cp_pag_intern(&g, name), ids[i]);
	}
	ck_assert_msg(g.nlabels == 500, "%u labels", g.nlabels);
	cp_pag_free(&g);
}
END_TEST

START_TEST(test_pag_build_and_cycle)
{
	struct cp_pag g;
	char err[256];

	cp_pag_init(&g);
	ck_assert_uint_eq(cp_pag_add_vertex(&g), 0);
	ck_assert_uint_eq(cp_pag_add_vertex(&g), 1);
	ck_assert_uint_eq(cp_pag_add_vertex(&g), 2);
	ck_assert_uint_eq(cp_pag_add_edge(&g, 0, 1, 3, CP_PAG_NONE), 0);
	ck_assert_uint_eq(cp_pag_add_edge(&g, 1, 2, 3, CP_PAG_NONE), 1);
	ck_assert_msg(cp_pag_add_edge(&g, 0, 3, 1, CP_PAG_NONE) == CP_PAG_NONE,
		      "an edge to a missing vertex must be refused");
	ck_assert_int_eq(cp_pag_finish(&g, err, sizeof(err)), 0);
	check_structure(&g, 0);
	/* adding after finish un-finishes; a back edge makes a cycle */
	ck_assert_uint_eq(cp_pag_add_edge(&g, 2, 0, 1, CP_PAG_NONE), 2);
	ck_assert_msg(!g.finished, "still marked finished");
	ck_assert_int_eq(cp_pag_finish(&g, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "cycle") != NULL, "message \"%s\"", err);
	cp_pag_free(&g);
}
END_TEST

START_TEST(test_pag_random_structure)
{
	for (int round = 0; round < 200; round++) {
		struct cp_pag g;

		tg_seed(300 + round);
		ck_assert_int_eq(tg_random(&g, 1 + tg_below(60) + 1,
					   tg_below(200), 10, 3), 0);
		check_structure(&g, round);
		cp_pag_free(&g);
	}
}
END_TEST

/*
 * Chain edges (h - 1 -> h while every edge so far is one) keep no tail:
 * every edge's tail reads back as added, whether it extended the chain,
 * closed it, or looks like a chain edge after it closed; with a reserve
 * that expected a longer chain than came, the tail array grows; and the
 * finished graph's structure holds.
 */
START_TEST(test_pag_chain_edges)
{
	static const uint32_t ends[][2] = {
		{ 0, 1 }, { 1, 2 }, { 2, 3 }, { 5, 6 },	/* the chain */
		{ 0, 5 },			/* closes it */
		{ 3, 4 },			/* chain-like, too late */
		{ 4, 5 }, { 1, 6 }, { 6, 7 },
	};
	const uint32_t n = sizeof(ends) / sizeof(ends[0]);
	char err[128];

	for (int reserve = 0; reserve < 2; reserve++) {
		struct cp_pag g;

		cp_pag_init(&g);
		for (uint32_t v = 0; v < 8; v++)
			cp_pag_add_vertex(&g);
		/* a reserve that expects seven chain edges: room for two
		 * tails, five needed */
		if (reserve)
			ck_assert_int_eq(cp_pag_reserve(&g, n, 7), 0);
		for (uint32_t e = 0; e < n; e++)
			ck_assert_uint_eq(cp_pag_add_edge(&g, ends[e][0],
							  ends[e][1], e + 1,
							  CP_PAG_NONE), e);
		ck_assert_uint_eq(g.nchain, 4);
		for (uint32_t e = 0; e < n; e++)
			TG_CHECK(cp_pag_tail(&g, e) == ends[e][0] &&
				 g.head[e] == ends[e][1] && g.w[e] == e + 1,
				 "reserve %d: edge %u reads %u->%u", reserve, e,
				 cp_pag_tail(&g, e), g.head[e]);
		ck_assert_int_eq(cp_pag_finish(&g, err, sizeof(err)), 0);
		check_structure(&g, reserve);
		cp_pag_free(&g);
	}
}
END_TEST

START_TEST(test_pag_large_chain)
{
	/* growth well past the initial capacities, and a long Kahn queue */
	struct cp_pag g;
	char err[128];
	uint32_t n = 200000;

	cp_pag_init(&g);
	for (uint32_t v = 0; v < n; v++)
		cp_pag_add_vertex(&g);
	ck_assert_int_eq(cp_pag_reserve(&g, n / 2, 0), 0);
	ck_assert_msg(g.cap_e == n / 2, "reserved %u, want exactly %u",
		      g.cap_e, n / 2);
	for (uint32_t v = n - 1; v > 0; v--)
		ck_assert_uint_eq(cp_pag_add_edge(&g, v - 1, v, v, v % 7),
				  n - 1 - v);
	ck_assert_int_eq(cp_pag_finish(&g, err, sizeof(err)), 0);
	for (uint32_t i = 0; i < n; i++)
		TG_CHECK(g.topo[i] == i, "topo[%u] = %u", i, g.topo[i]);
	check_structure(&g, 0);
	cp_pag_free(&g);
}
END_TEST

static Suite *pag_suite(void)
{
	Suite *s = suite_create("pag");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_pag_read_example);
	tcase_add_test(tc, test_pag_read_comments_and_unlabelled);
	tcase_add_test(tc, test_pag_read_malformed);
	tcase_add_test(tc, test_pag_read_cycle_names_its_line);
	tcase_add_test(tc, test_pag_read_missing_file);
	tcase_add_test(tc, test_pag_intern_equal_text_equal_id);
	tcase_add_test(tc, test_pag_build_and_cycle);
	tcase_add_test(tc, test_pag_random_structure);
	tcase_add_test(tc, test_pag_chain_edges);
	tcase_add_test(tc, test_pag_large_chain);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pag_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
