/*
 * check_sigmask.c - the program's signal masks and the sampler's signal.
 *
 * smp_mask.c starts two workers with every signal blocked (as xz does)
 * and has each spin 150 ms of its CPU time so, then unblock and re-block
 * the real-time signals, printing every mask it reads back.  Under the
 * tracer in trace mode (preloaded and linked, sampling at 1 kHz) it must
 * print exactly what it prints bare, and the workers' 300 ms of blocked
 * spinning must be sampled: at least half of its 300 samples (a blocked
 * sampler signal would leave it with none).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cpt_harness.h"

#define TIMEOUT 120

static const enum cpt_variant traced[] = { CPT_PRELOAD, CPT_LINKED };

START_TEST(test_sigmask_kept_and_sampled)
{
	const char *env[] = { "CPTHREAD_MODE=trace",
			      "CPTHREAD_SAMPLING_HZ=1000", NULL };
	struct cpt_run bare, r;
	double samples;

	ck_assert_int_eq(cpt_run_workload(&bare, "smp_mask", CPT_BARE, NULL,
					  NULL, TIMEOUT), 0);
	ck_assert_msg(cpt_run_exit_code(&bare) == 0 && strstr(bare.out,
		      "worker 1: blocked"), "bare: exit %d\n%s%s",
		      cpt_run_exit_code(&bare), bare.out, bare.err);
	ck_assert_int_eq(cpt_run_workload(&r, "smp_mask", traced[_i], NULL,
					  env, TIMEOUT), 0);
	ck_assert_msg(cpt_run_exit_code(&r) == 0, "%s: exit %d: %s",
		      cpt_variant_name(traced[_i]), cpt_run_exit_code(&r),
		      r.err);
	ck_assert_msg(strcmp(bare.out, r.out) == 0,
		      "%s: masks differ; bare:\n%s\ntraced:\n%s",
		      cpt_variant_name(traced[_i]), bare.out, r.out);
	ck_assert_msg(r.report, "%s: %s", cpt_variant_name(traced[_i]),
		      r.report_error);
	samples = cpt_json_num(r.report, "sampling.samples");
	ck_assert_msg(samples >= 150, "%s: %.0f samples of 300 ms of "
		      "spinning with every signal blocked (want >= 150)",
		      cpt_variant_name(traced[_i]), samples);
	cpt_run_free(&r);
	cpt_run_free(&bare);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sigmask");
	TCase *tc = tcase_create("masks");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 2 * TIMEOUT);
	tcase_add_loop_test(tc, test_sigmask_kept_and_sampled, 0,
			    (int)(sizeof(traced) / sizeof(traced[0])));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
