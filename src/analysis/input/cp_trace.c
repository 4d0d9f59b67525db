/*
 * cp_trace.c - the trace reader: decode and validate a .cpt file.
 *
 * The file is read in two passes over a read-only mapping.  Pass 1 walks
 * the block framing only: every block header, every size, the END block
 * (which must be the last thing in the file) and the per-thread event
 * counts, so pass 2 can size every array exactly once.  Pass 2 decodes the
 * blocks into per-thread vertex arrays with absolute timestamps.  A third
 * step checks what only the whole file can tell: object ids defined,
 * thread ids known, each CONSUME range pointing at PUBLISHes that exist,
 * thread create/start/join/exit consistent, ENTER/LEAVE and region nesting.
 * Those checks do not keep the file offset of every vertex; when one fails
 * the offending block is decoded again to find the offset for the message.
 *
 * Cost: O(file size + publishes · log) time, 32 bytes per vertex (plus 8
 * with HAS_WALL).  Every read is bounds-checked; garbage gives one message
 * "FILE: what is wrong (offset N)" and -1, never a crash.  Memory is
 * bounded by the file: arrays are sized from counts the blocks claim, and
 * a block's claims are checked against its size first.
 *
 * Salvage (the default; CP_TRACE_STRICT refuses instead, with the same
 * message).  The run a user most wants explained is the one that crashed,
 * so damage costs the piece it touches, not the file:
 *   - no END block: the trace is partial (cp_trace.partial_why says what
 *     was read); the thread table comes from the blocks and the
 *     THREAD_CREATEs, and every thread ends at its last recorded event;
 *   - a block that fails its checks (cut short, bad magic, checksum) is
 *     skipped to the next block that passes them (resync: version 2 only,
 *     its checksum work bounded by a few times the file size); a thread
 *     whose EVENTS blocks are not numbered 0, 1, 2... in file order lost
 *     one, so its events end before the gap;
 *   - an event that does not decode ends its thread there; one that
 *     decodes but makes no sense (unknown object, thread or string id, a
 *     second THREAD_START, events after THREAD_EXIT, LEAVE without ENTER,
 *     a sequence published twice) is made inert: a FAIL of no object that
 *     keeps its time and WAIT flag, so the thread's own edges weigh what
 *     they did and nothing depends on it;
 *   - a CONSUME of a sequence never published depends on nothing; a
 *     thread started by a thread that does not say it created it starts
 *     from the source; a JOIN of a thread without THREAD_EXIT takes the
 *     child's last event as its end; time running backwards at a block
 *     boundary is held at the previous time; region ids no STRINGS block
 *     names are called "region N".
 * Each repair is counted in cp_trace.nrepairs and the first one worded in
 * repair_why.  A trace without damage reads exactly as it does strictly.
 *
 * Interpretations of cp_trace_format.h where it leaves room (told to the
 * lead engineer):
 *   - header_size may exceed CP_TRACE_HEADER_SIZE (the rest is skipped);
 *     unknown header flags are refused, since they may change the encoding.
 *   - bit 7 of an event's op byte (CP_EVF_SHARED) is accepted on a
 *     CONSUME of an rwlock only; anywhere else it is an error.
 *   - CP_BLOCK_END.nevents, when there is an END block, must equal the
 *     sum of the EVENTS blocks' nevents (metadata included).  Thread ids
 *     may have gaps, so CP_BLOCK_END.nthreads is not a bound; thread ids
 *     named by events must belong to threads that have a block or that a
 *     THREAD_CREATE names (created, never seen running).
 *   - Publish sequences need not be dense, but (object, seq) is unique and
 *     seq >= 1.
 *   - THREAD_START is a thread's first vertex and THREAD_EXIT, if present,
 *     its last.  A thread that was created but never ran (no events) is
 *     allowed; a JOIN needs the child's THREAD_EXIT.
 *   - LEAVE closes the innermost ENTER, closing regions opened inside it
 *     (a region left open by a returning function); REGION_END closes the
 *     innermost open region with that id and everything opened inside it.
 *     LEAVE with no open ENTER, or REGION_END of a region not open, is an
 *     error.  Frames still open at the end of a thread are fine.
 *   - OBJ_DEF may appear more than once for an id if the copies agree.
 *     Kind 0 is accepted: the runtime numbers its thread-handle records
 *     in the same id space; such an id has no events.
 *   - Object id 0 means "none": a join's REQUEST, a failed join's FAIL,
 *     the CONSUME (count 0) of a dequeue whose item was never enqueued.
 */
#include "cp_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_bigmem.h"
#include "cp_crc32c.h"
#include "cp_samples.h"
#include "cp_varint.h"

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

struct blk {
	size_t off;		/* offset of the block header */
	uint32_t type;		/* 0: dropped (salvage) */
	uint32_t tid;
	uint32_t size;
	uint32_t nev;		/* EVENTS: events in the block */
	uint32_t seq;		/* EVENTS: number in its thread (v2) */
	uint32_t flags;		/* CP_BLOCKF_* */
};

struct objdef {
	uint32_t obj;
	uint8_t kind;
	uint64_t addr;
	uint64_t extra;
	size_t off;
};

struct untrack {
	uint32_t obj;
	size_t off;
};

struct rd {
	struct cp_trace *t;
	const uint8_t *buf;
	size_t len;
	char *err;
	size_t errlen;
	bool hasw;
	bool strict;		/* CP_TRACE_STRICT */
	uint32_t version;	/* of the file */
	size_t bsz;		/* block header size of that version */
	bool *broken;		/* [nthreads] later events unplaceable */
	bool has_end;
	size_t end_off;		/* offset of the END block */
	size_t good_end;	/* end of the last good block */
	uint64_t skipped;	/* bytes of damaged blocks skipped */
	uint64_t nbad;		/* damaged blocks (runs of bytes) */

	struct blk *blks;
	size_t nblks, cap_blks;
	struct objdef *defs;
	size_t ndefs, cap_defs;
	struct untrack *unt;
	size_t nunt, cap_unt;
	uint64_t total_ev;	/* events of all EVENTS blocks */
	size_t strbytes;	/* payload bytes of string-bearing blocks */
	size_t strused;
	uint32_t cap_syms, cap_strs, cap_info;
};

/* One decoded event. */
struct rawev {
	uint8_t op;
	uint64_t dt, dwall;
	uint64_t a, b, c;	/* payload values in order */
	int64_t sv;		/* ENTER delta */
};

static int fail(struct rd *r, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct rd *r, size_t off, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->err && r->errlen)
		snprintf(r->err, r->errlen, "%s: %s (offset %zu)",
			 r->t->path ? r->t->path : "?", msg, off);
	return -1;
}

/*
 * Salvage: count an inconsistency at @off, what was done about it being
 * @action, and keep going (0); in strict mode fail with it (-1).  The
 * first one is kept for the warning.
 */
static int note(struct rd *r, size_t off, const char *action,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int note(struct rd *r, size_t off, const char *action,
		const char *fmt, ...)
{
	struct cp_trace *t = r->t;
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->strict)
		return fail(r, off, "%s", msg);
	if (!t->nrepairs++)
		snprintf(t->repair_why, sizeof(t->repair_why),
			 "%s (offset %zu): %s", msg, off, action);
	return 0;
}

static int grow(void **arr, size_t elem, size_t *cap, size_t need)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	p = cp_big_realloc(*arr, ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

const char *cp_trace_kind_name(unsigned kind)
{
	static const char *const names[] = {
		[CP_EV_THREAD_START] = "THREAD_START",
		[CP_EV_THREAD_CREATE] = "THREAD_CREATE",
		[CP_EV_THREAD_JOIN] = "THREAD_JOIN",
		[CP_EV_THREAD_EXIT] = "THREAD_EXIT",
		[CP_EV_PROCESS_EXIT] = "PROCESS_EXIT",
		[CP_EV_REQUEST] = "REQUEST",
		[CP_EV_PUBLISH] = "PUBLISH",
		[CP_EV_CONSUME] = "CONSUME",
		[CP_EV_FAIL] = "FAIL",
		[CP_EV_ENTER] = "ENTER",
		[CP_EV_LEAVE] = "LEAVE",
		[CP_EV_REGION_BEGIN] = "REGION_BEGIN",
		[CP_EV_REGION_END] = "REGION_END",
		[CP_EV_CP_START] = "CP_START",
		[CP_EV_CP_STOP] = "CP_STOP",
		[CP_EV_SAMPLE] = "SAMPLE",
	};

	if (kind == CP_EV_OBJ_DEF)
		return "OBJ_DEF";
	if (kind == CP_EV_OBJ_UNTRACK)
		return "OBJ_UNTRACK";
	if (kind < sizeof(names) / sizeof(names[0]) && names[kind])
		return names[kind];
	return "?";
}

/* Number of uvarint payload values of vertex kind @k (ENTER: 1 svarint). */
static int payload_values(unsigned k)
{
	switch (k) {
	case CP_EV_THREAD_START:
	case CP_EV_THREAD_CREATE:
	case CP_EV_THREAD_JOIN:
	case CP_EV_REQUEST:
	case CP_EV_FAIL:
	case CP_EV_REGION_BEGIN:
	case CP_EV_REGION_END:
		return 1;
	case CP_EV_PUBLISH:
		return 2;
	case CP_EV_CONSUME:
		return 3;
	case CP_EV_THREAD_EXIT:
	case CP_EV_PROCESS_EXIT:
	case CP_EV_LEAVE:
	case CP_EV_CP_START:
	case CP_EV_CP_STOP:
	case CP_EV_SAMPLE:
	case CP_EV_ENTER:
		return 0;
	default:
		return -1;
	}
}

/*
 * Decode one event at *pp (bounded by @end) into @ev.  Returns NULL or a
 * static reason; *pp is advanced on success.
 */
static const char *decode_event(const uint8_t **pp, const uint8_t *end,
				bool hasw, struct rawev *ev)
{
	const uint8_t *p = *pp;
	uint64_t vals[3] = { 0, 0, 0 };
	unsigned k;
	int n;

	if (p >= end)
		return "event runs past the end of its block";
	ev->op = *p++;
	k = ev->op & CP_EV_KIND_MASK;
	if ((ev->op & CP_EVF_SHARED) && k != CP_EV_CONSUME)
		return "SHARED flag (bit 7) on an event that is not a CONSUME";
	if (k >= CP_EV_META_FIRST) {
		if (ev->op & CP_EVF_WAIT)
			return "WAIT flag on a metadata event";
		if (k == CP_EV_OBJ_DEF) {
			if (cp_uv_get(&p, end, &ev->a))
				return "bad varint in OBJ_DEF";
			if (p >= end)
				return "OBJ_DEF runs past the end of its block";
			ev->b = *p++;
			if (cp_uv_get(&p, end, &ev->c) ||
			    cp_uv_get(&p, end, &ev->dt))
				return "bad varint in OBJ_DEF";
		} else if (k == CP_EV_OBJ_UNTRACK) {
			if (cp_uv_get(&p, end, &ev->a))
				return "bad varint in OBJ_UNTRACK";
		} else {
			return "unknown metadata event kind";
		}
		*pp = p;
		return NULL;
	}
	n = payload_values(k);
	if (n < 0)
		return "unknown event kind";
	if (cp_uv_get(&p, end, &ev->dt))
		return "bad varint (dt)";
	ev->dwall = 0;
	if (hasw && cp_uv_get(&p, end, &ev->dwall))
		return "bad varint (dwall)";
	if (k == CP_EV_ENTER) {
		if (cp_sv_get(&p, end, &ev->sv))
			return "bad varint in ENTER";
	}
	for (int i = 0; i < n; i++)
		if (cp_uv_get(&p, end, &vals[i]))
			return "bad varint in event payload";
	ev->a = vals[0];
	ev->b = vals[1];
	ev->c = vals[2];
	*pp = p;
	return NULL;
}

/* ---- pass 1: framing ---------------------------------------------- */

/*
 * The block at @off, checked on its own (framing, checksum, the sizes its
 * type needs) into @b.  Returns NULL, or why it is not a good block in
 * @why.  @crc_budget bounds the bytes checksummed while resynchronizing.
 */
static const char *frame_block(struct rd *r, size_t off, struct blk *b,
			       char *why, size_t whylen)
{
	const uint8_t *p = r->buf + off;

	if (r->len - off < r->bsz)
		return "truncated block header";
	if (cp_rd_u32(p) != CP_BLOCK_MAGIC) {
		snprintf(why, whylen, "bad block magic 0x%08" PRIx32,
			 cp_rd_u32(p));
		return why;
	}
	b->off = off;
	b->type = cp_rd_u32(p + 4);
	b->tid = cp_rd_u32(p + 8);
	b->size = cp_rd_u32(p + 12);
	b->nev = 0;
	b->seq = 0;
	b->flags = 0;
	if (b->size > r->len - off - r->bsz) {
		snprintf(why, whylen, "block of %" PRIu32 " bytes runs past the end of the file (truncated)",
			 b->size);
		return why;
	}
	if (r->version >= 2) {
		struct cp_block_header h;

		memcpy(&h, p, BLK_SIZE);
		if (h.crc != cp_block_crc(&h, p + BLK_SIZE))
			return "block checksum mismatch";
		b->seq = h.seq;
		b->flags = h.flags;
	}
	p += r->bsz;
	switch (b->type) {
	case CP_BLOCK_EVENTS:
		if (b->size < EVHEAD_SIZE) {
			snprintf(why, whylen, "EVENTS block too small (%" PRIu32 " bytes)",
				 b->size);
			return why;
		}
		b->nev = cp_rd_u32(p + 16);
		if (b->nev > b->size - EVHEAD_SIZE) {
			snprintf(why, whylen, "EVENTS block claims %" PRIu32 " events in %" PRIu32 " bytes",
				 b->nev, b->size - EVHEAD_SIZE);
			return why;
		}
		break;
	case CP_BLOCK_THREAD:
		if (b->size < TINFO_SIZE + 1)
			return "THREAD block too small";
		break;
	case CP_BLOCK_END:
		if (b->size < END_SIZE)
			return "END block too small";
		break;
	default:
		break;
	}
	return NULL;
}

/*
 * Salvage after damage at @off: the offset of the next good block, or
 * r->len.  Candidates are the CP_BLOCK_MAGIC words that follow; the work
 * of checksumming them is bounded by a few times the file's size, so a
 * file made of block magics cannot make the reader quadratic.
 */
static size_t resync(struct rd *r, size_t off, uint64_t *budget)
{
	for (off++; off + r->bsz <= r->len; off++) {
		const uint8_t *m = memchr(r->buf + off, 'C', r->len - off);
		char why[160];
		struct blk b;

		if (!m)
			break;
		off = (size_t)(m - r->buf);
		if (r->len - off < r->bsz)
			break;
		if (cp_rd_u32(m) != CP_BLOCK_MAGIC)
			continue;
		if (cp_rd_u32(m + 12) > r->len - off - r->bsz)
			continue;
		if (*budget < cp_rd_u32(m + 12) + (uint64_t)r->bsz)
			break;
		*budget -= cp_rd_u32(m + 12) + (uint64_t)r->bsz;
		if (!frame_block(r, off, &b, why, sizeof(why)))
			return off;
	}
	return r->len;
}

static int pass1(struct rd *r, struct cp_trace_end *endp)
{
	const uint8_t *buf = r->buf;
	size_t off = cp_rd_u32(buf + 12);
	uint64_t budget = 4 * (uint64_t)r->len + (1u << 20);

	r->good_end = off;
	while (off < r->len) {
		char why[160];
		const char *bad;
		struct blk b;

		if (r->has_end) {
			if (note(r, off, "ignored", "data after the END block"))
				return -1;
			r->skipped += r->len - off;
			break;
		}
		bad = frame_block(r, off, &b, why, sizeof(why));
		if (bad) {
			size_t next;

			if (r->strict)
				return fail(r, off, "%s", bad);
			/* version 1 has no checksum to find the next block */
			next = r->version >= 2 ? resync(r, off, &budget) :
			       r->len;
			if (next < r->len)	/* damage, not the cut end */
				note(r, off, "skipped to the next good block",
				     "%s", bad);
			r->nbad++;
			r->skipped += next - off;
			off = next;
			continue;
		}
		switch (b.type) {
		case CP_BLOCK_EVENTS:
			r->total_ev += b.nev;
			break;
		case CP_BLOCK_THREAD:
		case CP_BLOCK_SYMBOLS:
		case CP_BLOCK_STRINGS:
		case CP_BLOCK_INFO:
			r->strbytes += b.size;
			break;
		case CP_BLOCK_END:
			memcpy(endp, buf + off + r->bsz, END_SIZE);
			r->has_end = true;
			r->end_off = off;
			break;
		default:
			break;	/* unknown block: skipped */
		}
		if (grow((void **)&r->blks, sizeof(*r->blks), &r->cap_blks,
			 r->nblks + 1))
			return fail(r, off, "out of memory");
		r->blks[r->nblks++] = b;
		off += r->bsz + (size_t)b.size;
		r->good_end = off;
	}
	if (!r->has_end && r->strict)
		return fail(r, r->len, "truncated: no END block");
	return 0;
}

/* ---- pass 2: decoding --------------------------------------------- */

/*
 * Salvage: make vertex @v inert, a FAIL of no object that keeps its time
 * and its WAIT flag, so the thread's own edges weigh what they did and
 * nothing depends on it.
 */
static void inert(struct cp_tvert *v)
{
	v->op = (uint8_t)(CP_EV_FAIL | (v->op & CP_EVF_WAIT));
	v->obj = 0;
	v->arg = 0;
	v->cnt = 0;
}

/*
 * Salvage: thread @tid's events cannot go on past offset @off (an event
 * that does not decode); its later blocks are dropped.
 */
static int cut_thread(struct rd *r, uint32_t tid, size_t off,
		      const char *why)
{
	if (note(r, off, "the thread ends there", "%s (thread %" PRIu32 ")",
		 why, tid))
		return -1;
	r->broken[tid] = true;
	return 0;
}

/* Check the payload of vertex @v (kind @k, decoded as @ev); NULL or why
 * it is bad, in @why. */
static const char *vertex_payload(struct cp_tvert *v, unsigned k,
				  const struct rawev *ev, uint64_t *prev_addr,
				  char *why, size_t whylen)
{
	switch (k) {
	case CP_EV_THREAD_START:
	case CP_EV_THREAD_CREATE:
	case CP_EV_THREAD_JOIN:
		if (ev->a > UINT32_MAX)
			goto bad_id;
		v->arg = ev->a;
		break;
	case CP_EV_REGION_BEGIN:
	case CP_EV_REGION_END:
		if (ev->a > UINT32_MAX) {
			snprintf(why, whylen, "%s of bad string id %" PRIu64,
				 cp_trace_kind_name(k), ev->a);
			return why;
		}
		v->arg = ev->a;
		break;
	case CP_EV_REQUEST:
	case CP_EV_FAIL:
	case CP_EV_PUBLISH:
	case CP_EV_CONSUME:
		/* object 0: none (a join's REQUEST, a dequeue of an item
		 * never enqueued); never published or consumed */
		if (ev->a >= UINT32_MAX ||
		    (ev->a == 0 && (k == CP_EV_PUBLISH ||
				    (k == CP_EV_CONSUME && ev->c)))) {
			snprintf(why, whylen, "%s of bad object id %" PRIu64,
				 cp_trace_kind_name(k), ev->a);
			return why;
		}
		v->obj = (uint32_t)ev->a;
		if (k == CP_EV_PUBLISH) {
			if (ev->b == 0) {
				snprintf(why, whylen,
					 "PUBLISH of object %" PRIu64 " with sequence 0",
					 ev->a);
				return why;
			}
			v->arg = ev->b;
		} else if (k == CP_EV_CONSUME) {
			if (ev->c > UINT32_MAX ||
			    (ev->c && (ev->b == 0 || ev->b + ev->c < ev->b))) {
				snprintf(why, whylen,
					 "CONSUME of object %" PRIu64 " with bad range %" PRIu64 "+%" PRIu64,
					 ev->a, ev->b, ev->c);
				return why;
			}
			v->arg = ev->b;
			v->cnt = (uint32_t)ev->c;
		}
		break;
	case CP_EV_ENTER:
		*prev_addr += (uint64_t)ev->sv;
		v->arg = *prev_addr;
		break;
	default:
		break;
	}
	return NULL;
bad_id:
	snprintf(why, whylen, "%s of bad thread id %" PRIu64,
		 cp_trace_kind_name(k), ev->a);
	return why;
}

static int decode_events(struct rd *r, const struct blk *b)
{
	struct cp_trace *t = r->t;
	struct cp_trace_thread *th = &t->threads[b->tid];
	const uint8_t *base = r->buf + b->off + r->bsz;
	const uint8_t *p = base + EVHEAD_SIZE;
	const uint8_t *end = base + b->size;
	uint64_t ts = cp_rd_u64(base), wall = cp_rd_u64(base + 8);
	uint64_t prev_addr = 0, floor = th->nv ? th->v[th->nv - 1].ts : 0;
	bool first = true;
	char whybuf[200];

	if (r->broken[b->tid])
		return 0;
	for (uint32_t i = 0; i < b->nev; i++) {
		const uint8_t *at = p;
		size_t off = (size_t)(at - r->buf);
		struct rawev ev;
		const char *why = decode_event(&p, end, r->hasw, &ev);
		unsigned k = ev.op & CP_EV_KIND_MASK;
		struct cp_tvert *v;

		if (why) {
			if (p >= end) {
				snprintf(whybuf, sizeof(whybuf),
					 "EVENTS block ends after %" PRIu32 " of %" PRIu32 " events",
					 i, b->nev);
				why = whybuf;
			}
			if (r->strict)
				return fail(r, off, "%s", why);
			return cut_thread(r, b->tid, off, why);
		}
		if (k == CP_EV_OBJ_DEF) {
			struct objdef *d;

			if (ev.a == 0 || ev.a >= UINT32_MAX) {
				if (note(r, off, "dropped",
					 "OBJ_DEF of bad object id %" PRIu64,
					 ev.a))
					return -1;
				continue;
			}
			if (ev.b > CP_OBJ_KIND_MAX) {
				if (note(r, off, "dropped",
					 "OBJ_DEF of object %" PRIu64 " with unknown kind %" PRIu64,
					 ev.a, ev.b))
					return -1;
				continue;
			}
			if (grow((void **)&r->defs, sizeof(*r->defs),
				 &r->cap_defs, r->ndefs + 1))
				return fail(r, off, "out of memory");
			d = &r->defs[r->ndefs++];
			d->obj = (uint32_t)ev.a;
			d->kind = (uint8_t)ev.b;
			d->addr = ev.c;
			d->extra = ev.dt;
			d->off = off;
			continue;
		}
		if (k == CP_EV_OBJ_UNTRACK) {
			if (grow((void **)&r->unt, sizeof(*r->unt),
				 &r->cap_unt, r->nunt + 1))
				return fail(r, off, "out of memory");
			if (ev.a == 0 || ev.a >= UINT32_MAX) {
				if (note(r, off, "dropped",
					 "OBJ_UNTRACK of bad object id %" PRIu64,
					 ev.a))
					return -1;
				continue;
			}
			r->unt[r->nunt].obj = (uint32_t)ev.a;
			r->unt[r->nunt++].off = off;
			continue;
		}
		if (ts + ev.dt < ts || wall + ev.dwall < wall) {
			if (r->strict)
				return fail(r, off, "timestamp overflows");
			return cut_thread(r, b->tid, off,
					  "timestamp overflows");
		}
		ts += ev.dt;
		wall += ev.dwall;
		if (first && ts < floor) {
			if (note(r, off, "held at the previous time",
				 "time goes backwards in thread %" PRIu32 " (block starts at %" PRIu64 ", previous vertex at %" PRIu64 ")",
				 b->tid, ts, floor))
				return -1;
		}
		first = false;
		v = &th->v[th->nv];
		v->ts = ts < floor ? floor : ts;
		v->op = ev.op;
		v->obj = 0;
		v->cnt = 0;
		v->arg = 0;
		why = vertex_payload(v, k, &ev, &prev_addr, whybuf,
				     sizeof(whybuf));
		if (why) {
			if (note(r, off, "made inert", "%s", why))
				return -1;
			inert(v);
		}
		if (k == CP_EV_CP_START || k == CP_EV_CP_STOP)
			t->has_startstop = true;
		if (th->wall)
			th->wall[th->nv] = wall;
		th->nv++;
	}
	/* a block closed from another thread may hold one uncounted event */
	if (p != end && !(b->flags & CP_BLOCKF_CLOSED) &&
	    note(r, (size_t)(p - r->buf), "ignored",
		 "%zu stray bytes after the last event of the block",
		 (size_t)(end - p)))
		return -1;
	return 0;
}

/* Copy a string-bearing payload into strbuf; returns its copy. */
static char *copy_payload(struct rd *r, const struct blk *b)
{
	char *dst = r->t->strbuf + r->strused;

	memcpy(dst, r->buf + b->off + r->bsz, b->size);
	r->strused += b->size;
	return dst;
}

/* Length of a NUL-terminated string at @p within @n bytes, or -1. */
static long cstrlen(const char *p, size_t n)
{
	const char *z = memchr(p, 0, n);

	return z ? (long)(z - p) : -1;
}

static int decode_thread(struct rd *r, const struct blk *b)
{
	struct cp_trace_thread *th = &r->t->threads[b->tid];
	char *p = copy_payload(r, b);

	if (th->has_info)
		return fail(r, b->off, "second THREAD block for thread %" PRIu32,
			    b->tid);
	memcpy(&th->info, p, TINFO_SIZE);
	if (th->info.tid != b->tid)
		return fail(r, b->off,
			    "THREAD block of thread %" PRIu32 " says tid %" PRIu32,
			    b->tid, th->info.tid);
	if (cstrlen(p + TINFO_SIZE, b->size - TINFO_SIZE) < 0)
		return fail(r, b->off, "thread name not terminated");
	th->has_info = true;
	th->name = p + TINFO_SIZE;
	return 0;
}

static int decode_symbols(struct rd *r, const struct blk *b)
{
	struct cp_trace *t = r->t;
	char *p = copy_payload(r, b), *start = p, *end = p + b->size;

	while (p < end) {
		size_t off = b->off + r->bsz + (size_t)(p - start);
		long n;
		size_t cap = r->cap_syms;

		if (end - p < 17)
			return fail(r, off, "truncated symbol record");
		n = cstrlen(p + 16, (size_t)(end - p - 16));
		if (n < 0)
			return fail(r, off, "symbol name not terminated");
		if (grow((void **)&t->syms, sizeof(*t->syms), &cap,
			 t->nsyms + 1))
			return fail(r, b->off, "out of memory");
		r->cap_syms = (uint32_t)cap;
		t->syms[t->nsyms].addr = cp_rd_u64((uint8_t *)p);
		t->syms[t->nsyms].size = cp_rd_u64((uint8_t *)p + 8);
		t->syms[t->nsyms].name = p + 16;
		t->nsyms++;
		p += 16 + n + 1;
	}
	return 0;
}

static int decode_strings(struct rd *r, const struct blk *b)
{
	struct cp_trace *t = r->t;
	char *p = copy_payload(r, b), *end = p + b->size;

	while (p < end) {
		long n;
		size_t cap = r->cap_strs;
		size_t off = b->off + r->bsz + (size_t)(p - (end - b->size));

		if (end - p < 5)
			return fail(r, off, "truncated string record");
		n = cstrlen(p + 4, (size_t)(end - p - 4));
		if (n < 0)
			return fail(r, off, "string not terminated");
		if (grow((void **)&t->strs, sizeof(*t->strs), &cap,
			 t->nstrs + 1))
			return fail(r, off, "out of memory");
		r->cap_strs = (uint32_t)cap;
		t->strs[t->nstrs].id = cp_rd_u32((uint8_t *)p);
		t->strs[t->nstrs].text = p + 4;
		t->nstrs++;
		p += 4 + n + 1;
	}
	return 0;
}

/* SAMPLES and MODULES blocks: cp_samples.c. */
static int decode_samples(struct rd *r, const struct blk *b)
{
	char why[128];
	size_t at = 0;

	if (cp_samples_add_block(&r->t->samples, b->type, b->tid,
				 r->buf + b->off + BLK_SIZE, b->size, &at,
				 why, sizeof(why)))
		return fail(r, b->off + BLK_SIZE + at, "%s", why);
	return 0;
}

static int decode_info(struct rd *r, const struct blk *b)
{
	struct cp_trace *t = r->t;
	char *p = copy_payload(r, b), *end = p + b->size;

	while (p < end) {
		long nk, nv;
		size_t cap = r->cap_info;
		size_t off = b->off + r->bsz + (size_t)(p - (end - b->size));

		nk = cstrlen(p, (size_t)(end - p));
		if (nk < 0)
			return fail(r, off, "INFO key not terminated");
		nv = cstrlen(p + nk + 1, (size_t)(end - p - nk - 1));
		if (nv < 0)
			return fail(r, off, "INFO value not terminated");
		if (grow((void **)&t->info, sizeof(*t->info), &cap,
			 t->ninfo + 1))
			return fail(r, off, "out of memory");
		r->cap_info = (uint32_t)cap;
		t->info[t->ninfo].key = p;
		t->info[t->ninfo].value = p + nk + 1;
		t->ninfo++;
		p += nk + 1 + nv + 1;
	}
	return 0;
}

/* ---- step 3: whole-file checks ------------------------------------ */

/*
 * File offset of vertex @vi of thread @tid: decode that thread's blocks
 * again.  Only used to word an error message.
 */
static size_t vertex_offset(struct rd *r, uint32_t tid, uint32_t vi)
{
	uint32_t seen = 0;

	for (size_t i = 0; i < r->nblks; i++) {
		const struct blk *b = &r->blks[i];
		const uint8_t *p, *end;

		if (b->type != CP_BLOCK_EVENTS || b->tid != tid)
			continue;
		p = r->buf + b->off + r->bsz + EVHEAD_SIZE;
		end = r->buf + b->off + r->bsz + b->size;
		for (uint32_t j = 0; j < b->nev; j++) {
			const uint8_t *at = p;
			struct rawev ev;

			if (decode_event(&p, end, r->hasw, &ev))
				return (size_t)(at - r->buf);
			if ((ev.op & CP_EV_KIND_MASK) >= CP_EV_META_FIRST)
				continue;
			if (seen++ == vi)
				return (size_t)(at - r->buf);
		}
	}
	return 0;
}

#define VFAIL(r, tid, vi, ...) \
	fail((r), vertex_offset((r), (tid), (vi)), __VA_ARGS__)

/* note() for vertex @vi of thread @tid (its offset found only if used). */
static int vnote(struct rd *r, uint32_t tid, uint32_t vi, const char *action,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int vnote(struct rd *r, uint32_t tid, uint32_t vi, const char *action,
		 const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	size_t off = 0;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->strict || !r->t->nrepairs)
		off = vertex_offset(r, tid, vi);
	return note(r, off, action, "%s", msg);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct cp_trace_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address prefer the sized symbol, then file order */
	if ((x->size == 0) != (y->size == 0))
		return x->size == 0 ? 1 : -1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
	const struct cp_trace_str *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_pub(const void *a, const void *b)
{
	const struct cp_trace_pub *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int check_objects(struct rd *r)
{
	struct cp_trace *t = r->t;
	uint32_t maxid = 0;

	for (size_t i = 0; i < r->ndefs; i++) {
		if (r->defs[i].obj > r->total_ev) {
			if (note(r, r->defs[i].off, "dropped",
				 "object id %" PRIu32 " out of range",
				 r->defs[i].obj))
				return -1;
			r->defs[i].obj = 0;	/* dropped */
		}
		if (r->defs[i].obj > maxid)
			maxid = r->defs[i].obj;
	}
	t->nobjs = maxid + 1;
	t->objs = calloc(t->nobjs, sizeof(*t->objs));
	if (!t->objs)
		return fail(r, 0, "out of memory");
	for (size_t i = 0; i < r->ndefs; i++) {
		const struct objdef *d = &r->defs[i];
		struct cp_trace_obj *o = &t->objs[d->obj];

		if (!d->obj)
			continue;
		if (o->defined && (o->kind != d->kind || o->addr != d->addr ||
				   o->extra != d->extra)) {
			if (note(r, d->off, "the first definition kept",
				 "object %" PRIu32 " defined twice, differently",
				 d->obj))
				return -1;
			continue;
		}
		o->defined = true;
		o->kind = d->kind;
		o->addr = d->addr;
		o->extra = d->extra;
	}
	for (size_t i = 0; i < r->nunt; i++) {
		uint32_t id = r->unt[i].obj;

		if (id >= t->nobjs || !t->objs[id].defined) {
			if (note(r, r->unt[i].off, "ignored",
				 "OBJ_UNTRACK of undefined object %" PRIu32,
				 id))
				return -1;
			continue;
		}
		t->objs[id].untracked = true;
	}
	return 0;
}

static int check_uses(struct rd *r)
{
	struct cp_trace *t = r->t;
	uint64_t npub = 0, k = 0;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];

		for (uint32_t i = 0; i < th->nv; i++) {
			struct cp_tvert *v = &th->v[i];
			unsigned kind = cp_tvert_kind(v);

			if (kind == CP_EV_REGION_BEGIN ||
			    kind == CP_EV_REGION_END) {
				struct cp_trace_str key = {
					.id = (uint32_t)v->arg,
				};

				if (!t->nstrs ||
				    !bsearch(&key, t->strs, t->nstrs,
					     sizeof(key), cmp_str))
					return VFAIL(r, tid, i,
						     "%s of undefined string %" PRIu64,
						     cp_trace_kind_name(kind),
						     v->arg);
			}
			if (!v->obj)
				continue;
			if (v->obj >= t->nobjs || !t->objs[v->obj].defined) {
				if (vnote(r, tid, i, "made inert",
					  "%s of undefined object %" PRIu32,
					  cp_trace_kind_name(kind), v->obj))
					return -1;
				inert(v);
				continue;
			}
			if ((kind == CP_EV_PUBLISH || kind == CP_EV_CONSUME) &&
			    !t->objs[v->obj].kind) {
				if (vnote(r, tid, i, "made inert",
					  "%s of object %" PRIu32 ", which has no kind",
					  cp_trace_kind_name(kind), v->obj))
					return -1;
				inert(v);
				continue;
			}
			if (cp_tvert_shared(v) &&
			    t->objs[v->obj].kind != CP_OBJ_RWLOCK) {
				if (vnote(r, tid, i, "taken as exclusive",
					  "SHARED CONSUME of object %" PRIu32 ", a %s, not an rwlock",
					  v->obj,
					  cp_obj_kind_name(
						t->objs[v->obj].kind)))
					return -1;
				v->op &= (uint8_t)~CP_EVF_SHARED;
			}
			if (kind == CP_EV_PUBLISH) {
				t->objs[v->obj].npub++;
				npub++;
			}
		}
	}
	/*
	 * Publishes grouped by object, sorted by seq.  Sequences are dense
	 * (1..n) in every trace the runtime writes, so each goes straight to
	 * its slot; an object with gaps is sorted instead.
	 */
	t->npub = npub;
	if (npub > UINT32_MAX)
		return fail(r, 0, "too many PUBLISH events");
	t->pub = cp_big_malloc((npub ? npub : 1) * sizeof(*t->pub));
	if (!t->pub)
		return fail(r, 0, "out of memory");
	for (uint32_t o = 1; o < t->nobjs; o++) {
		t->objs[o].pub_off = (uint32_t)k;
		k += t->objs[o].npub;
	}
	for (uint64_t i = 0; i < npub; i++)
		t->pub[i].seq = 0;	/* empty slot */
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];

		for (uint32_t i = 0; i < th->nv; i++) {
			const struct cp_tvert *v = &th->v[i];
			struct cp_trace_obj *o;
			struct cp_trace_pub *pb;

			if (cp_tvert_kind(v) != CP_EV_PUBLISH)
				continue;
			o = &t->objs[v->obj];
			if (o->sparse)
				continue;
			if (v->arg > o->npub) {
				o->sparse = true;	/* second pass below */
				continue;
			}
			pb = &t->pub[o->pub_off + v->arg - 1];
			if (pb->seq && !r->strict) {
				o->sparse = true;	/* sorted out below */
				continue;
			}
			if (pb->seq)
				return VFAIL(r, tid, i,
					     "object %" PRIu32 " publishes sequence %" PRIu64 " twice",
					     v->obj, v->arg);
			pb->seq = v->arg;
			pb->tid = tid;
			pb->vi = i;
		}
	}
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];

		for (uint32_t i = 0; i < th->nv; i++) {
			const struct cp_tvert *v = &th->v[i];
			struct cp_trace_obj *o;
			struct cp_trace_pub *pb;

			if (cp_tvert_kind(v) != CP_EV_PUBLISH ||
			    !t->objs[v->obj].sparse)
				continue;
			o = &t->objs[v->obj];
			if (!o->nfilled)
				for (uint32_t j = 0; j < o->npub; j++)
					t->pub[o->pub_off + j].seq = 0;
			pb = &t->pub[o->pub_off + o->nfilled++];
			pb->seq = v->arg;
			pb->tid = tid;
			pb->vi = i;
		}
	}
	for (uint32_t o = 1; o < t->nobjs; o++) {
		struct cp_trace_pub *pb = t->pub + t->objs[o].pub_off;
		uint32_t n = t->objs[o].npub;

		if (!t->objs[o].sparse)
			continue;
		qsort(pb, n, sizeof(*pb), cmp_pub);
		for (uint32_t i = 1, w = 1; i < n; i++) {
			if (pb[w - 1].seq != pb[i].seq) {
				pb[w++] = pb[i];
			} else {
				if (vnote(r, pb[i].tid, pb[i].vi, "made inert",
					  "object %" PRIu32 " publishes sequence %" PRIu64 " twice",
					  o, pb[i].seq))
					return -1;
				inert(&t->threads[pb[i].tid].v[pb[i].vi]);
				t->objs[o].npub--;
				t->npub--;
			}
		}
	}
	/* every CONSUME range must be published */
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];

		for (uint32_t i = 0; i < th->nv; i++) {
			struct cp_tvert *v = &th->v[i];

			if (cp_tvert_kind(v) != CP_EV_CONSUME || !v->cnt)
				continue;
			if (!cp_trace_find_pub(t, v->obj, v->arg, v->cnt)) {
				if (vnote(r, tid, i,
					  "taken to depend on nothing",
					  "CONSUME of object %" PRIu32 " sequences %" PRIu64 "..%" PRIu64 " without a matching PUBLISH",
					  v->obj, v->arg,
					  v->arg + v->cnt - 1))
					return -1;
				v->cnt = 0;
			}
		}
	}
	return 0;
}

/*
 * Salvage: region ids that no STRINGS block names (a partial trace lost
 * it) get the name "region N", so the regions are still told apart.
 */
static int synth_strings(struct rd *r)
{
	struct cp_trace *t = r->t;
	uint32_t *ids = NULL, n = 0, cap = 0, k = 0;
	size_t cap_ids = 0;
	int ret = -1;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		const struct cp_trace_thread *th = &t->threads[tid];

		for (uint32_t i = 0; i < th->nv; i++) {
			const struct cp_tvert *v = &th->v[i];
			unsigned kind = cp_tvert_kind(v);

			if (kind != CP_EV_REGION_BEGIN &&
			    kind != CP_EV_REGION_END)
				continue;
			if (cp_trace_string(t, (uint32_t)v->arg))
				continue;
			if (grow((void **)&ids, sizeof(*ids), &cap_ids, n + 1))
				goto out;
			ids[n++] = (uint32_t)v->arg;
		}
	}
	if (!n)
		return 0;
	qsort(ids, n, sizeof(*ids), cmp_u32);
	for (uint32_t i = 0; i < n; i++)
		if (!k || ids[k - 1] != ids[i])
			ids[k++] = ids[i];
	if (note(r, 0, "named by their ids",
		 "%" PRIu32 " region names missing", k))
		goto out;
	cap = t->nstrs;
	t->synth = malloc((size_t)k * 24);
	if (!t->synth || grow((void **)&t->strs, sizeof(*t->strs),
			      &(size_t){ cap }, t->nstrs + k))
		goto out;
	for (uint32_t i = 0; i < k; i++) {
		char *text = t->synth + (size_t)i * 24;

		snprintf(text, 24, "region %" PRIu32, ids[i]);
		t->strs[t->nstrs].id = ids[i];
		t->strs[t->nstrs++].text = text;
	}
	qsort(t->strs, t->nstrs, sizeof(*t->strs), cmp_str);
	ret = 0;
out:
	if (ret)
		fail(r, 0, "out of memory");
	free(ids);
	return ret;
}

/*
 * A thread whose events do not begin with THREAD_START (its first block
 * was lost) is dropped whole, before the uses are checked, so that no
 * other thread's CONSUME can point at its PUBLISHes.  0 or -1 (strict).
 */
static int drop_headless_threads(struct rd *r)
{
	struct cp_trace *t = r->t;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];

		if (!th->nv || cp_tvert_kind(&th->v[0]) == CP_EV_THREAD_START)
			continue;
		if (vnote(r, tid, 0, "its events are dropped",
			  "thread %" PRIu32 " does not begin with THREAD_START",
			  tid))
			return -1;
		t->nvertices -= th->nv;
		th->nv = 0;
	}
	return 0;
}

/*
 * A thread created but never seen running (it had not started when the
 * process ended, or a partial trace lost its events) has no block: widen
 * the table to every tid a THREAD_CREATE names, within the sanity bound
 * on thread ids, so it is a thread without events rather than an unknown
 * one.
 */
static int cover_created(struct rd *r)
{
	struct cp_trace *t = r->t;
	uint64_t bound = 4 * (uint64_t)r->nblks + t->nthreads + 64;
	uint32_t n = t->nthreads;
	struct cp_trace_thread *nt;

	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		for (uint32_t i = 0; i < t->threads[tid].nv; i++) {
			const struct cp_tvert *v = &t->threads[tid].v[i];

			if (cp_tvert_kind(v) == CP_EV_THREAD_CREATE &&
			    v->arg >= n && v->arg < bound)
				n = (uint32_t)v->arg + 1;
		}
	if (n == t->nthreads)
		return 0;
	nt = realloc(t->threads, n * sizeof(*nt));
	if (!nt)
		return fail(r, 0, "out of memory");
	memset(nt + t->nthreads, 0, (n - t->nthreads) * sizeof(*nt));
	t->threads = nt;
	t->nthreads = n;
	return 0;
}

static int check_threads(struct rd *r)
{
	struct cp_trace *t = r->t;
	uint64_t *stack = NULL;
	size_t cap = 0;
	int ret = -1;
	bool any = false;

	if (cover_created(r))
		return -1;

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		t->threads[tid].tid = tid;
		t->threads[tid].parent = UINT32_MAX;
		t->threads[tid].create_v = UINT32_MAX;
		t->threads[tid].exit_v = UINT32_MAX;
	}
	/* creates, starts and exits */
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];

		if (th->nv)
			any = true;
		for (uint32_t i = 0; i < th->nv; i++) {
			struct cp_tvert *v = &th->v[i];
			unsigned kind = cp_tvert_kind(v);
			struct cp_trace_thread *c;

			if (th->exit_v != UINT32_MAX) {
				if (vnote(r, tid, i, "made inert",
					  "thread %" PRIu32 " has events after THREAD_EXIT",
					  tid))
					return -1;
				inert(&th->v[th->exit_v]);
				th->exit_v = UINT32_MAX;
			}
			switch (kind) {
			case CP_EV_THREAD_START:
				if (i != 0) {
					if (vnote(r, tid, i, "made inert",
						  "second THREAD_START in thread %" PRIu32,
						  tid))
						return -1;
					inert(v);
					break;
				}
				if (v->arg) {
					if (v->arg - 1 >= t->nthreads ||
					    v->arg - 1 == tid) {
						if (vnote(r, tid, i,
							  "taken as parentless",
							  "thread %" PRIu32 " started by unknown thread %" PRIu64,
							  tid, v->arg - 1))
							return -1;
						v->arg = 0;
						break;
					}
					th->parent = (uint32_t)(v->arg - 1);
				}
				break;
			case CP_EV_THREAD_EXIT:
				th->exit_v = i;
				break;
			case CP_EV_THREAD_CREATE:
				if (v->arg >= t->nthreads || v->arg == tid) {
					if (vnote(r, tid, i, "made inert",
						  "THREAD_CREATE of unknown thread %" PRIu64,
						  v->arg))
						return -1;
					inert(v);
					break;
				}
				c = &t->threads[v->arg];
				if (c->create_v != UINT32_MAX) {
					if (vnote(r, tid, i, "made inert",
						  "thread %" PRIu64 " created twice",
						  v->arg))
						return -1;
					inert(v);
					break;
				}
				c->create_v = i;
				break;
			case CP_EV_THREAD_JOIN:
				if (v->arg >= t->nthreads || v->arg == tid) {
					if (vnote(r, tid, i, "made inert",
						  "THREAD_JOIN of unknown thread %" PRIu64,
						  v->arg))
						return -1;
					inert(v);
				}
				break;
			default:
				break;
			}
		}
	}
	if (!any)
		return fail(r, 0, "no events in the trace");
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];
		struct cp_trace_thread *p;

		if (!th->nv)
			continue;
		if (th->parent == UINT32_MAX) {
			if (th->create_v != UINT32_MAX &&
			    vnote(r, tid, 0, "taken as parentless",
				  "thread %" PRIu32 " was created but its THREAD_START names no parent",
				  tid))
				return -1;
			continue;
		}
		p = &t->threads[th->parent];
		if (th->create_v == UINT32_MAX || th->create_v >= p->nv ||
		    cp_tvert_kind(&p->v[th->create_v]) != CP_EV_THREAD_CREATE ||
		    p->v[th->create_v].arg != tid) {
			if (vnote(r, tid, 0, "taken as parentless",
				  "thread %" PRIu32 " started by thread %" PRIu32 ", which has no THREAD_CREATE of it",
				  tid, th->parent))
				return -1;
			th->parent = UINT32_MAX;
			th->v[0].arg = 0;
		}
	}
	/* joins need the child's exit; procedure and region nesting */
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];
		size_t depth = 0;

		for (uint32_t i = 0; i < th->nv; i++) {
			struct cp_tvert *v = &th->v[i];
			unsigned kind = cp_tvert_kind(v);
			struct cp_trace_thread *c;
			size_t j;

			switch (kind) {
			case CP_EV_THREAD_JOIN:
				c = &t->threads[v->arg];
				/* (an exit seen before a later cut of the
				 * child's events counts as missing) */
				if (c->exit_v < c->nv)
					break;
				if (vnote(r, tid, i, c->nv ?
					  "the child taken to end at its "
					  "last event" : "made inert",
					  "THREAD_JOIN of thread %" PRIu64 ", which has no THREAD_EXIT",
					  v->arg))
					goto out;
				if (c->nv)
					c->exit_v = c->nv - 1;
				else
					inert(v);
				break;
			case CP_EV_ENTER:
			case CP_EV_REGION_BEGIN:
				if (grow((void **)&stack, sizeof(*stack), &cap,
					 depth + 1)) {
					fail(r, 0, "out of memory");
					goto out;
				}
				/* 0: a procedure; id + 1: a region */
				stack[depth++] = kind == CP_EV_ENTER ?
					0 : v->arg + 1;
				break;
			case CP_EV_LEAVE:
				for (j = depth; j > 0 && stack[j - 1]; j--)
					;
				if (j == 0) {
					if (vnote(r, tid, i, "made inert",
						  "LEAVE without ENTER in thread %" PRIu32,
						  tid))
						goto out;
					inert(v);
					break;
				}
				depth = j - 1;
				break;
			case CP_EV_REGION_END:
				for (j = depth;
				     j > 0 && stack[j - 1] != v->arg + 1; j--)
					;
				if (j == 0) {
					if (vnote(r, tid, i, "made inert",
						  "REGION_END of region %" PRIu64 " that is not open in thread %" PRIu32,
						  v->arg, tid))
						goto out;
					inert(v);
					break;
				}
				depth = j - 1;
				break;
			default:
				break;
			}
		}
	}
	ret = 0;
out:
	free(stack);
	return ret;
}

static int check_header(struct rd *r)
{
	const uint8_t *b = r->buf;
	struct cp_trace *t = r->t;
	uint32_t hsize;

	if (r->len == 0)
		return fail(r, 0, "empty file");
	if (r->len < 8 || memcmp(b, CP_TRACE_MAGIC, 8) != 0)
		return fail(r, 0, "not a cpthread trace (bad magic)");
	if (r->len < HDR_SIZE)
		return fail(r, r->len, "truncated header");
	r->version = cp_rd_u32(b + 8);
	if (r->version != 1 && r->version != CP_TRACE_VERSION)
		return fail(r, 8, "unsupported trace version %" PRIu32,
			    r->version);
	r->bsz = r->version == 1 ? CP_BLOCK_HEADER_V1_SIZE : BLK_SIZE;
	hsize = cp_rd_u32(b + 12);
	if (hsize < HDR_SIZE || hsize > r->len)
		return fail(r, 12, "bad header size %" PRIu32, hsize);
	t->clock = cp_rd_u32(b + 16);
	if (t->clock != CP_CLOCK_WALL && t->clock != CP_CLOCK_CPU)
		return fail(r, 16, "unknown clock %" PRIu32, t->clock);
	t->flags = cp_rd_u32(b + 20);
	if (t->flags & ~CP_TRACE_HAS_WALL)
		return fail(r, 20, "unknown header flags 0x%" PRIx32, t->flags);
	r->hasw = t->flags & CP_TRACE_HAS_WALL;
	t->pid = cp_rd_u64(b + 24);
	t->start_realtime_ns = cp_rd_u64(b + 32);
	t->start_wall_ns = cp_rd_u64(b + 40);
	return 0;
}

/*
 * Salvage, before decoding: an EVENTS block numbered out of turn means its
 * thread lost a block (torn by a crash, or damaged), so that block and the
 * thread's later ones are dropped.  Version 1 blocks carry no numbers.
 */
static int check_sequence(struct rd *r)
{
	struct cp_trace *t = r->t;
	uint32_t *next = calloc(t->nthreads, sizeof(*next));

	if (!next)
		return fail(r, 0, "out of memory");
	for (size_t i = 0; r->version >= 2 && i < r->nblks; i++) {
		struct blk *b = &r->blks[i];

		if (b->type != CP_BLOCK_EVENTS)
			continue;
		if (next[b->tid] != UINT32_MAX && b->seq != next[b->tid]) {
			if (note(r, b->off, "the thread ends there",
				 "thread %" PRIu32 " lost events block %" PRIu32,
				 b->tid, next[b->tid])) {
				free(next);
				return -1;
			}
			next[b->tid] = UINT32_MAX;	/* a gap: the rest goes */
		}
		if (next[b->tid] == UINT32_MAX) {
			r->total_ev -= b->nev;
			b->type = 0;
		} else {
			next[b->tid]++;
		}
	}
	free(next);
	return 0;
}

/* Partial trace: say in one line what was missing and what is assumed. */
static void say_partial(struct rd *r)
{
	struct cp_trace *t = r->t;
	char cut[64] = "";

	if (r->len > r->good_end)
		snprintf(cut, sizeof(cut), " (%zu bytes after them dropped)",
			 r->len - r->good_end);
	t->partial = true;
	snprintf(t->partial_why, sizeof(t->partial_why),
		 "no END block (the run did not finish: crash, kill or write "
		 "error); read %zu complete blocks%s; open waits and threads "
		 "end at their last recorded event", r->nblks, cut);
}

static int parse(struct rd *r)
{
	struct cp_trace *t = r->t;
	struct cp_trace_end end;
	uint64_t *nev;
	uint32_t maxtid = 0;

	memset(&end, 0, sizeof(end));
	if (check_header(r) || pass1(r, &end))
		return -1;
	if (!r->has_end)
		say_partial(r);
	t->nevents = r->has_end ? end.nevents : r->total_ev;
	t->online_len_ns = end.online_len_ns;
	if (r->has_end && end.nthreads > r->total_ev + 1) {
		if (note(r, r->end_off, "ignored",
			 "END block gives %" PRIu32 " threads", end.nthreads))
			return -1;
		end.nthreads = 0;
	}
	if (r->has_end && end.nevents != r->total_ev) {
		if (note(r, r->end_off, "the blocks' count used",
			 "END block counts %" PRIu64 " events, the blocks hold %" PRIu64,
			 end.nevents, r->total_ev))
			return -1;
		t->nevents = r->total_ev;
	}
	/*
	 * Thread ids may have gaps (a failed pthread_create), so the table
	 * covers every tid a block names, within a sanity bound.
	 */
	t->nthreads = end.nthreads;
	for (size_t i = 0; i < r->nblks; i++) {
		struct blk *b = &r->blks[i];

		if (b->type != CP_BLOCK_EVENTS && b->type != CP_BLOCK_THREAD)
			continue;
		if (b->tid >= 4 * (uint64_t)r->nblks + end.nthreads + 64) {
			if (note(r, b->off, "the block is dropped",
				 "implausible thread id %" PRIu32, b->tid))
				return -1;
			if (b->type == CP_BLOCK_EVENTS)
				r->total_ev -= b->nev;
			b->type = 0;
			continue;
		}
		if (b->tid >= maxtid)
			maxtid = b->tid + 1;
	}
	if (maxtid > t->nthreads)
		t->nthreads = maxtid;
	if (t->nthreads == 0)
		return fail(r, r->has_end ? r->end_off : r->len,
			    "no threads in the trace");
	t->threads = calloc(t->nthreads, sizeof(*t->threads));
	nev = calloc(t->nthreads, sizeof(*nev));
	r->broken = calloc(t->nthreads, sizeof(*r->broken));
	t->strbuf = malloc(r->strbytes ? r->strbytes : 1);
	if (!t->threads || !nev || !r->broken || !t->strbuf) {
		free(nev);
		return fail(r, 0, "out of memory");
	}
	if (check_sequence(r)) {
		free(nev);
		return -1;
	}
	t->nevents = r->total_ev;	/* what is read, END or not */
	for (size_t i = 0; i < r->nblks; i++) {
		const struct blk *b = &r->blks[i];

		if (b->type == CP_BLOCK_EVENTS)
			nev[b->tid] += b->nev;
	}
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];

		if (!nev[tid])
			continue;
		th->v = cp_big_malloc(nev[tid] * sizeof(*th->v));
		if (r->hasw)
			th->wall = cp_big_malloc(nev[tid] * sizeof(*th->wall));
		if (!th->v || (r->hasw && !th->wall)) {
			free(nev);
			return fail(r, 0, "out of memory");
		}
	}
	free(nev);
	for (size_t i = 0; i < r->nblks; i++) {
		const struct blk *b = &r->blks[i];
		int ret = 0;

		switch (b->type) {
		case CP_BLOCK_EVENTS:
			ret = decode_events(r, b);
			break;
		case CP_BLOCK_THREAD:
			ret = decode_thread(r, b);
			break;
		case CP_BLOCK_SYMBOLS:
			ret = decode_symbols(r, b);
			break;
		case CP_BLOCK_STRINGS:
			ret = decode_strings(r, b);
			break;
		case CP_BLOCK_INFO:
			ret = decode_info(r, b);
			break;
		case CP_BLOCK_SAMPLES:
		case CP_BLOCK_MODULES:
			ret = decode_samples(r, b);
			break;
		default:
			break;
		}
		if (ret)
			return ret;
	}
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		t->nvertices += t->threads[tid].nv;
	if (t->nsyms)
		qsort(t->syms, t->nsyms, sizeof(*t->syms), cmp_sym);
	if (t->nstrs)
		qsort(t->strs, t->nstrs, sizeof(*t->strs), cmp_str);
	for (uint32_t i = 1; i < t->nstrs; i++)
		if (t->strs[i].id == t->strs[i - 1].id &&
		    strcmp(t->strs[i].text, t->strs[i - 1].text))
			return fail(r, 0, "string %" PRIu32 " defined twice, differently",
				    t->strs[i].id);
	if (check_objects(r) || (!r->strict && synth_strings(r)) ||
	    drop_headless_threads(r) ||
	    check_uses(r) || check_threads(r))
		return -1;
	if (t->samples && cp_samples_finish(t->samples, t))
		return fail(r, 0, "out of memory");
	return 0;
}

int cp_trace_parse(struct cp_trace *t, const char *name, const void *buf,
		   size_t len, char *err, size_t errlen)
{
	return cp_trace_parse_flags(t, name, buf, len, 0, err, errlen);
}

int cp_trace_parse_flags(struct cp_trace *t, const char *name,
			 const void *buf, size_t len, unsigned flags,
			 char *err, size_t errlen)
{
	struct rd r = {
		.t = t, .buf = buf, .len = len, .err = err, .errlen = errlen,
		.strict = flags & CP_TRACE_STRICT,
	};
	int ret;

	cp_crc32c_init();

	memset(t, 0, sizeof(*t));
	t->path = strdup(name ? name : "trace");
	if (!t->path) {
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	ret = parse(&r);
	cp_big_free(r.blks);	/* scratch the next phases may reuse */
	cp_big_free(r.defs);
	cp_big_free(r.unt);
	free(r.broken);
	if (ret)
		cp_trace_free(t);
	return ret;
}

int cp_trace_read(struct cp_trace *t, const char *path, char *err,
		  size_t errlen)
{
	return cp_trace_read_flags(t, path, 0, err, errlen);
}

int cp_trace_read_flags(struct cp_trace *t, const char *path,
			unsigned flags, char *err, size_t errlen)
{
	struct stat st;
	void *map = NULL;
	int fd, ret;

	memset(t, 0, sizeof(*t));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			   fd, 0);
		if (map == MAP_FAILED) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	}
	close(fd);
	ret = cp_trace_parse_flags(t, path, map ? map : "",
				   (size_t)st.st_size, flags, err, errlen);
	if (map)
		munmap(map, (size_t)st.st_size);
	return ret;
}

void cp_trace_free(struct cp_trace *t)
{
	if (t->threads)
		for (uint32_t i = 0; i < t->nthreads; i++) {
			free(t->threads[i].v);
			free(t->threads[i].wall);
		}
	free(t->threads);
	free(t->objs);
	free(t->pub);
	free(t->syms);
	free(t->strs);
	free(t->info);
	free(t->strbuf);
	free(t->synth);
	free(t->path);
	cp_samples_free(t->samples);
	memset(t, 0, sizeof(*t));
}

bool cp_trace_is_trace(const char *path)
{
	char magic[8];
	struct stat st;
	FILE *f;
	bool yes;

	/* a pipe or device cannot be read twice: only files are sniffed */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	f = fopen(path, "rb");
	if (!f)
		return false;
	yes = fread(magic, 1, 8, f) == 8 && !memcmp(magic, CP_TRACE_MAGIC, 8);
	fclose(f);
	return yes;
}

const char *cp_trace_sym_name(const struct cp_trace *t, uint64_t addr,
			      char *buf, size_t len)
{
	uint32_t lo = 0, hi = t->nsyms;

	/* first symbol with address > addr */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		uint32_t i = lo - 1;

		if (t->syms[i].addr == addr) {
			/* the first one here (sized ones sort first) */
			while (i > 0 && t->syms[i - 1].addr == addr)
				i--;
			return t->syms[i].name;
		}
		/* containing symbol: search back a little among overlaps */
		for (uint32_t n = 0; n < 16 && lo > 0; n++, lo--) {
			const struct cp_trace_sym *s = &t->syms[lo - 1];

			if (addr - s->addr < s->size)
				return s->name;
		}
	}
	snprintf(buf, len, "0x%" PRIx64, addr);
	return buf;
}

const char *cp_trace_string(const struct cp_trace *t, uint32_t id)
{
	struct cp_trace_str key = { .id = id };
	const struct cp_trace_str *s;

	if (!t->nstrs)
		return NULL;
	s = bsearch(&key, t->strs, t->nstrs, sizeof(key), cmp_str);
	return s ? s->text : NULL;
}

const char *cp_trace_info(const struct cp_trace *t, const char *key)
{
	for (uint32_t i = 0; i < t->ninfo; i++)
		if (!strcmp(t->info[i].key, key))
			return t->info[i].value;
	return NULL;
}

const struct cp_trace_pub *cp_trace_find_pub(const struct cp_trace *t,
					     uint32_t obj, uint64_t lo,
					     uint64_t cnt)
{
	const struct cp_trace_pub *pb;
	uint32_t n, a = 0, b;

	if (obj == 0 || obj >= t->nobjs || cnt == 0)
		return NULL;
	pb = t->pub + t->objs[obj].pub_off;
	n = t->objs[obj].npub;
	/* dense sequences (the normal case): direct index */
	if (lo >= 1 && lo <= n && pb[lo - 1].seq == lo) {
		a = (uint32_t)(lo - 1);
	} else {
		b = n;
		while (a < b) {
			uint32_t mid = a + (b - a) / 2;

			if (pb[mid].seq < lo)
				a = mid + 1;
			else
				b = mid;
		}
		if (a >= n || pb[a].seq != lo)
			return NULL;
	}
	if (cnt > n - a)
		return NULL;
	if (pb[a + cnt - 1].seq != lo + cnt - 1)
		return NULL;	/* seqs are unique and sorted: a gap */
	return pb + a;
}
