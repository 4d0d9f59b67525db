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

/* The staircase's shape: its entries strictly increasing in expiry and in
 * value across the blocks, every block after the front one holding some,
 * none over CP_STAIR_BLOCK.  Its message names the first break. */
static const char *shape_broken(const struct cp_stair *s)
{
	const struct cp_stair_entry *prev = NULL;

	for (uint32_t x = s->dl; x <= s->nd; x++) {
		const struct cp_stair_blk *b = x == s->dl ? &s->f :
					       &s->d[x - 1];

		if (b->n > b->cap || b->lo > b->n || b->cap > CP_STAIR_BLOCK)
			return "a block's bounds";
		if (b != &s->f && b->lo == b->n)
			return "an empty block after the front";
		for (uint32_t i = b->lo; i < b->n; i++) {
			if (prev && (b->e[i].until <= prev->until ||
				     b->e[i].val <= prev->val))
				return "the order";
			prev = &b->e[i];
		}
	}
	return NULL;
}

/*
 * One random sequence: @steps steps, each a push or a query or both, the
 * position moving on by 0 to @stride - 1; a pushed value lives for up to
 * @span positions (sometimes for ever) and is drawn from @vals values
 * (few: many ties).  @rising: a value grows with its expiry, so that few
 * are dominated and the staircase grows long; it must reach @atleast
 * entries.
 */
static void run(unsigned seed, uint32_t steps, uint32_t stride,
		uint32_t span, uint32_t vals, int rising, uint32_t atleast)
{
	static struct plain p;
	struct cp_stair s = { 0 };
	uint32_t now = 0, longest = 0;
	unsigned seed0 = seed;
	uint64_t kept;
	const char *broken;

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
		kept = cp_stair_size(&s);
		if (step % 8 == 0 && (broken = shape_broken(&s)))
			ck_abort_msg("seed %u step %u: %s", seed0, step,
				     broken);
		if (kept > longest)
			longest = (uint32_t)kept;
		if (kept > p.n)
			ck_abort_msg("seed %u: %" PRIu64 " entries kept of %u "
				     "alive", seed0, kept, p.n);
	}
	ck_assert_msg(longest >= atleast, "seed %u: the staircase held "
		      "%u entries at most, not %u", seed0, longest, atleast);
	cp_stair_free(&s);
}

START_TEST(test_stair_random)
{
	for (unsigned seed = 1; seed <= 300; seed++) {
		run(seed, 2000, 4, 40, 50, 0, 0);	/* soon, many ties */
		run(seed, 2000, 2, 400, 1000, 0, 0);	/* late, few ties */
		run(seed, 2000, 3, 30, 1u << 30, 0, 0);	/* no ties */
	}
}
END_TEST

START_TEST(test_stair_long)
{
	/* values rising with their expiry are rarely dominated: hundreds
	 * alive, the first block grows and its entries move to its front;
	 * past CP_STAIR_BLOCK, blocks split, empty and go */
	for (unsigned seed = 1; seed <= 40; seed++) {
		run(seed, 6000, 2, 2000, 8, 1, 65);
		run(seed, 6000, 3, 3000, 20, 1, 65);
		run(seed, 12000, 2, 6000, 8, 1, 3 * CP_STAIR_BLOCK);
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
	ck_assert_uint_eq(cp_stair_size(&s), 1);
	/* one that lives longer and is smaller replaces all */
	ck_assert_int_eq(cp_stair_push(&s, 9, 20, 1), 0);
	ck_assert_int_eq(cp_stair_push(&s, 1, 30, 1), 0);
	ck_assert_uint_eq(cp_stair_size(&s), 1);
	ck_assert_uint_eq(cp_stair_min(&s, 30), 1);
	ck_assert_uint_eq(cp_stair_min(&s, 31), UINT64_MAX);
	/* after everything expired, a push starts over */
	ck_assert_int_eq(cp_stair_push(&s, 4, 40, 35), 0);
	ck_assert_uint_eq(cp_stair_min(&s, 40), 4);
	cp_stair_clear(&s);
	ck_assert_uint_eq(cp_stair_min(&s, 40), UINT64_MAX);
	cp_stair_free(&s);
	ck_assert_ptr_null(s.f.e);
	ck_assert_ptr_null(s.d);
}
END_TEST

/* A copy answers every later query and push as the original does, and
 * keeps nothing of the original's arrays: of one block, and of several. */
static void copy_case(uint32_t pushes, uint64_t rise)
{
	struct cp_stair a = { 0 }, b = { 0 };
	uint32_t end = pushes / 2 + 200;

	for (uint32_t i = 0; i < pushes; i++) {
		uint64_t until = i + (i * 13) % 50;

		ck_assert_int_eq(cp_stair_push(&a, 1000 - (i * 37) % 500 +
					       rise * until, until, i / 2), 0);
	}
	(void)cp_stair_min(&a, 60);	/* entries dropped at the front */
	ck_assert_uint_gt(cp_stair_size(&a), (rise ? 2 * CP_STAIR_BLOCK : 1));
	ck_assert_int_eq(cp_stair_push(&b, 1, 100000, 0), 0);
	ck_assert_int_eq(cp_stair_copy(&b, &a), 0);	/* reuses b's */
	ck_assert_uint_eq(cp_stair_size(&b), cp_stair_size(&a));
	ck_assert_uint_ge(b.nd - b.dl, (rise ? 2 : 0));
	for (uint32_t x = b.dl; x <= b.nd; x++) {
		const void *mine = x < b.nd ? b.d[x].e : b.f.e;

		ck_assert_ptr_ne(mine, a.f.e);
		for (uint32_t y = a.dl; y < a.nd; y++)
			ck_assert_ptr_ne(mine, a.d[y].e);
	}
	for (uint32_t now = 60; now < end; now += 3) {
		ck_assert_uint_eq(cp_stair_min(&a, now), cp_stair_min(&b, now));
		ck_assert_int_eq(cp_stair_push(&a, 700 - now % 600, now + 20,
					       now), 0);
		ck_assert_int_eq(cp_stair_push(&b, 700 - now % 600, now + 20,
					       now), 0);
	}
	cp_stair_free(&a);
	cp_stair_clear(&b);
	ck_assert_int_eq(cp_stair_copy(&a, &b), 0);	/* empty */
	ck_assert_uint_eq(cp_stair_min(&a, 0), UINT64_MAX);
	cp_stair_free(&a);
	cp_stair_free(&b);
}

START_TEST(test_stair_copy)
{
	copy_case(200, 0);
	copy_case(3000, 1000);
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
