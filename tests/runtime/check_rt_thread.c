/*
 * check_rt_thread.c - the thread registry and the id table that
 * pthread_join consults (cp_thread.h).
 *
 * glibc reuses a pthread_t once its thread is joined (or has ended
 * detached), so the table must: give the state published under an id;
 * publish a state once only (its creator and the thread itself race to
 * do it); let a new state take over an id; and, when a join or detach
 * removes a state, leave alone whatever state the id names by then.  The
 * states here are never bound (no clock, no trace): publishing only
 * touches the registry's fields.  Also a new generation's path, and the
 * TSC's conversion to ns.
 */
#include <check.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cp_alloc.h"
#include "cp_runtime.h"
#include "cp_thread.h"

#define MANY 3000

static pthread_t id_of(uintptr_t n)
{
	return (pthread_t)(n * 0x1000 + 0x7f0000000000ul);
}

static bool registered(const struct cp_thread *t)
{
	for (const struct cp_thread *r = cp_thread_all(); r; r = r->next)
		if (r == t)
			return true;
	return false;
}

START_TEST(test_thread_publish_once)
{
	static struct cp_thread a;

	cp_thread_publish(&a, id_of(1));
	ck_assert_msg(cp_thread_by_id(id_of(1)) == &a,
		      "id 1 gives %p, want %p", (void *)cp_thread_by_id(
		      id_of(1)), (void *)&a);
	ck_assert_msg(registered(&a), "a published state is not listed");
	/* the second publisher (the thread itself, say) changes nothing */
	cp_thread_publish(&a, id_of(2));
	ck_assert_msg(cp_thread_by_id(id_of(2)) == NULL,
		      "a second publish entered id 2 (%p)",
		      (void *)cp_thread_by_id(id_of(2)));
	ck_assert_msg(cp_thread_by_id(id_of(1)) == &a,
		      "id 1 lost its state after a second publish");
	cp_thread_unlink_id(&a);
	ck_assert_msg(cp_thread_by_id(id_of(1)) == NULL,
		      "id 1 still gives %p after the join",
		      (void *)cp_thread_by_id(id_of(1)));
	ck_assert_msg(registered(&a), "a joined state left the registry");
}
END_TEST

/* A join that removes its thread after the id was reused leaves the new
 * thread's entry: the race the stress test used to excuse. */
START_TEST(test_thread_reused_id)
{
	static struct cp_thread old, fresh;

	cp_thread_publish(&old, id_of(10));
	cp_thread_publish(&fresh, id_of(10));	/* old ended, id reused */
	ck_assert_msg(cp_thread_by_id(id_of(10)) == &fresh,
		      "reused id 10 gives %p, want the new state %p",
		      (void *)cp_thread_by_id(id_of(10)), (void *)&fresh);
	cp_thread_unlink_id(&old);
	ck_assert_msg(cp_thread_by_id(id_of(10)) == &fresh,
		      "removing the old state removed the new one (id 10 "
		      "gives %p)", (void *)cp_thread_by_id(id_of(10)));
	cp_thread_unlink_id(&fresh);
	ck_assert_msg(cp_thread_by_id(id_of(10)) == NULL,
		      "id 10 still gives %p", (void *)cp_thread_by_id(
		      id_of(10)));
}
END_TEST

/* A detached thread is listed (the report and trace count it) but never
 * joined: it stays out of the id table. */
START_TEST(test_thread_detached)
{
	static struct cp_thread d;

	d.detached = true;
	cp_thread_publish(&d, id_of(20));
	ck_assert_msg(registered(&d), "a detached state is not listed");
	ck_assert_msg(cp_thread_by_id(id_of(20)) == NULL,
		      "a detached state is in the id table");
}
END_TEST

/* Many ids (more than buckets): each found, removals exact. */
START_TEST(test_thread_many)
{
	struct cp_thread *t = calloc(MANY, sizeof(*t));

	ck_assert_ptr_nonnull(t);
	for (uintptr_t i = 0; i < MANY; i++)
		cp_thread_publish(&t[i], id_of(1000 + i));
	for (uintptr_t i = 0; i < MANY; i += 2)
		cp_thread_unlink_id(&t[i]);
	for (uintptr_t i = 0; i < MANY; i++) {
		struct cp_thread *got = cp_thread_by_id(id_of(1000 + i));
		struct cp_thread *want = i % 2 ? &t[i] : NULL;

		ck_assert_msg(got == want, "id %lu gives %p, want %p",
			      (unsigned long)(1000 + i), (void *)got,
			      (void *)want);
	}
	/* the states stay listed: t is never freed */
}
END_TEST

/*
 * cpthread_start() while a thread waits: the releaser starts the new
 * generation over and publishes 3 ms; the waiter, whose last event came
 * before the start, takes that record as its wait ends.  Its next advance
 * starts the new generation for it but keeps the 3 ms it took (they are
 * of the new generation), then counts on from there.
 */
START_TEST(test_thread_restart_keeps_a_new_path)
{
	const uint64_t ms = 1000000;
	struct cp_thread *t;
	struct cp_path rec;

	ck_assert_int_eq(cp_alloc_init(), 0);
	cp_rt.nsel = 0;
	atomic_store(&cp_rt.gen, 1);
	t = cp_thread_new(NULL);
	ck_assert_ptr_nonnull(t);
	cp_thread_advance(t, 5 * ms);
	ck_assert_msg(t->path->len == 5 * ms, "len %" PRIu64, t->path->len);
	atomic_store(&cp_rt.gen, 2);
	cp_path_clear(&rec, 0, 2, CP_PATH_MIXED);
	rec.len = 3 * ms;
	cp_thread_waited(t, 8 * ms, 3 * ms);
	cp_path_merge(t->path, &rec, 0, 2);
	cp_thread_advance(t, 9 * ms);
	ck_assert_msg(t->gen == 2 && t->path->gen == 2 &&
		      t->path->len == 3 * ms, "after the restart: gen %u, "
		      "path gen %u len %" PRIu64 ", want 2, 2, 3 ms", t->gen,
		      t->path->gen, t->path->len);
	cp_thread_advance(t, 10 * ms);
	ck_assert_msg(t->path->len == 4 * ms, "then %" PRIu64 ", want 4 ms",
		      t->path->len);
	/* a thread that took nothing new starts from an empty path */
	atomic_store(&cp_rt.gen, 3);
	cp_thread_advance(t, 11 * ms);
	ck_assert_msg(t->gen == 3 && t->path->len == 0, "gen %u len %" PRIu64
		      ", want 3, 0", t->gen, t->path->len);
}
END_TEST

/*
 * A thread's wall clock from the TSC (cp_clock_wall_tsc): (tsc - tsc0) *
 * mult >> 32 with the product taken to 128 bits.  With start-up 2^40
 * ticks back and 1.5 ns a tick the product needs 73 bits; the value read
 * must lie between the formula's at TSC reads just before and after it.
 * The calibration is the process's: restored at the end.
 */
START_TEST(test_thread_clock_tsc_scale)
{
#if defined(__x86_64__)
	const struct cp_clock_calib saved = cp_clock_calib;
	uint64_t a, b, v, lo, hi;

	cp_clock_calib.mult = 3ull << 31;
	cp_clock_calib.tsc0 = __builtin_ia32_rdtsc() - (1ull << 40);
	a = __builtin_ia32_rdtsc();
	v = cp_clock_wall_tsc();
	b = __builtin_ia32_rdtsc();
	lo = (uint64_t)(((unsigned __int128)(a - cp_clock_calib.tsc0) *
			 cp_clock_calib.mult) >> 32);
	hi = (uint64_t)(((unsigned __int128)(b - cp_clock_calib.tsc0) *
			 cp_clock_calib.mult) >> 32);
	cp_clock_calib = saved;
	ck_assert_msg(lo <= v && v <= hi && lo > (1ull << 40),
		      "wall %" PRIu64 " ns, want %" PRIu64 "..%" PRIu64, v, lo,
		      hi);
#endif
}
END_TEST

static Suite *thread_suite(void)
{
	Suite *s = suite_create("rt_thread");
	TCase *tc = tcase_create("ids");

	tcase_add_test(tc, test_thread_publish_once);
	tcase_add_test(tc, test_thread_reused_id);
	tcase_add_test(tc, test_thread_detached);
	tcase_add_test(tc, test_thread_many);
	suite_add_tcase(s, tc);
	tc = tcase_create("generations");
	tcase_add_test(tc, test_thread_restart_keeps_a_new_path);
	suite_add_tcase(s, tc);
	tc = tcase_create("clock");
	tcase_add_test(tc, test_thread_clock_tsc_scale);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(thread_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
