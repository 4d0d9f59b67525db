/*
 * check_sreplay.c - the streaming what-if replay (cp_stream_replay.h)
 * against the in-memory one (cp_whatif_trace, cp_replay.h) on synthetic
 * traces: the simulated length with nothing scaled and with the scaling,
 * the reordered and forced acquires and the deadlock fallback must be
 * equal, to the nanosecond and the count.  Random traces mix mutexes and
 * spinlocks taken with and without waiting (tries), rwlocks with SHARED
 * reads and writes, semaphores used as try-locks (a trywait that took the
 * token without waiting: the new order makes some of them forced),
 * semaphore posts taken far ahead, barriers, condition broadcasts,
 * threads created and joined mid-run, nested procedures and regions;
 * scaled by 0, 0.5 and 2, one procedure or several, inclusive and
 * exclusive.  Durations come from 2^20 values, so ties between threads
 * are rare but the order of hand-overs changes with the scaling.  The
 * memory bound: a million mutex hand-overs keep a bounded number of
 * publish records alive.  And `cpt whatif` streams a clean trace by
 * default with the in-memory document, byte for byte.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_par.h"
#include "cp_sampled.h"
#include "cp_stream_replay.h"
#include "cp_tcursor.h"
#include "cp_trace.h"
#include "cp_tracepag.h"
#include "cp_whatif.h"
#include "cpt_cli.h"
#include "synth_graph.h"
#include "trace_synth.h"

#define NPROC 6			/* procedures of the random traces */
#define NWORK 5			/* at most this many workers */

static uint64_t rng_state;

static uint64_t rnd(uint64_t n)
{
	return synth_rand(&rng_state, n);
}

/* A duration: one of 2^20 values. */
static uint64_t dur(void)
{
	return 1 + rnd(1u << 20);
}

/* The random program's objects and open frames. */
struct rgen {
	struct synth *s;
	uint32_t n;		/* workers T1..Tn; Tn+1 created by T1 */
	uint32_t m, spin, rw, bar, cond, sem, trysem;
	uint64_t posts[256];	/* semaphore posts not yet taken */
	uint32_t nposts;
	uint64_t tok;		/* trysem: the latest post, 0 none */
	uint32_t depth[SYNTH_MAXT];
	bool region[SYNTH_MAXT][16];
};

static uint64_t paddr(uint64_t i)
{
	return 0x1000 + 0x100 * i;
}

/* rg_trace writes no procedure event (the samples' stacks then are the
 * procedures, cpt's default) */
static bool rg_no_procs;

/* A call of a random procedure (none with rg_no_procs: the next
 * event's segment is the work). */
static void rg_call(struct rgen *g, uint32_t tid)
{
	uint64_t p = rnd(NPROC), d = dur();

	if (!rg_no_procs)
		synth_call(g->s, tid, paddr(p), d);
}

/* A frame opened or closed, or a call. */
static void rg_frame(struct rgen *g, uint32_t tid)
{
	uint32_t *d = &g->depth[tid];
	uint64_t r = rnd(4);

	if (rg_no_procs)
		return;

	if (r == 0 && *d < 16) {
		g->region[tid][*d] = rnd(3) == 0;
		if (g->region[tid][(*d)++])
			synth_region_begin(g->s, tid, dur(), 1);
		else
			synth_enter(g->s, tid, dur(), paddr(rnd(NPROC)));
	} else if (r == 1 && *d) {
		if (g->region[tid][--*d])
			synth_region_end(g->s, tid, dur(), 1);
		else
			synth_leave(g->s, tid, dur());
	} else {
		rg_call(g, tid);
	}
}

/* A critical section on a mutex or spinlock, waited for or tried. */
static void rg_lock(struct rgen *g, uint32_t tid)
{
	uint32_t o = rnd(3) ? g->m : g->spin;

	synth_lock(g->s, tid, dur(), rnd(2) ? dur() : 0, o);
	rg_call(g, tid);
	synth_unlock(g->s, tid, dur(), o);
}

static void rg_rw(struct rgen *g, uint32_t tid)
{
	if (rnd(3))
		synth_rdlock(g->s, tid, dur(), rnd(2) ? dur() : 0, g->rw);
	else
		synth_wrlock(g->s, tid, dur(), rnd(2) ? dur() : 0, g->rw);
	rg_call(g, tid);
	synth_rwunlock(g->s, tid, dur(), g->rw);
}

/*
 * A semaphore: a post, a wait taking a post (the oldest or any, waiting
 * or not), or the try-lock: a trywait of the one token of @trysem (the
 * latest post, or the initial token), work, the post back.
 */
static void rg_sem(struct rgen *g, uint32_t tid)
{
	uint64_t r = rnd(3);
	uint32_t i;

	if (r == 0) {
		synth_consume(g->s, tid, dur(), false, g->trysem, g->tok,
			      g->tok ? 1 : 0);
		rg_call(g, tid);
		g->tok = synth_publish(g->s, tid, dur(), g->trysem);
	} else if (r == 1 && g->nposts < 256) {
		g->posts[g->nposts++] = synth_publish(g->s, tid, dur(), g->sem);
	} else if (!g->nposts) {
		synth_consume(g->s, tid, dur(), false, g->sem, 0, 0);
	} else {
		i = rnd(3) ? 0 : (uint32_t)rnd(g->nposts);
		synth_consume(g->s, tid, dur(), rnd(2), g->sem, g->posts[i],
			      1);
		g->posts[i] = g->posts[--g->nposts];
	}
}

/* A broadcast some other workers wake from. */
static void rg_cond(struct rgen *g, uint32_t tid)
{
	uint64_t sig = synth_publish(g->s, tid, dur(), g->cond);

	for (uint32_t w = 1; w <= g->n; w++)
		if (w != tid && rnd(2))
			synth_consume(g->s, w, dur(), true, g->cond, sig, 1);
}

/*
 * T@tid holds the try-lock's token across a barrier episode: a thread
 * whose trywait comes in the new order while it is held, before the
 * barrier, blocks the episode; nothing is left to run, and the try that
 * did not wait in the recording is forced.
 */
static void rg_barrier(struct rgen *g, uint32_t tid)
{
	synth_consume(g->s, tid, dur(), false, g->trysem, g->tok,
		      g->tok ? 1 : 0);
	for (uint32_t w = 1; w <= g->n; w++)
		synth_barrier(g->s, w, dur(), dur(), g->bar);
	g->tok = synth_publish(g->s, tid, dur(), g->trysem);
}

static void rg_op(struct rgen *g)
{
	uint32_t tid = 1 + (uint32_t)rnd(g->n);
	uint64_t r = rnd(100);

	if (r < 25)
		rg_frame(g, tid);
	else if (r < 50)
		rg_lock(g, tid);
	else if (r < 62)
		rg_rw(g, tid);
	else if (r < 85)
		rg_sem(g, tid);
	else if (r < 92)
		rg_cond(g, tid);
	else if (r < 97)
		rg_barrier(g, tid);
	else
		for (uint32_t w = 1; w <= g->n; w++)
			synth_barrier(g->s, w, dur(), dur(), g->bar);
}

/*
 * A random trace into @s: T0 spawns @n workers; T1 creates one more
 * thread half-way, which takes the mutex and the semaphore's try-lock
 * too, and joins it at the end; @ops operations.
 */
static void rg_trace(struct synth *s, uint32_t n, uint32_t ops, bool hasw)
{
	static struct rgen g;
	uint32_t x = n + 1;

	memset(&g, 0, sizeof(g));
	synth_init(s);
	s->hasw = hasw;
	s->block_events = 40 + (uint32_t)rnd(400);
	g.s = s;
	g.n = n;
	for (uint32_t i = 0; i < NPROC; i++) {
		char name[16];

		snprintf(name, sizeof(name), "proc%u", i);
		synth_symbol(s, paddr(i), 0x10, name);
	}
	synth_string(s, 1, "phase");
	synth_start(s, 0, -1);
	g.m = synth_obj(s, 0, CP_OBJ_MUTEX, 0);
	g.spin = synth_obj(s, 0, CP_OBJ_SPIN, 0);
	/* in traces of an odd size, an OpenMP task dependence's rwlock:
	 * replayed in its recorded order (decided without a draw, so the
	 * traces are those of before) */
	g.rw = synth_obj(s, 0, CP_OBJ_RWLOCK, ops & 1 ? CP_RWLOCK_ORDERED : 0);
	g.bar = synth_obj(s, 0, CP_OBJ_BARRIER, n);
	g.cond = synth_obj(s, 0, CP_OBJ_COND, 0);
	g.sem = synth_obj(s, 0, CP_OBJ_SEM, 0);
	g.trysem = synth_obj(s, 0, CP_OBJ_SEM, 1);
	synth_spawn(s, n);
	for (uint32_t i = 0; i < ops; i++) {
		if (i == ops / 2) {
			synth_create(s, 1, dur(), x);
			synth_start(s, x, 1);
			for (int k = 0; k < 4; k++) {
				synth_lock(s, x, dur(), rnd(2) ? dur() : 0,
					   g.m);
				synth_unlock(s, x, dur(), g.m);
				synth_consume(s, x, dur(), false, g.trysem,
					      g.tok, g.tok ? 1 : 0);
				g.tok = synth_publish(s, x, dur(), g.trysem);
			}
			synth_exit(s, x, dur());
		}
		rg_op(&g);
	}
	synth_join(s, 1, dur(), true, x);
	for (uint32_t w = 1; w <= n; w++) {
		while (g.depth[w])
			if (g.region[w][--g.depth[w]])
				synth_region_end(s, w, dur(), 1);
			else
				synth_leave(s, w, dur());
		synth_exit(s, w, dur());
	}
	synth_join_all(s, n, dur());
}

/* The scalings of round @k: one procedure by 0, 0.5 or 2, or three. */
static uint32_t scalings(const struct cp_tracepag *tp, uint32_t k,
			 struct cp_whatif_scale *sc)
{
	static const double f[] = { 0.0, 0.5, 2.0 };
	uint32_t n = tp->nprocs;

	if (k < 3) {
		sc[0] = (struct cp_whatif_scale){ tp->procs[(k * 2) % n],
						  f[k] };
		return 1;
	}
	for (uint32_t i = 0; i < 3; i++)
		sc[i] = (struct cp_whatif_scale){ tp->procs[(k + i) % n],
						  f[(k + i) % 3] };
	return 3;
}

/* The figures of @a and @b that the replay gives, equal. */
static void same_replay(const struct cp_whatif_result *a,
			const struct cp_whatif_result *b, const char *what)
{
	ck_assert_msg(a->simulated == b->simulated &&
		      a->deadlock == b->deadlock &&
		      a->length_before_sim == b->length_before_sim &&
		      a->length_after == b->length_after &&
		      a->reordered == b->reordered &&
		      a->forced == b->forced &&
		      a->forced_before == b->forced_before,
		      "%s: streamed sim %d dl %d before %" PRIu64 " after %"
		      PRIu64 " reord %" PRIu64 " forced %" PRIu64 "/%" PRIu64
		      "; in memory sim %d dl %d before %" PRIu64 " after %"
		      PRIu64 " reord %" PRIu64 " forced %" PRIu64 "/%" PRIu64,
		      what, a->simulated, a->deadlock, a->length_before_sim,
		      a->length_after, a->reordered, a->forced_before,
		      a->forced, b->simulated, b->deadlock,
		      b->length_before_sim, b->length_after, b->reordered,
		      b->forced_before, b->forced);
}


/*
 * @s read in memory into @t and @tp; with @sampled the procedures are
 * the samples' stacks (cp_sampled_apply: forced if @drop, else as cpt's
 * default) and *@sid the stacks symbolized for the streamed replay, on
 * @ix's trace.
 */
static void rg_load(struct synth *s, struct cp_trace *t,
		    struct cp_tracepag *tp, bool sampled, bool drop,
		    struct cp_tindex *ix, uint32_t **sid)
{
	char err[256] = "";

	*sid = NULL;
	if (!sampled) {
		synth_graph_load(s, t, tp);
		return;
	}
	synth_graph_load_sampled(s, t, tp, drop ? CP_PROCS_SAMPLED :
					      CP_PROCS_AUTO);
	ck_assert_msg(cp_sampled_symbolize(&ix->t, NULL, sid, err,
					   sizeof(err)) == 0,
		      "symbolize: %s", err);
}

/*
 * Both replays of @s for each of its scalings, @exclusive or inclusive,
 * compared; the procedures from the samples if @sampled (their events
 * dropped if @drop).  Returns the forced acquires seen, in memory, over
 * all.
 */
static uint64_t compare_src(struct synth *s, bool exclusive, bool sampled,
			    bool drop, const char *what)
{
	struct cp_trace t;
	struct cp_tracepag tp;
	struct cp_tindex ix;
	char path[64], err[256] = "", w2[200];
	uint64_t forced = 0;
	uint32_t *sid;

	cpt_write_synth_temp(s, path, sizeof(path), "check_sreplay");
	ck_assert_msg(cp_tindex_open(&ix, path, err, sizeof(err)) == 0,
		      "index: %s", err);
	rg_load(s, &t, &tp, sampled, drop, &ix, &sid);
	ck_assert_msg(!sampled || tp.nprocs, "%s: no sampled procedure",
		      what);
	for (uint32_t k = 0; tp.nprocs && k < 5; k++) {
		struct cp_whatif_scale sc[3];
		uint32_t nsc = scalings(&tp, k, sc);
		struct cp_whatif_result m, r = { 0 };
		struct cp_sreplay rp;

		ck_assert_msg(cp_whatif_trace(&tp, sc, nsc, exclusive, 0,
					      false, &m, err,
					      sizeof(err)) == 0,
			      "%s: whatif: %s", what, err);
		ck_assert_msg(cp_stream_replay_run(&ix, sc, nsc, exclusive,
						   sid, drop, &rp, err,
						   sizeof(err)) == 0,
			      "%s: streaming replay: %s", what, err);
		ck_assert_msg(rp.clean, "%s: not clean: %s", what, rp.why);
		r.length_before = m.length_before;
		r.length_after_fixed = m.length_after_fixed;
		cp_whatif_set_replay(&r, &rp.before, &rp.after);
		snprintf(w2, sizeof(w2), "%s, %s x %g (%u scalings, %s%s)",
			 what, sc[0].name, sc[0].factor, nsc,
			 exclusive ? "exclusive" : "inclusive",
			 sampled ? ", sampled" : "");
		same_replay(&r, &m, w2);
		forced += m.forced + m.forced_before;
	}
	free(sid);
	cp_tindex_close(&ix);
	synth_graph_free(&t, &tp);
	unlink(path);
	return forced;
}

static uint64_t compare(struct synth *s, bool exclusive, const char *what)
{
	return compare_src(s, exclusive, false, false, what);
}

/* Random traces of every primitive: both replays agree exactly; some of
 * them force tries, so that path is compared too.  The survey and the
 * replays read through windows of the file (cp_tcursor_ahead_new): here
 * 1 MB, a few blocks or less than one, by round, over blocks of 5 to 45
 * events in one round in two. */
START_TEST(test_sreplay_random_equals_memory)
{
	static const size_t windows[] = { 1u << 20, 700, 40 };
	size_t old = cp_tpf_set_window(windows[0]);
	uint64_t forced = 0;

	for (int round = 0; round < 80; round++) {
		struct synth s;
		char what[32];

		rng_state = 7000 + (uint64_t)round;
		rg_trace(&s, 1 + (uint32_t)rnd(NWORK),
			 40 + (uint32_t)rnd(round < 70 ? 300 : 3000),
			 round % 2);
		if (round % 2)
			s.block_events = 5 + (uint32_t)rnd(40);
		cp_tpf_set_window(windows[round % 3]);
		snprintf(what, sizeof(what), "round %d", round);
		forced += compare(&s, false, what);
		forced += compare(&s, true, what);
		synth_free(&s);
	}
	cp_tpf_set_window(old);
	ck_assert_msg(forced > 0, "no round forced a try: the forced path "
		      "was not compared");
}
END_TEST

/*
 * Sampled procedures: random traces with samples on every worker, the
 * procedures their stacks (split at the samples' midpoints, cp_sampled.c),
 * with no procedure event (cpt's default for a sampled trace) or with
 * them dropped (--procedures sampled): both replays agree exactly,
 * inclusive and exclusive, for factors 0, 0.5 and 2.
 */
START_TEST(test_sreplay_sampled_equals_memory)
{
	for (int round = 0; round < 40; round++) {
		struct synth s;
		char what[32];
		bool drop = round % 2;

		rng_state = 11000 + (uint64_t)round;
		rg_no_procs = !drop;
		rg_trace(&s, 1 + (uint32_t)rnd(NWORK),
			 40 + (uint32_t)rnd(round < 30 ? 300 : 2000),
			 round % 4 < 2);
		rg_no_procs = false;
		synth_random_samples(&s, &rng_state,
				     5 + (uint32_t)rnd(round < 30 ? 60 : 400),
				     NPROC);
		snprintf(what, sizeof(what), "sampled round %d", round);
		compare_src(&s, false, true, drop, what);
		compare_src(&s, true, true, drop, what);
		synth_free(&s);
	}
}
END_TEST

/*
 * The fixtures by hand.  The barrier example (synth_barrier_example): the
 * replay follows the barrier, T2's "tail" (50) after it: 80; tail x 0.5:
 * 30 + 25 = 55.  The lock example with T1's work 10: T1 asks first at 10,
 * in the recording it waited for T2's unlock at 30; the replay gives it
 * the lock at 10 (crit to 20), T2 at 20 (crit to 30): 30, both acquires
 * reordered (T1 takes no release where it took T2's, T2 T1's where it
 * took none).
 */
START_TEST(test_sreplay_fixtures)
{
	struct synth_lock_example ex = { .kind = CP_OBJ_MUTEX, .t1_work = 10 };
	struct cp_whatif_scale tail = { "tail", 0.5 }, crit = { "crit", 1 };
	struct cp_sreplay rp;
	struct cp_tindex ix;
	struct synth s;
	char path[64], err[256] = "";

	synth_barrier_example(&s, true);
	cpt_write_synth_temp(&s, path, sizeof(path), "check_sreplay");
	synth_free(&s);
	ck_assert(cp_tindex_open(&ix, path, err, sizeof(err)) == 0);
	ck_assert_msg(cp_stream_replay_run(&ix, &tail, 1, false, NULL, false,
					   &rp, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_msg(rp.clean && rp.before.length == 80 &&
		      rp.after.length == 55 && !rp.after.forced &&
		      !rp.after.deadlock, "barrier: %" PRIu64 " -> %" PRIu64,
		      rp.before.length, rp.after.length);
	cp_tindex_close(&ix);
	unlink(path);
	synth_lock_example(&s, &ex);
	cpt_write_synth_temp(&s, path, sizeof(path), "check_sreplay");
	synth_free(&s);
	ck_assert(cp_tindex_open(&ix, path, err, sizeof(err)) == 0);
	ck_assert_msg(cp_stream_replay_run(&ix, &crit, 1, false, NULL, false,
					   &rp, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_msg(rp.clean && rp.before.length == 30 &&
		      rp.after.length == 30 && rp.after.reordered == 2,
		      "lock: %" PRIu64 " -> %" PRIu64 ", %" PRIu64
		      " reordered", rp.before.length, rp.after.length,
		      rp.after.reordered);
	cp_tindex_close(&ix);
	unlink(path);
}
END_TEST

/*
 * A scaled name that is no procedure of the barrier example: the replay,
 * the fixed graph and both at once say so with CP_STREAM_NO_PROC (which
 * `cpt whatif` reports without loading the trace), naming it; a known
 * name beside it changes nothing.
 */
START_TEST(test_sreplay_unknown_name)
{
	struct cp_whatif_scale sc[2] = { { "tail", 0.5 }, { "nosuch", 2 } };
	struct cp_stream_opts so = { .scale = sc, .nscale = 2,
				     .lengths_only = true };
	struct cp_sreplay rp;
	struct cp_tindex ix;
	struct cp_stream st;
	struct synth s;
	char path[64], err[256];
	int r;

	synth_barrier_example(&s, true);
	cpt_write_synth_temp(&s, path, sizeof(path), "check_sreplay");
	synth_free(&s);
	ck_assert(cp_tindex_open(&ix, path, err, sizeof(err)) == 0);
	for (int k = 0; k < 3; k++) {
		err[0] = '\0';
		r = k == 0 ? cp_stream_replay_run(&ix, sc, 2, false, NULL,
						  false, &rp, err,
						  sizeof(err)) :
		    k == 1 ? cp_stream_run(&st, &ix, &so, err, sizeof(err)) :
			     cp_stream_whatif_run(&ix, &so, &st, &rp, err,
						  sizeof(err));
		ck_assert_msg(r == CP_STREAM_NO_PROC &&
			      strstr(err, "no procedure named 'nosuch'"),
			      "run %d: %d '%s'", k, r, err);
	}
	cp_tindex_close(&ix);
	unlink(path);
}
END_TEST

/*
 * Which procedures what-if takes by default (cp_stream_procs_instrumented,
 * from the index's look at the threads' first blocks): a trace without
 * samples, the instrumented ones; with samples, the instrumented ones
 * only when some thread's first block holds an ENTER or a REGION_BEGIN.
 * T0 makes T1 and T2, each working 100 ns before its EXIT; case 0 has no
 * samples, the others one sample a thread; in case 2 T2 calls a
 * procedure in its first block, in case 3 in its second (5 events a
 * block: the START and four locks first), in case 4 a region begins in
 * T1's first block.
 */
START_TEST(test_sreplay_procs_instrumented)
{
	static const bool want[] = { true, false, true, false, true };
	const uint64_t pc = 0x1008;

	for (int k = 0; k < 5; k++) {
		struct cp_tindex ix;
		struct synth s;
		char path[64], err[256] = "";
		uint32_t m;

		synth_init(&s);
		s.block_events = 5;
		synth_symbol(&s, 0x1000, 0x10, "proc0");
		synth_string(&s, 1, "region1");
		synth_start(&s, 0, -1);
		m = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
		synth_spawn(&s, 2);
		if (k == 3)
			for (int i = 0; i < 2; i++) {
				synth_lock(&s, 2, 1, 0, m);
				synth_unlock(&s, 2, 1, m);
			}
		if (k == 2 || k == 3)
			synth_call(&s, 2, 0x1000, 100);
		if (k == 4) {
			synth_region_begin(&s, 1, 10, 1);
			synth_region_end(&s, 1, 10, 1);
		}
		for (uint32_t t = 1; t <= 2; t++) {
			if (k)
				synth_sample(&s, t, 50, 50, 1000, 0, &pc, 1);
			synth_exit(&s, t, 100);
		}
		synth_join_all(&s, 2, 5);
		cpt_write_synth_temp(&s, path, sizeof(path), "check_sreplay");
		synth_free(&s);
		ck_assert_msg(cp_tindex_open(&ix, path, err, sizeof(err)) == 0,
			      "%s", err);
		ck_assert_msg(cp_stream_procs_instrumented(&ix) == want[k],
			      "case %d", k);
		cp_tindex_close(&ix);
		unlink(path);
	}
}
END_TEST

/*
 * A million mutex hand-overs between two threads (each lock waits for
 * the other's unlock), replayed unscaled and with both threads' "crit"
 * halved: every PUBLISH makes a record, and the freeing rule keeps the
 * live ones bounded (by the sweep's threshold, 1024, twice over at
 * most), not growing with the hand-overs.
 */
START_TEST(test_sreplay_bounded_records)
{
	struct cp_whatif_scale sc = { "crit", 0.5 };
	struct cp_sreplay rp;
	struct cp_tindex ix;
	struct synth s;
	char path[64], err[256] = "";
	uint32_t m;

	synth_init(&s);
	s.block_events = 4000;
	synth_symbol(&s, 0x100, 0x10, "crit");
	synth_start(&s, 0, -1);
	m = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	synth_spawn(&s, 2);
	for (uint32_t i = 0; i < 500000; i++)
		for (uint32_t tid = 1; tid <= 2; tid++) {
			synth_lock(&s, tid, 3, i || tid == 2 ? 5 : 0, m);
			synth_call(&s, tid, 0x100, 8);
			synth_unlock(&s, tid, 1, m);
		}
	synth_exit(&s, 1, 1);
	synth_exit(&s, 2, 1);
	synth_join_all(&s, 2, 1);
	cpt_write_synth_temp(&s, path, sizeof(path), "check_sreplay");
	synth_free(&s);
	ck_assert(cp_tindex_open(&ix, path, err, sizeof(err)) == 0);
	ck_assert_msg(cp_stream_replay_run(&ix, &sc, 1, false, NULL, false,
					   &rp, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_msg(rp.clean && !rp.after.deadlock &&
		      rp.records == 1000000 && rp.live_max <= 2048,
		      "%" PRIu64 " records made, %" PRIu64 " alive at most",
		      rp.records, rp.live_max);
	cp_tindex_close(&ix);
	unlink(path);
}
END_TEST

/* Run cpt in @dir with each of the three argument lists @args into @r. */
static void run3(const char *dir, const char *const *const args[3],
		 struct cpt_res r[3])
{
	for (int k = 0; k < 3; k++) {
		r[k] = (struct cpt_res){ 0 };
		cpt_run(&r[k], dir, args[k]);
	}
}

static void free3(struct cpt_res r[3])
{
	for (int k = 0; k < 3; k++)
		cpt_res_free(&r[k]);
}

/*
 * `cpt whatif` streams a clean trace by default and writes the in-memory
 * document byte for byte, text and JSON; --stream gives the same
 * document with its line on stderr.  The barrier example (tail x 0.5:
 * 55 both ways).
 */
START_TEST(test_sreplay_cpt_same_document)
{
	static const char *const fmts[] = { "text", "json" };
	char path[64], dir[64];
	struct synth s;

	synth_barrier_example(&s, true);
	cpt_write_synth_temp(&s, path, sizeof(path), "check_sreplay");
	synth_free(&s);
	cpt_tmpdir(dir, sizeof(dir), "check_sreplay");
	for (int k = 0; k < 2; k++) {
		const char *mem[] = { "whatif", path, "--in-memory", "--format",
				      fmts[k], "--scale", "tail=0.5", NULL };
		const char *def[] = { "whatif", path, "--format", fmts[k],
				      "--scale", "tail=0.5", NULL };
		const char *str[] = { "whatif", path, "--stream", "--format",
				      fmts[k], "--scale", "tail=0.5", NULL };
		const char *const *args[3] = { mem, def, str };
		struct cpt_res r[3], *a = &r[0], *b = &r[1], *c = &r[2];

		run3(dir, args, r);
		ck_assert_msg(a->status == 0 && b->status == 0 && c->status == 0,
			      "exit %d %d %d: %s", a->status, b->status,
			      c->status, c->err);
		ck_assert_msg(strstr(a->out, "55") &&
			      !strcmp(a->out, b->out) && !strcmp(a->out, c->out),
			      "in memory:\n%s\ndefault:\n%s\n--stream:\n%s",
			      a->out, b->out, c->out);
		ck_assert_msg(!b->err[0] && strstr(c->err, "streaming analysis"),
			      "stderr: '%s' / '%s'", b->err, c->err);
		free3(r);
	}
	cpt_rmdir(dir);
	unlink(path);
}
END_TEST

/*
 * The same on a sampled trace (procedures only in the samples' stacks,
 * cpt's default): the default and --stream write the in-memory document
 * byte for byte, text and JSON, inclusive and exclusive, the replay given.
 */
START_TEST(test_sreplay_cpt_sampled_same_document)
{
	static const char *const fmts[] = { "text", "json" };
	char path[64], dir[64];
	struct synth s;

	rng_state = 4242;
	rg_no_procs = true;
	rg_trace(&s, 3, 400, true);
	rg_no_procs = false;
	synth_random_samples(&s, &rng_state, 80, NPROC);
	cpt_write_synth_temp(&s, path, sizeof(path), "check_sreplay");
	synth_free(&s);
	cpt_tmpdir(dir, sizeof(dir), "check_sreplay");
	for (int k = 0; k < 4; k++) {
		/* inclusive: the list ends before it */
		const char *x = k < 2 ? NULL : "--exclusive";
		const char *mem[] = { "whatif", path, "--in-memory", "--format",
				      fmts[k % 2], "--scale", "proc1=0.5",
				      "--scale", "proc2=0", x, NULL };
		const char *def[] = { "whatif", path, "--format", fmts[k % 2],
				      "--scale", "proc1=0.5", "--scale",
				      "proc2=0", x, NULL };
		const char *str[] = { "whatif", path, "--stream", "--format",
				      fmts[k % 2], "--scale", "proc1=0.5",
				      "--scale", "proc2=0", x, NULL };
		const char *const *args[3] = { mem, def, str };
		struct cpt_res r[3], *a = &r[0], *b = &r[1], *c = &r[2];

		run3(dir, args, r);
		ck_assert_msg(!a->status && !b->status && !c->status,
			      "exit %d %d %d: %s%s", a->status, b->status,
			      c->status, a->err, c->err);
		ck_assert_msg(strstr(a->out, k % 2 ? "\"simulated\"" :
				     "simulated") &&
			      !strcmp(a->out, b->out) &&
			      !strcmp(a->out, c->out),
			      "in memory:\n%s\ndefault:\n%s\n--stream:\n%s",
			      a->out, b->out, c->out);
		ck_assert_msg(strstr(c->err, "streaming analysis") &&
			      !strcmp(a->err, b->err),
			      "stderr: '%s' / '%s' / '%s'", a->err, b->err,
			      c->err);
		free3(r);
	}
	cpt_rmdir(dir);
	unlink(path);
}
END_TEST

/*
 * A trace the reader repairs, written to a temporary file named into
 * @path: T1 runs "slow" (30), then waits on a condition variable for a
 * signal (sequence 5) nobody sent, which the reader takes to depend on
 * nothing.
 */
static void write_repaired_trace(char *path, size_t len)
{
	struct synth s;
	uint32_t cond;

	synth_init(&s);
	synth_symbol(&s, 0x100, 0x10, "slow");
	synth_start(&s, 0, -1);
	cond = synth_obj(&s, 0, CP_OBJ_COND, 0);
	synth_spawn(&s, 1);
	synth_call(&s, 1, 0x100, 30);
	synth_consume(&s, 1, 1, true, cond, 5, 1);
	synth_exit(&s, 1, 1);
	synth_join_all(&s, 1, 1);
	cpt_write_synth_temp(&s, path, len, "check_sreplay");
	synth_free(&s);
}

/*
 * The repaired trace (write_repaired_trace), loaded by default, so the
 * document is the in-memory one (REPAIRED); streamed (--stream), the
 * fixed graph and a note saying why there is no replay.
 */
START_TEST(test_sreplay_cpt_repaired_trace)
{
	const char *mem[] = { "whatif", NULL, "--in-memory", "--scale",
			      "slow=0.5", NULL };
	const char *def[] = { "whatif", NULL, "--scale", "slow=0.5", NULL };
	const char *str[] = { "whatif", NULL, "--stream", "--scale",
			      "slow=0.5", NULL };
	const char *const *args[3] = { mem, def, str };
	struct cpt_res r[3], *a = &r[0], *b = &r[1], *c = &r[2];
	char path[64], dir[64];

	write_repaired_trace(path, sizeof(path));
	mem[1] = def[1] = str[1] = path;
	cpt_tmpdir(dir, sizeof(dir), "check_sreplay");
	run3(dir, args, r);
	ck_assert_msg(a->status == 0 && !strcmp(a->out, b->out) &&
		      strstr(a->out, "REPAIRED"), "in memory (exit %d):\n%s%s"
		      "\ndefault (exit %d):\n%s", a->status, a->out, a->err,
		      b->status, b->out);
	ck_assert_msg(c->status == 0 &&
		      strstr(c->out, "no replay,\n  because object") &&
		      strstr(c->out, "fixed-graph prediction") &&
		      !strstr(c->out, "simulated new run time"),
		      "--stream (exit %d):\n%s%s", c->status, c->out, c->err);
	free3(r);
	cpt_rmdir(dir);
	unlink(path);
}
END_TEST

/* cp_stream_opts.symbolize: cp_sampled_symbolize, no debug path. */
static int symbolize(void *ctx, struct cp_trace *t, uint32_t **sid,
		     char *err, size_t errlen)
{
	(void)ctx;
	return cp_sampled_symbolize(t, NULL, sid, err, errlen);
}

/* Whether the what-if results @a and @b are equal field by field. */
static bool same_result(const struct cp_whatif_result *a,
			const struct cp_whatif_result *b)
{
	return a->length_before == b->length_before &&
	       a->length_after_fixed == b->length_after_fixed &&
	       a->length_before_sim == b->length_before_sim &&
	       a->length_after == b->length_after &&
	       a->simulated == b->simulated && a->deadlock == b->deadlock &&
	       a->reordered == b->reordered && a->forced == b->forced &&
	       a->forced_before == b->forced_before &&
	       a->scaled_ns == b->scaled_ns && a->cpus == b->cpus &&
	       a->wake == b->wake;
}

/*
 * cp_stream_whatif_each on the file at @path, with the scalings @sc[n]
 * (instrumented procedures, or the samples' with @sampled; inclusive,
 * or @exclusive), equals
 * cp_stream_whatif_run for each scaling alone: the same return and the
 * same figures.  Run with the jobs on two threads and on one (the
 * survey, which the replays share, then comes first).
 */
static void each_equals_alone(const char *path, bool sampled,
			      bool exclusive,
			      const struct cp_whatif_scale *sc, uint32_t n,
			      const char *what)
{
	struct cp_stream_opts so = {
		.exclusive = exclusive,
		.src = sampled ? CP_STREAM_SRC_SAMPLED : CP_STREAM_SRC_AUTO,
		.symbolize = sampled ? symbolize : NULL,
		.lengths_only = true, .nscale = 1,
	};
	struct cp_whatif_result r[8], one;
	struct cp_tindex ix;
	char err[256] = "";
	int ret[8];

	ck_assert(n <= 8);
	for (int par = 0; par < 2; par++) {
		size_t old = cp_par_set_threshold(par ? 0 : SIZE_MAX);

		ck_assert_msg(cp_tindex_open(&ix, path, err, sizeof(err)) ==
			      0, "index: %s", err);
		memset(r, 0xa5, sizeof(r));
		ck_assert_msg(cp_stream_whatif_each(&ix, &so, NULL, sc, n, r,
						    ret) == 0,
			      "%s: each failed", what);
		cp_tindex_close(&ix);
		for (uint32_t i = 0; i < n; i++) {
			struct cp_stream st;
			struct cp_sreplay rp;
			int want;

			ck_assert(cp_tindex_open(&ix, path, err,
						 sizeof(err)) == 0);
			so.scale = &sc[i];
			want = cp_stream_whatif_run(&ix, &so, &st, &rp, err,
						    sizeof(err));
			if (!want) {
				cp_stream_whatif_result(&st, &rp, &one);
				cp_stream_free(&st);
			}
			so.scale = NULL;
			cp_tindex_close(&ix);
			ck_assert_msg(ret[i] == want, "%s, %s x %g (%s): "
				      "each %d, alone %d", what, sc[i].name,
				      sc[i].factor, par ? "two threads" :
				      "one", ret[i], want);
			ck_assert_msg(want || same_result(&r[i], &one),
				      "%s, %s x %g (%s): each gives %" PRIu64
				      " / %" PRIu64 " / %" PRIu64 ", alone %"
				      PRIu64 " / %" PRIu64 " / %" PRIu64,
				      what, sc[i].name, sc[i].factor,
				      par ? "two threads" : "one",
				      r[i].length_after_fixed,
				      r[i].length_before_sim,
				      r[i].length_after,
				      one.length_after_fixed,
				      one.length_before_sim, one.length_after);
		}
		cp_par_set_threshold(old);
	}
}

/*
 * The what-if of several scalings at once (cp_stream_whatif_each: the
 * page's top procedures), which shares one survey and one unscaled
 * replay among them and follows every scaling's fixed graph in one pass
 * (a lane each), gives each scaling what it gets alone: random traces
 * of every primitive, instrumented or sampled procedures, inclusive and
 * exclusive, a name no procedure has among them; and a trace the replay
 * cannot take (repaired: no replay, the fixed graph only) for each.
 */
START_TEST(test_sreplay_each_equals_alone)
{
	for (int round = 0; round < 12; round++) {
		struct cp_whatif_scale sc[5];
		struct cp_trace t;
		struct cp_tracepag tp;
		struct synth s;
		char path[64], what[32];
		bool sampled = round % 3 == 2;
		uint32_t n;

		rng_state = 21000 + (uint64_t)round;
		rg_no_procs = sampled;
		rg_trace(&s, 1 + (uint32_t)rnd(NWORK),
			 40 + (uint32_t)rnd(300), round % 2);
		rg_no_procs = false;
		if (sampled)
			synth_random_samples(&s, &rng_state,
					     5 + (uint32_t)rnd(60), NPROC);
		cpt_write_synth_temp(&s, path, sizeof(path),
				     "check_sreplay");
		if (sampled)
			synth_graph_load_sampled(&s, &t, &tp,
						 CP_PROCS_SAMPLED);
		else
			synth_graph_load(&s, &t, &tp);
		n = scalings(&tp, (uint32_t)round % 5, sc);
		sc[n++] = (struct cp_whatif_scale){ "nosuch", 0.5 };
		if (tp.nprocs)
			sc[n++] = (struct cp_whatif_scale){ tp.procs[0], 0.0 };
		snprintf(what, sizeof(what), "round %d", round);
		if (tp.nprocs)
			each_equals_alone(path, sampled, round % 4 >= 2, sc,
					  n, what);
		synth_graph_free(&t, &tp);
		synth_free(&s);
		unlink(path);
	}
}
END_TEST

/* The repaired trace of test_sreplay_cpt_repaired_trace, each alone. */
START_TEST(test_sreplay_each_repaired)
{
	static const struct cp_whatif_scale sc[] = {
		{ "slow", 0.5 }, { "nosuch", 2 }, { "slow", 0 },
	};
	char path[64];

	write_repaired_trace(path, sizeof(path));
	each_equals_alone(path, false, false, sc, 3, "repaired");
	unlink(path);
}
END_TEST

static Suite *sreplay_suite(void)
{
	Suite *s = suite_create("sreplay");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_sreplay_random_equals_memory);
	tcase_add_test(tc, test_sreplay_sampled_equals_memory);
	tcase_add_test(tc, test_sreplay_fixtures);
	tcase_add_test(tc, test_sreplay_unknown_name);
	tcase_add_test(tc, test_sreplay_procs_instrumented);
	tcase_add_test(tc, test_sreplay_bounded_records);
	tcase_add_test(tc, test_sreplay_cpt_same_document);
	tcase_add_test(tc, test_sreplay_cpt_sampled_same_document);
	tcase_add_test(tc, test_sreplay_cpt_repaired_trace);
	tcase_add_test(tc, test_sreplay_each_equals_alone);
	tcase_add_test(tc, test_sreplay_each_repaired);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sreplay_suite());
	int nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
