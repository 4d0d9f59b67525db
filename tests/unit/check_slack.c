/*
 * check_slack.c - the Slack metric ([HollingsworthMiller94]) on small graphs
 * whose answers were worked out by hand, and against brute force on random
 * graphs: the group's critical-path edges reduced one unit at a time, left to
 * right, while the run shortens by exactly as much; and, on tiny cases, every
 * possible reduction tried; on barrier-synchronised graphs, where it runs block
 * by block between the critical path's cuts.
 */
#include <check.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_slack.h"
#include "cp_twins.h"
#include "cp_zero.h"
#include "cp_testgraph.h"

/*
 * Build from "TAIL HEAD WEIGHT LABEL" quadruples over vertices 0..nv-1;
 * labels are interned in order of first use.
 */
struct hedge {
	uint32_t t, h;
	uint64_t w;
	const char *label;
};

static void build(struct cp_pag *g, uint32_t nv, const struct hedge *es,
		  size_t n)
{
	char err[128];

	cp_pag_init(g);
	for (uint32_t v = 0; v < nv; v++)
		cp_pag_add_vertex(g);
	for (size_t i = 0; i < n; i++)
		cp_pag_add_edge(g, es[i].t, es[i].h, es[i].w,
				cp_pag_intern(g, es[i].label));
	ck_assert_int_eq(cp_pag_finish(g, err, sizeof(err)), 0);
}

/* Slack of every label of @g, checked against @want (by label name). */
static void expect(const struct cp_pag *g, const char *const *names,
		   const uint64_t *want, size_t n, const char *what)
{
	struct cp_cpm c;
	struct cp_groups gr = { .n = g->nlabels, .of = g->label };
	uint64_t *slack = calloc(g->nlabels, sizeof(*slack));

	ck_assert_int_eq(cp_cpm_run(&c, g, NULL), 0);
	ck_assert_int_eq(cp_slack_all(&c, &gr, NULL, slack), 0);
	for (size_t i = 0; i < n; i++) {
		uint32_t id = cp_pag_intern((struct cp_pag *)g, names[i]);

		ck_assert_msg(slack[id] == want[i], "%s: Slack(%s) = %" PRIu64
			      ", want %" PRIu64, what, names[i], slack[id],
			      want[i]);
	}
	free(slack);
	cp_cpm_free(&c);
}

START_TEST(test_slack_one_segment)
{
	/* CP s-a-t (P 5, Q 5) = 10; bypass s->t 7: 3 of slack over both */
	static const struct hedge es[] = {
		{ 0, 1, 5, "P" }, { 1, 2, 5, "Q" }, { 0, 2, 7, "X" },
	};
	static const char *names[] = { "P", "Q", "X" };
	static const uint64_t want[] = { 3, 3, 0 };
	struct cp_pag g;

	build(&g, 3, es, 3);
	expect(&g, names, want, 3, "one segment");
	cp_pag_free(&g);
}
END_TEST

START_TEST(test_slack_overlapping_segments)
{
	/*
	 * CP c0-c1-c2-c3: P 10, Q 10, P 10 (30).  Segments c0->c2 (17:
	 * slack 3) and c1->c3 (18: slack 2).  P: first call takes 3 (segment
	 * c0-c2), second call 2 (segment c1-c3 still has 2): 5.  Q lies in
	 * both: min(3, 2) = 2.  The paper's Figure 3 table has this shape.
	 */
	static const struct hedge es[] = {
		{ 0, 1, 10, "P" }, { 1, 2, 10, "Q" }, { 2, 3, 10, "P" },
		{ 0, 2, 17, "X" }, { 1, 3, 18, "Y" },
	};
	static const char *names[] = { "P", "Q", "X", "Y" };
	static const uint64_t want[] = { 5, 2, 0, 0 };
	struct cp_pag g;

	build(&g, 4, es, 5);
	expect(&g, names, want, 4, "overlapping segments");
	cp_pag_free(&g);
}
END_TEST

START_TEST(test_slack_other_roots_and_leaves)
{
	/*
	 * CP s-a-t: P 10, Q 10 (20).  Another root r->a 8 merges at a
	 * (virtual start to a: slack 2, over P only); s->u 15 ends at
	 * another leaf (slack 5 over the whole CP).  P: min(10, 2, 5) = 2;
	 * Q: 5.
	 */
	static const struct hedge es[] = {
		{ 0, 1, 10, "P" }, { 1, 2, 10, "Q" }, { 3, 1, 8, "R" },
		{ 0, 4, 15, "S" },
	};
	static const char *names[] = { "P", "Q", "R", "S" };
	static const uint64_t want[] = { 2, 5, 0, 0 };
	struct cp_pag g;

	build(&g, 5, es, 4);
	expect(&g, names, want, 4, "virtual start and end");
	cp_pag_free(&g);
}
END_TEST

START_TEST(test_slack_offpath_merge)
{
	/*
	 * CP c0-c1-c2-c3: P 10, N 10, P 10 (30).  Off vertex b fed by c0 (9)
	 * and c1 (1), feeding c2 (8) and c3 (15).  Segments: c0-c2 3, c0-c3
	 * 6, c1-c2 1, c1-c3 4.  P: first call min(3, 6) = 3; second call:
	 * c0-c3 has 6-3 = 3 left, c1-c3 4: 3.  Total 6.  N: min of all four
	 * = 1.  Two paths meet off the CP at b, the case the paper's
	 * message passing handles by keeping the longer one.
	 */
	static const struct hedge es[] = {
		{ 0, 1, 10, "P" }, { 1, 2, 10, "N" }, { 2, 3, 10, "P" },
		{ 0, 4, 9, "X" },  { 1, 4, 1, "X" },  { 4, 2, 8, "X" },
		{ 4, 3, 15, "X" },
	};
	static const char *names[] = { "P", "N", "X" };
	static const uint64_t want[] = { 6, 1, 0 };
	struct cp_pag g;

	build(&g, 5, es, 7);
	expect(&g, names, want, 3, "off-path merge");
	cp_pag_free(&g);
}
END_TEST

START_TEST(test_slack_parallel_edge_and_tie)
{
	/*
	 * c0-c1 twice: P 6 (on the CP) and X 4 in parallel, then Q 3.  P can
	 * lose 2 before X takes over.  A second equally long path (tie, Y 9)
	 * leaves no slack at all for anything on the chosen CP.
	 */
	static const struct hedge es[] = {
		{ 0, 1, 6, "P" }, { 0, 1, 4, "X" }, { 1, 2, 3, "Q" },
	};
	static const char *n1[] = { "P", "Q" };
	static const uint64_t w1[] = { 2, 3 };
	static const struct hedge es2[] = {
		{ 0, 1, 6, "P" }, { 0, 1, 4, "X" }, { 1, 2, 3, "Q" },
		{ 0, 2, 9, "Y" },
	};
	static const uint64_t w2[] = { 0, 0 };
	struct cp_pag g;

	build(&g, 3, es, 3);
	expect(&g, n1, w1, 2, "parallel edge");
	cp_pag_free(&g);
	build(&g, 3, es2, 4);
	expect(&g, n1, w2, 2, "tied path");
	cp_pag_free(&g);
}
END_TEST

/* Longest path with weights @w (reference: the CPM's forward pass). */
static uint64_t longest(const struct cp_pag *g, const uint64_t *w)
{
	uint64_t *et = malloc(sizeof(*et) * (g->nv + 1));
	uint64_t len = cp_cpm_longest(g, w, et);

	free(et);
	return len;
}

/* Left to right, one unit at a time, while the run shrinks as much. */
static uint64_t brute_stepwise(const struct cp_cpm *c,
			       const struct cp_groups *gr, uint32_t gid)
{
	const struct cp_pag *g = c->g;
	uint64_t *w = malloc(sizeof(*w) * (g->ne + 1)), total = 0;

	memcpy(w, c->w, sizeof(*w) * g->ne);
	for (uint32_t p = 0; p < c->npath; p++) {
		uint32_t e = c->path[p];

		if (!cp_groups_has(gr, e, gid))
			continue;
		while (w[e] > 0) {
			w[e]--;
			if (longest(g, w) != c->length - total - 1) {
				w[e]++;
				break;
			}
			total++;
		}
	}
	free(w);
	return total;
}

/* Every reduction vector of the group's CP edges (tiny cases only). */
static uint64_t brute_exhaustive(const struct cp_cpm *c,
				 const struct cp_groups *gr, uint32_t gid,
				 bool *done)
{
	const struct cp_pag *g = c->g;
	uint32_t idx[16], n = 0;
	uint64_t x[16] = { 0 }, combos = 1, best = 0;
	uint64_t *w = malloc(sizeof(*w) * (g->ne + 1));

	*done = false;
	for (uint32_t p = 0; p < c->npath; p++)
		if (cp_groups_has(gr, c->path[p], gid) && n < 16)
			idx[n++] = c->path[p];
	for (uint32_t i = 0; i < n; i++)
		combos *= c->w[idx[i]] + 1;
	if (combos > 4000) {
		free(w);
		return 0;
	}
	for (;;) {
		uint64_t sum = 0;
		uint32_t i;

		memcpy(w, c->w, sizeof(*w) * g->ne);
		for (i = 0; i < n; i++) {
			w[idx[i]] -= x[i];
			sum += x[i];
		}
		if (sum > best && longest(g, w) == c->length - sum)
			best = sum;
		for (i = 0; i < n; i++) {
			if (x[i] < c->w[idx[i]]) {
				x[i]++;
				break;
			}
			x[i] = 0;
		}
		if (i == n)
			break;
	}
	free(w);
	*done = true;
	return best;
}

static void random_round(int round, bool inclusive, bool pagshape,
			 uint32_t *exhaustive)
{
	struct cp_pag g;
	struct cp_cpm c;
	struct cp_groups gr;
	struct cp_slack_ws *ws;
	uint32_t *off = NULL, *ids = NULL, n = 0;
	uint64_t slack[4], newlen[4], cpt[4];

	tg_seed((inclusive ? 31000 : 30000) + round);
	if (pagshape)
		ck_assert_int_eq(tg_pagshape(&g, 2 + tg_below(4),
					     2 + tg_below(10), tg_below(20),
					     round % 4 ? 9 : 2, 4), 0);
	else
		ck_assert_int_eq(tg_random(&g, 3 + tg_below(9),
					   2 + tg_below(24), round % 4 ? 6 : 2,
					   4), 0);
	gr = (struct cp_groups){ .n = 4, .of = g.label };
	if (inclusive) {
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
	ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
	ck_assert_int_eq(cp_slack_all(&c, &gr, NULL, slack), 0);
	ck_assert_int_eq(cp_zero_all(&c, &gr, NULL, newlen), 0);
	cp_cpm_group_time(&c, &gr, cpt);
	ws = cp_slack_ws_new(&c);
	for (uint32_t i = 0; i < 4; i++) {
		uint64_t step = brute_stepwise(&c, &gr, i), ex;
		bool done;

		TG_CHECK(slack[i] == step, "round %d%s: Slack(g%u) = %" PRIu64
			 ", stepwise reduction gives %" PRIu64, round,
			 inclusive ? " inclusive" : "", i, slack[i], step);
		TG_CHECK(cp_slack_group(ws, &gr, i) == slack[i],
			 "round %d: single-group call differs", round);
		TG_CHECK(slack[i] <= c.length - newlen[i] &&
			 c.length - newlen[i] <= cpt[i],
			 "round %d: g%u Slack %" PRIu64 " <= zeroing %" PRIu64
			 " <= CP time %" PRIu64 " violated", round, i,
			 slack[i], c.length - newlen[i], cpt[i]);
		ex = brute_exhaustive(&c, &gr, i, &done);
		if (done) {
			(*exhaustive)++;
			TG_CHECK(slack[i] == ex, "round %d%s: Slack(g%u) = %"
				 PRIu64 ", best of all reductions %" PRIu64,
				 round, inclusive ? " inclusive" : "", i,
				 slack[i], ex);
		}
	}
	cp_slack_ws_free(ws);
	free(off);
	free(ids);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}

/*
 * More groups than a walk has lanes (32): each edge of a PAG-shaped graph
 * in about a third of 40 groups, so nearly every group has CP time in a
 * block and the groups take two walks, the first with every lane.  Slack
 * and zeroing of each against the stepwise reduction and the longest path
 * recomputed with the group at zero.
 */
/* Groups 0..@ng-1 of @g's edges, each edge in about a third of them,
 * at random (tg_below): the CSR arrays into *@off, *@ids (the caller
 * frees them). */
static struct cp_groups random_groups(const struct cp_pag *g, uint32_t ng,
				      uint32_t **off, uint32_t **ids)
{
	uint32_t n = 0;

	*off = malloc(sizeof(**off) * (g->ne + 1));
	*ids = malloc(sizeof(**ids) * ((size_t)ng * g->ne + 1));
	for (uint32_t e = 0; e < g->ne; e++) {
		(*off)[e] = n;
		for (uint32_t i = 0; i < ng; i++)
			if (tg_below(3) == 0)
				(*ids)[n++] = i;
	}
	(*off)[g->ne] = n;
	return (struct cp_groups){ .n = ng, .off = *off, .ids = *ids };
}

START_TEST(test_slack_more_groups_than_lanes)
{
	enum { NG = 40 };

	for (int round = 0; round < 30; round++) {
		struct cp_pag g;
		struct cp_cpm c;
		struct cp_groups gr;
		uint32_t *off, *ids, busy = 0;
		uint64_t slack[NG], newlen[NG], cpt[NG], *z;

		tg_seed(32000 + round);
		ck_assert_int_eq(tg_pagshape(&g, 2 + tg_below(3),
					     6 + tg_below(10), tg_below(12), 9,
					     1), 0);
		gr = random_groups(&g, NG, &off, &ids);
		ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
		ck_assert_int_eq(cp_slack_all(&c, &gr, NULL, slack), 0);
		ck_assert_int_eq(cp_zero_all(&c, &gr, NULL, newlen), 0);
		cp_cpm_group_time(&c, &gr, cpt);
		z = malloc(sizeof(*z) * (g.ne + 1));
		for (uint32_t i = 0; i < NG; i++) {
			uint64_t step = brute_stepwise(&c, &gr, i), want;

			for (uint32_t e = 0; e < g.ne; e++)
				z[e] = cp_groups_has(&gr, e, i) ? 0 : g.w[e];
			want = longest(&g, z);
			busy += cpt[i] > 0;
			TG_CHECK(slack[i] == step, "round %d: Slack(g%u) = %"
				 PRIu64 ", stepwise reduction gives %" PRIu64,
				 round, i, slack[i], step);
			TG_CHECK(newlen[i] == want, "round %d: zeroing g%u: %"
				 PRIu64 ", recomputed %" PRIu64, round, i,
				 newlen[i], want);
		}
		TG_CHECK(busy > 32, "round %d: only %u groups on C", round,
			 busy);
		free(z);
		free(off);
		free(ids);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
}
END_TEST

static void lockstep(struct cp_pag *g, uint32_t nt, uint32_t len,
		     uint32_t gap);

/* cp_slack_help_run on a thread of its own. */
static void *help_thread(void *arg)
{
	return (void *)(intptr_t)cp_slack_help_run(arg);
}

/*
 * Slack with a helper that takes lanes over as soon as it waits (every 16
 * positions, however few are left): the same as walked by one thread, on
 * graphs of 40 groups (two walks of a block, the first one full) and on
 * lock-step graphs whose segment heaps are compacted many times; lanes
 * are handed over many times, a helper's part sometimes ending after the
 * walk that handed it.  The walks start once the helper waits, so the
 * first block of a walk hands lanes over however the threads are
 * scheduled (the walk then waits for the helper at each block's end, and
 * finds it waiting again at the next block's start).
 */
START_TEST(test_slack_handed_over_lanes)
{
	size_t old = cp_slack_set_fork_min(0);
	uint32_t parts = 0;

	for (int round = 0; round < 24; round++) {
		enum { NG = 40 };
		struct cp_pag g;
		struct cp_cpm c;
		struct cp_cuts k;
		struct cp_groups gr;
		struct cp_slack_help *h = cp_slack_help_new();
		uint32_t *off = NULL, *ids = NULL, ng;
		uint64_t want[NG], got[NG];
		pthread_t th;
		void *hr;

		tg_seed(51000 + round);
		if (round % 3 == 2) {
			lockstep(&g, 64 + 16 * tg_below(4), 200, 7);
			ng = 6;
			gr = (struct cp_groups){ .n = ng, .of = g.label };
		} else {
			ck_assert_int_eq(tg_pagshape(&g, 2 + tg_below(3),
						     40 + tg_below(40),
						     tg_below(12), 9, 1), 0);
			ng = NG;
			gr = random_groups(&g, ng, &off, &ids);
		}
		ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
		ck_assert_int_eq(cp_slack_all(&c, &gr, NULL, want), 0);
		ck_assert_int_eq(cp_cuts_find(&k, &c), 0);
		ck_assert_int_eq(pthread_create(&th, NULL, help_thread, h), 0);
		while (!cp_slack_help_idle(h))	/* not a race with its start */
			sched_yield();
		ck_assert_int_eq(cp_slack_blocks_help(&k, &gr, NULL, got, h),
				 0);
		ck_assert_int_eq(pthread_join(th, &hr), 0);
		ck_assert_int_eq((int)(intptr_t)hr, 0);
		for (uint32_t i = 0; i < ng; i++)
			TG_CHECK(got[i] == want[i], "round %d: Slack(g%u) %"
				 PRIu64 " with a helper, %" PRIu64 " without",
				 round, i, got[i], want[i]);
		parts += cp_slack_help_parts(h);
		cp_slack_help_free(h);
		cp_cuts_free(&k);
		free(off);
		free(ids);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
	cp_slack_set_fork_min(old);
	ck_assert_msg(parts > 24, "lanes handed over only %u times", parts);
}
END_TEST

START_TEST(test_slack_random_brute_force)
{
	uint32_t exhaustive = 0;

	for (int round = 0; round < 400; round++)
		random_round(round, false, round % 2, &exhaustive);
	ck_assert_msg(exhaustive > 200, "only %u exhaustive comparisons",
		      exhaustive);
}
END_TEST

START_TEST(test_slack_random_inclusive_groups)
{
	uint32_t exhaustive = 0;

	for (int round = 0; round < 400; round++)
		random_round(round, true, round % 2, &exhaustive);
	ck_assert_msg(exhaustive > 200, "only %u exhaustive comparisons",
		      exhaustive);
}
END_TEST

/*
 * A trace-like PAG: @nt threads in lockstep, a barrier hub every @gap
 * events.  Segment i weighs the same 1..3 in every thread; the first one
 * of an interval also gets an extra that is a different 0..nt-1 for every
 * thread (a permutation that changes per interval), so each interval has
 * one critical thread and every other thread a distinct slack below nt:
 * nearly every segment is a live Slack segment, and the one that binds is
 * unique.  Labels 0..5 at random, one in four unlabelled.
 */
static void lockstep(struct cp_pag *g, uint32_t nt, uint32_t len,
		     uint32_t gap)
{
	uint32_t *cur = malloc(sizeof(*cur) * nt), s, hub;
	char err[128];

	cp_pag_init(g);
	tg_labels(g, 6);
	s = cp_pag_add_vertex(g);
	for (uint32_t t = 0; t < nt; t++) {
		cur[t] = cp_pag_add_vertex(g);
		cp_pag_add_edge(g, s, cur[t], 0, CP_PAG_NONE);
	}
	for (uint32_t i = 0; i < len; i++) {
		uint64_t w = 1 + tg_below(3);

		for (uint32_t t = 0; t < nt; t++) {
			uint32_t v = cp_pag_add_vertex(g), lab = tg_below(8);
			uint64_t extra = i % gap ? 0 :
				(t * 7919u + (i / gap) * 131u) % nt;

			cp_pag_add_edge(g, cur[t], v, w + extra,
					lab < 6 ? lab : CP_PAG_NONE);
			cur[t] = v;
		}
		if ((i + 1) % gap)
			continue;
		hub = cp_pag_add_vertex(g);
		for (uint32_t t = 0; t < nt; t++)
			cp_pag_add_edge(g, cur[t], hub, 0, CP_PAG_NONE);
		for (uint32_t t = 0; t < nt; t++) {
			uint32_t v = cp_pag_add_vertex(g);

			cp_pag_add_edge(g, hub, v, 0, CP_PAG_NONE);
			cur[t] = v;
		}
	}
	free(cur);
	ck_assert_int_eq(cp_pag_finish(g, err, sizeof(err)), 0);
}

/*
 * Two threads sweeping over @ncell locks, one per cell of a grid, for
 * @rounds rounds, one from the first cell up and the other from the last
 * down: each take of a cell depends on the cell's last release, which
 * the other thread made about @ncell vertices before (or the same thread
 * a round before).  Segments weigh 1..9 at random, labels 0..5 (one in
 * four unlabelled).  Walking back, hundreds of those hand-overs are alive
 * at once, as a water simulation's cell locks keep.
 */
static void grid_locks(struct cp_pag *g, uint32_t ncell, uint32_t rounds)
{
	uint32_t *held = malloc(sizeof(*held) * ncell), cur[2], s;
	char err[128];

	cp_pag_init(g);
	tg_labels(g, 6);
	s = cp_pag_add_vertex(g);
	for (uint32_t t = 0; t < 2; t++) {
		cur[t] = cp_pag_add_vertex(g);
		cp_pag_add_edge(g, s, cur[t], 0, CP_PAG_NONE);
	}
	for (uint32_t i = 0; i < ncell; i++)
		held[i] = UINT32_MAX;
	for (uint32_t r = 0; r < rounds; r++)
		for (uint32_t j = 0; j < 2 * ncell; j++) {
			uint32_t t = j % 2, i = t ? ncell - 1 - j / 2 : j / 2;
			uint32_t v = cp_pag_add_vertex(g), lab = tg_below(8);

			cp_pag_add_edge(g, cur[t], v, 1 + tg_below(9),
					lab < 6 ? lab : CP_PAG_NONE);
			if (held[i] != UINT32_MAX)
				cp_pag_add_edge(g, held[i], v, 0, CP_PAG_NONE);
			held[i] = cur[t] = v;
		}
	free(held);
	ck_assert_int_eq(cp_pag_finish(g, err, sizeof(err)), 0);
}

/*
 * Trace-like graphs on which the live segments outgrow the plain list
 * (64 to 208 threads) and the segment heap fills and is compacted many
 * times (thousands of pushes, a few dozen alive), with groups whose CP
 * edges are sparse (pushes limited to the queries that count): against
 * the stepwise brute force, every group.  The last round sweeps 2,500
 * cell locks (grid_locks()): up to 470 segments alive at once, a
 * staircase of three blocks (cp_stair.h).
 */
START_TEST(test_slack_lockstep_compacted_heap)
{
	for (int round = 0; round < 5; round++) {
		struct cp_pag g;
		struct cp_cpm c;
		struct cp_groups gr;
		struct cp_slack_ws *ws;
		uint64_t slack[6], total = 0;

		tg_seed(33000 + round);
		if (round < 4)
			lockstep(&g, 64 + 48 * round, 150, 5 + round);
		else
			grid_locks(&g, 2500, 3);
		gr = (struct cp_groups){ .n = 6, .of = g.label };
		ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
		ck_assert_int_eq(cp_slack_all(&c, &gr, NULL, slack), 0);
		ws = cp_slack_ws_new(&c);
		for (uint32_t i = 0; i < 6; i++) {
			uint64_t step = brute_stepwise(&c, &gr, i);

			TG_CHECK(slack[i] == step, "round %d (%u edges): "
				 "Slack(g%u) = %" PRIu64 ", stepwise "
				 "reduction gives %" PRIu64, round, g.ne, i,
				 slack[i], step);
			TG_CHECK(cp_slack_group(ws, &gr, i) == slack[i],
				 "round %d: single-group call differs", round);
			total += slack[i];
		}
		TG_CHECK(total > 0, "round %d: every Slack is 0 (the graph "
			 "tests nothing)", round);
		cp_slack_ws_free(ws);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
}
END_TEST

/*
 * Slack block by block (cp_cuts.c) on small barrier-synchronised graphs,
 * tie heavy, with zero-weight and weighted edges over barriers, against
 * the stepwise and (when small enough) exhaustive brute force on the whole
 * graph; groups one per edge, per class and per edge (several).
 */
START_TEST(test_slack_blocks_barrier_graphs)
{
	uint32_t cut = 0, exhaustive = 0, partial = 0;

	for (int round = 0; round < 300; round++) {
		struct cp_pag g;
		struct cp_cpm c;
		struct cp_cuts k;
		struct cp_groups forms[3];
		struct cp_slack_ws *ws;
		uint64_t slack[4], newlen[4], cpt[4];

		tg_seed(55000 + round);
		ck_assert_int_eq(tg_barriers(&g, 1 + tg_below(3),
					     1 + tg_below(5), 1 + tg_below(5),
					     round % 3 ? 2 : 1, 4, tg_below(4),
					     tg_below(6), round % 4 ? 0 : 1),
				 0);
		ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
		ck_assert_int_eq(cp_cuts_find(&k, &c), 0);
		cut += k.nb > 2;
		forms[0] = (struct cp_groups){ .n = 4, .of = g.label };
		tg_classes(&g, 4, 5, &forms[1], &forms[2]);
		ws = cp_slack_ws_new(&c);
		for (int f = 0; f < 3; f++) {
			ck_assert_int_eq(cp_slack_all(&c, &forms[f], NULL,
						      slack), 0);
			ck_assert_int_eq(cp_zero_all(&c, &forms[f], NULL,
						     newlen), 0);
			cp_cpm_group_time(&c, &forms[f], cpt);
			for (uint32_t i = 0; i < 4; i++) {
				/* brute force on the spelled-out lists the
				 * class form stands for */
				const struct cp_groups *truth =
					&forms[f == 1 ? 2 : f];
				uint64_t step = brute_stepwise(&c, truth, i),
					 ex;
				bool done;

				TG_CHECK(slack[i] == step, "round %d form %d "
					 "(%u blocks): Slack(g%u) = %" PRIu64
					 ", stepwise reduction gives %" PRIu64,
					 round, f, k.nb, i, slack[i], step);
				TG_CHECK(cp_slack_group(ws, &forms[f], i) ==
					 slack[i], "round %d form %d: single-"
					 "group call differs", round, f);
				TG_CHECK(slack[i] <= c.length - newlen[i] &&
					 c.length - newlen[i] <= cpt[i],
					 "round %d form %d: g%u Slack %" PRIu64
					 " <= zeroing %" PRIu64 " <= CP time %"
					 PRIu64 " violated", round, f, i,
					 slack[i], c.length - newlen[i],
					 cpt[i]);
				partial += slack[i] && slack[i] < cpt[i];
				ex = brute_exhaustive(&c, truth, i, &done);
				if (!done)
					continue;
				exhaustive++;
				TG_CHECK(slack[i] == ex, "round %d form %d: "
					 "Slack(g%u) = %" PRIu64 ", best of "
					 "all reductions %" PRIu64, round, f,
					 i, slack[i], ex);
			}
		}
		cp_slack_ws_free(ws);
		tg_groups_free(&forms[1], &forms[2]);
		cp_cuts_free(&k);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
	ck_assert_msg(cut > 150 && exhaustive > 1000 && partial > 300,
		      "%u of 300 graphs with two cuts or more, %u exhaustive "
		      "comparisons, %u Slacks strictly between 0 and the CP "
		      "time: the test checks little", cut, exhaustive,
		      partial);
}
END_TEST

/*
 * Twins: groups that own the same C edges walk once (cp_slack.c).  Per
 * round, on a random graph: g0 a third of the edges; g1 g0's C edges and
 * other edges off C (its zeroing differs, its Slack must not); g2 as
 * many of C's edges as g0 but not the same ones where that is possible
 * (a twin by count alone would take g0's Slack); g3 g1 again.  Each
 * group's Slack against the stepwise reduction and the single-group
 * walk, which has no twins; the twins must have been left out.
 */
START_TEST(test_slack_twin_groups)
{
	uint64_t skipped = cp_twins_total();
	uint32_t differ = 0;

	for (int round = 0; round < 200; round++) {
		struct cp_pag g;
		struct cp_cpm c;
		struct cp_groups gr;
		struct cp_slack_ws *ws;
		uint32_t *off, *ids, n = 0, ncp = 0, *onc;
		bool *own0;
		uint64_t slack[4];

		tg_seed(61000 + round);
		ck_assert_int_eq(tg_pagshape(&g, 2 + tg_below(4),
					     4 + tg_below(16), tg_below(20),
					     round % 4 ? 9 : 2, 4), 0);
		ck_assert_int_eq(cp_cpm_run(&c, &g, NULL), 0);
		onc = calloc(g.ne + 1, sizeof(*onc));	/* C index + 1 */
		own0 = calloc(g.ne + 1, sizeof(*own0));
		off = malloc(sizeof(*off) * (g.ne + 1));
		ids = malloc(sizeof(*ids) * (4 * g.ne + 1));
		for (uint32_t q = 0; q < c.npath; q++)
			onc[c.path[q]] = q + 1;
		for (uint32_t e = 0; e < g.ne; e++) {
			own0[e] = tg_below(3) == 0;
			ncp += own0[e] && onc[e];
		}
		for (uint32_t e = 0; e < g.ne; e++) {
			/* g2 owns the C edge after each of g0's, wrapping */
			uint32_t q = onc[e] ? onc[e] - 1 : 0;
			bool in2 = onc[e] &&
				   own0[c.path[(q + c.npath - 1) % c.npath]];
			bool off1 = !onc[e] && tg_below(2) == 0;

			off[e] = n;
			if (own0[e])
				ids[n++] = 0;
			if (onc[e] ? own0[e] : off1)
				ids[n++] = 1;
			if (onc[e] ? in2 : tg_below(3) == 0)
				ids[n++] = 2;
			if (onc[e] ? own0[e] : off1)
				ids[n++] = 3;
		}
		off[g.ne] = n;
		gr = (struct cp_groups){ .n = 4, .off = off, .ids = ids };
		ck_assert_int_eq(cp_slack_all(&c, &gr, NULL, slack), 0);
		ws = cp_slack_ws_new(&c);
		for (uint32_t i = 0; i < 4; i++) {
			uint64_t step = brute_stepwise(&c, &gr, i);

			TG_CHECK(slack[i] == step, "round %d: Slack(g%u) = %"
				 PRIu64 ", stepwise reduction gives %" PRIu64,
				 round, i, slack[i], step);
			TG_CHECK(cp_slack_group(ws, &gr, i) == slack[i],
				 "round %d: g%u alone differs", round, i);
		}
		differ += slack[2] != slack[0];
		cp_slack_ws_free(ws);
		free(onc);
		free(own0);
		free(off);
		free(ids);
		cp_cpm_free(&c);
		cp_pag_free(&g);
	}
	ck_assert_msg(cp_twins_total() - skipped >= 200,
		      "only %" PRIu64 " walks left to a twin",
		      cp_twins_total() - skipped);
	ck_assert_msg(differ >= 20, "g2's Slack differed from g0's in only "
		      "%u rounds: the test checks little", differ);
}
END_TEST

static Suite *slack_suite(void)
{
	Suite *s = suite_create("slack");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_slack_one_segment);
	tcase_add_test(tc, test_slack_overlapping_segments);
	tcase_add_test(tc, test_slack_other_roots_and_leaves);
	tcase_add_test(tc, test_slack_offpath_merge);
	tcase_add_test(tc, test_slack_parallel_edge_and_tie);
	tcase_add_test(tc, test_slack_random_brute_force);
	tcase_add_test(tc, test_slack_more_groups_than_lanes);
	tcase_add_test(tc, test_slack_handed_over_lanes);
	tcase_add_test(tc, test_slack_random_inclusive_groups);
	tcase_add_test(tc, test_slack_lockstep_compacted_heap);
	tcase_add_test(tc, test_slack_blocks_barrier_graphs);
	tcase_add_test(tc, test_slack_twin_groups);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(slack_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
