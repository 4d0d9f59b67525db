/*
 * check_rt_path.c - the online algorithm's arithmetic against brute force.
 *
 * Random runs of a few threads: each step a thread does useful work with a
 * random set of selected procedures running (cp_thread_advance), releases
 * an object (its path is published into the object's record) or acquires
 * one (the record is merged into its path, cp_path_merge).  Alongside, the
 * test builds the explicit program activity graph of the same run and
 * computes, by dynamic programming over it, the longest path, the share of
 * every procedure on it, and the longest path with each procedure's time
 * set to zero.  The online values must equal the graph's exactly.  A
 * record that cp_path_dominates() says cannot change the path, before the
 * thread advances, must not change it after.
 * Weights are random up to 2^40, so longest paths do not tie.
 */
#include <check.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cp_path.h"
#include "cp_runtime.h"
#include "cp_thread.h"

#define NT 3		/* threads */
#define NO 3		/* objects */
#define NP 3		/* selected procedures */
#define MAXV 4096

struct vtx {
	int pred_thread;	/* previous vertex of the thread, -1 */
	uint64_t w;		/* weight of that segment */
	unsigned procs;		/* bitmask of procedures running in it */
	int pred_dep;		/* publishing vertex merged here, -1 */
};

static struct vtx V[MAXV];
static int nv;

/* Longest path into each vertex with procedure @zero's time removed
 * (zero < 0: nothing removed); @share gets, per vertex, the procedure
 * times on one longest path. */
static void longest(int zero, uint64_t *len, uint64_t (*share)[NP])
{
	for (int v = 0; v < nv; v++) {
		uint64_t a = 0, b = 0;
		uint64_t sa[NP] = { 0 }, sb[NP] = { 0 };

		if (V[v].pred_thread >= 0) {
			int p = V[v].pred_thread;
			uint64_t w = (zero >= 0 && (V[v].procs >> zero & 1)) ?
				     0 : V[v].w;

			a = len[p] + w;
			for (int i = 0; i < NP; i++)
				sa[i] = share[p][i] +
					((V[v].procs >> i & 1) ? V[v].w : 0);
		}
		if (V[v].pred_dep >= 0) {
			b = len[V[v].pred_dep];
			memcpy(sb, share[V[v].pred_dep], sizeof(sb));
		}
		len[v] = b > a ? b : a;
		memcpy(share[v], b > a ? sb : sa, sizeof(sa));
	}
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void run_random(uint64_t seed, unsigned *ndom)
{
	uint64_t before[8 + 2 * NP];
	bool dom;
	static uint64_t len[MAXV], lenz[MAXV];
	static uint64_t share[MAXV][NP], sharez[MAXV][NP];
	uint64_t buf[NT + NO][8 + 2 * NP];
	struct cp_thread th[NT];
	struct cp_path *rec[NO];
	int rec_v[NO], last_v[NT];
	uint64_t clock[NT], cpu[NT][NP];
	unsigned running[NT];
	uint64_t s = seed * 2654435761u + 1;

	cp_rt.nsel = NP;
	atomic_store(&cp_rt.gen, 1);
	nv = 0;
	memset(th, 0, sizeof(th));
	memset(buf, 0, sizeof(buf));
	for (int t = 0; t < NT; t++) {
		th[t].path = (struct cp_path *)buf[t];
		th[t].proc_cpu = cpu[t];
		th[t].tid = (uint32_t)t;
		th[t].gen = 1;
		cp_path_clear(th[t].path, NP, 1, (uint32_t)t);
		memset(cpu[t], 0, sizeof(cpu[t]));
		clock[t] = 0;
		running[t] = 0;
		V[nv] = (struct vtx){ -1, 0, 0, -1 };
		last_v[t] = nv++;
	}
	for (int o = 0; o < NO; o++) {
		rec[o] = (struct cp_path *)buf[NT + o];
		rec_v[o] = -1;
	}
	while (nv < MAXV - 2) {
		int t = (int)(rnd(&s) % NT);
		int o = (int)(rnd(&s) % NO);
		uint64_t d = rnd(&s) % (1ull << 40);

		/* change the running procedures, then run for d */
		unsigned want = (unsigned)(rnd(&s) % (1u << NP));

		th[t].nactive = 0;
		for (int i = 0; i < NP; i++) {
			th[t].depth[i] = want >> i & 1;
			if (want >> i & 1)
				th[t].active[th[t].nactive++] = (uint8_t)i;
		}
		running[t] = want;
		/* whether the record cannot change the path, judged before
		 * the advance, as an acquire that skips the clock does */
		dom = rec_v[o] >= 0 &&
		      cp_path_dominates(th[t].path, rec[o], NP);
		clock[t] += d;
		cp_thread_advance(&th[t], clock[t]);
		V[nv] = (struct vtx){ last_v[t], d, running[t], -1 };
		last_v[t] = nv++;

		if (rnd(&s) & 1) {	/* release: publish */
			cp_path_copy(rec[o], th[t].path, NP);
			rec_v[o] = last_v[t];
		} else if (rec_v[o] >= 0) {	/* acquire: merge */
			memcpy(before, th[t].path, sizeof(before));
			cp_path_merge(th[t].path, rec[o], NP, 1);
			if (dom) {
				ck_assert_msg(!memcmp(before, th[t].path,
						      sizeof(before)),
					      "seed %" PRIu64 ": a dominated "
					      "record changed the path", seed);
				(*ndom)++;
			}
			V[nv] = (struct vtx){ last_v[t], 0, 0, rec_v[o] };
			last_v[t] = nv++;
		}
	}

	/* program end: merge every thread */
	uint64_t endbuf[8 + 2 * NP];
	struct cp_path *end = (struct cp_path *)endbuf;

	cp_path_clear(end, NP, 1, CP_PATH_MIXED);
	for (int t = 0; t < NT; t++)
		cp_path_merge(end, th[t].path, NP, 1);

	longest(-1, len, share);
	uint64_t best = 0;
	int bv = 0;

	for (int t = 0; t < NT; t++)
		if (len[last_v[t]] > best) {
			best = len[last_v[t]];
			bv = last_v[t];
		}
	ck_assert_msg(end->len == best, "seed %" PRIu64 ": online CP %" PRIu64
		      " != graph %" PRIu64, seed, end->len, best);
	for (int i = 0; i < NP; i++) {
		uint64_t bz = 0;

		ck_assert_msg(cp_path_share(end)[i] == share[bv][i],
			      "seed %" PRIu64 ": share[%d] online %" PRIu64
			      " graph %" PRIu64, seed, i, cp_path_share(end)[i],
			      share[bv][i]);
		longest(i, lenz, sharez);
		for (int t = 0; t < NT; t++)
			if (lenz[last_v[t]] > bz)
				bz = lenz[last_v[t]];
		ck_assert_msg(end->len - cp_path_z(end, NP)[i] == bz,
			      "seed %" PRIu64 ": net[%d] online %" PRIu64
			      " graph %" PRIu64, seed, i,
			      end->len - cp_path_z(end, NP)[i], bz);
	}
}

START_TEST(test_path_matches_graph_random)
{
	unsigned ndom = 0;

	for (uint64_t seed = 1; seed <= 200; seed++)
		run_random(seed, &ndom);
	/* the skipped merges were tried, and many */
	ck_assert_msg(ndom > 1000, "%u dominated acquires", ndom);
}
END_TEST

/* [Hollingsworth98, Fig. 4] in miniature: zeroing keeps the longer remote net.
 * */
START_TEST(test_path_merge_zeroing_by_net)
{
	uint64_t a[4] = { 0 }, b[4] = { 0 };
	struct cp_path *pa = (struct cp_path *)a, *pb = (struct cp_path *)b;

	cp_rt.nsel = 1;
	/* local: len 10, all of it in procedure 0 (net 0) */
	cp_path_clear(pa, 1, 1, 0);
	pa->len = 10;
	cp_path_share(pa)[0] = 10;
	cp_path_z(pa, 1)[0] = 10;
	/* remote: len 8, none of it in procedure 0 (net 8) */
	cp_path_clear(pb, 1, 1, 1);
	pb->len = 8;
	ck_assert_uint_eq(cp_path_merge(pa, pb, 1, 1), 0);
	ck_assert_msg(pa->len == 10 && cp_path_share(pa)[0] == 10,
		      "len %" PRIu64 " share %" PRIu64, pa->len,
		      cp_path_share(pa)[0]);
	ck_assert_msg(pa->len - cp_path_z(pa, 1)[0] == 8,
		      "net %" PRIu64 ", want 8", pa->len - cp_path_z(pa, 1)[0]);
	/* a record of another generation carries nothing */
	pb->gen = 7;
	pb->len = 100;
	ck_assert_uint_eq(cp_path_merge(pa, pb, 1, 1), 0);
	ck_assert_uint_eq(pa->len, 10);
}
END_TEST

static Suite *path_suite(void)
{
	Suite *s = suite_create("rt_path");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_path_matches_graph_random);
	tcase_add_test(tc, test_path_merge_zeroing_by_net);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(path_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
