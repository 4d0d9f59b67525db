/*
 * trace_synth.h - write synthetic cpthread traces in the exact format of
 * cp_trace_format.h, for the analyzer's tests.
 *
 * A test describes each thread's events with explicit durations (dt = ns
 * since the thread's previous vertex), and the helper encodes them into
 * EVENTS blocks (split every `block_events` events, to exercise block
 * boundaries), THREAD, SYMBOLS, STRINGS, INFO and END blocks.  It keeps the
 * per-object publish sequence so a test can say "unlock" rather than
 * "PUBLISH(3, 7)".  Independent of the reader on purpose: a test that
 * round-trips through both checks one against the other.
 *
 * Built into the cp_testsynth library of tests/support; a test includes
 * this header and links it.
 */
#ifndef TRACE_SYNTH_H
#define TRACE_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp_trace_format.h"

#define SYNTH_MAXT 512
#define SYNTH_MAXO 256

struct synth_ev {
	uint8_t op;		/* kind | CP_EVF_WAIT | CP_EVF_SHARED */
	uint64_t ts;		/* absolute clock of a vertex */
	uint64_t wall;		/* absolute wall clock (HAS_WALL) */
	uint64_t a, b, c;	/* payload values */
};

struct synth_thread {
	struct synth_ev *ev;
	size_t n, cap;
	uint64_t now;		/* clock of the latest vertex */
	uint64_t wall;		/* wall clock of the latest vertex */
	uint32_t parent;	/* UINT32_MAX: none */
	bool used;
	uint32_t nblocks;	/* EVENTS blocks written (their seq) */
};

struct synth_obj {
	uint8_t kind;
	uint64_t extra;
	uint64_t nseq;		/* last published sequence */
	uint64_t last_pub;	/* seq of the latest publish (mutex) */
	uint64_t arrivals;	/* barrier: arrivals so far */
	uint64_t wseq;		/* rwlock: seq of the latest write unlock */
	uint32_t writer;	/* rwlock: tid + 1 of the write holder */
};

/* A sample as the runtime would record it. */
struct synth_smp {
	uint32_t tid;
	uint64_t wall, cpu, weight;
	uint32_t flags, depth;
	uint64_t pc[CP_SAMPLE_MAX_DEPTH];	/* innermost first */
};

/* A block written as given (modules, or deliberately corrupt ones). */
struct synth_raw {
	uint32_t type, tid;
	uint8_t *p;
	size_t len;
};

struct synth {
	uint32_t clock;
	bool hasw;		/* write dwall too */
	uint32_t block_events;	/* events per EVENTS block, default 1000 */
	uint64_t online_len;	/* written into the END block */
	uint64_t pid;		/* the header's (0: 4242) */
	uint64_t start_realtime_ns;	/* the header's */
	bool no_shared;		/* rwlock reads without CP_EVF_SHARED, as
				 * runtimes before the flag wrote them */
	struct synth_thread t[SYNTH_MAXT];
	struct synth_obj o[SYNTH_MAXO];
	uint32_t nobj;
	char *syms;		/* encoded SYMBOLS payload */
	size_t syms_len;
	char *strs;		/* encoded STRINGS payload */
	size_t strs_len;
	struct synth_smp *smp;	/* samples, in the order added */
	size_t nsmp, cap_smp;
	struct synth_raw *raw;	/* extra blocks, before the END block */
	size_t nraw, cap_raw;
};

/* A pseudo-random number below @n from the generator state *@state (a
 * 64-bit LCG: the random traces of the tests, repeatable by seed). */
uint64_t synth_rand(uint64_t *state, uint64_t n);

/*
 * @per random samples on every thread of @s (after its events), at
 * random times over the thread's clock and beyond, each a stack of 1 to
 * 3 of the procedures at 0x1000 + 0x100 * i, i < @nproc (innermost at
 * +0x8, callers at +0x9: return addresses), drawn from *@rng.
 */
void synth_random_samples(struct synth *s, uint64_t *rng, uint32_t per,
			  uint32_t nproc);

void synth_init(struct synth *s);
void synth_free(struct synth *s);

/* Any vertex: @dt after the thread's previous vertex, WAIT if @wait. */
void synth_vertex(struct synth *s, uint32_t tid, unsigned kind, bool wait,
		  uint64_t dt, uint64_t a, uint64_t b, uint64_t c);
/* Metadata event. */
void synth_meta(struct synth *s, uint32_t tid, unsigned kind, uint64_t a,
		uint64_t b, uint64_t c, uint64_t d);

/* Thread life.  @parent: creating thread, or -1 for the first thread. */
void synth_start(struct synth *s, uint32_t tid, int parent);
/* The same, the child starting @late ns after its parent's clock. */
void synth_start_late(struct synth *s, uint32_t tid, int parent,
		      uint64_t late);
void synth_create(struct synth *s, uint32_t tid, uint64_t dt, uint32_t child);
void synth_join(struct synth *s, uint32_t tid, uint64_t dt, bool wait,
		uint32_t child);
void synth_exit(struct synth *s, uint32_t tid, uint64_t dt);

/* Define an object (OBJ_DEF in @tid's stream); returns its id. */
uint32_t synth_obj(struct synth *s, uint32_t tid, unsigned kind,
		   uint64_t extra);
/* PUBLISH the object's next sequence; returns it. */
uint64_t synth_publish(struct synth *s, uint32_t tid, uint64_t dt,
		       uint32_t obj);
void synth_consume(struct synth *s, uint32_t tid, uint64_t dt, bool wait,
		   uint32_t obj, uint64_t lo, uint64_t cnt);
void synth_request(struct synth *s, uint32_t tid, uint64_t dt, uint32_t obj);

/*
 * Mutex / spin: lock after @dt of work, having waited @wait_ns (0: no
 * REQUEST, no WAIT flag); consumes the latest unlock.  unlock publishes.
 */
void synth_lock(struct synth *s, uint32_t tid, uint64_t dt, uint64_t wait_ns,
		uint32_t obj);
void synth_unlock(struct synth *s, uint32_t tid, uint64_t dt, uint32_t obj);
/*
 * Rwlock, as the runtime records it: a read lock consumes the latest write
 * unlock (CONSUME with CP_EVF_SHARED unless s->no_shared), a write lock
 * that and every unlock since; every unlock publishes.  @wait_ns as for
 * synth_lock.
 */
void synth_rdlock(struct synth *s, uint32_t tid, uint64_t dt,
		  uint64_t wait_ns, uint32_t obj);
void synth_wrlock(struct synth *s, uint32_t tid, uint64_t dt,
		  uint64_t wait_ns, uint32_t obj);
void synth_rwunlock(struct synth *s, uint32_t tid, uint64_t dt, uint32_t obj);
/* Barrier: arrive after @dt, depart after waiting @wait_ns. */
void synth_barrier(struct synth *s, uint32_t tid, uint64_t dt,
		   uint64_t wait_ns, uint32_t obj);

void synth_enter(struct synth *s, uint32_t tid, uint64_t dt, uint64_t addr);
void synth_leave(struct synth *s, uint32_t tid, uint64_t dt);
/* A call: T@tid enters the procedure at @addr at once and leaves it @dt
 * later (synth_enter, synth_leave). */
void synth_call(struct synth *s, uint32_t tid, uint64_t addr, uint64_t dt);
void synth_region_begin(struct synth *s, uint32_t tid, uint64_t dt,
			uint32_t id);
void synth_region_end(struct synth *s, uint32_t tid, uint64_t dt,
		      uint32_t id);

void synth_symbol(struct synth *s, uint64_t addr, uint64_t size,
		  const char *name);
void synth_string(struct synth *s, uint32_t id, const char *text);

/*
 * A CPU-time sample of @tid at wall clock @wall and thread CPU time @cpu,
 * standing for @weight ns, with @depth PCs (innermost first).  Samples of
 * a thread go into SAMPLES blocks of at most block_events samples; a
 * sample earlier than its predecessor starts a new block.
 */
void synth_sample(struct synth *s, uint32_t tid, uint64_t wall, uint64_t cpu,
		  uint64_t weight, uint32_t flags, const uint64_t *pc,
		  uint32_t depth);
/* A MODULES block holding one module record (@image may be NULL). */
void synth_module(struct synth *s, uint64_t bias, uint64_t lo, uint64_t hi,
		  const void *build_id, uint8_t idlen, const char *path,
		  const void *image, uint32_t image_size);
/* A block of @type for @tid with @len bytes of @payload, as given. */
void synth_raw_block(struct synth *s, uint32_t type, uint32_t tid,
		     const void *payload, size_t len);

/* T0 creates threads 1..@n (dt 0), each started by it: the usual start of
 * a scene (T0's own synth_start comes first). */
void synth_spawn(struct synth *s, uint32_t n);
/* T0 joins threads 1..@n, waiting (the first after @dt, the others at
 * once), and exits: the usual end of a scene. */
void synth_join_all(struct synth *s, uint32_t n, uint64_t dt);

/*
 * The barrier example: T0 creates T1 and T2, and the three meet at one
 * barrier of 3: T0 arrives at 10 and waits 20, T1 at 30 (after "slow",
 * 0x100, when @procs), T2 at 20 and waits 10; all depart at 30.  T1 exits
 * at 31; T2 runs 50 more ("tail", 0x200, when @procs) and exits at 80; T0
 * joins T1 at 35 and T2 at 80.  The critical path is 80.  Starts @s
 * afresh (synth_init); online_len stays 0.
 */
void synth_barrier_example(struct synth *s, bool procs);

/* Encode the whole trace into a malloc'd buffer; returns its length. */
size_t synth_encode(struct synth *s, uint8_t **out);
/* Encode and write to @path; returns 0 or -1. */
int synth_write(struct synth *s, const char *path);

/*
 * The lock example of doc/examples.md section 4, the fixture many suites
 * share: T0 creates T1 and T2; T2 works 20 (work2), takes mutex L and
 * runs crit for 10; T1 works @t1_work (work1), takes L (waiting until
 * T2's unlock at 30 when it comes earlier) and runs crit for 10; T0 joins
 * both.  With t1_work 30 the critical path is 40.
 */
struct synth_lock_example {
	unsigned kind;		/* CP_OBJ_MUTEX, or CP_OBJ_RWLOCK taken
				 * for writing */
	uint64_t unit;		/* ns per unit of the times above; 0: 1 */
	uint64_t t1_work;	/* T1's work in units; 0: 30 */
	bool one_work;		/* both threads' work is one procedure
				 * "work" (0x1000; crit at 0x2000) rather
				 * than work1/work2 (0x100, 0x200; crit
				 * 0x300) */
};

/* Start @s afresh (synth_init) with the example @ex; online_len stays 0. */
void synth_lock_example(struct synth *s, const struct synth_lock_example *ex);

#endif /* TRACE_SYNTH_H */
