/*
 * check_tracepag.c - the PAG built from synthetic traces: edges, weights,
 * attributes and critical path lengths computed by hand.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_cpm.h"
#include "cp_trace.h"
#include "cp_tracepag.h"
#include "synth_graph.h"

/* Earliest time of vertex @vi of thread @tid. */
static uint64_t et(const struct synth_cpm *f, uint32_t tid, uint32_t vi)
{
	return f->cpm.et[f->tp.vbase[tid] + vi];
}

/*
 * doc/examples.md §4: T2 takes L at 20..30, T1 at 30..40; CP 40.
 * T0 creates both and joins them; T1 works @t1_work.
 */
static void lock_example(struct synth *s, uint64_t t1_work)
{
	synth_lock_example(s, &(struct synth_lock_example){
		.kind = CP_OBJ_MUTEX, .one_work = true, .t1_work = t1_work });
	s->online_len = 40;
}

START_TEST(test_tracepag_lock_chain)
{
	struct synth s;
	struct synth_cpm f;
	uint32_t nseg, ndep, naux = 0;
	char buf[64];
	bool seen_dep = false;

	lock_example(&s, 30);
	synth_cpm_load(&s, &f);
	/* vertices: T0 6, T1 8, T2 8, + source + sink */
	ck_assert_msg(f.tp.g.nv == 24, "nv %u", f.tp.g.nv);
	nseg = (6 - 1) + (8 - 1) + (8 - 1);
	/* deps: 2 creates, 2 joins, 1 lock handoff */
	ndep = 5;
	for (uint32_t e = 0; e < f.tp.g.ne; e++)
		naux += f.tp.e_kind[e] == CP_TE_AUX;
	ck_assert_msg(f.tp.nseg == nseg && f.tp.ndep == ndep && naux == 4,
		      "seg %u dep %u aux %u", f.tp.nseg, f.tp.ndep, naux);
	ck_assert_msg(f.cpm.length == 40, "CP length %" PRIu64, f.cpm.length);
	ck_assert_msg(f.cpm.length == f.t.online_len_ns, "online %" PRIu64,
		      f.t.online_len_ns);
	/* T1's acquire (vertex 3) at 30, its unlock (vertex 6) at 40 */
	ck_assert_msg(et(&f, 1, 3) == 30 && et(&f, 1, 6) == 40,
		      "T1 acquire %" PRIu64 " unlock %" PRIu64, et(&f, 1, 3),
		      et(&f, 1, 6));
	ck_assert_msg(f.tp.useful_ns == 70, "useful %" PRIu64,
		      f.tp.useful_ns);
	ck_assert_msg(f.tp.wait_ns == 40, "wait %" PRIu64, f.tp.wait_ns);
	for (uint32_t e = 0; e < f.tp.g.ne; e++) {
		if (f.tp.e_kind[e] != CP_TE_DEP || cp_tracepag_obj(&f.tp, e) != 1)
			continue;
		seen_dep = true;
		cp_tracepag_edge_name(&f.tp, e, buf, sizeof(buf));
		ck_assert_msg(!strcmp(buf, "mutex#1 T2->T1"), "dep name '%s'",
			      buf);
		ck_assert_msg(cp_tracepag_src(&f.tp, e) == 2 && cp_tracepag_thread(&f.tp, e) == 1,
			      "dep src %u thread %u", cp_tracepag_src(&f.tp, e),
			      cp_tracepag_thread(&f.tp, e));
	}
	ck_assert_msg(seen_dep, "no lock dependency edge");
	ck_assert_msg(f.tp.nprocs == 2, "nprocs %u", f.tp.nprocs);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

START_TEST(test_tracepag_wait_edges_weigh_zero)
{
	struct synth s;
	struct synth_cpm f;
	uint32_t e;

	lock_example(&s, 25);	/* T1 waits 5 for the lock */
	synth_cpm_load(&s, &f);
	/* T1: start, enter, leave(25), request(25), consume(30, wait) */
	e = f.tp.segbase[1] + 3;	/* into vertex 4 */
	ck_assert_msg(f.tp.e_kind[e] == CP_TE_WAIT && f.tp.g.w[e] == 0 &&
		      cp_tracepag_wait(&f.tp, e) == 5 && cp_tracepag_obj(&f.tp, e) == 1,
		      "wait edge kind %u w %" PRIu64 " wait %" PRIu64 " obj %u",
		      f.tp.e_kind[e], f.tp.g.w[e], cp_tracepag_wait(&f.tp, e),
		      cp_tracepag_obj(&f.tp, e));
	ck_assert_msg(f.cpm.length == 40, "CP length %" PRIu64, f.cpm.length);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/* The trace PAG keeps no label array (nothing is labelled), names its
 * edges without one, and takes more unlabelled edges but no labelled one;
 * a wait edge's duration comes from the trace, every other edge's is 0. */
START_TEST(test_tracepag_no_label_array)
{
	struct synth s;
	struct synth_cpm f;
	char buf[64];
	uint32_t ne, e, nwait = 0;
	uint64_t sum = 0;

	lock_example(&s, 25);
	synth_cpm_load(&s, &f);
	ne = f.tp.g.ne;
	ck_assert_msg(f.tp.g.label == NULL, "label array %p", f.tp.g.label);
	ck_assert_msg(!strcmp(cp_pag_edge_name(&f.tp.g, 0, buf, sizeof(buf)),
			      "0->1"), "edge 0 named '%s'", buf);
	for (e = 0; e < ne; e++) {
		uint64_t w = cp_tracepag_wait(&f.tp, e);

		ck_assert_msg(f.tp.e_kind[e] == CP_TE_WAIT || w == 0,
			      "edge %u of kind %u waits %" PRIu64, e,
			      f.tp.e_kind[e], w);
		nwait += f.tp.e_kind[e] == CP_TE_WAIT;
		sum += w;
	}
	/* T1 waits 5 for the lock, T0 40 to join T1 and 0 to join T2 */
	ck_assert_msg(nwait == 3 && sum == 45 && f.tp.wait_ns == 45,
		      "%u waits of %" PRIu64 " ns, tracepag says %" PRIu64,
		      nwait, sum, f.tp.wait_ns);
	ck_assert_msg(cp_pag_add_edge(&f.tp.g, 0, 1, 1, 0) == CP_PAG_NONE,
		      "a labelled edge was taken");
	ck_assert_msg(cp_pag_add_edge(&f.tp.g, 0, 1, 1, CP_PAG_NONE) == ne &&
		      f.tp.g.label == NULL, "an unlabelled edge was refused");
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/* Three threads meet at a barrier: departures wait for the last arrival. */
START_TEST(test_tracepag_barrier_hub)
{
	struct synth s;
	struct synth_cpm f;

	synth_barrier_example(&s, false);
	synth_cpm_load(&s, &f);
	ck_assert_msg(f.tp.nhub == 1, "hubs %u", f.tp.nhub);
	/* departures at 30 in every thread */
	for (uint32_t tid = 0; tid < 3; tid++) {
		uint32_t vi = tid == 0 ? 4 : 2;

		ck_assert_msg(et(&f, tid, vi) == 30,
			      "T%u departs at %" PRIu64, tid, et(&f, tid, vi));
	}
	ck_assert_msg(f.cpm.length == 80, "CP length %" PRIu64, f.cpm.length);
	ck_assert_msg(f.tp.wait_ns == 30 + 5 + 45, "wait %" PRIu64,
		      f.tp.wait_ns);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/* A wake depends on the signal it consumed, then on the mutex release. */
START_TEST(test_tracepag_cond_wake)
{
	struct synth s;
	struct synth_cpm f;
	uint32_t m, c;

	synth_init(&s);
	synth_start(&s, 0, -1);
	m = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	c = synth_obj(&s, 0, CP_OBJ_COND, 0);
	synth_create(&s, 0, 0, 1);
	synth_start(&s, 1, 0);
	/* T0 waits: lock, release into the wait */
	synth_lock(&s, 0, 0, 0, m);
	synth_unlock(&s, 0, 1, m);		/* seq 1, at 1 */
	/* T1 works 50, locks, signals, unlocks */
	synth_lock(&s, 1, 50, 0, m);		/* consumes 1 */
	synth_publish(&s, 1, 0, c);		/* signal seq 1 */
	synth_unlock(&s, 1, 0, m);		/* seq 2 at 50 */
	synth_exit(&s, 1, 3);
	/* T0 wakes (consumes signal 1), re-acquires m (seq 2), works 10 */
	synth_consume(&s, 0, 49, true, c, 1, 1);
	synth_consume(&s, 0, 0, false, m, 2, 1);
	synth_unlock(&s, 0, 10, m);
	synth_join(&s, 0, 0, true, 1);
	synth_exit(&s, 0, 0);
	synth_cpm_load(&s, &f);
	ck_assert_msg(f.cpm.length == 60, "CP length %" PRIu64, f.cpm.length);
	ck_assert_msg(et(&f, 0, 5) == 50, "wake at %" PRIu64, et(&f, 0, 5));
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/* A semaphore wait depends on the post that made its token. */
START_TEST(test_tracepag_semaphore)
{
	struct synth s;
	struct synth_cpm f;
	uint32_t sem;

	synth_init(&s);
	synth_start(&s, 0, -1);
	sem = synth_obj(&s, 0, CP_OBJ_SEM, 1);
	synth_create(&s, 0, 0, 1);
	synth_start(&s, 1, 0);
	/* T0 takes the initial token at 5 (no edge), then waits for T1 */
	synth_consume(&s, 0, 5, false, sem, 0, 0);
	synth_publish(&s, 1, 40, sem);
	synth_exit(&s, 1, 0);
	synth_consume(&s, 0, 35, true, sem, 1, 1);
	synth_exit(&s, 0, 10);
	synth_cpm_load(&s, &f);
	ck_assert_msg(f.cpm.length == 50, "CP length %" PRIu64, f.cpm.length);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/*
 * doc/examples.md §5: a consumer tracked by the queue's lock ends at 350,
 * tracked by item at 225.
 */
static void queue_example(struct synth *s, bool by_item)
{
	uint32_t q, y = 0, x = 0;

	synth_init(s);
	synth_start(s, 0, -1);			/* the consumer */
	q = synth_obj(s, 0, CP_OBJ_MUTEX, 0);
	if (by_item) {
		y = synth_obj(s, 0, CP_OBJ_ITEM, 0);
		x = synth_obj(s, 0, CP_OBJ_ITEM, 0);
	}
	synth_spawn(s, 2);
	if (by_item) {
		/* untracked lock: acquires consume nothing */
		synth_consume(s, 1, 20, false, q, 0, 0);
		synth_publish(s, 1, 0, y);
		synth_exit(s, 1, 0);
		synth_consume(s, 2, 150, false, q, 0, 0);
		synth_publish(s, 2, 0, x);
		synth_exit(s, 2, 0);
		synth_request(s, 0, 25, q);
		synth_consume(s, 0, 125, true, q, 0, 0);
		synth_consume(s, 0, 0, false, y, 1, 1);
	} else {
		synth_lock(s, 1, 20, 0, q);
		synth_unlock(s, 1, 0, q);
		synth_exit(s, 1, 0);
		synth_lock(s, 2, 150, 0, q);
		synth_unlock(s, 2, 0, q);
		synth_exit(s, 2, 0);
		synth_lock(s, 0, 25, 125, q);
	}
	synth_exit(s, 0, 200);
	s->online_len = by_item ? 225 : 350;
}

START_TEST(test_tracepag_queue_item_vs_lock)
{
	struct synth s;
	struct synth_cpm f;

	queue_example(&s, false);
	synth_cpm_load(&s, &f);
	ck_assert_msg(f.cpm.length == 350, "by lock: CP %" PRIu64,
		      f.cpm.length);
	synth_cpm_free(&f);
	synth_free(&s);
	queue_example(&s, true);
	synth_cpm_load(&s, &f);
	ck_assert_msg(f.cpm.length == 225, "by item: CP %" PRIu64,
		      f.cpm.length);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

START_TEST(test_tracepag_create_join)
{
	struct synth s;
	struct synth_cpm f;

	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_create(&s, 0, 10, 1);
	synth_start(&s, 1, 0);
	synth_exit(&s, 1, 100);
	synth_join(&s, 0, 95, true, 1);
	synth_exit(&s, 0, 7);
	synth_cpm_load(&s, &f);
	ck_assert_msg(f.cpm.length == 117, "CP length %" PRIu64, f.cpm.length);
	ck_assert_msg(et(&f, 1, 0) == 10 && et(&f, 0, 2) == 110,
		      "child start %" PRIu64 " join %" PRIu64, et(&f, 1, 0),
		      et(&f, 0, 2));
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/* Calling contexts: nested, repeated and recursive procedures, regions. */
START_TEST(test_tracepag_calling_contexts)
{
	struct synth s;
	struct synth_cpm f;
	uint32_t e, n;

	synth_init(&s);
	synth_symbol(&s, 0xa0, 0x10, "a");
	synth_symbol(&s, 0xb0, 0x10, "b");
	synth_string(&s, 3, "phase");
	synth_start(&s, 0, -1);
	synth_enter(&s, 0, 0, 0xa0);
	synth_enter(&s, 0, 10, 0xb0);
	synth_leave(&s, 0, 20);
	synth_leave(&s, 0, 5);
	synth_region_begin(&s, 0, 0, 3);
	synth_enter(&s, 0, 1, 0xa4);		/* inside a: named a */
	synth_enter(&s, 0, 3, 0xa0);		/* a calls a */
	synth_leave(&s, 0, 4);
	synth_leave(&s, 0, 2);
	synth_region_end(&s, 0, 6, 3);
	synth_exit(&s, 0, 1);
	synth_cpm_load(&s, &f);
	ck_assert_msg(f.tp.nprocs == 3, "nprocs %u", f.tp.nprocs);
	/* root, a, a/b, phase, phase/a, phase/a/a */
	ck_assert_msg(f.tp.ncct == 6, "cct nodes %u", f.tp.ncct);
	/* segment into vertex 2 (b's ENTER) ran in a */
	e = f.tp.segbase[0] + 1;
	n = cp_tracepag_cct(&f.tp, e);
	ck_assert_msg(!strcmp(cp_tracepag_proc_name(&f.tp, cp_tracepag_proc(&f.tp, e)),
			      "a") && f.tp.g.w[e] == 10,
		      "edge %u proc %s w %" PRIu64, e,
		      cp_tracepag_proc_name(&f.tp, cp_tracepag_proc(&f.tp, e)),
		      f.tp.g.w[e]);
	ck_assert_msg(f.tp.cct[n].depth == 1, "depth %u", f.tp.cct[n].depth);
	/* recursion a/a: the inclusive list has a once */
	e = f.tp.segbase[0] + 7;	/* into the inner LEAVE: phase/a/a */
	n = cp_tracepag_cct(&f.tp, e);
	ck_assert_msg(f.tp.cct[n].depth == 3 && f.tp.cct[n].incl_n == 2,
		      "phase/a/a depth %u incl %u", f.tp.cct[n].depth,
		      f.tp.cct[n].incl_n);
	/* the last segment, after the region ended, is outside everything */
	e = f.tp.segbase[0] + 10;
	ck_assert_msg(cp_tracepag_cct(&f.tp, e) == 0 &&
		      cp_tracepag_proc(&f.tp, e) == CP_PAG_NONE,
		      "after region: cct %u", cp_tracepag_cct(&f.tp, e));
	ck_assert_msg(f.cpm.length == 52, "CP length %" PRIu64, f.cpm.length);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/* A trace whose dependencies contradict program order is refused. */
START_TEST(test_tracepag_cycle_refused)
{
	struct synth s;
	struct cp_trace t;
	struct cp_tracepag tp;
	uint8_t *buf;
	size_t len;
	char err[256] = "";
	uint32_t m;

	synth_init(&s);
	synth_start(&s, 0, -1);
	m = synth_obj(&s, 0, CP_OBJ_SEM, 0);
	/* consumes its own later post */
	synth_consume(&s, 0, 1, true, m, 1, 1);
	synth_publish(&s, 0, 1, m);
	synth_exit(&s, 0, 1);
	len = synth_encode(&s, &buf);
	ck_assert_msg(cp_trace_parse(&t, "cyc.cpt", buf, len, err,
				     sizeof(err)) == 0, "%s", err);
	ck_assert_msg(cp_tracepag_build(&tp, &t, err, sizeof(err)) == -1,
		      "cycle accepted");
	ck_assert_msg(strstr(err, "cyc.cpt: ") == err && strstr(err, "cycle"),
		      "message '%s'", err);
	cp_trace_free(&t);
	free(buf);
	synth_free(&s);
}
END_TEST

static Suite *tracepag_suite(void)
{
	Suite *s = suite_create("tracepag");
	TCase *tc = tcase_create("build");

	tcase_add_test(tc, test_tracepag_lock_chain);
	tcase_add_test(tc, test_tracepag_wait_edges_weigh_zero);
	tcase_add_test(tc, test_tracepag_no_label_array);
	tcase_add_test(tc, test_tracepag_barrier_hub);
	tcase_add_test(tc, test_tracepag_cond_wake);
	tcase_add_test(tc, test_tracepag_semaphore);
	tcase_add_test(tc, test_tracepag_queue_item_vs_lock);
	tcase_add_test(tc, test_tracepag_create_join);
	tcase_add_test(tc, test_tracepag_calling_contexts);
	tcase_add_test(tc, test_tracepag_cycle_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tracepag_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
