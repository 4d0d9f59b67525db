/*
 * check_crash.c - traced runs that do not end by exit(), write errors and
 * the creation of the tracer's files.
 *
 * A lock-heavy run (tests/workloads/crash.c) ends by SIGSEGV, abort(),
 * SIGTERM, _exit(0) in a signal handler, its own SIGSEGV handler calling
 * abort(), a SIGSEGV
 * after its handler set by sysv_signal, __sysv_signal, sigset or
 * bsd_signal returned, or
 * SIGKILL from this process while one worker is still
 * hammering the mutex (before SIGKILL, a few seconds later, it has done
 * 10N and ended: the trace stays small).  Worker A's N acquisitions were all recorded before
 * main joined it (its buffer is written when it exits), so by construction
 * a report of the trace must hold at least N acquisitions of the mutex and
 * 2N events, whatever happened to the rest.  The program must die exactly
 * as it does bare, and `cpt report` must read the trace, exit 0 and mark
 * the report partial; `--strict` refuses it.  Ending through _exit outside
 * a handler, or quick_exit, is an end like exit(): a complete trace and a
 * report.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../cpt_skip.h"
#include "cpt_harness.h"

#define N_ITER 20000
#define N_ITER_S "20000"

/* How one traced run must end. */
struct ending {
	const char *mode;	/* wl_crash argument */
	int sig;		/* the signal it dies of, 0: exit status 0 */
};

static const struct ending endings[] = {
	{ "segv", SIGSEGV }, { "abort", SIGABRT }, { "term", SIGTERM },
	{ "hexit", 0 }, { "handler", SIGABRT }, { "kill", SIGKILL },
	{ "sysv", SIGSEGV }, { "sigset", SIGSEGV }, { "bsd", SIGSEGV },
	{ "xsysv", SIGSEGV }, { "killdef", SIGKILL },
};

/* Text of a wait status, for messages. */
static const char *status_text(int st, char *buf, size_t len)
{
	if (WIFSIGNALED(st))
		snprintf(buf, len, "signal %d%s", WTERMSIG(st),
			 WCOREDUMP(st) ? " (core)" : "");
	else if (WIFEXITED(st))
		snprintf(buf, len, "exit %d", WEXITSTATUS(st));
	else
		snprintf(buf, len, "status 0x%x", st);
	return buf;
}

/* Lines of @s that contain @needle. */
static unsigned lines_with(const char *s, const char *needle)
{
	unsigned n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/*
 * Run `cpt report TRACE [extra] --format json -o OUT`; returns its run
 * (status, stderr) and the parsed report in *@rep (NULL if none).
 */
static void cpt_report(struct cpt_run *c, const char *trace,
		       const char *extra, const char *out, json_t **rep)
{
	const char *args[8];
	json_error_t je;
	int k = 0;

	args[k++] = "report";
	args[k++] = trace;
	if (extra)
		args[k++] = extra;
	args[k++] = "--format";
	args[k++] = "json";
	args[k++] = "-o";
	args[k++] = out;
	args[k] = NULL;
	unlink(out);
	ck_assert_int_eq(cpt_run_program(c, CPT_CPT, args, NULL, 120, false),
			 0);
	*rep = json_load_file(out, 0, &je);
}

/* Acquisitions of the first mutex in the report's objects. */
static double mutex_ops(json_t *rep)
{
	json_t *objs = json_object_get(rep, "objects"), *o;
	size_t i;

	json_array_foreach(objs, i, o) {
		const char *kind = json_string_value(json_object_get(o,
								     "kind"));

		if (kind && !strcmp(kind, "mutex"))
			return json_number_value(json_object_get(o, "ops"));
	}
	return -1;
}

static void check_ending(const struct ending *e, enum cpt_variant v)
{
	const char *args[] = { e->mode, N_ITER_S, NULL };
	/* no sampling, as in check_quick_exit: cpt's stderr is checked line
	 * by line, and where a short run's few samples land is timing */
	const char *env[] = { "CPTHREAD_MODE=trace", "CPTHREAD_SAMPLING=off",
			      NULL };
	bool killed = e->sig == SIGKILL;
	struct cpt_run bare, r, c;
	char a[64], b[64], out[400];
	struct cpt_errs errs;
	json_t *rep;
	double ops, events;

	cpt_errs_init(&errs);
	ck_assert_int_eq(cpt_run_workload(&r, "crash", v, args, env, 60), 0);
	if (killed) {
		/* the workload kills itself (the harness's timeout would be
		 * a SIGKILL too, so a timeout is an error here) */
		if (r.timed_out || !WIFSIGNALED(r.status) ||
		    WTERMSIG(r.status) != SIGKILL)
			cpt_errf(&errs, "killed run ended with %s",
				 status_text(r.status, a, sizeof(a)));
	} else {
		ck_assert_int_eq(cpt_run_workload(&bare, "crash", CPT_BARE,
						  args, NULL, 60), 0);
		if (bare.status != r.status || bare.timed_out || r.timed_out)
			cpt_errf(&errs, "bare %s, traced %s",
				 status_text(bare.status, a, sizeof(a)),
				 status_text(r.status, b, sizeof(b)));
		if (e->sig ? !WIFSIGNALED(r.status) ||
			     WTERMSIG(r.status) != e->sig :
			     !WIFEXITED(r.status) || WEXITSTATUS(r.status))
			cpt_errf(&errs, "traced run ended with %s",
				 status_text(r.status, a, sizeof(a)));
		if (strcmp(bare.err, r.err) || r.out[0])
			cpt_errf(&errs, "output differs: bare '%s', traced "
				 "'%s' / '%s'", bare.err, r.err, r.out);
		cpt_run_free(&bare);
	}
	snprintf(out, sizeof(out), "%s/report.json", r.dir);
	cpt_report(&c, r.trace_path, NULL, out, &rep);
	if (cpt_run_exit_code(&c) != 0 || !rep) {
		cpt_errf(&errs, "cpt report: exit %d: %s",
			 cpt_run_exit_code(&c), c.err);
	} else {
		ops = mutex_ops(rep);
		events = cpt_json_num(rep, "events");
		if (!json_is_true(json_object_get(rep, "partial")))
			cpt_errf(&errs, "report not marked partial");
		if (!json_string_value(json_object_get(rep,
						       "partial_reason")))
			cpt_errf(&errs, "no partial_reason");
		if (!(ops >= N_ITER))
			cpt_errf(&errs, "%.0f acquisitions analysed, want at "
				 "least %d", ops, N_ITER);
		if (!(events >= 2 * N_ITER))
			cpt_errf(&errs, "%.0f events analysed, want at least "
				 "%d", events, 2 * N_ITER);
		/* main's events (create, join) were still in its buffer:
		 * every path but SIGKILL writes them, so nothing is amiss */
		if (!killed && cpt_json_num(rep, "repairs") != 0)
			cpt_errf(&errs, "%.0f repairs: '%s'",
				 cpt_json_num(rep, "repairs"), c.err);
		if (!(cpt_json_num(rep, "critical_path.length_ns") > 0))
			cpt_errf(&errs, "no critical path");
		if (lines_with(c.err, "partial trace: no END block") != 1 ||
		    cpt_count_lines(c.err) > 2)
			cpt_errf(&errs, "cpt's warnings: '%s'", c.err);
	}
	json_decref(rep);
	cpt_run_free(&c);
	cpt_report(&c, r.trace_path, "--strict", out, &rep);
	/* strict: the first flaw, a missing END or a block cut short */
	if (cpt_run_exit_code(&c) != 1 || cpt_count_lines(c.err) != 1 ||
	    !(strstr(c.err, "no END block") || strstr(c.err, "(truncated)")))
		cpt_errf(&errs, "cpt report --strict: exit %d: '%s'",
			 cpt_run_exit_code(&c), c.err);
	json_decref(rep);
	cpt_run_free(&c);
	cpt_run_free(&r);
	ck_assert_msg(errs.n == 0, "%s (%s): %s", e->mode, cpt_variant_name(v),
		      errs.buf);
}

START_TEST(test_crash_endings_linked)
{
	check_ending(&endings[_i], CPT_LINKED);
}
END_TEST

START_TEST(test_crash_endings_preloaded)
{
	check_ending(&endings[_i], CPT_PRELOAD);
}
END_TEST

/* Ends that are not crashes: how the run ends, and its stderr bare. */
static const struct clean_end {
	const char *mode;
	int status;
	const char *err;
} clean_ends[] = {
	{ "quick", 3, "A done\nquick handler\n" },	/* with the program's
							 * at_quick_exit
							 * handler */
	{ "exit0", 0, "A done\n" },	/* _exit outside a handler (dash and
					 * lbzip2 end so) */
};

/*
 * quick_exit() or _exit(), worker B still running: the status is kept as
 * bare, and the trace and the report are written as after exit(): a
 * complete trace holding worker A's acquisitions.
 */
static void check_clean_end(const struct clean_end *e, enum cpt_variant v)
{
	const char *args[] = { e->mode, N_ITER_S, NULL };
	/* no sampling: where its few samples land (a line on cpt's stderr
	 * when one falls in a wait) depends on timing, and the trace's
	 * completeness is what this checks */
	const char *env[] = { "CPTHREAD_MODE=trace", "CPTHREAD_SAMPLING=off",
			      NULL };
	struct cpt_run bare, r, c;
	char out[400];
	struct cpt_errs errs;
	json_t *rep;

	cpt_errs_init(&errs);
	ck_assert_int_eq(cpt_run_workload(&bare, "crash", CPT_BARE, args,
					  NULL, 60), 0);
	ck_assert_int_eq(cpt_run_workload(&r, "crash", v, args, env, 60), 0);
	if (cpt_run_exit_code(&bare) != e->status ||
	    cpt_run_exit_code(&r) != e->status)
		cpt_errf(&errs, "exit codes: bare %d, traced %d",
			 cpt_run_exit_code(&bare), cpt_run_exit_code(&r));
	/* the tracer's closing lines follow the program's */
	if (strcmp(bare.err, e->err) ||
	    strncmp(r.err, bare.err, strlen(bare.err)) || r.out[0] ||
	    lines_with(r.err, "cpthread: trace written to") != 1)
		cpt_errf(&errs, "output: bare '%s', traced '%s' / '%s'",
			 bare.err, r.err, r.out);
	if (!r.report)
		cpt_errf(&errs, "no report: %s", r.report_error);
	snprintf(out, sizeof(out), "%s/report.json", r.dir);
	cpt_report(&c, r.trace_path, "--strict", out, &rep);
	if (cpt_run_exit_code(&c) != 0 || !rep || c.err[0])
		cpt_errf(&errs, "cpt report --strict: exit %d: '%s'",
			 cpt_run_exit_code(&c), c.err);
	else if (!(mutex_ops(rep) >= N_ITER))
		cpt_errf(&errs, "%.0f acquisitions analysed, want at least %d",
			 mutex_ops(rep), N_ITER);
	json_decref(rep);
	cpt_run_free(&c);
	cpt_run_free(&r);
	cpt_run_free(&bare);
	ck_assert_msg(errs.n == 0, "%s (%s): %s", e->mode, cpt_variant_name(v),
		      errs.buf);
}

START_TEST(test_crash_clean_ends)
{
	check_clean_end(&clean_ends[_i / 2],
			_i % 2 ? CPT_PRELOAD : CPT_LINKED);
}
END_TEST

/*
 * _exit in a signal handler before any thread started: one thread, no
 * synchronization, and an end in a handler, where no report can be
 * written: the run leaves no trace cut short, and one line says why.
 */
START_TEST(test_crash_lone_handler_exit)
{
	const char *args[] = { "lone", NULL };
	const char *env[] = { "CPTHREAD_MODE=trace", "CPTHREAD_SAMPLING=off",
			      NULL };
	enum cpt_variant v = _i ? CPT_PRELOAD : CPT_LINKED;
	struct cpt_run bare, r;
	struct cpt_errs errs;

	cpt_errs_init(&errs);
	ck_assert_int_eq(cpt_run_workload(&bare, "crash", CPT_BARE, args,
					  NULL, 60), 0);
	ck_assert_int_eq(cpt_run_workload(&r, "crash", v, args, env, 60), 0);
	if (cpt_run_exit_code(&bare) != 0 || cpt_run_exit_code(&r) != 0)
		cpt_errf(&errs, "exit codes: bare %d, traced %d",
			 cpt_run_exit_code(&bare), cpt_run_exit_code(&r));
	if (bare.err[0] || r.out[0] || cpt_count_lines(r.err) != 1 ||
	    lines_with(r.err, "ended through _exit in a signal handler with "
		       "one thread and no synchronization seen") != 1)
		cpt_errf(&errs, "output: bare '%s', traced '%s' / '%s'",
			 bare.err, r.err, r.out);
	if (access(r.trace_path, F_OK) == 0 || r.report)
		cpt_errf(&errs, "a trace or a report was left");
	cpt_run_free(&r);
	cpt_run_free(&bare);
	ck_assert_msg(errs.n == 0, "lone (%s): %s", cpt_variant_name(v),
		      errs.buf);
}
END_TEST

/*
 * A full disk while tracing (/dev/full as the trace): one line naming the
 * file and the error, the program's results untouched, and the final
 * message says the trace is incomplete.  The JSON report on /dev/full
 * fails loudly too, and is not claimed written.
 */
START_TEST(test_crash_write_errors)
{
	const char *env_trace[] = { "CPTHREAD_MODE=trace",
				    "CPTHREAD_TRACE=/dev/full", NULL };
	const char *env_report[] = { "CPTHREAD_REPORT=/dev/full", NULL };
	struct cpt_run bare, r;
	struct cpt_errs errs;

	cpt_errs_init(&errs);
	ck_assert_int_eq(cpt_run_workload(&bare, "mutex", CPT_BARE, NULL,
					  NULL, 60), 0);
	ck_assert_int_eq(cpt_run_workload(&r, "mutex", CPT_LINKED, NULL,
					  env_trace, 60), 0);
	if (r.status != bare.status || strcmp(r.out, bare.out))
		cpt_errf(&errs, "trace on /dev/full changed the run: status "
			 "%d/%d, out '%s'", r.status, bare.status, r.out);
	if (lines_with(r.err, "cannot write the trace /dev/full: No space "
		       "left on device") != 1)
		cpt_errf(&errs, "first failure not said once: '%s'", r.err);
	if (lines_with(r.err, "the trace /dev/full is incomplete") != 1 ||
	    strstr(r.err, "trace written"))
		cpt_errf(&errs, "final message: '%s'", r.err);
	cpt_run_free(&r);
	ck_assert_int_eq(cpt_run_workload(&r, "mutex", CPT_LINKED, NULL,
					  env_report, 60), 0);
	if (r.status != bare.status || strcmp(r.out, bare.out))
		cpt_errf(&errs, "report on /dev/full changed the run");
	if (lines_with(r.err, "cannot write the report /dev/full: No space "
		       "left on device; the report is incomplete") != 1 ||
	    strstr(r.err, "report written"))
		cpt_errf(&errs, "report failure: '%s'", r.err);
	cpt_run_free(&r);
	cpt_run_free(&bare);
	ck_assert_msg(errs.n == 0, "%s", errs.buf);
}
END_TEST

/*
 * A file size limit the trace runs into: the write fails with EFBIG and
 * the kernel raises SIGXFSZ, whose default would kill the program; the
 * tracer swallows its own, says so once, and the program ends as bare.
 */
START_TEST(test_crash_file_size_limit)
{
	char script[600];
	const char *args[] = { "-c", script, NULL };
	const char *env[] = { "CPTHREAD_MODE=trace", NULL };
	struct cpt_run r;

	snprintf(script, sizeof(script), "ulimit -f 100; exec %s/wl_crash "
		 "exit0 200000", CPT_WL_DIR);
	ck_assert_int_eq(cpt_run_program(&r, "/bin/sh", args, env, 60, true),
			 0);
	ck_assert_msg(cpt_run_exit_code(&r) == 0 &&
		      lines_with(r.err, "cannot write the trace") == 1 &&
		      strstr(r.err, "File too large"),
		      "exit %d: '%s'", cpt_run_exit_code(&r), r.err);
	cpt_run_free(&r);
}
END_TEST

/* Size of @path, -1 if missing. */
static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

/*
 * An explicit CPTHREAD_TRACE that is a symlink is not followed unless
 * CPTHREAD_FOLLOW_SYMLINKS=1; the run goes on in online mode.
 */
START_TEST(test_crash_explicit_symlink)
{
	struct cpt_run r;
	char target[400], link_[400], env_trace[450];
	const char *env[] = { "CPTHREAD_MODE=trace", env_trace, NULL, NULL };
	struct cpt_errs errs;
	int fd;

	cpt_errs_init(&errs);
	ck_assert_int_eq(cpt_run_workload(&r, "mutex", CPT_BARE, NULL, NULL,
					  60), 0);
	snprintf(target, sizeof(target), "%s/target", r.dir);
	snprintf(link_, sizeof(link_), "%s/link.cpt", r.dir);
	snprintf(env_trace, sizeof(env_trace), "CPTHREAD_TRACE=%s", link_);
	fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert(fd >= 0 && write(fd, "keep", 4) == 4 && close(fd) == 0);
	ck_assert(symlink(target, link_) == 0);
	{
		struct cpt_run t;

		ck_assert_int_eq(cpt_run_workload(&t, "mutex", CPT_LINKED,
						  NULL, env, 60), 0);
		if (cpt_run_exit_code(&t) != 0 || file_size(target) != 4)
			cpt_errf(&errs, "symlink followed: exit %d, target "
				 "%ld bytes", cpt_run_exit_code(&t),
				 file_size(target));
		if (lines_with(t.err, "Too many levels of symbolic links") != 1)
			cpt_errf(&errs, "no word of the symlink: '%s'", t.err);
		cpt_run_free(&t);
		env[2] = "CPTHREAD_FOLLOW_SYMLINKS=1";
		ck_assert_int_eq(cpt_run_workload(&t, "mutex", CPT_LINKED,
						  NULL, env, 60), 0);
		if (cpt_run_exit_code(&t) != 0 || file_size(target) <= 64)
			cpt_errf(&errs, "CPTHREAD_FOLLOW_SYMLINKS=1: exit %d, "
				 "target %ld bytes", cpt_run_exit_code(&t),
				 file_size(target));
		cpt_run_free(&t);
	}
	cpt_run_free(&r);
	ck_assert_msg(errs.n == 0, "%s", errs.buf);
}
END_TEST

/*
 * Default names: a symlink planted at cpthread.<pid>.cpt (the shell's pid,
 * which the exec'd workload keeps) is left alone, the trace goes to
 * cpthread.<pid>.1.cpt and stderr says so; files are created 0600, or
 * with the umask's mode when CPTHREAD_FILE_MODE=umask.
 */
START_TEST(test_crash_default_names)
{
	char script[1200];
	const char *args[] = { "-c", script, NULL };
	const char *env[] = { "CPTHREAD_MODE=trace", "CPTHREAD_TRACE=",
			      "CPTHREAD_REPORT=", NULL, NULL };
	struct cpt_run r;
	struct cpt_errs errs;

	cpt_errs_init(&errs);
	snprintf(script, sizeof(script),
		 "umask 022; echo keep > target; "
		 "ln -s target cpthread.$$.cpt; "
		 "echo $$ > pid; exec %s/wl_mutex", CPT_WL_DIR);
	ck_assert_int_eq(cpt_run_program(&r, "/bin/sh", args, env, 60, false),
			 0);
	{
		char path[400], msg[200];
		struct stat st;
		long pid = 0;
		FILE *f;

		snprintf(path, sizeof(path), "%s/pid", r.dir);
		f = fopen(path, "r");
		ck_assert(f && fscanf(f, "%ld", &pid) == 1);
		fclose(f);
		snprintf(path, sizeof(path), "%s/target", r.dir);
		if (cpt_run_exit_code(&r) != 0 || file_size(path) != 5)
			cpt_errf(&errs, "exit %d, target %ld bytes: '%s'",
				 cpt_run_exit_code(&r), file_size(path), r.err);
		snprintf(msg, sizeof(msg), "cpthread.%ld.cpt exists; writing "
			 "the trace to cpthread.%ld.1.cpt", pid, pid);
		if (lines_with(r.err, msg) != 1)
			cpt_errf(&errs, "no '%s' in '%s'", msg, r.err);
		snprintf(path, sizeof(path), "%s/cpthread.%ld.1.cpt", r.dir,
			 pid);
		if (stat(path, &st) || (st.st_mode & 0777) != 0600 ||
		    st.st_size <= 64)
			cpt_errf(&errs, "%s: mode %o, %ld bytes", path,
				 (unsigned)(st.st_mode & 0777),
				 (long)st.st_size);
		snprintf(path, sizeof(path), "%s/cpthread.%ld.json", r.dir,
			 pid);
		if (stat(path, &st) || (st.st_mode & 0777) != 0600)
			cpt_errf(&errs, "%s: mode %o", path,
				 (unsigned)(st.st_mode & 0777));
	}
	cpt_run_free(&r);
	env[3] = "CPTHREAD_FILE_MODE=umask";
	snprintf(script, sizeof(script),
		 "umask 022; echo $$ > pid; exec %s/wl_mutex", CPT_WL_DIR);
	ck_assert_int_eq(cpt_run_program(&r, "/bin/sh", args, env, 60, false),
			 0);
	{
		char path[400];
		struct stat st;
		long pid = 0;
		FILE *f;

		snprintf(path, sizeof(path), "%s/pid", r.dir);
		f = fopen(path, "r");
		ck_assert(f && fscanf(f, "%ld", &pid) == 1);
		fclose(f);
		snprintf(path, sizeof(path), "%s/cpthread.%ld.cpt", r.dir, pid);
		if (stat(path, &st) || (st.st_mode & 0777) != 0644)
			cpt_errf(&errs, "umask mode: %s: mode %o", path,
				 (unsigned)(st.st_mode & 0777));
	}
	cpt_run_free(&r);
	ck_assert_msg(errs.n == 0, "%s", errs.buf);
}
END_TEST

/* `cpt report` on inputs that never end: one line, exit 1, bounded. */
START_TEST(test_crash_endless_inputs)
{
	const char *args[] = { "report", "/dev/zero", NULL };
	struct cpt_run c;

	ck_assert_int_eq(cpt_run_program(&c, CPT_CPT, args, NULL, 60, false),
			 0);
	ck_assert_msg(cpt_run_exit_code(&c) == 1 &&
		      cpt_count_lines(c.err) == 1 &&
		      strstr(c.err, "cpt: /dev/zero:1: not a cpthread trace"),
		      "exit %d: '%s'", cpt_run_exit_code(&c), c.err);
	cpt_run_free(&c);
}
END_TEST

static Suite *crash_suite(void)
{
	Suite *s = suite_create("crash");
	TCase *tc = tcase_create("crash");
	int n = (int)(sizeof(endings) / sizeof(endings[0]));

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_crash_endings_linked, 0, n);
	tcase_add_loop_test(tc, test_crash_endings_preloaded, 0, 2);
	tcase_add_loop_test(tc, test_crash_endings_preloaded, 4, 5);
	tcase_add_loop_test(tc, test_crash_endings_preloaded, 6, n);
	tcase_add_loop_test(tc, test_crash_clean_ends, 0,
			    2 * sizeof(clean_ends) / sizeof(clean_ends[0]));
	tcase_add_loop_test(tc, test_crash_lone_handler_exit, 0, 2);
	tcase_add_test(tc, test_crash_write_errors);
	tcase_add_test(tc, test_crash_file_size_limit);
	tcase_add_test(tc, test_crash_explicit_symlink);
	tcase_add_test(tc, test_crash_default_names);
	tcase_add_test(tc, test_crash_endless_inputs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(crash_suite());
	int failed;
	struct rlimit nocore = { 0, 0 };

	/* the crashes must not leave core files: bare and traced alike */
	setrlimit(RLIMIT_CORE, &nocore);
	/* ASan's own handlers for the faults would report and exit(1), bare
	 * and traced: the workloads must die of the signal, as built plain */
	if (CPT_ASAN) {
		const char *o = getenv("ASAN_OPTIONS");
		char opts[1024];

		snprintf(opts, sizeof(opts), "%s%shandle_segv=0:"
			 "handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:"
			 "handle_abort=0", o ? o : "", o && *o ? ":" : "");
		setenv("ASAN_OPTIONS", opts, 1);
	}
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
