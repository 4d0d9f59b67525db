/*
 * check_par.c - the passes that run on two threads (cp_par.h) give what
 * they give on one: a graph's adjacency and topological order, and the
 * critical path method's times, length and path, on random DAGs and
 * trace-shaped graphs; and the trace reader's decoding, on the fuzz
 * corpus and damaged copies of it, repairs and messages included; with
 * the threshold at 0 (always two threads) against SIZE_MAX (never).
 */
#include <check.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_cpm.h"
#include "cp_pag.h"
#include "cp_par.h"
#include "cp_testgraph.h"
#include "cp_trace.h"

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
	uint64_t *root = malloc(sizeof(*root) * (nv / 64 + 1));
	uint32_t *topo = malloc(sizeof(*topo) * (nv + 1));
	struct cp_cpm one, two;

	finish_and_run(g, SIZE_MAX, &one);
	memcpy(oo, g->out_off, sizeof(*oo) * (nv + 1));
	memcpy(oe, g->out_e, sizeof(*oe) * ne);
	memcpy(root, g->root, sizeof(*root) * (nv / 64 + 1));
	memcpy(topo, g->topo, sizeof(*topo) * nv);
	finish_and_run(g, 0, &two);
	SAME(oo, g->out_off, nv + 1, "out_off");
	SAME(oe, g->out_e, ne, "out_e");
	SAME(root, g->root, nv / 64 + 1, "root");
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
	free(root);
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

/* Parse @len bytes at @buf with the threshold @thr. */
static int parse_with(struct cp_trace *t, const uint8_t *buf, size_t len,
		      unsigned flags, size_t thr, char *err, size_t errlen)
{
	size_t old = cp_par_set_threshold(thr);
	int r = cp_trace_parse_flags(t, "t.cpt", buf, len, flags, err,
				     errlen);

	cp_par_set_threshold(old);
	return r;
}

/* Two parses of one input agree on everything the reader decides. */
static void same_trace(const struct cp_trace *a, const struct cp_trace *b,
		       const char *what)
{
	ck_assert_msg(a->nthreads == b->nthreads && a->nobjs == b->nobjs &&
		      a->npub == b->npub && a->nvertices == b->nvertices &&
		      a->nrepairs == b->nrepairs &&
		      a->has_startstop == b->has_startstop &&
		      !strcmp(a->repair_why, b->repair_why), "%s: tables or "
		      "repairs differ ('%s' vs '%s')", what, a->repair_why,
		      b->repair_why);
	for (uint32_t tid = 0; tid < a->nthreads; tid++) {
		const struct cp_trace_thread *x = &a->threads[tid];
		const struct cp_trace_thread *y = &b->threads[tid];

		ck_assert_msg(x->nv == y->nv && x->parent == y->parent &&
			      x->exit_v == y->exit_v &&
			      x->create_v == y->create_v,
			      "%s: thread %u differs", what, tid);
		for (uint32_t i = 0; i < x->nv; i++)
			ck_assert_msg(x->v[i].ts == y->v[i].ts &&
				      x->a[i].arg == y->a[i].arg &&
				      x->v[i].obj == y->v[i].obj &&
				      x->a[i].cnt == y->a[i].cnt &&
				      x->v[i].op == y->v[i].op &&
				      (!x->wall || x->wall[i] == y->wall[i]),
				      "%s: thread %u vertex %u differs", what,
				      tid, i);
	}
	for (uint32_t o = 0; o < a->nobjs; o++)
		ck_assert_msg(a->objs[o].kind == b->objs[o].kind &&
			      a->objs[o].addr == b->objs[o].addr &&
			      a->objs[o].untracked == b->objs[o].untracked &&
			      a->objs[o].npub == b->objs[o].npub,
			      "%s: object %u differs", what, o);
}

/* One input, strict and salvaging, with one thread and two. */
static void compare_parse(const uint8_t *buf, size_t len, const char *what)
{
	for (unsigned flags = 0; flags < 2; flags++) {
		char e1[256] = "", e2[256] = "";
		struct cp_trace one, two;
		int r1 = parse_with(&one, buf, len, flags, SIZE_MAX, e1,
				    sizeof(e1));
		int r2 = parse_with(&two, buf, len, flags, 0, e2, sizeof(e2));

		ck_assert_msg(r1 == r2 && !strcmp(e1, e2), "%s: '%s' vs '%s'",
			      what, e1, e2);
		if (!r1)
			same_trace(&one, &two, what);
		if (!r1)
			cp_trace_free(&one);
		if (!r2)
			cp_trace_free(&two);
	}
}

START_TEST(test_par_trace_decoding_agrees)
{
	static const char *const dirs[] = {
		CP_SOURCE_DIR "/tests/fuzz/corpus/trace",
		CP_SOURCE_DIR "/tests/fuzz/regress/trace",
	};
	unsigned nfiles = 0;

	tg_seed(99);
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		DIR *dir = opendir(dirs[d]);
		struct dirent *de;

		ck_assert_msg(dir != NULL, "%s", dirs[d]);
		while ((de = readdir(dir))) {
			char path[1024];
			uint8_t *buf;
			size_t len;
			FILE *f;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[d],
				 de->d_name);
			f = fopen(path, "rb");
			ck_assert(f != NULL);
			buf = malloc(1 << 22);
			len = fread(buf, 1, 1 << 22, f);
			fclose(f);
			compare_parse(buf, len, path);
			/* damaged copies: a few bytes of the events changed */
			for (int k = 0; k < 30 && len > 200; k++) {
				uint8_t *m = malloc(len);

				memcpy(m, buf, len);
				for (int j = 0; j < 1 + k % 3; j++)
					m[100 + tg_below((uint32_t)len - 100)] =
						(uint8_t)tg_rand();
				compare_parse(m, len, path);
				free(m);
			}
			free(buf);
			nfiles++;
		}
		closedir(dir);
	}
	ck_assert_msg(nfiles >= 10, "only %u traces", nfiles);
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
	tcase_add_test(tc, test_par_trace_decoding_agrees);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
