/*
 * check_rt_items.c - work-queue items in flight (cp_items.h): a dequeue
 * takes over exactly the path of its item's latest enqueue, with the
 * selected procedures' vectors; a record is recycled at dequeue, so a
 * stream of items through a small pool of addresses keeps a handful of
 * records; an address enqueued again after its dequeue is a new instance
 * (new id, sequence 1) with the new path; an item enqueued twice keeps
 * the latest; unknown items give no edge; the report's figures count
 * every instance.
 *
 * The tests drive the thread states' paths by hand (no clock), except the
 * one with two real threads, which goes through cp_online_enqueue /
 * cp_online_dequeue.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cp_alloc.h"
#include "cp_clock.h"
#include "cp_items.h"
#include "cp_objrec.h"
#include "cp_online.h"
#include "cp_runtime.h"
#include "cp_thread.h"
#include "cp_trace_format.h"

#define NSEL 2
#define POOL 8			/* addresses a stream of items reuses */
#define NSTREAM 200000
#define NWIDE 5000		/* items in flight at once */

struct task {
	char pad[48];		/* a program's task struct */
};

static struct task pool[POOL];
static char heap[NWIDE * 64];	/* NWIDE items at scattered places */
static const void *wide[NWIDE];
static struct cp_thread *prod, *prod2, *cons;

static void setup(void)
{
	ck_assert_int_eq(cp_alloc_init(), 0);
	ck_assert_int_eq(cp_objrec_init(), 0);
	cp_items_init();
	memset(cp_objrec_retired, 0, sizeof(cp_objrec_retired));
	cp_clock_init();
	cp_rt.nsel = NSEL;
	atomic_store(&cp_rt.gen, 1);
	prod = cp_thread_new(NULL);
	prod2 = cp_thread_new(NULL);
	cons = cp_thread_new(NULL);
	ck_assert_msg(prod && prod2 && cons, "no thread state");
}

/* Give @t the path @len with shares (@s0, @s1) and no zeroing deficit. */
static void set_path(struct cp_thread *t, uint64_t len, uint64_t s0,
		     uint64_t s1)
{
	uint64_t *share = cp_path_share(t->path);

	cp_path_clear(t->path, NSEL, 1, t->tid);
	t->path->len = len;
	share[0] = s0;
	share[1] = s1;
}

static void enqueue(struct cp_thread *t, const void *item,
		    struct cp_item_ev *ev)
{
	ck_assert_int_eq(cp_items_enqueue(t, item, ev), 0);
}

static void dequeue(struct cp_thread *t, const void *item,
		    struct cp_item_ev *ev)
{
	int rc = cp_items_dequeue(t, item, 1, ev);

	ck_assert_msg(rc == 0, "dequeue of %p: %d", item, rc);
}

static void assert_path(const struct cp_thread *t, uint64_t len,
			uint64_t s0, uint64_t s1, const char *what,
			uint64_t k)
{
	const uint64_t *share = t->path->v;

	ck_assert_msg(t->path->len == len && share[0] == s0 && share[1] == s1,
		      "%s %" PRIu64 ": path %" PRIu64 " (%" PRIu64 ", %" PRIu64
		      "), expected %" PRIu64 " (%" PRIu64 ", %" PRIu64 ")",
		      what, k, t->path->len, share[0], share[1], len, s0, s1);
}

/*
 * 200,000 items through a FIFO of depth POOL whose slots are reused task
 * structs.  Item k is enqueued with path L(k) = 1000 + 3k, shares (k, 2k);
 * the consumer meets it with its own path L(k) + 5 (shares (1, 1)) when
 * k % 3 == 0, else L(k) - 5.  So after the dequeue of k the consumer's
 * path is L(k) + 5 with its own shares, or L(k) with the item's, gaining
 * 5 ns through every item with k % 3 != 0.
 */
START_TEST(test_items_stream_through_a_pool)
{
	struct cp_item_ev ev;
	uint32_t last_id = 0;
	uint64_t gain = 0;

	for (uint64_t k = 0; k < NSTREAM + POOL - 1; k++) {
		if (k < NSTREAM) {
			set_path(prod, 1000 + 3 * k, k, 2 * k);
			enqueue(prod, &pool[k % POOL], &ev);
			ck_assert_msg(ev.fresh && ev.seq == 1 &&
				      ev.id > last_id, "enqueue %" PRIu64
				      ": fresh %d seq %" PRIu64 " id %u after "
				      "%u", k, ev.fresh, ev.seq, ev.id,
				      last_id);
			last_id = ev.id;
		}
		if (k >= POOL - 1) {
			uint64_t j = k - (POOL - 1), l = 1000 + 3 * j;
			bool mine = j % 3 == 0;

			set_path(cons, mine ? l + 5 : l - 5, 1, 1);
			dequeue(cons, &pool[j % POOL], &ev);
			ck_assert_uint_eq(ev.seq, 1);
			if (mine)
				assert_path(cons, l + 5, 1, 1, "item", j);
			else
				assert_path(cons, l, j, 2 * j, "item", j);
			gain += mine ? 0 : 5;
		}
	}
	ck_assert_msg(cp_items_records() <= POOL, "%u records for %u "
		      "addresses", cp_items_records(), POOL);
	ck_assert_msg(cp_objrec_retired[CP_OBJ_ITEM].objects == NSTREAM &&
		      cp_objrec_retired[CP_OBJ_ITEM].ops == 2 * NSTREAM &&
		      cp_objrec_retired[CP_OBJ_ITEM].gain_ns == gain,
		      "item totals: %" PRIu64 " objects, %" PRIu64 " ops, %"
		      PRIu64 " ns gained; expected %u, %u, %" PRIu64,
		      cp_objrec_retired[CP_OBJ_ITEM].objects,
		      cp_objrec_retired[CP_OBJ_ITEM].ops,
		      cp_objrec_retired[CP_OBJ_ITEM].gain_ns, NSTREAM,
		      2 * NSTREAM, gain);
	ck_assert_int_eq(cp_items_dequeue(cons, &pool[0], 1, &ev), -ENOENT);
}
END_TEST

/* The address of a dequeued item, enqueued again from a shorter path:
 * its next dequeue takes the new path, not the one the address had. */
START_TEST(test_items_reenqueue_carries_new_path)
{
	struct cp_item_ev e1, e2, d;
	struct task *x = &pool[0], *y = &pool[1];

	set_path(prod, 500, 400, 100);
	enqueue(prod, x, &e1);
	set_path(cons, 100, 0, 0);
	dequeue(cons, x, &d);
	assert_path(cons, 500, 400, 100, "first dequeue of", 0);
	ck_assert_msg(d.id == e1.id && d.seq == 1, "dequeue: id %u seq %"
		      PRIu64 ", enqueue: id %u", d.id, d.seq, e1.id);

	/* y takes x's recycled record: it carries y's path */
	set_path(prod2, 70, 7, 0);
	enqueue(prod2, y, &e2);
	set_path(cons, 60, 1, 1);
	dequeue(cons, y, &d);
	assert_path(cons, 70, 7, 0, "dequeue of y", 0);

	set_path(prod2, 50, 10, 40);
	enqueue(prod2, x, &e2);
	ck_assert_msg(e2.fresh && e2.id != e1.id && e2.seq == 1,
		      "re-enqueue: fresh %d id %u (first %u) seq %" PRIu64,
		      e2.fresh, e2.id, e1.id, e2.seq);
	set_path(cons, 200, 3, 3);
	dequeue(cons, x, &d);
	assert_path(cons, 200, 3, 3, "second dequeue of", 1);
	ck_assert_msg(d.id == e2.id && d.seq == 1, "dequeue: id %u seq %"
		      PRIu64 ", enqueue: id %u", d.id, d.seq, e2.id);
	/* and from a path shorter than the new one's */
	enqueue(prod2, x, &e2);
	set_path(cons, 20, 0, 0);
	dequeue(cons, x, &d);
	assert_path(cons, 50, 10, 40, "third dequeue of", 2);
}
END_TEST

/* Enqueued twice before its dequeue: the latest enqueue wins, under the
 * same id with the next sequence.  A dequeue of an item not in flight
 * changes nothing. */
START_TEST(test_items_latest_enqueue_wins)
{
	struct cp_item_ev e1, e2, d;
	struct task *x = &pool[2];

	set_path(prod, 300, 300, 0);
	enqueue(prod, x, &e1);
	set_path(prod2, 100, 0, 100);
	enqueue(prod2, x, &e2);
	ck_assert_msg(!e2.fresh && e2.id == e1.id && e2.seq == 2,
		      "second enqueue: fresh %d id %u (first %u) seq %" PRIu64,
		      e2.fresh, e2.id, e1.id, e2.seq);
	set_path(cons, 0, 0, 0);
	dequeue(cons, x, &d);
	assert_path(cons, 100, 0, 100, "dequeue of", 0);
	ck_assert_msg(d.id == e1.id && d.seq == 2, "dequeue: id %u seq %"
		      PRIu64, d.id, d.seq);
	ck_assert_uint_eq(cp_objrec_retired[CP_OBJ_ITEM].ops, 3);

	set_path(cons, 10, 1, 2);
	ck_assert_int_eq(cp_items_dequeue(cons, x, 1, &d), -ENOENT);
	ck_assert_int_eq(cp_items_dequeue(cons, &pool[3], 1, &d), -ENOENT);
	assert_path(cons, 10, 1, 2, "dequeue of unknown", 0);
}
END_TEST

/*
 * Addresses of NWIDE items scattered over heap[] (distinct, 8-aligned,
 * pseudo-random).  Evenly spaced ones would not do: the multiplicative
 * hash spreads an arithmetic progression over distinct slots, and the
 * test wants probe runs.
 */
static void scatter(void)
{
	static uint8_t taken[sizeof(heap) / 8];
	uint64_t x = 88172645463325252ull;

	memset(taken, 0, sizeof(taken));
	for (unsigned i = 0; i < NWIDE;) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (taken[x % sizeof(taken)])
			continue;
		taken[x % sizeof(taken)] = 1;
		wide[i++] = heap + 8 * (x % sizeof(taken));
	}
}

/* Items sharing a home slot in a table of @slots: the probe runs. */
static unsigned collisions(uint32_t slots)
{
	static uint8_t seen[1u << 16];
	unsigned n = 0;

	memset(seen, 0, sizeof(seen));
	for (unsigned i = 0; i < NWIDE; i++) {
		uint32_t h = cp_cache_home(cp_objrec_key(wide[i],
				CP_NS_ITEM)) & (slots - 1);

		n += seen[h];
		seen[h] = 1;
	}
	return n;
}

/*
 * Many items in flight at once, dequeued in a scrambled order: the table
 * grows, and removals (which move other items' slots back) never lose or
 * mix up an item.  Then a second wave reuses the records of the first.
 */
START_TEST(test_items_many_in_flight)
{
	struct cp_item_ev ev;

	scatter();
	/* 5000 items: a table of 16384 slots */
	ck_assert_msg(collisions(16384) > 200, "only %u items share a home "
		      "slot", collisions(16384));
	for (int wave = 0; wave < 2; wave++) {
		for (uint64_t i = 0; i < NWIDE; i++) {
			set_path(prod, 10 + i + wave, i, wave);
			enqueue(prod, wide[i], &ev);
		}
		for (uint64_t n = 0; n < NWIDE; n++) {
			uint64_t i = (n * 2861) % NWIDE;	/* coprime */

			set_path(cons, 0, 0, 0);
			dequeue(cons, wide[i], &ev);
			assert_path(cons, 10 + i + wave, i, wave, "item", i);
		}
		ck_assert_msg(cp_items_records() == NWIDE, "wave %d: %u "
			      "records for %u items", wave,
			      cp_items_records(), NWIDE);
	}
}
END_TEST

static void count_live(struct cp_objrec *r, void *arg)
{
	ck_assert_uint_eq(r->kind, CP_OBJ_ITEM);
	(*(unsigned *)arg)++;
}

/* The report sees items in flight as live objects and finished ones, of
 * any weight, in the list of the heaviest. */
START_TEST(test_items_report_figures)
{
	struct cp_objstat top[CP_OBJSTAT_TOP];
	struct cp_item_ev ev;
	unsigned live = 0;
	uint32_t n;

	for (unsigned i = 0; i < 3; i++) {
		set_path(prod, 100, 0, 0);
		enqueue(prod, &pool[i], &ev);
	}
	set_path(cons, 40, 0, 0);
	dequeue(cons, &pool[0], &ev);	/* gains 60 */
	dequeue(cons, &pool[1], &ev);	/* gains nothing */
	cp_items_for_each(count_live, &live);
	ck_assert_uint_eq(live, 1);
	n = cp_items_retired_top(top);
	ck_assert_msg(n == 2 && top[0].gain_ns == 60 && top[0].ops == 2 &&
		      top[0].addr == (uintptr_t)&pool[0] &&
		      top[0].kind == CP_OBJ_ITEM && top[1].gain_ns == 0 &&
		      top[1].addr == (uintptr_t)&pool[1],
		      "%u finished items; first %#lx gain %" PRIu64 " ops %"
		      PRIu64, n, n ? (unsigned long)top[0].addr : 0UL,
		      n ? top[0].gain_ns : 0, n ? top[0].ops : 0);
	ck_assert_uint_eq(cp_objrec_retired[CP_OBJ_ITEM].objects, 2);
	ck_assert_uint_eq(cp_objrec_retired[CP_OBJ_ITEM].gain_ns, 60);
}
END_TEST

/* A forked child starts with no item in flight. */
START_TEST(test_items_init_forgets_items_in_flight)
{
	struct cp_item_ev ev;

	enqueue(prod, &pool[0], &ev);
	cp_items_init();
	ck_assert_int_eq(cp_items_dequeue(cons, &pool[0], 1, &ev), -ENOENT);
	ck_assert_uint_eq(cp_items_records(), 0);
	enqueue(prod, &pool[0], &ev);
	dequeue(cons, &pool[0], &ev);
}
END_TEST

/* ---- two real threads through the online hooks ----------------------- */

static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcond = PTHREAD_COND_INITIALIZER;
static struct task *ring[POOL];
static unsigned qhead, qtail;
static uint64_t last_enqueued_len;

static void *producer(void *arg)
{
	(void)arg;
	cp_thread_bind(prod);
	for (unsigned k = 0; k < NSTREAM; k++) {
		pthread_mutex_lock(&qlock);
		while (qtail - qhead == POOL)
			pthread_cond_wait(&qcond, &qlock);
		ring[qtail % POOL] = &pool[qtail % POOL];
		cp_online_enqueue(prod, ring[qtail % POOL]);
		last_enqueued_len = prod->path->len;
		qtail++;
		pthread_cond_broadcast(&qcond);
		pthread_mutex_unlock(&qlock);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	cp_thread_bind(cons);
	for (unsigned k = 0; k < NSTREAM; k++) {
		pthread_mutex_lock(&qlock);
		while (qtail == qhead)
			pthread_cond_wait(&qcond, &qlock);
		cp_online_dequeue(cons, ring[qhead % POOL]);
		qhead++;
		pthread_cond_broadcast(&qcond);
		pthread_mutex_unlock(&qlock);
	}
	return NULL;
}

START_TEST(test_items_two_threads_through_a_ring)
{
	pthread_t p, c;

	ck_assert_int_eq(pthread_create(&p, NULL, producer, NULL), 0);
	ck_assert_int_eq(pthread_create(&c, NULL, consumer, NULL), 0);
	ck_assert_int_eq(pthread_join(p, NULL), 0);
	ck_assert_int_eq(pthread_join(c, NULL), 0);
	/* the last dequeue took the last enqueue's path */
	ck_assert_msg(cons->path->len >= last_enqueued_len,
		      "consumer path %" PRIu64 " below the last enqueue's %"
		      PRIu64, cons->path->len, last_enqueued_len);
	ck_assert_msg(cp_items_records() <= POOL, "%u records for %u "
		      "addresses", cp_items_records(), POOL);
	ck_assert_msg(cp_objrec_retired[CP_OBJ_ITEM].objects == NSTREAM &&
		      cp_objrec_retired[CP_OBJ_ITEM].ops == 2 * NSTREAM,
		      "item totals: %" PRIu64 " objects, %" PRIu64 " ops",
		      cp_objrec_retired[CP_OBJ_ITEM].objects,
		      cp_objrec_retired[CP_OBJ_ITEM].ops);
}
END_TEST

static Suite *items_suite(void)
{
	Suite *s = suite_create("rt_items");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_items_stream_through_a_pool);
	tcase_add_test(tc, test_items_reenqueue_carries_new_path);
	tcase_add_test(tc, test_items_latest_enqueue_wins);
	tcase_add_test(tc, test_items_many_in_flight);
	tcase_add_test(tc, test_items_report_figures);
	tcase_add_test(tc, test_items_init_forgets_items_in_flight);
	tcase_add_test(tc, test_items_two_threads_through_a_ring);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(items_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
