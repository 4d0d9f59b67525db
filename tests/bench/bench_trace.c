/*
 * bench_trace.c - the whole analyzer on generated traces of 10^5 .. 10^7
 * PAG edges (not a test: run by hand, figures in
 * doc/measurements/2026-11-23-graph-bench.md, section "End-to-end on
 * traces").
 *
 * The generator
 * -------------
 * A discrete-event simulation of a SPLASH-style program writes a .cpt file
 * in the exact format of cp_trace_format.h, encoded as the runtime encodes
 * it (64 KiB per-thread buffers flushed as EVENTS blocks, so the file
 * interleaves threads; OBJ_DEF in the stream of the first thread to touch
 * an object; varint dt from the thread's previous vertex; ENTER addresses
 * as deltas within a block).  T threads (default 8): thread 0 reads its
 * input, creates the others and works with them; every round is
 *   phase A  each thread runs call trees of a compute kernel (42 procedures
 *            with symbols, nesting up to 6 deep, one recursive) and now and
 *            then updates shared state under one of four mutexes (one hot);
 *            barrier 0;
 *   phase B  a bounded work queue: thread 0 makes tasks and enqueues them
 *            (work-queue items, an untracked queue lock, semaphores "items"
 *            and "slots" with initial tokens), the others dequeue and
 *            process them and post "done", which thread 0 collects; stop
 *            items end the phase; barrier 1;
 * and at the end thread 0 joins everyone and writes its output.  Threads
 * always advance in global time order (the runnable thread with the
 * smallest clock moves next), so a lock is taken by whoever asks first,
 * contended locks, semaphores and barriers really block (REQUEST, then a
 * WAIT vertex after a wake-up latency of 2-8 us), and the trace is what the
 * runtime would have written.  The generator also runs the online
 * algorithm, so the END block's online length must equal the offline CP
 * length: checked below, a self-test of generator and analyzer.
 *
 * The measurements
 * ----------------
 * Per size, in a fresh child process: cp_trace_read, cp_tracepag_build,
 * cp_cpm_run, cp_profile_compute with the options `cpt report` uses (top 20
 * procedures get zeroing, Slack and MBM over k = 100 paths; inclusive) on
 * that CPM (cpt report runs it once, inside the profile), the same for
 * every procedure (top 0), and cp_kpaths_find for each k.  Wall
 * and process CPU time, the peak of live heap bytes above the phase's start
 * (malloc wrappers below: exact and per phase) and the child's max RSS so
 * far (getrusage: includes the mapped trace file while it is read).  Then
 * the real CLI end to end, each run a child process timed with wait4():
 * cpt report (json, text, html), cpt paths --k 10 and 1000 (text, json),
 * cpt export (chrome aggregated by default and with --min-slice 0, folded),
 * output to a file whose size is shown.
 *
 * usage: bench_trace [-e EDGES,..] [-n EVENTS] [-t THREADS] [-k K,..]
 *                    [-d DIR] [-c CPT] [-s SEED] [-f TRACE] [-g] [-x]
 *                    [-C] [-A] [-K]
 *   -e  sizes in PAG edges (default 1e5,1e6,1e7)
 *   -n  also a trace of about this many events for the CLI (default 1e6,
 *       0: none)
 *   -f  also measure an existing trace (repeatable), e.g. a real run's;
 *   -g  generate the traces only;  -x  skip the library phases;
 *   -C  skip the CLI runs;  -A  run the CLI on every trace, not only the
 *       -n one;  -K  keep the CLI's output files (DIR/out-N)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cp_cpm.h"
#include "cp_crc32c.h"
#include "cp_kpaths.h"
#include "cp_mbm.h"
#include "cp_profile.h"
#include "cp_slack.h"
#include "cp_trace.h"
#include "cp_trace_format.h"
#include "cp_tracepag.h"
#include "cp_varint.h"
#include "cp_zero.h"

#ifndef CP_BINARY_DIR
#define CP_BINARY_DIR "."
#endif

#include "bench_cli.h"
#include "bench_heap.h"

static void die(const char *what)
{
	fprintf(stderr, "bench_trace: %s\n", what);
	exit(1);
}

/* ---- random numbers ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double unif(void)
{
	return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- the program's procedures ---- */

enum {
	P_MAIN, P_WORKER, P_READ_INPUT, P_WRITE_OUTPUT, P_MAKE_TASK,
	P_COLLECT, P_PROCESS_TASK, P_UPDATE_STATS, P_BUCKET_INSERT,
	/* phase A kernels */
	P_COMPUTE_FORCES, P_TRACE_RAY, P_RELAX_GRID, P_FACTOR_BLOCK,
	P_SORT_KEYS, P_UPDATE_PARTICLES,
	/* middle layer */
	P_INTERSECT_SCENE, P_SHADE, P_GRID_SWEEP, P_BLOCK_MULT, P_PARTITION,
	P_NEIGHBOR_LIST, P_INTEGRATE, P_PARSE_LINE, P_ENCODE_RECORD,
	/* leaves */
	P_VEC_DOT, P_VEC_ADD, P_VEC_SCALE, P_NORMALIZE, P_SQRT_APPROX,
	P_RAND_NEXT, P_HASH_KEY, P_INTERSECT_SPHERE, P_INTERSECT_PLANE,
	P_LOAD_CELL, P_STORE_CELL, P_REDUCE_PARTIAL, P_SWAP_KEYS,
	P_COMPARE_KEYS, P_GRID_INDEX, P_MEMCPY_SMALL, P_DAXPY, P_PAIR_FORCE,
	NPROC
};

struct sproc {
	const char *name;
	uint32_t self_ns;	/* mean own time per call */
	uint8_t calls;		/* mean child calls per call */
	uint8_t nkids;
	uint8_t kids[4];
};

#define KIDS(...) .nkids = sizeof((uint8_t[]){ __VA_ARGS__ }), \
		  .kids = { __VA_ARGS__ }

static const struct sproc procs[NPROC] = {
	[P_MAIN] = { "main", 2000, 0, 0, { 0 } },
	[P_WORKER] = { "worker_main", 1000, 0, 0, { 0 } },
	[P_READ_INPUT] = { "read_input", 200000, 40, KIDS(P_PARSE_LINE) },
	[P_WRITE_OUTPUT] = { "write_output", 100000, 30,
			     KIDS(P_ENCODE_RECORD) },
	[P_MAKE_TASK] = { "make_task", 1500, 2,
			  KIDS(P_RAND_NEXT, P_MEMCPY_SMALL) },
	[P_COLLECT] = { "collect_result", 400, 1, KIDS(P_REDUCE_PARTIAL) },
	[P_PROCESS_TASK] = { "process_task", 3000, 3,
			     KIDS(P_TRACE_RAY, P_SHADE, P_HASH_KEY) },
	[P_UPDATE_STATS] = { "update_stats", 600, 1,
			     KIDS(P_REDUCE_PARTIAL) },
	[P_BUCKET_INSERT] = { "bucket_insert", 900, 1,
			      KIDS(P_HASH_KEY, P_MEMCPY_SMALL) },
	[P_COMPUTE_FORCES] = { "compute_forces", 8000, 3,
			       KIDS(P_NEIGHBOR_LIST, P_PAIR_FORCE,
				    P_VEC_ADD) },
	[P_TRACE_RAY] = { "trace_ray", 2500, 2,
			  KIDS(P_INTERSECT_SCENE, P_SHADE, P_TRACE_RAY) },
	[P_RELAX_GRID] = { "relax_grid", 12000, 3,
			   KIDS(P_GRID_SWEEP, P_REDUCE_PARTIAL) },
	[P_FACTOR_BLOCK] = { "factor_block", 30000, 2,
			     KIDS(P_BLOCK_MULT, P_DAXPY) },
	[P_SORT_KEYS] = { "sort_keys", 5000, 3,
			  KIDS(P_PARTITION, P_SWAP_KEYS) },
	[P_UPDATE_PARTICLES] = { "update_particles", 4000, 2,
				 KIDS(P_INTEGRATE, P_VEC_SCALE) },
	[P_INTERSECT_SCENE] = { "intersect_scene", 1200, 2,
				KIDS(P_INTERSECT_SPHERE, P_INTERSECT_PLANE,
				     P_VEC_DOT) },
	[P_SHADE] = { "shade", 900, 2,
		      KIDS(P_NORMALIZE, P_VEC_DOT, P_RAND_NEXT) },
	[P_GRID_SWEEP] = { "grid_sweep", 3000, 3,
			   KIDS(P_LOAD_CELL, P_STORE_CELL, P_GRID_INDEX) },
	[P_BLOCK_MULT] = { "block_mult", 6000, 2, KIDS(P_DAXPY, P_VEC_DOT) },
	[P_PARTITION] = { "partition", 1500, 3,
			  KIDS(P_COMPARE_KEYS, P_SWAP_KEYS) },
	[P_NEIGHBOR_LIST] = { "neighbor_list", 2000, 2,
			      KIDS(P_GRID_INDEX, P_VEC_ADD) },
	[P_INTEGRATE] = { "integrate", 1000, 2,
			  KIDS(P_VEC_ADD, P_VEC_SCALE, P_SQRT_APPROX) },
	[P_PARSE_LINE] = { "parse_line", 2500, 2,
			   KIDS(P_HASH_KEY, P_MEMCPY_SMALL) },
	[P_ENCODE_RECORD] = { "encode_record", 1800, 1,
			      KIDS(P_MEMCPY_SMALL) },
	[P_VEC_DOT] = { "vec_dot", 60, 0, 0, { 0 } },
	[P_VEC_ADD] = { "vec_add", 50, 0, 0, { 0 } },
	[P_VEC_SCALE] = { "vec_scale", 45, 0, 0, { 0 } },
	[P_NORMALIZE] = { "normalize", 120, 1, KIDS(P_SQRT_APPROX) },
	[P_SQRT_APPROX] = { "sqrt_approx", 40, 0, 0, { 0 } },
	[P_RAND_NEXT] = { "rand_next", 30, 0, 0, { 0 } },
	[P_HASH_KEY] = { "hash_key", 150, 0, 0, { 0 } },
	[P_INTERSECT_SPHERE] = { "intersect_sphere", 300, 0, 0, { 0 } },
	[P_INTERSECT_PLANE] = { "intersect_plane", 200, 0, 0, { 0 } },
	[P_LOAD_CELL] = { "load_cell", 250, 0, 0, { 0 } },
	[P_STORE_CELL] = { "store_cell", 250, 0, 0, { 0 } },
	[P_REDUCE_PARTIAL] = { "reduce_partial", 400, 0, 0, { 0 } },
	[P_SWAP_KEYS] = { "swap_keys", 80, 0, 0, { 0 } },
	[P_COMPARE_KEYS] = { "compare_keys", 35, 0, 0, { 0 } },
	[P_GRID_INDEX] = { "grid_index", 70, 0, 0, { 0 } },
	[P_MEMCPY_SMALL] = { "memcpy_small", 90, 0, 0, { 0 } },
	[P_DAXPY] = { "daxpy", 1500, 0, 0, { 0 } },
	[P_PAIR_FORCE] = { "pair_force", 700, 1, KIDS(P_SQRT_APPROX) },
};

static const uint8_t kernels[] = {
	P_COMPUTE_FORCES, P_TRACE_RAY, P_RELAX_GRID, P_FACTOR_BLOCK,
	P_SORT_KEYS, P_UPDATE_PARTICLES,
};

static uint64_t proc_addr(uint32_t p)
{
	return 0x401000u + 0x240u * p;
}

/* ---- simulated program state ---- */

#define MAXT		64
#define ITEM_POOL	4096	/* task structs, addresses reused */
#define QCAP		16	/* queue slots (semaphore "slots") */
#define STEPS_A		24	/* phase A calls per thread, round */
#define ITEMS_PER_T	8	/* phase B tasks per thread and round */
#define TB_SIZE		(64 * 1024)	/* the runtime's CP_TB_SIZE */
#define TB_ROOM		64
#define TB_HEAD		(sizeof(struct cp_block_header) + \
			 sizeof(struct cp_events_head))

enum {
	O_STATS, O_BUCKET0, O_BUCKET1, O_BUCKET2, O_QLOCK, O_BAR0, O_BAR1,
	O_SEM_ITEMS, O_SEM_SLOTS, O_SEM_DONE, O_ITEM0,
	NOBJ = O_ITEM0 + ITEM_POOL
};

enum opk {
	OP_WORK, OP_ENTER, OP_LEAVE, OP_LOCK, OP_UNLOCK, OP_BARRIER, OP_POST,
	OP_WAIT, OP_ENQ, OP_DEQ, OP_CREATE, OP_JOIN, OP_EXIT,
};

struct op {
	uint8_t k;		/* enum opk */
	uint32_t a;		/* object, procedure or child thread */
	uint64_t ns;		/* WORK: duration; ENQ: 1 for a stop item */
};

/* FIFO of u64 */
struct dq {
	uint64_t *v;
	size_t head, n, cap;
};

static void dq_push(struct dq *q, uint64_t x)
{
	if (q->head + q->n == q->cap) {
		if (q->head) {
			memmove(q->v, q->v + q->head, q->n * sizeof(*q->v));
			q->head = 0;
		} else {
			q->cap = q->cap ? 2 * q->cap : 16;
			q->v = realloc(q->v, q->cap * sizeof(*q->v));
			if (!q->v)
				die("out of memory");
		}
	}
	q->v[q->head + q->n++] = x;
}

static uint64_t dq_pop(struct dq *q)
{
	if (!q->n)
		die("internal: pop from an empty queue");
	q->n--;
	return q->v[q->head++];
}

struct sobj {
	uint32_t id;		/* trace object id, 0 until first use */
	uint8_t kind;		/* enum cp_obj_kind */
	bool untracked;
	uint64_t addr, extra;
	uint64_t seq;		/* last published sequence */
	uint64_t pub_len;	/* online length at the latest publish */
	int owner;		/* mutex holder, -1: free */
	struct dq waiters;	/* mutex, semaphore: blocked threads */
	uint64_t arrivals;	/* barrier */
	uint64_t ep_len;	/* barrier: longest arrival of the episode */
	uint32_t nblocked;
	uint32_t blocked[MAXT];
	uint64_t free_tokens;	/* semaphore: initial tokens left */
	struct dq tok_seq;	/* semaphore: posted tokens */
	struct dq tok_len;
	bool stop;		/* item: a stop marker */
};

enum {
	ST_INIT, ST_ROUND, ST_A, ST_B, ST_B_GOT, ST_PROD, ST_COLLECT, ST_END,
	ST_DONE
};

struct sthread {
	uint32_t tid;
	struct op *ops;		/* generated, not yet executed */
	uint32_t head, nops, cap;
	uint64_t now;		/* clock */
	uint64_t prev_ts;	/* clock of the latest vertex */
	uint64_t len;		/* online: longest path ending here */
	uint64_t useful, wait;
	bool blocked, started, done;
	uint32_t joiner;	/* tid + 1 of a thread joining this one */
	double speed;
	/* program state */
	int st;
	uint32_t round, left;
	bool got_stop;
	/* encoder */
	uint8_t *buf, *pos;
	uint32_t nev;
	uint32_t seq;		/* EVENTS blocks written */
	uint64_t base_ts;
	uint64_t prev_addr;
};

struct sim {
	uint32_t nt;
	struct sthread t[MAXT];
	struct sobj o[NOBJ];
	uint32_t next_id;
	uint64_t next_item;
	struct dq queue;	/* item slots */
	uint64_t vertices, events, budget;
	uint32_t stop_round;
	FILE *f;
	uint64_t bytes;
};

static void out(struct sim *s, const void *p, size_t n)
{
	if (fwrite(p, 1, n, s->f) != n)
		die("write error");
	s->bytes += n;
}

/* ---- the encoder (the runtime's cp_tracebuf.c, in miniature) ---- */

static void tb_flush(struct sim *s, struct sthread *t)
{
	size_t n = (size_t)(t->pos - t->buf);
	struct cp_block_header bh = {
		.magic = CP_BLOCK_MAGIC, .type = CP_BLOCK_EVENTS,
		.tid = t->tid, .size = (uint32_t)(n - sizeof(bh)),
	};
	struct cp_events_head eh = {
		.ts_base = t->base_ts, .nevents = t->nev,
	};

	if (t->nev) {
		bh.seq = t->seq++;
		memcpy(t->buf + sizeof(bh), &eh, sizeof(eh));
		bh.crc = cp_block_crc(&bh, t->buf + sizeof(bh));
		memcpy(t->buf, &bh, sizeof(bh));
		out(s, t->buf, n);
	}
	t->pos = t->buf + TB_HEAD;
	t->nev = 0;
	t->base_ts = t->prev_ts;
	t->prev_addr = 0;
}

static uint8_t *tb_room(struct sim *s, struct sthread *t)
{
	if (t->pos > t->buf + TB_SIZE - TB_ROOM)
		tb_flush(s, t);
	return t->pos;
}

/*
 * A vertex @op of @t at its clock: the op byte and dt.  Runs the online
 * algorithm's step: useful time extends the thread's path.  Returns where
 * the payload goes; the caller stores the end in t->pos.
 */
static uint8_t *ev_vertex(struct sim *s, struct sthread *t, unsigned op)
{
	uint8_t *p = tb_room(s, t);
	uint64_t dt = t->now - t->prev_ts;

	*p++ = (uint8_t)op;
	p = cp_uv_put(p, dt);
	t->prev_ts = t->now;
	if (op & CP_EVF_WAIT) {
		t->wait += dt;
	} else {
		t->useful += dt;
		t->len += dt;
	}
	t->nev++;
	s->events++;
	s->vertices++;
	return p;
}

static void ev_obj(struct sim *s, struct sthread *t, unsigned op, uint32_t id)
{
	uint8_t *p = ev_vertex(s, t, op);

	t->pos = cp_uv_put(p, id);
}

static void ev_pub(struct sim *s, struct sthread *t, uint32_t id,
		   uint64_t seq)
{
	uint8_t *p = ev_vertex(s, t, CP_EV_PUBLISH);

	p = cp_uv_put(p, id);
	t->pos = cp_uv_put(p, seq);
}

static void ev_con(struct sim *s, struct sthread *t, bool wait, uint32_t id,
		   uint64_t lo, uint64_t n)
{
	uint8_t *p = ev_vertex(s, t, CP_EV_CONSUME | (wait ? CP_EVF_WAIT : 0));

	p = cp_uv_put(p, id);
	p = cp_uv_put(p, n ? lo : 0);
	t->pos = cp_uv_put(p, n);
}

static void merge(struct sthread *t, uint64_t len)
{
	if (len > t->len)
		t->len = len;
}

/* First use of @o by @t: OBJ_DEF (and OBJ_UNTRACK) in @t's stream. */
static void obj_use(struct sim *s, struct sthread *t, struct sobj *o)
{
	uint8_t *p;

	if (o->id)
		return;
	o->id = ++s->next_id;
	p = tb_room(s, t);
	*p++ = CP_EV_OBJ_DEF;
	p = cp_uv_put(p, o->id);
	*p++ = o->kind;
	p = cp_uv_put(p, o->addr);
	t->pos = cp_uv_put(p, o->extra);
	t->nev++;
	s->events++;
	if (o->untracked) {
		p = tb_room(s, t);
		*p++ = CP_EV_OBJ_UNTRACK;
		t->pos = cp_uv_put(p, o->id);
		t->nev++;
		s->events++;
	}
}

/* ---- the simulation ---- */

static uint64_t latency(void)
{
	return 2000 + rnd() % 6000;	/* futex wake-up */
}

static void wake(struct sthread *w, uint64_t at)
{
	w->now = at + latency();
	w->blocked = false;
}

static void push(struct sthread *t, unsigned k, uint32_t a, uint64_t ns)
{
	if (t->nops == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->ops = realloc(t->ops, t->cap * sizeof(*t->ops));
		if (!t->ops)
			die("out of memory");
	}
	t->ops[t->nops++] = (struct op){ .k = (uint8_t)k, .a = a, .ns = ns };
}

static uint64_t work_ns(const struct sthread *t, uint32_t mean)
{
	return (uint64_t)(mean * t->speed * (0.25 + 1.5 * unif())) + 1;
}

/* A call of procedure @p with its callees, as ops of @t. */
static void gen_call(struct sthread *t, uint32_t p, uint32_t depth)
{
	const struct sproc *pr = &procs[p];
	uint64_t self = work_ns(t, pr->self_ns);
	uint32_t n = 0;

	push(t, OP_ENTER, p, 0);
	if (pr->nkids && depth < 6)
		n = (uint32_t)(rnd() % (2u * pr->calls + 1));
	for (uint32_t i = 0; i < n; i++) {
		push(t, OP_WORK, 0, self / (n + 1));
		gen_call(t, pr->kids[rnd() % pr->nkids], depth + 1);
	}
	push(t, OP_WORK, 0, self / (n + 1));
	push(t, OP_LEAVE, 0, 0);
}

/* A short update of shared state under a mutex (half of them the hot one). */
static void gen_locked_update(struct sthread *t)
{
	uint32_t m = rnd() & 1 ? O_STATS : O_BUCKET0 + (uint32_t)(rnd() % 3);

	push(t, OP_LOCK, m, 0);
	gen_call(t, m == O_STATS ? P_UPDATE_STATS : P_BUCKET_INSERT, 4);
	push(t, OP_UNLOCK, m, 0);
}

static void gen_enqueue(struct sthread *t, bool stop)
{
	push(t, OP_WAIT, O_SEM_SLOTS, 0);
	push(t, OP_LOCK, O_QLOCK, 0);
	push(t, OP_ENQ, 0, stop);
	push(t, OP_UNLOCK, O_QLOCK, 0);
	push(t, OP_POST, O_SEM_ITEMS, 0);
}

/* Append the next piece of @t's program to its ops. */
static void gen_chunk(struct sim *s, struct sthread *t)
{
	switch (t->st) {
	case ST_INIT:
		if (t->tid == 0) {
			push(t, OP_ENTER, P_MAIN, 0);
			gen_call(t, P_READ_INPUT, 1);
			for (uint32_t c = 1; c < s->nt; c++) {
				push(t, OP_WORK, 0, 3000 + rnd() % 3000);
				push(t, OP_CREATE, c, 0);
			}
		} else {
			push(t, OP_ENTER, P_WORKER, 0);
		}
		t->st = ST_ROUND;
		break;
	case ST_ROUND:
		if (t->round >= s->stop_round) {
			t->st = ST_END;
			gen_chunk(s, t);
			break;
		}
		t->left = STEPS_A;
		t->st = ST_A;
		/* fall through */
	case ST_A:
		if (t->left) {
			t->left--;
			gen_call(t, kernels[t->round % sizeof(kernels)], 1);
			if (rnd() % 4 == 0)
				gen_locked_update(t);
			break;
		}
		push(t, OP_BARRIER, O_BAR0, 0);
		if (t->tid == 0) {
			t->st = ST_PROD;
			t->left = ITEMS_PER_T * s->nt;
		} else {
			t->st = ST_B;
		}
		break;
	case ST_B:
		push(t, OP_WAIT, O_SEM_ITEMS, 0);
		push(t, OP_LOCK, O_QLOCK, 0);
		push(t, OP_DEQ, 0, 0);
		push(t, OP_UNLOCK, O_QLOCK, 0);
		push(t, OP_POST, O_SEM_SLOTS, 0);
		t->st = ST_B_GOT;
		break;
	case ST_B_GOT:
		if (t->got_stop) {
			push(t, OP_BARRIER, O_BAR1, 0);
			t->round++;
			t->st = ST_ROUND;
			break;
		}
		gen_call(t, P_PROCESS_TASK, 1);
		if (rnd() % 3 == 0)
			gen_locked_update(t);
		push(t, OP_POST, O_SEM_DONE, 0);
		t->st = ST_B;
		break;
	case ST_PROD:
		if (t->left) {
			t->left--;
			gen_call(t, P_MAKE_TASK, 1);
			gen_enqueue(t, false);
			break;
		}
		for (uint32_t c = 1; c < s->nt; c++)
			gen_enqueue(t, true);
		t->st = ST_COLLECT;
		t->left = ITEMS_PER_T * s->nt;
		break;
	case ST_COLLECT:
		if (t->left) {
			t->left--;
			push(t, OP_WAIT, O_SEM_DONE, 0);
			gen_call(t, P_COLLECT, 1);
			break;
		}
		push(t, OP_BARRIER, O_BAR1, 0);
		t->round++;
		t->st = ST_ROUND;
		break;
	case ST_END:
		if (t->tid == 0) {
			for (uint32_t c = 1; c < s->nt; c++)
				push(t, OP_JOIN, c, 0);
			gen_call(t, P_WRITE_OUTPUT, 1);
		}
		push(t, OP_LEAVE, 0, 0);
		push(t, OP_EXIT, 0, 0);
		t->st = ST_DONE;
		break;
	default:
		die("internal: thread has nothing left to run");
	}
}

static void lock_consume(struct sim *s, struct sthread *t, struct sobj *o,
			 bool wait)
{
	if (o->untracked) {
		ev_con(s, t, wait, o->id, 0, 0);
		return;
	}
	ev_con(s, t, wait, o->id, o->seq, o->seq != 0);
	if (o->seq)
		merge(t, o->pub_len);
}

static void exec_sync(struct sim *s, struct sthread *t, const struct op *op)
{
	struct sobj *o = &s->o[op->a];
	struct sthread *w;
	uint64_t k, seq;

	obj_use(s, t, o);
	switch (op->k) {
	case OP_LOCK:
		if (o->owner < 0) {
			o->owner = (int)t->tid;
			lock_consume(s, t, o, false);
		} else {
			ev_obj(s, t, CP_EV_REQUEST, o->id);
			t->blocked = true;
			dq_push(&o->waiters, t->tid);
		}
		break;
	case OP_UNLOCK:
		if (!o->untracked) {
			ev_pub(s, t, o->id, ++o->seq);
			o->pub_len = t->len;
		}
		o->owner = -1;
		if (o->waiters.n) {
			w = &s->t[dq_pop(&o->waiters)];
			o->owner = (int)w->tid;
			wake(w, t->now);
			lock_consume(s, w, o, true);
		}
		break;
	case OP_BARRIER:
		k = ++o->arrivals;
		if ((k - 1) % o->extra == 0)
			o->ep_len = 0;
		ev_pub(s, t, o->id, k);
		if (t->len > o->ep_len)
			o->ep_len = t->len;
		o->blocked[o->nblocked++] = t->tid;
		t->blocked = true;
		if (k % o->extra)
			break;
		for (uint32_t i = 0; i < o->nblocked; i++) {
			w = &s->t[o->blocked[i]];
			if (w == t)
				w->blocked = false;
			else
				wake(w, t->now);
			ev_con(s, w, true, o->id, k - o->extra + 1, o->extra);
			merge(w, o->ep_len);
		}
		o->nblocked = 0;
		if (op->a == O_BAR1 && s->vertices >= s->budget &&
		    s->stop_round == UINT32_MAX)
			s->stop_round = (uint32_t)(k / o->extra);
		break;
	case OP_POST:
		seq = ++o->seq;
		ev_pub(s, t, o->id, seq);
		if (o->waiters.n) {
			w = &s->t[dq_pop(&o->waiters)];
			wake(w, t->now);
			ev_con(s, w, true, o->id, seq, 1);
			merge(w, t->len);
		} else {
			dq_push(&o->tok_seq, seq);
			dq_push(&o->tok_len, t->len);
		}
		break;
	case OP_WAIT:
		if (o->free_tokens) {
			o->free_tokens--;
			ev_con(s, t, false, o->id, 0, 0);
		} else if (o->tok_seq.n) {
			seq = dq_pop(&o->tok_seq);
			ev_con(s, t, false, o->id, seq, 1);
			merge(t, dq_pop(&o->tok_len));
		} else {
			ev_obj(s, t, CP_EV_REQUEST, o->id);
			t->blocked = true;
			dq_push(&o->waiters, t->tid);
		}
		break;
	default:
		die("internal: bad sync op");
	}
}

static void exec(struct sim *s, struct sthread *t, const struct op *op)
{
	struct sthread *c;
	struct sobj *it;
	uint64_t slot;
	uint8_t *p;

	if (op->k != OP_WORK)
		t->now += 10 + rnd() % 30;	/* the call itself */
	switch (op->k) {
	case OP_WORK:
		t->now += op->ns;
		break;
	case OP_ENTER:
		p = ev_vertex(s, t, CP_EV_ENTER);
		t->pos = cp_sv_put(p, (int64_t)(proc_addr(op->a) -
						 t->prev_addr));
		t->prev_addr = proc_addr(op->a);
		break;
	case OP_LEAVE:
		t->pos = ev_vertex(s, t, CP_EV_LEAVE);
		break;
	case OP_LOCK:
	case OP_UNLOCK:
	case OP_BARRIER:
	case OP_POST:
	case OP_WAIT:
		exec_sync(s, t, op);
		break;
	case OP_ENQ:
		slot = s->next_item++ % ITEM_POOL;
		it = &s->o[O_ITEM0 + slot];
		obj_use(s, t, it);
		ev_pub(s, t, it->id, ++it->seq);
		it->pub_len = t->len;
		it->stop = op->ns != 0;
		dq_push(&s->queue, slot);
		break;
	case OP_DEQ:
		it = &s->o[O_ITEM0 + dq_pop(&s->queue)];
		ev_con(s, t, false, it->id, it->seq, 1);
		merge(t, it->pub_len);
		t->got_stop = it->stop;
		break;
	case OP_CREATE:
		c = &s->t[op->a];
		p = ev_vertex(s, t, CP_EV_THREAD_CREATE);
		t->pos = cp_uv_put(p, op->a);
		c->now = c->prev_ts = c->base_ts = t->now + 20000;
		c->len = t->len;
		c->started = true;
		c->blocked = false;
		p = ev_vertex(s, c, CP_EV_THREAD_START);
		c->pos = cp_uv_put(p, t->tid + 1);
		break;
	case OP_JOIN:
		c = &s->t[op->a];
		if (c->done) {
			p = ev_vertex(s, t, CP_EV_THREAD_JOIN);
			t->pos = cp_uv_put(p, op->a);
			merge(t, c->len);
		} else {
			ev_obj(s, t, CP_EV_REQUEST, 0);
			t->blocked = true;
			c->joiner = t->tid + 1;
		}
		break;
	case OP_EXIT:
		t->pos = ev_vertex(s, t, t->tid ? CP_EV_THREAD_EXIT :
				   CP_EV_PROCESS_EXIT);
		tb_flush(s, t);
		t->done = true;
		t->blocked = true;
		if (t->joiner) {
			c = &s->t[t->joiner - 1];
			wake(c, t->now);
			p = ev_vertex(s, c, CP_EV_THREAD_JOIN | CP_EVF_WAIT);
			c->pos = cp_uv_put(p, t->tid);
			merge(c, t->len);
		}
		break;
	default:
		die("internal: bad op");
	}
}

static void sim_init(struct sim *s, uint32_t nt, uint64_t budget)
{
	static const uint8_t kinds[O_ITEM0] = {
		[O_STATS] = CP_OBJ_MUTEX, [O_BUCKET0] = CP_OBJ_MUTEX,
		[O_BUCKET1] = CP_OBJ_MUTEX, [O_BUCKET2] = CP_OBJ_MUTEX,
		[O_QLOCK] = CP_OBJ_MUTEX, [O_BAR0] = CP_OBJ_BARRIER,
		[O_BAR1] = CP_OBJ_BARRIER, [O_SEM_ITEMS] = CP_OBJ_SEM,
		[O_SEM_SLOTS] = CP_OBJ_SEM, [O_SEM_DONE] = CP_OBJ_SEM,
	};

	memset(s, 0, sizeof(*s));
	s->nt = nt;
	s->budget = budget;
	s->stop_round = UINT32_MAX;
	for (uint32_t i = 0; i < NOBJ; i++) {
		struct sobj *o = &s->o[i];

		o->kind = i < O_ITEM0 ? kinds[i] : CP_OBJ_ITEM;
		o->addr = i < O_ITEM0 ? 0x604000u + 64u * i :
			  0x7f3a10000000u + 192u * (i - O_ITEM0);
		o->owner = -1;
	}
	s->o[O_QLOCK].untracked = true;
	s->o[O_BAR0].extra = s->o[O_BAR1].extra = nt;
	s->o[O_SEM_SLOTS].extra = s->o[O_SEM_SLOTS].free_tokens = QCAP;
	for (uint32_t i = 0; i < nt; i++) {
		struct sthread *t = &s->t[i];

		t->tid = i;
		t->blocked = true;
		t->speed = 0.8 + 0.4 * unif();
		t->buf = malloc(TB_SIZE);
		if (!t->buf)
			die("out of memory");
		t->pos = t->buf + TB_HEAD;
	}
	s->t[0].now = s->t[0].prev_ts = s->t[0].base_ts = 1000000000ull;
	s->t[0].blocked = false;
	s->t[0].started = true;
}

static void put_u64(uint8_t **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

/* THREAD, SYMBOLS, INFO and END blocks; returns the online length. */
static uint64_t sim_finish(struct sim *s)
{
	struct cp_block_header bh = { .magic = CP_BLOCK_MAGIC };
	struct cp_trace_end end = { .nthreads = s->nt };
	uint8_t buf[NPROC * 48 + 512], *p = buf;
	static const char info[] = "exe\0bench_trace (generated)\0clock\0wall";

	for (uint32_t i = 0; i < s->nt; i++) {
		struct sthread *t = &s->t[i];
		struct cp_thread_info ti = {
			.tid = i, .parent_tid = i ? 0 : UINT32_MAX,
			.pthread_id = 0x7f0000001000ull + 0x800000ull * i,
			.useful_ns = t->useful, .wait_ns = t->wait,
			.len_ns = t->len,
		};
		char name[32];
		int n = snprintf(name, sizeof(name), i ? "worker-%u" : "main",
				 i);

		bh.type = CP_BLOCK_THREAD;
		bh.tid = i;
		bh.size = (uint32_t)(sizeof(ti) + (size_t)n + 1);
		bh.crc = cp_crc32c(cp_crc32c(cp_crc32c(0, &bh, 16), &ti,
					     sizeof(ti)), name, (size_t)n + 1);
		out(s, &bh, sizeof(bh));
		out(s, &ti, sizeof(ti));
		out(s, name, (size_t)n + 1);
		if (t->len > end.online_len_ns)
			end.online_len_ns = t->len;
	}
	for (uint32_t i = 0; i < NPROC; i++) {
		size_t n = strlen(procs[i].name) + 1;

		put_u64(&p, proc_addr(i));
		put_u64(&p, 0x200);
		memcpy(p, procs[i].name, n);
		p += n;
	}
	bh.type = CP_BLOCK_SYMBOLS;
	bh.tid = 0;
	bh.size = (uint32_t)(p - buf);
	bh.crc = cp_block_crc(&bh, buf);
	out(s, &bh, sizeof(bh));
	out(s, buf, (size_t)(p - buf));
	bh.type = CP_BLOCK_INFO;
	bh.size = sizeof(info);
	bh.crc = cp_block_crc(&bh, info);
	out(s, &bh, sizeof(bh));
	out(s, info, sizeof(info));
	end.nevents = s->events;
	bh.type = CP_BLOCK_END;
	bh.size = sizeof(end);
	bh.crc = cp_block_crc(&bh, &end);
	out(s, &bh, sizeof(bh));
	out(s, &end, sizeof(end));
	return end.online_len_ns;
}

struct gen_stats {
	uint64_t events, vertices, bytes, online_len, rounds;
	uint32_t objects;
	double secs;
};

static double now_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Write a trace of about @budget vertices over @nt threads to @path. */
static void generate(const char *path, uint32_t nt, uint64_t budget,
		     struct gen_stats *gs)
{
	struct sim *s = calloc(1, sizeof(*s));
	struct cp_trace_header h;
	double t0 = now_s(CLOCK_MONOTONIC);
	uint32_t live = nt;
	static char fbuf[1 << 20];

	if (!s)
		die("out of memory");
	sim_init(s, nt, budget);
	s->f = fopen(path, "wb");
	if (!s->f) {
		fprintf(stderr, "bench_trace: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	setvbuf(s->f, fbuf, _IOFBF, sizeof(fbuf));
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, CP_TRACE_MAGIC, 8);
	h.version = CP_TRACE_VERSION;
	h.header_size = CP_TRACE_HEADER_SIZE;
	h.clock = CP_CLOCK_WALL;
	h.pid = (uint64_t)getpid();
	h.start_realtime_ns = 1700000000000000000ull;
	h.start_wall_ns = s->t[0].now;
	out(s, &h, sizeof(h));
	{
		/* thread 0's THREAD_START */
		struct sthread *main_t = &s->t[0];
		uint8_t *p = ev_vertex(s, main_t, CP_EV_THREAD_START);

		main_t->pos = cp_uv_put(p, 0);
	}
	while (live) {
		struct sthread *t = NULL;

		for (uint32_t i = 0; i < nt; i++) {
			struct sthread *c = &s->t[i];

			if (!c->blocked && (!t || c->now < t->now))
				t = c;
		}
		if (!t)
			die("internal: deadlock in the simulation");
		if (t->head == t->nops) {
			t->head = t->nops = 0;
			gen_chunk(s, t);
		}
		exec(s, t, &t->ops[t->head++]);
		if (t->done)
			live--;
	}
	gs->online_len = sim_finish(s);
	if (fclose(s->f))
		die("write error");
	gs->events = s->events;
	gs->vertices = s->vertices;
	gs->bytes = s->bytes;
	gs->objects = s->next_id;
	gs->rounds = s->t[0].round;
	gs->secs = now_s(CLOCK_MONOTONIC) - t0;
	for (uint32_t i = 0; i < nt; i++) {
		free(s->t[i].ops);
		free(s->t[i].buf);
	}
	for (uint32_t i = 0; i < NOBJ; i++) {
		free(s->o[i].waiters.v);
		free(s->o[i].tok_seq.v);
		free(s->o[i].tok_len.v);
	}
	free(s->queue.v);
	free(s);
}

/* ---- library phases, in a child process ---- */

struct meter {
	double w0, c0;
	long long base;
};

static void meter_start(struct meter *m)
{
	m->base = heap_cur;
	heap_peak = heap_cur;
	m->w0 = now_s(CLOCK_MONOTONIC);
	m->c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
}

static double maxrss_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

/* What a phase took. */
struct took {
	double w, c;		/* wall and CPU seconds */
	long long peak;		/* peak heap bytes above the start */
	double rss;		/* max RSS of the process so far, MB */
};

static void meter_stop(const struct meter *m, struct took *k)
{
	k->w = now_s(CLOCK_MONOTONIC) - m->w0;
	k->c = now_s(CLOCK_PROCESS_CPUTIME_ID) - m->c0;
	k->peak = heap_peak - m->base;
	k->rss = maxrss_mb();
}

static void row(uint64_t ne, const char *phase, const struct took *k)
{
	printf("%10" PRIu64 "  %-24s %8.3f %8.3f %8.2f %9.1f %7.1f %9.1f\n",
	       ne, phase, k->w, k->c, k->c > 0 ? (double)ne / k->c / 1e6 : 0,
	       (double)k->peak / 1048576.0, (double)k->peak / (double)ne,
	       k->rss);
	fflush(stdout);
}

/* Stop @m and print its row; returns the CPU seconds of the phase. */
static double meter_row(const struct meter *m, uint64_t ne,
			const char *phase)
{
	struct took k;

	meter_stop(m, &k);
	row(ne, phase, &k);
	return k.c;
}

/*
 * Inclusive procedure groups of the @top procedures with most inclusive CP
 * time, as cp_profile.c builds them for `cpt report` (one CSR list per
 * useful edge: the selected procedures on its calling context).  Fills
 * @sel[nprocs]; returns the CSR in *@off / *@ids.
 */
static void incl_top(const struct cp_tracepag *tp, const struct cp_cpm *c,
		     uint32_t top, bool *sel, uint32_t **off, uint32_t **ids)
{
	uint32_t np = tp->nprocs, ne = tp->g.ne, nsel = 0;
	uint64_t *cpn = calloc(tp->ncct, sizeof(*cpn));
	uint64_t *cpp = calloc(np + 1, sizeof(*cpp));
	uint64_t total = 0;

	if (!cpn || !cpp)
		die("out of memory");
	for (uint32_t i = 0; i < c->npath; i++) {
		uint32_t e = c->path[i];

		if (tp->e_kind[e] == CP_TE_USEFUL)
			cpn[cp_tracepag_cct(tp, e)] += tp->g.w[e];
	}
	for (uint32_t n = 1; n < tp->ncct; n++)
		for (uint32_t i = 0; i < tp->cct[n].incl_n; i++)
			cpp[tp->incl_pool[tp->cct[n].incl_off + i]] += cpn[n];
	memset(sel, 0, np * sizeof(*sel));
	while (nsel < top) {
		uint32_t best = CP_PAG_NONE;

		for (uint32_t pr = 0; pr < np; pr++)
			if (!sel[pr] && cpp[pr] &&
			    (best == CP_PAG_NONE || cpp[pr] > cpp[best]))
				best = pr;
		if (best == CP_PAG_NONE)
			break;
		sel[best] = true;
		nsel++;
	}
	*off = malloc(((size_t)ne + 1) * sizeof(**off));
	if (!*off)
		die("out of memory");
	for (uint32_t e = 0; e < ne; e++) {
		const struct cp_cct_node *n = &tp->cct[cp_tracepag_cct(tp, e)];

		(*off)[e] = (uint32_t)total;
		if (tp->e_kind[e] != CP_TE_USEFUL || !tp->g.w[e])
			continue;
		for (uint32_t i = 0; i < n->incl_n; i++)
			total += sel[tp->incl_pool[n->incl_off + i]];
	}
	(*off)[ne] = (uint32_t)total;
	*ids = malloc((total ? total : 1) * sizeof(**ids));
	if (!*ids)
		die("out of memory");
	total = 0;
	for (uint32_t e = 0; e < ne; e++) {
		const struct cp_cct_node *n = &tp->cct[cp_tracepag_cct(tp, e)];

		if ((*off)[e + 1] == (*off)[e])
			continue;
		for (uint32_t i = 0; i < n->incl_n; i++) {
			uint32_t pr = tp->incl_pool[n->incl_off + i];

			if (sel[pr])
				(*ids)[total++] = pr;
		}
	}
	free(cpn);
	free(cpp);
}

/* The report's parts, one by one, on the groups `cpt report` uses. */
static void report_parts(const struct cp_tracepag *tp, const struct cp_cpm *c,
			 uint64_t ne)
{
	uint32_t np = tp->nprocs, *off, *ids, nsel = 0;
	bool *sel = calloc(np + 1, sizeof(*sel));
	uint64_t *v = calloc(np + 1, sizeof(*v));
	struct cp_groups gr = { .n = np };
	struct cp_kpaths kp;
	struct meter m;
	char name[64];

	if (!sel || !v)
		die("out of memory");
	incl_top(tp, c, 20, sel, &off, &ids);
	gr.off = off;
	gr.ids = ids;
	for (uint32_t i = 0; i < np; i++)
		nsel += sel[i];
	meter_start(&m);
	if (cp_zero_all(c, &gr, sel, v))
		die("zeroing: out of memory");
	snprintf(name, sizeof(name), " - zeroing, %u procs", nsel);
	meter_row(&m, ne, name);
	meter_start(&m);
	if (cp_slack_all(c, &gr, sel, v))
		die("slack: out of memory");
	snprintf(name, sizeof(name), " - Slack, %u procs", nsel);
	meter_row(&m, ne, name);
	meter_start(&m);
	if (cp_kpaths_find(&kp, c, 100) || cp_mbm_compute(&kp, &gr, v))
		die("kpaths/MBM: out of memory");
	meter_row(&m, ne, " - k=100 paths + MBM");
	cp_kpaths_free(&kp);
	free(off);
	free(ids);
	free(sel);
	free(v);
}

static void measure(const char *path, const uint64_t *ks, int nk)
{
	struct cp_trace t;
	struct cp_tracepag tp;
	struct cp_cpm c;
	struct cp_profile p;
	struct cp_profile_opts po = { .top = 20 };	/* as cpt report */
	struct meter m;
	struct took kr, kb;
	char err[512];
	double cc, cr;
	uint64_t ne;

	/* rows are per PAG edge, known after the build: print both then */
	meter_start(&m);
	if (cp_trace_read(&t, path, err, sizeof(err)))
		die(err);
	meter_stop(&m, &kr);
	meter_start(&m);
	if (cp_tracepag_build(&tp, &t, err, sizeof(err)))
		die(err);
	meter_stop(&m, &kb);
	ne = tp.g.ne;
	row(ne, "read (cp_trace_read)", &kr);
	row(ne, "PAG build", &kb);
	printf("%10" PRIu64 "  (trace: %u threads, %" PRIu64 " vertices, %"
	       PRIu64 " events, %u objects; PAG: %u vertices, %u segments, "
	       "%u dependency edges, %u hubs, %u procedures, %u contexts)\n",
	       ne, t.nthreads, t.nvertices, t.nevents, t.nobjs - 1, tp.g.nv,
	       tp.nseg, tp.ndep, tp.nhub, tp.nprocs, tp.ncct);

	meter_start(&m);
	if (cp_cpm_run(&c, &tp.g, NULL))
		die("cpm: out of memory");
	cc = meter_row(&m, ne, "CPM");

	po.cpm = &c;	/* the report on the CPM just run, as cpt runs one */
	meter_start(&m);
	if (cp_profile_compute(&p, &tp, &po, err, sizeof(err)))
		die(err);
	cr = meter_row(&m, ne, "report (top 20, k 100)");
	printf("%10" PRIu64 "  (CP %" PRIu64 " ns over %u edges, online %"
	       PRIu64 " ns: %s; %u procedures, max parallelism %.2f)\n", ne,
	       p.cp_len, c.npath, t.online_len_ns,
	       p.cp_len == t.online_len_ns ? "equal" : "DIFFERENT",
	       p.nprocs, p.max_parallelism);
	cp_profile_free(&p);
	report_parts(&tp, &c, ne);
	printf("%10" PRIu64 "  %-24s %8s %8.3f %8.2f\n", ne,
	       "= build+CPM+report", "", kb.c + cc + cr,
	       (double)ne / (kb.c + cc + cr) / 1e6);
	printf("%10" PRIu64 "  %-24s %8s %8.3f %8.2f\n", ne,
	       "= read+build+report", "", kr.c + kb.c + cr,
	       (double)ne / (kr.c + kb.c + cr) / 1e6);

	po.top = 0;
	meter_start(&m);
	if (cp_profile_compute(&p, &tp, &po, err, sizeof(err)))
		die(err);
	meter_row(&m, ne, "report (all procs)");
	cp_profile_free(&p);

	for (int i = 0; i < nk; i++) {
		struct cp_kpaths kp;
		char name[40];
		uint64_t sum = 0;

		meter_start(&m);
		if (cp_kpaths_find(&kp, &c, (uint32_t)ks[i]))
			die("kpaths: out of memory");
		snprintf(name, sizeof(name), "paths k=%" PRIu64, ks[i]);
		meter_row(&m, ne, name);
		for (uint32_t j = 0; j < kp.n; j++)
			sum += kp.nedges[j];
		printf("%10" PRIu64 "  (found %u, lengths %" PRIu64 " .. %"
		       PRIu64 ", %.0f edges per path)\n", ne, kp.n,
		       kp.n ? kp.len[0] : 0, kp.n ? kp.len[kp.n - 1] : 0,
		       kp.n ? (double)sum / kp.n : 0.0);
		cp_kpaths_free(&kp);
	}
	cp_cpm_free(&c);
	cp_tracepag_free(&tp);
	cp_trace_free(&t);
}

/* ---- the CLI, as child processes ---- */

static bool keep_outputs;	/* -K: keep the CLI's output files */

/* Run @args (TRACE replaced by @trace) with stdout to a file, time it. */
static void run_cli(const char *cpt, const char *dir, const char *trace,
		    int idx, char *const args[])
{
	char outp[4096], label[256] = "";
	char *argv[16];
	const char *written = outp;
	struct bench_cli r;
	int n = 0;

	snprintf(outp, sizeof(outp), "%s/out-%d", dir, idx);
	argv[n++] = (char *)cpt;
	for (; *args; args++) {
		argv[n] = *args;
		if (!strcmp(*args, "TRACE"))
			argv[n] = (char *)trace;
		else if (strlen(label) + strlen(*args) + 2 < sizeof(label))
			snprintf(label + strlen(label),
				 sizeof(label) - strlen(label), "%s%s",
				 *label ? " " : "", *args);
		if (n > 0 && !strcmp(argv[n - 1], "-o"))
			written = argv[n];
		n++;
	}
	argv[n] = NULL;
	if (bench_cli_run(argv, outp, written, &r))
		die("fork or wait4 failed");
	printf("  %-40s %7.3f %7.3f %8.1f %10.1f  exit %d\n", label, r.wall,
	       r.cpu, r.rss_mb, r.out_mb, r.status);
	fflush(stdout);
	if (!keep_outputs) {
		unlink(outp);
		unlink(written);
	}
}

/* The CLI runs. */
static void cli(const char *cpt, const char *dir, const char *trace)
{
	char html[4096];
	char *cmds[][8] = {
		{ "report", "TRACE", "--format", "json", NULL },
		{ "report", "TRACE", NULL },
		{ "report", "TRACE", "--format", "html", "-o", html, NULL },
		{ "paths", "TRACE", "--k", "10", NULL },
		{ "paths", "TRACE", "--k", "1000", NULL },
		{ "paths", "TRACE", "--k", "1000", "--format", "json", NULL },
		{ "export", "TRACE", "--format", "chrome", NULL },
		{ "export", "TRACE", "--format", "chrome", "--min-slice", "0",
		  NULL },
		{ "export", "TRACE", "--format", "folded", NULL },
	};

	snprintf(html, sizeof(html), "%s/report.html", dir);
	printf("  %-40s %7s %7s %8s %10s\n", "cpt ... (stdout to a file)",
	       "wall s", "cpu s", "RSS MB", "output MB");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		run_cli(cpt, dir, trace, (int)i, cmds[i]);
}

/* ---- driver ---- */

/* PAG edges per trace vertex of this generator (measured; sizes only) */
#define EDGES_PER_VERTEX 1.05

static int parse_list(const char *s, uint64_t *v, int max)
{
	int n = 0;

	while (*s && n < max) {
		char *end;
		double d = strtod(s, &end);

		if (end == s)
			break;
		v[n++] = (uint64_t)d;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* Library phases (child process) and CLI runs on the trace @path. */
static void analyse(const char *dir, const char *path, bool lib,
		    bool run_cpt, const char *cpt, const uint64_t *ks, int nk)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (lib) {
		printf("%10s  %-24s %8s %8s %8s %9s %7s %9s\n", "edges",
		       "phase", "wall s", "cpu s", "Me/s cpu", "heap MB",
		       "B/edge", "maxRSS MB");
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork failed");
		if (pid == 0) {
			measure(path, ks, nk);
			fflush(stdout);
			_exit(0);
		}
		if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			die("measuring child failed");
		printf("  (child max RSS %.1f MB)\n",
		       (double)ru.ru_maxrss / 1024.0);
	}
	if (run_cpt)
		cli(cpt, dir, path);
}

static void one_trace(const char *dir, const char *name, uint64_t budget,
		      uint32_t nt, bool lib, bool run_cpt, const char *cpt,
		      const uint64_t *ks, int nk)
{
	char path[4096];
	struct gen_stats gs;

	snprintf(path, sizeof(path), "%s/%s.cpt", dir, name);
	generate(path, nt, budget, &gs);
	printf("\n== %s: %" PRIu64 " events (%" PRIu64 " vertices), %"
	       PRIu64 " bytes = %.2f bytes/event, %u objects, %" PRIu64
	       " rounds, online CP %" PRIu64 " ns; generated in %.2f s\n",
	       path, gs.events, gs.vertices, gs.bytes,
	       (double)gs.bytes / (double)gs.events, gs.objects, gs.rounds,
	       gs.online_len, gs.secs);
	fflush(stdout);
	analyse(dir, path, lib, run_cpt, cpt, ks, nk);
}

int main(int argc, char **argv)
{
	uint64_t sizes[8] = { 100000, 1000000, 10000000 };
	uint64_t ks[8] = { 10, 1000, 100000 };
	uint64_t nt = 8, seed = 1, cli_events = 1000000;
	const char *dir = "/tmp/cpt-bench", *cpt = CP_BINARY_DIR "/tools/cpt";
	int nsizes = 3, nk = 3, opt;
	bool gen_only = false, lib = true, run_cpt = true, cli_all = false;

	cp_crc32c_init();
	const char *files[8];
	int nfiles = 0;

	while ((opt = getopt(argc, argv, "e:n:t:k:d:c:s:f:gxCAK")) != -1) {
		switch (opt) {
		case 'e':
			nsizes = parse_list(optarg, sizes, 8);
			break;
		case 'n':
			cli_events = strtoull(optarg, NULL, 10);
			if (strchr(optarg, 'e'))
				cli_events = (uint64_t)strtod(optarg, NULL);
			break;
		case 't':
			nt = strtoull(optarg, NULL, 10);
			break;
		case 'k':
			nk = parse_list(optarg, ks, 8);
			break;
		case 'd':
			dir = optarg;
			break;
		case 'c':
			cpt = optarg;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'f':
			if (nfiles < 8)
				files[nfiles++] = optarg;
			break;
		case 'g':
			gen_only = true;
			break;
		case 'x':
			lib = false;
			break;
		case 'C':
			run_cpt = false;
			break;
		case 'A':
			cli_all = true;
			break;
		case 'K':
			keep_outputs = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-e EDGES,..] [-n EVENTS] "
				"[-t THREADS] [-k K,..] [-d DIR] [-c CPT] "
				"[-s SEED] [-f TRACE] [-g] [-x] [-C] [-A] "
				"[-K]\n", argv[0]);
			return 2;
		}
	}
	if (nt < 2 || nt > MAXT) {
		fprintf(stderr, "threads: 2..%d\n", MAXT);
		return 2;
	}
	if (gen_only)
		lib = run_cpt = false;
	rng ^= seed * 0x2545F4914F6CDD1DULL;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "bench_trace: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (int i = 0; i < nsizes; i++) {
		char name[64];

		snprintf(name, sizeof(name), "trace-e%" PRIu64, sizes[i]);
		one_trace(dir, name, (uint64_t)(sizes[i] / EDGES_PER_VERTEX),
			  (uint32_t)nt, lib, run_cpt && cli_all, cpt, ks, nk);
	}
	if (cli_events) {
		char name[64];

		snprintf(name, sizeof(name), "trace-n%" PRIu64, cli_events);
		one_trace(dir, name, cli_events, (uint32_t)nt, lib, run_cpt,
			  cpt, ks, nk);
	}
	for (int i = 0; i < nfiles; i++) {
		printf("\n== %s (given)\n", files[i]);
		analyse(dir, files[i], lib, run_cpt, cpt, ks, nk);
	}
	return 0;
}
