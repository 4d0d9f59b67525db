/*
 * cp_stream_busy.c - the headline's busy share, streamed: over the
 * critical-path segments of one procedure, the fraction of the other
 * threads' time that was useful work, cp_compare.c's measure without the
 * graph.
 *
 * Slack's walk back (cp_stream_slack.c) writes the procedure's C segments
 * on the wall clock, [a, b) and their thread, to a scratch file as it
 * passes them, last first, those one after another on a thread joined;
 * read back from its end they come in the order of C.  The other
 * threads' useful time in [a, b) is U_t(b) - U_t(a), U_t(x) being thread
 * t's useful wall time before x (its useful segments, cut at x); so one
 * sweep reads the segments in order and moves every thread's cursor to
 * each end in turn:
 *	busy = sum over segments, over threads t other than the segment's,
 *	       of U_t(b) - U_t(a), over (sum of b - a) x (threads - 1),
 * the in-memory sum.  A thread's useful segments are those of the pass:
 * between its vertices, into one that does not wait, of clock and wall
 * time above zero (procedure events dropped when the samples are the
 * procedures).
 *
 * C runs forward in time but not strictly: a dependency timed around the
 * operation (an unlock stamped after the release it made) can step back a
 * little.  So each thread keeps its last BUSY_RING segments, which such
 * steps fall in; one further back starts the thread's cursor again from
 * its first event.  The result is exact either way.
 *
 * Cost: a pass over the events, decoding only; per segment of the
 * procedure, O(log BUSY_RING) for each thread alive then and O(1) for the
 * others.  Memory: a cursor and BUSY_RING segments (8 KB) per thread.
 */
#include "cp_stream_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cp_spill.h"

#define BUSY_RING	256	/* segments a thread keeps behind */

/* A thread's segment between two vertices, on the wall clock. */
struct bseg {
	uint64_t a, b;
	uint64_t before;	/* the thread's useful wall time before a */
	bool useful;
};

/* A thread in the sweep. */
struct bth {
	struct cp_tcursor cur;
	uint32_t tid;
	bool any;		/* a vertex was read */
	bool ended;		/* ... and the last */
	bool evicted;		/* a segment left the ring */
	uint64_t pts, pwall;	/* the last vertex's clock and wall clock */
	uint64_t done;		/* useful wall time before the next segment */
	struct bseg ring[BUSY_RING];	/* the last n segments, oldest at */
	uint32_t head, n;		/* head */
};

/* From thread @t's first event again. */
static void restart(struct sp *p, struct bth *t)
{
	cp_tcursor_fini(&t->cur);
	cp_tcursor_init(&t->cur, p->ix, t->tid, false);
	t->any = t->ended = t->evicted = false;
	t->done = 0;
	t->head = t->n = 0;
}

/* Thread @t's next segment into its ring, or t->ended. */
static void next_seg(const struct sp *p, struct bth *t)
{
	struct cp_tev v;
	uint64_t wall;

	while (cp_tcursor_next(&t->cur, &v, &wall)) {
		uint64_t x = p->hasw ? wall : v.ts;
		struct bseg *sg;

		if (p->drop_procs && cp_stream_is_proc(cp_tev_kind(&v)))
			continue;
		if (!t->any) {
			t->any = true;
			t->pts = v.ts;
			t->pwall = x;
			continue;
		}
		if (t->n == BUSY_RING) {
			t->head = (t->head + 1) % BUSY_RING;
			t->n--;
			t->evicted = true;
		}
		sg = &t->ring[(t->head + t->n++) % BUSY_RING];
		*sg = (struct bseg){
			.a = t->pwall, .b = x, .before = t->done,
			.useful = !cp_tev_waits(&v) && v.ts > t->pts &&
				  x > t->pwall,
		};
		if (sg->useful)
			t->done += x - t->pwall;
		t->pts = v.ts;
		t->pwall = x;
		return;
	}
	t->ended = true;
}

/* Segment @j (from the oldest) of @t's ring. */
static const struct bseg *seg_at(const struct bth *t, uint32_t j)
{
	return &t->ring[(t->head + j) % BUSY_RING];
}

/* U_t(@x): @t's useful wall time before @x. */
static uint64_t useful_before(struct sp *p, struct bth *t, uint64_t x)
{
	uint32_t lo = 0, hi;
	const struct bseg *sg;

	if (t->evicted && x < seg_at(t, 0)->a)
		restart(p, t);
	while (!t->ended && (!t->n || seg_at(t, t->n - 1)->b <= x))
		next_seg(p, t);
	/* the first segment that ends after x */
	for (hi = t->n; lo < hi;) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (seg_at(t, mid)->b <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->n)
		return t->done;
	sg = seg_at(t, lo);
	return sg->before + (sg->useful && sg->a < x ? x - sg->a : 0);
}

/* One C segment [@a, @b) of thread @tid: the others' useful time in it
 * into *@over. */
static void segment(struct sp *p, struct bth *th, uint32_t tid, uint64_t a,
		    uint64_t b, double *over)
{
	for (uint32_t t = 0; t < p->nt; t++) {
		const struct sth *st = &p->th[t];
		uint64_t ua;

		/* none of its life in [a, b): nothing to add */
		if (t == tid || !st->any || b <= st->first_wall ||
		    a >= st->last_wall)
			continue;
		ua = useful_before(p, &th[t], a);
		*over += (double)(useful_before(p, &th[t], b) - ua);
	}
}

int cp_stream_busy_measure(struct sp *p, double *busy)
{
	struct cp_spill *iv = cp_stream_sl_segments(p);
	struct bth *th;
	uint8_t *buf = NULL;
	size_t cap = 0;
	uint64_t on = 0;
	uint32_t nthreads = p->s->nthreads;	/* (figures() counted them) */
	double over = 0;
	int ret = 0;

	*busy = -1;
	if (nthreads < 2 || iv->fd < 0 || iv->err || cp_spill_flush(iv))
		return 0;
	th = calloc(p->nt, sizeof(*th));
	if (!th)
		return -1;
	for (uint32_t t = 0; t < p->nt; t++) {
		th[t].tid = t;
		cp_tcursor_init(&th[t].cur, p->ix, t, false);
	}
	for (uint32_t i = iv->nchunk; i-- > 0;) {
		const struct cp_spill_chunk *c = &iv->chunk[i];

		if (cp_spill_read(iv, i, &buf, &cap)) {
			ret = errno == ENOMEM ? -1 : 0;
			on = 0;
			break;
		}
		for (uint32_t r = c->nrec; r-- > 0;) {
			uint64_t tid, a, b;

			memcpy(&tid, buf + 24 * (size_t)r, 8);
			memcpy(&a, buf + 24 * (size_t)r + 8, 8);
			memcpy(&b, buf + 24 * (size_t)r + 16, 8);
			segment(p, th, (uint32_t)tid, a, b, &over);
			on += b - a;
		}
	}
	if (on)
		*busy = over / ((double)on * (double)(nthreads - 1));
	for (uint32_t t = 0; t < p->nt; t++)
		cp_tcursor_fini(&th[t].cur);
	free(th);
	free(buf);
	return ret;
}
