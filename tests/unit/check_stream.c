/*
 * check_stream.c - the out-of-core analysis (cp_stream.h) against the
 * in-memory one (cp_tracepag.h, cp_profile.h) on synthetic traces: the
 * critical path length, every thread's times, every procedure's CPU time
 * and calls, and the tracked procedures' CP time and zeroing must be
 * equal to the nanosecond, inclusive and exclusive.  Random traces mix
 * every primitive the trace format knows (mutex, rwlock readers and
 * writers, barrier, semaphore with tokens posted far ahead, condition
 * broadcast, create/join, nested procedures and regions); their durations
 * are drawn from 2^20 values per segment, so two different paths of equal
 * length (where the two analyses may pick different critical paths, and
 * shares differ) do not occur in these seeds.  Cut traces check the
 * salvage.  The memory bound is checked on traces built to keep publish
 * records alive: a million mutex hand-overs, many barrier episodes,
 * broadcasts, reader groups and posts ahead, a read-mostly rwlock.
 * What-if: the streaming fixed-graph prediction equals cp_whatif_trace's
 * on the same traces, for factors 0, 0.5 and 2 and several procedures
 * scaled at once, inclusive and exclusive.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cp_bits.h"
#include "cp_compare.h"
#include "cp_compare_out.h"
#include "cp_cpm.h"
#include "cp_kpaths.h"
#include "cp_par.h"
#include "cp_profile.h"
#include "cp_profile_timeline.h"
#include "cp_report_out.h"
#include "cp_sampled.h"
#include "cp_spill.h"
#include "cp_stream.h"
#include "cp_stream_out.h"
#include "cp_stream_prof.h"
#include "cp_tcursor.h"
#include "cp_trace.h"
#include "cp_tracepag.h"
#include "cp_views.h"
#include "cp_whatif.h"
#include "cpt_cli.h"
#include "synth_graph.h"
#include "trace_synth.h"

#define NPROC 10		/* procedures of the random traces */

static uint64_t rng_state;

static uint64_t rnd(uint64_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (rng_state >> 33) % n;
}

static uint64_t dur(void)
{
	return 1 + rnd(1u << 20);
}

/* Write @s to a temporary file; its name into @path (64 bytes). */
static void write_temp(struct synth *s, char *path)
{
	cpt_write_synth_temp(s, path, 64, "check_stream");
}

/* Write the first @n bytes of @buf (a cut trace) to a temporary file; its
 * name into @path (64 bytes). */
static void write_cut(const uint8_t *buf, size_t n, char *path)
{
	FILE *f;
	int fd;

	snprintf(path, 64, "/tmp/check_stream_XXXXXX");
	fd = mkstemp(path);
	ck_assert_msg(fd >= 0, "mkstemp");
	f = fdopen(fd, "wb");
	ck_assert(f && fwrite(buf, 1, n, f) == n && !fclose(f));
}

/* cp_stream_opts' symbolizer: cp_sampled_symbolize, no debuginfo. */
static int symbolize(void *ctx, struct cp_trace *t, uint32_t **sid,
		     char *err, size_t errlen)
{
	(void)ctx;
	return cp_sampled_symbolize(t, NULL, sid, err, errlen);
}

/* Run the streaming analysis of @path into @st, procedures @exclusive,
 * from the samples if @sampled. */
/* The streaming analysis of the trace at @path with @so into @ix, @st. */
static void stream_with(const char *path, struct cp_tindex *ix,
			struct cp_stream *st, const struct cp_stream_opts *so)
{
	char err[256] = "";

	ck_assert_msg(cp_tindex_open(ix, path, err, sizeof(err)) == 0,
		      "index: %s", err);
	ck_assert_msg(cp_stream_run(st, ix, so, err, sizeof(err)) == 0,
		      "stream: %s", err);
}

static void stream_file_src(const char *path, struct cp_tindex *ix,
			    struct cp_stream *st, bool exclusive, bool sampled)
{
	struct cp_stream_opts so = {
		.exclusive = exclusive, .symbolize = symbolize,
		.src = sampled ? CP_STREAM_SRC_SAMPLED :
				 CP_STREAM_SRC_INSTRUMENTED,
		.mbm_k = CP_PROFILE_K_DEFAULT, .slack = true,
		.headline = cp_stream_prof_headline,
	};

	stream_with(path, ix, st, &so);
}

static void stream_file(const char *path, struct cp_tindex *ix,
			struct cp_stream *st)
{
	stream_file_src(path, ix, st, false, false);
}

/* @s read in memory into @t and @tp, procedures from the samples if
 * @sampled (cp_sampled_apply, forced). */
static void memory_load(struct synth *s, struct cp_trace *t,
			struct cp_tracepag *tp, bool sampled)
{
	if (sampled)
		synth_graph_load_sampled(s, t, tp, CP_PROCS_SAMPLED);
	else
		synth_graph_load(s, t, tp);
}

static const struct cp_proc_prof *find_proc(const struct cp_profile *p,
					    const char *name)
{
	for (uint32_t i = 0; i < p->nprocs; i++)
		if (!strcmp(p->procs[i].name, name))
			return &p->procs[i];
	return NULL;
}

/*
 * Every object's figures streamed and in memory: the same objects, the
 * local sums equal, and (@shares: the critical path is unique) the
 * followed objects' CP held time and CP edges.
 */
static void compare_objects(const struct cp_stream *st,
			    const struct cp_profile *p, bool shares,
			    const char *what)
{
	ck_assert_msg(st->nobjs == p->nobjs, "%s: %u objects streamed, %u in "
		      "memory", what, st->nobjs, p->nobjs);
	for (uint32_t i = 0; i < st->nobjs; i++) {
		const struct cp_stream_obj *a = &st->objs[i];
		const struct cp_obj_prof *b = &p->objs[i];

		ck_assert_msg(a->obj == b->obj && a->kind == b->kind &&
			      a->addr == b->addr &&
			      a->untracked == b->untracked, "%s: object %u/%u",
			      what, a->obj, b->obj);
		ck_assert_msg(a->ops == b->ops && a->waits == b->waits &&
			      a->wait_ns == b->wait_ns &&
			      a->held_ns == b->held_ns &&
			      a->gain_ns == b->gain_ns,
			      "%s: object %u ops %" PRIu64 "/%" PRIu64
			      " waits %" PRIu64 "/%" PRIu64 " waited %" PRIu64
			      "/%" PRIu64 " held %" PRIu64 "/%" PRIu64
			      " gain %" PRIu64 "/%" PRIu64, what, a->obj,
			      a->ops, b->ops, a->waits, b->waits, a->wait_ns,
			      b->wait_ns, a->held_ns, b->held_ns, a->gain_ns,
			      b->gain_ns);
		ck_assert_msg(!shares || !a->tracked ||
			      (a->cp_held_ns == b->cp_held_ns &&
			       a->cp_cross == b->cp_cross),
			      "%s: object %u CP held %" PRIu64 "/%" PRIu64
			      " CP edges %" PRIu64 "/%" PRIu64, what, a->obj,
			      a->cp_held_ns, b->cp_held_ns, a->cp_cross,
			      b->cp_cross);
	}
}

/*
 * Both analyses of @s, procedures @exclusive or inclusive, from the
 * samples if @sampled, compared; @shares: the CP figures too (the
 * critical path is unique).  Returns the streaming result's live_max.
 */
/* Streamed headlines that said the CPU profile underrates a procedure. */
static unsigned n_underrated;
/* Streamed paths that took more than one pass. */
static unsigned n_retried;
/* The last comparison's threads holding lanes at once, streamed. */
static uint64_t last_threads_live;
/* Comparisons whose records pass made thin records. */
static unsigned n_thin;

/*
 * The comparison with the CPU profile, streamed (@st) and in memory (@p):
 * the same CPU ranks; the same CP ranks and marks where the stream gives
 * one, which it must for every followed row with at least cp_bound of CP
 * time; when every procedure is followed, the same finding about the same
 * procedure and the same headline, the other threads' busy share
 * included (the Slack walk's, cp_stream_busy.c).
 */
static void compare_headline(const struct cp_stream *st,
			     const struct cp_profile *p, const char *what)
{
	struct cp_profile sp;
	struct cp_compare a, b;
	char ha[512], hb[512];

	ck_assert(cp_stream_prof_make(&sp, st, NULL) == 0);
	ck_assert(cp_compare_build(&a, &sp, NULL) == 0);
	ck_assert(cp_compare_build(&b, p, NULL) == 0);
	ck_assert_msg(a.n == b.n, "%s: %u rows, %u", what, a.n, b.n);
	ck_assert_msg((sp.cp_bound == 0) == (st->ntracked == st->nprocs),
		      "%s: bound %" PRIu64 " with %u of %u followed", what,
		      sp.cp_bound, st->ntracked, st->nprocs);
	for (uint32_t i = 0; i < a.n; i++) {
		const struct cp_cmp_row *x = &a.rows[i];
		const struct cp_cmp_row *y = cp_compare_find(&b, x->name);
		bool known = !x->pp->cp_unknown && x->pp->cp_ns &&
			     x->pp->cp_ns >= sp.cp_bound;

		ck_assert_msg(y && x->cpu_rank == y->cpu_rank &&
			      known == (x->cp_rank != CP_COMPARE_NORANK) &&
			      (!known || (x->cp_rank == y->cp_rank &&
					  x->disagree == y->disagree)),
			      "%s: %s ranks CP %u CPU %u (%d) streamed, %u %u "
			      "(%d) in memory", what, x->name, x->cp_rank,
			      x->cpu_rank, x->disagree, y ? y->cp_rank : 0,
			      y ? y->cpu_rank : 0, y ? y->disagree : 0);
	}
	n_underrated += a.finding == CP_CMP_UNDERRATED;
	ck_assert_msg(a.hl_row == CP_COMPARE_NORANK ||
		      !a.rows[a.hl_row].pp->cp_unknown,
		      "%s: the headline speaks of %s, not followed", what,
		      a.rows[a.hl_row].name);
	if (sp.cp_bound == 0) {
		ck_assert_msg(a.finding == b.finding &&
			      (a.hl_row == CP_COMPARE_NORANK) ==
			      (b.hl_row == CP_COMPARE_NORANK) &&
			      (a.hl_row == CP_COMPARE_NORANK ||
			       !strcmp(a.rows[a.hl_row].name,
				       b.rows[b.hl_row].name)),
			      "%s: finding %d streamed, %d in memory", what,
			      a.finding, b.finding);
		ck_assert_msg(a.hl_busy == b.hl_busy, "%s: busy %g streamed, "
			      "%g in memory", what, a.hl_busy, b.hl_busy);
		cp_compare_out_headline(&a, ha, sizeof(ha));
		cp_compare_out_headline(&b, hb, sizeof(hb));
		ck_assert_msg(!strcmp(ha, hb), "%s: headline\n  %s\n"
			      "streamed,\n  %s\nin memory", what, ha, hb);
	}
	cp_compare_free(&a);
	cp_compare_free(&b);
	cp_stream_prof_free(&sp);
}

/* The paths pass marked every record whose share lanes a merge takes:
 * none was found thin, so the records pass did not run again. */
static void assert_marks_exact(const struct cp_stream *st, const char *what)
{
	ck_assert_msg(st->thin_reruns == 0, "%s: the records pass ran again "
		      "(%" PRIu64 " thin records)", what, st->thin_records);
	n_thin += st->thin_records > 0;
}

static uint64_t compare_src(struct synth *s, bool shares, bool exclusive,
			    bool sampled, const char *what)
{
	struct cp_profile_opts po = { .top = 0, .exclusive = exclusive };
	struct cp_trace t;
	struct cp_tracepag tp;
	struct cp_profile p;
	struct cp_tindex ix;
	struct cp_stream st;
	char path[64], err[256] = "";
	uint64_t live;

	write_temp(s, path);
	memory_load(s, &t, &tp, sampled);
	ck_assert_msg(cp_profile_compute(&p, &tp, &po, err, sizeof(err)) == 0,
		      "profile: %s", err);
	stream_file_src(path, &ix, &st, exclusive, sampled);
	ck_assert_msg(st.sampled == sampled, "%s: sampled %d", what,
		      st.sampled);
	ck_assert_msg(st.cp_len == p.cp_len, "%s: CP %" PRIu64 " streamed, %"
		      PRIu64 " in memory", what, st.cp_len, p.cp_len);
	ck_assert_msg(st.useful_ns == p.useful_ns && st.wait_ns == p.wait_ns &&
		      st.elapsed_ns == p.elapsed_ns,
		      "%s: useful %" PRIu64 "/%" PRIu64 " wait %" PRIu64 "/%"
		      PRIu64 " elapsed %" PRIu64 "/%" PRIu64, what,
		      st.useful_ns, p.useful_ns, st.wait_ns, p.wait_ns,
		      st.elapsed_ns, p.elapsed_ns);
	ck_assert_msg(st.samples == p.samples &&
		      (!shares || st.cp_samples == p.cp_samples),
		      "%s: samples %" PRIu64 "/%" PRIu64 ", on the CP %" PRIu64
		      "/%" PRIu64, what, st.samples, p.samples, st.cp_samples,
		      p.cp_samples);
	for (uint32_t i = 0; i < p.nthreads_all; i++) {
		const struct cp_stream_thread *a = &st.threads[i];
		const struct cp_thread_prof *b = &p.threads[i];

		ck_assert_msg(a->useful_ns == b->useful_ns &&
			      a->wait_ns == b->wait_ns &&
			      a->len_ns == b->len_ns &&
			      a->elapsed_ns == b->elapsed_ns &&
			      a->calls == b->calls,
			      "%s: T%u len %" PRIu64 "/%" PRIu64 " calls %"
			      PRIu64 "/%" PRIu64, what, i, a->len_ns,
			      b->len_ns, a->calls, b->calls);
		ck_assert_msg(!shares || !a->tracked || a->cp_ns == b->cp_ns,
			      "%s: T%u CP time %" PRIu64 " streamed, %" PRIu64
			      " in memory", what, i, a->cp_ns, b->cp_ns);
		ck_assert_msg(a->samples == b->samples, "%s: T%u samples %"
			      PRIu64 "/%" PRIu64, what, i, a->samples,
			      b->samples);
		ck_assert_msg(!b->nv || (a->parent == t.threads[i].parent &&
			      a->exited == (t.threads[i].exit_v !=
					    UINT32_MAX)),
			      "%s: T%u parent %u/%u exited %d", what, i,
			      a->parent, t.threads[i].parent, a->exited);
	}
	compare_objects(&st, &p, shares, what);
	for (uint32_t i = 0; i < st.nprocs; i++) {
		const struct cp_stream_proc *sp = &st.procs[i];
		const struct cp_proc_prof *mp = find_proc(&p, sp->name);

		ck_assert_msg(mp, "%s: %s not in memory", what, sp->name);
		ck_assert_msg(sp->cpu_ns == mp->cpu_ns &&
			      sp->calls == mp->calls &&
			      sp->samples == mp->samples,
			      "%s: %s cpu %" PRIu64 "/%" PRIu64 " samples %"
			      PRIu64 "/%" PRIu64, what, sp->name, sp->cpu_ns,
			      mp->cpu_ns, sp->samples, mp->samples);
		ck_assert_msg(sp->cpu_incl_ns == mp->cpu_incl_ns &&
			      sp->cpu_excl_ns == mp->cpu_excl_ns,
			      "%s: %s cpu inclusive %" PRIu64 "/%" PRIu64
			      ", exclusive %" PRIu64 "/%" PRIu64, what,
			      sp->name, sp->cpu_incl_ns, mp->cpu_incl_ns,
			      sp->cpu_excl_ns, mp->cpu_excl_ns);
		if (!sp->tracked)
			continue;
		ck_assert_msg(!shares || (sp->cp_excl_ns == mp->cp_excl_ns &&
					  sp->cp_incl_ns == mp->cp_incl_ns),
			      "%s: %s CP time exclusive %" PRIu64 " streamed, %"
			      PRIu64 " in memory; inclusive %" PRIu64 ", %"
			      PRIu64, what, sp->name, sp->cp_excl_ns,
			      mp->cp_excl_ns, sp->cp_incl_ns, mp->cp_incl_ns);
		ck_assert_msg(sp->zero_ns == mp->zero_ns,
			      "%s: %s zeroing %" PRIu64 " streamed, %" PRIu64
			      " in memory", what, sp->name, sp->zero_ns,
			      mp->zero_ns);
		ck_assert_msg(!shares || sp->cp_ns == mp->cp_ns,
			      "%s: %s CP time %" PRIu64 " streamed, %" PRIu64
			      " in memory", what, sp->name, sp->cp_ns,
			      mp->cp_ns);
		ck_assert_msg(!shares || !sp->tracked ||
			      sp->cp_samples == mp->cp_samples,
			      "%s: %s CP samples %" PRIu64 " streamed, %"
			      PRIu64 " in memory", what, sp->name,
			      sp->cp_samples, mp->cp_samples);
		ck_assert_msg(sp->has_slack && (!shares || !mp->computed ||
			      sp->slack_ns == mp->slack_ns),
			      "%s: %s Slack %" PRIu64 " streamed (%d), %" PRIu64
			      " in memory (CP %" PRIu64 ")", what, sp->name,
			      sp->slack_ns, sp->has_slack, mp->slack_ns,
			      mp->cp_ns);
		ck_assert_msg(sp->has_mbm && (!shares || !mp->computed ||
			      sp->mbm_ns == mp->mbm_ns),
			      "%s: %s MBM %" PRIu64 " streamed (%d), %" PRIu64
			      " in memory", what, sp->name, sp->mbm_ns,
			      sp->has_mbm, mp->mbm_ns);
	}
	ck_assert_msg(st.mbm_paths == p.npaths, "%s: MBM over %u paths "
		      "streamed, %u in memory", what, st.mbm_paths, p.npaths);
	ck_assert_msg(st.nprocs == p.nprocs, "%s: %u procedures, %u",
		      what, st.nprocs, p.nprocs);
	if (shares)
		compare_headline(&st, &p, what);
	assert_marks_exact(&st, what);
	live = st.live_max;
	last_threads_live = st.threads_live_max;
	cp_stream_free(&st);
	cp_tindex_close(&ix);
	cp_profile_free(&p);
	synth_graph_free(&t, &tp);
	unlink(path);
	return live;
}

/*
 * The what-if scalings of @tp's procedures tried on every trace: one
 * procedure by 0, 0.5 or 2 (round @k picks which), three at once, and
 * one named twice (the factors multiply).  Returns how many into @sc.
 */
static uint32_t scalings(const struct cp_tracepag *tp, uint32_t k,
			 struct cp_whatif_scale *sc)
{
	static const double f[] = { 0.0, 0.5, 2.0 };
	uint32_t n = tp->nprocs;

	switch (k) {
	case 0:
	case 1:
	case 2:
		sc[0] = (struct cp_whatif_scale){ tp->procs[k % n], f[k] };
		return 1;
	case 3:
		for (uint32_t i = 0; i < 3; i++)
			sc[i] = (struct cp_whatif_scale){
				tp->procs[(i * 3 + 1) % n], f[(i + 1) % 3] };
		return 3;
	default:
		sc[0] = (struct cp_whatif_scale){ tp->procs[n - 1], 0.5 };
		sc[1] = (struct cp_whatif_scale){ tp->procs[n - 1], 3.0 };
		return 2;
	}
}

/*
 * The fixed-graph prediction of @s streamed and in memory
 * (cp_whatif_trace's length_after_fixed and scaled_ns), for each of
 * scalings(), procedures @exclusive or inclusive, from the samples if
 * @sampled; streamed with every lane and with the lengths only (nothing
 * else followed then).
 */
static void compare_whatif_src(struct synth *s, bool exclusive,
			       bool sampled, const char *what)
{
	struct cp_trace t;
	struct cp_tracepag tp;
	char path[64], err[256] = "";

	write_temp(s, path);
	memory_load(s, &t, &tp, sampled);
	for (uint32_t k = 0; tp.nprocs && k < 10; k++) {
		struct cp_whatif_scale sc[3];
		uint32_t nsc = scalings(&tp, k / 2, sc);
		bool lengths = k % 2;
		struct cp_stream_opts so = {
			.exclusive = exclusive, .scale = sc, .nscale = nsc,
			.symbolize = symbolize, .lengths_only = lengths,
			.src = sampled ? CP_STREAM_SRC_SAMPLED :
					 CP_STREAM_SRC_INSTRUMENTED,
		};
		struct cp_whatif_result r;
		struct cp_tindex ix;
		struct cp_stream st;
		uint32_t followed;

		ck_assert_msg(cp_whatif_trace(&tp, sc, nsc, exclusive, 0, false,
					      &r, err, sizeof(err)) == 0,
			      "%s: whatif: %s", what, err);
		ck_assert_msg(cp_tindex_open(&ix, path, err, sizeof(err)) == 0,
			      "index: %s", err);
		ck_assert_msg(cp_stream_run(&st, &ix, &so, err,
					    sizeof(err)) == 0,
			      "stream: %s", err);
		ck_assert_msg(st.scaled_len == r.length_after_fixed &&
			      st.scaled_ns == r.scaled_ns &&
			      st.cp_len == r.length_before,
			      "%s, %s x %g (%u scalings, %s%s): fixed graph %"
			      PRIu64 " streamed, %" PRIu64 " in memory; scaled "
			      "%" PRIu64 "/%" PRIu64, what, sc[0].name,
			      sc[0].factor, nsc, exclusive ? "exclusive" :
			      "inclusive", lengths ? ", lengths only" : "",
			      st.scaled_len, r.length_after_fixed,
			      st.scaled_ns, r.scaled_ns);
		followed = st.ntracked + st.nobjs_tracked +
			   st.nthreads_tracked;
		ck_assert_msg(lengths ? followed == 0 : followed > 0,
			      "%s: %u lanes followed%s", what, followed,
			      lengths ? " with the lengths only" : "");
		cp_stream_free(&st);
		cp_tindex_close(&ix);
	}
	synth_graph_free(&t, &tp);
	unlink(path);
}

static uint64_t compare_mode(struct synth *s, bool shares, bool exclusive,
			     const char *what)
{
	return compare_src(s, shares, exclusive, false, what);
}

static void compare_whatif(struct synth *s, bool exclusive, const char *what)
{
	compare_whatif_src(s, exclusive, false, what);
}

static uint64_t compare(struct synth *s, bool shares, const char *what)
{
	return compare_mode(s, shares, false, what);
}

/*
 * The k longest paths streamed (cp_stream_opts.kpaths) against cp_kpaths
 * on the in-memory graph: the same lengths, longest first (which of two
 * equal-length paths comes first may differ), every parent listed
 * before its child and no longer than it.  With @nodes (the streamed
 * heaps' cap) small, the bound falls: the paths given must still be the
 * longest, fewer of them, and paths_cut say so.  Returns the paths
 * compared.
 */
static uint32_t compare_paths(struct synth *s, uint32_t k, uint64_t nodes,
			      uint64_t max, const char *what)
{
	struct cp_stream_opts so = { .kpaths = k, .kpaths_nodes = nodes,
				     .kpaths_nodes_max = max,
				     .lengths_only = true };
	struct cp_trace t;
	struct cp_tracepag tp;
	struct cp_cpm cpm;
	struct cp_kpaths kp;
	struct cp_tindex ix;
	struct cp_stream st;
	char path[64];
	uint32_t n;
	uint64_t room;

	write_temp(s, path);
	synth_graph_load(s, &t, &tp);
	ck_assert_int_eq(cp_cpm_run(&cpm, &tp.g, NULL), 0);
	ck_assert_int_eq(cp_kpaths_find(&kp, &cpm, k), 0);
	stream_with(path, &ix, &st, &so);
	n = st.npaths;
	ck_assert_msg(n == kp.n || (nodes && st.paths_cut && n < kp.n),
		      "%s: k=%u: %u paths streamed, %u in memory (cut %d)",
		      what, k, n, kp.n, st.paths_cut);
	ck_assert_msg(nodes || !st.paths_cut, "%s: cut at full memory", what);
	/* the room grows 8 times a pass, up to max, while the paths come
	 * out cut */
	room = nodes;
	for (uint32_t i = 1; i < st.paths_passes; i++)
		room = room < max / 8 ? room * 8 : max;
	ck_assert_msg(!nodes || (st.kp_room == room &&
				 (st.paths_passes == 1 || max > nodes) &&
				 (!st.paths_cut || room >= max)),
		      "%s: k=%u: %u passes, room %" PRIu64 ", cut %d", what,
		      k, st.paths_passes, st.kp_room, st.paths_cut);
	n_retried += st.paths_passes > 1;
	for (uint32_t i = 0; i < n; i++) {
		const struct cp_stream_path *q = &st.paths[i];

		ck_assert_msg(q->len == kp.len[i], "%s: k=%u: path %u of %"
			      PRIu64 " streamed, %" PRIu64 " in memory", what,
			      k, i, q->len, kp.len[i]);
		ck_assert_msg(i == 0 ? q->parent == UINT32_MAX :
			      q->parent < i && st.paths[q->parent].len >=
			      q->len, "%s: path %u's parent %u", what, i,
			      q->parent);
	}
	cp_stream_free(&st);
	cp_tindex_close(&ix);
	cp_kpaths_free(&kp);
	cp_cpm_free(&cpm);
	synth_graph_free(&t, &tp);
	unlink(path);
	return n;
}

/*
 * The streamed MBM with the paths' heaps at @nodes, grown up to @max when
 * they cut the paths: when the paths stay cut, the MBM is over the exact
 * ones only, and equals the in-memory MBM over as many paths.  Returns
 * whether the paths were cut.
 */
static bool compare_mbm_cut(struct synth *s, uint64_t nodes, uint64_t max,
			    const char *what)
{
	struct cp_stream_opts so = { .mbm_k = 500, .kpaths_nodes = nodes,
				     .kpaths_nodes_max = max };
	struct cp_profile_opts po = { .top = 0 };
	struct cp_trace t;
	struct cp_tracepag tp;
	struct cp_profile p;
	struct cp_tindex ix;
	struct cp_stream st;
	char path[64], err[256] = "";
	bool cut;

	write_temp(s, path);
	stream_with(path, &ix, &st, &so);
	cut = st.paths_cut;
	ck_assert_msg(st.mbm_paths >= 1 && st.mbm_paths <= 500 &&
		      (cut || st.mbm_paths == st.npaths), "%s: MBM over %u",
		      what, st.mbm_paths);
	if (cut || st.paths_passes > 1) {
		po.k = st.mbm_paths;
		synth_graph_load(s, &t, &tp);
		ck_assert_msg(cp_profile_compute(&p, &tp, &po, err,
						 sizeof(err)) == 0, "%s", err);
		for (uint32_t i = 0; i < st.nprocs; i++) {
			const struct cp_stream_proc *sp = &st.procs[i];
			const struct cp_proc_prof *mp = find_proc(&p, sp->name);

			ck_assert_msg(!sp->has_mbm || !mp->computed ||
				      sp->mbm_ns == mp->mbm_ns,
				      "%s: %s MBM over %u cut paths %" PRIu64
				      " streamed, %" PRIu64 " in memory", what,
				      sp->name, st.mbm_paths, sp->mbm_ns,
				      mp->mbm_ns);
		}
		cp_profile_free(&p);
		synth_graph_free(&t, &tp);
	}
	cp_stream_free(&st);
	cp_tindex_close(&ix);
	unlink(path);
	return cut;
}

/* The random program's state: objects and what each thread has open. */
struct gen {
	struct synth *s;
	uint32_t n;			/* worker threads T1..Tn */
	uint32_t m, rw, bar, cond, sem;
	uint64_t posts[4096];		/* semaphore posts not yet taken */
	uint32_t nposts;
	uint64_t sigs[8];		/* the latest condition signals */
	uint32_t nsigs;
	uint64_t open[SYNTH_MAXT][32];	/* 0: ENTER, else region id */
	uint32_t depth[SYNTH_MAXT];
};

static uint64_t proc_addr(uint64_t i)
{
	return 0x1000 + 0x100 * i;
}

/* The random traces' procedures, proc0 .. proc<NPROC-1>. */
static void gen_symbols(struct synth *s)
{
	for (uint32_t i = 0; i < NPROC; i++) {
		char name[16];

		snprintf(name, sizeof(name), "proc%u", i);
		synth_symbol(s, proc_addr(i), 0x10, name);
	}
}

/* Open or close a procedure or region of T@tid, or make a call. */
static void gen_calls(struct gen *g, uint32_t tid)
{
	struct synth *s = g->s;
	uint32_t *d = &g->depth[tid];
	uint64_t r = rnd(6);

	if (r == 0 && *d < 32) {
		g->open[tid][(*d)++] = 0;
		synth_enter(s, tid, dur(), proc_addr(rnd(NPROC)));
	} else if (r == 1 && *d < 32) {
		uint32_t id = 1 + (uint32_t)rnd(2);

		g->open[tid][(*d)++] = id;
		synth_region_begin(s, tid, dur(), id);
	} else if (r == 2 && *d) {
		uint32_t j = *d;

		while (j > 0 && g->open[tid][j - 1])
			j--;
		if (j) {	/* an ENTER is open: LEAVE closes to it */
			*d = j - 1;
			synth_leave(s, tid, dur());
		}
	} else if (r == 3 && *d && g->open[tid][*d - 1]) {
		synth_region_end(s, tid, dur(), (uint32_t)g->open[tid][--*d]);
	} else {
		synth_call(s, tid, proc_addr(rnd(NPROC)), dur());
	}
}

/* A semaphore post, or a wait taking a post (the oldest, or any). */
static void gen_sem(struct gen *g, uint32_t tid)
{
	uint32_t i;

	if (rnd(2) && g->nposts < 4096) {
		g->posts[g->nposts++] = synth_publish(g->s, tid, dur(), g->sem);
		return;
	}
	if (!g->nposts) {	/* an initial token */
		synth_consume(g->s, tid, dur(), false, g->sem, 0, 0);
		return;
	}
	i = rnd(3) ? 0 : (uint32_t)rnd(g->nposts);
	synth_consume(g->s, tid, dur(), rnd(2), g->sem, g->posts[i], 1);
	g->posts[i] = g->posts[--g->nposts];
}

/* A broadcast woken by some threads, each taking one of the latest. */
static void gen_cond(struct gen *g, uint32_t tid)
{
	g->sigs[g->nsigs++ % 8] = synth_publish(g->s, tid, dur(), g->cond);
	for (uint32_t w = 1; w <= g->n; w++) {
		uint32_t k = g->nsigs < 8 ? g->nsigs : 8;

		if (w != tid && rnd(2))
			synth_consume(g->s, w, dur(), true, g->cond,
				      g->sigs[rnd(k)], 1);
	}
}

/* One operation of a random thread. */
static void gen_op(struct gen *g)
{
	struct synth *s = g->s;
	uint32_t tid = 1 + (uint32_t)rnd(g->n);
	uint64_t r = rnd(100);

	if (r < 30) {
		gen_calls(g, tid);
	} else if (r < 45) {
		synth_lock(s, tid, dur(), rnd(2) ? dur() : 0, g->m);
		synth_call(s, tid, proc_addr(NPROC - 1), dur());
		synth_unlock(s, tid, dur(), g->m);
	} else if (r < 55) {
		if (rnd(3))
			synth_rdlock(s, tid, dur(), rnd(2) ? dur() : 0, g->rw);
		else
			synth_wrlock(s, tid, dur(), rnd(2) ? dur() : 0, g->rw);
		synth_call(s, tid, proc_addr(rnd(NPROC)), dur());
		synth_rwunlock(s, tid, dur(), g->rw);
	} else if (r < 70) {
		gen_sem(g, tid);
	} else if (r < 78) {
		gen_cond(g, tid);
	} else if (r < 82) {
		for (uint32_t w = 1; w <= g->n; w++)
			synth_barrier(s, w, dur(), dur(), g->bar);
	} else {
		synth_vertex(s, tid, CP_EV_SAMPLE, false, dur(), 0, 0, 0);
	}
}

/* A random trace of @n workers and @ops operations into @s. */
static void gen_trace(struct synth *s, uint32_t n, uint32_t ops, bool hasw)
{
	static struct gen g;

	memset(&g, 0, sizeof(g));
	synth_init(s);
	s->hasw = hasw;
	s->block_events = 50 + (uint32_t)rnd(500);
	g.s = s;
	g.n = n;
	gen_symbols(s);
	synth_string(s, 1, "phase_a");
	synth_string(s, 2, "phase_b");
	synth_start(s, 0, -1);
	g.m = synth_obj(s, 0, CP_OBJ_MUTEX, 0);
	g.rw = synth_obj(s, 0, CP_OBJ_RWLOCK, 0);
	g.bar = synth_obj(s, 0, CP_OBJ_BARRIER, n);
	g.cond = synth_obj(s, 0, CP_OBJ_COND, 0);
	g.sem = synth_obj(s, 0, CP_OBJ_SEM, 0);
	synth_spawn(s, n);
	for (uint32_t i = 0; i < ops; i++)
		gen_op(&g);
	for (uint32_t w = 1; w <= n; w++)
		synth_exit(s, w, dur());
	synth_join_all(s, n, dur());
}

/*
 * CPU-time samples on every thread of the random trace @s: @per of them
 * at increasing positions over the thread's clock (some past its end,
 * some before its start), stacks of one to three of the trace's
 * procedures (a leaf address inside one, callers' return addresses).
 */
static void gen_samples(struct synth *s, uint32_t per)
{
	synth_random_samples(s, &rng_state, per, NPROC);
}

/*
 * Sampled procedures: random traces with samples on every thread, the
 * procedures taken from the samples (ENTER/LEAVE and regions dropped):
 * the stacks' CPU and CP time, zeroing, sample counts on and off the
 * path, thread and object figures are the in-memory ones (cp_sampled.c's
 * rewrite), inclusive and exclusive, and so is the fixed-graph what-if
 * (a segment a switch splits is scaled piece by piece, as in memory).
 */
START_TEST(test_stream_sampled_equals_memory)
{
	for (int round = 0; round < 30; round++) {
		struct synth s;
		char what[32];

		rng_state = 3000 + (uint64_t)round;
		gen_trace(&s, 1 + (uint32_t)rnd(5),
			  50 + (uint32_t)rnd(round < 25 ? 400 : 3000),
			  round % 2);
		gen_samples(&s, 5 + (uint32_t)rnd(round < 25 ? 50 : 400));
		snprintf(what, sizeof(what), "sampled round %d", round);
		compare_src(&s, true, false, true, what);
		compare_src(&s, true, true, true, what);
		compare_whatif_src(&s, false, true, what);
		compare_whatif_src(&s, true, true, what);
		synth_free(&s);
	}
}
END_TEST

static void compare_streams(const struct cp_stream *a,
			    const struct cp_stream *b, const char *what);

/* compare_streams(@a, @b), then both streams freed and their indexes
 * (@ia, @ib) closed. */
static void compare_closed(struct cp_tindex *ia, struct cp_stream *a,
			   struct cp_tindex *ib, struct cp_stream *b,
			   const char *what)
{
	compare_streams(a, b, what);
	cp_stream_free(a);
	cp_stream_free(b);
	cp_tindex_close(ia);
	cp_tindex_close(ib);
}

/* Take @s's procedure events (ENTER, LEAVE, regions) out. */
static void drop_proc_events(struct synth *s)
{
	for (uint32_t tid = 0; tid < SYNTH_MAXT; tid++) {
		struct synth_thread *t = &s->t[tid];
		size_t n = 0;

		for (size_t i = 0; i < t->n; i++) {
			unsigned k = t->ev[i].op & CP_EV_KIND_MASK;

			if (k < CP_EV_ENTER || k > CP_EV_REGION_END)
				t->ev[n++] = t->ev[i];
		}
		t->n = n;
	}
}

/*
 * The procedures' source left to the trace (CP_STREAM_SRC_AUTO), with
 * the samples symbolized beside the survey (every pass on two threads):
 * random traces with samples take their procedure events, the stacks
 * then dropped, and give what CP_STREAM_SRC_INSTRUMENTED gives; without
 * their procedure events they take the samples, as
 * CP_STREAM_SRC_SAMPLED does.
 */
START_TEST(test_stream_auto_source_symbolized_beside)
{
	size_t old = cp_par_set_threshold(0);

	for (int round = 0; round < 12; round++) {
		struct synth s;
		struct cp_tindex ia, ib;
		struct cp_stream a, b;
		char path[64], what[48];
		bool bare = round % 2;
		struct cp_stream_opts so = {
			.symbolize = symbolize, .src = CP_STREAM_SRC_AUTO,
			.mbm_k = CP_PROFILE_K_DEFAULT, .slack = true,
			.exclusive = round / 2 % 2,
		};

		rng_state = 3500 + (uint64_t)round;
		gen_trace(&s, 1 + (uint32_t)rnd(5), 100 + (uint32_t)rnd(1500),
			  round % 3 == 0);
		gen_samples(&s, 5 + (uint32_t)rnd(200));
		if (bare)
			drop_proc_events(&s);
		snprintf(what, sizeof(what), "auto round %d (%s)", round,
			 bare ? "samples only" : "instrumented");
		write_temp(&s, path);
		stream_with(path, &ia, &a, &so);
		so.src = bare ? CP_STREAM_SRC_SAMPLED :
				CP_STREAM_SRC_INSTRUMENTED;
		stream_with(path, &ib, &b, &so);
		ck_assert_msg(a.sampled == bare && b.sampled == bare,
			      "%s: sampled %d and %d", what, a.sampled,
			      b.sampled);
		ck_assert_msg(a.nprocs > 0, "%s: no procedure", what);
		compare_closed(&ia, &a, &ib, &b, what);
		unlink(path);
		synth_free(&s);
	}
	cp_par_set_threshold(old);
}
END_TEST

static void cut_rounds(int n, uint64_t seed);
static void gen_tasks(struct synth *s, uint32_t n, uint32_t alive,
		      uint32_t lost);

/* Every thread's cursor read to its end with the prefetcher @pf,
 * peeking ahead of every vertex (test_stream_cursor_peek). */
struct peek_run {
	struct cp_tindex *ix;
	struct cp_tprefetch *pf;
	const struct cp_tev *all;	/* the vertices, each thread's read
					 * alone, thread after thread */
	const uint64_t *off;		/* [nthreads + 1] a thread's in all */
	uint64_t seen, wrong;		/* peeks that gave a vertex, and of
					 * them not the one read later */
};

static void peek_job(void *arg)
{
	struct peek_run *r = arg;

	/* the helper's room filled first: a block the helper has not begun
	 * when the cursor comes is read by the cursor (no peek) */
	nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	for (uint32_t tid = 0; tid < r->ix->t.nthreads; tid++) {
		const struct cp_tev *all = r->all + r->off[tid];
		uint64_t n = r->off[tid + 1] - r->off[tid], wall, i = 0;
		struct cp_tcursor c;
		struct cp_tev v;

		cp_tcursor_init(&c, r->ix, tid, false);
		c.pf = r->pf;
		for (; cp_tcursor_next(&c, &v, &wall); i++) {
			for (uint32_t k = 1; k <= 40; k++) {
				const struct cp_tev *q = cp_tcursor_peek(&c, k);

				if (!q)
					continue;
				r->seen++;
				r->wrong += i + k >= n ||
					    q->ts != all[i + k].ts ||
					    q->op != all[i + k].op ||
					    q->obj != all[i + k].obj ||
					    q->arg != all[i + k].arg ||
					    q->cnt != all[i + k].cnt;
			}
		}
		cp_tcursor_fini(&c);
	}
	if (r->pf)
		cp_tpf_stop(r->pf);
}

/*
 * cp_tcursor_peek (the records pass's lookahead, cp_stream.c): with the
 * blocks decoded ahead, the vertex k ahead of the one just read is the
 * one the cursor returns k reads later; past the decoded block, none;
 * without the prefetcher, none.  Random traces in blocks of 5 to 44
 * events (all within the helper's room), read once by cursors alone and
 * once with the prefetcher.
 */
START_TEST(test_stream_cursor_peek)
{
	size_t old = cp_par_set_threshold(0);
	uint64_t seen = 0;

	for (int round = 0; round < 6; round++) {
		struct synth s;
		struct cp_tindex ix;
		struct cp_tev *all;
		uint64_t *off;
		struct peek_run r;
		char path[64], err[256] = "";

		rng_state = 9500 + (uint64_t)round;
		gen_trace(&s, 1 + (uint32_t)rnd(4), 300 + (uint32_t)rnd(2000),
			  round % 2);
		s.block_events = 5 + (uint32_t)rnd(40);
		write_temp(&s, path);
		ck_assert_msg(cp_tindex_open(&ix, path, err, sizeof(err)) == 0,
			      "index: %s", err);
		all = malloc((ix.t.nevents + 1) * sizeof(*all));
		off = calloc(ix.t.nthreads + 1, sizeof(*off));
		ck_assert(all && off);
		for (uint32_t tid = 0; tid < ix.t.nthreads; tid++) {
			struct cp_tcursor c;
			uint64_t wall, n = off[tid];

			cp_tcursor_init(&c, &ix, tid, false);
			while (cp_tcursor_next(&c, &all[n], &wall)) {
				ck_assert(!cp_tcursor_peek(&c, 1));
				ck_assert(++n <= ix.t.nevents);
			}
			cp_tcursor_fini(&c);
			off[tid + 1] = n;
		}
		r = (struct peek_run){ .ix = &ix, .all = all, .off = off,
				       .pf = cp_tpf_new(&ix) };
		ck_assert(r.pf);
		cp_par_two(ix.t.nevents, peek_job, &r, cp_tpf_run, r.pf);
		cp_tpf_free(r.pf);
		ck_assert_msg(r.wrong == 0, "round %d: %" PRIu64 " of %" PRIu64
			      " peeks wrong", round, r.wrong, r.seen);
		seen += r.seen;
		free(all);
		free(off);
		cp_tindex_close(&ix);
		unlink(path);
		synth_free(&s);
	}
	ck_assert_msg(seen >= 1000, "%" PRIu64 " peeks gave a vertex", seen);
	cp_par_set_threshold(old);
}
END_TEST

/*
 * Blocks decoded ahead on a second thread (cp_tcursor.h's prefetcher,
 * which cp_par_two runs for large traces only: the threshold lowered to
 * 0 here): random traces of many small blocks, with samples and metadata,
 * whole and cut (the helper leaves a block with a repair to the cursor),
 * and threads per task, give exactly what the cursors alone give, and the
 * in-memory figures.  The helper reads the file a window at a time, and
 * so does the busy sweep's (cp_tcursor_ahead_new): here the whole file, a
 * few blocks, or less than one block (which it then reads alone), by
 * round; and the helper sleeps while its room is full: here the
 * default room, two blocks, or 16 vertices, by three rounds.
 */
START_TEST(test_stream_prefetch_equals_memory)
{
	static const size_t windows[] = { 1u << 20, 700, 40 };
	static const uint32_t rooms[][2] = {
		{ CP_TPF_AHEAD, CP_TPF_AHEAD_V }, { 2, CP_TPF_AHEAD_V },
		{ CP_TPF_AHEAD, 16 },
	};
	size_t old = cp_par_set_threshold(0);
	size_t old_win = cp_tpf_set_window(windows[0]);

	for (int round = 0; round < 24; round++) {
		struct synth s;
		char what[32];

		rng_state = 9000 + (uint64_t)round;
		cp_tpf_set_window(windows[round % 3]);
		cp_tpf_set_room(rooms[round / 3 % 3][0],
				rooms[round / 3 % 3][1]);
		if (round < 20) {
			gen_trace(&s, 1 + (uint32_t)rnd(6),
				  200 + (uint32_t)rnd(2000), round % 2);
			s.block_events = 5 + (uint32_t)rnd(40);
			gen_samples(&s, 5 + (uint32_t)rnd(100));
		} else {
			gen_tasks(&s, 200, 1 + (uint32_t)rnd(4),
				  round % 2 ? 5 : 0);
		}
		snprintf(what, sizeof(what), "prefetch round %d", round);
		compare(&s, true, what);
		compare_src(&s, true, round % 3 == 0, round < 20, what);
		synth_free(&s);
	}
	cp_tpf_set_room(CP_TPF_AHEAD, CP_TPF_AHEAD_V);
	cp_tpf_set_window(windows[0]);
	cut_rounds(20, 7000);
	cp_tpf_set_window(windows[2]);
	cut_rounds(10, 7100);
	cp_tpf_set_window(old_win);
	cp_par_set_threshold(old);
}
END_TEST

/* Random traces of every primitive: both analyses agree exactly, and so
 * do both what-if fixed-graph predictions. */
START_TEST(test_stream_random_equals_memory)
{
	for (int round = 0; round < 60; round++) {
		struct synth s;
		char what[32];

		rng_state = 1000 + (uint64_t)round;
		gen_trace(&s, 1 + (uint32_t)rnd(6),
			  50 + (uint32_t)rnd(round < 50 ? 400 : 4000),
			  round % 2);
		snprintf(what, sizeof(what), "round %d", round);
		compare(&s, true, what);
		compare_mode(&s, true, true, what);	/* exclusive */
		compare_whatif(&s, false, what);
		compare_whatif(&s, true, what);
		synth_free(&s);
	}
	/* the busy share was compared on some of them */
	ck_assert_msg(n_underrated >= 5, "%u headlines of an underrated "
		      "procedure", n_underrated);
	/* and most records passes left share lanes out of some records */
	ck_assert_msg(n_thin >= 60, "%u comparisons with thin records",
		      n_thin);
}
END_TEST

/* Every figure of two streamed analyses of one trace is the same. */
static void compare_streams(const struct cp_stream *a,
			    const struct cp_stream *b, const char *what)
{
	ck_assert_msg(a->cp_len == b->cp_len && a->nprocs == b->nprocs &&
		      a->nobjs == b->nobjs && a->mbm_paths == b->mbm_paths &&
		      a->cp_samples == b->cp_samples &&
		      a->scaled_ns == b->scaled_ns,
		      "%s: CP %" PRIu64 "/%" PRIu64, what, a->cp_len,
		      b->cp_len);
	for (uint32_t i = 0; i < a->nprocs; i++) {
		const struct cp_stream_proc *x = &a->procs[i], *y = &b->procs[i];

		ck_assert_msg(!strcmp(x->name, y->name) &&
			      x->cp_ns == y->cp_ns &&
			      x->cp_incl_ns == y->cp_incl_ns &&
			      x->cp_excl_ns == y->cp_excl_ns &&
			      x->zero_ns == y->zero_ns &&
			      x->cp_samples == y->cp_samples &&
			      x->slack_ns == y->slack_ns &&
			      x->mbm_ns == y->mbm_ns,
			      "%s: %s CP %" PRIu64 "/%" PRIu64 " zeroing %"
			      PRIu64 "/%" PRIu64 " Slack %" PRIu64 "/%" PRIu64
			      " MBM %" PRIu64 "/%" PRIu64, what, x->name,
			      x->cp_ns, y->cp_ns, x->zero_ns, y->zero_ns,
			      x->slack_ns, y->slack_ns, x->mbm_ns, y->mbm_ns);
	}
	for (uint32_t i = 0; i < a->nobjs; i++)
		ck_assert_msg(a->objs[i].cp_held_ns == b->objs[i].cp_held_ns &&
			      a->objs[i].cp_cross == b->objs[i].cp_cross,
			      "%s: object %u CP held %" PRIu64 "/%" PRIu64,
			      what, a->objs[i].obj, a->objs[i].cp_held_ns,
			      b->objs[i].cp_held_ns);
	for (uint32_t i = 0; i < a->nthreads_all; i++)
		ck_assert_msg(a->threads[i].cp_ns == b->threads[i].cp_ns,
			      "%s: T%u CP time %" PRIu64 "/%" PRIu64, what, i,
			      a->threads[i].cp_ns, b->threads[i].cp_ns);
}

/*
 * A records pass that meets a record without the share lanes a merge
 * takes runs again with every record whole: with the paths pass made to
 * mark none, the first such merge spoils the thin pass, and the figures
 * (the objects', threads' and samples' lanes read at those merges
 * among them) are those of the pass with the marks, on random traces of
 * every primitive (folds and hubs included), sampled or not.
 */
START_TEST(test_stream_thin_records_run_again)
{
	unsigned again = 0;

	for (int round = 0; round < 24; round++) {
		struct synth s;
		struct cp_tindex ia, ib;
		struct cp_stream a, b;
		char path[64], what[32];
		bool sampled = round % 3 == 2;
		struct cp_stream_opts so = {
			.symbolize = symbolize,
			.src = sampled ? CP_STREAM_SRC_SAMPLED :
					 CP_STREAM_SRC_INSTRUMENTED,
			.mbm_k = CP_PROFILE_K_DEFAULT, .slack = true,
			.exclusive = round % 2,
		};

		rng_state = 5000 + (uint64_t)round;
		gen_trace(&s, 2 + (uint32_t)rnd(5),
			  100 + (uint32_t)rnd(1500), round % 2);
		if (sampled)
			gen_samples(&s, 5 + (uint32_t)rnd(200));
		snprintf(what, sizeof(what), "round %d", round);
		write_temp(&s, path);
		stream_with(path, &ia, &a, &so);
		so.thin_unmarked = true;
		stream_with(path, &ib, &b, &so);
		ck_assert_msg(a.thin_reruns == 0 && b.thin_reruns <= 1,
			      "%s: ran again %u and %u times", what,
			      a.thin_reruns, b.thin_reruns);
		ck_assert_msg(!b.thin_reruns || !b.thin_records,
			      "%s: thin records after running again", what);
		again += b.thin_reruns;
		compare_closed(&ia, &a, &ib, &b, what);
		unlink(path);
		synth_free(&s);
	}
	ck_assert_msg(again >= 20, "%u of 24 ran again", again);
}
END_TEST


/* Procedure @name of the streamed @st has CP time @cp and Slack @slack. */
static void assert_slack(const struct cp_stream *st, const char *name,
			 uint64_t cp, uint64_t slack)
{
	for (uint32_t i = 0; i < st->nprocs; i++) {
		const struct cp_stream_proc *pr = &st->procs[i];

		if (strcmp(pr->name, name))
			continue;
		ck_assert_msg(pr->cp_ns == cp && pr->has_slack &&
			      pr->slack_ns == slack,
			      "%s: CP %" PRIu64 ", Slack %" PRIu64, name,
			      pr->cp_ns, pr->slack_ns);
		return;
	}
	ck_abort_msg("no procedure %s", name);
}

/*
 * Threads never joined: their ends reach the program's end only through
 * the virtual end (a thread slot starts at A = 0; the end's own segment,
 * on the staircase, is matched here by the thread's edge segment and
 * decides nothing: no test pins it).  By hand: T0 creates T1, T2 and T3,
 * never joins them, runs a for 100 and exits; T1 works 90, T2 40 and T3
 * 95, each then exits.  The critical path is T0's 100; a can shrink by 5
 * before T3's end binds (T1's at 10 and T2's at 60 would allow more).
 */
START_TEST(test_stream_slack_detached_ends)
{
	struct synth s;
	struct cp_tindex ix;
	struct cp_stream st;
	char path[64];

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "a");
	synth_start(&s, 0, -1);
	for (uint32_t t = 1; t <= 3; t++) {
		synth_create(&s, 0, 0, t);
		synth_start(&s, t, 0);
	}
	synth_call(&s, 0, 0x100, 100);
	synth_exit(&s, 0, 0);
	synth_exit(&s, 1, 90);
	synth_exit(&s, 2, 40);
	synth_exit(&s, 3, 95);
	compare(&s, true, "detached ends");
	write_temp(&s, path);
	stream_file(path, &ix, &st);
	ck_assert_uint_eq(st.cp_len, 100);
	assert_slack(&st, "a", 100, 5);
	cp_stream_free(&st);
	cp_tindex_close(&ix);
	unlink(path);
	synth_free(&s);
}
END_TEST

/*
 * A thread per task: T0 makes @n tasks, one after another, joining each
 * once @alive more were made, but every third, which it never joins (a
 * detached thread: its end reaches the program's only through the
 * virtual end); a task calls a procedure, takes the shared mutex and
 * calls another inside.  Slack's walk meets a thread at its
 * JOIN and gives its slot back at its start, and the busy sweep drops the
 * threads whose lives it passed (cp_stream_busy.c), so many threads come
 * and go through a few slots.  With @lost, every @lost-th task's CREATE
 * is missing (a damaged trace): its START waits for nothing the trace
 * holds, so the pass reads it only once every other thread is done or
 * blocked (cp_stream.c's unborn_to_blocked()).
 */
static void gen_tasks(struct synth *s, uint32_t n, uint32_t alive,
		      uint32_t lost)
{
	uint32_t m;

	synth_init(s);
	gen_symbols(s);
	synth_start(s, 0, -1);
	m = synth_obj(s, 0, CP_OBJ_MUTEX, 0);
	for (uint32_t t = 1; t <= n; t++) {
		if (!lost || t % lost)
			synth_create(s, 0, dur(), t);
		synth_start(s, t, 0);
		synth_call(s, t, proc_addr(rnd(NPROC)), dur());
		synth_lock(s, t, dur(), rnd(2) ? dur() : 0, m);
		synth_call(s, t, proc_addr(rnd(NPROC)), dur());
		synth_unlock(s, t, dur(), m);
		synth_exit(s, t, dur());
		if (t > alive && (t - alive) % 3)
			synth_join(s, 0, dur(), rnd(2), t - alive);
	}
	for (uint32_t t = n > alive ? n - alive + 1 : 1; t <= n; t++)
		if (t % 3)
			synth_join(s, 0, dur(), true, t);
	synth_exit(s, 0, dur());
}

/*
 * Many threads: random traces of 20 to 80 workers, all alive at the end
 * (Slack's walk meets them all at once, past the slots it starts with),
 * and a thread per task (400 tasks, a few alive at a time; in the last
 * round every seventh task's CREATE lost): the figures, Slack and the
 * headline's busy share are the in-memory ones.
 */
START_TEST(test_stream_many_threads_equal_memory)
{
	for (int round = 0; round < 7; round++) {
		struct synth s;
		char what[40];

		rng_state = 9100 + (uint64_t)round;
		if (round < 4)
			gen_trace(&s, 20 + (uint32_t)rnd(60),
				  200 + (uint32_t)rnd(800), round % 2);
		else
			gen_tasks(&s, 400, 1 + (uint32_t)rnd(6),
				  round == 6 ? 7 : 0);
		snprintf(what, sizeof(what), "many threads, round %d", round);
		compare(&s, true, what);
		compare_mode(&s, true, true, what);	/* exclusive */
		synth_free(&s);
	}
}
END_TEST

/*
 * Slack streamed where two procedures have the same CP time: the walk
 * back shares one walk between their lanes and parts them at the first
 * C edge only one of them holds (cp_stream_slack.c's split()).  By hand:
 * T1 runs a for 300 and T2 100 before a barrier, then T2 runs b for 300
 * and T1 10 before they end.  The critical path, a then b, is 600; a can
 * shrink by 200 before T2's arrival binds, b by 290 before T1's end
 * (310) does.  The in-memory analysis agrees on everything.
 */
START_TEST(test_stream_slack_equal_cp_times)
{
	struct synth s;
	struct cp_tindex ix;
	struct cp_stream st;
	char path[64];
	uint32_t b;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "a");
	synth_symbol(&s, 0x200, 0x10, "b");
	synth_start(&s, 0, -1);
	b = synth_obj(&s, 0, CP_OBJ_BARRIER, 2);
	synth_spawn(&s, 2);
	synth_call(&s, 1, 0x100, 300);
	synth_barrier(&s, 1, 0, 0, b);
	synth_barrier(&s, 2, 100, 200, b);
	synth_call(&s, 2, 0x200, 300);
	synth_exit(&s, 2, 0);
	synth_exit(&s, 1, 10);
	synth_join_all(&s, 2, 0);
	compare(&s, true, "equal CP times");
	write_temp(&s, path);
	stream_file(path, &ix, &st);
	ck_assert_uint_eq(st.cp_len, 600);
	assert_slack(&st, "a", 300, 200);
	assert_slack(&st, "b", 300, 290);
	cp_stream_free(&st);
	cp_tindex_close(&ix);
	unlink(path);
	synth_free(&s);
}
END_TEST

/*
 * Slack streamed where procedures of different CP times hold the same
 * share of C's last edges: a walk's lanes start as one, led by the lane
 * of the most CP time (cp_stream_slack.c's split()), and one whose CP
 * time runs out while it still shares the walk keeps the d it had then,
 * not its leader's.  By hand: T0 runs main; in it, phase runs 50 of its
 * own, T0 creates T1, and phase calls kernel for 100; then tail runs 90
 * and T0 joins T1, which ran kernel for 150.  The critical path is T0's
 * 240: main 240, phase 150, kernel 100, tail 90; by CPU time kernel
 * (250) comes first, and the two walks get kernel and phase, main and
 * tail.  Walked back, phase and kernel share tail's edge (none) and
 * kernel's (all of it), where kernel's time runs out.  Between the fork
 * and the join T1's 150 binds C's 190: kernel and tail can shrink by 40;
 * phase and main by that and the 50 before the fork, 90.
 */
START_TEST(test_stream_slack_shared_walk_ends)
{
	struct synth s;
	struct cp_tindex ix;
	struct cp_stream st;
	char path[64];

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "main");
	synth_symbol(&s, 0x200, 0x10, "phase");
	synth_symbol(&s, 0x300, 0x10, "kernel");
	synth_symbol(&s, 0x400, 0x10, "tail");
	synth_start(&s, 0, -1);
	synth_enter(&s, 0, 0, 0x100);
	synth_enter(&s, 0, 0, 0x200);
	synth_create(&s, 0, 50, 1);
	synth_start(&s, 1, 0);
	synth_call(&s, 0, 0x300, 100);
	synth_leave(&s, 0, 0);
	synth_call(&s, 0, 0x400, 90);
	synth_call(&s, 1, 0x300, 150);
	synth_exit(&s, 1, 0);
	synth_join(&s, 0, 0, false, 1);
	synth_leave(&s, 0, 0);
	synth_exit(&s, 0, 0);
	compare(&s, true, "shared walk ends");
	write_temp(&s, path);
	stream_file(path, &ix, &st);
	ck_assert_uint_eq(st.cp_len, 240);
	assert_slack(&st, "main", 240, 90);
	assert_slack(&st, "phase", 150, 90);
	assert_slack(&st, "kernel", 100, 40);
	assert_slack(&st, "tail", 90, 40);
	cp_stream_free(&st);
	cp_tindex_close(&ix);
	unlink(path);
	synth_free(&s);
}
END_TEST

/*
 * A trace without procedures (three threads taking a mutex in turn for
 * random lengths): with no lane, the report's streamed analysis makes no
 * Slack file and no MBM capture pass, and its paths, which MBM would be
 * over, are those of the paths alone (and of memory's k paths).
 */
START_TEST(test_stream_no_procedure)
{
	struct cp_stream_opts so = {
		.mbm_k = CP_PROFILE_K_DEFAULT, .slack = true,
		.headline = cp_stream_prof_headline,
	};
	struct synth s;
	struct cp_tindex ix;
	struct cp_stream st;
	char path[64];
	uint32_t m, n;

	rng_state = 4242;
	synth_init(&s);
	synth_start(&s, 0, -1);
	m = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	synth_spawn(&s, 3);
	for (int i = 0; i < 300; i++) {
		uint32_t tid = 1 + (uint32_t)rnd(3);

		synth_lock(&s, tid, dur(), rnd(2) ? dur() : 0, m);
		synth_unlock(&s, tid, dur(), m);
	}
	for (uint32_t tid = 1; tid <= 3; tid++)
		synth_exit(&s, tid, dur());
	synth_join_all(&s, 3, 0);
	n = compare_paths(&s, CP_PROFILE_K_DEFAULT, 0, 0, "no procedure");
	write_temp(&s, path);
	stream_with(path, &ix, &st, &so);
	ck_assert_uint_eq(st.nprocs, 0);
	ck_assert_int_eq(st.slack_err, 0);
	ck_assert_uint_eq(st.slack_bytes, 0);
	ck_assert(st.slack_asked);
	ck_assert_uint_gt(n, 1);
	ck_assert_uint_eq(st.npaths, n);
	ck_assert_uint_eq(st.mbm_paths, n);
	ck_assert_uint_eq(st.paths_passes, 1);
	cp_stream_free(&st);
	cp_tindex_close(&ix);
	unlink(path);
	synth_free(&s);
}
END_TEST

/*
 * The k longest paths of the streaming pass (cp_stream_kp.c) are the
 * in-memory ones on random traces of every primitive, for k from 1 to
 * more paths than some traces have; with the heaps' cap at a few hundred
 * nodes, a prefix of them, said to be cut when shorter than asked, and
 * the MBM over that prefix is the in-memory MBM over as many paths.
 */
START_TEST(test_stream_paths_equal_memory)
{
	uint32_t cut = 0, mbm_cut = 0;

	for (int round = 0; round < 40; round++) {
		struct synth s;
		char what[32];
		uint32_t ks[] = { 1, 2, 10, 200, 3000 };

		rng_state = 11000 + (uint64_t)round;
		gen_trace(&s, 1 + (uint32_t)rnd(5),
			  20 + (uint32_t)rnd(round < 30 ? 300 : 3000),
			  round % 2);
		snprintf(what, sizeof(what), "paths round %d", round);
		for (int i = 0; i < 5; i++)
			compare_paths(&s, ks[i], 0, 0, what);
		if (compare_paths(&s, 500, 300, 0, what) < 500)
			cut++;
		/* the room grown to 64 x 300 nodes: never cut here */
		compare_paths(&s, 500, 300, 64 * 300, what);
		if (compare_mbm_cut(&s, 300, 0, what))
			mbm_cut++;
		ck_assert(!compare_mbm_cut(&s, 300, 64 * 300, what));
		synth_free(&s);
	}
	ck_assert_msg(cut > 0 && mbm_cut > 0 && n_retried > 0,
		      "the small cap never cut the paths (%u) or the MBM's "
		      "(%u), or the room did not grow (%u)", cut, mbm_cut,
		      n_retried);
}
END_TEST

/*
 * Round @round of the random traces seeded from @seed, cut at a random
 * byte: the cut parsed into @t and built into @tp in memory, and written
 * to @path for the streaming pass.
 */
static void cut_trace(uint64_t seed, int round, struct cp_trace *t,
		      struct cp_tracepag *tp, char *path)
{
	struct synth s;
	char err[256] = "";
	uint8_t *buf;
	size_t len, cut;

	rng_state = seed + (uint64_t)round;
	gen_trace(&s, 2 + (uint32_t)rnd(4), 300 + (uint32_t)rnd(600),
		  round % 2);
	len = synth_encode(&s, &buf);
	cut = len / 3 + rnd(len / 2);
	ck_assert_msg(cp_trace_parse(t, "cut.cpt", buf, cut, err,
				     sizeof(err)) == 0, "parse: %s", err);
	ck_assert_msg(cp_tracepag_build(tp, t, err, sizeof(err)) == 0,
		      "build: %s", err);
	write_cut(buf, cut, path);
	free(buf);
	synth_free(&s);
}

/*
 * Cut traces (a run killed mid-way: no END block, a block torn): the
 * in-memory reader repairs what the cut leaves dangling (a CONSUME whose
 * PUBLISH is lost depends on nothing, a JOIN of a thread without its exit
 * takes its last event); the streaming pass, which meets the same holes
 * as threads blocked for good, gives the same critical path and zeroing.
 * @n rounds, the random traces seeded from @seed.
 */
static void cut_rounds(int n, uint64_t seed)
{
	for (int round = 0; round < n; round++) {
		struct cp_profile_opts po = { .top = 0 };
		struct cp_trace t;
		struct cp_tracepag tp;
		struct cp_profile p;
		struct cp_tindex ix;
		struct cp_stream st;
		char path[64], err[256] = "";

		cut_trace(seed, round, &t, &tp, path);
		ck_assert_msg(cp_profile_compute(&p, &tp, &po, err,
						 sizeof(err)) == 0, "%s", err);
		stream_file(path, &ix, &st);
		ck_assert_msg(ix.t.partial && st.cp_len == p.cp_len,
			      "round %d: CP %" PRIu64 " streamed, %" PRIu64
			      " in memory", round, st.cp_len, p.cp_len);
		for (uint32_t i = 0; i < st.nprocs; i++) {
			const struct cp_proc_prof *mp =
				find_proc(&p, st.procs[i].name);

			ck_assert_msg(mp && mp->zero_ns == st.procs[i].zero_ns,
				      "round %d: %s zeroing", round,
				      st.procs[i].name);
			ck_assert_msg(mp->slack_ns == st.procs[i].slack_ns,
				      "round %d: %s Slack %" PRIu64 " streamed, %"
				      PRIu64 " in memory (CP %" PRIu64 "/%"
				      PRIu64 ")", round, st.procs[i].name,
				      st.procs[i].slack_ns, mp->slack_ns,
				      st.procs[i].cp_ns, mp->cp_ns);
		}
		compare_objects(&st, &p, false, "cut trace");
		cp_stream_free(&st);
		cp_tindex_close(&ix);
		cp_profile_free(&p);
		synth_graph_free(&t, &tp);
		unlink(path);
	}
}

START_TEST(test_stream_cut_traces_equal_memory)
{
	cut_rounds(30, 5000);
}
END_TEST

/*
 * The streamed k longest paths of cut traces: the in-memory graph of the
 * cut (what the reader repairs) and the streaming pass (its census) give
 * the same lengths, k = 1 to 500.
 */
START_TEST(test_stream_paths_cut_traces)
{
	for (int round = 0; round < 20; round++) {
		struct cp_stream_opts so = { .lengths_only = true };
		struct cp_trace t;
		struct cp_tracepag tp;
		struct cp_cpm cpm;
		struct cp_kpaths kp;
		char path[64];
		uint32_t ks[] = { 1, 7, 500 };

		cut_trace(15000, round, &t, &tp, path);
		ck_assert_int_eq(cp_cpm_run(&cpm, &tp.g, NULL), 0);
		for (int i = 0; i < 3; i++) {
			struct cp_tindex ix;
			struct cp_stream st;

			ck_assert_int_eq(cp_kpaths_find(&kp, &cpm, ks[i]), 0);
			so.kpaths = ks[i];
			stream_with(path, &ix, &st, &so);
			ck_assert_msg(st.npaths == kp.n && !st.paths_cut,
				      "cut round %d, k=%u: %u paths streamed,"
				      " %u in memory", round, ks[i],
				      st.npaths, kp.n);
			for (uint32_t j = 0; j < kp.n; j++)
				ck_assert_msg(st.paths[j].len == kp.len[j],
					      "cut round %d, k=%u: path %u of "
					      "%" PRIu64 " streamed, %" PRIu64
					      " in memory", round, ks[i], j,
					      st.paths[j].len, kp.len[j]);
			cp_stream_free(&st);
			cp_tindex_close(&ix);
			cp_kpaths_free(&kp);
		}
		cp_cpm_free(&cpm);
		synth_graph_free(&t, &tp);
		unlink(path);
	}
}
END_TEST

/* The suites' fixtures: the barrier and lock examples, every variant. */
START_TEST(test_stream_fixtures_equal_memory)
{
	struct synth s;

	synth_barrier_example(&s, false);
	compare(&s, true, "barrier example");
	synth_free(&s);
	synth_barrier_example(&s, true);
	compare(&s, true, "barrier example, procedures");
	compare_mode(&s, true, true, "barrier example, exclusive");
	compare_whatif(&s, false, "barrier example, what-if");
	compare_whatif(&s, true, "barrier example, exclusive what-if");
	synth_free(&s);
	for (int v = 0; v < 8; v++) {
		struct synth_lock_example ex = {
			.kind = v & 1 ? CP_OBJ_RWLOCK : CP_OBJ_MUTEX,
			.unit = v & 2 ? 1000 : 1,
			.t1_work = v & 4 ? 10 : 30,
			.one_work = v >= 4,
		};

		synth_lock_example(&s, &ex);
		compare(&s, false, "lock example");
		compare_mode(&s, false, true, "lock example, exclusive");
		compare_whatif(&s, false, "lock example, what-if");
		synth_free(&s);
	}
}
END_TEST

/*
 * Threads created one after another while others run and end: each one
 * waits for its creation (its cursor parked), runs, ends (its cursor
 * freed) and is joined.  T0 creates T1..T60, 1000 + i ns apart; T_i works
 * i ns in proc0 then exits.  Both analyses agree.
 */
START_TEST(test_stream_thread_churn)
{
	struct synth s;

	synth_init(&s);
	synth_symbol(&s, proc_addr(0), 0x10, "proc0");
	synth_start(&s, 0, -1);
	for (uint32_t i = 1; i <= 60; i++) {
		synth_create(&s, 0, 1000 + i, i);
		synth_start(&s, i, 0);
		synth_call(&s, i, proc_addr(0), i);
		synth_exit(&s, i, 0);
	}
	synth_join_all(&s, 60, 5);
	compare(&s, true, "thread churn");
	synth_free(&s);
}
END_TEST

/*
 * T0 starts the program and creates T1 and T2, each working in proc0;
 * T2 defines a mutex before its START, and takes it once.  With
 * @strays, T3 starts naming thread 9 as its creator (the trace has no
 * such thread) and T4 has no START (a thread met late: only its EXIT).
 */
static void gen_firsts(struct synth *s, bool strays)
{
	uint32_t m;

	synth_init(s);
	synth_symbol(s, proc_addr(0), 0x10, "proc0");
	synth_start(s, 0, -1);
	synth_create(s, 0, 10, 1);
	synth_start(s, 1, 0);
	synth_call(s, 1, proc_addr(0), 300);
	synth_exit(s, 1, 0);
	synth_create(s, 0, 20, 2);
	m = synth_obj(s, 2, CP_OBJ_MUTEX, 0);
	synth_start(s, 2, 0);
	synth_lock(s, 2, 5, 0, m);
	synth_call(s, 2, proc_addr(0), 200);
	synth_unlock(s, 2, 5, m);
	synth_exit(s, 2, 0);
	if (strays) {
		synth_start(s, 3, 9);
		synth_exit(s, 3, 7);
		synth_exit(s, 4, 3);
	}
	synth_join(s, 0, 5, true, 1);
	synth_join(s, 0, 5, true, 2);
}

/*
 * The index marks the threads a pass may leave unread until their CREATE
 * (cp_tindex.tstart): those whose first vertex is a THREAD_START naming a
 * thread of the trace, with nothing before it.  Of gen_firsts' threads
 * only T1: T0 names no creator, T2 has an OBJ_DEF first, T3's creator is
 * not in the trace, T4's first vertex is an EXIT.  With the threads the
 * index leaves to the survey, both analyses agree.
 */
START_TEST(test_stream_index_waits_for_create)
{
	struct synth s;
	struct cp_tindex ix;
	char path[64], err[256] = "";

	gen_firsts(&s, true);
	write_temp(&s, path);
	ck_assert_msg(cp_tindex_open(&ix, path, err, sizeof(err)) == 0,
		      "index: %s", err);
	ck_assert_uint_eq(ix.t.nthreads, 5);
	for (uint32_t tid = 0; tid < 5; tid++)
		ck_assert_msg(cp_bit_get(ix.tstart, tid) == (tid == 1),
			      "thread %u: %d", tid,
			      cp_bit_get(ix.tstart, tid));
	cp_tindex_close(&ix);
	unlink(path);
	synth_free(&s);

	gen_firsts(&s, false);
	compare(&s, true, "first vertices");
	synth_free(&s);
}
END_TEST

/*
 * More procedures than are tracked: the CP_STREAM_TRACK with the most
 * useful time are, and agree with memory; the others have CPU time only.
 * T1 calls 100 procedures, procedure i for 1000 + i ns, then T0 joins it.
 */
START_TEST(test_stream_tracks_the_most_useful)
{
	struct synth s;
	struct cp_tindex ix;
	struct cp_stream st;
	char path[64];
	uint32_t ntr = 0;

	synth_init(&s);
	for (uint32_t i = 0; i < 100; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%03u", i);
		synth_symbol(&s, proc_addr(i), 0x10, name);
	}
	synth_start(&s, 0, -1);
	synth_spawn(&s, 1);
	for (uint32_t i = 0; i < 100; i++)
		synth_call(&s, 1, proc_addr(i), 1000 + i);
	synth_exit(&s, 1, 0);
	synth_join_all(&s, 1, 0);
	compare(&s, true, "100 procedures");
	write_temp(&s, path);
	stream_file(path, &ix, &st);
	for (uint32_t i = 0; i < st.nprocs; i++) {
		unsigned num = (unsigned)atoi(st.procs[i].name + 1);

		bool want = num >= 100 - CP_STREAM_TRACK;

		ntr += st.procs[i].tracked;
		ck_assert_msg(st.procs[i].tracked == want,
			      "%s tracked %d", st.procs[i].name,
			      st.procs[i].tracked);
		ck_assert_msg(!st.procs[i].tracked ||
			      st.procs[i].zero_ns == 1000 + num,
			      "%s zeroing %" PRIu64, st.procs[i].name,
			      st.procs[i].zero_ns);
	}
	ck_assert_msg(ntr == CP_STREAM_TRACK && st.ntracked == ntr,
		      "tracked %u", ntr);
	cp_stream_free(&st);
	cp_tindex_close(&ix);
	unlink(path);
	synth_free(&s);
}
END_TEST

/*
 * A million mutex hand-overs between two threads: T1 and T2 take turns,
 * each lock after 1 ns of work consuming the other's unlock, 3 ns inside.
 * The critical path is every critical section: 3n + 1.  The pass keeps
 * one record per object alive, plus the creations': at most 4.
 */
START_TEST(test_stream_handovers_bounded)
{
	const uint64_t n = 1000000;
	struct synth s;
	struct cp_tindex ix;
	struct cp_stream st;
	char path[64];
	uint32_t m;

	synth_init(&s);
	s.block_events = 8000;
	synth_start(&s, 0, -1);
	m = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	synth_spawn(&s, 2);
	for (uint64_t k = 0; k < n; k++) {
		uint32_t tid = 1 + (uint32_t)(k % 2);

		synth_lock(&s, tid, 1, k ? 5 : 0, m);
		synth_unlock(&s, tid, 3, m);
	}
	synth_exit(&s, 1, 0);
	synth_exit(&s, 2, 0);
	synth_join_all(&s, 2, 0);
	write_temp(&s, path);
	synth_free(&s);
	stream_file(path, &ix, &st);
	ck_assert_msg(st.cp_len == 3 * n + 1, "CP %" PRIu64, st.cp_len);
	ck_assert_msg(st.records >= n, "records %" PRIu64, st.records);
	ck_assert_msg(st.live_max <= 4, "%" PRIu64 " records alive at once",
		      st.live_max);
	cp_stream_free(&st);
	cp_tindex_close(&ix);
	unlink(path);
}
END_TEST

/*
 * End the scene @s of @n workers (exits, joins), compare both analyses and
 * assert that at most @bound publish records were alive at once.
 */
static void end_bounded(struct synth *s, uint32_t n, const char *what,
			uint64_t bound)
{
	uint64_t live;

	for (uint32_t w = 1; w <= n; w++)
		synth_exit(s, w, dur());
	synth_join_all(s, n, dur());
	live = compare(s, true, what);
	ck_assert_msg(live <= bound, "%s: %" PRIu64 " records alive at once",
		      what, live);
	synth_free(s);
}

/* T1 broadcasts @cond, and T2, T3 and T4 wake on it. */
static void broadcast_round(struct synth *s, uint32_t cond)
{
	uint64_t sig = synth_publish(s, 1, dur(), cond);

	for (uint32_t w = 2; w <= 4; w++)
		synth_consume(s, w, dur(), true, cond, sig, 1);
}

/* T2, T3 and T4 read @rw (some waiting), then T1 writes it. */
static void readers_round(struct synth *s, uint32_t rw)
{
	for (uint32_t w = 2; w <= 4; w++)
		synth_rdlock(s, w, dur(), rnd(2) ? dur() : 0, rw);
	for (uint32_t w = 2; w <= 4; w++)
		synth_rwunlock(s, w, dur(), rw);
	synth_wrlock(s, 1, dur(), dur(), rw);
	synth_rwunlock(s, 1, dur(), rw);
}

/*
 * The records the freeing rule must keep longest, many times over: a
 * barrier of four (a slow thread's departure comes after the others'
 * next arrivals), a broadcast woken by three threads, three readers
 * between write unlocks, semaphore posts taken a round late.  The pass
 * agrees with memory, and the records alive stay a constant, not a
 * share of the 3000 rounds.
 */
START_TEST(test_stream_worst_cases_bounded)
{
	struct synth s;
	uint32_t bar, cond, rw, sem;
	uint64_t prev_post = 0;

	rng_state = 7;
	synth_init(&s);
	synth_start(&s, 0, -1);
	bar = synth_obj(&s, 0, CP_OBJ_BARRIER, 4);
	cond = synth_obj(&s, 0, CP_OBJ_COND, 0);
	rw = synth_obj(&s, 0, CP_OBJ_RWLOCK, 0);
	sem = synth_obj(&s, 0, CP_OBJ_SEM, 0);
	synth_spawn(&s, 4);
	for (int round = 0; round < 3000; round++) {
		uint64_t post;

		for (uint32_t w = 1; w <= 4; w++)
			synth_barrier(&s, w, dur(), dur(), bar);
		broadcast_round(&s, cond);
		readers_round(&s, rw);
		post = synth_publish(&s, 1, dur(), sem);
		if (prev_post)
			synth_consume(&s, 2, dur(), true, sem, prev_post, 1);
		prev_post = post;
	}
	end_bounded(&s, 4, "worst cases", 24);
}
END_TEST

/*
 * A read-mostly rwlock: four threads read it 20000 times each between two
 * writes, twice.  Every read unlock is consumed only by the next write
 * lock's range, so the lag rule would keep them all; folding keeps the
 * last write unlock, the aggregate of the reads since and the unlocks not
 * yet folded: a handful.  Both analyses agree.
 */
START_TEST(test_stream_read_mostly_folded)
{
	struct synth s;
	uint32_t rw;

	rng_state = 11;
	synth_init(&s);
	synth_symbol(&s, proc_addr(0), 0x10, "proc0");
	synth_start(&s, 0, -1);
	rw = synth_obj(&s, 0, CP_OBJ_RWLOCK, 0);
	synth_spawn(&s, 4);
	for (int phase = 0; phase < 2; phase++) {
		for (int k = 0; k < 20000; k++)
			for (uint32_t w = 1; w <= 4; w++) {
				synth_rdlock(&s, w, dur(), 0, rw);
				synth_call(&s, w, proc_addr(0), dur());
				synth_rwunlock(&s, w, dur(), rw);
			}
		synth_wrlock(&s, 1 + (uint32_t)phase, dur(), dur(), rw);
		synth_rwunlock(&s, 1 + (uint32_t)phase, dur(), rw);
	}
	end_bounded(&s, 4, "read-mostly rwlock", 16);
}
END_TEST

/*
 * Objects that are used for a while and then never again, as an OpenMP
 * program's tasks are: 60 groups of a mutex handed round four threads, a
 * condition variable broadcast to three, a semaphore posted twice and
 * waited for once (its second post is consumed by nobody) and an rwlock
 * read by three and written by one.  Each object's last record is dead
 * after its last CONSUME, and a post nobody waits for needs none: the
 * records alive stay those of the group in use, not one per object
 * (which kept 240 here, and gigabytes for a real OpenMP run's 2.6
 * million task objects).  Both analyses agree.
 */
START_TEST(test_stream_objects_retired_bounded)
{
	struct synth s;

	rng_state = 13;
	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_spawn(&s, 4);
	for (int g = 0; g < 60; g++) {
		uint32_t mu = synth_obj(&s, 1, CP_OBJ_MUTEX, 0);
		uint32_t cond = synth_obj(&s, 1, CP_OBJ_COND, 0);
		uint32_t sem = synth_obj(&s, 1, CP_OBJ_SEM, 0);
		uint32_t rw = synth_obj(&s, 1, CP_OBJ_RWLOCK, 0);
		uint64_t post;

		for (int k = 0; k < 3; k++)
			for (uint32_t w = 1; w <= 4; w++) {
				synth_lock(&s, w, dur(), rnd(2) ? dur() : 0,
					   mu);
				synth_unlock(&s, w, dur(), mu);
			}
		broadcast_round(&s, cond);
		post = synth_publish(&s, 1, dur(), sem);
		synth_publish(&s, 1, dur(), sem);
		synth_consume(&s, 2, dur(), true, sem, post, 1);
		readers_round(&s, rw);
	}
	end_bounded(&s, 4, "objects retired", 16);
}
END_TEST

/*
 * A thread per task: T0 makes 60 threads one after another, each taking
 * a lock once, and joins each before it makes the next.  A thread's lanes
 * (a few hundred values with 64 procedures followed) are wanted only
 * until its JOIN, or to the end by the thread that ends the critical path
 * so far: at most three threads hold them at once, where every thread
 * kept them to the end (gigabytes for a program that ran 1.4 million
 * threads).  Both analyses agree.
 */
START_TEST(test_stream_threads_retired_bounded)
{
	struct synth s;
	uint32_t mu;

	rng_state = 17;
	synth_init(&s);
	synth_symbol(&s, proc_addr(0), 0x10, "proc0");
	synth_start(&s, 0, -1);
	mu = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	for (uint32_t c = 1; c <= 60; c++) {
		synth_create(&s, 0, dur(), c);
		synth_start(&s, c, 0);
		synth_call(&s, c, proc_addr(0), dur());
		synth_lock(&s, c, dur(), 0, mu);
		synth_unlock(&s, c, dur(), mu);
		synth_exit(&s, c, dur());
		synth_join(&s, 0, 4u << 20, true, c);
	}
	synth_call(&s, 0, proc_addr(0), dur());
	synth_exit(&s, 0, dur());
	compare(&s, true, "threads retired");
	ck_assert_msg(last_threads_live <= 3, "%" PRIu64 " threads held their "
		      "lanes at once", last_threads_live);
	synth_free(&s);
}
END_TEST

/*
 * A barrier of three, 50 times: T1 runs p1 for 5 ns, T2 and T3 run p2 and
 * p3 for 10 ns and arrive at the same length (T3 leaving after T1 has
 * arrived again); at the end T1 runs p1 5 ns more.  T1's departures take
 * their path from the episode's hub ("Hubs", cp_stream_rec.c), whose
 * members tie: the records pass gives the 10 ns to the first, T2, and
 * Slack's walk must follow C through the hub to the same member or it
 * loses the critical path.  So p2 has 500 ns of CP time and p1 5, and
 * each one's Slack is at most its CP time.
 */
START_TEST(test_stream_barrier_hub_ties)
{
	struct synth s;
	struct cp_tindex ix;
	struct cp_stream st;
	char path[64];
	uint64_t cp = 0;
	uint32_t bar;

	synth_init(&s);
	for (uint32_t w = 1; w <= 3; w++)
		synth_symbol(&s, proc_addr(w), 0x10, w == 1 ? "p1" :
			     w == 2 ? "p2" : "p3");
	synth_start(&s, 0, -1);
	bar = synth_obj(&s, 0, CP_OBJ_BARRIER, 3);
	synth_spawn(&s, 3);
	for (int round = 0; round < 50; round++)
		for (uint32_t w = 1; w <= 3; w++) {
			synth_call(&s, w, proc_addr(w), w == 1 ? 5 : 10);
			/* T3 leaves late, after T1's next arrival: the
			 * barrier does not fold, its ranges have hubs */
			synth_barrier(&s, w, 0, 50 * (w - 1), bar);
		}
	synth_call(&s, 1, proc_addr(1), 5);
	for (uint32_t w = 1; w <= 3; w++)
		synth_exit(&s, w, 0);
	synth_join_all(&s, 3, 0);
	write_temp(&s, path);
	synth_free(&s);
	stream_file(path, &ix, &st);
	ck_assert_msg(st.cp_len == 50 * 10 + 5, "CP %" PRIu64, st.cp_len);
	for (uint32_t i = 0; i < st.nprocs; i++) {
		const struct cp_stream_proc *pr = &st.procs[i];

		cp += pr->cp_ns;
		ck_assert_msg(pr->has_slack && pr->slack_ns <= pr->cp_ns,
			      "%s: Slack %" PRIu64 " of CP time %" PRIu64,
			      pr->name, pr->slack_ns, pr->cp_ns);
	}
	ck_assert_msg(cp == 50 * 10 + 5, "CP time of the procedures %" PRIu64,
		      cp);
	ck_assert_msg(st.procs[0].cp_ns == 500 && !strcmp(st.procs[0].name,
							  "p2"),
		      "%s: %" PRIu64, st.procs[0].name, st.procs[0].cp_ns);
	cp_stream_free(&st);
	cp_tindex_close(&ix);
	unlink(path);
}
END_TEST

/* The name of procedure @proc of @p's graph, "-" for none. */
static const char *graph_proc_name(const struct cp_profile *p, uint32_t proc)
{
	return proc == CP_PAG_NONE ? "-" : cp_tracepag_proc_name(p->tp, proc);
}

/* Every pair of @mem (the graph's) is in @str with the same sums in
 * column @col (-1: both), its b key a procedure of @p taken by name in
 * @st when @by_name; and no more pairs. */
static void compare_pairs(const struct cp_pairs *mem,
			  const struct cp_pairs *str, bool by_name, int col,
			  const struct cp_profile *p, const struct cp_stream *st,
			  const char *table, const char *what)
{
	ck_assert_msg(mem->n == str->n, "%s, %s: %u pairs in memory, %u "
		      "streamed", what, table, mem->n, str->n);
	for (uint32_t k = 0; k < mem->n; k++) {
		uint32_t b = mem->b[k], j;

		if (by_name) {
			const char *name = graph_proc_name(p, b);

			b = UINT32_MAX;
			for (uint32_t i = 0; *name != '-' && i < st->nprocs;
			     i++)
				if (!strcmp(st->procs[i].name, name))
					b = i;
		}
		for (j = 0; j < str->n; j++)
			if (str->a[j] == mem->a[k] && str->b[j] == b)
				break;
		ck_assert_msg(j < str->n, "%s, %s: (%u, %u) not streamed",
			      what, table, mem->a[k], mem->b[k]);
		for (int c = 0; c < 2; c++)
			ck_assert_msg((col >= 0 && c != col) ||
				      mem->v[k][c] == str->v[j][c],
				      "%s, %s: (%u, %u)[%d] %" PRIu64 " in "
				      "memory, %" PRIu64 " streamed", what,
				      table, mem->a[k], mem->b[k], c,
				      mem->v[k][c], str->v[j][c]);
	}
}

/* Round @round of a test of random traces seeded from @seed: up to 6
 * workers, up to 450 operations (3050 from round 30), wall clocks of
 * their own on odd rounds, samples if @sampled. */
static void gen_round(struct synth *s, uint64_t seed, int round,
		      bool sampled)
{
	rng_state = seed + (uint64_t)round;
	gen_trace(s, 1 + (uint32_t)rnd(6),
		  50 + (uint32_t)rnd(round < 30 ? 400 : 3000), round % 2);
	if (sampled)
		gen_samples(s, 5 + (uint32_t)rnd(100));
}

/* A random trace read both ways: in memory (its graph and profile,
 * procedures @exclusive or inclusive, from the samples if @sampled) and
 * streamed with @so. */
struct both {
	char path[64];
	struct cp_trace t;
	struct cp_tracepag tp;
	struct cp_profile p;
	struct cp_tindex ix;
	struct cp_stream st;
};

static void both_read(struct both *b, struct synth *s, bool exclusive,
		      bool sampled, const struct cp_stream_opts *so)
{
	struct cp_profile_opts po = { .top = 0, .exclusive = exclusive };
	char err[256] = "";

	write_temp(s, b->path);
	memory_load(s, &b->t, &b->tp, sampled);
	ck_assert_msg(cp_profile_compute(&b->p, &b->tp, &po, err,
					 sizeof(err)) == 0, "profile: %s", err);
	stream_with(b->path, &b->ix, &b->st, so);
}

static void both_free(struct both *b)
{
	cp_stream_free(&b->st);
	cp_tindex_close(&b->ix);
	cp_profile_free(&b->p);
	synth_graph_free(&b->t, &b->tp);
	unlink(b->path);
}

/* The views' breakdowns of @s, streamed and from the graph: each
 * thread's CPU time per procedure, its waits per object, who released
 * it how often. */
static void compare_views(struct synth *s, bool exclusive, bool sampled,
			  const char *what)
{
	struct cp_stream_opts so = {
		.exclusive = exclusive, .symbolize = symbolize,
		.src = sampled ? CP_STREAM_SRC_SAMPLED :
				 CP_STREAM_SRC_INSTRUMENTED,
		.mbm_k = 1, .views = true,
	};
	struct cp_views_graph g;
	struct both b;

	both_read(&b, s, exclusive, sampled, &so);
	ck_assert_msg(cp_views_graph_build(&g, &b.p) == 0, "%s: graph", what);
	compare_pairs(&g.tproc, &b.st.v_tproc, true, 0, &b.p, &b.st,
		      "CPU by procedure", what);
	compare_pairs(&g.waits, &b.st.v_waits, false, -1, &b.p, &b.st,
		      "waits", what);
	compare_pairs(&g.deps, &b.st.v_deps, false, 0, &b.p, &b.st,
		      "released by", what);
	ck_assert_msg(g.d.ndeps == b.st.v_ndeps, "%s: %" PRIu64 " dependencies "
		      "in memory, %" PRIu64 " streamed", what, g.d.ndeps,
		      b.st.v_ndeps);
	cp_views_graph_free(&g);
	both_free(&b);
}

/*
 * `cpt report --by` streamed: on random traces of every primitive
 * (instrumented procedures, inclusive and exclusive, and sampled ones),
 * the pass's breakdowns are the graph's: CPU time per (thread,
 * procedure), waits and time waited per (thread, object), dependencies
 * per (releasing thread, thread), the last to publish of a range
 * consumed together taken as its releaser.
 */
START_TEST(test_stream_views_equal_memory)
{
	for (int round = 0; round < 40; round++) {
		struct synth s;
		char what[48];

		gen_round(&s, 11000, round, round % 4 == 3);
		snprintf(what, sizeof(what), "views round %d", round);
		compare_views(&s, false, round % 4 == 3, what);
		compare_views(&s, true, round % 4 == 3, what);
		synth_free(&s);
	}
}
END_TEST

/* A timeline key's name: a procedure's of the graph (@tp) or the stream
 * (@st), or the key's own for the special ones. */
static const char *tl_key_name(uint32_t key, const struct cp_tracepag *tp,
			       const struct cp_stream *st)
{
	if (key == CP_TL_WAIT)
		return "(waiting)";
	if (key == CP_TL_NOPROC)
		return "(outside)";
	if (tp)
		return key < tp->nprocs ? tp->procs[key] : "(bad key)";
	return key < st->nprocs ? st->procs[key].name : "(bad key)";
}

/* The timeline of @s streamed in @width columns and from the graph. */
static void compare_timeline(struct synth *s, bool exclusive, bool sampled,
			     bool slack, uint32_t width, const char *what)
{
	struct cp_stream_opts so = {
		.exclusive = exclusive, .symbolize = symbolize,
		.src = sampled ? CP_STREAM_SRC_SAMPLED :
				 CP_STREAM_SRC_INSTRUMENTED,
		.mbm_k = slack ? CP_PROFILE_K_DEFAULT : 1, .slack = slack,
		.timeline = width,
	};
	struct cp_timeline g;
	const struct cp_timeline *x;
	struct both b;

	both_read(&b, s, exclusive, sampled, &so);
	ck_assert_msg(cp_profile_timeline(&g, &b.p, width) == 0, "%s", what);
	x = &b.st.tl;
	ck_assert_msg(x->width == width && x->has_cp && g.has_cp, "%s", what);
	ck_assert_msg(x->t0 == g.t0 && x->t1 == g.t1 && x->nrows == g.nrows,
		      "%s: range [%" PRIu64 ", %" PRIu64 "] of %u rows "
		      "streamed, [%" PRIu64 ", %" PRIu64 "] of %u in memory",
		      what, x->t0, x->t1, x->nrows, g.t0, g.t1, g.nrows);
	for (uint32_t r = 0; r < g.nrows; r++) {
		const struct cp_tl_row *ra = &g.rows[r], *rb = &x->rows[r];

		ck_assert_msg(ra->any == rb->any && ra->first == rb->first &&
			      ra->last == rb->last && ra->n == rb->n,
			      "%s: row %u: %u cells over [%" PRIu64 ", %"
			      PRIu64 "] streamed, %u over [%" PRIu64 ", %"
			      PRIu64 "] in memory", what, r, rb->n, rb->first,
			      rb->last, ra->n, ra->first, ra->last);
		for (uint32_t i = 0; i < ra->n; i++) {
			const struct cp_tl_cell *ca = &ra->c[i], *cb = &rb->c[i];
			const char *na = tl_key_name(ca->key, &b.tp, NULL);
			const char *nb = tl_key_name(cb->key, NULL, &b.st);

			ck_assert_msg(ca->col == cb->col && ca->ns == cb->ns &&
				      !strcmp(na, nb),
				      "%s: row %u cell %u: column %u, %s %"
				      PRIu64 " ns streamed; column %u, %s %"
				      PRIu64 " ns in memory", what, r, i,
				      cb->col, nb, cb->ns, ca->col, na, ca->ns);
		}
	}
	for (uint32_t c = 0; c < width; c++)
		ck_assert_msg(g.cp_best[c] == x->cp_best[c] &&
			      g.cp_best_ns[c] == x->cp_best_ns[c],
			      "%s: column %u: the critical path's longest "
			      "stretch on T%d (%" PRIu64 " ns) streamed, T%d (%"
			      PRIu64 " ns) in memory", what, c,
			      (int)x->cp_best[c], x->cp_best_ns[c],
			      (int)g.cp_best[c], g.cp_best_ns[c]);
	cp_timeline_free(&g);
	both_free(&b);
}

/*
 * The HTML report's timeline, streamed: on random traces of every
 * primitive (instrumented procedures, inclusive and exclusive, and
 * sampled ones), with and without Slack asked, in few and many columns,
 * each thread's time per (column, innermost procedure, waiting) and the
 * critical path's longest stretch per column are the graph's to the
 * nanosecond.
 */
START_TEST(test_stream_timeline_equal_memory)
{
	static const uint32_t widths[] = { 1, 7, 64, 1000 };

	for (int round = 0; round < 40; round++) {
		struct synth s;
		char what[64];
		uint32_t w = widths[round % 4];

		gen_round(&s, 12000, round, round % 3 == 2);
		snprintf(what, sizeof(what), "timeline round %d (%u columns)",
			 round, w);
		compare_timeline(&s, false, round % 3 == 2, round % 5 != 4, w,
				 what);
		compare_timeline(&s, true, round % 3 == 2, round % 5 == 4, w,
				 what);
		synth_free(&s);
	}
}
END_TEST

/* Run "cpt @args @path" and check that it exits with @status; its
 * stderr into @line, its stdout into @out. */
static void cpt_expect(const char *args, const char *path, int status,
		       char *line, size_t len, char *out, size_t outlen)
{
	char full[700], errp[] = "/tmp/check_stream_err_XXXXXX";
	int fd = mkstemp(errp), st;
	FILE *f;
	size_t n;

	ck_assert(fd >= 0);
	close(fd);
	snprintf(full, sizeof(full), "%s/tools/cpt %s %s 2>%s", CP_BINARY_DIR,
		 args, path, errp);
	f = popen(full, "r");
	ck_assert(f != NULL);
	n = fread(out, 1, outlen - 1, f);
	out[n] = '\0';
	st = pclose(f);
	f = fopen(errp, "r");
	ck_assert(f != NULL);
	n = fread(line, 1, len - 1, f);
	line[n] = '\0';
	fclose(f);
	unlink(errp);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == status,
		      "cpt %s: status %d, not exit %d; stderr: %s", args, st,
		      status, line);
}

/* The barrier example with procedures, written to a temporary @path. */
static void barrier_file(char *path)
{
	struct synth s;

	synth_barrier_example(&s, true);
	write_temp(&s, path);
	synth_free(&s);
}

/*
 * Slack's scratch file is not made when its directory has less room than
 * it would take (here: far more bytes an event than any disk has): no
 * Slack, said with what it needed and found, and the rest the same as
 * with the file.
 */
START_TEST(test_stream_slack_no_room)
{
	struct cp_stream_opts so = {
		.mbm_k = CP_PROFILE_K_DEFAULT, .slack = true,
		.headline = cp_stream_prof_headline,
	};
	struct cp_report_opts ro = { .top = 0 };
	struct cp_tindex ix, ix2;
	struct cp_stream st, st2;
	struct cp_profile p;
	struct cp_compare cmp;
	char path[64], *buf = NULL;
	size_t len = 0;
	FILE *f;

	barrier_file(path);
	stream_with(path, &ix, &st, &so);
	so.slack_event_bytes = UINT64_MAX / 1024;
	stream_with(path, &ix2, &st2, &so);
	ck_assert_int_eq(st.slack_err, 0);
	ck_assert(st.slack_bytes > 0);
	ck_assert_int_eq(st2.slack_err, ENOSPC);
	ck_assert_uint_eq(st2.slack_bytes, 0);
	ck_assert(st2.slack_need > st2.slack_avail);
	ck_assert_str_eq(st2.slack_dir, cp_spill_dir());
	ck_assert_uint_eq(st2.cp_len, st.cp_len);
	ck_assert_uint_eq(st2.nprocs, st.nprocs);
	for (uint32_t i = 0; i < st.nprocs; i++) {
		ck_assert(st.procs[i].has_slack && !st2.procs[i].has_slack);
		ck_assert_str_eq(st2.procs[i].name, st.procs[i].name);
		ck_assert_uint_eq(st2.procs[i].cp_ns, st.procs[i].cp_ns);
		ck_assert_uint_eq(st2.procs[i].zero_ns, st.procs[i].zero_ns);
		ck_assert_uint_eq(st2.procs[i].mbm_ns, st.procs[i].mbm_ns);
	}
	ck_assert(cp_stream_prof_make(&p, &st2, NULL) == 0);
	ck_assert(cp_compare_build(&cmp, &p, NULL) == 0);
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(cp_stream_out_text(f, &ix2, &st2, &cmp, &ro), 0);
	fclose(f);
	cp_compare_free(&cmp);
	cp_stream_prof_free(&p);
	ck_assert_msg(strstr(buf, "note: no Slack: its scratch file would "
			     "take about ") && strstr(buf, " has ") &&
		      strstr(buf, " free ($TMPDIR names another directory)."),
		      "%s", buf);
	free(buf);
	cp_stream_free(&st);
	cp_stream_free(&st2);
	cp_tindex_close(&ix);
	cp_tindex_close(&ix2);
	unlink(path);
}
END_TEST

#define CPT_EXPECT(args, status) \
	cpt_expect(args, path, status, line, sizeof(line), out, sizeof(out))

/* A cp_stream_opts.headline naming procedure "d", no busy share. */
static uint32_t headline_d(void *ctx, const struct cp_stream *s, bool *busy)
{
	(void)ctx;
	*busy = false;
	for (uint32_t i = 0; i < s->nprocs; i++)
		if (!strcmp(s->procs[i].name, "d"))
			return i;
	return UINT32_MAX;
}

/* Procedure @name of @st has no Slack (not among the top). */
static void assert_no_slack(const struct cp_stream *st, const char *name)
{
	for (uint32_t i = 0; i < st->nprocs; i++)
		if (!strcmp(st->procs[i].name, name)) {
			ck_assert_msg(!st->procs[i].has_slack &&
				      !st->procs[i].top, "%s has Slack",
				      name);
			return;
		}
	ck_abort_msg("no procedure %s", name);
}

/*
 * Slack streamed for the procedures of most CP time only (--top, as in
 * memory), and the one cp_stream_opts.headline names.  By hand: T1 runs a
 * for 300 then d for 50 to a barrier; T2 runs c for 60 and 40 more to
 * it, then b for 200 and ends; T1 ends 10 after the barrier.  The
 * critical path is a, d, b: 550.  a can shrink by 250 before T2's
 * arrival (100) binds, d by all its 50, b by 190 before T1's end does;
 * c, off the path, has CP time 0 and Slack 0.
 */
START_TEST(test_stream_slack_of_the_top)
{
	struct { uint32_t top; bool hl; } run[] = {
		{ 0, false }, { 1, false }, { 1, true }, { 2, false },
	};
	static char out[65536];
	char path[64], line[2048];
	struct synth s;
	uint32_t b;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "a");
	synth_symbol(&s, 0x200, 0x10, "b");
	synth_symbol(&s, 0x300, 0x10, "c");
	synth_symbol(&s, 0x400, 0x10, "d");
	synth_start(&s, 0, -1);
	b = synth_obj(&s, 0, CP_OBJ_BARRIER, 2);
	synth_spawn(&s, 2);
	synth_call(&s, 1, 0x100, 300);
	synth_call(&s, 1, 0x400, 50);
	synth_barrier(&s, 1, 0, 0, b);
	synth_call(&s, 2, 0x300, 60);
	synth_barrier(&s, 2, 40, 250, b);
	synth_call(&s, 2, 0x200, 200);
	synth_exit(&s, 2, 0);
	synth_exit(&s, 1, 10);
	synth_join_all(&s, 2, 0);
	compare(&s, true, "slack of the top");
	write_temp(&s, path);
	for (size_t r = 0; r < sizeof(run) / sizeof(run[0]); r++) {
		struct cp_stream_opts so = {
			.mbm_k = CP_PROFILE_K_DEFAULT, .slack = true,
			.top = run[r].top, .headline = run[r].hl ? headline_d :
							    NULL,
		};
		struct cp_tindex ix;
		struct cp_stream st;

		stream_with(path, &ix, &st, &so);
		ck_assert_uint_eq(st.cp_len, 550);
		assert_slack(&st, "a", 300, 250);
		assert_slack(&st, "c", 0, 0);
		if (run[r].top != 1)
			assert_slack(&st, "b", 200, 190);
		else
			assert_no_slack(&st, "b");
		if (!run[r].top || run[r].hl)
			assert_slack(&st, "d", 50, 50);
		else
			assert_no_slack(&st, "d");
		cp_stream_free(&st);
		cp_tindex_close(&ix);
	}
	/* cpt report gives --top's procedures Slack: a and c, then all */
	CPT_EXPECT("report --stream --format json --top 1", 0);
	ck_assert_msg(cpt_count(out, "\"slack_ns\"") == 2, "stdout: %s", out);
	CPT_EXPECT("report --stream --format json --top 0", 0);
	ck_assert_msg(cpt_count(out, "\"slack_ns\"") == 4, "stdout: %s", out);
	unlink(path);
	synth_free(&s);
}
END_TEST

/*
 * cpt report takes the streaming analysis for a trace over --memory and
 * says so in one line on stderr; --stream forces it.  The barrier
 * example's critical path is 80, and its procedures' MBM comes from the
 * streamed paths.
 */
START_TEST(test_stream_cpt_chooses_the_mode)
{
	static char out[65536];
	char path[64], line[2048];

	barrier_file(path);
	CPT_EXPECT("report --memory 1K", 0);
	ck_assert_msg(strstr(line, path) && strstr(line, "over the budget of "
		      "1 KB: streaming analysis (CP figures of the procedures "
		      "with the most CPU time)"), "stderr: %s", line);
	/* By hand.  CPU time 50 and 30 of 111, CP time 50 and 30 of 80:
	 * ranked alike.  Zeroing, Slack and MBM over all 20 paths: without
	 * tail the longest is T1's end (31), so 49, and all of tail but 1
	 * can go with the path still critical; slow is 10 longer than T2's
	 * arrival at the barrier (20), the other paths through the barrier */
	ck_assert_msg(strstr(out, "critical path          80 ns") &&
		      strstr(out, "  The CPU profile and the critical path rank "
			     "the procedures alike: tail leads the critical "
			     "path (45% of CPU time, 62% of the critical path; "
			     "zeroing it saves 61.2%).") &&
		      strstr(out, "MBM (k=20)") &&
		      strstr(out, "  tail             50  45.0%        50  62.5%"
			     "        49  61.2%        49  61.2%        49  "
			     "61.2%        1  1/1\n") &&
		      strstr(out, "  slow             30  27.0%        30  37.5%"
			     "        10  12.5%        10  12.5%        10  "
			     "12.5%        1  2/2\n") && !strstr(out, "note:"),
		      "stdout: %s", out);
	/* --k 1: MBM over the critical path alone is its CP time */
	CPT_EXPECT("report --stream --k 1", 0);
	ck_assert_msg(strstr(out, "MBM (k=1)") &&
		      strstr(out, "  tail             50  45.0%        50  62.5%"
			     "        49  61.2%        49  61.2%        50  "
			     "62.5%        1  1/1\n") &&
		      strstr(out, "  slow             30  27.0%        30  37.5%"
			     "        10  12.5%        10  12.5%        30  "
			     "37.5%        1  2/2\n"), "stdout: %s", out);
	CPT_EXPECT("report --stream --format json", 0);
	ck_assert_msg(strstr(line, "streaming analysis (--stream"),
		      "stderr: %s", line);
	ck_assert_msg(strstr(out, "\"length_ns\": 80,") &&
		      strstr(out, "\"mode\": \"stream\"") &&
		      strstr(out, "\"mbm_ns\": 49,") &&
		      strstr(out, "\"slack_ns\": 49,") &&
		      strstr(out, "\"slack_ns\": 10,") &&
		      strstr(out, "\"mbm_ns\": 10,") &&
		      strstr(out, "\"headline\": \"The CPU profile and the "
			     "critical path rank the procedures alike: tail") &&
		      strstr(out, "\"cp_rank\": 2,") &&
		      strstr(out, "\"cp_excl_ns\": 30\n"), "stdout: %s", out);
	/* The views, streamed.  By hand: T0 is released by T1's arrival
	 * (the last) and T1's end, and by T2's end; T1 by its creation;
	 * T2 by its creation and T1's arrival (6 in all).  T0 waited 20
	 * at the barrier, then 5 and 45 joining T1 and T2; its 10 of CPU
	 * are outside procedures, T1's 31 slow's 30 and 1 outside, T2's 70
	 * tail's 50 and 20 outside.  All three threads are followed (T0 has
	 * no CP time); a thread's procedures' CP time is not known
	 * streamed. */
	CPT_EXPECT("report --stream --by thread", 0);
	ck_assert_msg(strstr(line, "streaming analysis (--stream"),
		      "stderr: %s", line);
	ck_assert_msg(strstr(out, "\n  T0 t0\n    elapsed 80 ns, useful 10 "
			     "ns, waiting 70 ns: utilization 12%, progress "
			     "ratio 0.14\n    on the critical path 0 ns (0.0% "
			     "of it), 0 calls\n    its procedures (CPU): "
			     "(outside procedures) 10 ns\n    waited on: join "
			     "50 ns (2x), barrier#1 20 ns (1x)\n    released "
			     "by: T1 t1 2x, T2 t2 1x\n") &&
		      strstr(out, "\n    on the critical path 30 ns (37.5% of "
			     "it), 1 calls\n    its procedures (CPU): slow 30 "
			     "ns, (outside procedures) 1 ns\n    released by: "
			     "T0 t0 1x\n") &&
		      strstr(out, "\n    its procedures (CPU): tail 50 ns, "
			     "(outside procedures) 20 ns\n    waited on: "
			     "barrier#1 10 ns (1x)\n    released by: T0 t0 1x, "
			     "T1 t1 1x\n"), "stdout: %s", out);
	CPT_EXPECT("report --stream --by program", 0);
	ck_assert_msg(strstr(out, "  dependencies between threads         "
			     "6\n"), "stdout: %s", out);
	CPT_EXPECT("report --stream --by procedure", 0);
	ck_assert_msg(strstr(out, "\n  tail\n    CPU 50 ns (45.0%), critical "
			     "path 50 ns (62.5%), 1 calls, zeroing saves 49 "
			     "ns\n    T2 t2                CPU      50 ns   on "
			     "the CP          -\n"), "stdout: %s", out);
	/* Slack's scratch file cannot be made: the report says why and
	 * gives the rest */
	ck_assert(setenv("TMPDIR", "/nonexistent/cpt-test", 1) == 0);
	CPT_EXPECT("report --stream", 0);
	unsetenv("TMPDIR");
	ck_assert_msg(strstr(out, "note: no Slack: its scratch file in "
			     "/nonexistent/cpt-test failed: No such file or "
			     "directory ($TMPDIR names another directory).") &&
		      strstr(out, "  tail             50  45.0%        50  62.5%"
			     "        49  61.2%         -               49  "
			     "61.2%"), "stdout: %s", out);
	/* --no-slack: none, said so */
	CPT_EXPECT("report --stream --no-slack", 0);
	ck_assert_msg(strstr(out, "note: no Slack (--no-slack).") &&
		      strstr(out, "  tail             50  45.0%        50  62.5%"
			     "        49  61.2%         -               49  "
			     "61.2%"), "stdout: %s", out);
	CPT_EXPECT("report", 0);
	ck_assert_msg(!line[0] && !strstr(out, "streaming"), "stderr: %s",
		      line);
	unlink(path);
}
END_TEST

/* The part of the page @page from @open up to @close, which it must have
 * (the timeline's SVG, a table): its length into *@n, its start
 * returned. */
static const char *page_part(const char *page, const char *open,
			     const char *close, size_t *n)
{
	const char *a = strstr(page, open), *e;

	ck_assert_msg(a, "no %s in the page", open);
	e = strstr(a, close);
	ck_assert_msg(e, "%s not closed", open);
	*n = (size_t)(e - a);
	return a;
}

static const char *page_svg(const char *page, size_t *n)
{
	return page_part(page, "<svg id=\"timeline\"", "</svg>", n);
}

/* The page of the trace at @path, in memory into @mem and streamed into
 * @st (their output read, their directory gone), both made. */
static void both_pages(const char *path, struct cpt_res *mem,
		       struct cpt_res *st)
{
	char dir[64];

	cpt_tmpdir(dir, sizeof(dir), "check_stream_html");
	cpt_run(mem, dir, (const char *const[]){ "report", "--format",
						 "html", path, NULL });
	cpt_run(st, dir, (const char *const[]){ "report", "--stream",
						"--format", "html", path,
						NULL });
	cpt_rmdir(dir);
	ck_assert_msg(mem->status == 0 && st->status == 0,
		      "exit %d and %d: %s %s", mem->status, st->status,
		      mem->err, st->err);
}

/*
 * The barrier example's page, streamed: said so; the timeline the page in
 * memory draws; the what-if rows of tail and slow, the same as in memory
 * (cpt whatif --stream's figures).
 */
START_TEST(test_stream_cpt_html_barrier)
{
	struct cpt_res mem = { 0 }, st = { 0 };
	char path[64];
	const char *a, *b;
	size_t na, nb;

	barrier_file(path);
	both_pages(path, &mem, &st);
	ck_assert_msg(strstr(st.out, "id=\"streamed\"") &&
		      strstr(st.out, "<b>the critical path</b>, ends on T0"),
		      "stdout: %s", st.out);
	a = page_svg(mem.out, &na);
	b = page_svg(st.out, &nb);
	ck_assert_msg(na == nb && !memcmp(a, b, na),
		      "the streamed page's timeline: %.*s", (int)nb, b);
	a = page_part(mem.out, "<table id=\"whatif\"", "</table>", &na);
	b = page_part(st.out, "<table id=\"whatif\"", "</table>", &nb);
	ck_assert_msg(na == nb && !memcmp(a, b, na) && strstr(a, ">tail<") &&
		      strstr(a, ">slow<"), "the streamed page's what-if: %.*s",
		      (int)nb, b);
	cpt_res_free(&mem);
	cpt_res_free(&st);
	unlink(path);
}
END_TEST

/*
 * A page of many threads (301: main and 300 workers) stays a page: 255
 * threads have a row and a line of the threads table each, those the
 * critical path runs on longest in the timeline then those with the most
 * CPU time, and the other 46 share the last row; in memory and streamed
 * alike, to the byte of the timeline.
 */
START_TEST(test_stream_cpt_html_many_threads)
{
	struct cpt_res mem = { 0 }, st = { 0 };
	char path[64];
	const char *a, *b;
	size_t na, nb;
	struct synth s;

	rng_state = 13000;
	gen_trace(&s, 300, 400, false);
	write_temp(&s, path);
	synth_free(&s);
	both_pages(path, &mem, &st);
	a = page_svg(mem.out, &na);
	b = page_svg(st.out, &nb);
	ck_assert_msg(na == nb && !memcmp(a, b, na),
		      "the streamed page draws another timeline");
	ck_assert_msg(cpt_count(a, "class=\"rail\"") == 255 &&
		      strstr(a, "46 other threads: "),
		      "timeline: %.*s", (int)na, a);
	for (int m = 0; m < 2; m++) {
		const char *pg = m ? st.out : mem.out;
		const char *t = strstr(pg, "<table id=\"threads\"");

		ck_assert(t);
		ck_assert_msg(cpt_count(t, "<tr data-p=\"\"><td class=\"name\" "
				       "data-v=") == 255 &&
			      strstr(pg, "255 threads have a row each") &&
			      strstr(pg, "46 more threads not shown"),
			      "%s page: %s", m ? "streamed" : "in-memory", t);
	}
	cpt_res_free(&mem);
	cpt_res_free(&st);
	unlink(path);
}
END_TEST

/*
 * The runtime's notes (INFO note.*) are repeated by the streamed report
 * as by the in-memory one, text and JSON, in the same order (the
 * streamed report once dropped them: "Unexplained waiting" was lost on
 * exactly the traces too large to read in memory).
 */
START_TEST(test_stream_cpt_runtime_notes)
{
	static char out[65536];
	static const char info[] = "note.spin\0Spinning: thread 2 spun 40 ms."
		"\0note.unexplained\0Unexplained waiting: thread 1 was "
		"blocked 31 ms.";
	static const char *const modes[] = { "report", "report --stream" };
	char path[64], line[2048], args[64];
	struct synth s;

	synth_barrier_example(&s, true);
	synth_raw_block(&s, CP_BLOCK_INFO, 0, info, sizeof(info));
	write_temp(&s, path);
	synth_free(&s);
	for (int m = 0; m < 2; m++) {
		const char *u, *sp;

		CPT_EXPECT(modes[m], 0);
		u = strstr(out, "  note: Unexplained waiting: thread 1 was "
			    "blocked 31 ms.\n");
		sp = strstr(out, "  note: Spinning: thread 2 spun 40 ms.\n");
		ck_assert_msg(u && sp && u < sp, "%s: %s", modes[m], out);
		snprintf(args, sizeof(args), "%s --format json", modes[m]);
		CPT_EXPECT(args, 0);
		ck_assert_msg(strstr(out, "\"notes\": [\n    \"Unexplained "
				     "waiting: thread 1 was blocked 31 ms.\",\n"
				     "    \"Spinning: thread 2 spun 40 ms.\""),
			      "%s: %s", args, out);
	}
	unlink(path);
}
END_TEST

/*
 * The streamed headline of a procedure the CPU profile underrates, with
 * the other threads' busy share that Slack's walk measures.  By hand: T0
 * runs init for 100, then creates T1..T4, which run work for 100 each.
 * CPU time 500: init 20%, work 80%; critical path init then work, 200:
 * 50% each.  While init runs the others do not exist yet: busy 0%.
 * Without Slack's file the walk does not run, and a note says so.
 */
START_TEST(test_stream_cpt_headline_busy)
{
	static char out[65536];
	char path[64], line[2048];
	struct synth s;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "init");
	synth_symbol(&s, 0x200, 0x10, "work");
	synth_start(&s, 0, -1);
	synth_call(&s, 0, 0x100, 100);
	synth_spawn(&s, 4);
	for (uint32_t t = 1; t <= 4; t++) {
		synth_call(&s, t, 0x200, 100);
		synth_exit(&s, t, 0);
	}
	synth_join_all(&s, 4, 0);
	write_temp(&s, path);
	synth_free(&s);
	CPT_EXPECT("report --stream", 0);
	ck_assert_msg(strstr(out, "  init: 20% of CPU time, 50% of the "
			     "critical path: the other threads wait while it "
			     "runs (busy 0% of that time).\n") &&
		      !strstr(out, "note:"), "stdout: %s", out);
	CPT_EXPECT("report", 0);
	ck_assert_msg(strstr(out, "  init: 20% of CPU time, 50% of the "
			     "critical path: the other threads wait while it "
			     "runs (busy 0% of that time).\n"),
		      "stdout: %s", out);
	CPT_EXPECT("report --stream --no-slack", 0);
	ck_assert_msg(strstr(out, "  init: 20% of CPU time, 50% of the "
			     "critical path: the run waits on it more than "
			     "its CPU time shows.\n") &&
		      strstr(out, "note: the headline does not say how busy "
			     "the other threads were while init was on the "
			     "critical path"), "stdout: %s", out);
	unlink(path);
}
END_TEST

/*
 * cpt whatif streams a trace over --memory, or with --stream, and says so
 * on stderr, with both predictions; the replay's --cpus is refused there;
 * cpt export, which cannot stream, says who can.  The barrier example by
 * hand: T1's "slow" (30) reaches the barrier last, T2's "tail" (50)
 * follows it, CP 80.  tail x 0.5: 30 + 25 = 55 on the fixed graph and in
 * the replay.  slow x 0 too: the barrier departs when T2 arrives, at 20,
 * and 20 + 25 = 45.
 */
START_TEST(test_stream_cpt_whatif_chooses_the_mode)
{
	static char out[65536];
	char path[64], line[2048];

	barrier_file(path);
	CPT_EXPECT("whatif --scale tail=0.5 --memory 1K", 0);
	ck_assert_msg(strstr(line, path) && strstr(line, "over the budget of "
		      "1 KB: streaming analysis (both predictions, no --cpus "
		      "or --wake)"), "stderr: %s", line);
	ck_assert_msg(strstr(out, "55 ns   -25 ns (-31.2%)") &&
		      strstr(out, "simulated new run time              55 ns"),
		      "stdout: %s", out);
	CPT_EXPECT("whatif --stream --format json --scale tail=0.5 "
		   "--scale slow=0", 0);
	ck_assert_msg(strstr(line, "streaming analysis (--stream"),
		      "stderr: %s", line);
	ck_assert_msg(strstr(out, "\"length_before\": 80,") &&
		      strstr(out, "\"length_after_fixed\": 45,") &&
		      strstr(out, "\"length_after\": 45,") &&
		      strstr(out, "\"length_before_sim\": 80,"),
		      "stdout: %s", out);
	CPT_EXPECT("whatif --stream --cpus 2 --scale tail=0.5", 2);
	ck_assert_msg(strstr(line, "--stream cannot give --cpus"),
		      "stderr: %s", line);
	CPT_EXPECT("whatif --scale tail=0.5", 0);
	ck_assert_msg(!line[0] && strstr(out, "simulated new run time") &&
		      strstr(out, "55 ns   -25 ns (-31.2%)"), "stderr: %s",
		      line);
	CPT_EXPECT("export --format folded --memory 1K", 1);
	ck_assert_msg(strstr(line, "`cpt report`, `cpt whatif` and `cpt "
			     "paths` can stream it"), "stderr: %s", line);
	unlink(path);
}
END_TEST

/* The "length" values of a JSON document, in order, into @len. */
static uint32_t json_lengths(const char *doc, uint64_t *len, uint32_t max)
{
	uint32_t n = 0;

	for (const char *q = doc; n < max && (q = strstr(q, "\"length\": "));
	     q++)
		len[n++] = strtoull(q + 10, NULL, 10);
	return n;
}

/*
 * cpt paths streams a trace over --memory, or with --stream, and says so;
 * --full, which spells paths edge by edge, is refused there.  The barrier
 * example's paths by hand (ns): T1's slow (30) reaches the barrier last,
 * T2's tail (50) follows, and the path ends at T2's exit or, through the
 * join, at T0's: two paths of 80.  T2's own arrival (20) leads to its
 * departure two ways (its program order, and through the barrier), each
 * to either end: four of 70.  T0's arrival (10): two of 60.  Then T1's
 * end (31).  The streamed lengths are the in-memory ones, all the paths
 * there are included.
 */
START_TEST(test_stream_cpt_paths)
{
	static char out[65536], mem[65536];
	char path[64], line[2048];
	uint64_t a[64], b[64];
	uint32_t na, nb;

	barrier_file(path);
	CPT_EXPECT("paths --memory 1K --k 3", 0);
	ck_assert_msg(strstr(line, path) && strstr(line, "over the budget of "
		      "1 KB: streaming analysis (each path's length and "
		      "deviation, not its edges)"), "stderr: %s", line);
	ck_assert_msg(strstr(out, "#1    length 80 ns\n     the critical "
			     "path, ends on T0") &&
		      strstr(out, "#2    length 80 ns\n") &&
		      strstr(out, "#3    length 70 ns  (10 ns shorter"),
		      "stdout: %s", out);
	CPT_EXPECT("paths --stream --k 9", 0);
	ck_assert_msg(strstr(out, "#6    length 70 ns  (10 ns shorter") &&
		      strstr(out, "#7    length 60 ns  (20 ns shorter") &&
		      strstr(out, "#8    length 60 ns  (20 ns shorter") &&
		      strstr(out, "#9    length 31 ns  (49 ns shorter") &&
		      strstr(out, "through barrier#1"), "stdout: %s", out);
	CPT_EXPECT("paths --stream --full 2", 2);
	ck_assert_msg(strstr(line, "--stream cannot give --full"),
		      "stderr: %s", line);
	CPT_EXPECT("paths --k 64 --format json", 0);
	memcpy(mem, out, sizeof(mem));
	CPT_EXPECT("paths --stream --k 64 --format json", 0);
	ck_assert_msg(strstr(out, "\"streamed\": true") &&
		      strstr(out, "\"paths_cut\": false"), "stdout: %s", out);
	na = json_lengths(out, a, 64);
	nb = json_lengths(mem, b, 64);
	ck_assert_msg(na == nb && na > 3 && na < 64, "%u paths streamed, %u "
		      "in memory", na, nb);
	for (uint32_t i = 0; i < na; i++)
		ck_assert_msg(a[i] == b[i], "path %u: %" PRIu64 " streamed, %"
			      PRIu64 " in memory", i, a[i], b[i]);
	unlink(path);
}
END_TEST

/*
 * --strict, streamed: the barrier example cut before its END block is
 * refused in one line by both streaming verbs, and salvaged without it.
 */
START_TEST(test_stream_cpt_strict)
{
	static char out[65536];
	char path[64], line[2048];
	struct synth s;
	uint8_t *buf;
	size_t len;

	synth_barrier_example(&s, true);
	len = synth_encode(&s, &buf);
	synth_free(&s);
	write_cut(buf, len / 2, path);
	free(buf);
	CPT_EXPECT("whatif --stream --strict --scale tail=0.5", 1);
	ck_assert_msg(strstr(line, "partial trace") &&
		      strstr(line, "(--strict)"), "stderr: %s", line);
	CPT_EXPECT("report --stream --strict", 1);
	ck_assert_msg(strstr(line, "(--strict)"), "stderr: %s", line);
	CPT_EXPECT("report --stream", 0);
	ck_assert_msg(strstr(out, "PARTIAL"), "stdout: %s", out);
	CPT_EXPECT("report --stream --format json", 0);
	ck_assert_msg(strstr(out, "\"partial\": true") &&
		      strstr(out, "\"partial_reason\": \""), "stdout: %s", out);
	unlink(path);
}
END_TEST

/*
 * Every path is at most the sum of the useful times, which must fit in 64
 * bits: T0 working 2^63 + 1 ns and T1 2^63 - 1 (each thread's own clock
 * fits, their sum does not) are refused in one line by the in-memory and
 * the streaming verbs alike, where the graph's lengths would wrap (a
 * fuzzed trace once gave a critical path of 2^64 ns and tripped the CPM's
 * invariant check).  One nanosecond less in T1 and the trace is read.
 */
START_TEST(test_stream_useful_sum_past_64_bits)
{
	static char out[65536];
	char path[64], line[2048];
	struct synth s;

	for (int fits = 0; fits <= 1; fits++) {
		synth_init(&s);
		synth_start(&s, 0, -1);
		synth_create(&s, 0, 1, 1);
		synth_start(&s, 1, 0);
		synth_exit(&s, 0, (uint64_t)1 << 63);
		synth_exit(&s, 1, ((uint64_t)1 << 63) - fits - 1);
		write_temp(&s, path);
		synth_free(&s);
		if (fits) {
			CPT_EXPECT("report", 0);
			CPT_EXPECT("report --stream", 0);
			unlink(path);
			continue;
		}
		CPT_EXPECT("report", 1);
		ck_assert_msg(strstr(line, path) && strstr(line,
			      "useful times add up past 2^64-1 ns") &&
			      strchr(line, '\n') == line + strlen(line) - 1,
			      "stderr: %s", line);
		CPT_EXPECT("report --stream", 1);
		ck_assert_msg(strstr(line, "useful times add up past 2^64-1 "
				     "ns"), "stderr: %s", line);
		CPT_EXPECT("paths", 1);
		ck_assert_msg(strstr(line, "useful times add up past 2^64-1 "
				     "ns"), "stderr: %s", line);
		unlink(path);
	}
}
END_TEST

/*
 * A what-if whose prediction would pass 2^64-1 ns: T1 runs region X twice
 * for 2^61 ns each.  Scaled by 2 the prediction is 2^63 + 1 ns (T0 ends 1 ns after) and the
 * prediction is given (in memory, streamed and by default); scaled by 6
 * each segment stays below the per-segment cap (1.8e19) but the two add
 * up to 1.5 * 2^64: every way refuses in one line instead of printing a
 * wrapped length.
 */
START_TEST(test_stream_whatif_past_64_bits)
{
	static char out[65536];
	char path[64], line[2048];
	static const char *const modes[] = { "", "--in-memory ", "--stream " };
	struct synth s;

	synth_init(&s);
	synth_string(&s, 1, "X");
	synth_start(&s, 0, -1);
	synth_create(&s, 0, 1, 1);
	synth_start(&s, 1, 0);
	for (int k = 0; k < 2; k++) {
		synth_region_begin(&s, 1, 0, 1);
		synth_region_end(&s, 1, (uint64_t)1 << 61, 1);
	}
	synth_exit(&s, 1, 0);
	synth_exit(&s, 0, 1);
	write_temp(&s, path);
	synth_free(&s);
	for (int m = 0; m < 3; m++) {
		const char *msg, *end;
		char args[128];

		snprintf(args, sizeof(args), "whatif %s--scale X=2 "
			 "--format json", modes[m]);
		CPT_EXPECT(args, 0);
		ck_assert_msg(strstr(out, "\"length_after\": "
			      "9223372036854775809,"), "%s: %.600s",
			      args, out);
		snprintf(args, sizeof(args), "whatif %s--scale X=6", modes[m]);
		CPT_EXPECT(args, 1);
		/* the last line of stderr, its only one but for --stream's
		 * line saying the mode */
		msg = strstr(line, ": scaled so, the times could add up past "
			     "2^64-1 ns");
		end = line + strlen(line) - 1;
		ck_assert_msg(strstr(line, path) && msg &&
			      strchr(msg, '\n') == end &&
			      (m == 2 || strchr(line, '\n') == end) &&
			      !out[0], "%s: stderr %s, stdout %.300s", args,
			      line, out);
	}
	unlink(path);
}
END_TEST

/*
 * More objects than are followed: T1 locks 100 mutexes in turn, mutex i
 * held 1000 + i ns; the CP_STREAM_TRACK held longest are followed (their
 * CP held time and CP edges equal memory's), the others have their local
 * figures only, and the report says so (JSON: null CP figures).
 */
START_TEST(test_stream_follows_the_most_held)
{
	static char out[1 << 16];
	char path[64], line[2048];
	struct synth s;
	struct cp_tindex ix;
	struct cp_stream st;
	uint32_t m[100], nfollow = 0;

	synth_init(&s);
	synth_start(&s, 0, -1);
	for (uint32_t i = 0; i < 100; i++)
		m[i] = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	synth_spawn(&s, 1);
	for (uint32_t i = 0; i < 100; i++) {
		synth_lock(&s, 1, 10, 0, m[i]);
		synth_unlock(&s, 1, 1000 + i, m[i]);
	}
	synth_exit(&s, 1, 0);
	synth_join_all(&s, 1, 0);
	compare(&s, true, "100 mutexes");
	write_temp(&s, path);
	synth_free(&s);
	stream_file(path, &ix, &st);
	for (uint32_t i = 0; i < st.nobjs; i++) {
		const struct cp_stream_obj *o = &st.objs[i];
		bool want = o->held_ns >= 1000 + 100 - CP_STREAM_TRACK;

		nfollow += o->tracked;
		ck_assert_msg(o->tracked == want && o->held_ns == 1000 +
			      (o->obj - m[0]) && (!want ||
			      o->cp_held_ns == o->held_ns),
			      "object %u held %" PRIu64 " tracked %d CP held %"
			      PRIu64, o->obj, o->held_ns, o->tracked,
			      o->cp_held_ns);
	}
	ck_assert_msg(nfollow == CP_STREAM_TRACK &&
		      st.nobjs_tracked == nfollow, "followed %u", nfollow);
	cp_stream_free(&st);
	cp_tindex_close(&ix);
	CPT_EXPECT("report --stream --format json", 0);
	ck_assert_msg(strstr(out, "\"cp_held_ns\": null") &&
		      strstr(out, "CP held and CP edges for the 64 objects "
			     "most held and waited for only (64 of 100)"),
		      "stdout: %.2000s", out);
	unlink(path);
}
END_TEST

static Suite *stream_suite(void)
{
	Suite *s = suite_create("stream");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_stream_random_equals_memory);
	tcase_add_test(tc, test_stream_thin_records_run_again);
	tcase_add_test(tc, test_stream_slack_equal_cp_times);
	tcase_add_test(tc, test_stream_slack_shared_walk_ends);
	tcase_add_test(tc, test_stream_slack_of_the_top);
	tcase_add_test(tc, test_stream_no_procedure);
	tcase_add_test(tc, test_stream_paths_equal_memory);
	tcase_add_test(tc, test_stream_sampled_equals_memory);
	tcase_add_test(tc, test_stream_auto_source_symbolized_beside);
	tcase_add_test(tc, test_stream_prefetch_equals_memory);
	tcase_add_test(tc, test_stream_cursor_peek);
	tcase_add_test(tc, test_stream_fixtures_equal_memory);
	tcase_add_test(tc, test_stream_cut_traces_equal_memory);
	tcase_add_test(tc, test_stream_paths_cut_traces);
	tcase_add_test(tc, test_stream_thread_churn);
	tcase_add_test(tc, test_stream_index_waits_for_create);
	tcase_add_test(tc, test_stream_tracks_the_most_useful);
	tcase_add_test(tc, test_stream_follows_the_most_held);
	tcase_add_test(tc, test_stream_handovers_bounded);
	tcase_add_test(tc, test_stream_worst_cases_bounded);
	tcase_add_test(tc, test_stream_read_mostly_folded);
	tcase_add_test(tc, test_stream_objects_retired_bounded);
	tcase_add_test(tc, test_stream_threads_retired_bounded);
	tcase_add_test(tc, test_stream_barrier_hub_ties);
	tcase_add_test(tc, test_stream_views_equal_memory);
	tcase_add_test(tc, test_stream_timeline_equal_memory);
	tcase_add_test(tc, test_stream_cpt_chooses_the_mode);
	tcase_add_test(tc, test_stream_cpt_runtime_notes);
	tcase_add_test(tc, test_stream_cpt_html_barrier);
	tcase_add_test(tc, test_stream_cpt_html_many_threads);
	tcase_add_test(tc, test_stream_many_threads_equal_memory);
	tcase_add_test(tc, test_stream_slack_detached_ends);
	tcase_add_test(tc, test_stream_slack_no_room);
	tcase_add_test(tc, test_stream_cpt_headline_busy);
	tcase_add_test(tc, test_stream_cpt_whatif_chooses_the_mode);
	tcase_add_test(tc, test_stream_cpt_paths);
	tcase_add_test(tc, test_stream_cpt_strict);
	tcase_add_test(tc, test_stream_useful_sum_past_64_bits);
	tcase_add_test(tc, test_stream_whatif_past_64_bits);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stream_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
