/*
 * check_preserve.c - the traced program behaves exactly as without the
 * tracer.
 *
 * preserve.c prints the return value and errno of every wrapped call on
 * its success and failure paths; its output bare (no tracer) is the
 * reference, and the preloaded, linked and statically linked builds must
 * print the same in online and trace mode.  The robustness programs do
 * what tracers tend to break on (exit() from a thread, fork, thousands of
 * threads, detached threads, a file of the program's on descriptor 2, a
 * locale with a decimal comma, a signal handler in new threads, a
 * daemon's start: another directory, a umask that takes every permission
 * away; an exec after work) and must print what they print bare, exit with the same status,
 * and leave a valid report.  Bad configuration must
 * cost one line on stderr and nothing else.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../cpt_skip.h"
#include "cpt_harness.h"

#define TIMEOUT 120

struct preserve_combo {
	enum cpt_variant v;
	const char *mode;
};

static const struct preserve_combo pcombos[] = {
	{ CPT_PRELOAD, "online" }, { CPT_LINKED, "online" },
	{ CPT_STATIC, "online" }, { CPT_PRELOAD, "trace" },
	{ CPT_LINKED, "trace" }, { CPT_STATIC, "trace" },
};

#define NPCOMBOS (int)(sizeof(pcombos) / sizeof(pcombos[0]))

static const enum cpt_variant traced[] = {
	CPT_PRELOAD, CPT_LINKED, CPT_STATIC,
};

/* Run @prog bare; the reference for the traced runs. */
static void run_bare(struct cpt_run *bare, const char *prog,
		     const char *const *args)
{
	ck_assert_int_eq(cpt_run_workload(bare, prog, CPT_BARE, args, NULL,
					  TIMEOUT), 0);
	ck_assert_msg(!bare->timed_out, "%s bare timed out", prog);
}

static void expect_same_behaviour(const char *what, struct cpt_run *bare,
				  struct cpt_run *r)
{
	struct cpt_errs e;

	cpt_errs_init(&e);
	ck_assert_msg(cpt_diff_behaviour(&e, bare, r) == 0,
		      "%s: unlike the bare run:%s", what, e.buf);
}

static void expect_report(const char *what, struct cpt_run *r,
			  double threads)
{
	ck_assert_msg(r->report != NULL, "%s: %s", what, r->report_error);
	ck_assert_msg(cpt_json_num(r->report, "pid") == r->pid,
		      "%s: report pid %.0f, child %d", what,
		      cpt_json_num(r->report, "pid"), (int)r->pid);
	if (threads > 0)
		ck_assert_msg(cpt_json_num(r->report, "threads") == threads,
			      "%s: report threads expected %.0f, got %.0f",
			      what, threads,
			      cpt_json_num(r->report, "threads"));
}

/* Workload @name bare, then quietly under combination @i: it exits 0
 * bare (printing @out, unless NULL), behaves as bare traced, and the
 * report counts @threads threads. */
static void expect_threads_counted(const char *name, int i, double threads,
				   const char *out)
{
	const struct preserve_combo *c = &pcombos[i];
	char env_mode[64], what[128];
	const char *env[] = { env_mode, "CPTHREAD_QUIET=1", NULL };
	struct cpt_run bare, r;

	snprintf(env_mode, sizeof(env_mode), "CPTHREAD_MODE=%s", c->mode);
	snprintf(what, sizeof(what), "%s %s %s", name,
		 cpt_variant_name(c->v), c->mode);
	run_bare(&bare, name, NULL);
	ck_assert_msg(cpt_run_exit_code(&bare) == 0 &&
		      (!out || !strcmp(bare.out, out)),
		      "%s bare: exit %d, \"%s\"", name,
		      cpt_run_exit_code(&bare), bare.out);
	ck_assert_int_eq(cpt_run_workload(&r, name, c->v, NULL, env, TIMEOUT),
			 0);
	expect_same_behaviour(what, &bare, &r);
	expect_report(what, &r, threads);
	cpt_run_free(&r);
	cpt_run_free(&bare);
}

/* What preserve.c's failure paths must return, by the names it prints. */
static const char *const failure_codes[] = {
	"EBUSY", "ETIMEDOUT", "EDEADLK", "EPERM", "EOWNERDEAD",
	"ENOTRECOVERABLE", "EAGAIN", "EINVAL", "EOVERFLOW",
};

#define MIN_FAILURE_PATHS 25

/*
 * The reference output covers what the comparison is meant to prove: at
 * least MIN_FAILURE_PATHS calls that fail (an error number returned, or
 * -1 with errno set), every code of failure_codes[] among them, and
 * PTHREAD_BARRIER_SERIAL_THREAD exactly once per barrier episode.
 */
static void expect_coverage(const char *out)
{
	unsigned failures = 0;

	for (const char *l = out; *l;) {
		size_t len = strcspn(l, "\n");
		const char *eq = memmem(l, len, "= ", 2);

		if (eq && (eq[2] == 'E' ||
			   strncmp(eq + 2, "-1  errno E", 11) == 0))
			failures++;
		l += len + (l[len] == '\n');
	}
	ck_assert_msg(failures >= MIN_FAILURE_PATHS, "preserve bare: %u "
		      "failure paths, want at least %d", failures,
		      MIN_FAILURE_PATHS);
	for (size_t i = 0; i < sizeof(failure_codes) /
			   sizeof(failure_codes[0]); i++) {
		char a[40], b[40];

		snprintf(a, sizeof(a), "= %s ", failure_codes[i]);
		snprintf(b, sizeof(b), "errno %s\n", failure_codes[i]);
		ck_assert_msg(strstr(out, a) || strstr(out, b),
			      "preserve bare: no call fails with %s",
			      failure_codes[i]);
	}
	ck_assert_msg(strstr(out, "3 threads x 4 episodes: SERIAL_THREAD 4, "
			     "0 8, other 0") &&
		      strstr(out, "2 threads x 3 episodes: SERIAL_THREAD 3, "
			     "0 3, other 0"),
		      "preserve bare: PTHREAD_BARRIER_SERIAL_THREAD not once "
		      "per episode");
}

/*
 * Every wrapped call: same return values, errno and output bare,
 * preloaded, linked and static, online and trace.
 */
START_TEST(test_preserve_calls)
{
	const struct preserve_combo *c = &pcombos[_i];
	char env_mode[64], what[128];
	const char *env[] = { env_mode, "CPTHREAD_QUIET=1", NULL };
	struct cpt_run bare, r;
	struct stat st;

	snprintf(env_mode, sizeof(env_mode), "CPTHREAD_MODE=%s", c->mode);
	snprintf(what, sizeof(what), "preserve %s %s",
		 cpt_variant_name(c->v), c->mode);
	run_bare(&bare, "preserve", NULL);
	ck_assert_msg(cpt_run_exit_code(&bare) == 0 &&
		      strstr(bare.out, "preserve done"),
		      "preserve bare: exit %d, stderr %.300s",
		      cpt_run_exit_code(&bare), bare.err);
	expect_coverage(bare.out);
	ck_assert_int_eq(cpt_run_workload(&r, "preserve", c->v, NULL, env,
					  TIMEOUT), 0);
	expect_same_behaviour(what, &bare, &r);
	ck_assert_msg(r.err[0] == '\0', "%s: stderr not empty under "
		      "CPTHREAD_QUIET=1: %.400s", what, r.err);
	expect_report(what, &r, 0);
	if (strcmp(c->mode, "trace") == 0)
		ck_assert_msg(stat(r.trace_path, &st) == 0 && st.st_size > 64,
			      "%s: no trace at %s (or %lld bytes)", what,
			      r.trace_path, (long long)st.st_size);
	cpt_run_free(&r);
	cpt_run_free(&bare);
}
END_TEST

/*
 * exit(3) from a thread while one thread is blocked, one takes a mutex in
 * a loop and main waits in pthread_join: same output and status, no hang,
 * a report with the 4 threads.
 */
START_TEST(test_preserve_exit_from_thread)
{
	const char *env[] = { "CPTHREAD_QUIET=1", NULL };
	struct cpt_run bare, r;
	char what[64];

	run_bare(&bare, "robust_exit", NULL);
	ck_assert_msg(cpt_run_exit_code(&bare) == 3,
		      "robust_exit bare: exit %d", cpt_run_exit_code(&bare));
	for (size_t k = 0; k < sizeof(traced) / sizeof(traced[0]); k++) {
		snprintf(what, sizeof(what), "robust_exit %s",
			 cpt_variant_name(traced[k]));
		ck_assert_int_eq(cpt_run_workload(&r, "robust_exit", traced[k],
						  NULL, env, TIMEOUT), 0);
		expect_same_behaviour(what, &bare, &r);
		expect_report(what, &r, 4);
		cpt_run_free(&r);
	}
	cpt_run_free(&bare);
}
END_TEST

/* The contents of file @name in run directory @dir (malloc'd; "" when
 * it cannot be read). */
static char *run_file(const char *dir, const char *name)
{
	char path[512], *buf = NULL;
	size_t len = 0;
	FILE *f, *m = open_memstream(&buf, &len);
	int ch;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	while (f && (ch = fgetc(f)) != EOF)
		fputc(ch, m);
	if (f)
		fclose(f);
	fclose(m);
	return buf;
}

/*
 * A program whose own file takes the number of a descriptor the tracer
 * writes: descriptor 2 (it closed its stderr, or started with it
 * closed), or those of the tracer's own (dup2 onto them); or whose
 * stderr is a pipe nobody reads.  The file holds the program's line and
 * nothing of the tracer's summary or trace, preloaded, linked and
 * static, online and trace; output and exit as bare (no SIGPIPE), and a
 * report with its 3 threads.
 */
START_TEST(test_preserve_stderr_taken)
{
	static const char *const hows[] = { "reopen", "closed", "dup2",
					    "pipe" };
	const struct preserve_combo *c = &pcombos[_i % NPCOMBOS];
	const char *how = hows[_i / NPCOMBOS];
	const char *args[] = { how, "own.txt", NULL };
	char env_mode[64], what[128], *want, *got;
	const char *env[] = { env_mode, NULL };
	struct cpt_run bare, r;

	snprintf(env_mode, sizeof(env_mode), "CPTHREAD_MODE=%s", c->mode);
	snprintf(what, sizeof(what), "robust_stderr %s %s %s", how,
		 cpt_variant_name(c->v), c->mode);
	run_bare(&bare, "robust_stderr", args);
	want = run_file(bare.dir, "own.txt");
	ck_assert_msg(cpt_run_exit_code(&bare) == 0 &&
		      strstr(bare.out, _i < 2 * NPCOMBOS ? "descriptor 2,"
				 : "own file on descriptor") &&
		      !strcmp(want, "robust_stderr: the program's own line\n"),
		      "robust_stderr bare: exit %d, stdout %.200s, file %.200s",
		      cpt_run_exit_code(&bare), bare.out, want);
	ck_assert_int_eq(cpt_run_workload(&r, "robust_stderr", c->v, args,
					  env, TIMEOUT), 0);
	expect_same_behaviour(what, &bare, &r);
	got = run_file(r.dir, "own.txt");
	ck_assert_msg(!strcmp(got, want), "%s: the program's file holds "
		      "\"%.400s\"", what, got);
	expect_report(what, &r, 3);
	free(got);
	free(want);
	cpt_run_free(&r);
	cpt_run_free(&bare);
}
END_TEST

/*
 * A program in a locale whose decimal point is a comma (de_DE.UTF-8,
 * compiled into a directory of the test's by localedef from the locales
 * package): its own output follows the locale, the tracer's report (read
 * as JSON) and summary do not, preloaded, linked and static, online and
 * trace.
 */
START_TEST(test_preserve_locale)
{
	const struct preserve_combo *c = &pcombos[_i];
	char dir[] = "/tmp/cpt_locale_XXXXXX", cmd[256], locpath[64];
	char env_mode[64], what[128];
	const char *env[] = { env_mode, "LC_ALL=de_DE.UTF-8", locpath, NULL };
	const char *bare_env[] = { "LC_ALL=de_DE.UTF-8", locpath, NULL };
	struct cpt_run bare, r;
	const char *par;

	ck_assert(mkdtemp(dir) != NULL);
	snprintf(cmd, sizeof(cmd), "localedef -i de_DE -f UTF-8 "
		 "%s/de_DE.UTF-8 >/dev/null 2>&1", dir);
	ck_assert_msg(system(cmd) == 0, "%s failed: the locales package "
		      "(scripts/setup-deps.sh installs it) is needed", cmd);
	snprintf(locpath, sizeof(locpath), "LOCPATH=%s", dir);
	snprintf(env_mode, sizeof(env_mode), "CPTHREAD_MODE=%s", c->mode);
	snprintf(what, sizeof(what), "robust_locale %s %s",
		 cpt_variant_name(c->v), c->mode);
	ck_assert_int_eq(cpt_run_workload(&bare, "robust_locale", CPT_BARE,
					  NULL, bare_env, TIMEOUT), 0);
	ck_assert_msg(cpt_run_exit_code(&bare) == 0 &&
		      strstr(bare.out, "locale: 1,5\n"), "robust_locale bare: "
		      "exit %d, \"%s\"", cpt_run_exit_code(&bare), bare.out);
	ck_assert_int_eq(cpt_run_workload(&r, "robust_locale", c->v, NULL,
					  env, TIMEOUT), 0);
	expect_same_behaviour(what, &bare, &r);
	expect_report(what, &r, 3);
	par = strstr(r.err, "max parallelism ");
	ck_assert_msg(par && strchr("0123456789", par[16]) &&
		      par[17] == '.', "%s: summary \"%.300s\"", what, r.err);
	cpt_run_free(&r);
	cpt_run_free(&bare);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert(system(cmd) == 0);
}
END_TEST

/*
 * A program whose allocator takes a pthread mutex on every call
 * (robust_alloc, as redis with jemalloc): the dynamic loader allocates
 * through it during the tracer's start-up, whose mutex wrapper then needs
 * a real function before the table is done.  It must run as bare,
 * preloaded, linked and static, online and trace.
 */
START_TEST(test_preserve_own_allocator)
{
	CPT_SKIP_IF(CPT_ASAN, "AddressSanitizer owns malloc: a program that "
		    "replaces it cannot run under it, bare or traced");
	expect_threads_counted("robust_alloc", _i, 4,
			       "robust_alloc: 3000 n\n");
}
END_TEST

/* The permission bits of file @name in run directory @dir; -1 when it
 * cannot be stat'd. */
static int run_file_mode(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) ? -1 : (int)(st.st_mode & 0777);
}

/* The names in directory @dir other than @keep, space-separated
 * (malloc'd). */
static char *dir_others(const char *dir, const char *keep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strcmp(e->d_name, keep))
			fprintf(m, " %s", e->d_name);
	if (d)
		closedir(d);
	fclose(m);
	return buf;
}

/* The report @name in run directory @dir, or the JSON report of the
 * trace @name (`cpt report --format json`); NULL when it cannot be read.
 * Free with json_decref. */
static json_t *run_report(const struct cpt_run *r, const char *name)
{
	char path[600], out[620], err[256];
	const char *args[] = { "report", path, "--format", "json", "-o", out,
			       NULL };
	bool trace = strstr(name, ".cpt") != NULL;

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	snprintf(out, sizeof(out), "%s.json", path);
	if (trace) {
		struct cpt_run c;

		ck_assert_int_eq(cpt_run_program(&c, CPT_CPT, args, NULL,
						 TIMEOUT, false), 0);
		cpt_run_free(&c);
	}
	return cpt_json_load(trace ? out : path, err, sizeof(err));
}

/* The "threads" of run_report(@r, @name); -1 when it cannot be read,
 * -2 for a trace read as partial (no END block). */
static double run_threads(const struct cpt_run *r, const char *name)
{
	json_t *j = run_report(r, name);
	double n = -1;

	if (j)
		n = json_is_true(json_object_get(j, "partial")) ? -2 :
		    cpt_json_num(j, "threads");
	json_decref(j);
	return n;
}

/*
 * A program that starts as a daemon does (robust_daemon: into away/,
 * umask(0777), closefrom(3)) before its threads run and the tracer
 * creates its report at exit: its own file stays in away/ with mode 0000
 * and it reads its directory, descriptor and umask back, as bare; the
 * tracer's files are in the directory the run started in, nothing of
 * them in away/, with the tracer's mode, preloaded, linked and static,
 * online and trace: 0600 under relative names given (report.json,
 * trace.cpt), 0644 with CPTHREAD_FILE_MODE=umask under the default names
 * (this test's umask 022 being the start-up one); the trace is whole, its
 * 3 threads in it.  (The report went to away/, mode 0000; the trace
 * ended at the closefrom.)
 */
START_TEST(test_preserve_daemon)
{
	const struct preserve_combo *c = &pcombos[_i % NPCOMBOS];
	bool defaults = _i >= NPCOMBOS;
	char env_mode[64], what[128], report[64], trace[64], away[300];
	const char *env[] = { env_mode, "CPTHREAD_REPORT=report.json",
			      "CPTHREAD_TRACE=trace.cpt", NULL, NULL };
	struct cpt_run bare, r;
	int want = defaults ? 0644 : 0600, mode;
	char *others;

	umask(022);
	if (defaults) {
		env[1] = "CPTHREAD_REPORT=";
		env[2] = "CPTHREAD_TRACE=";
		env[3] = "CPTHREAD_FILE_MODE=umask";
	}
	snprintf(env_mode, sizeof(env_mode), "CPTHREAD_MODE=%s", c->mode);
	snprintf(what, sizeof(what), "robust_daemon %s %s%s",
		 cpt_variant_name(c->v), c->mode,
		 defaults ? " default names" : "");
	run_bare(&bare, "robust_daemon", NULL);
	ck_assert_msg(cpt_run_exit_code(&bare) == 0 &&
		      strstr(bare.out, "in away, fd 3, umask 777,") &&
		      run_file_mode(bare.dir, "away/own.txt") == 0,
		      "robust_daemon bare: exit %d, \"%s\", own.txt mode %o",
		      cpt_run_exit_code(&bare), bare.out,
		      run_file_mode(bare.dir, "away/own.txt"));
	ck_assert_int_eq(cpt_run_workload(&r, "robust_daemon", c->v, NULL,
					  env, TIMEOUT), 0);
	expect_same_behaviour(what, &bare, &r);
	ck_assert_msg(run_file_mode(r.dir, "away/own.txt") == 0,
		      "%s: the program's file got mode %o", what,
		      run_file_mode(r.dir, "away/own.txt"));
	snprintf(away, sizeof(away), "%s/away", r.dir);
	others = dir_others(away, "own.txt");
	ck_assert_msg(!others[0], "%s: away/ holds%s", what, others);
	free(others);
	snprintf(report, sizeof(report), "cpthread.%d.json", (int)r.pid);
	snprintf(trace, sizeof(trace), "cpthread.%d.cpt", (int)r.pid);
	if (!defaults)
		expect_report(what, &r, 3);
	mode = run_file_mode(r.dir, defaults ? report : "report.json");
	ck_assert_msg(mode == want, "%s: report mode %o, not %o", what, mode,
		      want);
	if (!strcmp(c->mode, "trace")) {
		mode = run_file_mode(r.dir, defaults ? trace : "trace.cpt");
		ck_assert_msg(mode == want, "%s: trace mode %o, not %o", what,
			      mode, want);
		mode = (int)run_threads(&r, defaults ? trace : "trace.cpt");
		ck_assert_msg(mode == 3, "%s: the trace counts %d threads (-2: "
			      "partial), not 3: %.300s", what, mode, r.err);
	}
	cpt_run_free(&r);
	cpt_run_free(&bare);
}
END_TEST

/*
 * A program that works with three threads and then execs itself, through
 * each member of the exec family (robust_exec): the image before never
 * exits, so its report (3 threads) and trace are finished at the exec,
 * under the default names; the new image (1 thread) writes its own under
 * the next free names.  An exec that fails ("missing") leaves the report
 * of the work before it and a line saying it ends there; a launcher (one
 * thread, a mutex) leaves its names to the new image.  Output and exit
 * as bare, preloaded, linked and static, online and trace (execl), and
 * preloaded in trace mode for the rest of the family.  (The work before
 * the exec was in no report: the new image took the names over.)
 */
START_TEST(test_preserve_exec)
{
	static const char *const hows[] = {
		"execve", "execv", "execvp", "execvpe", "execlp", "execle",
		"fexecve", "missing", "launcher",
	};
	const struct preserve_combo *c = &pcombos[_i < NPCOMBOS ? _i : 3];
	const char *how = _i < NPCOMBOS ? "execl" : hows[_i - NPCOMBOS];
	bool fails = !strcmp(how, "missing");
	bool launcher = !strcmp(how, "launcher");
	const char *args[] = { how, NULL };
	char env_mode[64], what[128], name[64];
	const char *env[] = { env_mode, "CPTHREAD_REPORT=", "CPTHREAD_TRACE=",
			      NULL };
	bool trace = !strcmp(c->mode, "trace");
	struct cpt_run bare, r;
	double n;

	snprintf(env_mode, sizeof(env_mode), "CPTHREAD_MODE=%s", c->mode);
	snprintf(what, sizeof(what), "robust_exec %s %s %s", how,
		 cpt_variant_name(c->v), c->mode);
	run_bare(&bare, "robust_exec", args);
	ck_assert_msg(cpt_run_exit_code(&bare) == (fails ? 4 : 3) &&
		      strstr(bare.out, fails ? "exec failed: ENOENT" :
				 launcher ? "before: launcher\nafter\n" :
				 "before: count 40000\nafter\n"),
		      "robust_exec %s bare: exit %d, \"%s\"", how,
		      cpt_run_exit_code(&bare), bare.out);
	ck_assert_int_eq(cpt_run_workload(&r, "robust_exec", c->v, args, env,
					  TIMEOUT), 0);
	expect_same_behaviour(what, &bare, &r);
	snprintf(name, sizeof(name), "cpthread.%d.json", (int)r.pid);
	n = run_threads(&r, name);
	ck_assert_msg(n == (launcher ? 1 : 3), "%s: %s counts %.0f threads "
		      "(%.400s)", what, name, n, r.err);
	snprintf(name, sizeof(name), "cpthread.%d.1.json", (int)r.pid);
	if (launcher) {		/* the new image took the names over */
		ck_assert_msg(run_threads(&r, name) == -1, "%s: %s written",
			      what, name);
		cpt_run_free(&r);
		cpt_run_free(&bare);
		return;
	}
	if (trace) {
		snprintf(name, sizeof(name), "cpthread.%d.cpt", (int)r.pid);
		n = run_threads(&r, name);
		ck_assert_msg(n == 3, "%s: %s counts %.0f threads, not 3",
			      what, name, n);
	}
	snprintf(name, sizeof(name), "cpthread.%d.1.json", (int)r.pid);
	n = run_threads(&r, name);
	ck_assert_msg(n == (fails ? -1 : 1), "%s: %s: %.0f threads", what,
		      name, n);
	if (trace && !fails) {
		snprintf(name, sizeof(name), "cpthread.%d.1.cpt", (int)r.pid);
		n = run_threads(&r, name);
		ck_assert_msg(n == 1, "%s: %s counts %.0f threads, not 1",
			      what, name, n);
	}
	ck_assert_msg(!fails || strstr(r.err, "an exec failed (No such file"),
		      "%s: stderr \"%.400s\"", what, r.err);
	cpt_run_free(&r);
	cpt_run_free(&bare);
}
END_TEST

/*
 * A signal handler of the program's that calls the tracer (sem_post)
 * every 50 us while 300 threads are created and joined: each thread is
 * one thread of the report, however early in its life a handler runs (a
 * handler before the thread's state was bound adopted it as another: 40
 * to 50 threads too many in a run).
 */
START_TEST(test_preserve_handler_in_new_threads)
{
	expect_threads_counted("robust_handler", _i, 301, NULL);
}
END_TEST

/* The acquisitions of the mutex objects in report @j with at least
 * @min of them (the child's own mutex: the looper's may be caught held at
 * the fork, and a few of its acquisitions then counted in the child). */
static long mutex_ops_at_least(json_t *j, long min)
{
	json_t *o;
	size_t i;
	long n = 0;

	json_array_foreach(json_object_get(j, "objects"), i, o) {
		const char *kind = json_string_value(json_object_get(o,
								      "kind"));
		long ops = (long)json_integer_value(json_object_get(o, "ops"));

		if (kind && strcmp(kind, "mutex") == 0 && ops >= min)
			n += ops;
	}
	return n;
}

/*
 * fork() while another thread takes a lock: the child starts fresh (its
 * own report, named by its pid, counting its own 3 threads and the 2,000
 * acquisitions of a mutex the parent had used before the fork), the
 * parent's report is intact (its pid, its 2 threads), output as bare.
 */
START_TEST(test_preserve_fork)
{
	const char *args[] = { "pids.txt", NULL };
	const char *env_default[] = { "CPTHREAD_QUIET=1", "-CPTHREAD_REPORT",
				      NULL };
	const char *env_named[] = { "CPTHREAD_QUIET=1", NULL };
	struct cpt_run bare, r;
	char path[512], err[512], what[64];
	long ppid = 0, cpid = 0;
	json_t *j;
	FILE *f;

	run_bare(&bare, "robust_fork", args);
	ck_assert_msg(cpt_run_exit_code(&bare) == 0,
		      "robust_fork bare: exit %d, stderr %.300s",
		      cpt_run_exit_code(&bare), bare.err);
	for (size_t k = 0; k < sizeof(traced) / sizeof(traced[0]); k++) {
		snprintf(what, sizeof(what), "robust_fork %s",
			 cpt_variant_name(traced[k]));
		/* default report names: cpthread.<pid>.json in the cwd */
		ck_assert_int_eq(cpt_run_workload(&r, "robust_fork",
						  traced[k], args,
						  env_default, TIMEOUT), 0);
		expect_same_behaviour(what, &bare, &r);
		snprintf(path, sizeof(path), "%s/pids.txt", r.dir);
		f = fopen(path, "r");
		ck_assert_msg(f && fscanf(f, "%ld %ld", &ppid, &cpid) == 2,
			      "%s: no pids in %s", what, path);
		fclose(f);

		snprintf(path, sizeof(path), "%s/cpthread.%ld.json", r.dir,
			 ppid);
		j = cpt_json_load(path, err, sizeof(err));
		ck_assert_msg(j, "%s: parent's report: %s", what, err);
		ck_assert_msg(cpt_json_num(j, "pid") == ppid &&
			      cpt_json_num(j, "threads") == 2,
			      "%s: parent's report: pid %.0f (expected %ld), "
			      "threads %.0f (expected 2)", what,
			      cpt_json_num(j, "pid"), ppid,
			      cpt_json_num(j, "threads"));
		json_decref(j);

		snprintf(path, sizeof(path), "%s/cpthread.%ld.json", r.dir,
			 cpid);
		j = cpt_json_load(path, err, sizeof(err));
		ck_assert_msg(j, "%s: child's report: %s", what, err);
		ck_assert_msg(cpt_json_num(j, "pid") == cpid &&
			      cpt_json_num(j, "threads") == 3,
			      "%s: child's report: pid %.0f (expected %ld), "
			      "threads %.0f (expected 3: its main and 2 "
			      "workers)", what, cpt_json_num(j, "pid"), cpid,
			      cpt_json_num(j, "threads"));
		ck_assert_msg(mutex_ops_at_least(j, 1000) == 2000,
			      "%s: child's report: %ld acquisitions of its "
			      "mutex, expected 2000", what,
			      mutex_ops_at_least(j, 1000));
		json_decref(j);
		cpt_run_free(&r);

		/* an explicit report path stays the parent's */
		ck_assert_int_eq(cpt_run_workload(&r, "robust_fork",
						  traced[k], args, env_named,
						  TIMEOUT), 0);
		expect_same_behaviour(what, &bare, &r);
		snprintf(path, sizeof(path), "%s/pids.txt", r.dir);
		f = fopen(path, "r");
		ck_assert_msg(f && fscanf(f, "%ld %ld", &ppid, &cpid) == 2,
			      "%s: no pids in %s", what, path);
		fclose(f);
		ck_assert_msg(r.report, "%s: CPTHREAD_REPORT=%s: %s", what,
			      r.report_path, r.report_error);
		ck_assert_msg(cpt_json_num(r.report, "pid") == ppid &&
			      cpt_json_num(r.report, "threads") == 2,
			      "%s: CPTHREAD_REPORT=%s holds pid %.0f, threads "
			      "%.0f: expected the parent's (pid %ld, 2 "
			      "threads)", what, r.report_path,
			      cpt_json_num(r.report, "pid"),
			      cpt_json_num(r.report, "threads"), ppid);
		cpt_run_free(&r);
	}
	cpt_run_free(&bare);
}
END_TEST

/* 3000 threads in 30 sequential batches: all counted, output as bare. */
START_TEST(test_preserve_many_threads)
{
	expect_threads_counted("robust_many", _i, 3001, NULL);
}
END_TEST

/* Detached threads, some still leaving when main returns. */
START_TEST(test_preserve_detached)
{
	const char *env[] = { "CPTHREAD_QUIET=1", NULL };
	struct cpt_run bare, r;
	char what[64];

	run_bare(&bare, "robust_detach", NULL);
	for (size_t k = 0; k < sizeof(traced) / sizeof(traced[0]); k++) {
		snprintf(what, sizeof(what), "robust_detach %s",
			 cpt_variant_name(traced[k]));
		ck_assert_int_eq(cpt_run_workload(&r, "robust_detach",
						  traced[k], NULL, env,
						  TIMEOUT), 0);
		expect_same_behaviour(what, &bare, &r);
		expect_report(what, &r, 41);
		cpt_run_free(&r);
	}
	cpt_run_free(&bare);
}
END_TEST

/*
 * Bad configuration: the program runs as bare (same stdout, same exit
 * status), and stderr holds exactly one line, which names the problem.
 */
struct bad_config {
	const char *setting;
	const char *named;	/* the line must contain this */
};

static const struct bad_config bad_configs[] = {
	{ "CPTHREAD_MODE=bogus", "CPTHREAD_MODE" },
	{ "CPTHREAD_FUNCS=,,a b", "CPTHREAD_FUNCS" },
	{ "CPTHREAD_REPORT=/nonexistent/dir/x.json",
	  "/nonexistent/dir/x.json" },
	{ "CPTHREAD_CLOCK=sundial", "CPTHREAD_CLOCK" },
	{ "CPTHREAD_SAMPLE_MS=often", "CPTHREAD_SAMPLE_MS" },
};

#define NBAD (int)(sizeof(bad_configs) / sizeof(bad_configs[0]))

START_TEST(test_preserve_bad_config)
{
	const struct bad_config *b = &bad_configs[_i / 2];
	enum cpt_variant v = _i % 2 ? CPT_LINKED : CPT_PRELOAD;
	const char *env[] = { b->setting, "CPTHREAD_QUIET=1", NULL };
	struct cpt_run bare, r;
	char what[128];

	snprintf(what, sizeof(what), "preserve %s with %s",
		 cpt_variant_name(v), b->setting);
	run_bare(&bare, "preserve", NULL);
	ck_assert_int_eq(cpt_run_workload(&r, "preserve", v, NULL, env,
					  TIMEOUT), 0);
	expect_same_behaviour(what, &bare, &r);
	ck_assert_msg(cpt_count_lines(r.err) == 1,
		      "%s: expected exactly one line on stderr, got %u: "
		      "\"%.600s\"", what, cpt_count_lines(r.err), r.err);
	ck_assert_msg(strstr(r.err, b->named) != NULL,
		      "%s: the stderr line does not name %s: \"%.300s\"",
		      what, b->named, r.err);
	cpt_run_free(&r);
	cpt_run_free(&bare);
}
END_TEST

/* CPTHREAD_MODE=off: the program runs as bare and the tracer is silent. */
START_TEST(test_preserve_mode_off)
{
	enum cpt_variant v = traced[_i];
	const char *env[] = { "CPTHREAD_MODE=off", NULL };
	struct cpt_run bare, r;
	char what[64];

	snprintf(what, sizeof(what), "preserve %s CPTHREAD_MODE=off",
		 cpt_variant_name(v));
	run_bare(&bare, "preserve", NULL);
	ck_assert_int_eq(cpt_run_workload(&r, "preserve", v, NULL, env,
					  TIMEOUT), 0);
	expect_same_behaviour(what, &bare, &r);
	ck_assert_msg(r.err[0] == '\0', "%s: stderr not empty: %.300s", what,
		      r.err);
	cpt_run_free(&r);
	cpt_run_free(&bare);
}
END_TEST

static Suite *preserve_suite(void)
{
	Suite *s = suite_create("preserve");
	TCase *tc;

	tc = tcase_create("calls");
	tcase_set_timeout(tc, 2 * TIMEOUT);
	tcase_add_loop_test(tc, test_preserve_calls, 0, NPCOMBOS);
	suite_add_tcase(s, tc);

	tc = tcase_create("robustness");
	tcase_set_timeout(tc, 4 * TIMEOUT);
	tcase_add_test(tc, test_preserve_exit_from_thread);
	tcase_add_test(tc, test_preserve_fork);
	tcase_add_loop_test(tc, test_preserve_many_threads, 0, NPCOMBOS);
	tcase_add_test(tc, test_preserve_detached);
	tcase_add_loop_test(tc, test_preserve_stderr_taken, 0, 4 * NPCOMBOS);
	tcase_add_loop_test(tc, test_preserve_locale, 0, NPCOMBOS);
	tcase_add_loop_test(tc, test_preserve_own_allocator, 0, NPCOMBOS);
	tcase_add_loop_test(tc, test_preserve_daemon, 0, 2 * NPCOMBOS);
	tcase_add_loop_test(tc, test_preserve_exec, 0, NPCOMBOS + 9);
	tcase_add_loop_test(tc, test_preserve_handler_in_new_threads, 0,
			    NPCOMBOS);
	suite_add_tcase(s, tc);

	tc = tcase_create("configuration");
	tcase_set_timeout(tc, 2 * TIMEOUT);
	tcase_add_loop_test(tc, test_preserve_bad_config, 0, 2 * NBAD);
	tcase_add_loop_test(tc, test_preserve_mode_off, 0,
			    (int)(sizeof(traced) / sizeof(traced[0])));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(preserve_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
