/*
 * cp_compare.c - CPU profile against critical-path profile.
 *
 * [Hollingsworth98] (§4, Figs. 12 and 13) shows why the two differ: a procedure
 * that runs while the other threads wait (Raytrace's ReadGeoFile, 3.5% of
 * the CPU time, 13.5% of the critical path) matters more than its CPU time
 * says, and one that runs alongside other work (Cholesky's GetBlock) less.
 * This file joins the two profiles by procedure name, ranks both, marks
 * the rows whose ranks disagree and finds what the one sentence a reader
 * needs should say (cp_compare_out.c writes it).
 *
 * Which CPU figure is ranked.  gprof's flat profile is self time; the
 * profile's columns are exclusive or inclusive of callees as the user
 * asked.  Ranks compare like with like: gprof's self time when the profile
 * is exclusive, cpthread's own CPU time (same mode as the CP columns)
 * otherwise, and always cpthread's when there is no gprof data.
 *
 * A disagreement is worth a mark when the ranks differ, one of them is in
 * the top ten, and the two percentages are at least one point apart (so
 * two procedures tied within noise do not flip marks).
 *
 * The headline speaks of sampled procedures only when their figures rest
 * on enough samples (cp_compare_thin): on a short run a procedure seen in
 * one sample would otherwise be called 8% of the CPU time and none of the
 * critical path.  When no row has enough, the headline says so.
 *
 * A profile made from the streaming analysis (cp_stream_prof.h) knows the
 * CP figures of the procedures it followed only, those with the most CPU
 * time.  As a procedure's CP time is part of its CPU time, one not
 * followed has at most p->cp_bound of it: a followed row with at least
 * that much has its exact CP rank, the others none; the headline speaks
 * of followed rows only.
 *
 * The headline's "the other threads wait while it runs" is measured, not
 * assumed: over the procedure's critical-path segments, the fraction of
 * the other threads' time that was useful work (segments placed on the
 * wall clock).  Cost: the ends of one procedure's M critical-path
 * segments (those one after another on a thread joined) sorted by time
 * when C stepped back somewhere, then a sweep over each of the T threads'
 * S segments and those ends, O(M log M + S + T M).  Streamed, the pass
 * measures it the same way (cp_stream_busy.c) and the procedure's figures
 * bring it.
 */
#include "cp_compare.h"

#include "cp_sampled.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp_wall.h"

#define TOP_MARKED	10	/* a mark needs one rank within this */
#define MIN_POINTS	1.0	/* ... and percentages this far apart */
#define HL_MIN_PCT	5.0	/* headline: a share worth a sentence */
#define HL_RATIO	1.5	/* ... that differs by this factor */
#define HL_WHOLE	0.95	/* procedures spanning this much of the CP
				 * (main, start routines) say nothing */

/* The CPU figure ranked: see the head of the file. */
bool cp_compare_ranks_gprof(const struct cp_compare *c)
{
	return c->gp && c->p->exclusive;
}

static uint64_t rank_cpu_ns(const struct cp_compare *c,
			    const struct cp_cmp_row *r)
{
	if (cp_compare_ranks_gprof(c))
		return r->gp ? r->gp->self_ns : 0;
	return r->pp ? r->pp->cpu_ns : 0;
}

double cp_compare_rank_cpu_pct(const struct cp_compare *c,
			       const struct cp_cmp_row *r)
{
	if (cp_compare_ranks_gprof(c))
		return r->gp ? r->gp->pct : 0;
	return r->pp ? cp_pct(r->pp->cpu_ns, c->p->useful_ns) : 0;
}

static int cmp_u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Competition ranks (1, 2, 2, 4) of @v[n] into @rank; zero: NORANK. */
static int ranks(const uint64_t *v, uint32_t n, uint32_t *rank)
{
	uint64_t *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		return -1;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u64_desc);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t lo = 0, hi = n;

		if (!v[i]) {
			rank[i] = CP_COMPARE_NORANK;
			continue;
		}
		/* first position holding a value <= v[i] */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (s[mid] > v[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		rank[i] = lo + 1;
	}
	free(s);
	return 0;
}

static bool edge_in_proc(const struct cp_tracepag *tp, bool exclusive,
			 uint32_t e, uint32_t proc)
{
	const struct cp_cct_node *n;

	if (exclusive)
		return cp_tracepag_proc(tp, e) == proc;
	n = &tp->cct[cp_tracepag_cct(tp, e)];
	for (uint32_t i = 0; i < n->incl_n; i++)
		if (tp->incl_pool[n->incl_off + i] == proc)
			return true;
	return false;
}

/* An end of one of the procedure's critical-path segments. */
struct cp_end {
	uint64_t x;		/* on the wall clock */
	uint32_t tid;		/* the segment's thread */
	int sign;		/* +1 its end, -1 its start */
};

static int cmp_end(const void *a, const void *b)
{
	const struct cp_end *x = a, *y = b;

	return x->x < y->x ? -1 : x->x > y->x;
}

/* Segment [@a, @b) of thread @tid (UINT32_MAX: none) as its two ends at
 * @e[@m] (@e NULL: not written).  Returns how many ends. */
static int64_t end_pair(struct cp_end *e, int64_t m, uint32_t tid,
			uint64_t a, uint64_t b)
{
	if (tid == UINT32_MAX)
		return 0;
	if (e) {
		e[m] = (struct cp_end){ a, tid, -1 };
		e[m + 1] = (struct cp_end){ b, tid, +1 };
	}
	return 2;
}

/*
 * Procedure @proc's critical-path segments (useful, of weight and wall
 * time above zero), those one after another on a thread joined, in C's
 * order: their ends into @e (NULL: only count them) and their wall time
 * into *@on.  Returns how many ends.
 */
static int64_t put_ends(const struct cp_profile *p, uint32_t proc,
			struct cp_end *e, uint64_t *on)
{
	const struct cp_tracepag *tp = p->tp;
	uint32_t tid, vi, ptid = UINT32_MAX;
	uint64_t pa = 0, pb = 0;
	int64_t m = 0;

	*on = 0;
	for (uint32_t i = 0; i < p->cpm->npath; i++) {
		uint32_t ed = p->cpm->path[i];
		uint64_t a, b;

		if (tp->e_kind[ed] != CP_TE_USEFUL || !tp->g.w[ed] ||
		    !edge_in_proc(tp, p->exclusive, ed, proc) ||
		    !cp_tracepag_vertex(tp, tp->g.head[ed], &tid, &vi) || !vi)
			continue;
		a = cp_trace_wall(tp->t, tid, vi - 1);
		b = cp_trace_wall(tp->t, tid, vi);
		if (b <= a)
			continue;
		*on += b - a;
		if (tid == ptid && a == pb) {
			pb = b;
			continue;
		}
		m += end_pair(e, m, ptid, pa, pb);
		ptid = tid;
		pa = a;
		pb = b;
	}
	return m + end_pair(e, m, ptid, pa, pb);
}

/*
 * The ends of procedure @proc's critical-path segments (put_ends) into
 * *@ends, in time order, and their wall time into *@on.  Returns how many
 * ends, or -1 (memory).
 */
static int64_t cp_ends(const struct cp_profile *p, uint32_t proc,
		       struct cp_end **ends, uint64_t *on)
{
	int64_t m = put_ends(p, proc, NULL, on);
	struct cp_end *e = malloc(((size_t)m + 1) * sizeof(*e));
	bool sorted = true;

	*ends = e;
	if (!e)
		return -1;
	put_ends(p, proc, e, on);
	for (int64_t j = 1; j < m && sorted; j++)
		sorted = e[j - 1].x <= e[j].x;
	if (!sorted)	/* C stepped back in time somewhere */
		qsort(e, (size_t)m, sizeof(*e), cmp_end);
	return m;
}

/* The first of the @m ends at @e (in time order) past @x, or @m. */
static int64_t ends_past(const struct cp_end *e, int64_t m, uint64_t x)
{
	int64_t lo = 0, hi = m;

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;

		if (e[mid].x <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A thread's sweep over its segments: done, its useful wall time before
 * segment [a, b) of vertex vi (useful or not). */
struct sweep {
	uint64_t done, a, b;
	bool useful;
	uint32_t vi;
};

/* Sweep thread @tid to the segment that holds @x, or past its last. */
static void sweep_to(const struct cp_tracepag *tp, uint32_t tid,
		     struct sweep *sw, uint64_t x)
{
	const struct cp_trace *t = tp->t;
	uint32_t nv = t->threads[tid].nv;

	while (sw->vi < nv && (sw->vi == 0 || sw->b <= x)) {
		uint32_t ed;

		if (sw->vi && sw->useful)
			sw->done += sw->b - sw->a;
		if (++sw->vi >= nv) {
			sw->useful = false;
			break;
		}
		ed = tp->segbase[tid] + sw->vi - 1;
		sw->a = cp_trace_wall(t, tid, sw->vi - 1);
		sw->b = cp_trace_wall(t, tid, sw->vi);
		sw->useful = tp->e_kind[ed] == CP_TE_USEFUL && tp->g.w[ed] &&
			     sw->b > sw->a;
	}
}

/*
 * Fraction of the other threads' time that was useful while procedure
 * @proc was on the critical path; -1 if it never was or there is no other
 * thread.  Over each of its C segments [a, b) of thread T, every other
 * thread t adds U_t(b) - U_t(a), U_t(x) being t's useful wall time before
 * x: one sweep per thread over its segments and the ends in time order,
 * whatever the order of C's segments on the wall clock (a dependency
 * timed around the operation can go back a little).  An end before a
 * thread's first vertex adds nothing for it and one after its last adds
 * its whole useful time, so each thread sweeps only the ends in its life
 * and takes the sum of the later ends' signs: a program that ran 100,000
 * threads one after another made this a sweep per thread over every end.
 */
static double busy_others(const struct cp_profile *p, uint32_t proc)
{
	const struct cp_tracepag *tp = p->tp;
	const struct cp_trace *t = tp->t;
	struct cp_end *e;
	int64_t *later;		/* [m + 1] the signs of e[j..m) summed */
	uint64_t on;
	int64_t m;
	double overlap = 0;

	if (p->nthreads < 2)
		return -1;
	m = cp_ends(p, proc, &e, &on);
	if (m <= 0) {
		free(e);
		return -1;
	}
	later = malloc(((size_t)m + 1) * sizeof(*later));
	if (!later) {
		free(e);
		return -1;
	}
	later[m] = 0;
	for (int64_t j = m; j-- > 0;)
		later[j] = later[j + 1] + e[j].sign;
	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		const struct cp_trace_thread *th = &t->threads[tid];
		struct sweep sw = { .vi = 0 };
		uint64_t wmin = UINT64_MAX, wmax = 0;
		int64_t j, end;

		if (!th->nv)
			continue;
		for (uint32_t k = 0; k < th->nv; k++) {
			uint64_t w = cp_trace_wall(t, tid, k);

			wmin = w < wmin ? w : wmin;
			wmax = w > wmax ? w : wmax;
		}
		/* up to wmin, U_t is 0; past wmax, its whole useful time,
		 * and none of the ends there is its own */
		j = ends_past(e, m, wmin);
		end = ends_past(e, m, wmax);
		for (; j < end; j++) {
			uint64_t u;

			sweep_to(tp, tid, &sw, e[j].x);
			if (e[j].tid == tid)
				continue;
			u = sw.done + (sw.useful && sw.a < e[j].x ?
				       e[j].x - sw.a : 0);
			overlap += e[j].sign * (double)u;
		}
		if (!later[end])
			continue;
		/* its whole useful time, the sweep taken to its end */
		sweep_to(tp, tid, &sw, UINT64_MAX);
		overlap += (double)later[end] * (double)sw.done;
	}
	free(later);
	free(e);
	return overlap / ((double)on * (double)(p->nthreads - 1));
}

static bool whole(const struct cp_compare *c, const struct cp_cmp_row *r)
{
	return r->pp && (double)r->pp->cp_ns >= HL_WHOLE * (double)c->p->cp_len;
}

/* Does the procedure hold at least half its CP time itself? */
static bool own(const struct cp_cmp_row *r)
{
	return r->pp && 2 * r->pp->cp_excl_ns >= r->pp->cp_ns;
}

/*
 * Does row @i beat row @best (-1: none yet) with difference @d against
 * @bd?  On a tie the program's own name wins over one reserved to the C
 * implementation (a leading underscore): a chain of single callers has
 * equal figures all along, and of _start, __libc_start_call_main and
 * main the headline should say main.
 */
static bool beats(const struct cp_compare *c, int best, uint32_t i,
		  double d, double bd)
{
	if (d != bd || best < 0)
		return d > bd;
	return c->rows[best].name[0] == '_' && c->rows[i].name[0] != '_';
}

/* Are row @r's figures known, and resting on enough samples to be
 * spoken of? */
static bool sure(const struct cp_compare *c, const struct cp_cmp_row *r)
{
	return r->pp && !r->pp->cp_unknown && !cp_compare_thin(c->p, r->pp);
}

/*
 * Pass 0 considers only rows that hold their CP time themselves (not a
 * caller such as main whose callees do the work), pass 1 any row.
 */
static bool candidate(const struct cp_compare *c, const struct cp_cmp_row *r,
		      int pass)
{
	return sure(c, r) && (pass || own(r));
}

/* A procedure the CPU profile underrates, or -1. */
static int find_underrated(const struct cp_compare *c)
{
	int best = -1;
	double bd = 0;

	for (int pass = 0; pass < 2 && best < 0; pass++)
		for (uint32_t i = 0; i < c->n; i++) {
			const struct cp_cmp_row *r = &c->rows[i];
			double cpu = cp_compare_rank_cpu_pct(c, r);

			if (!candidate(c, r, pass) || r->cp_pct < HL_MIN_PCT ||
			    r->cp_pct < HL_RATIO * cpu || whole(c, r))
				continue;
			if (beats(c, best, i, r->cp_pct - cpu, bd)) {
				bd = r->cp_pct - cpu;
				best = (int)i;
			}
		}
	return best;
}

/* A procedure the CPU profile overrates, or -1. */
static int find_overrated(const struct cp_compare *c)
{
	int best = -1;
	double bd = 0;

	for (uint32_t i = 0; i < c->n; i++) {
		const struct cp_cmp_row *r = &c->rows[i];
		double cpu = cp_compare_rank_cpu_pct(c, r);

		if (!sure(c, r) || cpu < HL_MIN_PCT ||
		    cpu < HL_RATIO * r->cp_pct || whole(c, r))
			continue;
		if (beats(c, best, i, cpu - r->cp_pct, bd)) {
			bd = cpu - r->cp_pct;
			best = (int)i;
		}
	}
	return best;
}

/* The most striking row whose ranks differ, or -1. */
static int find_rank_difference(const struct cp_compare *c)
{
	int best = -1;
	double bd = 0;

	for (int pass = 0; pass < 2 && best < 0; pass++)
		for (uint32_t i = 0; i < c->n; i++) {
			const struct cp_cmp_row *r = &c->rows[i];
			double d = fabs(r->cp_pct -
					cp_compare_rank_cpu_pct(c, r));

			if (!candidate(c, r, pass) || !r->disagree)
				continue;
			if (beats(c, best, i, d, bd)) {
				bd = d;
				best = (int)i;
			}
		}
	return best;
}

/* The leader of the critical path (not one spanning all of it if
 * another will do), or -1. */
static int find_leader(const struct cp_compare *c)
{
	for (int pass = 0; pass < 3; pass++)
		for (uint32_t i = 0; i < c->n; i++) {
			const struct cp_cmp_row *r = &c->rows[i];

			if (sure(c, r) && (pass == 2 ||
					   (!whole(c, r) && (pass || own(r)))))
				return (int)i;
		}
	return -1;
}

/* What the headline says: the first finding that applies; with @busy,
 * what the others did while an underrated procedure was on the CP. */
static void headline(struct cp_compare *c, bool busy)
{
	int best;

	c->hl_row = CP_COMPARE_NORANK;
	c->hl_busy = -1;
	c->finding = CP_CMP_NOTHING;
	if (!c->p->nprocs) {
		c->finding = CP_CMP_NO_PROCS;
		return;
	}
	if ((best = find_underrated(c)) >= 0) {
		c->finding = CP_CMP_UNDERRATED;
		/* streamed: no graph, the pass measured it */
		if (busy)
			c->hl_busy = c->p->tp ?
				busy_others(c->p, c->rows[best].pp->proc) :
				c->rows[best].pp->busy;
	} else if ((best = find_overrated(c)) >= 0) {
		c->finding = CP_CMP_OVERRATED;
	} else if ((best = find_rank_difference(c)) >= 0) {
		c->finding = CP_CMP_RANKS_DIFFER;
	} else if ((best = find_leader(c)) >= 0) {
		c->finding = CP_CMP_ALIKE;
	} else {
		c->finding = CP_CMP_THIN;	/* every row is thin */
	}
	if (best >= 0)
		c->hl_row = (uint32_t)best;
}

/* What the note on gprof's figures says. */
static void note(struct cp_compare *c)
{
	const struct cp_gprof *gp = c->gp;

	c->gprof_no_time = gp && (gp->no_time || !gp->total_ns);
	c->gprof_self_vs_incl = gp && !c->gprof_no_time && !c->p->exclusive;
	c->gprof_undersampled = gp && !c->gprof_no_time &&
				c->p->nthreads >= 2;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct cp_cmp_row *x = a, *y = b;
	uint64_t xc = x->pp ? x->pp->cp_ns : 0, yc = y->pp ? y->pp->cp_ns : 0;

	if (!x->pp != !y->pp)
		return x->pp ? -1 : 1;
	if (xc != yc)
		return xc > yc ? -1 : 1;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The rows: @p's procedures, each with gprof's entry of the same name,
 * then gprof's entries no procedure has; their CPU and CP shares; sorted
 * by cmp_rows().  0, or -1 when memory runs out.
 */
static int join_rows(struct cp_compare *c)
{
	const struct cp_profile *p = c->p;
	const struct cp_gprof *gp = c->gp;
	uint32_t n = p->nprocs, extra = 0;
	bool *used = gp ? calloc(gp->n ? gp->n : 1, sizeof(*used)) : NULL;

	c->rows = calloc((size_t)n + (gp ? gp->n : 0) + 1, sizeof(*c->rows));
	if (!c->rows || (gp && !used)) {
		free(used);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct cp_cmp_row *r = &c->rows[i];

		r->pp = &p->procs[i];
		r->name = r->pp->name;
		r->gp = gp ? cp_gprof_find(gp, r->name) : NULL;
		if (r->gp)
			used[r->gp - gp->e] = true;
	}
	for (uint32_t i = 0; gp && i < gp->n; i++)
		if (!used[i]) {
			struct cp_cmp_row *r = &c->rows[n + extra++];

			r->gp = &gp->e[i];
			r->name = r->gp->name;
		}
	free(used);
	c->n = n + extra;
	c->cpu_total_ns = gp ? gp->total_ns : p->useful_ns;
	for (uint32_t i = 0; i < c->n; i++) {
		struct cp_cmp_row *r = &c->rows[i];

		r->cpu_ns = gp ? (r->gp ? r->gp->self_ns : 0)
			       : r->pp->cpu_ns;
		r->cpu_pct = gp ? (r->gp ? r->gp->pct : 0)
				: cp_pct(r->cpu_ns, p->useful_ns);
		r->cp_pct = r->pp ? cp_pct(r->pp->cp_ns, p->cp_len) : 0;
	}
	qsort(c->rows, c->n, sizeof(*c->rows), cmp_rows);
	return 0;
}

/*
 * Row @r's ranks from the CPU ranks @rc and CP ranks @rp, and its mark
 * (see the head of the file); @ranked rows have a CPU rank.
 */
static void mark_row(const struct cp_compare *c, struct cp_cmp_row *r,
		     uint32_t rc, uint32_t rp, uint32_t ranked)
{
	double d = r->cp_pct - cp_compare_rank_cpu_pct(c, r);
	uint32_t cr;

	r->cpu_rank = rc;
	r->cp_rank = r->pp ? rp : CP_COMPARE_NORANK;
	/* streamed: a procedure not followed could outrank it */
	if (r->pp && (r->pp->cp_unknown || r->pp->cp_ns < c->p->cp_bound))
		r->cp_rank = CP_COMPARE_NORANK;
	/* no CPU time at all (gprof saw none): tied below every ranked
	 * one, so the CP can only rank it higher */
	cr = r->cpu_rank == CP_COMPARE_NORANK ? ranked + 1 : r->cpu_rank;
	if (!r->pp || r->cp_rank == CP_COMPARE_NORANK || cr == r->cp_rank ||
	    (r->cpu_rank == CP_COMPARE_NORANK && r->cp_rank > cr) ||
	    (cr > TOP_MARKED && r->cp_rank > TOP_MARKED) ||
	    fabs(d) < MIN_POINTS)
		return;
	r->disagree = r->cp_rank < cr ? 1 : -1;
}

static int build(struct cp_compare *c, const struct cp_profile *p,
		 const struct cp_gprof *gp, bool busy)
{
	uint64_t *cpu = NULL, *cp = NULL;
	uint32_t *rc = NULL, *rp = NULL, ranked = 0;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->p = p;
	c->gp = gp;
	if (join_rows(c))
		goto out;
	cpu = malloc((c->n + 1) * sizeof(*cpu));
	cp = malloc((c->n + 1) * sizeof(*cp));
	rc = malloc((c->n + 1) * sizeof(*rc));
	rp = malloc((c->n + 1) * sizeof(*rp));
	if (!cpu || !cp || !rc || !rp)
		goto out;
	for (uint32_t i = 0; i < c->n; i++) {
		cpu[i] = rank_cpu_ns(c, &c->rows[i]);
		cp[i] = c->rows[i].pp ? c->rows[i].pp->cp_ns : 0;
	}
	if (ranks(cpu, c->n, rc) || ranks(cp, c->n, rp))
		goto out;
	for (uint32_t i = 0; i < c->n; i++)
		if (rc[i] != CP_COMPARE_NORANK)
			ranked++;
	for (uint32_t i = 0; i < c->n; i++)
		mark_row(c, &c->rows[i], rc[i], rp[i], ranked);
	headline(c, busy);
	note(c);
	ret = 0;
out:
	free(cpu);
	free(cp);
	free(rc);
	free(rp);
	if (ret)
		cp_compare_free(c);
	return ret;
}

int cp_compare_build(struct cp_compare *c, const struct cp_profile *p,
		     const struct cp_gprof *gp)
{
	return build(c, p, gp, true);
}

enum cp_cmp_finding cp_compare_headline_of(const struct cp_profile *p,
					   const struct cp_gprof *gp,
					   uint32_t *proc)
{
	struct cp_compare c;
	enum cp_cmp_finding f = CP_CMP_NOTHING;

	*proc = UINT32_MAX;
	if (build(&c, p, gp, false))
		return f;
	f = c.finding;
	if (c.hl_row != CP_COMPARE_NORANK && c.rows[c.hl_row].pp)
		*proc = c.rows[c.hl_row].pp->proc;
	cp_compare_free(&c);
	return f;
}

uint32_t cp_compare_headline_proc(void *gprof, const struct cp_profile *p)
{
	uint32_t proc;

	cp_compare_headline_of(p, gprof, &proc);
	return proc;
}

void cp_compare_free(struct cp_compare *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

const struct cp_cmp_row *cp_compare_find(const struct cp_compare *c,
					 const char *name)
{
	for (uint32_t i = 0; i < c->n; i++)
		if (!strcmp(c->rows[i].name, name))
			return &c->rows[i];
	return NULL;
}

bool cp_compare_thin(const struct cp_profile *p, const struct cp_proc_prof *pp)
{
	return p->sampled && (pp->samples < CP_SAMPLES_THIN ||
			      (pp->cp_ns && pp->cp_samples < CP_SAMPLES_THIN));
}
