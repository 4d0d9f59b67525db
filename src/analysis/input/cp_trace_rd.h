/*
 * cp_trace_rd.h - internals of the trace reader, shared by its three
 * files and by the streaming reader, and nothing else: cp_trace.c
 * (framing, the parse driver, the public calls), cp_tracedec.c (decoding
 * the blocks into vertices), cp_tracechk.c (the whole-file checks and
 * repairs) and cp_tcursor.c (per-thread cursors over the framed blocks of
 * a trace too large to decode at once).  "trd" below stands for trace
 * reader.
 *
 * Every function here runs on the thread that called cp_trace_parse, on
 * the one struct cp_trd of that call.
 */
#ifndef CP_TRACE_RD_H
#define CP_TRACE_RD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp_hash.h"
#include "cp_trace.h"
#include "cp_trd_event.h"

/* Sizes of the on-disk structures, spelled out: the format is packed. */
#define HDR_SIZE	64
#define BLK_SIZE	32
#define EVHEAD_SIZE	24
#define TINFO_SIZE	40
#define END_SIZE	24

_Static_assert(sizeof(struct cp_trace_header) == HDR_SIZE, "header size");
_Static_assert(sizeof(struct cp_block_header) == BLK_SIZE, "block size");
_Static_assert(sizeof(struct cp_events_head) == EVHEAD_SIZE, "events head");
_Static_assert(sizeof(struct cp_thread_info) == TINFO_SIZE, "thread info");
_Static_assert(sizeof(struct cp_trace_end) == END_SIZE, "end size");

/* A block as pass 1 framed it. */
struct cp_trd_blk {
	size_t off;		/* offset of the block header */
	uint32_t type;		/* 0: dropped (salvage) */
	uint32_t tid;
	uint32_t size;
	uint32_t nev;		/* EVENTS: events in the block */
	uint32_t seq;		/* EVENTS: number in its thread (v2) */
	uint32_t flags;		/* CP_BLOCKF_* */
};

/* An OBJ_DEF as decoded, checked in step 3. */
struct cp_trd_def {
	uint32_t obj;
	uint8_t kind;		/* enum cp_obj_kind */
	uint64_t addr;
	uint64_t extra;
	size_t off;		/* file offset, for messages */
};

/* An OBJ_UNTRACK as decoded. */
struct cp_trd_untrack {
	uint32_t obj;
	size_t off;		/* file offset, for messages */
};

/* A site's stack as decoded: its code address and the calls that led
 * to it.  Kept once however many objects were first used there (a
 * program that makes an object per iteration makes them all at one). */
struct cp_trd_stack {
	uint64_t pc;
	uint32_t ncallers;	/* of callers[] */
	uint32_t at;		/* (cp_trd_site_pool) its callers' first slot
				 * in the pool */
	uint64_t callers[CP_SITE_DEPTH - 1];	/* innermost first */
};

/* A SITES or SITE_STACKS record as decoded, applied once the objects
 * are known (cp_trd_site_apply). */
struct cp_trd_site {
	uint32_t obj;
	uint32_t stack;		/* its index in cp_trd.stacks */
};

/* The state of one cp_trace_parse call. */
struct cp_trd {
	struct cp_trace *t;	/* what is being filled */
	const uint8_t *buf;	/* the whole file */
	size_t len;
	char *err;		/* the caller's message buffer */
	size_t errlen;
	bool hasw;		/* CP_TRACE_HAS_WALL */
	bool strict;		/* CP_TRACE_STRICT */
	bool spec;		/* a parallel decoder's worker: any note
				 * or failure only sets @bail */
	bool bail;		/* (spec) the serial decoder must redo it */
	bool startstop;		/* CP_START or CP_STOP decoded */
	bool drop_behind;	/* pass 1 gives back the pages it has
				 * checked (@buf is a private read-only
				 * mapping: the streaming reader) */
	size_t dropped;		/* (drop_behind) pages before this given */
	uint32_t version;	/* of the file */
	size_t bsz;		/* block header size of that version */
	bool *broken;		/* [nthreads] later events unplaceable */
	bool has_end;
	size_t end_off;		/* offset of the END block */
	size_t good_end;	/* end of the last good block */
	uint64_t skipped;	/* bytes of damaged blocks skipped */
	uint64_t nbad;		/* damaged blocks (runs of bytes) */

	struct cp_trd_blk *blks;
	size_t nblks;
	uint64_t cap_blks;
	struct cp_trd_def *defs;
	size_t ndefs;
	uint64_t cap_defs;
	struct cp_trd_untrack *unt;
	size_t nunt;
	uint64_t cap_unt;
	struct cp_trd_site *sites;
	size_t nsites;
	uint64_t cap_sites;
	struct cp_trd_stack *stacks;	/* the sites' distinct stacks */
	uint32_t nstacks;
	uint64_t cap_stacks;
	struct cp_map2 stackmap;	/* (pc, a mix of the callers) -> stack
					 * (cp_tracedec.c) */
	uint64_t total_ev;	/* events of all EVENTS blocks */
	size_t strbytes;	/* payload bytes of string-bearing blocks */
	size_t strused;
	uint32_t cap_syms, cap_strs, cap_info;
};

/*
 * Fail: "PATH: message (offset @off)" into the caller's error buffer.
 * Returns -1.
 */
int cp_trd_fail(struct cp_trd *r, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Salvage: count an inconsistency at @off, what was done about it being
 * @action, and keep going (0); in strict mode fail with it (-1).  The
 * first one is kept for the warning (cp_trace.repair_why).
 */
int cp_trd_note(struct cp_trd *r, size_t off, const char *action,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* cp_trd_note for vertex @vi of thread @tid, its file offset found (by
 * decoding the thread's blocks again) only when the message needs it. */
int cp_trd_vnote(struct cp_trd *r, uint32_t tid, uint32_t vi,
		 const char *action, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* File offset of vertex @vi of thread @tid (0 if not found): for
 * messages only, it decodes the thread's blocks again. */
size_t cp_trd_vertex_offset(struct cp_trd *r, uint32_t tid, uint32_t vi);

/*
 * Salvage: make vertex @v (payload @a) inert, a FAIL of no object that
 * keeps its time and its WAIT flag, so the thread's own edges weigh what
 * they did and nothing depends on it.
 */
void cp_trd_inert(struct cp_tvert *v, struct cp_targ *a);
/* cp_trd_inert for a whole event @e (the out-of-core cursor's). */
void cp_trd_inert_ev(struct cp_tev *e);

/* qsort/bsearch order of struct cp_trace_str: by id. */
int cp_trd_cmp_str(const void *a, const void *b);

/*
 * Pass 2 (cp_tracedec.c): decode every block pass 1 kept into the arrays
 * it sized (the vertex arrays are allocated), then sort the symbol and
 * string tables.  Returns 0, or -1 with the error set.
 */
int cp_trd_decode_blocks(struct cp_trd *r);

/*
 * Pass 1 and what follows it (cp_trace.c): check the header, frame every
 * block into r->blks (damaged ones skipped or, strict, refused), check the
 * END block and the per-thread numbering, size the thread table.  Returns
 * 0, or -1 with the error set.
 */
int cp_trd_frame(struct cp_trd *r);

/*
 * Decode only the THREAD, SYMBOLS, STRINGS, INFO and site blocks framed by
 * cp_trd_frame (no events, samples or modules) and sort the tables, for
 * the streaming reader.  Returns 0, or -1 with the error set.
 */
int cp_trd_decode_meta(struct cp_trd *r);

/*
 * The pool for the callers of the distinct stacks of the sites @r read
 * (zeroed; free() it), each stack's slots noted in it, or NULL when
 * memory runs out.  The objects first used at one stack share its
 * callers' slots.
 */
struct cp_site *cp_trd_site_pool(struct cp_trd *r);

/*
 * Give @site, an object's site, what @s of @r holds, unless it has one
 * already (the first record of an object wins): its callers are its
 * stack's slots of @pool (from cp_trd_site_pool).
 */
void cp_trd_site_apply(const struct cp_trd *r, struct cp_site *site,
		       const struct cp_trd_site *s, struct cp_site *pool);

/* Free the sites and their stacks that @r holds. */
void cp_trd_sites_free(struct cp_trd *r);

/*
 * Map the regular file @path read-only into *@map (NULL when empty) of
 * *@len bytes; unmap with munmap.  Returns 0, or -1 with "PATH: reason"
 * in @err.
 */
int cp_trd_map(const char *path, void **map, size_t *len, char *err,
	       size_t errlen);

/*
 * Step 3 (cp_tracechk.c): the checks only the whole file allows, with
 * their repairs: objects, region names, headless threads, uses of objects
 * and publishes, thread links, nesting.  Returns 0, or -1 with the error
 * set.
 */
int cp_trd_check(struct cp_trd *r);

#endif /* CP_TRACE_RD_H */
