/*
 * cp_timeline.c - the timeline's columns (cp_timeline.h).
 *
 * Column c covers [start(c), start(c + 1)), start(c) = t0 + floor(span *
 * c / W): whole nanoseconds, every instant of the run in exactly one
 * column, so a segment's time is split between its columns without
 * rounding and the sums are exact.
 */
#include "cp_timeline.h"

#include <stdlib.h>
#include <string.h>

#include "cp_grow.h"

int cp_timeline_init(struct cp_timeline *tl, uint32_t nrows, uint64_t t0,
		     uint64_t t1, uint32_t width)
{
	uint32_t w = width ? width : 1;

	memset(tl, 0, sizeof(*tl));
	tl->t0 = t0;
	tl->t1 = t1 > t0 ? t1 : t0;
	tl->width = w;
	tl->nrows = nrows;
	tl->rows = calloc(nrows ? nrows : 1, sizeof(*tl->rows));
	tl->cp_best = malloc(w * sizeof(*tl->cp_best));
	tl->cp_run = malloc(w * sizeof(*tl->cp_run));
	tl->cp_best_ns = calloc(w, sizeof(*tl->cp_best_ns));
	tl->cp_run_ns = calloc(w, sizeof(*tl->cp_run_ns));
	if (!tl->rows || !tl->cp_best || !tl->cp_run || !tl->cp_best_ns ||
	    !tl->cp_run_ns) {
		cp_timeline_free(tl);
		return -1;
	}
	for (uint32_t c = 0; c < w; c++)
		tl->cp_best[c] = tl->cp_run[c] = CP_TL_NONE;
	return 0;
}

void cp_timeline_free(struct cp_timeline *tl)
{
	for (uint32_t i = 0; tl->rows && i < tl->nrows; i++)
		free(tl->rows[i].c);
	free(tl->rows);
	free(tl->cp_best);
	free(tl->cp_run);
	free(tl->cp_best_ns);
	free(tl->cp_run_ns);
	memset(tl, 0, sizeof(*tl));
}

uint64_t cp_timeline_col_start(const struct cp_timeline *tl, uint32_t c)
{
	unsigned __int128 x = (unsigned __int128)(tl->t1 - tl->t0) * c;

	return tl->t0 + (uint64_t)(x / tl->width);
}

/* The column holding wall clock @a (t0 <= a < t1). */
static uint32_t col_of(const struct cp_timeline *tl, uint64_t a)
{
	unsigned __int128 x = (unsigned __int128)(a - tl->t0) * tl->width;
	uint32_t c = (uint32_t)(x / (tl->t1 - tl->t0));

	/* floor(span * (c + 1) / W) may still be <= a - t0 */
	while (c + 1 < tl->width && cp_timeline_col_start(tl, c + 1) <= a)
		c++;
	return c;
}

/*
 * Run @body for each column @c that [@a, @b) spends time in, @ns the
 * time (columns of no width, when the run is shorter than W ns, get
 * none); the segment is clipped to [t0, t1).
 */
#define FOR_COLUMNS(tl, a, b, c, ns, body)				\
	do {								\
		uint64_t lo_ = (a) > (tl)->t0 ? (a) : (tl)->t0;		\
		uint64_t hi_ = (b) < (tl)->t1 ? (b) : (tl)->t1;		\
									\
		if (lo_ >= hi_)						\
			break;						\
		for (uint32_t c = col_of(tl, lo_); c < (tl)->width;	\
		     c++) {						\
			uint64_t s_ = cp_timeline_col_start(tl, c);	\
			uint64_t e_ = cp_timeline_col_start(tl, c + 1);	\
			uint64_t ns;					\
									\
			if (s_ >= hi_)					\
				break;					\
			ns = (hi_ < e_ ? hi_ : e_) - (lo_ > s_ ? lo_ : s_); \
			if (ns)						\
				body;					\
		}							\
	} while (0)

void cp_timeline_vertex(struct cp_timeline *tl, uint32_t tid, uint64_t wall)
{
	struct cp_tl_row *r;

	if (tid >= tl->nrows)
		return;
	r = &tl->rows[tid];
	if (!r->any || wall < r->first)
		r->first = wall;
	if (!r->any || wall > r->last)
		r->last = wall;
	r->any = true;
}

/* Add @ns to @r's cell (@col, @key): the cells of one column are at the
 * end of the row, the segments coming in time order. */
static void add(struct cp_timeline *tl, struct cp_tl_row *r, uint32_t col,
		uint32_t key, uint64_t ns)
{
	for (uint32_t i = r->n; i-- > 0 && r->c[i].col == col;)
		if (r->c[i].key == key) {
			r->c[i].ns += ns;
			return;
		}
	/* most rows are short (a thread per task) */
	if (cp_grow32_short((void **)&r->c, sizeof(*r->c), &r->cap,
			    (uint64_t)r->n + 1)) {
		tl->nomem = true;
		return;
	}
	r->c[r->n++] = (struct cp_tl_cell){ col, key, ns };
}

void cp_timeline_seg(struct cp_timeline *tl, uint32_t tid, uint64_t a,
		     uint64_t b, uint32_t key)
{
	if (tid >= tl->nrows)
		return;
	FOR_COLUMNS(tl, a, b, c, ns, add(tl, &tl->rows[tid], c, key, ns));
}

void cp_timeline_clear_rows(struct cp_timeline *tl)
{
	for (uint32_t i = 0; i < tl->nrows; i++)
		tl->rows[i].n = 0;
}

/* Column @c's stretch of thread @tid grows by @ns. */
static void cp_add(struct cp_timeline *tl, uint32_t c, uint32_t tid,
		   uint64_t ns)
{
	if (tl->cp_run[c] != tid) {	/* a new stretch */
		tl->cp_run[c] = tid;
		tl->cp_run_ns[c] = 0;
	}
	tl->cp_run_ns[c] += ns;
	/* last first: a tie goes to the stretch that comes earlier */
	if (tl->cp_run_ns[c] >= tl->cp_best_ns[c]) {
		tl->cp_best_ns[c] = tl->cp_run_ns[c];
		tl->cp_best[c] = tid;
	}
}

void cp_timeline_cp(struct cp_timeline *tl, uint32_t tid, uint64_t a,
		    uint64_t b)
{
	FOR_COLUMNS(tl, a, b, c, ns, cp_add(tl, c, tid, ns));
}

void cp_timeline_rename(struct cp_timeline *tl, const uint32_t *ren,
			uint32_t nren)
{
	for (uint32_t i = 0; i < tl->nrows; i++)
		for (uint32_t j = 0; j < tl->rows[i].n; j++) {
			struct cp_tl_cell *c = &tl->rows[i].c[j];

			if (c->key < nren)
				c->key = ren[c->key];
		}
}
