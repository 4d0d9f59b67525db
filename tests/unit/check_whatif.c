/*
 * check_whatif.c - what-if by simulation and by fixed-graph reweighting on
 * synthetic traces whose new run times are computed by hand.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_par.h"
#include "cp_trace.h"
#include "cp_tracepag.h"
#include "cp_whatif.h"
#include "synth_graph.h"

struct fixture {
	struct cp_trace t;
	struct cp_tracepag tp;
};

static void load(struct synth *s, struct fixture *f)
{
	synth_graph_load(s, &f->t, &f->tp);
}

static void unload(struct fixture *f)
{
	synth_graph_free(&f->t, &f->tp);
}

/* One scaling on @cpus processors (0: one per thread), paying the
 * recorded wake-up latencies if @wake; asserts success. */
static struct cp_whatif_result whatif_machine(struct fixture *f,
					      const char *name, double factor,
					      uint32_t cpus, bool wake)
{
	struct cp_whatif_scale sc = { .name = name, .factor = factor };
	struct cp_whatif_result r;
	char err[256] = "";

	ck_assert_msg(cp_whatif_trace(&f->tp, &sc, 1, false, cpus, wake, &r,
				      err, sizeof(err)) == 0,
		      "whatif: %s", err);
	ck_assert_msg(r.wake == wake, "wake %d", r.wake);
	return r;
}

static struct cp_whatif_result whatif_on(struct fixture *f, const char *name,
					 double factor, uint32_t cpus)
{
	return whatif_machine(f, name, factor, cpus, false);
}

/* One scaling on the ideal machine. */
static struct cp_whatif_result whatif(struct fixture *f, const char *name,
				      double factor)
{
	return whatif_on(f, name, factor, 0);
}

#define ASSERT_RESULT(r, before, sim, fixed)				\
	ck_assert_msg((r).length_before == (before) &&			\
		      (r).length_after == (sim) &&			\
		      (r).length_after_fixed == (fixed),		\
		      "before %" PRIu64 " (want %d) sim %" PRIu64	\
		      " (want %d) fixed %" PRIu64 " (want %d)",		\
		      (r).length_before, (before), (r).length_after,	\
		      (sim), (r).length_after_fixed, (fixed))

/*
 * doc/examples.md §4: T1 works 30 in work1, T2 20 in work2, then both
 * take L for 10 in crit.  T2 takes it first; CP 40.
 */
static void lock_reorder(struct synth *s)
{
	synth_lock_example(s, &(struct synth_lock_example){
		.kind = CP_OBJ_MUTEX });
}

START_TEST(test_whatif_lock_reorder)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;

	lock_reorder(&s);
	load(&s, &f);
	r = whatif(&f, "work1", 0.5);
	/* simulated: T1 takes L at 15..25, T2 waits until 25..35 */
	ASSERT_RESULT(r, 40, 35, 40);
	ck_assert_msg(r.simulated && !r.deadlock && r.reordered == 2,
		      "simulated %d deadlock %d reordered %" PRIu64,
		      r.simulated, r.deadlock, r.reordered);
	ck_assert_msg(r.length_before_sim == 40, "sim baseline %" PRIu64,
		      r.length_before_sim);
	/* nothing reorders when T2 gets faster */
	r = whatif(&f, "work2", 0.5);
	ASSERT_RESULT(r, 40, 40, 40);
	ck_assert_msg(r.reordered == 0, "reordered %" PRIu64, r.reordered);
	/* a shorter critical section shortens both */
	r = whatif(&f, "crit", 0.5);
	ASSERT_RESULT(r, 40, 35, 35);
	/* slower work2 (T2 requests at 40): T1 first, T2 40..50 */
	r = whatif(&f, "work2", 2.0);
	ASSERT_RESULT(r, 40, 50, 60);
	unload(&f);
	synth_free(&s);
}
END_TEST

/*
 * Rwlock L.  W works 8 (wwork), writes 6; R works 10 (rwork), R2 12
 * (r2work), then both read 6, sharing the lock after W.  CP 20.
 */
static void rw_reader_first(struct synth *s, bool no_shared)
{
	uint32_t l;

	synth_init(s);
	s->no_shared = no_shared;
	synth_symbol(s, 0x100, 0x10, "rwork");
	synth_symbol(s, 0x200, 0x10, "wwork");
	synth_symbol(s, 0x300, 0x10, "r2work");
	synth_symbol(s, 0x400, 0x10, "read");
	synth_symbol(s, 0x500, 0x10, "write");
	synth_start(s, 0, -1);
	l = synth_obj(s, 0, CP_OBJ_RWLOCK, 0);
	synth_spawn(s, 3);
	synth_call(s, 2, 0x200, 8);
	synth_wrlock(s, 2, 0, 0, l);
	synth_call(s, 2, 0x500, 6);
	synth_rwunlock(s, 2, 0, l);
	synth_call(s, 1, 0x100, 10);
	synth_rdlock(s, 1, 0, 4, l);
	synth_call(s, 1, 0x400, 6);
	synth_call(s, 3, 0x300, 12);
	synth_rdlock(s, 3, 0, 2, l);
	synth_call(s, 3, 0x400, 6);
	synth_rwunlock(s, 1, 0, l);
	synth_rwunlock(s, 3, 0, l);
	for (uint32_t i = 1; i <= 3; i++)
		synth_exit(s, i, 0);
	synth_join_all(s, 3, 20);
}

START_TEST(test_whatif_rwlock_reader_first)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;

	rw_reader_first(&s, false);
	load(&s, &f);
	/* unscaled: R and R2 share the lock (one after the other: 26) */
	r = whatif(&f, "rwork", 1.0);
	ASSERT_RESULT(r, 20, 20, 20);
	ck_assert_msg(r.simulated && r.length_before_sim == 20 &&
		      r.reordered == 0, "simulated %d baseline %" PRIu64
		      " reordered %" PRIu64, r.simulated,
		      r.length_before_sim, r.reordered);
	/*
	 * R at 5 reads 5..11; W (8) waits for it and writes 11..17; R2
	 * (12) waits for W and reads 17..23: slower.  The fixed graph keeps
	 * R behind W's write: 20.
	 */
	r = whatif(&f, "rwork", 0.5);
	ASSERT_RESULT(r, 20, 23, 20);
	ck_assert_msg(r.simulated && !r.deadlock && r.reordered > 0,
		      "simulated %d deadlock %d reordered %" PRIu64,
		      r.simulated, r.deadlock, r.reordered);
	/* shorter reads: R and R2 share 14..17 */
	r = whatif(&f, "read", 0.5);
	ASSERT_RESULT(r, 20, 17, 17);
	unload(&f);
	synth_free(&s);

	/* a trace without the SHARED flag: its reads are replayed */
	rw_reader_first(&s, true);
	load(&s, &f);
	r = whatif(&f, "rwork", 0.5);
	ASSERT_RESULT(r, 20, 20, 20);
	ck_assert_msg(r.simulated && !r.deadlock && r.length_before_sim == 20,
		      "simulated %d deadlock %d baseline %" PRIu64,
		      r.simulated, r.deadlock, r.length_before_sim);
	unload(&f);
	synth_free(&s);
}
END_TEST

/*
 * Rwlock L (OBJ_DEF @extra).  R1 reads 0..10 (scan); W requests at 4
 * (wwork) and waits;
 * R2 comes at 6 (r2work) and, as glibc's default rwlock lets it, reads
 * 6..16 (scan2) past the waiting writer; W writes 16..20.  CP 20.
 */
static void rw_writer_first(struct synth *s, uint64_t extra)
{
	uint32_t l;

	synth_init(s);
	synth_symbol(s, 0x100, 0x10, "scan");
	synth_symbol(s, 0x200, 0x10, "wwork");
	synth_symbol(s, 0x300, 0x10, "r2work");
	synth_symbol(s, 0x500, 0x10, "write");
	synth_symbol(s, 0x600, 0x10, "scan2");
	synth_start(s, 0, -1);
	l = synth_obj(s, 0, CP_OBJ_RWLOCK, extra);
	synth_spawn(s, 3);
	synth_rdlock(s, 1, 0, 0, l);
	synth_call(s, 1, 0x100, 10);
	synth_call(s, 3, 0x300, 6);
	synth_rdlock(s, 3, 0, 0, l);
	synth_call(s, 3, 0x600, 10);
	synth_rwunlock(s, 1, 0, l);
	synth_rwunlock(s, 3, 0, l);
	synth_call(s, 2, 0x200, 4);
	synth_wrlock(s, 2, 0, 12, l);
	synth_call(s, 2, 0x500, 4);
	synth_rwunlock(s, 2, 0, l);
	for (uint32_t i = 1; i <= 3; i++)
		synth_exit(s, i, 0);
	synth_join_all(s, 3, 20);
}

START_TEST(test_whatif_rwlock_writer_first)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;

	rw_writer_first(&s, 0);
	load(&s, &f);
	/* unscaled: R2 reads past the waiting writer, as recorded */
	r = whatif(&f, "scan", 1.0);
	ASSERT_RESULT(r, 20, 20, 20);
	ck_assert_msg(r.length_before_sim == 20 && r.reordered == 0,
		      "baseline %" PRIu64 " reordered %" PRIu64,
		      r.length_before_sim, r.reordered);
	/*
	 * R1 leaves at 5: W writes 5..9, R2 (6) waits for it and reads
	 * 9..19.  The fixed graph keeps W after R2's read: 20.
	 */
	r = whatif(&f, "scan", 0.5);
	ASSERT_RESULT(r, 20, 19, 20);
	ck_assert_msg(r.simulated && !r.deadlock && r.reordered > 0,
		      "simulated %d deadlock %d reordered %" PRIu64,
		      r.simulated, r.deadlock, r.reordered);
	/* W later (at 12): R1 and R2 read, W writes 16..20 anyway */
	r = whatif(&f, "wwork", 3.0);
	ASSERT_RESULT(r, 20, 20, 20);
	unload(&f);
	synth_free(&s);
}
END_TEST

/*
 * The same accesses on an rwlock defined CP_RWLOCK_ORDERED (an OpenMP
 * task dependence: W depends on both reads, whenever it arrives): the
 * replay keeps the recorded order, so R1 leaving at 5 does not let W
 * write before R2, and the prediction is the fixed graph's.
 */
START_TEST(test_whatif_rwlock_ordered)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;

	rw_writer_first(&s, CP_RWLOCK_ORDERED);
	load(&s, &f);
	r = whatif(&f, "scan", 1.0);
	ASSERT_RESULT(r, 20, 20, 20);
	/* R1 5; R2 reads 6..16; W after both: 16..20 */
	r = whatif(&f, "scan", 0.5);
	ASSERT_RESULT(r, 20, 20, 20);
	ck_assert_msg(r.simulated && !r.deadlock && r.reordered == 0,
		      "simulated %d deadlock %d reordered %" PRIu64,
		      r.simulated, r.deadlock, r.reordered);
	/* shorter second read: W 12..16 */
	r = whatif(&f, "scan2", 0.6);
	ASSERT_RESULT(r, 20, 16, 16);
	unload(&f);
	synth_free(&s);
}
END_TEST

/*
 * An rwlock only ever write-locked, in a trace without the SHARED flag
 * (all its CONSUMEs take one release each): simulated as a lock, so the
 * README §4 reorder is seen as with a mutex.
 */
START_TEST(test_whatif_rwlock_write_only)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;

	synth_lock_example(&s, &(struct synth_lock_example){
		.kind = CP_OBJ_RWLOCK });
	s.no_shared = true;
	load(&s, &f);
	r = whatif(&f, "work1", 0.5);
	ASSERT_RESULT(r, 40, 35, 40);
	ck_assert_msg(r.simulated && r.reordered == 2,
		      "simulated %d reordered %" PRIu64, r.simulated,
		      r.reordered);
	unload(&f);
	synth_free(&s);
}
END_TEST

START_TEST(test_whatif_barrier)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;

	synth_barrier_example(&s, true);
	load(&s, &f);
	r = whatif(&f, "slow", 0.5);	/* departures at 20 */
	ASSERT_RESULT(r, 80, 70, 70);
	r = whatif(&f, "slow", 0.0);
	ASSERT_RESULT(r, 80, 70, 70);
	r = whatif(&f, "tail", 0.1);	/* T2 ends 35 */
	ASSERT_RESULT(r, 80, 35, 35);
	r = whatif(&f, "tail", 1.0);
	ASSERT_RESULT(r, 80, 80, 80);
	unload(&f);
	synth_free(&s);
}
END_TEST

/*
 * Semaphore tokens follow simulated time: T3 (request 20) took post 1, T2
 * (request 50) post 2.  Make T3's first part 4x slower: T2 now arrives
 * first and takes post 1's token.
 */
START_TEST(test_whatif_semaphore_order)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;
	uint32_t sem;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "pre3");
	synth_start(&s, 0, -1);
	sem = synth_obj(&s, 0, CP_OBJ_SEM, 0);
	synth_create(&s, 0, 0, 1);
	synth_create(&s, 0, 0, 2);
	synth_create(&s, 0, 0, 3);
	synth_start(&s, 1, 0);
	synth_start(&s, 2, 0);
	synth_start(&s, 3, 0);
	synth_publish(&s, 1, 40, sem);		/* post 1 at 40 */
	synth_publish(&s, 1, 60, sem);		/* post 2 at 100 */
	synth_exit(&s, 1, 0);
	synth_call(&s, 3, 0x100, 20);
	synth_request(&s, 3, 0, sem);
	synth_consume(&s, 3, 20, true, sem, 1, 1);
	synth_exit(&s, 3, 10);			/* 50 */
	synth_request(&s, 2, 50, sem);
	synth_consume(&s, 2, 50, true, sem, 2, 1);
	synth_exit(&s, 2, 100);			/* 200 */
	synth_exit(&s, 0, 1);
	load(&s, &f);
	r = whatif(&f, "pre3", 4.0);
	/* sim: T2 takes post 1 at 50, ends 150; T3 post 2 at 100, ends 110.
	 * fixed: T3 80 -> 90; T2 still waits for post 2: 200 */
	ASSERT_RESULT(r, 200, 150, 200);
	ck_assert_msg(r.length_before_sim == 200, "sim baseline %" PRIu64,
		      r.length_before_sim);
	unload(&f);
	synth_free(&s);
}
END_TEST

/* Condition variable: the wake follows the signal's simulated time. */
START_TEST(test_whatif_cond_follows_signal)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;
	uint32_t m, c;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "produce");
	synth_start(&s, 0, -1);
	m = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	c = synth_obj(&s, 0, CP_OBJ_COND, 0);
	synth_create(&s, 0, 0, 1);
	synth_start(&s, 1, 0);
	synth_lock(&s, 0, 0, 0, m);
	synth_unlock(&s, 0, 1, m);
	synth_call(&s, 1, 0x100, 50);
	synth_lock(&s, 1, 0, 0, m);
	synth_publish(&s, 1, 0, c);
	synth_unlock(&s, 1, 0, m);
	synth_exit(&s, 1, 3);
	synth_consume(&s, 0, 49, true, c, 1, 1);
	synth_consume(&s, 0, 0, false, m, 2, 1);
	synth_unlock(&s, 0, 10, m);
	synth_join(&s, 0, 0, true, 1);
	synth_exit(&s, 0, 0);
	load(&s, &f);
	r = whatif(&f, "produce", 0.4);		/* signal at 20, end 30 */
	ASSERT_RESULT(r, 60, 30, 30);
	unload(&f);
	synth_free(&s);
}
END_TEST

/* Work-queue items: the dequeue follows its own item's enqueue. */
START_TEST(test_whatif_queue_items)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;
	uint32_t q, y, x;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "consume");
	synth_symbol(&s, 0x200, 0x10, "produce2");
	synth_start(&s, 0, -1);
	q = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	y = synth_obj(&s, 0, CP_OBJ_ITEM, 0);
	x = synth_obj(&s, 0, CP_OBJ_ITEM, 0);
	synth_meta(&s, 0, CP_EV_OBJ_UNTRACK, q, 0, 0, 0);
	synth_spawn(&s, 2);
	synth_consume(&s, 1, 20, false, q, 0, 0);
	synth_publish(&s, 1, 0, y);
	synth_exit(&s, 1, 0);
	synth_call(&s, 2, 0x200, 150);
	synth_consume(&s, 2, 0, false, q, 0, 0);
	synth_publish(&s, 2, 0, x);
	synth_exit(&s, 2, 0);
	synth_request(&s, 0, 25, q);
	synth_consume(&s, 0, 125, true, q, 0, 0);
	synth_consume(&s, 0, 0, false, y, 1, 1);
	synth_call(&s, 0, 0x100, 200);
	synth_exit(&s, 0, 0);
	load(&s, &f);
	r = whatif(&f, "consume", 0.5);		/* 25 + 100 */
	ASSERT_RESULT(r, 225, 150, 150);
	r = whatif(&f, "produce2", 2.0);	/* P2 ends at 300 */
	ASSERT_RESULT(r, 225, 300, 300);
	unload(&f);
	synth_free(&s);
}
END_TEST

START_TEST(test_whatif_create_join)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "child");
	synth_start(&s, 0, -1);
	synth_create(&s, 0, 10, 1);
	synth_start(&s, 1, 0);
	synth_call(&s, 1, 0x100, 100);
	synth_exit(&s, 1, 0);
	synth_join(&s, 0, 95, true, 1);
	synth_exit(&s, 0, 7);
	load(&s, &f);
	r = whatif(&f, "child", 0.5);
	ASSERT_RESULT(r, 117, 67, 67);
	r = whatif(&f, "child", 0.0);	/* 10 before the create, 7 after */
	ASSERT_RESULT(r, 117, 17, 17);
	unload(&f);
	synth_free(&s);
}
END_TEST

/* Inclusive scaling covers callees; two scalings multiply. */
START_TEST(test_whatif_nested_scaling)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_scale sc[2] = {
		{ .name = "a", .factor = 0.5 }, { .name = "b", .factor = 0.5 },
	};
	struct cp_whatif_result r;
	char err[256];

	synth_init(&s);
	synth_symbol(&s, 0xa0, 0x10, "a");
	synth_symbol(&s, 0xb0, 0x10, "b");
	synth_start(&s, 0, -1);
	synth_enter(&s, 0, 0, 0xa0);
	synth_enter(&s, 0, 10, 0xb0);
	synth_leave(&s, 0, 20);
	synth_leave(&s, 0, 6);
	synth_exit(&s, 0, 4);		/* 40 */
	load(&s, &f);
	r = whatif(&f, "a", 0.5);	/* 36 / 2 + 4 */
	ASSERT_RESULT(r, 40, 22, 22);
	ck_assert_msg(cp_whatif_trace(&f.tp, sc, 2, false, 0, false, &r, err,
				      sizeof(err)) == 0, "%s", err);
	/* a's own 16 -> 8, b's 20 -> 5 (a and b), + 4 */
	ASSERT_RESULT(r, 40, 17, 17);
	ck_assert_msg(cp_whatif_trace(&f.tp, sc, 1, true, 0, false, &r, err,
				      sizeof(err)) == 0, "%s", err);
	/* exclusive: a's own 16 -> 8, b's 20 kept */
	ASSERT_RESULT(r, 40, 32, 32);
	unload(&f);
	synth_free(&s);
}
END_TEST

/*
 * A trywait that took a token and posted it back.  P posts at 5 (pw); A
 * (aw 10) trywaits, taking P's token without waiting, and posts it back at
 * 12; B (bw 11) waits for a token and gets A's at 12, then works 3.  CP 15.
 */
START_TEST(test_whatif_trywait_forced)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;
	uint32_t sem;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "pw");
	synth_symbol(&s, 0x200, 0x10, "aw");
	synth_symbol(&s, 0x300, 0x10, "bw");
	synth_start(&s, 0, -1);
	sem = synth_obj(&s, 0, CP_OBJ_SEM, 0);
	synth_spawn(&s, 3);
	synth_call(&s, 1, 0x100, 5);
	synth_publish(&s, 1, 0, sem);			/* seq 1 */
	synth_exit(&s, 1, 0);
	synth_call(&s, 2, 0x200, 10);
	synth_consume(&s, 2, 0, false, sem, 1, 1);	/* trywait */
	synth_publish(&s, 2, 2, sem);			/* seq 2 */
	synth_exit(&s, 2, 0);
	synth_call(&s, 3, 0x300, 11);
	synth_request(&s, 3, 0, sem);
	synth_consume(&s, 3, 1, true, sem, 2, 1);
	synth_exit(&s, 3, 3);
	for (uint32_t i = 1; i <= 3; i++)
		synth_join(&s, 0, i == 1 ? 15 : 0, true, i);
	synth_exit(&s, 0, 0);
	load(&s, &f);
	r = whatif(&f, "bw", 1.0);
	ASSERT_RESULT(r, 15, 15, 15);
	ck_assert_msg(r.forced == 0 && r.forced_before == 0,
		      "forced %" PRIu64 " / %" PRIu64 " unscaled", r.forced,
		      r.forced_before);
	/*
	 * B at 6 (5.5 rounded) takes P's token; A's trywait at 10 finds
	 * none and everything else is done: it is let through as recorded
	 * (10), posts back at 12, which repays the token.  B ends at 9.
	 */
	r = whatif(&f, "bw", 0.5);
	ASSERT_RESULT(r, 15, 12, 15);
	ck_assert_msg(r.simulated && !r.deadlock && r.forced == 1,
		      "simulated %d deadlock %d forced %" PRIu64, r.simulated,
		      r.deadlock, r.forced);
	unload(&f);
	synth_free(&s);
}
END_TEST

/* T1 works 10 in w, takes a mutex and exits holding it; main asks for it
 * at 30 and waits for ever. */
static void dies_holding(struct synth *s)
{
	uint32_t m;

	synth_init(s);
	synth_symbol(s, 0x100, 0x10, "w");
	synth_start(s, 0, -1);
	m = synth_obj(s, 0, CP_OBJ_MUTEX, 0);
	synth_create(s, 0, 0, 1);
	synth_start(s, 1, 0);
	synth_call(s, 1, 0x100, 10);
	synth_lock(s, 1, 0, 0, m);
	synth_exit(s, 1, 1);		/* never unlocks */
	synth_request(s, 0, 30, m);
	synth_consume(s, 0, 0, true, m, 0, 0);
	synth_exit(s, 0, 5);
}

/* A thread that dies holding a lock deadlocks the simulation: the other's
 * acquire waited in the recording, so it is not a try to let through. */
START_TEST(test_whatif_deadlock_falls_back)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;

	dies_holding(&s);
	load(&s, &f);
	r = whatif(&f, "w", 0.5);
	ck_assert_msg(r.deadlock && !r.simulated &&
		      r.length_after == r.length_after_fixed &&
		      r.length_after_fixed == 35,
		      "deadlock %d simulated %d after %" PRIu64 " fixed %" PRIu64,
		      r.deadlock, r.simulated, r.length_after,
		      r.length_after_fixed);
	unload(&f);
	synth_free(&s);
}
END_TEST

START_TEST(test_whatif_rejects_unknown_name)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_scale sc = { .name = "nosuch", .factor = 2 };
	struct cp_whatif_result r;
	char err[256] = "";

	lock_reorder(&s);
	load(&s, &f);
	ck_assert_msg(cp_whatif_trace(&f.tp, &sc, 1, false, 0, false, &r, err,
				      sizeof(err)) == -1, "unknown accepted");
	ck_assert_msg(strstr(err, "syn.cpt: ") == err &&
		      strstr(err, "'nosuch'"), "message '%s'", err);
	sc.name = "crit";
	sc.factor = -1;
	ck_assert_msg(cp_whatif_trace(&f.tp, &sc, 1, false, 0, false, &r, err,
				      sizeof(err)) == -1, "negative accepted");
	unload(&f);
	synth_free(&s);
}
END_TEST

/* Two predictions agree when every figure does. */
static void assert_same(const struct cp_whatif_result *a,
			const struct cp_whatif_result *b, const char *what)
{
	ck_assert_msg(a->length_before == b->length_before &&
		      a->length_after_fixed == b->length_after_fixed &&
		      a->length_before_sim == b->length_before_sim &&
		      a->length_after == b->length_after &&
		      a->simulated == b->simulated &&
		      a->deadlock == b->deadlock &&
		      a->reordered == b->reordered && a->forced == b->forced &&
		      a->forced_before == b->forced_before &&
		      a->scaled_ns == b->scaled_ns && a->cpus == b->cpus &&
		      a->wake == b->wake,
		      "%s: after %" PRIu64 " / %" PRIu64 ", fixed %" PRIu64
		      " / %" PRIu64 ", before sim %" PRIu64 " / %" PRIu64,
		      what, a->length_after, b->length_after,
		      a->length_after_fixed, b->length_after_fixed,
		      a->length_before_sim, b->length_before_sim);
}

/*
 * cp_whatif_trace_each: each scaling's prediction is cp_whatif_trace's,
 * the shared replay computed once; a scaling that fails (no such
 * procedure, a negative factor) fails alone.  On one thread and on two
 * (cp_par's threshold 0), on the ideal machine, on one processor and
 * paying the wake-ups; and where the unscaled replay deadlocks.
 */
static void check_each(struct fixture *f, const struct cp_whatif_scale *sc,
		       uint32_t n, uint32_t cpus, bool wake)
{
	struct cp_whatif_result r[8], one;
	int ret[8];
	char err[256];

	ck_assert(n <= 8);
	ck_assert_msg(cp_whatif_trace_each(&f->tp, sc, n, false, cpus, wake,
					   r, ret) == 0, "each failed");
	for (uint32_t i = 0; i < n; i++) {
		int want = cp_whatif_trace(&f->tp, &sc[i], 1, false, cpus,
					   wake, &one, err, sizeof(err));

		ck_assert_msg(ret[i] == want, "%s x%g: each %d, alone %d",
			      sc[i].name, sc[i].factor, ret[i], want);
		if (!want)
			assert_same(&r[i], &one, sc[i].name);
	}
}

START_TEST(test_whatif_each)
{
	static const struct cp_whatif_scale sc[] = {
		{ "work1", 0.5 }, { "nosuch", 2 }, { "crit", 0.5 },
		{ "work2", 2.0 }, { "crit", -1 }, { "work2", 0.5 },
	};
	size_t old = cp_par_set_threshold(SIZE_MAX);
	struct synth s;
	struct fixture f;

	lock_reorder(&s);
	load(&s, &f);
	for (int par = 0; par < 2; par++) {
		cp_par_set_threshold(par ? 0 : SIZE_MAX);
		check_each(&f, sc, 6, 0, false);
		check_each(&f, sc, 6, 1, false);
		check_each(&f, sc, 6, 0, true);
		check_each(&f, sc + 1, 1, 0, false);
	}
	unload(&f);
	synth_free(&s);

	/* the deadlock of test_whatif_deadlock_falls_back */
	dies_holding(&s);
	load(&s, &f);
	for (int par = 0; par < 2; par++) {
		cp_par_set_threshold(par ? 0 : SIZE_MAX);
		check_each(&f, &(struct cp_whatif_scale){ "w", 0.5 }, 1, 0,
			   false);
	}
	cp_par_set_threshold(old);
	unload(&f);
	synth_free(&s);
}
END_TEST

START_TEST(test_whatif_text_pag)
{
	struct cp_pag g;
	struct cp_whatif_scale sc = { .name = "G", .factor = 0 };
	struct cp_whatif_result r;
	char err[256] = "";

	ck_assert_msg(cp_pag_read_text(&g, CP_TEST_DATA_DIR
				       "/cpm-multigraph.pag", err,
				       sizeof(err)) == 0, "%s", err);
	ck_assert_msg(cp_whatif_pag(&g, &sc, 1, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ASSERT_RESULT(r, 10, 9, 9);
	ck_assert_msg(!r.simulated, "a text PAG cannot be simulated");
	cp_pag_free(&g);
}
END_TEST

/*
 * The frame of a random trace: main (thread 0) starts and creates threads
 * 1..@nt-1, all of them to work in procedure "w"; a barrier for all @nt is
 * returned.  random_end(): the threads exit and main joins them.
 */
static uint32_t random_begin(struct synth *s, uint32_t nt)
{
	uint32_t b;

	synth_init(s);
	synth_symbol(s, 0x100, 0x10, "w");
	synth_start(s, 0, -1);
	b = synth_obj(s, 0, CP_OBJ_BARRIER, nt);
	for (uint32_t i = 1; i < nt; i++) {
		synth_create(s, 0, 0, i);
		synth_start(s, i, 0);
	}
	return b;
}

static void random_end(struct synth *s, uint32_t nt)
{
	for (uint32_t i = 1; i < nt; i++)
		synth_exit(s, i, 0);
	for (uint32_t i = 1; i < nt; i++)
		synth_join(s, 0, 0, true, i);
	synth_exit(s, 0, 0);
}

/*
 * Many random lock-and-barrier traces: the unscaled simulation reproduces
 * the CP length whenever every recorded acquire followed the model's
 * request order; scaling by 1 changes nothing; the simulation never
 * predicts longer than the fixed graph when only lock order may differ
 * and everything gets faster.
 */
START_TEST(test_whatif_random_identity)
{
	unsigned seed = 7;

	for (int iter = 0; iter < 200; iter++) {
		struct synth s;
		struct fixture f;
		struct cp_whatif_result r;
		uint32_t nt = 2 + rand_r(&seed) % 4, b, m;

		b = random_begin(&s, nt);
		m = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
		for (int round = 0; round < 3; round++) {
			for (uint32_t i = 0; i < nt; i++) {
				synth_enter(&s, i, 0, 0x100);
				synth_leave(&s, i, 1 + rand_r(&seed) % 50);
				synth_barrier(&s, i, 0, 0, b);
			}
		}
		/* one lock round, in thread order (request order may differ) */
		for (uint32_t i = 0; i < nt; i++) {
			synth_lock(&s, i, rand_r(&seed) % 20, 0, m);
			synth_unlock(&s, i, 1 + rand_r(&seed) % 5, m);
		}
		random_end(&s, nt);
		load(&s, &f);
		r = whatif(&f, "w", 1.0);
		ck_assert_msg(r.length_after_fixed == r.length_before,
			      "iter %d: fixed %" PRIu64 " != %" PRIu64, iter,
			      r.length_after_fixed, r.length_before);
		ck_assert_msg(r.length_after == r.length_before_sim,
			      "iter %d: sim %" PRIu64 " != baseline %" PRIu64,
			      iter, r.length_after, r.length_before_sim);
		ck_assert_msg(!r.deadlock, "iter %d deadlocked", iter);
		r = whatif(&f, "w", 0.5);
		ck_assert_msg(r.length_after <= r.length_before_sim &&
			      r.length_after_fixed <= r.length_before,
			      "iter %d: faster work predicted slower: sim %" PRIu64 " (base %" PRIu64 ") fixed %" PRIu64 " (base %" PRIu64 ")",
			      iter, r.length_after, r.length_before_sim,
			      r.length_after_fixed, r.length_before);
		unload(&f);
		synth_free(&s);
	}
}
END_TEST

#define ASSERT_SIM(r, base, after)					\
	ck_assert_msg((r).simulated && !(r).deadlock &&			\
		      (r).length_before_sim == (base) &&		\
		      (r).length_after == (after),			\
		      "replay %" PRIu64 " (want %d) -> %" PRIu64		\
		      " (want %d)", (r).length_before_sim, (base),	\
		      (r).length_after, (after))

/*
 * Wake-up latency at a barrier and a join, by hand.  T1 works 30 in slow
 * and arrives last; T0 (arrived at 10) departs 5 after it, T2 (arrived at
 * 20) 7 after; T2 works 50 in tail and exits at 87; T0 joins T1 (gone at
 * 31) at 40 without waiting, and T2 3 after its exit: the run ends at 90.
 * The ideal machine: departures at 30, end 80.  Paying the latencies:
 *   unscaled     departures 35, 30, 37; T2 ends 87; end 87 + 3 = 90
 *   slow x 0.5   T1 arrives 15: T0 departs 20; T2, arriving at 20, finds
 *                the barrier open and pays nothing; T2 ends 70; end 73
 *   tail x 0.1   T2 ends 42; T0 arrives at the join at 40: end 45
 */
static void wake_barrier(struct synth *s)
{
	uint32_t b;

	synth_init(s);
	synth_symbol(s, 0x100, 0x10, "slow");
	synth_symbol(s, 0x200, 0x10, "tail");
	synth_start(s, 0, -1);
	b = synth_obj(s, 0, CP_OBJ_BARRIER, 3);
	synth_spawn(s, 2);
	synth_barrier(s, 0, 10, 25, b);
	synth_call(s, 1, 0x100, 30);
	synth_barrier(s, 1, 0, 0, b);
	synth_barrier(s, 2, 20, 17, b);
	synth_exit(s, 1, 1);
	synth_call(s, 2, 0x200, 50);
	synth_exit(s, 2, 0);
	synth_join(s, 0, 5, false, 1);
	synth_join(s, 0, 50, true, 2);
	synth_exit(s, 0, 0);
}

START_TEST(test_whatif_wake_barrier)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;

	wake_barrier(&s);
	load(&s, &f);
	r = whatif_machine(&f, "slow", 1.0, 0, true);
	ASSERT_SIM(r, 90, 90);
	r = whatif_machine(&f, "slow", 0.5, 0, true);
	ASSERT_SIM(r, 90, 73);
	r = whatif_machine(&f, "tail", 0.1, 0, true);
	ASSERT_SIM(r, 90, 45);
	/* the ideal machine, and the fixed graph, know no latency */
	r = whatif_machine(&f, "slow", 0.5, 0, false);
	ASSERT_SIM(r, 80, 70);
	ck_assert_msg(r.length_before == 80 && r.length_after_fixed == 70,
		      "fixed %" PRIu64 " -> %" PRIu64, r.length_before,
		      r.length_after_fixed);
	r = whatif_machine(&f, "tail", 0.1, 0, false);
	ASSERT_SIM(r, 80, 35);
	unload(&f);
	synth_free(&s);
}
END_TEST

/*
 * Wake-up latency at a lock hand-over.  T1 holds L from 0 and works 20 in
 * crit1; T2 works 10 in pre, requests L and resumes 4 after T1's unlock,
 * at 24, then works 10 in crit2; T0 joins T1 at 20, and T2 at 36, 2 after
 * its exit.  Ideal machine: 30.  Paying the latencies: 36 unscaled;
 * crit1 x 0.25 unlocks at 5, before T2's request at 10, so T2 takes L at
 * once and ends at 20 (T0 waited, so the join pays 2): 22; crit1 x 0.75
 * unlocks at 15 while T2 waits: T2 resumes at 19, ends 29; end 31.
 */
START_TEST(test_whatif_wake_lock)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;
	uint32_t l;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "crit1");
	synth_symbol(&s, 0x200, 0x10, "pre");
	synth_symbol(&s, 0x300, 0x10, "crit2");
	synth_start(&s, 0, -1);
	l = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	synth_spawn(&s, 2);
	synth_lock(&s, 1, 0, 0, l);
	synth_call(&s, 1, 0x100, 20);
	synth_unlock(&s, 1, 0, l);
	synth_exit(&s, 1, 0);
	synth_call(&s, 2, 0x200, 10);
	synth_lock(&s, 2, 0, 14, l);
	synth_call(&s, 2, 0x300, 10);
	synth_unlock(&s, 2, 0, l);
	synth_exit(&s, 2, 0);
	synth_join(&s, 0, 20, true, 1);
	synth_join(&s, 0, 16, true, 2);
	synth_exit(&s, 0, 0);
	load(&s, &f);
	r = whatif_machine(&f, "crit1", 1.0, 0, true);
	ASSERT_SIM(r, 36, 36);
	r = whatif_machine(&f, "crit1", 0.25, 0, true);
	ASSERT_SIM(r, 36, 22);
	r = whatif_machine(&f, "crit1", 0.75, 0, true);
	ASSERT_SIM(r, 36, 31);
	r = whatif_machine(&f, "crit1", 0.75, 0, false);
	ASSERT_SIM(r, 30, 25);
	unload(&f);
	synth_free(&s);
}
END_TEST

/*
 * A child's start latency: main creates T1 at 10, T1 starts at 13, works
 * 100 in child and exits at 113; main joins it at 115 and exits at 122.
 * Ideal machine: 117, and 67 with child halved.  Paying the latencies:
 * 122, and with child halved T1 ends at 63, main joins at 65: 72.
 */
START_TEST(test_whatif_wake_start)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "child");
	synth_start(&s, 0, -1);
	synth_create(&s, 0, 10, 1);
	synth_start_late(&s, 1, 0, 3);
	synth_call(&s, 1, 0x100, 100);
	synth_exit(&s, 1, 0);
	synth_join(&s, 0, 105, true, 1);
	synth_exit(&s, 0, 7);
	load(&s, &f);
	r = whatif_machine(&f, "child", 1.0, 0, true);
	ASSERT_SIM(r, 122, 122);
	r = whatif_machine(&f, "child", 0.5, 0, true);
	ASSERT_SIM(r, 122, 72);
	r = whatif_machine(&f, "child", 0.5, 0, false);
	ASSERT_SIM(r, 117, 67);
	unload(&f);
	synth_free(&s);
}
END_TEST

static uint32_t urand(unsigned *seed, uint32_t n)
{
	return (uint32_t)rand_r(seed) % n;
}

/*
 * Random barrier traces with random wake-up latencies, their timestamps
 * computed as a machine would produce them: the replay that pays the
 * latencies gives the recorded end exactly, the ideal machine the critical
 * path; with the work halved, paying latencies never predicts a shorter
 * run than the ideal machine does, nor a longer one than the unscaled
 * replay.
 */
START_TEST(test_whatif_wake_random)
{
	unsigned seed = 11;

	for (int iter = 0; iter < 200; iter++) {
		struct synth s;
		struct fixture f;
		struct cp_whatif_result r, ideal;
		uint32_t nt = 2 + urand(&seed, 4), b;
		uint64_t c[8] = { 0 }, a[8], end;

		b = random_begin(&s, nt);
		for (int round = 0; round < 3; round++) {
			uint64_t m = 0;

			for (uint32_t i = 0; i < nt; i++) {
				uint64_t w = 1 + urand(&seed, 50);

				synth_call(&s, i, 0x100, w);
				a[i] = c[i] + w;
				m = a[i] > m ? a[i] : m;
			}
			for (uint32_t i = 0; i < nt; i++) {
				uint64_t wait = a[i] < m ? m - a[i] +
					urand(&seed, 10) : 0;

				synth_barrier(&s, i, 0, wait, b);
				c[i] = a[i] + wait;
			}
		}
		for (uint32_t i = 1; i < nt; i++)
			synth_exit(&s, i, 0);
		end = c[0];
		for (uint32_t i = 1; i < nt; i++) {
			uint64_t at = c[i] > end ? c[i] + urand(&seed, 10)
						 : end;

			synth_join(&s, 0, at - end, c[i] > end, i);
			end = at;
		}
		synth_exit(&s, 0, 0);
		load(&s, &f);
		r = whatif_machine(&f, "w", 1.0, 0, true);
		ideal = whatif_machine(&f, "w", 1.0, 0, false);
		ck_assert_msg(r.length_before_sim == end &&
			      ideal.length_before_sim == ideal.length_before,
			      "iter %d: replay %" PRIu64 " (recorded end %"
			      PRIu64 "), ideal %" PRIu64 " (CP %" PRIu64 ")",
			      iter, r.length_before_sim, end,
			      ideal.length_before_sim, ideal.length_before);
		r = whatif_machine(&f, "w", 0.5, 0, true);
		ideal = whatif_machine(&f, "w", 0.5, 0, false);
		ck_assert_msg(r.length_after >= ideal.length_after &&
			      r.length_after <= r.length_before_sim,
			      "iter %d: halved %" PRIu64 ", ideal %" PRIu64
			      ", unscaled %" PRIu64, iter, r.length_after,
			      ideal.length_after, r.length_before_sim);
		unload(&f);
		synth_free(&s);
	}
}
END_TEST

/* One scaling on @cpus processors, simulated without a deadlock. */
static struct cp_whatif_result whatif_cpus(struct fixture *f,
					   const char *name, double factor,
					   uint32_t cpus)
{
	struct cp_whatif_result r = whatif_on(f, name, factor, cpus);

	ck_assert_msg(r.simulated && !r.deadlock && r.cpus == cpus,
		      "simulated %d deadlock %d cpus %u", r.simulated,
		      r.deadlock, r.cpus);
	return r;
}

/*
 * Fewer processors than threads, by hand.  Three threads work 60 each
 * from time 0 while main waits to join them: on 2 processors each runs
 * at 2/3 speed, 90 in all; on 1, 180; on 3 or more, 60.  The lock example
 * (T1 30 + 10 in crit, T2 20 + 10) on one processor: 70, the sum of the
 * work; with work1 halved T2 waits for the lock from 20 to 25, when only
 * T1 runs: 55.  On 2 processors it is the ideal machine: 40 and 35.
 */
START_TEST(test_whatif_fewer_cpus)
{
	struct synth s;
	struct fixture f;
	struct cp_whatif_result r;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "w");
	synth_start(&s, 0, -1);
	for (uint32_t i = 1; i <= 3; i++) {
		synth_create(&s, 0, 0, i);
		synth_start(&s, i, 0);
		synth_call(&s, i, 0x100, 60);
		synth_exit(&s, i, 0);
	}
	for (uint32_t i = 1; i <= 3; i++)
		synth_join(&s, 0, 0, true, i);
	synth_exit(&s, 0, 0);
	load(&s, &f);
	r = whatif_cpus(&f, "w", 1.0, 2);
	ck_assert_msg(r.length_before_sim == 90 && r.length_after == 90,
		      "2 cpus: %" PRIu64 " / %" PRIu64, r.length_before_sim,
		      r.length_after);
	ck_assert_msg(r.length_before == 60, "CP %" PRIu64, r.length_before);
	r = whatif_cpus(&f, "w", 0.5, 2);
	ck_assert_msg(r.length_after == 45, "2 cpus, halved: %" PRIu64,
		      r.length_after);
	r = whatif_cpus(&f, "w", 1.0, 1);
	ck_assert_msg(r.length_after == 180, "1 cpu: %" PRIu64,
		      r.length_after);
	r = whatif_cpus(&f, "w", 1.0, 3);
	ck_assert_msg(r.length_after == 60, "3 cpus: %" PRIu64,
		      r.length_after);
	r = whatif_cpus(&f, "w", 1.0, 8);
	ck_assert_msg(r.length_after == 60, "8 cpus: %" PRIu64,
		      r.length_after);
	unload(&f);
	synth_free(&s);

	lock_reorder(&s);
	load(&s, &f);
	r = whatif_cpus(&f, "work1", 1.0, 1);
	ck_assert_msg(r.length_after == 70, "lock, 1 cpu: %" PRIu64,
		      r.length_after);
	r = whatif_cpus(&f, "work1", 0.5, 1);
	ck_assert_msg(r.length_after == 55, "lock, 1 cpu, halved: %" PRIu64,
		      r.length_after);
	r = whatif_cpus(&f, "work1", 0.5, 2);
	ck_assert_msg(r.length_before_sim == 40 && r.length_after == 35,
		      "lock, 2 cpus: %" PRIu64 " / %" PRIu64,
		      r.length_before_sim, r.length_after);
	unload(&f);
	synth_free(&s);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Random barrier-separated rounds on P processors against the closed
 * form of processor sharing: in a round whose n works sorted are
 * d1 <= ... <= dn, the stretch from d(k-1) to dk runs n-k+1 threads,
 * so it takes (dk - d(k-1)) max(1, (n-k+1)/P).  Also: more processors
 * never make a run longer, and P >= threads is the ideal machine.
 */
START_TEST(test_whatif_fewer_cpus_random)
{
	unsigned seed = 11;

	for (int iter = 0; iter < 200; iter++) {
		struct synth s;
		struct fixture f;
		struct cp_whatif_result r;
		uint32_t nt = 2 + rand_r(&seed) % 5, b;
		uint32_t cpus = 1 + rand_r(&seed) % (nt + 1);
		double want = 0;
		uint64_t prev_len = UINT64_MAX, ideal;

		b = random_begin(&s, nt);
		for (int round = 0; round < 3; round++) {
			uint64_t d[8];

			for (uint32_t i = 0; i < nt; i++) {
				d[i] = 1 + rand_r(&seed) % 1000;
				synth_enter(&s, i, 0, 0x100);
				synth_leave(&s, i, d[i]);
				synth_barrier(&s, i, 0, 0, b);
			}
			qsort(d, nt, sizeof(d[0]), cmp_u64);
			for (uint32_t k = 0; k < nt; k++) {
				double run = nt - k;

				want += (double)(d[k] - (k ? d[k - 1] : 0)) *
					(run > cpus ? run / cpus : 1.0);
			}
		}
		random_end(&s, nt);
		load(&s, &f);
		r = whatif_cpus(&f, "w", 1.0, cpus);
		ck_assert_msg(fabs((double)r.length_after - want) <= 1.0,
			      "iter %d: %u threads on %u cpus: %" PRIu64
			      ", closed form %.1f", iter, nt, cpus,
			      r.length_after, want);
		ideal = whatif(&f, "w", 1.0).length_after;
		for (uint32_t p = 1; p <= nt + 1; p++) {
			uint64_t len;

			len = whatif_cpus(&f, "w", 1.0, p).length_after;

			ck_assert_msg(len <= prev_len && len >= ideal,
				      "iter %d: %u cpus: %" PRIu64 " (fewer: %"
				      PRIu64 ", ideal %" PRIu64 ")", iter, p,
				      len, prev_len, ideal);
			if (p >= nt)
				ck_assert_msg(len == ideal, "iter %d: %u cpus "
					      "%" PRIu64 " != ideal %" PRIu64,
					      iter, p, len, ideal);
			prev_len = len;
		}
		unload(&f);
		synth_free(&s);
	}
}
END_TEST

static Suite *whatif_suite(void)
{
	Suite *s = suite_create("whatif");
	TCase *tc = tcase_create("whatif");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_whatif_lock_reorder);
	tcase_add_test(tc, test_whatif_rwlock_reader_first);
	tcase_add_test(tc, test_whatif_rwlock_writer_first);
	tcase_add_test(tc, test_whatif_rwlock_ordered);
	tcase_add_test(tc, test_whatif_rwlock_write_only);
	tcase_add_test(tc, test_whatif_barrier);
	tcase_add_test(tc, test_whatif_semaphore_order);
	tcase_add_test(tc, test_whatif_cond_follows_signal);
	tcase_add_test(tc, test_whatif_queue_items);
	tcase_add_test(tc, test_whatif_create_join);
	tcase_add_test(tc, test_whatif_nested_scaling);
	tcase_add_test(tc, test_whatif_trywait_forced);
	tcase_add_test(tc, test_whatif_deadlock_falls_back);
	tcase_add_test(tc, test_whatif_rejects_unknown_name);
	tcase_add_test(tc, test_whatif_each);
	tcase_add_test(tc, test_whatif_text_pag);
	tcase_add_test(tc, test_whatif_random_identity);
	tcase_add_test(tc, test_whatif_fewer_cpus);
	tcase_add_test(tc, test_whatif_fewer_cpus_random);
	tcase_add_test(tc, test_whatif_wake_barrier);
	tcase_add_test(tc, test_whatif_wake_lock);
	tcase_add_test(tc, test_whatif_wake_start);
	tcase_add_test(tc, test_whatif_wake_random);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(whatif_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
