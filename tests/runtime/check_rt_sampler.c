/*
 * check_rt_sampler.c - the online split of useful time among procedures
 * found by sampling weighs each sample by the CPU time it stands for.
 *
 * A sample closes the period of CPU time since its thread's previous one;
 * a signal delivered late (a busy CPU, a CPU-time timer checked only at
 * the tick) closes a longer one.  The split must follow the CPU time, not
 * the number of samples.  Values computed by hand in each test.
 */
#include <check.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cp_sampler.h"

#define MS 1000000ull
#define F (1ull << 0)
#define G (1ull << 1)

/* f for 4 ms, then g for 12 ms (one late sample), then f and g (g calls
 * f) for 4 ms: of 20 ms of CPU, f held 8 and g 16.  An interval of 10 ms
 * gives f 4 ms and g 8 ms; counting samples would give each 2/3 of it. */
START_TEST(test_rt_sampler_split_by_weight)
{
	static struct cp_smp_tally ta;
	uint64_t part[2] = { 0, 0 };

	memset(&ta, 0, sizeof(ta));
	ck_assert_msg(!cp_smp_tally_split(&ta, 2, 10 * MS, part) &&
		      part[0] == 0 && part[1] == 0, "no samples yet: f %"
		      PRIu64 " g %" PRIu64, part[0], part[1]);
	cp_smp_tally_add(&ta, F, 4 * MS);
	cp_smp_tally_add(&ta, G, 12 * MS);
	cp_smp_tally_add(&ta, F | G, 4 * MS);
	ck_assert(cp_smp_tally_split(&ta, 2, 10 * MS, part));
	ck_assert_msg(part[0] == 4 * MS && part[1] == 8 * MS,
		      "f %" PRIu64 " ns (expected 4 ms), g %" PRIu64 " ns "
		      "(expected 8 ms)", part[0], part[1]);
	ck_assert_msg(ta.hits[0] == 2 && ta.hits[1] == 2, "samples holding "
		      "f %u, g %u (expected 2, 2)", ta.hits[0], ta.hits[1]);
}
END_TEST

/* An interval without samples is split like the latest that had some:
 * a 2 ms one after f 1 ms, neither 3 ms gives f 0.5 ms, g nothing; the
 * next interval's samples (g, 6 ms) replace them. */
START_TEST(test_rt_sampler_split_keeps_latest)
{
	static struct cp_smp_tally ta;
	uint64_t part[2] = { 0, 0 };

	memset(&ta, 0, sizeof(ta));
	cp_smp_tally_add(&ta, F, 1 * MS);
	cp_smp_tally_add(&ta, 0, 3 * MS);
	ck_assert(cp_smp_tally_split(&ta, 2, 2 * MS, part));
	ck_assert(cp_smp_tally_split(&ta, 2, 2 * MS, part));
	ck_assert_msg(part[0] == 1 * MS && part[1] == 0, "two intervals of "
		      "2 ms: f %" PRIu64 " ns (expected 1 ms), g %" PRIu64,
		      part[0], part[1]);
	cp_smp_tally_add(&ta, G, 6 * MS);
	memset(part, 0, sizeof(part));
	ck_assert(cp_smp_tally_split(&ta, 2, 3 * MS, part));
	ck_assert_msg(part[0] == 0 && part[1] == 3 * MS, "after g's sample: "
		      "f %" PRIu64 ", g %" PRIu64 " (expected 0, 3 ms)",
		      part[0], part[1]);
}
END_TEST

/* A sample of no measured CPU time (a clock that did not move) still
 * counts, as 1 ns: the split never divides by zero. */
START_TEST(test_rt_sampler_zero_weight)
{
	static struct cp_smp_tally ta;
	uint64_t part[2] = { 0, 0 };

	memset(&ta, 0, sizeof(ta));
	cp_smp_tally_add(&ta, G, 0);
	ck_assert(cp_smp_tally_split(&ta, 2, 5 * MS, part));
	ck_assert_msg(part[0] == 0 && part[1] == 5 * MS, "f %" PRIu64
		      ", g %" PRIu64 " (expected 0, 5 ms)", part[0], part[1]);
}
END_TEST

static Suite *sampler_suite(void)
{
	Suite *s = suite_create("rt_sampler");
	TCase *tc = tcase_create("split");

	tcase_add_test(tc, test_rt_sampler_split_by_weight);
	tcase_add_test(tc, test_rt_sampler_split_keeps_latest);
	tcase_add_test(tc, test_rt_sampler_zero_weight);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sampler_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
