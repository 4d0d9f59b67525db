/*
 * cp_tracedec.c - pass 2 of the trace reader: decode the blocks pass 1
 * framed into per-thread vertex arrays with absolute timestamps, and the
 * symbol, string, INFO, thread and sample tables (cp_trace.c has the
 * overview and the salvage rules).
 *
 * An event that does not decode ends its thread (the thread's later blocks
 * are dropped); one that decodes but makes no sense is made inert; time
 * running backwards at a block boundary is held at the previous time.
 * Everything is bounds-checked against the block, so garbage costs a
 * message, never a read outside the file.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_emit.h"
#include "cp_grow.h"
#include "cp_par.h"
#include "cp_samples.h"
#include "cp_trace_rd.h"
#include "cp_varint.h"

/* ---- pass 2: decoding --------------------------------------------- */

/* The op of an inert vertex that had op @op: a FAIL that keeps WAIT. */
static uint8_t inert_op(uint8_t op)
{
	return (uint8_t)(CP_EV_FAIL | (op & CP_EVF_WAIT));
}

void cp_trd_inert(struct cp_tvert *v, struct cp_targ *a)
{
	v->op = inert_op(v->op);
	v->obj = 0;
	a->arg = 0;
	a->cnt = 0;
}

void cp_trd_inert_ev(struct cp_tev *e)
{
	e->op = inert_op(e->op);
	e->obj = 0;
	e->arg = 0;
	e->cnt = 0;
}

/*
 * Salvage: thread @tid's events cannot go on past offset @off (an event
 * that does not decode); its later blocks are dropped.
 */
static int cut_thread(struct cp_trd *r, uint32_t tid, size_t off,
		      const char *why)
{
	if (cp_trd_note(r, off, "the thread ends there", "%s (thread %" PRIu32 ")",
			why, tid))
		return -1;
	r->broken[tid] = true;
	return 0;
}

const char *cp_trd_payload_why(unsigned k, const struct cp_trd_ev *ev,
			       char *why, size_t whylen)
{
	const char *kind = cp_trace_kind_name(k);

	if (k == CP_EV_REGION_BEGIN || k == CP_EV_REGION_END)
		snprintf(why, whylen, "%s of bad string id %" PRIu64, kind,
			 ev->a);
	else if (k == CP_EV_THREAD_START || k == CP_EV_THREAD_CREATE ||
		 k == CP_EV_THREAD_JOIN)
		snprintf(why, whylen, "%s of bad thread id %" PRIu64, kind,
			 ev->a);
	else if (ev->a >= UINT32_MAX ||
		 (ev->a == 0 && (k == CP_EV_PUBLISH || k == CP_EV_CONSUME)))
		snprintf(why, whylen, "%s of bad object id %" PRIu64, kind,
			 ev->a);
	else if (k == CP_EV_PUBLISH)
		snprintf(why, whylen,
			 "PUBLISH of object %" PRIu64 " with sequence 0", ev->a);
	else
		snprintf(why, whylen,
			 "CONSUME of object %" PRIu64 " with bad range %" PRIu64 "+%" PRIu64,
			 ev->a, ev->b, ev->c);
	return why;
}

/* An OBJ_DEF or OBJ_UNTRACK at @off, kept for the checks of step 3 (a
 * bad id is dropped).  0, or -1 (strict, or out of memory). */
static int decode_meta(struct cp_trd *r, size_t off,
		       const struct cp_trd_ev *ev)
{
	struct cp_trd_def *d;

	if ((ev->op & CP_EV_KIND_MASK) == CP_EV_OBJ_UNTRACK) {
		if (cp_grow((void **)&r->unt, sizeof(*r->unt),
				&r->cap_unt, r->nunt + 1))
			return cp_trd_fail(r, off, "out of memory");
		if (ev->a == 0 || ev->a >= UINT32_MAX)
			return cp_trd_note(r, off, "dropped",
					   "OBJ_UNTRACK of bad object id %" PRIu64,
					   ev->a);
		r->unt[r->nunt].obj = (uint32_t)ev->a;
		r->unt[r->nunt++].off = off;
		return 0;
	}
	if (ev->a == 0 || ev->a >= UINT32_MAX)
		return cp_trd_note(r, off, "dropped",
				   "OBJ_DEF of bad object id %" PRIu64, ev->a);
	if (ev->b > CP_OBJ_KIND_MAX)
		return cp_trd_note(r, off, "dropped",
				   "OBJ_DEF of object %" PRIu64 " with unknown kind %" PRIu64,
				   ev->a, ev->b);
	if (cp_grow((void **)&r->defs, sizeof(*r->defs), &r->cap_defs,
			r->ndefs + 1))
		return cp_trd_fail(r, off, "out of memory");
	d = &r->defs[r->ndefs++];
	d->obj = (uint32_t)ev->a;
	d->kind = (uint8_t)ev->b;
	d->addr = ev->c;
	d->extra = ev->dt;
	d->off = off;
	return 0;
}

/*
 * Append the vertex @ev (decoded at @off) to @th at clock @ts and wall
 * clock @wall; a payload that makes no sense makes it inert.  0, or -1
 * (strict).
 */
static int add_vertex(struct cp_trd *r, struct cp_trace_thread *th,
		      const struct cp_trd_ev *ev, size_t off, uint64_t ts,
		      uint64_t wall, uint64_t *prev_addr)
{
	struct cp_tev e = { .ts = ts, .op = ev->op };
	unsigned k = ev->op & CP_EV_KIND_MASK;
	char whybuf[200];
	const char *why;

	why = cp_trd_payload(&e, k, ev, prev_addr, whybuf, sizeof(whybuf));
	if (why) {
		if (cp_trd_note(r, off, "made inert", "%s", why))
			return -1;
		cp_trd_inert_ev(&e);
	}
	th->v[th->nv] = (struct cp_tvert){ .ts = e.ts, .obj = e.obj,
					   .op = e.op };
	th->a[th->nv] = (struct cp_targ){ .arg = e.arg, .cnt = e.cnt };
	if (k == CP_EV_CP_START || k == CP_EV_CP_STOP)
		r->startstop = true;
	if (th->wall)
		th->wall[th->nv] = wall;
	th->nv++;
	return 0;
}

/* Event @i of block @b, at @off, does not decode (@why; @at_end: the
 * block ended before it): the thread ends there (strict: refused). */
static int bad_event(struct cp_trd *r, const struct cp_trd_blk *b,
		     uint32_t i, bool at_end, size_t off, const char *why)
{
	char whybuf[200];

	if (at_end) {
		snprintf(whybuf, sizeof(whybuf),
			 "EVENTS block ends after %" PRIu32 " of %" PRIu32 " events",
			 i, b->nev);
		why = whybuf;
	}
	if (r->strict)
		return cp_trd_fail(r, off, "%s", why);
	return cut_thread(r, b->tid, off, why);
}

/* The events of EVENTS block @b, appended to its thread's vertices with
 * absolute times. */
static int decode_events(struct cp_trd *r, const struct cp_trd_blk *b)
{
	struct cp_trace_thread *th = &r->t->threads[b->tid];
	const uint8_t *base = r->buf + b->off + r->bsz;
	const uint8_t *p = base + EVHEAD_SIZE;
	const uint8_t *end = base + b->size;
	uint64_t ts = cp_rd_u64(base), wall = cp_rd_u64(base + 8);
	uint64_t prev_addr = 0, floor = th->nv ? th->v[th->nv - 1].ts : 0;
	bool first = true;

	if (r->broken[b->tid])
		return 0;
	for (uint32_t i = 0; i < b->nev; i++) {
		size_t off = (size_t)(p - r->buf);
		struct cp_trd_ev ev;
		const char *why = cp_trd_decode_event(&p, end, r->hasw, &ev);

		if (why)
			return bad_event(r, b, i, p >= end, off, why);
		if ((ev.op & CP_EV_KIND_MASK) >= CP_EV_META_FIRST) {
			if (decode_meta(r, off, &ev))
				return -1;
			continue;
		}
		if (ts + ev.dt < ts || wall + ev.dwall < wall)
			return bad_event(r, b, i, false, off,
					 "timestamp overflows");
		ts += ev.dt;
		wall += ev.dwall;
		if (first && ts < floor &&
		    cp_trd_note(r, off, "held at the previous time",
				"time goes backwards in thread %" PRIu32 " (block starts at %" PRIu64 ", previous vertex at %" PRIu64 ")",
				b->tid, ts, floor))
			return -1;
		first = false;
		if (add_vertex(r, th, &ev, off, ts < floor ? floor : ts, wall,
			       &prev_addr))
			return -1;
	}
	/* a block closed from another thread may hold one uncounted event */
	if (p != end && !(b->flags & CP_BLOCKF_CLOSED) &&
	    cp_trd_note(r, (size_t)(p - r->buf), "ignored",
			"%zu stray bytes after the last event of the block",
			(size_t)(end - p)))
		return -1;
	return 0;
}

/* Copy a string-bearing payload into strbuf; returns its copy. */
static char *copy_payload(struct cp_trd *r, const struct cp_trd_blk *b)
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

/* A thread name as the program set it, printable: each control byte
 * and each byte that is no valid UTF-8 becomes '?', in place (a name
 * goes into text, JSON and HTML as it is). */
static void printable_name(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t u = cp_emit_utf8_len(p);

		if (u == 0 || (u == 1 && (*p < 0x20 || *p == 0x7f))) {
			*p++ = '?';
			continue;
		}
		p += u;
	}
}

static int decode_thread(struct cp_trd *r, const struct cp_trd_blk *b)
{
	struct cp_trace_thread *th = &r->t->threads[b->tid];
	char *p = copy_payload(r, b);

	if (th->has_info)
		return cp_trd_fail(r, b->off, "second THREAD block for thread %" PRIu32,
				   b->tid);
	memcpy(&th->info, p, TINFO_SIZE);
	if (th->info.tid != b->tid)
		return cp_trd_fail(r, b->off,
				   "THREAD block of thread %" PRIu32 " says tid %" PRIu32,
				   b->tid, th->info.tid);
	if (cstrlen(p + TINFO_SIZE, b->size - TINFO_SIZE) < 0)
		return cp_trd_fail(r, b->off, "thread name not terminated");
	th->has_info = true;
	th->name = p + TINFO_SIZE;
	printable_name(p + TINFO_SIZE);
	return 0;
}

static int decode_symbols(struct cp_trd *r, const struct cp_trd_blk *b)
{
	struct cp_trace *t = r->t;
	char *p = copy_payload(r, b), *start = p, *end = p + b->size;

	while (p < end) {
		size_t off = b->off + r->bsz + (size_t)(p - start);
		long n;
		uint64_t cap = r->cap_syms;

		if (end - p < 17)
			return cp_trd_fail(r, off, "truncated symbol record");
		n = cstrlen(p + 16, (size_t)(end - p - 16));
		if (n < 0)
			return cp_trd_fail(r, off, "symbol name not terminated");
		if (cp_grow((void **)&t->syms, sizeof(*t->syms), &cap,
				t->nsyms + 1))
			return cp_trd_fail(r, b->off, "out of memory");
		r->cap_syms = (uint32_t)cap;
		t->syms[t->nsyms].addr = cp_rd_u64((uint8_t *)p);
		t->syms[t->nsyms].size = cp_rd_u64((uint8_t *)p + 8);
		t->syms[t->nsyms].name = p + 16;
		t->nsyms++;
		p += 16 + n + 1;
	}
	return 0;
}

static int decode_strings(struct cp_trd *r, const struct cp_trd_blk *b)
{
	struct cp_trace *t = r->t;
	char *p = copy_payload(r, b), *end = p + b->size;

	while (p < end) {
		long n;
		uint64_t cap = r->cap_strs;
		size_t off = b->off + r->bsz + (size_t)(p - (end - b->size));

		if (end - p < 5)
			return cp_trd_fail(r, off, "truncated string record");
		n = cstrlen(p + 4, (size_t)(end - p - 4));
		if (n < 0)
			return cp_trd_fail(r, off, "string not terminated");
		if (cp_grow((void **)&t->strs, sizeof(*t->strs), &cap,
				t->nstrs + 1))
			return cp_trd_fail(r, off, "out of memory");
		r->cap_strs = (uint32_t)cap;
		t->strs[t->nstrs].id = cp_rd_u32((uint8_t *)p);
		t->strs[t->nstrs].text = p + 4;
		t->nstrs++;
		p += 4 + n + 1;
	}
	return 0;
}

/* What tells two stacks of one code address apart in cp_trd.stackmap:
 * their callers, mixed. */
static uint64_t stack_key(const struct cp_trd_stack *k)
{
	uint64_t h = k->ncallers;

	for (uint32_t i = 0; i < k->ncallers; i++)
		h = cp_hash_mix(h, k->callers[i]);
	return h;
}

static bool same_stack(const struct cp_trd_stack *a,
		       const struct cp_trd_stack *b)
{
	if (a->pc != b->pc || a->ncallers != b->ncallers)
		return false;
	for (uint32_t i = 0; i < a->ncallers; i++)
		if (a->callers[i] != b->callers[i])
			return false;
	return true;
}

/* The index of stack @k in r->stacks, added when new; UINT32_MAX when
 * memory runs out.  Two stacks whose keys collide are both kept, the
 * second unmapped: the sites stay right, only less shared. */
static uint32_t intern_stack(struct cp_trd *r, const struct cp_trd_stack *k)
{
	uint64_t key = stack_key(k);
	uint32_t i = cp_map2_get(&r->stackmap, k->pc, key);

	if (i != CP_HASH_NONE && same_stack(&r->stacks[i], k))
		return i;
	if (r->nstacks == UINT32_MAX - 1 ||
	    cp_grow((void **)&r->stacks, sizeof(*r->stacks), &r->cap_stacks,
		    r->nstacks + 1))
		return UINT32_MAX;
	if (i == CP_HASH_NONE &&
	    cp_map2_put(&r->stackmap, k->pc, key, r->nstacks))
		return UINT32_MAX;
	r->stacks[r->nstacks] = *k;
	return r->nstacks++;
}

/* A SITES block, (object, code address) pairs, or a SITE_STACKS block,
 * (object, count, addresses) records: kept for cp_trd_site_apply.  Frames
 * past the ones kept are read and dropped. */
static int decode_sites(struct cp_trd *r, const struct cp_trd_blk *b)
{
	const uint8_t *start = r->buf + b->off + r->bsz, *p = start;
	const uint8_t *end = start + b->size;
	bool stacks = b->type == CP_BLOCK_SITE_STACKS;
	const char *what = stacks ? "SITE_STACKS" : "SITES";

	while (p < end) {
		size_t off = b->off + r->bsz + (size_t)(p - start);
		struct cp_trd_stack k = { 0 };
		uint64_t obj, n = 1, pc;
		uint32_t stack;

		if (cp_uv_get(&p, end, &obj) ||
		    (stacks && cp_uv_get(&p, end, &n)))
			return cp_trd_note(r, off, "ignored", "bad %s record",
					   what);
		if (n > (uint64_t)(end - p))	/* a frame takes a byte at least */
			return cp_trd_note(r, off, "ignored", "bad %s record",
					   what);
		for (uint64_t i = 0; i < n; i++) {
			if (cp_uv_get(&p, end, &pc))
				return cp_trd_note(r, off, "ignored",
						   "bad %s record", what);
			if (!i)
				k.pc = pc;
			else if (i < CP_SITE_DEPTH && pc)
				k.callers[k.ncallers++] = pc;
		}
		if (!obj || obj >= UINT32_MAX || !k.pc)
			continue;
		if ((stack = intern_stack(r, &k)) == UINT32_MAX ||
		    cp_grow((void **)&r->sites, sizeof(*r->sites),
			    &r->cap_sites, r->nsites + 1))
			return cp_trd_fail(r, off, "out of memory");
		r->sites[r->nsites++] = (struct cp_trd_site){
			.obj = (uint32_t)obj, .stack = stack };
	}
	return 0;
}

void cp_trd_site_apply(const struct cp_trd *r, struct cp_site *site,
		       const struct cp_trd_site *s, struct cp_site *pool)
{
	const struct cp_trd_stack *k = &r->stacks[s->stack];

	if (site->pc)
		return;
	site->pc = k->pc;
	if (!k->ncallers)
		return;
	site->callers = pool + k->at;
	site->ncallers = k->ncallers;
}

struct cp_site *cp_trd_site_pool(struct cp_trd *r)
{
	struct cp_site *pool;
	size_t n = 0;

	for (uint32_t i = 0; i < r->nstacks; i++) {
		r->stacks[i].at = (uint32_t)n;
		n += r->stacks[i].ncallers;
	}
	if (n > UINT32_MAX || !(pool = calloc(n ? n : 1, sizeof(*pool))))
		return NULL;
	for (uint32_t i = 0; i < r->nstacks; i++)
		for (uint32_t j = 0; j < r->stacks[i].ncallers; j++)
			pool[r->stacks[i].at + j].pc = r->stacks[i].callers[j];
	return pool;
}

void cp_trd_sites_free(struct cp_trd *r)
{
	cp_big_free(r->sites);
	cp_big_free(r->stacks);
	cp_map2_free(&r->stackmap);
	r->sites = NULL;
	r->stacks = NULL;
	r->nsites = r->cap_sites = r->cap_stacks = 0;
	r->nstacks = 0;
}

/* SAMPLES and MODULES blocks: cp_samples.c. */
static int decode_samples(struct cp_trd *r, const struct cp_trd_blk *b)
{
	char why[128];
	size_t at = 0;

	if (cp_samples_add_block(&r->t->samples, b->type, b->tid,
				 r->buf + b->off + r->bsz, b->size, &at,
				 why, sizeof(why)))
		return cp_trd_fail(r, b->off + r->bsz + at, "%s", why);
	return 0;
}

static int decode_info(struct cp_trd *r, const struct cp_trd_blk *b)
{
	struct cp_trace *t = r->t;
	char *p = copy_payload(r, b), *end = p + b->size;

	while (p < end) {
		long nk, nv;
		uint64_t cap = r->cap_info;
		size_t off = b->off + r->bsz + (size_t)(p - (end - b->size));

		nk = cstrlen(p, (size_t)(end - p));
		if (nk < 0)
			return cp_trd_fail(r, off, "INFO key not terminated");
		nv = cstrlen(p + nk + 1, (size_t)(end - p - nk - 1));
		if (nv < 0)
			return cp_trd_fail(r, off, "INFO value not terminated");
		if (cp_grow((void **)&t->info, sizeof(*t->info), &cap,
				t->ninfo + 1))
			return cp_trd_fail(r, off, "out of memory");
		r->cap_info = (uint32_t)cap;
		t->info[t->ninfo].key = p;
		t->info[t->ninfo].value = p + nk + 1;
		t->ninfo++;
		p += nk + 1 + nv + 1;
	}
	return 0;
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

/* The block @b, by its type (unknown types and dropped blocks: none). */
static int decode_block(struct cp_trd *r, const struct cp_trd_blk *b)
{
	switch (b->type) {
	case CP_BLOCK_EVENTS:
		return decode_events(r, b);
	case CP_BLOCK_THREAD:
		return decode_thread(r, b);
	case CP_BLOCK_SYMBOLS:
		return decode_symbols(r, b);
	case CP_BLOCK_STRINGS:
		return decode_strings(r, b);
	case CP_BLOCK_INFO:
		return decode_info(r, b);
	case CP_BLOCK_SAMPLES:
	case CP_BLOCK_MODULES:
		return decode_samples(r, b);
	case CP_BLOCK_SITES:
	case CP_BLOCK_SITE_STACKS:
		return decode_sites(r, b);
	default:
		return 0;
	}
}

/*
 * Both cores (cp_par.h): the EVENTS blocks are split between two workers
 * by thread, each thread (in order of its first block) to the worker with
 * fewer events so far, and each
 * worker decodes its threads' blocks in file order into their own arrays.
 * A worker is speculative: the first repair or failure it meets stops it
 * (cp_trd_note and cp_trd_fail only set @bail), and then the serial
 * decoder does everything again, so that repairs are counted, worded and
 * ordered exactly as one thread would.  The OBJ_DEFs and OBJ_UNTRACKs of
 * the two workers are merged by file offset, the serial order.
 */
struct dec_worker {
	/* a copy of the reader's state: its own defs, unt, flags; the two
	 * workers' lie side by side */
	_Alignas(CP_PAR_APART) struct cp_trd r;
	const uint8_t *own;	/* [nthreads] the worker of each thread */
	uint8_t id;
};

static void dec_worker_run(void *p)
{
	struct dec_worker *w = p;

	for (size_t i = 0; i < w->r.nblks && !w->r.bail; i++) {
		const struct cp_trd_blk *b = &w->r.blks[i];

		if (b->type == CP_BLOCK_EVENTS && w->own[b->tid] == w->id &&
		    decode_events(&w->r, b))
			w->r.bail = true;
	}
}

/* Merge the two workers' lists of @n0/@n1 items of @size bytes, each in
 * file order (offset @off_at bytes into an item), into @out. */
static void merge_by_offset(char *out, const char *a, size_t n0,
			    const char *b, size_t n1, size_t size,
			    size_t off_at)
{
	size_t i = 0, j = 0;

	while (i < n0 || j < n1) {
		size_t oa = 0, ob = 0;
		const char *src;

		if (i < n0)
			memcpy(&oa, a + i * size + off_at, sizeof(oa));
		if (j < n1)
			memcpy(&ob, b + j * size + off_at, sizeof(ob));
		src = j >= n1 || (i < n0 && oa < ob) ? a + i++ * size :
		      b + j++ * size;
		memcpy(out, src, size);
		out += size;
	}
}

/* The workers' results into @r: 0, or -1 when out of memory. */
static int dec_merge(struct cp_trd *r, struct dec_worker *w)
{
	size_t nd = w[0].r.ndefs + w[1].r.ndefs;
	size_t nu = w[0].r.nunt + w[1].r.nunt;

	if (cp_grow((void **)&r->defs, sizeof(*r->defs), &r->cap_defs,
			nd) ||
	    cp_grow((void **)&r->unt, sizeof(*r->unt), &r->cap_unt, nu))
		return -1;
	merge_by_offset((char *)r->defs, (char *)w[0].r.defs, w[0].r.ndefs,
			(char *)w[1].r.defs, w[1].r.ndefs, sizeof(*r->defs),
			offsetof(struct cp_trd_def, off));
	merge_by_offset((char *)r->unt, (char *)w[0].r.unt, w[0].r.nunt,
			(char *)w[1].r.unt, w[1].r.nunt, sizeof(*r->unt),
			offsetof(struct cp_trd_untrack, off));
	r->ndefs = nd;
	r->nunt = nu;
	r->startstop = w[0].r.startstop || w[1].r.startstop;
	return 0;
}

/*
 * The EVENTS blocks by two workers (on two threads when the trace is
 * large enough for cp_par_two).  Returns 1 when they are decoded, 0 when
 * the serial decoder must do them (a repair or failure met, no memory),
 * with every thread's vertices emptied again.
 */
static int decode_events_par(struct cp_trd *r)
{
	struct cp_trace *t = r->t;
	struct dec_worker w[2];
	uint64_t load[2] = { 0, 0 };
	uint8_t *own = calloc(t->nthreads ? t->nthreads : 1, 1);
	int ok = 0;

	if (!own)
		return 0;
	/* each thread, in tid order, to the less loaded worker (the loads
	 * counted in events, written in @own's first pass as a scratch) */
	for (size_t i = 0; i < r->nblks; i++) {
		const struct cp_trd_blk *b = &r->blks[i];

		if (b->type != CP_BLOCK_EVENTS)
			continue;
		if (!own[b->tid])
			own[b->tid] = 1 + (load[1] < load[0]);
		load[own[b->tid] - 1] += b->nev;
	}
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		own[tid] = own[tid] ? (uint8_t)(own[tid] - 1) : 0;
	for (int k = 0; k < 2; k++) {
		w[k].r = *r;
		w[k].r.defs = NULL;
		w[k].r.unt = NULL;
		w[k].r.ndefs = w[k].r.cap_defs = w[k].r.nunt = 0;
		w[k].r.cap_unt = 0;
		w[k].r.spec = true;
		w[k].r.bail = false;
		w[k].r.startstop = false;
		w[k].own = own;
		w[k].id = (uint8_t)k;
	}
	cp_par_two(r->total_ev, dec_worker_run, &w[1], dec_worker_run, &w[0]);
	if (!w[0].r.bail && !w[1].r.bail && !dec_merge(r, w))
		ok = 1;
	for (int k = 0; k < 2; k++) {
		cp_big_free(w[k].r.defs);
		cp_big_free(w[k].r.unt);
	}
	/* on failure the serial decoder redoes every thread */
	for (uint32_t tid = 0; !ok && tid < t->nthreads; tid++) {
		t->threads[tid].nv = 0;
		r->broken[tid] = false;
	}
	free(own);
	return ok;
}

/* Sort the symbol and string tables; a string defined twice differently
 * fails. */
static int sort_tables(struct cp_trd *r)
{
	struct cp_trace *t = r->t;

	if (t->nsyms)
		qsort(t->syms, t->nsyms, sizeof(*t->syms), cmp_sym);
	if (t->nstrs)
		qsort(t->strs, t->nstrs, sizeof(*t->strs), cp_trd_cmp_str);
	for (uint32_t i = 1; i < t->nstrs; i++)
		if (t->strs[i].id == t->strs[i - 1].id &&
		    strcmp(t->strs[i].text, t->strs[i - 1].text))
			return cp_trd_fail(r, 0, "string %" PRIu32 " defined twice, differently",
					   t->strs[i].id);
	return 0;
}

int cp_trd_decode_blocks(struct cp_trd *r)
{
	struct cp_trace *t = r->t;
	bool par = decode_events_par(r);

	for (size_t i = 0; i < r->nblks; i++)
		if ((!par || r->blks[i].type != CP_BLOCK_EVENTS) &&
		    decode_block(r, &r->blks[i]))
			return -1;
	t->has_startstop = r->startstop;
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		t->nvertices += t->threads[tid].nv;
	return sort_tables(r);
}

int cp_trd_decode_meta(struct cp_trd *r)
{
	for (size_t i = 0; i < r->nblks; i++) {
		uint32_t type = r->blks[i].type;

		if ((type == CP_BLOCK_THREAD || type == CP_BLOCK_SYMBOLS ||
		     type == CP_BLOCK_STRINGS || type == CP_BLOCK_INFO ||
		     type == CP_BLOCK_SITES || type == CP_BLOCK_SITE_STACKS) &&
		    decode_block(r, &r->blks[i]))
			return -1;
	}
	return sort_tables(r);
}
