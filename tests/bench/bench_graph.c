/*
 * bench_graph.c - time and peak heap of the graph algorithms on generated
 * program activity graphs of 10^5 .. 10^7 edges (not a test: run by hand;
 * it prints the command that reproduces it).
 *
 * Two shapes of graph:
 *  - traced (default): like those the trace builder makes: T thread chains
 *    of events whose segments weigh 0..1000 ns (one in ten zero: waits)
 *    and belong to one of 256 procedures (skewed: a few procedures own
 *    most time), and zero-weight dependency edges from the latest event of
 *    a random other thread to a new event (a quarter of the events), plus
 *    one start and one end vertex.  Threads advance in random interleaving,
 *    so every edge joins an older vertex to a newer one.
 *  - random (-r): a random DAG with long paths, 0.6 vertices per edge: a
 *    chain v-1 -> v through all vertices and the other edges from a random
 *    one of the 50 vertices before v, weights 0..999999 (few ties),
 *    labels as above.
 *    Its critical path runs through most vertices (hundreds of thousands
 *    of edges at 10^6 edges), the case where spelling paths out costs k
 *    times the path length.
 *
 * Phases per size: build (reserve, add vertices and edges, finish: CSR
 * and Kahn's order), CPM (both passes and the path), zeroing and Slack of
 * the top groups by CP time, k longest paths for each k, MBM for the
 * smaller k.  Times are wall clock on one thread; memory is the peak of
 * live heap bytes above the phase's start, tracked by the malloc wrappers
 * below (exact, unlike RSS, which cannot be reset between phases).
 * With -c, the graph is also written as a plain-text PAG and `cpt paths`
 * runs on it for each k, text and JSON, as child processes: wall and CPU
 * time including parsing, max RSS, output size.
 *
 * usage: bench_graph [-e N,N,..] [-t THREADS] [-k K,K,..] [-z GROUPS]
 *                    [-m MBM_MAX_K] [-s SEED] [-w CROSS_W] [-r]
 *                    [-c CPT] [-d DIR]
 * -w gives dependency edges weights 1..CROSS_W instead of 0: fewer tied
 * paths (the traced shape only).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cp_cpm.h"
#include "cp_kpaths.h"
#include "cp_mbm.h"
#include "cp_pag.h"
#include "cp_slack.h"
#include "cp_zero.h"

#include "bench_cli.h"
#include "bench_heap.h"

/* ---- measurement ---- */

struct meter {
	struct timespec t0;
	long long base;
};

static void meter_start(struct meter *m)
{
	m->base = heap_cur;
	heap_peak = heap_cur;
	clock_gettime(CLOCK_MONOTONIC, &m->t0);
}

/* Seconds since start; *@peak = peak heap bytes above the start. */
static double meter_stop(const struct meter *m, long long *peak)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	*peak = heap_peak - m->base;
	return (double)(t1.tv_sec - m->t0.tv_sec) +
	       (double)(t1.tv_nsec - m->t0.tv_nsec) * 1e-9;
}

static void row(uint64_t ne, const char *phase, double s, long long peak,
		uint64_t work)
{
	printf("%10" PRIu64 "  %-22s %9.4f s %9.2f Medges/s %9.1f MB"
	       " %7.1f B/edge\n", ne, phase, s,
	       s > 0 ? (double)work / s / 1e6 : 0.0, (double)peak / 1048576.0,
	       ne ? (double)peak / (double)ne : 0.0);
	fflush(stdout);
}

/* ---- the generator ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct gen {
	uint32_t nv, ne;
	uint32_t *tail, *head, *label;
	uint64_t *w;
};

#define NPROCS 256

/* weight of dependency edges: 0 (the model), or 1..cross_w to break ties */
static uint64_t cross_w;

/* About @target edges over @nt threads. */
static void generate(struct gen *gn, uint64_t target, uint32_t nt)
{
	uint32_t *last = malloc(sizeof(*last) * nt), cap, v = 0, e = 0;

	cap = (uint32_t)target + 2 * nt + 16;
	gn->tail = malloc(sizeof(uint32_t) * cap);
	gn->head = malloc(sizeof(uint32_t) * cap);
	gn->label = malloc(sizeof(uint32_t) * cap);
	gn->w = malloc(sizeof(uint64_t) * cap);
#define EDGE(T, H, W, L)                                                     \
	do {                                                                 \
		gn->tail[e] = (T);                                           \
		gn->head[e] = (H);                                           \
		gn->w[e] = (W);                                              \
		gn->label[e] = (L);                                          \
		e++;                                                         \
	} while (0)
	v = 1;				/* vertex 0: start */
	for (uint32_t t = 0; t < nt; t++) {
		last[t] = v++;
		EDGE(0, last[t], 0, CP_PAG_NONE);
	}
	while (e + nt + 2 < target) {
		uint32_t t = (uint32_t)(rnd() % nt), nv = v++;
		uint64_t r = rnd();
		double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);
		uint32_t proc = (uint32_t)(NPROCS * u * u * u);
		uint64_t w = (r & 15) < 2 ? 0 : 1 + (r >> 40) % 1000;

		EDGE(last[t], nv, w, proc);
		if (nt > 1 && ((r >> 4) & 3) == 0) {
			uint32_t o = (uint32_t)(rnd() % (nt - 1));

			if (o >= t)
				o++;
			EDGE(last[o], nv, cross_w ? 1 + rnd() % cross_w : 0,
			     CP_PAG_NONE);
		}
		last[t] = nv;
	}
	for (uint32_t t = 0; t < nt; t++)
		EDGE(last[t], v, 0, CP_PAG_NONE);
	v++;				/* the end vertex */
#undef EDGE
	gn->nv = v;
	gn->ne = e;
	free(last);
}

/* About @target edges: a chain and short random jumps back (-r). */
static void generate_random(struct gen *gn, uint64_t target)
{
	uint32_t nv = (uint32_t)(target * 3 / 5), e = 0;

	if (nv < 2)
		nv = 2;
	if (target < nv - 1)
		target = nv - 1;
	gn->tail = malloc(sizeof(uint32_t) * target);
	gn->head = malloc(sizeof(uint32_t) * target);
	gn->label = malloc(sizeof(uint32_t) * target);
	gn->w = malloc(sizeof(uint64_t) * target);
	for (uint32_t v = 1; v < nv; v++) {
		uint64_t r = rnd();
		double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);

		gn->tail[e] = v - 1;
		gn->head[e] = v;
		gn->w[e] = r % 1000000;
		gn->label[e++] = (uint32_t)(NPROCS * u * u * u);
	}
	while (e < target) {
		uint64_t r = rnd();
		uint32_t v = 1 + (uint32_t)(r % (nv - 1));
		uint32_t back = 1 + (uint32_t)((r >> 32) % 50);
		double u = (double)(rnd() >> 11) * (1.0 / 9007199254740992.0);

		gn->tail[e] = back > v ? 0 : v - back;
		gn->head[e] = v;
		gn->w[e] = (r >> 20) % 1000000;
		gn->label[e++] = (uint32_t)(NPROCS * u * u * u);
	}
	gn->nv = nv;
	gn->ne = e;
}

/* The graph as a plain-text PAG at @path; returns 0 or -1. */
static int write_pag(const struct gen *gn, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	for (uint32_t e = 0; e < gn->ne; e++) {
		fprintf(f, "e v%u v%u %" PRIu64, gn->tail[e], gn->head[e],
			gn->w[e]);
		if (gn->label[e] != CP_PAG_NONE)
			fprintf(f, " proc_%u", gn->label[e]);
		fputc('\n', f);
	}
	return fclose(f) ? -1 : 0;
}

/* `cpt paths PAG --k K` and its JSON form, as child processes. */
static void cli_paths(const char *cpt, const char *dir, const char *pag,
		      const uint64_t *ks, int nk)
{
	char outp[4096], kb[32];

	snprintf(outp, sizeof(outp), "%s/paths.out", dir);
	printf("            %-34s %8s %8s %8s %10s\n",
	       "cpt (stdout to a file)", "wall s", "cpu s", "RSS MB",
	       "output MB");
	for (int i = 0; i < nk; i++) {
		for (int json = 0; json < 2; json++) {
			char *argv[] = { (char *)cpt, "paths", (char *)pag,
					 "--k", kb, "--format",
					 json ? "json" : "text", NULL };
			struct bench_cli r;
			char label[64];

			snprintf(kb, sizeof(kb), "%" PRIu64, ks[i]);
			snprintf(label, sizeof(label), "paths --k %s%s", kb,
				 json ? " --format json" : "");
			if (bench_cli_run(argv, outp, outp, &r)) {
				fprintf(stderr, "fork or wait4 failed\n");
				exit(1);
			}
			printf("            %-34s %8.3f %8.3f %8.1f %10.2f%s\n",
			       label, r.wall, r.cpu, r.rss_mb, r.out_mb,
			       r.status ? "  FAILED" : "");
			fflush(stdout);
		}
	}
	unlink(outp);
}

static void gen_free(struct gen *gn)
{
	free(gn->tail);
	free(gn->head);
	free(gn->label);
	free(gn->w);
}

static int parse_list(const char *s, uint64_t *out, int max)
{
	int n = 0;

	while (*s && n < max) {
		char *end;
		double d = strtod(s, &end);

		if (end == s)
			break;
		out[n++] = (uint64_t)d;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* indices of the @z groups with most CP time, into @top; returns count */
static uint32_t top_groups(const uint64_t *cpt, uint32_t n, uint32_t z,
			   uint32_t *top)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t j;

		if (cpt[i] == 0)
			continue;
		for (j = m; j > 0 && cpt[top[j - 1]] < cpt[i]; j--)
			if (j < z)
				top[j] = top[j - 1];
		if (j < z) {
			top[j] = i;
			if (m < z)
				m++;
		}
	}
	return m;
}

/* graph shape and CLI runs (-r, -c, -d) */
static bool random_shape;
static const char *cli_cpt, *cli_dir = "/tmp";

/* Build @g from @gn (timed: a row), then free @gn. */
static void bench_build(struct gen *gn, struct cp_pag *g)
{
	struct meter m;
	long long peak;
	char err[256];
	double s;

	meter_start(&m);
	cp_pag_init(g);
	for (uint32_t v = 0; v < gn->nv; v++)
		cp_pag_add_vertex(g);
	for (uint32_t i = 0; i < NPROCS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "proc_%u", i);
		cp_pag_intern(g, name);
	}
	if (cp_pag_reserve(g, gn->ne, 0)) {
		fprintf(stderr, "reserve: out of memory\n");
		exit(1);
	}
	for (uint32_t e = 0; e < gn->ne; e++)
		cp_pag_add_edge(g, gn->tail[e], gn->head[e], gn->w[e],
				gn->label[e]);
	if (cp_pag_finish(g, err, sizeof(err))) {
		fprintf(stderr, "finish: %s\n", err);
		exit(1);
	}
	s = meter_stop(&m, &peak);
	row(g->ne, "build (add+finish)", s, peak, g->ne);
	gen_free(gn);
}

/* Zeroing and Slack of the @nzero groups with the most CP time. */
static void bench_groups(const struct cp_pag *g, const struct cp_cpm *c,
			 const struct cp_groups *gr, uint32_t nzero)
{
	uint64_t cpt[NPROCS], *scratch, z = 0, sl = 0;
	uint32_t top[64], ntop;
	struct cp_slack_ws *ws;
	struct meter m;
	long long peak;
	double s;

	cp_cpm_group_time(c, gr, cpt);
	ntop = top_groups(cpt, NPROCS, nzero, top);
	if (!ntop)
		return;
	scratch = malloc(sizeof(*scratch) * g->nv);
	meter_start(&m);
	for (uint32_t i = 0; i < ntop; i++)
		z += c->length - cp_zero_group(c, gr, top[i], scratch);
	s = meter_stop(&m, &peak);
	row(g->ne, "zeroing, per group", s / ntop, peak, g->ne);
	meter_start(&m);
	ws = cp_slack_ws_new(c);
	for (uint32_t i = 0; i < ntop; i++)
		sl += cp_slack_group(ws, gr, top[i]);
	cp_slack_ws_free(ws);
	s = meter_stop(&m, &peak);
	row(g->ne, "Slack, per group", s / ntop, peak, g->ne);
	printf("%10" PRIu64 "  (top %u groups: CP time of the first %"
	       PRIu64 ", zeroing benefit sum %" PRIu64 ", Slack sum %"
	       PRIu64 ")\n", (uint64_t)g->ne, ntop, cpt[top[0]], z, sl);
	free(scratch);
}

/* k paths for each of @ks, and MBM on them up to k = @mbm_max_k. */
static void bench_kpaths(const struct cp_pag *g, const struct cp_cpm *c,
			 const struct cp_groups *gr, const uint64_t *ks,
			 int nk, uint64_t mbm_max_k)
{
	for (int i = 0; i < nk; i++) {
		struct cp_kpaths kp;
		struct meter m;
		long long peak;
		char name[40];
		uint64_t sumlen = 0;
		double s;

		meter_start(&m);
		if (cp_kpaths_find(&kp, c, (uint32_t)ks[i])) {
			fprintf(stderr, "kpaths: out of memory\n");
			exit(1);
		}
		s = meter_stop(&m, &peak);
		snprintf(name, sizeof(name), "paths k=%" PRIu64, ks[i]);
		row(g->ne, name, s, peak, g->ne);
		for (uint32_t j = 0; j < kp.n; j++)
			sumlen += kp.nedges[j];
		printf("%10" PRIu64 "  (found %u, lengths %" PRIu64 " .. %"
		       PRIu64 ", %.0f edges per path)\n", (uint64_t)g->ne,
		       kp.n, kp.n ? kp.len[0] : 0,
		       kp.n ? kp.len[kp.n - 1] : 0,
		       kp.n ? (double)sumlen / kp.n : 0.0);
		if (ks[i] <= mbm_max_k) {
			uint64_t *mbm = malloc(sizeof(*mbm) * gr->n);

			meter_start(&m);
			cp_mbm_compute(&kp, gr, mbm);
			s = meter_stop(&m, &peak);
			snprintf(name, sizeof(name), "MBM k=%" PRIu64, ks[i]);
			row(g->ne, name, s, peak, g->ne);
			free(mbm);
		}
		cp_kpaths_free(&kp);
	}
}

static void run_size(uint64_t target, uint32_t nt, const uint64_t *ks,
		     int nk, uint32_t nzero, uint64_t mbm_max_k)
{
	struct gen gn;
	struct cp_pag g;
	struct cp_cpm c;
	struct cp_groups gr;
	struct meter m;
	long long peak;
	double s;

	if (random_shape)
		generate_random(&gn, target);
	else
		generate(&gn, target, nt);
	if (cli_cpt) {
		char pag[4096];

		snprintf(pag, sizeof(pag), "%s/bench_graph-%" PRIu64 ".pag",
			 cli_dir, target);
		if (write_pag(&gn, pag)) {
			fprintf(stderr, "cannot write %s\n", pag);
			exit(1);
		}
		printf("%10" PRIu64 "  (%s: %u vertices, %u edges)\n",
		       (uint64_t)gn.ne, pag, gn.nv, gn.ne);
		cli_paths(cli_cpt, cli_dir, pag, ks, nk);
		unlink(pag);
	}
	bench_build(&gn, &g);

	meter_start(&m);
	if (cp_cpm_run(&c, &g, NULL)) {
		fprintf(stderr, "cpm: out of memory\n");
		exit(1);
	}
	s = meter_stop(&m, &peak);
	row(g.ne, "CPM", s, peak, g.ne);
	printf("%10" PRIu64 "  (vertices %u, CP %" PRIu64 " ns over %u "
	       "edges)\n", (uint64_t)g.ne, g.nv, c.length, c.npath);

	gr = (struct cp_groups){ .n = g.nlabels, .of = g.label };
	bench_groups(&g, &c, &gr, nzero);
	bench_kpaths(&g, &c, &gr, ks, nk, mbm_max_k);
	cp_cpm_free(&c);
	cp_pag_free(&g);
}

int main(int argc, char **argv)
{
	uint64_t sizes[8] = { 100000, 1000000, 10000000 };
	uint64_t ks[8] = { 10, 1000, 100000 };
	uint64_t nt = 16, nzero = 4, mbm_max_k = 1000, seed = 1;
	int nsizes = 3, nk = 3, opt;
	struct rusage ru;

	printf("command:");
	for (int i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	while ((opt = getopt(argc, argv, "e:t:k:z:m:s:w:rc:d:")) != -1) {
		switch (opt) {
		case 'e':
			nsizes = parse_list(optarg, sizes, 8);
			break;
		case 'k':
			nk = parse_list(optarg, ks, 8);
			break;
		case 't':
			nt = strtoull(optarg, NULL, 10);
			break;
		case 'z':
			nzero = strtoull(optarg, NULL, 10);
			break;
		case 'm':
			mbm_max_k = strtoull(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'w':
			cross_w = strtoull(optarg, NULL, 10);
			break;
		case 'r':
			random_shape = true;
			break;
		case 'c':
			cli_cpt = optarg;
			break;
		case 'd':
			cli_dir = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-e N,N,..] [-t THREADS] "
				"[-k K,K,..] [-z GROUPS] [-m MBM_MAX_K] "
				"[-s SEED] [-w CROSS_W] [-r] [-c CPT] "
				"[-d DIR]\n", argv[0]);
			return 2;
		}
	}
	if (nt < 1 || nzero > 64) {
		fprintf(stderr, "threads >= 1, groups <= 64\n");
		return 2;
	}
	rng ^= seed * 0x2545F4914F6CDD1DULL;
	printf("%10s  %-22s %11s %18s %12s %14s\n", "edges", "phase", "time",
	       "rate", "peak heap", "per edge");
	for (int i = 0; i < nsizes; i++)
		run_size(sizes[i], (uint32_t)nt, ks, nk, (uint32_t)nzero,
			 mbm_max_k);
	getrusage(RUSAGE_SELF, &ru);
	printf("max RSS of the run: %.1f MB\n", ru.ru_maxrss / 1024.0);
	return 0;
}
