/*
 * cp_trace_format.h - the on-disk format of a cpthread trace (.cpt).
 *
 * This header is the whole contract between the runtime's trace writer
 * (src/runtime/cp_tracebuf.c) and the analyzer's trace reader
 * (src/analysis/input/cp_trace.c).  Everything is little-endian.
 *
 * File
 * ----
 *   struct cp_trace_header                 (fixed, CP_TRACE_HEADER_SIZE bytes)
 *   block*                                 (any order, see below)
 *   CP_BLOCK_END block                     (last; absent => partial trace)
 *
 * Every block starts with struct cp_block_header; its payload follows,
 * `size` bytes.  A reader skips block types it does not know (forward
 * compatibility inside one major version).
 *
 * Each block is checkable on its own: `crc` is the CRC-32C (Castagnoli,
 * reflected, initial value and final xor ~0) of the header's first 16 bytes
 * (magic, type, tid, size) followed by the payload, so a reader that meets
 * a torn or overwritten region can skip to the next CP_BLOCK_MAGIC whose
 * block checks out.  EVENTS blocks are numbered per thread (`seq` from 0);
 * a gap tells the reader that the thread lost a block, and so the thread's
 * later blocks cannot be placed (it ends at the gap).
 *
 * Crash safety.  The writer appends whole blocks, each with one write(2)
 * on an O_APPEND descriptor, so at any moment the file is a sequence of
 * whole blocks but for those a kill cut short.  A thread's events reach
 * the file when its 64 KB buffer is full, when it records an event
 * CP_TRACE_FLUSH_NS or more after the oldest event in its buffer (an
 * uncontended lock's events are encoded up to 64 at a time, and count
 * when they are encoded), when it
 * exits, when it begins a blocking wait (a REQUEST) with events
 * CP_TRACE_WAIT_NS old or more in its buffer, at exit() and _exit(), and
 * on a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM,
 * SIGINT, ...: every thread's buffer is written before the program dies as
 * it would have).  So a run killed by SIGKILL loses, per thread, at most
 * one buffer: the events of its last CP_TRACE_FLUSH_NS of activity, or of
 * its last CP_TRACE_WAIT_NS before it blocked in a traced wait; a thread
 * that stopped recording outside the tracer's view (sleep, read, a
 * spinning loop) keeps its unwritten events until it records again.  A
 * trace without the END block is partial: a reader analyses every
 * complete block and says so.
 *
 * Version 1 files (16-byte block header: magic, type, tid, size; no
 * checksum, no numbering) are still read.
 *
 * Blocks
 * ------
 *   CP_BLOCK_EVENTS  one thread's events, in order.  A thread's events are
 *                    the concatenation of its EVENTS blocks in file order.
 *                    Payload: struct cp_events_head, then encoded events.
 *   CP_BLOCK_THREAD  struct cp_thread_info, then the thread's name (NUL).
 *   CP_BLOCK_SYMBOLS repeated { u64 addr; u64 size; char name[] NUL }:
 *                    procedure symbols, addresses as seen at run time
 *                    (load base already added).
 *   CP_BLOCK_STRINGS repeated { u32 id; char text[] NUL }: region names.
 *   CP_BLOCK_INFO    repeated { char key[] NUL; char value[] NUL }: exe,
 *                    funcs, clock, hostname... for humans.
 *   CP_BLOCK_SAMPLES one thread's CPU-time samples, in order: struct
 *                    cp_samples_head, then encoded samples (below).  The
 *                    thread's samples are the concatenation of its SAMPLES
 *                    blocks in file order.
 *   CP_BLOCK_MODULES repeated module records (below): the objects loaded
 *                    in the process.  Several blocks may appear (objects
 *                    loaded later by dlopen); a reader takes their union,
 *                    the same (path, bias) twice being one module.
 *   CP_BLOCK_SITES   repeated { uv obj; uv pc }: where the program first
 *                    used object obj, the code address of its call into
 *                    the tracer (a return address minus one, so that it
 *                    falls in the call).  Written in trace mode when the
 *                    tracer is a shared object (its frames can be told
 *                    from the program's); an object may have none.
 *   CP_BLOCK_SITE_STACKS repeated { uv obj; uv n; uv pc[n] }: the same
 *                    with the calls that led there: pc[0] is the site as
 *                    in SITES, pc[1..n-1] its caller, the caller's caller
 *                    and so on (1 <= n <= CP_SITE_DEPTH).  The runtime
 *                    writes these instead of SITES for synchronization
 *                    objects while its budget of unwinds lasts; a reader
 *                    takes both.
 *   CP_BLOCK_END     struct cp_trace_end.
 *
 * Events (inside CP_BLOCK_EVENTS)
 * -------------------------------
 * One byte `op` = kind (low 6 bits) | CP_EVF_WAIT (bit 6) | CP_EVF_SHARED
 * (bit 7, only on a CONSUME of an rwlock: see below).  Kinds below
 * CP_EV_META_FIRST are *vertices* of the program activity graph and carry,
 * after `op`:
 *     uvarint dt      ns since the thread's previous vertex (for the first
 *                     vertex of a block: since cp_events_head.ts_base)
 *     uvarint dwall   only if the header has CP_TRACE_HAS_WALL: the same
 *                     for the wall clock (timeline placement under the cpu
 *                     clock)
 * then the kind's payload.  Kinds from CP_EV_META_FIRST on are metadata:
 * no dt, not vertices.
 *
 * The edge into a vertex from the thread's previous vertex weighs dt
 * (useful time), unless the vertex has CP_EVF_WAIT: then the interval was
 * spent waiting in a synchronization operation and the edge weighs zero.
 *
 * CP_EVF_SHARED on a CONSUME of an rwlock says the acquire was a read
 * (shared) one; without it an rwlock CONSUME is a write (exclusive)
 * acquire.  The dependency edges do not need it (the consumed range says
 * everything); a replay that re-orders acquisitions does.  It is set on no
 * other event; traces written before it existed never set it, so a reader
 * that finds no CONSUME of an rwlock with the bit in a trace with rwlock
 * CONSUMEs cannot tell reads from writes.
 *
 * Dependencies use one scheme for every primitive.  Each object has a
 * publish sequence, counting from 1: a release-like event PUBLISHes the
 * next sequence number of its object; an acquire-like event CONSUMEs a
 * contiguous range of sequence numbers of one object (count 0: depends on
 * nothing).  The graph has a zero-weight edge from the PUBLISH of
 * (object, seq) to every CONSUME whose range holds seq.  Per primitive:
 *   mutex, spin     unlock publishes; acquire consumes the last unlock
 *   rwlock          every unlock publishes; rdlock consumes the last write
 *                   unlock; wrlock consumes that and every read unlock since
 *   barrier         arrival k (1-based over the barrier's life) publishes
 *                   k; departure of episode e consumes e*count+1 .. +count
 *   cond            signal/broadcast publishes; a wake consumes the latest
 *                   signal made after its wait began (or nothing)
 *   sem             post publishes; a successful wait consumes the post that
 *                   provided its token (nothing for initial tokens)
 *   item            enqueue publishes; dequeue consumes the last enqueue
 * Thread creation and join use their own kinds (THREAD_*).
 *
 * Payloads (uv = uvarint, sv = zigzag svarint):
 *   THREAD_START   uv parent_tid_plus1 (0: no parent, the first thread)
 *   THREAD_CREATE  uv child_tid
 *   THREAD_JOIN    uv child_tid              (edge from child's THREAD_EXIT)
 *   THREAD_EXIT    -                         (thread's last vertex)
 *   PROCESS_EXIT   -                         (exit() ran on this thread)
 *   REQUEST        uv obj                    (a blocking wait begins)
 *   PUBLISH        uv obj, uv seq
 *   CONSUME        uv obj, uv seq_lo, uv count
 *   FAIL           uv obj                    (try/timed call failed)
 *   ENTER          sv addr - prev_addr       (prev_addr: previous ENTER's
 *                                            address in this block, 0 first)
 *   LEAVE          -                         (leaves the innermost ENTER)
 *   REGION_BEGIN   uv string id
 *   REGION_END     uv string id
 *   CP_START, CP_STOP, SAMPLE  -             (cpthread_start/stop/sample)
 *   OBJ_DEF (meta) uv obj, u8 obj kind, uv address, uv extra
 *                  (extra: barrier count, sem initial value; an rwlock's
 *                  CP_RWLOCK_ORDERED, else 0).
 *                  Precedes the object's first use in some thread's stream;
 *                  a reader must accept uses in other threads' blocks that
 *                  come earlier in the file (resolve after reading all).
 *   OBJ_UNTRACK (meta) uv obj               (cpthread_untrack)
 *
 * Samples (inside CP_BLOCK_SAMPLES), one after another:
 *     uv dwall    trace wall-clock ns since the previous sample of the block
 *                 (the first: since cp_samples_head.wall_base); the same
 *                 clock and origin as the vertices' wall timestamps
 *     uv dcpu     the thread's CPU-time ns since the previous sample (the
 *                 first: since cp_samples_head.cpu_base); the same clock
 *                 and origin as the vertices' timestamps under CP_CLOCK_CPU
 *     uv weight   CPU ns this sample stands for (the period that elapsed)
 *     uv flags    CP_SAMPLE_TRUNCATED, CP_SAMPLE_UNWIND_FAILED
 *     uv depth    number of frames, at most CP_SAMPLE_MAX_DEPTH
 *     sv dpc      depth times: pc[i] - pc[i-1] (pc[-1] = 0).  pc[0] is the
 *                 interrupted instruction; pc[1..] are return addresses
 *                 (look up pc - 1 for them), innermost first.
 *
 * Module records (inside CP_BLOCK_MODULES):
 *     u64 bias     run-time address minus link-time address of the object
 *     u64 lo, hi   run-time address range of its loaded segments [lo, hi)
 *     u8  flags    CP_MODULE_IMAGE: the ELF image follows the path
 *     u8  idlen    build-id length (0: none), then idlen bytes of build-id
 *     char path[]  NUL-terminated ("[vdso]" for the vDSO)
 *     if CP_MODULE_IMAGE: u32 size, then size bytes of ELF image (used for
 *                  the vDSO, which exists in no file)
 *
 * Thread ids: 0 is the process's first thread; others are numbered by
 * creation (a failed pthread_create leaves a gap).  Object ids are
 * numbered from 1 in order of first sight; object 0 means "no object":
 * REQUEST 0 / FAIL 0 bracket a thread join, CONSUME 0 0 0 is a dequeue of
 * an item that was never enqueued.
 *
 * Sequences: the runtime writes, per thread, exactly the vertices whose
 * timestamps the online algorithm used, so the longest path of the graph
 * equals the online length stored in the END block.
 */
#ifndef CP_TRACE_FORMAT_H
#define CP_TRACE_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

#define CP_TRACE_MAGIC		"CPTTRACE"	/* 8 bytes, no NUL */
#define CP_TRACE_VERSION	2
#define CP_TRACE_FLUSH_NS	100000000u	/* flush a buffer this old */
#define CP_TRACE_WAIT_NS	1000000u	/* ... this old, at a wait */
#define CP_TRACE_HEADER_SIZE	64
#define CP_BLOCK_MAGIC		0x4b4c4243u	/* "CBLK" little-endian */

enum cp_trace_clock {
	CP_CLOCK_WALL = 0,	/* wall time minus sync waits */
	CP_CLOCK_CPU = 1,	/* per-thread CPU time */
};

/* cp_trace_header.flags */
#define CP_TRACE_HAS_WALL	0x1u	/* vertices carry dwall too */

struct cp_trace_header {
	char magic[8];		/* CP_TRACE_MAGIC */
	uint32_t version;	/* CP_TRACE_VERSION */
	uint32_t header_size;	/* CP_TRACE_HEADER_SIZE */
	uint32_t clock;		/* enum cp_trace_clock */
	uint32_t flags;		/* CP_TRACE_* */
	uint64_t pid;
	uint64_t start_realtime_ns;	/* CLOCK_REALTIME at start */
	uint64_t start_wall_ns;		/* wall-clock base of the run */
	uint8_t reserved[16];
};

enum cp_block_type {
	CP_BLOCK_EVENTS = 1,
	CP_BLOCK_THREAD = 2,
	CP_BLOCK_SYMBOLS = 3,
	CP_BLOCK_STRINGS = 4,
	CP_BLOCK_INFO = 5,
	CP_BLOCK_END = 6,
	CP_BLOCK_SAMPLES = 7,
	CP_BLOCK_MODULES = 8,
	CP_BLOCK_SITES = 9,
	CP_BLOCK_SITE_STACKS = 10,
};

#define CP_SITE_DEPTH		4	/* frames of a site stack at most */

struct cp_samples_head {
	uint64_t wall_base;	/* wall clock the first dwall counts from */
	uint64_t cpu_base;	/* thread CPU time the first dcpu counts from */
	uint32_t nsamples;	/* encoded samples in this block */
	uint32_t reserved;
};

#define CP_SAMPLE_MAX_DEPTH	128
#define CP_SAMPLE_TRUNCATED	0x1u	/* the stack was deeper than kept */
#define CP_SAMPLE_UNWIND_FAILED	0x2u	/* unwinding stopped early */
#define CP_MODULE_IMAGE		0x1u	/* module record carries its image */

struct cp_block_header {
	uint32_t magic;		/* CP_BLOCK_MAGIC */
	uint32_t type;		/* enum cp_block_type */
	uint32_t tid;		/* owning thread (EVENTS, THREAD, SAMPLES),
				 * else 0 */
	uint32_t size;		/* payload bytes after this header */
	uint32_t seq;		/* EVENTS: the block's number among its
				 * thread's EVENTS blocks, from 0; else 0 */
	uint32_t flags;		/* CP_BLOCKF_* */
	uint32_t crc;		/* CRC-32C of bytes 0..15 and the payload */
	uint32_t reserved;	/* 0 */
};

#define CP_BLOCK_HEADER_V1_SIZE	16	/* magic, type, tid, size only */

/*
 * cp_block_header.flags.  CP_BLOCKF_CLOSED: an EVENTS block written by
 * the exit or crash path, possibly from another thread while the owner was
 * recording; the payload may end with the bytes of one event that
 * cp_events_head.nevents does not count (a reader ignores them).
 */
#define CP_BLOCKF_CLOSED	0x1u

struct cp_events_head {
	uint64_t ts_base;	/* clock value the first dt counts from */
	uint64_t wall_base;	/* same for dwall (0 without HAS_WALL) */
	uint32_t nevents;	/* encoded events in this block, meta included */
	uint32_t reserved;
};

struct cp_thread_info {
	uint32_t tid;
	uint32_t parent_tid;	/* UINT32_MAX for the first thread */
	uint64_t pthread_id;	/* pthread_self() value, for humans */
	uint64_t useful_ns;	/* online: useful time of the thread */
	uint64_t wait_ns;	/* online: time spent waiting */
	uint64_t len_ns;	/* online: longest path ending in the thread */
};

struct cp_trace_end {
	uint64_t nevents;	/* all events of all threads */
	uint64_t online_len_ns;	/* the online critical-path length */
	uint32_t nthreads;
	uint32_t reserved;
};

enum cp_event_kind {
	CP_EV_THREAD_START = 1,
	CP_EV_THREAD_CREATE = 2,
	CP_EV_THREAD_JOIN = 3,
	CP_EV_THREAD_EXIT = 4,
	CP_EV_PROCESS_EXIT = 5,
	CP_EV_REQUEST = 6,
	CP_EV_PUBLISH = 7,
	CP_EV_CONSUME = 8,
	CP_EV_FAIL = 9,
	CP_EV_ENTER = 10,
	CP_EV_LEAVE = 11,
	CP_EV_REGION_BEGIN = 12,
	CP_EV_REGION_END = 13,
	CP_EV_CP_START = 14,
	CP_EV_CP_STOP = 15,
	CP_EV_SAMPLE = 16,
	CP_EV_META_FIRST = 48,
	CP_EV_OBJ_DEF = 48,
	CP_EV_OBJ_UNTRACK = 49,
};

#define CP_EV_KIND_MASK	0x3fu
#define CP_EVF_WAIT	0x40u
#define CP_EVF_SHARED	0x80u	/* on a CONSUME of an rwlock: a read acquire */

enum cp_obj_kind {
	CP_OBJ_MUTEX = 1,
	CP_OBJ_SPIN = 2,
	CP_OBJ_RWLOCK = 3,
	CP_OBJ_BARRIER = 4,
	CP_OBJ_COND = 5,
	CP_OBJ_SEM = 6,
	CP_OBJ_ITEM = 7,
	CP_OBJ_CHAN = 8,	/* a pipe, eventfd or socket pair between
				 * threads (a signal record; its address a
				 * made-up key, not the program's) */
	CP_OBJ_KIND_MAX = 8,
};

/*
 * An rwlock's OBJ_DEF extra: its acquisitions follow an order fixed by the
 * program, not by who comes first (an OpenMP task dependence: a reader
 * task starts after the writer created before it, whenever it arrives).
 * A what-if replays its recorded dependencies instead of simulating the
 * lock.
 */
#define CP_RWLOCK_ORDERED 1

/* Name of an object kind for reports ("mutex", "barrier", ...). */
static inline const char *cp_obj_kind_name(unsigned kind)
{
	static const char *const names[] = {
		"?", "mutex", "spin", "rwlock", "barrier", "cond", "sem", "item",
		"chan",
	};
	return kind <= CP_OBJ_KIND_MAX ? names[kind] : "?";
}

/* Does an object of @kind have the program's address (not a channel's
 * made-up key)? */
static inline bool cp_obj_kind_has_addr(unsigned kind)
{
	return kind != CP_OBJ_CHAN;
}

/* Is an object of @kind a lock, with a time held? */
static inline bool cp_obj_kind_is_lock(unsigned kind)
{
	return kind == CP_OBJ_MUTEX || kind == CP_OBJ_SPIN ||
	       kind == CP_OBJ_RWLOCK;
}

/*
 * Does an event of kind @ev on an object of @okind count as one of its
 * operations, as the online report counts them: acquires of locks, wakes
 * of condition variables, arrivals at barriers, posts and waits of
 * semaphores, enqueues and dequeues of items?
 */
static inline bool cp_obj_counts_op(unsigned okind, unsigned ev)
{
	switch (okind) {
	case CP_OBJ_BARRIER:
		return ev == CP_EV_PUBLISH;
	case CP_OBJ_SEM:
	case CP_OBJ_ITEM:
		return ev == CP_EV_PUBLISH || ev == CP_EV_CONSUME;
	default:
		return ev == CP_EV_CONSUME;
	}
}

#endif /* CP_TRACE_FORMAT_H */
