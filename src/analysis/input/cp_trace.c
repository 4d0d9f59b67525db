/*
 * cp_trace.c - the trace reader: decode and validate a .cpt file.  This
 * file frames the blocks (pass 1), drives the parse and answers the
 * public calls; cp_tracedec.c decodes the blocks (pass 2) and
 * cp_tracechk.c makes the whole-file checks (step 3); cp_trace_rd.h is
 * what they share with cp_tcursor.c, which frames a trace too large for
 * memory with pass 1 and decodes its events on demand.
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
#include "cp_grow.h"
#include "cp_crc32c.h"
#include "cp_samples.h"
#include "cp_trace_rd.h"
#include "cp_varint.h"

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

int cp_trd_fail(struct cp_trd *r, size_t off, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (r->spec) {
		r->bail = true;
		return -1;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->err && r->errlen)
		snprintf(r->err, r->errlen, "%s: %s (offset %zu)",
			 r->t->path ? r->t->path : "?", msg, off);
	return -1;
}

int cp_trd_note(struct cp_trd *r, size_t off, const char *action,
		       const char *fmt, ...)
{
	struct cp_trace *t = r->t;
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->spec) {
		r->bail = true;
		return -1;
	}
	if (r->strict)
		return cp_trd_fail(r, off, "%s", msg);
	if (!t->nrepairs++)
		snprintf(t->repair_why, sizeof(t->repair_why),
			 "%s (offset %zu): %s", msg, off, action);
	return 0;
}

int cp_trd_cmp_str(const void *a, const void *b)
{
	const struct cp_trace_str *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* ---- pass 1: framing ---------------------------------------------- */

/*
 * The block at @off, checked on its own (framing, checksum, the sizes its
 * type needs) into @b.  Returns NULL, or why it is not a good block in
 * @why.  @crc_budget bounds the bytes checksummed while resynchronizing.
 */
static const char *frame_block(struct cp_trd *r, size_t off,
			       struct cp_trd_blk *b, char *why, size_t whylen)
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
static size_t resync(struct cp_trd *r, size_t off, uint64_t *budget)
{
	for (off++; off + r->bsz <= r->len; off++) {
		const uint8_t *m = memchr(r->buf + off, 'C', r->len - off);
		char why[160];
		struct cp_trd_blk b;

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

/*
 * Streaming reader (r->drop_behind): give back the pages of the file
 * before @off every 8 MB, and all of them when @all, so that framing a
 * file larger than memory does not keep it resident.
 */
static void drop_behind(struct cp_trd *r, size_t off, bool all)
{
	size_t end = off & ~(size_t)4095;

	if (!r->drop_behind || (!all && end - r->dropped < ((size_t)8 << 20)))
		return;
	if (end > r->dropped)
		madvise((void *)(r->buf + r->dropped), end - r->dropped,
			MADV_DONTNEED);
	r->dropped = end;
}

static int pass1(struct cp_trd *r, struct cp_trace_end *endp)
{
	const uint8_t *buf = r->buf;
	size_t off = cp_rd_u32(buf + 12);
	uint64_t budget = 4 * (uint64_t)r->len + (1u << 20);

	r->good_end = off;
	while (off < r->len) {
		char why[160];
		const char *bad;
		struct cp_trd_blk b;

		if (r->has_end) {
			if (cp_trd_note(r, off, "ignored", "data after the END block"))
				return -1;
			r->skipped += r->len - off;
			break;
		}
		bad = frame_block(r, off, &b, why, sizeof(why));
		if (bad) {
			size_t next;

			if (r->strict)
				return cp_trd_fail(r, off, "%s", bad);
			/* version 1 has no checksum to find the next block */
			next = r->version >= 2 ? resync(r, off, &budget) :
			       r->len;
			if (next < r->len)	/* damage, not the cut end */
				cp_trd_note(r, off, "skipped to the next good block",
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
		if (cp_grow((void **)&r->blks, sizeof(*r->blks),
				&r->cap_blks, r->nblks + 1))
			return cp_trd_fail(r, off, "out of memory");
		r->blks[r->nblks++] = b;
		off += r->bsz + (size_t)b.size;
		r->good_end = off;
		drop_behind(r, off, false);
	}
	drop_behind(r, r->len, true);
	if (!r->has_end && r->strict)
		return cp_trd_fail(r, r->len, "truncated: no END block");
	return 0;
}

static int check_header(struct cp_trd *r)
{
	const uint8_t *b = r->buf;
	struct cp_trace *t = r->t;
	uint32_t hsize;

	if (r->len == 0)
		return cp_trd_fail(r, 0, "empty file");
	if (r->len < 8 || memcmp(b, CP_TRACE_MAGIC, 8) != 0)
		return cp_trd_fail(r, 0, "not a cpthread trace (bad magic)");
	if (r->len < HDR_SIZE)
		return cp_trd_fail(r, r->len, "truncated header");
	r->version = cp_rd_u32(b + 8);
	if (r->version != 1 && r->version != CP_TRACE_VERSION)
		return cp_trd_fail(r, 8, "unsupported trace version %" PRIu32,
				   r->version);
	r->bsz = r->version == 1 ? CP_BLOCK_HEADER_V1_SIZE : BLK_SIZE;
	hsize = cp_rd_u32(b + 12);
	if (hsize < HDR_SIZE || hsize > r->len)
		return cp_trd_fail(r, 12, "bad header size %" PRIu32, hsize);
	t->clock = cp_rd_u32(b + 16);
	if (t->clock != CP_CLOCK_WALL && t->clock != CP_CLOCK_CPU)
		return cp_trd_fail(r, 16, "unknown clock %" PRIu32, t->clock);
	t->flags = cp_rd_u32(b + 20);
	if (t->flags & ~CP_TRACE_HAS_WALL)
		return cp_trd_fail(r, 20, "unknown header flags 0x%" PRIx32, t->flags);
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
static int check_sequence(struct cp_trd *r)
{
	struct cp_trace *t = r->t;
	uint32_t *next = calloc(t->nthreads, sizeof(*next));

	if (!next)
		return cp_trd_fail(r, 0, "out of memory");
	for (size_t i = 0; r->version >= 2 && i < r->nblks; i++) {
		struct cp_trd_blk *b = &r->blks[i];

		if (b->type != CP_BLOCK_EVENTS)
			continue;
		if (next[b->tid] != UINT32_MAX && b->seq != next[b->tid]) {
			if (cp_trd_note(r, b->off, "the thread ends there",
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
static void say_partial(struct cp_trd *r)
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

/* The END block against the blocks read (salvage: the blocks win). */
static int check_end(struct cp_trd *r, struct cp_trace_end *end)
{
	struct cp_trace *t = r->t;

	t->nevents = r->has_end ? end->nevents : r->total_ev;
	t->online_len_ns = end->online_len_ns;
	if (r->has_end && end->nthreads > r->total_ev + 1) {
		if (cp_trd_note(r, r->end_off, "ignored",
				"END block gives %" PRIu32 " threads",
				end->nthreads))
			return -1;
		end->nthreads = 0;
	}
	if (r->has_end && end->nevents != r->total_ev) {
		if (cp_trd_note(r, r->end_off, "the blocks' count used",
				"END block counts %" PRIu64 " events, the blocks hold %" PRIu64,
				end->nevents, r->total_ev))
			return -1;
		t->nevents = r->total_ev;
	}
	return 0;
}

/*
 * The thread table.  Thread ids may have gaps (a failed pthread_create),
 * so it covers every tid a block names, within a sanity bound; a block
 * beyond the bound is dropped.
 */
static int size_threads(struct cp_trd *r, const struct cp_trace_end *end)
{
	struct cp_trace *t = r->t;
	uint32_t maxtid = 0;

	t->nthreads = end->nthreads;
	for (size_t i = 0; i < r->nblks; i++) {
		struct cp_trd_blk *b = &r->blks[i];

		if (b->type != CP_BLOCK_EVENTS && b->type != CP_BLOCK_THREAD)
			continue;
		if (b->tid >= 4 * (uint64_t)r->nblks + end->nthreads + 64) {
			if (cp_trd_note(r, b->off, "the block is dropped",
					"implausible thread id %" PRIu32,
					b->tid))
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
		return cp_trd_fail(r, r->has_end ? r->end_off : r->len,
				   "no threads in the trace");
	t->threads = cp_big_calloc(t->nthreads, sizeof(*t->threads));
	r->broken = calloc(t->nthreads, sizeof(*r->broken));
	t->strbuf = cp_big_malloc(r->strbytes ? r->strbytes : 1);
	if (!t->threads || !r->broken || !t->strbuf)
		return cp_trd_fail(r, 0, "out of memory");
	return 0;
}

/* Each thread's vertex (and wall clock) array at its final size: the
 * events its kept EVENTS blocks claim. */
static int alloc_vertices(struct cp_trd *r)
{
	struct cp_trace *t = r->t;
	uint64_t *nev = calloc(t->nthreads, sizeof(*nev));
	int ret = -1;

	if (!nev)
		return cp_trd_fail(r, 0, "out of memory");
	for (size_t i = 0; i < r->nblks; i++) {
		const struct cp_trd_blk *b = &r->blks[i];

		if (b->type == CP_BLOCK_EVENTS)
			nev[b->tid] += b->nev;
	}
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		struct cp_trace_thread *th = &t->threads[tid];

		if (!nev[tid])
			continue;
		th->v = cp_big_malloc(nev[tid] * sizeof(*th->v));
		th->a = cp_big_malloc(nev[tid] * sizeof(*th->a));
		if (r->hasw)
			th->wall = cp_big_malloc(nev[tid] * sizeof(*th->wall));
		if (!th->v || !th->a || (r->hasw && !th->wall)) {
			cp_trd_fail(r, 0, "out of memory");
			goto out;
		}
	}
	ret = 0;
out:
	free(nev);
	return ret;
}

int cp_trd_frame(struct cp_trd *r)
{
	struct cp_trace *t = r->t;
	struct cp_trace_end end;

	memset(&end, 0, sizeof(end));
	if (check_header(r) || pass1(r, &end))
		return -1;
	if (!r->has_end)
		say_partial(r);
	if (check_end(r, &end) || size_threads(r, &end) || check_sequence(r))
		return -1;
	t->nevents = r->total_ev;	/* what is read, END or not */
	return 0;
}

static int parse(struct cp_trd *r)
{
	struct cp_trace *t = r->t;

	if (cp_trd_frame(r))
		return -1;
	if (alloc_vertices(r) || cp_trd_decode_blocks(r) || cp_trd_check(r))
		return -1;
	if (t->samples && cp_samples_finish(t->samples, t))
		return cp_trd_fail(r, 0, "out of memory");
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
	struct cp_trd r = {
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
	cp_trd_sites_free(&r);
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

int cp_trd_map(const char *path, void **map, size_t *len, char *err,
	       size_t errlen)
{
	struct stat st;
	int fd;

	*map = NULL;
	*len = 0;
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
		*map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			    fd, 0);
		if (*map == MAP_FAILED) {
			*map = NULL;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		madvise(*map, (size_t)st.st_size, MADV_SEQUENTIAL);
	}
	close(fd);
	*len = (size_t)st.st_size;
	return 0;
}

int cp_trace_read_flags(struct cp_trace *t, const char *path,
			unsigned flags, char *err, size_t errlen)
{
	void *map;
	size_t len;
	int ret;

	memset(t, 0, sizeof(*t));
	if (cp_trd_map(path, &map, &len, err, errlen))
		return -1;
	ret = cp_trace_parse_flags(t, path, map ? map : "", len, flags, err,
				   errlen);
	if (map)
		munmap(map, len);
	return ret;
}

void cp_trace_free(struct cp_trace *t)
{
	if (t->threads)
		for (uint32_t i = 0; i < t->nthreads; i++) {
			free(t->threads[i].v);
			free(t->threads[i].a);
			free(t->threads[i].wall);
		}
	free(t->threads);
	free(t->objs);
	free(t->site_callers);
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
	s = bsearch(&key, t->strs, t->nstrs, sizeof(key), cp_trd_cmp_str);
	return s ? s->text : NULL;
}

uint32_t cp_trace_split_threads(const struct cp_trace *t)
{
	uint64_t half = 0, sum = 0;
	uint32_t mid = 0;

	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		half += t->threads[tid].nv;
	half /= 2;
	while (mid < t->nthreads && sum < half)
		sum += t->threads[mid++].nv;
	return mid;
}

const char *cp_trace_info(const struct cp_trace *t, const char *key)
{
	for (uint32_t i = 0; i < t->ninfo; i++)
		if (!strcmp(t->info[i].key, key))
			return t->info[i].value;
	return NULL;
}

void cp_trace_drop_replay(struct cp_trace *t)
{
	cp_big_free(t->pub);	/* their blocks may serve the CPM */
	t->pub = NULL;
	for (uint32_t i = 0; i < t->nthreads; i++) {
		cp_big_free(t->threads[i].a);
		t->threads[i].a = NULL;
	}
}

const struct cp_trace_pub *cp_trace_find_pub(const struct cp_trace *t,
					     uint32_t obj, uint64_t lo,
					     uint64_t cnt)
{
	const struct cp_trace_pub *pb;
	uint32_t n, a = 0, b;

	if (obj == 0 || obj >= t->nobjs || cnt == 0 || !t->pub)
		return NULL;
	pb = t->pub + t->objs[obj].pub_off;
	n = t->objs[obj].npub;
	/* dense sequences (the normal case): every seq of 1..n is at its
	 * index (place_publishes), so the range is there without a look */
	if (!t->objs[obj].sparse)
		return lo >= 1 && lo <= n && cnt <= n - lo + 1 ?
		       pb + lo - 1 : NULL;
	/* sparse: sorted by seq (sort_sparse) */
	b = n;
	while (a < b) {
		uint32_t mid = a + (b - a) / 2;

		if (pb[mid].seq < lo)
			a = mid + 1;
		else
			b = mid;
	}
	if (a >= n || pb[a].seq != lo || cnt > n - a)
		return NULL;
	if (pb[a + cnt - 1].seq != lo + cnt - 1)
		return NULL;	/* seqs are unique and sorted: a gap */
	return pb + a;
}
