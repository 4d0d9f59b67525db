/*
 * cp_compare_out.c - the CPU profile beside the critical-path profile in
 * words (cp_compare_out.h): the headline and the note chosen by
 * cp_compare.c, the table with its legend, the JSON members.
 */
#include "cp_out.h"
#include "cp_compare_out.h"

#include <inttypes.h>
#include <string.h>

#include "cp_sampled.h"
#include "cp_sampled_out.h"
#include "cp_samples.h"

/* Headline: " (gprof)" after a CPU share that is gprof's. */
static const char *cpu_src(const struct cp_compare *c)
{
	return cp_compare_ranks_gprof(c) ? " (gprof)" : "";
}

static void underrated(const struct cp_compare *c, char *buf, size_t len)
{
	const struct cp_cmp_row *r = &c->rows[c->hl_row];
	double cpu = cp_compare_rank_cpu_pct(c, r), busy = c->hl_busy;

	if (busy >= 0 && busy < 0.3)
		snprintf(buf, len, "%s: %.0f%% of CPU time%s, %.0f%% of the "
			 "critical path: the other threads wait while it runs "
			 "(busy %.0f%% of that time).", r->name, cpu,
			 cpu_src(c), r->cp_pct, 100 * busy);
	else if (busy >= 0)
		snprintf(buf, len, "%s: %.0f%% of CPU time%s, %.0f%% of the "
			 "critical path: the run waits on it more than its "
			 "CPU time shows (the other threads busy %.0f%% of "
			 "that time).", r->name, cpu, cpu_src(c), r->cp_pct,
			 100 * busy);
	else
		snprintf(buf, len, "%s: %.0f%% of CPU time%s, %.0f%% of the "
			 "critical path: the run waits on it more than its "
			 "CPU time shows.", r->name, cpu, cpu_src(c),
			 r->cp_pct);
}

/* What zeroing @pp saves, as the headline's clause between @pre and
 * @post, in @b; empty when it was not computed (a caller that did not
 * ask for it), unless it has no CP time, whose zeroing saves nothing. */
static const char *zeroing(const struct cp_profile *p,
			   const struct cp_proc_prof *pp, const char *pre,
			   const char *post, char *b, size_t len)
{
	b[0] = '\0';
	if (pp->computed || (!pp->cp_ns && !pp->cp_unknown))
		snprintf(b, len, "%szeroing it saves %.1f%%%s", pre,
			 cp_pct(pp->zero_ns, p->cp_len), post);
	return b;
}

void cp_compare_out_headline(const struct cp_compare *c, char *buf,
			     size_t len)
{
	const struct cp_profile *p = c->p;
	char zb[48], why[400];
	const struct cp_cmp_row *r = c->hl_row == CP_COMPARE_NORANK ? NULL :
				     &c->rows[c->hl_row];
	double cpu = r ? cp_compare_rank_cpu_pct(c, r) : 0;

	buf[0] = '\0';
	switch (c->finding) {
	case CP_CMP_NOTHING:
		break;
	case CP_CMP_NO_PROCS:
		snprintf(buf, len, "No procedure activity in this trace (%s): "
			 "the critical path is %.1f%% of the elapsed time, at "
			 "most %.2f threads' worth of work ran in parallel on "
			 "it.", cp_sampled_out_none(p->trace, why, sizeof(why)),
			 cp_pct(p->cp_len, p->elapsed_ns), p->max_parallelism);
		break;
	case CP_CMP_UNDERRATED:
		underrated(c, buf, len);
		break;
	case CP_CMP_OVERRATED:
		snprintf(buf, len, "%s: %.0f%% of CPU time%s but %.0f%% of the "
			 "critical path: it runs alongside other work, so "
			 "tuning it gains less than the CPU profile suggests"
			 "%s.", r->name, cpu, cpu_src(c), r->cp_pct,
			 zeroing(p, r->pp, " (", ")", zb, sizeof(zb)));
		break;
	case CP_CMP_RANKS_DIFFER:
		snprintf(buf, len, "%s: %.0f%% of CPU time%s, %.0f%% of the "
			 "critical path: the critical path ranks it %s (#%u) "
			 "than the CPU profile does (#%u); the two profiles "
			 "differ only in such details.", r->name, cpu,
			 cpu_src(c), r->cp_pct,
			 r->disagree > 0 ? "higher" : "lower", r->cp_rank,
			 r->cpu_rank);
		break;
	case CP_CMP_ALIKE:
		snprintf(buf, len, "The CPU profile and the critical path rank "
			 "the procedures alike: %s leads the critical path "
			 "(%.0f%% of CPU time%s, %.0f%% of the critical "
			 "path%s).", r->name, cpu, cpu_src(c), r->cp_pct,
			 zeroing(p, r->pp, "; ", "", zb, sizeof(zb)));
		break;
	case CP_CMP_THIN:
		snprintf(buf, len, "Too few CPU-time samples to compare the "
			 "two profiles: %" PRIu64 " samples, %" PRIu64 " on the "
			 "critical path, and no procedure has %d of each; trace "
			 "a longer run or sample more often "
			 "(CPTHREAD_SAMPLING_HZ).", p->samples, p->cp_samples,
			 CP_SAMPLES_THIN);
		break;
	}
}

void cp_compare_out_note(const struct cp_compare *c, char *buf, size_t len)
{
	const struct cp_profile *p = c->p;
	const struct cp_gprof *gp = c->gp;
	size_t l = 0;

	buf[0] = '\0';
	if (c->gprof_no_time) {
		snprintf(buf, len, "gprof recorded no time (a run shorter than "
			 "its %.0f ms sample period, or a program not built "
			 "with -pg): only its call counts are meaningful.",
			 (double)gp->sample_ns / 1e6);
		return;
	}
	if (c->gprof_self_vs_incl)
		l = (size_t)snprintf(buf, len, "gprof's self time excludes "
				     "callees, the critical-path columns "
				     "include them: ranks compare "
				     "cpthread's CPU time (--exclusive to "
				     "rank gprof's). ");
	if (!c->gprof_undersampled || l >= len)
		return;
	snprintf(buf + l, len - l, "gprof sampled %.2f s, cpthread measured "
		 "%.2f s of CPU time in %" PRIu32 " threads (%.0f%%): gprof's "
		 "one profiling timer under-samples threads that run at once "
		 "(old systems sampled the main thread only), so compare "
		 "percentages, not seconds.", (double)gp->total_ns / 1e9,
		 (double)p->useful_ns / 1e9, p->nthreads,
		 cp_pct(gp->total_ns, p->useful_ns));
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

/* How the table is laid out. */
struct layout {
	struct unit u;		/* one unit for all time columns */
	int w;			/* width of the name column */
	uint32_t rows;		/* rows shown */
	bool gcol;		/* a gprof column */
	bool gtotal;		/* ... of gprof's self + children */
};

static struct layout lay_out(const struct cp_compare *c, uint32_t max)
{
	const struct cp_profile *p = c->p;
	uint64_t top = p->cp_len > c->cpu_total_ns ? p->cp_len
						    : c->cpu_total_ns;
	struct layout l = {
		.w = 9,	/* "procedure" */
		.rows = max && max < c->n ? max : c->n,
		.gcol = c->gp != NULL,
	};

	l.gtotal = l.gcol && !p->exclusive && cp_gprof_has_totals(c->gp);
	if (p->useful_ns > top)
		top = p->useful_ns;
	l.u = pick_unit(top);
	for (uint32_t i = 0; i < l.rows; i++) {
		int n = (int)strlen(c->rows[i].name);

		if (n > l.w)
			l.w = n;
	}
	if (l.w > 40)
		l.w = 40;
	return l;
}

/* Title, headline, note and the two heading lines. */
static void text_heads(FILE *f, const struct cp_compare *c,
		       const struct layout *l)
{
	const struct cp_profile *p = c->p;
	char k[32], hl[512], nt[512];

	cp_compare_out_headline(c, hl, sizeof(hl));
	cp_compare_out_note(c, nt, sizeof(nt));
	fprintf(f, "Procedures (%s, by time on the critical path)\n",
		p->exclusive ? "exclusive" : "inclusive");
	fprintf(f, "  %s\n", hl);
	if (nt[0])
		fprintf(f, "  note: %s\n", nt);
	fprintf(f, "\n  %-*s", l->w, "");
	if (l->gcol)
		fprintf(f, " %16s", l->gtotal ? "gprof total" : "gprof self");
	snprintf(k, sizeof(k), "MBM (k=%" PRIu32 ")", p->npaths);
	fprintf(f, " %16s %16s %16s %16s %16s %8s  %s\n", p->sampled ?
		"sampled CPU" : "cpthread CPU", "critical path", "CP zeroing",
		"Slack", k, p->sampled ? "samples" : "", "rank");
	fprintf(f, "  %-*s", l->w, "procedure");
	for (int i = 0; i < 5 + l->gcol; i++)
		fprintf(f, " %7s(%s) %5s", "time", l->u.name, "%");
	fprintf(f, " %8s  CP/CPU\n", p->sampled ? "CPU/CP" : "calls");
}

/* The calls (or samples CPU/CP) column of row @r. */
static void calls_cell(FILE *f, const struct cp_profile *p,
		       const struct cp_cmp_row *r)
{
	const struct cp_proc_prof *pp = r->pp;

	if (pp && p->sampled) {
		char sm[32];

		if (pp->cp_unknown)
			snprintf(sm, sizeof(sm), "%" PRIu64 "/-", pp->samples);
		else
			snprintf(sm, sizeof(sm), "%" PRIu64 "/%" PRIu64,
				 pp->samples, pp->cp_samples);
		fprintf(f, " %8s", sm);
	} else if (pp) {
		fprintf(f, " %8" PRIu64, pp->calls);
	} else if (r->gp && r->gp->has_calls) {
		fprintf(f, " %8" PRIu64, r->gp->calls);
	} else {
		fprintf(f, " %8s", "-");
	}
}

static void text_row(FILE *f, const struct cp_compare *c,
		     const struct layout *l, const struct cp_cmp_row *r)
{
	const struct cp_profile *p = c->p;
	const struct cp_proc_prof *pp = r->pp;
	bool comp = pp && pp->computed, cp = pp && !pp->cp_unknown;
	bool slack = comp && !p->slack_missing;
	struct unit u = l->u;
	char a[16], b[16], nm[64];

	fprintf(f, "  %-*s", l->w, cp_out_fit(nm, sizeof(nm), r->name, l->w));
	if (l->gcol && l->gtotal)
		cell(f, u, r->gp && r->gp->has_total,
		     r->gp ? r->gp->total_ns : 0,
		     r->gp ? r->gp->total_pct : 0);
	else if (l->gcol)
		cell(f, u, r->gp != NULL, r->gp ? r->gp->self_ns : 0,
		     r->gp ? r->gp->pct : 0);
	cell(f, u, pp != NULL, pp ? pp->cpu_ns : 0,
	     pp ? cp_pct(pp->cpu_ns, p->useful_ns) : 0);
	cell(f, u, cp, cp ? pp->cp_ns : 0, r->cp_pct);
	cell(f, u, comp, comp ? pp->zero_ns : 0,
	     comp ? cp_pct(pp->zero_ns, p->cp_len) : 0);
	cell(f, u, slack, slack ? pp->slack_ns : 0,
	     slack ? cp_pct(pp->slack_ns, p->cp_len) : 0);
	cell(f, u, comp, comp ? pp->mbm_ns : 0,
	     comp ? cp_pct(pp->mbm_ns, p->cp_len) : 0);
	calls_cell(f, p, r);
	fmt_rank(a, sizeof(a), r->cp_rank);
	fmt_rank(b, sizeof(b), r->cpu_rank);
	fprintf(f, "  %s/%s%s%s\n", a, b,
		r->disagree > 0 ? "  <- CP ranks it higher" :
		r->disagree < 0 ? "  <- CP ranks it lower" : "",
		pp && cp_compare_thin(p, pp) ? "  (thin)" : "");
}

/* What was left out, what the columns are of, what the marks mean. */
static void text_legend(FILE *f, const struct cp_compare *c,
			const struct layout *l, uint32_t marked,
			uint32_t uncomputed, uint32_t thin)
{
	const struct cp_profile *p = c->p;

	if (l->rows < c->n)
		fprintf(f, "  (%" PRIu32 " more procedures; --top 0 shows "
			"them)\n", c->n - l->rows);
	if (uncomputed)
		fprintf(f, "  ('-': zeroing, Slack and MBM are computed for "
			"the procedures with the most CP time;\n  --top N for "
			"more)\n");
	fprintf(f, "\n  CPU %% is of all CPU time%s;\n  the other %% columns "
		"are of the critical path (%.*f %s).\n",
		l->gcol ? " (gprof: of gprof's samples)" : "", l->u.prec,
		(double)p->cp_len / l->u.div, l->u.name);
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
		cp_compare_ranks_gprof(c) ? "gprof's self time"
					  : "cpthread's CPU time",
		marked ? "'<-' marks where they disagree"
		       : "no row's ranks disagree");
}

void cp_compare_out_text(FILE *f, const struct cp_compare *c, uint32_t max)
{
	struct layout l = lay_out(c, max);
	uint32_t marked = 0, uncomputed = 0, thin = 0;

	text_heads(f, c, &l);
	for (uint32_t i = 0; i < l.rows; i++) {
		const struct cp_cmp_row *r = &c->rows[i];
		const struct cp_proc_prof *pp = r->pp;

		text_row(f, c, &l, r);
		uncomputed += pp && pp->cp_ns && !pp->computed;
		thin += pp && cp_compare_thin(c->p, pp);
		marked += r->disagree != 0;
	}
	text_legend(f, c, &l, marked, uncomputed, thin);
}

void cp_compare_out_emit_proc(struct cp_emit *e, const struct cp_compare *c,
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

void cp_compare_out_emit_summary(struct cp_emit *e,
				  const struct cp_compare *c)
{
	char hl[512], nt[512];

	cp_compare_out_headline(c, hl, sizeof(hl));
	cp_compare_out_note(c, nt, sizeof(nt));
	cp_emit_str(e, "headline", hl);
	if (!c->gp)
		return;
	cp_emit_obj_begin(e, "gprof");
	if (c->gp->exe)
		cp_emit_str(e, "exe", c->gp->exe);
	if (c->gp->gmon)
		cp_emit_str(e, "gmon", c->gp->gmon);
	cp_emit_u64(e, "total_ns", c->gp->total_ns);
	cp_emit_u64(e, "sample_ns", c->gp->sample_ns);
	cp_emit_str(e, "note", nt);
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
