/*
 * cmd_paths.c - `cpt paths TRACE|PAG --k N`: the N longest root-to-leaf
 * paths (near-critical paths, seed 000 §III.D), longest first, each with
 * its length and its edges.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cp_cpm.h"
#include "cp_kpaths.h"
#include "cpt.h"
#include "cpt_input.h"

#define PATHS_K_DEFAULT 10
/* Text output: a path prints at most this many items unless --full (a
 * trace's path can have hundreds of thousands of edges). */
#define PATHS_TEXT_ITEMS 40

static void print_text(struct cpt_ctx *c, const struct cpt_input *in,
		       const struct cp_kpaths *kp, uint32_t *buf, bool full)
{
	char nb[256], lb[32];

	fprintf(c->out, "%u longest path%s of %s (critical path %s)\n",
		kp->n, kp->n == 1 ? "" : "s", in->path,
		in->is_trace ? cpt_fmt_ns(lb, sizeof(lb), kp->cp_length) :
		(snprintf(lb, sizeof(lb), "%" PRIu64, kp->cp_length), lb));
	for (uint32_t i = 0; i < kp->n; i++) {
		uint32_t n = cp_kpaths_edges(kp, i, buf);
		uint64_t slack = kp->cp_length - kp->len[i];
		bool first;
		int col;

		if (in->is_trace)
			cpt_fmt_ns(lb, sizeof(lb), kp->len[i]);
		else
			snprintf(lb, sizeof(lb), "%" PRIu64, kp->len[i]);
		fprintf(c->out, "\n#%-4u length %s", i + 1, lb);
		if (slack) {
			if (in->is_trace)
				cpt_fmt_ns(lb, sizeof(lb), slack);
			else
				snprintf(lb, sizeof(lb), "%" PRIu64, slack);
			fprintf(c->out, "  (%s shorter than the critical path)",
				lb);
		}
		fprintf(c->out, ", %u edge%s\n     ", n, n == 1 ? "" : "s");
		col = 5;
		first = true;
		/* a near-critical path: what differs from the path it
		 * branches off (its shared prefix is said, not repeated) */
		uint32_t from = 0, items = 0;

		if (!full && i > 0 && kp->parent[i] != UINT32_MAX &&
		    kp->pcnt[i] > 0) {
			from = kp->pcnt[i];
			fprintf(c->out, "(as #%u for its first %u edges) ",
				kp->parent[i] + 1, from);
			col += 30;
		}
		for (uint32_t j = from; j < n; j++) {
			uint32_t e = buf[j];
			uint64_t w = in->g->w[e];
			const char *name;
			char item[300];
			int len;

			/* a trace's path: time and thread changes only, runs
			 * of one thread in one procedure as one item */
			if (in->is_trace && !w && in->tp.e_kind[e] != CP_TE_DEP)
				continue;
			name = cpt_input_edge_name(in, e, nb, sizeof(nb));
			if (in->is_trace && w) {
				char nx[256];

				while (j + 1 < n) {
					uint32_t f = buf[j + 1];

					if (in->tp.e_kind[f] == CP_TE_DEP ||
					    in->tp.e_kind[f] == CP_TE_AUX)
						break;
					if (in->g->w[f] &&
					    strcmp(cpt_input_edge_name(in, f,
						nx, sizeof(nx)), name))
						break;
					w += in->g->w[f];
					j++;
				}
				snprintf(item, sizeof(item), "%s %s", name,
					 cpt_fmt_ns(lb, sizeof(lb), w));
			} else if (in->is_trace) {
				snprintf(item, sizeof(item), "%s", name);
			} else {
				snprintf(item, sizeof(item), "%s %" PRIu64,
					 name, w);
			}
			if (!full && ++items > PATHS_TEXT_ITEMS) {
				fprintf(c->out, " > ... (%u more edges; --full "
					"prints them)", n - j);
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
		fprintf(c->out, "\n");
	}
}

static void print_json(struct cpt_ctx *c, const struct cpt_input *in,
		       const struct cp_kpaths *kp, uint32_t *buf)
{
	struct cp_emit e;
	char nb[256];

	cpt_json_begin(c, &e);
	cp_emit_obj_begin(&e, NULL);
	cp_emit_arr_begin(&e, "paths");
	for (uint32_t i = 0; i < kp->n; i++) {
		uint32_t n = cp_kpaths_edges(kp, i, buf);

		cp_emit_obj_begin(&e, NULL);
		cp_emit_u64(&e, "length", kp->len[i]);
		cp_emit_arr_begin(&e, "edges");
		for (uint32_t j = 0; j < n; j++)
			cp_emit_str(&e, NULL, cpt_input_edge_name(in, buf[j],
					nb, sizeof(nb)));
		cp_emit_arr_end(&e);
		cp_emit_obj_end(&e);
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
	bool full = false;
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
			full = true;
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
	for (uint32_t i = 0; i < kp.n; i++)
		if (kp.nedges[i] > maxn)
			maxn = kp.nedges[i];
	buf = malloc(((size_t)maxn + 1) * sizeof(*buf));
	st = buf ? cpt_open_out(c) : CPT_BAD_INPUT;
	if (!buf)
		snprintf(c->err, sizeof(c->err), "%s: out of memory", path);
	if (st == CPT_OK) {
		cpt_progress_done(c);
		if (c->format == CPT_JSON)
			print_json(c, &in, &kp, buf);
		else
			print_text(c, &in, &kp, buf, full);
	}
	free(buf);
	cp_kpaths_free(&kp);
	cp_cpm_free(&cpm);
	cpt_input_free(&in);
	return st;
}
