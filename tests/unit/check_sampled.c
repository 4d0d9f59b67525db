/*
 * check_sampled.c - SAMPLES and MODULES blocks: decoding and validation
 * (cp_samples.c), and sampled stacks as procedure activity (cp_sampled.c)
 * with the profile's figures computed by hand.
 *
 * Synthetic PCs are named through the trace's SYMBOLS block (an address in
 * no module falls back to it): main 0x1000, f 0x2000, g 0x3000, h 0x4000,
 * tmain 0x5000, w 0x6000, x 0x7000, each 0x100 long.  A return address
 * is its caller's address plus one (the reader looks up pc - 1).
 */
#include <check.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_par.h"
#include "cp_perfmap.h"
#include "cp_profile.h"
#include "cp_sampled.h"
#include "cp_samples.h"
#include "cp_trace.h"
#include "cp_tracepag.h"
#include "cp_whatif.h"
#include "trace_synth.h"

enum { MAIN = 0x1000, F = 0x2000, G = 0x3000, H = 0x4000, TMAIN = 0x5000,
       W = 0x6000, X = 0x7000 };

static void symbols(struct synth *s)
{
	synth_symbol(s, MAIN, 0x100, "main");
	synth_symbol(s, F, 0x100, "f");
	synth_symbol(s, G, 0x100, "g");
	synth_symbol(s, H, 0x100, "h");
	synth_symbol(s, TMAIN, 0x100, "tmain");
	synth_symbol(s, W, 0x100, "w");
	synth_symbol(s, X, 0x100, "x");
}

/* A sample of @tid at wall clock @wall and CPU time @cpu, with @depth of
 * the frames @f0 (leaf, an address inside it), @f1, @f2 (callers: their
 * return addresses) */
static void sample(struct synth *s, uint32_t tid, uint64_t wall,
		   uint64_t cpu, uint32_t depth, uint64_t f0, uint64_t f1,
		   uint64_t f2)
{
	uint64_t pc[3] = { f0 + 0x10, f1 + 0x11, f2 + 0x11 };

	synth_sample(s, tid, wall, cpu, 200, 0, pc, depth);
}

struct fix {
	struct cp_trace t;
	struct cp_tracepag tp;
	struct cp_profile p;
};

static void load(struct synth *s, struct fix *x, enum cp_procsrc src,
		 bool exclusive)
{
	struct cp_sampled_opts so = { .src = src };
	struct cp_profile_opts po = { .exclusive = exclusive };
	char err[256] = "";
	uint8_t *buf;
	size_t len = synth_encode(s, &buf);
	int r = cp_trace_parse(&x->t, "syn.cpt", buf, len, err, sizeof(err));

	free(buf);
	ck_assert_msg(r == 0, "parse: %s", err);
	ck_assert_msg(cp_sampled_apply(&x->t, &so, err, sizeof(err)) >= 0,
		      "apply: %s", err);
	ck_assert_msg(cp_tracepag_build(&x->tp, &x->t, err, sizeof(err)) == 0,
		      "graph: %s", err);
	ck_assert_msg(cp_profile_compute(&x->p, &x->tp, &po, err,
					 sizeof(err)) == 0, "profile: %s",
		      err);
}

static void unload(struct fix *x)
{
	cp_profile_free(&x->p);
	cp_tracepag_free(&x->tp);
	cp_trace_free(&x->t);
}

static const struct cp_proc_prof *proc(const struct fix *x, const char *n)
{
	for (uint32_t i = 0; i < x->p.nprocs; i++)
		if (!strcmp(x->p.procs[i].name, n))
			return &x->p.procs[i];
	return NULL;
}

static void expect(const struct fix *x, const char *n, uint64_t cpu,
		   uint64_t cp, uint64_t zero, uint64_t smp, uint64_t cpsmp)
{
	const struct cp_proc_prof *pp = proc(x, n);

	ck_assert_msg(pp, "no procedure %s", n);
	ck_assert_msg(pp->cpu_ns == cpu && pp->cp_ns == cp,
		      "%s: cpu %" PRIu64 " (want %" PRIu64 "), cp %" PRIu64
		      " (want %" PRIu64 ")", n, pp->cpu_ns, cpu, pp->cp_ns, cp);
	if (zero != UINT64_MAX)
		ck_assert_msg(pp->computed && pp->zero_ns == zero,
			      "%s: zeroing %" PRIu64 " (want %" PRIu64 ")", n,
			      pp->zero_ns, zero);
	if (smp != UINT64_MAX)
		ck_assert_msg(pp->samples == smp && pp->cp_samples == cpsmp,
			      "%s: samples %" PRIu64 "/%" PRIu64 " (want %"
			      PRIu64 "/%" PRIu64 ")", n, pp->samples,
			      pp->cp_samples, smp, cpsmp);
}

/*
 * One thread, useful from 0 to 1000; samples at 100, 300, 500, 700, 900
 * with stacks f<main, f<main, g<main, g<f<main, main.  Stretches: [0,200),
 * [200,400), [400,600), [600,800), [800,1000].  Inclusive: main 1000,
 * f 600, g 400; self: main 200, f 400, g 400.  One thread: CP = CPU and
 * zeroing = CP time.
 */
static void build_one(struct synth *s)
{
	synth_init(s);
	symbols(s);
	synth_start(s, 0, -1);
	synth_exit(s, 0, 1000);
	sample(s, 0, 100, 100, 2, F, MAIN, 0);
	sample(s, 0, 300, 300, 2, F, MAIN, 0);
	sample(s, 0, 500, 500, 2, G, MAIN, 0);
	sample(s, 0, 700, 700, 3, G, F, MAIN);
	sample(s, 0, 900, 900, 1, MAIN, 0, 0);
	s->online_len = 1000;
}

START_TEST(test_sampled_one_thread_incl_excl)
{
	struct synth s;
	struct fix x;

	build_one(&s);
	load(&s, &x, CP_PROCS_AUTO, false);
	ck_assert_msg(x.p.sampled && x.p.cp_len == 1000, "sampled %d len %"
		      PRIu64, x.p.sampled, x.p.cp_len);
	expect(&x, "main", 1000, 1000, 1000, 5, 5);
	expect(&x, "f", 600, 600, 600, 3, 3);
	expect(&x, "g", 400, 400, 400, 2, 2);
	ck_assert_msg(proc(&x, "f")->calls == 0, "sampled calls %" PRIu64,
		      proc(&x, "f")->calls);
	unload(&x);
	load(&s, &x, CP_PROCS_AUTO, true);
	expect(&x, "main", 200, 200, 200, 1, 1);
	expect(&x, "f", 400, 400, 400, 2, 2);
	expect(&x, "g", 400, 400, 400, 2, 2);
	unload(&x);
	synth_free(&s);
}
END_TEST

/*
 * Recursion: r<r<main at 100 and 300, main at 500 (useful 0..600).
 * Stretches [0,200) and [200,400) hold r twice on the stack: inclusive r
 * counts once per stack, 400; self r 400 (the leaf); main 600 / 200.
 */
/*
 * Code in no file, as a JIT compiler's: named from the map the run left
 * for perf (/tmp/perf-PID.map) when there is one written since the run
 * began, else by its address.  build_one's stacks with "g" (500, 700)
 * replaced by the address J, which no symbol and no module holds: J's
 * inclusive CPU time is g's, 400.  Of two lines holding J the later one
 * names it; a map older than the run is another process's.
 */
#define JIT 0x7f0000001000ull
START_TEST(test_sampled_jit_map)
{
	char path[64];
	struct synth s;
	struct fix x;
	FILE *f;

	synth_init(&s);
	symbols(&s);
	s.pid = 4000000000ull + (uint64_t)getpid();	/* no process's */
	s.start_realtime_ns = 1;
	synth_start(&s, 0, -1);
	synth_exit(&s, 0, 1000);
	sample(&s, 0, 100, 100, 2, F, MAIN, 0);
	sample(&s, 0, 300, 300, 2, F, MAIN, 0);
	sample(&s, 0, 500, 500, 2, JIT, MAIN, 0);
	sample(&s, 0, 700, 700, 3, JIT, F, MAIN);
	sample(&s, 0, 900, 900, 1, MAIN, 0, 0);
	s.online_len = 1000;
	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu64 ".map", s.pid);

	/* no map: the address */
	unlink(path);
	load(&s, &x, CP_PROCS_SAMPLED, false);
	expect(&x, "0x7f0000001010", 400, 400, UINT64_MAX, UINT64_MAX, 0);
	ck_assert(!x.t.samples->jit);
	unload(&x);

	/* a map: the later of two lines holding J, whatever their order
	 * by address; lines that are no entry skipped (no size, a size of
	 * 0, a range past the end of the address space, an empty line) */
	f = fopen(path, "w");
	ck_assert_msg(f, "cannot write %s", path);
	fprintf(f, "0x7f0000000f00 0x200 LazyCompile:old js/a.js:1\n"
		"not a line\n0x10\n10 0 zero\nffffffffffffffff 10 wrap\n\n"
		"7f0000001000 80 Interpreted int T.spin(long)\n"
		"7f0000002000 10 other\n");
	fclose(f);
	load(&s, &x, CP_PROCS_SAMPLED, false);
	expect(&x, "Interpreted int T.spin(long)", 400, 400, UINT64_MAX,
	       UINT64_MAX, 0);
	expect(&x, "main", 1000, 1000, UINT64_MAX, UINT64_MAX, 0);
	ck_assert_uint_eq(x.t.samples->jit->n, 3);
	ck_assert_uint_eq(x.t.samples->jit->bad, 5);
	unload(&x);

	/* a map older than the run: not this run's */
	s.start_realtime_ns = UINT64_MAX / 2;
	load(&s, &x, CP_PROCS_SAMPLED, false);
	expect(&x, "0x7f0000001010", 400, 400, UINT64_MAX, UINT64_MAX, 0);
	unload(&x);
	unlink(path);
	synth_free(&s);
}
END_TEST

START_TEST(test_sampled_recursion_counts_once)
{
	struct synth s;
	struct fix x;
	uint64_t pc[3] = { F + 0x10, F + 0x21, MAIN + 0x11 };

	synth_init(&s);
	symbols(&s);
	synth_start(&s, 0, -1);
	synth_exit(&s, 0, 600);
	synth_sample(&s, 0, 100, 100, 200, 0, pc, 3);
	synth_sample(&s, 0, 300, 300, 200, 0, pc, 3);
	pc[0] = MAIN + 0x30;
	synth_sample(&s, 0, 500, 500, 200, 0, pc, 1);
	load(&s, &x, CP_PROCS_AUTO, false);
	expect(&x, "f", 400, 400, 400, 2, 2);
	expect(&x, "main", 600, 600, 600, 3, 3);
	unload(&x);
	load(&s, &x, CP_PROCS_AUTO, true);
	expect(&x, "f", 400, 400, 400, 2, 2);
	expect(&x, "main", 200, 200, 200, 1, 1);
	unload(&x);
	synth_free(&s);
}
END_TEST

/*
 * Two threads.  T0: start 0, create T1 at 100, useful to 300, join-waits
 * 300..900, exit 950.  T1: 100..900 useful.  CP: T0 [0,100], T1
 * [100,900], T0 [900,950] = 950.
 * T0 samples (U = useful time): 50 main (U 50), 200 h<main (U 200), 500
 * in the wait (ignored), 940 main (U 340).  Switches: h at U 125 (t 125),
 * back to main at U 270 (t 270).  main holds [0,125) [270,300) [900,950].
 * T1 samples at 200, 400 w<tmain, 600 x<w<tmain, 800 tmain; switches at
 * 300, 500, 700.
 * Inclusive CPU: main 350, h 145, tmain 800, w 600, x 200.  CP: main 150,
 * h 0, tmain 800, w 600, x 200.  Zeroing: w -> T1 200, exits at 300,
 * join at max(300, 300), CP 350: 600; x -> 750: 200; tmain -> 600;
 * main -> T1 from 0 to 800, CP 800: 150.
 * @instr: ENTER/LEAVE at exactly the switch points as well.
 */
static void build_two(struct synth *s, uint32_t clock, bool instr,
		      bool samples)
{
	uint64_t woff = clock == CP_CLOCK_CPU ? 100000 : 0;
	uint64_t coff = clock == CP_CLOCK_WALL ? 100000 : 0;

	synth_init(s);
	s->clock = clock;
	s->block_events = 3;
	symbols(s);
	synth_start(s, 0, -1);
	if (instr)
		synth_enter(s, 0, 0, MAIN);
	synth_create(s, 0, 100, 1);
	synth_start(s, 1, 0);
	if (instr) {
		synth_enter(s, 1, 0, TMAIN);
		synth_enter(s, 1, 0, W);
		synth_enter(s, 1, 400, X);
		synth_leave(s, 1, 200);
		synth_leave(s, 1, 0);
		synth_exit(s, 1, 200);
		synth_enter(s, 0, 25, H);
		synth_leave(s, 0, 145);
		synth_request(s, 0, 30, 0);
	} else {
		synth_exit(s, 1, 800);
		synth_request(s, 0, 200, 0);
	}
	synth_join(s, 0, 600, true, 1);
	synth_exit(s, 0, 50);
	s->online_len = 950;
	if (!samples)
		return;
	/* the other clock is off by far: using it would misplace all */
	sample(s, 0, 50 + woff, 50 + coff, 1, MAIN, 0, 0);
	sample(s, 0, 200 + woff, 200 + coff, 2, H, MAIN, 0);
	sample(s, 0, 500 + woff, 500 + coff, 1, MAIN, 0, 0);
	sample(s, 0, 940 + woff, 940 + coff, 1, MAIN, 0, 0);
	sample(s, 1, 200 + woff, 200 + coff, 2, W, TMAIN, 0);
	sample(s, 1, 400 + woff, 400 + coff, 2, W, TMAIN, 0);
	sample(s, 1, 600 + woff, 600 + coff, 3, X, W, TMAIN);
	sample(s, 1, 800 + woff, 800 + coff, 1, TMAIN, 0, 0);
}

static void check_two(const struct fix *x, bool sampled)
{
	ck_assert_msg(x->p.cp_len == 950, "CP %" PRIu64, x->p.cp_len);
	expect(x, "main", 350, 150, 150, sampled ? 3 : UINT64_MAX, 2);
	expect(x, "h", 145, 0, UINT64_MAX, sampled ? 1 : UINT64_MAX, 0);
	expect(x, "tmain", 800, 800, 600, sampled ? 4 : UINT64_MAX, 4);
	expect(x, "w", 600, 600, 600, sampled ? 3 : UINT64_MAX, 3);
	expect(x, "x", 200, 200, 200, sampled ? 1 : UINT64_MAX, 1);
}

START_TEST(test_sampled_two_threads_wall)
{
	struct synth s;
	struct fix x;

	build_two(&s, CP_CLOCK_WALL, false, true);
	load(&s, &x, CP_PROCS_AUTO, false);
	check_two(&x, true);
	ck_assert_msg(x.t.samples->in_wait == 1 && x.t.samples->used == 7,
		      "in wait %" PRIu64 ", used %" PRIu64,
		      x.t.samples->in_wait, x.t.samples->used);
	ck_assert_msg(x.p.samples == 7 && x.p.cp_samples == 6,
		      "samples %" PRIu64 " on CP %" PRIu64, x.p.samples,
		      x.p.cp_samples);
	unload(&x);
	synth_free(&s);
}
END_TEST

/*
 * The same with every pass that splits on two threads (cp_par.h threshold
 * 0: the threads' rewrite in two runs, T0 | T1, and zeroing beside Slack)
 * as on one (threshold SIZE_MAX): the same figures for every procedure,
 * inclusive and exclusive, and the same samples' counters.
 */
START_TEST(test_sampled_two_threads_on_two_cores)
{
	size_t old = cp_par_set_threshold(SIZE_MAX);

	for (int excl = 0; excl < 2; excl++) {
		struct synth s1, s2;
		struct fix one, two;

		build_two(&s1, CP_CLOCK_WALL, false, true);
		load(&s1, &one, CP_PROCS_AUTO, excl);
		cp_par_set_threshold(0);
		build_two(&s2, CP_CLOCK_WALL, false, true);
		load(&s2, &two, CP_PROCS_AUTO, excl);
		cp_par_set_threshold(SIZE_MAX);
		if (!excl)
			check_two(&two, true);
		ck_assert(one.p.nprocs == two.p.nprocs);
		for (uint32_t i = 0; i < one.p.nprocs; i++) {
			const struct cp_proc_prof *a = &one.p.procs[i];
			const struct cp_proc_prof *b = &two.p.procs[i];

			ck_assert_msg(!strcmp(a->name, b->name) &&
				      a->cpu_ns == b->cpu_ns &&
				      a->cp_ns == b->cp_ns &&
				      a->zero_ns == b->zero_ns &&
				      a->slack_ns == b->slack_ns &&
				      a->mbm_ns == b->mbm_ns &&
				      a->samples == b->samples &&
				      a->cp_samples == b->cp_samples,
				      "%s (exclusive %d) differs on two threads",
				      a->name, excl);
		}
		ck_assert_msg(two.t.samples->in_wait == 1 &&
			      two.t.samples->used == 7 &&
			      two.t.samples->outside == 0 &&
			      two.t.samples->used_weight ==
			      one.t.samples->used_weight,
			      "in wait %" PRIu64 ", used %" PRIu64,
			      two.t.samples->in_wait, two.t.samples->used);
		unload(&one);
		unload(&two);
		synth_free(&s1);
		synth_free(&s2);
	}
	cp_par_set_threshold(old);
}
END_TEST

/* The cpu clock places samples by their CPU time, not their wall time. */
START_TEST(test_sampled_two_threads_cpu_clock)
{
	struct synth s;
	struct fix x;

	build_two(&s, CP_CLOCK_CPU, false, true);
	s.hasw = true;	/* vertices carry wall time too: interpolated */
	load(&s, &x, CP_PROCS_AUTO, false);
	check_two(&x, true);
	unload(&x);
	synth_free(&s);
}
END_TEST

/*
 * The same run instrumented at exactly the switch points, with samples
 * too: by default the instrumentation, with --procedures sampled the
 * samples; both give the same figures, and what-if agrees.
 */
START_TEST(test_sampled_agrees_with_instrumented)
{
	struct cp_whatif_scale sc = { .name = "w", .factor = 0.5 };
	struct cp_whatif_result ri, rs;
	struct synth s;
	struct fix xi, xs;
	char err[256];

	build_two(&s, CP_CLOCK_WALL, true, true);
	load(&s, &xi, CP_PROCS_AUTO, false);
	ck_assert_msg(!xi.p.sampled, "auto chose samples over ENTER/LEAVE");
	check_two(&xi, false);
	load(&s, &xs, CP_PROCS_SAMPLED, false);
	ck_assert_msg(xs.p.sampled, "--procedures sampled not taken");
	check_two(&xs, true);
	ck_assert_msg(cp_whatif_trace(&xi.tp, &sc, 1, false, 0, false, &ri,
				      err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(cp_whatif_trace(&xs.tp, &sc, 1, false, 0, false, &rs,
				      err, sizeof(err)) == 0, "%s", err);
	/* w halved: T1 takes 500, CP 100 + 500 + 50 */
	ck_assert_msg(ri.length_after == 650 && rs.length_after == 650,
		      "what-if instrumented %" PRIu64 " sampled %" PRIu64,
		      ri.length_after, rs.length_after);
	unload(&xi);
	unload(&xs);
	synth_free(&s);
}
END_TEST

/*
 * Samples of different weights, under the cpu clock: one thread useful
 * 0..700, f<main at CPU 100 and 200 (weights 100 each), g<main at 600,
 * delivered late (weight 400: the period it closes).  A sample lies at
 * its CPU time, so the late one's period is on the timeline: the switch
 * to g is at the midpoint 400, f holds 400 and g 300 (counting samples
 * would give f 2/3 of 700).  Hot lines rank by the CPU time the samples
 * stand for: g's one sample (400) before f's two (200).
 */
START_TEST(test_sampled_weights_differ)
{
	uint64_t pc[2] = { F + 0x10, MAIN + 0x11 };
	const struct cp_hotline *h;
	struct synth s;
	struct fix x;
	uint32_t n;

	synth_init(&s);
	s.clock = CP_CLOCK_CPU;
	symbols(&s);
	synth_start(&s, 0, -1);
	synth_exit(&s, 0, 700);
	synth_sample(&s, 0, 5000, 100, 100, 0, pc, 2);
	synth_sample(&s, 0, 5100, 200, 100, 0, pc, 2);
	pc[0] = G + 0x10;
	synth_sample(&s, 0, 9000, 600, 400, 0, pc, 2);
	s.online_len = 700;
	load(&s, &x, CP_PROCS_AUTO, true);
	expect(&x, "f", 400, 400, 400, 2, 2);
	expect(&x, "g", 300, 300, 300, 1, 1);
	n = cp_sampled_hotlines(&x.t, 10, &h);
	ck_assert_msg(n == 2 && !strcmp(h[0].func, "g") &&
		      h[0].cpu_ns == 400 && h[0].samples == 1 &&
		      !strcmp(h[1].func, "f") && h[1].cpu_ns == 200 &&
		      h[1].samples == 2, "hot lines: %u, first %s %" PRIu64
		      " ns in %" PRIu64 " samples", n, n ? h[0].func : "-",
		      n ? h[0].cpu_ns : 0, n ? h[0].samples : 0);
	unload(&x);
	synth_free(&s);
}
END_TEST

/* A trace without samples cannot give sampled procedures. */
START_TEST(test_sampled_none_is_an_error)
{
	struct cp_sampled_opts so = { .src = CP_PROCS_SAMPLED };
	struct synth s;
	struct cp_trace t;
	char err[256] = "";
	uint8_t *buf;
	size_t len;

	build_two(&s, CP_CLOCK_WALL, true, false);
	len = synth_encode(&s, &buf);
	ck_assert(cp_trace_parse(&t, "syn.cpt", buf, len, err,
				 sizeof(err)) == 0);
	ck_assert_msg(cp_sampled_apply(&t, &so, err, sizeof(err)) < 0 &&
		      strstr(err, "syn.cpt: no samples"), "err '%s'", err);
	cp_trace_free(&t);
	free(buf);
	synth_free(&s);
}
END_TEST

static int parse(struct synth *s, struct cp_trace *t, char *err, size_t n)
{
	uint8_t *buf;
	size_t len = synth_encode(s, &buf);
	int r = cp_trace_parse(t, "bad.cpt", buf, len, err, n);

	free(buf);
	return r;
}

/* Corrupt SAMPLES blocks: one clear message each, never a crash. */
START_TEST(test_samples_corrupt_blocks)
{
	static const struct {
		uint8_t body[16];
		size_t len;
		uint32_t n;
		const char *msg;
	} cases[] = {
		{ { 0x80, 0x80, 0x80, 0x80, 0x80 }, 5, 1,
		  "bad varint in a sample" },
		{ { 1, 1, 1, 0, 0x81, 0x01 }, 6, 1, "sample of depth 129" },
		{ { 1, 1, 1, 8, 0 }, 5, 1, "unknown sample flags" },
		{ { 1, 1, 1, 0, 1 }, 5, 1, "bad varint in a sample's stack" },
		{ { 1, 1, 1, 0, 0, 7 }, 6, 1, "stray bytes" },
		{ { 1, 1, 1, 0, 0 }, 5, 9, "claims more samples" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cp_samples_head h = { .nsamples = cases[i].n };
		uint8_t blk[64];
		struct synth s;
		struct cp_trace t;
		char err[256] = "";

		build_one(&s);
		memcpy(blk, &h, sizeof(h));
		memcpy(blk + sizeof(h), cases[i].body, cases[i].len);
		synth_raw_block(&s, CP_BLOCK_SAMPLES, 0, blk,
				sizeof(h) + cases[i].len);
		ck_assert_msg(parse(&s, &t, err, sizeof(err)) < 0 &&
			      strstr(err, cases[i].msg) &&
			      !strncmp(err, "bad.cpt: ", 9),
			      "case %zu: '%s' (want '%s')", i, err,
			      cases[i].msg);
		synth_free(&s);
	}
}
END_TEST

/* Corrupt MODULES records. */
START_TEST(test_samples_corrupt_modules)
{
	uint8_t rec[40] = { 0 };
	struct synth s;
	struct cp_trace t;
	char err[256] = "";
	uint64_t lo = 0x1000, hi = 0x2000;

	build_one(&s);
	memcpy(rec + 8, &lo, 8);
	memcpy(rec + 16, &hi, 8);
	rec[25] = 4;	/* a build-id of 4 bytes, then no path end */
	memset(rec + 26, 'a', 14);
	synth_raw_block(&s, CP_BLOCK_MODULES, 0, rec, sizeof(rec));
	ck_assert_msg(parse(&s, &t, err, sizeof(err)) < 0 &&
		      strstr(err, "module path not terminated"), "'%s'", err);
	synth_free(&s);
	build_one(&s);
	synth_module(&s, 0, 0x3000, 0x2000, NULL, 0, "/x", NULL, 0);
	ck_assert_msg(parse(&s, &t, err, sizeof(err)) < 0 &&
		      strstr(err, "empty range"), "'%s'", err);
	synth_free(&s);
}
END_TEST

/*
 * Dropped and counted: samples of a thread with no events, samples that
 * go back in time, and (attribution) samples outside the thread's life.
 */
START_TEST(test_samples_dropped_and_counted)
{
	struct synth s;
	struct fix x;

	build_one(&s);
	sample(&s, 5, 100, 100, 1, MAIN, 0, 0);		/* no thread 5 */
	sample(&s, 0, 950, 950, 1, MAIN, 0, 0);
	sample(&s, 0, 600, 600, 1, MAIN, 0, 0);		/* backwards */
	sample(&s, 0, 2000, 2000, 1, MAIN, 0, 0);	/* after the exit */
	load(&s, &x, CP_PROCS_AUTO, false);
	ck_assert_msg(x.t.samples->decoded == 9 &&
		      x.t.samples->unknown_thread == 1 &&
		      x.t.samples->backwards == 1 &&
		      x.t.samples->outside == 1 && x.t.samples->used == 6,
		      "decoded %" PRIu64 " unknown %" PRIu64 " backwards %"
		      PRIu64 " outside %" PRIu64 " used %" PRIu64,
		      x.t.samples->decoded, x.t.samples->unknown_thread,
		      x.t.samples->backwards, x.t.samples->outside,
		      x.t.samples->used);
	/* main alone from the midpoint of 900 and 950 on: the same totals */
	expect(&x, "main", 1000, 1000, 1000, 6, 6);
	expect(&x, "f", 600, 600, 600, 3, 3);
	unload(&x);
	synth_free(&s);
}
END_TEST

/*
 * Every byte of a sampled trace damaged in turn (and every length cut):
 * the reader refuses or the analysis runs, never a crash (a crash fails
 * the test in Check's fork mode).
 */
START_TEST(test_samples_damaged_never_crash)
{
	struct cp_sampled_opts so = { .src = CP_PROCS_SAMPLED };
	struct synth s;
	uint8_t *buf;
	size_t len;
	uint32_t ok = 0;

	build_two(&s, CP_CLOCK_WALL, false, true);
	synth_module(&s, 0x1000, 0x1000, 0x9000, "\x01\x02", 2, "/nonexistent",
		     NULL, 0);
	len = synth_encode(&s, &buf);
	for (size_t i = 0; i < 2 * len; i++) {
		uint8_t *b = malloc(len);
		struct cp_trace t;
		char err[256];

		memcpy(b, buf, len);
		if (i < len)
			b[i] ^= 0xa5;
		if (cp_trace_parse(&t, "dmg.cpt", b, i < len ? len : i - len,
				   err, sizeof(err)) == 0) {
			struct cp_tracepag tp;
			struct cp_profile p;
			struct cp_profile_opts po = { .k = 3 };

			if (cp_sampled_apply(&t, &so, err, sizeof(err)) >= 0 &&
			    cp_tracepag_build(&tp, &t, err, sizeof(err)) == 0) {
				if (cp_profile_compute(&p, &tp, &po, err,
						       sizeof(err)) == 0) {
					cp_profile_free(&p);
					ok++;
				}
				cp_tracepag_free(&tp);
			}
			cp_trace_free(&t);
		}
		free(b);
	}
	/* damaged timestamps and PCs still decode: some must have run */
	ck_assert_msg(ok > 0, "no damaged trace was analysed");
	free(buf);
	synth_free(&s);
}
END_TEST

/*
 * The rewrite's three ways, checked by what they must keep rather than by
 * hand: switches into a thread's arrays in place (every vertex kept, the
 * arrays large enough for their blocks to have room: cp_big_size), into
 * new arrays (small arrays), and into new arrays with a map (procedure
 * events dropped).  T0 creates T1, both take one mutex @pairs times, T0
 * joins T1; random samples on both (4 procedures, stacks 1 to 3 deep).
 * With @procs, T1 calls a procedure around every tenth lock.  Under the
 * cpu clock the vertices carry wall times too.
 */
static void build_rewrite(struct synth *s, uint32_t clock, uint32_t pairs,
			  bool procs)
{
	uint64_t rng = 7;
	uint32_t m;

	synth_init(s);
	s->clock = clock;
	s->hasw = clock == CP_CLOCK_CPU;	/* wall times beside */
	symbols(s);
	synth_start(s, 0, -1);
	m = synth_obj(s, 0, CP_OBJ_MUTEX, 0);
	synth_create(s, 0, 10, 1);
	synth_start(s, 1, 0);
	for (uint32_t i = 0; i < pairs; i++) {
		for (uint32_t tid = 0; tid < 2; tid++) {
			if (procs && tid == 1 && i % 10 == 0)
				synth_enter(s, 1, 1, F);
			synth_lock(s, tid, 3, tid ? 2 : 0, m);
			synth_unlock(s, tid, 5, m);
			if (procs && tid == 1 && i % 10 == 0)
				synth_leave(s, 1, 1);
		}
	}
	synth_exit(s, 1, 10);
	synth_join(s, 0, 10, true, 1);
	synth_exit(s, 0, 10);
	synth_random_samples(s, &rng, 300, 4);
}

/* Vertex @i of @a and vertex @j of @b are the same event. */
static bool same_vertex(const struct cp_trace_thread *a, uint32_t i,
			const struct cp_trace_thread *b, uint32_t j)
{
	return a->v[i].ts == b->v[j].ts && a->v[i].obj == b->v[j].obj &&
	       a->v[i].op == b->v[j].op && a->a[i].arg == b->a[j].arg &&
	       a->a[i].cnt == b->a[j].cnt &&
	       (!a->wall || a->wall[i] == b->wall[j]);
}

/* The stack current right after vertex @i of @th: the last switch's. */
static uint64_t stack_at(const struct cp_trace_thread *th, uint32_t i)
{
	for (; i < th->nv; i--)
		if (cp_tvert_kind(&th->v[i]) == CP_TV_STACK)
			return th->a[i].arg;
	return UINT64_MAX;
}

/* The sample's stack, its PCs' innermost procedure: 0x1000 + 0x100 i. */
static uint64_t sample_leaf(const struct cp_samples *sm, uint64_t k)
{
	return sm->pcs[sm->s[k].pc_off] & ~(uint64_t)0xff;
}

/*
 * @x (rewritten) against @r (the same trace as read): with the switches
 * taken out, each thread holds @r's vertices but procedure events, in
 * order; the cross references name the same events; each used sample
 * closes on a vertex at or after its time and sits on a stack that
 * samples of another innermost procedure never share.
 */
static void check_rewrite(const struct cp_trace *x, const struct cp_trace *r)
{
	const struct cp_samples *sm = x->samples;
	uint64_t *stk;	/* [n] a used sample's stack */

	for (uint32_t tid = 0; tid < x->nthreads; tid++) {
		const struct cp_trace_thread *a = &x->threads[tid];
		const struct cp_trace_thread *b = &r->threads[tid];
		uint32_t i = 0, nsw = 0;

		for (uint32_t j = 0; j < b->nv; j++) {
			unsigned k = cp_tvert_kind(&b->v[j]);

			if (k == CP_EV_ENTER || k == CP_EV_LEAVE)
				continue;
			for (; i < a->nv &&
			       cp_tvert_kind(&a->v[i]) == CP_TV_STACK; i++)
				nsw++;
			if (i >= a->nv || !same_vertex(a, i, b, j))
				ck_abort_msg("T%u: vertex %u is not read "
					     "vertex %u", tid, i, j);
			if (j == b->exit_v && a->exit_v != i)
				ck_abort_msg("T%u: exit at %u, not %u", tid,
					     a->exit_v, i);
			i++;
		}
		ck_assert_msg(i == a->nv, "T%u: %u vertices after the last "
			      "kept one", tid, a->nv - i);
		ck_assert_msg(nsw > 1, "T%u: %u switches (clock %u, %u "
			      "vertices, %" PRIu64 " used samples)", tid, nsw,
			      x->clock, a->nv, sm->used);
		if (a->create_v != UINT32_MAX)
			ck_assert(same_vertex(&x->threads[a->parent],
					      a->create_v,
					      &r->threads[b->parent],
					      b->create_v));
	}
	for (uint64_t p = 0; p < x->npub; p++)
		if (!same_vertex(&x->threads[x->pub[p].tid], x->pub[p].vi,
				 &r->threads[r->pub[p].tid], r->pub[p].vi))
			ck_abort_msg("publish %" PRIu64 " remapped wrong", p);
	stk = malloc(sizeof(*stk) * (sm->n ? sm->n : 1));
	ck_assert(stk);
	for (uint64_t k = 0; k < sm->n; k++) {
		const struct cp_trace_thread *th = &x->threads[sm->s[k].tid];
		uint64_t t = x->clock == CP_CLOCK_CPU ? sm->s[k].cpu
						       : sm->s[k].wall;

		if (!sm->s[k].used)
			continue;
		if (sm->s[k].pos_v >= th->nv || th->v[sm->s[k].pos_v].ts < t ||
		    th->v[sm->s[k].pos_v - 1].ts >= t)
			ck_abort_msg("sample %" PRIu64 " closes on vertex %u",
				     k, sm->s[k].pos_v);
		stk[k] = stack_at(th, sm->s[k].ctx_v);
	}
	for (uint64_t k = 0; k < sm->n; k++)
		for (uint64_t q = k + 1; sm->s[k].used && q < sm->n &&
		     sm->s[q].tid == sm->s[k].tid; q++)
			if (sm->s[q].used &&
			    sample_leaf(sm, q) != sample_leaf(sm, k) &&
			    stk[q] == stk[k])
				ck_abort_msg("samples %" PRIu64 " and %" PRIu64
					     " of other procedures on one "
					     "stack", k, q);
	free(stk);
}

/* Parse @s twice, rewrite one; @in_place[tid]: whether thread tid's
 * arrays must be the ones read (its switches went in place) or new ones. */
static void rewrite_case(struct synth *s, const bool in_place[2])
{
	struct cp_sampled_opts so = { .src = CP_PROCS_SAMPLED };
	struct cp_trace x, r;
	char err[256] = "";
	uint8_t *buf;
	size_t len = synth_encode(s, &buf);
	const struct cp_tvert *v0[2];

	ck_assert_msg(cp_trace_parse(&x, "x.cpt", buf, len, err,
				     sizeof(err)) == 0, "%s", err);
	ck_assert_msg(cp_trace_parse(&r, "r.cpt", buf, len, err,
				     sizeof(err)) == 0, "%s", err);
	for (uint32_t tid = 0; tid < 2; tid++)
		v0[tid] = x.threads[tid].v;
	ck_assert_msg(cp_sampled_apply(&x, &so, err, sizeof(err)) == 1, "%s",
		      err);
	for (uint32_t tid = 0; tid < 2; tid++)
		ck_assert_msg((x.threads[tid].v == v0[tid]) == in_place[tid],
			      "T%u's switches %s in place", tid,
			      in_place[tid] ? "not" : "went");
	check_rewrite(&x, &r);
	cp_trace_free(&x);
	cp_trace_free(&r);
	free(buf);
	synth_free(s);
}

START_TEST(test_sampled_rewrite_three_ways)
{
	static const bool both[2] = { true, true }, none[2] = { false, false };
	static const bool t0[2] = { true, false };
	struct synth s;

	/* 4*10^5 vertices a thread, 6*10^5 with wall times: every array a
	 * large block */
	build_rewrite(&s, CP_CLOCK_WALL, 100000, false);
	rewrite_case(&s, both);
	build_rewrite(&s, CP_CLOCK_CPU, 150000, false);
	rewrite_case(&s, both);
	build_rewrite(&s, CP_CLOCK_WALL, 500, false);	/* small arrays */
	rewrite_case(&s, none);
	build_rewrite(&s, CP_CLOCK_WALL, 100000, true);	/* T1 drops */
	rewrite_case(&s, t0);
}
END_TEST

static Suite *sampled_suite(void)
{
	Suite *s = suite_create("sampled");
	TCase *tc = tcase_create("core");
	/* arrays of 2 MiB and more: about 5 s under the sanitizers */
	TCase *big = tcase_create("large");

	tcase_add_test(tc, test_sampled_one_thread_incl_excl);
	tcase_add_test(tc, test_sampled_recursion_counts_once);
	tcase_add_test(tc, test_sampled_jit_map);
	tcase_add_test(tc, test_sampled_weights_differ);
	tcase_add_test(tc, test_sampled_two_threads_wall);
	tcase_add_test(tc, test_sampled_two_threads_on_two_cores);
	tcase_add_test(tc, test_sampled_two_threads_cpu_clock);
	tcase_add_test(tc, test_sampled_agrees_with_instrumented);
	tcase_add_test(tc, test_sampled_none_is_an_error);
	tcase_add_test(tc, test_samples_corrupt_blocks);
	tcase_add_test(tc, test_samples_corrupt_modules);
	tcase_add_test(tc, test_samples_dropped_and_counted);
	tcase_add_test(tc, test_samples_damaged_never_crash);
	suite_add_tcase(s, tc);
	tcase_set_timeout(big, 120);
	tcase_add_test(big, test_sampled_rewrite_three_ways);
	suite_add_tcase(s, big);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sampled_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
