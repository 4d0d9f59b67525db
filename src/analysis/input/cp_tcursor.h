/*
 * cp_tcursor.h - a trace too large to decode at once, read thread by
 * thread: the file is mapped, its blocks framed once (pass 1 of the
 * reader, cp_trace.c) into a per-thread index of EVENTS blocks, and each
 * thread gets a cursor that reads its blocks (pread) and decodes its
 * vertices on demand, with the
 * absolute times and the payload checks of the reader (cp_tracedec.c).
 * Memory: the block list (32 bytes per block, a block holds up to 64 KB
 * of events), the metadata tables and one block per cursor; the events
 * stay in the file.
 *
 * What the cursor does not do that the in-memory reader does: the
 * whole-file checks of cp_tracechk.c (object definitions, every CONSUME
 * range published, thread links, nesting).  The streaming analysis
 * (cp_stream.h) meets those inconsistencies in its own pass and repairs
 * what it must there.
 *
 * Concurrency: an index and its cursors belong to one thread; a
 * prefetcher's helper (below) reads the index from another.
 */
#ifndef CP_TCURSOR_H
#define CP_TCURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp_trace.h"
#include "cp_trace_rd.h"

struct cp_tindex {
	struct cp_trace t;	/* header, thread table (info and names, no
				 * vertices), symbols, strings, INFO, the
				 * samples and modules (t.samples, indexed by
				 * thread, not attributed) */
	struct cp_trd r;	/* the framing: r.blks in file order */
	void *map;		/* the file, mapped while it is framed */
	size_t len;
	int fd;			/* the file, for the cursors' reads */
	uint32_t *toff;		/* [nthreads+1] a thread's EVENTS blocks are
				 * tblk[toff[tid]..toff[tid+1]) */
	uint32_t *tblk;		/* indices into r.blks, file order */
	uint64_t nblocks;	/* EVENTS blocks kept */
	uint64_t *tstart;	/* bit tid: the thread's first vertex is a
				 * THREAD_START naming its creator, nothing
				 * before it (a pass may leave the thread
				 * unread until that CREATE) */
	bool first_procs;	/* a thread's first block holds an ENTER or
				 * a REGION_BEGIN */
};

/*
 * Map and frame the trace at @path into @ix (salvage as cp_trace_read:
 * damaged blocks skipped, a partial trace noted in ix->t.partial).
 * Returns 0, or -1 with "PATH: reason" in @err.  Free with
 * cp_tindex_close().
 */
int cp_tindex_open(struct cp_tindex *ix, const char *path, char *err,
		   size_t errlen);
/* Close the file and free what @ix owns; its cursors must be done. */
void cp_tindex_close(struct cp_tindex *ix);

struct cp_tprefetch;
struct cp_tpf_dec;
struct cp_tpf_win;

/* A decoding position in one thread's events. */
struct cp_tcursor {
	struct cp_tindex *ix;
	uint32_t tid;
	uint32_t bi;		/* next block of the thread (toff-relative) */
	uint32_t left;		/* events left in the current block */
	uint8_t *buf;		/* the current block's payload */
	uint32_t cap;		/* bytes at @buf */
	const uint8_t *p, *end;	/* its undecoded events */
	const struct cp_trd_blk *blk;	/* the current block */
	uint64_t ts, wall;	/* running clocks, as encoded */
	uint64_t floor;		/* time of the vertex before the block */
	uint64_t prev_addr;	/* previous ENTER address of the block */
	uint64_t last_ts;	/* time of the last vertex returned */
	bool any;		/* a vertex was returned */
	bool dead;		/* an event did not decode: the thread ends */
	bool note;		/* count repairs in ix->t (the first pass) */
	bool repaired;		/* an event was made inert or ended the
				 * thread */
	size_t parked;		/* parked: @p's offset in the block, else 0 */
	/* (optional, set after cp_tcursor_init) called with each metadata
	 * event the cursor skips (OBJ_DEF, OBJ_UNTRACK, ...), as decoded */
	void (*meta)(void *ctx, const struct cp_trd_ev *ev);
	void *meta_ctx;
	/* decoding ahead (cp_tprefetch below): the prefetcher to take
	 * blocks from, or NULL; set after cp_tcursor_init */
	struct cp_tprefetch *pf;
	struct cp_tpf_dec *dec;	/* the block taken from it, being read */
	uint32_t di, dm;	/* its next vertex and metadata event */
	const struct cp_tev *dv;	/* its vertices (cp_tcursor_peek) */
	uint32_t dn;		/* and how many */
	/* (the helper's) the file's bytes it read ahead: a block that lies
	 * inside is copied from there, not read; and the cursor stops at
	 * its block's end */
	const struct cp_tpf_win *win;
	/* (optional, set after cp_tcursor_init) a window it reads through
	 * (cp_tcursor_ahead_new) */
	struct cp_tpf_win *ahead;
};

/*
 * A read window for cursors that one thread moves through the file in
 * about the order their blocks lie in it (over a program that makes a
 * thread per task, whose threads' events are a block or two each, which
 * a pread each would fetch: the busy sweep, cp_stream_busy.c, and the
 * what-if's survey and replays, cp_stream_replay.c): a block not in the
 * window makes it read CP_TPF_WINDOW bytes (cp_tpf_set_window) from that
 * block on, so the blocks after it come from memory.  NULL when memory
 * runs out.  Any number of cursors may share one, on one thread.
 */
struct cp_tpf_win *cp_tcursor_ahead_new(void);
void cp_tcursor_ahead_free(struct cp_tpf_win *w);

/* Start @c at the first event of thread @tid; repairs are counted in
 * ix->t only if @note (a second pass over the same events says nothing). */
void cp_tcursor_init(struct cp_tcursor *c, struct cp_tindex *ix,
		     uint32_t tid, bool note);

/* Free what @c holds (cp_tcursor_init may start it again). */
void cp_tcursor_fini(struct cp_tcursor *c);

/*
 * Free @c's block buffer until its next cp_tcursor_next, which reads the
 * block again: for a thread that will wait long (one not created yet), so
 * that memory goes with the threads running, not with all of them.
 */
void cp_tcursor_park(struct cp_tcursor *c);

/*
 * The thread's next vertex (metadata events are skipped, given to c->meta)
 * into @v, its wall clock (HAS_WALL) or 0 into *@wall.  Times and repairs
 * are those of the reader: a payload that makes no sense gives an inert
 * vertex, an event that does not decode ends the thread.  Returns true,
 * or false at the thread's end.
 */
bool cp_tcursor_next(struct cp_tcursor *c, struct cp_tev *v,
		     uint64_t *wall);

/*
 * The vertex @k >= 1 after the one cp_tcursor_next returned last, if the
 * block being read was decoded ahead and holds it (its time not yet held
 * to the floor, which only a repaired trace needs); else NULL.  For a
 * caller that starts fetching what it will read there.
 */
static inline const struct cp_tev *cp_tcursor_peek(const struct cp_tcursor *c,
						    uint32_t k)
{
	return c->dec && c->di - 1 + k < c->dn ? &c->dv[c->di - 1 + k] : NULL;
}

/*
 * Decoding ahead on a second core.  A helper (cp_tpf_run, on another
 * thread) reads and decodes the index's EVENTS blocks in file order, at
 * most CP_TPF_AHEAD blocks or CP_TPF_AHEAD_V vertices not yet taken (the
 * pass may take a thread's blocks long after their place in the file: a
 * program's main thread that makes a thread per task flushes its block
 * after a hundred of theirs); a cursor given the prefetcher (c->pf)
 * takes its next block from it when the helper has it, waiting only for
 * a block the helper is decoding, and otherwise reads the block itself
 * as without.  Vertices, times, metadata and repairs are exactly those of
 * the cursor alone: a block in which the helper meets anything to repair
 * is left to the cursor, and the cursor applies the floor of the block
 * before (the time of the thread's previous vertex) as it reads.  The
 * helper reads the file CP_TPF_WINDOW bytes at a time, not block by block
 * (a program that makes a thread per task has blocks of a hundred bytes),
 * and sleeps while the room is full, until half of it is free.  The room
 * counts the vertices a decoded block has room for, not those it holds:
 * blocks are reused, and one grown for a large block keeps its size.
 * Memory: the decoded blocks (40 bytes a vertex: at most 5 MB, or 1024
 * blocks) and as many spares, the window, 9 bytes per block of the
 * file.
 *
 * Concurrency: cp_tpf_run on one thread; the cursors, cp_tpf_stop and
 * cp_tpf_free on another (the index's).  The helper takes a mutex once a
 * block (which spins a little before it sleeps); a cursor takes a block
 * the helper has decoded without it, and waits on it only for a block
 * being decoded or to wake the helper (a block of a short thread costs
 * less to decode than to hand over).
 */
#define CP_TPF_AHEAD 1024
#define CP_TPF_AHEAD_V (1u << 17)
#define CP_TPF_WINDOW (1u << 20)

/* Set the room of the prefetchers made from now on (default CP_TPF_AHEAD
 * blocks, CP_TPF_AHEAD_V vertices; 0 counts as 1).  For tests: a small
 * room makes the helper sleep and wake often. */
void cp_tpf_set_room(uint32_t blocks, uint32_t vertices);

/* Set the bytes the helper reads at a time (default CP_TPF_WINDOW);
 * returns the previous value.  For tests (a window smaller than a block
 * reads that block alone); call before the analysis starts. */
size_t cp_tpf_set_window(size_t bytes);

/* A prefetcher over @ix, whose cursors must be done with it before
 * cp_tpf_free.  NULL: out of memory (the cursors then read alone). */
struct cp_tprefetch *cp_tpf_new(struct cp_tindex *ix);
/* The helper's loop over @pf (a struct cp_tprefetch): returns at the end
 * of the file or when cp_tpf_stop is called; at once for NULL (a job for
 * cp_par_two whether cp_tpf_new gave a prefetcher or not). */
void cp_tpf_run(void *pf);
/* Make the helper return (the blocks it holds stay until freed). */
void cp_tpf_stop(struct cp_tprefetch *pf);
/* Free @pf and the blocks no cursor took; cp_tpf_run has returned or
 * never ran.  NULL is fine. */
void cp_tpf_free(struct cp_tprefetch *pf);

#endif /* CP_TCURSOR_H */
