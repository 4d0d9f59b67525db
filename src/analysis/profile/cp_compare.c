/*
 * cp_compare.c - CPU profile against critical-path profile.
 *
 * [Hollingsworth98] (§4, Figs. 12 and 13) shows why the two differ: a procedure
 * that runs while the other threads wait (Raytrace's ReadGeoFile, 3.5% of
 * the CPU time, 13.5% of the critical path) matters more than its CPU time
 * says, and one that runs alongside other work (Cholesky's GetBlock) less.
 * This file joins the two profiles by procedure name, ranks both, marks
 * the rows whose ranks disagree and writes the one sentence a reader needs.
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
 * The headline's "the other threads wait while it runs" is measured, not
 * assumed: over the procedure's critical-path segments, the fraction of
 * the other threads' time that was useful work (segments placed on the
 * wall clock).  Cost: the CP segments of one procedure sorted by time
 * (the critical path runs forward in time), then one pass over all useful
 * segments with a binary search each, O(S log M).
 */
#include "cp_compare.h"

#include "cp_sampled.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOP_MARKED	10	/* a mark needs one rank within this */
#define MIN_POINTS	1.0	/* ... and percentages this far apart */
#define HL_MIN_PCT	5.0	/* headline: a share worth a sentence */
#define HL_RATIO	1.5	/* ... that differs by this factor */
#define HL_WHOLE	0.95	/* procedures spanning this much of the CP
				 * (main, start routines) say nothing */

/* The CPU figure ranked: see the head of the file. */
static bool rank_gprof(const struct cp_compare *c)
{
	return c->gp && c->p->exclusive;
}

static uint64_t rank_cpu_ns(const struct cp_compare *c,
			    const struct cp_cmp_row *r)
{
	if (rank_gprof(c))
		return r->gp ? r->gp->self_ns : 0;
	return r->pp ? r->pp->cpu_ns : 0;
}

static double rank_cpu_pct(const struct cp_compare *c,
			   const struct cp_cmp_row *r)
{
	if (rank_gprof(c))
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

/* Wall-clock time of vertex @vi of thread @tid. */
static uint64_t wall_of(const struct cp_trace *t, uint32_t tid, uint32_t vi)
{
	const struct cp_trace_thread *th = &t->threads[tid];

	return th->wall ? th->wall[vi] : th->v[vi].ts;
}

static bool edge_in_proc(const struct cp_tracepag *tp, bool exclusive,
			 uint32_t e, uint32_t proc)
{
	const struct cp_cct_node *n;

	if (exclusive)
		return tp->e_proc[e] == proc;
	n = &tp->cct[tp->e_cct[e]];
	for (uint32_t i = 0; i < n->incl_n; i++)
		if (tp->incl_pool[n->incl_off + i] == proc)
			return true;
	return false;
}

struct ival {
	uint64_t a, b;		/* wall interval */
	uint32_t tid;		/* thread on the CP then */
};

/*
 * Fraction of the other threads' time that was useful while procedure
 * @proc was on the critical path; -1 if it never was or there is no other
 * thread.
 */
static double busy_others(const struct cp_profile *p, uint32_t proc)
{
	const struct cp_tracepag *tp = p->tp;
	const struct cp_trace *t = tp->t;
	struct ival *iv;
	uint32_t m = 0, tid, vi;
	uint64_t on = 0;
	double overlap = 0;

	if (p->nthreads < 2)
		return -1;
	iv = malloc((p->cpm->npath ? p->cpm->npath : 1) * sizeof(*iv));
	if (!iv)
		return -1;
	for (uint32_t i = 0; i < p->cpm->npath; i++) {
		uint32_t e = p->cpm->path[i];
		uint64_t a, b;

		if (tp->e_kind[e] != CP_TE_USEFUL || !tp->g.w[e] ||
		    !edge_in_proc(tp, p->exclusive, e, proc) ||
		    !cp_tracepag_vertex(tp, tp->g.head[e], &tid, &vi) || !vi)
			continue;
		a = wall_of(t, tid, vi - 1);
		b = wall_of(t, tid, vi);
		if (b <= a)
			continue;
		if (m && iv[m - 1].tid == tid && iv[m - 1].b == a) {
			iv[m - 1].b = b;	/* merge consecutive */
		} else {
			iv[m].a = a;
			iv[m].b = b;
			iv[m].tid = tid;
			m++;
		}
		on += b - a;
	}
	if (!m) {
		free(iv);
		return -1;
	}
	for (tid = 0; tid < t->nthreads; tid++) {
		const struct cp_trace_thread *th = &t->threads[tid];

		for (vi = 1; vi < th->nv; vi++) {
			uint32_t e = tp->segbase[tid] + vi - 1;
			uint64_t a, b;
			uint32_t lo = 0, hi = m;

			if (tp->e_kind[e] != CP_TE_USEFUL || !tp->g.w[e])
				continue;
			a = wall_of(t, tid, vi - 1);
			b = wall_of(t, tid, vi);
			/* first interval ending after a */
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;

				if (iv[mid].b <= a)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < m && iv[lo].a < b; lo++) {
				uint64_t x = iv[lo].a > a ? iv[lo].a : a;
				uint64_t y = iv[lo].b < b ? iv[lo].b : b;

				if (iv[lo].tid != tid && y > x)
					overlap += (double)(y - x);
			}
		}
	}
	free(iv);
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

static void headline(struct cp_compare *c)
{
	const struct cp_profile *p = c->p;
	const char *src = rank_gprof(c) ? " (gprof)" : "";
	int best = -1;
	double bd = 0;

	c->hl_row = CP_COMPARE_NORANK;
	c->hl_busy = -1;
	if (!p->nprocs) {
		snprintf(c->headline, sizeof(c->headline),
			 "No procedures in this trace (build with "
			 "-finstrument-functions, or mark regions): the "
			 "critical path is %.1f%% of the elapsed time, at most "
			 "%.2f threads' worth of work ran in parallel on it.",
			 cp_pct(p->cp_len, p->elapsed_ns), p->max_parallelism);
		return;
	}
	/* a procedure the CPU profile underrates; first among those that
	 * hold their CP time themselves (not a caller such as main whose
	 * callees do the work) */
	for (int pass = 0; pass < 2 && best < 0; pass++)
		for (uint32_t i = 0; i < c->n; i++) {
			const struct cp_cmp_row *r = &c->rows[i];
			double cpu = rank_cpu_pct(c, r);

			if (!r->pp || r->cp_pct < HL_MIN_PCT ||
			    r->cp_pct < HL_RATIO * cpu || whole(c, r) ||
			    (!pass && !own(r)))
				continue;
			if (beats(c, best, i, r->cp_pct - cpu, bd)) {
				bd = r->cp_pct - cpu;
				best = (int)i;
			}
		}
	if (best >= 0) {
		const struct cp_cmp_row *r = &c->rows[best];
		double busy = busy_others(p, r->pp->proc);

		c->hl_row = (uint32_t)best;
		c->hl_busy = busy;
		if (busy >= 0 && busy < 0.3)
			snprintf(c->headline, sizeof(c->headline),
				 "%s: %.0f%% of CPU time%s, %.0f%% of the "
				 "critical path: the other threads wait while "
				 "it runs (busy %.0f%% of that time).",
				 r->name, rank_cpu_pct(c, r), src, r->cp_pct,
				 100 * busy);
		else if (busy >= 0)
			snprintf(c->headline, sizeof(c->headline),
				 "%s: %.0f%% of CPU time%s, %.0f%% of the "
				 "critical path: the run waits on it more "
				 "than its CPU time shows (the other threads "
				 "busy %.0f%% of that time).",
				 r->name, rank_cpu_pct(c, r), src, r->cp_pct,
				 100 * busy);
		else
			snprintf(c->headline, sizeof(c->headline),
				 "%s: %.0f%% of CPU time%s, %.0f%% of the "
				 "critical path: the run waits on it more "
				 "than its CPU time shows.",
				 r->name, rank_cpu_pct(c, r), src, r->cp_pct);
		return;
	}
	/* a procedure the CPU profile overrates */
	bd = 0;
	for (uint32_t i = 0; i < c->n; i++) {
		const struct cp_cmp_row *r = &c->rows[i];
		double cpu = rank_cpu_pct(c, r);

		if (!r->pp || cpu < HL_MIN_PCT ||
		    cpu < HL_RATIO * r->cp_pct || whole(c, r))
			continue;
		if (beats(c, best, i, cpu - r->cp_pct, bd)) {
			bd = cpu - r->cp_pct;
			best = (int)i;
		}
	}
	if (best >= 0) {
		const struct cp_cmp_row *r = &c->rows[best];

		c->hl_row = (uint32_t)best;
		snprintf(c->headline, sizeof(c->headline),
			 "%s: %.0f%% of CPU time%s but %.0f%% of the critical "
			 "path: it runs alongside other work, so tuning it "
			 "gains less than the CPU profile suggests (zeroing "
			 "it saves %.1f%%).",
			 r->name, rank_cpu_pct(c, r), src, r->cp_pct,
			 cp_pct(r->pp->zero_ns, p->cp_len));
		return;
	}
	/* no procedure stands out by a factor: the most striking row whose
	 * ranks differ, else the leader; procedures that hold their time
	 * themselves first (not a caller such as main) */
	bd = 0;
	for (int pass = 0; pass < 2 && best < 0; pass++)
		for (uint32_t i = 0; i < c->n; i++) {
			const struct cp_cmp_row *r = &c->rows[i];
			double d = fabs(r->cp_pct - rank_cpu_pct(c, r));

			if (!r->pp || !r->disagree || (!pass && !own(r)))
				continue;
			if (beats(c, best, i, d, bd)) {
				bd = d;
				best = (int)i;
			}
		}
	if (best >= 0) {
		const struct cp_cmp_row *r = &c->rows[best];

		c->hl_row = (uint32_t)best;
		snprintf(c->headline, sizeof(c->headline),
			 "%s: %.0f%% of CPU time%s, %.0f%% of the critical "
			 "path: the critical path ranks it %s (#%u) than the "
			 "CPU profile does (#%u); the two profiles differ only "
			 "in such details.",
			 r->name, rank_cpu_pct(c, r), src, r->cp_pct,
			 r->disagree > 0 ? "higher" : "lower", r->cp_rank,
			 r->cpu_rank);
		return;
	}
	for (int pass = 0; pass < 3 && best < 0; pass++)
		for (uint32_t i = 0; i < c->n && best < 0; i++) {
			const struct cp_cmp_row *r = &c->rows[i];

			if (r->pp && (pass == 2 ||
				      (!whole(c, r) && (pass || own(r)))))
				best = (int)i;
		}
	if (best >= 0) {
		const struct cp_cmp_row *r = &c->rows[best];

		c->hl_row = (uint32_t)best;
		snprintf(c->headline, sizeof(c->headline),
			 "The CPU profile and the critical path rank the "
			 "procedures alike: %s leads the critical path (%.0f%% "
			 "of CPU time%s, %.0f%% of the critical path; zeroing "
			 "it saves %.1f%%).",
			 r->name, rank_cpu_pct(c, r), src, r->cp_pct,
			 cp_pct(r->pp->zero_ns, p->cp_len));
	}
}

static void note(struct cp_compare *c)
{
	const struct cp_profile *p = c->p;
	const struct cp_gprof *gp = c->gp;
	double seen;
	size_t l = 0;

	c->note[0] = '\0';
	if (!gp)
		return;
	if (gp->no_time || !gp->total_ns) {
		snprintf(c->note, sizeof(c->note),
			 "gprof recorded no time (a run shorter than its "
			 "%.0f ms sample period, or a program not built with "
			 "-pg): only its call counts are meaningful.",
			 (double)gp->sample_ns / 1e6);
		return;
	}
	if (!p->exclusive)
		l = (size_t)snprintf(c->note, sizeof(c->note),
				     "gprof's self time excludes callees, the "
				     "critical-path columns include them: "
				     "ranks compare cpthread's CPU time "
				     "(--exclusive to rank gprof's). ");
	if (p->nthreads < 2 || l >= sizeof(c->note))
		return;
	seen = cp_pct(gp->total_ns, p->useful_ns);
	snprintf(c->note + l, sizeof(c->note) - l,
		 "gprof sampled %.2f s, cpthread measured %.2f s of CPU time "
		 "in %" PRIu32 " threads (%.0f%%): gprof's one profiling timer "
		 "under-samples threads that run at once (old systems sampled "
		 "the main thread only), so compare percentages, not seconds.",
		 (double)gp->total_ns / 1e9, (double)p->useful_ns / 1e9,
		 p->nthreads, seen);
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

int cp_compare_build(struct cp_compare *c, const struct cp_profile *p,
		     const struct cp_gprof *gp)
{
	uint32_t n = p->nprocs, extra = 0, ranked = 0;
	uint64_t *cpu = NULL, *cp = NULL;
	uint32_t *rc = NULL, *rp = NULL;
	bool *used = NULL;

	memset(c, 0, sizeof(*c));
	c->p = p;
	c->gp = gp;
	if (gp) {
		used = calloc(gp->n ? gp->n : 1, sizeof(*used));
		if (!used)
			goto err;
	}
	c->rows = calloc((size_t)n + (gp ? gp->n : 0) + 1, sizeof(*c->rows));
	if (!c->rows)
		goto err;
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
	cpu = malloc((c->n + 1) * sizeof(*cpu));
	cp = malloc((c->n + 1) * sizeof(*cp));
	rc = malloc((c->n + 1) * sizeof(*rc));
	rp = malloc((c->n + 1) * sizeof(*rp));
	if (!cpu || !cp || !rc || !rp)
		goto err;
	for (uint32_t i = 0; i < c->n; i++) {
		cpu[i] = rank_cpu_ns(c, &c->rows[i]);
		cp[i] = c->rows[i].pp ? c->rows[i].pp->cp_ns : 0;
	}
	if (ranks(cpu, c->n, rc) || ranks(cp, c->n, rp))
		goto err;
	for (uint32_t i = 0; i < c->n; i++)
		if (rc[i] != CP_COMPARE_NORANK)
			ranked++;
	for (uint32_t i = 0; i < c->n; i++) {
		struct cp_cmp_row *r = &c->rows[i];
		double d = r->cp_pct - rank_cpu_pct(c, r);
		uint32_t cr;

		r->cpu_rank = rc[i];
		r->cp_rank = r->pp ? rp[i] : CP_COMPARE_NORANK;
		/* no CPU time at all (gprof saw none): tied below every
		 * ranked one, so the CP can only rank it higher */
		cr = r->cpu_rank == CP_COMPARE_NORANK ? ranked + 1
						      : r->cpu_rank;
		if (!r->pp || r->cp_rank == CP_COMPARE_NORANK ||
		    cr == r->cp_rank ||
		    (r->cpu_rank == CP_COMPARE_NORANK && r->cp_rank > cr) ||
		    (cr > TOP_MARKED && r->cp_rank > TOP_MARKED) ||
		    fabs(d) < MIN_POINTS)
			continue;
		r->disagree = r->cp_rank < cr ? 1 : -1;
	}
	headline(c);
	note(c);
	free(cpu);
	free(cp);
	free(rc);
	free(rp);
	free(used);
	return 0;
err:
	free(cpu);
	free(cp);
	free(rc);
	free(rp);
	free(used);
	cp_compare_free(c);
	return -1;
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

/* One unit for a whole table, so columns line up and compare. */
struct unit {
	const char *name;
	double div;
	int prec;
};

static struct unit pick_unit(uint64_t max)
{
	if (max >= 10000000000ull)
		return (struct unit){ "s", 1e9, 2 };
	if (max >= 10000000ull)
		return (struct unit){ "ms", 1e6, 1 };
	if (max >= 10000ull)
		return (struct unit){ "us", 1e3, 1 };
	return (struct unit){ "ns", 1, 0 };
}

static void cell(FILE *f, struct unit u, bool have, uint64_t ns, double pct)
{
	if (!have) {
		fprintf(f, " %9s %6s", "-", "");
		return;
	}
	fprintf(f, " %9.*f %5.1f%%", u.prec, (double)ns / u.div, pct);
}

static void fmt_rank(char *buf, size_t len, uint32_t r)
{
	if (r == CP_COMPARE_NORANK)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%" PRIu32, r);
}

#define CP_STR2(x) #x
#define CP_STR(x) CP_STR2(x)

bool cp_compare_thin(const struct cp_profile *p, const struct cp_proc_prof *pp)
{
	return p->sampled && (pp->samples < CP_SAMPLES_THIN ||
			      (pp->cp_ns && pp->cp_samples < CP_SAMPLES_THIN));
}

void cp_compare_print(FILE *f, const struct cp_compare *c, uint32_t max)
{
	const struct cp_profile *p = c->p;
	uint64_t top = p->cp_len > c->cpu_total_ns ? p->cp_len
						    : c->cpu_total_ns;
	struct unit u;
	size_t w = 9;	/* "procedure" */
	uint32_t rows = max && max < c->n ? max : c->n, marked = 0;
	uint32_t uncomputed = 0, thin = 0;
	bool gcol = c->gp != NULL;
	bool gtotal = gcol && !p->exclusive && cp_gprof_has_totals(c->gp);
	char k[32];

	if (p->useful_ns > top)
		top = p->useful_ns;
	u = pick_unit(top);
	for (uint32_t i = 0; i < rows; i++) {
		size_t l = strlen(c->rows[i].name);

		if (l > w)
			w = l;
	}
	if (w > 40)
		w = 40;
	fprintf(f, "Procedures (%s, by time on the critical path)\n",
		p->exclusive ? "exclusive" : "inclusive");
	fprintf(f, "  %s\n", c->headline);
	if (c->note[0])
		fprintf(f, "  note: %s\n", c->note);
	fprintf(f, "\n  %-*s", (int)w, "");
	if (gcol)
		fprintf(f, " %16s", gtotal ? "gprof total" : "gprof self");
	snprintf(k, sizeof(k), "MBM (k=%" PRIu32 ")", p->npaths);
	fprintf(f, " %16s %16s %16s %16s %16s %8s  %s\n", p->sampled ?
		"sampled CPU" : "cpthread CPU", "critical path", "CP zeroing",
		"Slack", k, p->sampled ? "samples" : "", "rank");
	fprintf(f, "  %-*s", (int)w, "procedure");
	for (int i = 0; i < 5 + gcol; i++)
		fprintf(f, " %7s(%s) %5s", "time", u.name, "%");
	fprintf(f, " %8s  CP/CPU\n", p->sampled ? "CPU/CP" : "calls");
	for (uint32_t i = 0; i < rows; i++) {
		const struct cp_cmp_row *r = &c->rows[i];
		const struct cp_proc_prof *pp = r->pp;
		bool comp = pp && pp->computed;
		char a[16], b[16];

		fprintf(f, "  %-*.*s", (int)w, (int)w, r->name);
		if (gcol && gtotal)
			cell(f, u, r->gp && r->gp->has_total,
			     r->gp ? r->gp->total_ns : 0,
			     r->gp ? r->gp->total_pct : 0);
		else if (gcol)
			cell(f, u, r->gp != NULL, r->gp ? r->gp->self_ns : 0,
			     r->gp ? r->gp->pct : 0);
		cell(f, u, pp != NULL, pp ? pp->cpu_ns : 0,
		     pp ? cp_pct(pp->cpu_ns, p->useful_ns) : 0);
		cell(f, u, pp != NULL, pp ? pp->cp_ns : 0, r->cp_pct);
		cell(f, u, comp, comp ? pp->zero_ns : 0,
		     comp ? cp_pct(pp->zero_ns, p->cp_len) : 0);
		cell(f, u, comp, comp ? pp->slack_ns : 0,
		     comp ? cp_pct(pp->slack_ns, p->cp_len) : 0);
		cell(f, u, comp, comp ? pp->mbm_ns : 0,
		     comp ? cp_pct(pp->mbm_ns, p->cp_len) : 0);
		if (pp && p->sampled) {
			char sm[32];

			snprintf(sm, sizeof(sm), "%" PRIu64 "/%" PRIu64,
				 pp->samples, pp->cp_samples);
			fprintf(f, " %8s", sm);
		} else if (pp)
			fprintf(f, " %8" PRIu64, pp->calls);
		else if (r->gp && r->gp->has_calls)
			fprintf(f, " %8" PRIu64, r->gp->calls);
		else
			fprintf(f, " %8s", "-");
		uncomputed += pp && pp->cp_ns && !pp->computed;
		fmt_rank(a, sizeof(a), r->cp_rank);
		fmt_rank(b, sizeof(b), r->cpu_rank);
		fprintf(f, "  %s/%s%s%s\n", a, b,
			r->disagree > 0 ? "  <- CP ranks it higher" :
			r->disagree < 0 ? "  <- CP ranks it lower" : "",
			pp && cp_compare_thin(p, pp) ? "  (thin)" : "");
		thin += pp && cp_compare_thin(p, pp);
		marked += r->disagree != 0;
	}
	if (rows < c->n)
		fprintf(f, "  (%" PRIu32 " more procedures; --top 0 shows "
			"them)\n", c->n - rows);
	if (uncomputed)
		fprintf(f, "  ('-': zeroing, Slack and MBM are computed for "
			"the procedures with the most CP time;\n  --top N for "
			"more)\n");
	fprintf(f, "\n  CPU %% is of all CPU time%s;\n  the other %% columns "
		"are of the critical path (%.*f %s).\n",
		gcol ? " (gprof: of gprof's samples)" : "", u.prec,
		(double)p->cp_len / u.div, u.name);
	if (p->sampled)
		fprintf(f, "  Procedures from %" PRIu64 " CPU-time samples "
			"(%" PRIu64 " on the critical path); samples CPU/CP: "
			"those\n  each row's CPU and CP figures rest on%s.\n",
			p->samples, p->cp_samples, thin ? "; (thin): fewer "
			"than " CP_STR(CP_SAMPLES_THIN) " of either, too few "
			"to trust" : "");
	fprintf(f, "  Times are %s of callees.  rank CP/CPU: position by "
		"critical-path time\n  and by %s; %s.\n",
		p->exclusive ? "exclusive" : "inclusive",
		rank_gprof(c) ? "gprof's self time" : "cpthread's CPU time",
		marked ? "'<-' marks where they disagree"
		       : "no row's ranks disagree");
}

void cp_compare_emit_proc(struct cp_emit *e, const struct cp_compare *c,
			  const char *name)
{
	const struct cp_cmp_row *r = cp_compare_find(c, name);

	if (c->gp) {
		if (r && r->gp) {
			cp_emit_u64(e, "gprof_ns", r->gp->self_ns);
			cp_emit_f64(e, "gprof_pct", r->gp->pct);
		} else {
			cp_emit_null(e, "gprof_ns");
			cp_emit_null(e, "gprof_pct");
		}
		if (r && r->gp && r->gp->has_total) {
			cp_emit_u64(e, "gprof_total_ns", r->gp->total_ns);
			cp_emit_f64(e, "gprof_total_pct", r->gp->total_pct);
		} else {
			cp_emit_null(e, "gprof_total_ns");
			cp_emit_null(e, "gprof_total_pct");
		}
	}
	if (!r)
		return;
	if (r->cp_rank != CP_COMPARE_NORANK)
		cp_emit_u64(e, "cp_rank", r->cp_rank);
	else
		cp_emit_null(e, "cp_rank");
	if (r->cpu_rank != CP_COMPARE_NORANK)
		cp_emit_u64(e, "cpu_rank", r->cpu_rank);
	else
		cp_emit_null(e, "cpu_rank");
	cp_emit_i64(e, "rank_disagree", r->disagree);
}

void cp_compare_emit_summary(struct cp_emit *e, const struct cp_compare *c)
{
	cp_emit_str(e, "headline", c->headline);
	if (!c->gp)
		return;
	cp_emit_obj_begin(e, "gprof");
	if (c->gp->exe)
		cp_emit_str(e, "exe", c->gp->exe);
	if (c->gp->gmon)
		cp_emit_str(e, "gmon", c->gp->gmon);
	cp_emit_u64(e, "total_ns", c->gp->total_ns);
	cp_emit_u64(e, "sample_ns", c->gp->sample_ns);
	cp_emit_str(e, "note", c->note);
	/* what gprof saw that the trace has no procedure for */
	cp_emit_arr_begin(e, "only_gprof");
	for (uint32_t i = 0; i < c->n; i++) {
		const struct cp_cmp_row *r = &c->rows[i];

		if (r->pp || !r->gp)
			continue;
		cp_emit_obj_begin(e, NULL);
		cp_emit_str(e, "name", r->name);
		cp_emit_u64(e, "gprof_ns", r->gp->self_ns);
		cp_emit_f64(e, "gprof_pct", r->gp->pct);
		if (r->gp->has_calls)
			cp_emit_u64(e, "calls", r->gp->calls);
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
	cp_emit_obj_end(e);
}
