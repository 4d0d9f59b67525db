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
 * procedure, O(log BUSY_RING) for each thread alive then, found in a tree
 * of the threads' lives (O(log threads)).  Memory: 12 bytes a thread, and
 * for each thread the sweep has met and not yet passed a cursor and up to
 * BUSY_RING segments (8 KB), 4 to begin with: a short thread keeps few.
 * A thread whose life ended before the segment the sweep is at gives its
 * cursor back (swept(), every time the threads met have doubled), and one
 * a step back meets again starts from its first event: a program that
 * makes a thread per task keeps about the threads alive at once.
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

/* A thread in the sweep, from the first segment it is alive in. */
struct bth {
	struct cp_tcursor cur;
	uint32_t tid;
	bool any;		/* a vertex was read */
	bool ended;		/* ... and the last */
	bool evicted;		/* a segment left the ring */
	uint64_t pts, pwall;	/* the last vertex's clock and wall clock */
	uint64_t done;		/* useful wall time before the next segment */
	struct bseg *ring;	/* the last n segments, oldest at head; */
	uint32_t head, n, cap;	/* room for cap, doubling to BUSY_RING */
	bool nomem;		/* the ring could not grow */
};

/* The sweep's threads: those met, by thread id, and in a list. */
struct bsweep {
	struct bth **th;	/* [nt] or NULL: not met, or passed */
	uint32_t *met;		/* [nmet] the threads in th[] */
	uint32_t nmet, sweep_at;	/* sweep when nmet reaches sweep_at */
	struct cp_tpf_win *ahead;	/* the cursors read through it */
	bool nomem;
};

/* Thread @tid of the sweep, made when first met; NULL (sw->nomem) when
 * memory ran out. */
static struct bth *bth_get(struct sp *p, struct bsweep *sw, uint32_t tid)
{
	struct bth *t = sw->th[tid];

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (t) {
		t->tid = tid;
		t->cap = 4;
		t->ring = malloc(t->cap * sizeof(*t->ring));
	}
	if (!t || !t->ring) {
		free(t);
		sw->nomem = true;
		return NULL;
	}
	cp_tcursor_init(&t->cur, p->ix, tid, false);
	t->cur.ahead = sw->ahead;
	sw->th[tid] = t;
	sw->met[sw->nmet++] = tid;
	return t;
}

static void bth_free(struct bth *t)
{
	cp_tcursor_fini(&t->cur);
	free(t->ring);
	free(t);
}

/* The threads whose lives ended before @a, which the segments from @a on
 * do not visit (but for a step back, which makes them again), give their
 * cursors back; once the threads met have doubled since the last time. */
static void swept(struct sp *p, struct bsweep *sw, uint64_t a)
{
	uint32_t n = 0;

	if (sw->nmet < sw->sweep_at)
		return;
	for (uint32_t i = 0; i < sw->nmet; i++) {
		uint32_t tid = sw->met[i];

		if (p->th[tid].last_wall < a) {
			bth_free(sw->th[tid]);
			sw->th[tid] = NULL;
		} else {
			sw->met[n++] = tid;
		}
	}
	sw->nmet = n;
	sw->sweep_at = 2 * n > 64 ? 2 * n : 64;
}

/* From thread @t's first event again. */
static void restart(struct sp *p, struct bth *t)
{
	struct cp_tpf_win *ahead = t->cur.ahead;

	cp_tcursor_fini(&t->cur);
	cp_tcursor_init(&t->cur, p->ix, t->tid, false);
	t->cur.ahead = ahead;
	t->any = t->ended = t->evicted = false;
	t->done = 0;
	t->head = t->n = 0;
}

/* Room for more segments in @t's ring (the oldest first at 0); -1 when
 * it holds BUSY_RING (or memory ran out, t->nomem): the oldest goes. */
static int ring_grow(struct bth *t)
{
	uint32_t nc = 2 * t->cap;
	struct bseg *r;

	if (t->cap >= BUSY_RING || t->nomem)
		return -1;
	r = malloc(nc * sizeof(*r));
	if (!r) {
		t->nomem = true;
		return -1;
	}
	for (uint32_t j = 0; j < t->n; j++)
		r[j] = t->ring[(t->head + j) % t->cap];
	free(t->ring);
	t->ring = r;
	t->cap = nc;
	t->head = 0;
	return 0;
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
		if (t->n == t->cap && ring_grow(t)) {
			t->head = (t->head + 1) % t->cap;
			t->n--;
			t->evicted = true;
		}
		sg = &t->ring[(t->head + t->n++) % t->cap];
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
	return &t->ring[(t->head + j) % t->cap];
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

/*
 * The threads' lives [first_wall, last_wall] as a static interval tree,
 * so that a segment visits only the threads alive in it (a program that
 * ran 100,000 threads one after another made a scan of them all per
 * segment): the threads in order of their first vertex, each subtree an
 * index range [lo, hi) rooted at its middle, which keeps the latest end
 * in it.
 */
struct lives {
	uint32_t *tid;		/* [n] by first_wall */
	uint64_t *maxlast;	/* [n] at a subtree's root: its latest end */
	uint32_t n;
};

/* A thread's first vertex, for the sort. */
struct born {
	uint64_t at;
	uint32_t tid;
};

static int born_cmp(const void *x, const void *y)
{
	const struct born *a = x, *b = y;

	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static uint64_t lives_build(const struct sp *p, struct lives *lv,
			    uint32_t lo, uint32_t hi)
{
	uint32_t mid = lo + (hi - lo) / 2;
	uint64_t m, r;

	if (lo >= hi)
		return 0;
	m = p->th[lv->tid[mid]].last_wall;
	r = lives_build(p, lv, lo, mid);
	m = r > m ? r : m;
	r = lives_build(p, lv, mid + 1, hi);
	m = r > m ? r : m;
	lv->maxlast[mid] = m;
	return m;
}

/* The threads that have events, in a tree.  0, or -1 (memory). */
static int lives_init(const struct sp *p, struct lives *lv)
{
	size_t n = p->nt ? p->nt : 1;
	struct born *o = malloc(n * sizeof(*o));

	lv->n = 0;
	lv->tid = malloc(n * sizeof(*lv->tid));
	lv->maxlast = malloc(n * sizeof(*lv->maxlast));
	if (!o || !lv->tid || !lv->maxlast) {
		free(o);
		return -1;
	}
	for (uint32_t t = 0; t < p->nt; t++)
		if (p->th[t].any)
			o[lv->n++] = (struct born){ p->th[t].first_wall, t };
	qsort(o, lv->n, sizeof(*o), born_cmp);
	for (uint32_t i = 0; i < lv->n; i++)
		lv->tid[i] = o[i].tid;
	free(o);
	lives_build(p, lv, 0, lv->n);
	return 0;
}

static void lives_free(struct lives *lv)
{
	free(lv->tid);
	free(lv->maxlast);
}

/* One C segment [@a, @b) of thread @tid: the useful time in it of the
 * threads alive then in [@lo, @hi) of @lv, into *@over. */
static void segment(struct sp *p, struct bsweep *sw, const struct lives *lv,
		    uint32_t lo, uint32_t hi, uint32_t tid, uint64_t a,
		    uint64_t b, double *over)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2, t = lv->tid[mid];
		const struct sth *st = &p->th[t];
		uint64_t ua;

		/* none in [lo, hi) lives past a */
		if (lv->maxlast[mid] <= a)
			return;
		segment(p, sw, lv, lo, mid, tid, a, b, over);
		/* none from mid on is born before b */
		if (b <= st->first_wall)
			return;
		if (t != tid && a < st->last_wall) {
			struct bth *bt = bth_get(p, sw, t);

			if (!bt)
				return;
			ua = useful_before(p, bt, a);
			*over += (double)(useful_before(p, bt, b) - ua);
		}
		lo = mid + 1;
	}
}

int cp_stream_busy_measure(struct sp *p, double *busy)
{
	struct cp_spill *iv = cp_stream_sl_segments(p);
	struct bsweep sw = { .sweep_at = 64 };
	struct lives lv = { .n = 0 };
	uint8_t *buf = NULL;
	size_t cap = 0;
	uint64_t on = 0;
	uint32_t nthreads = p->s->nthreads;	/* (figures() counted them) */
	double over = 0;
	int ret = 0;

	*busy = -1;
	if (nthreads < 2 || iv->fd < 0 || iv->err || cp_spill_flush(iv))
		return 0;
	sw.th = calloc(p->nt ? p->nt : 1, sizeof(*sw.th));
	sw.met = malloc((p->nt ? p->nt : 1) * sizeof(*sw.met));
	sw.ahead = cp_tcursor_ahead_new();
	if (!sw.th || !sw.met || !sw.ahead || lives_init(p, &lv)) {
		ret = -1;
		goto out;
	}
	for (uint32_t i = iv->nchunk; i-- > 0 && !sw.nomem;) {
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
			swept(p, &sw, a);
			segment(p, &sw, &lv, 0, lv.n, (uint32_t)tid, a, b,
				&over);
			on += b - a;
		}
	}
	if (sw.nomem)
		ret = -1;
	if (on && !ret)
		*busy = over / ((double)on * (double)(nthreads - 1));
out:
	for (uint32_t i = 0; sw.th && i < sw.nmet; i++)
		bth_free(sw.th[sw.met[i]]);
	lives_free(&lv);
	free(sw.th);
	free(sw.met);
	cp_tcursor_ahead_free(sw.ahead);
	free(buf);
	return ret;
}
