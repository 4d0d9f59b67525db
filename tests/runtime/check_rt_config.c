/*
 * check_rt_config.c - the CPTHREAD_* environment: good values, bad values
 * (one complaint, a safe default), and report/trace path templates.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cp_config.h"
#include "cp_trace_format.h"

static void clear_env(void)
{
	static const char *vars[] = {
		"CPTHREAD_MODE", "CPTHREAD_CLOCK", "CPTHREAD_FUNCS",
		"CPTHREAD_REPORT", "CPTHREAD_TRACE", "CPTHREAD_SAMPLE_MS",
		"CPTHREAD_QUIET", "CPTHREAD_EXCLUSIVE", "CPTHREAD_SAMPLING",
		"CPTHREAD_SAMPLING_HZ",
	};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

START_TEST(test_config_defaults)
{
	struct cp_config c;

	clear_env();
	cp_config_load(&c);
	ck_assert_int_eq(c.mode, CP_MODE_ONLINE);
	ck_assert_uint_eq(c.clock, CP_CLOCK_WALL);
	ck_assert_uint_eq(c.nfuncs, 0);
	ck_assert_uint_eq(c.sample_ms, 0);
	ck_assert(!c.quiet);
}
END_TEST

START_TEST(test_config_good_values)
{
	struct cp_config c;

	clear_env();
	setenv("CPTHREAD_MODE", "trace", 1);
	setenv("CPTHREAD_CLOCK", "cpu", 1);
	setenv("CPTHREAD_FUNCS", "read_scene,trace_tile,ns::f", 1);
	setenv("CPTHREAD_SAMPLE_MS", "25", 1);
	setenv("CPTHREAD_QUIET", "1", 1);
	cp_config_load(&c);
	ck_assert_int_eq(c.mode, CP_MODE_TRACE);
	ck_assert_uint_eq(c.clock, CP_CLOCK_CPU);
	ck_assert_uint_eq(c.nfuncs, 3);
	ck_assert_str_eq(c.funcs[0], "read_scene");
	ck_assert_str_eq(c.funcs[2], "ns::f");
	ck_assert_uint_eq(c.sample_ms, 25);
	ck_assert(c.quiet);
}
END_TEST

START_TEST(test_config_bad_values_fall_back)
{
	static const char *bad_funcs[] = { ",,a b", "a,,b", "a,", "a b",
					   "f(x)" };
	struct cp_config c;

	clear_env();
	setenv("CPTHREAD_MODE", "bogus", 1);
	setenv("CPTHREAD_CLOCK", "sundial", 1);
	setenv("CPTHREAD_SAMPLE_MS", "-3", 1);
	cp_config_load(&c);
	ck_assert_msg(c.mode == CP_MODE_OFF, "bad mode gave %d", c.mode);
	ck_assert_uint_eq(c.clock, CP_CLOCK_WALL);
	ck_assert_uint_eq(c.sample_ms, 0);
	for (size_t i = 0; i < sizeof(bad_funcs) / sizeof(bad_funcs[0]); i++) {
		setenv("CPTHREAD_FUNCS", bad_funcs[i], 1);
		cp_config_load(&c);
		ck_assert_msg(c.nfuncs == 0, "'%s' selected %u procedures",
			      bad_funcs[i], c.nfuncs);
	}
}
END_TEST

START_TEST(test_config_sampling)
{
	static const char *const names[] = { "auto", "perf", "timer", "off" };
	static const char *const bad_hz[] = { "0", "-5", "fast", "20001" };
	struct cp_config c;

	clear_env();
	cp_config_load(&c);
	ck_assert_int_eq(c.sampling, CP_SAMPLING_AUTO);
	ck_assert_uint_eq(c.sampling_hz, CP_SAMPLING_HZ_DEFAULT);
	for (unsigned i = 0; i < 4; i++) {
		setenv("CPTHREAD_SAMPLING", names[i], 1);
		cp_config_load(&c);
		ck_assert_msg(c.sampling == (enum cp_sampling)i,
			      "'%s' gave %d", names[i], c.sampling);
	}
	setenv("CPTHREAD_SAMPLING", "often", 1);
	setenv("CPTHREAD_SAMPLING_HZ", "997", 1);
	cp_config_load(&c);
	ck_assert_int_eq(c.sampling, CP_SAMPLING_AUTO);
	ck_assert_uint_eq(c.sampling_hz, 997);
	for (size_t i = 0; i < sizeof(bad_hz) / sizeof(bad_hz[0]); i++) {
		setenv("CPTHREAD_SAMPLING_HZ", bad_hz[i], 1);
		cp_config_load(&c);
		ck_assert_msg(c.sampling_hz == CP_SAMPLING_HZ_DEFAULT,
			      "'%s' gave %u Hz", bad_hz[i], c.sampling_hz);
	}
}
END_TEST

START_TEST(test_config_path_templates)
{
	char out[256];

	cp_config_path("", "json", 42, false, out, sizeof(out));
	ck_assert_str_eq(out, "cpthread.42.json");
	cp_config_path("/tmp/r-%p.json", "json", 7, false, out, sizeof(out));
	ck_assert_str_eq(out, "/tmp/r-7.json");
	/* a forked child never overwrites its parent's file */
	cp_config_path("/tmp/r.json", "json", 9, true, out, sizeof(out));
	ck_assert_str_eq(out, "/tmp/r.json.9");
	cp_config_path("/tmp/r-%p.json", "json", 9, true, out, sizeof(out));
	ck_assert_str_eq(out, "/tmp/r-9.json");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rt_config");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_config_defaults);
	tcase_add_test(tc, test_config_good_values);
	tcase_add_test(tc, test_config_bad_values_fall_back);
	tcase_add_test(tc, test_config_sampling);
	tcase_add_test(tc, test_config_path_templates);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
