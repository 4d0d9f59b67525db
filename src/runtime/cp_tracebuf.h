/*
 * cp_tracebuf.h - trace mode: per-thread event buffers and the trace file.
 *
 * Each thread encodes its events (cp_trace_format.h) into its own buffer,
 * without locks; a buffer becomes one CP_BLOCK_EVENTS block appended to
 * the trace file with a single write() on an O_APPEND descriptor, so
 * threads never wait for each other.  A buffer is written when it is full,
 * when its thread records a vertex CP_TRACE_FLUSH_NS or more after the
 * buffer's first one (CP_TRACE_WAIT_NS for the REQUEST that begins a
 * blocking wait), when the thread exits, and on the crash paths
 * (fatal signal, _exit: cp_trace_crash_flush).  At exit the thread table,
 * symbols, region names, run information and the END block close the
 * file.
 *
 * The PUBLISH and CONSUME events of the lean lock paths are staged first:
 * their fields go into a small ring in the buffer (three stores), and are
 * encoded a few dozen at a time (cp_tb_drain), when the ring is full,
 * before any other event is encoded, and before a buffer is written.
 * Encoding each of them in the lock call cost a traced program working
 * between fine-grained locks more than the batch does (the encoder's
 * branches depend on the values' lengths).
 *
 * Who may touch what: a buffer's events, pos and nevents belong to its
 * owning thread, and so do the staged events.  Writing a buffer out is
 * claimed through `state` (CP_TB_IDLE -> CP_TB_FLUSHING), so the owner
 * and a crash flush from another thread never write the same block twice;
 * a buffer flushed by another thread is left CP_TB_CLOSED and its owner's
 * later events are dropped (the process is ending).  That thread also
 * writes the events staged but not yet encoded, as a block of their own:
 * a drain commits each batch under a sequence count (st_gen), so that it
 * can tell which staged events the committed bytes already hold.  Buffers
 * are never freed: a thread's buffer goes back to a pool when it exits
 * (CP_TB_FREE) and is reused, so a signal handler may walk every buffer
 * at any moment.
 *
 * A write error (ENOSPC, EIO...) is reported once on stderr, naming the
 * file; tracing then stops writing and the final message says the trace is
 * incomplete.  The file stays readable up to its last complete block.
 */
#ifndef CP_TRACEBUF_H
#define CP_TRACEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp_trace_format.h"
#include "cp_varint.h"

#define CP_TB_SIZE (64 * 1024)
#define CP_TB_ROOM 64		/* largest encoded event */
#define CP_TB_STAGE 64		/* staged events, at most */

enum cp_tb_state {
	CP_TB_FREE = 0,		/* in the pool, no owner */
	CP_TB_IDLE = 1,		/* owned; nobody is writing it out */
	CP_TB_FLUSHING = 2,	/* being written out (owner or crash path) */
	CP_TB_CLOSED = 3,	/* written out by another thread: drop */
};

struct cp_tracebuf {
	uint8_t *pos;		/* next byte to write (owner; published with
				 * release for the crash path) */
	uint8_t *end;		/* last position with CP_TB_ROOM free */
	uint64_t prev_ts;	/* clock of the previous vertex (stored
				 * atomically: close_all() reads it) */
	uint64_t prev_wall;
	uint64_t deadline;	/* flush at a vertex this late (wall ns);
				 * UINT64_MAX until the block's first vertex */
	int64_t prev_fn;	/* previous ENTER address in this block */
	uint32_t nevents;	/* in the current block (owner; stored after
				 * pos) */
	uint32_t tid;
	uint32_t seq;		/* number of the next EVENTS block */
	int state;		/* enum cp_tb_state, atomic */
	bool flush_now;		/* write out at this event's commit */
	uint64_t total;		/* events over the thread's life */
	uint8_t *buf;		/* block header + events head + events,
				 * then room for a block of the staged
				 * events (the crash path's) */
	struct cp_tracebuf *all_next;	/* pool list, never unlinked */
	/* (the thread closing every buffer) what it will write of this
	 * one: claimed, and its snapshot (the committed events up to
	 * cl_pos, the staged ones encoded up to cl_staged_end) */
	bool cl_claimed;
	uint32_t cl_nev, cl_nstaged;
	uint8_t *cl_pos, *cl_staged_end;
	uint64_t cl_last_ts, cl_last_wall;	/* no vertex it writes is
						 * later */

	/* staged events: st[i % CP_TB_STAGE] for st_done <= i < st_head
	 * (counts mod 2^32); st_gen is odd while a drain commits a batch */
	uint32_t st_head;
	uint32_t st_done;
	uint32_t st_gen;
	struct cp_tb_staged {
		uint64_t ts;
		uint64_t seq;	/* PUBLISH: seq; CONSUME: seq_lo, count 1
				 * (0 and 0 for seq 0) */
		uint64_t word;	/* event kind | object id << 8 */
	} st[CP_TB_STAGE];
};

/*
 * Open the trace file named in cp_rt (creating it safely: see
 * cp_outfile.h), write its header and arm the crash paths; 0 or -errno.
 * Start-up or a fork child, single-threaded.
 */
int cp_trace_open(void);
/* A buffer for thread @tid whose clock starts at @ts / @wall, or NULL.
 * Calling thread (the new owner). */
struct cp_tracebuf *cp_tb_new(uint32_t tid, uint64_t ts, uint64_t wall);
/* Write out what the buffer holds, staged events included; owning
 * thread. */
void cp_tb_flush(struct cp_tracebuf *tb);
/* The same without encoding the staged events first (the encoders').
 * Owning thread. */
void cp_tb_write_out(struct cp_tracebuf *tb);
/* Encode the staged events into the buffer; owning thread. */
void cp_tb_drain(struct cp_tracebuf *tb);
/* Give the buffer back to the pool (after its last flush); owning
 * thread.  NULL is allowed. */
void cp_tb_free(struct cp_tracebuf *tb);
/* Number of the EVENTS block @tb's next event goes into.  Owning
 * thread. */
static inline uint32_t cp_tb_block(const struct cp_tracebuf *tb)
{
	return tb->seq;
}

/*
 * Whether block number @block of @tb is written (or the buffer's thread
 * ended, writing it).  Any thread: a buffer's block number only grows
 * while one thread owns it, and starts again at 0 for the next owner only
 * after the last one's final block.
 */
static inline bool cp_tb_written_past(const struct cp_tracebuf *tb,
				      uint32_t block)
{
	return __atomic_load_n(&tb->seq, __ATOMIC_ACQUIRE) > block;
}

/* OBJ_DEF metadata for a new object.  Owning thread. */
void cp_tb_obj_def(struct cp_tracebuf *tb, uint32_t id, unsigned kind,
		   uint64_t addr, uint64_t extra);
/* Intern a region name for REGION_* events; returns its string id.  Any
 * thread. */
uint32_t cp_trace_string_id(const char *name);
/* Close the trace: write out every buffer, the trailing blocks and END,
 * then say on stderr where the trace is (or that it is incomplete).
 * Exit, single caller. */
struct cp_thread;
void cp_trace_finish(struct cp_thread *all, uint64_t online_len);
/* Close the trace without finishing it and remove its file, silently
 * (the process saw nothing worth a trace: cp_report_write, and _exit in
 * cp_crash_exit).  Exit, single caller; async-signal-safe. */
void cp_trace_discard(void);

/*
 * Append one complete block of @type for thread @tid with the @n bytes at
 * @payload, checksummed, with one write as event blocks are.  Returns 0,
 * -EBADF without an open trace, -EFBIG if @n does not fit the format,
 * or -errno of the (first) write error, after which nothing more is
 * written.  Any thread, signal handlers included.
 */
int cp_trace_write_block(uint32_t type, uint32_t tid, const void *payload,
			 size_t n);

/*
 * Register @flush to run on the crash paths (fatal signal, _exit), after
 * the event buffers are written out: it should write its own thread
 * buffers with cp_trace_write_block and must be async-signal-safe.  At most
 * 8 functions; a further one is ignored.  Any thread.
 */
void cp_trace_at_crash(void (*flush)(void));

/*
 * Crash path: write out every thread's buffer (the owners' committed
 * events; the buffers stay closed), then run the cp_trace_at_crash
 * functions.  Once per process (a concurrent caller waits for the first,
 * briefly).  Async-signal-safe; any thread.
 */
void cp_trace_crash_flush(void);

/* 0, or the errno of the first failed trace write.  Any thread. */
int cp_trace_error(void);

/*
 * Nonzero while the calling thread writes the trace (or the JSON report):
 * a SIGXFSZ (file size limit) or SIGPIPE (trace on a closed pipe) raised
 * then is the tracer's, not the program's (cp_crash.c swallows it; the
 * write fails and is reported).
 */
extern __thread unsigned cp_tb_writing
	__attribute__((tls_model("initial-exec")));

/* Whether @tb holds staged events.  Owning thread. */
static inline bool cp_tb_has_staged(const struct cp_tracebuf *tb)
{
	return tb->st_head != tb->st_done;
}

/*
 * Begin a vertex event of kind @op (CP_EVF_WAIT may be or-ed in) at
 * @ts / @wall, after the staged events; returns where its payload goes.
 * Finish with cp_tb_commit.  Owning thread.
 */
static inline uint8_t *cp_tb_vertex(struct cp_tracebuf *tb, unsigned op,
				    uint64_t ts, uint64_t wall)
{
	uint64_t now = wall != UINT64_MAX ? wall : ts;
	uint8_t *p;

	if (__builtin_expect(cp_tb_has_staged(tb), 0))
		cp_tb_drain(tb);
	if (__builtin_expect(tb->pos > tb->end || now >= tb->deadline, 0))
		cp_tb_write_out(tb);
	if (__builtin_expect(tb->deadline == UINT64_MAX, 0))
		tb->deadline = now + CP_TRACE_FLUSH_NS;
	/* a blocking wait begins: what is older than a ms goes out first */
	if ((op & CP_EV_KIND_MASK) == CP_EV_REQUEST &&
	    now >= tb->deadline - (CP_TRACE_FLUSH_NS - CP_TRACE_WAIT_NS))
		tb->flush_now = true;
	p = tb->pos;
	*p++ = (uint8_t)op;
	p = cp_uv_put(p, ts >= tb->prev_ts ? ts - tb->prev_ts : 0);
	__atomic_store_n(&tb->prev_ts, ts > tb->prev_ts ? ts : tb->prev_ts,
			 __ATOMIC_RELAXED);
	if (wall != UINT64_MAX) {
		p = cp_uv_put(p, wall >= tb->prev_wall ? wall - tb->prev_wall : 0);
		__atomic_store_n(&tb->prev_wall, wall > tb->prev_wall ? wall :
				 tb->prev_wall, __ATOMIC_RELAXED);
	}
	return p;
}

/* Begin a metadata event (no timestamp).  Owning thread. */
static inline uint8_t *cp_tb_meta(struct cp_tracebuf *tb, unsigned op)
{
	if (__builtin_expect(cp_tb_has_staged(tb), 0))
		cp_tb_drain(tb);
	if (__builtin_expect(tb->pos > tb->end, 0))
		cp_tb_write_out(tb);
	*tb->pos = (uint8_t)op;
	return tb->pos + 1;
}

/* The event ending at @p is complete.  Owning thread. */
static inline void cp_tb_commit(struct cp_tracebuf *tb, uint8_t *p)
{
	__atomic_store_n(&tb->pos, p, __ATOMIC_RELEASE);
	__atomic_store_n(&tb->nevents, tb->nevents + 1, __ATOMIC_RELEASE);
	tb->total++;
	if (__builtin_expect(tb->flush_now, 0)) {
		tb->flush_now = false;
		cp_tb_write_out(tb);
	}
}

/*
 * Stage the PUBLISH (@op CP_EV_PUBLISH) of publish number @seq of object
 * @obj, or the CONSUME (@op CP_EV_CONSUME, no flag) of that one publish
 * (of none for @seq 0), at @ts: the lean paths' events (cp_online.h),
 * recorded only with the wall clock, so without a wall field.  A full
 * ring is encoded at once; a buffer whose deadline passed is written
 * when the staged event past it is encoded.  Owning thread.
 */
static inline void cp_tb_stage(struct cp_tracebuf *tb, unsigned op,
			       uint64_t ts, uint32_t obj, uint64_t seq)
{
	uint32_t h = tb->st_head;
	struct cp_tb_staged *e = &tb->st[h % CP_TB_STAGE];

	e->ts = ts;
	e->seq = seq;
	e->word = op | (uint64_t)obj << 8;
	/* the crash path reads the entry once it sees the count */
	__atomic_store_n(&tb->st_head, h + 1, __ATOMIC_RELEASE);
	if (__builtin_expect(h + 1 - tb->st_done >= CP_TB_STAGE, 0))
		cp_tb_drain(tb);
}

/*
 * The PUBLISH event of publish number @seq of object @obj, and the CONSUME
 * event (flags @fl) of @n publishes from @lo, at @ts / @wall (UINT64_MAX:
 * no wall clock, which a constant folds away).  Owning thread.
 */
static inline void cp_tb_publish(struct cp_tracebuf *tb, uint64_t ts,
				 uint64_t wall, uint32_t obj, uint64_t seq)
{
	uint8_t *p = cp_tb_vertex(tb, CP_EV_PUBLISH, ts, wall);

	p = cp_uv_put(p, obj);
	p = cp_uv_put(p, seq);
	cp_tb_commit(tb, p);
}

static inline void cp_tb_consume(struct cp_tracebuf *tb, unsigned fl,
				 uint64_t ts, uint64_t wall, uint32_t obj,
				 uint64_t lo, uint64_t n)
{
	uint8_t *p = cp_tb_vertex(tb, CP_EV_CONSUME | fl, ts, wall);

	p = cp_uv_put(p, obj);
	p = cp_uv_put(p, n ? lo : 0);
	p = cp_uv_put(p, n);
	cp_tb_commit(tb, p);
}

#endif /* CP_TRACEBUF_H */
