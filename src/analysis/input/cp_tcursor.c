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
#define _GNU_SOURCE		/* PTHREAD_MUTEX_ADAPTIVE_NP */
#include "cp_tcursor.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cp_bigmem.h"
#include "cp_bits.h"
#include "cp_crc32c.h"
#include "cp_par.h"
#include "cp_prefetch.h"
#include "cp_samples.h"
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

/*
 * The SAMPLES and MODULES blocks into ix->t.samples (the reader's
 * cp_samples_add_block, from the mapping), the samples indexed by thread
 * (cp_samples_finish; a thread has events when its EVENTS blocks hold
 * any).  0, or -1 with the error set (a block that does not decode, as
 * the reader refuses it; out of memory).
 */
static int index_samples(struct cp_tindex *ix)
{
	struct cp_trace *t = &ix->t;
	uint32_t *nv;
	char why[128];
	int ret;

	for (size_t i = 0; i < ix->r.nblks; i++) {
		const struct cp_trd_blk *b = &ix->r.blks[i];
		size_t at = 0;

		if (b->type != CP_BLOCK_SAMPLES && b->type != CP_BLOCK_MODULES)
			continue;
		if (cp_samples_add_block(&t->samples, b->type, b->tid,
					 ix->r.buf + b->off + ix->r.bsz,
					 b->size, &at, why, sizeof(why)))
			return cp_trd_fail(&ix->r, b->off + ix->r.bsz + at,
					   "%s", why);
	}
	if (!t->samples)
		return 0;
	/* the thread table has no vertices: stand in their count of events
	 * for the finish's "has events" */
	nv = malloc((t->nthreads ? t->nthreads : 1) * sizeof(*nv));
	if (!nv)
		return cp_trd_fail(&ix->r, 0, "out of memory");
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		nv[tid] = t->threads[tid].nv;
		t->threads[tid].nv = 0;
		for (uint32_t j = ix->toff[tid]; j < ix->toff[tid + 1]; j++)
			t->threads[tid].nv += ix->r.blks[ix->tblk[j]].nev > 0;
	}
	ret = cp_samples_finish(t->samples, t);
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		t->threads[tid].nv = nv[tid];
	free(nv);
	return ret ? cp_trd_fail(&ix->r, 0, "out of memory") : 0;
}

/* (index_firsts' cursor) A metadata event came: before the first vertex,
 * when looked at then. */
static void first_meta(void *ctx, const struct cp_trd_ev *ev)
{
	(void)ev;
	*(bool *)ctx = true;
}

/* Bytes of the file a cursor copies its block from rather than read it,
 * [off, off + len) at buf: the helper's window (cp_tpf_run), or the whole
 * mapping (index_firsts).  The cursor stops at that block's end. */
struct cp_tpf_win {
	uint8_t *buf;
	uint64_t off;
	size_t len, cap;
};

/*
 * From the mapping, while it lasts, the threads' first blocks decoded as
 * a cursor would: ix->tstart, the threads whose first vertex is a
 * THREAD_START naming a thread of the trace as its creator, with no
 * metadata event before it and nothing repaired; ix->first_procs, whether
 * a first block holds an ENTER or REGION_BEGIN.  The first blocks are
 * visited in file order, their pages given back every 8 MB (the framing
 * gave back the file's).  0, or -1 (memory).
 */
static int index_firsts(struct cp_tindex *ix)
{
	uint32_t n = ix->t.nthreads;
	struct cp_tpf_win w = { .buf = ix->map, .len = ix->len };
	size_t dropped = 0;

	ix->tstart = calloc(cp_bits_words(n), sizeof(*ix->tstart));
	if (!ix->tstart)
		return -1;
	for (size_t i = 0; ix->map && i < ix->r.nblks; i++) {
		const struct cp_trd_blk *b = &ix->r.blks[i];
		struct cp_tcursor c;
		struct cp_tev v;
		uint64_t wall;
		size_t end;
		bool meta = false, got;

		if (b->type != CP_BLOCK_EVENTS ||
		    ix->tblk[ix->toff[b->tid]] != i)
			continue;
		cp_tcursor_init(&c, ix, b->tid, false);
		c.win = &w;
		c.meta = first_meta;
		c.meta_ctx = &meta;
		got = cp_tcursor_next(&c, &v, &wall);
		if (got && !meta && !c.repaired &&
		    cp_tev_kind(&v) == CP_EV_THREAD_START && v.arg &&
		    v.arg - 1 < n)
			cp_bit_set(ix->tstart, b->tid);
		for (; got && !ix->first_procs;
		     got = cp_tcursor_next(&c, &v, &wall))
			ix->first_procs = cp_tev_kind(&v) == CP_EV_ENTER ||
					  cp_tev_kind(&v) == CP_EV_REGION_BEGIN;
		cp_tcursor_fini(&c);
		end = (b->off + ix->r.bsz + b->size) & ~(size_t)4095;
		if (end - dropped >= ((size_t)8 << 20)) {
			madvise((uint8_t *)ix->map + dropped, end - dropped,
				MADV_DONTNEED);
			dropped = end;
		}
	}
	return 0;
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
	if (ix->r.nblks >= UINT32_MAX || index_threads(ix) ||
	    index_firsts(ix)) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto err;
	}
	if (index_samples(ix))
		goto err;
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
	cp_trd_sites_free(&ix->r);
	free(ix->r.broken);
	free(ix->toff);
	free(ix->tblk);
	free(ix->tstart);
	cp_trace_free(&ix->t);
	memset(ix, 0, sizeof(*ix));
}

/* A block the helper decoded (cp_tprefetch): its vertices with the times
 * before the floor, and its metadata events, each before vertex pos. */
struct cp_tpf_dec {
	struct cp_tev *v;
	uint64_t *wall;
	uint32_t n;
	struct cp_tpf_meta {
		uint32_t pos;
		struct cp_trd_ev ev;
	} *meta;
	uint32_t nmeta, cap_meta;
	bool failed;		/* (helper) memory ran out */
	uint32_t cap;		/* vertices room at v and wall */
	struct cp_tpf_dec *next;	/* on the prefetcher's free list */
};

static void dec_free(struct cp_tpf_dec *d)
{
	if (!d)
		return;
	free(d->v);
	free(d->wall);
	free(d->meta);
	free(d);
}

/* ---- decoding ahead (cp_tcursor.h) -------------------------------- */

enum { TPF_NONE, TPF_BUSY, TPF_READY, TPF_LEFT };

static _Atomic uint32_t tpf_room_blocks = CP_TPF_AHEAD;
static _Atomic uint32_t tpf_room_vertices = CP_TPF_AHEAD_V;

void cp_tpf_set_room(uint32_t blocks, uint32_t vertices)
{
	atomic_store(&tpf_room_blocks, blocks ? blocks : 1);
	atomic_store(&tpf_room_vertices, vertices ? vertices : 1);
}

/*
 * The helper and the cursors share the block states, the blocks decoded
 * and the counts of those decoded and taken.  The helper claims a block
 * (NONE -> BUSY) and publishes it (BUSY -> READY, or LEFT when it leaves
 * it to its cursor) under the mutex; a READY block is then the cursors'
 * alone, so a take of one does not need the mutex (tpf_take): the state,
 * read with acquire, says the helper's writes of the block are seen.
 *
 * The room.  The helper counts what it published (under the mutex), the
 * cursors what they took; they publish that count a batch at a time (an
 * eighth of the room), not block by block: over a program that makes a
 * thread per task, a block of a few events each, writing it for every
 * block and the helper reading it for every block moved its line between
 * the cores each time, with a full barrier on each side, a third of both
 * threads' time.  The helper so sees the room fuller than it is by at
 * most a batch, and a cursor that finds a block not decoded (the helper
 * asleep on a room it sees full, or behind) publishes what it took
 * first.  The helper sets hwait before it looks at the counts to decide
 * to sleep, and a cursor looks at hwait after it published its count
 * (both in the one order of sequentially consistent operations), so
 * either the helper sees the room made or the cursor sees that it must
 * wake it (under the mutex, which the helper holds until it sleeps).
 *
 * The blocks read go back to the helper on a list the cursors push onto
 * and the helper takes whole, without the mutex either.
 *
 * The fields are grouped by who writes them, each group on lines of its
 * own (CP_PAR_APART): what neither writes after cp_tpf_new, the helper's
 * (and the mutex's), hwait, and the cursors'.  A cursor reads the first
 * group at every block; with the mutex beside it, each lock by the
 * helper took the line away from it.
 */
struct cp_tprefetch {
	/* set by cp_tpf_new */
	struct cp_tindex *ix;
	_Atomic uint8_t *st;		/* [nblks] TPF_*: a block's state
					 * (LEFT: its cursor reads it) */
	struct cp_tpf_dec **ready;	/* [nblks] READY blocks */
	/* the most of the blocks decoded and not taken, and of the
	 * vertices they have room for (cp_tpf_set_room; a block reused for
	 * a smaller one keeps its room: the memory held); the cursors
	 * publish what they took once past a batch of either */
	uint32_t room_b, room_v;
	uint32_t batch_b, batch_v;

	/* the helper's, under the mutex */
	_Alignas(CP_PAR_APART) pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t pub_b, pub_v;		/* published: blocks, their room */
	bool stop;
	/* who sleeps on cv, so that a change wakes only those it concerns
	 * (a system call a block costs more than decoding one of a short
	 * thread): the helper, for room, until ahead is down to half
	 * (hwait); the cursors, for a BUSY block (nwait) */
	uint32_t nwait;
	/* blocks read, for reuse (fresh pages cost the kernel's clearing):
	 * the cursors push theirs onto @back; the helper takes one from
	 * @spare, its own, when it claims a block, and the whole of @back
	 * when that is empty */
	struct cp_tpf_dec *spare;

	_Alignas(CP_PAR_APART) _Atomic bool hwait;

	/* the cursors' (one thread): what they took, published, and taken
	 * since */
	_Alignas(CP_PAR_APART) _Atomic uint64_t took_b, took_v;
	uint64_t new_b, new_v;
	_Atomic(struct cp_tpf_dec *) back;
};

/* (helper) Make *@dp, a spare block or NULL (then a new one), ready for
 * @nev events.  false: out of memory (*@dp freed, NULL). */
static bool dec_fit(struct cp_tpf_dec **dp, uint32_t nev)
{
	struct cp_tpf_dec *d = *dp;

	if (!d && !(d = *dp = calloc(1, sizeof(*d))))
		return false;
	d->n = d->nmeta = 0;
	d->failed = false;
	if (nev > d->cap) {
		free(d->v);
		free(d->wall);
		d->cap = nev ? nev : 1;
		d->v = malloc(d->cap * sizeof(*d->v));
		d->wall = malloc(d->cap * sizeof(*d->wall));
		if (!d->v || !d->wall) {
			dec_free(d);
			*dp = NULL;
			return false;
		}
	}
	return true;
}

/*
 * The prefetcher's mutex: one that spins a little before it sleeps.  The
 * pass and the helper each take it once a block, and a program that
 * makes a thread per task has blocks of a few events: a plain mutex
 * sleeps in the kernel whenever the other side holds it.  0, or an error
 * number.
 */
static int tpf_mutex_init(pthread_mutex_t *mu)
{
	pthread_mutexattr_t a;
	int ret = pthread_mutexattr_init(&a);

	if (ret)
		return ret;
	ret = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
	if (!ret)
		ret = pthread_mutex_init(mu, &a);
	pthread_mutexattr_destroy(&a);
	return ret;
}

struct cp_tprefetch *cp_tpf_new(struct cp_tindex *ix)
{
	struct cp_tprefetch *pf = aligned_alloc(CP_PAR_APART, sizeof(*pf));
	size_t n = ix->r.nblks ? ix->r.nblks : 1;

	if (!pf)
		return NULL;
	memset(pf, 0, sizeof(*pf));
	pf->ix = ix;
	pf->room_b = atomic_load(&tpf_room_blocks);
	pf->room_v = atomic_load(&tpf_room_vertices);
	pf->batch_b = pf->room_b / 8 ? pf->room_b / 8 : 1;
	pf->batch_v = pf->room_v / 8 ? pf->room_v / 8 : 1;
	pf->st = calloc(n, sizeof(*pf->st));
	pf->ready = calloc(n, sizeof(*pf->ready));
	if (!pf->st || !pf->ready || tpf_mutex_init(&pf->mu)) {
		free(pf->st);
		free(pf->ready);
		free(pf);
		return NULL;
	}
	if (pthread_cond_init(&pf->cv, NULL)) {
		pthread_mutex_destroy(&pf->mu);
		free(pf->st);
		free(pf->ready);
		free(pf);
		return NULL;
	}
	return pf;
}

/* (helper) Note a metadata event of the block being decoded. */
static void dec_meta(void *ctx, const struct cp_trd_ev *ev)
{
	struct cp_tpf_dec *d = ctx;

	if (d->nmeta == d->cap_meta) {
		uint32_t nc = d->cap_meta ? 2 * d->cap_meta : 8;
		struct cp_tpf_meta *m = realloc(d->meta, nc * sizeof(*m));

		if (!m) {	/* the cursor reads the block */
			d->failed = true;
			return;
		}
		d->meta = m;
		d->cap_meta = nc;
	}
	d->meta[d->nmeta++] = (struct cp_tpf_meta){ d->n, *ev };
}

static _Atomic size_t tpf_window_bytes = CP_TPF_WINDOW;

size_t cp_tpf_set_window(size_t bytes)
{
	return atomic_exchange(&tpf_window_bytes, bytes);
}

/* Make @w (the helper's, or a cursor's to read through) hold block @b's
 * payload, reading CP_TPF_WINDOW bytes (cp_tpf_set_window) from it on,
 * or the block if larger, unless it does already.  A read that fails
 * leaves @w empty: the block's cursor reads it alone and meets the
 * error. */
static void tpf_window(const struct cp_tindex *ix, struct cp_tpf_win *w,
		       const struct cp_trd_blk *b)
{
	uint64_t at = b->off + ix->r.bsz;
	size_t n = atomic_load(&tpf_window_bytes);
	ssize_t got;

	if (b->size > n)
		n = b->size;
	if (at >= w->off && at + b->size <= w->off + w->len)
		return;
	w->len = 0;
	if (n > w->cap) {
		uint8_t *nb = realloc(w->buf, n);

		if (!nb)
			return;
		w->buf = nb;
		w->cap = n;
	}
	got = pread(ix->fd, w->buf, n, (off_t)at);
	w->off = at;
	w->len = got > 0 ? (size_t)got : 0;
}

struct cp_tpf_win *cp_tcursor_ahead_new(void)
{
	return calloc(1, sizeof(struct cp_tpf_win));
}

void cp_tcursor_ahead_free(struct cp_tpf_win *w)
{
	if (w)
		free(w->buf);
	free(w);
}

/* How many vertices ahead of the one it writes the helper starts taking
 * the cache lines of its block for writing. */
#define DEC_AHEAD 32

/*
 * (helper) Decode block @bi of thread @tid (an EVENTS block of @nev
 * events) as a cursor would, times before the floor, into *@dp (a spare
 * block or NULL: dec_fit).  false when memory runs out or the block holds
 * anything to repair: *@dp then serves the next block.
 *
 * A spare block was last read by the pass on the other core, whose cache
 * holds its lines: each store to one waited for the line to be taken
 * back, and decoding a vertex took three times as long as a cursor's
 * alone (35-40 ns against 11.6 on a lock trace).  So the lines are asked
 * for ahead of the stores (cp_prefetch_write()).
 */
static bool dec_block(struct cp_tprefetch *pf, const struct cp_tpf_win *w,
		      uint32_t tid, uint32_t bi, uint32_t nev,
		      struct cp_tpf_dec **dp)
{
	struct cp_tpf_dec *d;
	struct cp_tcursor c;
	uint64_t wall;
	bool ok;

	if (!dec_fit(dp, nev))
		return false;
	d = *dp;
	cp_tcursor_init(&c, pf->ix, tid, false);
	c.bi = bi;
	c.win = w;
	c.meta = dec_meta;
	c.meta_ctx = d;
	ok = d->v && d->wall;
	while (ok && d->n < nev) {
		if (d->n + DEC_AHEAD < nev) {
			cp_prefetch_write(&d->v[d->n + DEC_AHEAD]);
			cp_prefetch_write(&d->wall[d->n + DEC_AHEAD]);
		}
		if (!cp_tcursor_next(&c, &d->v[d->n], &wall))
			break;
		d->wall[d->n++] = wall;
	}
	ok = ok && !c.repaired &&
	     !cp_tcursor_next(&c, &(struct cp_tev){ 0 }, &wall) &&
	     !c.repaired && !d->failed;
	cp_tcursor_fini(&c);
	return ok;
}

/* (under pf->mu) Whether the blocks decoded and not taken, as far as
 * the cursors published, fill the room, in blocks or in vertices. */
static bool tpf_full(struct cp_tprefetch *pf)
{
	return pf->pub_b - atomic_load(&pf->took_b) >= pf->room_b ||
	       pf->pub_v - atomic_load(&pf->took_v) >= pf->room_v;
}

/* (under pf->mu) Whether they fill at most half of it, in both. */
static bool tpf_half(struct cp_tprefetch *pf)
{
	return pf->pub_b - atomic_load(&pf->took_b) <= pf->room_b / 2 &&
	       pf->pub_v - atomic_load(&pf->took_v) <= pf->room_v / 2;
}

/* Block @b's state; under pf->mu, or (a cursor) to see it READY. */
static uint8_t tpf_state(struct cp_tprefetch *pf, size_t b)
{
	return atomic_load_explicit(&pf->st[b], memory_order_acquire);
}

static void tpf_set_state(struct cp_tprefetch *pf, size_t b, uint8_t st)
{
	atomic_store_explicit(&pf->st[b], st, memory_order_release);
}

/* (helper, under pf->mu) Block @b is decoded into @d, or left to its
 * cursor (NULL): the cursors waiting for it wake. */
static void tpf_publish(struct cp_tprefetch *pf, size_t b,
			struct cp_tpf_dec *d)
{
	pf->ready[b] = d;
	if (d) {
		pf->pub_b++;
		pf->pub_v += d->cap;
	}
	tpf_set_state(pf, b, d ? TPF_READY : TPF_LEFT);
	if (pf->nwait)
		pthread_cond_broadcast(&pf->cv);
}

/*
 * The helper takes the mutex once a block: to publish the block it has
 * just decoded, wait for room, and claim the next one with a spare block
 * to decode it into.
 */
void cp_tpf_run(void *arg)
{
	struct cp_tprefetch *pf = arg;
	struct cp_tindex *ix;
	uint32_t *seen;
	struct cp_tpf_win w = { .buf = NULL };
	struct cp_tpf_dec *d = NULL;	/* the block to decode into */
	size_t last = SIZE_MAX;		/* the block decoded, not published */
	bool ok = false;		/* ... into @d (else left) */

	if (!pf)
		return;
	ix = pf->ix;
	seen = calloc(ix->t.nthreads ? ix->t.nthreads : 1, sizeof(*seen));

	for (size_t b = 0; seen; b++) {
		const struct cp_trd_blk *blk;
		uint32_t bi;

		while (b < ix->r.nblks && ix->r.blks[b].type != CP_BLOCK_EVENTS)
			b++;
		pthread_mutex_lock(&pf->mu);
		if (last != SIZE_MAX) {
			tpf_publish(pf, last, ok ? d : NULL);
			d = ok ? NULL : d;
			last = SIZE_MAX;
		}
		if (b == ix->r.nblks) {
			pthread_mutex_unlock(&pf->mu);
			break;
		}
		blk = &ix->r.blks[b];
		bi = seen[blk->tid]++;
		if (tpf_full(pf)) {
			atomic_store(&pf->hwait, true);
			while (!pf->stop && !tpf_half(pf))
				pthread_cond_wait(&pf->cv, &pf->mu);
			atomic_store(&pf->hwait, false);
		}
		if (pf->stop) {
			pthread_mutex_unlock(&pf->mu);
			break;
		}
		if (tpf_state(pf, b) != TPF_NONE) {
			pthread_mutex_unlock(&pf->mu);
			continue;
		}
		tpf_set_state(pf, b, TPF_BUSY);
		if (!d && !pf->spare)
			pf->spare = atomic_exchange_explicit(
				&pf->back, NULL, memory_order_acquire);
		if (!d && pf->spare) {
			d = pf->spare;
			pf->spare = d->next;
		}
		pthread_mutex_unlock(&pf->mu);
		tpf_window(ix, &w, blk);
		ok = dec_block(pf, &w, blk->tid, bi, blk->nev, &d);
		last = b;
	}
	dec_free(d);
	free(seen);
	free(w.buf);
}

/* (cursor) Publish what the cursors took since they last did; the
 * helper, if it waits for room, wakes once there is half of it. */
static void tpf_took_publish(struct cp_tprefetch *pf)
{
	if (!pf->new_b)
		return;
	/* the cursors' alone (one thread): no read-modify-write */
	atomic_store(&pf->took_b, atomic_load_explicit(
		&pf->took_b, memory_order_relaxed) + pf->new_b);
	atomic_store(&pf->took_v, atomic_load_explicit(
		&pf->took_v, memory_order_relaxed) + pf->new_v);
	pf->new_b = pf->new_v = 0;
	if (!atomic_load(&pf->hwait))
		return;
	pthread_mutex_lock(&pf->mu);
	if (atomic_load(&pf->hwait) && tpf_half(pf))
		pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
}

/* (cursor) READY block @d is taken: counted, and published once past a
 * batch. */
static void tpf_took(struct cp_tprefetch *pf, struct cp_tpf_dec *d)
{
	pf->new_b++;
	pf->new_v += d->cap;
	if (pf->new_b >= pf->batch_b || pf->new_v >= pf->batch_v)
		tpf_took_publish(pf);
}

/* (cursor) Block @d, read, goes back to the helper's spares. */
static void tpf_give_back(struct cp_tprefetch *pf, struct cp_tpf_dec *d)
{
	d->next = atomic_load_explicit(&pf->back, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(&pf->back, &d->next, d,
						      memory_order_release,
						      memory_order_relaxed))
		;
}

/*
 * (cursor) Block @b decoded by the helper, taken, or NULL: the cursor
 * reads it (the helper will not).  A READY block is taken without the
 * mutex: a program that makes a thread per task has a block or two a
 * thread, and both sides taking the mutex for each was a tenth of the
 * time of its streamed report.
 */
static struct cp_tpf_dec *tpf_take(struct cp_tprefetch *pf, size_t b)
{
	struct cp_tpf_dec *d = NULL;
	uint8_t st;

	if (tpf_state(pf, b) == TPF_READY) {
		d = pf->ready[b];
		pf->ready[b] = NULL;
		tpf_set_state(pf, b, TPF_LEFT);
		tpf_took(pf, d);
		return d;
	}
	/* not decoded (yet): the helper may be asleep on a room it sees
	 * fuller than it is */
	tpf_took_publish(pf);
	pthread_mutex_lock(&pf->mu);
	while ((st = tpf_state(pf, b)) == TPF_BUSY) {
		pf->nwait++;
		pthread_cond_wait(&pf->cv, &pf->mu);
		pf->nwait--;
	}
	tpf_set_state(pf, b, TPF_LEFT);
	pthread_mutex_unlock(&pf->mu);
	if (st == TPF_READY) {
		d = pf->ready[b];
		pf->ready[b] = NULL;
		tpf_took(pf, d);
	}
	return d;
}

void cp_tpf_stop(struct cp_tprefetch *pf)
{
	pthread_mutex_lock(&pf->mu);
	pf->stop = true;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
}

void cp_tpf_free(struct cp_tprefetch *pf)
{
	if (!pf)
		return;
	for (size_t b = 0; b < pf->ix->r.nblks; b++)
		dec_free(pf->ready[b]);
	for (int i = 0; i < 2; i++) {
		struct cp_tpf_dec *l = i ? atomic_load(&pf->back) : pf->spare;

		while (l) {
			struct cp_tpf_dec *d = l;

			l = d->next;
			dec_free(d);
		}
	}
	pthread_cond_destroy(&pf->cv);
	pthread_mutex_destroy(&pf->mu);
	free(pf->st);
	free(pf->ready);
	free(pf);
}

/*
 * (cursor) The next vertex of the block taken from the helper, its
 * metadata before it given to c->meta, the floor applied; false at the
 * block's end (the block freed, the cursor goes on to the next).
 */
static bool dec_next(struct cp_tcursor *c, struct cp_tev *v,
		     uint64_t *wall)
{
	struct cp_tpf_dec *d = c->dec;

	for (; c->dm < d->nmeta && d->meta[c->dm].pos <= c->di; c->dm++)
		if (c->meta)
			c->meta(c->meta_ctx, &d->meta[c->dm].ev);
	if (c->di == d->n) {
		tpf_give_back(c->pf, d);
		c->dec = NULL;
		return false;
	}
	*v = d->v[c->di];
	*wall = d->wall[c->di++];
	if (v->ts < c->floor)
		v->ts = c->floor;
	c->last_ts = v->ts;
	c->any = true;
	return true;
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
	dec_free(c->dec);
	c->dec = NULL;
}

void cp_tcursor_park(struct cp_tcursor *c)
{
	if (!c->buf || !c->blk || c->dec)
		return;
	c->parked = (size_t)(c->p - c->buf);
	cp_tcursor_fini(c);
}

/* The event at the cursor does not decode (@why): the thread ends. */
static bool cut(struct cp_tcursor *c, size_t off, const char *why)
{
	c->dead = true;
	c->repaired = true;
	if (c->note)
		cp_trd_note(&c->ix->r, off, "the thread ends there",
			    "%s (thread %" PRIu32 ")", why, c->tid);
	return false;
}

/* Block @b's bytes into c->buf (room for them): copied from the window
 * the cursor has, when they lie in it (a cursor with a window of its own
 * to read through refills it first), else read.  Whether all came. */
static bool read_block(struct cp_tcursor *c, const struct cp_trd_blk *b)
{
	uint64_t at = b->off + c->ix->r.bsz;
	const struct cp_tpf_win *w = c->win;

	if (c->ahead) {
		tpf_window(c->ix, c->ahead, b);
		w = c->ahead;
	}
	if (w && at >= w->off && at + b->size <= w->off + w->len) {
		memcpy(c->buf, w->buf + (at - w->off), b->size);
		return true;
	}
	return pread(c->ix->fd, c->buf, b->size, (off_t)at) ==
	       (ssize_t)b->size;
}

/*
 * Move to the thread's next EVENTS block, read into the cursor's buffer;
 * false when there is none (or it cannot be read: the thread ends).
 */
static bool next_block(struct cp_tcursor *c)
{
	struct cp_tindex *ix = c->ix;
	const struct cp_trd_blk *b;

	uint32_t bx;

	if (c->dead || ix->toff[c->tid] + c->bi >= ix->toff[c->tid + 1] ||
	    (c->win && c->blk))
		return false;
	bx = ix->tblk[ix->toff[c->tid] + c->bi++];
	b = &ix->r.blks[bx];
	c->floor = c->any ? c->last_ts : 0;
	if (c->pf && (c->dec = tpf_take(c->pf, bx))) {
		c->dv = c->dec->v;
		c->dn = c->dec->n;
		c->blk = b;
		c->di = c->dm = 0;
		c->left = 0;
		return true;
	}
	if (b->size > c->cap) {
		uint8_t *nb = realloc(c->buf, b->size);

		if (!nb)
			return cut(c, b->off, "out of memory for a block");
		c->buf = nb;
		c->cap = b->size;
	}
	if (!read_block(c, b))
		return cut(c, b->off, "cannot read the block again");
	c->blk = b;
	c->p = c->buf + EVHEAD_SIZE;
	c->end = c->buf + b->size;
	c->left = b->nev;
	c->ts = cp_rd_u64(c->buf);
	c->wall = cp_rd_u64(c->buf + 8);
	c->prev_addr = 0;
	return true;
}

/* Fill @v from the decoded vertex @ev at @off; the reader's add_vertex. */
static void make_vertex(struct cp_tcursor *c, const struct cp_trd_ev *ev,
			size_t off, struct cp_tev *v)
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
	/* the reader drops a definition of an id past the event count
	 * (cp_tracechk.c), so a use of one is of an undefined object */
	if (!why && v->obj > c->ix->t.nevents) {
		snprintf(whybuf, sizeof(whybuf), "%s of undefined object %"
			 PRIu32, cp_trace_kind_name(ev->op & CP_EV_KIND_MASK),
			 v->obj);
		why = whybuf;
	}
	if (why) {
		c->repaired = true;
		if (c->note)
			cp_trd_note(&c->ix->r, off, "made inert", "%s", why);
		cp_trd_inert_ev(v);
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
	if (!read_block(c, b))
		return cut(c, b->off, "cannot read the block again");
	c->p = c->buf + at;
	c->end = c->buf + b->size;
	return true;
}

bool cp_tcursor_next(struct cp_tcursor *c, struct cp_tev *v,
		     uint64_t *wall)
{
	const struct cp_trd *r = &c->ix->r;

	if (c->parked && !unpark(c))
		return false;
	for (;;) {
		struct cp_trd_ev ev;
		const char *why;
		size_t off;

		if (c->dec && dec_next(c, v, wall))
			return true;
		while (!c->left && !c->dec)
			if (!next_block(c))
				return false;
		if (c->dec)
			continue;
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
