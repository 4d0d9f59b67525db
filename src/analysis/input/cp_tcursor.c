/*
 * cp_tcursor.c - per-thread cursors over a mapped trace (cp_tcursor.h).
 *
 * The index is pass 1 of the reader (cp_trd_frame: framing, salvage of
 * damaged blocks, per-thread block numbering) plus the metadata blocks
 * (cp_trd_decode_meta); a cursor then walks its thread's EVENTS blocks in
 * file order exactly as cp_tracedec.c's decode_events does, one vertex at
 * a time: the same absolute times (a block's first dt counts from its
 * ts_base, time running backwards at a block boundary held at the
 * previous vertex's), the same payload checks (cp_trd_payload), the same
 * end of a thread at an event that does not decode.
 *
 * The framing pass gives the mapping's pages back as it goes, and the
 * cursors read their blocks with pread into a buffer each, so the resident
 * set is a block per thread whatever the file's size.
 *
 * Cost: O(blocks) to open; O(1) per event afterwards.
 */
#include "cp_tcursor.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cp_bigmem.h"
#include "cp_crc32c.h"
#include "cp_varint.h"

/* The per-thread lists of EVENTS blocks, in file order.  0, or -1. */
static int index_threads(struct cp_tindex *ix)
{
	uint32_t n = ix->t.nthreads, *fill;
	const struct cp_trd *r = &ix->r;

	ix->toff = calloc((size_t)n + 1, sizeof(*ix->toff));
	fill = calloc(n ? n : 1, sizeof(*fill));
	if (!ix->toff || !fill)
		goto err;
	for (size_t i = 0; i < r->nblks; i++)
		if (r->blks[i].type == CP_BLOCK_EVENTS)
			ix->toff[r->blks[i].tid + 1]++;
	for (uint32_t tid = 0; tid < n; tid++)
		ix->toff[tid + 1] += ix->toff[tid];
	ix->nblocks = ix->toff[n];
	ix->tblk = malloc((ix->nblocks ? ix->nblocks : 1) * sizeof(*ix->tblk));
	if (!ix->tblk)
		goto err;
	for (size_t i = 0; i < r->nblks; i++) {
		uint32_t tid = r->blks[i].tid;

		if (r->blks[i].type == CP_BLOCK_EVENTS)
			ix->tblk[ix->toff[tid] + fill[tid]++] = (uint32_t)i;
	}
	free(fill);
	return 0;
err:
	free(fill);
	return -1;
}

int cp_tindex_open(struct cp_tindex *ix, const char *path, char *err,
		   size_t errlen)
{
	memset(ix, 0, sizeof(*ix));
	ix->fd = -1;
	cp_crc32c_init();
	ix->t.path = strdup(path);
	if (!ix->t.path) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	if (cp_trd_map(path, &ix->map, &ix->len, err, errlen))
		goto err;
	ix->r = (struct cp_trd){
		.t = &ix->t, .buf = ix->map ? ix->map : (void *)"",
		.len = ix->len, .err = err, .errlen = errlen,
		.drop_behind = ix->map != NULL,
	};
	if (cp_trd_frame(&ix->r) || cp_trd_decode_meta(&ix->r))
		goto err;
	if (ix->r.nblks >= UINT32_MAX || index_threads(ix)) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto err;
	}
	/* the cursors read their blocks with pread, not from the mapping:
	 * a mapping's resident pages grow with what is read (the kernel
	 * maps neighbouring pages on a fault), a buffer per thread does not */
	ix->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ix->fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto err;
	}
	if (ix->map)
		munmap(ix->map, ix->len);
	ix->map = NULL;
	ix->r.buf = NULL;
	return 0;
err:
	cp_tindex_close(ix);
	return -1;
}

void cp_tindex_close(struct cp_tindex *ix)
{
	if (ix->fd >= 0)
		close(ix->fd);
	if (ix->map)
		munmap(ix->map, ix->len);
	cp_big_free(ix->r.blks);
	free(ix->r.broken);
	free(ix->toff);
	free(ix->tblk);
	cp_trace_free(&ix->t);
	memset(ix, 0, sizeof(*ix));
}

void cp_tcursor_init(struct cp_tcursor *c, struct cp_tindex *ix,
		     uint32_t tid, bool note)
{
	memset(c, 0, sizeof(*c));
	c->ix = ix;
	c->tid = tid;
	c->note = note;
}

void cp_tcursor_fini(struct cp_tcursor *c)
{
	free(c->buf);
	c->buf = NULL;
	c->cap = 0;
}

void cp_tcursor_park(struct cp_tcursor *c)
{
	if (!c->buf || !c->blk)
		return;
	c->parked = (size_t)(c->p - c->buf);
	cp_tcursor_fini(c);
}

/* The event at the cursor does not decode (@why): the thread ends. */
static bool cut(struct cp_tcursor *c, size_t off, const char *why)
{
	c->dead = true;
	if (c->note)
		cp_trd_note(&c->ix->r, off, "the thread ends there",
			    "%s (thread %" PRIu32 ")", why, c->tid);
	return false;
}

/*
 * Move to the thread's next EVENTS block, read into the cursor's buffer;
 * false when there is none (or it cannot be read: the thread ends).
 */
static bool next_block(struct cp_tcursor *c)
{
	struct cp_tindex *ix = c->ix;
	const struct cp_trd_blk *b;
	ssize_t got;

	if (c->dead || ix->toff[c->tid] + c->bi >= ix->toff[c->tid + 1])
		return false;
	b = &ix->r.blks[ix->tblk[ix->toff[c->tid] + c->bi++]];
	if (b->size > c->cap) {
		uint8_t *nb = realloc(c->buf, b->size);

		if (!nb)
			return cut(c, b->off, "out of memory for a block");
		c->buf = nb;
		c->cap = b->size;
	}
	got = pread(ix->fd, c->buf, b->size, (off_t)(b->off + ix->r.bsz));
	if (got != (ssize_t)b->size)
		return cut(c, b->off, "cannot read the block again");
	c->blk = b;
	c->p = c->buf + EVHEAD_SIZE;
	c->end = c->buf + b->size;
	c->left = b->nev;
	c->ts = cp_rd_u64(c->buf);
	c->wall = cp_rd_u64(c->buf + 8);
	c->floor = c->any ? c->last_ts : 0;
	c->prev_addr = 0;
	return true;
}

/* Fill @v from the decoded vertex @ev at @off; the reader's add_vertex. */
static void make_vertex(struct cp_tcursor *c, const struct cp_trd_ev *ev,
			size_t off, struct cp_tvert *v)
{
	char whybuf[200];
	const char *why;

	v->ts = c->ts < c->floor ? c->floor : c->ts;
	v->op = ev->op;
	v->obj = 0;
	v->cnt = 0;
	v->arg = 0;
	why = cp_trd_payload(v, ev->op & CP_EV_KIND_MASK, ev, &c->prev_addr,
			     whybuf, sizeof(whybuf));
	if (why) {
		if (c->note)
			cp_trd_note(&c->ix->r, off, "made inert", "%s", why);
		cp_trd_inert(v);
	}
	c->last_ts = v->ts;
	c->any = true;
}

/* Read the parked block again and go back to where the cursor was. */
static bool unpark(struct cp_tcursor *c)
{
	const struct cp_trd_blk *b = c->blk;
	size_t at = c->parked;

	c->parked = 0;
	c->buf = malloc(b->size);
	if (!c->buf)
		return cut(c, b->off, "out of memory for a block");
	c->cap = b->size;
	if (pread(c->ix->fd, c->buf, b->size, (off_t)(b->off + c->ix->r.bsz)) !=
	    (ssize_t)b->size)
		return cut(c, b->off, "cannot read the block again");
	c->p = c->buf + at;
	c->end = c->buf + b->size;
	return true;
}

bool cp_tcursor_next(struct cp_tcursor *c, struct cp_tvert *v,
		     uint64_t *wall)
{
	const struct cp_trd *r = &c->ix->r;

	if (c->parked && !unpark(c))
		return false;
	for (;;) {
		struct cp_trd_ev ev;
		const char *why;
		size_t off;

		while (!c->left)
			if (!next_block(c))
				return false;
		off = c->blk->off + r->bsz + (size_t)(c->p - c->buf);
		why = cp_trd_decode_event(&c->p, c->end, r->hasw, &ev);
		c->left--;
		if (why)
			return cut(c, off, c->p >= c->end ?
				   "EVENTS block ends early" : why);
		if ((ev.op & CP_EV_KIND_MASK) >= CP_EV_META_FIRST) {
			if (c->meta)
				c->meta(c->meta_ctx, &ev);
			continue;
		}
		if (c->ts + ev.dt < c->ts || c->wall + ev.dwall < c->wall)
			return cut(c, off, "timestamp overflows");
		c->ts += ev.dt;
		c->wall += ev.dwall;
		make_vertex(c, &ev, off, v);
		*wall = r->hasw ? c->wall : 0;
		return true;
	}
}
