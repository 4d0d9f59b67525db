/*
 * check_lifecycle.c - how threads and processes begin and end under the
 * tracer.
 *
 * Each life_* workload (tests/workloads) runs bare, then preloaded, linked
 * and statically linked, in online and in trace mode.  Every traced run
 * must behave as the bare one (stdout, exit status, no hang: a run that
 * outlives RUN_TIMEOUT seconds is killed and fails), leave a JSON report
 * counting every thread the program created, and in trace mode a trace
 * that `cpt report` reads.  Where a program starts other processes, each
 * traced one has its own report (and trace).
 *
 * What check_preserve.c covers already is not repeated here: exit() from
 * a thread, fork() in a threaded program, detached threads still leaving
 * at exit, every wrapped call's return value and errno.
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpt_harness.h"

#define RUN_TIMEOUT 60

static const enum cpt_variant traced[] = {
	CPT_PRELOAD, CPT_LINKED, CPT_STATIC,
};
static const char *const modes[] = { "online", "trace" };

#define NTRACED (int)(sizeof(traced) / sizeof(traced[0]))
#define NCOMBOS (2 * NTRACED)

/* `cpt report --format json @trace`: its exit code; the report in
 * *@rep (NULL unless it exited 0 and the JSON loads; the caller's to
 * json_decref). */
static int cpt_report(const char *trace, json_t **rep, char *err, size_t n)
{
	const char *args[] = { "report", trace, "--format", "json", NULL };
	struct cpt_run c;
	int rc;

	*rep = NULL;
	ck_assert_int_eq(cpt_run_program(&c, CPT_CPT, args, NULL,
					 RUN_TIMEOUT, false), 0);
	rc = cpt_run_exit_code(&c);
	snprintf(err, n, "%.300s", c.err);
	if (rc == 0) {
		snprintf(c.report_path, sizeof(c.report_path), "%s/stdout",
			 c.dir);
		if (cpt_run_load_report(&c) == 0)
			*rep = json_incref(c.report);
	}
	cpt_run_free(&c);
	return rc;
}

/* How a report's and a trace's thread counts compare with the program's. */
enum count_rule {
	COUNT_EXACT,		/* both count every thread */
	COUNT_UNSTARTED,	/* cpt lists threads with events; some never
				 * ran, so cpt may count fewer */
	COUNT_AT_LEAST,		/* a thread the tracer may not know (made
				 * behind pthread_create's back) */
};

static const char *const rule_want[] = {
	[COUNT_EXACT] = "", [COUNT_UNSTARTED] = "at most ",
	[COUNT_AT_LEAST] = "at least ",
};

/* Does @n threads agree with @want under @rule (@in_trace: cpt's count)? */
static bool count_ok(double n, double want, enum count_rule rule,
		     bool in_trace)
{
	switch (rule) {
	case COUNT_UNSTARTED:
		return in_trace ? n >= 1 && n <= want : n == want;
	case COUNT_AT_LEAST:
		return n >= want;
	default:
		return n == want;
	}
}

/* More to check of a report (@offline: cpt's of the trace), or NULL. */
typedef void (*check_more)(struct cpt_errs *e, json_t *rep, bool offline);

/* Check a report (@rep, or the error that left none) and, when @trace is
 * not NULL, the trace: both count @threads threads as @rule says, and
 * pass @more. */
static void check_outputs(struct cpt_errs *e, json_t *rep,
			  const char *rep_err, const char *trace,
			  double threads, enum count_rule rule, check_more more)
{
	char err[400];
	json_t *off;
	double n;

	if (!rep)
		cpt_errf(e, "  no report: %s", rep_err);
	else if (!count_ok(cpt_json_num(rep, "threads"), threads, rule,
			   false))
		cpt_errf(e, "  report: %.0f threads, want %s%.0f",
			 cpt_json_num(rep, "threads"),
			 rule == COUNT_AT_LEAST ? rule_want[rule] : "",
			 threads);
	else if (more)
		more(e, rep, false);
	if (!trace)
		return;
	if (cpt_report(trace, &off, err, sizeof(err)) != 0 || !off) {
		cpt_errf(e, "  cpt report %s failed: %s", trace, err);
	} else {
		n = cpt_json_num(off, "threads");
		if (!count_ok(n, threads, rule, true))
			cpt_errf(e, "  cpt report %s: %.0f threads, want "
				 "%s%.0f", trace, n, rule_want[rule], threads);
		else if (more)
			more(e, off, true);
	}
	json_decref(off);
}

/*
 * Run workload @name (arguments @args) bare, then traced as combination
 * @combo says; the traced run must behave as the bare one, and its report
 * and trace count @threads threads as @rule says.
 */
static void same_as_bare(const char *name, const char *const *args,
			 int combo, double threads, enum count_rule rule,
			 check_more more)
{
	enum cpt_variant v = traced[combo / 2];
	const char *mode = modes[combo % 2];
	char env_mode[64];
	const char *env[] = { env_mode, "CPTHREAD_QUIET=1", NULL };
	struct cpt_run bare, r;
	struct cpt_errs e;

	snprintf(env_mode, sizeof(env_mode), "CPTHREAD_MODE=%s", mode);
	ck_assert_int_eq(cpt_run_workload(&bare, name, CPT_BARE, args, NULL,
					  RUN_TIMEOUT), 0);
	ck_assert_msg(!bare.timed_out && cpt_run_exit_code(&bare) == 0,
		      "%s bare: exit %d%s; stderr %.300s", name,
		      cpt_run_exit_code(&bare),
		      bare.timed_out ? " (timed out)" : "", bare.err);
	ck_assert_int_eq(cpt_run_workload(&r, name, v, args, env,
					  RUN_TIMEOUT), 0);
	cpt_errs_init(&e);
	if (cpt_diff_behaviour(&e, &bare, &r) == 0) {
		if (r.err[0])
			cpt_errf(&e, "  stderr not empty under "
				 "CPTHREAD_QUIET=1: %.300s", r.err);
		check_outputs(&e, r.report, r.report_error,
			      strcmp(mode, "trace") == 0 ? r.trace_path : NULL,
			      threads, rule, more);
	}
	ck_assert_msg(e.n == 0, "%s %s, %s mode (files in %s):%s", name,
		      cpt_variant_name(v), mode, r.dir, e.buf);
	cpt_run_free(&r);
	cpt_run_free(&bare);
}

/* A thread cancelled while sleeping after a lock and unlock, one
 * cancelled in pthread_cond_wait with a cleanup handler, one at
 * pthread_testcancel between locks, and main cancelled by a thread that
 * then ends the process: main + 4. */
START_TEST(test_lifecycle_cancel)
{
	same_as_bare("life_cancel", NULL, _i, 5, COUNT_EXACT, NULL);
}
END_TEST

/*
 * Threads 1 to 7 of life_waits each block in a different wait that is a
 * cancellation point, from before main burns 60 ms until main cancels
 * them: each one waited at least 30 ms and did under 20 ms of useful
 * work (its start and post; a tracer that loses the wait at the
 * cancellation counts the 60 ms as work), and, offline, under 20 ms of
 * the critical path is theirs.
 */
static void victims_waited(struct cpt_errs *e, json_t *rep, bool offline)
{
	for (unsigned tid = 1; tid <= 7; tid++) {
		json_t *jt = cpt_json_thread(rep, tid);
		double u = jt ? cpt_json_ms(jt, "useful_ns") : NAN;
		double w = jt ? cpt_json_ms(jt, "wait_ns") : NAN;
		double cp = jt && offline ? cpt_json_ms(jt, "cp_ns") : 0;

		if (!(u < 20 && w >= 30 && cp < 20))
			cpt_errf(e, "  %s: thread %u: useful %.3f ms (want "
				 "< 20), waiting %.3f ms (want >= 30), on the "
				 "critical path %.3f ms (want < 20)",
				 offline ? "cpt report" : "online report",
				 tid, u, w, cp);
	}
}

START_TEST(test_lifecycle_cancelled_waits)
{
	same_as_bare("life_waits", NULL, _i, 8, COUNT_EXACT, victims_waited);
}
END_TEST

/*
 * life_names: the threads' names as the program set them, by tid: main,
 * worker-a (pthread_setname_np), worker-b (prctl), none (it kept the
 * process's), and T4's quote, control byte and non-UTF-8 byte (alive at
 * the report): escaped in the runtime's JSON (U+FFFD for the byte), '?'
 * for the last two in cpt's reports.
 */
static void names_as_set(struct cpt_errs *e, json_t *rep, bool offline)
{
	static const char *const want[2][5] = {
		{ "main", "worker-a", "worker-b", "", "q\"\x01\xef\xbf\xbd" },
		{ "main", "worker-a", "worker-b", "", "q\"??" },
	};

	for (unsigned tid = 0; tid < 5; tid++) {
		json_t *jt = cpt_json_thread(rep, tid);
		const char *n = json_string_value(json_object_get(jt, "name"));

		if (!n || strcmp(n, want[offline][tid]))
			cpt_errf(e, "  %s: thread %u named '%s', want '%s'",
				 offline ? "cpt report" : "online report", tid,
				 n ? n : "(none)", want[offline][tid]);
	}
}

START_TEST(test_lifecycle_names)
{
	same_as_bare("life_names", NULL, _i, 5, COUNT_EXACT, names_as_set);
}
END_TEST

/* pthread_exit from main: the workers' output, exit 0: main + 1, and the
 * C11 thread if the tracer follows thrd_create. */
START_TEST(test_lifecycle_pthread_exit_main)
{
	same_as_bare("life_pexit", NULL, _i, 2, COUNT_AT_LEAST, NULL);
}
END_TEST

/* Thread-specific data destructors that lock, on return, pthread_exit
 * and cancellation: main + 24. */
START_TEST(test_lifecycle_tsd_destructors)
{
	same_as_bare("life_tls", NULL, _i, 25, COUNT_EXACT, NULL);
}
END_TEST

/* 10,000 threads, 1,000 alive at once: main + 10,000. */
START_TEST(test_lifecycle_many_threads)
{
	same_as_bare("life_many", NULL, _i, 10001, COUNT_EXACT, NULL);
}
END_TEST

/* std::thread, mutex, condition_variable, shared_mutex, async and
 * thread_local destructors: main + 8 + 1 + 4 + 4. */
START_TEST(test_lifecycle_cxx)
{
	same_as_bare("life_cxx", NULL, _i, 18, COUNT_EXACT, NULL);
}
END_TEST

/* Threads never joined, many not started when main returns: main + 200,
 * each listed in the report; the trace reads (a THREAD_CREATE of a thread
 * that never ran names a thread the trace lists). */
START_TEST(test_lifecycle_unstarted_at_exit)
{
	same_as_bare("life_detach", NULL, _i, 201, COUNT_UNSTARTED, NULL);
}
END_TEST

/* The report (and trace) of process @pid in @dir, checked for @threads. */
static void check_process(struct cpt_errs *e, const char *dir, long pid,
			  bool trace, double threads, const char *who)
{
	char rpath[512], tpath[512], err[512];
	json_t *j;
	int before = e->n;

	snprintf(rpath, sizeof(rpath), "%s/cpthread.%ld.json", dir, pid);
	snprintf(tpath, sizeof(tpath), "%s/cpthread.%ld.cpt", dir, pid);
	j = cpt_json_load(rpath, err, sizeof(err));
	if (j && cpt_json_num(j, "pid") != pid)
		cpt_errf(e, "  %s: report of pid %.0f in %s", who,
			 cpt_json_num(j, "pid"), rpath);
	check_outputs(e, j, err, trace ? tpath : NULL, threads,
		      COUNT_EXACT, NULL);
	if (e->n > before)
		cpt_errf(e, "  (those for the %s, pid %ld)", who, pid);
	json_decref(j);
}

/*
 * fork + exec, posix_spawn and system() from a program whose threads take
 * a lock meanwhile: output and statuses as bare; the parent (main + 2
 * threads) and the two children that run the traced program again
 * (1 thread each) leave reports (and traces) of their own, named by pid.
 */
START_TEST(test_lifecycle_spawn)
{
	enum cpt_variant v = traced[_i / 2];
	const char *mode = modes[_i % 2];
	bool trace = strcmp(mode, "trace") == 0;
	const char *args[] = { "pids.txt", NULL };
	char env_mode[64], path[512];
	const char *env[] = { env_mode, "CPTHREAD_QUIET=1", "-CPTHREAD_REPORT",
			      "-CPTHREAD_TRACE", NULL };
	struct cpt_run bare, r;
	struct cpt_errs e;
	long pid[3] = { 0, 0, 0 };
	FILE *f;

	snprintf(env_mode, sizeof(env_mode), "CPTHREAD_MODE=%s", mode);
	ck_assert_int_eq(cpt_run_workload(&bare, "life_spawn", CPT_BARE, args,
					  NULL, RUN_TIMEOUT), 0);
	ck_assert_msg(cpt_run_exit_code(&bare) == 0, "life_spawn bare: exit "
		      "%d; stderr %.300s", cpt_run_exit_code(&bare), bare.err);
	ck_assert_int_eq(cpt_run_workload(&r, "life_spawn", v, args, env,
					  RUN_TIMEOUT), 0);
	cpt_errs_init(&e);
	if (cpt_diff_behaviour(&e, &bare, &r) == 0) {
		snprintf(path, sizeof(path), "%s/pids.txt", r.dir);
		f = fopen(path, "r");
		if (!f || fscanf(f, "%ld %ld %ld", &pid[0], &pid[1],
				 &pid[2]) != 3)
			cpt_errf(&e, "  no pids in %s", path);
		if (f)
			fclose(f);
	}
	if (e.n == 0) {
		check_process(&e, r.dir, pid[0], trace, 3, "parent");
		check_process(&e, r.dir, pid[1], trace, 1,
			      "fork+exec child");
		check_process(&e, r.dir, pid[2], trace, 1,
			      "posix_spawn child");
	}
	ck_assert_msg(e.n == 0, "life_spawn %s, %s mode (files in %s):%s",
		      cpt_variant_name(v), mode, r.dir, e.buf);
	cpt_run_free(&r);
	cpt_run_free(&bare);
}
END_TEST

static Suite *lifecycle_suite(void)
{
	Suite *s = suite_create("lifecycle");
	TCase *tc = tcase_create("lifecycle");

	/* a loop test runs RUN_TIMEOUT-bounded children: bare, traced, cpt */
	tcase_set_timeout(tc, 4 * RUN_TIMEOUT);
	tcase_add_loop_test(tc, test_lifecycle_cancel, 0, NCOMBOS);
	tcase_add_loop_test(tc, test_lifecycle_cancelled_waits, 0, NCOMBOS);
	tcase_add_loop_test(tc, test_lifecycle_names, 0, NCOMBOS);
	tcase_add_loop_test(tc, test_lifecycle_pthread_exit_main, 0, NCOMBOS);
	tcase_add_loop_test(tc, test_lifecycle_tsd_destructors, 0, NCOMBOS);
	tcase_add_loop_test(tc, test_lifecycle_many_threads, 0, NCOMBOS);
	tcase_add_loop_test(tc, test_lifecycle_cxx, 0, NCOMBOS);
	tcase_add_loop_test(tc, test_lifecycle_unstarted_at_exit, 0, NCOMBOS);
	tcase_add_loop_test(tc, test_lifecycle_spawn, 0, NCOMBOS);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(lifecycle_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
