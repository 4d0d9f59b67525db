/*
 * check_bench.c - the splash-bench programs' work-scaling knobs
 * (splash-bench/common/bench.c): how a fractional weight spreads over the
 * units, how -s sets a weight, and how a stretch that ends late is taken
 * off the thread's next stretch of the same knob.
 */
#include <check.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench.h"

static struct bench_knob knobs[] = {
	{ "halve_me", 2, 0 },
	{ "grow_me", 1, 0 },
	{ NULL, 0, 0 },
};

/* bench_init() with the options in @opt (NULL-terminated, writable). */
static void init_with(char **opt)
{
	static char prog[] = "check_bench";
	char *argv[8] = { prog };
	struct bench_opts o = { .threads = 1, .size = 1 };
	int argc = 1;

	while (*opt && argc < 7)
		argv[argc++] = *opt++;
	optind = 1;
	bench_init(argc, argv, &o, knobs, "unused");
}

/* Units 0..n-1 of weight w run floor(n w) times in all, each >= 1. */
START_TEST(test_bench_reps_spread_weight_over_units)
{
	static const double w[] = { 1.0, 1.5, 2.0, 2.25, 3.7 };

	for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++) {
		uint64_t sum = 0;

		for (uint64_t i = 0; i < 1000; i++) {
			unsigned r = bench_reps(w[k], i);

			ck_assert_uint_ge(r, 1);
			ck_assert_uint_le(r, (unsigned)w[k] + 1);
			sum += r;
			ck_assert_uint_eq(sum, (uint64_t)((double)(i + 1) * w[k]));
		}
	}
}
END_TEST

/* -s NAME=FACTOR sets base x FACTOR; the others keep their base. */
START_TEST(test_bench_init_sets_weights)
{
	char s[] = "-s", arg[] = "halve_me=0.5";
	char *opt[] = { s, arg, NULL };

	init_with(opt);
	ck_assert_double_eq(knobs[0].weight, 1.0);
	ck_assert_double_eq(knobs[1].weight, 1.0);
	ck_assert_double_eq(bench_stretch_owed(&knobs[1]), 0.0);
}
END_TEST

/* A preemption, as the stretch loop sees one: 50 ms without a clock read. */
static void hold_the_thread(int sig)
{
	double until = bench_now() + 0.050;

	(void)sig;
	while (bench_now() < until)
		;
}

/*
 * A stretch held up across its deadline ends late by the rest of the hold
 * and owes it; the next stretch of the knob runs that much shorter: when
 * it owes more than the whole stretch, it returns at once and owes less
 * by exactly the stretch it skipped.
 */
START_TEST(test_bench_stretch_pays_back_late_end)
{
	char s[] = "-s", arg[] = "grow_me=2";
	char *opt[] = { s, arg, NULL };
	struct itimerval in5ms = { .it_value = { .tv_usec = 5000 } };
	struct sigaction sa = { .sa_handler = hold_the_thread };
	const struct bench_knob *k = &knobs[1];
	double owed, after, t0, t1;

	init_with(opt);
	ck_assert_double_eq(k->weight, 2.0);
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);

	/* a unit whose timed part took 20 ms: its stretch is 20 ms more */
	ck_assert_int_eq(setitimer(ITIMER_REAL, &in5ms, NULL), 0);
	bench_unit_stretch(k, bench_now() - 0.020);
	owed = bench_stretch_owed(k);
	/* held 50 ms from about 5 ms in, against a 20 ms stretch */
	ck_assert_msg(owed > 0.025, "owed %.6f s after a 50 ms hold", owed);

	/* a 1 ms unit: its stretch is paid from what is owed, no loop */
	t0 = bench_now();
	bench_unit_stretch(k, t0 - 0.001);
	t1 = bench_now();
	after = bench_stretch_owed(k);
	/*
	 * The stretch it skipped is (clock read inside - start): at least
	 * 1 ms, at most 1 ms + (t1 - t0).
	 */
	ck_assert_msg(after <= owed - 0.001 + 1e-9 &&
		      after >= owed - 0.001 - (t1 - t0) - 1e-9,
		      "owed %.6f s, then %.6f s after a 1 ms unit "
		      "(took %.6f s)", owed, after, t1 - t0);
}
END_TEST

static Suite *bench_suite(void)
{
	Suite *s = suite_create("bench");
	TCase *tc = tcase_create("knobs");

	tcase_add_test(tc, test_bench_reps_spread_weight_over_units);
	tcase_add_test(tc, test_bench_init_sets_weights);
	tcase_add_test(tc, test_bench_stretch_pays_back_late_end);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(bench_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
