/*
 * check_sites.c - where the program first used each object (the trace's
 * SITES block), as `cpt report` names it: wl_sites first uses each of its
 * objects on a line marked "SITE function" (tests/workloads/sites.c), and
 * every object of the report must name that function, that file and that
 * line, and as its first caller the call marked "CALLER"; with the tracer
 * preloaded, linked or with sampling off alike, and the streamed report
 * must name the same.
 * Linked statically, the tracer cannot tell its frames from the
 * program's and records no site: every site is null, and nothing else
 * changes.  OpenMP's modelled objects (a region's fork and join, a task's
 * dependences and completions) are first used in libgomp's frames; each
 * must still be named by the construct in the program, in omp.c.
 */
#include <check.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cpt_skip.h"
#include "cpt_harness.h"

/* A marker of sites.c: a SITE's function @fn and its line, or a CALLER's:
 * the site's function @fn, the calling function @caller and the call's
 * line. */
struct marker {
	char fn[64];
	char caller[64];
	unsigned line;
};

/* The markers of tests/workloads/sites.c, comments that start with @what
 * (SITE: the function; CALLER: the site's function "from" the caller's),
 * into @m; returns how many. */
static unsigned read_markers(const char *what, struct marker *m,
			     unsigned max)
{
	char path[512], here[512], line[256], tag[32];
	unsigned n = 0, no = 0;
	bool site = !strcmp(what, "SITE");
	FILE *f;

	snprintf(here, sizeof(here), "%s", __FILE__);
	snprintf(path, sizeof(path), "%s/../workloads/sites.c", dirname(here));
	snprintf(tag, sizeof(tag), "/* %s ", what);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		const char *s = strstr(line, tag);

		no++;
		if (!s || n == max)
			continue;
		s += strlen(tag);
		if (site)
			ck_assert(sscanf(s, "%63s", m[n].fn) == 1);
		else
			ck_assert(sscanf(s, "%63s from %63s", m[n].fn,
					 m[n].caller) == 2);
		m[n++].line = no;
	}
	fclose(f);
	return n;
}

/* The marker of function @fn (a SITE's, or the site's of a CALLER), or
 * NULL. */
static const struct marker *marker_of(const struct marker *m, unsigned n,
				      const char *fn)
{
	for (unsigned i = 0; i < n; i++)
		if (fn && !strcmp(m[i].fn, fn))
			return &m[i];
	return NULL;
}

/* Member @key of the first of @site's "callers", "?" when missing. */
static const char *first_caller(json_t *site, const char *key)
{
	const char *v = json_string_value(json_object_get(
		json_array_get(json_object_get(site, "callers"), 0), key));

	return v ? v : "?";
}

/* Whether the first of @site's "callers" is the call of marker @mk (any
 * first caller when @mk is NULL: main's, in the C library). */
static bool caller_ok(json_t *site, const struct marker *mk)
{
	json_t *c = json_array_get(json_object_get(site, "callers"), 0);
	const char *fn = json_string_value(json_object_get(c, "function"));
	const char *file = json_string_value(json_object_get(c, "file"));

	if (!c || !json_is_string(json_object_get(c, "pc")))
		return false;
	return !mk || (fn && !strcmp(fn, mk->caller) && file &&
		       strstr(file, "sites.c") &&
		       json_integer_value(json_object_get(c, "line")) ==
		       (json_int_t)mk->line);
}

/* The function each object's first use is in, by kind; the two mutexes
 * are told apart by their operations (gm is locked once, q->lk twice). */
static const char *expected_fn(const char *kind, double ops)
{
	if (!strcmp(kind, "mutex"))
		return ops == 1 ? "lock_global" : "queue_push";
	if (!strcmp(kind, "rwlock"))
		return "read_table";
	if (!strcmp(kind, "barrier"))
		return "main";
	return NULL;
}

/* `cpt report --stream` of @trace (its JSON in @dir) names every object's
 * site as @objs, the in-memory report's objects, do. */
static void same_sites_streamed(struct cpt_errs *errs, const char *trace,
				const char *dir, json_t *objs)
{
	char out[400];
	const char *args[] = { "report", trace, "--stream", "--format", "json",
			       "-o", out, NULL };
	struct cpt_run c;
	json_t *rep, *sobjs, *o;
	json_error_t je;
	size_t i;

	snprintf(out, sizeof(out), "%s/stream.json", dir);
	ck_assert_int_eq(cpt_run_program(&c, CPT_CPT, args, NULL, 120, false),
			 0);
	rep = json_load_file(out, 0, &je);
	ck_assert_msg(rep != NULL, "streamed report: %s (%s)", je.text, c.err);
	sobjs = json_object_get(rep, "objects");
	if (json_array_size(sobjs) != json_array_size(objs))
		cpt_errf(errs, "streamed: %zu objects, in memory %zu",
			 json_array_size(sobjs), json_array_size(objs));
	json_array_foreach(sobjs, i, o) {
		json_t *m = json_array_get(objs, i);

		if (!m || !json_equal(json_object_get(o, "site"),
				      json_object_get(m, "site")))
			cpt_errf(errs, "streamed: object %zu's site differs "
				 "from the in-memory report's", i);
	}
	json_decref(rep);
	cpt_run_free(&c);
}

/* `cpt export --format chrome` of @trace: the barrier's waits carry its
 * site (main's line of @m) in their args. */
static void chrome_sites(struct cpt_errs *errs, const char *trace,
			 const char *dir, const struct marker *m, unsigned nm)
{
	char out[400], want[96], *text = NULL;
	const char *args[] = { "export", trace, "--format", "chrome", "-o",
			       out, NULL };
	const struct marker *mk = marker_of(m, nm, "main");
	struct cpt_run c;
	size_t len = 0;
	FILE *f;

	snprintf(out, sizeof(out), "%s/chrome.json", dir);
	ck_assert_int_eq(cpt_run_program(&c, CPT_CPT, args, NULL, 120, false),
			 0);
	f = fopen(out, "r");
	ck_assert_msg(f != NULL, "chrome export: %s", c.err);
	ck_assert(getdelim(&text, &len, '\0', f) > 0);
	fclose(f);
	/* main's caller is the C library's start: not named */
	snprintf(want, sizeof(want), "\"first_used_in\":\"main (sites.c:%u)\"",
		 mk ? mk->line : 0);
	if (!strstr(text, want))
		cpt_errf(errs, "chrome export: no wait slice with %s", want);
	free(text);
	cpt_run_free(&c);
}

/* The text report of @trace names lock_global's mutex "lock_global
 * (sites.c:L) from main (sites.c:C)", the lines of @m's SITE and @cm's
 * CALLER markers. */
static void text_sites(struct cpt_errs *errs, const char *trace,
		       const struct marker *m, unsigned nm,
		       const struct marker *cm, unsigned ncm)
{
	const char *args[] = { "report", trace, NULL };
	const struct marker *mk = marker_of(m, nm, "lock_global");
	const struct marker *ck = marker_of(cm, ncm, "lock_global");
	struct cpt_run c;
	char want[128];

	ck_assert(mk && ck);
	ck_assert_int_eq(cpt_run_program(&c, CPT_CPT, args, NULL, 120, false),
			 0);
	snprintf(want, sizeof(want), "lock_global (sites.c:%u) from main "
		 "(sites.c:%u)\n", mk->line, ck->line);
	if (!strstr(c.out, want))
		cpt_errf(errs, "text report: no object named %s", want);
	cpt_run_free(&c);
}

/*
 * Trace wl_sites as @v with @env, report it as JSON; every object's site
 * must match its marker (@named), or be null (!@named).
 */
static void check_sites(enum cpt_variant v, const char *const *env,
			bool named)
{
	struct marker m[8], cm[8];
	unsigned nm = read_markers("SITE", m, 8), nobj = 0;
	unsigned ncm = read_markers("CALLER", cm, 8);
	const char *envs[4] = { "CPTHREAD_MODE=trace", NULL, NULL, NULL };
	struct cpt_run r, c;
	char out[400];
	const char *args[] = { "report", NULL, "--format", "json", "-o", out,
			       NULL };
	json_t *rep, *objs, *o;
	json_error_t je;
	struct cpt_errs errs;
	size_t i;

	ck_assert_uint_eq(nm, 4);
	ck_assert_uint_eq(ncm, 3);
	for (unsigned k = 0; env && env[k] && k < 2; k++)
		envs[1 + k] = env[k];
	cpt_errs_init(&errs);
	ck_assert_int_eq(cpt_run_workload(&r, "sites", v, NULL, envs, 60), 0);
	ck_assert_msg(cpt_run_exit_code(&r) == 0 &&
		      strstr(r.out, "sites done 2 1"),
		      "%s: exit %d, stdout '%s', stderr '%s'",
		      cpt_variant_name(v), cpt_run_exit_code(&r), r.out, r.err);
	snprintf(out, sizeof(out), "%s/report.json", r.dir);
	args[1] = r.trace_path;
	unlink(out);
	ck_assert_int_eq(cpt_run_program(&c, CPT_CPT, args, NULL, 120, false),
			 0);
	ck_assert_msg(cpt_run_exit_code(&c) == 0, "cpt: %s", c.err);
	rep = json_load_file(out, 0, &je);
	ck_assert_msg(rep != NULL, "report: %s", je.text);
	objs = json_object_get(rep, "objects");
	json_array_foreach(objs, i, o) {
		const char *kind = json_string_value(json_object_get(o, "kind"));
		const char *addr = json_string_value(json_object_get(o,
								     "address"));
		json_t *site = json_object_get(o, "site");
		double ops = json_number_value(json_object_get(o, "ops"));
		const char *fn, *file;
		const struct marker *mk;

		nobj++;
		if (!named) {
			if (!json_is_null(site))
				cpt_errf(&errs, "%s object %zu: a site without "
					 "a way to find it", kind, i);
			continue;
		}
		fn = json_string_value(json_object_get(site, "function"));
		file = json_string_value(json_object_get(site, "file"));
		mk = marker_of(m, nm, expected_fn(kind, ops));
		if (!mk || !fn || strcmp(fn, mk->fn) || !file ||
		    !strstr(file, "sites.c") ||
		    json_integer_value(json_object_get(site, "line")) !=
		    (json_int_t)mk->line)
			cpt_errf(&errs, "%s object %zu at %s: site %s:%lld in "
				 "%s, expected line %u of %s", kind, i,
				 addr ? addr : "?", file ? file : "?",
				 (long long)json_integer_value(
					json_object_get(site, "line")),
				 fn ? fn : "?", mk ? mk->line : 0,
				 mk ? mk->fn : "?");
		else if (!caller_ok(site, marker_of(cm, ncm, mk->fn)))
			cpt_errf(&errs, "%s object %zu: first caller %s:%lld, "
				 "expected the call in %s", kind, i,
				 first_caller(site, "function"),
				 (long long)json_integer_value(json_object_get(
					json_array_get(json_object_get(
						site, "callers"), 0), "line")),
				 marker_of(cm, ncm, mk->fn) ?
				 marker_of(cm, ncm, mk->fn)->caller : "libc");
	}
	if (nobj != 4)
		cpt_errf(&errs, "%u objects in the report, expected 4", nobj);
	same_sites_streamed(&errs, r.trace_path, r.dir, objs);
	if (named) {
		chrome_sites(&errs, r.trace_path, r.dir, m, nm);
		text_sites(&errs, r.trace_path, m, nm, cm, ncm);
	}
	json_decref(rep);
	ck_assert_msg(errs.n == 0, "%s:\n%s", cpt_variant_name(v), errs.buf);
	cpt_run_free(&c);
	cpt_run_free(&r);
}

START_TEST(test_sites_linked)
{
	check_sites(CPT_LINKED, NULL, true);
}
END_TEST

START_TEST(test_sites_preloaded)
{
	check_sites(CPT_PRELOAD, NULL, true);
}
END_TEST

/* No sampler, so no module map but the one the sites need. */
START_TEST(test_sites_without_sampling)
{
	const char *env[] = { "CPTHREAD_SAMPLING=off", NULL };

	check_sites(CPT_LINKED, env, true);
}
END_TEST

START_TEST(test_sites_static_none)
{
	check_sites(CPT_STATIC, NULL, false);
}
END_TEST

/* Whether the ELF file @path is position-independent (ET_DYN). */
static bool is_pie(const char *path)
{
	unsigned char h[18];
	FILE *f = fopen(path, "rb");
	bool pie = f && fread(h, 1, sizeof(h), f) == sizeof(h) &&
		   h[16] == 3 && h[17] == 0;	/* e_type, little-endian */

	if (f)
		fclose(f);
	return pie;
}

/*
 * Online, the exit report's objects name the executable's function each
 * was first used in (no lines: the runtime reads the symbol table only),
 * the executable and the call's offset in it (its run-time address less
 * one load bias for all, page-aligned, not 0 for a PIE), and its summary
 * line names the most waited-on object's.
 */
START_TEST(test_sites_online)
{
	struct cpt_run r;
	struct cpt_errs errs;
	json_t *o;
	size_t i, n = 0;
	unsigned long long bias0 = 0;
	bool pie = is_pie(CPT_WL_DIR "/wl_sites");

	cpt_errs_init(&errs);
	ck_assert_int_eq(cpt_run_workload(&r, "sites", CPT_LINKED, NULL, NULL,
					  60), 0);
	ck_assert_msg(cpt_run_exit_code(&r) == 0 && r.report,
		      "exit %d, report: %s", cpt_run_exit_code(&r),
		      r.report_error);
	json_array_foreach(json_object_get(r.report, "objects"), i, o) {
		const char *kind = json_string_value(json_object_get(o, "kind"));
		double ops = json_number_value(json_object_get(o, "ops"));
		const char *want = kind ? expected_fn(kind, ops) : NULL;
		const char *fn = json_string_value(json_object_get(
			json_object_get(o, "site"), "function"));

		json_t *site = json_object_get(o, "site");
		const char *mod = json_string_value(json_object_get(site,
								    "module"));
		const char *pc = json_string_value(json_object_get(site, "pc"));
		const char *off = json_string_value(json_object_get(site,
								    "offset"));
		unsigned long long bias = pc && off ?
			strtoull(pc, NULL, 16) - strtoull(off, NULL, 16) : 1;

		n++;
		if (!want || !fn || strcmp(fn, want))
			cpt_errf(&errs, "online: %s object %zu first used in "
				 "%s, expected %s", kind ? kind : "?", i,
				 fn ? fn : "?", want ? want : "?");
		if (n == 1)
			bias0 = bias;
		if (!mod || strcmp(mod, "wl_sites") || bias != bias0 ||
		    bias % 4096 || (pie && !bias))
			cpt_errf(&errs, "online: object %zu at %s is %s+%s "
				 "(load bias %#llx, the first's %#llx)", i,
				 pc ? pc : "?", mod ? mod : "?", off ? off : "?",
				 bias, bias0);
	}
	if (n != 4)
		cpt_errf(&errs, "online: %zu objects, expected 4", n);
	if (!strstr(r.err, "most waited-on object: barrier 1 at ") ||
	    !strstr(r.err, " first used in main ("))
		cpt_errf(&errs, "online summary: %s", r.err);
	ck_assert_msg(errs.n == 0, "%s", errs.buf);
	cpt_run_free(&r);
}
END_TEST

/*
 * Online, an object first used in a shared library (dlopen()ed, still
 * loaded at exit) is named by that library and the offset of the call in
 * it: inside plugin_lock by the library's own symbol table.
 */
START_TEST(test_sites_online_library)
{
	char plugin[400];
	const char *args[] = { "lib", plugin, NULL };
	struct cpt_run r;
	struct cpt_errs errs;
	uint64_t lo, hi;
	json_t *site;
	const char *mod, *off;
	unsigned long long o = 0;

	snprintf(plugin, sizeof(plugin), "%s/libsmp_plugin.so", CPT_WL_DIR);
	ck_assert(cpt_nm_range(plugin, "plugin_lock", &lo, &hi));
	cpt_errs_init(&errs);
	ck_assert_int_eq(cpt_run_workload(&r, "sites", CPT_PRELOAD, args,
					  NULL, 60), 0);
	ck_assert_msg(cpt_run_exit_code(&r) == 0 && r.report,
		      "exit %d, report: %s", cpt_run_exit_code(&r),
		      r.report_error);
	site = json_object_get(json_array_get(json_object_get(r.report,
							      "objects"), 0),
			       "site");
	mod = json_string_value(json_object_get(site, "module"));
	off = json_string_value(json_object_get(site, "offset"));
	if (off)
		o = strtoull(off, NULL, 16);
	if (json_array_size(json_object_get(r.report, "objects")) != 1 ||
	    !mod || strcmp(mod, "libsmp_plugin.so") || o < lo || o >= hi)
		cpt_errf(&errs, "site %s+%s, want libsmp_plugin.so+[%#llx, "
			 "%#llx)", mod ? mod : "?", off ? off : "?",
			 (unsigned long long)lo, (unsigned long long)hi);
	ck_assert_msg(errs.n == 0, "%s", errs.buf);
	cpt_run_free(&r);
}
END_TEST

/*
 * wl_omp's cases that use tasks, dependences, taskloop and the team's
 * barrier: every object but the work items has a site in omp.c, none in
 * libgomp.
 */
START_TEST(test_sites_openmp_constructs)
{
	static const char *const cases[] = { "depend", "nested", "waitdep",
					     "taskloop" };
	const char *env[] = { "CPTHREAD_MODE=trace", NULL };
	struct cpt_errs errs;

	CPT_SKIP_IF(CPT_LIBOMP, "OpenMP built on LLVM's libomp (clang), "
		    "which the tracer does not model");
	cpt_errs_init(&errs);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *args[] = { cases[k], NULL };
		struct cpt_run r, c;
		char out[400];
		const char *cargs[] = { "report", NULL, "--format", "json",
					"-o", out, NULL };
		json_t *rep, *o;
		json_error_t je;
		size_t i, named = 0;

		ck_assert_int_eq(cpt_run_workload(&r, "omp", CPT_LINKED, args,
						  env, 60), 0);
		ck_assert_msg(cpt_run_exit_code(&r) == 0, "omp %s: %s",
			      cases[k], r.err);
		snprintf(out, sizeof(out), "%s/report.json", r.dir);
		cargs[1] = r.trace_path;
		ck_assert_int_eq(cpt_run_program(&c, CPT_CPT, cargs, NULL, 120,
						 false), 0);
		rep = json_load_file(out, 0, &je);
		ck_assert_msg(rep != NULL, "omp %s: %s", cases[k], je.text);
		json_array_foreach(json_object_get(rep, "objects"), i, o) {
			const char *kind = json_string_value(
				json_object_get(o, "kind"));
			json_t *site = json_object_get(o, "site");
			const char *fn = json_string_value(
				json_object_get(site, "function"));
			const char *file = json_string_value(
				json_object_get(site, "file"));

			if (kind && !strcmp(kind, "item"))
				continue;
			named++;
			if (!fn || !file || !strstr(file, "omp.c") ||
			    strncmp(fn, cases[k], strlen(cases[k])))
				cpt_errf(&errs, "omp %s: %s object %zu first "
					 "used in %s (%s), not in the "
					 "program's %s", cases[k], kind, i,
					 fn ? fn : "?", file ? file : "?",
					 cases[k]);
		}
		if (named < 3)
			cpt_errf(&errs, "omp %s: %zu objects", cases[k],
				 named);
		json_decref(rep);
		cpt_run_free(&c);
		cpt_run_free(&r);
	}
	ck_assert_msg(errs.n == 0, "%s", errs.buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sites");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;

	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_sites_linked);
	tcase_add_test(tc, test_sites_preloaded);
	tcase_add_test(tc, test_sites_without_sampling);
	tcase_add_test(tc, test_sites_static_none);
	tcase_add_test(tc, test_sites_openmp_constructs);
	tcase_add_test(tc, test_sites_online);
	tcase_add_test(tc, test_sites_online_library);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
