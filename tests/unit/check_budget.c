/*
 * check_budget.c - the memory estimate of a trace analysis (cp_budget.c):
 * the events it counts from the block headers, what a cut trace costs, the
 * size syntax of --memory, and that the estimate bounds a real analysis'
 * peak from above, each verb's by the estimate for its use.
 */
#include <check.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cp_budget.h"
#include "../cpt_skip.h"
#include "cp_trace.h"
#include "cp_tracepag.h"
#include "cpt_cli.h"
#include "trace_synth.h"

/* Two threads, @iters lock/unlock pairs each, in blocks of 100 events:
 * thread 0 START, OBJ_DEF, CREATE, JOIN, EXIT; thread 1 START, EXIT;
 * 4 * @iters lock and unlock events: 7 + 4 * @iters events.  @region:
 * thread 1's first pair is also inside a region named "work" (2 events
 * more). */
static void write_trace_as(const char *path, uint32_t iters, bool region)
{
	struct synth s;
	uint32_t m;

	synth_init(&s);
	s.block_events = 100;
	synth_start(&s, 0, -1);
	m = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	synth_create(&s, 0, 10, 1);
	synth_start(&s, 1, 0);
	if (region) {
		synth_string(&s, 1, "work");
		synth_region_begin(&s, 1, 1, 1);
		synth_lock(&s, 1, 5, 0, m);
		synth_unlock(&s, 1, 3, m);
		synth_region_end(&s, 1, 1, 1);
	}
	for (uint32_t i = 0; i < iters; i++) {
		synth_lock(&s, 1, 5, 0, m);
		synth_unlock(&s, 1, 3, m);
		synth_lock(&s, 0, 5, 0, m);
		synth_unlock(&s, 0, 3, m);
	}
	synth_exit(&s, 1, 1);
	synth_join(&s, 0, 1, false, 1);
	synth_exit(&s, 0, 1);
	ck_assert_msg(synth_write(&s, path) == 0, "write %s", path);
	synth_free(&s);
}

/*
 * A lock program as a real one records it: two threads, @iters pairs
 * each over 16 mutexes picked at random, 50-2049 ns of work before each
 * acquire and 10-137 ns held (a fixed LCG: the same file every run), a
 * region "work" around thread 1's first pair: 4 * @iters + 13 events.
 * Real clocks give distinct times, so few paths tie (write_trace_as's
 * equal steps make every sidetrack tie, which the k-path search's heaps
 * pay for at every vertex).
 */
static void write_trace_mixed(const char *path, uint32_t iters)
{
	struct synth s;
	uint32_t m[16], x = 12345;

	synth_init(&s);
	synth_start(&s, 0, -1);
	for (uint32_t i = 0; i < 16; i++)
		m[i] = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	synth_create(&s, 0, 10, 1);
	synth_start(&s, 1, 0);
	synth_string(&s, 1, "work");
	synth_region_begin(&s, 1, 1, 1);
	synth_lock(&s, 1, 5, 0, m[0]);
	synth_unlock(&s, 1, 3, m[0]);
	synth_region_end(&s, 1, 1, 1);
	for (uint32_t i = 0; i < 2 * iters; i++) {
		uint32_t tid = i & 1, obj;

		x = x * 1103515245u + 12345u;
		obj = m[x >> 28];
		synth_lock(&s, tid, 50 + (x >> 8 & 2047), 0, obj);
		synth_unlock(&s, tid, 10 + (x >> 20 & 127), obj);
	}
	synth_exit(&s, 1, 1);
	synth_join(&s, 0, 1, false, 1);
	synth_exit(&s, 0, 1);
	ck_assert_msg(synth_write(&s, path) == 0, "write %s", path);
	synth_free(&s);
}

static void write_trace(const char *path, uint32_t iters)
{
	write_trace_as(path, iters, false);
}

/* Create the temporary file named by the template @path (mkstemp). */
static void temp_file(char *path)
{
	int fd = mkstemp(path);

	ck_assert_msg(fd >= 0, "mkstemp %s", path);
	close(fd);
}

START_TEST(test_budget_counts_events_from_headers)
{
	char path[] = "/tmp/cpt_budget_XXXXXX", err[256] = "";
	struct cp_budget_est est;
	struct cp_trace t;

	temp_file(path);
	write_trace(path, 1000);
	ck_assert_msg(cp_budget_estimate(path, CP_BUDGET_REPORT, 0, &est, err,
				     sizeof(err)) == 0,
		      "estimate: %s", err);
	ck_assert_msg(cp_trace_read(&t, path, err, sizeof(err)) == 0,
		      "read: %s", err);
	ck_assert_msg(est.exact, "every header read");
	ck_assert_msg(est.nevents == t.nevents && est.nevents == 4007,
		      "estimate counts %llu events, the reader %llu",
		      (unsigned long long)est.nevents,
		      (unsigned long long)t.nevents);
	ck_assert_msg(est.peak_bytes > est.nevents * 100 + est.file_bytes,
		      "peak %llu for %llu events",
		      (unsigned long long)est.peak_bytes,
		      (unsigned long long)est.nevents);
	cp_trace_free(&t);
	unlink(path);
}
END_TEST

/* A cut trace: the headers up to the cut, then the rest of the file at
 * one event per two bytes, so the estimate never falls short. */
START_TEST(test_budget_cut_trace_counts_bytes)
{
	char path[] = "/tmp/cpt_budget_XXXXXX", err[256] = "";
	struct cp_budget_est whole, cut;

	temp_file(path);
	write_trace(path, 1000);
	ck_assert(cp_budget_estimate(path, CP_BUDGET_REPORT, 0, &whole, err,
				     sizeof(err)) == 0);
	ck_assert(truncate(path, (off_t)(whole.file_bytes - 1000)) == 0);
	ck_assert(cp_budget_estimate(path, CP_BUDGET_REPORT, 0, &cut, err,
				     sizeof(err)) == 0);
	ck_assert_msg(!cut.exact, "a cut trace is not exact");
	ck_assert_msg(cut.nevents >= whole.nevents / 2 &&
		      cut.nevents <= whole.nevents + cut.file_bytes / 2,
		      "cut: %llu events, whole %llu",
		      (unsigned long long)cut.nevents,
		      (unsigned long long)whole.nevents);
	unlink(path);
	ck_assert_msg(cp_budget_estimate(path, CP_BUDGET_REPORT, 0, &cut, err,
				     sizeof(err)) == -1 &&
		      strstr(err, path), "missing file: '%s'", err);
}
END_TEST

/* An EVENTS block whose count exceeds its bytes (the reader drops it)
 * counts no events: a damaged header cannot make a trace look huge. */
START_TEST(test_budget_ignores_impossible_counts)
{
	char path[] = "/tmp/cpt_budget_XXXXXX", err[256] = "";
	struct cp_budget_est est;
	uint8_t payload[24 + 8] = { 0 };
	struct synth s;

	temp_file(path);
	payload[16] = payload[17] = payload[18] = payload[19] = 0xff;
	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_exit(&s, 0, 1);
	synth_raw_block(&s, CP_BLOCK_EVENTS, 0, payload, sizeof(payload));
	ck_assert(synth_write(&s, path) == 0);
	synth_free(&s);
	ck_assert(cp_budget_estimate(path, CP_BUDGET_REPORT, 0, &est, err,
				     sizeof(err)) == 0);
	ck_assert_msg(est.exact && est.nevents == 2, "%llu events",
		      (unsigned long long)est.nevents);
	unlink(path);
}
END_TEST

START_TEST(test_budget_parse_sizes)
{
	static const struct { const char *s; uint64_t v; } ok[] = {
		{ "4096", 4096 }, { "800M", 800ull << 20 },
		{ "1.5G", 3ull << 29 }, { "2T", 2ull << 40 },
		{ "64K", 65536 }, { "16GiB", 16ull << 30 }, { "3GB", 3ull << 30 },
	};
	static const char *const bad[] = {
		"", "0", "-1G", "G", "12X", "1GG", "1e30", "nan", "0.5",
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		ck_assert_msg(cp_budget_parse(ok[i].s, &v) == 0 &&
			      v == ok[i].v, "'%s' -> %llu, want %llu",
			      ok[i].s, (unsigned long long)v,
			      (unsigned long long)ok[i].v);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(cp_budget_parse(bad[i], &v) == -1,
			      "'%s' accepted", bad[i]);
	ck_assert_msg(cp_budget_default() >= (1ull << 20),
		      "default budget %llu",
		      (unsigned long long)cp_budget_default());
}
END_TEST

/* The estimate bounds what reading and building the graph really took. */
START_TEST(test_budget_bounds_the_analysis)
{
	char path[] = "/tmp/cpt_budget_XXXXXX", err[256] = "";
	struct cp_budget_est est;
	struct cp_tracepag tp;
	struct cp_trace t;
	struct rusage a, b;

	temp_file(path);
	write_trace(path, 250000);
	ck_assert(cp_budget_estimate(path, CP_BUDGET_REPORT, 0, &est, err,
				     sizeof(err)) == 0);
	getrusage(RUSAGE_SELF, &a);
	ck_assert_msg(cp_trace_read(&t, path, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_msg(cp_tracepag_build(&tp, &t, err, sizeof(err)) == 0,
		      "%s", err);
	getrusage(RUSAGE_SELF, &b);
	ck_assert_msg((uint64_t)(b.ru_maxrss - a.ru_maxrss) * 1024 <
		      est.peak_bytes, "grew %ld KB, estimate %llu bytes",
		      b.ru_maxrss - a.ru_maxrss,
		      (unsigned long long)est.peak_bytes);
	cp_tracepag_free(&tp);
	cp_trace_free(&t);
	unlink(path);
}
END_TEST

/* cpt refuses a trace over --memory in one line naming both figures,
 * exit 1, and analyses it when the budget is enough (`cpt export`: `cpt
 * report`, `cpt whatif` and `cpt paths` stream instead, check_stream.c). */
START_TEST(test_budget_cpt_refuses_over_budget)
{
	char path[] = "/tmp/cpt_budget_XXXXXX", cmd[512], line[512] = "";
	int st;
	FILE *f;

	temp_file(path);
	write_trace(path, 1000);
	snprintf(cmd, sizeof(cmd), "%s/tools/cpt export --format folded %s "
		 "--memory 64K 2>&1 >/dev/null", CP_BINARY_DIR, path);
	f = popen(cmd, "r");
	ck_assert(f != NULL);
	ck_assert(fgets(line, sizeof(line), f) != NULL);
	st = pclose(f);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", st);
	ck_assert_msg(strstr(line, "4007 events need about") &&
		      strstr(line, "over the budget of 64 KB") &&
		      strstr(line, path), "message: %s", line);
	snprintf(cmd, sizeof(cmd), "%s/tools/cpt export --format folded %s "
		 "--memory=1G >/dev/null 2>&1", CP_BINARY_DIR, path);
	st = system(cmd);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	unlink(path);
}
END_TEST

/* The first line @cmd writes on stderr (stdout dropped) into @line, or
 * "" if none; returns its exit status. */
static int first_err_line(const char *cmd, char *line, size_t len)
{
	char full[600];
	FILE *f;

	snprintf(full, sizeof(full), "%s 2>&1 >/dev/null", cmd);
	f = popen(full, "r");
	ck_assert(f != NULL);
	if (!fgets(line, (int)len, f))
		line[0] = '\0';
	while (fgetc(f) != EOF)
		;
	return pclose(f);
}

/* A trace of 10^6 events or more, its estimate over half the budget (and
 * stderr not a terminal): one line says it runs in memory; with room to
 * spare, stderr stays quiet. */
START_TEST(test_budget_cpt_says_the_mode)
{
	char path[] = "/tmp/cpt_budget_XXXXXX", cmd[512], line[512];
	int st;

	temp_file(path);
	write_trace(path, 250000);	/* 1000007 events, about 155 MB */
	snprintf(cmd, sizeof(cmd), "%s/tools/cpt paths %s --k 1 --memory 280M",
		 CP_BINARY_DIR, path);
	st = first_err_line(cmd, line, sizeof(line));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	ck_assert_msg(strstr(line, "in memory: 1000007 events, about ") &&
		      strstr(line, "within the budget of 280 MB"),
		      "stderr: '%s'", line);
	snprintf(cmd, sizeof(cmd), "%s/tools/cpt paths %s --k 1 --memory 4G",
		 CP_BINARY_DIR, path);
	st = first_err_line(cmd, line, sizeof(line));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && !line[0],
		      "status %d, stderr '%s'", st, line);
	unlink(path);
}
END_TEST

/*
 * Run @cmd with its stderr on a terminal (stdout dropped); what it wrote
 * there goes into @out.  Returns its wait status.
 */
static int on_terminal(const char *cmd, char *out, size_t len)
{
	size_t n = 0;
	ssize_t r;
	int fd, st;
	pid_t pid = forkpty(&fd, NULL, NULL, NULL);

	ck_assert(pid >= 0);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	/* read until the child closes the terminal (EIO on Linux) */
	while ((r = read(fd, out + n, len - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fd);
	ck_assert(waitpid(pid, &st, 0) == pid);
	return st;
}

/*
 * On a terminal the mode line is said once, with the budget asked for:
 * `cpt report` and `cpt whatif --in-memory` weigh the trace before they
 * load it, and the loader used to weigh it again against no budget at all
 * and print a second line ("within the budget of 17179869184.0 GB").
 */
START_TEST(test_budget_cpt_says_the_mode_once)
{
	static const char *verbs[][2] = {
		{ "report", "-o /dev/null --memory 4G" },
		{ "whatif", "--scale work=0.5 --in-memory --memory 4G" },
		{ "paths", "--k 1 --memory 4G" },
	};
	char path[] = "/tmp/cpt_budget_XXXXXX", cmd[512], out[8192];

	temp_file(path);
	write_trace_as(path, 250000, true);	/* 1000013 events */
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		int st;

		snprintf(cmd, sizeof(cmd), "%s/tools/cpt %s %s %s",
			 CP_BINARY_DIR, verbs[i][0], path, verbs[i][1]);
		st = on_terminal(cmd, out, sizeof(out));
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			      "%s: status %d: %s", cmd, st, out);
		ck_assert_msg(cpt_count(out, "in memory: ") == 1 &&
			      strstr(out, "within the budget of 4.0 GB"),
			      "%s: stderr '%s'", cmd, out);
	}
	unlink(path);
}
END_TEST

/*
 * Each verb's peak (its maximum resident set, from wait4) stays under the
 * estimate for its use, on a lock program's trace of 10^6 events (the
 * estimate errs high by more on larger ones, where the fixed part weighs
 * less).  AddressSanitizer's shadow memory is not the analysis'.
 */
START_TEST(test_budget_bounds_each_verb)
{
	static const struct {
		const char *verb, *opts;
		enum cp_budget_use use;
		uint32_t k;
	} verbs[] = {
		{ "paths", "--k 1000", CP_BUDGET_PATHS, 1000 },
		{ "export", "--format chrome", CP_BUDGET_GRAPH, 0 },
		{ "export", "--format folded", CP_BUDGET_GRAPH, 0 },
		{ "whatif", "--scale work=0.5 --in-memory", CP_BUDGET_GRAPH, 0 },
		{ "report", "", CP_BUDGET_REPORT, 100 },
		{ "report", "--format html", CP_BUDGET_PAGE, 100 },
		{ "whatif", "--scale work=0.5 --cpus 2", CP_BUDGET_PAGE, 0 },
	};
	char path[] = "/tmp/cpt_budget_XXXXXX", err[256] = "", cmd[600];

	CPT_SKIP_IF(CPT_ASAN, "AddressSanitizer's memory is counted");
	temp_file(path);
	write_trace_mixed(path, 250000);	/* 1000013 events */
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		struct cp_budget_est est;
		struct rusage ru;
		pid_t pid;
		int st;

		ck_assert_msg(cp_budget_estimate(path, verbs[i].use,
						 verbs[i].k, &est, err,
						 sizeof(err)) == 0, "%s", err);
		snprintf(cmd, sizeof(cmd), "exec %s/tools/cpt %s %s %s "
			 "-o /dev/null 2>/dev/null", CP_BINARY_DIR,
			 verbs[i].verb, path, verbs[i].opts);
		pid = fork();
		ck_assert(pid >= 0);
		if (pid == 0) {
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
		ck_assert(wait4(pid, &st, 0, &ru) == pid);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			      "%s: status %d", cmd, st);
		ck_assert_msg((uint64_t)ru.ru_maxrss * 1024 < est.peak_bytes,
			      "%s: peak %ld KB over the estimate of %llu KB",
			      cmd, ru.ru_maxrss,
			      (unsigned long long)est.peak_bytes / 1024);
	}
	unlink(path);
}
END_TEST

static Suite *budget_suite(void)
{
	Suite *s = suite_create("budget");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_budget_counts_events_from_headers);
	tcase_add_test(tc, test_budget_cut_trace_counts_bytes);
	tcase_add_test(tc, test_budget_parse_sizes);
	tcase_add_test(tc, test_budget_ignores_impossible_counts);
	tcase_add_test(tc, test_budget_bounds_the_analysis);
	tcase_add_test(tc, test_budget_bounds_each_verb);
	tcase_add_test(tc, test_budget_cpt_refuses_over_budget);
	tcase_add_test(tc, test_budget_cpt_says_the_mode);
	tcase_add_test(tc, test_budget_cpt_says_the_mode_once);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(budget_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
