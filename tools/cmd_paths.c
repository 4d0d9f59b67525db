/*
 * cmd_paths.c - `cpt paths TRACE|PAG --k N [--full [M]]`: the N longest
 * root-to-leaf paths (near-critical paths), longest first, each with its
 * length and where it leaves the path it deviates from.
 *
 * Text: each path from its deviation on (its shared prefix named, not
 * repeated) to where it meets the critical path again (its rest named),
 * at most 40 items; --full M spells the first M paths edge by edge, bare
 * --full all of them.  JSON: the implicit form of cp_kpaths.h,
 * one object a path ({"length", "edge_count", "parent", "shared",
 * "deviation", "departs", "rejoins", "rejoins_cp_at"}), with "edges" for
 * the first M paths only, so its size grows with k, not k times the path
 * length.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cp_cpm.h"
#include "cp_kpaths.h"
#include "cpt.h"
#include "cpt_input.h"

#define PATHS_K_DEFAULT 10
/* Text output: a path prints at most this many items unless spelled in
 * full (a trace's path can have hundreds of thousands of edges). */
#define PATHS_TEXT_ITEMS 40

/*
 * The edge after @cur, at position @j + 1 of path i: from @buf when the
 * path was spelled into it, else along the least-slack continuation (a
 * path's own part, from its deviation on, is exactly that).
 */
static uint32_t edge_after(const struct cp_kpaths *kp, const uint32_t *buf,
			   uint32_t j, uint32_t cur)
{
	return buf ? buf[j + 1] : kp->next[kp->g->head[cur]];
}

static const char *num(const struct cpt_input *in, char *b, size_t len,
		       uint64_t v)
{
	if (in->is_trace)
		return cpt_fmt_ns(b, len, v);
	snprintf(b, len, "%" PRIu64, v);
	return b;
}

/*
 * Path @i: the first @nfull paths edge by edge in full, the others from
 * their deviation on, at most PATHS_TEXT_ITEMS items (the shared prefix
 * is said, not repeated).
 */
static void print_text_path(struct cpt_ctx *c, const struct cpt_input *in,
			    const struct cp_kpaths *kp, uint32_t i,
			    uint32_t *buf, uint32_t nfull)
{
	bool full = i < nfull, first = true;
	uint32_t n = kp->nedges[i], from = 0, items = 0, e, stop = n;
	uint64_t slack = kp->cp_length - kp->len[i];
	const uint32_t *b = NULL;
	char nb[256], lb[32];
	int col = 5;

	fprintf(c->out, "\n#%-4u length %s", i + 1,
		num(in, lb, sizeof(lb), kp->len[i]));
	if (slack)
		fprintf(c->out, "  (%s shorter than the critical path)",
			num(in, lb, sizeof(lb), slack));
	fprintf(c->out, ", %u edge%s\n     ", n, n == 1 ? "" : "s");
	if (full) {
		cp_kpaths_edges(kp, i, buf);
		b = buf;
		e = buf[0];
	} else {
		if (kp->parent[i] != CP_PAG_NONE && kp->pcnt[i] > 0) {
			from = kp->pcnt[i];
			fprintf(c->out, "(as #%u for its first %u edges) ",
				kp->parent[i] + 1, from);
			col += 30;
		}
		e = kp->dev[i];
		/* from where it meets the critical path again, it is #1 */
		if (i > 0 && cp_kpaths_rejoins_at(kp, i) != CP_PAG_NONE)
			stop = n - (kp->nedges[0] -
				    cp_kpaths_rejoins_at(kp, i));
	}
	for (uint32_t j = from; j < stop; j++, e = j < stop ?
	     edge_after(kp, b, j - 1, e) : e) {
		uint64_t w = in->g->w[e];
		const char *name;
		char item[300];
		int len;

		/* a trace's path: time and thread changes only, runs of
		 * one thread in one procedure as one item */
		if (in->is_trace && !w && in->tp.e_kind[e] != CP_TE_DEP)
			continue;
		name = cpt_input_edge_name(in, e, nb, sizeof(nb));
		if (in->is_trace && w) {
			char nx[256];

			while (j + 1 < stop) {
				uint32_t f = edge_after(kp, b, j, e);

				if (in->tp.e_kind[f] == CP_TE_DEP ||
				    in->tp.e_kind[f] == CP_TE_AUX)
					break;
				if (in->g->w[f] &&
				    strcmp(cpt_input_edge_name(in, f, nx,
							       sizeof(nx)),
					   name))
					break;
				w += in->g->w[f];
				e = f;
				j++;
			}
			snprintf(item, sizeof(item), "%s %s", name,
				 cpt_fmt_ns(lb, sizeof(lb), w));
		} else if (in->is_trace) {
			snprintf(item, sizeof(item), "%s", name);
		} else {
			snprintf(item, sizeof(item), "%s %" PRIu64, name, w);
		}
		if (!full && ++items > PATHS_TEXT_ITEMS) {
			fprintf(c->out, " > ... (%u more edges; --full "
				"prints them)", stop - j);
			break;
		}
		len = (int)strlen(item) + (first ? 0 : 3);
		if (col + len > 100 && col > 5) {
			fprintf(c->out, "\n     ");
			col = 5;
		}
		fprintf(c->out, "%s%s", first ? "" : " > ", item);
		col += len;
		first = false;
	}
	if (stop < n)
		fprintf(c->out, "%s(then as #1 for its last %u edges)",
			first ? "" : col + 35 > 100 ? "\n      > " : " > ",
			n - stop);
	fprintf(c->out, "\n");
}

static void print_text(struct cpt_ctx *c, const struct cpt_input *in,
		       const struct cp_kpaths *kp, uint32_t *buf,
		       uint32_t nfull)
{
	char lb[32];

	fprintf(c->out, "%u longest path%s of %s (critical path %s)\n",
		kp->n, kp->n == 1 ? "" : "s", in->path,
		num(in, lb, sizeof(lb), kp->cp_length));
	for (uint32_t i = 0; i < kp->n; i++) {
		print_text_path(c, in, kp, i, buf, nfull);
		if ((i & 1023) == 1023)
			cpt_progress(c, "writing", (double)i / kp->n);
	}
}

/* A vertex by name, or null. */
static void emit_vertex(struct cp_emit *e, const struct cpt_input *in,
			const char *key, uint32_t v)
{
	char nb[64];

	if (v == CP_PAG_NONE)
		cp_emit_null(e, key);
	else
		cp_emit_str(e, key, cpt_input_vertex_name(in, v, nb,
							  sizeof(nb)));
}

/*
 * The implicit form: each path as its parent plus one deviation; the
 * edges of the first @nfull paths spelled out.
 */
static void print_json(struct cpt_ctx *c, const struct cpt_input *in,
		       const struct cp_kpaths *kp, uint32_t *buf,
		       uint32_t nfull)
{
	struct cp_emit e;
	char nb[256];

	cpt_json_begin(c, &e);
	cp_emit_obj_begin(&e, NULL);
	cp_emit_u64(&e, "critical_path_length", kp->cp_length);
	cp_emit_arr_begin(&e, "paths");
	for (uint32_t i = 0; i < kp->n; i++) {
		uint32_t at = cp_kpaths_rejoins_at(kp, i);

		cp_emit_obj_begin(&e, NULL);
		cp_emit_u64(&e, "length", kp->len[i]);
		cp_emit_u64(&e, "edge_count", kp->nedges[i]);
		if (kp->parent[i] == CP_PAG_NONE)
			cp_emit_null(&e, "parent");
		else
			cp_emit_u64(&e, "parent", kp->parent[i]);
		cp_emit_u64(&e, "shared", kp->pcnt[i]);
		cp_emit_str(&e, "deviation", cpt_input_edge_name(in,
				kp->dev[i], nb, sizeof(nb)));
		emit_vertex(&e, in, "departs", cp_kpaths_departs(kp, i));
		emit_vertex(&e, in, "rejoins", cp_kpaths_rejoins(kp, i));
		if (at == CP_PAG_NONE)
			cp_emit_null(&e, "rejoins_cp_at");
		else
			cp_emit_u64(&e, "rejoins_cp_at", at);
		if (i < nfull) {
			uint32_t n = cp_kpaths_edges(kp, i, buf);

			cp_emit_arr_begin(&e, "edges");
			for (uint32_t j = 0; j < n; j++)
				cp_emit_str(&e, NULL, cpt_input_edge_name(in,
						buf[j], nb, sizeof(nb)));
			cp_emit_arr_end(&e);
		}
		cp_emit_obj_end(&e);
		if ((i & 1023) == 1023)
			cpt_progress(c, "writing", (double)i / kp->n);
	}
	cp_emit_arr_end(&e);
	cp_emit_obj_end(&e);
	cp_emit_end(&e);
}

enum cpt_status cpt_cmd_paths(struct cpt_ctx *c, int argc, char **argv)
{
	const char *path = NULL;
	uint32_t k = PATHS_K_DEFAULT, maxn = 0;
	struct cpt_input in;
	struct cp_cpm cpm;
	struct cp_kpaths kp;
	uint32_t *buf = NULL;
	uint32_t nfull = 0;
	enum cpt_status st;

	for (int i = 1; i < argc; i++) {
		int r = cpt_common_opt(c, argc, argv, &i);

		if (r < 0)
			return CPT_USAGE;
		if (r)
			continue;
		if (!strcmp(argv[i], "--k") || !strcmp(argv[i], "-k")) {
			if (i + 1 >= argc) {
				snprintf(c->err, sizeof(c->err),
					 "%s needs a value", argv[i]);
				return CPT_USAGE;
			}
			if (cpt_parse_u32(c, argv[i], argv[i + 1], &k))
				return CPT_USAGE;
			i++;
		} else if (!strcmp(argv[i], "--full")) {
			/* --full N: the first N paths; bare: all of them */
			nfull = UINT32_MAX;
			if (i + 1 < argc && argv[i + 1][0] >= '0' &&
			    argv[i + 1][0] <= '9') {
				if (cpt_parse_u32(c, "--full", argv[i + 1],
						    &nfull))
					return CPT_USAGE;
				i++;
			}
		} else if (!strncmp(argv[i], "--full=", 7)) {
			if (cpt_parse_u32(c, "--full", argv[i] + 7, &nfull))
				return CPT_USAGE;
		} else if (!strncmp(argv[i], "--k=", 4)) {
			if (cpt_parse_u32(c, "--k", argv[i] + 4, &k))
				return CPT_USAGE;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			snprintf(c->err, sizeof(c->err), "unknown option '%s'",
				 argv[i]);
			return CPT_USAGE;
		} else if (path) {
			snprintf(c->err, sizeof(c->err),
				 "one input only ('%s' and '%s')", path,
				 argv[i]);
			return CPT_USAGE;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		snprintf(c->err, sizeof(c->err), "no trace or graph given");
		return CPT_USAGE;
	}
	st = cpt_input_load(c, path, &in);
	if (st)
		return st;
	cpt_progress(c, "critical path", 0.0);
	if (cp_cpm_run(&cpm, in.g, NULL)) {
		snprintf(c->err, sizeof(c->err), "%s: out of memory", path);
		cpt_input_free(&in);
		return CPT_BAD_INPUT;
	}
	cpt_progress(c, "near-critical paths", 0.0);
	if (cp_kpaths_find(&kp, &cpm, k)) {
		snprintf(c->err, sizeof(c->err), "%s: out of memory", path);
		cp_cpm_free(&cpm);
		cpt_input_free(&in);
		return CPT_BAD_INPUT;
	}
	for (uint32_t i = 0; i < kp.n && i < nfull; i++)
		if (kp.nedges[i] > maxn)
			maxn = kp.nedges[i];
	buf = malloc(((size_t)maxn + 1) * sizeof(*buf));
	st = buf ? cpt_open_out(c) : CPT_BAD_INPUT;
	if (!buf)
		snprintf(c->err, sizeof(c->err), "%s: out of memory", path);
	if (st == CPT_OK) {
		cpt_progress_done(c);
		if (c->format == CPT_JSON)
			print_json(c, &in, &kp, buf, nfull);
		else
			print_text(c, &in, &kp, buf, nfull);
		cpt_progress_done(c);
	}
	free(buf);
	cp_kpaths_free(&kp);
	cp_cpm_free(&cpm);
	cpt_input_free(&in);
	return st;
}
