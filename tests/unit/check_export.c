/*
 * check_export.c - the exporters and the gprof comparison, checked against
 * their formats on synthetic traces whose critical path is known:
 *
 *   Chrome trace-event JSON parses (jansson) and has traceEvents with ph,
 *   ts, pid, tid and name, flow pairs s/f with matching ids, properly
 *   nested slices, and the critical path marked: its slices add up to the
 *   CP length and its arrows are exactly the CP's cross-thread edges;
 *   folded stacks are "frame;frame... N" lines with positive integer
 *   weights summing to the CP length (or the CPU time);
 *   dot output is a well-formed digraph with the CP in bold;
 *   gprof's flat profile is read from canned output and from a real run
 *   of a small -pg program built here.
 *
 * The "scene" trace (ns):
 *   T0: read_scene 20000, then creates T1, T2, T3 and joins them.
 *   Tk: shade 10000 from 20000, then lock m, 1000 inside, unlock; T1 gets
 *   m at 30000, T2 waits for it until 31000, T3 until 32000.
 *   CP = read_scene 20000 + shade 10000 (T1) + 3 x 1000 inside m = 33000.
 */
#include <check.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_chrome.h"
#include "cp_compare.h"
#include "cp_compare_out.h"
#include "cp_dot.h"
#include "cp_folded.h"
#include "cp_gprof.h"
#include "cp_profile.h"
#include "cp_sampled_out.h"
#include "cp_trace.h"
#include "cp_tracepag.h"
#include "cp_views.h"
#include "synth_graph.h"

static void scene(struct synth *s)
{
	uint32_t m;

	synth_init(s);
	synth_symbol(s, 0x1000, 0x100, "read_scene");
	synth_symbol(s, 0x2000, 0x100, "shade");
	synth_start(s, 0, -1);
	m = synth_obj(s, 0, CP_OBJ_MUTEX, 0);
	synth_call(s, 0, 0x1000, 20000);
	for (uint32_t k = 1; k <= 3; k++)
		synth_create(s, 0, 0, k);
	for (uint32_t k = 1; k <= 3; k++) {
		synth_start(s, k, 0);
		synth_call(s, k, 0x2000, 10000);
		synth_lock(s, k, 0, (k - 1) * 1000, m);
		synth_unlock(s, k, 1000, m);
		synth_exit(s, k, 0);
	}
	synth_join(s, 0, 11000, true, 1);
	synth_join(s, 0, 1000, true, 2);
	synth_join(s, 0, 1000, true, 3);
	synth_exit(s, 0, 0);
	s->online_len = 33000;
}

/* Run @fn into a memory buffer; returns the malloc'd NUL-terminated text. */
#define CAPTURE(buf, len, call)						\
	do {								\
		FILE *m_ = open_memstream(&(buf), &(len));		\
		int r_;							\
		char err_[256] = "";					\
		ck_assert_msg(m_ != NULL, "open_memstream");		\
		r_ = call;						\
		fclose(m_);						\
		ck_assert_msg(r_ == 0, #call ": %s", err_);		\
	} while (0)

/* ---- Chrome trace --------------------------------------------------- */

static int64_t ns_of(json_t *v)
{
	return (int64_t)llround(json_number_value(v) * 1000.0);
}

/* Member @k of event @ev: as a string ("" if absent), integer, ns. */
static const char *sget(json_t *ev, const char *k)
{
	const char *v = json_string_value(json_object_get(ev, k));

	return v ? v : "";
}

static json_int_t iget(json_t *ev, const char *k)
{
	return json_integer_value(json_object_get(ev, k));
}

static int64_t nsget(json_t *ev, const char *k)
{
	return ns_of(json_object_get(ev, k));
}

struct xs {
	int64_t a, b;
	const char *cat;
};

static int cmp_xs(const void *x, const void *y)
{
	const struct xs *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b > q->b ? -1 : p->b < q->b;	/* longer (outer) first */
}

/* A flow start @ev, whose finish the writer puts right after it. */
static void check_flow(json_t *ev, json_t *fin, size_t i)
{
	json_int_t id = iget(ev, "id");

	ck_assert_msg(json_is_integer(json_object_get(ev, "id")),
		      "flow %zu without id", i);
	ck_assert_msg(!strcmp(sget(fin, "ph"), "f") && iget(fin, "id") == id,
		      "flow start %zu (id %" JSON_INTEGER_FORMAT ") without "
		      "its finish", i, id);
	ck_assert_msg(json_is_string(json_object_get(fin, "bp")),
		      "flow finish %" JSON_INTEGER_FORMAT " without bp", id);
	ck_assert_msg(nsget(ev, "ts") <= nsget(fin, "ts"),
		      "flow %" JSON_INTEGER_FORMAT " goes back in time", id);
	ck_assert_msg(iget(ev, "tid") != iget(fin, "tid"),
		      "flow %" JSON_INTEGER_FORMAT " within one thread", id);
}

/* Slices of one thread nest or are disjoint. */
static void check_nesting(struct xs *xs, size_t nx)
{
	qsort(xs, nx, sizeof(*xs), cmp_xs);
	for (size_t a = 0; a < nx; a++)
		for (size_t b = a + 1; b < nx && xs[b].a < xs[a].b; b++)
			ck_assert_msg(xs[b].b <= xs[a].b,
				      "slices overlap without nesting: "
				      "%s [%" PRId64 ",%" PRId64 ") and "
				      "%s [%" PRId64 ",%" PRId64 ")",
				      xs[a].cat, xs[a].a, xs[a].b, xs[b].cat,
				      xs[b].a, xs[b].b);
}

/*
 * Check the structure of a Chrome trace; returns the parsed document and
 * fills the critical-path totals.  Nesting is checked on thread 1.
 */
static json_t *chrome_check(const char *text, int64_t *cp_slices_ns,
			   int *cp_flows, int *dep_flows)
{
	json_error_t jerr;
	json_t *doc = json_loads(text, 0, &jerr), *evs, *ev;
	struct xs *xs;
	size_t i, n, nx = 0;

	ck_assert_msg(doc != NULL, "Chrome JSON does not parse: %s (line %d)",
		      jerr.text, jerr.line);
	evs = json_object_get(doc, "traceEvents");
	ck_assert_msg(json_is_array(evs), "no traceEvents array");
	n = json_array_size(evs);
	ck_assert_msg(n > 0, "traceEvents is empty");
	xs = calloc(n, sizeof(*xs));
	*cp_slices_ns = 0;
	*cp_flows = *dep_flows = 0;
	json_array_foreach(evs, i, ev) {
		const char *ph = sget(ev, "ph"), *cat = sget(ev, "cat");
		json_int_t tid = iget(ev, "tid");

		ck_assert_msg(*ph &&
			      json_is_integer(json_object_get(ev, "pid")) &&
			      json_is_integer(json_object_get(ev, "tid")) &&
			      json_is_string(json_object_get(ev, "name")),
			      "event %zu lacks ph/pid/tid/name", i);
		if (!strcmp(ph, "M"))
			continue;
		ck_assert_msg(json_is_number(json_object_get(ev, "ts")) &&
			      nsget(ev, "ts") >= 0,
			      "event %zu (%s) lacks a ts >= 0", i, ph);
		if (!strcmp(ph, "X")) {
			ck_assert_msg(json_is_number(json_object_get(ev, "dur"))
				      && nsget(ev, "dur") >= 0 && *cat,
				      "X event %zu without dur or cat", i);
			if (tid == CP_CHROME_CP_TID)
				continue;
			if (tid == 1) {
				xs[nx].a = nsget(ev, "ts");
				xs[nx].b = xs[nx].a + nsget(ev, "dur");
				xs[nx++].cat = cat;
			}
			if (!strcmp(cat, "critical_path"))
				*cp_slices_ns += nsget(ev, "dur");
		} else if (!strcmp(ph, "s")) {
			check_flow(ev, json_array_get(evs, i + 1), i);
			if (!strcmp(cat, "critical_path"))
				(*cp_flows)++;
			else
				(*dep_flows)++;
		} else {
			ck_assert_msg(!strcmp(ph, "f"),
				      "unexpected phase '%s' at %zu", ph, i);
		}
	}
	check_nesting(xs, nx);
	free(xs);
	return doc;
}

/* Cross-thread dependency edges on the critical path. */
static int cp_cross_edges(const struct synth_cpm *f)
{
	int n = 0;

	for (uint32_t i = 0; i < f->cpm.npath; i++) {
		uint32_t e = f->cpm.path[i], pt, pv;

		if (f->tp.e_kind[e] != CP_TE_DEP)
			continue;
		/* through a hub: the publisher is the previous edge's tail */
		if (!cp_tracepag_vertex(&f->tp, cp_pag_tail(&f->tp.g, e), &pt,
					&pv))
			ck_assert_msg(i > 0 && cp_tracepag_vertex(&f->tp,
				cp_pag_tail(&f->tp.g, f->cpm.path[i - 1]),
				&pt, &pv), "hub without a CP in-edge");
		n += pt != cp_tracepag_thread(&f->tp, e);
	}
	return n;
}

START_TEST(test_chrome_scene_fields_and_critical_path)
{
	struct synth s;
	struct synth_cpm f;
	char *buf = NULL;
	size_t len = 0;
	int64_t cp_ns;
	int cp_flows, dep_flows, want = 0;
	json_t *doc;

	scene(&s);
	synth_cpm_load(&s, &f);
	ck_assert_msg(f.cpm.length == 33000, "CP %" PRIu64 " (want 33000)",
		      f.cpm.length);
	CAPTURE(buf, len, cp_chrome_write(m_, &f.tp, &f.cpm, NULL, err_,
					  sizeof(err_)));
	doc = chrome_check(buf, &cp_ns, &cp_flows, &dep_flows);
	want = cp_cross_edges(&f);
	ck_assert_msg(cp_ns == 33000, "critical-path slices add to %" PRId64
		      " ns, CP is 33000", cp_ns);
	ck_assert_msg(cp_flows == want && want >= 3,
		      "%d critical-path arrows, %d cross-thread CP edges",
		      cp_flows, want);
	/* create x3, m T1->T2, m T2->T3, join x3: 8 arrows in all */
	ck_assert_msg(cp_flows + dep_flows == 8, "%d + %d arrows, want 8",
		      cp_flows, dep_flows);
	ck_assert_msg(json_integer_value(json_object_get(json_object_get(doc,
		      "otherData"), "critical_path_ns")) == 33000,
		      "otherData.critical_path_ns");
	{
		json_int_t sum = 0;
		size_t i;
		json_t *ev;

		/* each stretch carries its CP time (the clock's, not the
		 * wall's): together the CP length */
		json_array_foreach(json_object_get(doc, "traceEvents"), i, ev)
			if (iget(ev, "tid") != CP_CHROME_CP_TID &&
			    !strcmp(sget(ev, "ph"), "X") &&
			    !strcmp(sget(ev, "cat"), "critical_path"))
				sum += iget(json_object_get(ev, "args"),
					    "cp_ns");
		ck_assert_msg(sum == 33000, "args.cp_ns sum to %"
			      JSON_INTEGER_FORMAT, sum);
	}
	json_decref(doc);
	free(buf);

	/* --no-flows keeps the critical arrows only */
	{
		struct cp_chrome_opts o = { .no_flows = true };

		buf = NULL;
		CAPTURE(buf, len, cp_chrome_write(m_, &f.tp, &f.cpm, &o, err_,
						  sizeof(err_)));
		doc = chrome_check(buf, &cp_ns, &cp_flows, &dep_flows);
		ck_assert_msg(dep_flows == 0 && cp_flows == want,
			      "no-flows: %d dependency, %d critical arrows",
			      dep_flows, cp_flows);
		json_decref(doc);
		free(buf);
	}
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

START_TEST(test_chrome_slices_named)
{
	struct synth s;
	struct synth_cpm f;
	char *buf = NULL;
	size_t len = 0, i;
	json_t *doc, *ev;
	int shade = 0, waits = 0, threads = 0, cptrack = 0;
	json_error_t jerr;

	scene(&s);
	synth_cpm_load(&s, &f);
	CAPTURE(buf, len, cp_chrome_write(m_, &f.tp, &f.cpm, NULL, err_,
					  sizeof(err_)));
	doc = json_loads(buf, 0, &jerr);
	ck_assert_msg(doc != NULL, "parse: %s", jerr.text);
	json_array_foreach(json_object_get(doc, "traceEvents"), i, ev) {
		const char *cat = sget(ev, "cat"), *name = sget(ev, "name");
		json_int_t tid = iget(ev, "tid");

		if (!*cat)
			continue;
		if (!strcmp(cat, "procedure") && !strcmp(name, "shade")) {
			ck_assert_msg(nsget(ev, "dur") == 10000,
				      "shade slice of %" PRId64 " ns",
				      nsget(ev, "dur"));
			shade++;
		}
		if (!strcmp(cat, "wait")) {
			ck_assert_msg(!strncmp(name, "wait mutex#", 11) ||
				      !strcmp(name, "wait join"),
				      "wait slice named '%s'", name);
			waits++;
		}
		if (!strcmp(cat, "thread"))
			threads++;
		if (tid == CP_CHROME_CP_TID && !strcmp(cat, "critical_path"))
			cptrack++;
	}
	/* T2 and T3 wait for m, T0 for three joins */
	ck_assert_msg(shade == 3 && waits == 5 && threads == 4,
		      "shade %d waits %d threads %d", shade, waits, threads);
	ck_assert_msg(cptrack >= 3, "critical path track has %d slices",
		      cptrack);
	json_decref(doc);
	free(buf);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/* A barrier's departures are drawn from its last arrival. */
/* X events of @doc on thread @tid (not metadata), by category. */
static int count_x(json_t *doc, json_int_t tid, const char *cat)
{
	json_t *ev;
	size_t i;
	int n = 0;

	json_array_foreach(json_object_get(doc, "traceEvents"), i, ev)
		n += !strcmp(sget(ev, "ph"), "X") && iget(ev, "tid") == tid &&
		     !strcmp(sget(ev, "cat"), cat);
	return n;
}

START_TEST(test_chrome_window_cuts)
{
	/*
	 * The scene in the window [25000, 31500): the CP there is T1's
	 * shade from 25000 (5000 of its 10000), T1's critical section 1000
	 * and half of T2's (500): the CP slices carry 6500 ns.  Nothing
	 * lies outside the window; arrows have both ends inside.
	 */
	struct cp_chrome_opts o = { .from_ns = 25000, .to_ns = 31500 };
	struct synth s;
	struct synth_cpm f;
	char *buf = NULL;
	size_t len = 0, i;
	int64_t cp_ns;
	int cp_flows, dep_flows;
	json_int_t sum = 0;
	json_t *doc, *ev, *win;

	scene(&s);
	synth_cpm_load(&s, &f);
	CAPTURE(buf, len, cp_chrome_write(m_, &f.tp, &f.cpm, &o, err_,
					  sizeof(err_)));
	doc = chrome_check(buf, &cp_ns, &cp_flows, &dep_flows);
	json_array_foreach(json_object_get(doc, "traceEvents"), i, ev) {
		const char *ph = sget(ev, "ph");
		int64_t a = nsget(ev, "ts"), b = a + nsget(ev, "dur");

		if (!strcmp(ph, "M"))
			continue;
		ck_assert_msg(a >= 25000 && b <= 31500, "event %zu (%s %s) at "
			      "[%" PRId64 ", %" PRId64 ") outside the window",
			      i, ph, sget(ev, "name"), a, b);
		if (iget(ev, "tid") != CP_CHROME_CP_TID &&
		    !strcmp(ph, "X") && !strcmp(sget(ev, "cat"),
						 "critical_path"))
			sum += iget(json_object_get(ev, "args"), "cp_ns");
	}
	ck_assert_msg(sum == 6500 && cp_ns == 6500, "CP in the window: "
		      "cp_ns %" JSON_INTEGER_FORMAT ", durations %" PRId64
		      ", want 6500", sum, cp_ns);
	/* inside: m T1->T2 at 31000 (critical) and T0's join of T1 at
	 * 31000; the creates (20000) and m T2->T3 (32000) are outside */
	ck_assert_msg(cp_flows == 1 && dep_flows == 1, "arrows %d + %d, "
		      "want m T1->T2 and join T1", cp_flows, dep_flows);
	win = json_object_get(json_object_get(doc, "otherData"), "window_ns");
	ck_assert_msg(json_array_size(win) == 2 &&
		      json_integer_value(json_array_get(win, 1)) == 31500,
		      "otherData.window_ns");
	json_decref(doc);
	free(buf);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/*
 * One thread: outer() holding 1000 calls of tiny() (5 ns in outer, 10 in
 * tiny each), 15005 ns in all, every ns on the critical path.
 */
static void tiny_calls(struct synth *s)
{
	synth_init(s);
	synth_symbol(s, 0x1000, 0x100, "outer");
	synth_symbol(s, 0x2000, 0x100, "tiny");
	synth_start(s, 0, -1);
	synth_enter(s, 0, 0, 0x1000);
	for (int i = 0; i < 1000; i++) {
		synth_enter(s, 0, 5, 0x2000);
		synth_leave(s, 0, 10);
	}
	synth_leave(s, 0, 5);
	synth_exit(s, 0, 0);
	s->online_len = 15005;
}

START_TEST(test_chrome_aggregated_merges_short_slices)
{
	/*
	 * As recorded: outer, 1000 tiny slices, and 2001 critical-path
	 * slices (the context changes at every call).  With --min-slice
	 * 1000 ns: outer only, and one critical-path slice of 2001 segments
	 * carrying all 15005 ns, procedure "(several)"; nesting intact.
	 */
	struct cp_chrome_opts o = { .min_slice_ns = 1000 };
	struct synth s;
	struct synth_cpm f;
	char *buf = NULL;
	size_t len = 0, i;
	int64_t cp_ns;
	int cp_flows, dep_flows;
	json_t *doc, *ev;

	tiny_calls(&s);
	synth_cpm_load(&s, &f);
	ck_assert_msg(f.cpm.length == 15005, "CP %" PRIu64, f.cpm.length);
	CAPTURE(buf, len, cp_chrome_write(m_, &f.tp, &f.cpm, NULL, err_,
					  sizeof(err_)));
	doc = chrome_check(buf, &cp_ns, &cp_flows, &dep_flows);
	ck_assert_msg(count_x(doc, 0, "procedure") == 1001 &&
		      count_x(doc, 0, "critical_path") == 2001,
		      "as recorded: %d procedure, %d CP slices",
		      count_x(doc, 0, "procedure"),
		      count_x(doc, 0, "critical_path"));
	json_decref(doc);
	free(buf);

	buf = NULL;
	CAPTURE(buf, len, cp_chrome_write(m_, &f.tp, &f.cpm, &o, err_,
					  sizeof(err_)));
	doc = chrome_check(buf, &cp_ns, &cp_flows, &dep_flows);
	ck_assert_msg(count_x(doc, 0, "procedure") == 1 &&
		      count_x(doc, 0, "critical_path") == 1,
		      "aggregated: %d procedure, %d CP slices",
		      count_x(doc, 0, "procedure"),
		      count_x(doc, 0, "critical_path"));
	json_array_foreach(json_object_get(doc, "traceEvents"), i, ev) {
		json_t *args = json_object_get(ev, "args");

		if (strcmp(sget(ev, "ph"), "X") || iget(ev, "tid") != 0)
			continue;
		if (!strcmp(sget(ev, "cat"), "procedure"))
			ck_assert_msg(!strcmp(sget(ev, "name"), "outer") &&
				      nsget(ev, "dur") == 15005,
				      "kept %s of %" PRId64 " ns",
				      sget(ev, "name"), nsget(ev, "dur"));
		if (!strcmp(sget(ev, "cat"), "critical_path"))
			ck_assert_msg(iget(args, "cp_ns") == 15005 &&
				      iget(args, "segments") == 2001 &&
				      !strcmp(sget(args, "procedure"),
					      "(several)"),
				      "merged CP slice: cp_ns %"
				      JSON_INTEGER_FORMAT ", segments %"
				      JSON_INTEGER_FORMAT ", procedure %s",
				      iget(args, "cp_ns"),
				      iget(args, "segments"),
				      sget(args, "procedure"));
	}
	ck_assert_msg(json_integer_value(json_object_get(json_object_get(doc,
		      "otherData"), "min_slice_ns")) == 1000,
		      "otherData.min_slice_ns");
	json_decref(doc);
	free(buf);

	/* and in the window [5000, 10000): outer cut to it, one CP slice
	 * of exactly the 5000 ns inside */
	o = (struct cp_chrome_opts){ .min_slice_ns = 1000, .from_ns = 5000,
				     .to_ns = 10000 };
	buf = NULL;
	CAPTURE(buf, len, cp_chrome_write(m_, &f.tp, &f.cpm, &o, err_,
					  sizeof(err_)));
	doc = chrome_check(buf, &cp_ns, &cp_flows, &dep_flows);
	ck_assert_msg(count_x(doc, 0, "procedure") == 1 &&
		      count_x(doc, 0, "critical_path") == 1 && cp_ns == 5000,
		      "window: %d procedure, %d CP slices of %" PRId64 " ns",
		      count_x(doc, 0, "procedure"),
		      count_x(doc, 0, "critical_path"), cp_ns);
	json_array_foreach(json_object_get(doc, "traceEvents"), i, ev)
		if (!strcmp(sget(ev, "cat"), "critical_path") &&
		    iget(ev, "tid") == 0)
			ck_assert_msg(iget(json_object_get(ev, "args"),
					   "cp_ns") == 5000,
				      "window: cp_ns %" JSON_INTEGER_FORMAT,
				      iget(json_object_get(ev, "args"),
					   "cp_ns"));
	json_decref(doc);
	free(buf);

	/* the default from the window: 15006 ns / 20000 rounds to 0 ns
	 * here, which is every slice; a 1.5 us window is still 0 */
	o = (struct cp_chrome_opts){ .min_slice_ns = CP_CHROME_MIN_AUTO };
	buf = NULL;
	CAPTURE(buf, len, cp_chrome_write(m_, &f.tp, &f.cpm, &o, err_,
					  sizeof(err_)));
	doc = chrome_check(buf, &cp_ns, &cp_flows, &dep_flows);
	ck_assert_msg(count_x(doc, 0, "procedure") == 1001,
		      "auto on a 15 us run: %d procedure slices",
		      count_x(doc, 0, "procedure"));
	json_decref(doc);
	free(buf);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

START_TEST(test_chrome_barrier_arrows_from_last_arrival)
{
	struct synth s;
	struct synth_cpm f;
	char *buf = NULL;
	size_t len = 0, i;
	json_t *doc, *evs, *ev;
	json_error_t jerr;
	uint32_t b;
	int from_t2 = 0;

	synth_init(&s);
	synth_start(&s, 0, -1);
	b = synth_obj(&s, 0, CP_OBJ_BARRIER, 3);
	synth_spawn(&s, 2);
	synth_barrier(&s, 0, 10000, 20000, b);
	synth_barrier(&s, 1, 20000, 10000, b);
	synth_barrier(&s, 2, 30000, 0, b);
	synth_exit(&s, 1, 1000);
	synth_exit(&s, 2, 1000);
	synth_join_all(&s, 2, 1000);
	synth_cpm_load(&s, &f);
	CAPTURE(buf, len, cp_chrome_write(m_, &f.tp, &f.cpm, NULL, err_,
					  sizeof(err_)));
	doc = json_loads(buf, 0, &jerr);
	ck_assert_msg(doc != NULL, "parse: %s", jerr.text);
	evs = json_object_get(doc, "traceEvents");
	json_array_foreach(evs, i, ev) {
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		json_t *fin = json_array_get(evs, i + 1);
		int64_t t2;

		if (strcmp(ph, "s"))
			continue;
		t2 = ns_of(json_object_get(fin, "ts"));
		/* arrows that end at the departures (30000, or 30001 for
		 * the critical one) */
		if (t2 != 30000 && t2 != 30001)
			continue;
		ck_assert_msg(iget(ev, "tid") == 2, "departure arrow from "
			      "T%" JSON_INTEGER_FORMAT ", want T2 (the last "
			      "arrival)", iget(ev, "tid"));
		from_t2++;
	}
	ck_assert_msg(from_t2 == 2, "%d departure arrows, want 2", from_t2);
	json_decref(doc);
	free(buf);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/* ---- folded stacks --------------------------------------------------- */

/* Check every line's format; returns the sum of weights. */
static uint64_t folded_check(const char *text, int *lines, bool threads)
{
	uint64_t sum = 0;
	const char *p = text;

	*lines = 0;
	while (*p) {
		const char *nl = strchr(p, '\n'), *sp;
		char *end;
		unsigned long long wt;

		ck_assert_msg(nl != NULL, "last folded line unterminated: '%s'",
			      p);
		for (sp = nl; sp > p && sp[-1] != ' '; sp--)
			;
		ck_assert_msg(sp > p + 1, "folded line without frames: '%.*s'",
			      (int)(nl - p), p);
		ck_assert_msg(*sp >= '1' && *sp <= '9',
			      "weight not a positive integer: '%.*s'",
			      (int)(nl - p), p);
		wt = strtoull(sp, &end, 10);
		ck_assert_msg(end == nl && wt > 0, "bad weight in '%.*s'",
			      (int)(nl - p), p);
		for (const char *q = p; q < sp - 1; q++)
			ck_assert_msg(*q != '\n' &&
				      !(*q == ';' && (q == p || q[-1] == ';' ||
						      q + 1 == sp - 1)),
				      "empty frame in '%.*s'", (int)(nl - p),
				      p);
		if (threads)
			ck_assert_msg(p[0] == 'T', "no thread frame: '%.*s'",
				      (int)(nl - p), p);
		sum += wt;
		(*lines)++;
		p = nl + 1;
	}
	return sum;
}

START_TEST(test_folded_scene_weights)
{
	struct synth s;
	struct synth_cpm f;
	char *buf = NULL;
	size_t len = 0;
	int lines;
	uint64_t sum;
	struct cp_folded_opts cpu = { .weight = CP_FOLDED_CPU };
	struct cp_folded_opts thr = { .weight = CP_FOLDED_CP,
				      .threads = true };

	scene(&s);
	synth_cpm_load(&s, &f);
	CAPTURE(buf, len, cp_folded_write(m_, &f.tp, &f.cpm, NULL, err_,
					  sizeof(err_)));
	sum = folded_check(buf, &lines, false);
	ck_assert_msg(sum == 33000, "CP weights sum to %" PRIu64
		      ", CP is 33000", sum);
	ck_assert_msg(strstr(buf, "read_scene 20000\n") &&
		      strstr(buf, "shade 10000\n") &&
		      strstr(buf, "(no procedure) 3000\n"),
		      "CP stacks:\n%s", buf);
	free(buf);
	buf = NULL;
	CAPTURE(buf, len, cp_folded_write(m_, &f.tp, &f.cpm, &cpu, err_,
					  sizeof(err_)));
	sum = folded_check(buf, &lines, false);
	ck_assert_msg(sum == f.tp.useful_ns && sum == 53000,
		      "CPU weights sum to %" PRIu64 ", useful %" PRIu64
		      " (want 53000)", sum, f.tp.useful_ns);
	ck_assert_msg(strstr(buf, "shade 30000\n") != NULL, "CPU stacks:\n%s",
		      buf);
	free(buf);
	buf = NULL;
	CAPTURE(buf, len, cp_folded_write(m_, &f.tp, &f.cpm, &thr, err_,
					  sizeof(err_)));
	sum = folded_check(buf, &lines, true);
	/* synthetic threads are named t0, t1, ... */
	ck_assert_msg(sum == 33000 && strstr(buf, "T0 t0;read_scene 20000\n") &&
		      strstr(buf, "T1 t1;shade 10000\n"),
		      "per-thread CP stacks (sum %" PRIu64 "):\n%s", sum, buf);
	free(buf);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/* Nested procedures fold root first; ';' in a name cannot split it. */
START_TEST(test_folded_nesting_and_sanitizing)
{
	struct synth s;
	struct synth_cpm f;
	char *buf = NULL;
	size_t len = 0;
	int lines;

	synth_init(&s);
	synth_symbol(&s, 0x1000, 0x10, "outer");
	synth_symbol(&s, 0x2000, 0x10, "in;ner");
	synth_start(&s, 0, -1);
	synth_enter(&s, 0, 5, 0x1000);
	synth_enter(&s, 0, 7, 0x2000);
	synth_leave(&s, 0, 11);
	synth_leave(&s, 0, 13);
	synth_exit(&s, 0, 17);
	synth_cpm_load(&s, &f);
	CAPTURE(buf, len, cp_folded_write(m_, &f.tp, &f.cpm, NULL, err_,
					  sizeof(err_)));
	ck_assert_msg(folded_check(buf, &lines, false) == 53 && lines == 3,
		      "stacks:\n%s", buf);
	ck_assert_msg(strstr(buf, "outer;in:ner 11\n") &&
		      strstr(buf, "outer 20\n") &&
		      strstr(buf, "(no procedure) 22\n"), "stacks:\n%s", buf);
	free(buf);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/* ---- dot -------------------------------------------------------------- */

START_TEST(test_dot_wellformed_and_limit)
{
	struct synth s;
	struct synth_cpm f;
	char *buf = NULL, err[256] = "";
	size_t len = 0;
	struct cp_dot_opts o = { .tp = NULL };
	int depth = 0, bold = 0, edges = 0;
	FILE *m;

	scene(&s);
	synth_cpm_load(&s, &f);
	o.tp = &f.tp;
	CAPTURE(buf, len, cp_dot_write(m_, &f.tp.g, &f.cpm, &o, err_,
				       sizeof(err_)));
	ck_assert_msg(!strncmp(buf, "digraph pag {\n", 14), "starts: %.40s",
		      buf);
	for (char *line = buf, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		ck_assert_msg(nl != NULL, "unterminated last line");
		*nl = '\0';
		for (char *q = line; *q; q++) {
			if (*q == '"') {	/* skip quoted strings */
				for (q++; *q && *q != '"'; q++)
					if (*q == '\\' && q[1])
						q++;
				ck_assert_msg(*q == '"', "open quote: %s",
					      line);
				continue;
			}
			depth += *q == '{';
			depth -= *q == '}';
			ck_assert_msg(depth >= 0, "unbalanced }: %s", line);
		}
		if (strstr(line, " -> ")) {
			size_t l = strlen(line);

			edges++;
			ck_assert_msg(l > 2 && !strcmp(line + l - 2, "];"),
				      "edge statement: %s", line);
			bold += strstr(line, "penwidth=3") != NULL;
		}
	}
	ck_assert_msg(depth == 0, "braces unbalanced at the end (%d)", depth);
	ck_assert_msg(edges == (int)f.tp.g.ne && bold == (int)f.cpm.npath,
		      "%d edges (graph %u), %d bold (CP %u)", edges,
		      f.tp.g.ne, bold, f.cpm.npath);
	free(buf);

	o.max_edges = 5;
	m = tmpfile();
	ck_assert_msg(cp_dot_write(m, &f.tp.g, &f.cpm, &o, err,
				   sizeof(err)) == -1 && ftell(m) == 0,
		      "over the limit: wrote %ld bytes", ftell(m));
	ck_assert_msg(strstr(err, "--max-edges") && strstr(err, "limit 5"),
		      "message: %s", err);
	fclose(m);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/* ---- gprof ------------------------------------------------------------ */

static const char canned[] =
	"Flat profile:\n"
	"\n"
	"Each sample counts as 0.01 seconds.\n"
	"  %   cumulative   self              self     total           \n"
	" time   seconds   seconds    calls  ms/call  ms/call  name    \n"
	" 62.50      0.05     0.05        1    50.00    80.00  read_scene\n"
	" 25.00      0.07     0.02      400     0.05     0.05  shade\n"
	" 12.50      0.08     0.01                             frame_dummy\n"
	"  0.00      0.08     0.00        3     0.00     0.00  "
	"std::vector<int, std::allocator<int> >::push_back(int const&) [7]\n"
	"\n";

START_TEST(test_gprof_parse_canned)
{
	struct cp_gprof gp;
	const struct cp_gprof_entry *e;
	char err[256] = "";

	ck_assert_msg(cp_gprof_parse(&gp, canned, strlen(canned), "canned",
				     err, sizeof(err)) == 0, "parse: %s", err);
	ck_assert_msg(gp.n == 4 && gp.sample_ns == 10000000 &&
		      gp.total_ns == 80000000 && !gp.no_time,
		      "n %u sample %" PRIu64 " total %" PRIu64, gp.n,
		      gp.sample_ns, gp.total_ns);
	e = cp_gprof_find(&gp, "read_scene");
	ck_assert_msg(e && fabs(e->pct - 62.5) < 1e-9 &&
		      e->self_ns == 50000000 && e->has_calls && e->calls == 1,
		      "read_scene: %g%% %" PRIu64 " ns calls %" PRIu64,
		      e ? e->pct : -1, e ? e->self_ns : 0, e ? e->calls : 0);
	e = cp_gprof_find(&gp, "shade");
	ck_assert_msg(e && e->calls == 400 && e->self_ns == 20000000,
		      "shade calls %" PRIu64, e ? e->calls : 0);
	e = cp_gprof_find(&gp, "frame_dummy");
	ck_assert_msg(e && !e->has_calls && e->self_ns == 10000000,
		      "frame_dummy has_calls %d", e ? e->has_calls : -1);
	e = cp_gprof_find(&gp, "std::vector<int, std::allocator<int> >"
			  "::push_back(int const&)");
	ck_assert_msg(e && e->calls == 3, "C++ name with blanks: %s",
		      gp.e[3].name);
	ck_assert_msg(!cp_gprof_find(&gp, "main"), "main found");
	cp_gprof_free(&gp);
}
END_TEST

START_TEST(test_gprof_parse_empty_and_bad)
{
	static const char empty[] =
		"Flat profile:\n\nEach sample counts as 0.01 seconds.\n"
		" no time accumulated\n\n"
		"  %   cumulative   self              self     total\n"
		" time   seconds   seconds    calls  Ts/call  Ts/call  name\n"
		"  0.00      0.00     0.00        1     0.00     0.00  main\n";
	static const char bad[] = "gprof: something else\n";
	static const char badrow[] =
		"Flat profile:\n\n"
		" time   seconds   seconds    calls  ms/call  ms/call  name\n"
		" 62.50      x.05     0.05        1    50.00    80.00  f\n";
	/* seconds whose nanoseconds do not fit in 64 bits, and calls
	 * past 2^63: no real profile's */
	static const char huge[] =
		"Flat profile:\n\n"
		" time   seconds   seconds    calls  ms/call  ms/call  name\n"
		" 62.50      0.05 77777777777.0  1    50.00    80.00  f\n";
	static const char hugecalls[] =
		"Flat profile:\n\n"
		" time   seconds   seconds    calls  ms/call  ms/call  name\n"
		" 62.50      0.05     0.05 9999999999999999999 1.00 1.00  f\n";
	struct cp_gprof gp;
	char err[256] = "";

	ck_assert_msg(cp_gprof_parse(&gp, empty, strlen(empty), "e", err,
				     sizeof(err)) == 0, "empty: %s", err);
	ck_assert_msg(gp.no_time && gp.n == 1 && gp.total_ns == 0 &&
		      gp.e[0].calls == 1, "no_time %d n %u", gp.no_time, gp.n);
	cp_gprof_free(&gp);
	ck_assert_msg(cp_gprof_parse(&gp, bad, strlen(bad), "bad.txt", err,
				     sizeof(err)) == -1 &&
		      strstr(err, "bad.txt") && strstr(err, "flat profile"),
		      "no header: %s", err);
	ck_assert_msg(cp_gprof_parse(&gp, badrow, strlen(badrow), "r", err,
				     sizeof(err)) == -1 &&
		      strstr(err, "unexpected line"), "bad row: %s", err);
	ck_assert_msg(cp_gprof_parse(&gp, huge, strlen(huge), "h", err,
				     sizeof(err)) == -1 &&
		      strstr(err, "unexpected line"), "huge seconds: %s", err);
	ck_assert_msg(cp_gprof_parse(&gp, hugecalls, strlen(hugecalls), "h",
				     err, sizeof(err)) == -1 &&
		      strstr(err, "unexpected line"), "huge calls: %s", err);
}
END_TEST

/* A real -pg program: exact call counts, the heavy function first. */
START_TEST(test_gprof_real_run)
{
	static const char prog[] =
		"volatile unsigned long sink;\n"
		"__attribute__((noinline)) void heavy_fn(void)\n"
		"{ for (unsigned long i = 0; i < 300000000ul; i++)\n"
		"	sink += i; }\n"
		"__attribute__((noinline)) void light_fn(void)\n"
		"{ for (unsigned long i = 0; i < 2000000ul; i++) sink += i; }\n"
		"int main(void)\n"
		"{ for (int i = 0; i < 3; i++) heavy_fn();\n"
		"  for (int i = 0; i < 5; i++) light_fn(); return 0; }\n";
	char dir[] = "/tmp/cpt_gprof_XXXXXX", cmd[512], path[300], gmon[300];
	char err[512] = "";
	struct cp_gprof gp;
	const struct cp_gprof_entry *h, *l;
	FILE *f;

	ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/gp.c", dir);
	f = fopen(path, "w");
	ck_assert_msg(f && fputs(prog, f) >= 0 && fclose(f) == 0, "write %s",
		      path);
	snprintf(cmd, sizeof(cmd), "cd %s && cc -O1 -pg -o gp gp.c && ./gp",
		 dir);
	ck_assert_msg(system(cmd) == 0, "build and run: %s", cmd);
	snprintf(path, sizeof(path), "%s/gp", dir);
	snprintf(gmon, sizeof(gmon), "%s/gmon.out", dir);
	ck_assert_msg(cp_gprof_run(&gp, NULL, path, gmon, err,
				   sizeof(err)) == 0, "gprof: %s", err);
	h = cp_gprof_find(&gp, "heavy_fn");
	l = cp_gprof_find(&gp, "light_fn");
	ck_assert_msg(h && l && h->has_calls && h->calls == 3 &&
		      l->calls == 5, "calls: heavy %" PRIu64 " light %" PRIu64,
		      h ? h->calls : 0, l ? l->calls : 0);
	ck_assert_msg(h->self_ns > 0 && h->self_ns >= l->self_ns &&
		      gp.e[0].self_ns == h->self_ns && gp.sample_ns > 0,
		      "self: heavy %" PRIu64 " light %" PRIu64 " first %s",
		      h->self_ns, l->self_ns, gp.e[0].name);
	ck_assert_msg(!strcmp(gp.exe, path) && !strcmp(gp.gmon, gmon),
		      "exe %s gmon %s", gp.exe, gp.gmon);
	cp_gprof_free(&gp);

	/* errors name the file */
	snprintf(gmon, sizeof(gmon), "%s/missing.out", dir);
	ck_assert_msg(cp_gprof_run(&gp, NULL, path, gmon, err,
				   sizeof(err)) == -1 && strstr(err, gmon),
		      "missing gmon: %s", err);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}
END_TEST

/* ---- the comparison ---------------------------------------------------- */

START_TEST(test_compare_scene_headline_and_ranks)
{
	struct synth s;
	struct synth_cpm f;
	struct cp_profile p;
	struct cp_compare c;
	struct cp_profile_opts po = { .exclusive = false };
	const struct cp_cmp_row *rs, *sh;
	char err[256] = "", *buf = NULL, hl[512], nt[512];
	size_t len = 0;
	FILE *m;

	scene(&s);
	synth_cpm_load(&s, &f);
	ck_assert_msg(cp_profile_compute(&p, &f.tp, &po, err, sizeof(err)) == 0,
		      "profile: %s", err);
	ck_assert_msg(cp_compare_build(&c, &p, NULL) == 0, "compare");
	rs = cp_compare_find(&c, "read_scene");
	sh = cp_compare_find(&c, "shade");
	ck_assert_msg(rs && sh && rs->cp_rank == 1 && rs->cpu_rank == 2 &&
		      sh->cp_rank == 2 && sh->cpu_rank == 1,
		      "ranks read_scene %u/%u shade %u/%u", rs->cp_rank,
		      rs->cpu_rank, sh->cp_rank, sh->cpu_rank);
	ck_assert_msg(rs->disagree == 1 && sh->disagree == -1,
		      "marks read_scene %d shade %d", rs->disagree,
		      sh->disagree);
	/* 20000/53000 of the CPU, 20000/33000 of the CP; nobody else ran */
	cp_compare_out_headline(&c, hl, sizeof(hl));
	cp_compare_out_note(&c, nt, sizeof(nt));
	ck_assert_msg(strstr(hl, "read_scene: 38% of CPU time, 61% "
			     "of the critical path: the other threads wait") &&
		      c.hl_busy == 0.0, "headline: %s (busy %g)", hl,
		      c.hl_busy);
	ck_assert_msg(nt[0] == '\0', "note without gprof: %s", nt);
	m = open_memstream(&buf, &len);
	cp_compare_out_text(m, &c, 0);
	fclose(m);
	/* the headline comes first, under the section's title */
	ck_assert_msg(strstr(buf, hl) &&
		      strstr(buf, hl) < strstr(buf, "procedure ") &&
		      strstr(buf, "<- CP ranks it higher") &&
		      strstr(buf, "<- CP ranks it lower"), "table:\n%s", buf);
	free(buf);
	cp_compare_free(&c);
	cp_profile_free(&p);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

static void emit_write(void *ctx, const char *b, size_t n)
{
	fwrite(b, 1, n, ctx);
}

/*
 * _start calls main, main calls ten functions of 0.8 ms each (4.4% of the
 * critical path: below a sentence), then three threads run shade 10 ms
 * each at once.  _start and main have the same figures (8 of 38 ms of
 * CPU, 8 of the 18 ms critical path, none of it their own): the headline
 * names main.
 */
START_TEST(test_compare_headline_prefers_program_name)
{
	static const char *const fn[10] = { "f0", "f1", "f2", "f3", "f4",
					    "f5", "f6", "f7", "f8", "f9" };
	struct synth s;
	struct synth_cpm f;
	struct cp_profile p;
	struct cp_compare c;
	struct cp_profile_opts po = { .exclusive = false };
	char err[256] = "", hl[512];

	synth_init(&s);
	synth_symbol(&s, 0x2000, 0x100, "shade");
	synth_symbol(&s, 0x3000, 0x100, "_start");
	synth_symbol(&s, 0x4000, 0x100, "main");
	for (uint32_t i = 0; i < 10; i++)
		synth_symbol(&s, 0x5000 + 0x100 * i, 0x100, fn[i]);
	synth_start(&s, 0, -1);
	synth_enter(&s, 0, 0, 0x3000);
	synth_enter(&s, 0, 0, 0x4000);
	for (uint32_t i = 0; i < 10; i++) {
		synth_enter(&s, 0, 0, 0x5000 + 0x100 * i);
		synth_leave(&s, 0, 800);
	}
	for (uint32_t k = 1; k <= 3; k++)
		synth_create(&s, 0, 0, k);
	for (uint32_t k = 1; k <= 3; k++) {
		synth_start(&s, k, 0);
		synth_call(&s, k, 0x2000, 10000);
		synth_exit(&s, k, 0);
	}
	for (uint32_t k = 1; k <= 3; k++)
		synth_join(&s, 0, 0, true, k);
	synth_leave(&s, 0, 0);
	synth_leave(&s, 0, 0);
	synth_exit(&s, 0, 0);
	s.online_len = 18000;
	synth_cpm_load(&s, &f);
	ck_assert_msg(cp_profile_compute(&p, &f.tp, &po, err, sizeof(err)) == 0,
		      "profile: %s", err);
	ck_assert_msg(cp_compare_build(&c, &p, NULL) == 0, "compare");
	cp_compare_out_headline(&c, hl, sizeof(hl));
	ck_assert_msg(strncmp(hl, "main: 21% of CPU time, 44% of the "
			      "critical path", 47) == 0, "headline: %s", hl);
	cp_compare_free(&c);
	cp_profile_free(&p);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/*
 * T0 and T1 run fit 16 us each at once; then T2..T6 run side 4 us each
 * at once.  The critical path is 20 us, fit 16 of it and side 4: side
 * has 38% of the CPU time (20 of 52 us) and 20% of the CP, the headline's
 * finding, and zeroing it saves 4 us, 20.0%.  Its CP rank is 2, so with
 * --top 1 the figures the headline quotes are computed only because the
 * report asks for them (cp_profile_opts.also); without, the headline
 * leaves the zeroing out rather than quote 0.0% (it once did, on a
 * sqlite3 trace whose such procedure ranked 32nd).
 */
START_TEST(test_compare_headline_proc_past_top)
{
	struct synth s;
	struct synth_cpm f;
	struct cp_profile p;
	struct cp_compare c;
	struct cp_profile_opts po = { .top = 1 };
	const struct cp_cmp_row *sd;
	char err[256] = "", hl[512];
	uint32_t proc;

	synth_init(&s);
	synth_symbol(&s, 0x2000, 0x100, "fit");
	synth_symbol(&s, 0x3000, 0x100, "side");
	synth_start(&s, 0, -1);
	synth_create(&s, 0, 0, 1);
	synth_start(&s, 1, 0);
	synth_call(&s, 0, 0x2000, 16000);
	synth_call(&s, 1, 0x2000, 16000);
	synth_exit(&s, 1, 0);
	synth_join(&s, 0, 0, true, 1);
	for (uint32_t k = 2; k <= 6; k++) {
		synth_create(&s, 0, 0, k);
		synth_start(&s, k, 0);
		synth_call(&s, k, 0x3000, 4000);
		synth_exit(&s, k, 0);
	}
	for (uint32_t k = 2; k <= 6; k++)
		synth_join(&s, 0, 0, true, k);
	synth_exit(&s, 0, 0);
	s.online_len = 20000;
	synth_cpm_load(&s, &f);

	for (int also = 0; also < 2; also++) {
		po.also = also ? cp_compare_headline_proc : NULL;
		ck_assert_msg(cp_profile_compute(&p, &f.tp, &po, err,
						 sizeof(err)) == 0,
			      "profile: %s", err);
		ck_assert_msg(cp_compare_headline_of(&p, NULL, &proc) ==
			      CP_CMP_OVERRATED, "finding");
		ck_assert_msg(cp_compare_build(&c, &p, NULL) == 0, "compare");
		sd = cp_compare_find(&c, "side");
		ck_assert_msg(p.cp_len == 20000 && sd && sd->cp_rank == 2 &&
			      sd->pp->proc == proc &&
			      &c.rows[c.hl_row] == sd, "side is the headline's");
		ck_assert_msg(sd->pp->computed == also &&
			      sd->pp->zero_ns == (also ? 4000u : 0u),
			      "also %d: computed %d, zeroing %" PRIu64, also,
			      sd->pp->computed, sd->pp->zero_ns);
		cp_compare_out_headline(&c, hl, sizeof(hl));
		ck_assert_msg(strstr(hl, "side: 38% of CPU time but 20% of the "
				     "critical path") &&
			      !strstr(hl, "saves 0.0%") &&
			      !strstr(hl, "zeroing") == !also &&
			      (!also || strstr(hl, "suggests (zeroing it "
						   "saves 20.0%).")),
			      "also %d: %s", also, hl);
		cp_compare_free(&c);
		cp_profile_free(&p);
	}
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/*
 * A trace without procedure activity: the barrier example without
 * procedures, with the INFO pairs the runtime writes at the end
 * (@sampling NULL: none, as a trace cut short).  What the report says
 * must fit the case: a sampler that ran and took no sample (a run too
 * short for it: git grep's 13 ms) is not a sampler to turn on.
 */
static void no_procs_case(const char *sampling, const char *hz,
			  const char *want)
{
	struct synth s;
	struct synth_cpm f;
	struct cp_profile p;
	struct cp_compare c;
	struct cp_profile_opts po = { .exclusive = false };
	char err[256] = "", hl[600], *buf = NULL, *line, *save;
	size_t len = 0, n = 0;
	FILE *m;

	synth_barrier_example(&s, false);
	if (sampling) {
		char info[64];

		n = (size_t)snprintf(info, sizeof(info), "sampling%c%s%c"
				     "sampling_hz%c%s", 0, sampling, 0, 0, hz);
		synth_raw_block(&s, CP_BLOCK_INFO, 0, info, n + 1);
	}
	synth_cpm_load(&s, &f);
	ck_assert_msg(cp_profile_compute(&p, &f.tp, &po, err, sizeof(err)) == 0,
		      "profile: %s", err);
	ck_assert_msg(p.nprocs == 0 && p.trace == &f.t, "no procedures");
	ck_assert_msg(cp_compare_build(&c, &p, NULL) == 0, "compare");
	cp_compare_out_headline(&c, hl, sizeof(hl));
	ck_assert_msg(c.finding == CP_CMP_NO_PROCS &&
		      strstr(hl, "No procedure activity in this trace (") &&
		      strstr(hl, want) && strstr(hl, "): the critical path is "
						"100.0% of the elapsed time"),
		      "%s: headline %s", sampling ? sampling : "-", hl);
	m = open_memstream(&buf, &len);
	cp_sampled_out_none_text(m, &f.t);
	fclose(m);
	/* the paragraph: the same words, on indented lines of 78 at most */
	ck_assert_msg(strncmp(buf, "  No procedure activity in this trace: ",
			      39) == 0 && buf[len - 1] == '\n' &&
		      buf[len - 2] == '.', "%s: text\n%s",
		      sampling ? sampling : "-", buf);
	n = 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), n++)
		ck_assert_msg(strlen(line) <= 78 && line[0] == ' ' &&
			      line[1] == ' ' && line[2] != ' ',
			      "line %zu: '%s'", n, line);
	ck_assert_msg(n >= 2, "%zu lines", n);
	free(buf);
	cp_compare_free(&c);
	cp_profile_free(&p);
	synth_cpm_free(&f);
	synth_free(&s);
}

START_TEST(test_report_says_why_no_procedures)
{
	no_procs_case("timer", "250", "the sampler ran, at 250 Hz of each "
		      "thread's CPU time, but the run was too short for it "
		      "to take a sample; trace a longer run, raise "
		      "CPTHREAD_SAMPLING_HZ");
	no_procs_case("perf", "1000", "at 1000 Hz");
	no_procs_case("off", "0", "trace with the sampler on (the default "
		      "in trace mode), build with -finstrument-functions, or "
		      "mark regions");
	no_procs_case(NULL, NULL, "trace with the sampler on");
}
END_TEST

/*
 * A sampled profile, built by hand: worker spans the whole critical path
 * on 40 samples (30 on the path); helper is 8% of the CPU time and none
 * of the path, on 3 samples.  The headline must not rest on helper's 3
 * samples (it once said "helper: 8% of CPU time but 0% of the critical
 * path"): it names the leader, worker.  With worker down to 6 samples
 * no row has enough, and the headline says so with the counts.
 */
START_TEST(test_compare_headline_skips_thin_rows)
{
	struct cp_proc_prof pp[2] = {
		{ .proc = 0, .name = "worker", .cpu_ns = 920, .cp_ns = 1000,
		  .cp_excl_ns = 1000, .zero_ns = 1000, .computed = true,
		  .samples = 40, .cp_samples = 30 },
		{ .proc = 1, .name = "helper", .cpu_ns = 80, .samples = 3 },
	};
	struct cp_profile p = {
		.cp_len = 1000, .elapsed_ns = 1000, .useful_ns = 1000,
		.nthreads = 2, .sampled = true, .samples = 43,
		.cp_samples = 30, .procs = pp, .nprocs = 2,
	};
	struct cp_compare c;
	char hl[512], *buf = NULL;
	size_t len = 0;
	FILE *m;

	ck_assert_msg(cp_compare_build(&c, &p, NULL) == 0, "compare");
	cp_compare_out_headline(&c, hl, sizeof(hl));
	ck_assert_msg(c.finding == CP_CMP_ALIKE &&
		      strstr(hl, "alike: worker leads the critical path"),
		      "finding %d: %s", c.finding, hl);
	m = open_memstream(&buf, &len);
	cp_compare_out_text(m, &c, 0);
	fclose(m);
	ck_assert_msg(strstr(buf, "(thin): fewer than 10 of either"),
		      "legend:\n%s", buf);
	free(buf);
	cp_compare_free(&c);

	pp[0].samples = 6;
	pp[0].cp_samples = 5;
	p.samples = 9;
	p.cp_samples = 5;
	ck_assert_msg(cp_compare_build(&c, &p, NULL) == 0, "compare");
	cp_compare_out_headline(&c, hl, sizeof(hl));
	ck_assert_msg(c.finding == CP_CMP_THIN &&
		      strstr(hl, "Too few CPU-time samples to compare the two "
			     "profiles: 9 samples, 5 on the critical path, "
			     "and no procedure has 10 of each"),
		      "finding %d: %s", c.finding, hl);
	cp_compare_free(&c);
}
END_TEST

START_TEST(test_compare_gprof_columns_json)
{
	struct synth s;
	struct synth_cpm f;
	struct cp_profile p;
	struct cp_compare c;
	struct cp_gprof gp;
	struct cp_profile_opts po = { .exclusive = true };
	struct cp_emit e;
	char err[256] = "", *buf = NULL, nt[512];
	size_t len = 0;
	json_t *doc, *rs, *fd;
	json_error_t jerr;
	FILE *m;

	scene(&s);
	synth_cpm_load(&s, &f);
	ck_assert_msg(cp_profile_compute(&p, &f.tp, &po, err, sizeof(err)) == 0,
		      "profile: %s", err);
	ck_assert_msg(cp_gprof_parse(&gp, canned, strlen(canned), "c", err,
				     sizeof(err)) == 0, "gprof: %s", err);
	ck_assert_msg(cp_compare_build(&c, &p, &gp) == 0, "compare");
	/* exclusive: ranks by gprof's self time, which agrees here */
	ck_assert_msg(cp_compare_find(&c, "read_scene")->disagree == 0 &&
		      cp_compare_find(&c, "frame_dummy") &&
		      !cp_compare_find(&c, "frame_dummy")->pp,
		      "read_scene mark %d",
		      cp_compare_find(&c, "read_scene")->disagree);
	cp_compare_out_note(&c, nt, sizeof(nt));
	ck_assert_msg(strstr(nt, "4 threads") &&
		      strstr(nt, "percentages"), "note: %s", nt);
	m = open_memstream(&buf, &len);
	cp_emit_init(&e, emit_write, m, false);
	cp_emit_obj_begin(&e, NULL);
	cp_compare_out_emit_summary(&e, &c);
	cp_emit_obj_begin(&e, "read_scene");
	cp_compare_out_emit_proc(&e, &c, "read_scene");
	cp_emit_obj_end(&e);
	cp_emit_obj_begin(&e, "nothing");
	cp_compare_out_emit_proc(&e, &c, "nothing");
	cp_emit_obj_end(&e);
	cp_emit_obj_end(&e);
	cp_emit_end(&e);
	fclose(m);
	doc = json_loads(buf, 0, &jerr);
	ck_assert_msg(doc != NULL, "JSON: %s\n%s", jerr.text, buf);
	rs = json_object_get(doc, "read_scene");
	ck_assert_msg(json_integer_value(json_object_get(rs, "gprof_ns")) ==
		      50000000 &&
		      fabs(json_number_value(json_object_get(rs, "gprof_pct")) -
			   62.5) < 1e-9 &&
		      json_integer_value(json_object_get(rs, "cp_rank")) == 1,
		      "read_scene: %s", buf);
	fd = json_object_get(doc, "nothing");
	ck_assert_msg(json_is_null(json_object_get(fd, "gprof_ns")) &&
		      json_is_null(json_object_get(fd, "gprof_pct")),
		      "unknown procedure: %s", buf);
	ck_assert_msg(json_is_string(json_object_get(doc, "headline")) &&
		      json_integer_value(json_object_get(json_object_get(doc,
			"gprof"), "total_ns")) == 80000000, "summary: %s", buf);
	/* frame_dummy and the C++ name: gprof's alone */
	fd = json_object_get(json_object_get(doc, "gprof"), "only_gprof");
	ck_assert_msg(json_array_size(fd) == 2 &&
		      !strcmp(sget(json_array_get(fd, 0), "name"),
			      "frame_dummy") &&
		      iget(json_array_get(fd, 0), "gprof_ns") == 10000000,
		      "only_gprof: %s", buf);
	json_decref(doc);
	free(buf);
	cp_compare_free(&c);
	cp_gprof_free(&gp);
	cp_profile_free(&p);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

/* ---- hierarchical views ------------------------------------------------ */

static char *view_text(const struct cp_profile *p, enum cp_view v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	ck_assert_msg(m && cp_views_print(m, p, v, 0) == 0, "view %d", v);
	fclose(m);
	return buf;
}

START_TEST(test_views_scene_levels)
{
	struct synth s;
	struct synth_cpm f;
	struct cp_profile p;
	struct cp_profile_opts po = { .exclusive = true };
	char err[256] = "", *t, *t2;

	scene(&s);
	synth_cpm_load(&s, &f);
	ck_assert_msg(cp_profile_compute(&p, &f.tp, &po, err, sizeof(err)) == 0,
		      "profile: %s", err);
	/* 3 creates, m from T1 to T2 and T2 to T3, 3 joins */
	t = view_text(&p, CP_VIEW_PROGRAM);
	ck_assert_msg(strstr(t, "dependencies between threads") &&
		      strstr(t, " 8 (") && strstr(t, "threads (N_p)") &&
		      strstr(t, "33.00 us"), "program view:\n%s", t);
	free(t);
	/* T2 got m from T1, on the critical path; T1 ran shade on it */
	t = view_text(&p, CP_VIEW_THREAD);
	t2 = strstr(t, "\n  T2 t2\n");
	ck_assert_msg(t2 && strstr(t2, "released by: T0 t0 1x, T1 t1 1x (1 on "
				   "the CP)") &&
		      strstr(t, "its procedures on the CP: shade 10.00 us"),
		      "thread view:\n%s", t);
	free(t);
	t = view_text(&p, CP_VIEW_PROCEDURE);
	ck_assert_msg(strstr(t, "\n  shade\n") &&
		      strstr(t, "T1 t1                CPU   10.00 us   on the "
			     "CP   10.00 us"), "procedure view:\n%s", t);
	free(t);
	/* the path crosses m twice and holds it 3 x 1000 ns */
	t = view_text(&p, CP_VIEW_OBJECT);
	ck_assert_msg(strstr(t, "mutex#1") && strstr(t, "3.00 us") &&
		      strstr(t, "mutex          1 object, 1 on the critical "
			     "path; 2 waits, 3.00 us waiting"),
		      "object view:\n%s", t);
	free(t);
	cp_profile_free(&p);
	synth_cpm_free(&f);
	synth_free(&s);
}
END_TEST

static Suite *export_suite(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_chrome_scene_fields_and_critical_path);
	tcase_add_test(tc, test_chrome_slices_named);
	tcase_add_test(tc, test_chrome_barrier_arrows_from_last_arrival);
	tcase_add_test(tc, test_chrome_window_cuts);
	tcase_add_test(tc, test_chrome_aggregated_merges_short_slices);
	tcase_add_test(tc, test_folded_scene_weights);
	tcase_add_test(tc, test_folded_nesting_and_sanitizing);
	tcase_add_test(tc, test_dot_wellformed_and_limit);
	tcase_add_test(tc, test_gprof_parse_canned);
	tcase_add_test(tc, test_gprof_parse_empty_and_bad);
	tcase_add_test(tc, test_gprof_real_run);
	tcase_add_test(tc, test_compare_scene_headline_and_ranks);
	tcase_add_test(tc, test_compare_headline_prefers_program_name);
	tcase_add_test(tc, test_compare_headline_proc_past_top);
	tcase_add_test(tc, test_report_says_why_no_procedures);
	tcase_add_test(tc, test_compare_headline_skips_thin_rows);
	tcase_add_test(tc, test_compare_gprof_columns_json);
	tcase_add_test(tc, test_views_scene_levels);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(export_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
