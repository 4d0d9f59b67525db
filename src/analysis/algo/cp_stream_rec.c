/*
 * cp_stream_rec.c - the out-of-core pass's publish records (cp_stream.c):
 * copies of a path record left for (object, sequence), and when they die.
 *
 * Freeing publish records.  A record of (obj, seq) is dead once no later
 * CONSUME holds seq.  Counting the consumers of every sequence would cost
 * memory per publish, so a first pass (the survey, which also totals the
 * procedures' times to choose the tracked ones) runs the same schedule
 * without records and measures, per object, the largest lag of a CONSUME:
 * the object's highest sequence published so far minus the CONSUME's low
 * end.  The schedule depends only on the trace, so the second pass sees
 * the same order, and a record whose seq + lag is below the object's
 * highest published sequence can never be consumed again: it is freed.
 * Both passes decide "runnable?" from the same set of sequences published
 * (a watermark per object and the few published above it out of order),
 * so they block and run the same vertices; the records a CONSUME merges
 * are still there, since its low end is at least the object's highest
 * sequence then minus the lag (a cp_die says otherwise).
 * Mutexes, spins, items and semaphores whose waiter keeps up have lag 0
 * or 1 (one record per object alive); condition broadcasts lag by the
 * waiters that consume one signal, a barrier by its count (its departures
 * consume the episode's range), an rwlock by the unlocks since its last
 * write unlock (folded, below); a semaphore posted far ahead of its waits
 * keeps the tokens outstanding, as the program did.
 * The survey also counts each object's CONSUMEs and finds the highest
 * sequence any of them holds: a sequence above it gets no record, and
 * after the object's last CONSUME its records all go.  Without that, an
 * object's last record stayed to the end, one an object: an OpenMP
 * program's tasks, millions of objects used a few times each, held
 * gigabytes of them.
 *
 * Folding.  An rwlock's write lock consumes its last write unlock and
 * every read unlock since, however many: the lag rule would keep a record
 * per read between two writes.  The survey also checks, per object, that
 * every CONSUME lands (its low end) on lo_max, the highest landing so far,
 * or on m + 1, the first sequence after the highest published when the
 * previous CONSUME ran, and that every range of two or more ends at the
 * highest published (mutexes, spins and rwlocks do; barriers, broadcasts
 * and semaphores need not).  Then every later landing is lo_max, m + 1 or
 * a sequence not yet published, and every range holds all that was
 * published since its landing: a record below lo_max is dead, and those
 * in (lo_max, m] and above m + 1 are only ever consumed all together, so
 * each group is folded into one record (agg1, agg2: len and share of the
 * longest, net element-wise max), and lo_max and m + 1 keep their own.
 *
 * Thin records.  A merge takes the share lanes of the longer path only,
 * and a record's path is the longer at few of the merges that read it
 * (1-3 % on the traces measured): a record that never is carries its
 * share lanes for nothing, 2.5 KB of them where 59 procedures and 64
 * objects are followed (doc/measurements/2026-12-04-thin-records.md).
 * MBM's paths pass runs first on the same schedule, so
 * the same records in the same order: there each record knows the
 * record whose share lanes it would hold (itself when a thread
 * publishes it; the winner's when a fold or a hub takes a longer one;
 * none, a thread's, when a longer thread publishes into a fold), and a
 * merge into a thread that takes a record's lanes marks that origin.
 * MBM's capture reads the procedures' shares on both sides of the
 * merges it wants, which are known only once the paths are: a sidetrack
 * keeps the origin of its merge's record side (a fold's or a hub's two
 * are marked at once), and cp_stream_kp_want marks those of the paths'
 * sidetracks.  The records pass then copies share[] (all nsh lanes)
 * only into marked records.  The same origins are followed there, so a
 * merge that would take lanes a record does not hold is seen: the pass
 * stops and runs again with every record whole (sp.spoiled), and a mark
 * missed costs time, never a figure.
 */
#include "cp_stream_int.h"

#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_bits.h"
#include "cp_die.h"
#include "cp_grow.h"
#include "cp_search.h"

/* ---- path records ------------------------------------------------- */

/*
 * Merge into the record @len, @vec the record @len2, @vec2 of a dependency
 * edge of weight zero: len and the share-like lanes (procedure shares,
 * objects' and threads' CP figures) from the longer (ties: the first's
 * own), net and the what-if lane element-wise max.  cp_stream_merge():
 * into thread @t (flushed).
 */
void cp_stream_merge_into(const struct sp *p, uint64_t *len, uint64_t *vec,
			  uint64_t len2, const uint64_t *vec2)
{
	uint32_t n = p->ntr, sh = p->nsh;
	uint64_t nl = len2 > *len ? len2 : *len;

	for (uint32_t k = 0; k < n; k++) {
		uint64_t a = *len - vec[sh + k], b = len2 - vec2[sh + k];

		vec[sh + k] = nl - (a > b ? a : b);
	}
	for (uint32_t k = sh + n; k < p->vn; k++)
		if (vec2[k] > vec[k])
			vec[k] = vec2[k];
	if (len2 > *len && sh)
		memcpy(vec, vec2, sh * sizeof(*vec));
	*len = nl;
}

void cp_stream_merge(struct sp *p, struct sth *t, uint64_t len,
		     const uint64_t *vec)
{
	cp_stream_merge_into(p, &t->len, t->vec, len, vec);
}

/* A record's room, free; NONE: no memory. */
static uint32_t rec_alloc(struct sp *p)
{
	size_t vn = p->vn;
	uint32_t r = p->freel;

	if (r != NONE) {
		p->freel = p->rnext[r];
	} else {
		uint32_t c = p->caprec, c2 = c, c3 = c, c4 = c;

		if (cp_grow32((void **)&p->rlen, 8, &c, p->nrec + 1) ||
		    cp_grow32((void **)&p->rseq, 8, &c2, p->nrec + 1) ||
		    cp_grow32((void **)&p->rnext, 4, &c3, p->nrec + 1) ||
		    cp_grow32((void **)&p->rvec, 8 * (vn ? vn : 1), &c4,
			      p->nrec + 1))
			return NONE;
		if (p->kp_k && cp_stream_kp_grow(p, p->nrec + 1))
			return NONE;
		p->caprec = c;
		r = p->nrec++;
	}
	if (p->org_on && cp_grow32((void **)&p->rorg, sizeof(*p->rorg),
				   &p->cap_rorg, (uint64_t)r + 1))
		return NONE;
	p->s->records++;
	if (++p->live > p->s->live_max)
		p->s->live_max = p->live;
	return r;
}

/* A copy of @t's record (flushed), for sequence @seq; NONE: no memory. */
uint32_t cp_stream_rec_new(struct sp *p, const struct sth *t, uint64_t seq)
{
	size_t vn = p->vn;
	uint32_t r = rec_alloc(p);

	if (r == NONE)
		return NONE;
	p->rlen[r] = t->len;
	p->rseq[r] = seq;
	if (p->org_on) {
		uint64_t ord = p->s->records - 1;
		bool whole = p->thin && ord / 64 < p->cap_need &&
			     cp_bit_get(p->thin_need, ord);

		p->rorg[r] = whole ? CP_ORG_WHOLE : ord;
	}
	if (p->thin && p->rorg[r] != CP_ORG_WHOLE) {
		memcpy(p->rvec + r * vn + p->nsh, t->vec + p->nsh,
		       (vn - p->nsh) * sizeof(*t->vec));
		p->s->thin_records++;
	} else if (vn) {
		memcpy(p->rvec + r * vn, t->vec, vn * sizeof(*t->vec));
	}
	if (p->kp_k)
		cp_stream_kp_rec(p, t, r);
	if (p->vw_deps)
		cp_stream_view_rec(p, r, (struct cp_kp_end){
					   (uint32_t)(t - p->th), t->key });
	if (__builtin_expect(p->sl != NULL, 0) && cp_stream_sl_rec(p, r))
		return NONE;
	return r;
}

void cp_stream_rec_free(struct sp *p, uint32_t r)
{
	p->rnext[r] = p->freel;
	p->freel = r;
	p->live--;
}

void cp_stream_org_mark(struct sp *p, uint64_t org)
{
	uint64_t c = p->cap_need;

	if (org / 64 >= c) {
		if (cp_grow((void **)&p->thin_need, sizeof(*p->thin_need), &c,
			    org / 64 + 1)) {
			p->thin_nomem = true;
			return;
		}
		memset(p->thin_need + p->cap_need, 0,
		       (c - p->cap_need) * sizeof(*p->thin_need));
		p->cap_need = c;
	}
	cp_bit_set(p->thin_need, org);
}

/* Merge record @r into record @a and free it. */
static void rec_fold(struct sp *p, uint32_t a, uint32_t r)
{
	size_t vn = p->vn;

	if (p->kp_k)
		cp_stream_kp_group_rec(p, a, r);
	if (__builtin_expect(p->sl != NULL, 0))
		cp_stream_sl_group_rec(p, a, r);
	if (p->vw_deps)
		cp_stream_view_fold(p, a, cp_stream_view_pub(p, r));
	cp_stream_org_into(p, a, p->rlen[r], r);
	cp_stream_merge_into(p, &p->rlen[a], p->rvec + a * vn, p->rlen[r],
			     p->rvec + r * vn);
	cp_stream_rec_free(p, r);
}

/* Merge record @r into @t; @sl: p->sl is set (consume_as()). */
static inline __attribute__((always_inline)) void
rec_merge(struct sp *p, struct sth *t, uint32_t r, const bool sl)
{
	if (p->kp_k)
		cp_stream_kp_consume(p, t, r);
	if (sl)
		cp_stream_sl_in_rec(p, r);
	if (p->vw_deps)
		cp_stream_view_take(p, r);
	cp_stream_org_read(p, t, r);
	cp_stream_merge(p, t, p->rlen[r], p->rvec + r * (size_t)p->vn);
}

/* ---- objects ------------------------------------------------------- */

/*
 * Object ids come from the trace, dense from 1.  The array grows by
 * doubling, but only the entries up to the highest id seen are written:
 * the room past them is never touched, so it costs address space, not
 * memory (an OpenMP run makes millions of objects).
 */
struct sobj *cp_stream_obj_grow(struct sp *p, uint32_t id)
{
	if (id == UINT32_MAX)
		return NULL;	/* no room can hold it */
	if (id >= p->cap_obj) {
		uint32_t n = p->cap_obj ? p->cap_obj : 16;
		struct sobj *o;

		while (n <= id)
			n = n > UINT32_MAX / 2 ? UINT32_MAX : 2 * n;
		o = cp_big_realloc(p->obj, (size_t)n * sizeof(*o));
		if (!o)
			return NULL;
		p->obj = o;
		p->cap_obj = n;
	}
	if (id >= p->nobj) {
		memset(p->obj + p->nobj, 0,
		       (size_t)(id + 1 - p->nobj) * sizeof(*p->obj));
		for (uint32_t i = p->nobj; i <= id; i++)
			p->obj[i].lane = NONE;
		p->nobj = id + 1;
	}
	return &p->obj[id];
}

/* The @i-th record of @o's ring from its head (i < o->n).  The ring's
 * capacity is a power of two (cp_stream_ring_push), so a mask wraps it. */
static inline uint32_t ring_at(const struct sobj *o, uint64_t i)
{
	return o->ring[(o->head + i) & (o->cap - 1)];
}

/* The record of @seq among @o's, or NONE. */
static uint32_t rec_find(const struct sp *p, const struct sobj *o,
			 uint64_t seq)
{
	uint64_t s0;

	if (!o->n)
		return NONE;
	s0 = p->rseq[o->ring[o->head]];
	if (seq >= s0 && seq - s0 < o->n) {
		uint32_t r = ring_at(o, seq - s0);

		if (p->rseq[r] == seq)
			return r;
	}
	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t r = ring_at(o, i);

		if (p->rseq[r] == seq)
			return r;
	}
	return NONE;
}

/* Append record @r to @o's ring, whose capacity doubles from 4 (a power
 * of two: ring_at()).  0, or -1 (memory). */
int cp_stream_ring_push(struct sobj *o, uint32_t r)
{
	if (o->n == o->cap) {
		uint32_t nc = o->cap ? 2 * o->cap : 4;
		uint32_t *nr = malloc(nc * sizeof(*nr));

		if (!nr)
			return -1;
		for (uint32_t i = 0; i < o->n; i++)
			nr[i] = ring_at(o, i);
		free(o->ring);
		o->ring = nr;
		o->cap = nc;
		o->head = 0;
	}
	o->ring[(o->head + o->n++) & (o->cap - 1)] = r;
	return 0;
}

/* Is @o's hub that of the range @lo .. @lo + @cnt - 1? ("Hubs", below) */
static bool hub_holds(const struct sobj *o, uint64_t lo, uint32_t cnt)
{
	return o->hub && o->hub_lo == lo && o->hub_cnt == cnt;
}

/* Free @o's hub. */
static void hub_drop(struct sp *p, struct sobj *o)
{
	if (!o->hub)
		return;
	cp_stream_rec_free(p, o->hub - 1);
	o->hub = 0;
}

/*
 * Free @o's records that no later CONSUME can hold: seq + lag below the
 * highest sequence published ("Freeing publish records", above).
 * Records published out of order wait behind the oldest, which is late
 * but never early.
 */
void cp_stream_ring_trim(struct sp *p, struct sobj *o)
{
	while (o->n && p->rseq[o->ring[o->head]] + o->lag < o->smax) {
		cp_stream_rec_free(p, o->ring[o->head]);
		o->head = (o->head + 1) & (o->cap - 1);
		o->n--;
	}
	if (o->hub && o->hub_lo + o->lag < o->smax)
		hub_drop(p, o);
}

/*
 * (survey) Has @o's sequence @seq been published?  The sequences above
 * the contiguous 1..w are kept sorted: a barrier of n threads has up to n
 * of them at once, each of its n departures asks for all n, and a linear
 * scan made a 300-thread barrier cost O(n^3) an episode (5 s for a page
 * whose trace, in memory, took 0.5 s).
 */
bool cp_stream_seen(const struct sobj *o, uint64_t seq)
{
	uint32_t i;

	if (seq <= o->w)
		return true;
	i = cp_count_below64(o->pend, o->npend, seq);
	return i < o->npend && o->pend[i] == seq;
}

/* (survey) Note that @o's @seq is published.  0, or -1 (memory). */
int cp_stream_see(struct sobj *o, uint64_t seq)
{
	uint32_t k = 0;

	if (seq != o->w + 1) {
		uint32_t i = cp_count_below64(o->pend, o->npend, seq);

		if (cp_grow32((void **)&o->pend, sizeof(*o->pend),
			      &o->cap_pend, o->npend + 1))
			return -1;
		memmove(o->pend + i + 1, o->pend + i,
			(o->npend - i) * sizeof(*o->pend));
		o->pend[i] = seq;
		o->npend++;
		return 0;
	}
	o->w++;
	/* the pending ones that now follow 1..w (and any at or below it,
	 * published twice) leave the front */
	for (; k < o->npend && o->pend[k] <= o->w + 1; k++)
		if (o->pend[k] == o->w + 1)
			o->w++;
	if (k) {
		memmove(o->pend, o->pend + k,
			(o->npend - k) * sizeof(*o->pend));
		o->npend -= k;
	}
	return 0;
}

/* ---- folding ------------------------------------------------------ */

/*
 * Where sequence @q of @o is folded: agg1 for (lo_max, m], agg2 above
 * m + 1; NULL when it has a record of its own (lo_max, m + 1; any
 * sequence of an object that does not fold).
 */
uint32_t *cp_stream_fold_slot(struct sobj *o, uint64_t q)
{
	if (o->nofold || q <= o->lo_max || q == o->m + 1)
		return NULL;
	return q <= o->m ? &o->agg1 : &o->agg2;
}

/* ---- hubs ----------------------------------------------------------- */

/*
 * Hubs.  A CONSUME of a range of two or more sequences merges every one
 * of their records, and a barrier's N departures each consume the
 * episode's N arrivals: N^2 merges an episode, and as many sidetracks
 * and Slack inputs (200 threads at a barrier: 12 times the in-memory
 * analysis's time).  As the in-memory graph does (cp_tracepag.c's hubs),
 * the first CONSUME of a range of an object that does not fold merges
 * the range's records into one record, the hub, and it and the later
 * CONSUMEs of the range merge the hub.  Merging is associative with the
 * same ties (the longest, the first of the longest), so every lane comes
 * out as before; the k paths see the hub's members as a group
 * (CP_SDEV_GROUP), and Slack's file a vertex of its own whose edges weigh
 * zero, which changes no path length between the program's vertices.
 * An object keeps the hub of its last range: it goes when another range
 * is consumed, when the lag rule makes its low end dead, and after the
 * object's last CONSUME.
 */
int cp_stream_hub(struct sp *p, struct sobj *o, uint64_t lo, uint32_t cnt)
{
	size_t vn = p->vn;
	uint32_t h;

	if (hub_holds(o, lo, cnt))
		return 0;
	hub_drop(p, o);
	if (cp_grow32((void **)&p->hubm, sizeof(*p->hubm), &p->cap_hubm, cnt))
		return -1;
	for (uint32_t i = 0; i < cnt; i++) {
		p->hubm[i] = rec_find(p, o, lo + i);
		if (p->hubm[i] == NONE)
			cp_die("stream: a consumed record was freed");
	}
	h = rec_alloc(p);
	if (h == NONE)
		return -1;
	p->rlen[h] = p->rlen[p->hubm[0]];
	p->rseq[h] = lo;
	if (p->org_on)
		p->rorg[h] = p->rorg[p->hubm[0]];
	if (vn)
		memcpy(p->rvec + h * vn, p->rvec + p->hubm[0] * vn,
		       vn * sizeof(*p->rvec));
	if (p->kp_k) {
		p->rhp[h] = p->rhp[p->hubm[0]];
		p->rend[h] = p->rend[p->hubm[0]];
	}
	if (p->vw_deps)
		cp_stream_view_rec(p, h,
				   cp_stream_view_pub(p, p->hubm[0]));
	for (uint32_t i = 1; i < cnt; i++) {
		uint32_t r = p->hubm[i];

		if (p->vw_deps)
			cp_stream_view_fold(p, h, cp_stream_view_pub(p, r));
		if (p->kp_k)
			cp_stream_kp_group_rec(p, h, r);
		cp_stream_org_into(p, h, p->rlen[r], r);
		cp_stream_merge_into(p, &p->rlen[h], p->rvec + h * vn,
				     p->rlen[r], p->rvec + r * vn);
	}
	if (p->sl)
		cp_stream_sl_hub(p, h, p->hubm, cnt);
	o->hub = h + 1;
	o->hub_lo = lo;
	o->hub_cnt = cnt;
	return 0;
}

/*
 * Merge into @t (flushed) the records of @o's sequences lo .. lo+cnt-1:
 * each one's own, or once the aggregate of those folded.  The freeing
 * and folding rules keep every one a CONSUME can still hold.  @sl: p->sl
 * is set, a constant in each of the two copies (as cp_stream.c's step()).
 */
static inline __attribute__((always_inline)) void
consume_as(struct sp *p, struct sth *t, struct sobj *o, uint64_t lo,
	   uint32_t cnt, const bool sl)
{
	bool done1 = false, done2 = false;

	if (hub_holds(o, lo, cnt)) {
		rec_merge(p, t, o->hub - 1, sl);
		return;
	}
	for (uint32_t i = 0; i < cnt; i++) {
		uint64_t q = lo + i;
		uint32_t *agg = cp_stream_fold_slot(o, q), r;
		bool *done = agg == &o->agg1 ? &done1 : &done2;

		if (agg) {
			if (!*agg)
				cp_die("stream: a folded record is missing");
			if (!*done)
				rec_merge(p, t, *agg - 1, sl);
			*done = true;
			continue;
		}
		r = rec_find(p, o, q);
		if (r == NONE)
			cp_die("stream: a consumed record was freed");
		rec_merge(p, t, r, sl);
	}
}

void cp_stream_consume_records(struct sp *p, struct sth *t, struct sobj *o,
			       uint64_t lo, uint32_t cnt)
{
	if (p->sl)
		consume_as(p, t, o, lo, cnt, true);
	else
		consume_as(p, t, o, lo, cnt, false);
}

/*
 * Records pass, after a CONSUME of @o (lo_max and m moved): free the
 * records below lo_max and fold those in (lo_max, m] into the aggregate.
 */
static void fold(struct sp *p, struct sobj *o)
{
	uint32_t keep = 0;

	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t r = ring_at(o, i);
		uint64_t q = p->rseq[r];

		if (q < o->lo_max) {
			cp_stream_rec_free(p, r);
		} else if (q > o->lo_max && q <= o->m && !o->agg1) {
			o->agg1 = r + 1;
		} else if (q > o->lo_max && q <= o->m) {
			rec_fold(p, o->agg1 - 1, r);
		} else {
			o->ring[(o->head + keep++) & (o->cap - 1)] = r;
		}
	}
	o->n = keep;
}

/*
 * Records pass, after @o's last CONSUME: no record of its can be held
 * again; they are all freed, and so is its ring (a program can make
 * millions of objects that are each used a few times: OpenMP's tasks).
 */
static void release(struct sp *p, struct sobj *o)
{
	for (uint32_t i = 0; i < o->n; i++)
		cp_stream_rec_free(p, ring_at(o, i));
	if (o->agg1)
		cp_stream_rec_free(p, o->agg1 - 1);
	if (o->agg2)
		cp_stream_rec_free(p, o->agg2 - 1);
	hub_drop(p, o);
	free(o->ring);
	o->ring = NULL;
	o->cap = o->head = o->n = o->agg1 = o->agg2 = 0;
}

/*
 * A CONSUME of @o with low end @lo and @cnt sequences ran (o->smax is the
 * highest published then).  The survey measures its lag and checks the
 * folding rule; both passes move lo_max and m; the records pass folds.
 */
void cp_stream_consumed(struct sp *p, struct sobj *o, uint64_t lo, uint32_t cnt)
{
	if (!p->records) {
		o->ncons++;
		if (lo + cnt - 1 > o->cmax)
			o->cmax = lo + cnt - 1;
		if (o->smax - lo > o->lag)
			o->lag = o->smax - lo;
		if ((lo != o->lo_max && lo != o->m + 1) ||
		    (cnt > 1 && lo + cnt - 1 != o->smax))
			o->nofold = true;
	}
	if (p->records && !o->nofold) {
		if (lo > o->lo_max && o->agg1)	/* all below lo now */
			cp_stream_rec_free(p, o->agg1 - 1);
		if (lo > o->lo_max)
			o->agg1 = 0;
		if (!o->agg1) {
			o->agg1 = o->agg2;
		} else if (o->agg2) {
			rec_fold(p, o->agg1 - 1, o->agg2 - 1);
		}
		o->agg2 = 0;
	}
	if (lo > o->lo_max)
		o->lo_max = lo;
	o->m = o->smax;
	if (p->records && !o->nofold)
		fold(p, o);
	if (p->records && o->cleft && !--o->cleft)
		release(p, o);
}
