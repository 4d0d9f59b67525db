/*
 * check_gprof.c - gprof's call graph "total" beside its flat profile
 * (cp_gprof.c), on the output of `gprof -b -p -q` for a program whose
 * functions spend their time in a shared helper: flat self time 0 for all
 * but the helper, the call graph's totals not.
 */
#include <check.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cp_gprof.h"

static const char canned[] =
	"Flat profile:\n"
	"\n"
	"Each sample counts as 0.01 seconds.\n"
	"  %   cumulative   self              self     total           \n"
	" time   seconds   seconds    calls  ms/call  ms/call  name    \n"
	"100.00      0.40     0.40        5    80.00    80.00  helper\n"
	"  0.00      0.40     0.00        2     0.00    80.00  crit\n"
	"  0.00      0.40     0.00        1     0.00   160.00  work1\n"
	"  0.00      0.40     0.00        3     0.00    26.67  rec\n"
	"\f\n"
	"\t\t\tCall graph\n"
	"\n"
	"\n"
	"granularity: each sample hit covers 2 byte(s) for 2.50% of 0.40 "
	"seconds\n"
	"\n"
	"index % time    self  children    called     name\n"
	"                0.16    0.00       2/5           work1 [4]\n"
	"                0.16    0.00       2/5           crit [3]\n"
	"[1]    100.0    0.40    0.00       5         helper [1]\n"
	"-----------------------------------------------\n"
	"                                                 <spontaneous>\n"
	"[2]    100.0    0.00    0.40                 main [2]\n"
	"                0.00    0.16       2/2           crit [3]\n"
	"-----------------------------------------------\n"
	"[3]     40.0    0.00    0.16       2         crit [3]\n"
	"-----------------------------------------------\n"
	"[4]     40.0    0.00    0.16       1         work1 [4]\n"
	"-----------------------------------------------\n"
	"[5]     20.0    0.00    0.08       2+1       rec <cycle 1> [5]\n"
	"[6]     20.0    0.00    0.08       2+1   <cycle 1 as a whole> [6]\n"
	"-----------------------------------------------\n"
	"\n"
	"Index by function name\n"
	"\n"
	"   [3] crit                    [4] work1\n";

static void expect(const struct cp_gprof *gp, const char *name,
		   uint64_t self, uint64_t total, double pct)
{
	const struct cp_gprof_entry *e = cp_gprof_find(gp, name);

	ck_assert_msg(e, "no entry %s", name);
	ck_assert_msg(e->has_total && e->self_ns == self &&
		      e->total_ns == total && e->total_pct == pct,
		      "%s: self %" PRIu64 " total %" PRIu64 " (%.1f%%), want "
		      "%" PRIu64 " %" PRIu64 " (%.1f%%)", name, e->self_ns,
		      e->total_ns, e->total_pct, self, total, pct);
}

START_TEST(test_gprof_call_graph_totals)
{
	struct cp_gprof gp;
	char err[256] = "";

	ck_assert_msg(cp_gprof_parse(&gp, canned, strlen(canned), "canned",
				     err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(cp_gprof_has_totals(&gp), "no totals");
	expect(&gp, "helper", 400000000, 400000000, 100.0);
	expect(&gp, "crit", 0, 160000000, 40.0);
	expect(&gp, "work1", 0, 160000000, 40.0);
	expect(&gp, "rec", 0, 80000000, 20.0);
	/* main: in the call graph only, added with self 0 */
	expect(&gp, "main", 0, 400000000, 100.0);
	ck_assert_msg(gp.n == 5 && gp.total_ns == 400000000,
		      "%u entries, self total %" PRIu64, gp.n, gp.total_ns);
	ck_assert_msg(!cp_gprof_find(&gp, "<cycle 1 as a whole>"),
		      "a cycle as a whole became an entry");
	cp_gprof_free(&gp);
}
END_TEST

/* The flat profile alone (gprof -p): no totals, as before. */
START_TEST(test_gprof_flat_only)
{
	struct cp_gprof gp;
	char err[256] = "";
	const char *cg = strstr(canned, "\f\n");

	ck_assert_msg(cp_gprof_parse(&gp, canned, (size_t)(cg - canned),
				     "flat", err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(!cp_gprof_has_totals(&gp) && gp.n == 4,
		      "totals %d, %u entries", cp_gprof_has_totals(&gp), gp.n);
	cp_gprof_free(&gp);
}
END_TEST

static Suite *gprof_suite(void)
{
	Suite *s = suite_create("gprof");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_gprof_call_graph_totals);
	tcase_add_test(tc, test_gprof_flat_only);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gprof_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
