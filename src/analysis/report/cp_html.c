/*
 * cp_html.c - the HTML report.
 *
 * One file, no network: the stylesheet, the script and the timeline (an
 * SVG) are written inline, so the report can be mailed or attached to a
 * bug and still open.  The stylesheet and scripts are files in assets/,
 * compiled in (cp_html_assets.h).  Every dynamic string goes through cp_wbuf_html().
 *
 * The timeline.  Each thread is a row; the run [first event, last event]
 * is W pixel columns (cp_timeline.h, computed by the caller).  A column
 * of a row takes the colour of whatever the thread spent most of that
 * column's time on: one of the eight procedures with the most exclusive
 * time on the critical path, any other procedure, code outside
 * procedures, or waiting; columns with the same colour merge into one
 * rectangle (with a tooltip).  So a row costs O(W) and the picture at
 * most W rectangles per row, whatever the trace's size.  Past
 * MAX_THREAD_ROWS threads (a thread per task), the threads the critical
 * path runs on longest and then the busiest have a row each and the
 * others share one, coloured by their time summed: the page stays a few
 * hundred kilobytes.  The critical path is a band under the row of the
 * thread it runs on longest in each column, with connectors where it
 * changes rows: O(W) too.
 *
 * The near-critical paths (cp_kpaths.h) and the what-if of the top
 * procedures (cp_whatif_top.h) come computed; each path is summarized by
 * where its time differs from the critical path: its useful time off the
 * CP, by thread and procedure.  A streamed profile's paths are implicit
 * (cp_stream.h): each is said as the path it leaves and where
 * (cp_paths_stream_dev), and a note lists what the streamed figures
 * leave out (cp_stream_out_note).
 */
#include "cp_html.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp_compare_out.h"
#include "cp_html_assets.h"
#include "cp_paths_out.h"
#include "cp_report_out.h"
#include "cp_sampled_out.h"
#include "cp_stream_out.h"
#include "cp_version.h"
#include "cp_wall.h"
#include "cp_wbuf.h"

#define NTOP		8		/* coloured procedures */
#define CAT_OTHER	NTOP		/* another procedure */
#define CAT_NOPROC	(NTOP + 1)	/* outside procedures */
#define CAT_WAIT	(NTOP + 2)	/* waiting */
#define NCAT		(NTOP + 3)
#define LABEL_W		130		/* timeline: label column */
#define MAX_THREAD_ROWS	256		/* threads shown one by one */
#define AXIS_H		26		/* timeline: axis band */

static const char *const palette[NCAT] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948",
	"#9c755f", "#ff9da7", "#bab0ac", "#dcdcdc", "url(#hatch)",
};

struct html {
	struct cp_wbuf *w;
	const struct cp_profile *p;
	const struct cp_compare *c;
	const struct cp_kpaths *kp;	/* the near-critical paths, or */
	const struct cp_stream *s;	/* (streamed) theirs */
	const struct cp_whatif_top *wt;	/* the top procedures' what-if */
	const struct cp_tracepag *tp;	/* the graph, or NULL: streamed */
	const struct cp_trace *t;
	const struct cp_html_opts *o;
	uint32_t top[NTOP];	/* procedure ids of the coloured ones */
	uint32_t ntop;
	uint32_t nkeys;		/* procedure ids */
	uint32_t *cat_of;	/* [nkeys] category of a procedure */
	const struct cp_timeline *tl;
	uint8_t *shown;		/* [tl->nrows] a thread with a row of its
				 * own (select_threads) */
	uint32_t nhidden;	/* threads that share the last row */
};

static void S(struct html *h, const char *s)
{
	cp_wbuf_str(h->w, s);
}

static void E(struct html *h, const char *s)
{
	cp_wbuf_html(h->w, s ? s : "");
}

/* cp_fmt_ns() with the microsecond sign. */
static void fmt_ns(char *buf, size_t len, uint64_t ns)
{
	cp_fmt_ns_as(buf, len, ns, "µs");
}

/* "<td data-v=NS>TIME</td>" */
static void td_ns(struct html *h, uint64_t ns)
{
	char b[32];

	fmt_ns(b, sizeof(b), ns);
	cp_wbuf_printf(h->w, "<td data-v=\"%" PRIu64 "\">%s</td>", ns, b);
}

static void td_pct(struct html *h, double pct)
{
	cp_wbuf_printf(h->w, "<td data-v=\"%.4f\" class=\"pct\">%.1f%%</td>",
		       pct, pct);
}

/* A percentage with a bar under it. */
static void td_bar(struct html *h, double pct, const char *cls)
{
	double w = pct < 0 ? 0 : pct > 100 ? 100 : pct;

	cp_wbuf_printf(h->w, "<td data-v=\"%.4f\" class=\"pct\">%.1f%%"
		       "<div class=\"bar %s\"><span style=\"width:%.1f%%\">"
		       "</span></div></td>", pct, pct, cls, w);
}

static void td_none(struct html *h)
{
	S(h, "<td data-v=\"-1\" class=\"none\">–</td>");
}

static void thread_label(const struct cp_trace *t, uint32_t tid, char *buf,
			 size_t len)
{
	const char *n = t->threads[tid].name;

	snprintf(buf, len, "T%" PRIu32 "%s%s", tid, n && *n ? " " : "",
		 n ? n : "");
}

/* ---- timeline ------------------------------------------------------- */

static double xpos(const struct html *h, uint64_t wall)
{
	const struct cp_timeline *tl = h->tl;
	double span = (double)(tl->t1 - tl->t0);

	if (span <= 0)
		return LABEL_W;
	return LABEL_W + (double)(wall - tl->t0) * tl->width / span;
}

/* The name of procedure @id of the profile's key space. */
static const char *proc_id_name(const struct html *h, uint32_t id)
{
	if (id == CP_PAG_NONE)
		return "(outside procedures)";
	return h->tp ? cp_tracepag_proc_name(h->tp, id) : h->p->procs[id].name;
}

static const char *cat_name(const struct html *h, uint32_t cat)
{
	if (cat < NTOP)
		return proc_id_name(h, h->top[cat]);
	return cat == CAT_OTHER ? "other procedures" :
	       cat == CAT_NOPROC ? "outside procedures" : "waiting";
}

/* The category of timeline key @key (cp_timeline.h). */
static uint32_t key_cat(const struct html *h, uint32_t key)
{
	if (key == CP_TL_WAIT)
		return CAT_WAIT;
	if (key >= h->nkeys)
		return CAT_NOPROC;
	return h->cat_of[key];
}

/* Nice tick step (1, 2, 5 x 10^k ns) for about @n ticks over @span.
 * Divisions, not products: a damaged trace's span near 2^64 made
 * s * 10 * n wrap and the loop never end (found by fuzz_trace). */
static uint64_t tick_step(uint64_t span, unsigned n)
{
	uint64_t s = 1;

	while (s <= span / n / 10)
		s *= 10;
	if (s <= span / n / 5)
		return s * 5;
	if (s <= span / n / 2)
		return s * 2;
	return s;
}

static void axis(struct html *h, uint32_t height)
{
	uint64_t span = h->tl->t1 - h->tl->t0;
	uint64_t step = tick_step(span ? span : 1, 10);
	char b[32];

	S(h, "<g class=\"axis\">");
	for (uint64_t v = 0; v <= span; v += step) {
		double x = xpos(h, h->tl->t0 + v);

		fmt_ns(b, sizeof(b), v);
		cp_wbuf_printf(h->w, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" "
			       "y2=\"%" PRIu32 "\"/><text x=\"%.1f\" y=\"14\" "
			       "text-anchor=\"middle\">%s</text>", x, x,
			       AXIS_H - 6, height, x, b);
		if (step > span - v)
			break;
	}
	S(h, "</g>\n");
}

/* One rectangle of the row labelled @lab: columns [@c0, @c1) of @cat. */
static void rect(struct html *h, const char *lab, double y, double rh,
		 uint32_t c0, uint32_t c1, uint32_t cat)
{
	const struct cp_timeline *tl = h->tl;
	char b1[32], b2[32];

	fmt_ns(b1, sizeof(b1), cp_timeline_col_start(tl, c0) - tl->t0);
	fmt_ns(b2, sizeof(b2), cp_timeline_col_start(tl, c1) - tl->t0);
	cp_wbuf_printf(h->w, "<rect class=\"seg c%u\" x=\"%u\" y=\"%.1f\" "
		       "width=\"%u\" height=\"%.1f\" fill=\"%s\"><title>",
		       cat, LABEL_W + c0, y + 1, c1 - c0, rh > 3 ? rh - 2 : rh,
		       palette[cat]);
	E(h, lab);
	S(h, ": ");
	E(h, cat_name(h, cat));
	cp_wbuf_printf(h->w, ", %s – %s</title></rect>", b1, b2);
}

/* Thread @tid's time per column and category added into @acc[W]. */
static void row_add(const struct html *h, uint32_t tid, uint64_t (*acc)[NCAT])
{
	const struct cp_tl_row *r = &h->tl->rows[tid];

	for (uint32_t i = 0; i < r->n; i++)
		acc[r->c[i].col][key_cat(h, r->c[i].key)] += r->c[i].ns;
}

/*
 * A row of the timeline from its time per column and category @acc: each
 * column takes the category with the most time (of equal ones, the first
 * in category order), and a run of adjacent columns of one category is
 * one rectangle.
 */
static void row(struct html *h, const char *lab, double y, double rh,
		const uint64_t (*acc)[NCAT])
{
	uint32_t W = h->tl->width, c0 = 0, cur = NCAT;	/* NCAT: none */

	for (uint32_t c = 0; c <= W; c++) {
		uint32_t best = NCAT;
		uint64_t bv = 0;

		for (uint32_t k = 0; c < W && k < NCAT; k++)
			if (acc[c][k] > bv) {
				bv = acc[c][k];
				best = k;
			}
		if (c < W && best == cur)
			continue;
		if (cur != NCAT)
			rect(h, lab, y, rh, c0, c, cur);
		cur = best;
		c0 = c;
	}
	S(h, "\n");
}

/*
 * The critical path over the rows: in each pixel column the thread where
 * the path spends the longest stretch of that column; a red band along
 * the bottom of that thread's row, and thin connectors where it changes
 * rows, unless it does so in more than a quarter of the columns (then the
 * connectors would only smear the picture; the bands still show it).
 */
static void cp_overlay(struct html *h, const double *ymid, double rh)
{
	const uint32_t *best = h->tl->cp_best;
	uint32_t W = h->tl->width, hops = 0, last = CP_TL_NONE;
	double bh = rh >= 10 ? 4 : rh >= 4 ? 2 : 1;

	for (uint32_t c = 0; c < W; c++)
		if (best[c] != CP_TL_NONE) {
			hops += last != CP_TL_NONE && best[c] != last;
			last = best[c];
		}
	/* bands, one run of columns at a time */
	for (uint32_t c = 0; c < W;) {
		uint32_t c1 = c + 1;

		if (best[c] == CP_TL_NONE) {
			c++;
			continue;
		}
		while (c1 < W && best[c1] == best[c])
			c1++;
		cp_wbuf_printf(h->w, "<rect class=\"cp\" x=\"%u\" y=\"%.1f\" "
			       "width=\"%u\" height=\"%.1f\"/>", LABEL_W + c,
			       ymid[best[c]] + rh / 2 - bh, c1 - c, bh);
		c = c1;
	}
	if (hops && hops <= W / 4) {
		last = CP_TL_NONE;
		S(h, "<polyline class=\"cp hop\" points=\"");
		for (uint32_t c = 0; c < W; c++) {
			if (best[c] == CP_TL_NONE || best[c] == last)
				continue;
			if (last != CP_TL_NONE)
				cp_wbuf_printf(h->w, " %u,%.1f %u,%.1f",
					       LABEL_W + c,
					       ymid[last] + rh / 2 - bh / 2,
					       LABEL_W + c,
					       ymid[best[c]] + rh / 2 - bh / 2);
			last = best[c];
		}
		S(h, "\"/>");
	}
	cp_wbuf_printf(h->w, "\n<!-- critical path: %u changes of thread -->\n",
		       hops);
}

/* The timeline's legend: the colours, the critical path and its toggle. */
static void legend(struct html *h)
{
	S(h, "<div class=\"legend\">");
	for (uint32_t k = 0; k < NCAT; k++) {
		if (k < NTOP && k >= h->ntop)
			continue;
		cp_wbuf_printf(h->w, "<span><span class=\"swatch\" style=\""
			       "background:%s\"></span>",
			       k == CAT_WAIT ?
			       "repeating-linear-gradient(45deg,#fbeaea 0 3px,"
			       "#e8a0a0 3px 5px)" : palette[k]);
		E(h, cat_name(h, k));
		S(h, "</span>");
	}
	S(h, "<span><span class=\"swatch\" style=\"background:var(--cp)\">"
	     "</span>critical path</span>"
	     "<label class=\"toggle\"><input type=\"checkbox\" id=\"showcp\" "
	     "checked> show the critical path</label></div>\n"
	     "<p class=\"hint\">Each row is a thread over the wall clock; a "
	     "column shows what the thread spent most of it on (the procedures "
	     "with the most exclusive time on the critical path have their "
	     "own colours). The red band under a row marks where the critical "
	     "path runs on that thread; the thin red lines show it passing "
	     "from one thread to another, where one released what the other "
	     "was waiting for. "
	     "Hover a rectangle for details, or a table row to highlight its "
	     "procedure.</p>\n");
}

/* A row's label at the left of the timeline, when the rows are tall
 * enough. */
static void row_label(struct html *h, double ymid, double rh,
		      const char *lab)
{
	if (rh < 10)
		return;
	cp_wbuf_printf(h->w, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
		       LABEL_W - 6, ymid + 4);
	E(h, lab);
	S(h, "</text>");
}

static int timeline(struct html *h)
{
	const struct cp_timeline *tl = h->tl;
	uint32_t nrows = h->nhidden ? 1 : 0, W = tl->width, r = 0;
	double rh, yother = 0;
	double *ymid = calloc(tl->nrows ? tl->nrows : 1, sizeof(*ymid));
	uint64_t (*acc)[NCAT] = malloc(sizeof(*acc) * W);
	uint32_t height;
	char lab[96];

	if (!ymid || !acc) {
		free(ymid);
		free(acc);
		return -1;
	}
	for (uint32_t tid = 0; tid < tl->nrows; tid++)
		nrows += h->shown[tid];
	rh = nrows <= 24 ? 22 : nrows <= 64 ? 12 : nrows <= 256 ? 5 : 2;
	height = AXIS_H + (uint32_t)ceil(rh * nrows) + 6;
	/* inline SVG in HTML needs no xmlns: the page names no URL */
	cp_wbuf_printf(h->w, "<div class=\"tlwrap\"><svg id=\"timeline\" "
		       "width=\"%u\" "
		       "height=\"%u\" viewBox=\"0 0 %u %u\" role=\"img\">"
		       "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" "
		       "patternUnits=\"userSpaceOnUse\" patternTransform="
		       "\"rotate(45)\"><rect width=\"6\" height=\"6\" "
		       "fill=\"#fbeaea\"/><line x1=\"0\" y1=\"0\" x2=\"0\" "
		       "y2=\"6\" stroke=\"#e8a0a0\" stroke-width=\"2\"/>"
		       "</pattern></defs>\n", LABEL_W + W + 40, height,
		       LABEL_W + W + 40, height);
	axis(h, height);
	if (h->nhidden)		/* the threads not shown: the last row */
		yother = AXIS_H + (nrows - 1) * rh + rh / 2;
	for (uint32_t tid = 0; tid < tl->nrows; tid++) {
		const struct cp_tl_row *tr = &tl->rows[tid];
		double top = AXIS_H + r * rh;

		if (!h->shown[tid]) {
			ymid[tid] = yother;
			continue;
		}
		ymid[tid] = top + rh / 2;
		thread_label(h->t, tid, lab, sizeof(lab));
		row_label(h, ymid[tid], rh, lab);
		cp_wbuf_printf(h->w, "<line class=\"rail\" x1=\"%.1f\" "
			       "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
			       xpos(h, tr->first), xpos(h, tr->last),
			       ymid[tid], ymid[tid]);
		memset(acc, 0, sizeof(*acc) * W);
		row_add(h, tid, acc);
		row(h, lab, top, rh, (const uint64_t (*)[NCAT])acc);
		r++;
	}
	if (h->nhidden) {
		snprintf(lab, sizeof(lab), "%u other threads", h->nhidden);
		row_label(h, yother, rh, lab);
		memset(acc, 0, sizeof(*acc) * W);
		for (uint32_t tid = 0; tid < tl->nrows; tid++)
			if (tl->rows[tid].any && !h->shown[tid])
				row_add(h, tid, acc);
		row(h, lab, yother - rh / 2, rh, (const uint64_t (*)[NCAT])acc);
	}
	cp_overlay(h, ymid, rh);
	S(h, "</svg></div>\n");
	legend(h);
	if (h->nhidden)
		cp_wbuf_printf(h->w, "<p class=\"hint\">%u threads have a row "
			       "each: those the critical path runs on longest "
			       "here, then those with the most CPU time; the "
			       "other %u share the last row, each column "
			       "coloured by what they spent most of it on "
			       "together.</p>\n",
			       MAX_THREAD_ROWS - 1, h->nhidden);
	if (!tl->has_cp)
		S(h, "<div class=\"note\">The critical path is not drawn: the "
		     "scratch file it is walked back from could not be written "
		     "(the note above says why).</div>\n");
	free(ymid);
	free(acc);
	return 0;
}

/* Ranking of the threads for a row of their own: the timeline's
 * critical path on them, their CPU time. */
struct trank {
	uint64_t cp, useful;
	uint32_t tid;
};

static int cmp_trank(const void *a, const void *b)
{
	const struct trank *x = a, *y = b;

	if (x->cp != y->cp)
		return x->cp < y->cp ? 1 : -1;
	if (x->useful != y->useful)
		return x->useful < y->useful ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * The threads the timeline and the threads table show one by one
 * (h->shown): all that ran when they are MAX_THREAD_ROWS at most, else
 * the MAX_THREAD_ROWS - 1 that hold the most of the timeline's critical
 * path (its longest stretch in each column), then the most CPU time; the
 * other h->nhidden share a row.  Both are known alike in memory and
 * streamed, so both pages show the same threads.  0, or -1 (memory).
 */
static int select_threads(struct html *h)
{
	const struct cp_timeline *tl = h->tl;
	const struct cp_profile *p = h->p;
	struct trank *v;
	uint32_t n = 0;

	h->shown = calloc(tl->nrows ? tl->nrows : 1, 1);
	if (!h->shown)
		return -1;
	for (uint32_t tid = 0; tid < tl->nrows; tid++)
		n += tl->rows[tid].any;
	if (n <= MAX_THREAD_ROWS) {
		for (uint32_t tid = 0; tid < tl->nrows; tid++)
			h->shown[tid] = tl->rows[tid].any;
		return 0;
	}
	v = calloc(tl->nrows, sizeof(*v));
	if (!v)
		return -1;
	for (uint32_t tid = 0; tid < tl->nrows; tid++) {
		v[tid].tid = tid;
		v[tid].useful = tid < p->nthreads_all ?
				p->threads[tid].useful_ns : 0;
	}
	for (uint32_t c = 0; c < tl->width; c++)
		if (tl->cp_best[c] < tl->nrows)
			v[tl->cp_best[c]].cp += tl->cp_best_ns[c];
	n = 0;
	for (uint32_t tid = 0; tid < tl->nrows; tid++)
		if (tl->rows[tid].any)
			v[n++] = v[tid];
	qsort(v, n, sizeof(*v), cmp_trank);
	for (uint32_t i = 0; i < MAX_THREAD_ROWS - 1; i++)
		h->shown[v[i].tid] = 1;
	h->nhidden = n - (MAX_THREAD_ROWS - 1);
	free(v);
	return 0;
}

/* ---- tables ----------------------------------------------------------- */

static void card(struct html *h, const char *k, const char *v,
		 const char *d)
{
	S(h, "<div class=\"card\"><div class=\"k\">");
	E(h, k);
	S(h, "</div><div class=\"v\">");
	E(h, v);
	S(h, "</div><div class=\"d\">");
	E(h, d);
	S(h, "</div></div>");
}

static void summary(struct html *h)
{
	const struct cp_profile *p = h->p;
	char v[64], d[128];

	S(h, "<section class=\"cards\" id=\"summary\">");
	fmt_ns(v, sizeof(v), p->cp_len);
	snprintf(d, sizeof(d), "%.1f%% of the elapsed time",
		 cp_pct(p->cp_len, p->elapsed_ns));
	card(h, "critical path", v, d);
	fmt_ns(v, sizeof(v), p->elapsed_ns);
	snprintf(d, sizeof(d), "%" PRIu32 " thread%s", p->nthreads,
		 p->nthreads == 1 ? "" : "s");
	card(h, "elapsed", v, d);
	fmt_ns(v, sizeof(v), p->useful_ns);
	card(h, "useful (CPU) time", v, h->t->clock == CP_CLOCK_CPU ?
	     "per-thread CPU clock" : "wall clock minus waits");
	fmt_ns(v, sizeof(v), p->wait_ns);
	snprintf(d, sizeof(d), "%.1f%% of thread time",
		 cp_pct(p->wait_ns, p->wait_ns + p->useful_ns));
	card(h, "waiting", v, d);
	snprintf(v, sizeof(v), "%.2f", p->parallelism);
	card(h, "parallelism", v, "CPU time / elapsed");
	snprintf(v, sizeof(v), "%.2f", p->max_parallelism);
	card(h, "max parallelism", v, "CPU time / critical path");
	S(h, "</section>\n");
}

static void rank_badge(struct html *h, const struct cp_cmp_row *r)
{
	if (!r->disagree)
		return;
	cp_wbuf_printf(h->w, "<span class=\"badge %s\" title=\"critical-path "
		       "rank %u, CPU rank %u\">%s</span>",
		       r->disagree > 0 ? "up" : "down", r->cp_rank,
		       r->cpu_rank, r->disagree > 0 ? "▲ CP" : "▼ CP");
}

/* The procedure's name cell, with its timeline colour and rank badge. */
static void proc_name(struct html *h, const struct cp_cmp_row *r)
{
	const struct cp_proc_prof *pp = r->pp;
	int cat = -1;

	if (pp && pp->proc < h->nkeys && h->cat_of[pp->proc] < NTOP)
		cat = (int)h->cat_of[pp->proc];
	S(h, "<tr");
	if (r->disagree)
		S(h, " class=\"disagree\"");
	if (cat >= 0)
		cp_wbuf_printf(h->w, " data-p=\"%d\"", cat);
	else
		S(h, " data-p=\"\"");
	S(h, "><td class=\"name\" title=\"");
	E(h, r->name);
	S(h, "\">");
	if (cat >= 0)
		cp_wbuf_printf(h->w, "<span class=\"swatch\" style=\""
			       "background:%s\"></span>", palette[cat]);
	E(h, r->name);
	rank_badge(h, r);
	S(h, "</td>");
}

/* gprof, CPU, CP, zeroing, Slack and MBM cells of row @r. */
static void proc_figures(struct html *h, const struct cp_cmp_row *r,
			 bool g)
{
	const struct cp_profile *p = h->p;
	const struct cp_proc_prof *pp = r->pp;
	bool comp = pp && pp->computed;

	if (g) {
		if (r->gp) {
			td_ns(h, r->gp->self_ns);
			td_pct(h, r->gp->pct);
		} else {
			td_none(h);
			td_none(h);
		}
	}
	if (pp) {
		td_ns(h, pp->cpu_ns);
		td_bar(h, cp_pct(pp->cpu_ns, p->useful_ns), "");
	}
	if (pp && !pp->cp_unknown) {
		td_ns(h, pp->cp_ns);
		td_bar(h, r->cp_pct, "cp");
	} else if (pp) {
		td_none(h);
		td_none(h);
	} else {
		for (int k = 0; k < 4; k++)
			td_none(h);
	}
	if (comp) {
		td_ns(h, pp->zero_ns);
		td_pct(h, cp_pct(pp->zero_ns, p->cp_len));
		td_ns(h, pp->slack_ns);
		td_pct(h, cp_pct(pp->slack_ns, p->cp_len));
		td_ns(h, pp->mbm_ns);
		td_pct(h, cp_pct(pp->mbm_ns, p->cp_len));
	} else {
		for (int k = 0; k < 6; k++)
			td_none(h);
	}
}

/* The calls (or samples) and rank cells of row @r, closing it. */
static void proc_counts(struct html *h, const struct cp_cmp_row *r)
{
	const struct cp_profile *p = h->p;
	const struct cp_proc_prof *pp = r->pp;

	if (pp && p->sampled)
		cp_wbuf_printf(h->w, "<td data-v=\"%" PRIu64 "\">%"
			       PRIu64 "/%" PRIu64 "%s</td>",
			       pp->samples, pp->samples, pp->cp_samples,
			       cp_compare_thin(p, pp) ? " (thin)" : "");
	else if (pp)
		cp_wbuf_printf(h->w, "<td data-v=\"%" PRIu64 "\">%"
			       PRIu64 "</td>", pp->calls, pp->calls);
	else if (r->gp && r->gp->has_calls)
		cp_wbuf_printf(h->w, "<td data-v=\"%" PRIu64 "\">%"
			       PRIu64 "</td>", r->gp->calls,
			       r->gp->calls);
	else
		td_none(h);
	cp_wbuf_printf(h->w, "<td data-v=\"%u\">", r->cp_rank);
	if (r->cp_rank == CP_COMPARE_NORANK)
		S(h, "–");
	else
		cp_wbuf_printf(h->w, "%u", r->cp_rank);
	S(h, " / ");
	if (r->cpu_rank == CP_COMPARE_NORANK)
		S(h, "–");
	else
		cp_wbuf_printf(h->w, "%u", r->cpu_rank);
	S(h, "</td></tr>\n");
}

static void procedures(struct html *h)
{
	const struct cp_compare *c = h->c;
	const struct cp_profile *p = h->p;
	uint32_t max = h->o->max_rows ? h->o->max_rows : 60;
	uint32_t rows = c->n < max ? c->n : max;
	bool g = c->gp != NULL;

	S(h, "<h2>Procedures: CPU profile vs critical path</h2>\n");
	if (!c->n) {
		char why[400];

		S(h, "<p>No procedure activity in this trace: ");
		E(h, cp_sampled_out_none(h->t, why, sizeof(why)));
		S(h, ".</p><table id=\"procs\" class=\"sortable\"><thead><tr>"
		     "<th class=\"name\">procedure</th></tr></thead><tbody>"
		     "</tbody></table>\n");
		return;
	}
	S(h, "<div class=\"twrap\"><table id=\"procs\" class=\"sortable\">"
	     "<thead><tr><th class=\"name\">procedure</th>");
	if (g)
		S(h, "<th>gprof self</th><th>%</th>");
	cp_wbuf_printf(h->w, "<th>CPU</th><th>%%</th><th>critical path</th>"
		       "<th>%%</th><th>CP zeroing</th><th>%%</th><th>Slack</th>"
		       "<th>%%</th><th>MBM (k=%u)</th><th>%%</th><th>%s</th>"
		       "<th>rank CP / CPU</th></tr></thead><tbody>\n",
		       p->npaths, p->sampled ? "samples CPU/CP" : "calls");
	for (uint32_t i = 0; i < rows; i++) {
		proc_name(h, &c->rows[i]);
		proc_figures(h, &c->rows[i], g);
		proc_counts(h, &c->rows[i]);
	}
	S(h, "</tbody></table></div>\n<p class=\"hint\">");
	if (rows < c->n)
		cp_wbuf_printf(h->w, "%u more procedures not shown. ",
			       c->n - rows);
	cp_wbuf_printf(h->w, "Times are %s of callees. CPU %% is of all CPU "
		       "time%s, the other %% of the critical path. CP zeroing: "
		       "how much shorter the run gets if the procedure took "
		       "no time; Slack: the improvement guaranteed; MBM: the "
		       "most the %u longest paths allow. "
		       "<span class=\"badge up\">▲ CP</span> the critical "
		       "path ranks the procedure higher than the CPU profile "
		       "does, <span class=\"badge down\">▼ CP</span> lower. "
		       "Click a "
		       "column to sort.</p>\n",
		       p->exclusive ? "exclusive" : "inclusive",
		       g ? " (gprof: of its samples)" : "", p->npaths);
}

static void threads(struct html *h)
{
	const struct cp_profile *p = h->p;
	char lab[96];

	S(h, "<h2>Threads</h2>\n<div class=\"twrap\">"
	     "<table id=\"threads\" class=\"sortable\">"
	     "<thead><tr><th class=\"name\">thread</th><th>elapsed</th>"
	     "<th>useful</th><th>waiting</th><th>utilization</th>"
	     "<th>on the critical path</th><th>% of CP</th><th>longest path "
	     "to its end</th><th>calls</th></tr></thead><tbody>\n");
	for (uint32_t i = 0; i < p->nthreads_all; i++) {
		const struct cp_thread_prof *th = &p->threads[i];

		if (!th->nv || (i < h->tl->nrows && !h->shown[i]))
			continue;
		thread_label(h->t, th->tid, lab, sizeof(lab));
		cp_wbuf_printf(h->w, "<tr data-p=\"\"><td class=\"name\" "
			       "data-v=\"%u\">", th->tid);
		E(h, lab);
		S(h, "</td>");
		td_ns(h, th->elapsed_ns);
		td_ns(h, th->useful_ns);
		td_ns(h, th->wait_ns);
		td_bar(h, cp_pct(th->useful_ns, th->elapsed_ns), "");
		if (th->cp_unknown) {	/* streamed, not followed */
			td_none(h);
			td_none(h);
		} else {
			td_ns(h, th->cp_ns);
			td_bar(h, cp_pct(th->cp_ns, p->cp_len), "cp");
		}
		td_ns(h, th->len_ns);
		cp_wbuf_printf(h->w, "<td data-v=\"%" PRIu64 "\">%" PRIu64
			       "</td></tr>\n", th->calls, th->calls);
	}
	S(h, "</tbody></table></div>\n");
	if (h->nhidden)
		cp_wbuf_printf(h->w, "<p class=\"hint\">%u more threads not "
			       "shown: those of the timeline's last row.</p>\n",
			       h->nhidden);
}

/* qsort of pointers by cp_profile_obj_cmp(). */
static int cmp_objs(const void *a, const void *b)
{
	return cp_profile_obj_cmp(*(const struct cp_obj_prof *const *)a,
				  *(const struct cp_obj_prof *const *)b);
}

static int objects(struct html *h)
{
	const struct cp_profile *p = h->p;
	const struct cp_obj_prof **v;
	uint32_t n = 0, shown = 0;
	char nm[64], site[CP_REPORT_SITE_LEN];

	v = malloc((p->nobjs ? p->nobjs : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (uint32_t i = 0; i < p->nobjs; i++)
		if (p->objs[i].cp_cross || p->objs[i].cp_held_ns ||
		    p->objs[i].wait_ns)
			v[n++] = &p->objs[i];
	qsort(v, n, sizeof(*v), cmp_objs);
	S(h, "<h2>Synchronization on the critical path</h2>\n");
	if (!n) {
		S(h, "<p>No thread waited on a lock, barrier, condition "
		     "variable, semaphore or queue item, and none is on the "
		     "critical path.</p>\n<table id=\"objects\"><tbody>"
		     "</tbody></table>\n");
		free(v);
		return 0;
	}
	S(h, "<div class=\"twrap\"><table id=\"objects\" class=\"sortable\">"
	     "<thead><tr>"
	     "<th class=\"name\">object</th><th class=\"name\">address</th>"
	     "<th>ops</th><th>waits</th><th>waited</th><th>mean wait</th>"
	     "<th>held</th><th>held on CP</th><th>CP crossings</th>"
	     "<th>path gain</th><th class=\"name\">first used in</th>"
	     "</tr></thead><tbody>\n");
	for (uint32_t i = 0; i < n && shown < 40; i++, shown++) {
		const struct cp_obj_prof *ob = v[i];

		snprintf(nm, sizeof(nm), "%s#%u%s", cp_obj_kind_name(ob->kind),
			 ob->obj, ob->untracked ? " (untracked)" : "");
		S(h, "<tr data-p=\"\"><td class=\"name\">");
		E(h, nm);
		if (cp_obj_kind_has_addr(ob->kind))
			cp_wbuf_printf(h->w, "</td><td class=\"name\">0x%"
				       PRIx64, ob->addr);
		else
			S(h, "</td><td class=\"name\">-");
		cp_wbuf_printf(h->w, "</td><td data-v=\"%" PRIu64 "\">%" PRIu64
			       "</td><td data-v=\"%" PRIu64 "\">%" PRIu64
			       "</td>", ob->ops, ob->ops, ob->waits,
			       ob->waits);
		td_ns(h, ob->wait_ns);
		td_ns(h, ob->waits ? ob->wait_ns / ob->waits : 0);
		if (cp_profile_is_lock(ob->kind))
			td_ns(h, ob->held_ns);
		else
			td_none(h);
		if (cp_profile_is_lock(ob->kind) && !ob->cp_unknown)
			td_ns(h, ob->cp_held_ns);
		else
			td_none(h);
		if (ob->cp_unknown)
			td_none(h);
		else
			cp_wbuf_printf(h->w, "<td data-v=\"%" PRIu64 "\">%"
				       PRIu64 "</td>", ob->cp_cross,
				       ob->cp_cross);
		td_ns(h, ob->gain_ns);
		S(h, "<td class=\"name\">");
		E(h, cp_report_out_site(&ob->site, site, sizeof(site)));
		S(h, "</td></tr>\n");
	}
	S(h, "</tbody></table></div>\n");
	if (n > shown)
		cp_wbuf_printf(h->w, "<p class=\"hint\">%u more objects not "
			       "shown.</p>\n", n - shown);
	S(h, "<p class=\"hint\">CP crossings: times the critical path passes "
	     "from one thread to another through the object. Path gain: how "
	     "much longer the waiting threads' paths got by depending on it. "
	     "Held on CP: time spent holding the lock while on the critical "
	     "path.</p>\n");
	free(v);
	return 0;
}

/* ---- near-critical paths -------------------------------------------- */

struct contrib {
	uint32_t tid, proc;
	uint64_t ns;
};

static int cmp_contrib(const void *a, const void *b)
{
	const struct contrib *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

/* Count edge @e of a path into @cb (at most @max entries); returns the
 * useful time it adds. */
static uint64_t contribute(const struct html *h, uint32_t e,
			   struct contrib *cb, uint32_t *ncb, uint32_t max)
{
	const struct cp_tracepag *tp = h->tp;
	uint32_t k, tid, proc;

	if (tp->e_kind[e] != CP_TE_USEFUL || !tp->g.w[e])
		return 0;
	tid = cp_tracepag_thread(tp, e);
	proc = cp_tracepag_proc(tp, e);
	for (k = 0; k < *ncb; k++)
		if (cb[k].tid == tid && cb[k].proc == proc)
			break;
	if (k == *ncb) {
		if (*ncb == max)
			return tp->g.w[e];
		cb[k] = (struct contrib){ .tid = tid, .proc = proc };
		(*ncb)++;
	}
	cb[k].ns += tp->g.w[e];
	return tp->g.w[e];
}

/*
 * Where path @i spends its time, by thread and procedure in @cb (at most
 * @max, largest first): all of it for path 0, the critical path the
 * table lists first; for the others, only where they leave it.  Returns
 * the time counted.  Each piece of the path (cp_kpaths_pieces) is
 * walked until it reaches a vertex of path 0, from which it follows path
 * 0: a path that differs from it at a few places costs those places, not
 * its whole length.
 */
static uint64_t contributions(const struct html *h, uint32_t i,
			      struct cp_kpaths_piece *pc, struct contrib *cb,
			      uint32_t *ncb, uint32_t max)
{
	const struct cp_kpaths *kp = h->kp;
	const uint32_t *head = kp->g->head;
	uint32_t npc = cp_kpaths_pieces(kp, i, pc);
	uint64_t total = 0;

	*ncb = 0;
	for (uint32_t j = 0; j < npc; j++) {
		uint32_t e = pc[j].first, t = cp_pag_tail(kp->g, e);

		/* a piece that starts on path 0 with path 0's edge is path
		 * 0 to its end */
		if (i && kp->join[t] == t && kp->next[t] == e)
			continue;
		for (uint32_t q = 0; q < pc[j].n; q++) {
			uint32_t v = head[e];

			total += contribute(h, e, cb, ncb, max);
			if (q + 1 == pc[j].n || (i && kp->join[v] == v))
				break;
			e = kp->next[v];
		}
	}
	qsort(cb, *ncb, sizeof(*cb), cmp_contrib);
	return total;
}

static int paths(struct html *h)
{
	const struct cp_kpaths *kp = h->kp;
	struct cp_kpaths_piece *pc;
	struct contrib cb[64];
	uint32_t ncb;
	char b[32];

	S(h, "<h2>Near-critical paths</h2>\n");
	pc = malloc(((size_t)kp->n + 1) * sizeof(*pc));
	if (!pc)
		return -1;
	S(h, "<div class=\"twrap\"><table id=\"paths\"><thead><tr><th>#</th>"
	     "<th>length</th><th>shorter by</th><th>% of CP</th>"
	     "<th class=\"desc\">where its time differs from the critical "
	     "path</th></tr></thead><tbody>\n");
	for (uint32_t i = 0; i < kp->n; i++) {
		uint64_t off = contributions(h, i, pc, cb, &ncb, 64);
		/* the critical path's work this path leaves out */
		uint64_t skip = i && kp->cp_length > kp->len[i] - off ?
				kp->cp_length - (kp->len[i] - off) : 0;

		cp_wbuf_printf(h->w, "<tr><td>%u</td>", i + 1);
		td_ns(h, kp->len[i]);
		td_ns(h, kp->cp_length - kp->len[i]);
		td_pct(h, cp_pct(kp->len[i], kp->cp_length));
		S(h, "<td class=\"desc\">");
		if (i == 0)
			S(h, "<b>the critical path</b>: ");
		else if (!off && skip)
			S(h, "none of its own: a dependency takes it past part "
			     "of the critical path's work");
		else if (!off)
			S(h, "the same work as the critical path, through "
			     "other zero-length edges");
		for (uint32_t j = 0; j < ncb && j < 3; j++) {
			char lab[96];

			thread_label(h->t, cb[j].tid, lab, sizeof(lab));
			fmt_ns(b, sizeof(b), cb[j].ns);
			if (j)
				S(h, ", ");
			E(h, lab);
			S(h, " ");
			E(h, proc_id_name(h, cb[j].proc));
			cp_wbuf_printf(h->w, " %s", b);
		}
		if (ncb > 3)
			S(h, ", …");
		if (i > 0 && (off || skip)) {
			char b2[32];

			fmt_ns(b, sizeof(b), off);
			fmt_ns(b2, sizeof(b2), skip);
			S(h, " <span class=\"hint\">(");
			if (off)
				cp_wbuf_printf(h->w, "%s off the critical "
					       "path%s", b,
					       skip ? ", in place of " : "");
			if (skip)
				cp_wbuf_printf(h->w, "%s%s of its work",
					       off ? "" : "leaves out ", b2);
			S(h, ")</span>");
		}
		S(h, "</td></tr>\n");
	}
	S(h, "</tbody></table></div>\n<p class=\"hint\">The longest paths "
	     "of the program activity graph, longest first (each the "
	     "critical path or an earlier one turned off at one edge). "
	     "A procedure on the critical path but on none "
	     "of the near-critical ones pays off up to the gap to the next "
	     "path; one on all of them pays off more.</p>\n");
	free(pc);
	return 0;
}

/* The near-critical paths of a streamed profile: each as the path it
 * deviates from and where it does (cp_paths_stream_dev). */
static void stream_paths(struct html *h)
{
	const struct cp_stream *st = h->s;
	uint32_t n = st->npaths < CP_HTML_KPATHS ? st->npaths : CP_HTML_KPATHS;
	char dev[CP_PATHS_DEV_LEN];

	S(h, "<h2>Near-critical paths</h2>\n");
	S(h, "<div class=\"twrap\"><table id=\"paths\"><thead><tr><th>#</th>"
	     "<th>length</th><th>shorter by</th><th>% of CP</th>"
	     "<th class=\"desc\">where it leaves a longer path</th></tr>"
	     "</thead><tbody>\n");
	for (uint32_t i = 0; i < n; i++) {
		const struct cp_stream_path *q = &st->paths[i];

		cp_wbuf_printf(h->w, "<tr><td>%u</td>", i + 1);
		td_ns(h, q->len);
		td_ns(h, st->cp_len - q->len);
		td_pct(h, cp_pct(q->len, st->cp_len));
		S(h, "<td class=\"desc\">");
		if (i == 0)
			cp_wbuf_printf(h->w, "<b>the critical path</b>, ends on "
				       "T%u", st->cp_tid);
		else
			E(h, cp_paths_stream_dev(dev, sizeof(dev), st, i));
		S(h, "</td></tr>\n");
	}
	if (!n)
		S(h, "<tr><td class=\"desc\" colspan=\"5\">Not computed."
		     "</td></tr>\n");
	S(h, "</tbody></table></div>\n<p class=\"hint\">The longest paths "
	     "of the program activity graph, longest first, found out of "
	     "core: each is an earlier path (#) down to where it leaves it, "
	     "then a different dependency into that vertex, then the longest "
	     "path back from there. Times are from the run's start. ");
	if (st->paths_cut)
		S(h, "Fewer paths than asked: the sidetracks kept cannot tell "
		     "which come next (a larger --memory keeps more). ");
	S(h, "</p>\n");
}

/* ---- what-if --------------------------------------------------------- */

static void change_cells(struct html *h, uint64_t before, uint64_t after)
{
	double d = before ? 100.0 * ((double)after - (double)before) /
			    (double)before : 0;

	td_ns(h, after);
	cp_wbuf_printf(h->w, "<td data-v=\"%.4f\" class=\"pct\">%+.1f%%</td>",
		       d, d);
}

/*
 * The notes cell of one what-if row, in the words of cpt whatif: why the
 * simulation's baseline is not the recorded path, and the acquisitions
 * in another order, each only when it moves the figures by more than 1 %
 * of the recorded path.
 */
static void whatif_notes(struct html *h, const struct cp_whatif_result *r)
{
	double rec = (double)r->length_before;
	double base = (double)r->length_before_sim - rec;
	double dsim = (double)r->length_after - (double)r->length_before_sim;
	double dfix = (double)r->length_after_fixed - rec;

	if (r->deadlock) {
		S(h, "the new order would deadlock: fixed graph used");
		return;
	}
	if (!r->simulated)
		return;
	if (fabs(base) > 0.01 * rec)
		cp_wbuf_printf(h->w, "the unchanged replay is %.1f%% %s than "
			       "the recording: it hands each lock to the "
			       "thread that asks first, the run did not "
			       "always. ", 100.0 * fabs(base) / rec,
			       base < 0 ? "shorter" : "longer");
	if (r->reordered && fabs(dsim - dfix) > 0.01 * rec)
		cp_wbuf_printf(h->w, "%" PRIu64 " lock acquisition%s in "
			       "another order than recorded, which the fixed "
			       "graph cannot see.", r->reordered,
			       r->reordered == 1 ? "" : "s");
}

static void whatif_row(struct html *h, const struct cp_whatif_top_row *w)
{
	const struct cp_whatif_result *r = &w->r;

	S(h, "<tr><td class=\"name\">");
	E(h, w->pp->name);
	S(h, "</td>");
	td_ns(h, w->pp->cp_ns);
	change_cells(h, r->length_before, r->length_after_fixed);
	if (r->simulated) {
		change_cells(h, r->length_before_sim, r->length_after);
	} else {
		td_none(h);
		td_none(h);
	}
	S(h, "<td class=\"desc\">");
	whatif_notes(h, r);
	S(h, "</td></tr>\n");
}

static void whatif(struct html *h)
{
	const struct cp_whatif_top *wt = h->wt;
	double f = wt->factor;

	S(h, "<h2>What if</h2>\n");
	cp_wbuf_printf(h->w, "<div class=\"twrap\"><table id=\"whatif\">"
		       "<thead><tr><th class=\"name\">procedure ×%g</th>"
		       "<th>on the CP</th><th>fixed graph</th><th>change</th>"
		       "<th>simulated</th><th>change</th>"
		       "<th class=\"desc\">notes</th></tr></thead><tbody>\n",
		       f);
	for (uint32_t i = 0; i < wt->n; i++)
		whatif_row(h, &wt->rows[i]);
	if (!wt->n)
		S(h, "<tr><td class=\"desc\" colspan=\"7\">No procedure holds "
		     "part of the critical path (or every one spans all of "
		     "it).</td></tr>\n");
	cp_wbuf_printf(h->w, "</tbody></table></div>\n<p class=\"hint\">"
		       "Predicted run time if the procedure took ×%g its "
		       "time. The fixed graph keeps every recorded "
		       "dependency; its change is against the recorded "
		       "critical path. The simulation replays the threads and "
		       "grants locks in the new order of requests (so it sees "
		       "a lock taken in a different order); its change is "
		       "against the same replay of the unchanged run. "
		       "Procedures that span the whole path are left "
		       "out.</p>\n", f);
}

/* ---- the page ---------------------------------------------------------- */

static int choose_colors(struct html *h)
{
	const struct cp_profile *p = h->p;
	uint32_t np = h->nkeys;

	h->cat_of = malloc((np ? np : 1) * sizeof(*h->cat_of));
	if (!h->cat_of)
		return -1;
	for (uint32_t i = 0; i < np; i++)
		h->cat_of[i] = CAT_OTHER;
	/* the largest exclusive CP shares, then exclusive CPU, get colours */
	for (h->ntop = 0; h->ntop < NTOP; h->ntop++) {
		uint32_t best = CP_PAG_NONE;
		uint64_t bcp = 0, bcpu = 0;

		for (uint32_t i = 0; i < p->nprocs; i++) {
			const struct cp_proc_prof *pp = &p->procs[i];

			if (h->cat_of[pp->proc] != CAT_OTHER ||
			    (!pp->cp_excl_ns && !pp->cpu_excl_ns))
				continue;
			if (pp->cp_excl_ns > bcp ||
			    (pp->cp_excl_ns == bcp && pp->cpu_excl_ns > bcpu)) {
				best = pp->proc;
				bcp = pp->cp_excl_ns;
				bcpu = pp->cpu_excl_ns;
			}
		}
		if (best == CP_PAG_NONE)
			break;
		h->top[h->ntop] = best;
		h->cat_of[best] = h->ntop;
	}
	return 0;
}

/* The document's head (style, error capture), its header, the headline
 * and the notes. */
static void page_head(struct html *h, const char *title)
{
	const struct cp_profile *p = h->p;
	const char *exe = cp_trace_info(h->t, "exe");
	char hl[512], nt[512];

	S(h, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
	      "<meta charset=\"utf-8\"><meta name=\"viewport\" "
	      "content=\"width=device-width,initial-scale=1\">"
	      "<title>cpthread report: ");
	E(h, title);
	S(h, "</title>\n<style>\n");
	S(h, cp_html_css);
	S(h, "</style>\n<script>");
	S(h, cp_html_head_js);
	S(h, "</script></head>\n<body><main>\n<header><h1>cpthread report"
	      "</h1><div class=\"sub\">");
	if (exe) {
		E(h, exe);
		S(h, " · ");
	}
	E(h, title);
	cp_wbuf_printf(h->w, " · %s clock · %u thread%s · %" PRIu64 " events"
		       "</div></header>\n",
		       h->t->clock == CP_CLOCK_CPU ? "cpu" : "wall",
		       p->nthreads, p->nthreads == 1 ? "" : "s",
		       h->t->nevents);
	cp_compare_out_headline(h->c, hl, sizeof(hl));
	cp_compare_out_note(h->c, nt, sizeof(nt));
	S(h, "<div class=\"headline\" id=\"headline\">");
	E(h, hl);
	S(h, "</div>\n");
	if (nt[0]) {
		S(h, "<div class=\"note\">");
		E(h, nt);
		S(h, "</div>\n");
	}
	if (h->s) {
		char b[512];

		S(h, "<div class=\"note\" id=\"streamed\">Analysed out of "
		     "core (streaming): figures it does not compute are shown "
		     "as –");
		for (unsigned i = 0; cp_stream_out_note(h->s, h->c, i, b,
							sizeof(b)); i++) {
			S(h, "; ");
			E(h, b);
		}
		S(h, ".</div>\n");
	}
	{	/* the runtime's notes, as the text report gives them */
		char b[512];
		const char *v;

		for (unsigned i = 0; (v = cp_report_out_runtime_note(
					h->t, p->useful_ns, p->elapsed_ns, i,
					b, sizeof(b))); i++) {
			S(h, "<div class=\"note\">");
			E(h, v);
			S(h, "</div>\n");
		}
	}
	if (p->online_len && p->online_len != p->cp_len) {
		char a[32], b[32];

		fmt_ns(a, sizeof(a), p->online_len);
		fmt_ns(b, sizeof(b), p->cp_len);
		cp_wbuf_printf(h->w, "<div class=\"note\">The runtime "
			       "measured a critical path of %s online; the "
			       "trace's graph gives %s.</div>\n", a, b);
	}
}

int cp_html_write(FILE *f, const struct cp_html_in *in,
		  const struct cp_html_opts *o, char *err, size_t errlen)
{
	static const struct cp_html_opts defaults;
	const struct cp_profile *p = in->p;
	struct html h = { .p = p, .c = in->c, .kp = in->kp, .s = in->s,
			  .wt = in->wt, .tp = p->tp,
			  .t = p->tp ? p->tp->t : in->t, .tl = in->tl,
			  .o = o ? o : &defaults };
	const char *title = h.o->title ? h.o->title : h.t->path;
	int ret = -1;

	h.nkeys = h.tp ? h.tp->nprocs : p->nprocs;
	h.w = malloc(sizeof(*h.w));
	if (!h.w || choose_colors(&h) || select_threads(&h))
		goto err_mem;
	cp_wbuf_init(h.w, f);
	page_head(&h, title);
	summary(&h);
	S(&h, "<h2>Timeline</h2>\n");
	if (timeline(&h))
		goto err_mem;
	procedures(&h);
	threads(&h);
	if (objects(&h))
		goto err_mem;
	if (h.kp ? paths(&h) : (stream_paths(&h), 0))
		goto err_mem;
	whatif(&h);
	S(&h, "<footer>Generated by cpt (cpthread " CP_VERSION ") from ");
	E(&h, h.t->path);
	S(&h, ". Self-contained: no network access.</footer>\n</main>\n"
	      "<script>\n");
	S(&h, cp_html_js);
	S(&h, "</script>\n</body></html>\n");
	if (cp_wbuf_close(h.w)) {
		snprintf(err, errlen, "write error on the HTML report");
		goto out;
	}
	ret = 0;
	goto out;
err_mem:
	snprintf(err, errlen, "out of memory writing the HTML report");
out:
	free(h.w);
	free(h.cat_of);
	free(h.shown);
	return ret;
}
