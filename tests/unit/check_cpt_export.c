/*
 * check_cpt_export.c - `cpt export` and the report's --gprof, --by and
 * --format html, run as child processes: output to stdout or -o FILE,
 * exit codes (0 ok, 1 bad input, 2 usage), messages that say what to do,
 * and gprof's columns in the JSON report from a real -pg run.
 *
 * The trace is doc/examples.md §4 in ms: T1 work1 30 then crit 10
 * under a mutex, T2 work2 20 then crit 10; CP 40 = work1 + crit (T1).
 * sampled.cpt is the same run without ENTER/LEAVE, with a sample every
 * millisecond instead (at .5 ms), three of T1's in tiny called by work1.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_child.h"
#include "cpt_cli.h"
#include "trace_synth.h"

static char dir[256];
static char trace[300], pag[300], sampled[300];

/* sampled.cpt (see the head of the file). */
static void write_sampled(void)
{
	struct synth s;
	uint32_t l;

	snprintf(sampled, sizeof(sampled), "%s/sampled.cpt", dir);
	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "work1");
	synth_symbol(&s, 0x200, 0x10, "work2");
	synth_symbol(&s, 0x300, 0x10, "crit");
	synth_symbol(&s, 0x400, 0x10, "tiny");
	synth_start(&s, 0, -1);
	l = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	synth_spawn(&s, 2);
	synth_lock(&s, 2, 20000000, 0, l);
	synth_unlock(&s, 2, 10000000, l);
	synth_exit(&s, 2, 0);
	synth_lock(&s, 1, 30000000, 0, l);
	synth_unlock(&s, 1, 10000000, l);
	synth_exit(&s, 1, 0);
	synth_join_all(&s, 2, 40000000);
	s.online_len = 40000000;
	for (uint64_t ms = 0; ms < 40; ms++) {
		uint64_t at = ms * 1000000 + 500000;
		uint64_t pc[2] = { ms < 30 ? 0x101 : 0x301, 0 };
		uint32_t depth = 1;

		if (ms >= 10 && ms < 13) {
			pc[0] = 0x401;	/* tiny, called by work1 */
			pc[1] = 0x105;
			depth = 2;
		}
		synth_sample(&s, 1, at, at, 1000000, 0, pc, depth);
		if (ms < 30) {
			pc[0] = ms < 20 ? 0x201 : 0x301;
			synth_sample(&s, 2, at, at, 1000000, 0, pc, 1);
		}
	}
	ck_assert_msg(synth_write(&s, sampled) == 0, "write %s", sampled);
	synth_free(&s);
}

static void setup(void)
{
	FILE *f;

	cpt_tmpdir(dir, sizeof(dir), "cpt_export");
	snprintf(trace, sizeof(trace), "%s/lock.cpt", dir);
	snprintf(pag, sizeof(pag), "%s/g.pag", dir);
	cpt_write_lock_trace(trace);
	write_sampled();
	f = fopen(pag, "w");
	ck_assert_msg(f && fputs("e s a 3 A\ne a t 4 B\ne s t 5 C\n", f) >= 0 &&
		      fclose(f) == 0, "write %s", pag);
}

static void teardown(void)
{
	cpt_rmdir(dir);
}

START_TEST(test_cpt_export_stdout_and_file)
{
	struct cpt_res r = { 0 }, q = { 0 };
	char file[320], *text;
	const char *a1[] = { "export", trace, "--format", "folded", NULL };
	const char *a2[] = { "export", trace, "--format=folded", "-o", file,
			     NULL };

	snprintf(file, sizeof(file), "%s/cp.folded", dir);
	cpt_run(&r, dir, a1);
	ck_assert_msg(r.status == 0 && !r.err[0], "exit %d: %s", r.status,
		      r.err);
	ck_assert_msg(strstr(r.out, "work1 30000000\n") &&
		      strstr(r.out, "crit 10000000\n") &&
		      !strstr(r.out, "work2"), "CP stacks:\n%s", r.out);
	cpt_run(&q, dir, a2);
	text = cp_child_slurp(file, NULL);
	ck_assert_msg(q.status == 0 && q.outlen == 0 && !strcmp(text, r.out),
		      "-o: exit %d, %zu bytes on stdout, file:\n%s", q.status,
		      q.outlen, text);
	free(text);
	cpt_res_free(&r);
	cpt_res_free(&q);
}
END_TEST

START_TEST(test_cpt_export_chrome_and_cpu_weights)
{
	struct cpt_res r = { 0 };
	char file[320];
	const char *a1[] = { "export", trace, "--format", "chrome", "-o", file,
			     NULL };
	const char *a2[] = { "export", trace, "--format", "folded", "--weight",
			     "cpu", "--threads", NULL };
	json_error_t jerr;
	json_t *doc;

	snprintf(file, sizeof(file), "%s/t.json", dir);
	cpt_run(&r, dir, a1);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	doc = json_load_file(file, 0, &jerr);
	ck_assert_msg(doc && json_array_size(json_object_get(doc,
			"traceEvents")) > 10, "Chrome JSON: %s", jerr.text);
	json_decref(doc);
	cpt_res_free(&r);
	cpt_run(&r, dir, a2);
	ck_assert_msg(r.status == 0 &&
		      strstr(r.out, "T2 t2;work2 20000000\n") &&
		      strstr(r.out, "T2 t2;crit 10000000\n"),
		      "exit %d, CPU stacks:\n%s", r.status, r.out);
	cpt_res_free(&r);
}
END_TEST

START_TEST(test_cpt_export_chrome_window_and_min_slice)
{
	/*
	 * --window 25ms:36ms of the 40 ms run: the CP there is T1's work1
	 * from 25 to 30 ms and its crit 30-40 ms cut at 36: 11 ms of cp_ns
	 * on T1's track; --min-slice 5.5ms leaves out the 5 ms left of
	 * work1's slice and of T2's crit (20-30 ms), keeps T1's crit (6).
	 */
	struct cpt_res r = { 0 };
	char file[320];
	const char *a[] = { "export", trace, "--format", "chrome", "--window",
			    "25ms:36ms", "--min-slice", "5.5ms", "-o", file,
			    NULL };
	json_error_t jerr;
	json_t *doc, *ev;
	json_int_t cp = 0;
	size_t i;
	int procs = 0;

	snprintf(file, sizeof(file), "%s/w.json", dir);
	cpt_run(&r, dir, a);
	ck_assert_msg(r.status == 0 && !r.err[0], "exit %d: %s", r.status,
		      r.err);
	doc = json_load_file(file, 0, &jerr);
	ck_assert_msg(doc != NULL, "Chrome JSON: %s", jerr.text);
	json_array_foreach(json_object_get(doc, "traceEvents"), i, ev) {
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		const char *cat = json_string_value(json_object_get(ev, "cat"));
		double ts = json_number_value(json_object_get(ev, "ts"));
		double dur = json_number_value(json_object_get(ev, "dur"));

		if (!strcmp(ph, "M"))
			continue;
		ck_assert_msg(ts >= 25000.0 && ts + dur <= 36000.0,
			      "event %zu at %.3f+%.3f us outside the window",
			      i, ts, dur);
		if (strcmp(ph, "X"))
			continue;
		if (!strcmp(cat, "procedure")) {
			procs++;
			ck_assert_msg(dur >= 5500.0 && !strcmp(
				json_string_value(json_object_get(ev, "name")),
				"crit"), "procedure slice %s of %.3f us",
				json_string_value(json_object_get(ev, "name")),
				dur);
		}
		if (!strcmp(cat, "critical_path") &&
		    json_integer_value(json_object_get(ev, "tid")) != 1000000)
			cp += json_integer_value(json_object_get(
				json_object_get(ev, "args"), "cp_ns"));
	}
	ck_assert_msg(procs == 1 && cp == 11000000, "%d procedure slices, "
		      "cp_ns %" JSON_INTEGER_FORMAT, procs, cp);
	json_decref(doc);
	cpt_res_free(&r);
}
END_TEST

START_TEST(test_cpt_export_chrome_option_errors)
{
	struct cpt_res r = { 0 };
	const char *backwards[] = { "export", trace, "--format", "chrome",
				    "--window", "30ms:20ms", NULL };
	const char *nocolon[] = { "export", trace, "--format", "chrome",
				  "--window", "30ms", NULL };
	const char *badunit[] = { "export", trace, "--format", "chrome",
				  "--min-slice", "3 days", NULL };
	const char *folded[] = { "export", trace, "--format", "folded",
				 "--min-slice", "1ms", NULL };
	const char *const *bad[] = { backwards, nocolon, badunit, folded };
	const char *want[] = { "ends before", "FROM:TO", "3 days",
			       "--format chrome" };

	for (int i = 0; i < 4; i++) {
		cpt_run(&r, dir, bad[i]);
		ck_assert_msg(r.status == 2 && strstr(r.err, want[i]),
			      "case %d: exit %d: %s", i, r.status, r.err);
		cpt_res_free(&r);
	}
}
END_TEST

START_TEST(test_cpt_export_errors)
{
	struct cpt_res r = { 0 };
	char file[320];
	struct stat st;
	const char *nofmt[] = { "export", trace, NULL };
	const char *badfmt[] = { "export", trace, "--format", "png", NULL };
	const char *badw[] = { "export", trace, "--format", "chrome",
				"--weight", "cpu", NULL };
	const char *pagchrome[] = { "export", pag, "--format", "chrome", NULL };
	const char *pagdot[] = { "export", pag, "--format", "dot", NULL };
	const char *big[] = { "export", trace, "--format", "dot",
			      "--max-edges", "3", "-o", file, NULL };
	const char *missing[] = { "export", "/nonexistent.cpt", "--format",
				  "folded", NULL };

	snprintf(file, sizeof(file), "%s/never.dot", dir);
	cpt_run(&r, dir, nofmt);
	ck_assert_msg(r.status == 2 && strstr(r.err, "--format"),
		      "no format: exit %d: %s", r.status, r.err);
	cpt_res_free(&r);
	cpt_run(&r, dir, badfmt);
	ck_assert_msg(r.status == 2 && strstr(r.err, "png"),
		      "bad format: exit %d: %s", r.status, r.err);
	cpt_res_free(&r);
	cpt_run(&r, dir, badw);
	ck_assert_msg(r.status == 2, "--weight with chrome: exit %d: %s",
		      r.status, r.err);
	cpt_res_free(&r);
	cpt_run(&r, dir, pagchrome);
	ck_assert_msg(r.status == 1 && strstr(r.err, pag) &&
		      strstr(r.err, "dot"), "PAG to chrome: exit %d: %s",
		      r.status, r.err);
	cpt_res_free(&r);
	cpt_run(&r, dir, pagdot);
	ck_assert_msg(r.status == 0 && strstr(r.out, "digraph") &&
		      strstr(r.out, "penwidth=3"), "PAG to dot: exit %d: %s%s",
		      r.status, r.err, r.out);
	cpt_res_free(&r);
	cpt_run(&r, dir, big);
	ck_assert_msg(r.status == 1 && strstr(r.err, "--max-edges") &&
		      stat(file, &st) != 0, "over the dot limit: exit %d: %s",
		      r.status, r.err);
	cpt_res_free(&r);
	cpt_run(&r, dir, missing);
	ck_assert_msg(r.status == 1 && strstr(r.err, "/nonexistent.cpt"),
		      "missing trace: exit %d: %s", r.status, r.err);
	cpt_res_free(&r);
}
END_TEST

START_TEST(test_cpt_report_views)
{
	static const char *const views[][2] = {
		{ "program", "maximum parallelism" },
		{ "thread", "released by" },
		{ "procedure", "work1" },
		{ "object", "mutex" },
	};
	struct cpt_res r = { 0 };

	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		const char *a[] = { "report", trace, "--by", views[i][0],
				    NULL };

		cpt_run(&r, dir, a);
		ck_assert_msg(r.status == 0 && strstr(r.out, views[i][1]),
			      "--by %s: exit %d: %s\n%s", views[i][0],
			      r.status, r.err, r.out);
		cpt_res_free(&r);
	}
	{
		const char *a[] = { "report", trace, "--by", "cpu", NULL };

		cpt_run(&r, dir, a);
		ck_assert_msg(r.status == 2 && strstr(r.err, "cpu"),
			      "--by cpu: exit %d: %s", r.status, r.err);
		cpt_res_free(&r);
	}
}
END_TEST

/*
 * The what-if table (each procedure x0.5).  work1 halved asks for the
 * mutex at 15 ms, before T2 (20): the replay grants it to T1 first and
 * ends at 35 ms, the fixed graph keeps T2 first and 40 ms, so its notes
 * say both acquisitions come in another order.  crit halved changes no order
 * (35 ms both ways): no note.  The unchanged replay is the recording (40
 * ms): no note about the baseline anywhere.
 */
static void check_html_whatif(const char *html)
{
	const char *t = strstr(html, "<table id=\"whatif\"");
	const char *w1 = t ? strstr(t, "<td class=\"name\">work1</td>") : NULL;
	const char *cr = t ? strstr(t, "<td class=\"name\">crit</td>") : NULL;
	const char *w1d = w1 ? strstr(w1, "<td class=\"desc\">") : NULL;
	const char *crd = cr ? strstr(cr, "<td class=\"desc\">") : NULL;

	ck_assert_msg(w1d && crd, "what-if rows of work1 and crit: %.3000s",
		      t ? t : html);
	ck_assert_msg(!strncmp(w1d + 17, "2 lock acquisitions in another "
			       "order", 36), "work1's notes: %.300s", w1d);
	ck_assert_msg(!strncmp(crd + 17, "</td>", 5), "crit's notes: %.300s",
		      crd);
	ck_assert_msg(!strstr(t, "unchanged replay is"),
		      "a baseline note: %.3000s", t);
}

START_TEST(test_cpt_report_html_file)
{
	struct cpt_res r = { 0 };
	char file[320], *html;
	const char *a[] = { "report", trace, "--format", "html", "-o", file,
			    NULL };
	const char *paths[] = { "paths", trace, "--format", "html", NULL };
	const char *pagh[] = { "report", pag, "--format", "html", NULL };

	snprintf(file, sizeof(file), "%s/r.html", dir);
	cpt_run(&r, dir, a);
	ck_assert_msg(r.status == 0 && r.outlen == 0, "exit %d: %s", r.status,
		      r.err);
	html = cp_child_slurp(file, NULL);
	ck_assert_msg(!strncmp(html, "<!DOCTYPE html>", 15) &&
		      strstr(html, "<svg id=\"timeline\"") &&
		      strstr(html, "<table id=\"procs\"") &&
		      strstr(html, ">work1<") && strstr(html, "</html>\n"),
		      "report.html:\n%.2000s", html);
	ck_assert_msg(!strstr(html, "http://") && !strstr(html, "https://"),
		      "report.html refers to the network");
	check_html_whatif(html);
	free(html);
	cpt_res_free(&r);
	cpt_run(&r, dir, paths);
	ck_assert_msg(r.status == 2 && strstr(r.err, "html"),
		      "paths --format html: exit %d: %s", r.status, r.err);
	cpt_res_free(&r);
	cpt_run(&r, dir, pagh);
	ck_assert_msg(r.status == 2, "html of a PAG: exit %d: %s", r.status,
		      r.err);
	cpt_res_free(&r);
}
END_TEST

static json_t *proc_named(json_t *doc, const char *name);
static int64_t jint(json_t *o, const char *key);

/* gprof's columns from a real -pg build with the trace's procedures. */
START_TEST(test_cpt_report_gprof_json)
{
	static const char prog[] =
		"volatile unsigned long sink;\n"
		"#define BURN(n) \\\n"
		"	for (unsigned long i = 0; i < (n); i++) sink += i\n"
		"#define P __attribute__((noinline)) void\n"
		"P work1(void) { BURN(300000000ul); }\n"
		"P work2(void) { BURN(200000000ul); }\n"
		"P crit(void) { BURN(100000000ul); }\n"
		"int main(void)\n"
		"{ work1(); crit(); work2(); crit(); return 0; }\n";
	char src[320], exe[320], gmon[320], cmd[800];
	struct cpt_res r = { 0 };
	json_error_t jerr;
	json_t *doc, *procs, *pr;
	size_t i;
	int seen = 0;
	FILE *f;

	snprintf(src, sizeof(src), "%s/pg.c", dir);
	snprintf(exe, sizeof(exe), "%s/pg", dir);
	snprintf(gmon, sizeof(gmon), "%s/gmon.out", dir);
	f = fopen(src, "w");
	ck_assert_msg(f && fputs(prog, f) >= 0 && fclose(f) == 0, "%s", src);
	snprintf(cmd, sizeof(cmd), "cd %s && cc -O1 -pg -o pg pg.c && ./pg",
		 dir);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
	{
		const char *a[] = { "report", trace, "--gprof", gmon, "--exe",
				    exe, "--exclusive", "--format", "json",
				    NULL };

		cpt_run(&r, dir, a);
	}
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	doc = json_loads(r.out, 0, &jerr);
	ck_assert_msg(doc != NULL, "JSON: %s", jerr.text);
	ck_assert_msg(json_is_string(json_object_get(doc, "headline")) &&
		      json_integer_value(json_object_get(json_object_get(doc,
			"gprof"), "total_ns")) > 0, "top level:\n%s", r.out);
	procs = json_object_get(json_object_get(doc, "critical_path"),
				"procedures");
	json_array_foreach(procs, i, pr) {
		json_t *ns = json_object_get(pr, "gprof_ns");
		json_t *pct = json_object_get(pr, "gprof_pct");

		ck_assert_msg(ns && pct && json_is_integer(ns) &&
			      json_is_number(pct),
			      "procedure %s without gprof_ns/gprof_pct",
			      json_string_value(json_object_get(pr, "name")));
		seen++;
	}
	ck_assert_msg(seen == 3, "%d procedures", seen);
	{
		/* streamed: the same comparison, gprof's columns included */
		const char *a[] = { "report", trace, "--gprof", gmon, "--exe",
				    exe, "--exclusive", "--format", "json",
				    "--stream", NULL };
		struct cpt_res rs = { 0 };
		json_t *ds;

		cpt_run(&rs, dir, a);
		ck_assert_msg(rs.status == 0, "--stream: exit %d: %s",
			      rs.status, rs.err);
		ds = json_loads(rs.out, 0, &jerr);
		ck_assert_msg(ds != NULL, "JSON: %s", jerr.text);
		ck_assert_msg(json_equal(json_object_get(ds, "headline"),
					 json_object_get(doc, "headline")) &&
			      json_equal(json_object_get(ds, "gprof"),
					 json_object_get(doc, "gprof")),
			      "streamed:\n%s\nin memory:\n%s", rs.out, r.out);
		json_array_foreach(procs, i, pr) {
			const char *nm = json_string_value(
				json_object_get(pr, "name"));
			json_t *sp = proc_named(ds, nm);

			ck_assert_msg(sp && jint(sp, "gprof_ns") ==
				      jint(pr, "gprof_ns") &&
				      jint(sp, "cp_rank") == jint(pr, "cp_rank") &&
				      jint(sp, "cpu_rank") ==
				      jint(pr, "cpu_rank"),
				      "%s streamed:\n%s", nm, rs.out);
		}
		json_decref(ds);
		cpt_res_free(&rs);
	}
	json_decref(doc);
	cpt_res_free(&r);
	{
		const char *a[] = { "report", trace, "--gprof", gmon, NULL };

		cpt_run(&r, dir, a);
		ck_assert_msg(r.status == 2 && strstr(r.err, "--exe"),
			      "--gprof alone: exit %d: %s", r.status, r.err);
		cpt_res_free(&r);
	}
	{
		const char *a[] = { "report", trace, "--gprof", "/no/gmon.out",
				    "--exe", exe, NULL };

		cpt_run(&r, dir, a);
		ck_assert_msg(r.status == 1 && strstr(r.err, "/no/gmon.out"),
			      "missing gmon: exit %d: %s", r.status, r.err);
		cpt_res_free(&r);
	}
}
END_TEST


/*
 * Every function's time in one shared helper: gprof's flat self time is 0
 * for work1, work2 and crit, its call graph's totals are not; the
 * inclusive report shows the totals ("gprof total").
 */
START_TEST(test_cpt_report_gprof_totals)
{
	static const char prog[] =
		"volatile unsigned long sink;\n"
		"#define P __attribute__((noinline)) void\n"
		"P helper(unsigned long n)\n"
		"{ for (unsigned long i = 0; i < n; i++) sink += i; }\n"
		"P work1(void) { helper(150000000ul); }\n"
		"P work2(void) { helper(100000000ul); }\n"
		"P crit(void) { helper(50000000ul); }\n"
		"int main(void)\n"
		"{ work1(); crit(); work2(); crit(); return 0; }\n";
	char src[320], exe[320], gmon[320], cmd[800];
	const char *names[] = { "work1", "work2", "crit" };
	struct cpt_res r = { 0 };
	json_error_t jerr;
	json_t *doc;
	FILE *f;

	snprintf(src, sizeof(src), "%s/pgh.c", dir);
	snprintf(exe, sizeof(exe), "%s/pgh", dir);
	snprintf(gmon, sizeof(gmon), "%s/gmon.out", dir);
	f = fopen(src, "w");
	ck_assert_msg(f && fputs(prog, f) >= 0 && fclose(f) == 0, "%s", src);
	snprintf(cmd, sizeof(cmd), "cd %s && cc -O1 -pg -o pgh pgh.c && "
		 "./pgh", dir);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
	{
		const char *a[] = { "report", trace, "--gprof", gmon, "--exe",
				    exe, "--format", "json", NULL };

		cpt_run(&r, dir, a);
	}
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	doc = json_loads(r.out, 0, &jerr);
	ck_assert_msg(doc != NULL, "JSON: %s", jerr.text);
	for (int i = 0; i < 3; i++) {
		json_t *pr = proc_named(doc, names[i]);

		ck_assert_msg(pr && jint(pr, "gprof_ns") == 0 &&
			      jint(pr, "gprof_total_ns") > 0,
			      "%s: gprof self %" PRId64 " total %" PRId64,
			      names[i], pr ? jint(pr, "gprof_ns") : -1,
			      pr ? jint(pr, "gprof_total_ns") : -1);
	}
	json_decref(doc);
	cpt_res_free(&r);
	{
		const char *a[] = { "report", trace, "--gprof", gmon, "--exe",
				    exe, NULL };

		cpt_run(&r, dir, a);
	}
	ck_assert_msg(r.status == 0 && strstr(r.out, "gprof total"),
		      "exit %d:\n%s", r.status, r.out);
	cpt_res_free(&r);
}
END_TEST

static json_t *proc_named(json_t *doc, const char *name)
{
	json_t *procs = json_object_get(json_object_get(doc, "critical_path"),
					"procedures"), *pr;
	size_t i;

	json_array_foreach(procs, i, pr)
		if (!strcmp(json_string_value(json_object_get(pr, "name")),
			    name))
			return pr;
	return NULL;
}

static int64_t jint(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/*
 * A sampled trace gives the procedure table: CPU and CP time from the
 * samples (work1 30 ms inclusive, crit 20 ms over both threads), each
 * with its sample counts, tiny flagged thin (3 samples); the text report
 * says where the figures come from, and streamed it is the same text but
 * for its title (a blank line closes the sampling summary in both).
 */
START_TEST(test_cpt_report_sampled)
{
	const char *a[] = { "report", sampled, "--format", "json", NULL };
	const char *b[] = { "report", sampled, NULL };
	const char *c[] = { "report", sampled, "--stream", NULL };
	json_error_t jerr;
	json_t *doc, *w1, *cr, *ti;
	struct cpt_res r = { 0 }, rs = { 0 };
	const char *body, *sbody;

	cpt_run(&r, dir, a);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	doc = json_loads(r.out, 0, &jerr);
	ck_assert_msg(doc, "JSON: %s", jerr.text);
	ck_assert_msg(!strcmp(json_string_value(json_object_get(doc,
			"procedures_from")), "samples") &&
		      jint(json_object_get(doc, "sampling"), "samples") == 70 &&
		      jint(json_object_get(doc, "sampling"), "used") == 70,
		      "sampling summary:\n%s", r.out);
	w1 = proc_named(doc, "work1");
	cr = proc_named(doc, "crit");
	ti = proc_named(doc, "tiny");
	ck_assert_msg(w1 && cr && ti, "procedures missing:\n%s", r.out);
	ck_assert_msg(jint(w1, "cpu_ns") == 30000000 &&
		      jint(w1, "samples") == 30 &&
		      json_is_false(json_object_get(w1, "thin")) &&
		      jint(cr, "cpu_ns") == 20000000 &&
		      jint(cr, "samples") == 20 &&
		      jint(ti, "cpu_ns") == 3000000 &&
		      jint(ti, "samples") == 3 &&
		      json_is_true(json_object_get(ti, "thin")),
		      "work1 %" PRId64 "/%" PRId64 " crit %" PRId64 "/%" PRId64
		      " tiny %" PRId64 "/%" PRId64, jint(w1, "cpu_ns"),
		      jint(w1, "samples"), jint(cr, "cpu_ns"),
		      jint(cr, "samples"), jint(ti, "cpu_ns"),
		      jint(ti, "samples"));
	/* the path runs through T1: work1 then crit, all 40 samples */
	ck_assert_msg(jint(w1, "cp_ns") == 30000000 &&
		      jint(w1, "cp_samples") == 30 &&
		      jint(cr, "cp_ns") == 10000000 &&
		      jint(cr, "cp_samples") == 10,
		      "CP work1 %" PRId64 "/%" PRId64 " crit %" PRId64 "/%"
		      PRId64, jint(w1, "cp_ns"), jint(w1, "cp_samples"),
		      jint(cr, "cp_ns"), jint(cr, "cp_samples"));
	json_decref(doc);
	cpt_res_free(&r);
	cpt_run(&r, dir, b);
	ck_assert_msg(r.status == 0 && strstr(r.out, "70 CPU-time samples") &&
		      strstr(r.out, "longest path  samples") &&
		      strstr(r.out, "(thin)") && strstr(r.out, "Hot lines"),
		      "text report:\n%s", r.out);
	cpt_run(&rs, dir, c);
	body = strchr(r.out, '\n');
	sbody = strchr(rs.out, '\n');
	ck_assert_msg(rs.status == 0 && body && sbody && !strcmp(body, sbody),
		      "in memory:\n%s\nstreamed:\n%s", r.out, rs.out);
	cpt_res_free(&rs);
	cpt_res_free(&r);
}
END_TEST

/* what-if and the folded flame graph work on the sampled procedures. */
START_TEST(test_cpt_sampled_whatif_folded)
{
	const char *a[] = { "whatif", sampled, "--scale", "crit=0",
			    "--format", "json", NULL };
	const char *b[] = { "export", sampled, "--format", "folded", NULL };
	const char *c[] = { "report", trace, "--procedures", "sampled",
			    NULL };
	const char *d[] = { "report", sampled, "--procedures", "guessed",
			    NULL };
	json_error_t jerr;
	json_t *doc;
	struct cpt_res r = { 0 };

	cpt_run(&r, dir, a);
	ck_assert_msg(r.status == 0, "whatif exit %d: %s", r.status, r.err);
	doc = json_loads(r.out, 0, &jerr);
	ck_assert_msg(doc, "JSON: %s\n%s", jerr.text, r.out);
	/* crit free: T1 30 ms of work1, T2 20 ms: the path is 30 ms */
	ck_assert_msg(jint(doc, "length_after") == 30000000 &&
		      jint(json_object_get(doc, "samples"), "crit") == 20,
		      "whatif:\n%s", r.out);
	json_decref(doc);
	cpt_res_free(&r);
	{
		const char *e[] = { "whatif", sampled, "--scale", "tiny=0",
				    NULL };

		cpt_run(&r, dir, e);
		ck_assert_msg(r.status == 0 &&
			      strstr(r.out, "tiny rests on 3 samples"),
			      "thin what-if: exit %d:\n%s", r.status, r.out);
		cpt_res_free(&r);
	}
	cpt_run(&r, dir, b);
	ck_assert_msg(r.status == 0 && strstr(r.out, "work1;tiny "),
		      "folded exit %d:\n%s%s", r.status, r.out, r.err);
	cpt_res_free(&r);
	cpt_run(&r, dir, c);
	ck_assert_msg(r.status == 1 && strstr(r.err, "no samples"),
		      "no samples: exit %d: %s", r.status, r.err);
	cpt_res_free(&r);
	cpt_run(&r, dir, d);
	ck_assert_msg(r.status == 2 && strstr(r.err, "--procedures"),
		      "bad --procedures: exit %d: %s", r.status, r.err);
	cpt_res_free(&r);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("cpt_export");
	TCase *tc = tcase_create("cli");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cpt_export_stdout_and_file);
	tcase_add_test(tc, test_cpt_export_chrome_and_cpu_weights);
	tcase_add_test(tc, test_cpt_export_chrome_window_and_min_slice);
	tcase_add_test(tc, test_cpt_export_chrome_option_errors);
	tcase_add_test(tc, test_cpt_export_errors);
	tcase_add_test(tc, test_cpt_report_views);
	tcase_add_test(tc, test_cpt_report_html_file);
	tcase_add_test(tc, test_cpt_report_gprof_json);
	tcase_add_test(tc, test_cpt_report_gprof_totals);
	tcase_add_test(tc, test_cpt_report_sampled);
	tcase_add_test(tc, test_cpt_sampled_whatif_folded);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
