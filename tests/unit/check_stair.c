/*
 * check_stair.c - the staircase of expiring values (cp_stair.h) against a
 * plain list of every value pushed, on random sequences of pushes and
 * queries shaped like Slack's: values that expire soon or late, at the
 * back or inside the staircase, ties of value and of expiry, values that
 * never expire, and long runs that make the array grow and move.
 */
#include <check.h>
#include <inttypes.h>
#include <stdlib.h>

#include "cp_stair.h"

struct plain {
	uint64_t val[4096];
	uint32_t until[4096];
	uint32_t n;
};

/* The least value of @p alive at @now, UINT64_MAX if none. */
static uint64_t plain_min(const struct plain *p, uint32_t now)
{
	uint64_t m = UINT64_MAX;

	for (uint32_t i = 0; i < p->n; i++)
		if (p->until[i] >= now && p->val[i] < m)
			m = p->val[i];
	return m;
}

/* Forget the expired values of @p (keeps the brute force quick). */
static void plain_expire(struct plain *p, uint32_t now)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->n; i++)
		if (p->until[i] >= now) {
			p->val[n] = p->val[i];
			p->until[n++] = p->until[i];
		}
	p->n = n;
}

/*
 * One random sequence: @steps steps, each a push or a query or both, the
 * position moving on by 0 to @stride - 1; a pushed value lives for up to
 * @span positions (sometimes for ever) and is drawn from @vals values
 * (few: many ties).  @rising: a value grows with its expiry, so that few
 * are dominated and the staircase grows long.
 */
static void run(unsigned seed, uint32_t steps, uint32_t stride,
		uint32_t span, uint32_t vals, int rising)
{
	static struct plain p;
	struct cp_stair s = { 0 };
	uint32_t now = 0, longest = 0;
	unsigned seed0 = seed;

	p.n = 0;
	for (uint32_t step = 0; step < steps; step++) {
		unsigned r = (unsigned)rand_r(&seed);

		now += (uint32_t)rand_r(&seed) % stride;
		if (r % 4 != 0 && p.n < 4096) {
			uint32_t u = r % 16 == 1 ? UINT32_MAX :
				     now + (uint32_t)rand_r(&seed) % span;
			uint64_t v = (uint64_t)rand_r(&seed) % vals +
				     (rising ? (uint64_t)u : 0);

			if (cp_stair_push(&s, v, u, now))
				ck_abort_msg("seed %u: out of memory", seed0);
			p.val[p.n] = v;
			p.until[p.n++] = u;
		}
		if (r % 3 != 0) {
			uint64_t want = plain_min(&p, now);
			uint64_t got = cp_stair_min(&s, now);

			/* ck_assert_* would report each check to the
			 * parent process: only a failure is */
			if (got != want)
				ck_abort_msg("seed %u step %u at %u: staircase "
					     "%" PRIu64 ", every value %" PRIu64,
					     seed0, step, now, got, want);
		}
		plain_expire(&p, now);
		(void)cp_stair_min(&s, now);	/* drops the expired */
		if (s.n - s.lo > longest)
			longest = s.n - s.lo;
		if (s.n - s.lo > p.n)
			ck_abort_msg("seed %u: %u entries kept of %u alive",
				     seed0, s.n - s.lo, p.n);
	}
	if (rising && span > 256)
		ck_assert_msg(longest > 64, "seed %u: the staircase never "
			      "grew past its first array (%u)", seed0, longest);
	cp_stair_free(&s);
}

START_TEST(test_stair_random)
{
	for (unsigned seed = 1; seed <= 300; seed++) {
		run(seed, 2000, 4, 40, 50, 0);		/* soon, many ties */
		run(seed, 2000, 2, 400, 1000, 0);	/* late, few ties */
		run(seed, 2000, 3, 30, 1u << 30, 0);	/* no ties */
	}
}
END_TEST

START_TEST(test_stair_long)
{
	/* values rising with their expiry are rarely dominated: hundreds
	 * alive, the array grows and its entries move to its front */
	for (unsigned seed = 1; seed <= 40; seed++) {
		run(seed, 6000, 2, 2000, 8, 1);
		run(seed, 6000, 3, 3000, 20, 1);
	}
}
END_TEST

START_TEST(test_stair_edges)
{
	struct cp_stair s = { 0 };

	ck_assert_uint_eq(cp_stair_min(&s, 0), UINT64_MAX);
	/* same expiry: the smaller stays */
	ck_assert_int_eq(cp_stair_push(&s, 5, 10, 0), 0);
	ck_assert_int_eq(cp_stair_push(&s, 7, 10, 0), 0);
	ck_assert_int_eq(cp_stair_push(&s, 3, 10, 0), 0);
	ck_assert_uint_eq(cp_stair_min(&s, 10), 3);
	ck_assert_uint_eq(s.n - s.lo, 1);
	/* one that lives longer and is smaller replaces all */
	ck_assert_int_eq(cp_stair_push(&s, 9, 20, 1), 0);
	ck_assert_int_eq(cp_stair_push(&s, 1, 30, 1), 0);
	ck_assert_uint_eq(s.n - s.lo, 1);
	ck_assert_uint_eq(cp_stair_min(&s, 30), 1);
	ck_assert_uint_eq(cp_stair_min(&s, 31), UINT64_MAX);
	/* after everything expired, a push starts over */
	ck_assert_int_eq(cp_stair_push(&s, 4, 40, 35), 0);
	ck_assert_uint_eq(cp_stair_min(&s, 40), 4);
	cp_stair_clear(&s);
	ck_assert_uint_eq(cp_stair_min(&s, 40), UINT64_MAX);
	cp_stair_free(&s);
	ck_assert_ptr_null(s.e);
}
END_TEST

/* A copy answers every later query and push as the original does, and
 * keeps nothing of the original's array. */
START_TEST(test_stair_copy)
{
	struct cp_stair a = { 0 }, b = { 0 };

	for (uint32_t i = 0; i < 200; i++)
		ck_assert_int_eq(cp_stair_push(&a, 1000 - (i * 37) % 500,
					       i + (i * 13) % 50, i / 2), 0);
	(void)cp_stair_min(&a, 60);	/* entries dropped at the front */
	ck_assert_int_eq(cp_stair_push(&b, 1, 1000, 0), 0);
	ck_assert_int_eq(cp_stair_copy(&b, &a), 0);	/* reuses b's */
	ck_assert_ptr_ne(a.e, b.e);
	for (uint32_t now = 60; now < 260; now += 3) {
		ck_assert_uint_eq(cp_stair_min(&a, now), cp_stair_min(&b, now));
		ck_assert_int_eq(cp_stair_push(&a, 700 - now, now + 20, now),
				 0);
		ck_assert_int_eq(cp_stair_push(&b, 700 - now, now + 20, now),
				 0);
	}
	cp_stair_free(&a);
	cp_stair_clear(&b);
	ck_assert_int_eq(cp_stair_copy(&a, &b), 0);	/* empty */
	ck_assert_uint_eq(cp_stair_min(&a, 0), UINT64_MAX);
	cp_stair_free(&a);
	cp_stair_free(&b);
}
END_TEST

static Suite *stair_suite(void)
{
	Suite *s = suite_create("stair");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_stair_random);
	tcase_add_test(tc, test_stair_long);
	tcase_add_test(tc, test_stair_edges);
	tcase_add_test(tc, test_stair_copy);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stair_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
