/*
 * check_agree.c - online and offline analysis of the same run agree.
 *
 * Each known-by-construction workload runs once in CPTHREAD_MODE=trace
 * (linked build), under each clock.  The online report written at exit
 * and `cpt report TRACE --format json` on the trace of that same run see
 * the same timestamps, so they must give the same critical path length
 * and the same CP share (cp_ns) and CP zeroing (cp_zero_ns) of every
 * selected procedure, up to rounding: 1 us.  The online length is also
 * held against the hand-computed one (cpu clock: 2%, at least 1 ms, plus
 * the run's disturbance, which must stay under its limit; see
 * cpt_workloads.h), so an agreement on a wrong answer does not pass.
 *
 * The streaming analysis (`cpt report --stream`, cp_stream.h) of the same
 * trace must give cpt's in-memory length and every selected procedure's
 * CP zeroing exactly, to the nanosecond, and its CP share too (these
 * workloads' critical paths are unique), every thread's times, calls and
 * CP time, every object's figures (operations, waits, time waited and
 * held, CP held, CP edges, path gain); and `cpt whatif --stream` the
 * in-memory whatif's (`--in-memory`) both predictions exactly: the
 * fixed graph's (length_after_fixed), the replay's with nothing scaled
 * and with the scaling (length_before_sim, length_after, its reordered
 * and forced acquires; cp_stream_replay.h) and the scaled time, scaling
 * the workload's procedures by 0.5 and 2 at once (inclusive) and the
 * first by 0 (--exclusive); a workload without procedures is not tried.
 *
 * Skipped (exit code 77, which ctest reports as skipped) while cpt is not
 * built.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cpt_skip.h"
#include "cpt_harness.h"
#include "cpt_workloads.h"

#define AGREE_NS 1000.0		/* rounding allowed, ns */

static const char *const clocks[] = { "cpu", "wall" };

static void cmp_ns(struct cpt_errs *e, const char *what, double online,
		   double offline)
{
	if (isnan(online) || isnan(offline))
		cpt_errf(e, "  %s: online %.0f ns, offline %.0f ns (missing)",
			 what, online, offline);
	else if (fabs(online - offline) > AGREE_NS)
		cpt_errf(e, "  %s: online %.0f ns, offline %.0f ns "
			 "(differ by %+.0f ns)", what, online, offline,
			 offline - online);
}

/* Exactly equal (both from the trace: no rounding). */
static void cmp_exact(struct cpt_errs *e, const char *what, double mem,
		      double stream)
{
	if (isnan(mem) || isnan(stream) || mem != stream)
		cpt_errf(e, "  %s: in memory %.0f ns, streamed %.0f ns", what,
			 mem, stream);
}

/* Run cpt with @args (a verb and its arguments), its stdout loaded as
 * JSON into @s; false, with a line in @e and @s freed, if that failed. */
static bool run_json(struct cpt_errs *e, struct cpt_run *s,
		     const char **args)
{
	ck_assert_int_eq(cpt_run_program(s, CPT_CPT, args, NULL, 120,
					 false), 0);
	snprintf(s->report_path, sizeof(s->report_path), "%s/stdout", s->dir);
	if (cpt_run_exit_code(s) != 0 || cpt_run_load_report(s) != 0) {
		cpt_errf(e, "  cpt %s %s: exit %d, %s: %.300s", args[0],
			 args[1], cpt_run_exit_code(s), s->report_error,
			 s->err);
		cpt_run_free(s);
		return false;
	}
	return true;
}

/* The numbers @keys of JSON objects @m (in memory) and @st (streamed),
 * each exactly equal; @what names them. */
static void same_keys(struct cpt_errs *e, const char *what, json_t *m,
		      json_t *st, const char *const *keys)
{
	char field[128];

	for (int k = 0; keys[k]; k++) {
		snprintf(field, sizeof(field), "streamed %s %s", what,
			 keys[k]);
		cmp_exact(e, field, cpt_json_num(m, keys[k]),
			  cpt_json_num(st, keys[k]));
	}
}

/* Arrays @key of the reports @mem and @str: the same length, element i
 * of one equal to element i of the other in @keys. */
static void same_array(struct cpt_errs *e, json_t *mem, json_t *str,
		       const char *key, const char *const *keys)
{
	json_t *a = json_object_get(mem, key), *b = json_object_get(str, key);
	char what[64];

	if (!json_is_array(a) || !json_is_array(b) ||
	    json_array_size(a) != json_array_size(b)) {
		cpt_errf(e, "  %s: %zu in memory, %zu streamed", key,
			 json_array_size(a), json_array_size(b));
		return;
	}
	for (size_t i = 0; i < json_array_size(a); i++) {
		snprintf(what, sizeof(what), "%s[%zu]", key, i);
		same_keys(e, what, json_array_get(a, i), json_array_get(b, i),
			  keys);
	}
}

/* The figures of the run, a thread and an object that streaming must
 * give. */
static const char *const rkeys[] = { "elapsed_ns", "cpu_ns", "wait_ns",
	"parallelism", "max_parallelism", NULL };
static const char *const tkeys[] = { "tid", "elapsed_ns", "useful_ns",
	"wait_ns", "cp_ns", "len_ns", "calls", NULL };
static const char *const okeys[] = { "id", "ops", "contended", "wait_ns",
	"cp_gain_ns", "held_ns", "cp_held_ns", "cp_edges", NULL };

/* `cpt report --stream` of @trace against cpt's in-memory @mem report. */
static void stream_agrees(struct cpt_errs *e, const struct workload *w,
			  const char *trace, json_t *mem)
{
	const char *args[] = { "report", "--stream", trace, "--format",
			       "json", NULL };
	struct cpt_run s;

	if (!run_json(e, &s, args))
		return;
	cmp_exact(e, "streamed critical_path.length_ns",
		  cpt_json_num(mem, "critical_path.length_ns"),
		  cpt_json_num(s.report, "critical_path.length_ns"));
	same_keys(e, "report", mem, s.report, rkeys);
	for (int i = 0; i < MAX_PROCS && w->procs[i].name; i++) {
		json_t *m = cpt_json_proc(mem, w->procs[i].name);
		json_t *st = cpt_json_proc(s.report, w->procs[i].name);
		char field[96];

		if (!m || !st) {
			cpt_errf(e, "  procedure %s: missing when streamed",
				 w->procs[i].name);
			continue;
		}
		snprintf(field, sizeof(field), "streamed %s cp_zero_ns",
			 w->procs[i].name);
		cmp_exact(e, field, cpt_json_num(m, "cp_zero_ns"),
			  cpt_json_num(st, "cp_zero_ns"));
		snprintf(field, sizeof(field), "streamed %s cp_ns",
			 w->procs[i].name);
		cmp_exact(e, field, cpt_json_num(m, "cp_ns"),
			  cpt_json_num(st, "cp_ns"));
	}
	same_array(e, mem, s.report, "threads_detail", tkeys);
	same_array(e, mem, s.report, "objects", okeys);
	cpt_run_free(&s);
}

/*
 * `cpt whatif --stream` of @trace against the in-memory whatif: both
 * predictions and the time scaled, exactly.  Inclusive: the
 * first procedure x 0.5 and the second (if any) x 2; exclusive: the first
 * x 0.
 */
static void whatif_agrees(struct cpt_errs *e, const struct workload *w,
			  const char *trace)
{
	static const char *const keys[] = { "length_before",
					     "length_after_fixed",
					     "scaled_ns", "length_before_sim",
					     "length_after", "reordered",
					     "forced" };
	char s1[128], s2[128];

	if (!w->procs[0].name)
		return;
	snprintf(s1, sizeof(s1), "%s=0.5", w->procs[0].name);
	snprintf(s2, sizeof(s2), "%s=2", w->procs[1].name ?
		 w->procs[1].name : w->procs[0].name);
	for (int excl = 0; excl < 2; excl++) {
		const char *mode = excl ? "--exclusive" : "--inclusive";
		const char *args[] = { "whatif", trace, "--format", "json",
				       "--scale", s1, "--scale", s2,
				       "--in-memory", NULL, NULL };
		struct cpt_run m, s;
		char what[400];

		if (excl) {
			snprintf(s1, sizeof(s1), "%s=0", w->procs[0].name);
			args[6] = "--exclusive";
			args[7] = "--in-memory";
			args[8] = NULL;
		}
		if (!run_json(e, &m, args))
			continue;
		args[excl ? 7 : 8] = "--stream";
		if (!run_json(e, &s, args)) {
			cpt_run_free(&m);
			continue;
		}
		for (int k = 0; k < 7; k++) {
			snprintf(what, sizeof(what), "whatif %s %s%s%s %s",
				 mode, s1, excl ? "" : " ", excl ? "" : s2,
				 keys[k]);
			cmp_exact(e, what, cpt_json_num(m.report, keys[k]),
				  cpt_json_num(s.report, keys[k]));
		}
		cpt_run_free(&s);
		cpt_run_free(&m);
	}
}

/* Runs of a workload under the cpu clock, at most, to find one disturbed
 * no more than cpt_wl_cpu_dist_limit() allows: as many as check_online
 * makes of the same workloads.  The wall clock's figures are only held
 * against cpt's analysis of the same trace, which no disturbance changes:
 * one run. */
#define AGREE_CPU_TRIES 4

START_TEST(test_agree_online_offline)
{
	const struct workload *w = cpt_wl_all[_i / 2];
	const char *clock = clocks[_i % 2];
	char env_clock[64], env_funcs[256], what[160];
	const char *env[] = { env_clock, env_funcs, "CPTHREAD_MODE=trace",
			      "CPTHREAD_QUIET=1", NULL };
	bool cpu = strcmp(clock, "cpu") == 0;
	struct cpt_run r, c;
	struct cpt_errs e;
	double on_len;
	int n;

	CPT_SKIP_IF(CPT_LIBOMP && !strcmp(w->prog, "omp"), "OpenMP built "
		    "on LLVM's libomp (clang), which the tracer does not model");
	snprintf(env_clock, sizeof(env_clock), "CPTHREAD_CLOCK=%s", clock);
	snprintf(env_funcs, sizeof(env_funcs), "CPTHREAD_FUNCS=%s", w->funcs);
	snprintf(what, sizeof(what), "workload %s%s%s, trace mode, "
		 "CPTHREAD_CLOCK=%s", w->prog, w->arg ? " " : "",
		 w->arg ? w->arg : "", clock);
	memset(&r, 0, sizeof(r));
	n = cpt_wl_least_disturbed(&r, w, CPT_LINKED, env,
				   cpu ? AGREE_CPU_TRIES : 1,
				   cpt_wl_cpu_dist_limit(w));
	ck_assert_msg(n > 0, "%s: cannot run the workload", what);
	ck_assert_msg(cpt_run_exit_code(&r) == 0 && r.report,
		      "%s: exit %d, %s; stderr %.300s", what,
		      cpt_run_exit_code(&r), r.report_error, r.err);
	{
		const char *cargs[] = { "report", r.trace_path, "--format",
					"json", NULL };

		ck_assert_int_eq(cpt_run_program(&c, CPT_CPT, cargs, NULL, 120,
						 false), 0);
	}
	ck_assert_msg(cpt_run_exit_code(&c) == 0,
		      "%s: cpt report %s exited %d: %.400s", what,
		      r.trace_path, cpt_run_exit_code(&c), c.err);
	snprintf(c.report_path, sizeof(c.report_path), "%s/stdout", c.dir);
	ck_assert_msg(cpt_run_load_report(&c) == 0,
		      "%s: cpt report output is not JSON: %s", what,
		      c.report_error);

	cpt_errs_init(&e);
	on_len = cpt_json_num(r.report, "critical_path.length_ns");
	cmp_ns(&e, "critical_path.length_ns", on_len,
	       cpt_json_num(c.report, "critical_path.length_ns"));
	for (int i = 0; i < MAX_PROCS && w->procs[i].name; i++) {
		const char *name = w->procs[i].name;
		json_t *on = cpt_json_proc(r.report, name);
		json_t *off = cpt_json_proc(c.report, name);
		char field[96];

		if (!on || !off) {
			cpt_errf(&e, "  procedure %s: %s in "
				 "the online report, %s in cpt's", name,
				 on ? "present" : "missing",
				 off ? "present" : "missing");
			continue;
		}
		snprintf(field, sizeof(field), "%s cp_ns", name);
		cmp_ns(&e, field, cpt_json_num(on, "cp_ns"),
		       cpt_json_num(off, "cp_ns"));
		snprintf(field, sizeof(field), "%s cp_zero_ns", name);
		cmp_ns(&e, field, cpt_json_num(on, "cp_zero_ns"),
		       cpt_json_num(off, "cp_zero_ns"));
	}
	stream_agrees(&e, w, r.trace_path, c.report);
	whatif_agrees(&e, w, r.trace_path);
	if (cpu) {
		double dist = cpt_wl_disturbance(w, r.report);

		if (dist > cpt_wl_cpu_dist_limit(w))
			cpt_errf(&e, "  useful time beyond the burns: %.3f ms "
				 "(limit %.3f ms)", dist,
				 cpt_wl_cpu_dist_limit(w));
		cpt_check_ms(&e, "online critical_path.length_ns against the "
			     "hand value", w->cp, on_len / 1e6,
			     fmax(0.02 * w->cp, 1.0) + dist);
	}
	ck_assert_msg(e.n == 0, "%s (trace %s): %d mismatch(es):%s", what,
		      r.trace_path, e.n, e.buf);
	cpt_run_free(&c);
	cpt_run_free(&r);
}
END_TEST

static Suite *agree_suite(void)
{
	Suite *s = suite_create("agree");
	TCase *tc = tcase_create("online_offline");

	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc, test_agree_online_offline, 0,
			    (int)(2 * cpt_wl_count));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	if (access(CPT_CPT, X_OK) != 0) {
		printf("check_agree: skipped: the cpt analyzer is not built "
		       "(%s missing)\n", CPT_CPT);
		return 77;
	}
	sr = srunner_create(agree_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
