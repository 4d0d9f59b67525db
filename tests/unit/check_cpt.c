/*
 * check_cpt.c - the cpt command line, run as a child process: JSON shapes
 * of report/paths/whatif, exit codes 0/1/2, one-line messages naming the
 * file, never a crash on corrupt or truncated input.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cp_child.h"
#include "cpt_cli.h"
#include "trace_synth.h"

static char tmpdir[256];

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static char trace_path[300];

static void setup(void)
{
	cpt_tmpdir(tmpdir, sizeof(tmpdir), "check_cpt");
	snprintf(trace_path, sizeof(trace_path), "%s/lock.cpt", tmpdir);
	cpt_write_lock_trace(trace_path);
}

static void teardown(void)
{
	cpt_rmdir(tmpdir);
}

static json_t *parse_json(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	ck_assert_msg(j != NULL, "bad JSON (%s, line %d): %.300s", je.text,
		      je.line, text);
	return j;
}

START_TEST(test_cpt_report_json_keys)
{
	struct cpt_res r = { 0 };
	const char *args[] = { "report", trace_path, "--format", "json", NULL };
	json_t *j, *cp, *procs, *p0;
	const char *keys[] = { "clock", "threads", "elapsed_ns", "cpu_ns",
			       "max_parallelism", "threads_detail", "objects",
			       "critical_path" };
	const char *pkeys[] = { "name", "cp_ns", "cp_zero_ns", "cpu_ns",
				"slack_ns", "mbm_ns" };

	cpt_run(&r, tmpdir, args);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	j = parse_json(r.out);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		ck_assert_msg(json_object_get(j, keys[i]), "no key %s", keys[i]);
	ck_assert_str_eq(json_string_value(json_object_get(j, "clock")),
			 "wall");
	ck_assert_msg(json_integer_value(json_object_get(j, "threads")) == 3,
		      "threads %" JSON_INTEGER_FORMAT,
		      json_integer_value(json_object_get(j, "threads")));
	ck_assert_msg(json_integer_value(json_object_get(j, "cpu_ns")) ==
		      70000000, "cpu_ns %" JSON_INTEGER_FORMAT,
		      json_integer_value(json_object_get(j, "cpu_ns")));
	cp = json_object_get(j, "critical_path");
	ck_assert_msg(json_integer_value(json_object_get(cp, "length_ns")) ==
		      40000000, "length_ns");
	procs = json_object_get(cp, "procedures");
	ck_assert_msg(json_array_size(procs) == 3, "procedures %zu",
		      json_array_size(procs));
	p0 = json_array_get(procs, 0);
	for (size_t i = 0; i < sizeof(pkeys) / sizeof(pkeys[0]); i++)
		ck_assert_msg(json_object_get(p0, pkeys[i]), "no key %s",
			      pkeys[i]);
	ck_assert_str_eq(json_string_value(json_object_get(p0, "name")),
			 "work1");
	ck_assert_msg(json_integer_value(json_object_get(p0, "cp_ns")) ==
		      30000000, "work1 cp_ns %" JSON_INTEGER_FORMAT,
		      json_integer_value(json_object_get(p0, "cp_ns")));
	json_decref(j);
}
END_TEST

START_TEST(test_cpt_report_text)
{
	struct cpt_res r = { 0 };
	const char *args[] = { "report", trace_path, NULL };

	cpt_run(&r, tmpdir, args);
	ck_assert_msg(r.status == 0 && !r.err[0], "exit %d: %s", r.status,
		      r.err);
	ck_assert_msg(strstr(r.out, "critical path       40.00 ms") &&
		      strstr(r.out, "maximum parallelism 1.75") &&
		      strstr(r.out, "work1") && strstr(r.out, "mutex#1"),
		      "text report:\n%s", r.out);
	/* ordered by CP time: work1 (30 ms) before crit (10 ms) */
	ck_assert_msg(strstr(r.out, "\n  work1") < strstr(r.out, "\n  crit   "),
		      "order:\n%s", r.out);
}
END_TEST

/*
 * A thread per task: T0 works 1 ms, creates T1..T100, works 200 us more,
 * creates T101, joins T1..T100 (all ended) and then T101, waiting 1 us
 * for it; T@i works @i us and exits, T101 1 us.  The critical path is
 * T0's 1.2 ms and T101's 1 us.
 */
static void write_many_threads_trace(const char *path)
{
	struct synth s;

	synth_init(&s);
	synth_start(&s, 0, -1);
	for (uint32_t i = 1; i <= 101; i++) {
		synth_create(&s, 0, i == 1 ? 1000000 : i == 101 ? 200000 : 0,
			     i);
		synth_start(&s, i, 0);
		synth_exit(&s, i, i == 101 ? 1000 : 1000 * i);
	}
	for (uint32_t i = 1; i <= 100; i++)
		synth_join(&s, 0, 0, false, i);
	synth_join(&s, 0, 1000, true, 101);
	synth_exit(&s, 0, 0);
	ck_assert_msg(synth_write(&s, path) == 0, "write %s", path);
	synth_free(&s);
}

/*
 * The text report lists 64 threads one by one: past that, those with the
 * most CP time, then CPU time, in order, and the others as one row.  In
 * memory: T0 and T101 (CP time), then T100 down to T39; the other 38
 * (T1..T38) have 1 + 2 + ... + 38 = 741 us of useful time, no CP time,
 * and T38's path of 1.038 ms is their longest.  Streamed, the pass
 * follows the 64 threads of the most CPU time (T0, T100..T38): T101's CP
 * time is not known and its 1 us puts it among the others (T1..T37 and
 * T101: 704 us, CP time not known, T101's path of 1.201 ms the longest).
 */
START_TEST(test_cpt_report_text_many_threads)
{
	const char *mode[] = { NULL, "--stream" };
	const char *first[] = { "\n  T39 ", "\n  T38 " };
	const char *gone[] = { "\n  T38 ", "\n  T101 " };
	const char *sums[][3] = {
		{ " 38 more ", "741.00 us", "0 ns   0.0%       1.04 ms" },
		{ " 38 more ", "704.00 us", "    -      -       1.20 ms" },
	};
	char path[320];

	snprintf(path, sizeof(path), "%s/many.cpt", tmpdir);
	write_many_threads_trace(path);
	for (int m = 0; m < 2; m++) {
		struct cpt_res r = { 0 };
		const char *args[] = { "report", path, mode[m], NULL };
		const char *how = m ? mode[m] : "in memory", *t, *others;
		int rows = 0;

		cpt_run(&r, tmpdir, args);
		ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
		t = strstr(r.out, "\nThreads\n");
		ck_assert_msg(t, "no Threads table:\n%.1500s", r.out);
		others = strstr(t, "\n  others ");
		ck_assert_msg(others, "%s: no others row:\n%.1500s", how, t);
		for (const char *q = t; (q = strstr(q + 1, "\n  T")) &&
					q < others;)
			rows++;
		ck_assert_msg(rows == 64, "%s: %d rows:\n%.1500s", how, rows,
			      t);
		ck_assert_msg(strstr(t, "\n  T0 ") && strstr(t, first[m]) &&
			      strstr(t, "\n  T100 ") && !strstr(t, gone[m]) &&
			      !strstr(t, "\n  T1 ") &&
			      (m || strstr(t, "\n  T101 ")),
			      "%s: threads shown:\n%.1500s", how, t);
		ck_assert_msg(strstr(t, "\n  T0 ") < strstr(t, first[m]) &&
			      strstr(t, first[m]) < strstr(t, "\n  T100 "),
			      "%s: order:\n%.1500s", how, t);
		for (int k = 0; k < 3; k++)
			ck_assert_msg(strstr(others, sums[m][k]) &&
				      strstr(others, sums[m][k]) <
				      strchr(others + 1, '\n'),
				      "%s: others, no \"%s\":\n%.1500s", how,
				      sums[m][k], others);
	}
}
END_TEST

START_TEST(test_cpt_paths_json_shape)
{
	struct cpt_res r = { 0 };
	const char *args[] = { "paths", trace_path, "--k", "4", "--format",
			       "json", "--full", "1", NULL };
	json_t *j, *paths;
	json_int_t prev = INT64_MAX;
	size_t i;
	json_t *p;

	cpt_run(&r, tmpdir, args);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	j = parse_json(r.out);
	ck_assert_msg(json_object_size(j) == 2, "keys %zu",
		      json_object_size(j));
	ck_assert_msg(json_integer_value(json_object_get(j,
			"critical_path_length")) == 40000000, "CP length");
	paths = json_object_get(j, "paths");
	ck_assert_msg(json_is_array(paths) && json_array_size(paths) == 4,
		      "paths %zu", json_array_size(paths));
	json_array_foreach(paths, i, p) {
		json_t *len = json_object_get(p, "length");
		json_t *edges = json_object_get(p, "edges");
		json_t *par = json_object_get(p, "parent");

		/* the implicit form; edges for the first (--full 1) only */
		ck_assert_msg(json_is_integer(len) &&
			      json_is_integer(json_object_get(p,
							      "edge_count")) &&
			      (json_is_null(par) || (json_is_integer(par) &&
			       (size_t)json_integer_value(par) < i)) &&
			      json_is_integer(json_object_get(p, "shared")) &&
			      json_is_string(json_object_get(p,
							     "deviation")) &&
			      json_object_get(p, "departs") &&
			      json_object_get(p, "rejoins") &&
			      json_object_get(p, "rejoins_cp_at") &&
			      json_object_size(p) == (i == 0 ? 9u : 8u),
			      "path %zu shape", i);
		ck_assert_msg(i > 0 || (json_is_array(edges) &&
					json_array_size(edges) ==
					(size_t)json_integer_value(
					    json_object_get(p, "edge_count")) &&
					json_is_string(json_array_get(edges,
								      0))),
			      "path 0 edges");
		ck_assert_msg(json_integer_value(len) <= prev,
			      "path %zu longer than the one before", i);
		prev = json_integer_value(len);
	}
	ck_assert_msg(json_integer_value(json_object_get(json_array_get(paths,
				0), "length")) == 40000000, "first length");
	json_decref(j);
}
END_TEST

START_TEST(test_cpt_paths_text_pag)
{
	struct cpt_res r = { 0 };
	const char *args[] = { "paths", CP_TEST_DATA_DIR "/cpm-multigraph.pag",
			       "--k", "10", "--format", "json", "--full", "1",
			       NULL };
	json_t *j, *paths, *e, *p;
	size_t i;

	cpt_run(&r, tmpdir, args);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	j = parse_json(r.out);
	paths = json_object_get(j, "paths");
	/* five root-to-leaf paths: 10 B E G; three of 9; 8 B D F */
	ck_assert_msg(json_array_size(paths) == 5, "paths %zu",
		      json_array_size(paths));
	e = json_object_get(json_array_get(paths, 0), "edges");
	ck_assert_msg(json_array_size(e) == 3 &&
		      !strcmp(json_string_value(json_array_get(e, 0)), "B") &&
		      !strcmp(json_string_value(json_array_get(e, 2)), "G"),
		      "CP edges: %s", r.out);
	ck_assert_msg(json_integer_value(json_object_get(json_array_get(paths,
				4), "length")) == 8, "last length");
	/* B D F: leaves the CP at b through D, rejoins it at t (edge 3) */
	p = json_array_get(paths, 4);
	ck_assert_msg(json_integer_value(json_object_get(p, "parent")) == 0 &&
		      json_integer_value(json_object_get(p, "shared")) == 1 &&
		      !strcmp(json_string_value(json_object_get(p,
				"deviation")), "D") &&
		      !strcmp(json_string_value(json_object_get(p, "departs")),
			      "b") &&
		      !strcmp(json_string_value(json_object_get(p, "rejoins")),
			      "t") &&
		      json_integer_value(json_object_get(p,
				"rejoins_cp_at")) == 3 &&
		      !json_object_get(p, "edges"), "B D F: %s", r.out);
	json_array_foreach(paths, i, p)
		ck_assert_msg(i == 0 || !json_object_get(p, "edges"),
			      "path %zu spelled without --full", i);
	json_decref(j);
}
END_TEST

START_TEST(test_cpt_paths_text_full_n)
{
	/*
	 * Text: a near-critical path is said from its deviation to where it
	 * meets the critical path again, its shared prefix and its rest
	 * named (A H G: as A C F, then H, then G as the CP); --full 2 spells
	 * the first two in full, bare --full all of them.
	 */
	struct cpt_res r = { 0 };
	const char *base[] = { "paths", CP_TEST_DATA_DIR "/cpm-multigraph.pag",
			       "--k", "10", NULL };
	const char *two[] = { "paths", CP_TEST_DATA_DIR "/cpm-multigraph.pag",
			      "--k", "10", "--full", "2", NULL };
	const char *all[] = { "paths", CP_TEST_DATA_DIR "/cpm-multigraph.pag",
			      "--full", "--k", "10", NULL };

	cpt_run(&r, tmpdir, base);
	ck_assert_msg(r.status == 0 &&
		      strstr(r.out, "\n#1    length 10, 3 edges\n"
			     "     B 2 > E 3 > G 5\n") &&
		      strstr(r.out, "\n#2    length 9  (1 shorter than the "
			     "critical path), 3 edges\n     (as #1 for its "
			     "first 1 edges) D2 5 > F 2\n") &&
		      strstr(r.out, "\n#5    length 8  (2 shorter than the "
			     "critical path), 3 edges\n     (as #1 for its "
			     "first 1 edges) D 4 > F 2\n") &&
		      strstr(r.out, "\n#4    length 9  (1 shorter than the "
			     "critical path), 3 edges\n     (as #3 for its "
			     "first 1 edges) H 1 > (then as #1 for its last "
			     "1 edges)\n"),
		      "exit %d:\n%s", r.status, r.out);
	cpt_run(&r, tmpdir, two);
	ck_assert_msg(r.status == 0 &&
		      strstr(r.out, "3 edges\n     B 2 > D2 5 > F 2\n") &&
		      strstr(r.out, "(as #1 for its first 1 edges) D 4 > F "
			     "2\n"), "--full 2: exit %d:\n%s", r.status,
		      r.out);
	cpt_run(&r, tmpdir, all);
	ck_assert_msg(r.status == 0 && !strstr(r.out, "(as #") &&
		      strstr(r.out, "3 edges\n     B 2 > D 4 > F 2\n"),
		      "--full: exit %d:\n%s", r.status, r.out);
}
END_TEST

START_TEST(test_cpt_whatif_json)
{
	struct cpt_res r = { 0 };
	const char *args[] = { "whatif", trace_path, "--scale", "work1=0.5",
			       "--format", "json", NULL };
	const char *pargs[] = { "whatif",
				CP_TEST_DATA_DIR "/cpm-multigraph.pag",
				"--scale", "G=0", "--format", "json", NULL };
	const char *cargs[] = { "whatif", trace_path, "--scale", "work1=0.5",
				"--cpus", "1", "--format", "json", NULL };
	const char *pcargs[] = { "whatif",
				 CP_TEST_DATA_DIR "/cpm-multigraph.pag",
				 "--scale", "G=0", "--cpus", "2", NULL };
	const char *wargs[] = { "whatif", trace_path, "--scale", "work1=0.5",
				"--wake", "--format", "json", NULL };
	const char *pwargs[] = { "whatif",
				 CP_TEST_DATA_DIR "/cpm-multigraph.pag",
				 "--scale", "G=0", "--wake", NULL };
	json_t *j;

	cpt_run(&r, tmpdir, args);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	j = parse_json(r.out);
	ck_assert_msg(json_integer_value(json_object_get(j, "length_before")) ==
		      40000000 &&
		      json_integer_value(json_object_get(j, "length_after")) ==
		      35000000 &&
		      json_integer_value(json_object_get(j,
				"length_after_fixed")) == 40000000,
		      "whatif: %s", r.out);
	json_decref(j);
	cpt_run(&r, tmpdir, pargs);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	j = parse_json(r.out);
	ck_assert_msg(json_integer_value(json_object_get(j, "length_before")) ==
		      10 &&
		      json_integer_value(json_object_get(j,
				"length_after_fixed")) == 9, "pag: %s", r.out);
	json_decref(j);
	/* one processor: 70 ms of work in all, 55 with work1 halved */
	cpt_run(&r, tmpdir, cargs);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	j = parse_json(r.out);
	ck_assert_msg(json_integer_value(json_object_get(j,
				"length_before_sim")) == 70000000 &&
		      json_integer_value(json_object_get(j, "length_after")) ==
		      55000000 &&
		      json_integer_value(json_object_get(j, "cpus")) == 1,
		      "--cpus 1: %s", r.out);
	json_decref(j);
	/* a plain graph has nothing to replay */
	cpt_run(&r, tmpdir, pcargs);
	ck_assert_msg(r.status == 2 && strstr(r.err, "--cpus") &&
		      !r.out[0], "pag --cpus: exit %d err '%s'", r.status,
		      r.err);
	/* the example's waits resume the moment the lock is free: no
	 * latency to pay, the ideal machine's figures */
	cpt_run(&r, tmpdir, wargs);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	j = parse_json(r.out);
	ck_assert_msg(json_integer_value(json_object_get(j,
				"length_before_sim")) == 40000000 &&
		      json_integer_value(json_object_get(j, "length_after")) ==
		      35000000 &&
		      json_is_true(json_object_get(j, "wake")),
		      "--wake: %s", r.out);
	json_decref(j);
	cpt_run(&r, tmpdir, pwargs);
	ck_assert_msg(r.status == 2 && strstr(r.err, "--wake") &&
		      !r.out[0], "pag --wake: exit %d err '%s'", r.status,
		      r.err);
}
END_TEST

/*
 * T1 works 30 ms and takes lock L at once; T2 works @w2 ms (less than 30),
 * asks for L first but waits until T1 releases it at 40 ms; both hold L
 * 10 ms (crit).  Recorded critical path: 30 + 10 + 10 = 50 ms.  The
 * replay grants L to T2 first: T2 holds it w2 .. w2 + 10, T1 waits until
 * then and ends at w2 + 20, so the unchanged replay takes w2 + 20 ms.
 */
static void write_late_grant_trace(const char *path, uint64_t w2)
{
	const uint64_t ms = 1000000;
	struct synth s;
	uint32_t l;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "work1");
	synth_symbol(&s, 0x200, 0x10, "work2");
	synth_symbol(&s, 0x300, 0x10, "crit");
	synth_start(&s, 0, -1);
	l = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	synth_spawn(&s, 2);
	synth_enter(&s, 1, 0, 0x100);
	synth_leave(&s, 1, 30 * ms);
	synth_lock(&s, 1, 0, 0, l);
	synth_enter(&s, 1, 0, 0x300);
	synth_leave(&s, 1, 10 * ms);
	synth_unlock(&s, 1, 0, l);
	synth_exit(&s, 1, 0);
	synth_call(&s, 2, 0x200, w2);
	synth_lock(&s, 2, 0, 40 * ms - w2, l);
	synth_enter(&s, 2, 0, 0x300);
	synth_leave(&s, 2, 10 * ms);
	synth_unlock(&s, 2, 0, l);
	synth_exit(&s, 2, 0);
	synth_join(&s, 0, 40 * ms, true, 1);
	synth_join(&s, 0, 10 * ms, true, 2);
	synth_exit(&s, 0, 0);
	s.online_len = 50 * ms;
	ck_assert_msg(synth_write(&s, path) == 0, "write %s", path);
	synth_free(&s);
}

/*
 * The text of `cpt whatif` names the simulation's baseline when it is not
 * the recorded critical path, and explains it (and a reordering) only
 * when the difference exceeds 1 % of the critical path.
 */
START_TEST(test_cpt_whatif_text_notes)
{
	static const char baseline[] = "starts from the unchanged replay";
	static const char differ[] = "The two predicted changes differ";
	static const char row[] = "simulated, unchanged";
	struct cpt_res r = { 0 };
	char late[300], tie[300];
	const char *reorder[] = { "whatif", trace_path, "--scale",
				  "work1=0.5", NULL };
	const char *faster2[] = { "whatif", late, "--scale", "work2=0.5",
				  NULL };
	const char *slower1[] = { "whatif", tie, "--scale", "work1=1.001",
				  NULL };

	/* replay = recording (40 ms); simulated -5 ms, fixed graph 0 */
	cpt_run(&r, tmpdir, reorder);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	ck_assert_msg(!strstr(r.out, row) && !strstr(r.out, baseline),
		      "a baseline equal to the recording is not named: %s",
		      r.out);
	ck_assert_msg(strstr(r.out, differ) &&
		      strstr(r.out, " 2\n  lock acquisitions happen in another "
			     "order"), "reordering: %s", r.out);
	/* replay 40 ms, 20 % under the recorded 50; no change either way */
	snprintf(late, sizeof(late), "%s/late.cpt", tmpdir);
	write_late_grant_trace(late, 20000000);
	cpt_run(&r, tmpdir, faster2);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	ck_assert_msg(strstr(r.out, "  simulated, unchanged             "
			     "40.00 ms\n") &&
		      strstr(r.out, "unchanged replay, 40.00 ms:\n  20.0% "
			     "shorter than the recorded critical path"),
		      "baseline 40 ms of 50: %s", r.out);
	ck_assert_msg(!strstr(r.out, differ), "no reordering: %s", r.out);
	/* replay 49.9 ms of 50 (0.2 %): the row, no note */
	snprintf(tie, sizeof(tie), "%s/tie.cpt", tmpdir);
	write_late_grant_trace(tie, 29900000);
	cpt_run(&r, tmpdir, slower1);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	ck_assert_msg(strstr(r.out, "  simulated, unchanged             "
			     "49.90 ms\n") && !strstr(r.out, baseline) &&
		      !strstr(r.out, differ), "baseline 49.9 ms of 50: %s",
		      r.out);
}
END_TEST

/*
 * The HTML report's what-if notes say what the text says: with the late
 * grant (T2 asks at 20 ms, the recording grants T1 first) the unchanged
 * replay takes 40 ms of the recorded 50, 20 % shorter, and every row of
 * the table explains its baseline.
 */
START_TEST(test_cpt_html_whatif_baseline)
{
	struct cpt_res r = { 0 };
	char late[300];
	const char *html[] = { "report", late, "--format", "html", NULL };
	const char *note = "the unchanged replay is 20.0% shorter than the "
			   "recording";
	const char *t, *row;
	int rows = 0;

	snprintf(late, sizeof(late), "%s/late.cpt", tmpdir);
	write_late_grant_trace(late, 20000000);
	cpt_run(&r, tmpdir, html);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	t = strstr(r.out, "<table id=\"whatif\"");
	ck_assert_msg(t != NULL, "no what-if table: %.2000s", r.out);
	for (row = strstr(t, "<tr><td class=\"name\">"); row;
	     row = strstr(row + 1, "<tr><td class=\"name\">")) {
		const char *end = strstr(row, "</tr>");
		const char *n = strstr(row, note);

		ck_assert_msg(end && n && n < end, "row without the baseline "
			      "note: %.600s", row);
		rows++;
	}
	ck_assert_msg(rows == 2, "%d what-if rows, want work1 and crit: "
		      "%.3000s", rows, t);
}
END_TEST

/*
 * Two critical paths of 10 ms tie: T0 creates T1 and T2 at 0, T1 runs
 * alpha and T2 beta for 10 ms each, T0 joins T1 and then T2 at 10 ms
 * (waiting, the first join @first) and exits.  The longest paths, all
 * 10 ms, run through one thread or the other (and through either's
 * zero-length edges).
 */
static void write_tied_paths_trace(const char *path, uint32_t first)
{
	const uint64_t ms = 1000000;
	struct synth s;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "alpha");
	synth_symbol(&s, 0x200, 0x10, "beta");
	synth_start(&s, 0, -1);
	synth_spawn(&s, 2);
	synth_call(&s, 1, 0x100, 10 * ms);
	synth_exit(&s, 1, 0);
	synth_call(&s, 2, 0x200, 10 * ms);
	synth_exit(&s, 2, 0);
	synth_join(&s, 0, 10 * ms, true, first);
	synth_join(&s, 0, 0, true, 3 - first);
	synth_exit(&s, 0, 0);
	ck_assert_msg(synth_write(&s, path) == 0, "write %s", path);
	synth_free(&s);
}

/* Row @n (1-based) of the HTML paths table in @out, or NULL. */
static const char *html_path_find(const char *out, int n)
{
	const char *t = strstr(out, "<table id=\"paths\"");
	const char *end = t ? strstr(t, "</table>") : NULL;
	const char *row;
	char want[32];

	ck_assert_msg(t && end, "no paths table: %.2000s", out);
	snprintf(want, sizeof(want), "<tr><td>%d</td>", n);
	row = strstr(t, want);
	return row && row < end ? row : NULL;
}

/* The description cell of row @n of the HTML paths table in @out, copied
 * into @buf. */
static void html_path_row(const char *out, int n, char *buf, size_t len)
{
	const char *row = html_path_find(out, n), *d, *end;

	ck_assert_msg(row != NULL, "no path row %d: %.3000s", n, out);
	d = strstr(row, "<td class=\"desc\">");
	end = strstr(row, "</tr>");
	ck_assert_msg(d && end && d < end, "row %d: %.600s", n, row);
	snprintf(buf, len, "%.*s", (int)(end - d), d);
}

/*
 * The HTML paths table describes each path but the first by where it
 * differs from the first, the critical path it lists: with two threads'
 * procedures tied at 10 ms, #1 runs through one of them, and a later row
 * through the other says exactly that procedure's 10 ms and nothing of
 * #1's, whichever path the critical path method took for the report's
 * own figures (the joins in either order).
 */
START_TEST(test_cpt_html_tied_paths)
{
	struct cpt_res r = { 0 };
	char trace[300], one[512], row[512];
	const char *html[] = { "report", trace, "--format", "html", NULL };
	const char *mine, *other;
	int seen = 0, n;

	snprintf(trace, sizeof(trace), "%s/tied%d.cpt", tmpdir, _i);
	write_tied_paths_trace(trace, 1 + (uint32_t)_i);
	cpt_run(&r, tmpdir, html);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	html_path_row(r.out, 1, one, sizeof(one));
	ck_assert_msg(strstr(one, "the critical path") &&
		      (strstr(one, "alpha") != NULL) !=
		      (strstr(one, "beta") != NULL), "joins %d: #1 %s", _i,
		      one);
	mine = strstr(one, "alpha") ? "alpha" : "beta";
	other = strstr(one, "alpha") ? "T2 t2 beta 10.00 ms" :
				       "T1 t1 alpha 10.00 ms";
	for (n = 2; html_path_find(r.out, n); n++) {
		html_path_row(r.out, n, row, sizeof(row));
		if (!strstr(row, other))
			continue;
		ck_assert_msg(strstr(row, "(10.00 ms off the critical path, "
				     "in place of 10.00 ms of its work)") &&
			      !strstr(row, mine), "joins %d: #1 %s; #%d %s",
			      _i, one, n, row);
		seen++;
	}
	ck_assert_msg(seen > 0, "joins %d: no path through %s after #1 %s "
		      "(%d rows)", _i, other, one, n - 1);
}
END_TEST

START_TEST(test_cpt_output_file)
{
	struct cpt_res r = { 0 };
	char out[300];
	const char *args[] = { "whatif", trace_path, "--scale=crit=0",
			       "--format=json", "-o", out, NULL };
	const char *full[] = { "report", trace_path, "-o", "/dev/full", NULL };
	char *buf;

	snprintf(out, sizeof(out), "%s/w.json", tmpdir);
	cpt_run(&r, tmpdir, args);
	ck_assert_msg(r.status == 0 && !r.out[0], "exit %d out '%s' err %s",
		      r.status, r.out, r.err);
	buf = cp_child_slurp(out, NULL);
	ck_assert_msg(strstr(buf, "\"length_after_fixed\": 30000000"),
		      "file: %s", buf);
	free(buf);
	cpt_run(&r, tmpdir, full);
	ck_assert_msg(r.status == 1 && strstr(r.err, "/dev/full") &&
		      count_lines(r.err) == 1, "exit %d err '%s'", r.status,
		      r.err);
}
END_TEST

START_TEST(test_cpt_usage_errors)
{
	static const char *const cases[][8] = {
		{ NULL },
		{ "frobnicate", NULL },
		{ "report", NULL },
		{ "report", "x.cpt", "--bogus", NULL },
		{ "paths", "x.cpt", "--k", "0", NULL },
		{ "paths", "x.cpt", "--k", NULL },
		{ "whatif", "x.cpt", NULL },
		{ "whatif", "x.cpt", "--scale", "crit", NULL },
		{ "whatif", "x.cpt", "--scale", "crit=-2", NULL },
		{ "whatif", "x.cpt", "--scale", "crit=1", "--cpus", "0", NULL },
		{ "whatif", "x.cpt", "--scale", "crit=1", "--cpus", "two",
		  NULL },
		{ "whatif", "x.cpt", "--scale", "crit=1", "--cpus", NULL },
		{ "report", "x.cpt", "--format", "xml", NULL },
		{ "run", NULL },
		{ "run", "--mode", "fast", "--", "/bin/true", NULL },
		/* run writes no analysis: an output it would ignore */
		{ "run", "-o", "x.cpt", "--", "/bin/true", NULL },
		{ "run", "--format", "json", "--", "/bin/true", NULL },
	};
	struct cpt_res r = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cpt_run(&r, tmpdir, cases[i]);
		ck_assert_msg(r.status == 2 && strstr(r.err, "usage"),
			      "case %zu: exit %d err '%s'", i, r.status, r.err);
		ck_assert_msg(!r.out[0], "case %zu wrote stdout", i);
	}
}
END_TEST

/* cpt VERB --help (or -h, anywhere among its options) is cpt help VERB:
 * the verb's usage and help on stdout, exit 0, nothing run. */
START_TEST(test_cpt_verb_help)
{
	static const char *const cases[][5] = {
		{ "report", "--help", NULL },
		{ "report", "x.cpt", "-h", NULL },
		{ "paths", "--k", "3", "--help", NULL },
		{ "whatif", "--help", NULL },
		{ "export", "-h", NULL },
		{ "run", "--help", NULL },
		{ "run", "--mode", "trace", "-h", NULL },
	};
	struct cpt_res r = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[32];

		snprintf(want, sizeof(want), "usage: cpt %s ", cases[i][0]);
		cpt_run(&r, tmpdir, cases[i]);
		ck_assert_msg(r.status == 0 && !strncmp(r.out, want,
							strlen(want)) &&
			      count_lines(r.out) == 2 && !r.err[0],
			      "case %zu: exit %d out '%s' err '%s'", i,
			      r.status, r.out, r.err);
	}
}
END_TEST

START_TEST(test_cpt_bad_input_exit_1)
{
	struct cpt_res r = { 0 };
	char bad[300], pag[300];
	const char *missing[] = { "report", "/nonexistent/t.cpt", NULL };
	const char *badtrace[] = { "report", bad, NULL };
	const char *badpag[] = { "paths", pag, NULL };
	const char *noname[] = { "whatif", trace_path, "--scale", "nosuch=2",
				 NULL };
	const char *noprog[] = { "run", "--", "/nonexistent/prog", NULL };
	FILE *f;

	cpt_run(&r, tmpdir, missing);
	ck_assert_msg(r.status == 1 && !strncmp(r.err, "cpt: /nonexistent/t.cpt: ", 25) &&
		      count_lines(r.err) == 1, "missing: %d '%s'", r.status,
		      r.err);
	snprintf(bad, sizeof(bad), "%s/bad.cpt", tmpdir);
	f = fopen(bad, "w");
	fputs("CPTTRACE and then garbage", f);
	fclose(f);
	cpt_run(&r, tmpdir, badtrace);
	ck_assert_msg(r.status == 1 && strstr(r.err, bad) &&
		      count_lines(r.err) == 1 && !r.out[0], "bad: %d '%s'",
		      r.status, r.err);
	snprintf(pag, sizeof(pag), "%s/bad.pag", tmpdir);
	f = fopen(pag, "w");
	fputs("e a b 3\ne b a 4\n", f);
	fclose(f);
	cpt_run(&r, tmpdir, badpag);
	ck_assert_msg(r.status == 1 && strstr(r.err, pag) &&
		      count_lines(r.err) == 1, "cycle: %d '%s'", r.status,
		      r.err);
	cpt_run(&r, tmpdir, noname);
	ck_assert_msg(r.status == 1 && strstr(r.err, trace_path) &&
		      strstr(r.err, "nosuch") && count_lines(r.err) == 1,
		      "noname: %d '%s'", r.status, r.err);
	cpt_run(&r, tmpdir, noprog);
	ck_assert_msg(r.status == 1 && count_lines(r.err) == 1 &&
		      strstr(r.err, "cannot run '/nonexistent/prog': "),
		      "noprog: %d '%s'", r.status, r.err);
}
END_TEST

/*
 * Truncated and corrupted traces, read as they are (salvage) and with
 * --strict: exit 1 with one line, or 0 with at most two warning lines
 * naming the file (partial, repaired); never a crash.  Strict refuses most
 * of them; salvage reads more of them than strict does.
 */
static void check_corrupt_run(struct cpt_res *r, const char *bad, int iter)
{
	ck_assert_msg(!r->signaled && (r->status == 0 || r->status == 1),
		      "iter %d: status %d err '%s'", iter, r->status, r->err);
	/* up to two warnings (partial, repaired), then the error if any */
	ck_assert_msg(count_lines(r->err) <= (r->status ? 3 : 2),
		      "iter %d: %d lines '%s'", iter, count_lines(r->err),
		      r->err);
	for (const char *l = r->err; *l; l = strchr(l, '\n') + 1) {
		const char *nl = strchr(l, '\n');

		ck_assert_msg(nl && !strncmp(l, "cpt: ", 5) &&
			      !strncmp(l + 5, bad, strlen(bad)),
			      "iter %d: message '%s'", iter, r->err);
	}
}

START_TEST(test_cpt_corrupt_traces_never_crash)
{
	struct cpt_res r = { 0 };
	char bad[300];
	const char *report[] = { "report", bad, NULL };
	const char *paths[] = { "paths", bad, "--format", "json", NULL };
	const char *whatif[] = { "whatif", bad, "--scale", "crit=0.5", NULL };
	const char *sreport[] = { "report", "--strict", bad, NULL };
	const char *spaths[] = { "paths", bad, "--strict", NULL };
	const char *swhatif[] = { "whatif", bad, "--scale", "crit=0.5",
				  "--strict", NULL };
	const char *const *cmds[] = { report, paths, whatif };
	const char *const *strict[] = { sreport, spaths, swhatif };
	uint8_t *buf;
	size_t len;
	unsigned seed = 99, fails = 0, salvaged = 0, strict_ok = 0;
	FILE *f;

	{
		/* the lock trace's bytes */
		FILE *in = fopen(trace_path, "rb");
		struct stat st;

		ck_assert(in && stat(trace_path, &st) == 0);
		len = (size_t)st.st_size;
		buf = malloc(len);
		ck_assert(fread(buf, 1, len, in) == len);
		fclose(in);
	}
	snprintf(bad, sizeof(bad), "%s/fuzz.cpt", tmpdir);
	for (int iter = 0; iter < 150; iter++) {
		uint8_t *copy = malloc(len);
		size_t n = len;

		memcpy(copy, buf, len);
		if (iter % 3 == 0) {
			n = 8 + (size_t)rand_r(&seed) % (len - 8);
		} else {
			for (int k = 0; k < 1 + iter % 4; k++)
				copy[8 + (size_t)rand_r(&seed) % (len - 8)] ^=
					(uint8_t)(1 + rand_r(&seed) % 255);
		}
		f = fopen(bad, "wb");
		fwrite(copy, 1, n, f);
		fclose(f);
		free(copy);
		cpt_run(&r, tmpdir, strict[iter % 3]);
		check_corrupt_run(&r, bad, iter);
		if (r.status == 1)
			fails++;
		else
			strict_ok++;
		cpt_run(&r, tmpdir, cmds[iter % 3]);
		check_corrupt_run(&r, bad, iter);
		salvaged += r.status == 0;
	}
	ck_assert_msg(fails > 50, "only %u of 150 corrupt traces refused",
		      fails);
	ck_assert_msg(salvaged > strict_ok, "salvage read %u, strict %u",
		      salvaged, strict_ok);
	free(buf);
}
END_TEST

/*
 * The lock trace without its END block: report and whatif read it, say
 * so in one line on stderr and mark their output partial (text and
 * JSON); --strict refuses it in one line.
 */
START_TEST(test_cpt_partial_trace_marked)
{
	struct cpt_res r = { 0 };
	char cut[300];
	const char *rep[] = { "report", cut, "--format", "json", NULL };
	const char *rept[] = { "report", cut, NULL };
	const char *wif[] = { "whatif", cut, "--scale", "crit=0.5",
			      "--format", "json", NULL };
	const char *wift[] = { "whatif", cut, "--scale", "crit=0.5", NULL };
	const char *strict[] = { "whatif", cut, "--scale", "crit=0.5",
				 "--strict", NULL };
	const char *const *json[] = { rep, wif };
	struct stat st;
	FILE *in, *out;
	char *buf;
	size_t len;

	ck_assert(stat(trace_path, &st) == 0);
	len = (size_t)st.st_size - sizeof(struct cp_block_header) -
	      sizeof(struct cp_trace_end);	/* the END block goes */
	buf = malloc(len);
	in = fopen(trace_path, "rb");
	ck_assert(in && fread(buf, 1, len, in) == len);
	fclose(in);
	snprintf(cut, sizeof(cut), "%s/cut.cpt", tmpdir);
	out = fopen(cut, "wb");
	ck_assert(out && fwrite(buf, 1, len, out) == len && !fclose(out));
	free(buf);
	for (int i = 0; i < 2; i++) {
		json_error_t je;
		json_t *doc;

		cpt_run(&r, tmpdir, json[i]);
		ck_assert_msg(r.status == 0 && count_lines(r.err) == 1 &&
			      strstr(r.err, "partial trace: no END block"),
			      "%s: exit %d: %s", json[i][0], r.status, r.err);
		doc = json_loads(r.out, 0, &je);
		ck_assert_msg(doc && json_is_true(json_object_get(doc,
								  "partial")) &&
			      json_is_string(json_object_get(doc,
							     "partial_reason")),
			      "%s JSON: %.500s", json[i][0], r.out);
		json_decref(doc);
	}
	cpt_run(&r, tmpdir, rept);
	ck_assert_msg(r.status == 0 && strstr(r.out, "\n  PARTIAL: no END "),
		      "report text: %.500s", r.out);
	cpt_run(&r, tmpdir, wift);
	ck_assert_msg(r.status == 0 && strstr(r.out, "\n  PARTIAL: no END "),
		      "whatif text: %.500s", r.out);
	cpt_run(&r, tmpdir, strict);
	ck_assert_msg(r.status == 1 && count_lines(r.err) == 1 &&
		      strstr(r.err, "no END block"), "strict: exit %d: %s",
		      r.status, r.err);
}
END_TEST

/* cpt run sets the environment and exits with the program's status. */
START_TEST(test_cpt_run_env_and_status)
{
	struct cpt_res r = { 0 };
	const char *args[] = {
		"run", "--mode", "trace", "--clock", "cpu", "--funcs", "a,b",
		"--", "/bin/sh", "-c",
		"test \"$CPTHREAD_MODE\" = trace && test \"$CPTHREAD_CLOCK\" = cpu"
		" && test \"$CPTHREAD_FUNCS\" = a,b && "
		"case \"$LD_PRELOAD\" in *libcpthread.so*) exit 7;; esac; exit 3",
		NULL,
	};

	cpt_run_at(&r, tmpdir, args);	/* its shell's trace there */
	ck_assert_msg(r.status == 7, "exit %d err '%s'", r.status, r.err);
}
END_TEST

/*
 * The whole chain: `cpt run` preloads the tracer into a plain workload in
 * trace mode; `cpt report` of the trace gives the online length exactly.
 */
/* Files in @dir whose names end in @ext. */
static unsigned count_files(const char *dir, const char *ext)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	ck_assert(d != NULL);
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name), k = strlen(ext);

		n += l > k && !strcmp(e->d_name + l - k, ext);
	}
	closedir(d);
	return n;
}

/* Times @needle occurs in @hay. */
static unsigned count_str(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/*
 * Under cpt run, the processes the program runs (a script's commands)
 * leave no files and say nothing when they saw nothing (one thread, no
 * object); one that ran threads reports under its own pid, and the
 * process cpt run started reports whatever it saw.  A subshell changes
 * directory: its file, made before, is still found and removed.
 */
START_TEST(test_cpt_run_descendants)
{
	static const struct {
		const char *shell, *before, *after;	/* the script around
							 * the workload */
		unsigned files, summaries;
	} cases[] = {
		/* the commands see nothing, the workload is the root */
		{ "/bin/sh", "(cd / && /bin/true); /bin/true; exec ", "", 1,
		  1 },
		/* the workload is a child; the root is bash, which ends by
		 * exit(), or the last command it execs */
		{ "/bin/bash", "/bin/true; ", "; /bin/true", 2, 2 },
		/* the same under dash, which ends through _exit: its end
		 * is exit()'s (a report, a complete trace) */
		{ "/bin/dash", "/bin/true; ", "; /bin/true", 2, 2 },
	};
	char prog[400], script[600], dir[300];
	struct cpt_res r = { 0 };

	snprintf(prog, sizeof(prog), CP_BINARY_DIR
		 "/tests/workloads/wl_mutex_plain");
	unsetenv("CPTHREAD_QUIET");
	unsetenv("CPTHREAD_TRACE");
	unsetenv("CPTHREAD_REPORT");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = { "run", "--mode", "trace", "--",
				       cases[i].shell, "-c", script, NULL };

		snprintf(script, sizeof(script), "%s%s%s", cases[i].before,
			 prog, cases[i].after);
		cpt_tmpdir(dir, sizeof(dir), "cpt_desc");
		cpt_run_at(&r, dir, args);
		ck_assert_msg(r.status == 0, "case %zu: exit %d err '%s'", i,
			      r.status, r.err);
		ck_assert_msg(count_files(dir, ".cpt") == cases[i].files &&
			      count_files(dir, ".json") == cases[i].files &&
			      count_str(r.err, "cpthread: critical path") ==
			      cases[i].summaries, "case %zu: %u traces, %u "
			      "reports, stderr '%s'", i,
			      count_files(dir, ".cpt"),
			      count_files(dir, ".json"), r.err);
		cpt_rmdir(dir);
	}
}
END_TEST

START_TEST(test_cpt_run_trace_matches_online)
{
	static const char *const wl[] = { "wl_mutex_plain", "wl_barrier_plain",
					   "wl_cond_plain" };
	struct cpt_res r = { 0 };

	for (size_t i = 0; i < sizeof(wl) / sizeof(wl[0]); i++) {
		char prog[400], tr[300], rep[300], *buf;
		const char *runa[] = { "run", "--mode", "trace", "--trace", tr,
				       "--report", rep, "--", prog, NULL };
		const char *repa[] = { "report", tr, "--format", "json", NULL };
		json_t *on, *off;
		json_int_t lon, loff;

		snprintf(prog, sizeof(prog), CP_BINARY_DIR
			 "/tests/workloads/%s", wl[i]);
		ck_assert_msg(access(prog, X_OK) == 0, "%s: not built", prog);
		snprintf(tr, sizeof(tr), "%s/%s.cpt", tmpdir, wl[i]);
		snprintf(rep, sizeof(rep), "%s/%s.json", tmpdir, wl[i]);
		setenv("CPTHREAD_QUIET", "1", 1);
		cpt_run(&r, tmpdir, runa);
		ck_assert_msg(r.status == 0, "%s: exit %d err '%s'", wl[i],
			      r.status, r.err);
		cpt_run(&r, tmpdir, repa);
		ck_assert_msg(r.status == 0, "%s: report exit %d: %s", wl[i],
			      r.status, r.err);
		off = parse_json(r.out);
		buf = cp_child_slurp(rep, NULL);
		on = parse_json(buf);
		free(buf);
		lon = json_integer_value(json_object_get(
			json_object_get(on, "critical_path"), "length_ns"));
		loff = json_integer_value(json_object_get(
			json_object_get(off, "critical_path"), "length_ns"));
		ck_assert_msg(lon > 0 && lon == loff,
			      "%s: online %" JSON_INTEGER_FORMAT
			      " offline %" JSON_INTEGER_FORMAT, wl[i], lon,
			      loff);
		json_decref(on);
		json_decref(off);
	}
}
END_TEST

static Suite *cpt_suite(void)
{
	Suite *s = suite_create("cpt");
	TCase *tc = tcase_create("cli");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_cpt_report_json_keys);
	tcase_add_test(tc, test_cpt_report_text);
	tcase_add_test(tc, test_cpt_report_text_many_threads);
	tcase_add_test(tc, test_cpt_paths_json_shape);
	tcase_add_test(tc, test_cpt_paths_text_pag);
	tcase_add_test(tc, test_cpt_paths_text_full_n);
	tcase_add_test(tc, test_cpt_whatif_json);
	tcase_add_test(tc, test_cpt_whatif_text_notes);
	tcase_add_test(tc, test_cpt_html_whatif_baseline);
	tcase_add_loop_test(tc, test_cpt_html_tied_paths, 0, 2);
	tcase_add_test(tc, test_cpt_output_file);
	tcase_add_test(tc, test_cpt_usage_errors);
	tcase_add_test(tc, test_cpt_verb_help);
	tcase_add_test(tc, test_cpt_bad_input_exit_1);
	tcase_add_test(tc, test_cpt_corrupt_traces_never_crash);
	tcase_add_test(tc, test_cpt_partial_trace_marked);
	tcase_add_test(tc, test_cpt_run_env_and_status);
	tcase_add_test(tc, test_cpt_run_trace_matches_online);
	tcase_add_test(tc, test_cpt_run_descendants);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cpt_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
