/*
 * cp_tracebuf.h - trace mode: per-thread event buffers and the trace file.
 *
 * Each thread encodes its events (cp_trace_format.h) into its own buffer,
 * without locks; a full buffer becomes one CP_BLOCK_EVENTS block appended
 * to the trace file with a single write() on an O_APPEND descriptor, so
 * threads never wait for each other.  At exit the thread table, symbols,
 * region names, run information and the END block close the file.
 */
#ifndef CP_TRACEBUF_H
#define CP_TRACEBUF_H

#include <stddef.h>
#include <stdint.h>

#include "cp_trace_format.h"
#include "cp_varint.h"

#define CP_TB_SIZE (64 * 1024)
#define CP_TB_ROOM 64		/* largest encoded event */

struct cp_tracebuf {
	uint8_t *pos;		/* next byte to write */
	uint8_t *end;		/* last position with CP_TB_ROOM free */
	uint64_t prev_ts;	/* clock of the previous vertex */
	uint64_t prev_wall;
	int64_t prev_fn;	/* previous ENTER address in this block */
	uint32_t nevents;	/* in the current block */
	uint32_t tid;
	uint64_t total;		/* events over the thread's life */
	uint8_t *buf;		/* block header + events head + events */
};

/* Open the trace file named in cp_rt and write its header; 0 or -errno.
 * Start-up only. */
int cp_trace_open(void);
/* A buffer for thread @tid whose clock starts at @ts / @wall. */
struct cp_tracebuf *cp_tb_new(uint32_t tid, uint64_t ts, uint64_t wall);
/* Write out what the buffer holds; owning thread (or exit, racing). */
void cp_tb_flush(struct cp_tracebuf *tb);
void cp_tb_free(struct cp_tracebuf *tb);
/* OBJ_DEF metadata for a new object. */
void cp_tb_obj_def(struct cp_tracebuf *tb, uint32_t id, unsigned kind,
		   uint64_t addr, uint64_t extra);
/*
 * Append one block of @type for thread @tid (0 for process-wide blocks)
 * whose payload is @payload, @n bytes, with a single writev() on the
 * O_APPEND descriptor, so it lands whole between other threads' blocks.
 * Returns 0 or -errno (the trace is then closed for everyone).  Any thread;
 * async-signal-safe (the sampler's handler writes its full buffers).
 */
int cp_trace_write_block(uint32_t type, uint32_t tid, const void *payload,
			 size_t n);
/*
 * Register @fn to run when the process crashes (a fatal signal), before
 * the trace is closed: it writes out what it buffered.  Returns 0 or
 * -ENOSPC.  Start-up, single-threaded.  @fn must be async-signal-safe.
 */
int cp_trace_at_crash(void (*fn)(void));
/* Intern a region name for REGION_* events; returns its string id. */
uint32_t cp_trace_string_id(const char *name);
/* Close the trace: flush @all threads' buffers, write the trailing
 * blocks.  Exit, single caller. */
struct cp_thread;
void cp_trace_finish(struct cp_thread *all, uint64_t online_len);

/*
 * Begin a vertex event of kind @op (CP_EVF_WAIT may be or-ed in) at
 * @ts / @wall; returns where its payload goes.  Finish with cp_tb_commit.
 */
static inline uint8_t *cp_tb_vertex(struct cp_tracebuf *tb, unsigned op,
				    uint64_t ts, uint64_t wall)
{
	uint8_t *p;

	if (__builtin_expect(tb->pos > tb->end, 0))
		cp_tb_flush(tb);
	p = tb->pos;
	*p++ = (uint8_t)op;
	p = cp_uv_put(p, ts >= tb->prev_ts ? ts - tb->prev_ts : 0);
	tb->prev_ts = ts > tb->prev_ts ? ts : tb->prev_ts;
	if (wall != UINT64_MAX) {
		p = cp_uv_put(p, wall >= tb->prev_wall ? wall - tb->prev_wall : 0);
		tb->prev_wall = wall > tb->prev_wall ? wall : tb->prev_wall;
	}
	return p;
}

/* Begin a metadata event (no timestamp). */
static inline uint8_t *cp_tb_meta(struct cp_tracebuf *tb, unsigned op)
{
	if (__builtin_expect(tb->pos > tb->end, 0))
		cp_tb_flush(tb);
	*tb->pos = (uint8_t)op;
	return tb->pos + 1;
}

static inline void cp_tb_commit(struct cp_tracebuf *tb, uint8_t *p)
{
	tb->pos = p;
	tb->nevents++;
	tb->total++;
}

#endif /* CP_TRACEBUF_H */
